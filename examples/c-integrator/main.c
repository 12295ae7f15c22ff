/* A C integrator: no Rust code of its own. The Makefile runs the arenaplan CLI to generate the
 * header, arenas and program tables, then compiles them with the runtime and this file. The
 * model runs in five calls: model_init, model_input, model_run, model_output, model_deinit. */
#include <stdio.h>

#include "arenaplan/ethosu_sim.h"
#include "model.h"

int main(void) {
    printf("pool sram: arena %u B of %u B (lower bound %u B)\n", MODEL_ARENA_SRAM_SIZE,
           MODEL_POOL_SRAM_CAPACITY, MODEL_POOL_SRAM_LOWER_BOUND);
#ifdef MODEL_CALL0_SCRATCH_SIZE
    printf("call 0 scratch: %u B at offset %u\n", MODEL_CALL0_SCRATCH_SIZE, MODEL_CALL0_SCRATCH_OFFSET);
#endif
    /* No NPU here: register the emulated Ethos-U55-128 (a board calls ethosu_init instead). */
    ap_status_t s = ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
    if (s != AP_OK) {
        printf("NPU set-up failed: %s\n", ap_status_name(s));
        return 1;
    }

    s = model_init();
    uint32_t in_size, out_size;
    uint8_t *in = model_input(0, &in_size);
    for (uint32_t i = 0; i < in_size; i++) {
        in[i] = (uint8_t)(i % 7);
    }
    if (s == AP_OK) {
        s = model_run();
    }
    const uint8_t *out = model_output(0, &out_size);
    model_deinit();

    if (s != AP_OK) {
        printf("failed at call %u: %s\n", (unsigned)model_failed_call(), ap_status_name(s));
        return 1;
    }
    unsigned sum = 0;
    for (uint32_t i = 0; i < out_size; i++) {
        sum += out[i];
    }
    printf("ran %u call(s) on the emulated Ethos-U55; output %u bytes (sum %u)\n", MODEL_CALL_COUNT,
           (unsigned)out_size, sum);
    return 0;
}
