/* The Ethos-U55's weight order.
 *
 * The decoded stream (weight_codec.c) lists the kernel in the NPU's "brick" order, with
 * zeros where a block runs past the kernel's depth or size. Outermost first:
 *   OFM blocks of OFM_BLK_DEPTH_M1 + 1 channels;
 *   IFM blocks of 16 channels (part-kernel-first or 16-bit IFM) or 32 (once for depthwise);
 *   sub-kernels of 8 / dilation rows and columns;
 *   (part-kernel-first) IFM micro-blocks of 8;
 *   OFM micro-blocks (8, or 4 on the Ethos-U55-32);
 *   the sub-kernel's elements, row-major, their count rounded up to 4 for depthwise and for
 *   part-kernel-first (to 2 with a 16-bit IFM);
 *   (depth-first) IFM micro-blocks of 8 across the whole IFM block, the tail zero;
 *   the OFM micro-block's channels; the IFM micro-block's 8 channels (1 for depthwise). */
#include "model.h"

uint64_t eu_weight_order_u55(const ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes,
                             eu_scatter_t *to) {
    const uint32_t O = k->ofm_depth, I = depthwise ? 1u : k->ifm_depth;
    const uint32_t ublock = 8u, oublock = npu->ofm_ublock;
    uint32_t ofm_block = eu_r0(npu, EU_OFM_BLK_DEPTH_M1) + 1u;
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
                            if (to == NULL && n > AP_ETHOSU_WORK_ELEMENTS) {
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
