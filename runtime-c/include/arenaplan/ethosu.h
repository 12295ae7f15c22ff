/* The Ethos-U backend ("EthosUBackend"): runs Vela-compiled partitions (the Vela bin stream
 * ExecuTorch's Arm backend stores as the delegate blob) with planned scratch, falling back to
 * the temp allocator under plans made before scratch was planned.
 *
 * Per call, through Arm's driver (ethosu_invoke_v3), always three base addresses:
 *   0 weights (in the blob, in place), 1 scratch (slot AP_ETHOSU_SLOT_SCRATCH, or the temp
 *   allocator), 2 fast scratch (slot AP_ETHOSU_SLOT_FAST_SCRATCH; else the driver's own fast
 *   memory if ethosu_init was given one; else the firmware-wide fallback ap_ethosu_fast_scratch /
 *   _size below, which may be empty for streams that do not use it);
 * user_arg NULL, as ExecuTorch passes it (a platform's ethosu_inference_begin/_end callbacks
 * get NULL from arenaplan too).
 *
 * Driver set-up: call ethosu_init(drv, NPU_BASE, NULL, 0, secure, privileged) when the plan
 * has fast scratch: a driver given fast memory replaces base address 2 of every job with it,
 * so a call with planned fast scratch on such a driver is refused (AP_ERR_DRIVER_SETUP) rather
 * than silently run elsewhere. Give the driver fast memory only for plans without it.
 *
 * Inputs and outputs in the scratch: each record of the blob places one input or output in
 * region 1. A tensor whose address is its record's place in the planned scratch (and whose
 * size is the record's) is read or written there by the NPU, and nothing is copied; arenaplan
 * plans a network's I/O so where it can, as Vela's own plan does. Any other tensor is copied in
 * before the job and out after it (row by row where Vela pads an output's rows); one that
 * overlaps the scratch anywhere but at its place is refused (AP_ERR_ARGUMENT_MISMATCH), since a plan
 * and a blob that disagree must not copy a tensor onto itself. The check is by address, at
 * each call, before anything is copied.
 *
 * Caches (builds that maintain them, see arenaplan/dcache.h): init cleans the blob (a loader may
 * have written it through the cache); before each job the backend cleans the scratch and its
 * fast scratch (the input copies, inputs at their place, and any dirty lines of earlier
 * tensors there), after it invalidates them (outputs at their place included). Both must start on a data-cache line (AP_DCACHE_LINE_SIZE) and own whole
 * lines: a planned buffer's size must cover the rounded-up size (arenaplan's plans pad NPU
 * scratch so), else AP_ERR_SCRATCH_MISALIGNED; the temp-allocator fallback allocates so. A
 * driver's own fast memory (ethosu_init) is the driver's: the CPU never touches it, and the
 * backend leaves its cache alone. Without cache maintenance, 16-byte alignment is enough. */
#ifndef ARENAPLAN_ETHOSU_H
#define ARENAPLAN_ETHOSU_H

#include "arenaplan/runtime.h"
#include "arenaplan/scratch_slots.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most inputs, and most outputs, one partition may have (a Vela LSTM has a hundred outputs). */
#define AP_ETHOSU_MAX_IO 1024

/* An I/O record's region word: region 1 (the scratch), with this flag on an output that is
 * state the NPU updates in place (Vela's LSTM writes each step's state over the variable):
 * planned away from its slot, its old value is copied in before the job as well as out after.
 * arenaplan's extension of Vela's record, written by its TFLite importer (IoRecord in
 * arenaplan-build reads it the same way). */
#define AP_ETHOSU_IO_STATE_IN_PLACE 0x100u

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

/* Bytes of a delegate's handle: the parsed blob (what a build sizes the handle by). */
#define AP_ETHOSU_HANDLE_BYTES sizeof(ap_ethosu_blob_t)

/* Checks block order, 16-byte padding, the COP1/COP2 command stream and the I/O record
 * blocks' counts and lengths (each record's region and extent are checked by init, against
 * the call's arguments; docs/blob-formats.md is the format's one specification);
 * AP_ERR_UNSUPPORTED for a block flagged external (its data is a key into a named data map,
 * which arenaplan does not resolve). */
ap_status_t ap_ethosu_parse(const uint8_t *blob, size_t size, ap_ethosu_blob_t *out);

/* The fast scratch for calls whose plan has none (plans made before scratch was planned, or
 * without a fast-scratch slot): base address 2. Defined weakly as empty; firmware running
 * Dedicated_Sram streams under such plans defines both, line-aligned. */
extern uint8_t *ap_ethosu_fast_scratch;
extern size_t ap_ethosu_fast_scratch_size;

/* Called with the parsed blob just before each ethosu_invoke_v3: a trace point for firmware
 * (which job runs, its inputs and outputs). The default (weak) does nothing. */
void ap_ethosu_job_hook(const ap_ethosu_blob_t *blob);

extern const ap_backend_t ap_ethosu_backend;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_ETHOSU_H */
