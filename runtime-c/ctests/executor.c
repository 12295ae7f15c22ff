/* Tests of the executor (core/runtime.c) on its own: the runtime contract a backend sees, kernels
 * by name, branches, the value table, bound programs, and tables as untrusted input (bad tables,
 * entry points after a failed init, overlapping arguments and pools). Its backends are test
 * doubles, the recording one here and the counting one in the harness: no NPU backend, driver or
 * emulation is linked, so a failure here is the executor's. */
#include "harness.h"

/* ---- A backend that records what it gets ------------------------------------------------------- */

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

/* ---- Kernels ------------------------------------------------------------------------------------ */

static ap_status_t add_one(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)ctx;
    (void)user;
    if (nargs != 2) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < args[0].size && i < args[1].size; i++) {
        args[1].data[i] = (uint8_t)(args[0].data[i] + 1);
    }
    return AP_OK;
}

/* The kernel of `value_meta`: checks what its context says of its arguments. */
static ap_status_t sees_meta(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)args;
    (void)user;
    if (ctx->meta == NULL || ctx->arg_ids == NULL || nargs != 4) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_value_meta_t *x = &ctx->meta[ctx->arg_ids[0]];
    const ap_value_meta_t *list = &ctx->meta[ctx->arg_ids[1]];
    int ok = x->kind == AP_VALUE_TENSOR && x->dtype == 6 && x->rank == 2 && x->dims[0] == 1 && x->dims[1] == 1 &&
             list->kind == AP_VALUE_TENSOR_LIST;
    return ok ? AP_OK : AP_ERR_ARGUMENT_MISMATCH;
}

static ap_status_t add(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)ctx;
    (void)user;
    if (nargs != 3 || args[2].size > args[0].size || args[2].size > args[1].size) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < args[2].size; i++) {
        args[2].data[i] = (uint8_t)(args[0].data[i] + args[1].data[i]);
    }
    return AP_OK;
}

/* Kernels for the branch test: each fills its output with its own byte and counts its runs. */
static int filled_a, filled_b;
static ap_status_t fill(ap_buffer_t *args, size_t nargs, size_t at, uint8_t byte) {
    if (nargs <= at) {
        return AP_ERR_ARGUMENT_MISMATCH;
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

/* ---- Tests ------------------------------------------------------------------------------------- */

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

/* Tables the executor refuses before any backend sees them: counts the arguments cannot hold, an
 * argument past the values, a value outside its pool, a backend nobody registered; the adoption
 * pattern's split; status names; init given nothing. */
static void bad_tables(void) {
    static const uint32_t in[] = {0}, out[] = {1};
    const ap_backend_t *backends[] = {&recording};
    ap_method_t m;
    const ap_delegate_desc_t del[] = {{"Recording", NULL, 0, NULL, 0}};
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
    static const uint32_t args[] = {0, 1, 2};
    const ap_instruction_t ins[] = {{AP_INSTR_DELEGATE, 0, args, 3, 1, 1}};
    /* Missing backend. */
    {
        const ap_delegate_desc_t none[] = {{"NoSuchBackend", NULL, 0, NULL, 0}};
        const ap_program_t p = {tensors, 3, ins, 1, none, 1, NULL, 0, in, 1, out, 1, NULL};
        CHECK_STATUS(setup(&m, &p, backends, 1, NULL, 0), AP_ERR_BACKEND_NOT_FOUND);
    }
    /* Arguments the blob does not fit: fewer than inputs + outputs. */
    {
        ap_args_t a;
        ap_buffer_t one[1];
        CHECK_STATUS(ap_split_args(one, 1, 1, 1, &a), AP_ERR_ARGUMENT_MISMATCH);
        CHECK_STATUS(ap_split_args(NULL, 0, 0, 0, &a), AP_OK);
        CHECK(a.nscratch == 0);
    }
    CHECK(strcmp(ap_status_name(AP_ERR_BAD_BLOB), "AP_ERR_BAD_BLOB") == 0);
    CHECK(strcmp(ap_status_name((ap_status_t)99), "AP_ERR_UNKNOWN") == 0);
    CHECK_STATUS(ap_method_init(NULL, NULL, NULL, 0, NULL, 0, NULL, 0, NULL), AP_ERR_INVALID_ARGUMENT);
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
    const ap_value_meta_t good[] = {{AP_VALUE_TENSOR, 6, 2, dims, NULL}, {AP_VALUE_TENSOR_LIST, 0, 0, NULL, NULL},
                                    {AP_VALUE_TENSOR, 6, 2, dims, NULL}, {AP_VALUE_TENSOR, 6, 2, dims, NULL}};
    ap_method_t m;
    const ap_program_t p = {tensors, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, good};
    CHECK_STATUS(setup(&m, &p, NULL, 0, kernels, 1), AP_OK);
    CHECK_STATUS(ap_method_execute(&m), AP_OK);
    ap_method_destroy(&m);
    /* Two elements promised, one input after the list. */
    const ap_program_t too_many = {listed_two, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, good};
    CHECK_STATUS(setup(&m, &too_many, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
    /* A shape larger than the value's memory, strides past 32 bits, and an int of 4 bytes. */
    const ap_value_meta_t bad_shape[] = {{AP_VALUE_TENSOR, 6, 2, big, NULL}, good[1], good[2], good[3]};
    const ap_value_meta_t bad_strides[] = {{AP_VALUE_TENSOR, 6, 3, empty, NULL}, good[1], good[2], good[3]};
    const ap_value_meta_t bad_int[] = {{AP_VALUE_INT, 0, 0, NULL, NULL}, good[1], good[2], good[3]};
    const ap_value_meta_t *const bad[] = {bad_shape, bad_strides, bad_int};
    for (int i = 0; i < 3; i++) {
        const ap_program_t q = {tensors, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, bad[i]};
        CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
    }
    /* A dim order: a permutation of a tensor's dimensions is taken (channels-last, the identity);
     * one that repeats or leaves out a dimension, names one past the rank, or belongs to a
     * value that is not a tensor is refused. */
    static const uint8_t swapped[2] = {1, 0}, identity[2] = {0, 1}, repeated[2] = {0, 0}, past[2] = {0, 2};
    const uint8_t *const orders_ok[] = {swapped, identity};
    for (int i = 0; i < 2; i++) {
        const ap_value_meta_t ordered[] = {{AP_VALUE_TENSOR, 6, 2, dims, orders_ok[i]}, good[1], good[2], good[3]};
        const ap_program_t q = {tensors, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, ordered};
        CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_OK);
        ap_method_destroy(&m);
    }
    const ap_value_meta_t bad_repeated[] = {{AP_VALUE_TENSOR, 6, 2, dims, repeated}, good[1], good[2], good[3]};
    const ap_value_meta_t bad_past[] = {{AP_VALUE_TENSOR, 6, 2, dims, past}, good[1], good[2], good[3]};
    const ap_value_meta_t bad_kind[] = {good[0], {AP_VALUE_TENSOR_LIST, 0, 0, NULL, identity}, good[2], good[3]};
    const ap_value_meta_t *const bad_orders[] = {bad_repeated, bad_past, bad_kind};
    for (int i = 0; i < 3; i++) {
        const ap_program_t q = {tensors, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, bad_orders[i]};
        CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
    }
    /* An absent value (no arena, no data) described as a tensor with elements. */
    const ap_tensor_desc_t absent[] = {{0, 0, 4, NULL}, {0, 0, 8, one}, {1, 16, 4, NULL}, {1, 32, 4, NULL}};
    const ap_program_t q = {absent, 4, ins, 1, NULL, 0, names, 1, in, 1, out, 1, good};
    CHECK_STATUS(setup(&m, &q, NULL, 0, kernels, 1), AP_ERR_INVALID_PROGRAM);
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

/* An instruction whose output or scratch shares memory with another of its arguments is refused
 * at init; inputs may repeat; empty, zero-size and constant arguments overlap nothing. */
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

static const ctest_case_t cases[] = {
    CTEST(branches),
    CTEST(runtime_contract),
    CTEST(bad_tables),
    CTEST(kernels_by_name),
    CTEST(value_meta),
    CTEST(entry_points_after_failed_init),
    CTEST(bound_programs),
    CTEST(overlapping_arguments),
    CTEST(overlapping_pools),
};

int main(void) {
    const ctest_room_t room = {"executor", NULL, NULL, cases, sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}
