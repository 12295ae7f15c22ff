/* The NXP eIQ Neutron backend ("NeutronBackend"): runs the payload ExecuTorch's Neutron
 * backend stores as the delegate blob, with planned scratch and SRAM scratch, falling back to the
 * temp allocator under plans made before scratch was planned. */
#ifndef ARENAPLAN_NEUTRON_H
#define ARENAPLAN_NEUTRON_H

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_NEUTRON_MAX_IO 16

/* A parsed payload (points into the blob). */
typedef struct ap_neutron_blob {
    const uint8_t *header;  /* formats at 3, maps after them */
    const uint8_t *microcode;
    uint32_t microcode_size;
    uint32_t weights_size;
    uint32_t scratch_size;
    uint32_t sram_scratch_size;
    uint8_t ninputs;        /* Neutron inputs */
    uint8_t noutputs;
    uint8_t ninput_args;    /* inputs of the delegate call */
    uint8_t version;
} ap_neutron_blob_t;

ap_status_t ap_neutron_parse(const uint8_t *blob, size_t size, ap_neutron_blob_t *out);

extern const ap_backend_t ap_neutron_backend;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_NEUTRON_H */
