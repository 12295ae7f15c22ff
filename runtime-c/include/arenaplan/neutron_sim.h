/* The host simulator of NXP's Neutron driver API (emulation/neutron_sim.c), for the host and QEMU
 * (no NPU): neutronInit, neutronDeinit, neutronModelPrepare, neutronModelUnprepare and
 * neutronRunBlocking with NXP's signatures, so NXP's library links in their place on a board.
 *
 * It refuses what NXP's driver needs and does not get: prepare before neutronInit; microcode,
 * weights or kernels NULL or not 16-byte aligned; a microcode without Neutron's magic; running
 * an unknown or unprepared handle; and, per run, a data config that is not the job the backend
 * described through ap_neutron_job_hook (inputs, outputs then scratch, profile and debug in the
 * outputs array, scratchWeights the SRAM scratch), a needed buffer NULL or not 16-byte aligned,
 * or a scratch, SRAM scratch, profile or debug buffer overlapping another buffer of the call.
 * For an input the backend transposed (the job's layout names its NCHW source), every element
 * must be the source's at the same (n,c,h,w) in channels-last order. Then it poisons the
 * scratch, SRAM scratch, profile and debug buffers with 0xDB and writes each output as
 *
 *     output[k][j] = (sum of all input bytes + 31 * j + 7 * k) mod 256
 *
 * with j the byte's index in the program's (NCHW) order: an output the NPU writes
 * channels-last is written transposed, so it reads as the formula only once the backend has
 * transposed it back. */
#ifndef ARENAPLAN_NEUTRON_SIM_H
#define ARENAPLAN_NEUTRON_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model context the simulator asks for (neutronGetModelContextSize) and, given the caller's
 * memory at prepare (NXP's NO_HEAP_USAGE), fills. */
#define AP_NEUTRON_SIM_CONTEXT_BYTES 256u

typedef enum ap_neutron_sim_status {
    AP_NEUTRON_SIM_OK = 0,
    AP_NEUTRON_SIM_NOT_INITIALIZED = 1, /* neutronInit was not called */
    AP_NEUTRON_SIM_BAD_MODEL = 2,       /* NULL, unaligned or not Neutron microcode */
    AP_NEUTRON_SIM_BAD_HANDLE = 3,      /* not a prepared model */
    AP_NEUTRON_SIM_BAD_DATA = 4,        /* the data config is not the described job */
    AP_NEUTRON_SIM_BAD_REGION = 5,      /* a buffer NULL or unaligned */
    AP_NEUTRON_SIM_OVERLAP = 6,         /* a scratch buffer overlaps another buffer */
    AP_NEUTRON_SIM_BAD_LAYOUT = 7,      /* a transposed input is not the NHWC copy of its source */
    AP_NEUTRON_SIM_FORCE_32_BITS = 0x7FFFFFFF
} ap_neutron_sim_status_t;

typedef struct ap_neutron_sim_record {
    ap_neutron_sim_status_t status;
    uint32_t ninputs;
    uint32_t noutputs;
    uint64_t scratch;      /* addresses the run got, and their sizes */
    uint64_t scratch_size;
    uint64_t sram_scratch;
    uint64_t sram_scratch_size;
    uint64_t profile;
    uint64_t profile_size;
    uint64_t debug;
    uint64_t debug_size;
    uint32_t input_sum;
    uint64_t input0;  /* where the NPU read its first input and wrote its first output */
    uint64_t output0;
} ap_neutron_sim_record_t;

/* neutronInit, once (as an application does at start-up), and clears the records. */
ap_status_t ap_neutron_host_setup(void);
const ap_neutron_sim_record_t *ap_neutron_sim_last(void);
uint32_t ap_neutron_sim_calls(void);
/* Prepared models not yet unprepared. */
uint32_t ap_neutron_sim_prepared(void);
void ap_neutron_sim_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_NEUTRON_SIM_H */
