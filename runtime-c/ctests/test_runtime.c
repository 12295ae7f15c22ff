/* Tests of the C runtime, the Ethos-U backend and its driver simulator. Plain C99; prints one
 * line per failed check and a closing "N passed, N failed" line. Built and run by the Rust test
 * `c_runtime_tests` and by .ci/run under AddressSanitizer, UBSan and valgrind. */
#include <stdio.h>
#include <string.h>

#include "arenaplan/dcache.h"
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_sim.h"
#include "arenaplan/neutron.h"
#include "arenaplan/neutron_driver.h"
#include "arenaplan/neutron_sim.h"
#include "arenaplan/runtime.h"

static int passed, failed;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) {                                                                   \
            passed++;                                                                 \
        } else {                                                                      \
            failed++;                                                                 \
            printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(expr, expected)                                                  \
    do {                                                                              \
        ap_status_t s_ = (expr);                                                      \
        if (s_ == (expected)) {                                                       \
            passed++;                                                                 \
        } else {                                                                      \
            failed++;                                                                 \
            printf("FAILED %s:%d: %s gave %s, expected %s\n", __FILE__, __LINE__, #expr, \
                   ap_status_name(s_), ap_status_name(expected));                     \
        }                                                                             \
    } while (0)

/* ---- A Vela bin stream, built block by block --------------------------------------------- */

typedef struct {
    _Alignas(16) uint8_t data[1024];
    size_t size;
} blob_t;

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void block(blob_t *b, const char *name, const uint8_t *data, uint32_t len) {
    memset(b->data + b->size, 0, 32);
    memcpy(b->data + b->size, name, strlen(name));
    put32(b->data + b->size + 16, len);
    b->size += 32;
    if (len > 0) {
        memcpy(b->data + b->size, data, len);
    }
    b->size += (len + 15u) & ~15u;
}

static uint32_t io_record(uint8_t *out, uint32_t bytes, uint32_t offset) {
    uint32_t words[9] = {1, 1, 1, 1, 1, bytes, 1, offset, 1};
    for (int i = 0; i < 9; i++) {
        put32(out + 4 * i, words[i]);
    }
    return 36;
}

/* Which regions a test command stream addresses (besides 0, the weights). */
enum { USES_SCRATCH = 1, USES_FAST = 2 };

/* A COP1 payload as Vela writes it: optimizer config for the emulated U55-128, NOPs so the
 * command stream starts 16-byte aligned, then a stream naming region 0 (weights), 1 (IFM, OFM)
 * and 2 (IFM2) as `uses` says, ending in NPU_OP_STOP. */
static uint32_t cop1(uint8_t *out, int uses) {
    uint32_t words[16] = {0x31504F43u, 1, AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, 5, 5, 5, 0, 296u,
                          1u << 14, 0};
    uint32_t n = 11; /* weights region, then a command with a payload word (IFM_BASE0 = 0) */
    if (uses & USES_SCRATCH) {
        words[n++] = (1u << 16) | 271u;
        words[n++] = (1u << 16) | 287u;
    }
    if (uses & USES_FAST) {
        words[n++] = (2u << 16) | 399u;
    }
    words[n++] = 0xFFFF0000u; /* NPU_OP_STOP */
    words[7] = ((n - 8) << 16) | 2u; /* COMMAND_STREAM of n - 8 words */
    for (uint32_t i = 0; i < n; i++) {
        put32(out + 4 * i, words[i]);
    }
    return 4 * n;
}

/* Inputs and outputs with the given shapes' last dimension, one chunk each unless `rows`. */
static blob_t vela_blob_io(uint32_t in_bytes, uint32_t out_rows, uint32_t out_row, uint32_t scratch_size, int uses) {
    blob_t b;
    memset(&b, 0, sizeof b);
    uint8_t cmd[64];
    uint32_t cmd_size = cop1(cmd, uses);
    uint8_t weights[20];
    memset(weights, 0x11, sizeof weights);
    uint8_t scratch[4];
    put32(scratch, scratch_size);
    uint8_t inputs[40], outputs[40];
    put32(inputs, 1);
    io_record(inputs + 4, in_bytes, 0);
    put32(outputs, 1);
    io_record(outputs + 4, out_row, (in_bytes + 15u) & ~15u);
    put32(outputs + 4 + 12, out_rows); /* shape[3] */
    block(&b, "vela_bin_stream", NULL, 0);
    block(&b, "cmd_data", cmd, cmd_size);
    block(&b, "weight_data", weights, sizeof weights);
    block(&b, "scratch_size", scratch, sizeof scratch);
    block(&b, "inputs", inputs, sizeof inputs);
    block(&b, "outputs", outputs, sizeof outputs);
    block(&b, "vela_end_stream", NULL, 0);
    return b;
}

/* One input of in_bytes at offset 0, one output of out_bytes after it, the given scratch. */
static blob_t vela_blob(uint32_t in_bytes, uint32_t out_bytes, uint32_t scratch_size) {
    return vela_blob_io(in_bytes, 1, out_bytes, scratch_size, USES_SCRATCH);
}

/* ---- Method set-up --------------------------------------------------------------------------- */

#define MAXV 16
static _Alignas(32) uint8_t arena[4096];
static _Alignas(32) uint8_t arena2[256]; /* pool mem_id 2 */
static _Alignas(32) uint8_t temp_pool[1024];
static ap_buffer_t values[MAXV];
static ap_handle_t handles[4];
static const ap_backend_t *delegate_backends[4];
static const ap_kernel_t *kernel_fns[4];
static ap_buffer_t argbuf[8];

static ap_status_t setup(ap_method_t *m, const ap_program_t *p, const ap_backend_t *const *backends, size_t nb,
                         const ap_kernel_t *kernels, size_t nk) {
    static ap_pool_t pools[2];
    pools[0].mem_id = 1;
    pools[0].base = arena;
    pools[0].size = sizeof arena;
    pools[1].mem_id = 2;
    pools[1].base = arena2;
    pools[1].size = sizeof arena2;
    ap_method_memory_t mem = {values, MAXV, handles, delegate_backends, 4, kernel_fns, 4, argbuf, 8,
                              temp_pool, sizeof temp_pool};
    memset(arena, 0, sizeof arena);
    memset(arena2, 0, sizeof arena2);
    ap_ethosu_sim_reset();
    ap_neutron_sim_reset();
    ap_dcache_reset();
    return ap_method_init(m, p, pools, 2, backends, nb, kernels, nk, &mem);
}

/* A backend run on its own, without the runtime's table checks: for what only a driver (or its
 * simulator) can refuse, such as arguments the runtime would have refused at init. */
static ap_status_t run_backend(const ap_backend_t *b, const blob_t *blob, ap_buffer_t *args, size_t nargs) {
    ap_handle_t h;
    ap_temp_allocator_t temp;
    memset(&h, 0, sizeof h);
    ap_temp_init(&temp, temp_pool, sizeof temp_pool);
    ap_context_t ctx = {&temp, 0, 0, NULL, NULL};
    ap_status_t s = b->init(blob->data, blob->size, NULL, 0, &h);
    if (s == AP_OK) {
        s = b->execute(&ctx, &h, args, nargs);
        b->destroy(&h);
    }
    return s;
}

/* ---- A backend that records what it gets ----------------------------------------------------- */

static ap_buffer_t seen[8];
static size_t seen_n;

static ap_status_t recording_execute(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t nargs) {
    (void)ctx;
    (void)h;
    seen_n = nargs < 8 ? nargs : 8;
    memcpy(seen, args, seen_n * sizeof *args);
    return AP_OK;
}
static const ap_backend_t recording = {"Recording", NULL, recording_execute, NULL, 0, NULL, 0};

/* A legacy backend: reads input 0, writes output 0, ignores anything after. */
static ap_status_t legacy_execute(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t nargs) {
    (void)ctx;
    (void)h;
    if (nargs < 2 || args[1].size < args[0].size) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t i = 0; i < args[0].size; i++) {
        args[1].data[i] = (uint8_t)(args[0].data[i] + 1);
    }
    return AP_OK;
}
static const ap_backend_t legacy = {"Legacy", NULL, legacy_execute, NULL, 0, NULL, 0};

static uint8_t expected_output(uint32_t sum, uint32_t j) { return (uint8_t)(sum + 31u * j); }

/* ---- Tests -------------------------------------------------------------------------------------- */

static void runtime_contract(void) {
    /* in (64 B at 0), out (32 B at 64), scratch (500 B declared, at 96). */
    static const ap_tensor_desc_t tensors[] = {{1, 0, 64, NULL}, {1, 64, 32, NULL}, {1, 96, 500, NULL}};
    static const uint32_t args[] = {0, 1, 2};
    static const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
    static const ap_delegate_desc_t del[] = {{"Recording", NULL, 0, NULL, 0}};
    static const uint32_t in[] = {0}, out[] = {1};
    static const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    const ap_backend_t *backends[] = {&recording};
    ap_method_t m;
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(seen_n == 3); /* exactly one extra argument beyond inputs and outputs */
    CHECK(seen[2].size == 500);
    CHECK(seen[2].data != NULL && ((uintptr_t)seen[2].data % 16) == 0);
    CHECK(seen[2].data != seen[0].data && seen[2].data != seen[1].data);
    CHECK(seen[2].data >= arena && seen[2].data + seen[2].size <= arena + sizeof arena);
    ap_method_destroy(&m);
}

static void ethos_u_planned_and_legacy_scratch(void) {
    blob_t blob = vela_blob(16, 8, 64);
    static const uint32_t in[] = {0}, out[] = {1};
    const ap_backend_t *backends[] = {&ap_ethosu_backend, &legacy};
    /* With planned scratch (value 2 at 256). */
    {
        const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}, {1, 256, 64, NULL}};
        static const uint32_t args[] = {0, 1, 2};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
        const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_method_t m;
        CHECK_STATUS(setup(&m, &p, backends, 2, NULL, 0), AP_OK);
        ap_buffer_t input, output;
        CHECK_STATUS(ap_method_input(&m, 0, &input), AP_OK);
        for (uint32_t i = 0; i < 16; i++) {
            input.data[i] = (uint8_t)i;
        }
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_OK);
        CHECK(ap_ethosu_sim_last()->base[1] == (uint64_t)(uintptr_t)(arena + 256)); /* planned scratch used */
        CHECK_STATUS(ap_method_output(&m, 0, &output), AP_OK);
        CHECK(output.data[0] == expected_output(120, 0) && output.data[7] == expected_output(120, 7));
        CHECK(arena[256] == 0xDB || arena[256 + 63] == 0xDB); /* scratch was poisoned */
        ap_method_destroy(&m);
    }
    /* Version skew 1: a plan without scratch arguments runs through the temp allocator. */
    {
        const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}};
        static const uint32_t args[] = {0, 1};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 2, 1, 1}};
        const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        const ap_program_t p = {tensors, 2, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_method_t m;
        CHECK_STATUS(setup(&m, &p, backends, 2, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        uint64_t base = ap_ethosu_sim_last()->base[1];
        CHECK(base >= (uint64_t)(uintptr_t)temp_pool && base < (uint64_t)(uintptr_t)(temp_pool + sizeof temp_pool));
        ap_method_destroy(&m);
    }
    /* Version skew 2: a plan with scratch runs on a backend that ignores trailing arguments. */
    {
        const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 16, NULL}, {1, 256, 64, NULL}};
        static const uint32_t args[] = {0, 1, 2};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
        const ap_delegate_desc_t del[] = {{"Legacy", NULL, 0, NULL, 0}};
        const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_method_t m;
        CHECK_STATUS(setup(&m, &p, backends, 2, NULL, 0), AP_OK);
        arena[3] = 41;
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        CHECK(arena[16 + 3] == 42);
        ap_method_destroy(&m);
    }
}

/* The input and the output planned at their places in the scratch (Vela's records: input at 0,
 * output at 16): the NPU reads and writes them there and nothing is copied (a copy would be a
 * memcpy onto itself, which the sanitizers' run refuses). A tensor over the scratch anywhere
 * else, or an output at its place whose rows Vela pads, is refused before anything runs. */
static void ethos_u_io_in_scratch(void) {
    blob_t blob = vela_blob(16, 8, 64);
    static const uint32_t args[] = {0, 1, 2}, in[] = {0}, out[] = {1};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
    const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    {
        const ap_tensor_desc_t tensors[] = {{1, 256, 16, NULL}, {1, 272, 8, NULL}, {1, 256, 64, NULL}};
        const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_method_t m;
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        for (uint32_t run = 0; run < 2; run++) {
            ap_buffer_t input, output;
            CHECK_STATUS(ap_method_input(&m, 0, &input), AP_OK);
            CHECK(input.data == arena + 256);
            for (uint32_t i = 0; i < 16; i++) {
                input.data[i] = (uint8_t)(i + run); /* an input in the scratch is the NPU's after the call */
            }
            ap_dcache_reset();
            CHECK_STATUS(ap_method_execute(&m), AP_OK);
            CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_OK);
            CHECK(ap_ethosu_sim_last()->input_sum == 120u + 16u * run);
            CHECK_STATUS(ap_method_output(&m, 0, &output), AP_OK);
            CHECK(output.data == arena + 272);
            CHECK(output.data[0] == expected_output(120 + 16 * run, 0) &&
                  output.data[7] == expected_output(120 + 16 * run, 7));
#if AP_DCACHE_MAINTAINED
            /* The clean before the job covers the input the CPU wrote, the invalidation after it
             * the output the NPU wrote: both are inside the scratch's lines. */
            const ap_dcache_record_t *ops = ap_dcache_records();
            CHECK(ap_dcache_misaligned() == 0 && ap_dcache_count() >= 2);
            CHECK(ops[0].op == AP_DCACHE_CLEAN && ops[0].addr == (uint64_t)(uintptr_t)(arena + 256) && ops[0].size == 64);
            CHECK(ops[ap_dcache_count() - 1].op == AP_DCACHE_INVALIDATE &&
                  ops[ap_dcache_count() - 1].addr == (uint64_t)(uintptr_t)(arena + 256));
#endif
        }
        ap_method_destroy(&m);
    }
    /* The input over the scratch but not at its place (a plan and a blob that disagree). */
    {
        const ap_tensor_desc_t tensors[] = {{1, 272, 16, NULL}, {1, 0, 8, NULL}, {1, 256, 64, NULL}};
        const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_method_t m;
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_BAD_ARGUMENTS);
        CHECK(ap_ethosu_sim_calls() == 0);
        ap_method_destroy(&m);
    }
    /* An output whose rows Vela pads (2 rows of 8, the tensor's rows of 4) at its place. */
    {
        blob_t rows = vela_blob_io(16, 2, 8, 64, USES_SCRATCH);
        const ap_delegate_desc_t del_rows[] = {{"EthosUBackend", rows.data, (uint32_t)rows.size, NULL, 0}};
        const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 272, 8, NULL}, {1, 256, 64, NULL}};
        const ap_program_t p = {tensors, 3, ins, 1, del_rows, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_method_t m;
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_BAD_ARGUMENTS);
        ap_method_destroy(&m);
    }
}

static void disjoint_calls_share_scratch(void) {
    /* x -> call0 -> y -> call1 -> z; both calls' scratch at the same offset (disjoint in time). */
    blob_t blob = vela_blob(16, 16, 64);
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 16, NULL}, {1, 32, 16, NULL},
                                        {1, 512, 64, NULL}, {1, 512, 64, NULL}};
    static const uint32_t a0[] = {0, 1, 3}, a1[] = {1, 2, 4}, in[] = {0}, out[] = {2};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, a0, 3, 1, 1}, {AP_INSTR_DELEGATE, 0, a1, 3, 1, 1}};
    const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_program_t p = {tensors, 5, ins, 2, del, 1, NULL, 0, in, 1, out, 1, NULL};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    ap_method_t m;
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
    for (int i = 0; i < 16; i++) {
        arena[i] = 1;
    }
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    uint32_t sum1 = 0;
    for (uint32_t j = 0; j < 16; j++) {
        sum1 += expected_output(16, j);
    }
    int ok = 1;
    for (uint32_t j = 0; j < 16; j++) {
        ok &= arena[32 + j] == expected_output(sum1, j);
    }
    CHECK(ok); /* correct outputs with poisoning on */
    CHECK(ap_ethosu_sim_calls() == 2);
    ap_method_destroy(&m);
}

static void a_bad_plan_is_caught_by_poisoning(void) {
    /* The scratch overlaps tensor w, which is alive across the call: w is poisoned. */
    blob_t blob = vela_blob(16, 16, 64);
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 16, NULL}, {1, 64, 64, NULL}, {1, 80, 16, NULL}};
    static const uint32_t a0[] = {0, 1, 2}, in[] = {0, 3}, out[] = {3};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, a0, 3, 1, 1}};
    const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_program_t p = {tensors, 4, ins, 1, del, 1, NULL, 0, in, 2, out, 1, NULL};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    ap_method_t m;
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
    memset(arena + 80, 0x55, 16);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(arena[80] != 0x55); /* the live tensor did not survive: the plan was wrong */
    ap_method_destroy(&m);
}

static void bad_tables_and_blobs(void) {
    blob_t blob = vela_blob(16, 8, 64);
    static const uint32_t in[] = {0}, out[] = {1};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    ap_method_t m;
    const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    /* Counts: more inputs and outputs than arguments. */
    {
        const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}};
        static const uint32_t args[] = {0, 1};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 2, 2, 1}};
        const ap_program_t p = {tensors, 2, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
    }
    /* An argument index past the tensors; a tensor outside its pool. */
    {
        const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 4090, 8, NULL}};
        static const uint32_t args[] = {0, 1};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 2, 1, 1}};
        const ap_program_t p = {tensors, 2, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
        static const uint32_t bad_args[] = {0, 7};
        const ap_tensor_desc_t ok_tensors[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}};
        const ap_instruction_t bad_ins[] = {{AP_INSTR_DELEGATE, 0, bad_args, 2, 1, 1}};
        const ap_program_t q = {ok_tensors, 2, bad_ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
    }
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}, {1, 264, 64, NULL}, {1, 256, 32, NULL}};
    static const uint32_t args[] = {0, 1, 2}, small[] = {0, 1, 3};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
    /* Missing backend. */
    {
        const ap_delegate_desc_t none[] = {{"NoSuchBackend", NULL, 0, NULL, 0}};
        const ap_program_t p = {tensors, 3, ins, 1, none, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_BACKEND_NOT_FOUND);
    }
    /* Truncated blob, at every length. */
    {
        int all_refused = 1;
        for (size_t cut = 0; cut < blob.size; cut++) {
            const ap_delegate_desc_t cut_del[] = {{"EthosUBackend", blob.data, (uint32_t)cut, NULL, 0}};
            const ap_program_t p = {tensors, 3, ins, 1, cut_del, 1, NULL, 0, in, 1, out, 1, NULL};
            all_refused &= setup(&m, &p, backends, 1, NULL, 0) == AP_ERR_BAD_BLOB;
        }
        CHECK(all_refused);
        blob_t swapped = blob;
        memcpy(swapped.data + 32, "weight_data\0\0\0\0\0", 16); /* block names out of order */
        const ap_delegate_desc_t sw[] = {{"EthosUBackend", swapped.data, (uint32_t)swapped.size, NULL, 0}};
        const ap_program_t p = {tensors, 3, ins, 1, sw, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_BAD_BLOB);
    }
    /* Unaligned scratch (offset 264), then scratch smaller than the blob needs. */
    {
        const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_MISALIGNED);
        ap_method_destroy(&m);
        const ap_instruction_t small_ins[] = {{AP_INSTR_DELEGATE, 0, small, 3, 1, 1}};
        const ap_program_t q = {tensors, 4, small_ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_TOO_SMALL);
        ap_method_destroy(&m);
    }
    /* The legacy path with a temp pool too small. */
    {
        blob_t big = vela_blob(16, 8, 2048);
        const ap_delegate_desc_t bd[] = {{"EthosUBackend", big.data, (uint32_t)big.size, NULL, 0}};
        const ap_tensor_desc_t t2[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}};
        static const uint32_t a2[] = {0, 1};
        const ap_instruction_t i2[] = {{AP_INSTR_DELEGATE, 0, a2, 2, 1, 1}};
        const ap_program_t p = {t2, 2, i2, 1, bd, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_TEMP_EXHAUSTED);
        ap_method_destroy(&m);
    }
    /* Arguments the blob does not fit: fewer than inputs + outputs. */
    {
        ap_args_t a;
        ap_buffer_t one[1];
        CHECK_STATUS(ap_split_args(one, 1, 1, 1, &a), AP_ERR_BAD_ARGUMENTS);
        CHECK_STATUS(ap_split_args(NULL, 0, 0, 0, &a), AP_OK);
        CHECK(a.nscratch == 0);
    }
    CHECK(strcmp(ap_status_name(AP_ERR_BAD_BLOB), "AP_ERR_BAD_BLOB") == 0);
    CHECK(strcmp(ap_status_name((ap_status_t)99), "AP_ERR_UNKNOWN") == 0);
    CHECK_STATUS(ap_method_init(NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL), AP_ERR_INVALID_ARGUMENT);
}

static ap_status_t add_one(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)ctx;
    (void)user;
    if (nargs != 2) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t i = 0; i < args[0].size && i < args[1].size; i++) {
        args[1].data[i] = (uint8_t)(args[0].data[i] + 1);
    }
    return AP_OK;
}

static void kernels_by_name(void) {
    const ap_tensor_desc_t tensors[] = {{1, 0, 4, NULL}, {1, 16, 4, NULL}};
    static const uint32_t args[] = {0, 1}, in[] = {0}, out[] = {1};
    static const char *const names[] = {"add_one"};
    const ap_instruction_t ins[] = {{AP_INSTR_KERNEL, 0, args, 2, 1, 1}};
    const ap_program_t p = {tensors, 2, ins, 1, NULL, 0, names, 1, in, 1, out, 1, NULL};
    const ap_kernel_t kernels[] = {{"add_one", add_one, NULL}};
    ap_method_t m;
    CHECK_STATUS(setup(&m, &p, NULL, 0, NULL, 0), AP_ERR_KERNEL_NOT_FOUND);
    CHECK_STATUS(setup(&m, &p, NULL, 0, kernels, 1), AP_OK);
    arena[0] = 9;
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(arena[16] == 10);
    ap_method_destroy(&m);
}

/* The kernel of `value_meta`: checks what its context says of its arguments. */
static ap_status_t sees_meta(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)args;
    (void)user;
    if (ctx->meta == NULL || ctx->arg_ids == NULL || nargs != 4) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_value_meta_t *x = &ctx->meta[ctx->arg_ids[0]];
    const ap_value_meta_t *list = &ctx->meta[ctx->arg_ids[1]];
    int ok = x->kind == AP_VALUE_TENSOR && x->dtype == 6 && x->rank == 2 && x->dims[0] == 1 && x->dims[1] == 1 &&
             list->kind == AP_VALUE_TENSOR_LIST;
    return ok ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

/* The value table: handed to kernels (not to delegates), checked at init — a tensor's elements
 * within its memory, fixed-size kinds of their size, an absent value as None only, a tensor
 * list's count within the call's inputs. */
static void value_meta(void) {
    static const uint8_t one[8] = {1};
    static const uint8_t two[8] = {2};
    static const uint32_t dims[2] = {1, 1}, big[2] = {0x10000u, 0x10000u}, empty[3] = {0, 0x10000u, 0x10000u};
    const ap_tensor_desc_t tensors[] = {{1, 0, 4, NULL}, {0, 0, 8, one}, {1, 16, 4, NULL}, {1, 32, 4, NULL}};
    const ap_tensor_desc_t listed_two[] = {{1, 0, 4, NULL}, {0, 0, 8, two}, {1, 16, 4, NULL}, {1, 32, 4, NULL}};
    static const uint32_t args[] = {0, 1, 2, 3}, in[] = {0}, out[] = {3};
    static const char *const names[] = {"sees_meta"};
    const ap_instruction_t ins[] = {{AP_INSTR_KERNEL, 0, args, 4, 3, 1}};
    const ap_kernel_t kernels[] = {{"sees_meta", sees_meta, NULL}};
    const ap_value_meta_t good[] = {{AP_VALUE_TENSOR, 6, 2, dims}, {AP_VALUE_TENSOR_LIST, 0, 0, NULL},
                                    {AP_VALUE_TENSOR, 6, 2, dims}, {AP_VALUE_TENSOR, 6, 2, dims}};
    ap_method_t m;
    const ap_program_t p = {tensors, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, good};
    CHECK_STATUS(setup(&m, &p, NULL, 0, kernels, 1), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    ap_method_destroy(&m);
    /* Two elements promised, one input after the list. */
    const ap_program_t too_many = {listed_two, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, good};
    CHECK_STATUS(setup(&m, &too_many, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
    /* A shape larger than the value's memory, strides past 32 bits, and an int of 4 bytes. */
    const ap_value_meta_t bad_shape[] = {{AP_VALUE_TENSOR, 6, 2, big}, good[1], good[2], good[3]};
    const ap_value_meta_t bad_strides[] = {{AP_VALUE_TENSOR, 6, 3, empty}, good[1], good[2], good[3]};
    const ap_value_meta_t bad_int[] = {{AP_VALUE_INT, 0, 0, NULL}, good[1], good[2], good[3]};
    const ap_value_meta_t *const bad[] = {bad_shape, bad_strides, bad_int};
    for (int i = 0; i < 3; i++) {
        const ap_program_t q = {tensors, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, bad[i]};
        CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
    }
    /* An absent value (no arena, no data) described as a tensor with elements. */
    const ap_tensor_desc_t absent[] = {{0, 0, 4, NULL}, {0, 0, 8, one}, {1, 16, 4, NULL}, {1, 32, 4, NULL}};
    const ap_program_t q = {absent, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, good};
    CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
}

/* A Neutron payload: 1 input, 1 output, 1 input argument; version 0 (scratch, SRAM scratch) or
 * 1 (also profile and debug sizes). */
static blob_t neutron_blob_v(uint32_t version, uint32_t scratch, uint32_t sram, uint32_t profile, uint32_t debug) {
    blob_t b;
    memset(&b, 0, sizeof b);
    uint8_t header[16] = {1, 1, 1, 0, 0, 0, 0, (uint8_t)version};
    memcpy(b.data, header, sizeof header);
    uint32_t v0[16] = {0x64434D6Eu, 0, 0, 0, 0, 0, 64, 0, 0, scratch, sram, 1, 1, 0, 0, 0};
    uint32_t v1[16] = {0x64434D6Eu, 0, 0, 0, 0, 0, 64, 0, 0, scratch, profile | 0x80000000u, debug, sram, 1, 1, 0};
    for (int i = 0; i < 16; i++) {
        put32(b.data + 16 + 4 * i, version == 0 ? v0[i] : v1[i]);
    }
    b.size = 16 + 64;
    return b;
}

static blob_t neutron_blob(uint32_t scratch, uint32_t sram) { return neutron_blob_v(0, scratch, sram, 0, 0); }

static void neutron(void) {
    blob_t blob = neutron_blob(128, 64);
    const ap_tensor_desc_t tensors[] = {{1, 0, 8, NULL}, {1, 16, 8, NULL}, {1, 64, 128, NULL}, {1, 192, 64, NULL}};
    static const uint32_t args[] = {0, 1, 2, 3}, legacy_args[] = {0, 1}, in[] = {0}, out[] = {1};
    const ap_delegate_desc_t del[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_backend_t *backends[] = {&ap_neutron_backend};
    ap_method_t m;
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 4, 1, 1}};
    const ap_program_t p = {tensors, 4, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
    memset(arena, 2, 8);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(arena[16] == expected_output(16, 0) && arena[23] == expected_output(16, 7));
    CHECK(arena[64] == 0xDB && arena[192] == 0xDB); /* both scratch buffers poisoned */
    ap_method_destroy(&m);
    /* Legacy plan: both buffers from the temp allocator. */
    const ap_instruction_t legacy_ins[] = {{AP_INSTR_DELEGATE, 0, legacy_args, 2, 1, 1}};
    const ap_program_t q = {tensors, 2, legacy_ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    ap_method_destroy(&m);
    /* Scratch overlapping the output: the runtime refuses the table at init, before the model is
     * prepared; the simulator refuses the same buffers given to the backend directly. */
    const ap_tensor_desc_t bad[] = {{1, 0, 8, NULL}, {1, 64, 8, NULL}, {1, 64, 128, NULL}, {1, 192, 64, NULL}};
    const ap_program_t r = {bad, 4, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &r, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
    CHECK(ap_neutron_sim_prepared() == 0 && ap_neutron_sim_calls() == 0);
    ap_buffer_t direct[] = {{arena, 8}, {arena + 64, 8}, {arena + 64, 128}, {arena + 192, 64}};
    CHECK_STATUS(run_backend(&ap_neutron_backend, &blob, direct, 4), AP_ERR_DRIVER);
    CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_OVERLAP && ap_neutron_sim_calls() == 1);
    CHECK(ap_neutron_sim_prepared() == 0);
    /* Bad payloads. */
    blob_t bad_magic = blob;
    bad_magic.data[16] ^= 0xFF;
    const ap_delegate_desc_t bm[] = {{"NeutronBackend", bad_magic.data, (uint32_t)bad_magic.size, NULL, 0}};
    const ap_program_t s = {tensors, 4, ins, 1, bm, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &s, backends, 1, NULL, 0), AP_ERR_BAD_BLOB);
    int all_refused = 1;
    for (size_t cut = 0; cut < 16 + 44; cut++) {
        const ap_delegate_desc_t cd[] = {{"NeutronBackend", blob.data, (uint32_t)cut, NULL, 0}};
        const ap_program_t t = {tensors, 4, ins, 1, cd, 1, NULL, 0, in, 1, out, 1, NULL};
        all_refused &= setup(&m, &t, backends, 1, NULL, 0) == AP_ERR_BAD_BLOB;
    }
    CHECK(all_refused);
}

/* Each scratch role in its slot; a zero-size role before a present one is an empty argument. */
static void neutron_slots_by_role(void) {
    const ap_backend_t *backends[] = {&ap_neutron_backend};
    static const uint32_t in[] = {0}, out[] = {1};
    ap_method_t m;
    /* Values: 0 in, 1 out, 2 empty (mem_id 0), 3..6 planned buffers. */
    const ap_tensor_desc_t tensors[] = {{1, 0, 8, NULL},    {1, 16, 8, NULL},   {0, 0, 0, NULL},
                                        {1, 64, 128, NULL}, {1, 192, 64, NULL}, {1, 256, 32, NULL},
                                        {1, 288, 48, NULL}};
    /* main = 0, SRAM > 0: [in, out, empty, sram]. */
    {
        blob_t blob = neutron_blob(0, 64);
        static const uint32_t args[] = {0, 1, 2, 4};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 4, 1, 1}};
        const ap_delegate_desc_t del[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        const ap_program_t p = {tensors, 7, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        CHECK(ap_neutron_sim_last()->sram_scratch == (uint64_t)(uintptr_t)(arena + 192));
        CHECK(ap_neutron_sim_last()->scratch == 0 && ap_neutron_sim_last()->scratch_size == 0);
        ap_method_destroy(&m);
    }
    /* SRAM = 0, main > 0: [in, out, scratch]. */
    {
        blob_t blob = neutron_blob(128, 0);
        static const uint32_t args[] = {0, 1, 3};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
        const ap_delegate_desc_t del[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        const ap_program_t p = {tensors, 7, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        CHECK(ap_neutron_sim_last()->scratch == (uint64_t)(uintptr_t)(arena + 64));
        CHECK(ap_neutron_sim_last()->sram_scratch == 0);
        ap_method_destroy(&m);
    }
    /* Version 1 with every role: [in, out, scratch, sram, profile, debug]. */
    {
        blob_t blob = neutron_blob_v(1, 128, 64, 32, 48);
        static const uint32_t args[] = {0, 1, 3, 4, 5, 6};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 6, 1, 1}};
        const ap_delegate_desc_t del[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        const ap_program_t p = {tensors, 7, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        const ap_neutron_sim_record_t *r = ap_neutron_sim_last();
        CHECK(r->scratch == (uint64_t)(uintptr_t)(arena + 64) && r->sram_scratch == (uint64_t)(uintptr_t)(arena + 192));
        CHECK(r->profile == (uint64_t)(uintptr_t)(arena + 256) && r->profile_size == 32);
        CHECK(r->debug == (uint64_t)(uintptr_t)(arena + 288) && r->debug_size == 48);
        CHECK(arena[256] == 0xDB && arena[288 + 47] == 0xDB);
        ap_method_destroy(&m);
        /* The legacy direction: no scratch arguments, every role from the temp pool. */
        static const uint32_t legacy_args[] = {0, 1};
        const ap_instruction_t legacy_ins[] = {{AP_INSTR_DELEGATE, 0, legacy_args, 2, 1, 1}};
        const ap_program_t q = {tensors, 2, legacy_ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        r = ap_neutron_sim_last();
        uint64_t lo = (uint64_t)(uintptr_t)temp_pool, hi = lo + sizeof temp_pool;
        CHECK(r->scratch >= lo && r->scratch < hi && r->sram_scratch >= lo && r->sram_scratch < hi);
        CHECK(r->profile >= lo && r->profile < hi && r->debug >= lo && r->debug < hi);
        ap_method_destroy(&m);
        CHECK(ap_neutron_sim_prepared() == 0); /* destroy unprepared the model */
    }
    /* An output overlapping the input, an input off a 16-byte boundary. */
    {
        blob_t blob = neutron_blob(128, 0);
        static const uint32_t args[] = {0, 1, 3};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
        const ap_delegate_desc_t del[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        /* The runtime refuses it at init; the simulator, given it directly, too. */
        const ap_tensor_desc_t clash[] = {{1, 0, 8, NULL}, {1, 0, 8, NULL}, {0, 0, 0, NULL}, {1, 64, 128, NULL}};
        const ap_program_t p = {clash, 4, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
        ap_buffer_t direct[] = {{arena, 8}, {arena, 8}, {arena + 64, 128}};
        CHECK_STATUS(run_backend(&ap_neutron_backend, &blob, direct, 3), AP_ERR_DRIVER);
        CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_OVERLAP);
        const ap_tensor_desc_t odd[] = {{1, 8, 8, NULL}, {1, 16, 8, NULL}, {0, 0, 0, NULL}, {1, 64, 128, NULL}};
        const ap_program_t q = {odd, 4, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_DRIVER);
        CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_REGION);
        ap_method_destroy(&m);
    }
    /* A transposition flag, a misaligned payload. */
    {
        blob_t blob = neutron_blob(128, 0);
        blob.data[3] = 1;
        static const uint32_t args[] = {0, 1, 3};
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
        const ap_delegate_desc_t del[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
        const ap_program_t p = {tensors, 7, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_UNSUPPORTED);
        blob_t moved = neutron_blob(128, 0);
        memmove(moved.data + 4, moved.data, moved.size);
        const ap_delegate_desc_t mv[] = {{"NeutronBackend", moved.data + 4, (uint32_t)moved.size, NULL, 0}};
        const ap_program_t q = {tensors, 7, ins, 1, mv, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_ERR_BLOB_MISALIGNED);
    }
}

/* A Neutron payload of `nin` inputs and `nout` outputs over `nargs` input arguments, with
 * format bytes `formats` (inputs, then outputs) and maps `maps`; version 0, scratch 64. */
static blob_t neutron_blob_io(uint8_t nin, uint8_t nout, uint8_t nargs, const uint8_t *formats, const uint8_t *maps) {
    blob_t b;
    memset(&b, 0, sizeof b);
    size_t nio = (size_t)nin + nout;
    b.data[0] = nin;
    b.data[1] = nout;
    b.data[2] = nargs;
    memcpy(b.data + 3, formats, nio);
    memcpy(b.data + 3 + nio, maps, nio);
    b.data[3 + 2 * nio] = 0; /* version */
    size_t payload = (3 + 2 * nio + 1 + 15) & ~(size_t)15;
    uint32_t words[13] = {0x64434D6Eu, 0, 0, 0, 0, 0, 64, 0, 0, 64, 0, nin, nout};
    for (int i = 0; i < 13; i++) {
        put32(b.data + payload + 4 * i, words[i]);
    }
    b.size = payload + 64;
    return b;
}

/* `backend` on `blob` with one compile spec, the arguments given directly. */
static ap_status_t run_with_spec(const blob_t *blob, const char *key, const char *value, ap_buffer_t *args,
                                 size_t nargs) {
    ap_handle_t h;
    ap_temp_allocator_t temp;
    memset(&h, 0, sizeof h);
    ap_temp_init(&temp, temp_pool, sizeof temp_pool);
    ap_context_t ctx = {&temp, 0, 0, NULL, NULL};
    const ap_compile_spec_t spec = {key, value};
    ap_status_t s = ap_neutron_backend.init(blob->data, blob->size, &spec, 1, &h);
    if (s == AP_OK) {
        s = ap_neutron_backend.execute(&ctx, &h, args, nargs);
        ap_neutron_backend.destroy(&h);
    }
    return s;
}

/* NXP's transpositions: the NPU gets each flagged input channels-last (the simulator checks it
 * element by element against the NCHW tensor) and its flagged outputs come back NCHW (the
 * simulator writes them transposed, so only a transposition back gives its formula); for
 * every element size; the maps pick each slot's argument; the buffer is planned (slot
 * AP_NEUTRON_SLOT_TRANSPOSE) or, under older plans, from the temp allocator. */
static void neutron_transpositions(void) {
    static const uint8_t formats[] = {1, 1}, maps[] = {0, 0};
    blob_t blob = neutron_blob_io(1, 1, 1, formats, maps);
    static _Alignas(16) uint8_t in[24 * 8], out[12 * 8], scratch[64], buffer[512];
    for (uint32_t e = 1; e <= 8; e *= 2) {
        uint32_t sum = 0;
        for (uint32_t b = 0; b < 24 * e; b++) {
            in[b] = (uint8_t)(b * 7 + e);
            sum += in[b];
        }
        char spec[64];
        uint32_t off = (24 * e + 15) & ~15u;
        snprintf(spec, sizeof spec, "i0:1,3,2,4,%u@0;o0:2,2,1,3,%u@%u", e, e, off);
        for (int planned = 0; planned < 2; planned++) {
            memset(out, 0, sizeof out);
            ap_buffer_t args[] = {{in, 24 * e}, {out, 12 * e}, {scratch, 64}, {NULL, 0},
                                  {NULL, 0},    {NULL, 0},     {buffer, off + 12 * e}};
            CHECK_STATUS(run_with_spec(&blob, AP_NEUTRON_TRANSPOSE_SPEC, spec, args, planned ? 7 : 3), AP_OK);
            CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_OK);
            int as_formula = 1;
            for (uint32_t b = 0; b < 12 * e; b++) {
                as_formula &= out[b] == expected_output(sum, b);
            }
            CHECK(as_formula);
            CHECK((ap_neutron_sim_last()->input0 == (uint64_t)(uintptr_t)buffer) == (planned == 1));
        }
    }
    /* The maps: Neutron input 0 reads argument 1 (flagged, 1x2x2x2), input 1 argument 0 (as it is). */
    {
        static const uint8_t f2[] = {1, 0, 0}, m2[] = {1, 0, 0};
        blob_t two = neutron_blob_io(2, 1, 2, f2, m2);
        static _Alignas(16) uint8_t a0[16], a1[8], o[16];
        for (int b = 0; b < 8; b++) {
            a1[b] = (uint8_t)(b + 1);
        }
        ap_buffer_t args[] = {{a0, 16}, {a1, 8}, {o, 16}, {scratch, 64}, {NULL, 0}, {NULL, 0}, {NULL, 0}, {buffer, 16}};
        CHECK_STATUS(run_with_spec(&two, AP_NEUTRON_TRANSPOSE_SPEC, "i0:1,2,2,2,1@0", args, 8), AP_OK);
        CHECK(ap_neutron_sim_last()->input0 == (uint64_t)(uintptr_t)buffer);
        CHECK(buffer[0] == 1 && buffer[1] == 5 && buffer[2] == 2 && buffer[7] == 8); /* NHWC of a1 */
    }
    /* A flagged tensor the build passes as it is (one channel, or channels-last already): an
     * empty descriptor, and the NPU reads the argument itself. */
    {
        ap_buffer_t args[] = {{in, 24}, {out, 12}, {scratch, 64}};
        CHECK_STATUS(run_with_spec(&blob, AP_NEUTRON_TRANSPOSE_SPEC, "", args, 3), AP_OK);
        CHECK(ap_neutron_sim_last()->input0 == (uint64_t)(uintptr_t)in);
        CHECK(ap_neutron_sim_last()->output0 == (uint64_t)(uintptr_t)out);
    }
    /* Descriptors init refuses, and a tensor whose size is not the descriptor's. */
    {
        static const uint8_t unflagged[] = {0, 1};
        blob_t plain = neutron_blob_io(1, 1, 1, unflagged, maps);
        ap_buffer_t args[] = {{in, 24}, {out, 12}, {scratch, 64}};
        const char *bad[] = {"i0:1,3,2,4,3@0", "i0:1,3,2,4,1@8",  "i1:1,3,2,4,1@0", "i0:1,3,2,4,1@0;i0:1,3,2,4,1@32",
                             "i0:1,3,2,4,1",   "x0:1,3,2,4,1@0", "i0:1,3,2,4,1@0;", "i0:99999999999,1,1,1,1@0",
                             "o0:2,2,1,3,1@16;i0:1,3,2,4,1@0"};
        int refused = 1;
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
            refused &= run_with_spec(&blob, AP_NEUTRON_TRANSPOSE_SPEC, bad[k], args, 3) == AP_ERR_INVALID_PROGRAM;
        }
        CHECK(refused);
        /* An entry for a slot whose format byte is 0. */
        CHECK_STATUS(run_with_spec(&plain, AP_NEUTRON_TRANSPOSE_SPEC, "i0:1,3,2,4,1@0", args, 3),
                     AP_ERR_INVALID_PROGRAM);
        /* No descriptor at all for a flagged payload: tables made without the shapes. */
        CHECK_STATUS(run_with_spec(&blob, "unrelated", "", args, 3), AP_ERR_UNSUPPORTED);
        ap_buffer_t wrong[] = {{in, 20}, {out, 12}, {scratch, 64}};
        CHECK_STATUS(run_with_spec(&blob, AP_NEUTRON_TRANSPOSE_SPEC, "i0:1,3,2,4,1@0", wrong, 3),
                     AP_ERR_INVALID_ARGUMENT);
    }
    /* The simulator's check is real: an input described as transposed but not. */
    {
        NeutronModelConfig cfg = {blob.data + 16, blob.data + 16, blob.data + 16, 60};
        NeutronModelHandle model = NULL;
        CHECK(neutronModelPrepare(&cfg, &model) == ENONE);
        const void *inputs[] = {in};
        void *outputs[] = {out, scratch, NULL, NULL};
        size_t in_size = 24, out_size = 12;
        ap_neutron_layout_t layout = {in, 1, 3, 2, 4, 1}, none[1];
        memset(none, 0, sizeof none);
        for (uint32_t b = 0; b < 24; b++) {
            in[b] = (uint8_t)b; /* NCHW and NHWC differ for these bytes */
        }
        ap_neutron_job_t job = {inputs, &in_size, 1, outputs, &out_size, 1, scratch, 64, NULL, 0, NULL, 0, NULL, 0,
                                &layout, none};
        NeutronDataConfig data = {inputs, outputs, scratch, NULL};
        ap_neutron_job_hook(model, &job);
        CHECK(neutronRunBlocking(model, &data) != ENONE);
        CHECK(ap_neutron_sim_last()->status == AP_NEUTRON_SIM_BAD_LAYOUT);
        (void)neutronModelUnprepare(model);
    }
}

/* NXP's NO_HEAP_USAGE: with AP_NEUTRON_CONTEXT_SPEC the model context is the handle's tail,
 * handed to neutronModelPrepare (the simulator fills it); a context smaller than
 * neutronGetModelContextSize() is refused at init, and so is a malformed figure. */
static void neutron_model_context(void) {
    static const uint8_t formats[] = {0, 0}, maps[] = {0, 0};
    blob_t blob = neutron_blob_io(1, 1, 1, formats, maps);
    static _Alignas(16) uint8_t storage[AP_NEUTRON_CONTEXT_OFFSET + AP_NEUTRON_SIM_CONTEXT_BYTES];
    static _Alignas(16) uint8_t in[16], out[16], scratch[64];
    ap_handle_t *h = (ap_handle_t *)(void *)storage;
    char figure[16];
    snprintf(figure, sizeof figure, "%u", (unsigned)AP_NEUTRON_SIM_CONTEXT_BYTES);
    const ap_compile_spec_t spec = {AP_NEUTRON_CONTEXT_SPEC, figure};
    CHECK(ap_backend_handle_bytes_for(&ap_neutron_backend, &spec, 1) == sizeof storage);
    memset(storage, 0, sizeof storage);
    CHECK_STATUS(ap_neutron_backend.init(blob.data, blob.size, &spec, 1, h), AP_OK);
    CHECK(storage[AP_NEUTRON_CONTEXT_OFFSET] == 0x5C && storage[sizeof storage - 1] == 0x5C);
    ap_temp_allocator_t temp;
    ap_temp_init(&temp, temp_pool, sizeof temp_pool);
    ap_context_t ctx = {&temp, 0, 0, NULL, NULL};
    ap_buffer_t args[] = {{in, 16}, {out, 16}, {scratch, 64}};
    CHECK_STATUS(ap_neutron_backend.execute(&ctx, h, args, 3), AP_OK);
    ap_neutron_backend.destroy(h);
    CHECK(ap_neutron_sim_prepared() == 0);
    /* Too small, and figures that are not one. */
    snprintf(figure, sizeof figure, "%u", (unsigned)AP_NEUTRON_SIM_CONTEXT_BYTES - 1u);
    CHECK_STATUS(ap_neutron_backend.init(blob.data, blob.size, &spec, 1, h), AP_ERR_STORAGE);
    const char *bad[] = {"0", "", "12x", "99999999999", "4294967280"};
    int refused = 1;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const ap_compile_spec_t b = {AP_NEUTRON_CONTEXT_SPEC, bad[k]};
        refused &= ap_neutron_backend.init(blob.data, blob.size, &b, 1, h) == AP_ERR_INVALID_PROGRAM;
    }
    CHECK(refused);
    CHECK(ap_neutron_sim_prepared() == 0);
}

/* Dedicated_Sram: the planned fast scratch is base address 2; the driver's fast memory is
 * refused next to it; without either, a stream that uses region 2 fails. */
static void ethos_u_fast_scratch(void) {
    blob_t blob = vela_blob_io(16, 1, 8, 64, USES_SCRATCH | USES_FAST);
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    static const uint32_t in[] = {0}, out[] = {1};
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 32, 8, NULL}, {1, 256, 64, NULL}, {1, 512, 96, NULL},
                                        {0, 0, 0, NULL}};
    const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    ap_method_t m;
    static const uint32_t args[] = {0, 1, 2, 3}, u55_args[] = {0, 1, 2}, no_main[] = {0, 1, 4, 3};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 4, 1, 1}};
    const ap_program_t p = {tensors, 5, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    const ap_ethosu_sim_record_t *r = ap_ethosu_sim_last();
    CHECK(r->status == AP_ETHOSU_SIM_OK && r->num_regions == 3);
    CHECK(r->user_arg_set == 0); /* user_arg NULL, as ExecuTorch passes it */
    CHECK(r->base[1] == (uint64_t)(uintptr_t)(arena + 256) && r->size[1] == 64);
    CHECK(r->base[2] == (uint64_t)(uintptr_t)(arena + 512) && r->size[2] == 96); /* BASEP2 = planned */
    CHECK((r->regions_used & 7u) == 7u);
    CHECK(arena[512] == 0xDB && arena[512 + 95] == 0xDB);
    /* Cache maintenance: init cleaned the blob; clean both buffers before, invalidate after. */
    const ap_dcache_record_t *ops = ap_dcache_records();
    CHECK(ap_dcache_count() == 5 && ap_dcache_misaligned() == 0);
    CHECK(ops[0].op == AP_DCACHE_CLEAN && ops[0].addr <= (uint64_t)(uintptr_t)blob.data);
    CHECK(ops[1].op == AP_DCACHE_CLEAN && ops[1].addr == (uint64_t)(uintptr_t)(arena + 256) && ops[1].size == 64);
    CHECK(ops[2].op == AP_DCACHE_CLEAN && ops[2].addr == (uint64_t)(uintptr_t)(arena + 512) && ops[2].size == 96);
    CHECK(ops[3].op == AP_DCACHE_INVALIDATE && ops[3].addr == (uint64_t)(uintptr_t)(arena + 256));
    CHECK(ops[4].op == AP_DCACHE_INVALIDATE && ops[4].addr == (uint64_t)(uintptr_t)(arena + 512) && ops[4].size == 96);
    ap_method_destroy(&m);
    /* A driver given fast memory would replace the planned fast scratch: refused. */
    static _Alignas(32) uint8_t driver_fast[128], fallback_fast[96];
    CHECK_STATUS(ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, driver_fast, sizeof driver_fast), AP_OK);
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_DRIVER_SETUP);
    ap_method_destroy(&m);
    /* ... while a plan without fast scratch runs on the driver's, as Arm's driver arranges it
     * (even with a firmware-wide fallback defined), and its cache is left to the driver. */
    const ap_instruction_t u55_ins[] = {{AP_INSTR_DELEGATE, 0, u55_args, 3, 1, 1}};
    const ap_program_t q = {tensors, 5, u55_ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    ap_ethosu_fast_scratch = fallback_fast;
    ap_ethosu_fast_scratch_size = sizeof fallback_fast;
    CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(ap_ethosu_sim_last()->base[2] == (uint64_t)(uintptr_t)driver_fast);
    CHECK(ap_ethosu_sim_last()->size[2] == sizeof driver_fast);
    CHECK(ap_dcache_count() == 3); /* the blob, then the scratch twice */
    ap_method_destroy(&m);
    /* A driver without fast memory: the firmware-wide fallback, or nothing for region 2. */
    CHECK_STATUS(ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0), AP_OK);
    CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(ap_ethosu_sim_last()->base[2] == (uint64_t)(uintptr_t)fallback_fast);
    ap_ethosu_fast_scratch_size = 40; /* not whole lines: its maintenance would reach past it */
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_MISALIGNED);
    ap_ethosu_fast_scratch = NULL;
    ap_ethosu_fast_scratch_size = 0;
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_DRIVER); /* the stream uses region 2: BASEP2 missing */
    CHECK(ap_ethosu_sim_last()->status == AP_ETHOSU_SIM_BAD_REGION);
    ap_method_destroy(&m);
    /* No Vela scratch at all, fast scratch planned: [empty, fast], region 1 left empty. */
    {
        blob_t fast_only = vela_blob_io(0, 1, 0, 0, USES_FAST);
        const ap_tensor_desc_t t0[] = {{1, 0, 0, NULL}, {1, 32, 0, NULL}, {0, 0, 0, NULL}, {1, 512, 96, NULL}};
        static const uint32_t fa[] = {0, 1, 2, 3};
        const ap_instruction_t fi[] = {{AP_INSTR_DELEGATE, 0, fa, 4, 1, 1}};
        const ap_delegate_desc_t fd[] = {{"EthosUBackend", fast_only.data, (uint32_t)fast_only.size, NULL, 0}};
        const ap_program_t f = {t0, 4, fi, 1, fd, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &f, backends, 1, NULL, 0), AP_OK);
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        CHECK(ap_ethosu_sim_last()->base[1] == 0 && ap_ethosu_sim_last()->base[2] == (uint64_t)(uintptr_t)(arena + 512));
        ap_method_destroy(&m);
    }
    /* Main scratch empty, fast scratch planned: slot 0 empty, slot 1 the fast scratch. */
    blob_t no_scratch = vela_blob_io(16, 1, 8, 64, USES_SCRATCH | USES_FAST);
    const ap_delegate_desc_t d2[] = {{"EthosUBackend", no_scratch.data, (uint32_t)no_scratch.size, NULL, 0}};
    const ap_instruction_t nm_ins[] = {{AP_INSTR_DELEGATE, 0, no_main, 4, 1, 1}};
    const ap_program_t nm = {tensors, 5, nm_ins, 1, d2, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &nm, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_TOO_SMALL); /* the blob needs 64 in slot 0 */
    ap_method_destroy(&m);
}

/* What the NPU cannot take: a misaligned blob, external weights, an output needing 4-bit
 * expansion; and an output with padded rows copied row by row. */
static void ethos_u_blob_contract(void) {
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    static const uint32_t in[] = {0}, out[] = {1}, args[] = {0, 1, 2};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
    ap_method_t m;
    blob_t blob = vela_blob(16, 8, 64);
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 32, 8, NULL}, {1, 256, 64, NULL}};
    blob_t moved = blob;
    memmove(moved.data + 4, moved.data, moved.size);
    const ap_delegate_desc_t mv[] = {{"EthosUBackend", moved.data + 4, (uint32_t)moved.size, NULL, 0}};
    const ap_program_t p = {tensors, 3, ins, 1, mv, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_BLOB_MISALIGNED);
    blob_t external = blob;
    external.data[32 + 20] = 1; /* cmd_data flagged external */
    const ap_delegate_desc_t ex[] = {{"EthosUBackend", external.data, (uint32_t)external.size, NULL, 0}};
    const ap_program_t q = {tensors, 3, ins, 1, ex, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_ERR_UNSUPPORTED);
    /* Two rows of 8 bytes from Vela, a tensor of two rows of 6. */
    blob_t rows = vela_blob_io(16, 2, 8, 64, USES_SCRATCH);
    const ap_delegate_desc_t rd[] = {{"EthosUBackend", rows.data, (uint32_t)rows.size, NULL, 0}};
    const ap_tensor_desc_t padded[] = {{1, 0, 16, NULL}, {1, 32, 12, NULL}, {1, 256, 64, NULL}};
    const ap_program_t r = {padded, 3, ins, 1, rd, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &r, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    uint32_t sum = ap_ethosu_sim_last()->input_sum;
    CHECK(arena[32 + 5] == expected_output(sum, 5) && arena[32 + 6] == expected_output(sum, 8));
    ap_method_destroy(&m);
    const ap_tensor_desc_t wide[] = {{1, 0, 16, NULL}, {1, 32, 32, NULL}, {1, 256, 64, NULL}};
    const ap_program_t w = {wide, 3, ins, 1, rd, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &w, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_UNSUPPORTED);
    ap_method_destroy(&m);
    /* An input whose size is not the compiled one. */
    const ap_tensor_desc_t short_in[] = {{1, 0, 12, NULL}, {1, 32, 8, NULL}, {1, 256, 64, NULL}};
    const ap_delegate_desc_t ok[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_program_t s2 = {short_in, 3, ins, 1, ok, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &s2, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_BAD_ARGUMENTS);
    ap_method_destroy(&m);
    /* Scratch on a 16-byte but not a 32-byte boundary: it would share a cache line. */
    const ap_tensor_desc_t half_line[] = {{1, 0, 16, NULL}, {1, 32, 8, NULL}, {1, 272, 64, NULL}};
    const ap_program_t h = {half_line, 3, ins, 1, ok, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &h, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_MISALIGNED);
    ap_method_destroy(&m);
    /* A 40-byte scratch with a tensor right after it: maintaining its two lines would reach
     * into the tensor, so a scratch that does not own whole lines is refused. */
    blob_t forty = vela_blob(16, 8, 40);
    const ap_delegate_desc_t fd[] = {{"EthosUBackend", forty.data, (uint32_t)forty.size, NULL, 0}};
    const ap_tensor_desc_t tight[] = {{1, 0, 16, NULL}, {1, 296, 8, NULL}, {1, 256, 40, NULL}};
    const ap_program_t t = {tight, 3, ins, 1, fd, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &t, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_MISALIGNED);
    ap_method_destroy(&m);
    /* The recorder: invalidating a range that does not own its lines loses the neighbours. */
    memset(arena, 0x55, 64);
    ap_dcache_invalidate(arena + 8, 16);
    CHECK(ap_dcache_misaligned() == 1 && arena[0] == 0xCA && arena[31] == 0xCA && arena[32] == 0x55);
}

/* ---- Untrusted tables: entry points after a failed init, overlapping arguments ------------------ */

/* A backend that counts what the runtime does with it; init fails for a blob of one byte. */
static int counted_inits, counted_executes, counted_destroys;
static ap_status_t counting_init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                                 ap_handle_t *h) {
    (void)blob;
    (void)specs;
    (void)nspecs;
    (void)h;
    counted_inits++;
    return blob_size == 1 ? AP_ERR_BAD_BLOB : AP_OK;
}
static ap_status_t counting_execute(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t nargs) {
    (void)ctx;
    (void)h;
    (void)args;
    (void)nargs;
    counted_executes++;
    return AP_OK;
}
static void counting_destroy(ap_handle_t *h) {
    (void)h;
    counted_destroys++;
}
static const ap_backend_t counting = {"Counting", counting_init, counting_execute, counting_destroy, 0, NULL, 0};
/* The same, saying it keeps 8 bytes of handle. */
static const ap_backend_t counting_small = {"Counting", counting_init, counting_execute, counting_destroy, 8, NULL, 0};

static void reset_counts(void) { counted_inits = counted_executes = counted_destroys = 0; }

/* Every entry point taking a method refuses one that is not initialized, touches neither `out`
 * nor any backend, and keeps refusing after a destroy (which does nothing). */
static int refuses_every_entry_point(ap_method_t *m) {
    int executes = counted_executes, destroys = counted_destroys;
    ap_buffer_t b = {NULL, 7};
    int ok = ap_method_input(m, 0, &b) == AP_ERR_NOT_INITIALIZED;
    ok &= ap_method_output(m, 0, &b) == AP_ERR_NOT_INITIALIZED;
    ok &= ap_method_execute(m) == AP_ERR_NOT_INITIALIZED;
    ok &= b.data == NULL && b.size == 7;
    ap_method_destroy(m);
    ap_method_destroy(m);
    ok &= ap_method_execute(m) == AP_ERR_NOT_INITIALIZED;
    ok &= ap_method_input(m, 0, &b) == AP_ERR_NOT_INITIALIZED;
    ok &= counted_executes == executes && counted_destroys == destroys;
    return ok;
}

static void entry_points_after_failed_init(void) {
    static const uint8_t one_byte[1] = {0};
    static const uint32_t in[] = {0}, out[] = {1}, args[] = {0, 1, 2}, nine[] = {0, 1, 2, 2, 2, 2, 2, 2, 2};
    static const char *const names[] = {"no_such_kernel"};
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 16, NULL}, {1, 32, 0, NULL}};
    const ap_tensor_desc_t outside[] = {{1, 0, 16, NULL}, {1, 4090, 16, NULL}, {1, 32, 0, NULL}};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}, {AP_INSTR_DELEGATE, 1, args, 3, 1, 1}};
    const ap_instruction_t long_ins[] = {{AP_INSTR_DELEGATE, 0, nine, 9, 1, 1}};
    const ap_instruction_t kernel_ins[] = {{AP_INSTR_KERNEL, 0, args, 3, 1, 1}};
    const ap_delegate_desc_t two[] = {{"Counting", NULL, 0, NULL, 0}, {"Counting", NULL, 0, NULL, 0}};
    const ap_delegate_desc_t then_missing[] = {{"Counting", NULL, 0, NULL, 0}, {"NoSuchBackend", NULL, 0, NULL, 0}};
    const ap_delegate_desc_t then_failing[] = {{"Counting", NULL, 0, NULL, 0}, {"Counting", one_byte, 1, NULL, 0}};
    const ap_backend_t *backends[] = {&counting};
    ap_method_t m;
    /* The program runs when nothing is wrong: the failures below are each one defect. */
    const ap_program_t good = {tensors, 3, ins, 2, two, 2, NULL, 0, in, 1, out, 1, NULL};
    reset_counts();
    CHECK_STATUS(setup(&m, &good, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(counted_inits == 2 && counted_executes == 2);
    ap_method_destroy(&m);
    CHECK(counted_destroys == 2);
    /* ... and a destroyed method is not initialized: a second destroy destroys nothing. */
    CHECK(refuses_every_entry_point(&m));
    CHECK(counted_destroys == 2);
    /* A bad program: a value outside its pool; an argument past the values (instruction 1). */
    const ap_program_t bad_value = {outside, 3, ins, 2, two, 2, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &bad_value, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
    CHECK(refuses_every_entry_point(&m));
    static const uint32_t past[] = {0, 1, 9};
    const ap_instruction_t past_ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}, {AP_INSTR_DELEGATE, 1, past, 3, 1, 1}};
    const ap_program_t bad_arg = {tensors, 3, past_ins, 2, two, 2, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &bad_arg, backends, 1, NULL, 0), AP_ERR_INVALID_PROGRAM);
    CHECK(m.failed_instruction == 1);
    CHECK(refuses_every_entry_point(&m));
    /* Storage too small: an argument list longer than the 8 the method was given, too few
     * values. */
    const ap_program_t too_long = {tensors, 3, long_ins, 1, two, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &too_long, backends, 1, NULL, 0), AP_ERR_STORAGE);
    CHECK(refuses_every_entry_point(&m));
    {
        ap_pool_t pool = {1, arena, sizeof arena};
        ap_method_memory_t few = {values, 2, handles, delegate_backends, 4, kernel_fns, 4, argbuf, 8, NULL, 0};
        CHECK_STATUS(ap_method_init(&m, &good, &pool, 1, backends, 1, NULL, 0, &few), AP_ERR_STORAGE);
        CHECK(refuses_every_entry_point(&m));
    }
    /* A missing kernel. */
    const ap_program_t no_kernel = {tensors, 3, kernel_ins, 1, NULL, 0, names, 1, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &no_kernel, backends, 1, NULL, 0), AP_ERR_KERNEL_NOT_FOUND);
    CHECK(refuses_every_entry_point(&m));
    /* A missing backend for the second delegate: every backend is resolved before any delegate
     * initializes, so nothing was initialized and nothing is destroyed. */
    reset_counts();
    const ap_program_t missing = {tensors, 3, ins, 2, then_missing, 2, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &missing, backends, 1, NULL, 0), AP_ERR_BACKEND_NOT_FOUND);
    CHECK(counted_inits == 0 && counted_destroys == 0);
    CHECK(refuses_every_entry_point(&m));
    CHECK(counted_destroys == 0);
    /* A backend's init failing after an initialized delegate: the first destroyed, not the
     * second (it did not initialize). */
    reset_counts();
    const ap_program_t failing = {tensors, 3, ins, 2, then_failing, 2, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &failing, backends, 1, NULL, 0), AP_ERR_BAD_BLOB);
    CHECK(counted_inits == 2 && counted_destroys == 1);
    CHECK(refuses_every_entry_point(&m));
    CHECK(counted_destroys == 1);
    /* The same with a real backend: the Neutron model prepared first is unprepared. */
    {
        blob_t blob = neutron_blob(128, 0);
        const ap_tensor_desc_t nt[] = {{1, 0, 8, NULL}, {1, 16, 8, NULL}, {1, 64, 128, NULL}};
        const ap_delegate_desc_t nd[] = {{"NeutronBackend", blob.data, (uint32_t)blob.size, NULL, 0},
                                         {"NeutronBackend", blob.data, 3, NULL, 0}};
        const ap_program_t np = {nt, 3, ins, 2, nd, 2, NULL, 0, in, 1, out, 1, NULL};
        const ap_backend_t *nb[] = {&ap_neutron_backend};
        CHECK_STATUS(setup(&m, &np, nb, 1, NULL, 0), AP_ERR_BAD_BLOB);
        CHECK(ap_neutron_sim_prepared() == 0);
        CHECK(refuses_every_entry_point(&m));
        CHECK(ap_neutron_sim_calls() == 0);
    }
    /* Init given a NULL program or storage: an initialized method is left not initialized
     * (its delegates are the integrator's to destroy first). */
    reset_counts();
    CHECK_STATUS(setup(&m, &good, backends, 1, NULL, 0), AP_OK);
    ap_method_destroy(&m);
    CHECK_STATUS(setup(&m, &good, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_init(&m, NULL, NULL, 0, NULL, 0, NULL, 0, NULL), AP_ERR_INVALID_ARGUMENT);
    CHECK(refuses_every_entry_point(&m));
    /* A zeroed method, and one never initialized (its memory a pattern). */
    memset(&m, 0, sizeof m);
    CHECK(refuses_every_entry_point(&m));
    memset(&m, 0xA5, sizeof m);
    CHECK(refuses_every_entry_point(&m));
    /* No method at all. */
    ap_buffer_t b;
    CHECK_STATUS(ap_method_input(NULL, 0, &b), AP_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ap_method_output(NULL, 0, &b), AP_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ap_method_execute(NULL), AP_ERR_INVALID_ARGUMENT);
    ap_method_destroy(NULL);
    /* An initialized method still checks its own arguments. */
    CHECK_STATUS(setup(&m, &good, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_input(&m, 1, &b), AP_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ap_method_output(&m, 0, NULL), AP_ERR_INVALID_ARGUMENT);
    ap_method_destroy(&m);
    CHECK(strcmp(ap_status_name(AP_ERR_NOT_INITIALIZED), "AP_ERR_NOT_INITIALIZED") == 0);
}

static ap_status_t add(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)ctx;
    (void)user;
    if (nargs != 3 || args[2].size > args[0].size || args[2].size > args[1].size) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t i = 0; i < args[2].size; i++) {
        args[2].data[i] = (uint8_t)(args[0].data[i] + args[1].data[i]);
    }
    return AP_OK;
}

/* An instruction whose output or scratch shares memory with another of its arguments is refused
 * at init; inputs may repeat; empty, zero-size and constant arguments overlap nothing. */
/* Pools an integrator placed over each other: an output in one and an input in the other at
 * the same bytes are refused, whatever their mem_ids say. */
static void overlapping_pools(void) {
    const ap_tensor_desc_t tensors[] = {{1, 0, 64, NULL}, {2, 32, 64, NULL}, {1, 256, 64, NULL}};
    static const uint32_t args[] = {0, 1, 2}, in[] = {0}, out[] = {1};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
    const ap_delegate_desc_t del[] = {{"Recording", NULL, 0, NULL, 0}};
    const ap_program_t p = {tensors, 3, ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
    const ap_backend_t *backends[] = {&recording};
    ap_pool_t pools[] = {{1, arena, sizeof arena}, {2, arena, sizeof arena}}; /* the same memory */
    ap_method_memory_t mem = {values, MAXV, handles, delegate_backends, 4, kernel_fns, 4, argbuf, 8, NULL, 0};
    ap_method_t m;
    CHECK_STATUS(ap_method_init(&m, &p, pools, 2, backends, 1, NULL, 0, &mem), AP_ERR_INVALID_PROGRAM);
    pools[1].base = arena2;
    CHECK_STATUS(ap_method_init(&m, &p, pools, 2, backends, 1, NULL, 0, &mem), AP_OK);
    ap_method_destroy(&m);
}

static void overlapping_arguments(void) {
    static const uint8_t weights[16] = {1};
    /* Values: 0 in [0, 64), 1 out [64, 96), 2 scratch [96, 224), 3 inside the scratch [128, 144),
     * 4 across the input's end [32, 96), 5 absent, 6 zero-size inside the scratch, 7 a constant
     * whose offset field says 96, 8 in pool 2 at 0. */
    const ap_tensor_desc_t tensors[] = {{1, 0, 64, NULL},  {1, 64, 32, NULL}, {1, 96, 128, NULL},
                                        {1, 128, 16, NULL}, {1, 32, 64, NULL}, {0, 0, 0, NULL},
                                        {1, 100, 0, NULL},  {0, 96, 16, weights}, {2, 0, 64, NULL}};
    static const uint32_t in[] = {0}, out[] = {1};
    static const uint32_t disjoint[] = {0, 1, 2}, out_in_scratch[] = {0, 3, 2}, scratch_over_input[] = {0, 1, 4};
    static const uint32_t out_over_input[] = {0, 4}, in_place[] = {0, 0}, scratch_twice[] = {0, 1, 2, 2};
    static const uint32_t repeated_input[] = {0, 0, 1, 2}, empties[] = {0, 1, 5, 5, 6, 2};
    static const uint32_t constant_over_scratch[] = {7, 1, 2}, other_pool[] = {0, 1, 8};
    static const uint32_t constant_written[] = {0, 7, 2};
    const ap_delegate_desc_t del[] = {{"Recording", NULL, 0, NULL, 0}};
    const ap_backend_t *backends[] = {&recording};
    ap_method_t m;
    struct {
        const uint32_t *args;
        uint32_t nargs, ninputs, noutputs;
        ap_status_t expected;
    } cases[] = {
        {disjoint, 3, 1, 1, AP_OK},
        {out_in_scratch, 3, 1, 1, AP_ERR_INVALID_PROGRAM},  /* an output inside its own scratch */
        {scratch_over_input, 3, 1, 1, AP_ERR_INVALID_PROGRAM}, /* scratch over an input */
        {out_over_input, 2, 1, 1, AP_ERR_INVALID_PROGRAM},  /* an output over an input */
        {in_place, 2, 1, 1, AP_ERR_INVALID_PROGRAM},        /* one value as input and output */
        {scratch_twice, 4, 1, 1, AP_ERR_INVALID_PROGRAM},   /* one value in two scratch slots */
        {repeated_input, 4, 2, 1, AP_OK},                   /* x passed twice, only read */
        {empties, 6, 1, 1, AP_OK},                          /* empty slots twice, zero-size in scratch */
        {constant_over_scratch, 3, 1, 1, AP_OK},            /* a constant is not in the arena */
        {other_pool, 3, 1, 1, AP_OK},                       /* same offsets, another pool */
        {constant_written, 3, 1, 1, AP_ERR_INVALID_PROGRAM}, /* an output that is a constant */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        /* The case is the second instruction, after a good one: failed_instruction names it. */
        const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, disjoint, 3, 1, 1},
                                        {AP_INSTR_DELEGATE, 0, cases[c].args, cases[c].nargs, cases[c].ninputs,
                                         cases[c].noutputs}};
        const ap_program_t p = {tensors, 9, ins, 2, del, 1, NULL, 0, in, 1, out, 1, NULL};
        ap_status_t s = setup(&m, &p, backends, 1, NULL, 0);
        if (s != cases[c].expected) {
            printf("overlap case %u: init gave %s\n", (unsigned)c, ap_status_name(s));
        }
        CHECK(s == cases[c].expected);
        if (s == AP_OK) {
            CHECK_STATUS(ap_method_execute(&m), AP_OK);
            CHECK(seen_n == cases[c].nargs);
            ap_method_destroy(&m);
        } else {
            CHECK(m.failed_instruction == 1);
            CHECK_STATUS(ap_method_execute(&m), AP_ERR_NOT_INITIALIZED);
        }
    }
    /* The same rule for kernels: x + x runs, x += y in place does not. */
    static const char *const names[] = {"add"};
    const ap_kernel_t kernels[] = {{"add", add, NULL}};
    static const uint32_t twice[] = {0, 0, 1}, onto_input[] = {0, 1, 0};
    const ap_instruction_t x_plus_x[] = {{AP_INSTR_KERNEL, 0, twice, 3, 2, 1}};
    const ap_program_t k = {tensors, 9, x_plus_x, 1, NULL, 0, names, 1, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &k, NULL, 0, kernels, 1), AP_OK);
    arena[0] = 21;
    arena[31] = 50;
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(arena[64] == 42 && arena[64 + 31] == 100);
    ap_method_destroy(&m);
    const ap_instruction_t in_place_add[] = {{AP_INSTR_KERNEL, 0, onto_input, 3, 2, 1}};
    const ap_program_t q = {tensors, 9, in_place_add, 1, NULL, 0, names, 1, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
    CHECK(m.failed_instruction == 0);
}

/* Kernels for the branch test: each fills its output with its own byte and counts its runs. */
static int filled_a, filled_b;
static ap_status_t fill(ap_buffer_t *args, size_t nargs, size_t at, uint8_t byte) {
    if (nargs <= at) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memset(args[at].data, byte, args[at].size);
    return AP_OK;
}
static ap_status_t fill_a(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    filled_a++;
    return fill(args, nargs, ctx->ninputs, 0xAA);
}
static ap_status_t fill_b(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    filled_b++;
    return fill(args, nargs, ctx->ninputs, 0xBB);
}

/* Branches run one arm: JUMP_FALSE over the true arm, which ends in a JUMP over the false
 * one. The predicate is false when every byte is zero; jumps go forward only. */
static void branches(void) {
    /* 0: predicate (4 bytes), 1: x, 2: y. */
    const ap_tensor_desc_t tensors[] = {{1, 0, 4, NULL}, {1, 16, 16, NULL}, {1, 32, 16, NULL}};
    static const uint32_t pred[] = {0}, call[] = {1, 2}, in[] = {0, 1}, out[] = {2};
    static const char *const names[] = {"fill_a", "fill_b"};
    const ap_kernel_t kernels[] = {{"fill_a", fill_a, NULL}, {"fill_b", fill_b, NULL}};
    const ap_instruction_t ins[] = {{AP_INSTR_JUMP_FALSE, 3, pred, 1, 1, 0},
                                    {AP_INSTR_KERNEL, 0, call, 2, 1, 1},
                                    {AP_INSTR_JUMP, 4, NULL, 0, 0, 0},
                                    {AP_INSTR_KERNEL, 1, call, 2, 1, 1}};
    const ap_program_t p = {tensors, 3, ins, 4, NULL, 0, names, 2, in, 2, out, 1, NULL};
    ap_method_t m;
    const uint32_t predicates[] = {1, 0, 0x100};
    const uint8_t expected[] = {0xAA, 0xBB, 0xAA};
    for (size_t c = 0; c < 3; c++) {
        CHECK_STATUS(setup(&m, &p, NULL, 0, kernels, 2), AP_OK);
        memcpy(arena, &predicates[c], 4);
        filled_a = filled_b = 0;
        CHECK_STATUS(ap_method_execute(&m), AP_OK);
        CHECK(arena[32] == expected[c] && arena[47] == expected[c]);
        CHECK(filled_a + filled_b == 1);
        ap_method_destroy(&m);
    }
    /* Refused: a jump backward or to itself, past the end, a JUMP_FALSE without its predicate
     * or with an absent one, a JUMP with arguments. */
    const ap_tensor_desc_t absent[] = {{0, 0, 0, NULL}, {1, 16, 16, NULL}, {1, 32, 16, NULL}};
    const ap_instruction_t back[] = {{AP_INSTR_KERNEL, 0, call, 2, 1, 1}, {AP_INSTR_JUMP, 1, NULL, 0, 0, 0}};
    const ap_instruction_t past[] = {{AP_INSTR_JUMP_FALSE, 2, pred, 1, 1, 0}};
    const ap_instruction_t bare[] = {{AP_INSTR_JUMP_FALSE, 1, NULL, 0, 0, 0}};
    const ap_instruction_t loaded[] = {{AP_INSTR_JUMP, 1, pred, 1, 1, 0}};
    const ap_program_t bad[] = {{tensors, 3, back, 2, NULL, 0, names, 2, in, 2, out, 1, NULL},
                                {tensors, 3, past, 1, NULL, 0, names, 2, in, 2, out, 1, NULL},
                                {tensors, 3, bare, 1, NULL, 0, names, 2, in, 2, out, 1, NULL},
                                {absent, 3, ins, 4, NULL, 0, names, 2, out, 1, out, 1, NULL},
                                {tensors, 3, loaded, 1, NULL, 0, names, 2, in, 2, out, 1, NULL}};
    const uint32_t at[] = {1, 0, 0, 0, 0};
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; c++) {
        CHECK_STATUS(setup(&m, &bad[c], NULL, 0, kernels, 2), AP_ERR_INVALID_PROGRAM);
        CHECK(m.failed_instruction == at[c]);
    }
}

/* A program the build bound: const values, backends and kernels; only handles and the argument
 * list in RAM. It runs, and init refuses tables that disagree, each defect on its own. */
static void bound_programs(void) {
    static const uint32_t in[] = {0}, out[] = {1}, args[] = {0, 1, 2}, over[] = {0, 0, 2};
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 16, NULL}, {1, 32, 8, NULL}};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}, {AP_INSTR_DELEGATE, 1, args, 3, 1, 1}};
    const ap_instruction_t in_place[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}, {AP_INSTR_DELEGATE, 1, over, 3, 1, 1}};
    const ap_delegate_desc_t two[] = {{"Counting", NULL, 0, NULL, 0}, {"Counting", NULL, 0, NULL, 0}};
    const ap_program_t program = {tensors, 3, ins, 2, two, 2, NULL, 0, in, 1, out, 1, NULL};
    const ap_program_t overlapping = {tensors, 3, in_place, 2, two, 2, NULL, 0, in, 1, out, 1, NULL};
    const ap_buffer_t bound_values[] = {{arena, 16}, {arena + 16, 16}, {arena + 32, 8}};
    const ap_buffer_t short_value[] = {{arena, 16}, {arena + 16, 15}, {arena + 32, 8}};
    const ap_backend_t *const both[] = {&counting, &counting};
    const ap_backend_t *const wrong[] = {&counting, &recording};
    static ap_handle_t storage[2];
    ap_handle_t *const bound_handles[] = {&storage[0], &storage[1]};
    static const uint32_t sizes[] = {AP_HANDLE_BYTES, AP_HANDLE_BYTES};
    static ap_buffer_t bound_args[3];
    ap_method_t m;
    const ap_bound_program_t good = {&program, bound_values, both, NULL, bound_handles, sizes, bound_args, 3};
    reset_counts();
    CHECK_STATUS(ap_method_init_bound(&m, &good), AP_OK);
    ap_buffer_t b;
    CHECK_STATUS(ap_method_input(&m, 0, &b), AP_OK);
    CHECK(b.data == arena && b.size == 16);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(counted_inits == 2 && counted_executes == 2);
    ap_method_destroy(&m);
    CHECK(counted_destroys == 2);
    CHECK(refuses_every_entry_point(&m));
    /* A value whose size is not the program's. */
    const ap_bound_program_t bad_size = {&program, short_value, both, NULL, bound_handles, sizes, bound_args, 3};
    CHECK_STATUS(ap_method_init_bound(&m, &bad_size), AP_ERR_INVALID_PROGRAM);
    CHECK(refuses_every_entry_point(&m));
    /* A backend whose id is not the delegate's: nothing initialized. */
    reset_counts();
    const ap_bound_program_t bad_backend = {&program, bound_values, wrong, NULL, bound_handles, sizes, bound_args, 3};
    CHECK_STATUS(ap_method_init_bound(&m, &bad_backend), AP_ERR_BACKEND_NOT_FOUND);
    CHECK(counted_inits == 0);
    CHECK(refuses_every_entry_point(&m));
    /* No handles, an argument list too short. */
    const ap_bound_program_t no_handles = {&program, bound_values, both, NULL, NULL, sizes, bound_args, 3};
    CHECK_STATUS(ap_method_init_bound(&m, &no_handles), AP_ERR_STORAGE);
    /* Handles sized per backend: 8 bytes each are enough for a backend keeping 8, not for one
     * keeping AP_HANDLE_BYTES (written before handle_size), nor when misaligned. */
    static uint64_t small[2];
    ap_handle_t *const small_handles[] = {(ap_handle_t *)(void *)&small[0], (ap_handle_t *)(void *)&small[1]};
    static const uint32_t small_sizes[] = {8, 8};
    const ap_backend_t *const both_small[] = {&counting_small, &counting_small};
    const ap_bound_program_t sized = {&program, bound_values, both_small, NULL, small_handles, small_sizes, bound_args, 3};
    reset_counts();
    CHECK_STATUS(ap_method_init_bound(&m, &sized), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    CHECK(counted_executes == 2);
    ap_method_destroy(&m);
    CHECK(ap_backend_handle_bytes(&counting) == AP_HANDLE_BYTES && ap_backend_handle_bytes(&counting_small) == 8);
    CHECK(ap_backend_handle_bytes(&recording) == 0);
    const ap_bound_program_t too_small = {&program, bound_values, both, NULL, small_handles, small_sizes, bound_args, 3};
    reset_counts();
    CHECK_STATUS(ap_method_init_bound(&m, &too_small), AP_ERR_STORAGE);
    CHECK(counted_inits == 0);
    static uint8_t unaligned[24] __attribute__((aligned(8)));
    ap_handle_t *const odd[] = {(ap_handle_t *)(void *)(unaligned + 4), (ap_handle_t *)(void *)(unaligned + 12)};
    const ap_bound_program_t misaligned = {&program, bound_values, both_small, NULL, odd, small_sizes, bound_args, 3};
    CHECK_STATUS(ap_method_init_bound(&m, &misaligned), AP_ERR_STORAGE);
    const ap_bound_program_t short_args = {&program, bound_values, both, NULL, bound_handles, sizes, bound_args, 2};
    CHECK_STATUS(ap_method_init_bound(&m, &short_args), AP_ERR_STORAGE);
    /* The same overlap rule: instruction 1 writes value 0 while reading it. */
    const ap_bound_program_t in_place_call = {&overlapping, bound_values, both, NULL, bound_handles, sizes, bound_args, 3};
    CHECK_STATUS(ap_method_init_bound(&m, &in_place_call), AP_ERR_INVALID_PROGRAM);
    CHECK(m.failed_instruction == 1);
    CHECK_STATUS(ap_method_init_bound(&m, NULL), AP_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ap_method_init_bound(NULL, &good), AP_ERR_INVALID_ARGUMENT);
}

int main(void) {
    if (ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0) != AP_OK ||
        ap_neutron_host_setup() != AP_OK) {
        printf("FAILED: the emulated NPUs do not set up\n0 passed, 1 failed\n");
        return 1;
    }
    neutron();
    neutron_slots_by_role();
    neutron_transpositions();
    neutron_model_context();
    branches();
    ethos_u_fast_scratch();
    ethos_u_blob_contract();
    runtime_contract();
    ethos_u_planned_and_legacy_scratch();
    ethos_u_io_in_scratch();
    disjoint_calls_share_scratch();
    a_bad_plan_is_caught_by_poisoning();
    bad_tables_and_blobs();
    kernels_by_name();
    value_meta();
    entry_points_after_failed_init();
    bound_programs();
    overlapping_arguments();
    overlapping_pools();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
