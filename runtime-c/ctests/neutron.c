/* Tests of the Neutron backend (backends/neutron/neutron_backend.c) on the Neutron simulator:
 * planned and legacy scratch, each scratch role in its slot, payloads refused, NXP's
 * transpositions, the model context in the handle (NO_HEAP_USAGE), and a failed init that
 * unprepares. Built twice by tests/c_runtime.rs: with the simulator's declarations of NXP's API
 * and against NXP's NeutronDriver.h. */
#include "arenaplan/neutron.h"
#include "arenaplan/neutron_sim.h"
#include "blobs.h"
#include "harness.h"


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

/* ---- Tests ------------------------------------------------------------------------------------- */

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
    /* An empty input or output: the NPU would be handed NULL. Refused before the job. */
    uint32_t before = ap_neutron_sim_calls();
    ap_buffer_t empty_out[] = {{arena, 8}, {NULL, 0}, {arena + 64, 128}, {arena + 192, 64}};
    CHECK_STATUS(run_backend(&ap_neutron_backend, &blob, empty_out, 4), AP_ERR_ARGUMENT_MISMATCH);
    ap_buffer_t empty_in[] = {{NULL, 0}, {arena + 16, 8}, {arena + 64, 128}, {arena + 192, 64}};
    CHECK_STATUS(run_backend(&ap_neutron_backend, &blob, empty_in, 4), AP_ERR_ARGUMENT_MISMATCH);
    CHECK(ap_neutron_sim_calls() == before);
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
        /* A planned scratch smaller than the blob's 128 bytes: refused before the job. */
        static const uint32_t short_args[] = {0, 1, 4};
        const ap_instruction_t short_ins[] = {{AP_INSTR_DELEGATE, 0, short_args, 3, 1, 1}};
        const ap_program_t q = {tensors, 7, short_ins, 1, del, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &q, backends, 1, NULL, 0), AP_OK);
        uint32_t before = ap_neutron_sim_calls();
        CHECK_STATUS(ap_method_execute(&m), AP_ERR_SCRATCH_TOO_SMALL);
        CHECK(ap_neutron_sim_calls() == before);
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

/* A delegate whose init fails after a Neutron model was prepared for the one before it: the
 * model is unprepared, and the method refuses every entry point (the executor's side of this
 * is entry_points_after_failed_init in executor.c). */
static void neutron_failed_init_unprepares(void) {
    static const uint32_t in[] = {0}, out[] = {1}, args[] = {0, 1, 2};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}, {AP_INSTR_DELEGATE, 1, args, 3, 1, 1}};
    ap_method_t m;
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
}

static void reset(void) { ap_neutron_sim_reset(); }

static const ctest_case_t cases[] = {
    CTEST(neutron),
    CTEST(neutron_slots_by_role),
    CTEST(neutron_transpositions),
    CTEST(neutron_model_context),
    CTEST(neutron_failed_init_unprepares),
};

int main(void) {
    const ctest_room_t room = {"neutron", ap_neutron_host_setup, reset, cases, sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}
