/* Tests of the emulated Ethos-U (emulation/ethosu_npu_model.c) through the driver API alone (Arm's
 * functions), no backend: a job runs its command stream on the functional Ethos-U55 (and an
 * Ethos-U85's, over the driver simulator); what the
 * NPU refuses (a region the stream uses missing, empty or off 16 bytes, regions overlapping, a
 * stream compiled for another NPU, a command it cannot execute) is recorded with its reason. Built twice by tests/c_runtime.rs: over the driver simulator
 * (emulation/ethosu_sim.c) and through Arm's ethosu_driver.c on arenaplan's device layer
 * (emulation/ethosu_device_host.c), so both front ends are held to the same NPU. */
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_driver.h"
#include "arenaplan/ethosu_sim.h"
#include "blobs.h"
#include "harness.h"

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The data of block `name` of a Vela bin stream (NULL if absent), and its length. */
static const uint8_t *block_of(const blob_t *b, const char *name, uint32_t *len) {
    for (size_t at = 0; at + 32 <= b->size;) {
        uint32_t n = rd32(b->data + at + 16);
        if (strcmp((const char *)b->data + at, name) == 0) {
            *len = n;
            return b->data + at + 32;
        }
        at += 32 + ((n + 15u) & ~(size_t)15u);
    }
    *len = 0;
    return NULL;
}

/* The parsed blob, as the backend parses it: where its command stream, weights and I/O records
 * are. The blobs here have every block. */
static ap_ethosu_blob_t describe(const blob_t *b) {
    ap_ethosu_blob_t d;
    uint32_t len;
    memset(&d, 0, sizeof d);
    d.cmd = block_of(b, "cmd_data", &d.cmd_size);
    d.weights = block_of(b, "weight_data", &d.weights_size);
    d.scratch_size = rd32(block_of(b, "scratch_size", &len));
    d.inputs_block = block_of(b, "inputs", &len);
    d.outputs_block = block_of(b, "outputs", &len);
    d.ninputs = rd32(d.inputs_block);
    d.noutputs = rd32(d.outputs_block);
    return d;
}

/* The blob's payload through the driver with `n` regions. The NPU's records are cleared first,
 * so they are this job's or, where the driver's front end refused the job, empty (no calls). */
static int invoke(const ap_ethosu_blob_t *d, uint64_t *base, const size_t *size, int n) {
    ap_ethosu_sim_reset();
    struct ethosu_driver *drv = ethosu_reserve_driver();
    if (drv == NULL) {
        return -2;
    }
    int r = ethosu_invoke_v3(drv, d->cmd, (int)d->cmd_size, base, size, n, NULL);
    ethosu_release_driver(drv);
    return r;
}

static _Alignas(32) uint8_t scratch[128];

/* Weights, the scratch (input at 0, output at 16) and no fast scratch. */
static void regions(const ap_ethosu_blob_t *d, uint64_t base[3], size_t size[3]) {
    base[0] = (uint64_t)(uintptr_t)d->weights;
    size[0] = d->weights_size;
    base[1] = (uint64_t)(uintptr_t)scratch;
    size[1] = 64;
    base[2] = 0;
    size[2] = 0;
}

/* A job runs its command stream on the functional Ethos-U55: the stream's ADD reads the input
 * where it points (offset 0) and writes the output where it points (16); nothing else of the
 * scratch is touched. */
static void a_job_runs_its_command_stream(void) {
    blob_t blob = vela_blob(16, 8, 64);
    ap_ethosu_blob_t d = describe(&blob);
    uint64_t base[3];
    size_t size[3];
    regions(&d, base, size);
    memset(scratch, 0, sizeof scratch);
    for (uint32_t i = 0; i < 16; i++) {
        scratch[i] = (uint8_t)(i * 17);
    }
    CHECK(invoke(&d, base, size, 3) == 0);
    const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
    CHECK(r->status == AP_ETHOSU_SIM_OK && ap_ethosu_sim_calls() == 1 && r->npu_ops == 1);
    CHECK(r->num_regions == 3 && r->regions_used == 3u && r->user_arg_set == 0);
    CHECK(r->base[1] == (uint64_t)(uintptr_t)scratch && r->size[1] == 64);
    CHECK(r->qbase == (uint64_t)(uintptr_t)(d.cmd + 32) && r->qsize == d.cmd_size - 32);
    int computed = 1, untouched = 1;
    for (uint32_t j = 0; j < 8; j++) {
        computed &= scratch[16 + j] == ctest_npu_output(scratch, j);
    }
    for (uint32_t b = 0; b < sizeof scratch; b++) {
        untouched &= (b < 24) || scratch[b] == 0;
    }
    CHECK(computed && untouched && scratch[15] == 255);
}

/* Word `i` of the command stream in a blob's payload (after COP1 and its actions). */
static uint8_t *stream_word(blob_t *b, const ap_ethosu_blob_t *d, uint32_t i) {
    return b->data + (d->cmd - b->data) + 32 + 4 * i;
}

/* The word index of the first command with opcode `op` (two-word commands: `two_words`) in
 * the test stream. */
static uint32_t find_command(blob_t *b, const ap_ethosu_blob_t *d, uint32_t op, int two_words) {
    for (uint32_t i = 0; 32 + 4 * i < d->cmd_size; i++) {
        uint32_t w = rd32(stream_word(b, d, i));
        if ((w & 0xC3FFu) == (op | (two_words ? 1u << 14 : 0u))) {
            return i;
        }
        i += (w >> 14) & 1u; /* skip a payload word */
    }
    return UINT32_MAX;
}

/* What the functional model cannot do faults with the command named, and writes nothing: an
 * OFM that reaches past its region, an operation the NPU does not have; a stream without
 * NPU_OP_STOP is refused before anything runs. */
static void a_stream_the_npu_cannot_run_faults_naming_the_command(void) {
    uint64_t base[3];
    size_t size[3];
    {
        blob_t blob = vela_blob(16, 8, 64);
        ap_ethosu_blob_t d = describe(&blob);
        regions(&d, base, size);
        uint32_t at = find_command(&blob, &d, 16u, 1); /* OFM_BASE0 */
        CHECK(at != UINT32_MAX);
        put32(stream_word(&blob, &d, at + 1), 60); /* 8 bytes at 60 of a 64-byte region */
        memset(scratch, 0, sizeof scratch);
        CHECK(invoke(&d, base, size, 3) != 0);
        const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
        CHECK(r->status == AP_ETHOSU_SIM_FAULT && r->fault != NULL && strstr(r->fault, "outside its region") != NULL);
        CHECK(r->fault_command != NULL && strcmp(r->fault_command, "NPU_OP_ELEMENTWISE") == 0);
        CHECK(scratch[60] == 0 && scratch[63] == 0 && scratch[64] == 0);
    }
    {
        blob_t blob = vela_blob(16, 8, 64);
        ap_ethosu_blob_t d = describe(&blob);
        regions(&d, base, size);
        uint32_t at = find_command(&blob, &d, 6u, 0); /* NPU_OP_ELEMENTWISE: made operation 4 */
        CHECK(at != UINT32_MAX);
        put32(stream_word(&blob, &d, at), 4u);
        memset(scratch, 0, sizeof scratch);
        CHECK(invoke(&d, base, size, 3) != 0);
        const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
        CHECK(r->status == AP_ETHOSU_SIM_FAULT && r->fault_opcode == 4 && r->fault_word == at);
        CHECK(scratch[16] == 0);
    }
    {
        blob_t blob = vela_blob(16, 8, 64);
        ap_ethosu_blob_t d = describe(&blob);
        regions(&d, base, size);
        uint32_t at = find_command(&blob, &d, 0u, 0); /* NPU_OP_STOP: made a DMA wait */
        CHECK(at != UINT32_MAX);
        put32(stream_word(&blob, &d, at), 17u);
        CHECK(invoke(&d, base, size, 3) != 0);
        const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
        CHECK(r->status == AP_ETHOSU_SIM_BAD_CALL && ap_ethosu_sim_calls() == 1); /* refused before it runs */
    }
}

/* Every region the stream uses needs a base address, a size and 16-byte alignment; no two
 * regions may overlap. Each refusal leaves the scratch as it was. */
static void regions_are_checked_before_the_job_runs(void) {
    blob_t blob = vela_blob(16, 8, 64);
    ap_ethosu_blob_t d = describe(&blob);
    uint64_t base[3];
    size_t size[3];
    memset(scratch, 0, sizeof scratch);
    regions(&d, base, size);
    base[1] = 0;
    CHECK(invoke(&d, base, size, 3) != 0);
    CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_BAD_REGION);
    regions(&d, base, size);
    size[1] = 0;
    CHECK(invoke(&d, base, size, 3) != 0);
    CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_BAD_REGION);
    /* Off 16 bytes: Arm's front end refuses it before the NPU sees it, the simulator's records
     * the refusal. */
    regions(&d, base, size);
    base[1] += 8;
    CHECK(invoke(&d, base, size, 3) != 0);
    CHECK(ap_ethosu_sim_calls() == 0 || ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_BAD_REGION);
    /* A stream using region 2 with two regions only. */
    blob_t fast = vela_blob_io(16, 1, 8, 64, USES_SCRATCH | USES_FAST);
    ap_ethosu_blob_t f = describe(&fast);
    regions(&f, base, size);
    CHECK(invoke(&f, base, size, 2) != 0);
    CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_BAD_REGION);
    /* Fast scratch over the scratch's second half (region 2 unused by the stream, still
     * checked). */
    regions(&d, base, size);
    base[2] = (uint64_t)(uintptr_t)(scratch + 32);
    size[2] = 64;
    CHECK(invoke(&d, base, size, 3) != 0);
    CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_OVERLAP);
    CHECK(scratch[0] == 0 && scratch[63] == 0);
    /* The same job on good regions still runs (and takes the last description). */
    regions(&d, base, size);
    CHECK(invoke(&d, base, size, 3) == 0);
    CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_OK);
}

/* A stream Vela compiled for an Ethos-U85-256 on the emulated U55-128: refused by the optimizer
 * config check, which records the fields that differ and both sides' words. */
static void a_stream_for_another_npu_is_refused(void) {
    blob_t blob = vela_blob(16, 8, 64);
    ap_ethosu_blob_t d = describe(&blob);
    uint8_t *payload = blob.data + (d.cmd - blob.data);
    put32(payload + 8, AP_ETHOSU_U85_256_CONFIG);
    put32(payload + 12, AP_ETHOSU_U85_256_ID);
    uint64_t base[3];
    size_t size[3];
    regions(&d, base, size);
    memset(scratch, 0, sizeof scratch);
    CHECK(invoke(&d, base, size, 3) != 0);
    const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
    CHECK(r->status == AP_ETHOSU_SIM_CONFIG_MISMATCH);
    CHECK((r->mismatch & AP_ETHOSU_MISMATCH_PRODUCT) != 0 && (r->mismatch & AP_ETHOSU_MISMATCH_ARCH) != 0);
    CHECK(r->stream_config == AP_ETHOSU_U85_256_CONFIG && r->stream_id == AP_ETHOSU_U85_256_ID);
    CHECK(r->npu_config == AP_ETHOSU_U55_128_CONFIG && r->npu_id == AP_ETHOSU_U55_128_ID);
    CHECK(scratch[0] == 0);
}

/* An Ethos-U85 job (the driver simulator's front end: Arm's driver here is built for the
 * U55): two operations, the first's output chained into the second without memory, each adding
 * a broadcast scalar. The output is both additions; the chain buffer leaves no trace in the
 * scratch. */
static void an_ethos_u85_job_chains_one_operation_into_the_next(void) {
#ifndef AP_ETHOSU_ARM_DRIVER
    CHECK(ap_ethosu_host_setup(AP_ETHOSU_U85_256_CONFIG, AP_ETHOSU_U85_256_ID, NULL, 0) == AP_OK);
    blob_t blob = vela_blob_u85_chained(16);
    ap_ethosu_blob_t d = describe(&blob);
    uint64_t base[3];
    size_t size[3];
    regions(&d, base, size);
    memset(scratch, 0, sizeof scratch);
    for (uint32_t i = 0; i < 16; i++) {
        scratch[i] = (uint8_t)(i * 17);
    }
    CHECK(invoke(&d, base, size, 3) == 0);
    const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
    CHECK(r->status == AP_ETHOSU_SIM_OK && r->npu_ops == 2 && r->fault == NULL);
    int computed = 1, untouched = 1;
    for (uint32_t j = 0; j < 16; j++) {
        computed &= scratch[16 + j] == (scratch[j] >= 254 ? 255 : scratch[j] + 2);
    }
    for (uint32_t b = 32; b < sizeof scratch; b++) {
        untouched &= scratch[b] == 0;
    }
    CHECK(computed && untouched && scratch[31] == 255 && scratch[16] == 2);
    /* Hostile scaling registers are arithmetic, not undefined behaviour: a double-rounding
     * shift of 31 (no first point) and the largest multiplier with the largest shift. */
    uint32_t at = find_command(&blob, &d, 37u, 1);
    CHECK(at != UINT32_MAX);
    put32(stream_word(&blob, &d, at), (((31u << 6) | 1u) << 16) | (1u << 14) | 37u);
    put32(stream_word(&blob, &d, at + 1), 0x7FFFFFFFu);
    at = find_command(&blob, &d, 36u, 1);
    CHECK(at != UINT32_MAX);
    put32(stream_word(&blob, &d, at), (63u << 16) | (1u << 14) | 36u);
    put32(stream_word(&blob, &d, at + 1), 0x7FFFFFFFu);
    CHECK(invoke(&d, base, size, 3) == 0 && ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_OK);
    CHECK(ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0) == AP_OK);
#endif
}

static ap_status_t start(void) {
    return ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
}

static const ctest_case_t cases[] = {
    CTEST(a_job_runs_its_command_stream),
    CTEST(a_stream_the_npu_cannot_run_faults_naming_the_command),
    CTEST(regions_are_checked_before_the_job_runs),
    CTEST(a_stream_for_another_npu_is_refused),
    CTEST(an_ethos_u85_job_chains_one_operation_into_the_next),
};

int main(void) {
    const ctest_room_t room = {"ethos_u_emulation", start, ap_ethosu_sim_reset, cases, sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}
