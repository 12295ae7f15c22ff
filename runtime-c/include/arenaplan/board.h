/*
 * Bringing up the NPU on a board: firmware built without the simulators. The Rust API over it
 * is `arenaplan::board`; C integrators call Arm's and NXP's functions themselves, or these.
 */
#ifndef ARENAPLAN_BOARD_H
#define ARENAPLAN_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initialises the one Ethos-U driver instance the Ethos-U backend reserves at each call: Arm's
 * ethosu_init with the NPU's register base, the driver's fast memory (NULL, 0 for none: the
 * Ethos-U65/U85 Dedicated_Sram cache) and the security and privilege levels the NPU is driven
 * at. AP_ERR_DRIVER_SETUP if it is initialised already; AP_ERR_DRIVER if Arm's driver refuses
 * (a register base without an Ethos-U: ID and CONFIG do not read back as one). Requires Arm's
 * driver (ETHOS_U_CORE_DRIVER_PATH at build time). */
ap_status_t ap_board_ethosu_init(void *base_address, void *fast_memory, size_t fast_memory_size,
                                 uint32_t secure, uint32_t privileged);

/* Enables interrupt `irq` (CMSIS IRQn, at least 0) in the Cortex-M NVIC: the NPU's, once its
 * handler is in place. Nothing on a CPU without an NVIC. */
void ap_board_enable_irq(uint32_t irq);

/* The NPU's interrupt: Arm's ethosu_irq_handler on the driver ap_board_ethosu_init set up
 * (nothing before it). Call it from the Ethos-U IRQ's handler. */
void ap_board_ethosu_irq(void);

/* NXP's neutronInit (once, before the first inference): AP_ERR_DRIVER if it fails. */
ap_status_t ap_board_neutron_init(void);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_BOARD_H */
