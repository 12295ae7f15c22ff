/* NPU_OP_CONV and NPU_OP_DEPTHWISE.
 *
 * CONV (also fully connected layers, 1x1 over a 1x1xK IFM): for each OFM element (y, x, o),
 *   acc = sum over taps (ky, kx) and IFM channels i of (IFM[iy, ix, i] - IFM zero point) * W,
 * with iy = y * stride_y - pad_top + ky * dilation_y (x alike); taps in the padding add
 * nothing. DEPTHWISE reads IFM channel o for OFM channel o (depth multiplier 1: Vela arranges
 * the others as CONV). Then the output stage with channel o's scale entry: bias added, scaled
 * with its multiplier and shift, in the OFM's rounding mode. The accumulator is 32 bits for an
 * 8-bit IFM and 40 for a 16-bit one; Vela's kernels stay within it, the model accumulates in 64.
 *
 * IFM_UPSCALE (transpose convolution, resizes): the kernel sees the IFM twice its size, each
 * element repeated (NEAREST) or with zeros between (ZEROS). */
#include "u55.h"

enum { UPSCALE_NONE = 0, UPSCALE_NEAREST = 1, UPSCALE_ZEROS = 2 };

void u55_conv(ap_u55_t *npu, int depthwise) {
    u55_fmap_t ifm, ofm;
    u55_kernel_t k;
    u55_fmap(npu, U55_IFM, &ifm);
    u55_fmap(npu, U55_OFM, &ofm);
    u55_kernel(npu, &k);
    uint32_t upscale = u55_r0(npu, U55_IFM_UPSCALE) & 3u, acc_format = u55_r0(npu, U55_ACC_FORMAT) & 3u;
    if (npu->fault != NULL) {
        return;
    }
    if (ifm.bytes == 4) {
        u55_fault(npu, "a convolution of a 32-bit IFM", 32);
    } else if ((u55_r0(npu, U55_OFM_PRECISION) >> 8) & 1u) {
        u55_fault(npu, "a convolution with a global OFM scale (Vela gives each channel a scale entry)", 1);
    } else if (acc_format > 1) {
        u55_fault(npu, "a floating-point accumulator (ACC_FORMAT 2)", acc_format);
    } else if (upscale == 3) {
        u55_fault(npu, "an IFM_UPSCALE mode the Ethos-U55 does not have", upscale);
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
    uint64_t macs = (uint64_t)k.height * k.width * (depthwise ? 1u : k.ifm_depth); /* < 2^48 */
    if (!u55_spend(npu, u55_mul_sat((uint64_t)k.ofm_height * k.ofm_width * k.ofm_depth, macs))) {
        return;
    }
    const int16_t *w = u55_weights(npu, &k, depthwise, ifm.bytes);
    if (w == NULL) {
        return;
    }
    const uint32_t in = depthwise ? 1u : k.ifm_depth, rounding = u55_ofm_rounding(npu);
    for (uint32_t o = 0; o < k.ofm_depth && npu->fault == NULL; o++) {
        int64_t bias;
        uint32_t multiplier, shift;
        if (!u55_scale_entry(npu, o, &bias, &multiplier, &shift)) {
            return;
        }
        const int16_t *wo = w + (uint64_t)o * k.height * k.width * in;
        for (uint32_t y = 0; y < k.ofm_height; y++) {
            for (uint32_t x = 0; x < k.ofm_width; x++) {
                int64_t acc = 0;
                for (uint32_t ky = 0; ky < k.height; ky++) {
                    int64_t iy = (int64_t)y * k.stride_y - k.pad_top + (int64_t)ky * k.dilation_y;
                    if (iy < 0 || iy >= k.ifm_height || (upscale == UPSCALE_ZEROS && (iy & 1))) {
                        continue;
                    }
                    for (uint32_t kx = 0; kx < k.width; kx++) {
                        int64_t ix = (int64_t)x * k.stride_x - k.pad_left + (int64_t)kx * k.dilation_x;
                        if (ix < 0 || ix >= k.ifm_width || (upscale == UPSCALE_ZEROS && (ix & 1))) {
                            continue;
                        }
                        uint32_t ry = (uint32_t)(upscale ? iy / 2 : iy), rx = (uint32_t)(upscale ? ix / 2 : ix);
                        const int16_t *wt = wo + ((uint64_t)ky * k.width + kx) * in;
                        if (depthwise) {
                            acc += (u55_fmap_read(npu, &ifm, ry, rx, o) - ifm.zero_point) * wt[0];
                            continue;
                        }
                        for (uint32_t i = 0; i < in; i++) {
                            acc += (u55_fmap_read(npu, &ifm, ry, rx, i) - ifm.zero_point) * wt[i];
                        }
                    }
                }
                int64_t v = u55_round_shift(acc + bias, multiplier, shift, rounding, 31);
                u55_fmap_write(npu, &ofm, y, x, o, u55_activate(npu, &ofm, v));
            }
        }
    }
}
