/* The board's side of the integrator: the same five calls, with Arm's driver and no simulator.
 * CI builds it for Cortex-M55 with CMake (arm-none-eabi-gcc). */
#include <string.h>

#include "arenaplan/board.h"
#include "model.h"

/* Corstone-300's Ethos-U55: its secure register alias, driven secure and privileged, on IRQ 56
 * (as Arm's platform code for the board has it). */
#define NPU_BASE ((void *)0x48102000u)
#define NPU_IRQ 56u

/* Start-up, once before the first inference: Arm's driver for the NPU, then its interrupt. */
ap_status_t integrator_board_init(void) {
    ap_status_t s = ap_board_ethosu_init(NPU_BASE, NULL, 0, 1, 1);
    if (s == AP_OK) {
        ap_board_enable_irq(NPU_IRQ);
    }
    return s;
}

/* The NPU's interrupt handler (the vector table's entry for IRQ 56). */
void NPU_IRQHandler(void) { ap_board_ethosu_irq(); }

/* One inference: `image` into input 0, the first `room` bytes of output 0 into `out`. Every
 * input is written before every run (the NPU may reuse an input's bytes once it has read them). */
ap_status_t integrator_infer(const uint8_t *image, uint32_t bytes, uint8_t *out, uint32_t room) {
    static int ready;
    if (!ready) {
        ap_status_t s = model_init();
        if (s != AP_OK) {
            return s;
        }
        ready = 1;
    }
    uint32_t size = 0;
    uint8_t *in = model_input(0, &size);
    if (in == NULL || size != bytes) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(in, image, bytes);
    ap_status_t s = model_run();
    if (s != AP_OK) {
        return s;
    }
    const uint8_t *result = model_output(0, &size);
    memcpy(out, result, size < room ? size : room);
    return AP_OK;
}
