/* A host simulator of the Neutron driver seam (neutron_driver.h), for the host and QEMU. It
 * checks every region (non-NULL where needed, scratch 16-byte aligned and as large as the
 * payload says, no scratch overlapping another scratch, an input or an output), then poisons the
 * scratch and SRAM scratch with 0xDB and writes each output as
 *
 *     output[k][j] = (sum of all input bytes + 31 * j + 7 * k) mod 256
 *
 * so a plan that lets scratch overlap live data fails visibly. */
#include "arenaplan/neutron_driver.h"

#include <string.h>

static int overlap(const void *a, size_t an, const void *b, size_t bn) {
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return a != NULL && b != NULL && an > 0 && bn > 0 && x < y + bn && y < x + an;
}

static uint32_t neutron_calls;

uint32_t ap_neutron_sim_calls(void) { return neutron_calls; }

int ap_neutron_run_blocking(const ap_neutron_run_t *r) {
    neutron_calls++;
    if (r == NULL || r->microcode == NULL || r->microcode_size < 4 || (r->ninputs > 0 && r->inputs == NULL) ||
        (r->noutputs > 0 && r->outputs == NULL)) {
        return -1;
    }
    const void *regions[2] = {r->scratch, r->sram_scratch};
    const size_t sizes[2] = {r->scratch_size, r->sram_scratch_size};
    for (int k = 0; k < 2; k++) {
        if (sizes[k] > 0 && (regions[k] == NULL || ((uintptr_t)regions[k] & 15u) != 0)) {
            return -2;
        }
        for (uint32_t i = 0; i < r->ninputs; i++) {
            if (overlap(regions[k], sizes[k], r->inputs[i], r->input_sizes[i])) {
                return -3;
            }
        }
        for (uint32_t i = 0; i < r->noutputs; i++) {
            if (overlap(regions[k], sizes[k], r->outputs[i], r->output_sizes[i])) {
                return -3;
            }
        }
    }
    if (overlap(regions[0], sizes[0], regions[1], sizes[1])) {
        return -3;
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < r->ninputs; i++) {
        const uint8_t *in = r->inputs[i];
        for (size_t j = 0; in != NULL && j < r->input_sizes[i]; j++) {
            sum += in[j];
        }
    }
    for (int k = 0; k < 2; k++) {
        if (sizes[k] > 0) {
            memset((void *)(uintptr_t)regions[k], 0xDB, sizes[k]);
        }
    }
    for (uint32_t k = 0; k < r->noutputs; k++) {
        uint8_t *out = r->outputs[k];
        for (size_t j = 0; out != NULL && j < r->output_sizes[k]; j++) {
            out[j] = (uint8_t)(sum + 31u * j + 7u * k);
        }
    }
    return 0;
}
