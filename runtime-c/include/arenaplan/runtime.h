/* arenaplan runtime: runs a planned program, calling delegate backends with a flat argument
 * list [inputs..., outputs..., scratch...]. C99, no heap, no global mutable state: everything a
 * run needs is passed in by the integrator; program tables are const (flash). Nothing here
 * aborts: every failure is an ap_status_t. */
#ifndef ARENAPLAN_RUNTIME_H
#define ARENAPLAN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_status {
    AP_OK = 0,
    AP_ERR_INVALID_ARGUMENT = 1, /* the caller of an ap_* function passed a NULL pointer or an
                                    index out of range (a mistake in the calling code) */
    AP_ERR_INVALID_PROGRAM = 2,  /* tables disagree: index, count, region outside its pool, or
                                    arguments of one call overlapping (see ap_method_init) */
    AP_ERR_BACKEND_NOT_FOUND = 3,
    AP_ERR_KERNEL_NOT_FOUND = 4,
    AP_ERR_TEMP_EXHAUSTED = 5,   /* the legacy temp pool is too small */
    AP_ERR_BAD_BLOB = 6,         /* a delegate's blob is malformed */
    AP_ERR_ARGUMENT_MISMATCH = 7, /* a call's tensors do not match what its blob or kernel
                                     expects (count, size, alignment, shape or parameters): a
                                     table not made for this blob, checked before any byte moves */
    AP_ERR_SCRATCH_TOO_SMALL = 8,
    AP_ERR_SCRATCH_MISALIGNED = 9,
    AP_ERR_DRIVER = 10,          /* the NPU driver reported a failure */
    AP_ERR_STORAGE = 11,         /* integrator-provided storage is too small */
    AP_ERR_UNSUPPORTED = 12,     /* the blob needs what this runtime does not do: Ethos-U external
                                    weights or 4-bit output expansion, Neutron I/O transposition;
                                    or a kernel library has no implementation for the call's
                                    parameters (CMSIS-NN's ARM_CMSIS_NN_NO_IMPL_ERROR) */
    AP_ERR_BLOB_MISALIGNED = 13, /* a blob not 16-byte aligned (the NPU reads it in place) */
    AP_ERR_DRIVER_SETUP = 14,    /* no NPU driver registered (call ethosu_init / neutronInit, or
                                    ap_ethosu_host_setup on the host, before running), or one set
                                    up to replace planned memory (ethosu_init given fast memory:
                                    see ethosu.h) */
    AP_ERR_NOT_INITIALIZED = 15, /* a method that ap_method_init did not initialize: its init
                                    failed, or it was zeroed, never initialized or destroyed */
    AP_ERR_BACKEND = 16,         /* a backend or kernel written in Rust returned its own error */
    AP_ERR_KERNEL_FAILED = 17,   /* a kernel library refused or failed a call whose arguments
                                    arenaplan had checked (CMSIS-NN's ARM_CMSIS_NN_ARG_ERROR or
                                    ARM_CMSIS_NN_FAILURE): a parameter the library's variant does
                                    not take, not a mismatch of the tables */
    /* Keeps the enum 32 bits wide where the compiler packs enums (arm-none-eabi-gcc does), so
     * the Rust bindings and the C side agree on its size. Never returned. */
    AP_STATUS_FORCE_32_BITS = 0x7FFFFFFF
} ap_status_t;

/* A name for a status, e.g. "AP_ERR_BAD_BLOB"; never NULL. */
const char *ap_status_name(ap_status_t status);

/* One argument: a 1-D byte tensor. */
typedef struct ap_buffer {
    uint8_t *data;
    size_t size;
} ap_buffer_t;

/* The per-instruction temp allocator (a bump pool reset after every instruction), for
 * backends running under plans made before scratch was planned. */
typedef struct ap_temp_allocator {
    uint8_t *base;
    size_t size;
    size_t used;
} ap_temp_allocator_t;

void ap_temp_init(ap_temp_allocator_t *temp, uint8_t *base, size_t size);
/* NULL when it does not fit; align must be a power of two. */
void *ap_temp_alloc(ap_temp_allocator_t *temp, size_t size, size_t align);
void ap_temp_reset(ap_temp_allocator_t *temp);

/* What a backend or kernel gets besides its arguments: the temp allocator, and how the call's
 * flat list splits (inputs, then outputs; the rest is scratch), as the program records it. */
typedef struct ap_context {
    ap_temp_allocator_t *temp;
    uint32_t ninputs;
    uint32_t noutputs;
    /* What each argument is (a tensor's type and shape, or a non-tensor value's kind): argument
     * i is value arg_ids[i], described by meta[arg_ids[i]]. Both NULL for a program that
     * records no meta (see ap_program_t.meta), and for a delegate call. */
    const struct ap_value_meta *meta;
    const uint32_t *arg_ids;
} ap_context_t;

typedef struct ap_compile_spec {
    const char *key;
    const char *value;
} ap_compile_spec_t;

/* Storage a backend keeps per delegate (what init parsed from the blob): at most
 * AP_HANDLE_BYTES, and only as much as the backend's handle_size says where a bound program
 * sizes each delegate's handle. */
#define AP_HANDLE_BYTES 128
typedef struct ap_handle {
    union {
        uint8_t bytes[AP_HANDLE_BYTES];
        uint64_t align_u64;
        void *align_ptr;
    } u;
} ap_handle_t;

typedef struct ap_backend {
    const char *id;
    ap_status_t (*init)(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs,
                        size_t nspecs, ap_handle_t *handle);
    ap_status_t (*execute)(ap_context_t *ctx, ap_handle_t *handle, ap_buffer_t *args, size_t nargs);
    void (*destroy)(ap_handle_t *handle);
    /* Bytes of its handle that init, execute and destroy use, at most AP_HANDLE_BYTES. 0: all
     * AP_HANDLE_BYTES for a backend with init or destroy (one written before this field), none
     * for a backend without (execute then gets a NULL handle from a bound program). */
    size_t handle_size;
    /* Bytes of its handle for a delegate with these compile specs, where they vary (Neutron's
     * model context, sized by a compile spec the build adds); NULL: handle_size. Appended:
     * backends written before it leave it NULL. A bound program's handle may be larger than
     * AP_HANDLE_BYTES (the build sizes each); an integrator's are AP_HANDLE_BYTES. */
    size_t (*handle_bytes_for)(const ap_compile_spec_t *specs, size_t nspecs);
    /* Nonzero: its NPU reads and writes a call's inputs and outputs inside the call's scratch,
     * where its blob places them, and execute refuses one that overlaps the scratch anywhere
     * else (Ethos-U). Init then accepts an input or output lying wholly inside a scratch
     * argument of the call; for any other backend that is a damaged table. Appended: backends
     * written before it leave it 0. */
    int io_in_scratch;
} ap_backend_t;

/* The handle bytes backend b needs (see handle_size), for a delegate without compile specs. */
size_t ap_backend_handle_bytes(const ap_backend_t *b);
/* The handle bytes backend b needs for a delegate with `specs` (see handle_bytes_for). */
size_t ap_backend_handle_bytes_for(const ap_backend_t *b, const ap_compile_spec_t *specs, size_t nspecs);

/* The adoption pattern, once for every backend: split a flat list by the counts a backend read
 * from its blob. nscratch == 0 means a plan made before scratch was planned (use the temp
 * allocator); AP_ERR_ARGUMENT_MISMATCH when the list is shorter than inputs + outputs. */
typedef struct ap_args {
    ap_buffer_t *inputs;
    ap_buffer_t *outputs;
    ap_buffer_t *scratch;
    size_t ninputs;
    size_t noutputs;
    size_t nscratch;
} ap_args_t;
ap_status_t ap_split_args(ap_buffer_t *args, size_t nargs, size_t ninputs, size_t noutputs,
                          ap_args_t *out);

/* ---- Program tables ---------------------------------------------------------------------- */

/* A value: planned (mem_id >= 1: offset and size in that pool's arena), constant (mem_id 0,
 * data in flash) or absent (mem_id 0, data NULL: never an argument). */
typedef struct ap_tensor_desc {
    uint32_t mem_id;
    uint32_t offset;
    uint32_t size;
    const uint8_t *constant;
} ap_tensor_desc_t;

/* What a value is, for kernels that need more than its bytes. Kinds are ExecuTorch's EValue
 * kinds that a program hands a kernel: a tensor (dtype: ExecuTorch's ScalarType code; dims:
 * rank sizes), or a constant of another kind, whose bytes are its value: an int or a double as
 * 8 little-endian bytes, a bool as one byte, a string's UTF-8 bytes, a list as its elements
 * (int64, double, one byte per bool), None as no bytes; a tensor list as below. */
enum {
    AP_VALUE_TENSOR = 0,
    AP_VALUE_NONE = 1,
    AP_VALUE_INT = 2,
    AP_VALUE_DOUBLE = 3,
    AP_VALUE_BOOL = 4,
    AP_VALUE_STRING = 5,
    AP_VALUE_INT_LIST = 6,
    AP_VALUE_DOUBLE_LIST = 7,
    AP_VALUE_BOOL_LIST = 8,
    /* A list of tensors: the value holds the count (8 little-endian bytes), and the call's next
     * `count` arguments are the elements (an optional tensor left out: a None value). */
    AP_VALUE_TENSOR_LIST = 9
};

typedef struct ap_value_meta {
    uint8_t kind;  /* AP_VALUE_* */
    uint8_t dtype; /* a tensor's ScalarType code (0 for other kinds) */
    uint16_t rank; /* a tensor's number of dimensions (0 for other kinds) */
    const uint32_t *dims;
    /* A tensor's dim order (ExecuTorch's): its rank dimensions from the outermost in memory to
     * the innermost, a permutation of 0..rank-1 ({0, 2, 3, 1}: channels-last). NULL: contiguous,
     * the dimensions in order. Kernels that assume contiguous memory refuse a tensor with one. */
    const uint8_t *dim_order;
} ap_value_meta_t;

/* What an instruction does. A call (kernel, delegate) runs `index` of the program's kernels or
 * delegates on its argument list. A jump continues at instruction `index`, which lies after it
 * (forward only: no loops; `ninstructions` is the end): AP_INSTR_JUMP always, and
 * AP_INSTR_JUMP_FALSE when its one argument, the predicate (nargs 1, ninputs 1, a value of at
 * least one byte), is false: every byte zero. A branch runs as JUMP_FALSE over the arm taken
 * when true, that arm ending in a JUMP over the other. */
enum { AP_INSTR_KERNEL = 0, AP_INSTR_DELEGATE = 1, AP_INSTR_JUMP_FALSE = 2, AP_INSTR_JUMP = 3 };

typedef struct ap_instruction {
    uint32_t kind;  /* AP_INSTR_KERNEL or AP_INSTR_DELEGATE */
    uint32_t index; /* into the program's kernels or delegates */
    const uint32_t *args;
    uint32_t nargs; /* inputs, outputs, then scratch */
    uint32_t ninputs;
    uint32_t noutputs;
} ap_instruction_t;

typedef struct ap_delegate_desc {
    const char *backend;
    const uint8_t *blob;
    uint32_t blob_size;
    const ap_compile_spec_t *specs;
    uint32_t nspecs;
} ap_delegate_desc_t;

typedef struct ap_program {
    const ap_tensor_desc_t *tensors;
    uint32_t ntensors;
    const ap_instruction_t *instructions;
    uint32_t ninstructions;
    const ap_delegate_desc_t *delegates;
    uint32_t ndelegates;
    const char *const *kernels; /* kernel names, resolved against registered kernels */
    uint32_t nkernels;
    const uint32_t *inputs;
    uint32_t ninputs;
    const uint32_t *outputs;
    uint32_t noutputs;
    /* Per value, what it is (ntensors entries), or NULL: kernels then get no ap_context_t.meta.
     * Init checks every entry: a known kind; dims present for its rank; a tensor's elements
     * within its memory and its dimensions other than 0 multiplying to 32 bits at most; an
     * int, double or bool in at least its fixed size; None with no bytes; and each tensor list
     * a kernel takes, a constant count of at most the inputs after it. A value that is never
     * an argument (absent) is described as None. */
    const ap_value_meta_t *meta;
} ap_program_t;

/* ---- Running ----------------------------------------------------------------------------- */

typedef ap_status_t (*ap_kernel_fn)(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user);

typedef struct ap_kernel {
    const char *name;
    ap_kernel_fn fn;
    void *user;
} ap_kernel_t;

/* ExecuTorch's MoveCall as a kernel, "et:move": copies its one input into its one output (the
 * same size), as a move of a tensor between values is a copy between planned buffers. The
 * generated tables name it when a program moves a value (the outputs of a `cond`). Its name
 * is `ap_kernel_` and the op `et:move` by the symbol rule every kernel follows (`:` is `_3a`). */
extern const ap_kernel_t ap_kernel_et_3amove;

/* An arena: where pool mem_id lives. */
typedef struct ap_pool {
    uint32_t mem_id;
    uint8_t *base;
    size_t size;
} ap_pool_t;

/* Storage for one method, from the integrator (statics, usually). */
typedef struct ap_method_memory {
    ap_buffer_t *values; /* >= program->ntensors */
    size_t nvalues;
    ap_handle_t *handles;                   /* nhandles >= program->ndelegates */
    const ap_backend_t **delegate_backends; /* nhandles entries too */
    size_t nhandles;
    const ap_kernel_t **kernel_fns; /* nkernel_fns >= program->nkernels */
    size_t nkernel_fns;
    ap_buffer_t *args; /* >= the longest argument list */
    size_t nargs;
    uint8_t *temp; /* the legacy temp pool (may be NULL with temp_size 0) */
    size_t temp_size;
} ap_method_memory_t;

/* A method's state, owned by the runtime; only failed_instruction is for the integrator. All
 * zeros is "not initialized". Init points it at the tables a run reads: the values' memory,
 * each delegate's backend and each kernel (the integrator's storage after ap_method_init, the
 * build's const tables after ap_method_init_bound). */
typedef struct ap_method {
    const ap_program_t *program;
    const ap_buffer_t *values;           /* program->ntensors */
    const ap_backend_t *const *backends; /* program->ndelegates */
    const ap_kernel_t *const *kernels;   /* program->nkernels */
    ap_handle_t *handles;                /* program->ndelegates handles (ap_method_init), or */
    ap_handle_t *const *handle_ptrs;     /* one pointer per delegate (ap_method_init_bound) */
    ap_buffer_t *args;                   /* the longest argument list */
    size_t nargs;
    ap_temp_allocator_t temp;
    uint32_t failed_instruction; /* the instruction execute failed at, or init refused */
    uint32_t initialized_delegates;
    uint32_t ready; /* a marker set by a successful init only, cleared by destroy */
} ap_method_t;

/* A program bound at build time: every table a run reads that the build can know is const
 * (flash) — each value's memory as a link-time constant (an arena symbol plus an offset, or a
 * constant's data), each delegate's backend and each kernel as a symbol — and RAM is only the
 * delegates' handles and one argument list. arenaplan's build generates one per model
 * (NAME_program.c) behind NAME_init/NAME_run. */
typedef struct ap_bound_program {
    const ap_program_t *program;
    const ap_buffer_t *values;           /* program->ntensors entries */
    const ap_backend_t *const *backends; /* program->ndelegates entries */
    const ap_kernel_t *const *kernels;   /* program->nkernels entries */
    /* Each delegate's handle (RAM, 8-byte aligned) sized to what its backend keeps: a pointer
     * per delegate (NULL for none) and its bytes; init refuses a backend needing more. */
    ap_handle_t *const *handles;  /* program->ndelegates entries */
    const uint32_t *handle_sizes; /* program->ndelegates entries */
    ap_buffer_t *args;            /* nargs entries (RAM) */
    uint32_t nargs;
} ap_bound_program_t;

/* Checks the tables against the pools, resolves backends (by id) and kernels (by name), and
 * initializes every delegate from its blob. Tables are untrusted input: every index, count and
 * region is checked before anything follows it.
 *
 * Arguments of one call must not overlap (AP_ERR_INVALID_PROGRAM otherwise, failed_instruction
 * naming the call): no output or scratch argument may share a byte with any other argument of
 * the same call, including an output inside the call's own scratch and the same value passed
 * twice where one of the two is an output or scratch (in place: a backend may write before it
 * has read everything). Inputs may overlap each other, e.g. a kernel adding x to itself: both
 * are only read. Two arguments overlap when the memory init resolved for them (pool base +
 * offset, or a constant's data) intersects, whatever their mem_ids; a zero-size or absent value
 * overlaps nothing. An output or scratch argument may not be a constant.
 * Every pair of a call's arguments is compared: O(nargs^2) per instruction.
 *
 * On any failure the delegates it initialized are destroyed and the method is left not
 * initialized (zeroed but for failed_instruction): ap_method_input, ap_method_output and
 * ap_method_execute then return AP_ERR_NOT_INITIALIZED and ap_method_destroy does nothing.
 * The same holds for a zeroed method (static storage) and after ap_method_destroy. A method
 * that was never given to init holds whatever its memory held: the marker makes mistaking it
 * for an initialized one unlikely, not impossible, so zero it. Init forgets an initialized
 * method without destroying its delegates: destroy it before initializing it again. */
ap_status_t ap_method_init(ap_method_t *method, const ap_program_t *program, const ap_pool_t *pools,
                           size_t npools, const ap_backend_t *const *backends, size_t nbackends,
                           const ap_kernel_t *kernels, size_t nkernels, const ap_method_memory_t *memory);
/* ap_method_init for a program bound at build time: the same checks (every index, count and
 * table; the values' sizes against the program, each planned value's memory present; the
 * backends' ids against the delegates' — AP_ERR_BACKEND_NOT_FOUND on a mismatch; each
 * delegate's handle at least as large as its backend's ap_backend_handle_bytes — AP_ERR_STORAGE
 * otherwise; the same overlap rule for each call's arguments), then every delegate initialized
 * from its blob. Nothing
 * is resolved at run time and nothing of the bound program is written but the handles and the
 * argument list. Failures leave the method not initialized, as for ap_method_init. */
ap_status_t ap_method_init_bound(ap_method_t *method, const ap_bound_program_t *bound);
/* Where input i / output i lives (in its arena). AP_ERR_INVALID_ARGUMENT for a NULL method or
 * out, or i out of range; AP_ERR_NOT_INITIALIZED for a method not initialized. */
ap_status_t ap_method_input(ap_method_t *method, size_t i, ap_buffer_t *out);
ap_status_t ap_method_output(ap_method_t *method, size_t i, ap_buffer_t *out);
/* Runs every instruction in order; the temp pool is reset after each. AP_ERR_NOT_INITIALIZED
 * for a method not initialized; a failure of a call is returned with failed_instruction set. */
ap_status_t ap_method_execute(ap_method_t *method);
/* Destroys every delegate and leaves the method not initialized; nothing for a NULL method or
 * one not initialized (so a second destroy is harmless). */
void ap_method_destroy(ap_method_t *method);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_RUNTIME_H */
