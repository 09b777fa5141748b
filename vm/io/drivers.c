/* drivers.c — the drivers linked into the runtime, by name: what
 * open_port({spawn_driver, Name}, _) can open (and the drivers behind
 * {spawn, _} and {spawn_executable, _}, named after those atoms). Adding a
 * driver is one line here and a DrvEntry in its own file (docs/drivers.md).
 */
#include <string.h>

#include "port.h"

extern const DrvEntry drv_echo, drv_textscan, drv_spawn, drv_spawn_executable;
extern const DrvEntry drv_tcp_inet, drv_udp_inet;          /* vm/dist: sockets */
extern const DrvEntry drv_dist_listen, drv_dist_conn;     /* vm/dist */

static const DrvEntry *const drivers[] = {
    &drv_echo,
    &drv_textscan,
    &drv_spawn,
    &drv_spawn_executable,
    &drv_tcp_inet,
    &drv_udp_inet,
    &drv_dist_listen,
    &drv_dist_conn,
};
#define NDRIVERS (sizeof drivers / sizeof drivers[0])
static int unavailable[NDRIVERS];            /* init() said no */

void port_drivers_init(void) {
    for (size_t i = 0; i < NDRIVERS; i++)
        if (drivers[i]->init && drivers[i]->init() != 0) unavailable[i] = 1;
}

const DrvEntry *port_driver_find(const char *name, size_t len) {
    for (size_t i = 0; i < NDRIVERS; i++)
        if (!unavailable[i] && strlen(drivers[i]->name) == len && memcmp(drivers[i]->name, name, len) == 0)
            return drivers[i];
    return NULL;
}
