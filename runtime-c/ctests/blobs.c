/* The tests' blob writers (see blobs.h). */
#include "blobs.h"

#include <string.h>

#include "arenaplan/ethosu_sim.h"

void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* ---- A Vela bin stream, built block by block ---------------------------------------------------- */

static void block(blob_t *b, const char *name, const uint8_t *data, uint32_t len) {
    memset(b->data + b->size, 0, 32);
    memcpy(b->data + b->size, name, strlen(name));
    put32(b->data + b->size + 16, len);
    b->size += 32;
    if (len > 0) {
        memcpy(b->data + b->size, data, len);
    }
    b->size += (len + 15u) & ~15u;
}

static uint32_t io_record(uint8_t *out, uint32_t bytes, uint32_t offset) {
    uint32_t words[9] = {1, 1, 1, 1, 1, bytes, 1, offset, 1};
    for (int i = 0; i < 9; i++) {
        put32(out + 4 * i, words[i]);
    }
    return 36;
}

/* A COP1 payload as Vela writes it: optimizer config for the emulated U55-128, NOPs so the
 * command stream starts 16-byte aligned, then a stream naming region 0 (weights), 1 (IFM, OFM)
 * and 2 (IFM2) as `uses` says, ending in NPU_OP_STOP. */
static uint32_t cop1(uint8_t *out, int uses) {
    uint32_t words[16] = {0x31504F43u, 1, AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, 5, 5, 5, 0, 296u,
                          1u << 14, 0};
    uint32_t n = 11; /* weights region, then a command with a payload word (IFM_BASE0 = 0) */
    if (uses & USES_SCRATCH) {
        words[n++] = (1u << 16) | 271u;
        words[n++] = (1u << 16) | 287u;
    }
    if (uses & USES_FAST) {
        words[n++] = (2u << 16) | 399u;
    }
    words[n++] = 0xFFFF0000u; /* NPU_OP_STOP */
    words[7] = ((n - 8) << 16) | 2u; /* COMMAND_STREAM of n - 8 words */
    for (uint32_t i = 0; i < n; i++) {
        put32(out + 4 * i, words[i]);
    }
    return 4 * n;
}

blob_t vela_blob_io(uint32_t in_bytes, uint32_t out_rows, uint32_t out_row, uint32_t scratch_size, int uses) {
    blob_t b;
    memset(&b, 0, sizeof b);
    uint8_t cmd[64];
    uint32_t cmd_size = cop1(cmd, uses);
    uint8_t weights[20];
    memset(weights, 0x11, sizeof weights);
    uint8_t scratch[4];
    put32(scratch, scratch_size);
    uint8_t inputs[40], outputs[40];
    put32(inputs, 1);
    io_record(inputs + 4, in_bytes, 0);
    put32(outputs, 1);
    io_record(outputs + 4, out_row, (in_bytes + 15u) & ~15u);
    put32(outputs + 4 + 12, out_rows); /* shape[3] */
    block(&b, "vela_bin_stream", NULL, 0);
    block(&b, "cmd_data", cmd, cmd_size);
    block(&b, "weight_data", weights, sizeof weights);
    block(&b, "scratch_size", scratch, sizeof scratch);
    block(&b, "inputs", inputs, sizeof inputs);
    block(&b, "outputs", outputs, sizeof outputs);
    block(&b, "vela_end_stream", NULL, 0);
    return b;
}

blob_t vela_blob(uint32_t in_bytes, uint32_t out_bytes, uint32_t scratch_size) {
    return vela_blob_io(in_bytes, 1, out_bytes, scratch_size, USES_SCRATCH);
}

/* ---- A Neutron payload -------------------------------------------------------------------------- */

blob_t neutron_blob_v(uint32_t version, uint32_t scratch, uint32_t sram, uint32_t profile, uint32_t debug) {
    blob_t b;
    memset(&b, 0, sizeof b);
    uint8_t header[16] = {1, 1, 1, 0, 0, 0, 0, (uint8_t)version};
    memcpy(b.data, header, sizeof header);
    uint32_t v0[16] = {0x64434D6Eu, 0, 0, 0, 0, 0, 64, 0, 0, scratch, sram, 1, 1, 0, 0, 0};
    uint32_t v1[16] = {0x64434D6Eu, 0, 0, 0, 0, 0, 64, 0, 0, scratch, profile | 0x80000000u, debug, sram, 1, 1, 0};
    for (int i = 0; i < 16; i++) {
        put32(b.data + 16 + 4 * i, version == 0 ? v0[i] : v1[i]);
    }
    b.size = 16 + 64;
    return b;
}

blob_t neutron_blob(uint32_t scratch, uint32_t sram) { return neutron_blob_v(0, scratch, sram, 0, 0); }

blob_t neutron_blob_io(uint8_t nin, uint8_t nout, uint8_t nargs, const uint8_t *formats, const uint8_t *maps) {
    blob_t b;
    memset(&b, 0, sizeof b);
    size_t nio = (size_t)nin + nout;
    b.data[0] = nin;
    b.data[1] = nout;
    b.data[2] = nargs;
    memcpy(b.data + 3, formats, nio);
    memcpy(b.data + 3 + nio, maps, nio);
    b.data[3 + 2 * nio] = 0; /* version */
    size_t payload = (3 + 2 * nio + 1 + 15) & ~(size_t)15;
    uint32_t words[13] = {0x64434D6Eu, 0, 0, 0, 0, 0, 64, 0, 0, 64, 0, nin, nout};
    for (int i = 0; i < 13; i++) {
        put32(b.data + payload + 4 * i, words[i]);
    }
    b.size = payload + 64;
    return b;
}
