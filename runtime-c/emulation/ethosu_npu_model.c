/* The emulated Ethos-U NPU (see arenaplan/ethosu_sim.h for what it checks and computes). */
#include "ethosu_npu_model.h"

#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_driver.h"

#include <string.h>
#include "../core/bytes.h"
#include "ethosu_u55/u55.h"

ap_ethosu_npu_t ap_ethosu_host_npu;
static struct ethosu_driver host_driver;
static int host_driver_up;
static ap_ethosu_sim_record_t last;
static uint32_t calls;
static uint32_t placeholder_jobs;

/* Command stream opcodes (bits 0-9 of a command word; bits 14-15: 0 = one word, 1 = followed
 * by a 32-bit payload) that name a region in bits 16-18. */
enum {
    OP_STOP = 0,
    OP_IFM_REGION = 271,
    OP_OFM_REGION = 287,
    OP_WEIGHT_REGION = 296,
    OP_SCALE_REGION = 297,
    OP_DMA0_SRC_REGION = 304,
    OP_DMA0_DST_REGION = 305,
    OP_DMA0_IDX_REGION = 308, /* U85 */
    OP_IFM2_REGION = 399
};


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

/* Decodes the command stream: which regions it addresses, and whether it stops inside. */
static int decode(const uint8_t *cmd, uint32_t bytes, uint32_t *used) {
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
        case OP_STOP:
            return 1;
        case OP_DMA0_SRC_REGION:
        case OP_DMA0_DST_REGION:
            if ((w >> 24) & 1u) {
                break; /* internal memory: the region field is a core mask */
            }
            *used |= 1u << region;
            break;
        case OP_IFM_REGION:
        case OP_OFM_REGION:
        case OP_WEIGHT_REGION:
        case OP_SCALE_REGION:
        case OP_DMA0_IDX_REGION:
        case OP_IFM2_REGION:
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

/* The job the backend is about to hand the driver (ap_ethosu_job_hook): where its inputs and
 * outputs are. One description, one job. */
static ap_ethosu_blob_t described;
static int is_described;

void ap_ethosu_job_hook(const ap_ethosu_blob_t *blob) {
    if (blob != NULL) {
        described = *blob;
        is_described = 1;
    }
}

/* The functional Ethos-U55 (ethosu_u55/): the stream executed on the job's regions. */
static ap_u55_t u55;

static int run_u55(const ap_ethosu_npu_t *npu, const uint8_t *cmd, uint32_t cmd_bytes, const uint64_t *base,
                   const size_t *size, int n) {
    if (!u55_init(&u55, 1u << (npu->config & 0xFu))) {
        last.status = AP_ETHOSU_SIM_FAULT;
        last.fault = "an Ethos-U55 with a MAC count the emulation does not model";
        return 0;
    }
    for (int r = 0; r < n && r < AP_U55_REGIONS; r++) {
        u55.region[r] = (uint8_t *)(uintptr_t)base[r];
        u55.region_size[r] = base[r] == 0 ? 0 : size[r];
    }
    int ok = u55_execute(&u55, cmd, cmd_bytes / 4u);
    last.npu_ops = u55.ops;
    if (!ok) {
        last.status = AP_ETHOSU_SIM_FAULT;
        last.fault = u55.fault;
        last.fault_opcode = u55.fault_opcode;
        last.fault_command = u55.fault_at_end ? NULL : u55_opcode_name(u55.fault_opcode, u55.fault_cmd1);
        last.fault_word = u55.fault_word;
        last.fault_detail = u55.detail;
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
    if (!decode(cmd, cmd_bytes, &used)) {
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
    if ((npu->config >> 28) == 0) {
        return run_u55(npu, cmd, cmd_bytes, base, size, n);
    }
    /* The Ethos-U85 has no functional model yet: its outputs are a placeholder, marked as one
     * in the record (ap_ethosu_sim_last()->placeholder) for the tools to say so. The
     * placeholder knows a job's inputs and outputs only from the backend's description of the
     * same payload; anything else is refused rather than guessed. */
    if (!is_described || described.cmd != custom || described.cmd_size != custom_size || n < 2) {
        is_described = 0;
        return 0;
    }
    ap_ethosu_blob_t b = described;
    is_described = 0;
    uint8_t *scratch = (uint8_t *)(uintptr_t)base[1];
    uint32_t sum = 0;
    for (uint32_t i = 0; i < b.ninputs + b.noutputs; i++) {
        const uint8_t *rec = (i < b.ninputs ? b.inputs_block + 4 + 36 * i : b.outputs_block + 4 + 36 * (i - b.ninputs));
        uint64_t bytes = ap_rd32(rec + 24);
        for (int d = 0; d < 6; d++) {
            bytes *= ap_rd32(rec + 4 * d);
        }
        uint64_t offset = ap_rd32(rec + 28);
        if ((ap_rd32(rec + 32) & ~AP_ETHOSU_IO_STATE_IN_PLACE) != 1 || (bytes > 0 && scratch == NULL) || offset > size[1] || bytes > size[1] - offset) {
            last.status = AP_ETHOSU_SIM_BAD_REGION;
            return 0;
        }
        for (uint64_t j = 0; i < b.ninputs && j < bytes; j++) {
            sum += scratch[offset + j];
        }
    }
    if (scratch != NULL && size[1] > 0) {
        memset(scratch, 0xDB, size[1]);
    }
    if (n >= 3 && size[2] > 0 && base[2] != 0) {
        memset((void *)(uintptr_t)base[2], 0xDB, size[2]);
    }
    for (uint32_t k = 0; k < b.noutputs; k++) {
        const uint8_t *rec = b.outputs_block + 4 + 36 * k;
        uint64_t bytes = ap_rd32(rec + 24);
        for (int d = 0; d < 6; d++) {
            bytes *= ap_rd32(rec + 4 * d);
        }
        for (uint64_t j = 0; j < bytes; j++) {
            scratch[ap_rd32(rec + 28) + j] = (uint8_t)(sum + 31u * (uint32_t)j + 7u * k);
        }
    }
    last.input_sum = sum;
    last.placeholder = 1;
    placeholder_jobs++;
    last.status = AP_ETHOSU_SIM_OK;
    return 1;
}

const ap_ethosu_sim_record_t *ap_ethosu_sim_last(void) { return &last; }
uint32_t ap_ethosu_sim_calls(void) { return calls; }
uint32_t ap_ethosu_sim_placeholder_jobs(void) { return placeholder_jobs; }
void ap_ethosu_sim_reset(void) {
    memset(&last, 0, sizeof last);
    calls = 0;
    placeholder_jobs = 0;
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
