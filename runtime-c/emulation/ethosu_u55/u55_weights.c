/* The kernel an operation applies and the weights and scales it reads.
 *
 * Kernel: KERNEL_STRIDE packs stride (bits 0/6 for x, 1/9 for y, as stride - 1), the weight
 * order (bit 2: part-kernel-first) and dilation (bits 3, 4); KERNEL_WIDTH/HEIGHT_M1 hold the
 * dilated extent. The IFM's size is not a register: the hardware derives it from the OFM box,
 * the kernel and the pads, (OFM - 1) * stride + extent - pads.
 *
 * Weights: the decoded stream (u55_mlw.c) lists the kernel in the NPU's "brick" order, with
 * zeros where a block runs past the kernel's depth or size. Outermost first:
 *   OFM blocks of OFM_BLK_DEPTH_M1 + 1 channels;
 *   IFM blocks of 16 channels (part-kernel-first or 16-bit IFM) or 32 (once for depthwise);
 *   sub-kernels of 8 / dilation rows and columns;
 *   (part-kernel-first) IFM micro-blocks of 8;
 *   OFM micro-blocks (8, or 4 on the Ethos-U55-32);
 *   the sub-kernel's elements, row-major, their count rounded up to 4 for depthwise and for
 *   part-kernel-first (to 2 with a 16-bit IFM);
 *   (depth-first) IFM micro-blocks of 8 across the whole IFM block, the tail zero;
 *   the OFM micro-block's channels; the IFM micro-block's 8 channels (1 for depthwise).
 * The weights are stored less their zero point, 9-bit signed.
 *
 * Scales: 10 bytes per OFM channel at SCALE_BASE: bias (40-bit signed), multiplier (32-bit),
 * shift (6 bits), all little-endian. */
#include "u55.h"

void u55_kernel(const ap_u55_t *npu, u55_kernel_t *k) {
    uint32_t ks = u55_r0(npu, U55_KERNEL_STRIDE);
    k->stride_x = 1u + ((ks & 1u) | (((ks >> 6) & 1u) << 1));
    k->stride_y = 1u + (((ks >> 1) & 1u) | (((ks >> 9) & 1u) << 1));
    k->part_kernel_first = (int)((ks >> 2) & 1u);
    k->dilation_x = 1u + ((ks >> 3) & 1u);
    k->dilation_y = 1u + ((ks >> 4) & 1u);
    k->dilated_width = u55_r0(npu, U55_KERNEL_WIDTH_M1) + 1u;
    k->dilated_height = u55_r0(npu, U55_KERNEL_HEIGHT_M1) + 1u;
    k->width = (k->dilated_width - 1u) / k->dilation_x + 1u;
    k->height = (k->dilated_height - 1u) / k->dilation_y + 1u;
    k->pad_top = u55_r0(npu, U55_IFM_PAD_TOP) & 0x7Fu;
    k->pad_left = u55_r0(npu, U55_IFM_PAD_LEFT) & 0x7Fu;
    k->pad_bottom = u55_r0(npu, U55_IFM_PAD_BOTTOM) & 0xFFu;
    k->pad_right = u55_r0(npu, U55_IFM_PAD_RIGHT) & 0xFFu;
    k->ofm_height = u55_r0(npu, U55_OFM_HEIGHT_M1) + 1u;
    k->ofm_width = u55_r0(npu, U55_OFM_WIDTH_M1) + 1u;
    k->ofm_depth = u55_r0(npu, U55_OFM_DEPTH_M1) + 1u;
    k->ifm_depth = u55_r0(npu, U55_IFM_DEPTH_M1) + 1u;
    k->ifm_height = (int64_t)(k->ofm_height - 1u) * k->stride_y + k->dilated_height - k->pad_top - k->pad_bottom;
    k->ifm_width = (int64_t)(k->ofm_width - 1u) * k->stride_x + k->dilated_width - k->pad_left - k->pad_right;
}

/* Walks the brick order: with `to`, stores each stream position's weight at its (o, ky, kx, i)
 * (padding positions store nothing); without, counts the positions, stopping once there are
 * more than the work area holds. Returns the count. */
typedef struct {
    const int16_t *stream;
    int16_t *w;
    uint32_t height, width, in;
} scatter_t;

static uint64_t walk(const ap_u55_t *npu, const u55_kernel_t *k, int depthwise, uint32_t ifm_bytes, scatter_t *to) {
    const uint32_t O = k->ofm_depth, I = depthwise ? 1u : k->ifm_depth;
    const uint32_t ublock = 8u, oublock = npu->ofm_ublock;
    uint32_t ofm_block = u55_r0(npu, U55_OFM_BLK_DEPTH_M1) + 1u;
    const uint32_t ifm_block = (k->part_kernel_first || ifm_bytes == 2) ? 16u : 32u;
    const uint32_t sub_h = 8u / k->dilation_y, sub_w = 8u / k->dilation_x;
    const uint32_t round = depthwise ? 4u : (k->part_kernel_first ? (ifm_bytes == 2 ? 2u : 4u) : 1u);
    uint64_t n = 0;
    if (ofm_block > O) {
        ofm_block = O;
    }
    for (uint32_t ob = 0; ob < O; ob += ofm_block) {
        uint32_t ob_depth = O - ob < ofm_block ? O - ob : ofm_block;
        for (uint32_t ib = 0; ib < I; ib += ifm_block) {
            uint32_t ib_depth = depthwise ? ublock
                                          : (k->part_kernel_first ? (I - ib < ifm_block ? I - ib : ifm_block) : ifm_block);
            for (uint32_t sy = 0; sy < k->height; sy += sub_h) {
                uint32_t sh = k->height - sy < sub_h ? k->height - sy : sub_h;
                for (uint32_t sx = 0; sx < k->width; sx += sub_w) {
                    uint32_t sw = k->width - sx < sub_w ? k->width - sx : sub_w;
                    uint32_t elements = (sh * sw + round - 1u) / round * round;
                    uint32_t outer = k->part_kernel_first ? ib_depth : 1u;
                    uint32_t inner = k->part_kernel_first ? 1u : ib_depth;
                    for (uint32_t iuo = 0; iuo < outer; iuo += ublock) {
                        for (uint32_t ou = 0; ou < ob_depth; ou += oublock) {
                            if (to == NULL && n > AP_U55_WORK_ELEMENTS) {
                                return n; /* counting: already more than the work area holds */
                            }
                            for (uint32_t e = 0; e < elements; e++) {
                                uint32_t kx = e % sw, ky = e / sw;
                                for (uint32_t iui = 0; iui < inner; iui += ublock) {
                                    for (uint32_t oz = 0; oz < oublock; oz++) {
                                        for (uint32_t iz = 0; iz < (depthwise ? 1u : ublock); iz++, n++) {
                                            uint32_t i = ib + iui + iuo + iz, o = ob + ou + oz;
                                            if (to == NULL || i >= I || o >= O || ky >= sh) {
                                                continue;
                                            }
                                            to->w[(((uint64_t)o * to->height + sy + ky) * to->width + sx + kx) * to->in + i] =
                                                to->stream[n];
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return n;
}

static int16_t work[AP_U55_WORK_ELEMENTS];

const int16_t *u55_weights(ap_u55_t *npu, const u55_kernel_t *k, int depthwise, uint32_t ifm_bytes) {
    uint32_t region = u55_r0(npu, U55_WEIGHT_REGION) & 7u;
    uint64_t base = u55_r1(npu, U55_WEIGHT_BASE), length = u55_r1(npu, U55_WEIGHT_LENGTH);
    const uint32_t in = depthwise ? 1u : k->ifm_depth;
    uint64_t weights = u55_mul_sat((uint64_t)k->ofm_depth * k->height, (uint64_t)k->width * in);
    if (weights > AP_U55_WORK_ELEMENTS) {
        u55_fault(npu, "a kernel larger than the emulation's work area (AP_U55_WORK_ELEMENTS)", (uint32_t)weights);
        return NULL;
    }
    uint64_t positions = walk(npu, k, depthwise, ifm_bytes, NULL);
    if (positions + weights > AP_U55_WORK_ELEMENTS) {
        u55_fault(npu, "a kernel larger than the emulation's work area (AP_U55_WORK_ELEMENTS)",
                  (uint32_t)(positions + weights));
        return NULL;
    }
    if (npu->region[region] == NULL || base + length > npu->region_size[region]) {
        u55_fault(npu, "a weight stream outside its region", region);
        return NULL;
    }
    int16_t *stream = work, *w = work + positions;
    int64_t decoded = u55_mlw_decode(npu->region[region] + base, length, stream, positions);
    if (decoded < 0) {
        u55_fault(npu, "a weight stream that does not decode", (uint32_t)base);
        return NULL;
    }
    if ((uint64_t)decoded != positions) {
        u55_fault(npu, "a weight stream whose length is not the kernel's (in the NPU's brick order)",
                  (uint32_t)decoded);
        return NULL;
    }
    for (uint64_t j = 0; j < weights; j++) {
        w[j] = 0;
    }
    scatter_t to = {stream, w, k->height, k->width, in};
    walk(npu, k, depthwise, ifm_bytes, &to);
    return w;
}

int u55_scale_entry(ap_u55_t *npu, uint32_t c, int64_t *bias, uint32_t *multiplier, uint32_t *shift) {
    uint32_t region = u55_r0(npu, U55_SCALE_REGION) & 7u;
    uint64_t base = u55_r1(npu, U55_SCALE_BASE), length = u55_r1(npu, U55_SCALE_LENGTH) & 0xFFFFFu;
    uint64_t at = base + 10u * (uint64_t)c;
    if (10u * (uint64_t)c + 10u > length) {
        u55_fault(npu, "a scale stream shorter than the OFM's channels (10 bytes each)", c);
        return 0;
    }
    if (npu->region[region] == NULL || at + 10u > npu->region_size[region]) {
        u55_fault(npu, "a scale stream outside its region", region);
        return 0;
    }
    const uint8_t *p = npu->region[region] + at;
    uint64_t b = 0;
    for (uint32_t j = 0; j < 5; j++) {
        b |= (uint64_t)p[j] << (8 * j);
    }
    *bias = (int64_t)(b << 24) >> 24; /* sign-extend 40 bits */
    *multiplier = (uint32_t)p[5] | ((uint32_t)p[6] << 8) | ((uint32_t)p[7] << 16) | ((uint32_t)p[8] << 24);
    *shift = p[9] & 63u;
    return 1;
}
