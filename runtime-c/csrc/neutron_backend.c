/* The Neutron backend: payload header, adoption of planned scratch, driver call. */
#include "arenaplan/neutron.h"
#include "arenaplan/neutron_driver.h"

#include <string.h>

#define NEUTRON_MAGIC 0x64434D6Eu

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

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
    size_t version_at = 3 + 2 * ((size_t)out->ninputs + out->noutputs);
    if (version_at >= size) {
        return AP_ERR_BAD_BLOB;
    }
    out->version = blob[version_at];
    if (out->version > 1) {
        return AP_ERR_BAD_BLOB;
    }
    const uint8_t *input_map = blob + 3 + out->ninputs + out->noutputs;
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
    size_t payload = (version_at + 1 + 15u) & ~(size_t)15u;
    size_t words = out->version == 0 ? 11 : 13;
    if (payload > size || size - payload < 4 * words) {
        return AP_ERR_BAD_BLOB;
    }
    const uint8_t *p = blob + payload;
    if (rd32(p) != NEUTRON_MAGIC) {
        return AP_ERR_BAD_BLOB;
    }
    out->header = blob;
    out->microcode = p;
    out->microcode_size = rd32(p + 4 * 6);
    out->weights_size = rd32(p + 4 * 7);
    out->scratch_size = rd32(p + 4 * 9);
    out->sram_scratch_size = rd32(p + 4 * (out->version == 0 ? 10 : 12));
    if (out->microcode_size > size - payload) {
        return AP_ERR_BAD_BLOB;
    }
    return AP_OK;
}

static ap_status_t init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                        ap_handle_t *handle) {
    (void)specs;
    (void)nspecs;
    typedef char blob_fits_handle[sizeof(ap_neutron_blob_t) <= AP_HANDLE_BYTES ? 1 : -1];
    (void)sizeof(blob_fits_handle);
    ap_neutron_blob_t parsed;
    ap_status_t s = ap_neutron_parse(blob, blob_size, &parsed);
    if (s == AP_OK) {
        memcpy(handle->u.bytes, &parsed, sizeof parsed);
    }
    return s;
}

/* Planned buffer `i` of the scratch list if there is one, else from the temp allocator. */
static ap_status_t scratch_buffer(ap_context_t *ctx, const ap_args_t *a, size_t i, uint32_t need, uint8_t **out) {
    *out = NULL;
    if (need == 0) {
        return AP_OK;
    }
    if (a->nscratch > i) {
        if (a->scratch[i].data == NULL || a->scratch[i].size < need) {
            return AP_ERR_SCRATCH_TOO_SMALL;
        }
        if (((uintptr_t)a->scratch[i].data & 15u) != 0) {
            return AP_ERR_SCRATCH_MISALIGNED;
        }
        *out = a->scratch[i].data;
        return AP_OK;
    }
    *out = ap_temp_alloc(ctx->temp, need, 16);
    return *out == NULL ? AP_ERR_TEMP_EXHAUSTED : AP_OK;
}

static ap_status_t execute(ap_context_t *ctx, ap_handle_t *handle, ap_buffer_t *args, size_t nargs) {
    ap_neutron_blob_t b;
    memcpy(&b, handle->u.bytes, sizeof b);
    ap_args_t a;
    ap_status_t s = ap_split_args(args, nargs, b.ninput_args, b.noutputs, &a);
    if (s != AP_OK) {
        return s;
    }
    uint8_t *scratch, *sram;
    if ((s = scratch_buffer(ctx, &a, 0, b.scratch_size, &scratch)) != AP_OK ||
        (s = scratch_buffer(ctx, &a, 1, b.sram_scratch_size, &sram)) != AP_OK) {
        return s;
    }
    const uint8_t *input_map = b.header + 3 + b.ninputs + b.noutputs;
    const uint8_t *output_map = input_map + b.ninputs;
    const void *inputs[AP_NEUTRON_MAX_IO];
    size_t input_sizes[AP_NEUTRON_MAX_IO];
    void *outputs[AP_NEUTRON_MAX_IO];
    size_t output_sizes[AP_NEUTRON_MAX_IO];
    for (uint8_t i = 0; i < b.ninputs; i++) {
        inputs[i] = a.inputs[input_map[i]].data;
        input_sizes[i] = a.inputs[input_map[i]].size;
    }
    for (uint8_t i = 0; i < b.noutputs; i++) {
        outputs[i] = a.outputs[output_map[i]].data;
        output_sizes[i] = a.outputs[output_map[i]].size;
    }
    ap_neutron_run_t run = {b.microcode, b.microcode_size, inputs, input_sizes, b.ninputs, outputs, output_sizes,
                            b.noutputs, scratch, b.scratch_size, sram, b.sram_scratch_size};
    return ap_neutron_run_blocking(&run) == 0 ? AP_OK : AP_ERR_DRIVER;
}

const ap_backend_t ap_neutron_backend = {"NeutronBackend", init, execute, NULL};
