/* The seam between the Ethos-U backend and Arm's Ethos-U core driver.
 *
 * With Arm's driver (the build defines AP_ETHOSU_ARM_DRIVER and puts the driver's include/
 * folder on the include path; see runtime-c/README.md), this is Arm's own ethosu_driver.h and
 * nothing here declares anything. Without it, the driver simulator (emulation/ethosu_sim.c) provides
 * the same functions with the same signatures, and this header declares the part of Arm's API
 * the backend and the host set-up use, with the fields of struct ethosu_driver the backend reads
 * (fast_memory, fast_memory_size) under Arm's names. */
#ifndef ARENAPLAN_ETHOSU_DRIVER_H
#define ARENAPLAN_ETHOSU_DRIVER_H

#ifdef AP_ETHOSU_ARM_DRIVER
#include <ethosu_driver.h>
#else

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ethosu_driver {
    uint64_t fast_memory; /* given to ethosu_init: replaces base address 2 of every job */
    size_t fast_memory_size;
    void *npu;            /* the base_address given to ethosu_init */
    int registered;
    int reserved;
};

int ethosu_init(struct ethosu_driver *drv, void *const base_address, const void *fast_memory,
                const size_t fast_memory_size, uint32_t secure_enable, uint32_t privilege_enable);
void ethosu_deinit(struct ethosu_driver *drv);
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

#endif /* AP_ETHOSU_ARM_DRIVER */
#endif /* ARENAPLAN_ETHOSU_DRIVER_H */
