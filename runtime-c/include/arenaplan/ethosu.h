/* The Ethos-U backend ("EthosUBackend"): runs Vela-compiled partitions (the Vela bin stream
 * ExecuTorch's Arm backend stores as the delegate blob) with planned scratch, falling back to
 * the temp allocator under plans made before scratch was planned.
 *
 * Per call, through Arm's driver (ethosu_invoke_v3), always three base addresses:
 *   0 weights (in the blob, in place), 1 scratch (slot AP_ETHOSU_SLOT_SCRATCH, or the temp
 *   allocator), 2 fast scratch (slot AP_ETHOSU_SLOT_FAST_SCRATCH, or the firmware-wide fallback
 *   ap_ethosu_fast_scratch / _size below, which may be empty for streams that do not use it);
 * user_arg NULL, as ExecuTorch passes it (a platform's ethosu_inference_begin/_end callbacks
 * get NULL from arenaplan too).
 *
 * Driver set-up: call ethosu_init(drv, NPU_BASE, NULL, 0, secure, privileged) when the plan
 * has fast scratch: a driver given fast memory replaces base address 2 of every job with it,
 * so a call with planned fast scratch on such a driver is refused (AP_ERR_DRIVER_SETUP) rather
 * than silently run elsewhere. Give the driver fast memory only for plans without it.
 *
 * Caches: before the job the backend cleans the scratch and fast scratch (which hold the input
 * copies, and may hold the CPU's dirty lines of earlier tensors), after it invalidates them; the
 * blob is read-only. Both buffers must start on a data-cache line (AP_DCACHE_LINE_SIZE) and own
 * whole lines (arenaplan's plans pad them); the temp-allocator fallback allocates them so. */
#ifndef ARENAPLAN_ETHOSU_H
#define ARENAPLAN_ETHOSU_H

#include "arenaplan/runtime.h"
#include "arenaplan/scratch_slots.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_ETHOSU_MAX_IO 16

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

/* Checks block order, 16-byte padding, the COP1/COP2 command stream and the I/O records;
 * AP_ERR_UNSUPPORTED for a block flagged external (its data is a key into a named data map,
 * which arenaplan does not resolve). */
ap_status_t ap_ethosu_parse(const uint8_t *blob, size_t size, ap_ethosu_blob_t *out);

/* The fast scratch for calls whose plan has none (plans made before scratch was planned, or
 * without a fast-scratch slot): base address 2. Defined weakly as empty; firmware running
 * Dedicated_Sram streams under such plans defines both, line-aligned. */
extern uint8_t *ap_ethosu_fast_scratch;
extern size_t ap_ethosu_fast_scratch_size;

extern const ap_backend_t ap_ethosu_backend;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_ETHOSU_H */
