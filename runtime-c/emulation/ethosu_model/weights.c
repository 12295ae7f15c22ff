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
                             eu_scatter_t *to) {
    return npu->u85 ? eu_weight_order_u85(npu, k, depthwise, ifm_bytes, to)
                    : eu_weight_order_u55(npu, k, depthwise, ifm_bytes, to);
}

const int16_t *eu_weights(ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes) {
    const uint32_t format = npu->u85 ? eu_r0(npu, EU85_WEIGHT_FORMAT) : 0u;
    if (format & ~(FORMAT_FAST | FORMAT_SPARSE)) {
        eu_fault(npu, "a WEIGHT_FORMAT the Ethos-U85 does not have", format);
        return NULL;
    }
    /* Ethos-U85s with more than one core (512 MACs and up) split the weights into a stream per
     * core (WEIGHT1..3_BASE), interleaved by OFM channel: not modelled. */
    if (npu->u85 && npu->macs > 256) {
        eu_fault(npu, "weights split across the cores of an Ethos-U85 with more than 256 MACs, which the model does not execute",
                 npu->macs);
        return NULL;
    }
    uint32_t region = eu_r0(npu, EU_WEIGHT_REGION) & 7u;
    uint64_t base = eu_r1(npu, EU_WEIGHT_BASE), length = eu_r1(npu, EU_WEIGHT_LENGTH);
    const uint32_t in = depthwise ? 1u : k->ifm_depth;
    uint64_t weights = eu_mul_sat((uint64_t)k->ofm_depth * k->height, (uint64_t)k->width * in);
    if (weights > AP_ETHOSU_WORK_ELEMENTS) {
        eu_fault(npu, "a kernel larger than the emulation's work area (AP_ETHOSU_WORK_ELEMENTS)", (uint32_t)weights);
        return NULL;
    }
    uint64_t positions = positions_of(npu, k, depthwise, ifm_bytes, NULL);
    if (positions + weights > AP_ETHOSU_WORK_ELEMENTS) {
        eu_fault(npu, "a kernel larger than the emulation's work area (AP_ETHOSU_WORK_ELEMENTS)",
                  (uint32_t)(positions + weights));
        return NULL;
    }
    if (npu->region[region] == NULL || base + length > npu->region_size[region]) {
        eu_fault(npu, "a weight stream outside its region", region);
        return NULL;
    }
    int16_t *stream = work, *w = work + positions;
    if (format & FORMAT_FAST) {
        if (!eu_fwd_decode(npu->region[region] + base, length, stream, positions)) {
            eu_fault(npu, "a fast weight stream whose length is not the kernel's (in the NPU's order)", (uint32_t)base);
            return NULL;
        }
    } else {
        int64_t decoded = eu_mlw_decode(npu->region[region] + base, length, stream, positions);
        if (decoded < 0) {
            eu_fault(npu, "a weight stream that does not decode", (uint32_t)base);
            return NULL;
        }
        if ((uint64_t)decoded != positions) {
            eu_fault(npu, "a weight stream whose length is not the kernel's (in the NPU's order)", (uint32_t)decoded);
            return NULL;
        }
    }
    for (uint64_t j = 0; j < weights; j++) {
        w[j] = 0;
    }
    eu_scatter_t to = {stream, w, k->height, k->width, in};
    positions_of(npu, k, depthwise, ifm_bytes, &to);
    return w;
}

