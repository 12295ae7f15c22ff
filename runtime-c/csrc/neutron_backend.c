/* The Neutron backend: payload header, NXP's prepare/run/unprepare, adoption of planned scratch
 * (see arenaplan/neutron.h for the contract; docs/blob-formats.md for the blob format). */
#include "arenaplan/neutron.h"

#include "arenaplan/neutron_driver.h"

#include <string.h>
#include "bytes.h"

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
    for (size_t f = 0; f < nio; f++) {
        if (blob[3 + f] != 0) {
            return AP_ERR_UNSUPPORTED; /* a transposition flag */
        }
    }
    return AP_OK;
}

/* What a delegate keeps: the parsed payload, NXP's model config and its handle. */
typedef struct neutron_state {
    ap_neutron_blob_t blob;
    NeutronModelConfig config;
    NeutronModelHandle model;
} neutron_state_t;

static neutron_state_t *state_of(ap_handle_t *handle) { return (neutron_state_t *)(void *)handle->u.bytes; }

static ap_status_t init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                        ap_handle_t *handle) {
    (void)specs;
    (void)nspecs;
    typedef char state_fits_handle[sizeof(neutron_state_t) <= AP_NEUTRON_HANDLE_BYTES ? 1 : -1];
    (void)sizeof(state_fits_handle);
    neutron_state_t *st = state_of(handle);
    memset(st, 0, sizeof *st);
    ap_status_t s = ap_neutron_parse(blob, blob_size, &st->blob);
    if (s != AP_OK) {
        return s;
    }
    /* Microcode, weights and kernels are read in place: 16-byte aligned (NXP's API). */
    if (((uintptr_t)blob & 15u) != 0) {
        return AP_ERR_BLOB_MISALIGNED;
    }
    st->config.microcode = st->blob.microcode;
    st->config.weights = st->blob.weights;
    st->config.kernels = st->blob.kernels;
    st->config.timeoutSeconds = 60; /* ExecuTorch's value */
    st->model = NULL;               /* NXP's library allocates the model context */
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
    const uint8_t *input_map = b->header + 3 + b->ninputs + b->noutputs;
    const uint8_t *output_map = input_map + b->ninputs;
    const void *inputs[AP_NEUTRON_MAX_IO];
    size_t input_sizes[AP_NEUTRON_MAX_IO];
    void *outputs[AP_NEUTRON_MAX_IO + 3];
    size_t output_sizes[AP_NEUTRON_MAX_IO];
    for (uint8_t i = 0; i < b->ninputs; i++) {
        inputs[i] = a.inputs[input_map[i]].data;
        input_sizes[i] = a.inputs[input_map[i]].size;
    }
    for (uint8_t i = 0; i < b->noutputs; i++) {
        outputs[i] = a.outputs[output_map[i]].data;
        output_sizes[i] = a.outputs[output_map[i]].size;
    }
    outputs[b->noutputs] = scratch;
    outputs[b->noutputs + 1] = profile;
    outputs[b->noutputs + 2] = debug;
    NeutronDataConfig data = {inputs, outputs, scratch, sram};
    ap_neutron_job_t job = {inputs,  input_sizes,     b->ninputs, outputs, output_sizes,     b->noutputs,
                            scratch, b->scratch_size, sram,       b->sram_scratch_size, profile, b->profile_size,
                            debug,   b->debug_size};
    ap_neutron_job_hook(st->model, &job);
    return neutronRunBlocking(st->model, &data) == ENONE ? AP_OK : AP_ERR_DRIVER;
}

const ap_backend_t ap_neutron_backend = {"NeutronBackend", init, execute, destroy, sizeof(neutron_state_t)};
