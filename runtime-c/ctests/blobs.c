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

/* The blocks of a bin stream around a COP1 payload: 20 bytes of weights (unused by the
 * streams), the scratch size, and one input and one output record (40 bytes each). */
static void bin_stream(blob_t *b, const uint8_t *cmd, uint32_t cmd_size, uint32_t scratch_size,
                       const uint8_t inputs[40], const uint8_t outputs[40]) {
    uint8_t weights[20];
    memset(weights, 0x11, sizeof weights);
    uint8_t scratch[4];
    put32(scratch, scratch_size);
    block(b, "vela_bin_stream", NULL, 0);
    block(b, "cmd_data", cmd, cmd_size);
    block(b, "weight_data", weights, sizeof weights);
    block(b, "scratch_size", scratch, sizeof scratch);
    block(b, "inputs", inputs, 40);
    block(b, "outputs", outputs, 40);
    block(b, "vela_end_stream", NULL, 0);
}

/* Command stream writers: a one-word register write, a two-word one. */
static void set0(uint32_t *w, uint32_t *n, uint32_t opcode, uint32_t param) { w[(*n)++] = (param << 16) | opcode; }
static void set1(uint32_t *w, uint32_t *n, uint32_t opcode, uint32_t value) {
    w[(*n)++] = (1u << 14) | opcode;
    w[(*n)++] = value;
}

/* A COP1 payload as Vela writes it: optimizer config for the emulated U55-128, NOPs so the
 * command stream starts 16-byte aligned, then a stream the functional Ethos-U55 runs:
 *  - USES_FAST: a DMA of the input's first 16 bytes into region 2 (from region 2 itself when
 *    there is no scratch);
 *  - USES_SCRATCH, with an output: one ELEMENTWISE ADD of the scalar 1 to the input (read
 *    from region 2 after the DMA, else region 1), uint8, written as `rows` rows of `row` bytes
 *    at `out_at` in region 1: row r, byte j = min(input[j] + 1, 255) (ctest_npu_output);
 * and NPU_OP_STOP. */
static uint32_t cop1(uint8_t *out, int uses, uint32_t rows, uint32_t row, uint32_t out_at) {
    uint32_t w[96] = {0x31504F43u, 1, AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, 5, 5, 5, 0};
    uint32_t n = 8;
    set0(w, &n, 296u, 0); /* WEIGHT_REGION 0 */
    if (uses & USES_FAST) {
        set0(w, &n, 304u, (uses & USES_SCRATCH) ? 1u : 2u); /* DMA0_SRC_REGION */
        set0(w, &n, 305u, 2u);                                /* DMA0_DST_REGION */
        set1(w, &n, 48u, 0);                                  /* DMA0_SRC */
        set1(w, &n, 49u, (uses & USES_SCRATCH) ? 0u : 16u);   /* DMA0_DST */
        set1(w, &n, 50u, 16);                                 /* DMA0_LEN */
        set0(w, &n, 16u, 0);                                  /* NPU_OP_DMA_START */
        set0(w, &n, 17u, 0);                                  /* NPU_OP_DMA_WAIT */
    }
    if ((uses & USES_SCRATCH) && rows > 0 && row > 0) {
        set0(w, &n, 271u, (uses & USES_FAST) ? 2u : 1u); /* IFM_REGION */
        set1(w, &n, 0u, 0);                              /* IFM_BASE0 */
        set1(w, &n, 4u, 1);                              /* IFM_STRIDE_X */
        set1(w, &n, 5u, 0);                              /* IFM_STRIDE_Y: every row reads the input */
        set1(w, &n, 6u, 1);                              /* IFM_STRIDE_C */
        set0(w, &n, 266u, row - 1);                      /* IFM_WIDTH0_M1 */
        set0(w, &n, 267u, rows - 1);                     /* IFM_HEIGHT0_M1 */
        set0(w, &n, 268u, rows - 1);                     /* IFM_HEIGHT1_M1 */
        set0(w, &n, 384u, 0x80u);                        /* IFM2_BROADCAST: the scalar */
        set0(w, &n, 385u, 1u);                           /* IFM2_SCALAR */
        set0(w, &n, 287u, 1u);                           /* OFM_REGION */
        set1(w, &n, 16u, out_at);                        /* OFM_BASE0 */
        set1(w, &n, 20u, 1);                             /* OFM_STRIDE_X */
        set1(w, &n, 21u, row);                           /* OFM_STRIDE_Y */
        set1(w, &n, 22u, 1);                             /* OFM_STRIDE_C */
        set0(w, &n, 273u, row - 1);                      /* OFM_WIDTH_M1 */
        set0(w, &n, 274u, rows - 1);                     /* OFM_HEIGHT_M1 */
        set0(w, &n, 282u, row - 1);                      /* OFM_WIDTH0_M1 */
        set0(w, &n, 283u, rows - 1);                     /* OFM_HEIGHT0_M1 */
        set0(w, &n, 284u, rows - 1);                     /* OFM_HEIGHT1_M1 */
        set1(w, &n, 37u, 1);                             /* OPA_SCALE */
        set1(w, &n, 38u, 1);                             /* OPB_SCALE */
        set1(w, &n, 36u, 1);                             /* OFM_SCALE 1, shift 0 */
        set0(w, &n, 295u, 255u);                         /* ACTIVATION_MAX */
        set0(w, &n, 6u, 1u);                             /* NPU_OP_ELEMENTWISE ADD */
    }
    w[n++] = 0xFFFF0000u; /* NPU_OP_STOP */
    w[7] = ((n - 8) << 16) | 2u; /* COMMAND_STREAM of n - 8 words */
    for (uint32_t i = 0; i < n; i++) {
        put32(out + 4 * i, w[i]);
    }
    return 4 * n;
}

blob_t vela_blob_io(uint32_t in_bytes, uint32_t out_rows, uint32_t out_row, uint32_t scratch_size, int uses) {
    blob_t b;
    memset(&b, 0, sizeof b);
    uint8_t cmd[384];
    uint32_t cmd_size = cop1(cmd, uses, out_rows, out_row, (in_bytes + 15u) & ~15u);
    uint8_t inputs[40], outputs[40];
    put32(inputs, 1);
    io_record(inputs + 4, in_bytes, 0);
    put32(outputs, 1);
    io_record(outputs + 4, out_row, (in_bytes + 15u) & ~15u);
    put32(outputs + 4 + 12, out_rows); /* shape[3] */
    bin_stream(&b, cmd, cmd_size, scratch_size, inputs, outputs);
    return b;
}

blob_t vela_blob(uint32_t in_bytes, uint32_t out_bytes, uint32_t scratch_size) {
    return vela_blob_io(in_bytes, 1, out_bytes, scratch_size, USES_SCRATCH);
}

/* The Ethos-U85 stream of vela_blob_u85_chained: two ADDs of the scalar 1, the first's OFM
 * chained (OFM_PRECISION storage 2, chain buffer 0) into the second's IFM. */
static uint32_t cop1_u85_chained(uint8_t *out, uint32_t row, uint32_t out_at) {
    uint32_t w[96] = {0x31504F43u, 1, AP_ETHOSU_U85_256_CONFIG, AP_ETHOSU_U85_256_ID, 5, 5, 5, 0};
    uint32_t n = 8;
    set0(w, &n, 296u, 0);             /* WEIGHT_REGION 0 */
    set0(w, &n, 266u, row - 1);       /* IFM_WIDTH0_M1 */
    set0(w, &n, 273u, row - 1);       /* OFM_WIDTH_M1 */
    set0(w, &n, 282u, row - 1);       /* OFM_WIDTH0_M1 */
    set0(w, &n, 384u, 8u);            /* IFM2_BROADCAST: the scalar */
    set1(w, &n, 39u, 1);              /* OP_SCALAR */
    set0(w, &n, 389u, 0xC000u);       /* IFM2_PRECISION: uint8, no storage */
    set1(w, &n, 37u, 1);              /* IFM_SCALE 1, shift 0 */
    set1(w, &n, 38u, 1);              /* IFM2_SCALE 1, shift 0 */
    set1(w, &n, 36u, 1);              /* OFM_SCALE 1, shift 0 */
    set0(w, &n, 295u, 255u);          /* ACTIVATION_MAX */
    /* The first ADD: the input (region 1) into chain buffer 0. */
    set0(w, &n, 261u, 0u);            /* IFM_PRECISION: uint8 in memory */
    set0(w, &n, 271u, 1u);            /* IFM_REGION */
    set1(w, &n, 0u, 0);               /* IFM_BASE0 */
    set1(w, &n, 4u, 1);               /* IFM_STRIDE_X */
    set1(w, &n, 5u, row);             /* IFM_STRIDE_Y */
    set1(w, &n, 6u, 1);               /* IFM_STRIDE_C */
    set0(w, &n, 276u, 0x8000u);       /* OFM_PRECISION: uint8, chained */
    set0(w, &n, 287u, 0u);            /* OFM_REGION: chain buffer 0 */
    set0(w, &n, 6u, 1u);              /* NPU_OP_ELEMENTWISE ADD */
    /* The second: chain buffer 0 into the output (region 1). */
    set0(w, &n, 261u, 0x8000u);       /* IFM_PRECISION: uint8, chained */
    set0(w, &n, 271u, 0u);            /* IFM_REGION: chain buffer 0 */
    set0(w, &n, 276u, 0u);            /* OFM_PRECISION: uint8 in memory */
    set0(w, &n, 287u, 1u);            /* OFM_REGION */
    set1(w, &n, 16u, out_at);         /* OFM_BASE0 */
    set1(w, &n, 20u, 1);              /* OFM_STRIDE_X */
    set1(w, &n, 21u, row);            /* OFM_STRIDE_Y */
    set1(w, &n, 22u, 1);              /* OFM_STRIDE_C */
    set0(w, &n, 6u, 1u);              /* NPU_OP_ELEMENTWISE ADD */
    w[n++] = 0xFFFF0000u;             /* NPU_OP_STOP */
    w[7] = ((n - 8) << 16) | 2u;      /* COMMAND_STREAM of n - 8 words */
    for (uint32_t i = 0; i < n; i++) {
        put32(out + 4 * i, w[i]);
    }
    return 4 * n;
}

blob_t vela_blob_u85_chained(uint32_t row) {
    blob_t b;
    memset(&b, 0, sizeof b);
    uint8_t cmd[384];
    const uint32_t out_at = (row + 15u) & ~15u;
    uint32_t cmd_size = cop1_u85_chained(cmd, row, out_at);
    uint8_t inputs[40], outputs[40];
    put32(inputs, 1);
    io_record(inputs + 4, row, 0);
    put32(outputs, 1);
    io_record(outputs + 4, row, out_at);
    bin_stream(&b, cmd, cmd_size, out_at + ((row + 15u) & ~15u), inputs, outputs);
    return b;
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
