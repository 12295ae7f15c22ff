/* Decoding the command stream: words into register writes and operations (ethosu55_interface.h
 * and ethosu85_interface.h define the encoding, the same on both NPUs). Every command starts with a word whose bits 9..0 are the opcode and
 * bits 15..14 the kind: 0 = one word, its parameter in bits 31..16; 1 = followed by a 32-bit
 * payload. Among one-word commands opcodes below 256 are operations, the others register
 * writes; two-word commands are register writes. Registers keep their values from one
 * operation to the next (Vela writes a register only when its value changes), so the file
 * starts cleared at each job and is filled by the stream.
 *
 * The NPU runs DMA and kernels in parallel and Vela's waits order them; executing each
 * operation to completion in stream order gives the results the waits guarantee. */
#include "model.h"

#include <string.h>

#include "../../core/bytes.h"

void eu_fault(ap_eu_t *npu, const char *what, uint32_t detail) {
    if (npu->fault == NULL) {
        npu->fault = what;
        npu->fault_opcode = npu->at_opcode;
        npu->fault_word = npu->at_word;
        npu->fault_cmd1 = npu->at_cmd1;
        npu->fault_at_end = npu->at_end;
        npu->detail = detail;
    }
}

int eu_spend(ap_eu_t *npu, uint64_t steps) {
    if (steps > npu->budget) {
        eu_fault(npu, "an operation beyond the emulation's work budget per job (AP_ETHOSU_JOB_BUDGET)", 0);
        return 0;
    }
    npu->budget -= steps;
    return 1;
}

int eu_init(ap_eu_t *npu, int u85, uint32_t macs) {
    memset(npu, 0, sizeof *npu);
    npu->u85 = u85;
    npu->macs = macs;
    if (u85) {
        /* MAC counts of Vela's Ethos-U85 configurations; LUTs have their own 2 KiB memory. */
        if (macs != 128 && macs != 256 && macs != 512 && macs != 1024 && macs != 2048) {
            return 0;
        }
        npu->shram_bytes = AP_EU_U85_LUT_BYTES;
        npu->lut_base = 0;
        return 1;
    }
    /* SHRAM banks and micro-block depths of each Ethos-U55 configuration (Vela's accelerator
     * configurations). Vela reserves SHRAM's last two banks for LUTs on the 24- and 48-bank
     * NPUs; where the 16-bank ones put them depends on each operation's SHRAM layout, which
     * the model does not follow, so their LUT activations fault. */
    uint32_t banks;
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

/* The registers only one of the two NPUs has (or names otherwise); NULL where the opcode is
 * not one of them. */
static const char *own_register(int u85, uint32_t opcode, int cmd1) {
    if (cmd1 && u85) {
        switch (opcode) {
        case 37: return "NPU_SET_IFM_SCALE";
        case 38: return "NPU_SET_IFM2_SCALE";
        case 39: return "NPU_SET_OP_SCALAR";
        case 51: return "NPU_SET_DMA0_SRC_STRIDE0";
        case 52: return "NPU_SET_DMA0_SRC_STRIDE1";
        case 53: return "NPU_SET_DMA0_DST_STRIDE0";
        case 54: return "NPU_SET_DMA0_DST_STRIDE1";
        case 55: return "NPU_SET_DMA0_IDX";
        case 56: return "NPU_SET_DMA0_IDX_MAX";
        case 57: return "NPU_SET_DMA0_IDX_SKIP1";
        case 144: case 146: case 148: return "NPU_SET_WEIGHTn_BASE";
        case 145: case 147: case 149: return "NPU_SET_WEIGHTn_LENGTH";
        case 150: return "NPU_SET_RESIZE_X";
        case 151: return "NPU_SET_RESIZE_Y";
        default: return NULL;
        }
    }
    if (cmd1) {
        switch (opcode) {
        case 37: return "NPU_SET_OPA_SCALE";
        case 38: return "NPU_SET_OPB_SCALE";
        default: return opcode >= 160 && opcode <= 167 ? "NPU_SET_USER_DEFINEDn" : NULL;
        }
    }
    if (u85) {
        switch (opcode) {
        case EU85_OP_RESIZE: return "NPU_OP_RESIZE";
        case EU85_IFM_BROADCAST: return "NPU_SET_IFM_BROADCAST";
        case EU85_RESIZE_X_SCALE_N_M1: return "NPU_SET_RESIZE_X_SCALE_N_M1";
        case EU85_RESIZE_Y_SCALE_N_M1: return "NPU_SET_RESIZE_Y_SCALE_N_M1";
        case EU85_RESIZE_X_OFFSET: return "NPU_SET_RESIZE_X_OFFSET";
        case EU85_RESIZE_Y_OFFSET: return "NPU_SET_RESIZE_Y_OFFSET";
        case EU85_WEIGHT_FORMAT: return "NPU_SET_WEIGHT_FORMAT";
        case EU85_DMA0_IDX_REGION: return "NPU_SET_DMA0_IDX_REGION";
        default: return NULL;
        }
    }
    switch (opcode) {
    case EU_IFM_IB_END: return "NPU_SET_IFM_IB_END";
    case EU_AB_START: return "NPU_SET_AB_START";
    case EU_IFM2_SCALAR: return "NPU_SET_IFM2_SCALAR";
    case EU_IFM2_IB_START: return "NPU_SET_IFM2_IB_START";
    default: return NULL;
    }
}

const char *eu_opcode_name(int u85, uint32_t opcode, int cmd1) {
    const char *own = own_register(u85, opcode, cmd1);
    if (own != NULL) {
        return own;
    }
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
        case 48: return "NPU_SET_DMA0_SRC";
        case 49: return "NPU_SET_DMA0_DST";
        case 50: return "NPU_SET_DMA0_LEN";
        case 128: case 129: case 130: case 131: return "NPU_SET_IFM2_BASEn";
        case 132: return "NPU_SET_IFM2_STRIDE_X";
        case 133: return "NPU_SET_IFM2_STRIDE_Y";
        case 134: return "NPU_SET_IFM2_STRIDE_C";
        default:
            return NULL;
        }
    }
    switch (opcode) {
    case EU_OP_STOP: return "NPU_OP_STOP";
    case EU_OP_IRQ: return "NPU_OP_IRQ";
    case EU_OP_CONV: return "NPU_OP_CONV";
    case EU_OP_DEPTHWISE: return "NPU_OP_DEPTHWISE";
    case EU_OP_POOL: return "NPU_OP_POOL";
    case EU_OP_ELEMENTWISE: return "NPU_OP_ELEMENTWISE";
    case EU_OP_DMA_START: return "NPU_OP_DMA_START";
    case EU_OP_DMA_WAIT: return "NPU_OP_DMA_WAIT";
    case EU_OP_KERNEL_WAIT: return "NPU_OP_KERNEL_WAIT";
    case EU_OP_PMU_MASK: return "NPU_OP_PMU_MASK";
    case EU_IFM_PAD_TOP: return "NPU_SET_IFM_PAD_TOP";
    case EU_IFM_PAD_LEFT: return "NPU_SET_IFM_PAD_LEFT";
    case EU_IFM_PAD_RIGHT: return "NPU_SET_IFM_PAD_RIGHT";
    case EU_IFM_PAD_BOTTOM: return "NPU_SET_IFM_PAD_BOTTOM";
    case EU_IFM_DEPTH_M1: return "NPU_SET_IFM_DEPTH_M1";
    case EU_IFM_PRECISION: return "NPU_SET_IFM_PRECISION";
    case EU_IFM_UPSCALE: return "NPU_SET_IFM_UPSCALE";
    case EU_IFM_ZERO_POINT: return "NPU_SET_IFM_ZERO_POINT";
    case EU_IFM_WIDTH0_M1: return "NPU_SET_IFM_WIDTH0_M1";
    case EU_IFM_HEIGHT0_M1: return "NPU_SET_IFM_HEIGHT0_M1";
    case EU_IFM_HEIGHT1_M1: return "NPU_SET_IFM_HEIGHT1_M1";
    case EU_IFM_REGION: return "NPU_SET_IFM_REGION";
    case EU_OFM_WIDTH_M1: return "NPU_SET_OFM_WIDTH_M1";
    case EU_OFM_HEIGHT_M1: return "NPU_SET_OFM_HEIGHT_M1";
    case EU_OFM_DEPTH_M1: return "NPU_SET_OFM_DEPTH_M1";
    case EU_OFM_PRECISION: return "NPU_SET_OFM_PRECISION";
    case EU_OFM_BLK_WIDTH_M1: return "NPU_SET_OFM_BLK_WIDTH_M1";
    case EU_OFM_BLK_HEIGHT_M1: return "NPU_SET_OFM_BLK_HEIGHT_M1";
    case EU_OFM_BLK_DEPTH_M1: return "NPU_SET_OFM_BLK_DEPTH_M1";
    case EU_OFM_ZERO_POINT: return "NPU_SET_OFM_ZERO_POINT";
    case EU_OFM_WIDTH0_M1: return "NPU_SET_OFM_WIDTH0_M1";
    case EU_OFM_HEIGHT0_M1: return "NPU_SET_OFM_HEIGHT0_M1";
    case EU_OFM_HEIGHT1_M1: return "NPU_SET_OFM_HEIGHT1_M1";
    case EU_OFM_REGION: return "NPU_SET_OFM_REGION";
    case EU_KERNEL_WIDTH_M1: return "NPU_SET_KERNEL_WIDTH_M1";
    case EU_KERNEL_HEIGHT_M1: return "NPU_SET_KERNEL_HEIGHT_M1";
    case EU_KERNEL_STRIDE: return "NPU_SET_KERNEL_STRIDE";
    case EU_ACC_FORMAT: return "NPU_SET_ACC_FORMAT";
    case EU_ACTIVATION: return "NPU_SET_ACTIVATION";
    case EU_ACTIVATION_MIN: return "NPU_SET_ACTIVATION_MIN";
    case EU_ACTIVATION_MAX: return "NPU_SET_ACTIVATION_MAX";
    case EU_WEIGHT_REGION: return "NPU_SET_WEIGHT_REGION";
    case EU_SCALE_REGION: return "NPU_SET_SCALE_REGION";
    case EU_BLOCKDEP: return "NPU_SET_BLOCKDEP";
    case EU_DMA0_SRC_REGION: return "NPU_SET_DMA0_SRC_REGION";
    case EU_DMA0_DST_REGION: return "NPU_SET_DMA0_DST_REGION";
    case EU_DMA0_SIZE0: return "NPU_SET_DMA0_SIZE0";
    case EU_DMA0_SIZE1: return "NPU_SET_DMA0_SIZE1";
    case EU_IFM2_BROADCAST: return "NPU_SET_IFM2_BROADCAST";
    case EU_IFM2_PRECISION: return "NPU_SET_IFM2_PRECISION";
    case EU_IFM2_ZERO_POINT: return "NPU_SET_IFM2_ZERO_POINT";
    case EU_IFM2_WIDTH0_M1: return "NPU_SET_IFM2_WIDTH0_M1";
    case EU_IFM2_HEIGHT0_M1: return "NPU_SET_IFM2_HEIGHT0_M1";
    case EU_IFM2_HEIGHT1_M1: return "NPU_SET_IFM2_HEIGHT1_M1";
    case EU_IFM2_REGION: return "NPU_SET_IFM2_REGION";
    default: return NULL;
    }
}

/* NPU_OP_DMA_START: one linear copy between regions, or from a region into internal memory:
 * the Ethos-U55's SHRAM, the Ethos-U85's LUT memory (the only internal memory Vela fills). */
static void dma(ap_eu_t *npu) {
    uint32_t src_region = eu_r0(npu, EU_DMA0_SRC_REGION), dst_region = eu_r0(npu, EU_DMA0_DST_REGION);
    uint64_t src = eu_r1(npu, EU_DMA0_SRC), dst = eu_r1(npu, EU_DMA0_DST), len = eu_r1(npu, EU_DMA0_LEN);
    if ((src_region >> 8) & 1u) {
        eu_fault(npu, "a DMA from internal memory (DMA0_SRC_REGION region mode 1)", src_region);
        return;
    }
    if (npu->u85 && (((src_region >> 11) & 1u) || ((dst_region >> 11) & 1u))) {
        eu_fault(npu, "a gather or scatter DMA (index mode), which the model does not execute", src_region);
        return;
    }
    if (((src_region >> 9) & 3u) != 0 || ((dst_region >> 9) & 3u) != 0) {
        eu_fault(npu, npu->u85 ? "a 2-D or 3-D DMA (stride mode), which the model does not execute"
                               : "a 2-D or 3-D DMA (stride mode), which the Ethos-U55 does not have",
                 src_region);
        return;
    }
    if ((src | dst | len) & 15u) {
        eu_fault(npu, "a DMA address or length that is not a multiple of 16 bytes", (uint32_t)len);
        return;
    }
    uint32_t r = src_region & 7u;
    if (npu->region[r] == NULL || src + len > npu->region_size[r]) {
        eu_fault(npu, "a DMA source outside its region", r);
        return;
    }
    const uint8_t *from = npu->region[r] + src;
    if ((dst_region >> 8) & 1u) {
        if (dst + len > npu->shram_bytes) {
            eu_fault(npu, npu->u85 ? "a DMA into LUT memory beyond its size" : "a DMA into SHRAM beyond its size",
                     (uint32_t)(dst + len));
            return;
        }
        memmove(npu->shram + dst, from, (size_t)len);
        return;
    }
    uint32_t d = dst_region & 7u;
    if ((AP_EU_READ_ONLY_REGIONS >> d) & 1u) {
        eu_fault(npu, "a DMA into region 0 (the model's weights, read-only)", d);
        return;
    }
    if (npu->region[d] == NULL || dst + len > npu->region_size[d]) {
        eu_fault(npu, "a DMA destination outside its region", d);
        return;
    }
    memmove(npu->region[d] + dst, from, (size_t)len);
}

static void operation(ap_eu_t *npu, uint32_t opcode, uint32_t param) {
    switch (opcode) {
    case EU_OP_CONV:
        eu_conv(npu, 0);
        break;
    case EU_OP_DEPTHWISE:
        eu_conv(npu, 1);
        break;
    case EU_OP_POOL:
        eu_pool(npu, param & 7u);
        break;
    case EU_OP_ELEMENTWISE:
        eu_elementwise(npu, param & 63u);
        break;
    case EU_OP_DMA_START:
        dma(npu);
        break;
    case EU_OP_DMA_WAIT:
    case EU_OP_KERNEL_WAIT:
    case EU_OP_PMU_MASK:
        break; /* ordering and profiling: everything before is already complete */
    case EU_OP_IRQ:
        eu_fault(npu, "NPU_OP_IRQ inside a stream (Vela never writes one; the job's end raises the interrupt)", param);
        break;
    case EU85_OP_RESIZE:
        if (npu->u85) {
            eu_fault(npu, "NPU_OP_RESIZE, which the model does not execute yet", param);
            break;
        }
        /* fall through */
    default:
        eu_fault(npu, "an operation this NPU does not have", opcode);
        break;
    }
}

int eu_execute(ap_eu_t *npu, const uint8_t *stream, uint32_t words) {
    memset(npu->r0, 0, sizeof npu->r0);
    memset(npu->r1, 0, sizeof npu->r1);
    memset(npu->r1_param, 0, sizeof npu->r1_param);
    for (uint32_t b = 0; b < AP_EU_CHAIN_BUFFERS; b++) {
        npu->chain[b].height = npu->chain[b].width = npu->chain[b].depth = 0;
    }
    npu->budget = AP_ETHOSU_JOB_BUDGET;
    for (uint32_t at = 0; at < words && npu->fault == NULL; at++) {
        uint32_t word = ap_rd32(stream + 4u * at);
        uint32_t opcode = word & 0x3FFu, kind = (word >> 14) & 3u, param = word >> 16;
        npu->at_word = at;
        npu->at_opcode = opcode;
        npu->at_cmd1 = kind == 1;
        if (kind == 1 && ((word >> 10) & 0xFu) != 0) {
            eu_fault(npu, "a command word with reserved bits set", word);
            break;
        }
        if (kind == 1) {
            if (at + 1 >= words) {
                eu_fault(npu, "a two-word command cut off by the stream's end", opcode);
                break;
            }
            if (opcode >= AP_EU_CMD1_COUNT || eu_opcode_name(npu->u85, opcode, 1) == NULL) {
                eu_fault(npu, "a two-word command this NPU does not have", opcode);
                break;
            }
            npu->r1[opcode] = ap_rd32(stream + 4u * (at + 1));
            npu->r1_param[opcode] = (uint16_t)param;
            at++;
            continue;
        }
        if (kind != 0 || ((word >> 10) & 0xFu) != 0) {
            eu_fault(npu, "a command word with reserved bits set", word);
            break;
        }
        if (opcode >= AP_EU_CMD0_FIRST) {
            if (opcode >= AP_EU_CMD0_FIRST + AP_EU_CMD0_COUNT || eu_opcode_name(npu->u85, opcode, 0) == NULL) {
                eu_fault(npu, "a register this NPU does not have", opcode);
                break;
            }
            npu->r0[opcode - AP_EU_CMD0_FIRST] = (uint16_t)param;
            continue;
        }
        if (opcode == EU_OP_STOP) {
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
        eu_fault(npu, "a command stream that ends without NPU_OP_STOP", words);
    }
    return 0;
}
