/* fatal.h — errors the VM cannot go on after, and assertions, in one place.
 *
 * FATAL(fmt, ...) prints "mini: <message>" on standard error and aborts, so
 * that a debugger or a core file shows where. It is for what no Erlang
 * program can be told about: the C allocator refusing memory in code that
 * cannot back out, a table of the VM's own full, a broken invariant.
 * (Errors a program can handle are exceptions: bif_raise in bif.h.)
 *
 * ASSERT(cond) checks an invariant in every build, release included: each
 * one is cheap, sits off the hot paths, and a clear message at the first
 * broken invariant beats a corrupt heap found much later. UNREACHABLE()
 * marks a case the code before it rules out. Both name the file and line.
 */
#ifndef MINI_FATAL_H
#define MINI_FATAL_H

__attribute__((noreturn, format(printf, 1, 2)))
void fatal_error(const char *fmt, ...);

#define FATAL(...) fatal_error(__VA_ARGS__)
#define ASSERT(cond) \
    ((cond) ? (void)0 : fatal_error("%s:%d: assertion failed: %s", __FILE__, __LINE__, #cond))
#define UNREACHABLE() fatal_error("%s:%d: unreachable code reached", __FILE__, __LINE__)

#endif
