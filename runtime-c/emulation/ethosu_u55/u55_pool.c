/* NPU_OP_POOL: MAX (0), AVERAGE (1) and REDUCE_SUM (2) over the kernel's taps.
 *
 * MAX takes the largest IFM value less its zero point over the taps inside the IFM, AVERAGE
 * and REDUCE_SUM their sum; REDUCE_SUM also sums across all IFM channels into each OFM channel
 * (Vela's softmax sums its exponentials this way). Then the output stage with the global
 * OFM_SCALE: Vela folds the average's division by the tap count into it, so an unpadded
 * average is a sum and a scale. A 32-bit IFM is shifted, not multiplied.
 *
 * A padded average pool with OFM_PRECISION's per-channel scale mode asks the NPU to divide by
 * the taps inside the IFM itself; how it rounds that is not public, so it faults. */
#include "u55.h"

enum { POOL_MAX = 0, POOL_AVERAGE = 1, POOL_REDUCE_SUM = 2 };

void u55_pool(ap_u55_t *npu, uint32_t mode) {
    u55_fmap_t ifm, ofm;
    u55_kernel_t k;
    u55_fmap(npu, U55_IFM, &ifm);
    u55_fmap(npu, U55_OFM, &ofm);
    u55_kernel(npu, &k);
    int global_scale = (int)((u55_r0(npu, U55_OFM_PRECISION) >> 8) & 1u);
    if (npu->fault != NULL) {
        return;
    }
    if (mode > POOL_REDUCE_SUM) {
        u55_fault(npu, "a pooling mode the Ethos-U55 does not have", mode);
    } else if ((u55_r0(npu, U55_IFM_UPSCALE) & 3u) != 0) {
        u55_fault(npu, "an upscaled pooling IFM (IFM_UPSCALE), which the model does not execute", 0);
    } else if (!global_scale && mode == POOL_AVERAGE) {
        u55_fault(npu, "an average pool the NPU divides by its valid taps (per-channel scale mode): rounding not public", mode);
    } else if (k.ifm_height <= 0 || k.ifm_width <= 0) {
        u55_fault(npu, "pads larger than the kernel's reach (an empty IFM)", k.pad_top);
    }
    u55_check_activation(npu, &ofm);
    if (npu->fault != NULL) {
        return;
    }
    if (!u55_fmap_check_box(npu, &ofm, k.ofm_height, k.ofm_width, k.ofm_depth, "an OFM that reaches outside its region")) {
        return;
    }
    /* A window's sum stays far inside 64 bits: at most 2^24 values (of 32 bits) per output. */
    const uint64_t window = (uint64_t)k.height * k.width * (mode == POOL_REDUCE_SUM ? k.ifm_depth : 1u);
    if (window > (1u << 24)) {
        u55_fault(npu, "a pooling window of more than 2^24 values", (uint32_t)(window > UINT32_MAX ? UINT32_MAX : window));
        return;
    }
    if (!u55_spend(npu, u55_mul_sat((uint64_t)k.ofm_height * k.ofm_width * k.ofm_depth, window))) {
        return;
    }
    uint32_t multiplier, shift;
    u55_ofm_scale(npu, &ifm, &multiplier, &shift);
    const uint32_t rounding = u55_ofm_rounding(npu);
    const uint32_t channels = mode == POOL_REDUCE_SUM ? k.ifm_depth : 1u;
    for (uint32_t y = 0; y < k.ofm_height && npu->fault == NULL; y++) {
        for (uint32_t x = 0; x < k.ofm_width; x++) {
            for (uint32_t c = 0; c < k.ofm_depth; c++) {
                int64_t acc = 0;
                uint32_t taps = 0;
                for (uint32_t ky = 0; ky < k.height; ky++) {
                    int64_t iy = (int64_t)y * k.stride_y - k.pad_top + (int64_t)ky * k.dilation_y;
                    for (uint32_t kx = 0; kx < k.width; kx++) {
                        int64_t ix = (int64_t)x * k.stride_x - k.pad_left + (int64_t)kx * k.dilation_x;
                        if (iy < 0 || iy >= k.ifm_height || ix < 0 || ix >= k.ifm_width) {
                            continue;
                        }
                        for (uint32_t i = 0; i < channels; i++) {
                            uint32_t ch = mode == POOL_REDUCE_SUM ? i : c;
                            int64_t v = u55_fmap_read(npu, &ifm, (uint32_t)iy, (uint32_t)ix, ch) - ifm.zero_point;
                            if (mode == POOL_MAX) {
                                acc = taps == 0 || v > acc ? v : acc;
                            } else {
                                acc += v;
                            }
                            taps++;
                        }
                    }
                }
                if (taps == 0) {
                    u55_fault(npu, "a pooling window entirely in the padding", y);
                    return;
                }
                int64_t v = u55_round_shift(acc, multiplier, shift, rounding, 31);
                u55_fmap_write(npu, &ofm, y, x, c, u55_activate(npu, &ofm, v));
            }
        }
    }
}
