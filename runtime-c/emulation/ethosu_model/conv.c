/* NPU_OP_CONV and NPU_OP_DEPTHWISE.
 *
 * CONV (also fully connected layers, 1x1 over a 1x1xK IFM): for each OFM element (y, x, o),
 *   acc = sum over taps (ky, kx) and IFM channels i of (IFM[iy, ix, i] - IFM zero point) * W,
 * with iy = y * stride_y - pad_top + ky * dilation_y (x alike); taps in the padding add
 * nothing. DEPTHWISE reads IFM channel o for OFM channel o (depth multiplier 1: Vela arranges
 * the others as CONV). Then the output stage with channel o's scale entry: bias added, scaled
 * with its multiplier and shift, in the OFM's rounding mode. The accumulator is 32 bits for an
 * 8-bit IFM and 40 (U55) or 48 (U85) for a 16-bit one; Vela's kernels stay within it, the model
 * accumulates in 64. A global OFM scale (weights from IFM2, the Ethos-U85's matrix products)
 * and an accumulator taken from IFM2 or kept from the previous operation fault.
 *
 * IFM_UPSCALE (transpose convolution, resizes): the kernel sees the IFM twice its size, each
 * element repeated (NEAREST) or with zeros between (ZEROS). */
#include "model.h"

enum { UPSCALE_NONE = 0, UPSCALE_NEAREST = 1, UPSCALE_ZEROS = 2 };

void eu_conv(ap_eu_t *npu, int depthwise) {
    eu_fmap_t ifm, ofm;
    eu_kernel_t k;
    eu_fmap(npu, EU_IFM, 0, &ifm);
    eu_fmap(npu, EU_OFM, 0, &ofm);
    eu_kernel(npu, &k);
    uint32_t upscale = eu_r0(npu, EU_IFM_UPSCALE) & 3u, acc_format = eu_r0(npu, EU_ACC_FORMAT) & 3u;
    if (npu->fault != NULL) {
        return;
    }
    if (ifm.bytes == 4) {
        eu_fault(npu, "a convolution of a 32-bit IFM", 32);
    } else if (eu_global_scale(npu)) {
        eu_fault(npu, "a convolution with a global OFM scale (weights from IFM2), which the model does not execute", 1);
    } else if (acc_format > 1) {
        eu_fault(npu, npu->u85 ? "an ACC_FORMAT the Ethos-U85 does not have" : "a floating-point accumulator (ACC_FORMAT 2)",
                 acc_format);
    } else if (npu->u85 && ((eu_r0(npu, EU_ACC_FORMAT) >> 4) & 3u) != 0) {
        eu_fault(npu, "an accumulator taken from IFM2 or kept (ACC_FORMAT input), which the model does not execute",
                 eu_r0(npu, EU_ACC_FORMAT));
    } else if (upscale == 3) {
        eu_fault(npu, "an IFM_UPSCALE mode this NPU does not have", upscale);
    } else if (k.ifm_height <= 0 || k.ifm_width <= 0) {
        eu_fault(npu, "pads larger than the kernel's reach (an empty IFM)", k.pad_top);
    }
    eu_fmap_check_chain(npu, &ofm, &ifm, NULL);
    eu_check_activation(npu, &ofm);
    if (npu->fault != NULL) {
        return;
    }
    if (!eu_fmap_check_box(npu, &ofm, k.ofm_height, k.ofm_width, k.ofm_depth, "an OFM that reaches outside its region")) {
        return;
    }
    uint64_t macs = (uint64_t)k.height * k.width * (depthwise ? 1u : k.ifm_depth); /* < 2^48 */
    if (!eu_spend(npu, eu_mul_sat((uint64_t)k.ofm_height * k.ofm_width * k.ofm_depth, macs))) {
        return;
    }
    const int16_t *w = eu_weights(npu, &k, depthwise, ifm.bytes);
    if (w == NULL) {
        return;
    }
    const uint32_t in = depthwise ? 1u : k.ifm_depth;
    const eu_rounding_t rounding = eu_ofm_rounding(npu);
    uint32_t unused_multiplier, unused_shift, dbl_point;
    eu_ofm_scale(npu, &ifm, &unused_multiplier, &unused_shift, &dbl_point);
    for (uint32_t o = 0; o < k.ofm_depth && npu->fault == NULL; o++) {
        int64_t bias;
        uint32_t multiplier, shift;
        if (!eu_scale_entry(npu, o, &bias, &multiplier, &shift)) {
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
                            acc += (eu_fmap_read(npu, &ifm, ry, rx, o) - ifm.zero_point) * wt[0];
                            continue;
                        }
                        for (uint32_t i = 0; i < in; i++) {
                            acc += (eu_fmap_read(npu, &ifm, ry, rx, i) - ifm.zero_point) * wt[i];
                        }
                    }
                }
                int64_t v = eu_round_shift(acc + bias, multiplier, shift, rounding, dbl_point);
                eu_fmap_write(npu, &ofm, y, x, o, eu_activate(npu, &ofm, v));
            }
        }
    }
}
