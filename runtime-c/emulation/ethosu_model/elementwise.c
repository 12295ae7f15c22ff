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
 * the larger-scaled one halved. LRELU's arithmetic is not public: it faults.
 *
 * The Ethos-U85 broadcasts either operand (IFM_BROADCAST and IFM2_BROADCAST: bits 0-2 row,
 * column, channel; bit 3 the scalar OP_SCALAR, 32 bits, less the operand's zero point) and
 * has no operand swap. Its ADD and SUB scale each operand by its own register (IFM_SCALE,
 * IFM2_SCALE: multiplier, shift, double-rounding shift, and in bit 13 double-symmetric or
 * natural rounding) before the operation; TFLite's left shift of 20 or 15 is in those
 * registers' double-rounding shift. Its DIV divides 32-bit operands, the quotient truncated
 * towards zero (TFLite's int32 DIV, which Vela lowers onto it); a division by zero faults. Its
 * other modes (LSR, comparisons, bitwise) fault. */
#include "model.h"

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
    EW_SHL = 9,
    EW85_DIV = 11
};

static uint32_t clz32(uint32_t v) {
    uint32_t n = 0;
    for (uint32_t bit = 0x80000000u; bit != 0 && (v & bit) == 0; bit >>= 1) {
        n++;
    }
    return n;
}

/* An operand's scaling on the Ethos-U85 (IFM_SCALE, IFM2_SCALE), held to +-2^62 so that the
 * sum or difference of two stays inside 64 bits (beyond 48 bits every output saturates). */
static int64_t scale_operand_u85(const ap_eu_t *npu, uint32_t reg, int64_t v) {
    const int64_t bound = (int64_t)1 << 62;
    uint32_t param = npu->r1_param[reg];
    eu_rounding_t rounding = ((param >> 13) & 1u) ? EU_ROUND_NATURAL : EU_ROUND_DOUBLE_SYMMETRIC;
    int64_t r = eu_round_shift(v, eu_r1(npu, reg) & 0x7FFFFFFFu, param & 63u, rounding, 31u - ((param >> 6) & 31u));
    return r < -bound ? -bound : (r > bound ? bound : r);
}

void eu_elementwise(ap_eu_t *npu, uint32_t mode) {
    const int unary = mode == EW_ABS || mode == EW_CLZ || mode == EW_LRELU;
    eu_fmap_t ifm, ifm2, ofm;
    /* IFM2_BROADCAST keeps its value from earlier operations: a unary one reads none of it. */
    const uint32_t broadcast = unary ? 0u : eu_r0(npu, EU_IFM2_BROADCAST);
    const uint32_t broadcast1 = npu->u85 ? eu_r0(npu, EU85_IFM_BROADCAST) : 0u;
    const int scalar = npu->u85 ? (int)((broadcast >> 3) & 1u) : (int)((broadcast >> 7) & 1u);
    const int scalar1 = (int)((broadcast1 >> 3) & 1u);
    const int reversed = !npu->u85 && ((broadcast >> 6) & 1u);
    eu_fmap(npu, EU_IFM, scalar1, &ifm);
    eu_fmap(npu, EU_OFM, 0, &ofm);
    if (!unary) {
        eu_fmap(npu, EU_IFM2, scalar, &ifm2); /* a scalar's type and zero point too */
    }
    const uint32_t precision = eu_r0(npu, EU_IFM_PRECISION);
    const uint32_t scale_mode = (precision >> 8) & 3u, operand_rounding = (precision >> 14) & 3u;
    if (npu->fault != NULL) {
        return;
    }
    const int div = npu->u85 && mode == EW85_DIV;
    if (mode > EW_SHL && !div) {
        eu_fault(npu, npu->u85 ? "an elementwise mode the model does not execute (LSR, a comparison or bitwise)"
                               : "an elementwise mode the Ethos-U55 does not have",
                 mode);
    } else if (div && (ifm.bytes != 4 || ifm2.bytes != 4)) {
        eu_fault(npu, "a DIV of operands that are not 32-bit", ifm.bytes);
    } else if (npu->u85 && ((broadcast | broadcast1) & ~15u) != 0) {
        eu_fault(npu, "IFM_BROADCAST or IFM2_BROADCAST bits the Ethos-U85 does not have", broadcast | broadcast1);
    } else if (npu->u85 && ((eu_r0(npu, EU_ACC_FORMAT) >> 4) & 3u) != 0) {
        eu_fault(npu, "an accumulator taken from IFM2 or kept (ACC_FORMAT input), which the model does not execute",
                 eu_r0(npu, EU_ACC_FORMAT));
    } else if (mode == EW_LRELU) {
        eu_fault(npu, "an elementwise LRELU (its arithmetic is not public)", mode);
    } else if (!npu->u85 && (mode == EW_ADD || mode == EW_SUB) && ifm.bytes < 4 && (scale_mode == 3 || operand_rounding == 3)) {
        eu_fault(npu, "an IFM scale or rounding mode the Ethos-U55 does not have", precision);
    } else if ((ifm.bytes == 4 && !ifm.is_signed) || (!unary && ifm2.bytes == 4 && !ifm2.is_signed)) {
        eu_fault(npu, "an unsigned 32-bit elementwise operand, which Vela never writes", 32);
    } else if (!npu->u85 && !unary && (broadcast & 0x38u) != 0) {
        eu_fault(npu, "IFM2_BROADCAST bits the Ethos-U55 does not have", broadcast);
    }
    eu_fmap_check_chain(npu, &ofm, &ifm, unary ? NULL : &ifm2);
    eu_check_activation(npu, &ofm);
    if (npu->fault != NULL) {
        return;
    }
    uint32_t multiplier, shift, dbl_point;
    eu_ofm_scale(npu, &ifm, &multiplier, &shift, &dbl_point);
    const eu_rounding_t rounding = eu_ofm_rounding(npu);
    const eu_rounding_t operand_round = operand_rounding == 0 ? EU_ROUND_U55_DBL
                                                              : (operand_rounding == 1 ? EU_ROUND_TRUNCATE : EU_ROUND_NATURAL);
    const uint32_t opa = eu_r1(npu, EU_OPA_SCALE), opa_shift = npu->r1_param[EU_OPA_SCALE] & 63u;
    const uint32_t opb = eu_r1(npu, EU_OPB_SCALE);
    const uint32_t big_shift = ifm.bytes == 1 ? 19u : 14u, operand_dbl_point = ifm.bytes == 1 ? 11u : 16u;
    const int64_t op_scalar = (int32_t)eu_r1(npu, EU85_OP_SCALAR);
    const int64_t scalar_value = !unary && scalar ? (npu->u85 ? op_scalar
                                                              : ((ifm2.is_signed || ifm2.bytes > 1)
                                                                     ? eu_s16(eu_r0(npu, EU_IFM2_SCALAR))
                                                                     : (int64_t)eu_r0(npu, EU_IFM2_SCALAR)))
                                                  : 0;
    const uint32_t height = eu_r0(npu, EU_OFM_HEIGHT_M1) + 1u, width = eu_r0(npu, EU_OFM_WIDTH_M1) + 1u;
    const uint32_t depth = eu_r0(npu, EU_OFM_DEPTH_M1) + 1u;
    if (!eu_fmap_check_box(npu, &ofm, height, width, depth, "an OFM that reaches outside its region") ||
        !eu_spend(npu, (uint64_t)height * width * depth)) {
        return;
    }
    for (uint32_t y = 0; y < height && npu->fault == NULL; y++) {
        for (uint32_t x = 0; x < width; x++) {
            for (uint32_t c = 0; c < depth; c++) {
                int64_t a = scalar1 ? op_scalar
                                    : eu_fmap_read(npu, &ifm, (broadcast1 & 1u) ? 0 : y, (broadcast1 & 2u) ? 0 : x,
                                                   (broadcast1 & 4u) ? 0 : c),
                        b = 0, r;
                a -= ifm.zero_point;
                if (!unary) {
                    b = scalar ? scalar_value
                               : eu_fmap_read(npu, &ifm2, (broadcast & 1u) ? 0 : y, (broadcast & 2u) ? 0 : x,
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
                if (npu->u85 && (mode == EW_ADD || mode == EW_SUB)) {
                    a = scale_operand_u85(npu, EU85_IFM_SCALE, a);
                    b = scale_operand_u85(npu, EU85_IFM2_SCALE, b);
                } else if ((mode == EW_ADD || mode == EW_SUB) && ifm.bytes < 4) {
                    if (scale_mode == 0) {
                        a *= (int64_t)(opa & 0xFFFFu);
                        b *= (int64_t)(opb & 0xFFFFu);
                    } else if (scale_mode == 1) {
                        a = eu_round_shift(a, opa, opa_shift, operand_round, operand_dbl_point);
                        b *= (int64_t)1 << big_shift;
                    } else {
                        b = eu_round_shift(b, opa, opa_shift, operand_round, operand_dbl_point);
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
                case EW85_DIV:
                    if (b == 0) {
                        eu_fault(npu, "a DIV by zero", 0);
                        return;
                    }
                    r = a / b; /* C truncates towards zero; |a|, |b| < 2^32 */
                    break;
                case EW_ABS:
                    r = a < 0 ? -a : a;
                    break;
                case EW_CLZ:
                    r = clz32((uint32_t)a);
                    break;
                case EW_SHR:
                    if (b < 0 || b > 63) {
                        eu_fault(npu, "an SHR by a negative amount or more than 63", (uint32_t)b);
                        return;
                    }
                    r = eu_round_shift(a, 1, (uint32_t)b, rounding, dbl_point);
                    break;
                default: /* SHL, within 32 bits */
                    if (b < 0 || b > 31) {
                        eu_fault(npu, "an SHL by a negative amount or more than 31", (uint32_t)b);
                        return;
                    }
                    r = (int32_t)((uint32_t)a << b);
                    break;
                }
                if (mode != EW_CLZ && mode != EW_SHR && mode != EW_SHL) {
                    r = eu_round_shift(r, multiplier, shift, rounding, dbl_point);
                }
                eu_fmap_write(npu, &ofm, y, x, c, eu_activate(npu, &ofm, r));
            }
        }
    }
}
