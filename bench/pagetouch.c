/* pagetouch.c — what the machine charges for the first write to a fresh page
 * of memory, the cost a runtime pays whenever it grows into memory it has not
 * used before (bench/flood.mini explains why its warm-up exists).
 *
 * Maps 64 MiB (with MAP_POPULATE, as Mini's message memory is mapped), writes
 * one word per 88 bytes (a queued message's block) twice over, and prints the
 * cost of the first pass and of the second per 4 KiB page:
 *
 *   cc -O2 -o /tmp/pagetouch bench/pagetouch.c && /tmp/pagetouch
 *   pagetouch: first write 12871 ns/page, second 68 ns/page
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double write_pass(char *m, size_t len, size_t stride)
{
    double t0 = now_ns();
    for (size_t i = 0; i + sizeof(void *) <= len; i += stride)
        *(void *volatile *)(m + i) = m;
    return now_ns() - t0;
}

int main(void)
{
    size_t len = (size_t)64 << 20, pages = len / 4096;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED) {
        perror("pagetouch: mmap");
        return 1;
    }
    double first = write_pass(m, len, 88), second = write_pass(m, len, 88);
    printf("pagetouch: first write %.0f ns/page, second %.0f ns/page\n",
           first / pages, second / pages);
    return 0;
}
