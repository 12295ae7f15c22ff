/* The Ethos-U backend ("EthosUBackend"): runs Vela-compiled partitions (the Vela bin stream
 * ExecuTorch's Arm backend stores as the delegate blob) with planned scratch, falling back to
 * the temp allocator under plans made before scratch was planned. */
#ifndef ARENAPLAN_ETHOSU_H
#define ARENAPLAN_ETHOSU_H

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_ETHOSU_MAX_IO 16

/* One input or output of a partition: where its copy lives in the scratch region. */
typedef struct ap_ethosu_io {
    uint32_t offset;
    uint32_t size;
} ap_ethosu_io_t;

/* What the backend passes the driver as user_arg: the I/O copies in the scratch region. The
 * real driver only hands it to its callbacks; the simulator reads it to know where the inputs
 * are and where to write the outputs. */
typedef struct ap_ethosu_job {
    uint32_t ninputs;
    uint32_t noutputs;
    ap_ethosu_io_t inputs[AP_ETHOSU_MAX_IO];
    ap_ethosu_io_t outputs[AP_ETHOSU_MAX_IO];
} ap_ethosu_job_t;

/* A parsed bin stream (points into the blob). */
typedef struct ap_ethosu_blob {
    const uint8_t *cmd;
    const uint8_t *weights;
    const uint8_t *inputs_block;
    const uint8_t *outputs_block;
    uint32_t cmd_size;
    uint32_t weights_size;
    uint32_t scratch_size;
    uint32_t ninputs;
    uint32_t noutputs;
} ap_ethosu_blob_t;

/* Checks block order, 16-byte padding, the COP1/COP2 command stream, and the I/O records. */
ap_status_t ap_ethosu_parse(const uint8_t *blob, size_t size, ap_ethosu_blob_t *out);

extern const ap_backend_t ap_ethosu_backend;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_ETHOSU_H */
