/* A program with two methods sharing state (build-support/testdata/fixtures/
 * ethosu_u55_two_methods_shared_state.pte): `update` writes the state from its input (Vela's
 * compilation of the fixture's convolution); `forward` (the default method: model_*) runs a
 * call on its own input, then pools the state into its output (the fixture's 2x2 max pooling).
 * Both methods' tables bind the same arena; the state, and each method's inputs and outputs,
 * are placed apart from everything else, so they keep their contents between runs, while the
 * two methods' NPU scratch shares memory.
 *
 * The state starts from the program's initial contents (byte i: 7 i + 1), which model_init
 * copies in: forward then gives their 2x2 maximum (int8, same quantization in and out). After
 * an update, forward gives TFLM's convolution then pooling of the update's input: the
 * arguments are pairs of .npy files (TFLM's input and output, testdata/tflm-reference/
 * fixture_conv_then_pool). */
#include <stdio.h>
#include <string.h>

#include "arenaplan/ethosu_sim.h"
#include "model.h"

static int fail(const char *what, ap_status_t s, uint32_t call) {
    printf("%s failed at call %u: %s\n", what, (unsigned)call, ap_status_name(s));
    return 1;
}

/* The data of a version-1 .npy file of `size` bytes into `out`; 0 on any mismatch. */
static int read_npy(const char *path, uint8_t *out, uint32_t size) {
    unsigned char head[10];
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    int ok = fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, "\x93NUMPY\x01", 7) == 0 &&
             fseek(f, (long)(head[8] | (head[9] << 8)), SEEK_CUR) == 0 && fread(out, 1, size, f) == size &&
             fgetc(f) == EOF;
    fclose(f);
    return ok;
}

/* Forward's output on the initial state: each 2x2 window's maximum of the state's int8 bytes,
 * [1, 8, 8, 8] NHWC to [1, 4, 4, 8]. */
static int8_t pooled_initial(uint32_t j) {
    uint32_t c = j % 8, x = (j / 8) % 4, y = j / 32;
    int8_t best = -128;
    for (uint32_t dy = 0; dy < 2; dy++) {
        for (uint32_t dx = 0; dx < 2; dx++) {
            uint32_t i = ((2 * y + dy) * 8 + 2 * x + dx) * 8 + c;
            int8_t v = (int8_t)(uint8_t)(7u * i + 1u);
            best = v > best ? v : best;
        }
    }
    return best;
}

int main(int argc, char **argv) {
    ap_status_t s = ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
    if (s != AP_OK || (s = model_init()) != AP_OK) {
        return fail("set-up", s, model_failed_call());
    }
    uint32_t x_size, y_size;
    uint8_t *x = model_update_input(0, &x_size);
    const uint8_t *y = model_output(0, &y_size);
    uint32_t f_size;
    uint8_t *f = model_input(0, &f_size);
    if (x == NULL || y == NULL || f == NULL || MODEL_UPDATE_INPUT_COUNT != 1 || MODEL_INPUT_COUNT != 1 ||
        y_size != 128 || argc < 3 || argc % 2 != 1) {
        printf("unexpected API or arguments (pairs of TFLM input and output .npy files)\n");
        return 1;
    }
    /* Before any update, and again after a re-init: forward reads the initial state. */
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
            if ((int8_t)y[j] != pooled_initial(j)) {
                printf("forward on the initial state (pass %d): output byte %u is %d, expected %d\n", pass,
                       (unsigned)j, (int8_t)y[j], pooled_initial(j));
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
    printf("forward on the initial state: its pooling, also after an update and a re-init\n");
    for (int k = 1; k + 1 < argc; k += 2) {
        static uint8_t want[128];
        if (!read_npy(argv[k], x, x_size) || !read_npy(argv[k + 1], want, sizeof want)) {
            printf("%s, %s: not TFLM's int8 input of %u and output of 128 bytes\n", argv[k], argv[k + 1],
                   (unsigned)x_size);
            return 1;
        }
        if ((s = model_update_run()) != AP_OK) {
            return fail("update", s, model_update_failed_call());
        }
        /* Forward runs twice: its first call's buffers and scratch share memory with update's,
         * never with the state, so the state survives both runs. */
        for (int again = 0; again < 2; again++) {
            for (uint32_t i = 0; i < f_size; i++) {
                f[i] = (uint8_t)(i + again);
            }
            if ((s = model_run()) != AP_OK) {
                return fail("forward", s, model_failed_call());
            }
            if (memcmp(y, want, sizeof want) != 0) {
                printf("update with %s, forward %d: not TFLM's output %s\n", argv[k], again, argv[k + 1]);
                return 1;
            }
        }
        printf("update with %s then forward twice: TFLM's convolution then pooling\n", argv[k]);
    }
    model_deinit();
    printf("two methods, one arena of %u B: state kept between runs\n", MODEL_ARENA_SRAM_SIZE);
    return 0;
}
