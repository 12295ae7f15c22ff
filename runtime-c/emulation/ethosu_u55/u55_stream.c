/* Decoding the command stream: words into register writes and operations (ethosu55_interface.h
 * defines the encoding). Every command starts with a word whose bits 9..0 are the opcode and
 * bits 15..14 the kind: 0 = one word, its parameter in bits 31..16; 1 = followed by a 32-bit
 * payload. Among one-word commands opcodes below 256 are operations, the others register
 * writes; two-word commands are register writes. Registers keep their values from one
 * operation to the next (Vela writes a register only when its value changes), so the file
 * starts cleared at each job and is filled by the stream.
 *
 * The NPU runs DMA and kernels in parallel and Vela's waits order them; executing each
 * operation to completion in stream order gives the results the waits guarantee. */
#include "u55.h"

#include <string.h>

#include "../../core/bytes.h"

void u55_fault(ap_u55_t *npu, const char *what, uint32_t detail) {
    if (npu->fault == NULL) {
        npu->fault = what;
        npu->fault_opcode = npu->at_opcode;
        npu->fault_word = npu->at_word;
        npu->fault_cmd1 = npu->at_cmd1;
        npu->fault_at_end = npu->at_end;
        npu->detail = detail;
    }
}

int u55_spend(ap_u55_t *npu, uint64_t steps) {
    if (steps > npu->budget) {
        u55_fault(npu, "an operation beyond the emulation's work budget per job (AP_U55_JOB_BUDGET)", 0);
        return 0;
    }
    npu->budget -= steps;
    return 1;
}

int u55_init(ap_u55_t *npu, uint32_t macs) {
    /* SHRAM banks and micro-block depths of each configuration (Vela's accelerator
     * configurations). Vela reserves SHRAM's last two banks for LUTs on the 24- and 48-bank
     * NPUs; where the 16-bank ones put them depends on each operation's SHRAM layout, which
     * the model does not follow, so their LUT activations fault. */
    uint32_t banks;
    memset(npu, 0, sizeof *npu);
    switch (macs) {
    case 32:
        banks = 16;
        npu->ofm_ublock = 4;
        break;
    case 64:
        banks = 16;
        npu->ofm_ublock = 8;
        break;
    case 128:
        banks = 24;
        npu->ofm_ublock = 8;
        break;
    case 256:
        banks = 48;
        npu->ofm_ublock = 8;
        break;
    default:
        return 0;
    }
    npu->shram_bytes = banks * 1024u;
    npu->lut_base = banks > 16 ? (banks - 2u) * 1024u : UINT32_MAX;
    return 1;
}

const char *u55_opcode_name(uint32_t opcode, int cmd1) {
    if (cmd1) {
        switch (opcode) {
        case 0: case 1: case 2: case 3: return "NPU_SET_IFM_BASEn";
        case 4: return "NPU_SET_IFM_STRIDE_X";
        case 5: return "NPU_SET_IFM_STRIDE_Y";
        case 6: return "NPU_SET_IFM_STRIDE_C";
        case 16: case 17: case 18: case 19: return "NPU_SET_OFM_BASEn";
        case 20: return "NPU_SET_OFM_STRIDE_X";
        case 21: return "NPU_SET_OFM_STRIDE_Y";
        case 22: return "NPU_SET_OFM_STRIDE_C";
        case 32: return "NPU_SET_WEIGHT_BASE";
        case 33: return "NPU_SET_WEIGHT_LENGTH";
        case 34: return "NPU_SET_SCALE_BASE";
        case 35: return "NPU_SET_SCALE_LENGTH";
        case 36: return "NPU_SET_OFM_SCALE";
        case 37: return "NPU_SET_OPA_SCALE";
        case 38: return "NPU_SET_OPB_SCALE";
        case 48: return "NPU_SET_DMA0_SRC";
        case 49: return "NPU_SET_DMA0_DST";
        case 50: return "NPU_SET_DMA0_LEN";
        case 128: case 129: case 130: case 131: return "NPU_SET_IFM2_BASEn";
        case 132: return "NPU_SET_IFM2_STRIDE_X";
        case 133: return "NPU_SET_IFM2_STRIDE_Y";
        case 134: return "NPU_SET_IFM2_STRIDE_C";
        default:
            return opcode >= 160 && opcode <= 167 ? "NPU_SET_USER_DEFINEDn" : NULL;
        }
    }
    switch (opcode) {
    case U55_OP_STOP: return "NPU_OP_STOP";
    case U55_OP_IRQ: return "NPU_OP_IRQ";
    case U55_OP_CONV: return "NPU_OP_CONV";
    case U55_OP_DEPTHWISE: return "NPU_OP_DEPTHWISE";
    case U55_OP_POOL: return "NPU_OP_POOL";
    case U55_OP_ELEMENTWISE: return "NPU_OP_ELEMENTWISE";
    case U55_OP_DMA_START: return "NPU_OP_DMA_START";
    case U55_OP_DMA_WAIT: return "NPU_OP_DMA_WAIT";
    case U55_OP_KERNEL_WAIT: return "NPU_OP_KERNEL_WAIT";
    case U55_OP_PMU_MASK: return "NPU_OP_PMU_MASK";
    case U55_IFM_PAD_TOP: return "NPU_SET_IFM_PAD_TOP";
    case U55_IFM_PAD_LEFT: return "NPU_SET_IFM_PAD_LEFT";
    case U55_IFM_PAD_RIGHT: return "NPU_SET_IFM_PAD_RIGHT";
    case U55_IFM_PAD_BOTTOM: return "NPU_SET_IFM_PAD_BOTTOM";
    case U55_IFM_DEPTH_M1: return "NPU_SET_IFM_DEPTH_M1";
    case U55_IFM_PRECISION: return "NPU_SET_IFM_PRECISION";
    case U55_IFM_UPSCALE: return "NPU_SET_IFM_UPSCALE";
    case U55_IFM_ZERO_POINT: return "NPU_SET_IFM_ZERO_POINT";
    case U55_IFM_WIDTH0_M1: return "NPU_SET_IFM_WIDTH0_M1";
    case U55_IFM_HEIGHT0_M1: return "NPU_SET_IFM_HEIGHT0_M1";
    case U55_IFM_HEIGHT1_M1: return "NPU_SET_IFM_HEIGHT1_M1";
    case U55_IFM_IB_END: return "NPU_SET_IFM_IB_END";
    case U55_IFM_REGION: return "NPU_SET_IFM_REGION";
    case U55_OFM_WIDTH_M1: return "NPU_SET_OFM_WIDTH_M1";
    case U55_OFM_HEIGHT_M1: return "NPU_SET_OFM_HEIGHT_M1";
    case U55_OFM_DEPTH_M1: return "NPU_SET_OFM_DEPTH_M1";
    case U55_OFM_PRECISION: return "NPU_SET_OFM_PRECISION";
    case U55_OFM_BLK_WIDTH_M1: return "NPU_SET_OFM_BLK_WIDTH_M1";
    case U55_OFM_BLK_HEIGHT_M1: return "NPU_SET_OFM_BLK_HEIGHT_M1";
    case U55_OFM_BLK_DEPTH_M1: return "NPU_SET_OFM_BLK_DEPTH_M1";
    case U55_OFM_ZERO_POINT: return "NPU_SET_OFM_ZERO_POINT";
    case U55_OFM_WIDTH0_M1: return "NPU_SET_OFM_WIDTH0_M1";
    case U55_OFM_HEIGHT0_M1: return "NPU_SET_OFM_HEIGHT0_M1";
    case U55_OFM_HEIGHT1_M1: return "NPU_SET_OFM_HEIGHT1_M1";
    case U55_OFM_REGION: return "NPU_SET_OFM_REGION";
    case U55_KERNEL_WIDTH_M1: return "NPU_SET_KERNEL_WIDTH_M1";
    case U55_KERNEL_HEIGHT_M1: return "NPU_SET_KERNEL_HEIGHT_M1";
    case U55_KERNEL_STRIDE: return "NPU_SET_KERNEL_STRIDE";
    case U55_ACC_FORMAT: return "NPU_SET_ACC_FORMAT";
    case U55_ACTIVATION: return "NPU_SET_ACTIVATION";
    case U55_ACTIVATION_MIN: return "NPU_SET_ACTIVATION_MIN";
    case U55_ACTIVATION_MAX: return "NPU_SET_ACTIVATION_MAX";
    case U55_WEIGHT_REGION: return "NPU_SET_WEIGHT_REGION";
    case U55_SCALE_REGION: return "NPU_SET_SCALE_REGION";
    case U55_AB_START: return "NPU_SET_AB_START";
    case U55_BLOCKDEP: return "NPU_SET_BLOCKDEP";
    case U55_DMA0_SRC_REGION: return "NPU_SET_DMA0_SRC_REGION";
    case U55_DMA0_DST_REGION: return "NPU_SET_DMA0_DST_REGION";
    case U55_DMA0_SIZE0: return "NPU_SET_DMA0_SIZE0";
    case U55_DMA0_SIZE1: return "NPU_SET_DMA0_SIZE1";
    case U55_IFM2_BROADCAST: return "NPU_SET_IFM2_BROADCAST";
    case U55_IFM2_SCALAR: return "NPU_SET_IFM2_SCALAR";
    case U55_IFM2_PRECISION: return "NPU_SET_IFM2_PRECISION";
    case U55_IFM2_ZERO_POINT: return "NPU_SET_IFM2_ZERO_POINT";
    case U55_IFM2_WIDTH0_M1: return "NPU_SET_IFM2_WIDTH0_M1";
    case U55_IFM2_HEIGHT0_M1: return "NPU_SET_IFM2_HEIGHT0_M1";
    case U55_IFM2_HEIGHT1_M1: return "NPU_SET_IFM2_HEIGHT1_M1";
    case U55_IFM2_IB_START: return "NPU_SET_IFM2_IB_START";
    case U55_IFM2_REGION: return "NPU_SET_IFM2_REGION";
    default: return NULL;
    }
}

/* NPU_OP_DMA_START: one linear copy between regions, or from a region into SHRAM (LUTs). */
static void dma(ap_u55_t *npu) {
    uint32_t src_region = u55_r0(npu, U55_DMA0_SRC_REGION), dst_region = u55_r0(npu, U55_DMA0_DST_REGION);
    uint64_t src = u55_r1(npu, U55_DMA0_SRC), dst = u55_r1(npu, U55_DMA0_DST), len = u55_r1(npu, U55_DMA0_LEN);
    if ((src_region >> 8) & 1u) {
        u55_fault(npu, "a DMA from internal memory (DMA0_SRC_REGION region mode 1)", src_region);
        return;
    }
    if (((src_region >> 9) & 3u) != 0 || ((dst_region >> 9) & 3u) != 0) {
        u55_fault(npu, "a 2-D or 3-D DMA (stride mode), which the Ethos-U55 does not have", src_region);
        return;
    }
    if ((src | dst | len) & 15u) {
        u55_fault(npu, "a DMA address or length that is not a multiple of 16 bytes", (uint32_t)len);
        return;
    }
    uint32_t r = src_region & 7u;
    if (npu->region[r] == NULL || src + len > npu->region_size[r]) {
        u55_fault(npu, "a DMA source outside its region", r);
        return;
    }
    const uint8_t *from = npu->region[r] + src;
    if ((dst_region >> 8) & 1u) {
        if (dst + len > npu->shram_bytes) {
            u55_fault(npu, "a DMA into SHRAM beyond its size", (uint32_t)(dst + len));
            return;
        }
        memmove(npu->shram + dst, from, (size_t)len);
        return;
    }
    uint32_t d = dst_region & 7u;
    if ((AP_U55_READ_ONLY_REGIONS >> d) & 1u) {
        u55_fault(npu, "a DMA into region 0 (the model's weights, read-only)", d);
        return;
    }
    if (npu->region[d] == NULL || dst + len > npu->region_size[d]) {
        u55_fault(npu, "a DMA destination outside its region", d);
        return;
    }
    memmove(npu->region[d] + dst, from, (size_t)len);
}

static void operation(ap_u55_t *npu, uint32_t opcode, uint32_t param) {
    switch (opcode) {
    case U55_OP_CONV:
        u55_conv(npu, 0);
        break;
    case U55_OP_DEPTHWISE:
        u55_conv(npu, 1);
        break;
    case U55_OP_POOL:
        u55_pool(npu, param & 7u);
        break;
    case U55_OP_ELEMENTWISE:
        u55_elementwise(npu, param & 63u);
        break;
    case U55_OP_DMA_START:
        dma(npu);
        break;
    case U55_OP_DMA_WAIT:
    case U55_OP_KERNEL_WAIT:
    case U55_OP_PMU_MASK:
        break; /* ordering and profiling: everything before is already complete */
    case U55_OP_IRQ:
        u55_fault(npu, "NPU_OP_IRQ inside a stream (Vela never writes one; the job's end raises the interrupt)", param);
        break;
    default:
        u55_fault(npu, "an operation the Ethos-U55 does not have", opcode);
        break;
    }
}

int u55_execute(ap_u55_t *npu, const uint8_t *stream, uint32_t words) {
    memset(npu->r0, 0, sizeof npu->r0);
    memset(npu->r1, 0, sizeof npu->r1);
    memset(npu->r1_param, 0, sizeof npu->r1_param);
    npu->budget = AP_U55_JOB_BUDGET;
    for (uint32_t at = 0; at < words && npu->fault == NULL; at++) {
        uint32_t word = ap_rd32(stream + 4u * at);
        uint32_t opcode = word & 0x3FFu, kind = (word >> 14) & 3u, param = word >> 16;
        npu->at_word = at;
        npu->at_opcode = opcode;
        npu->at_cmd1 = kind == 1;
        if (kind == 1 && ((word >> 10) & 0xFu) != 0) {
            u55_fault(npu, "a command word with reserved bits set", word);
            break;
        }
        if (kind == 1) {
            if (at + 1 >= words) {
                u55_fault(npu, "a two-word command cut off by the stream's end", opcode);
                break;
            }
            if (opcode >= AP_U55_CMD1_COUNT || u55_opcode_name(opcode, 1) == NULL) {
                u55_fault(npu, "a two-word command the Ethos-U55 does not have", opcode);
                break;
            }
            npu->r1[opcode] = ap_rd32(stream + 4u * (at + 1));
            npu->r1_param[opcode] = (uint16_t)param;
            at++;
            continue;
        }
        if (kind != 0 || ((word >> 10) & 0xFu) != 0) {
            u55_fault(npu, "a command word with reserved bits set", word);
            break;
        }
        if (opcode >= AP_U55_CMD0_FIRST) {
            if (opcode >= AP_U55_CMD0_FIRST + AP_U55_CMD0_COUNT || u55_opcode_name(opcode, 0) == NULL) {
                u55_fault(npu, "a register the Ethos-U55 does not have", opcode);
                break;
            }
            npu->r0[opcode - AP_U55_CMD0_FIRST] = (uint16_t)param;
            continue;
        }
        if (opcode == U55_OP_STOP) {
            return npu->fault == NULL;
        }
        operation(npu, opcode, param);
        npu->ops++;
    }
    if (npu->fault == NULL) {
        npu->at_word = words;
        npu->at_opcode = 0;
        npu->at_cmd1 = 0;
        npu->at_end = 1;
        u55_fault(npu, "a command stream that ends without NPU_OP_STOP", words);
    }
    return 0;
}
