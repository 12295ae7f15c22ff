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
 * write of memory the job was not given. */
#include "u55.h"

#include <string.h>

/* Each feature map's registers: the same fields at other opcodes. */
static const struct {
    uint16_t precision, region, zero_point, height0, height1, width0; /* one-word */
    uint8_t base0, stride_x;                                          /* two-word */
} REGISTERS[3] = {
    [U55_IFM] = {U55_IFM_PRECISION, U55_IFM_REGION, U55_IFM_ZERO_POINT, U55_IFM_HEIGHT0_M1, U55_IFM_HEIGHT1_M1,
                 U55_IFM_WIDTH0_M1, U55_IFM_BASE0, U55_IFM_STRIDE_X},
    [U55_IFM2] = {U55_IFM2_PRECISION, U55_IFM2_REGION, U55_IFM2_ZERO_POINT, U55_IFM2_HEIGHT0_M1, U55_IFM2_HEIGHT1_M1,
                  U55_IFM2_WIDTH0_M1, U55_IFM2_BASE0, U55_IFM2_STRIDE_X},
    [U55_OFM] = {U55_OFM_PRECISION, U55_OFM_REGION, U55_OFM_ZERO_POINT, U55_OFM_HEIGHT0_M1, U55_OFM_HEIGHT1_M1,
                 U55_OFM_WIDTH0_M1, U55_OFM_BASE0, U55_OFM_STRIDE_X},
};

void u55_fmap(ap_u55_t *npu, u55_fmap_kind_t kind, u55_fmap_t *fm) {
    memset(fm, 0, sizeof *fm);
    const uint32_t precision = u55_r0(npu, REGISTERS[kind].precision), region = u55_r0(npu, REGISTERS[kind].region);
    const uint32_t zero_point = u55_r0(npu, REGISTERS[kind].zero_point);
    const uint32_t base0 = REGISTERS[kind].base0, stride0 = REGISTERS[kind].stride_x;
    const uint32_t h0 = REGISTERS[kind].height0, h1 = REGISTERS[kind].height1, w0 = REGISTERS[kind].width0;
    /* The precision field is bits 3..2 for IFM and IFM2 but 2..1 for the OFM. */
    uint32_t bits = kind == U55_OFM ? (precision >> 1) & 3u : (precision >> 2) & 3u;
    uint32_t format = (precision >> 6) & 3u;
    if (bits == 3) {
        u55_fault(npu, "a 64-bit feature map (precision 3)", precision);
        return;
    }
    if (format > 1) {
        u55_fault(npu, "a feature-map format other than NHWC and NHCWB16", format);
        return;
    }
    if ((region & 0x8000u) != 0) {
        u55_fault(npu, "a feature map in a custom DMA region", region);
        return;
    }
    if (kind == U55_OFM && ((AP_U55_READ_ONLY_REGIONS >> (region & 7u)) & 1u)) {
        u55_fault(npu, "an OFM in region 0 (the model's weights, read-only)", region & 7u);
        return;
    }
    fm->bytes = 1u << bits;
    fm->is_signed = (int)(precision & 1u);
    fm->brick = format == 1;
    fm->zero_point = (fm->is_signed || fm->bytes > 1) ? u55_s16(zero_point) : (int32_t)zero_point;
    fm->mem = npu->region[region & 7u];
    fm->size = npu->region_size[region & 7u];
    for (uint32_t t = 0; t < 4; t++) {
        fm->base[t] = u55_r1(npu, base0 + t);
    }
    fm->stride_x = (int32_t)u55_r1(npu, stride0);
    fm->stride_y = (int32_t)u55_r1(npu, stride0 + 1);
    fm->stride_c = (int32_t)u55_r1(npu, stride0 + 2);
    fm->height0 = u55_r0(npu, h0) + 1u;
    fm->height1 = u55_r0(npu, h1) + 1u;
    fm->width0 = u55_r0(npu, w0) + 1u;
}

/* The byte offset of (y, x, c) in the map's region, or -1 outside it. */
static int64_t offset(const u55_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c) {
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

int64_t u55_fmap_read(ap_u55_t *npu, const u55_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c) {
    if (npu->fault != NULL) {
        return 0;
    }
    if (fm->mem == NULL) {
        u55_fault(npu, "a feature-map read in a region the job has no memory for", 0);
        return 0;
    }
    int64_t at = offset(fm, y, x, c);
    if (at < 0) {
        u55_fault(npu, "a feature-map read outside its region", y);
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

void u55_fmap_write(ap_u55_t *npu, const u55_fmap_t *fm, uint32_t y, uint32_t x, uint32_t c, int64_t v) {
    if (npu->fault != NULL) {
        return;
    }
    if (fm->mem == NULL) {
        u55_fault(npu, "a feature-map write in a region the job has no memory for", 0);
        return;
    }
    int64_t at = offset(fm, y, x, c);
    if (at < 0) {
        u55_fault(npu, "a feature-map write outside its region", y);
        return;
    }
    uint8_t *p = fm->mem + at;
    uint64_t bits = (uint64_t)v;
    for (uint32_t k = 0; k < fm->bytes; k++) {
        p[k] = (uint8_t)(bits >> (8 * k));
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

int u55_fmap_check_box(ap_u55_t *npu, const u55_fmap_t *fm, uint32_t height, uint32_t width, uint32_t depth,
                       const char *what) {
    if (npu->fault != NULL) {
        return 0;
    }
    if (height == 0 || width == 0 || depth == 0) {
        return 1;
    }
    if (fm->mem == NULL) {
        u55_fault(npu, what, 0);
        return 0;
    }
    uint32_t ys[6], xs[6], cs[6];
    uint32_t ny = extremes(height, fm->height0, fm->height1, ys), nx = extremes(width, fm->width0, fm->width0, xs);
    uint32_t last_brick = (depth - 1u) & ~15u;
    uint32_t nc = extremes(depth, last_brick, 16, cs);
    for (uint32_t i = 0; i < ny; i++) {
        for (uint32_t j = 0; j < nx; j++) {
            for (uint32_t k = 0; k < nc; k++) {
                if (offset(fm, ys[i], xs[j], cs[k]) < 0) {
                    u55_fault(npu, what, ys[i]);
                    return 0;
                }
            }
        }
    }
    return 1;
}

