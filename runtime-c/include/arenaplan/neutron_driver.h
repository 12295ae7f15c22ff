/* The seam between the Neutron backend and the NPU: one blocking run of a prepared model, with
 * the pointers ExecuTorch's Neutron backend hands NXP's driver (inputs, outputs, scratch, SRAM
 * scratch). A port to NXP's eIQ Neutron driver implements this function over its prepare/run
 * calls; on the host and under QEMU the simulator (csrc/neutron_sim.c) implements it. */
#ifndef ARENAPLAN_NEUTRON_DRIVER_H
#define ARENAPLAN_NEUTRON_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_neutron_run {
    const uint8_t *microcode;
    uint32_t microcode_size;
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
} ap_neutron_run_t;

/* Returns 0 on success. */
int ap_neutron_run_blocking(const ap_neutron_run_t *run);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_NEUTRON_DRIVER_H */
