/* The Ethos-U85's weight order.
 *
 * The decoded stream lists the kernel with zeros where a block runs past the kernel's depth or
 * size. Outermost first:
 *   OFM blocks of OFM_BLK_DEPTH_M1 + 1 channels;
 *   IFM blocks, visited in a zig-zag: forwards for the first OFM block, backwards from the
 *   last one for the next, and so on (once for depthwise). Their depth is not a register: 16
 *   part-kernel-first; 32 for a 32-bit IFM, or on the 128- and 256-MAC NPUs when the OFM
 *   micro-block is 16 deep and the weights are not sparse; 128 for sparse weights of an 8-bit
 *   IFM; else 64;
 *   sub-kernels of 8 / dilation columns, then rows (columns outermost);
 *   IFM micro-blocks: 8 deep (part-kernel-first with a 16-bit IFM and dense weights), 1
 *   (depthwise) or the whole IFM block;
 *   OFM micro-blocks, as deep as ACC_FORMAT's micro-block on this MAC count;
 *   (part-kernel-first and depthwise) the stride's phases, y then x, each covering the taps
 *   that phase reaches; the sub-kernel's rows, every odd row right to left; its elements'
 *   count is padded with zeros to a multiple of 5 (part-kernel-first; 10 with a 16-bit IFM or
 *   sparse weights) or 10 (depthwise), the padding once the rows are done;
 *   the IFM micro-block in steps of 8 (16 sparse; 1 depthwise); the OFM micro-block's channels
 *   in groups of 4; the step's IFM channels.
 * Depthwise streams of a 16-bit IFM also pad each 10 elements with zeros (2 per OFM channel of
 * the micro-block; the NPUs with more MACs pad more).
 *
 * The NPUs with more than one core (512 MACs and up: 2 or 4) give each core its own stream in
 * the standard format (WEIGHT_BASE, WEIGHT1..3_BASE): core s takes the micro-block's groups of
 * 4 OFM channels s, s + cores, ..., and its share of the padding. */
#include "model.h"

/* OFM micro-block depth for ACC_FORMAT's micro-block field (bits 10..8: 1x1, 1x2, 1x4, 2x2,
 * 2x4, 4x4) on each MAC count (Vela's accelerator configurations); 0 where it has none. */
static uint32_t ofm_ublock_depth(uint32_t macs, uint32_t microblock) {
    switch (macs) {
    case 128:
        return microblock == 0 ? 16u : (microblock == 1 ? 8u : 0u);
    case 256:
        return microblock == 1 ? 16u : ((microblock == 2 || microblock == 3) ? 8u : 0u);
    case 512:
        return (microblock == 2 || microblock == 3) ? 16u : 0u;
    case 1024:
        return (microblock == 2 || microblock == 3) ? 32u : (microblock == 4 ? 16u : 0u);
    case 2048:
        return (microblock == 2 || microblock == 3) ? 64u : (microblock == 5 ? 16u : 0u);
    default:
        return 0;
    }
}

/* The IFM block depth, which is not a register (see above). */
static uint32_t ifm_block_depth(uint32_t macs, uint32_t ofm_ublock, int sparse, uint32_t ifm_bytes, int part_kernel) {
    if (part_kernel) {
        return 16u;
    }
    if (ifm_bytes == 4 || ((macs == 128 || macs == 256) && ofm_ublock == 16 && !sparse)) {
        return 32u;
    }
    return sparse && ifm_bytes == 1 ? 128u : 64u;
}

uint32_t eu_u85_cores(uint32_t macs) { return macs <= 256 ? 1u : (macs == 512 ? 2u : 4u); }

uint64_t eu_weight_order_u85(const ap_eu_t *npu, const eu_kernel_t *k, int depthwise, uint32_t ifm_bytes,
                             uint32_t core, eu_scatter_t *to) {
    const uint32_t ofm_ublock = ofm_ublock_depth(npu->macs, (eu_r0(npu, EU_ACC_FORMAT) >> 8) & 7u);
    if (ofm_ublock == 0) {
        return UINT64_MAX;
    }
    const int sparse = (int)((eu_r0(npu, EU85_WEIGHT_FORMAT) >> 4) & 1u), ifm16 = ifm_bytes == 2;
    const int part_kernel = !depthwise && k->part_kernel_first;
    const int64_t O = k->ofm_depth, I = depthwise ? 1 : k->ifm_depth;
    const uint32_t ofm_block = eu_r0(npu, EU_OFM_BLK_DEPTH_M1) + 1u;
    const uint32_t ifm_block = ifm_block_depth(npu->macs, ofm_ublock, sparse, ifm_bytes, part_kernel);
    uint32_t stride_x = k->stride_x, stride_y = k->stride_y, round, ifm_ublock;
    if (depthwise) {
        round = 10u;
        ifm_ublock = 1u;
    } else if (part_kernel) {
        round = (ifm16 || sparse) ? 10u : 5u;
        ifm_ublock = (ifm16 && !sparse) ? 8u : ifm_block;
    } else {
        stride_x = stride_y = 1u;
        round = 1u;
        ifm_ublock = ifm_block;
    }
    const uint32_t sub_w = 8u / k->dilation_x, sub_h = 8u / k->dilation_y;
    const uint32_t dw_pad = (!ifm16 && npu->macs <= 256) ? 0u : (npu->macs <= 512 ? 2u : 6u);
    const uint32_t inner_step = depthwise ? 1u : (sparse ? 16u : 8u);
    const uint32_t cores = eu_u85_cores(npu->macs);
    uint64_t n = 0;
    int64_t step = -(int64_t)ifm_block, last_ib = 0;
    for (int64_t ob = 0; ob < O; ob += ofm_block) {
        const int64_t ob_depth = O - ob < (int64_t)ofm_block ? O - ob : (int64_t)ofm_block;
        step = -step;
        for (int64_t ib = last_ib; ib >= 0 && ib < I; ib += step) {
            last_ib = ib;
            const int64_t ib_depth = I - ib < (int64_t)ifm_block ? I - ib : (int64_t)ifm_block;
            for (uint32_t sx = 0; sx < k->width; sx += sub_w) {
                const uint32_t sw = k->width - sx < sub_w ? k->width - sx : sub_w;
                for (uint32_t sy = 0; sy < k->height; sy += sub_h) {
                    const uint32_t sh = k->height - sy < sub_h ? k->height - sy : sub_h;
                    const int64_t outer = depthwise ? 1 : ib_depth;
                    for (int64_t iuo = 0; iuo < outer; iuo += ifm_ublock) {
                        for (int64_t ou = 0; ou < ob_depth; ou += ofm_ublock) {
                            if (to == NULL && n > AP_ETHOSU_WORK_ELEMENTS) {
                                return n; /* counting: already more than the work area holds */
                            }
                            int64_t left = (sw * sh + round - 1u) / round * round;
                            for (uint32_t py = 0; py < stride_y; py++) {
                                const uint32_t rows = (sh + stride_y - 1u - py) / stride_y;
                                for (uint32_t px = 0; px < stride_x; px++) {
                                    const uint32_t cols = (sw + stride_x - 1u - px) / stride_x;
                                    for (uint32_t r = 0; r < rows; r++) {
                                        for (uint32_t q = 0; q < cols; q++) {
                                            const uint32_t col = r % 2u == 0 ? q : cols - 1u - q;
                                            const uint32_t wx = sx + px + col * stride_x, wy = sy + py + r * stride_y;
                                            left--;
                                            for (uint32_t iui = 0; iui < ifm_ublock; iui += inner_step) {
                                                for (uint32_t oz = 4u * core; oz < ofm_ublock; oz += 4u * cores) {
                                                    for (uint32_t oi = 0; oi < 4u; oi++) {
                                                    for (uint32_t iz = 0; iz < inner_step; iz++, n++) {
                                                        const int64_t i = ib + iuo + iui + iz, o = ob + ou + oz + oi;
                                                        if (to == NULL || i >= I || o >= O) {
                                                            continue;
                                                        }
                                                        to->w[(((uint64_t)o * to->height + wy) * to->width + wx) * to->in +
                                                              (uint64_t)i] = to->stream[n];
                                                    }
                                                    }
                                                }
                                            }
                                            if (depthwise && left % round == 0) {
                                                n += (uint64_t)dw_pad * ofm_ublock / cores;
                                            }
                                        }
                                    }
                                }
                            }
                            if (left > 0) {
                                n += (uint64_t)(left + (depthwise ? dw_pad : 0u)) * ifm_ublock * ofm_ublock / cores;
                            }
                        }
                    }
                }
            }
        }
    }
    return n;
}
