/* The Ethos-U backend: Vela bin stream, adoption of planned scratch, driver call, output layout
 * (see arenaplan/ethosu.h for the contract; docs/blob-formats.md for the blob format). */
#include "arenaplan/ethosu.h"

#include "arenaplan/dcache.h"
#include "arenaplan/ethosu_driver.h"

#include <string.h>
#include "../../core/bytes.h"

__attribute__((weak)) uint8_t *ap_ethosu_fast_scratch = NULL;
__attribute__((weak)) size_t ap_ethosu_fast_scratch_size = 0;

__attribute__((weak)) void ap_ethosu_job_hook(const ap_ethosu_blob_t *blob) { (void)blob; }

/* The NPU's alignment for a buffer it writes: a whole cache line where the cache is maintained
 * (maintenance works on lines), 16 bytes otherwise. */
#if AP_DCACHE_MAINTAINED
#define NPU_ALIGN AP_DCACHE_LINE_SIZE
#else
#define NPU_ALIGN 16u
#endif


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
    uint32_t n = ap_rd32(data);
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
        if (at > size || size - at < 32) {
            return AP_ERR_BAD_BLOB;
        }
        const uint8_t *header = blob + at;
        if (!block_named(header, ORDER[k])) {
            return AP_ERR_BAD_BLOB; /* blocks out of order, or not a bin stream */
        }
        if (header[20] != 0) {
            return AP_ERR_UNSUPPORTED; /* external data: a key into a named data map */
        }
        uint32_t len = ap_rd32(header + 16);
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
            out->scratch_size = ap_rd32(data);
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

/* One input or output of a partition: its copy in the scratch region. */
typedef struct io_copy {
    uint32_t offset;     /* in the scratch */
    uint32_t bytes;      /* shape x element size */
    uint32_t chunks;     /* outputs: rows Vela writes, each `stride` bytes apart */
    uint32_t stride;
    int state_in_place;  /* an output the NPU reads before it writes it (AP_ETHOSU_IO_STATE_IN_PLACE) */
} io_copy_t;

/* Record r of an I/O block, checked against the scratch. */
static ap_status_t io_record(const uint8_t *block, uint32_t r, uint32_t scratch_size, io_copy_t *out) {
    const uint8_t *rec = block + 4 + (size_t)r * 36;
    uint64_t elem = ap_rd32(rec + 24), bytes = elem, chunks = 1;
    for (int d = 0; d < 6; d++) {
        uint32_t dim = ap_rd32(rec + 4 * d);
        bytes *= dim;
        if (d < 5) {
            chunks *= dim == 0 ? 1u : dim;
        }
        if (bytes > 0xFFFFFFFFu || chunks > 0xFFFFFFFFu) { /* keeps the products in 64 bits */
            return AP_ERR_BAD_BLOB;
        }
    }
    uint64_t last = ap_rd32(rec + 20);
    uint64_t stride = (last == 0 ? 1u : last) * elem;
    uint32_t offset = ap_rd32(rec + 28);
    uint32_t region = ap_rd32(rec + 32);
    /* Rows (chunks x stride) must lie in the scratch too; each is at least a byte, so both
     * factors are at most the scratch size when they do, and the product cannot overflow. */
    if ((region & ~AP_ETHOSU_IO_STATE_IN_PLACE) != 1 || elem == 0 || offset > scratch_size || bytes > scratch_size - offset ||
        (bytes > 0 && (stride > scratch_size || chunks > scratch_size || stride * chunks > scratch_size - offset))) {
        return AP_ERR_BAD_BLOB;
    }
    out->offset = offset;
    out->bytes = (uint32_t)bytes;
    out->chunks = (uint32_t)chunks;
    out->stride = (uint32_t)stride;
    out->state_in_place = (region & AP_ETHOSU_IO_STATE_IN_PLACE) != 0;
    return AP_OK;
}

/* Whether tensor `t` is at its slot `io` in the scratch: the NPU reads or writes it there and
 * nothing is copied. A tensor that overlaps the scratch anywhere else is refused (a plan and a
 * blob that disagree), never copied onto itself. */
static ap_status_t at_slot(const ap_buffer_t *t, const io_copy_t *io, const uint8_t *scratch, size_t room,
                           int *in_place) {
    *in_place = 0;
    if (scratch == NULL || t->data == NULL || t->size == 0) {
        return AP_OK;
    }
    uintptr_t p = (uintptr_t)t->data, s = (uintptr_t)scratch;
    if (p == s + io->offset && t->size == io->bytes) {
        *in_place = 1;
        return AP_OK;
    }
    int apart = p >= s + room || s >= p + t->size;
    return apart ? AP_OK : AP_ERR_ARGUMENT_MISMATCH;
}

/* How output `o` goes from its copy to a tensor of `tensor_bytes`: whole, or row by row when
 * Vela pads its rows (ExecuTorch's layout adjustment). Rows narrower than the tensor's would
 * need 4-bit values expanded to 8 bits, which needs the tensor's type: refused. */
static ap_status_t output_rows(const io_copy_t *o, size_t tensor_bytes, size_t *row) {
    if (tensor_bytes == o->bytes) {
        *row = 0; /* one copy */
        return AP_OK;
    }
    if (o->bytes == 0 || tensor_bytes == 0) {
        return AP_ERR_ARGUMENT_MISMATCH; /* an empty record has no rows to copy from, an empty tensor no room */
    }
    if (tensor_bytes % o->chunks != 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    *row = tensor_bytes / o->chunks;
    return *row > o->stride ? AP_ERR_UNSUPPORTED : AP_OK;
}

static ap_status_t init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                        ap_handle_t *handle) {
    (void)specs;
    (void)nspecs;
    /* The parsed blob must fit a handle (a C99 compile-time check). */
    typedef char blob_fits_handle[sizeof(ap_ethosu_blob_t) <= AP_ETHOSU_HANDLE_BYTES ? 1 : -1];
    (void)sizeof(blob_fits_handle);
    ap_ethosu_blob_t parsed;
    ap_status_t s = ap_ethosu_parse(blob, blob_size, &parsed);
    if (s != AP_OK) {
        return s;
    }
    /* The NPU reads the command stream and the weights in place: 16-byte aligned. */
    if (((uintptr_t)blob & 15u) != 0) {
        return AP_ERR_BLOB_MISALIGNED;
    }
    io_copy_t io;
    for (uint32_t i = 0; i < parsed.ninputs + parsed.noutputs; i++) {
        int in = i < parsed.ninputs;
        if (io_record(in ? parsed.inputs_block : parsed.outputs_block, in ? i : i - parsed.ninputs,
                      parsed.scratch_size, &io) != AP_OK) {
            return AP_ERR_BAD_BLOB;
        }
    }
#if AP_DCACHE_MAINTAINED
    /* The NPU reads the blob from memory: write back anything a loader left in the cache (a
     * clean loses nothing, so the range may round outward). */
    uintptr_t first = (uintptr_t)blob & ~(uintptr_t)(AP_DCACHE_LINE_SIZE - 1u);
    ap_dcache_clean((const void *)first, AP_DCACHE_ROUND((uintptr_t)blob + blob_size - first));
#endif
    memcpy(handle->u.bytes, &parsed, sizeof parsed);
    return AP_OK;
}

/* A buffer the NPU will write: aligned for it, and, where the cache is maintained, owning the
 * whole lines that maintenance of `need` bytes touches. */
static int npu_buffer_ok(const void *p, size_t size, size_t need) {
    return ((uintptr_t)p % NPU_ALIGN) == 0 && (!AP_DCACHE_MAINTAINED || size >= AP_DCACHE_ROUND(need));
}

static ap_status_t execute(ap_context_t *ctx, ap_handle_t *handle, ap_buffer_t *args, size_t nargs) {
    ap_ethosu_blob_t b;
    memcpy(&b, handle->u.bytes, sizeof b);
    ap_args_t a;
    ap_status_t s = ap_split_args(args, nargs, b.ninputs, b.noutputs, &a);
    if (s != AP_OK) {
        return s;
    }
    uint8_t *scratch = NULL;
    if (b.scratch_size == 0) {
        /* Nothing in region 1 (then no inputs or outputs either: their copies live there). */
    } else if (a.nscratch > AP_ETHOSU_SLOT_SCRATCH) {
        const ap_buffer_t *planned = &a.scratch[AP_ETHOSU_SLOT_SCRATCH];
        if (planned->size < b.scratch_size || planned->data == NULL) {
            return AP_ERR_SCRATCH_TOO_SMALL;
        }
        scratch = planned->data;
    } else {
        /* A plan made before scratch was planned: the temp allocator, as ExecuTorch does. */
        scratch = ap_temp_alloc(ctx->temp, AP_DCACHE_ROUND((size_t)b.scratch_size), NPU_ALIGN);
        if (scratch == NULL) {
            return AP_ERR_TEMP_EXHAUSTED;
        }
    }
    int fast_planned = a.nscratch > AP_ETHOSU_SLOT_FAST_SCRATCH && a.scratch[AP_ETHOSU_SLOT_FAST_SCRATCH].size > 0;
    uint8_t *fast = fast_planned ? a.scratch[AP_ETHOSU_SLOT_FAST_SCRATCH].data : ap_ethosu_fast_scratch;
    size_t fast_size = fast_planned ? a.scratch[AP_ETHOSU_SLOT_FAST_SCRATCH].size : ap_ethosu_fast_scratch_size;
    if (fast_planned && fast == NULL) {
        return AP_ERR_SCRATCH_TOO_SMALL;
    }
    if (fast == NULL) {
        fast_size = 0;
    }
    size_t scratch_room = a.nscratch > AP_ETHOSU_SLOT_SCRATCH ? a.scratch[AP_ETHOSU_SLOT_SCRATCH].size
                                                             : AP_DCACHE_ROUND((size_t)b.scratch_size);
    if ((scratch != NULL && !npu_buffer_ok(scratch, scratch_room, b.scratch_size)) ||
        (fast_size > 0 && !npu_buffer_ok(fast, fast_size, fast_size))) {
        return AP_ERR_SCRATCH_MISALIGNED;
    }
    /* Every argument is checked before anything is copied; records are re-read from the blob
     * rather than kept, so a call's stack does not grow with its inputs and outputs (a Vela
     * LSTM partition has a hundred outputs). */
    io_copy_t io;
    size_t row = 0;
    int in_place = 0;
    for (uint32_t i = 0; i < b.ninputs + b.noutputs; i++) {
        int in = i < b.ninputs;
        ap_buffer_t *t = in ? &a.inputs[i] : &a.outputs[i - b.ninputs];
        (void)io_record(in ? b.inputs_block : b.outputs_block, in ? i : i - b.ninputs, b.scratch_size, &io);
        if (t->data == NULL && t->size > 0) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        if (in && t->size != io.bytes) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        if (!in && (s = output_rows(&io, t->size, &row)) != AP_OK) {
            return s;
        }
        if (!in && io.state_in_place && row != 0) {
            return AP_ERR_ARGUMENT_MISMATCH; /* state is copied whole */
        }
        if ((s = at_slot(t, &io, scratch, scratch_room, &in_place)) != AP_OK) {
            return s;
        }
    }
    for (uint32_t i = 0; i < b.ninputs; i++) {
        (void)io_record(b.inputs_block, i, b.scratch_size, &io);
        (void)at_slot(&a.inputs[i], &io, scratch, scratch_room, &in_place); /* checked above */
        if (io.bytes > 0 && !in_place) {
            memcpy(scratch + io.offset, a.inputs[i].data, io.bytes);
        }
    }
    /* State the NPU updates in place reads its old value from its slot: copied there when it
     * is planned elsewhere (at its slot it already is). */
    for (uint32_t k = 0; k < b.noutputs; k++) {
        (void)io_record(b.outputs_block, k, b.scratch_size, &io);
        (void)at_slot(&a.outputs[k], &io, scratch, scratch_room, &in_place);
        if (io.state_in_place && io.bytes > 0 && !in_place) {
            memcpy(scratch + io.offset, a.outputs[k].data, io.bytes);
        }
    }
    struct ethosu_driver *drv = ethosu_reserve_driver();
    if (drv == NULL) {
        return AP_ERR_DRIVER_SETUP;
    }
    /* A driver given fast memory by ethosu_init puts it in base address 2 of every job. */
    int fast_ours = 1;
    if (drv->fast_memory != 0) {
        if (fast_planned) {
            ethosu_release_driver(drv);
            return AP_ERR_DRIVER_SETUP; /* the planned fast scratch would be silently replaced */
        }
        fast = (uint8_t *)(uintptr_t)drv->fast_memory;
        fast_size = drv->fast_memory_size;
        fast_ours = 0; /* the driver's: the CPU never touches it, its cache is not ours to keep */
    }
    size_t scratch_span = AP_DCACHE_ROUND((size_t)b.scratch_size);
    size_t fast_span = fast_ours ? AP_DCACHE_ROUND(fast_size) : 0;
    if (AP_DCACHE_MAINTAINED && scratch != NULL && scratch_span > 0) {
        ap_dcache_clean(scratch, scratch_span);
    }
    if (AP_DCACHE_MAINTAINED && fast_span > 0) {
        ap_dcache_clean(fast, fast_span);
    }
    uint64_t base[3] = {(uint64_t)(uintptr_t)b.weights, (uint64_t)(uintptr_t)scratch, (uint64_t)(uintptr_t)fast};
    size_t sizes[3] = {b.weights_size, b.scratch_size, fast_size};
    ap_ethosu_job_hook(&b);
    int rc = ethosu_invoke_v3(drv, b.cmd, (int)b.cmd_size, base, sizes, 3, NULL);
    ethosu_release_driver(drv);
    if (AP_DCACHE_MAINTAINED && scratch != NULL && scratch_span > 0) {
        ap_dcache_invalidate(scratch, scratch_span);
    }
    if (AP_DCACHE_MAINTAINED && fast_span > 0) {
        ap_dcache_invalidate(fast, fast_span);
    }
    if (rc != 0) {
        return AP_ERR_DRIVER;
    }
    for (uint32_t k = 0; k < b.noutputs; k++) {
        (void)io_record(b.outputs_block, k, b.scratch_size, &io);
        (void)output_rows(&io, a.outputs[k].size, &row); /* checked above */
        (void)at_slot(&a.outputs[k], &io, scratch, scratch_room, &in_place);
        if (in_place) {
            continue; /* the NPU wrote it where it is planned; invalidated with the scratch */
        }
        uint8_t *dst = a.outputs[k].data;
        const uint8_t *src = scratch + io.offset;
        if (row == 0) {
            if (io.bytes > 0) {
                memcpy(dst, src, io.bytes);
            }
            continue;
        }
        for (uint32_t r = 0; r < io.chunks; r++) {
            memcpy(dst + (size_t)r * row, src + (size_t)r * io.stride, row);
        }
    }
    return AP_OK;
}

const ap_backend_t ap_ethosu_backend = {"EthosUBackend", init, execute, NULL, sizeof(ap_ethosu_blob_t), NULL, 1};
