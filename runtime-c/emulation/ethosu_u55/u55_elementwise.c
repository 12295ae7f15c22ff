/* NPU_OP_ELEMENTWISE: an operation between the IFM and IFM2 (or IFM2_SCALAR) at each OFM
 * position, or of the IFM alone (ABS, CLZ).
 *
 * Operands are the inputs less their zero points. IFM2_BROADCAST: bits 0-2 read IFM2 at
 * row, column or channel 0; bit 7 takes IFM2_SCALAR instead; bit 6 swaps the operands'
 * order (Vela keeps the full-size operand as IFM). The result is scaled by the global
 * OFM_SCALE (a 32-bit IFM is shifted, not multiplied: Vela builds its rounding doubling
 * high multiplies from that), except CLZ, SHR and SHL, whose results are the output.
 *
 * ADD and SUB of 8- and 16-bit operands first bring both to one scale (IFM_PRECISION bits
 * 9..8), after the operand order: mode 0 multiplies each by its 16-bit OPA/OPB_SCALE; modes 1
 * and 2 scale the first (mode 1) or second operand (mode 2) by the 32-bit OPA_SCALE and its
 * shift, in IFM_PRECISION's
 * rounding mode, double rounding at bit 11 (8-bit) or 16 (16-bit), and multiply the other by
 * 2^19 (8-bit) or 2^14 (16-bit): TFLite's add, whose inputs are shifted left by 20 or 15 and
 * the larger-scaled one halved. LRELU's arithmetic is not public: it faults. */
#include "u55.h"

enum {
    EW_MUL = 0,
    EW_ADD = 1,
    EW_SUB = 2,
    EW_MIN = 3,
    EW_MAX = 4,
    EW_LRELU = 5,
    EW_ABS = 6,
    EW_CLZ = 7,
    EW_SHR = 8,
    EW_SHL = 9
};

static uint32_t clz32(uint32_t v) {
    uint32_t n = 0;
    for (uint32_t bit = 0x80000000u; bit != 0 && (v & bit) == 0; bit >>= 1) {
        n++;
    }
    return n;
}

void u55_elementwise(ap_u55_t *npu, uint32_t mode) {
    const int unary = mode == EW_ABS || mode == EW_CLZ || mode == EW_LRELU;
    u55_fmap_t ifm, ifm2, ofm;
    u55_fmap(npu, U55_IFM, &ifm);
    u55_fmap(npu, U55_OFM, &ofm);
    const uint32_t broadcast = u55_r0(npu, U55_IFM2_BROADCAST);
    /* IFM2_BROADCAST keeps its value from earlier operations: a unary one reads none of it. */
    const int scalar = (int)((broadcast >> 7) & 1u), reversed = !unary && ((broadcast >> 6) & 1u);
    if (!unary) {
        u55_fmap(npu, U55_IFM2, &ifm2); /* a scalar's type and zero point too */
    }
    const uint32_t precision = u55_r0(npu, U55_IFM_PRECISION);
    const uint32_t scale_mode = (precision >> 8) & 3u, operand_rounding = (precision >> 14) & 3u;
    if (npu->fault != NULL) {
        return;
    }
    if (mode > EW_SHL) {
        u55_fault(npu, "an elementwise mode the Ethos-U55 does not have", mode);
    } else if (mode == EW_LRELU) {
        u55_fault(npu, "an elementwise LRELU (its arithmetic is not public)", mode);
    } else if ((mode == EW_ADD || mode == EW_SUB) && ifm.bytes < 4 && (scale_mode == 3 || operand_rounding == 3)) {
        u55_fault(npu, "an IFM scale or rounding mode the Ethos-U55 does not have", precision);
    } else if ((ifm.bytes == 4 && !ifm.is_signed) || (!unary && ifm2.bytes == 4 && !ifm2.is_signed)) {
        u55_fault(npu, "an unsigned 32-bit elementwise operand, which Vela never writes", 32);
    } else if (!unary && (broadcast & 0x38u) != 0) {
        u55_fault(npu, "IFM2_BROADCAST bits the Ethos-U55 does not have", broadcast);
    }
    u55_check_activation(npu, &ofm);
    if (npu->fault != NULL) {
        return;
    }
    uint32_t multiplier, shift;
    u55_ofm_scale(npu, &ifm, &multiplier, &shift);
    const uint32_t rounding = u55_ofm_rounding(npu);
    const uint32_t opa = u55_r1(npu, U55_OPA_SCALE), opa_shift = npu->r1_param[U55_OPA_SCALE] & 63u;
    const uint32_t opb = u55_r1(npu, U55_OPB_SCALE);
    const uint32_t big_shift = ifm.bytes == 1 ? 19u : 14u, dbl_point = ifm.bytes == 1 ? 11u : 16u;
    const int64_t scalar_value = !unary && scalar ? ((ifm2.is_signed || ifm2.bytes > 1)
                                                         ? u55_s16(u55_r0(npu, U55_IFM2_SCALAR))
                                                         : (int64_t)u55_r0(npu, U55_IFM2_SCALAR))
                                                  : 0;
    const uint32_t height = u55_r0(npu, U55_OFM_HEIGHT_M1) + 1u, width = u55_r0(npu, U55_OFM_WIDTH_M1) + 1u;
    const uint32_t depth = u55_r0(npu, U55_OFM_DEPTH_M1) + 1u;
    if (!u55_fmap_check_box(npu, &ofm, height, width, depth, "an OFM that reaches outside its region") ||
        !u55_spend(npu, (uint64_t)height * width * depth)) {
        return;
    }
    for (uint32_t y = 0; y < height && npu->fault == NULL; y++) {
        for (uint32_t x = 0; x < width; x++) {
            for (uint32_t c = 0; c < depth; c++) {
                int64_t a = u55_fmap_read(npu, &ifm, y, x, c) - ifm.zero_point, b = 0, r;
                if (!unary) {
                    b = scalar ? scalar_value
                               : u55_fmap_read(npu, &ifm2, (broadcast & 1u) ? 0 : y, (broadcast & 2u) ? 0 : x,
                                               (broadcast & 4u) ? 0 : c);
                    b -= ifm2.zero_point;
                }
                /* The operand order first: the scaling modes name the first and second
                 * operands, which IFM2_BROADCAST bit 6 swaps (Vela keeps the full-size operand
                 * as IFM and swaps when the original first operand is the broadcast one). */
                if (reversed) {
                    int64_t t = a;
                    a = b;
                    b = t;
                }
                if ((mode == EW_ADD || mode == EW_SUB) && ifm.bytes < 4) {
                    if (scale_mode == 0) {
                        a *= (int64_t)(opa & 0xFFFFu);
                        b *= (int64_t)(opb & 0xFFFFu);
                    } else if (scale_mode == 1) {
                        a = u55_round_shift(a, opa, opa_shift, operand_rounding, dbl_point);
                        b *= (int64_t)1 << big_shift;
                    } else {
                        b = u55_round_shift(b, opa, opa_shift, operand_rounding, dbl_point);
                        a *= (int64_t)1 << big_shift;
                    }
                }
                switch (mode) {
                case EW_MUL:
                    r = a * b;
                    break;
                case EW_ADD:
                    r = a + b;
                    break;
                case EW_SUB:
                    r = a - b;
                    break;
                case EW_MIN:
                    r = a < b ? a : b;
                    break;
                case EW_MAX:
                    r = a > b ? a : b;
                    break;
                case EW_ABS:
                    r = a < 0 ? -a : a;
                    break;
                case EW_CLZ:
                    r = clz32((uint32_t)a);
                    break;
                case EW_SHR:
                    if (b < 0 || b > 63) {
                        u55_fault(npu, "an SHR by a negative amount or more than 63", (uint32_t)b);
                        return;
                    }
                    r = u55_round_shift(a, 1, (uint32_t)b, rounding, 31);
                    break;
                default: /* SHL, within 32 bits */
                    if (b < 0 || b > 31) {
                        u55_fault(npu, "an SHL by a negative amount or more than 31", (uint32_t)b);
                        return;
                    }
                    r = (int32_t)((uint32_t)a << b);
                    break;
                }
                if (mode != EW_CLZ && mode != EW_SHR && mode != EW_SHL) {
                    r = u55_round_shift(r, multiplier, shift, rounding, 31);
                }
                u55_fmap_write(npu, &ofm, y, x, c, u55_activate(npu, &ofm, r));
            }
        }
    }
}
