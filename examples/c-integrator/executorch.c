/* A C integrator running an ExecuTorch program whose operators run on ExecuTorch's own
 * kernels (arenaplan_add_model(... EXECUTORCH_KERNELS) compiles them with the program): it
 * reads the input and the reference output ExecuTorch's runtime gave, as .npy files, runs the
 * program through the generated C API and compares every output byte.
 *
 *   executorch <input.npy> <reference.npy> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

/* The data of a .npy file (format 1.0 to 3.0: magic, version, header length, header), read
 * whole; its size in *size. NULL when the file is not one. */
static unsigned char *npy_data(const char *path, size_t *size, unsigned char **whole) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0, n;
    unsigned char chunk[4096];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > cap) {
            cap = (len + n) * 2;
            unsigned char *grown = realloc(buf, cap);
            if (grown == NULL) break;
            buf = grown;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (buf == NULL || len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
        free(buf);
        return NULL;
    }
    size_t header = buf[6] == 1 ? 10 + (size_t)(buf[8] | buf[9] << 8)
                                : 12 + (size_t)(buf[8] | buf[9] << 8 | buf[10] << 16);
    if (header > len) {
        free(buf);
        return NULL;
    }
    *whole = buf;
    *size = len - header;
    return buf + header;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <input.npy> <reference.npy>\n", argv[0]);
        return 2;
    }
    unsigned char *in_file, *ref_file;
    size_t in_size, ref_size;
    const unsigned char *in = npy_data(argv[1], &in_size, &in_file);
    const unsigned char *ref = npy_data(argv[2], &ref_size, &ref_file);
    if (in == NULL || ref == NULL) {
        fprintf(stderr, "cannot read %s or %s as .npy\n", argv[1], argv[2]);
        return 2;
    }
    ap_status_t s = program_init();
    uint32_t slot_size = 0, out_size = 0;
    uint8_t *slot = s == AP_OK ? program_input(0, &slot_size) : NULL;
    if (slot == NULL || slot_size != in_size) {
        fprintf(stderr, "input: %u bytes of memory for %zu bytes of .npy\n", (unsigned)slot_size,
                in_size);
        return 1;
    }
    memcpy(slot, in, in_size);
    s = program_run();
    const uint8_t *out = program_output(0, &out_size);
    int same = s == AP_OK && out != NULL && out_size == ref_size && memcmp(out, ref, ref_size) == 0;
    if (s != AP_OK) {
        printf("failed at call %u: %s\n", (unsigned)program_failed_call(), ap_status_name(s));
    } else {
        printf("%u calls on ExecuTorch's kernels; output %u bytes, %s\n", PROGRAM_CALL_COUNT,
               (unsigned)out_size, same ? "every byte ExecuTorch's runtime's" : "DIFFERENT from ExecuTorch's runtime's");
    }
    program_deinit();
    free(in_file);
    free(ref_file);
    return same ? 0 : 1;
}
