/* Feature maps: where element (y, x, c) of the IFM, IFM2 or OFM is, as the registers say.
 *
 *  - NHWC: base + y * STRIDE_Y + x * STRIDE_X + c * size. The NPU ignores STRIDE_C here.
 *  - NHCWB16: channels in bricks of 16: base + y * STRIDE_Y + x * 16 * size
 *    + (c / 16) * STRIDE_C + (c % 16) * size.
 *  - Tiles: a map may be split in up to four tiles (BASE0..3): x at or beyond WIDTH0 is in
 *    tile 1 (or 3 below HEIGHT1), else y at or beyond HEIGHT0 is in tile 2.
 *
 * Strides are signed (Vela reverses an axis with a negative one). Every access is checked
 * against the size the driver gave its region: an address outside is a fault, never a read or
 * write of memory the job was not given.
 *
 * The precision registers: signed in bit 0 and the format in bits 7..6 on both NPUs; the
 * element size in bits 3..2 (IFM, IFM2) or 2..1 (OFM). The Ethos-U85 adds a storage mode in
 * bits 15..14 (tiles 2x2, tiles 3x1, chained, none: a scalar) and the OFM's reverse and
 * transpose in bits 13..9. A chained map (Ethos-U85) is no memory: the operation's OFM goes to
 * chain buffer OFM_REGION, and the next operation reads it as its IFM or IFM2 from there.
 *
 * A transposed OFM (Ethos-U85): the operation computes its box in the order of OFM_HEIGHT,
 * WIDTH and DEPTH, and element (y, x, c) is stored at the position the transpose names in the
 * tiles and strides, which describe the transposed map: WHC (1) at (x, y, c), HCW (2) at
 * (y, c, x), WCH (3) at (x, c, y), CHW (6) at (c, y, x), CWH (7) at (c, x, y). Reversing an
 * axis (bits 10..9) faults: no corpus program shows where the reversed box starts. */
#include "model.h"

#include <string.h>

/* Each feature map's registers: the same fields at other opcodes. */
static const struct {
    uint16_t precision, region, zero_point, height0, height1, width0; /* one-word */
    uint8_t base0, stride_x;                                          /* two-word */
} REGISTERS[3] = {
    [EU_IFM] = {EU_IFM_PRECISION, EU_IFM_REGION, EU_IFM_ZERO_POINT, EU_IFM_HEIGHT0_M1, EU_IFM_HEIGHT1_M1,
                 EU_IFM_WIDTH0_M1, EU_IFM_BASE0, EU_IFM_STRIDE_X},
    [EU_IFM2] = {EU_IFM2_PRECISION, EU_IFM2_REGION, EU_IFM2_ZERO_POINT, EU_IFM2_HEIGHT0_M1, EU_IFM2_HEIGHT1_M1,
                  EU_IFM2_WIDTH0_M1, EU_IFM2_BASE0, EU_IFM2_STRIDE_X},
    [EU_OFM] = {EU_OFM_PRECISION, EU_OFM_REGION, EU_OFM_ZERO_POINT, EU_OFM_HEIGHT0_M1, EU_OFM_HEIGHT1_M1,
                 EU_OFM_WIDTH0_M1, EU_OFM_BASE0, EU_OFM_STRIDE_X},
};

enum { STORAGE_TILE2X2 = 0, STORAGE_TILE3X1 = 1, STORAGE_CHAINED = 2, STORAGE_NONE = 3 };

void eu_fmap(ap_eu_t *npu, eu_fmap_kind_t kind, int scalar, eu_fmap_t *fm) {
    memset(fm, 0, sizeof *fm);
    const uint32_t precision = eu_r0(npu, REGISTERS[kind].precision), region = eu_r0(npu, REGISTERS[kind].region);
    const uint32_t zero_point = eu_r0(npu, REGISTERS[kind].zero_point);
    const uint32_t base0 = REGISTERS[kind].base0, stride0 = REGISTERS[kind].stride_x;
    const uint32_t h0 = REGISTERS[kind].height0, h1 = REGISTERS[kind].height1, w0 = REGISTERS[kind].width0;
    uint32_t bits = kind == EU_OFM ? (precision >> 1) & 3u : (precision >> 2) & 3u;
    uint32_t format = (precision >> 6) & 3u;
    uint32_t storage = npu->u85 ? (precision >> 14) & 3u : STORAGE_TILE2X2;
    if (bits == 3) {
        eu_fault(npu, "a 64-bit feature map (precision 3)", precision);
        return;
    }
    if (format > 1) {
        eu_fault(npu, "a feature-map format other than NHWC and NHCWB16", format);
        return;
    }
    const uint32_t transpose = npu->u85 && kind == EU_OFM ? (precision >> 11) & 7u : 0u;
    if (npu->u85 && kind == EU_OFM && ((precision >> 9) & 3u) != 0) {
        eu_fault(npu, "a reversed OFM (OFM_PRECISION bits 10..9), which the model does not execute", precision);
        return;
    }
    if (transpose == 4 || transpose == 5) {
        eu_fault(npu, "an OFM transpose the Ethos-U85 does not have", transpose);
        return;
    }
    if (transpose != 0 && storage == STORAGE_CHAINED) {
        eu_fault(npu, "a transposed chained OFM", transpose);
        return;
    }
    if (storage == STORAGE_TILE3X1) {
        eu_fault(npu, "a feature map in 3x1 tiles (storage mode 1), which the model does not execute", precision);
        return;
    }
    if (storage == STORAGE_NONE && !scalar) {
        eu_fault(npu, "a feature map without storage (mode 3) that is not a broadcast scalar", precision);
        return;
    }
    fm->transpose = transpose;
    fm->bytes = 1u << bits;
    fm->is_signed = (int)(precision & 1u);
    fm->brick = format == 1;
    fm->zero_point = (fm->is_signed || fm->bytes > 1) ? eu_s16(zero_point) : (int32_t)zero_point;
    if (!npu->u85 && (region & 0x8000u) != 0) {
        eu_fault(npu, "a feature map in a custom DMA region", region);
        return;
    }
    if (scalar) {
        return; /* a scalar operand: its type and zero point are all */
    }
    if (storage == STORAGE_CHAINED) {
        if (region >= AP_EU_CHAIN_BUFFERS) {
            eu_fault(npu, "a chained feature map in a chain buffer the model does not have", region);
            return;
        }
        fm->chain = &npu->chain[region];
        return;
    }
    if (npu->u85 && region > 7u) {
        eu_fault(npu, "a feature map in a custom DMA region", region);
        return;
    }
    if (kind == EU_OFM && ((AP_EU_READ_ONLY_REGIONS >> (region & 7u)) & 1u)) {
        eu_fault(npu, "an OFM in region 0 (the model's weights, read-only)", region & 7u);
        return;
    }
    fm->mem = npu->region[region & 7u];
    fm->size = npu->region_size[region & 7u];
    for (uint32_t t = 0; t < 4; t++) {
        fm->base[t] = eu_r1(npu, base0 + t);
    }
    fm->stride_x = (int32_t)eu_r1(npu, stride0);
    fm->stride_y = (int32_t)eu_r1(npu, stride0 + 1);
    fm->stride_c = (int32_t)eu_r1(npu, stride0 + 2);
    fm->height0 = eu_r0(npu, h0) + 1u;
    fm->height1 = eu_r0(npu, h1) + 1u;
    fm->width0 = eu_r0(npu, w0) + 1u;
}

/* Where the transpose puts (y, x, c) (see above). */
static void transposed(uint32_t transpose, uint32_t *y, uint32_t *x, uint32_t *c) {
    uint32_t h = *y, w = *x, d = *c;
    switch (transpose) {
    case 1:
        *y = w, *x = h, *c = d;
        break;
    case 2:
        *y = h, *x = d, *c = w;
        break;
    case 3:
        *y = w, *x = d, *c = h;
        break;
    case 6:
        *y = d, *x = h, *c = w;
        break;
    case 7:
        *y = d, *x = w, *c = h;
        break;
    default:
        break;
    }
}

/* Where (y, x, c) is in a chain buffer, or -1 outside what the operation that filled it
 * wrote. */
static int64_t chain_index(const eu_chain_t *chain, uint32_t y, uint32_t x, uint32_t c) {
    if (y >= chain->height || x >= chain->width || c >= chain->depth) {
        return -1;
    }
    return ((int64_t)y * chain->width + x) * chain->depth + c;
}

/* The byte offset of (y, x, c) in the map's region, or -1 outside it. */
static int64_t offset(const eu_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c) {
    uint32_t tile = 0;
    if (x >= fm->width0) {
        x -= fm->width0;
        tile = 1;
        if (y >= fm->height1) {
            y -= fm->height1;
            tile = 3;
        }
    } else if (y >= fm->height0) {
        y -= fm->height0;
        tile = 2;
    }
    int64_t at = (int64_t)fm->base[tile] + (int64_t)y * fm->stride_y;
    if (fm->brick) {
        at += (int64_t)x * 16 * fm->bytes + (int64_t)(c / 16u) * fm->stride_c + (int64_t)(c % 16u) * fm->bytes;
    } else {
        at += (int64_t)x * fm->stride_x + (int64_t)c * fm->bytes;
    }
    if (at < 0 || (uint64_t)at + fm->bytes > fm->size) {
        return -1;
    }
    return at;
}

int64_t eu_fmap_read(ap_eu_t *npu, const eu_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c) {
    if (npu->fault != NULL) {
        return 0;
    }
    if (fm->chain != NULL) {
        int64_t i = chain_index(fm->chain, y, x, c);
        if (i < 0) {
            eu_fault(npu, "a chained read outside what the previous operation produced", y);
            return 0;
        }
        return fm->chain->value[i];
    }
    if (fm->mem == NULL) {
        eu_fault(npu, "a feature-map read in a region the job has no memory for", 0);
        return 0;
    }
    int64_t at = offset(fm, y, x, c);
    if (at < 0) {
        eu_fault(npu, "a feature-map read outside its region", y);
        return 0;
    }
    const uint8_t *p = fm->mem + at;
    uint32_t raw = p[0];
    for (uint32_t k = 1; k < fm->bytes; k++) {
        raw |= (uint32_t)p[k] << (8 * k);
    }
    if (!fm->is_signed) {
        return raw;
    }
    switch (fm->bytes) {
    case 1:
        return (int8_t)(uint8_t)raw;
    case 2:
        return (int16_t)(uint16_t)raw;
    default:
        return (int32_t)raw;
    }
}

void eu_fmap_write(ap_eu_t *npu, const eu_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c, int64_t v) {
    if (npu->fault != NULL) {
        return;
    }
    if (fm->chain != NULL) {
        int64_t i = chain_index(fm->chain, y, x, c);
        if (i < 0) {
            eu_fault(npu, "a chained write outside the operation's box", y);
            return;
        }
        /* What the OFM's element would hold: its low bits, sign- or zero-extended. */
        uint32_t bits = 8u * fm->bytes;
        uint64_t low = bits == 32 ? (uint64_t)(uint32_t)v : (uint64_t)v & ((1ull << bits) - 1u);
        int64_t value = fm->is_signed && bits < 64 && ((low >> (bits - 1)) & 1u) ? (int64_t)low - ((int64_t)1 << bits)
                                                                                 : (int64_t)low;
        fm->chain->value[i] = (int32_t)value;
        return;
    }
    transposed(fm->transpose, &y, &x, &c);
    if (fm->mem == NULL) {
        eu_fault(npu, "a feature-map write in a region the job has no memory for", 0);
        return;
    }
    int64_t at = offset(fm, y, x, c);
    if (at < 0) {
        eu_fault(npu, "a feature-map write outside its region", y);
        return;
    }
    uint8_t *p = fm->mem + at;
    uint64_t bits = (uint64_t)v;
    for (uint32_t k = 0; k < fm->bytes; k++) {
        p[k] = (uint8_t)(bits >> (8 * k));
    }
}

void eu_fmap_check_chain(ap_eu_t *npu, const eu_fmap_t *ofm, const eu_fmap_t *ifm, const eu_fmap_t *ifm2) {
    if (ofm->chain != NULL && (ofm->chain == ifm->chain || (ifm2 != NULL && ofm->chain == ifm2->chain))) {
        eu_fault(npu, "an operation whose OFM is chained into the chain buffer it reads", eu_r0(npu, EU_OFM_REGION));
    }
}

/* The coordinates where an affine piece of the map can reach its extremes along one axis:
 * the ends of the box and of each tile or brick boundary inside it. */
static uint32_t extremes(uint32_t size, uint32_t a, uint32_t b, uint32_t out[6]) {
    uint32_t candidates[6] = {0, size - 1, a - 1, a, b - 1, b}, n = 0;
    for (uint32_t i = 0; i < 6; i++) {
        if (candidates[i] < size) {
            out[n++] = candidates[i];
        }
    }
    return n;
}

int eu_fmap_check_box(ap_eu_t *npu, const eu_fmap_t *fm, uint32_t height, uint32_t width, uint32_t depth,
                       const char *what) {
    if (npu->fault != NULL) {
        return 0;
    }
    if (height == 0 || width == 0 || depth == 0) {
        return 1;
    }
    if (fm->chain != NULL) {
        /* The box becomes the buffer's contents: what the next operation may read. */
        if (eu_mul_sat((uint64_t)height * width, depth) > AP_ETHOSU_CHAIN_ELEMENTS) {
            eu_fault(npu, "a chained OFM larger than the emulation's chain buffer (AP_ETHOSU_CHAIN_ELEMENTS)", depth);
            return 0;
        }
        fm->chain->height = height;
        fm->chain->width = width;
        fm->chain->depth = depth;
        return 1;
    }
    if (fm->mem == NULL) {
        eu_fault(npu, what, 0);
        return 0;
    }
    transposed(fm->transpose, &height, &width, &depth);
    uint32_t ys[6], xs[6], cs[6];
    uint32_t ny = extremes(height, fm->height0, fm->height1, ys), nx = extremes(width, fm->width0, fm->width0, xs);
    uint32_t last_brick = (depth - 1u) & ~15u;
    uint32_t nc = extremes(depth, last_brick, 16, cs);
    for (uint32_t i = 0; i < ny; i++) {
        for (uint32_t j = 0; j < nx; j++) {
            for (uint32_t k = 0; k < nc; k++) {
                if (offset(fm, ys[i], xs[j], cs[k]) < 0) {
                    eu_fault(npu, what, ys[i]);
                    return 0;
                }
            }
        }
    }
    return 1;
}

