/* The Ethos-U backend: Vela bin stream, adoption of planned scratch, driver call. */
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_driver.h"

#include <string.h>

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Whether a NUL-padded 16-byte name field holds `name` (shorter than 16 bytes). */
static int block_named(const uint8_t *field, const char *name) {
    size_t i = 0;
    for (; name[i] != '\0'; i++) {
        if (i == 16 || field[i] != (uint8_t)name[i]) {
            return 0;
        }
    }
    return i == 16 || field[i] == 0;
}

static const char *const ORDER[7] = {"vela_bin_stream", "cmd_data", "weight_data", "scratch_size",
                                     "inputs", "outputs", "vela_end_stream"};

/* An I/O block: u32 count, then {shape[6], elem_size, offset, region} per record. */
static ap_status_t io_block(const uint8_t *data, size_t size, uint32_t *count) {
    if (size < 4) {
        return AP_ERR_BAD_BLOB;
    }
    uint32_t n = rd32(data);
    if (n > AP_ETHOSU_MAX_IO || size < 4 + (size_t)n * 36) {
        return AP_ERR_BAD_BLOB;
    }
    *count = n;
    return AP_OK;
}

ap_status_t ap_ethosu_parse(const uint8_t *blob, size_t size, ap_ethosu_blob_t *out) {
    if (blob == NULL || out == NULL) {
        return AP_ERR_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    size_t at = 0;
    for (int k = 0; k < 7; k++) {
        if (size - at < 32 || at > size) {
            return AP_ERR_BAD_BLOB;
        }
        const uint8_t *header = blob + at;
        if (!block_named(header, ORDER[k])) {
            return AP_ERR_BAD_BLOB; /* blocks out of order, or not a bin stream */
        }
        uint32_t len = rd32(header + 16);
        size_t data_at = at + 32;
        if (len > size - data_at) {
            return AP_ERR_BAD_BLOB;
        }
        const uint8_t *data = blob + data_at;
        switch (k) {
        case 0:
        case 6:
            if (len != 0) {
                return AP_ERR_BAD_BLOB;
            }
            break;
        case 1:
            if (len < 4 || (memcmp(data, "COP1", 4) != 0 && memcmp(data, "COP2", 4) != 0)) {
                return AP_ERR_BAD_BLOB;
            }
            out->cmd = data;
            out->cmd_size = len;
            break;
        case 2:
            out->weights = data;
            out->weights_size = len;
            break;
        case 3:
            if (len != 4) {
                return AP_ERR_BAD_BLOB;
            }
            out->scratch_size = rd32(data);
            break;
        case 4:
            if (io_block(data, len, &out->ninputs) != AP_OK) {
                return AP_ERR_BAD_BLOB;
            }
            out->inputs_block = data;
            break;
        default:
            if (io_block(data, len, &out->noutputs) != AP_OK) {
                return AP_ERR_BAD_BLOB;
            }
            out->outputs_block = data;
            break;
        }
        /* Data is padded to 16 bytes; the padding must be in the blob, except after the end. */
        size_t padded = ((size_t)len + 15u) & ~(size_t)15u;
        if (k < 6 && padded > size - data_at) {
            return AP_ERR_BAD_BLOB;
        }
        at = data_at + (k < 6 ? padded : len);
    }
    return AP_OK;
}

/* Record r of an I/O block: its offset in the scratch region and its byte size. */
static ap_status_t io_record(const uint8_t *block, uint32_t r, uint32_t scratch_size, ap_ethosu_io_t *out) {
    const uint8_t *rec = block + 4 + (size_t)r * 36;
    uint64_t bytes = rd32(rec + 24);
    for (int d = 0; d < 6; d++) {
        bytes *= rd32(rec + 4 * d);
        if (bytes > scratch_size) {
            return AP_ERR_BAD_BLOB;
        }
    }
    uint32_t offset = rd32(rec + 28);
    uint32_t region = rd32(rec + 32);
    if (region != 1 || offset > scratch_size || bytes > scratch_size - offset) {
        return AP_ERR_BAD_BLOB;
    }
    out->offset = offset;
    out->size = (uint32_t)bytes;
    return AP_OK;
}

static ap_status_t init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                        ap_handle_t *handle) {
    (void)specs;
    (void)nspecs;
    /* The parsed blob must fit a handle (a C99 compile-time check). */
    typedef char blob_fits_handle[sizeof(ap_ethosu_blob_t) <= AP_HANDLE_BYTES ? 1 : -1];
    (void)sizeof(blob_fits_handle);
    ap_ethosu_blob_t parsed;
    ap_status_t s = ap_ethosu_parse(blob, blob_size, &parsed);
    if (s != AP_OK) {
        return s;
    }
    ap_ethosu_job_t job;
    for (uint32_t i = 0; i < parsed.ninputs; i++) {
        if (io_record(parsed.inputs_block, i, parsed.scratch_size, &job.inputs[i]) != AP_OK) {
            return AP_ERR_BAD_BLOB;
        }
    }
    for (uint32_t i = 0; i < parsed.noutputs; i++) {
        if (io_record(parsed.outputs_block, i, parsed.scratch_size, &job.outputs[i]) != AP_OK) {
            return AP_ERR_BAD_BLOB;
        }
    }
    memcpy(handle->u.bytes, &parsed, sizeof parsed);
    return AP_OK;
}

static ap_status_t execute(ap_context_t *ctx, ap_handle_t *handle, ap_buffer_t *args, size_t nargs) {
    ap_ethosu_blob_t b;
    memcpy(&b, handle->u.bytes, sizeof b);
    ap_args_t a;
    ap_status_t s = ap_split_args(args, nargs, b.ninputs, b.noutputs, &a);
    if (s != AP_OK) {
        return s;
    }
    uint8_t *scratch;
    uint8_t *fast = NULL;
    size_t fast_size = 0;
    if (a.nscratch >= 1) {
        /* Planned scratch: use it (and a second buffer as fast scratch). */
        if (a.scratch[0].data == NULL || a.scratch[0].size < b.scratch_size) {
            return AP_ERR_SCRATCH_TOO_SMALL;
        }
        if (((uintptr_t)a.scratch[0].data & 15u) != 0) {
            return AP_ERR_SCRATCH_MISALIGNED;
        }
        scratch = a.scratch[0].data;
        if (a.nscratch >= 2) {
            if (a.scratch[1].size > 0 && ((uintptr_t)a.scratch[1].data & 15u) != 0) {
                return AP_ERR_SCRATCH_MISALIGNED;
            }
            fast = a.scratch[1].data;
            fast_size = a.scratch[1].size;
        }
    } else {
        /* A plan made before scratch was planned: the temp allocator, as ExecuTorch does. */
        scratch = ap_temp_alloc(ctx->temp, b.scratch_size, 16);
        if (scratch == NULL) {
            return AP_ERR_TEMP_EXHAUSTED;
        }
    }
    ap_ethosu_job_t job;
    job.ninputs = b.ninputs;
    job.noutputs = b.noutputs;
    for (uint32_t i = 0; i < b.ninputs; i++) {
        (void)io_record(b.inputs_block, i, b.scratch_size, &job.inputs[i]); /* checked by init */
        if (a.inputs[i].size < job.inputs[i].size || (a.inputs[i].data == NULL && job.inputs[i].size > 0)) {
            return AP_ERR_BAD_ARGUMENTS;
        }
        memcpy(scratch + job.inputs[i].offset, a.inputs[i].data, job.inputs[i].size);
    }
    for (uint32_t i = 0; i < b.noutputs; i++) {
        (void)io_record(b.outputs_block, i, b.scratch_size, &job.outputs[i]);
        if (a.outputs[i].size < job.outputs[i].size || (a.outputs[i].data == NULL && job.outputs[i].size > 0)) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    uint64_t base[3] = {(uint64_t)(uintptr_t)b.weights, (uint64_t)(uintptr_t)scratch, (uint64_t)(uintptr_t)fast};
    size_t sizes[3] = {b.weights_size, b.scratch_size, fast_size};
    struct ethosu_driver *drv = ethosu_reserve_driver();
    if (drv == NULL) {
        return AP_ERR_DRIVER;
    }
    int rc = ethosu_invoke_v3(drv, b.cmd, (int)b.cmd_size, base, sizes, fast != NULL ? 3 : 2, &job);
    ethosu_release_driver(drv);
    if (rc != 0) {
        return AP_ERR_DRIVER;
    }
    for (uint32_t i = 0; i < b.noutputs; i++) {
        memcpy(a.outputs[i].data, scratch + job.outputs[i].offset, job.outputs[i].size);
    }
    return AP_OK;
}

const ap_backend_t ap_ethosu_backend = {"EthosUBackend", init, execute, NULL};
