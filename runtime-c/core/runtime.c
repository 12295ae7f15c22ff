/* The executor: table checks, backend and kernel resolution, the per-call flat argument list,
 * and the per-instruction temp allocator. */
#include "arenaplan/runtime.h"

#include "bytes.h"

#include <string.h>

const char *ap_status_name(ap_status_t status) {
    switch (status) {
    case AP_OK: return "AP_OK";
    case AP_ERR_INVALID_ARGUMENT: return "AP_ERR_INVALID_ARGUMENT";
    case AP_ERR_INVALID_PROGRAM: return "AP_ERR_INVALID_PROGRAM";
    case AP_ERR_BACKEND_NOT_FOUND: return "AP_ERR_BACKEND_NOT_FOUND";
    case AP_ERR_KERNEL_NOT_FOUND: return "AP_ERR_KERNEL_NOT_FOUND";
    case AP_ERR_TEMP_EXHAUSTED: return "AP_ERR_TEMP_EXHAUSTED";
    case AP_ERR_BAD_BLOB: return "AP_ERR_BAD_BLOB";
    case AP_ERR_ARGUMENT_MISMATCH: return "AP_ERR_ARGUMENT_MISMATCH";
    case AP_ERR_SCRATCH_TOO_SMALL: return "AP_ERR_SCRATCH_TOO_SMALL";
    case AP_ERR_SCRATCH_MISALIGNED: return "AP_ERR_SCRATCH_MISALIGNED";
    case AP_ERR_DRIVER: return "AP_ERR_DRIVER";
    case AP_ERR_STORAGE: return "AP_ERR_STORAGE";
    case AP_ERR_UNSUPPORTED: return "AP_ERR_UNSUPPORTED";
    case AP_ERR_BLOB_MISALIGNED: return "AP_ERR_BLOB_MISALIGNED";
    case AP_ERR_DRIVER_SETUP: return "AP_ERR_DRIVER_SETUP";
    case AP_ERR_NOT_INITIALIZED: return "AP_ERR_NOT_INITIALIZED";
    case AP_ERR_BACKEND: return "AP_ERR_BACKEND";
    case AP_ERR_KERNEL_FAILED: return "AP_ERR_KERNEL_FAILED";
    case AP_STATUS_FORCE_32_BITS: break;
    }
    return "AP_ERR_UNKNOWN";
}

void ap_temp_init(ap_temp_allocator_t *temp, uint8_t *base, size_t size) {
    if (temp == NULL) {
        return;
    }
    temp->base = base;
    temp->size = base == NULL ? 0 : size;
    temp->used = 0;
}

void *ap_temp_alloc(ap_temp_allocator_t *temp, size_t size, size_t align) {
    if (temp == NULL || temp->base == NULL || align == 0 || (align & (align - 1)) != 0) {
        return NULL;
    }
    uintptr_t at = (uintptr_t)temp->base + temp->used;
    uintptr_t aligned = (at + (align - 1)) & ~(uintptr_t)(align - 1);
    size_t pad = (size_t)(aligned - at);
    if (pad > temp->size - temp->used || size > temp->size - temp->used - pad) {
        return NULL;
    }
    temp->used += pad + size;
    return (void *)aligned;
}

void ap_temp_reset(ap_temp_allocator_t *temp) {
    if (temp != NULL) {
        temp->used = 0;
    }
}

ap_status_t ap_split_args(ap_buffer_t *args, size_t nargs, size_t ninputs, size_t noutputs,
                          ap_args_t *out) {
    if (out == NULL || (args == NULL && nargs > 0)) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    if (ninputs > nargs || noutputs > nargs - ninputs) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    out->inputs = args;
    out->ninputs = ninputs;
    out->outputs = args + ninputs;
    out->noutputs = noutputs;
    out->scratch = args + ninputs + noutputs;
    out->nscratch = nargs - ninputs - noutputs;
    return AP_OK;
}


static const ap_pool_t *find_pool(const ap_pool_t *pools, size_t npools, uint32_t mem_id) {
    for (size_t i = 0; i < npools; i++) {
        if (pools[i].mem_id == mem_id) {
            return &pools[i];
        }
    }
    return NULL;
}

/* Whether two arguments of one call may not share memory: at least one is written (an output
 * or scratch; two inputs may overlap, x + x is fine), both hold bytes, and their memory, as
 * init resolved it, intersects. Resolved addresses, not (mem_id, offset): pools an integrator
 * placed over each other, or a constant pointing into an arena, are caught too. The same value
 * twice, not both inputs, intersects itself. */
static int args_overlap(const ap_buffer_t *x, int x_written, const ap_buffer_t *y, int y_written) {
    if ((!x_written && !y_written) || x->data == NULL || y->data == NULL || x->size == 0 || y->size == 0) {
        return 0;
    }
    uintptr_t a = (uintptr_t)x->data, b = (uintptr_t)y->data;
    return a < b + y->size && b < a + x->size;
}

/* For an input or output `a` of a call of a backend with io_in_scratch: the scratch argument
 * that holds all of its bytes, or nargs. Such a backend's NPU reads and writes a network's
 * inputs and outputs inside its scratch, where its command stream addresses them (Ethos-U:
 * region 1, at the places its blob records), and it refuses one that is not at its place. */
static uint32_t holding_scratch(const ap_buffer_t *values, const ap_instruction_t *ins, uint32_t a,
                                const ap_backend_t *const *backends) {
    uint32_t nio = ins->ninputs + ins->noutputs;
    const ap_buffer_t *x = &values[ins->args[a]];
    const ap_backend_t *b = ins->kind == AP_INSTR_DELEGATE && backends != NULL ? backends[ins->index] : NULL;
    if (b == NULL || !b->io_in_scratch || a >= nio || x->data == NULL || x->size == 0) {
        return ins->nargs;
    }
    for (uint32_t k = nio; k < ins->nargs; k++) {
        const ap_buffer_t *s = &values[ins->args[k]];
        uintptr_t p = (uintptr_t)x->data, q = (uintptr_t)s->data;
        if (s->data != NULL && p >= q && x->size <= s->size && p - q <= s->size - x->size) {
            return k;
        }
    }
    return ins->nargs;
}

/* Whether arguments a and b of a call may share bytes: an input or output inside the call's
 * scratch with that scratch, or two of them inside the same scratch (see holding_scratch). */
static int shares_scratch(const ap_buffer_t *values, const ap_instruction_t *ins, uint32_t a, uint32_t b,
                          const ap_backend_t *const *backends) {
    uint32_t ha = holding_scratch(values, ins, a, backends), hb = holding_scratch(values, ins, b, backends);
    return ha == b || hb == a || (ha == hb && ha < ins->nargs);
}

/* A jump at position n: forward, within the program, with its predicate (JUMP_FALSE) a value
 * of at least one byte that exists. */
static ap_status_t check_jump(const ap_program_t *p, const ap_buffer_t *values, const ap_instruction_t *ins,
                              uint32_t n) {
    if (ins->index <= n || ins->index > p->ninstructions) {
        return AP_ERR_INVALID_PROGRAM;
    }
    if (ins->kind == AP_INSTR_JUMP) {
        return ins->nargs == 0 && ins->ninputs == 0 && ins->noutputs == 0 ? AP_OK : AP_ERR_INVALID_PROGRAM;
    }
    if (ins->nargs != 1 || ins->ninputs != 1 || ins->noutputs != 0 || ins->args == NULL ||
        ins->args[0] >= p->ntensors) {
        return AP_ERR_INVALID_PROGRAM;
    }
    const ap_buffer_t *predicate = &values[ins->args[0]];
    return predicate->data != NULL && predicate->size > 0 ? AP_OK : AP_ERR_INVALID_PROGRAM;
}

static ap_status_t check_instruction(const ap_program_t *p, const ap_buffer_t *values, const ap_instruction_t *ins,
                                     size_t max_args, const ap_backend_t *const *backends) {
    if (ins->nargs > 0 && ins->args == NULL) {
        return AP_ERR_INVALID_PROGRAM;
    }
    if (ins->nargs > max_args) {
        return AP_ERR_STORAGE;
    }
    if (ins->ninputs > ins->nargs || ins->noutputs > ins->nargs - ins->ninputs) {
        return AP_ERR_INVALID_PROGRAM;
    }
    if (ins->kind == AP_INSTR_DELEGATE ? ins->index >= p->ndelegates
                                       : (ins->kind != AP_INSTR_KERNEL || ins->index >= p->nkernels)) {
        return AP_ERR_INVALID_PROGRAM;
    }
    for (uint32_t a = 0; a < ins->nargs; a++) {
        if (ins->args[a] >= p->ntensors) {
            return AP_ERR_INVALID_PROGRAM;
        }
    }
    /* A tensor list among a kernel's inputs is followed by its elements: its count (a constant
     * of 8 little-endian bytes) fits in the inputs after it. */
    if (p->meta != NULL && ins->kind == AP_INSTR_KERNEL) {
        for (uint32_t a = 0; a < ins->ninputs; a++) {
            const ap_tensor_desc_t *t = &p->tensors[ins->args[a]];
            if (p->meta[ins->args[a]].kind != AP_VALUE_TENSOR_LIST) {
                continue;
            }
            if (t->mem_id != 0 || t->constant == NULL || t->size != 8) {
                return AP_ERR_INVALID_PROGRAM;
            }
            uint64_t count = 0;
            for (int b = 7; b >= 0; b--) {
                count = (count << 8) | t->constant[b];
            }
            if (count > ins->ninputs - a - 1u) {
                return AP_ERR_INVALID_PROGRAM;
            }
        }
    }
    /* No argument written by the call may share a byte with another of its arguments: a backend
     * that writes an output or scratch over an input it has not finished reading (an NPU streams
     * tiles) corrupts it silently. The planner never does this (every argument of a call is alive
     * at it), so such a table is damaged or forged. The one exception is a delegate's input or
     * output inside its scratch, where its NPU reads or writes it (shares_scratch). Argument
     * lists are short: all pairs. */
    for (uint32_t a = 0; a < ins->nargs; a++) {
        /* A written argument is planned memory or empty: never a constant (flash, or data the
         * program shares). */
        const ap_tensor_desc_t *t = &p->tensors[ins->args[a]];
        if (a >= ins->ninputs && t->mem_id == 0 && t->constant != NULL && t->size > 0) {
            return AP_ERR_INVALID_PROGRAM;
        }
        for (uint32_t b = 0; b < a; b++) {
            if (args_overlap(&values[ins->args[a]], a >= ins->ninputs, &values[ins->args[b]], b >= ins->ninputs) &&
                !shares_scratch(values, ins, a, b, backends)) {
                return AP_ERR_INVALID_PROGRAM;
            }
        }
    }
    return AP_OK;
}

/* Marks a method initialized (ap_method_t.ready). Not 0 (a zeroed method) and not one byte
 * repeated (memory filled with a pattern), so a method never given to init is unlikely to pass
 * for an initialized one. */
#define METHOD_READY 0x61704D31u

/* Destroys delegates [0, n): on an init that fails part way, and by ap_method_destroy. */
size_t ap_backend_handle_bytes(const ap_backend_t *b) { return ap_backend_handle_bytes_for(b, NULL, 0); }

size_t ap_backend_handle_bytes_for(const ap_backend_t *b, const ap_compile_spec_t *specs, size_t nspecs) {
    if (b == NULL) {
        return 0;
    }
    if (b->handle_bytes_for != NULL) {
        return b->handle_bytes_for(specs, nspecs);
    }
    if (b->handle_size != 0) {
        return b->handle_size;
    }
    return (b->init != NULL || b->destroy != NULL) ? AP_HANDLE_BYTES : 0;
}

/* Delegate d's handle: in the integrator's array, or where the bound program put it. */
static ap_handle_t *handle_of(const ap_method_t *m, uint32_t d) {
    return m->handle_ptrs != NULL ? m->handle_ptrs[d] : &m->handles[d];
}

static void destroy_delegates(const ap_method_t *m, uint32_t n) {
    for (uint32_t d = 0; d < n; d++) {
        const ap_backend_t *b = m->backends[d];
        if (b != NULL && b->destroy != NULL) {
            b->destroy(handle_of(m, d));
        }
    }
}

/* Every failed init ends here: what it initialized is destroyed and the method is left zeroed
 * (not initialized), so no entry point follows a pointer init set before it failed.
 * failed_instruction names the instruction refused, when one was. */
static ap_status_t init_failed(ap_method_t *m, uint32_t ndelegates, uint32_t failed_instruction, ap_status_t s) {
    if (ndelegates > 0) {
        destroy_delegates(m, ndelegates);
    }
    memset(m, 0, sizeof *m);
    m->failed_instruction = failed_instruction;
    return s;
}

/* Bytes per element of ExecuTorch ScalarType `dtype`, 0 for a type without a fixed size here
 * (the sizes arenaplan's importers know: Byte, Char, Short, Int, Long, Half, Float, Double,
 * Bool, BFloat16, and the quantized 8- and 32-bit types). */
static size_t dtype_bytes(uint8_t dtype) {
    switch (dtype) {
    case 0: case 1: case 11: case 12: case 13: return 1; /* uint8, int8, bool, qint8, quint8 */
    case 2: case 5: case 15: return 2;                   /* int16, half, bfloat16 */
    case 3: case 6: case 14: return 4;                   /* int32, float, qint32 */
    case 4: case 7: return 8;                            /* int64, double */
    default: return 0;
    }
}

/* A dim order is a tensor's, and a permutation of its dimensions: a kernel that walks memory by
 * it indexes every dimension once. */
static int dim_order_ok(const ap_value_meta_t *m) {
    if (m->kind != AP_VALUE_TENSOR || m->rank == 0 || m->rank > 64) {
        return 0;
    }
    uint64_t seen = 0;
    for (uint16_t d = 0; d < m->rank; d++) {
        uint8_t k = m->dim_order[d];
        if (k >= m->rank || (seen >> k & 1u)) {
            return 0;
        }
        seen |= (uint64_t)1 << k;
    }
    return 1;
}

/* Value v's meta agrees with its memory: a known kind; a dim order only a tensor's, a
 * permutation; dims present for its rank; a tensor of a
 * known type no more bytes than its memory (a plan may pad an NPU's buffer to whole cache
 * lines), the product of its dimensions other than 0 within 32 bits; an int, double or bool
 * in at least its fixed size; None no bytes; a list whole elements. Kernels read shapes from
 * meta, so a forged shape would make them index past the buffer. */
static ap_status_t check_meta(const ap_value_meta_t *m, const ap_tensor_desc_t *t) {
    if (m->rank > 0 && m->dims == NULL) {
        return AP_ERR_INVALID_PROGRAM;
    }
    if (m->dim_order != NULL && !dim_order_ok(m)) {
        return AP_ERR_INVALID_PROGRAM;
    }
    /* An absent value (no arena, no data) has no bytes, whatever its size field says. */
    uint64_t size = t->mem_id == 0 && t->constant == NULL ? 0 : t->size;
    switch (m->kind) {
    case AP_VALUE_TENSOR: {
        /* The product of the dimensions other than 0 stays within 32 bits, so a kernel's
         * strides do not overflow even for an empty tensor. */
        uint64_t extent = 1;
        int empty = 0;
        for (uint16_t d = 0; d < m->rank; d++) {
            if (m->dims[d] == 0) {
                empty = 1;
            } else if (extent > UINT32_MAX / m->dims[d]) {
                return AP_ERR_INVALID_PROGRAM;
            } else {
                extent *= m->dims[d];
            }
        }
        size_t each = dtype_bytes(m->dtype);
        if (each == 0) {
            return AP_OK; /* a type the runtime does not size: kernels refuse it themselves */
        }
        uint64_t bytes = empty ? 0 : extent * each;
        return bytes <= size ? AP_OK : AP_ERR_INVALID_PROGRAM;
    }
    case AP_VALUE_NONE: return m->rank == 0 && size == 0 ? AP_OK : AP_ERR_INVALID_PROGRAM;
    /* A scalar's memory holds at least the scalar (a planned one may be padded). */
    case AP_VALUE_INT: case AP_VALUE_DOUBLE: case AP_VALUE_TENSOR_LIST: return m->rank == 0 && size >= 8 ? AP_OK : AP_ERR_INVALID_PROGRAM;
    case AP_VALUE_BOOL: return m->rank == 0 && size >= 1 ? AP_OK : AP_ERR_INVALID_PROGRAM;
    case AP_VALUE_STRING: case AP_VALUE_BOOL_LIST: return m->rank == 0 ? AP_OK : AP_ERR_INVALID_PROGRAM;
    case AP_VALUE_INT_LIST: case AP_VALUE_DOUBLE_LIST:
        return m->rank == 0 && size % 8 == 0 ? AP_OK : AP_ERR_INVALID_PROGRAM;
    default: return AP_ERR_INVALID_PROGRAM;
    }
}

/* Init's first step: every table the program points to is there for its count, and the values'
 * meta, where the program records it, agrees with their memory. */
static ap_status_t check_program(const ap_program_t *p) {
    if ((p->ntensors > 0 && p->tensors == NULL) || (p->ninstructions > 0 && p->instructions == NULL) ||
        (p->ndelegates > 0 && p->delegates == NULL) || (p->nkernels > 0 && p->kernels == NULL) ||
        (p->ninputs > 0 && p->inputs == NULL) || (p->noutputs > 0 && p->outputs == NULL)) {
        return AP_ERR_INVALID_PROGRAM;
    }
    if (p->meta != NULL) {
        for (uint32_t v = 0; v < p->ntensors; v++) {
            ap_status_t s = check_meta(&p->meta[v], &p->tensors[v]);
            if (s != AP_OK) {
                return s;
            }
        }
    }
    return AP_OK;
}

/* The integrator's storage is large enough for the program. */
static ap_status_t check_storage(const ap_program_t *p, const ap_method_memory_t *mem) {
    if (mem->nvalues < p->ntensors || mem->nhandles < p->ndelegates || mem->nkernel_fns < p->nkernels ||
        (p->ntensors > 0 && mem->values == NULL) ||
        (p->ndelegates > 0 && (mem->handles == NULL || mem->delegate_backends == NULL)) ||
        (p->nkernels > 0 && mem->kernel_fns == NULL) || (mem->nargs > 0 && mem->args == NULL)) {
        return AP_ERR_STORAGE;
    }
    return AP_OK;
}

/* The program's inputs and outputs name values. */
static ap_status_t check_io(const ap_program_t *p) {
    for (uint32_t i = 0; i < p->ninputs; i++) {
        if (p->inputs[i] >= p->ntensors) {
            return AP_ERR_INVALID_PROGRAM;
        }
    }
    for (uint32_t i = 0; i < p->noutputs; i++) {
        if (p->outputs[i] >= p->ntensors) {
            return AP_ERR_INVALID_PROGRAM;
        }
    }
    return AP_OK;
}

/* Resolves every value into the integrator's storage: a planned tensor to its place inside its
 * pool's arena, a constant to its data. */
static ap_status_t bind_values(const ap_program_t *p, const ap_pool_t *pools, size_t npools, ap_buffer_t *values) {
    for (uint32_t v = 0; v < p->ntensors; v++) {
        const ap_tensor_desc_t *t = &p->tensors[v];
        ap_buffer_t *b = &values[v];
        if (t->mem_id == 0) {
            b->data = (uint8_t *)(uintptr_t)t->constant;
            b->size = t->constant == NULL ? 0 : t->size;
            continue;
        }
        const ap_pool_t *pool = find_pool(pools, npools, t->mem_id);
        if (pool == NULL || pool->base == NULL || t->offset > pool->size || t->size > pool->size - t->offset) {
            return AP_ERR_INVALID_PROGRAM;
        }
        b->data = pool->base + t->offset;
        b->size = t->size;
    }
    return AP_OK;
}

/* Checks values the build resolved against the program: a planned tensor has memory of its
 * size, a constant is the program's data, an absent value is empty. */
static ap_status_t check_bound_values(const ap_program_t *p, const ap_buffer_t *values) {
    for (uint32_t v = 0; v < p->ntensors; v++) {
        const ap_tensor_desc_t *t = &p->tensors[v];
        const ap_buffer_t *b = &values[v];
        int ok = t->mem_id != 0 ? (b->data != NULL && b->size == t->size)
                                : (b->data == (const uint8_t *)t->constant &&
                                   b->size == (t->constant == NULL ? 0 : t->size));
        if (!ok) {
            return AP_ERR_INVALID_PROGRAM;
        }
    }
    return AP_OK;
}

/* Every instruction against the values (see check_instruction); *failed names the one refused.
 * `backends`: each delegate's backend, resolved. */
static ap_status_t check_instructions(const ap_program_t *p, const ap_buffer_t *values, size_t nargs,
                                      const ap_backend_t *const *backends, uint32_t *failed) {
    for (uint32_t n = 0; n < p->ninstructions; n++) {
        const ap_instruction_t *ins = &p->instructions[n];
        ap_status_t s = ins->kind == AP_INSTR_JUMP || ins->kind == AP_INSTR_JUMP_FALSE
                            ? check_jump(p, values, ins, n)
                            : check_instruction(p, values, ins, nargs, backends);
        if (s != AP_OK) {
            *failed = n;
            return s;
        }
    }
    return AP_OK;
}

/* Finds every kernel the program names among those the integrator registered. */
static ap_status_t resolve_kernels(const ap_program_t *p, const ap_kernel_t *kernels, size_t nkernels,
                                   const ap_kernel_t **found) {
    for (uint32_t k = 0; k < p->nkernels; k++) {
        found[k] = NULL;
        for (size_t r = 0; r < nkernels; r++) {
            if (p->kernels[k] != NULL && kernels[r].name != NULL && kernels[r].fn != NULL &&
                ap_same_str(p->kernels[k], kernels[r].name)) {
                found[k] = &kernels[r];
                break;
            }
        }
        if (found[k] == NULL) {
            return AP_ERR_KERNEL_NOT_FOUND;
        }
    }
    return AP_OK;
}

/* Finds each delegate's backend by id among those the integrator registered. */
static ap_status_t resolve_backends(const ap_program_t *p, const ap_backend_t *const *backends, size_t nbackends,
                                    const ap_backend_t **found) {
    for (uint32_t d = 0; d < p->ndelegates; d++) {
        const ap_delegate_desc_t *desc = &p->delegates[d];
        found[d] = NULL;
        for (size_t r = 0; r < nbackends && desc->backend != NULL; r++) {
            if (backends[r] != NULL && backends[r]->id != NULL && ap_same_str(backends[r]->id, desc->backend)) {
                found[d] = backends[r];
                break;
            }
        }
        if (found[d] == NULL || found[d]->execute == NULL) {
            return AP_ERR_BACKEND_NOT_FOUND;
        }
        /* The integrator's handles are AP_HANDLE_BYTES each. */
        if (ap_backend_handle_bytes_for(found[d], desc->specs, desc->nspecs) > AP_HANDLE_BYTES) {
            return AP_ERR_STORAGE;
        }
    }
    return AP_OK;
}

/* The build's tables name, for each delegate, the backend of the delegate's id, and for each
 * kernel, one of the kernel's name. */
static ap_status_t check_bound_calls(const ap_program_t *p, const ap_bound_program_t *bound) {
    const ap_backend_t *const *backends = bound->backends;
    const ap_kernel_t *const *kernels = bound->kernels;
    for (uint32_t d = 0; d < p->ndelegates; d++) {
        const ap_backend_t *b = backends[d];
        if (b == NULL || b->id == NULL || b->execute == NULL || p->delegates[d].backend == NULL ||
            !ap_same_str(b->id, p->delegates[d].backend)) {
            return AP_ERR_BACKEND_NOT_FOUND;
        }
        /* The handle the build sized for this backend holds what the linked backend keeps. */
        size_t need = ap_backend_handle_bytes_for(b, p->delegates[d].specs, p->delegates[d].nspecs);
        if (need > bound->handle_sizes[d] ||
            (need > 0 && (bound->handles[d] == NULL || ((uintptr_t)bound->handles[d] & 7u) != 0))) {
            return AP_ERR_STORAGE;
        }
    }
    for (uint32_t k = 0; k < p->nkernels; k++) {
        const ap_kernel_t *kernel = kernels[k];
        if (kernel == NULL || kernel->fn == NULL || kernel->name == NULL || p->kernels[k] == NULL ||
            !ap_same_str(kernel->name, p->kernels[k])) {
            return AP_ERR_KERNEL_NOT_FOUND;
        }
    }
    return AP_OK;
}

/* Initializes each delegate from its blob, in order, on the method's backends and handles.
 * m->initialized_delegates counts the delegates to destroy if a later one fails. */
static ap_status_t init_delegates(ap_method_t *m) {
    const ap_program_t *p = m->program;
    for (uint32_t d = 0; d < p->ndelegates; d++) {
        const ap_delegate_desc_t *desc = &p->delegates[d];
        const ap_backend_t *b = m->backends[d];
        ap_handle_t *handle = handle_of(m, d);
        /* Its capacity was checked against this at init: at least this many bytes. */
        size_t bytes = ap_backend_handle_bytes_for(b, desc->specs, desc->nspecs);
        if (handle != NULL && bytes > 0) {
            memset(handle, 0, bytes);
        }
        if (b->init != NULL) {
            ap_status_t s = b->init(desc->blob, desc->blob_size, desc->specs, desc->nspecs, handle);
            if (s != AP_OK) {
                /* Delegate d did not initialize: destroy the ones before it only. */
                return s;
            }
        }
        m->initialized_delegates = d + 1;
    }
    return AP_OK;
}

/* The end of both inits: delegates initialized, or everything undone. */
static ap_status_t finish_init(ap_method_t *m, ap_status_t s, uint32_t failed) {
    if (s == AP_OK) {
        s = init_delegates(m);
    }
    if (s != AP_OK) {
        return init_failed(m, m->initialized_delegates, failed, s);
    }
    m->ready = METHOD_READY;
    return AP_OK;
}

/* Init in named steps: check the program and the storage, bind values to arenas, check every
 * instruction, resolve kernels and backends, initialize delegates. Any failure undoes what came
 * before. */
ap_status_t ap_method_init(ap_method_t *m, const ap_program_t *p, const ap_pool_t *pools, size_t npools,
                           const ap_backend_t *const *backends, size_t nbackends,
                           const ap_kernel_t *kernels, size_t nkernels, const ap_method_memory_t *mem) {
    if (m == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    /* Not initialized from here until the very end: whatever the method held before is gone. */
    memset(m, 0, sizeof *m);
    if (p == NULL || mem == NULL || (pools == NULL && npools > 0) || (backends == NULL && nbackends > 0) ||
        (kernels == NULL && nkernels > 0)) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    ap_status_t s = check_program(p);
    if (s == AP_OK) {
        s = check_storage(p, mem);
    }
    if (s != AP_OK) {
        return s;
    }
    uint32_t failed = 0;
    s = bind_values(p, pools, npools, mem->values);
    if (s == AP_OK) {
        s = check_io(p);
    }
    /* The backends first (whether a call's inputs may lie in its scratch is its backend's
     * word), but a missing one is reported after the tables' own errors, as before. */
    ap_status_t resolved = AP_ERR_BACKEND_NOT_FOUND;
    if (s == AP_OK) {
        resolved = resolve_backends(p, backends, nbackends, mem->delegate_backends);
        const ap_backend_t *const *found = (const ap_backend_t *const *)mem->delegate_backends;
        s = check_instructions(p, mem->values, mem->nargs, resolved == AP_OK ? found : NULL, &failed);
    }
    if (s == AP_OK) {
        s = resolve_kernels(p, kernels, nkernels, mem->kernel_fns);
    }
    if (s == AP_OK) {
        s = resolved;
    }
    m->program = p;
    m->values = mem->values;
    /* C has no implicit T ** to T *const * conversion. */
    m->backends = (const ap_backend_t *const *)mem->delegate_backends;
    m->kernels = (const ap_kernel_t *const *)mem->kernel_fns;
    m->handles = mem->handles;
    m->args = mem->args;
    m->nargs = mem->nargs;
    ap_temp_init(&m->temp, mem->temp, mem->temp_size);
    return finish_init(m, s, failed);
}

ap_status_t ap_method_init_bound(ap_method_t *m, const ap_bound_program_t *b) {
    if (m == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    memset(m, 0, sizeof *m);
    if (b == NULL || b->program == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    const ap_program_t *p = b->program;
    ap_status_t s = check_program(p);
    if (s != AP_OK) {
        return s;
    }
    if ((p->ntensors > 0 && b->values == NULL) ||
        (p->ndelegates > 0 && (b->backends == NULL || b->handles == NULL || b->handle_sizes == NULL)) ||
        (p->nkernels > 0 && b->kernels == NULL) || (b->nargs > 0 && b->args == NULL)) {
        return AP_ERR_STORAGE;
    }
    uint32_t failed = 0;
    s = check_bound_values(p, b->values);
    if (s == AP_OK) {
        s = check_io(p);
    }
    if (s == AP_OK) {
        s = check_bound_calls(p, b);
        /* The tables' own errors first; the backends' word on I/O in scratch once they hold. */
        ap_status_t tables = check_instructions(p, b->values, b->nargs, s == AP_OK ? b->backends : NULL, &failed);
        s = tables != AP_OK ? tables : s;
    }
    m->program = p;
    m->values = b->values;
    m->backends = b->backends;
    m->kernels = b->kernels;
    m->handle_ptrs = b->handles;
    m->args = b->args;
    m->nargs = b->nargs;
    return finish_init(m, s, failed);
}

/* Whether the entry points may follow the method's pointers: only between a successful init
 * and destroy. */
static int is_ready(const ap_method_t *m) { return m->ready == METHOD_READY && m->program != NULL; }

static ap_status_t io(ap_method_t *m, int outputs, size_t i, ap_buffer_t *out) {
    if (m == NULL || out == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    if (!is_ready(m)) {
        return AP_ERR_NOT_INITIALIZED;
    }
    const ap_program_t *p = m->program;
    if (i >= (outputs ? p->noutputs : p->ninputs)) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    *out = m->values[outputs ? p->outputs[i] : p->inputs[i]];
    return AP_OK;
}

ap_status_t ap_method_input(ap_method_t *m, size_t i, ap_buffer_t *out) { return io(m, 0, i, out); }

ap_status_t ap_method_output(ap_method_t *m, size_t i, ap_buffer_t *out) { return io(m, 1, i, out); }

static ap_status_t et_move(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || nargs != 2 || ctx->ninputs != 1 || ctx->noutputs != 1 ||
        args[0].size != args[1].size) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    if (args[0].size > 0) {
        memcpy(args[1].data, args[0].data, args[0].size);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_et_3amove = {"et:move", et_move, NULL};

/* A predicate is false when every byte of it is zero (a bool, or an integer of any width). */
static int is_false(const ap_buffer_t *predicate) {
    for (size_t i = 0; i < predicate->size; i++) {
        if (predicate->data[i] != 0) {
            return 0;
        }
    }
    return 1;
}

ap_status_t ap_method_execute(ap_method_t *m) {
    if (m == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    if (!is_ready(m)) {
        return AP_ERR_NOT_INITIALIZED;
    }
    const ap_program_t *p = m->program;
    ap_context_t ctx = {&m->temp, 0, 0, NULL, NULL};
    for (uint32_t n = 0; n < p->ninstructions; n++) {
        const ap_instruction_t *ins = &p->instructions[n];
        if (ins->kind == AP_INSTR_JUMP || ins->kind == AP_INSTR_JUMP_FALSE) {
            /* Checked at init: forward, so the run always ends. */
            if (ins->kind == AP_INSTR_JUMP || is_false(&m->values[ins->args[0]])) {
                n = ins->index - 1u;
            }
            continue;
        }
        for (uint32_t a = 0; a < ins->nargs; a++) {
            m->args[a] = m->values[ins->args[a]];
        }
        ctx.ninputs = ins->ninputs;
        ctx.noutputs = ins->noutputs;
        ap_status_t s;
        if (ins->kind == AP_INSTR_DELEGATE) {
            ctx.meta = NULL;
            ctx.arg_ids = NULL;
            const ap_backend_t *b = m->backends[ins->index];
            s = b->execute(&ctx, handle_of(m, ins->index), m->args, ins->nargs);
        } else {
            const ap_kernel_t *k = m->kernels[ins->index];
            ctx.meta = p->meta;
            ctx.arg_ids = p->meta != NULL ? ins->args : NULL;
            s = k->fn(&ctx, m->args, ins->nargs, k->user);
        }
        ap_temp_reset(&m->temp);
        if (s != AP_OK) {
            m->failed_instruction = n;
            return s;
        }
    }
    return AP_OK;
}

void ap_method_destroy(ap_method_t *m) {
    if (m == NULL || !is_ready(m)) {
        return;
    }
    destroy_delegates(m, m->initialized_delegates);
    /* Zeroed: not initialized, so a second destroy or a later execute touches nothing. */
    memset(m, 0, sizeof *m);
}
