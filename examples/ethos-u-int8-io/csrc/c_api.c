/* The C half of the check: the generated C API of a program with constant methods, as a C
 * integrator calls it. Each constant method runs and its output is read where the API says it
 * is (in flash); forward runs on the input given. Nothing here writes a constant: on the host
 * they are in read-only pages, so a write would fault. */
#include <stdint.h>
#include <string.h>

#include "model.h"

/* Runs the four quantization-parameter methods and forward once; copies each constant's 8
 * bytes to `constants` (input scale, input zero point, output scale, output zero point) and
 * forward's output to `out`. 0 when everything ran, else the step that failed (1-based). */
int c_api_run(const int8_t *input, uint32_t input_size, uint8_t constants[4][8], int8_t *out,
              uint32_t out_size) {
    if (model_init() != AP_OK) {
        return 1;
    }
    ap_status_t (*const run[4])(void) = {model_input0_scale_run, model_input0_zp_run,
                                           model_output0_scale_run, model_output0_zp_run};
    const uint8_t *(*const output[4])(uint32_t, uint32_t *) = {
        model_input0_scale_output, model_input0_zp_output, model_output0_scale_output,
        model_output0_zp_output};
    for (int m = 0; m < 4; m++) {
        uint32_t size = 0;
        if (run[m]() != AP_OK) {
            return 2 + m;
        }
        const uint8_t *value = output[m](0, &size);
        if (value == NULL || size != 8) {
            return 2 + m;
        }
        memcpy(constants[m], value, 8);
    }
    uint32_t size = 0;
    uint8_t *in = model_input(0, &size);
    if (in == NULL || size < input_size) {
        return 6;
    }
    memcpy(in, input, input_size);
    if (model_run() != AP_OK) {
        return 7;
    }
    const uint8_t *result = model_output(0, &size);
    if (result == NULL || size < out_size) {
        return 8;
    }
    memcpy(out, result, out_size);
    model_deinit();
    return 0;
}
