/* NPU_OP_POOL: MAX (0), AVERAGE (1) and REDUCE_SUM (2) over the kernel's taps; on the
 * Ethos-U85 also SUM (3), NONE (4: the one tap, a copy through the output stage) and MIN (5).
 *
 * MAX takes the largest IFM value less its zero point over the taps inside the IFM, AVERAGE
 * and REDUCE_SUM their sum; REDUCE_SUM also sums across all IFM channels into each OFM channel
 * (Vela's softmax sums its exponentials this way). Then the output stage with the global
 * OFM_SCALE: Vela folds the average's division by the tap count into it, so an unpadded
 * average is a sum and a scale. A 32-bit IFM is shifted, not multiplied. The Ethos-U85 divides
 * an average by its taps itself (rounding half away from zero, as TFLite's average pool does)
 * and OFM_SCALE rescales the quotient.
 *
 * The Ethos-U85 also copies or rescales a 32-bit tensor this way: NONE over a 1x1 kernel with the
 * accumulator taken from IFM2 (ACC_FORMAT input 2), the IFM registers then unused but for
 * their type, which decides the scaling.
 *
 * A padded average pool with OFM_PRECISION's per-channel scale mode asks the NPU to divide by
 * the taps inside the IFM itself; how it rounds that is not public, so it faults. */
#include "model.h"

enum { POOL_MAX = 0, POOL_AVERAGE = 1, POOL_REDUCE_SUM = 2, POOL_SUM = 3, POOL_NONE = 4, POOL_MIN = 5 };

void eu_pool(ap_eu_t *npu, uint32_t mode) {
    eu_fmap_t ifm, ifm2, ofm;
    eu_kernel_t k;
    const uint32_t acc_input = npu->u85 ? (eu_r0(npu, EU_ACC_FORMAT) >> 4) & 3u : 0u;
    const int from_ifm2 = acc_input == 2;
    eu_fmap(npu, EU_IFM, 0, &ifm);
    if (from_ifm2) {
        eu_fmap(npu, EU_IFM2, 0, &ifm2);
    }
    eu_fmap(npu, EU_OFM, 0, &ofm);
    eu_kernel(npu, &k);
    const int global_scale = eu_global_scale(npu);
    const int padded = k.pad_top || k.pad_left || k.pad_bottom || k.pad_right;
    if (npu->fault != NULL) {
        return;
    }
    if (mode > (npu->u85 ? (uint32_t)POOL_MIN : (uint32_t)POOL_REDUCE_SUM)) {
        eu_fault(npu, npu->u85 ? "a pooling mode the model does not execute (ARGMAX)" : "a pooling mode the Ethos-U55 does not have",
                 mode);
    } else if (acc_input != 0 && !from_ifm2) {
        eu_fault(npu, "an accumulator kept from the previous operation (ACC_FORMAT input), which the model does not execute",
                 acc_input);
    } else if (from_ifm2 && (mode != POOL_NONE || k.height != 1 || k.width != 1 || k.stride_x != 1 || k.stride_y != 1 ||
                             padded)) {
        eu_fault(npu, "an accumulator taken from IFM2 for a pooling that is not NONE over one tap", mode);
    } else if (npu->u85 && !global_scale) {
        eu_fault(npu, "a pooling with per-channel scales, which the model does not execute", mode);
    } else if (npu->u85 && mode == POOL_AVERAGE && padded) {
        eu_fault(npu, "a padded average pool (how the NPU divides by the taps inside the IFM is not public)", mode);
    } else if ((eu_r0(npu, EU_IFM_UPSCALE) & 3u) != 0) {
        eu_fault(npu, "an upscaled pooling IFM (IFM_UPSCALE), which the model does not execute", 0);
    } else if (!global_scale && mode == POOL_AVERAGE) {
        eu_fault(npu, "an average pool the NPU divides by its valid taps (per-channel scale mode): rounding not public", mode);
    } else if (k.ifm_height <= 0 || k.ifm_width <= 0) {
        eu_fault(npu, "pads larger than the kernel's reach (an empty IFM)", k.pad_top);
    } else if (mode == POOL_NONE && (k.height != 1 || k.width != 1)) {
        eu_fault(npu, "a NONE pooling over more than one tap", k.height * k.width);
    }
    eu_fmap_check_chain(npu, &ofm, &ifm, from_ifm2 ? &ifm2 : NULL);
    eu_check_activation(npu, &ofm);
    if (npu->fault != NULL) {
        return;
    }
    if (!eu_fmap_check_box(npu, &ofm, k.ofm_height, k.ofm_width, k.ofm_depth, "an OFM that reaches outside its region")) {
        return;
    }
    /* A window's sum stays far inside 64 bits: at most 2^24 values (of 32 bits) per output. */
    const uint64_t window = (uint64_t)k.height * k.width * (mode == POOL_REDUCE_SUM ? k.ifm_depth : 1u);
    if (window > (1u << 24)) {
        eu_fault(npu, "a pooling window of more than 2^24 values", (uint32_t)(window > UINT32_MAX ? UINT32_MAX : window));
        return;
    }
    if (!eu_spend(npu, eu_mul_sat((uint64_t)k.ofm_height * k.ofm_width * k.ofm_depth, window))) {
        return;
    }
    uint32_t multiplier, shift, dbl_point;
    eu_ofm_scale(npu, &ifm, &multiplier, &shift, &dbl_point);
    const eu_rounding_t rounding = eu_ofm_rounding(npu);
    const uint32_t channels = mode == POOL_REDUCE_SUM ? k.ifm_depth : 1u;
    for (uint32_t y = 0; y < k.ofm_height && npu->fault == NULL; y++) {
        for (uint32_t x = 0; x < k.ofm_width; x++) {
            for (uint32_t c = 0; c < k.ofm_depth; c++) {
                int64_t acc = 0;
                uint32_t taps = 0;
                if (from_ifm2) {
                    acc = eu_fmap_read(npu, &ifm2, y, x, c) - ifm2.zero_point;
                    taps = 1;
                }
                for (uint32_t ky = 0; ky < k.height && !from_ifm2; ky++) {
                    int64_t iy = (int64_t)y * k.stride_y - k.pad_top + (int64_t)ky * k.dilation_y;
                    for (uint32_t kx = 0; kx < k.width; kx++) {
                        int64_t ix = (int64_t)x * k.stride_x - k.pad_left + (int64_t)kx * k.dilation_x;
                        if (iy < 0 || iy >= k.ifm_height || ix < 0 || ix >= k.ifm_width) {
                            continue;
                        }
                        for (uint32_t i = 0; i < channels; i++) {
                            uint32_t ch = mode == POOL_REDUCE_SUM ? i : c;
                            int64_t v = eu_fmap_read(npu, &ifm, (uint32_t)iy, (uint32_t)ix, ch) - ifm.zero_point;
                            if (mode == POOL_MAX) {
                                acc = taps == 0 || v > acc ? v : acc;
                            } else if (mode == POOL_MIN) {
                                acc = taps == 0 || v < acc ? v : acc;
                            } else {
                                acc += v;
                            }
                            taps++;
                        }
                    }
                }
                if (taps == 0) {
                    eu_fault(npu, "a pooling window entirely in the padding", y);
                    return;
                }
                if (npu->u85 && mode == POOL_AVERAGE) {
                    int64_t m = acc < 0 ? -acc : acc, q = (m + taps / 2u) / taps;
                    acc = acc < 0 ? -q : q;
                }
                int64_t v = eu_round_shift(acc, multiplier, shift, rounding, dbl_point);
                eu_fmap_write(npu, &ofm, y, x, c, eu_activate(npu, &ofm, v));
            }
        }
    }
}
