/* The NXP eIQ Neutron backend ("NeutronBackend"): runs the payload ExecuTorch's Neutron
 * backend stores as the delegate blob, through NXP's driver API (arenaplan/neutron_driver.h):
 * neutronModelPrepare at init, neutronRunBlocking per call, neutronModelUnprepare at destroy.
 * The application calls neutronInit once before (as with ExecuTorch).
 *
 * Per call the data config is ExecuTorch's: inputs in the payload's input order, outputs in its
 * output order followed by the scratch, profile and debug buffers, scratchWeights = the SRAM
 * scratch. Each comes from its slot (arenaplan/scratch_slots.h), or from the temp allocator under
 * plans made before scratch was planned (16-byte aligned). Payloads that ask the runtime to
 * transpose an input or output (a non-zero format byte) are refused (AP_ERR_UNSUPPORTED): the
 * runtime has no tensor shapes to transpose with; arenaplan's build refuses them first, naming
 * the tensor. */
#ifndef ARENAPLAN_NEUTRON_H
#define ARENAPLAN_NEUTRON_H

#include "arenaplan/runtime.h"
#include "arenaplan/scratch_slots.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_NEUTRON_MAX_IO 16

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
 * config (three pointers and a 32-bit timeout) and its model handle — five pointers' room,
 * checked against the real types where the backend is compiled. */
#define AP_NEUTRON_HANDLE_BYTES (sizeof(ap_neutron_blob_t) + 5u * sizeof(void *))

/* Checks the header, the microcode's magic and counts, and that weights and kernels lie in the
 * blob; AP_ERR_UNSUPPORTED for a format (transposition) flag. */
ap_status_t ap_neutron_parse(const uint8_t *blob, size_t size, ap_neutron_blob_t *out);

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
} ap_neutron_job_t;

/* Called with every job just before neutronRunBlocking: a trace point. The default (weak) does
 * nothing; the simulator uses it to learn the sizes it checks and writes. */
void ap_neutron_job_hook(void *model_handle, const ap_neutron_job_t *job);

extern const ap_backend_t ap_neutron_backend;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_NEUTRON_H */
