/* The Ethos-U driver's semaphores as a small static pool, in place of Arm's default ones, which
 * malloc: firmware without a heap links. Strong definitions of the driver's weak functions, so
 * this file is included by exactly one translation unit of a build, one the link pulls in for
 * other reasons (an archive member is never pulled to override a weak symbol): the emulated
 * NPU's device layer (ethosu_device_host.c) or the board's bring-up (board_ethosu.c). Firmware
 * on an RTOS defines its own (the linker then names both definitions) and calls ethosu_init
 * itself.
 *
 * A wait sleeps on WFE until the interrupt handler's give (SEV) on Cortex-M; elsewhere the
 * includer defines AP_ETHOSU_WAIT_HOOK() to make progress. */
#ifndef ARENAPLAN_ETHOSU_SEMAPHORES_H
#define ARENAPLAN_ETHOSU_SEMAPHORES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    volatile uint32_t count;
    int used;
} ap_ethosu_semaphore_t;

/* The driver takes one per driver instance and one for its list: four is room to spare. */
static ap_ethosu_semaphore_t ap_ethosu_semaphores[4];

void *ethosu_semaphore_create(void) {
    for (size_t i = 0; i < sizeof ap_ethosu_semaphores / sizeof ap_ethosu_semaphores[0]; i++) {
        if (!ap_ethosu_semaphores[i].used) {
            ap_ethosu_semaphores[i].used = 1;
            ap_ethosu_semaphores[i].count = 0;
            return &ap_ethosu_semaphores[i];
        }
    }
    return NULL;
}

void ethosu_semaphore_destroy(void *sem) {
    if (sem != NULL) {
        ((ap_ethosu_semaphore_t *)sem)->used = 0;
    }
}

int ethosu_semaphore_take(void *sem, uint64_t timeout) {
    (void)timeout;
    ap_ethosu_semaphore_t *s = sem;
    /* No semaphore: ethosu_init never ran (Arm's driver creates its list semaphore there).
     * Failing the take lets ethosu_reserve_driver find no driver and return NULL, which the
     * backend reports as AP_ERR_DRIVER_SETUP, instead of a fault here. */
    if (s == NULL) {
        return -1;
    }
    while (s->count == 0) {
#if defined(__arm__)
        __asm volatile("wfe" ::: "memory");
#else
        AP_ETHOSU_WAIT_HOOK();
#endif
    }
    s->count--;
    return 0;
}

int ethosu_semaphore_give(void *sem) {
    if (sem == NULL) {
        return -1;
    }
    ((ap_ethosu_semaphore_t *)sem)->count++;
#if defined(__arm__)
    __asm volatile("sev" ::: "memory");
#endif
    return 0;
}

#endif /* ARENAPLAN_ETHOSU_SEMAPHORES_H */
