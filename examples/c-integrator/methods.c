/* A program with two methods sharing state (build-support/testdata/fixtures/
 * ethosu_u55_two_methods_shared_state.pte): `update` writes the state from its input; `forward`
 * (the default method: model_*) runs a call on its own input, then reads the state into its
 * output. Both methods' tables bind the same arena; the state, and each method's inputs and
 * outputs, are placed apart from everything else, so they keep their contents between runs,
 * while the two methods' NPU scratch shares memory.
 *
 * The state starts from the program's initial contents (byte i: 7 i + 1), which model_init
 * copies in. The emulated NPU writes output byte j as (sum of the input bytes + 31 j) mod 256,
 * so each output is checked against that rule, chained through the state. */
#include <stdio.h>

#include "arenaplan/ethosu_sim.h"
#include "model.h"

/* (sum of in + 31 j) mod 256 for j < n: what the emulated NPU writes. */
static unsigned emulated_sum(unsigned in_sum, uint32_t n) {
    unsigned sum = 0;
    for (uint32_t j = 0; j < n; j++) {
        sum += (uint8_t)(in_sum + 31u * j);
    }
    return sum;
}

static int fail(const char *what, ap_status_t s, uint32_t call) {
    printf("%s failed at call %u: %s\n", what, (unsigned)call, ap_status_name(s));
    return 1;
}

int main(void) {
    ap_status_t s = ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
    if (s != AP_OK || (s = model_init()) != AP_OK) {
        return fail("set-up", s, model_failed_call());
    }
    uint32_t x_size, y_size;
    uint8_t *x = model_update_input(0, &x_size);
    const uint8_t *y = model_output(0, &y_size);
    uint32_t f_size;
    uint8_t *f = model_input(0, &f_size);
    if (x == NULL || y == NULL || f == NULL || MODEL_UPDATE_INPUT_COUNT != 1 || MODEL_INPUT_COUNT != 1) {
        printf("unexpected API\n");
        return 1;
    }
    /* Before any update, and again after a re-init: forward reads the initial state. */
    unsigned initial_sum = 0;
    for (unsigned i = 0; i < 512; i++) {
        initial_sum += (uint8_t)(7u * i + 1u);
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            model_deinit();
            if ((s = model_init()) != AP_OK) {
                return fail("re-init", s, model_failed_call());
            }
        }
        if ((s = model_run()) != AP_OK) {
            return fail("forward", s, model_failed_call());
        }
        for (uint32_t j = 0; j < y_size; j++) {
            if (y[j] != (uint8_t)(initial_sum + 31u * j)) {
                printf("forward on the initial state (pass %d): output byte %u is %u, expected %u\n", pass,
                       (unsigned)j, y[j], (uint8_t)(initial_sum + 31u * j));
                return 1;
            }
        }
        if (pass == 0) {
            /* An update changes the state; the re-init below restores the initial contents. */
            if ((s = model_update_run()) != AP_OK) {
                return fail("update", s, model_update_failed_call());
            }
        }
    }
    printf("forward on the initial state: as expected, also after an update and a re-init\n");
    for (int round = 1; round <= 2; round++) {
        unsigned x_sum = 0;
        for (uint32_t i = 0; i < x_size; i++) {
            x[i] = (uint8_t)(i * round + 3);
            x_sum += x[i];
        }
        if ((s = model_update_run()) != AP_OK) {
            return fail("update", s, model_update_failed_call());
        }
        /* The state is the update's output: 512 bytes by the rule. Forward runs twice: its
         * first call's buffers and scratch share memory with update's, never with the state,
         * so the state survives both runs. */
        unsigned state_sum = emulated_sum(x_sum, 512);
        for (int again = 0; again < 2; again++) {
            for (uint32_t i = 0; i < f_size; i++) {
                f[i] = (uint8_t)(i + again);
            }
            if ((s = model_run()) != AP_OK) {
                return fail("forward", s, model_failed_call());
            }
            for (uint32_t j = 0; j < y_size; j++) {
                if (y[j] != (uint8_t)(state_sum + 31u * j)) {
                    printf("round %d, forward %d: output byte %u is %u, expected %u\n", round, again, (unsigned)j,
                           y[j], (uint8_t)(state_sum + 31u * j));
                    return 1;
                }
            }
        }
        printf("round %d: update (input sum %u) then forward twice: %u output bytes as the shared state says\n",
               round, x_sum, (unsigned)y_size);
    }
    model_deinit();
    printf("two methods, one arena of %u B: state kept between runs\n", MODEL_ARENA_SRAM_SIZE);
    return 0;
}
