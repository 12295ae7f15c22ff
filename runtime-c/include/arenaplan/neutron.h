/* The NXP eIQ Neutron backend ("NeutronBackend"): runs the payload ExecuTorch's Neutron
 * backend stores as the delegate blob, through NXP's driver API (arenaplan/neutron_driver.h):
 * neutronModelPrepare at init, neutronRunBlocking per call, neutronModelUnprepare at destroy.
 * The application calls neutronInit once before (as with ExecuTorch).
 *
 * Per call the data config is ExecuTorch's: inputs in the payload's input order, outputs in its
 * output order followed by the scratch, profile and debug buffers, scratchWeights = the SRAM
 * scratch. Each comes from its slot (arenaplan/scratch_slots.h), or from the temp allocator under
 * plans made before scratch was planned (16-byte aligned).
 *
 * Transpositions, as NXP's backend makes them: a payload's format byte asks to see a Neutron
 * input or output channels-last (NHWC). Which tensors need a copy (NXP's rules: not when the
 * tensor is channels-last already or has one channel; never for 1-D and 2-D tensors) the build
 * works out from the tensors' shapes and dim orders, and passes as the compile spec
 * AP_NEUTRON_TRANSPOSE_SPEC (ap_neutron_transpositions reads it). Each such input is copied
 * NCHW -> NHWC into the call's transposition buffer (scratch slot AP_NEUTRON_SLOT_TRANSPOSE,
 * planned; from the temp allocator under older plans) before neutronRunBlocking, and each
 * such output is copied back NHWC -> NCHW after it. A payload with a format byte set and no
 * descriptor (tables not made by such a build) is refused at init (AP_ERR_UNSUPPORTED). */
#ifndef ARENAPLAN_NEUTRON_H
#define ARENAPLAN_NEUTRON_H

#include "arenaplan/runtime.h"
#include "arenaplan/scratch_slots.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_NEUTRON_MAX_IO 16

/* The compile spec holding a delegate's transpositions, entries joined by ';', each
 * `i<slot>` or `o<slot>` then `:N,C,H,W,element@offset` (decimal; the offset into the call's
 * transposition buffer, a multiple of 16). */
#define AP_NEUTRON_TRANSPOSE_SPEC "arenaplan.neutron.transpose"

/* One tensor the backend transposes around the NPU call. */
typedef struct ap_neutron_transposition {
    uint32_t output; /* 1: an output (NHWC -> NCHW after the run), 0: an input */
    uint32_t slot;   /* its Neutron input or output index */
    uint32_t n, c, h, w;
    uint32_t element; /* bytes: 1, 2, 4 or 8 */
    uint32_t offset;  /* in the transposition buffer */
} ap_neutron_transposition_t;

/* Where the NPU's view of a transposed tensor comes from, for the simulator's checks: the
 * tensor in the program's NCHW layout and its dimensions (source NULL: passed as it is). */
typedef struct ap_neutron_layout {
    const void *source;
    uint32_t n, c, h, w, element;
} ap_neutron_layout_t;

/* A parsed payload (points into the blob). */
typedef struct ap_neutron_blob {
    const uint8_t *header;  /* formats at 3, maps after them */
    const uint8_t *microcode;
    const uint8_t *weights;
    const uint8_t *kernels;
    uint32_t microcode_size;
    uint32_t weights_size;
    uint32_t scratch_size;
    uint32_t sram_scratch_size;
    uint32_t profile_size;
    uint32_t debug_size;
    uint8_t ninputs;        /* Neutron inputs */
    uint8_t noutputs;
    uint8_t ninput_args;    /* inputs of the delegate call */
    uint8_t version;
} ap_neutron_blob_t;

/* Bytes of a delegate's handle, what a build sizes it by: the parsed payload, NXP's model
 * config (three pointers and a 32-bit timeout), its model handle and the descriptor of its
 * transpositions — six pointers' room, checked against the real types where the backend is
 * compiled. */
#define AP_NEUTRON_HANDLE_BYTES (sizeof(ap_neutron_blob_t) + 6u * sizeof(void *))

/* The compile spec giving the bytes of the model context a delegate's handle holds (decimal),
 * for NXP's library built with NO_HEAP_USAGE: neutronModelPrepare then puts the context in
 * the caller's memory instead of its heap. The build adds it from the target's
 * `npu.model_context`; init refuses (AP_ERR_STORAGE) a context smaller than
 * neutronGetModelContextSize() says. Without it, NXP's library allocates the context on its heap.
 * The context starts AP_NEUTRON_CONTEXT_OFFSET bytes into the handle (16-byte aligned). */
#define AP_NEUTRON_CONTEXT_SPEC "arenaplan.neutron.context"
#define AP_NEUTRON_CONTEXT_OFFSET ((AP_NEUTRON_HANDLE_BYTES + 15u) & ~(size_t)15u)

/* Checks the header, the microcode's magic and counts, the maps, and that weights and kernels
 * lie in the blob (docs/blob-formats.md). Format bytes are read, not judged: see
 * ap_neutron_transpositions. */
ap_status_t ap_neutron_parse(const uint8_t *blob, size_t size, ap_neutron_blob_t *out);

/* Reads a descriptor (AP_NEUTRON_TRANSPOSE_SPEC's value) for the payload `b`: at most
 * 2 * AP_NEUTRON_MAX_IO entries into `out`, their count, and the bytes of the transposition
 * buffer (the end of the last). AP_ERR_INVALID_PROGRAM for text that is not the grammar above,
 * a slot the payload does not have or whose format byte is 0, a slot listed twice, an element
 * size other than 1, 2, 4, 8, an offset not a multiple of 16, tensors overlapping in the
 * buffer, or sizes past 32 bits. `text` NULL: no transpositions (count 0). */
ap_status_t ap_neutron_transpositions(const char *text, const ap_neutron_blob_t *b, ap_neutron_transposition_t *out,
                                      size_t *count, uint32_t *buffer_bytes);

/* One call as the backend hands it to the driver, with the sizes NXP's API does not carry. */
typedef struct ap_neutron_job {
    const void *const *inputs;
    const size_t *input_sizes;
    uint32_t ninputs;
    void *const *outputs;
    const size_t *output_sizes;
    uint32_t noutputs;
    void *scratch;
    size_t scratch_size;
    void *sram_scratch;
    size_t sram_scratch_size;
    void *profile;
    size_t profile_size;
    void *debug;
    size_t debug_size;
    const ap_neutron_layout_t *input_layouts;  /* per input (ninputs entries) */
    const ap_neutron_layout_t *output_layouts; /* per output: where the NCHW tensor goes */
} ap_neutron_job_t;

/* Called with every job just before neutronRunBlocking: a trace point. The default (weak) does
 * nothing; the simulator uses it to learn the sizes it checks and writes. */
void ap_neutron_job_hook(void *model_handle, const ap_neutron_job_t *job);

extern const ap_backend_t ap_neutron_backend;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_NEUTRON_H */
