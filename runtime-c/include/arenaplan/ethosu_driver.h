/* The part of Arm's Ethos-U core driver API the Ethos-U backend calls. Real firmware links
 * Arm's driver (ethos-u-core-driver); on the host and under QEMU, which has no NPU, it links
 * arenaplan's simulator (csrc/ethosu_sim.c), which has the same signatures. This header is the
 * seam between the two. */
#ifndef ARENAPLAN_ETHOSU_DRIVER_H
#define ARENAPLAN_ETHOSU_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ethosu_driver;

struct ethosu_driver *ethosu_reserve_driver(void);
void ethosu_release_driver(struct ethosu_driver *drv);
/* Runs a command stream. base_addr[k] / base_addr_size[k] are region k: 0 weights, 1 scratch
 * (which also holds the input and output copies), 2 fast scratch. Returns 0 on success. */
int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_ETHOSU_DRIVER_H */
