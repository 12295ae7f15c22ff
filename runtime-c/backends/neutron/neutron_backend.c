/* The Neutron backend: payload header, NXP's prepare/run/unprepare, adoption of planned scratch
 * (see arenaplan/neutron.h for the contract; docs/blob-formats.md for the blob format). */
#include "arenaplan/neutron.h"

#include "arenaplan/neutron_driver.h"

#include <string.h>
#include "../../core/bytes.h"

#define NEUTRON_MAGIC 0x64434D6Eu

__attribute__((weak)) void ap_neutron_job_hook(void *model_handle, const ap_neutron_job_t *job) {
    (void)model_handle;
    (void)job;
}


static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

ap_status_t ap_neutron_parse(const uint8_t *blob, size_t size, ap_neutron_blob_t *out) {
    if (blob == NULL || out == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    if (size < 3) {
        return AP_ERR_BAD_BLOB;
    }
    out->ninputs = blob[0];
    out->noutputs = blob[1];
    out->ninput_args = blob[2];
    if ((out->ninputs == 0 && out->noutputs == 0) || out->ninputs > AP_NEUTRON_MAX_IO ||
        out->noutputs > AP_NEUTRON_MAX_IO) {
        return AP_ERR_BAD_BLOB;
    }
    /* formats (inputs, outputs), maps (inputs, outputs), version */
    size_t nio = (size_t)out->ninputs + out->noutputs;
    size_t version_at = 3 + 2 * nio;
    if (version_at >= size) {
        return AP_ERR_BAD_BLOB;
    }
    out->version = blob[version_at];
    if (out->version > 1) {
        return AP_ERR_BAD_BLOB;
    }
    const uint8_t *input_map = blob + 3 + nio;
    const uint8_t *output_map = input_map + out->ninputs;
    for (uint8_t i = 0; i < out->ninputs; i++) {
        if (input_map[i] >= out->ninput_args) {
            return AP_ERR_BAD_BLOB;
        }
    }
    for (uint8_t i = 0; i < out->noutputs; i++) {
        if (output_map[i] >= out->noutputs) {
            return AP_ERR_BAD_BLOB;
        }
    }
    size_t payload = align16(version_at + 1);
    size_t words = out->version == 0 ? 13 : 15;
    if (payload > size || size - payload < 4 * words) {
        return AP_ERR_BAD_BLOB;
    }
    const uint8_t *p = blob + payload;
    if (ap_rd32(p) != NEUTRON_MAGIC) {
        return AP_ERR_BAD_BLOB;
    }
    out->header = blob;
    out->microcode = p;
    out->microcode_size = ap_rd32(p + 4 * 6);
    out->weights_size = ap_rd32(p + 4 * 7);
    out->scratch_size = ap_rd32(p + 4 * 9);
    uint32_t nin, nout;
    if (out->version == 0) {
        out->sram_scratch_size = ap_rd32(p + 4 * 10);
        nin = ap_rd32(p + 4 * 11);
        nout = ap_rd32(p + 4 * 12);
    } else {
        out->profile_size = ap_rd32(p + 4 * 10) & 0x7FFFFFFFu; /* the top bit is a flag */
        out->debug_size = ap_rd32(p + 4 * 11);
        out->sram_scratch_size = ap_rd32(p + 4 * 12);
        nin = ap_rd32(p + 4 * 13);
        nout = ap_rd32(p + 4 * 14);
    }
    if (nin != out->ninputs || nout != out->noutputs) {
        return AP_ERR_BAD_BLOB;
    }
    /* Weights follow the microcode, kernels the weights, each at a 16-byte boundary. */
    size_t room = size - payload;
    size_t weights_at = align16(out->microcode_size);
    if (out->microcode_size > room || weights_at > room || out->weights_size > room - weights_at ||
        align16(out->weights_size) > room - weights_at) {
        return AP_ERR_BAD_BLOB;
    }
    out->weights = p + weights_at;
    out->kernels = out->weights + align16(out->weights_size);
    return AP_OK;
}


/* A decimal of at most 32 bits at *p; advances *p past it. */
static int read_u32_dec(const char **p, uint32_t *out) {
    uint64_t v = 0;
    const char *q = *p;
    while (*q >= '0' && *q <= '9' && q - *p < 11) {
        v = v * 10u + (uint64_t)(*q - '0');
        q++;
    }
    if (q == *p || q - *p > 10 || v > 0xFFFFFFFFu) {
        return 0;
    }
    *p = q;
    *out = (uint32_t)v;
    return 1;
}

static int expect(const char **p, char c) {
    if (**p != c) {
        return 0;
    }
    (*p)++;
    return 1;
}

ap_status_t ap_neutron_transpositions(const char *text, const ap_neutron_blob_t *b, ap_neutron_transposition_t *out,
                                      size_t *count, uint32_t *buffer_bytes) {
    if (b == NULL || out == NULL || count == NULL || buffer_bytes == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    *count = 0;
    *buffer_bytes = 0;
    if (text == NULL || *text == '\0') {
        return AP_OK;
    }
    const char *p = text;
    uint64_t end = 0;
    for (;;) {
        if (*count == 2u * AP_NEUTRON_MAX_IO) {
            return AP_ERR_INVALID_PROGRAM;
        }
        ap_neutron_transposition_t t;
        uint32_t *fields[5] = {&t.n, &t.c, &t.h, &t.w, &t.element};
        if (*p != 'i' && *p != 'o') {
            return AP_ERR_INVALID_PROGRAM;
        }
        t.output = *p++ == 'o';
        if (!read_u32_dec(&p, &t.slot) || !expect(&p, ':')) {
            return AP_ERR_INVALID_PROGRAM;
        }
        for (int f = 0; f < 5; f++) {
            if (!read_u32_dec(&p, fields[f]) || !expect(&p, f < 4 ? ',' : '@')) {
                return AP_ERR_INVALID_PROGRAM;
            }
        }
        if (!read_u32_dec(&p, &t.offset)) {
            return AP_ERR_INVALID_PROGRAM;
        }
        /* A slot of the payload whose format byte asks for it, listed once. */
        uint32_t slots = t.output ? b->noutputs : b->ninputs;
        const uint8_t *formats = b->header + 3 + (t.output ? b->ninputs : 0);
        if (t.slot >= slots || formats[t.slot] == 0) {
            return AP_ERR_INVALID_PROGRAM;
        }
        for (size_t k = 0; k < *count; k++) {
            if (out[k].output == t.output && out[k].slot == t.slot) {
                return AP_ERR_INVALID_PROGRAM;
            }
        }
        if ((t.element != 1 && t.element != 2 && t.element != 4 && t.element != 8) || (t.offset & 15u) != 0 ||
            t.offset < end) {
            return AP_ERR_INVALID_PROGRAM; /* in order, each after the one before: no overlap */
        }
        uint64_t bytes = (uint64_t)t.n * t.c;
        bytes = bytes > 0xFFFFFFFFu ? bytes : bytes * t.h;
        bytes = bytes > 0xFFFFFFFFu ? bytes : bytes * t.w;
        bytes = bytes > 0xFFFFFFFFu ? bytes : bytes * t.element;
        if (bytes > 0xFFFFFFFFu || (uint64_t)t.offset + bytes > 0xFFFFFFFFu) {
            return AP_ERR_INVALID_PROGRAM;
        }
        end = (uint64_t)t.offset + bytes;
        out[(*count)++] = t;
        if (*p == '\0') {
            break;
        }
        if (!expect(&p, ';')) {
            return AP_ERR_INVALID_PROGRAM;
        }
    }
    *buffer_bytes = (uint32_t)end;
    return AP_OK;
}

/* One element of `size` bytes (1, 2, 4 or 8), with a fixed-size copy the compiler inlines. */
static void copy_element(uint8_t *dst, const uint8_t *src, uint32_t size) {
    switch (size) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* NCHW -> NHWC (`to_nhwc`) or NHWC -> NCHW, as NXP's backend: dst[n,h,w,c] = src[n,c,h,w]. */
static void transpose(uint8_t *dst, const uint8_t *src, const ap_neutron_transposition_t *t, int to_nhwc) {
    size_t e = t->element, hw = (size_t)t->h * t->w, chw = (size_t)t->c * hw, wc = (size_t)t->w * t->c;
    for (size_t n = 0; n < t->n; n++) {
        for (size_t c = 0; c < t->c; c++) {
            for (size_t h = 0; h < t->h; h++) {
                for (size_t w = 0; w < t->w; w++) {
                    size_t nchw = n * chw + c * hw + h * t->w + w;
                    size_t nhwc = n * chw + h * wc + w * t->c + c;
                    if (to_nhwc) {
                        copy_element(dst + nhwc * e, src + nchw * e, t->element);
                    } else {
                        copy_element(dst + nchw * e, src + nhwc * e, t->element);
                    }
                }
            }
        }
    }
}

/* What a delegate keeps: the parsed payload, NXP's model config and its handle, and the
 * descriptor of its transpositions (a compile spec: const, in flash). */
typedef struct neutron_state {
    ap_neutron_blob_t blob;
    NeutronModelConfig config;
    NeutronModelHandle model;
    const char *transpose;
} neutron_state_t;

static neutron_state_t *state_of(ap_handle_t *handle) { return (neutron_state_t *)(void *)handle->u.bytes; }

/* The value of compile spec `key` (the first with it; "" for a NULL value), NULL without one. */
static const char *find_spec(const ap_compile_spec_t *specs, size_t nspecs, const char *key) {
    for (size_t k = 0; specs != NULL && k < nspecs; k++) {
        if (specs[k].key != NULL && ap_same_str(specs[k].key, key)) {
            return specs[k].value != NULL ? specs[k].value : "";
        }
    }
    return NULL;
}

/* The largest model context accepted: the targets file's bound, so the handle's size cannot
 * wrap on a 32-bit target whatever the tables say. */
#define CONTEXT_MAX (16u << 20)

/* The model context's bytes the compile specs give (AP_NEUTRON_CONTEXT_SPEC), 0 without one;
 * `bad` set for a value that is not a decimal, is 0 or is above CONTEXT_MAX. */
static uint32_t context_bytes(const ap_compile_spec_t *specs, size_t nspecs, int *bad) {
    const char *p = find_spec(specs, nspecs, AP_NEUTRON_CONTEXT_SPEC);
    uint32_t n = 0;
    *bad = p != NULL && (!read_u32_dec(&p, &n) || *p != '\0' || n == 0 || n > CONTEXT_MAX);
    return *bad ? 0 : n;
}

/* The handle: the state, then (with a context spec) the model context. */
static size_t handle_bytes_for(const ap_compile_spec_t *specs, size_t nspecs) {
    int bad;
    uint32_t context = context_bytes(specs, nspecs, &bad);
    return context == 0 ? sizeof(neutron_state_t) : AP_NEUTRON_CONTEXT_OFFSET + context;
}

static ap_status_t init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                        ap_handle_t *handle) {
    typedef char state_fits_handle[sizeof(neutron_state_t) <= AP_NEUTRON_HANDLE_BYTES ? 1 : -1];
    (void)sizeof(state_fits_handle);
    neutron_state_t *st = state_of(handle);
    memset(st, 0, sizeof *st);
    ap_status_t s = ap_neutron_parse(blob, blob_size, &st->blob);
    if (s != AP_OK) {
        return s;
    }
    st->transpose = find_spec(specs, nspecs, AP_NEUTRON_TRANSPOSE_SPEC);
    /* A format byte set and no descriptor: tables made without the tensors' shapes. */
    int flagged = 0;
    for (size_t f = 0; f < (size_t)st->blob.ninputs + st->blob.noutputs; f++) {
        flagged |= st->blob.header[3 + f] != 0;
    }
    if (flagged && st->transpose == NULL) {
        return AP_ERR_UNSUPPORTED;
    }
    ap_neutron_transposition_t list[2 * AP_NEUTRON_MAX_IO];
    size_t count;
    uint32_t bytes;
    if ((s = ap_neutron_transpositions(st->transpose, &st->blob, list, &count, &bytes)) != AP_OK) {
        return s;
    }
    /* Microcode, weights and kernels are read in place: 16-byte aligned (NXP's API). */
    if (((uintptr_t)blob & 15u) != 0) {
        return AP_ERR_BLOB_MISALIGNED;
    }
    /* The model context: in the handle, after the state (NO_HEAP_USAGE), or on NXP's heap. */
    int bad;
    uint32_t context = context_bytes(specs, nspecs, &bad);
    uint8_t *context_at = (uint8_t *)(void *)handle + AP_NEUTRON_CONTEXT_OFFSET;
    if (bad) {
        return AP_ERR_INVALID_PROGRAM;
    }
    if (context > 0 && (neutronGetModelContextSize() > context || ((uintptr_t)context_at & 15u) != 0)) {
        return AP_ERR_STORAGE; /* the target's npu.model_context is smaller than NXP's library needs */
    }
    st->config.microcode = st->blob.microcode;
    st->config.weights = st->blob.weights;
    st->config.kernels = st->blob.kernels;
    st->config.timeoutSeconds = 60; /* ExecuTorch's value */
    st->model = context > 0 ? (NeutronModelHandle)context_at : NULL; /* NULL: on NXP's heap */
    if (neutronModelPrepare(&st->config, &st->model) != ENONE) {
        st->model = NULL;
        return AP_ERR_DRIVER;
    }
    return AP_OK;
}

static void destroy(ap_handle_t *handle) {
    neutron_state_t *st = state_of(handle);
    if (st->model != NULL) {
        (void)neutronModelUnprepare(st->model);
        st->model = NULL;
    }
}

/* The buffer of scratch slot `slot` if the plan has it, else from the temp allocator. */
static ap_status_t scratch_buffer(ap_context_t *ctx, const ap_args_t *a, size_t slot, uint32_t need, uint8_t **out) {
    *out = NULL;
    if (need == 0) {
        return AP_OK;
    }
    if (a->nscratch > slot) {
        if (a->scratch[slot].data == NULL || a->scratch[slot].size < need) {
            return AP_ERR_SCRATCH_TOO_SMALL;
        }
        if (((uintptr_t)a->scratch[slot].data & 15u) != 0) {
            return AP_ERR_SCRATCH_MISALIGNED;
        }
        *out = a->scratch[slot].data;
        return AP_OK;
    }
    *out = ap_temp_alloc(ctx->temp, need, 16);
    return *out == NULL ? AP_ERR_TEMP_EXHAUSTED : AP_OK;
}

static ap_status_t execute(ap_context_t *ctx, ap_handle_t *handle, ap_buffer_t *args, size_t nargs) {
    neutron_state_t *st = state_of(handle);
    const ap_neutron_blob_t *b = &st->blob;
    ap_args_t a;
    ap_status_t s = ap_split_args(args, nargs, b->ninput_args, b->noutputs, &a);
    if (s != AP_OK) {
        return s;
    }
    uint8_t *scratch, *sram, *profile, *debug;
    if ((s = scratch_buffer(ctx, &a, AP_NEUTRON_SLOT_SCRATCH, b->scratch_size, &scratch)) != AP_OK ||
        (s = scratch_buffer(ctx, &a, AP_NEUTRON_SLOT_SRAM_SCRATCH, b->sram_scratch_size, &sram)) != AP_OK ||
        (s = scratch_buffer(ctx, &a, AP_NEUTRON_SLOT_PROFILE, b->profile_size, &profile)) != AP_OK ||
        (s = scratch_buffer(ctx, &a, AP_NEUTRON_SLOT_DEBUG, b->debug_size, &debug)) != AP_OK) {
        return s;
    }
    ap_neutron_transposition_t list[2 * AP_NEUTRON_MAX_IO];
    size_t count;
    uint32_t bytes;
    uint8_t *buffer;
    if ((s = ap_neutron_transpositions(st->transpose, b, list, &count, &bytes)) != AP_OK ||
        (s = scratch_buffer(ctx, &a, AP_NEUTRON_SLOT_TRANSPOSE, bytes, &buffer)) != AP_OK) {
        return s;
    }
    const uint8_t *input_map = b->header + 3 + b->ninputs + b->noutputs;
    const uint8_t *output_map = input_map + b->ninputs;
    const void *inputs[AP_NEUTRON_MAX_IO];
    size_t input_sizes[AP_NEUTRON_MAX_IO];
    void *outputs[AP_NEUTRON_MAX_IO + 3];
    size_t output_sizes[AP_NEUTRON_MAX_IO];
    ap_neutron_layout_t input_layouts[AP_NEUTRON_MAX_IO], output_layouts[AP_NEUTRON_MAX_IO];
    memset(input_layouts, 0, sizeof input_layouts);
    memset(output_layouts, 0, sizeof output_layouts);
    /* The NPU reads and writes every tensor of its call: none may be empty (a NULL address
     * would reach the NPU; the build refuses such a call, a table no build made is refused
     * here). */
    for (size_t i = 0; i < (size_t)b->ninputs + b->noutputs; i++) {
        const ap_buffer_t *t = i < b->ninputs ? &a.inputs[input_map[i]] : &a.outputs[output_map[i - b->ninputs]];
        if (t->data == NULL || t->size == 0) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    for (uint8_t i = 0; i < b->ninputs; i++) {
        inputs[i] = a.inputs[input_map[i]].data;
        input_sizes[i] = a.inputs[input_map[i]].size;
    }
    for (uint8_t i = 0; i < b->noutputs; i++) {
        outputs[i] = a.outputs[output_map[i]].data;
        output_sizes[i] = a.outputs[output_map[i]].size;
    }
    /* The NPU sees each transposed tensor in the buffer, channels-last; inputs are copied
     * there now, outputs back after the run. */
    for (size_t k = 0; k < count; k++) {
        const ap_neutron_transposition_t *t = &list[k];
        size_t tensor = (size_t)t->n * t->c * t->h * t->w * t->element;
        const ap_buffer_t *arg = t->output ? &a.outputs[output_map[t->slot]] : &a.inputs[input_map[t->slot]];
        if (arg->data == NULL || arg->size != tensor) {
            return AP_ERR_INVALID_ARGUMENT;
        }
        ap_neutron_layout_t layout = {arg->data, t->n, t->c, t->h, t->w, t->element};
        if (t->output) {
            outputs[t->slot] = buffer + t->offset;
            output_layouts[t->slot] = layout;
        } else {
            transpose(buffer + t->offset, arg->data, t, 1);
            inputs[t->slot] = buffer + t->offset;
            input_layouts[t->slot] = layout;
        }
    }
    outputs[b->noutputs] = scratch;
    outputs[b->noutputs + 1] = profile;
    outputs[b->noutputs + 2] = debug;
    NeutronDataConfig data = {inputs, outputs, scratch, sram};
    ap_neutron_job_t job = {inputs,  input_sizes,     b->ninputs, outputs, output_sizes,     b->noutputs,
                            scratch, b->scratch_size, sram,       b->sram_scratch_size, profile, b->profile_size,
                            debug,   b->debug_size,   input_layouts, output_layouts};
    ap_neutron_job_hook(st->model, &job);
    if (neutronRunBlocking(st->model, &data) != ENONE) {
        return AP_ERR_DRIVER;
    }
    for (size_t k = 0; k < count; k++) {
        const ap_neutron_transposition_t *t = &list[k];
        if (t->output) {
            transpose(a.outputs[output_map[t->slot]].data, buffer + t->offset, t, 0);
        }
    }
    return AP_OK;
}

const ap_backend_t ap_neutron_backend = {"NeutronBackend", init, execute, destroy, sizeof(neutron_state_t),
                                         handle_bytes_for, 0};
