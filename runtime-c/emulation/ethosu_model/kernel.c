/* The kernel an operation applies and the scale entries it reads.
 *
 * Kernel: KERNEL_STRIDE packs stride (bits 0/6 for x, 1/9 for y, as stride - 1), the weight
 * order (bit 2: part-kernel-first) and dilation (bits 3, 4); KERNEL_WIDTH/HEIGHT_M1 hold the
 * dilated extent (the same on both NPUs). The IFM's size is not a register: the hardware
 * derives it from the OFM box, the kernel and the pads, (OFM - 1) * stride + extent - pads.
 *
 * Scales: 10 bytes per OFM channel at SCALE_BASE, little-endian.
 *   Ethos-U55: bias (40-bit signed), multiplier (32 bits), shift (6 bits).
 *   Ethos-U85, 32-bit accumulator (ACC_FORMAT 0): bias (32-bit signed), multiplier (31 bits),
 *   shift (6 bits), a zero byte; 48-bit accumulator: bias (48-bit signed), multiplier (15
 *   bits), shift (6 bits), a zero byte. */
#include "model.h"

void eu_kernel(const ap_eu_t *npu, eu_kernel_t *k) {
    uint32_t ks = eu_r0(npu, EU_KERNEL_STRIDE);
    k->stride_x = 1u + ((ks & 1u) | (((ks >> 6) & 1u) << 1));
    k->stride_y = 1u + (((ks >> 1) & 1u) | (((ks >> 9) & 1u) << 1));
    k->part_kernel_first = (int)((ks >> 2) & 1u);
    k->dilation_x = 1u + ((ks >> 3) & 1u);
    k->dilation_y = 1u + ((ks >> 4) & 1u);
    k->dilated_width = eu_r0(npu, EU_KERNEL_WIDTH_M1) + 1u;
    k->dilated_height = eu_r0(npu, EU_KERNEL_HEIGHT_M1) + 1u;
    k->width = (k->dilated_width - 1u) / k->dilation_x + 1u;
    k->height = (k->dilated_height - 1u) / k->dilation_y + 1u;
    k->pad_top = eu_r0(npu, EU_IFM_PAD_TOP) & 0x7Fu;
    k->pad_left = eu_r0(npu, EU_IFM_PAD_LEFT) & 0x7Fu;
    k->pad_bottom = eu_r0(npu, EU_IFM_PAD_BOTTOM) & 0xFFu;
    k->pad_right = eu_r0(npu, EU_IFM_PAD_RIGHT) & 0xFFu;
    k->ofm_height = eu_r0(npu, EU_OFM_HEIGHT_M1) + 1u;
    k->ofm_width = eu_r0(npu, EU_OFM_WIDTH_M1) + 1u;
    k->ofm_depth = eu_r0(npu, EU_OFM_DEPTH_M1) + 1u;
    k->ifm_depth = eu_r0(npu, EU_IFM_DEPTH_M1) + 1u;
    k->ifm_height = (int64_t)(k->ofm_height - 1u) * k->stride_y + k->dilated_height - k->pad_top - k->pad_bottom;
    k->ifm_width = (int64_t)(k->ofm_width - 1u) * k->stride_x + k->dilated_width - k->pad_left - k->pad_right;
}

int eu_scale_entry(ap_eu_t *npu, uint32_t c, int64_t *bias, uint32_t *multiplier, uint32_t *shift) {
    uint32_t region = eu_r0(npu, EU_SCALE_REGION) & 7u;
    uint64_t base = eu_r1(npu, EU_SCALE_BASE), length = eu_r1(npu, EU_SCALE_LENGTH) & 0xFFFFFu;
    uint64_t at = base + 10u * (uint64_t)c;
    if (10u * (uint64_t)c + 10u > length) {
        eu_fault(npu, "a scale stream shorter than the OFM's channels (10 bytes each)", c);
        return 0;
    }
    if (npu->region[region] == NULL || at + 10u > npu->region_size[region]) {
        eu_fault(npu, "a scale stream outside its region", region);
        return 0;
    }
    const uint8_t *p = npu->region[region] + at;
    uint64_t b = 0;
    if (!npu->u85) {
        for (uint32_t j = 0; j < 5; j++) {
            b |= (uint64_t)p[j] << (8 * j);
        }
        *bias = (int64_t)(b << 24) >> 24; /* sign-extend 40 bits */
        *multiplier = (uint32_t)p[5] | ((uint32_t)p[6] << 8) | ((uint32_t)p[7] << 16) | ((uint32_t)p[8] << 24);
        *shift = p[9] & 63u;
        return 1;
    }
    if ((eu_r0(npu, EU_ACC_FORMAT) & 3u) == 0) {
        for (uint32_t j = 0; j < 4; j++) {
            b |= (uint64_t)p[j] << (8 * j);
        }
        *bias = (int32_t)(uint32_t)b;
        *multiplier = ((uint32_t)p[4] | ((uint32_t)p[5] << 8) | ((uint32_t)p[6] << 16) | ((uint32_t)p[7] << 24)) & 0x7FFFFFFFu;
    } else {
        for (uint32_t j = 0; j < 6; j++) {
            b |= (uint64_t)p[j] << (8 * j);
        }
        *bias = (int64_t)(b << 16) >> 16; /* sign-extend 48 bits */
        *multiplier = ((uint32_t)p[6] | ((uint32_t)p[7] << 8)) & 0x7FFFu;
    }
    *shift = p[8] & 63u;
    return 1;
}
