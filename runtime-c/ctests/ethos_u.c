/* Tests of the Ethos-U backend (backends/ethos-u/ethosu_backend.c) on the emulated NPU: planned
 * and legacy scratch, inputs and outputs at their place in the scratch, fast scratch (Dedicated_Sram)
 * and its cache maintenance, what the blob contract refuses, scratch shared by disjoint calls, and
 * a bad plan caught by poisoning. Built twice by tests/c_runtime.rs: over the driver simulator
 * (emulation/ethosu_sim.c) and through Arm's driver (emulation/ethosu_device_host.c). */
#include "arenaplan/dcache.h"
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_sim.h"
#include "blobs.h"
#include "harness.h"

#include <string.h>


/* A legacy backend: reads input 0, writes output 0, ignores anything after. */
static ap_status_t legacy_execute(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t nargs) {
    (void)ctx;
    (void)h;
    if (nargs < 2 || args[1].size < args[0].size) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < args[0].size; i++) {
        args[1].data[i] = (uint8_t)(args[0].data[i] + 1);
    }
    return AP_OK;
}
static const ap_backend_t legacy = {"Legacy", NULL, legacy_execute, NULL, 0, NULL, 0};

/* ---- Tests ------------------------------------------------------------------------------------- */

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
    CHECK(memcmp(arena + 512, arena + 0, 16) == 0); /* the stream's DMA into the fast scratch */
    CHECK(arena[32] == ctest_npu_output(arena, 0) && arena[39] == ctest_npu_output(arena, 7));
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
    CHECK(arena[32 + 5] == ctest_npu_output(arena, 5) && arena[32 + 6] == ctest_npu_output(arena, 0));
    ap_method_destroy(&m);
    const ap_tensor_desc_t wide[] = {{1, 0, 16, NULL}, {1, 32, 32, NULL}, {1, 256, 64, NULL}};
    const ap_program_t w = {wide, 3, ins, 1, rd, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &w, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_UNSUPPORTED);
    ap_method_destroy(&m);
    /* An empty output (a dimension of 0) for a record the NPU writes, whole or in rows: no
     * room, refused before the job (zero rows once meant "copy whole", through NULL). */
    const ap_tensor_desc_t empty_out[] = {{1, 0, 16, NULL}, {1, 32, 0, NULL}, {1, 256, 64, NULL}};
    const ap_program_t e1 = {empty_out, 3, ins, 1, rd, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &e1, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_ARGUMENT_MISMATCH);
    ap_method_destroy(&m);
    const ap_delegate_desc_t whole[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_program_t e2 = {empty_out, 3, ins, 1, whole, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &e2, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_ARGUMENT_MISMATCH);
    ap_method_destroy(&m);
    /* An input whose size is not the compiled one. */
    const ap_tensor_desc_t short_in[] = {{1, 0, 12, NULL}, {1, 32, 8, NULL}, {1, 256, 64, NULL}};
    const ap_delegate_desc_t ok[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_program_t s2 = {short_in, 3, ins, 1, ok, 1, NULL, 0, in, 1, out, 1, NULL};
    CHECK_STATUS(setup(&m, &s2, backends, 1, NULL, 0), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_ERR_ARGUMENT_MISMATCH);
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
        CHECK(output.data[0] == 1 && output.data[7] == 8);
        CHECK(arena[256 + 16] == 1 && arena[256 + 23] == 8); /* the NPU wrote its copy in the scratch */
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
            CHECK_STATUS(ap_method_output(&m, 0, &output), AP_OK);
            CHECK(output.data == arena + 272);
            CHECK(output.data[0] == 1 + run && output.data[7] == 8 + run);
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
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_ARGUMENT_MISMATCH);
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
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_ARGUMENT_MISMATCH);
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
    int ok = 1;
    for (uint32_t j = 0; j < 16; j++) {
        ok &= arena[16 + j] == 2 && arena[32 + j] == 3; /* x + 1, then + 1 again */
    }
    CHECK(ok);
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

/* Blobs and scratch the Ethos-U backend refuses: a blob cut at every length or with its blocks
 * out of order, scratch off a 32-byte line or smaller than the blob needs, a temp pool too small
 * for a plan without scratch arguments. */
static void ethos_u_bad_blobs(void) {
    blob_t blob = vela_blob(16, 8, 64);
    static const uint32_t in[] = {0}, out[] = {1};
    const ap_backend_t *backends[] = {&ap_ethosu_backend};
    ap_method_t m;
    const ap_delegate_desc_t del[] = {{"EthosUBackend", blob.data, (uint32_t)blob.size, NULL, 0}};
    const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 8, NULL}, {1, 264, 64, NULL}, {1, 256, 32, NULL}};
    static const uint32_t args[] = {0, 1, 2}, small[] = {0, 1, 3};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
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
}

static ap_status_t start(void) {
    return ap_ethosu_host_setup(AP_ETHOSU_U55_128_CONFIG, AP_ETHOSU_U55_128_ID, NULL, 0);
}

static void reset(void) {
    ap_ethosu_sim_reset();
    ap_dcache_reset();
}

static const ctest_case_t cases[] = {
    CTEST(ethos_u_fast_scratch),
    CTEST(ethos_u_blob_contract),
    CTEST(ethos_u_planned_and_legacy_scratch),
    CTEST(ethos_u_io_in_scratch),
    CTEST(disjoint_calls_share_scratch),
    CTEST(a_bad_plan_is_caught_by_poisoning),
    CTEST(ethos_u_bad_blobs),
};

int main(void) {
    const ctest_room_t room = {"ethos_u", start, reset, cases, sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}
