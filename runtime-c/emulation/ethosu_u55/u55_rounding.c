/* The output stage every operation ends with:
 *
 *  1. scale: v * M / 2^S, rounded by OFM_PRECISION's mode (M, S per channel from the scale
 *     stream or global from OFM_SCALE; the operations apply it);
 *  2. add the OFM zero point;
 *  3. the activation function: none, int16 TANH or SIGMOID, or a LUT in SHRAM;
 *  4. clamp to ACTIVATION_MIN..MAX (not for a 32-bit OFM with the OFM's own clip range: the
 *     registers are 16 bits and Vela writes the int16 extremes there) and to the clip range;
 *  5. store (the feature map's job).
 *
 * The rounding modes, for p = v * M:
 *   DBL       (p + 2^(S-1) + D) >> S with D = +-2^(P-1) by v's sign when S > P: TFLite's
 *             double rounding (a rounding doubling high multiply, then a rounding shift). P is
 *             31 for the output stage; operand scaling of 8- and 16-bit adds uses 11 and 16.
 *   NATURAL   (p + 2^(S-1)) >> S, halves up.
 *   TRUNCATE  towards zero.
 * >> is a floor shift. p needs up to 80 bits (a 48-bit accumulator times a 32-bit multiplier):
 * the product is formed in two 64-bit halves so the host and a 32-bit Cortex-M agree. */
#include "u55.h"

typedef struct {
    uint64_t lo;
    int64_t hi;
} wide_t;

static wide_t wide_mul(int64_t v, uint32_t m) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t low = (mag & 0xFFFFFFFFu) * m, high = (mag >> 32) * m;
    wide_t p;
    p.lo = low + (high << 32);
    p.hi = (int64_t)((high >> 32) + (p.lo < low));
    if (v < 0) {
        p.lo = ~p.lo + 1u;
        p.hi = (int64_t)(~(uint64_t)p.hi + (p.lo == 0));
    }
    return p;
}

static wide_t wide_add(wide_t a, int64_t k) {
    wide_t r;
    r.lo = a.lo + (uint64_t)k;
    r.hi = (int64_t)((uint64_t)a.hi + (r.lo < a.lo) + (k < 0 ? UINT64_MAX : 0));
    return r;
}

static wide_t wide_neg(wide_t a) {
    wide_t r;
    r.lo = ~a.lo + 1u;
    r.hi = (int64_t)(~(uint64_t)a.hi + (r.lo == 0));
    return r;
}

/* floor(a / 2^s) saturated to int64, 0 <= s < 64. */
static int64_t wide_sar(wide_t a, uint32_t s) {
    uint64_t lo = s == 0 ? a.lo : (a.lo >> s) | ((uint64_t)a.hi << (64 - s));
    int64_t hi = s == 0 ? a.hi : a.hi >> s;
    if (hi == 0 && (lo >> 63) == 0) {
        return (int64_t)lo;
    }
    if (hi == -1 && (lo >> 63) == 1) {
        return (int64_t)lo;
    }
    return hi < 0 ? INT64_MIN : INT64_MAX;
}

int64_t u55_round_shift(int64_t v, uint32_t multiplier, uint32_t shift, uint32_t mode, uint32_t dbl_point) {
    wide_t p = wide_mul(v, multiplier);
    shift &= 63u;
    if (shift == 0) {
        return wide_sar(p, 0);
    }
    if (mode == U55_ROUND_TRUNCATE) {
        return p.hi < 0 ? -wide_sar(wide_neg(p), shift) : wide_sar(p, shift);
    }
    int64_t round = (int64_t)1 << (shift - 1);
    if (mode == U55_ROUND_DBL && shift > dbl_point) {
        int64_t d = (int64_t)1 << (dbl_point - 1);
        round += v >= 0 ? d : -d;
    }
    return wide_sar(wide_add(p, round), shift);
}

void u55_ofm_scale(const ap_u55_t *npu, const u55_fmap_t *ifm, uint32_t *multiplier, uint32_t *shift) {
    /* A 32-bit IFM is shifted, not multiplied: Vela builds TFLite's rounding doubling high
     * multiply from an int32 MUL and a shift of 31 this way. */
    *multiplier = ifm->bytes == 4 ? 1u : u55_r1(npu, U55_OFM_SCALE);
    *shift = npu->r1_param[U55_OFM_SCALE] & 63u;
}

uint32_t u55_ofm_rounding(const ap_u55_t *npu) { return (u55_r0(npu, U55_OFM_PRECISION) >> 14) & 3u; }

enum { FN_NONE = 0, FN_TANH = 3, FN_SIGMOID = 4, FN_LUT0 = 16, FN_LUT7 = 23 };
enum { CLIP_OFM = 0, CLIP_UINT8 = 2, CLIP_INT8 = 3, CLIP_INT16 = 5 };

void u55_check_activation(ap_u55_t *npu, const u55_fmap_t *ofm) {
    uint32_t act = u55_r0(npu, U55_ACTIVATION), fn = act & 31u, clip = (act >> 12) & 7u;
    if (u55_ofm_rounding(npu) == 3) {
        u55_fault(npu, "an OFM rounding mode the Ethos-U55 does not have (3)", 3);
    } else if (clip != CLIP_OFM && clip != CLIP_UINT8 && clip != CLIP_INT8 && clip != CLIP_INT16) {
        u55_fault(npu, "an ACTIVATION clip range the model does not know", clip);
    } else if ((fn == FN_TANH || fn == FN_SIGMOID) && ofm->bytes != 2) {
        u55_fault(npu, "a TANH or SIGMOID activation on an OFM that is not 16-bit", ofm->bytes);
    } else if (fn >= FN_LUT0 && fn <= FN_LUT7) {
        if (npu->lut_base == UINT32_MAX) {
            u55_fault(npu, "a LUT activation on a 16-bank SHRAM (where Vela puts its LUTs depends on the layout)", fn);
        } else if (ofm->bytes == 2) {
            u55_fault(npu, "a 16-bit (interpolating) LUT activation", fn);
        }
    } else if (fn != FN_NONE && fn != FN_TANH && fn != FN_SIGMOID) {
        u55_fault(npu, "an ACTIVATION function the Ethos-U55 does not have", fn);
    }
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

int64_t u55_activate(ap_u55_t *npu, const u55_fmap_t *ofm, int64_t scaled) {
    uint32_t act = u55_r0(npu, U55_ACTIVATION), fn = act & 31u, clip = (act >> 12) & 7u;
    int64_t lo, hi;
    switch (clip) {
    case CLIP_UINT8:
        lo = 0;
        hi = 255;
        break;
    case CLIP_INT8:
        lo = -128;
        hi = 127;
        break;
    case CLIP_INT16:
        lo = -32768;
        hi = 32767;
        break;
    default: {
        uint32_t bits = 8u * ofm->bytes;
        lo = ofm->is_signed ? -((int64_t)1 << (bits - 1)) : 0;
        hi = ofm->is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
        break;
    }
    }
    /* Anything beyond 48 bits saturates every clip range and function alike: clamped first,
     * so adding the zero point cannot overflow. */
    int64_t v = clamp(scaled, -((int64_t)1 << 48), (int64_t)1 << 48) + ofm->zero_point;
    if (fn == FN_TANH) {
        v = u55_tanh16(v);
    } else if (fn == FN_SIGMOID) {
        v = u55_sigmoid16(v);
    } else if (fn >= FN_LUT0 && fn <= FN_LUT7) {
        /* An 8-bit index (the value in the clip range) into a table of OFM-sized entries. */
        int64_t index = clamp(v, lo, hi) - (lo < 0 ? lo : 0);
        uint64_t at = npu->lut_base + 256u * (fn - FN_LUT0) + (uint64_t)index * ofm->bytes;
        if (index < 0 || index > 255 || at + ofm->bytes > npu->shram_bytes) {
            u55_fault(npu, "a LUT index outside the table", (uint32_t)index);
            return 0;
        }
        uint32_t raw = 0;
        for (uint32_t k = 0; k < ofm->bytes; k++) {
            raw |= (uint32_t)npu->shram[at + k] << (8 * k);
        }
        if (ofm->bytes == 1) {
            return ofm->is_signed ? (int8_t)(uint8_t)raw : (int64_t)raw;
        }
        return (int32_t)raw;
    }
    /* The registers are 16 bits: signed for a signed OFM, unsigned otherwise. */
    uint32_t rmin = u55_r0(npu, U55_ACTIVATION_MIN), rmax = u55_r0(npu, U55_ACTIVATION_MAX);
    if (!(ofm->bytes == 4 && clip == CLIP_OFM)) {
        v = clamp(v, ofm->is_signed ? u55_s16(rmin) : (int64_t)rmin, ofm->is_signed ? u55_s16(rmax) : (int64_t)rmax);
    }
    return clamp(v, lo, hi);
}

/* TFLite's int16 TANH on x in units of 2^-12 (3 * 2^-12 after Vela's input scaling): a linear
 * interpolation in the sigmoid table, odd around zero. */
int64_t u55_tanh16(int64_t x) {
    int64_t a = x < 0 ? -x : x;
    int64_t r;
    if ((a >> 8) >= 255) {
        r = (int64_t)0xFFFF << 8;
    } else {
        int64_t u = a >> 8, lo = u55_sigmoid_table[u], hi = u55_sigmoid_table[u + 1];
        r = (lo << 8) + (a & 0xFF) * (hi - lo);
    }
    r = x >= 0 ? r - ((int64_t)1 << 23) + ((int64_t)1 << 7) : -r + ((int64_t)1 << 23) + ((int64_t)1 << 7) - 1;
    return r >> 8;
}

/* TFLite's int16 LOGISTIC, the same table at half the input resolution. */
int64_t u55_sigmoid16(int64_t x) {
    int64_t a = x < 0 ? -x : x;
    int64_t r;
    if ((a >> 9) >= 255) {
        r = (int64_t)0x7FFF << 10;
    } else {
        int64_t u = a >> 9, lo = u55_sigmoid_table[u], hi = u55_sigmoid_table[u + 1];
        r = (lo << 9) + (a & 0x1FF) * (hi - lo);
    }
    r = x >= 0 ? r + ((int64_t)1 << 9) : ((int64_t)1 << 25) - r + ((int64_t)1 << 9) - 1;
    return r >> 10;
}
