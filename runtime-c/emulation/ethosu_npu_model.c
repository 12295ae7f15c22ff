/* The emulated Ethos-U NPU (see arenaplan/ethosu_sim.h for what it checks and computes). */
#include "ethosu_npu_model.h"

#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_driver.h"

#include <string.h>
#include "../core/bytes.h"
#include "ethosu_model/model.h"

ap_ethosu_npu_t ap_ethosu_host_npu;
static struct ethosu_driver host_driver;
static int host_driver_up;
static ap_ethosu_sim_record_t last;
static uint32_t calls;

static void begin(const uint64_t *base, const size_t *size, int n) {
    memset(&last, 0, sizeof last);
    calls++;
    last.status = AP_ETHOSU_SIM_BAD_CALL;
    last.num_regions = n < 0 ? 0u : (uint32_t)n;
    for (int k = 0; k < n && k < (int)AP_ETHOSU_SIM_REGIONS && base != NULL && size != NULL; k++) {
        last.base[k] = base[k];
        last.size[k] = size[k];
    }
}

void ap_ethosu_npu_refused(ap_ethosu_sim_status_t status, const uint64_t *base, const size_t *size, int n) {
    begin(base, size, n);
    last.status = status;
}

int ap_ethosu_npu_verify_config(const ap_ethosu_npu_t *npu, uint32_t cfg, uint32_t id) {
    /* CONFIG: macs_per_cc bits 0-3, cmd_stream_version 4-7, custom_dma 27, product 28-31.
     * ID: arch_minor_rev bits 20-27, arch_major_rev 28-31. */
    uint32_t mismatch = 0;
    if (cfg != npu->config) {
        if ((cfg >> 28) != (npu->config >> 28)) {
            mismatch |= AP_ETHOSU_MISMATCH_PRODUCT;
        }
        if ((cfg & 0xFu) != (npu->config & 0xFu)) {
            mismatch |= AP_ETHOSU_MISMATCH_MACS_PER_CC;
        }
        if (((cfg >> 4) & 0xFu) != ((npu->config >> 4) & 0xFu)) {
            mismatch |= AP_ETHOSU_MISMATCH_CMD_STREAM_VERSION;
        }
        if (((cfg >> 27) & 1u) && !((npu->config >> 27) & 1u)) {
            mismatch |= AP_ETHOSU_MISMATCH_CUSTOM_DMA;
        }
    }
    if ((id >> 28) != (npu->id >> 28) || ((id >> 20) & 0xFFu) > ((npu->id >> 20) & 0xFFu)) {
        mismatch |= AP_ETHOSU_MISMATCH_ARCH;
    }
    if (mismatch != 0) {
        ap_ethosu_npu_refused(AP_ETHOSU_SIM_CONFIG_MISMATCH, NULL, NULL, 0);
        last.mismatch = mismatch;
        last.stream_config = cfg;
        last.stream_id = id;
        last.npu_config = npu->config;
        last.npu_id = npu->id;
    }
    return mismatch == 0;
}

/* Decodes the command stream (opcodes of ethosu_model/model.h): which regions it addresses,
 * and whether it stops inside. On an
 * Ethos-U85 a feature map whose precision register says chained (storage bits 15..14 = 2; Vela
 * writes the precision before the region) names a chain buffer in its region field, no
 * memory. */
static int decode(const uint8_t *cmd, uint32_t bytes, int u85, uint32_t *used) {
    int chained[3] = {0, 0, 0}; /* IFM, IFM2, OFM */
    for (uint32_t at = 0; at + 4 <= bytes; at += 4) {
        uint32_t w = ap_rd32(cmd + at);
        uint32_t op = w & 0x3FFu, ctl = (w >> 14) & 3u, region = (w >> 16) & 7u;
        if (ctl == 1) {
            at += 4; /* a 32-bit payload follows */
            continue;
        }
        if (ctl != 0) {
            return 0;
        }
        switch (op) {
        case EU_OP_STOP:
            return 1;
        case EU_DMA0_SRC_REGION:
        case EU_DMA0_DST_REGION:
            if ((w >> 24) & 1u) {
                break; /* internal memory: the region field is a core mask */
            }
            *used |= 1u << region;
            break;
        case EU_IFM_PRECISION:
        case EU_IFM2_PRECISION:
        case EU_OFM_PRECISION:
            chained[op == EU_IFM_PRECISION ? 0 : (op == EU_IFM2_PRECISION ? 1 : 2)] = u85 && ((w >> 30) & 3u) == 2u;
            break;
        case EU_IFM_REGION:
        case EU_OFM_REGION:
        case EU_IFM2_REGION:
            if (!chained[op == EU_IFM_REGION ? 0 : (op == EU_IFM2_REGION ? 1 : 2)]) {
                *used |= 1u << region;
            }
            break;
        case EU_WEIGHT_REGION:
        case EU_SCALE_REGION:
        case EU85_DMA0_IDX_REGION:
            *used |= 1u << region;
            break;
        default:
            break;
        }
    }
    return 0; /* ran off the end: the NPU would read whatever follows */
}

static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
    return an > 0 && bn > 0 && a < b + bn && b < a + an;
}

/* The functional model (ethosu_model/): the stream executed on the job's regions by the NPU
 * the CONFIG register names (product 0: Ethos-U55, 2: Ethos-U85). */
static ap_eu_t model;

static int run_model(const ap_ethosu_npu_t *npu, const uint8_t *cmd, uint32_t cmd_bytes, const uint64_t *base,
                     const size_t *size, int n) {
    const uint32_t product = npu->config >> 28;
    if ((product != 0 && product != 2) || !eu_init(&model, product == 2, 1u << (npu->config & 0xFu))) {
        last.status = AP_ETHOSU_SIM_FAULT;
        last.fault = "an Ethos-U product or MAC count the emulation does not model";
        return 0;
    }
    for (int r = 0; r < n && r < AP_EU_REGIONS; r++) {
        model.region[r] = (uint8_t *)(uintptr_t)base[r];
        model.region_size[r] = base[r] == 0 ? 0 : size[r];
    }
    int ok = eu_execute(&model, cmd, cmd_bytes / 4u);
    last.npu_ops = model.ops;
    if (!ok) {
        last.status = AP_ETHOSU_SIM_FAULT;
        last.fault = model.fault;
        last.fault_opcode = model.fault_opcode;
        last.fault_command = model.fault_at_end ? NULL : eu_opcode_name(model.u85, model.fault_opcode, model.fault_cmd1);
        last.fault_word = model.fault_word;
        last.fault_detail = model.detail;
        return 0;
    }
    last.status = AP_ETHOSU_SIM_OK;
    return 1;
}

int ap_ethosu_npu_run(ap_ethosu_npu_t *npu, const uint8_t *custom, size_t custom_size, const uint8_t *cmd,
                      uint32_t cmd_bytes, const uint64_t *base, const size_t *size, int n, const void *user_arg) {
    begin(base, size, n);
    last.user_arg_set = user_arg != NULL;
    last.qbase = (uint64_t)(uintptr_t)cmd;
    last.qsize = cmd_bytes;
    if (custom == NULL || cmd == NULL || base == NULL || size == NULL || n < 1 || n > (int)AP_ETHOSU_SIM_REGIONS ||
        cmd < custom || (size_t)(cmd - custom) > custom_size || cmd_bytes > custom_size - (size_t)(cmd - custom)) {
        return 0;
    }
    uint32_t used = 0;
    if (!decode(cmd, cmd_bytes, (npu->config >> 28) == 2u, &used)) {
        return 0;
    }
    last.regions_used = used;
    for (int r = 0; r < (int)AP_ETHOSU_SIM_REGIONS; r++) {
        if (((used >> r) & 1u) && (r >= n || base[r] == 0 || size[r] == 0 || (base[r] & 15u) != 0)) {
            last.status = AP_ETHOSU_SIM_BAD_REGION;
            return 0;
        }
    }
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < k; j++) {
            if (overlap(base[j], size[j], base[k], size[k])) {
                last.status = AP_ETHOSU_SIM_OVERLAP;
                return 0;
            }
        }
    }
    return run_model(npu, cmd, cmd_bytes, base, size, n);
}

const ap_ethosu_sim_record_t *ap_ethosu_sim_last(void) { return &last; }
uint32_t ap_ethosu_sim_calls(void) { return calls; }
void ap_ethosu_sim_reset(void) {
    memset(&last, 0, sizeof last);
    calls = 0;
}

ap_status_t ap_ethosu_host_setup(uint32_t config, uint32_t id, const void *fast_memory, size_t fast_memory_size) {
    if (host_driver_up) {
        ethosu_deinit(&host_driver);
        host_driver_up = 0;
    }
    memset(&host_driver, 0, sizeof host_driver);
    memset(&ap_ethosu_host_npu, 0, sizeof ap_ethosu_host_npu);
    ap_ethosu_host_npu.config = config;
    ap_ethosu_host_npu.id = id;
    ap_ethosu_sim_reset();
    if (ethosu_init(&host_driver, &ap_ethosu_host_npu, fast_memory, fast_memory_size, 0, 0) != 0) {
        return AP_ERR_DRIVER;
    }
    ap_ethosu_host_npu.driver = &host_driver;
    host_driver_up = 1;
    return AP_OK;
}
