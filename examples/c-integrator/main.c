/* A C integrator: no Rust code of its own. The Makefile runs the arenaplan CLI to generate the
 * header, arenas and program tables, then compiles them with the runtime and this file. */
#include <stdio.h>

#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_sim.h"
#include "model.h"
#include "model_program.h"

int main(void) {
    ap_pool_t pools[] = {{MODEL_MEM_ID_SRAM, model_arena_sram, MODEL_ARENA_SRAM_SIZE}};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    static ap_buffer_t values[16], args[8];
    static ap_handle_t handles[4];
    static const ap_backend_t *resolved[4];
    ap_method_memory_t memory = {values, 16, handles, resolved, 4, NULL, 0, args, 8, NULL, 0};
    ap_method_t method;

    printf("pool sram: arena %u B of %u B (lower bound %u B)\n", MODEL_ARENA_SRAM_SIZE,
           MODEL_POOL_SRAM_CAPACITY, MODEL_POOL_SRAM_LOWER_BOUND);
    printf("call 0 scratch: %u B at offset %u; call 1 scratch: %u B at offset %u\n",
           MODEL_CALL0_SCRATCH_SIZE, MODEL_CALL0_SCRATCH_OFFSET, MODEL_CALL1_SCRATCH_SIZE,
           MODEL_CALL1_SCRATCH_OFFSET);
    /* No NPU here: register the emulated Ethos-U55-128 (a board calls ethosu_init instead). */
    ap_status_t s = ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
    if (s != AP_OK) {
        printf("NPU set-up failed: %s\n", ap_status_name(s));
        return 1;
    }
    s = ap_method_init(&method, &model_program, pools, 1, backends, 1, NULL, 0, &memory);
    if (s != AP_OK) {
        printf("init failed: %s\n", ap_status_name(s));
        return 1;
    }
    ap_buffer_t input, output;
    ap_method_input(&method, 0, &input);
    for (size_t i = 0; i < input.size; i++) {
        input.data[i] = (uint8_t)(i % 7);
    }
    s = ap_method_execute(&method);
    ap_method_output(&method, 0, &output);
    ap_method_destroy(&method);
    if (s != AP_OK) {
        printf("execute failed: %s\n", ap_status_name(s));
        return 1;
    }
    printf("ran 2 Ethos-U calls on the driver simulator; output %u bytes\n", (unsigned)output.size);
    return 0;
}
