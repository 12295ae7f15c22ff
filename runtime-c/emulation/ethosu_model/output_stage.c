/* The output stage every operation ends with:
 *
 *  1. scale: v * M / 2^S in the operation's rounding (M, S per channel from the scale stream or
 *     global from OFM_SCALE; the operations apply it). The Ethos-U55 keeps its rounding mode
 *     in OFM_PRECISION bits 15..14 (0 DBL, 1 TRUNCATE, 2 NATURAL); the Ethos-U85 in OFM_SCALE's
 *     parameter, bits 15..13 (0 DOUBLE_SYMMETRIC, 1 NATURAL, 2 DOUBLE_ASYMMETRIC, 3 SYMMETRIC,
 *     4 TRUNCATE_TO_ZERO, 5 TRUNCATE_TO_LOWER), with its double-rounding shift in bits 10..6
 *     (the point is 31 less it) and S in bits 5..0;
 *  2. add the OFM zero point;
 *  3. the activation function: none, the Ethos-U55's int16 TANH or SIGMOID, or a LUT (the
 *     Ethos-U55's in SHRAM, 256 entries of the OFM's size; the Ethos-U85's in its LUT memory,
 *     by function: 8-bit to 8-, 16- or 32-bit entries);
 *  4. clamp to ACTIVATION_MIN..MAX and to the clip range: the registers are 16 bits, so a
 *     32-bit OFM is clamped to them only when its clip range asks (Ethos-U55: clip range 0 is
 *     the OFM's own; Ethos-U85: bit 12 set is none);
 *  5. store (the feature map's job).
 *
 * The rounding modes are eu_rounding_t's (model.h). p needs up to 80 bits (a 48-bit
 * accumulator times a 32-bit multiplier): the product is formed in two 64-bit halves so the
 * host and a 32-bit Cortex-M agree. */
#include "model.h"

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

/* p / 2^s rounded half away from zero, 0 < s < 64, saturated. */
static int64_t symmetric(wide_t p, uint32_t s) {
    int negative = p.hi < 0;
    wide_t m = negative ? wide_neg(p) : p;
    int64_t q = wide_sar(wide_add(m, (int64_t)1 << (s - 1)), s);
    return negative ? -q : q;
}

int64_t eu_round_shift(int64_t v, uint32_t multiplier, uint32_t shift, eu_rounding_t rounding, uint32_t dbl_point) {
    wide_t p = wide_mul(v, multiplier);
    shift &= 63u;
    if (shift == 0) {
        return wide_sar(p, 0);
    }
    switch (rounding) {
    case EU_ROUND_TRUNCATE:
        return p.hi < 0 ? -wide_sar(wide_neg(p), shift) : wide_sar(p, shift);
    case EU_ROUND_TRUNCATE_TO_LOWER:
        return wide_sar(p, shift);
    case EU_ROUND_SYMMETRIC:
        return symmetric(p, shift);
    case EU_ROUND_DOUBLE_SYMMETRIC: {
        /* TFLite's rounding doubling high multiply rounds halves up at 2^P, its rounding
         * shift then rounds the rest half away from zero (P = 0: that second step alone). */
        if (dbl_point == 0) {
            return symmetric(p, shift);
        }
        const uint32_t first = shift <= dbl_point ? shift : dbl_point;
        int64_t natural = wide_sar(wide_add(p, (int64_t)1 << (first - 1)), first);
        if (shift <= dbl_point) {
            return natural;
        }
        /* The second step in wide arithmetic: `natural` may be saturated. */
        wide_t w = {(uint64_t)natural, natural < 0 ? -1 : 0};
        return symmetric(w, shift - dbl_point);
    }
    case EU_ROUND_U55_DBL: {
        int64_t round = (int64_t)1 << (shift - 1);
        if (shift > dbl_point) {
            int64_t d = (int64_t)1 << (dbl_point - 1);
            round += v >= 0 ? d : -d;
        }
        return wide_sar(wide_add(p, round), shift);
    }
    default: /* NATURAL */
        return wide_sar(wide_add(p, (int64_t)1 << (shift - 1)), shift);
    }
}

void eu_ofm_scale(const ap_eu_t *npu, const eu_fmap_t *ifm, uint32_t *multiplier, uint32_t *shift, uint32_t *dbl_point) {
    /* A 32-bit IFM is shifted, not multiplied: Vela builds TFLite's rounding doubling high
     * multiply from an int32 MUL and a shift of 31 this way (on both NPUs). */
    uint32_t param = npu->r1_param[EU_OFM_SCALE];
    *multiplier = ifm->bytes == 4 ? 1u : eu_r1(npu, EU_OFM_SCALE) & (npu->u85 ? 0x7FFFFFFFu : 0xFFFFFFFFu);
    *shift = param & 63u;
    *dbl_point = npu->u85 ? 31u - ((param >> 6) & 31u) : 31u;
}

eu_rounding_t eu_ofm_rounding(const ap_eu_t *npu) {
    if (npu->u85) {
        switch ((npu->r1_param[EU_OFM_SCALE] >> 13) & 7u) {
        case 0: return EU_ROUND_DOUBLE_SYMMETRIC;
        case 1: return EU_ROUND_NATURAL;
        case 3: return EU_ROUND_SYMMETRIC;
        case 4: return EU_ROUND_TRUNCATE;
        case 5: return EU_ROUND_TRUNCATE_TO_LOWER;
        default: return EU_ROUND_UNKNOWN; /* DOUBLE_ASYMMETRIC: not public */
        }
    }
    switch ((eu_r0(npu, EU_OFM_PRECISION) >> 14) & 3u) {
    case 0: return EU_ROUND_U55_DBL;
    case 1: return EU_ROUND_TRUNCATE;
    case 2: return EU_ROUND_NATURAL;
    default: return EU_ROUND_UNKNOWN;
    }
}

int eu_global_scale(const ap_eu_t *npu) { return (int)((eu_r0(npu, EU_OFM_PRECISION) >> 8) & 1u); }

enum { FN_NONE = 0, FN_TANH = 3, FN_SIGMOID = 4, FN_LUT0 = 16, FN_LUT7 = 23 };
enum { CLIP_OFM = 0, CLIP_UINT8 = 2, CLIP_INT8 = 3, CLIP_INT16 = 5 };

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* The Ethos-U85's ACTIVATION: function bits 4..0, LUT table bits 7..5, clip range bit 12. */
enum {
    FN85_NONE = 0,
    FN85_LUT_U8_U8 = 1,
    FN85_LUT_S8_S8 = 4,
    FN85_LUT_S8_S16 = 5,
    FN85_LUT_S8_S32 = 7,
    FN85_LUT_TANH = 10,
    FN85_LUT_SIGMOID = 11
};

/* The Ethos-U85's int16 TANH and SIGMOID: one 512-word table (the LUT memory's 2 KiB), entry
 * 256 + i holding the curve at i (base, bits 15..0, signed) and its rise to i + 1 (slope, bits
 * 31..16), as Vela writes it: tanh(i / 48) in Q15, from TFLite's sigmoid table. The value v
 * (TFLite's scaled input) picks i = v >> 8 for TANH and v >> 9 for SIGMOID (sigmoid(x) = (1 +
 * tanh(x / 2)) / 2), interpolates with the bits below, and rounds halves up above zero and
 * down below it; past the table, the curve's ends. This is TFLite's int16 TANH and LOGISTIC
 * exactly, which the tests check over the whole int16 range (testdata/vela-ops/tf_int16_act).
 *
 * The value is first held to 3 x int16, the range of TFLite's scaled input (its int16 input
 * times 3). It matters where Vela fuses an operation with the table: the LSTM's gates, whose
 * int16 sum TFLite saturates before multiplying by 3, are one addition with the 3 in its
 * output scale. Without the bound the corpus's trained_lstm departs from TFLite Micro at its
 * 21st step; with it every output matches. The hardware's bound is not public: this is the one
 * that makes Vela's lowering TFLite's. */
static int64_t tanh_sigmoid_u85(ap_eu_t *npu, int sigmoid, int64_t v) {
    v = v < -3 * 32768 ? -3 * 32768 : (v > 3 * 32767 ? 3 * 32767 : v);
    const uint32_t bits = sigmoid ? 9u : 8u;
    const int64_t index = v >> bits, fraction = v & (((int64_t)1 << bits) - 1);
    const int64_t round = ((int64_t)1 << (sigmoid ? bits : bits - 1)) - (v < 0 ? 1 : 0);
    if (index >= 256) {
        return 32767;
    }
    const uint64_t entry = index < -256 ? 0u : (uint64_t)(index + 256);
    const uint8_t *p = npu->shram + 4u * entry;
    const int64_t base = (int16_t)(uint16_t)(p[0] | (p[1] << 8));
    const int64_t slope = index < -256 ? 0 : (int64_t)(uint16_t)(p[2] | (p[3] << 8));
    const int64_t f = index < -256 ? 0 : fraction;
    if (sigmoid) {
        return ((base + 32768) * ((int64_t)1 << bits) + slope * f + round) >> (bits + 1);
    }
    int64_t r = (base * ((int64_t)1 << bits) + slope * f + round) >> bits;
    return r < -32768 ? -32768 : (r > 32767 ? 32767 : r);
}

/* An 8-bit-index LUT function's entry size in bytes, 0 for any other function. */
static uint32_t lut85_entry_bytes(uint32_t fn) {
    switch (fn) {
    case FN85_LUT_U8_U8:
    case FN85_LUT_S8_S8:
        return 1;
    case FN85_LUT_S8_S16:
        return 2;
    case FN85_LUT_S8_S32:
        return 4;
    default:
        return 0;
    }
}

static void check_activation_u85(ap_eu_t *npu, const eu_fmap_t *ofm) {
    uint32_t act = eu_r0(npu, EU_ACTIVATION), fn = act & 31u;
    uint32_t entry = lut85_entry_bytes(fn);
    if (eu_ofm_rounding(npu) == EU_ROUND_UNKNOWN) {
        eu_fault(npu, "an OFM rounding mode the model does not execute (DOUBLE_ASYMMETRIC or reserved)",
                 (npu->r1_param[EU_OFM_SCALE] >> 13) & 7u);
    } else if ((fn == FN85_LUT_TANH || fn == FN85_LUT_SIGMOID) && (ofm->bytes != 2 || (act >> 5) & 7u)) {
        eu_fault(npu, "an int16 TANH or SIGMOID table that is not the LUT memory's only one on a 16-bit OFM", fn);
    } else if (fn != FN85_NONE && fn != FN85_LUT_TANH && fn != FN85_LUT_SIGMOID && entry == 0) {
        /* The general 16-bit LUTs (S16 to S16 or S32) interpolate between entries with a
         * resolution no corpus program shows. */
        eu_fault(npu, "an ACTIVATION function the model does not execute (a 16-bit interpolating LUT)", fn);
    } else if (entry != 0 && entry != ofm->bytes) {
        eu_fault(npu, "a LUT whose entries are not the OFM's size", fn);
    }
}

void eu_check_activation(ap_eu_t *npu, const eu_fmap_t *ofm) {
    if (npu->u85) {
        check_activation_u85(npu, ofm);
        return;
    }
    uint32_t act = eu_r0(npu, EU_ACTIVATION), fn = act & 31u, clip = (act >> 12) & 7u;
    if (eu_ofm_rounding(npu) == EU_ROUND_UNKNOWN) {
        eu_fault(npu, "an OFM rounding mode the Ethos-U55 does not have (3)", 3);
    } else if (clip != CLIP_OFM && clip != CLIP_UINT8 && clip != CLIP_INT8 && clip != CLIP_INT16) {
        eu_fault(npu, "an ACTIVATION clip range the model does not know", clip);
    } else if ((fn == FN_TANH || fn == FN_SIGMOID) && ofm->bytes != 2) {
        eu_fault(npu, "a TANH or SIGMOID activation on an OFM that is not 16-bit", ofm->bytes);
    } else if (fn >= FN_LUT0 && fn <= FN_LUT7) {
        if (npu->lut_base == UINT32_MAX) {
            eu_fault(npu, "a LUT activation on a 16-bank SHRAM (where Vela puts its LUTs depends on the layout)", fn);
        } else if (ofm->bytes == 2) {
            eu_fault(npu, "a 16-bit (interpolating) LUT activation", fn);
        }
    } else if (fn != FN_NONE && fn != FN_TANH && fn != FN_SIGMOID) {
        eu_fault(npu, "an ACTIVATION function the Ethos-U55 does not have", fn);
    }
}

/* The Ethos-U85's steps 2-4: a LUT maps an 8-bit index (the value clamped to the index's
 * type) to its entry in table `table`, tables laid out by their size; otherwise the clamps. */
static int64_t activate_u85(ap_eu_t *npu, const eu_fmap_t *ofm, int64_t v) {
    uint32_t act = eu_r0(npu, EU_ACTIVATION), fn = act & 31u, table = (act >> 5) & 7u;
    uint32_t entry = lut85_entry_bytes(fn);
    if (fn == FN85_LUT_TANH || fn == FN85_LUT_SIGMOID) {
        return tanh_sigmoid_u85(npu, fn == FN85_LUT_SIGMOID, v);
    }
    if (entry != 0) {
        int64_t lo = fn == FN85_LUT_U8_U8 ? 0 : -128;
        int64_t index = clamp(v, lo, lo + 255) - lo;
        uint64_t at = (uint64_t)table * 256u * entry + (uint64_t)index * entry;
        if (at + entry > npu->shram_bytes) {
            eu_fault(npu, "a LUT table beyond the LUT memory", table);
            return 0;
        }
        uint32_t raw = 0;
        for (uint32_t k = 0; k < entry; k++) {
            raw |= (uint32_t)npu->shram[at + k] << (8 * k);
        }
        switch (fn) {
        case FN85_LUT_U8_U8:
            return raw;
        case FN85_LUT_S8_S8:
            return (int8_t)(uint8_t)raw;
        case FN85_LUT_S8_S16:
            return (int16_t)(uint16_t)raw;
        default:
            return (int32_t)raw;
        }
    }
    uint32_t bits = 8u * ofm->bytes;
    int64_t lo = ofm->is_signed ? -((int64_t)1 << (bits - 1)) : 0;
    int64_t hi = ofm->is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
    uint32_t rmin = eu_r0(npu, EU_ACTIVATION_MIN), rmax = eu_r0(npu, EU_ACTIVATION_MAX);
    int clip_none = (int)((act >> 12) & 1u);
    if (!(ofm->bytes == 4 && clip_none)) {
        v = clamp(v, ofm->is_signed ? eu_s16(rmin) : (int64_t)rmin, ofm->is_signed ? eu_s16(rmax) : (int64_t)rmax);
    }
    return clamp(v, lo, hi);
}

int64_t eu_activate(ap_eu_t *npu, const eu_fmap_t *ofm, int64_t scaled) {
    if (npu->u85) {
        /* Anything beyond 48 bits saturates every clip range and table alike. */
        return activate_u85(npu, ofm, clamp(scaled, -((int64_t)1 << 48), (int64_t)1 << 48) + ofm->zero_point);
    }
    uint32_t act = eu_r0(npu, EU_ACTIVATION), fn = act & 31u, clip = (act >> 12) & 7u;
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
        v = eu_tanh16(v);
    } else if (fn == FN_SIGMOID) {
        v = eu_sigmoid16(v);
    } else if (fn >= FN_LUT0 && fn <= FN_LUT7) {
        /* An 8-bit index (the value in the clip range) into a table of OFM-sized entries. */
        int64_t index = clamp(v, lo, hi) - (lo < 0 ? lo : 0);
        uint64_t at = npu->lut_base + 256u * (fn - FN_LUT0) + (uint64_t)index * ofm->bytes;
        if (index < 0 || index > 255 || at + ofm->bytes > npu->shram_bytes) {
            eu_fault(npu, "a LUT index outside the table", (uint32_t)index);
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
    uint32_t rmin = eu_r0(npu, EU_ACTIVATION_MIN), rmax = eu_r0(npu, EU_ACTIVATION_MAX);
    if (!(ofm->bytes == 4 && clip == CLIP_OFM)) {
        v = clamp(v, ofm->is_signed ? eu_s16(rmin) : (int64_t)rmin, ofm->is_signed ? eu_s16(rmax) : (int64_t)rmax);
    }
    return clamp(v, lo, hi);
}

/* TFLite's int16 TANH on x in units of 2^-12 (3 * 2^-12 after Vela's input scaling): a linear
 * interpolation in the sigmoid table, odd around zero. */
int64_t eu_tanh16(int64_t x) {
    int64_t a = x < 0 ? -x : x;
    int64_t r;
    if ((a >> 8) >= 255) {
        r = (int64_t)0xFFFF << 8;
    } else {
        int64_t u = a >> 8, lo = eu_sigmoid_table[u], hi = eu_sigmoid_table[u + 1];
        r = (lo << 8) + (a & 0xFF) * (hi - lo);
    }
    r = x >= 0 ? r - ((int64_t)1 << 23) + ((int64_t)1 << 7) : -r + ((int64_t)1 << 23) + ((int64_t)1 << 7) - 1;
    return r >> 8;
}

/* TFLite's int16 LOGISTIC, the same table at half the input resolution. */
int64_t eu_sigmoid16(int64_t x) {
    int64_t a = x < 0 ? -x : x;
    int64_t r;
    if ((a >> 9) >= 255) {
        r = (int64_t)0x7FFF << 10;
    } else {
        int64_t u = a >> 9, lo = eu_sigmoid_table[u], hi = eu_sigmoid_table[u + 1];
        r = (lo << 9) + (a & 0x1FF) * (hi - lo);
    }
    r = x >= 0 ? r + ((int64_t)1 << 9) : ((int64_t)1 << 25) - r + ((int64_t)1 << 9) - 1;
    return r >> 10;
}
