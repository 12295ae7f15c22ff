/* Ethos-U board bring-up (see arenaplan/board.h): compiled with the feature `board` (with the
 * simulators, the emulated NPU's device layer is the register layer it drives). A file of its own, apart
 * from Neutron's, so that firmware for one NPU never references the other's library. */
#include "arenaplan/board.h"

void ap_board_enable_irq(uint32_t irq) {
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
    /* NVIC_ISERn (Armv7-M/Armv8-M ARM, B3.4): a 1 enables, a 0 changes nothing. Ordered
     * after the driver's set-up by the barriers, as CMSIS's NVIC_EnableIRQ is. */
    volatile uint32_t *const iser = (volatile uint32_t *)0xE000E100u;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    iser[irq / 32u] = 1u << (irq % 32u);
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#else
    (void)irq;
#endif
}

#if defined(AP_ETHOSU_ARM_DRIVER)
#include <ethosu_driver.h>

/* No heap needed: the driver's semaphores from a static pool — here, unless the emulated NPU's
 * device layer is linked too (firmware for QEMU), which defines them. */
#if !defined(AP_ETHOSU_EMULATED)
#include "ethosu_semaphores.h"
#endif

/* The driver instance: ethosu_init registers it in Arm's driver list, where the backend's
 * ethosu_reserve_driver finds it at each call. */
static struct ethosu_driver board_driver;
static volatile int board_driver_ready;

ap_status_t ap_board_ethosu_init(void *base_address, void *fast_memory, size_t fast_memory_size,
                                 uint32_t secure, uint32_t privileged) {
    if (board_driver_ready) {
        return AP_ERR_DRIVER_SETUP; /* registered twice, the driver list would hold a loop */
    }
    if (ethosu_init(&board_driver, base_address, fast_memory, fast_memory_size, secure, privileged) != 0) {
        return AP_ERR_DRIVER;
    }
    board_driver_ready = 1;
    return AP_OK;
}

void ap_board_ethosu_irq(void) {
    if (board_driver_ready) {
        ethosu_irq_handler(&board_driver);
    }
}
#endif
