/* Delegate blobs for the tests, written field by field: a Vela bin stream (the Ethos-U
 * backend's blob, ExecuTorch's layout) and a Neutron payload (NXP's header and microcode
 * words). docs/blob-formats.md specifies both; these writers make the smallest blobs the
 * emulated NPUs run. */
#ifndef ARENAPLAN_CTESTS_BLOBS_H
#define ARENAPLAN_CTESTS_BLOBS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    _Alignas(16) uint8_t data[1024];
    size_t size;
} blob_t;

/* `v` little-endian at `p`. */
void put32(uint8_t *p, uint32_t v);

/* ---- A Vela bin stream, built block by block ---------------------------------------------------- */

/* Which regions a test command stream addresses (besides 0, the weights). */
enum { USES_SCRATCH = 1, USES_FAST = 2 };

/* One input of `in_bytes` at offset 0 of the scratch and one output of `out_rows` rows of
 * `out_row` bytes after it, Vela's `scratch_size`, and a COP1 payload (optimizer config of the
 * emulated U55-128) whose command stream the functional Ethos-U55 runs: USES_FAST, a DMA of
 * the input's first 16 bytes into region 2; USES_SCRATCH, each output row computed from the
 * input (read from region 2 with USES_FAST) as ctest_npu_output says. */
blob_t vela_blob_io(uint32_t in_bytes, uint32_t out_rows, uint32_t out_row, uint32_t scratch_size, int uses);

/* Output byte j of any row of the test stream, from the input's bytes. */
static inline uint8_t ctest_npu_output(const uint8_t *input, uint32_t j) {
    return input[j] == 255 ? 255 : (uint8_t)(input[j] + 1);
}

/* One input of in_bytes at offset 0, one output of out_bytes after it, the given scratch. */
blob_t vela_blob(uint32_t in_bytes, uint32_t out_bytes, uint32_t scratch_size);

/* One input of `row` bytes at offset 0 of the scratch and one output of `row` bytes after it,
 * and a COP1 payload for the emulated Ethos-U85-256: an ELEMENTWISE ADD of the scalar 1
 * (OP_SCALAR, an IFM2 without storage) whose OFM is chained into a second ADD of 1, which
 * writes the output: byte j = min(input[j] + 2, 255). */
blob_t vela_blob_u85_chained(uint32_t row);

/* ---- A Neutron payload -------------------------------------------------------------------------- */

/* 1 input, 1 output, 1 input argument; version 0 (scratch, SRAM scratch) or 1 (also profile and
 * debug sizes). */
blob_t neutron_blob_v(uint32_t version, uint32_t scratch, uint32_t sram, uint32_t profile, uint32_t debug);

/* The same, version 0. */
blob_t neutron_blob(uint32_t scratch, uint32_t sram);

/* `nin` inputs and `nout` outputs over `nargs` input arguments, with format bytes `formats`
 * (inputs, then outputs) and maps `maps`; version 0, scratch 64. */
blob_t neutron_blob_io(uint8_t nin, uint8_t nout, uint8_t nargs, const uint8_t *formats, const uint8_t *maps);

#endif /* ARENAPLAN_CTESTS_BLOBS_H */
