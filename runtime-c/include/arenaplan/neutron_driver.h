/* The seam between the Neutron backend and NXP's eIQ Neutron driver.
 *
 * With NXP's API (the build defines AP_NEUTRON_NXP_API and puts the folder holding
 * NeutronDriver.h on the include path; see runtime-c/README.md), this is NXP's own header and
 * nothing here declares anything: on a board NXP's library (MCUXpresso SDK) links in. Without
 * it, this header declares the part of NXP's API the backend calls, with NXP's names, types and
 * field order, which the host simulator (emulation/neutron_sim.c) implements. */
#ifndef ARENAPLAN_NEUTRON_DRIVER_H
#define ARENAPLAN_NEUTRON_DRIVER_H

#ifdef AP_NEUTRON_NXP_API
#include <NeutronDriver.h>
#else

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t NeutronError;
#define ENONE 0
typedef void *NeutronModelHandle;

typedef struct {
    const void *microcode; /* 16-byte aligned */
    const void *weights;   /* 16-byte aligned */
    const void *kernels;   /* 16-byte aligned */
    uint32_t timeoutSeconds;
} NeutronModelConfig;

typedef struct {
    const void **inputs;
    void **outputs; /* outputs, then scratch, profile and debug buffers (ExecuTorch's layout) */
    void *scratch;
    void *scratchWeights; /* the SRAM scratch weights are prefetched into */
} NeutronDataConfig;

NeutronError neutronInit(void);
NeutronError neutronDeinit(void);
NeutronError neutronModelPrepare(const NeutronModelConfig *mcfg, NeutronModelHandle *hdl);
NeutronError neutronModelUnprepare(NeutronModelHandle hdl);
NeutronError neutronRunBlocking(NeutronModelHandle hdl, const NeutronDataConfig *dcfg);
/* Bytes of the model context neutronModelPrepare keeps in the caller's memory. */
size_t neutronGetModelContextSize(void);

#ifdef __cplusplus
}
#endif

#endif /* AP_NEUTRON_NXP_API */
#endif /* ARENAPLAN_NEUTRON_DRIVER_H */
