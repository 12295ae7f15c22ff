/* The weights an operation reads: its weight stream decoded (weight_codec.c, or on the
 * Ethos-U85 the fast format, fast_weight_codec.c), each position placed at its (o, ky, kx, i)
 * by the NPU's order (weights_u55.c, weights_u85.c). Weights are stored less their zero
 * point, 9-bit signed. */
#include "model.h"

static int16_t work[AP_ETHOSU_WORK_ELEMENTS];

/* The Ethos-U85's WEIGHT_FORMAT: bit 0 the fast format (FWD), bit 4 2:4 sparsity (a sparse
 * stream still holds every weight, zeros too: only its order changes). */
enum { FORMAT_FAST = 1u, FORMAT_SPARSE = 16u };

static uint64_t positions_of(const ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes,
                             uint32_t core, eu_scatter_t *to) {
    return npu->u85 ? eu_weight_order_u85(npu, k, depthwise, ifm_bytes, core, to)
                    : eu_weight_order_u55(npu, k, depthwise, ifm_bytes, to);
}

/* Decodes core `core`'s standard stream (WEIGHT_BASE, or the Ethos-U85's WEIGHTn_BASE) into
 * `out`, exactly `positions` symbols; 0 after a fault. */
static int decode_standard(ap_eu_t *npu, uint32_t core, int16_t *out, uint64_t positions) {
    const uint32_t region = eu_r0(npu, EU_WEIGHT_REGION) & 7u;
    const uint32_t base_reg = core == 0 ? EU_WEIGHT_BASE : EU85_WEIGHT1_BASE + 2u * (core - 1u);
    const uint64_t base = eu_r1(npu, base_reg), length = eu_r1(npu, base_reg + 1u);
    if (npu->region[region] == NULL || base + length > npu->region_size[region]) {
        eu_fault(npu, "a weight stream outside its region", region);
        return 0;
    }
    int64_t decoded = eu_mlw_decode(npu->region[region] + base, length, out, positions);
    if (decoded < 0) {
        eu_fault(npu, "a weight stream that does not decode", (uint32_t)base);
        return 0;
    }
    if ((uint64_t)decoded != positions) {
        eu_fault(npu, "a weight stream whose length is not the kernel's (in the NPU's order)", (uint32_t)decoded);
        return 0;
    }
    return 1;
}

const int16_t *eu_weights(ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes) {
    const uint32_t format = npu->u85 ? eu_r0(npu, EU85_WEIGHT_FORMAT) : 0u;
    const uint32_t cores = npu->u85 ? eu_u85_cores(npu->macs) : 1u;
    const int fast = (format & FORMAT_FAST) != 0;
    if (format & ~(FORMAT_FAST | FORMAT_SPARSE)) {
        eu_fault(npu, "a WEIGHT_FORMAT the Ethos-U85 does not have", format);
        return NULL;
    }
    if (fast && cores > 1) {
        /* Vela interleaves the cores' orders in one fast stream; no stream the tests hold does
         * (Vela picks the standard format on these NPUs), so the model does not guess. */
        eu_fault(npu, "the fast weight format on an Ethos-U85 with more than one core, which the model does not execute",
                 cores);
        return NULL;
    }
    const uint32_t in = depthwise ? 1u : k->ifm_depth;
    const uint64_t weights = eu_mul_sat((uint64_t)k->ofm_depth * k->height, (uint64_t)k->width * in);
    if (weights > AP_ETHOSU_WORK_ELEMENTS) {
        eu_fault(npu, "a kernel larger than the emulation's work area (AP_ETHOSU_WORK_ELEMENTS)", (uint32_t)weights);
        return NULL;
    }
    /* The work area: the kernel, each core's decoded order after it. */
    uint64_t per_core[4], total = 0;
    for (uint32_t c = 0; c < cores; c++) {
        per_core[c] = positions_of(npu, k, depthwise, ifm_bytes, c, NULL);
        if (per_core[c] == UINT64_MAX) {
            eu_fault(npu, "an ACC_FORMAT micro-block this Ethos-U85 does not have", eu_r0(npu, EU_ACC_FORMAT));
            return NULL;
        }
        total += per_core[c] > AP_ETHOSU_WORK_ELEMENTS ? AP_ETHOSU_WORK_ELEMENTS + 1u : per_core[c];
    }
    if (weights + total > AP_ETHOSU_WORK_ELEMENTS) {
        eu_fault(npu, "a kernel larger than the emulation's work area (AP_ETHOSU_WORK_ELEMENTS)",
                 (uint32_t)(weights + total));
        return NULL;
    }
    int16_t *w = work, *orders = work + weights;
    if (fast) {
        const uint32_t region = eu_r0(npu, EU_WEIGHT_REGION) & 7u;
        const uint64_t base = eu_r1(npu, EU_WEIGHT_BASE), length = eu_r1(npu, EU_WEIGHT_LENGTH);
        if (npu->region[region] == NULL || base + length > npu->region_size[region]) {
            eu_fault(npu, "a weight stream outside its region", region);
            return NULL;
        }
        if (!eu_fwd_decode(npu->region[region] + base, length, orders, total)) {
            eu_fault(npu, "a fast weight stream whose length is not the kernel's (in the NPU's order)", (uint32_t)base);
            return NULL;
        }
    } else {
        uint64_t at = 0;
        for (uint32_t c = 0; c < cores; c++) {
            if (!decode_standard(npu, c, orders + at, per_core[c])) {
                return NULL;
            }
            at += per_core[c];
        }
    }
    for (uint64_t j = 0; j < weights; j++) {
        w[j] = 0;
    }
    uint64_t at = 0;
    for (uint32_t c = 0; c < cores; c++) {
        eu_scatter_t to = {orders + at, w, k->height, k->width, in};
        positions_of(npu, k, depthwise, ifm_bytes, c, &to);
        at += per_core[c];
    }
    return w;
}
