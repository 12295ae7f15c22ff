/* The emulated Ethos-U NPU, for the host and QEMU (no NPU there), and what it recorded.
 *
 * Two ways to reach it, the same checks either way:
 *  - with Arm's driver (ETHOS_U_CORE_DRIVER_PATH at build time), Arm's ethosu_driver.c runs
 *    unchanged over arenaplan's device layer (emulation/ethosu_device_host.c), which stands in for
 *    the NPU's registers: it records QBASE and BASEP0..n, runs the job on the emulated NPU and
 *    completes it through the driver's interrupt handler;
 *  - without it, the driver simulator (emulation/ethosu_sim.c) takes the driver's place, with the
 *    checks of Arm's driver front end (COP1 payload, 16-byte alignment, fast-memory override).
 *
 * The emulated NPU (emulation/ethosu_npu_model.c) checks what the hardware needs: an optimizer
 * config matching its CONFIG and ID registers, a command stream that ends in NPU_OP_STOP inside
 * its payload, and every region the stream addresses present (a base address, non-zero size,
 * 16-byte aligned) and no two regions overlapping. Then the functional model of
 * emulation/ethosu_model/ executes the stream as the NPU the CONFIG register names (an
 * Ethos-U55 or Ethos-U85 of any MAC count), computing what the NPU computes
 * on the regions given, and faults (AP_ETHOSU_SIM_FAULT, the command named in the record) on
 * what it cannot execute. No output is ever made up. */
#ifndef ARENAPLAN_ETHOSU_SIM_H
#define ARENAPLAN_ETHOSU_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_ethosu_sim_status {
    AP_ETHOSU_SIM_OK = 0,
    AP_ETHOSU_SIM_BAD_CALL = 1,        /* bad payload or command stream, or not a Vela job */
    AP_ETHOSU_SIM_BAD_REGION = 2,      /* a region the stream uses is missing, empty or unaligned,
                                          or an I/O copy lies outside the scratch */
    AP_ETHOSU_SIM_OVERLAP = 3,         /* two regions overlap */
    AP_ETHOSU_SIM_CONFIG_MISMATCH = 4, /* the optimizer config is not this NPU's */
    AP_ETHOSU_SIM_FAULT = 5,           /* the stream asked for something the NPU cannot do, or
                                          the model cannot execute: fault says what */
    AP_ETHOSU_SIM_FORCE_32_BITS = 0x7FFFFFFF /* as ap_status_t: 32 bits everywhere */
} ap_ethosu_sim_status_t;

#define AP_ETHOSU_SIM_REGIONS 8u

typedef struct ap_ethosu_sim_record {
    ap_ethosu_sim_status_t status;
    uint32_t num_regions;                /* base addresses the driver programmed */
    uint64_t base[AP_ETHOSU_SIM_REGIONS]; /* BASEP0..7 */
    uint64_t size[AP_ETHOSU_SIM_REGIONS]; /* and the sizes the driver was given */
    uint32_t regions_used;               /* bit r: the command stream addresses region r */
    uint64_t qbase;                      /* the command stream */
    uint32_t qsize;                      /* its bytes */
    uint32_t user_arg_set;               /* the job's user_arg was not NULL */
    /* AP_ETHOSU_SIM_CONFIG_MISMATCH: the fields Arm's driver found different
     * (AP_ETHOSU_MISMATCH_*), the stream's optimizer config (CONFIG and ID words, as Vela wrote
     * them) and the NPU's CONFIG and ID registers. Appended: older readers stop before. */
    uint32_t mismatch;
    uint32_t stream_config;
    uint32_t stream_id;
    uint32_t npu_config;
    uint32_t npu_id;
    /* AP_ETHOSU_SIM_FAULT: what (a sentence), the command that raised it (its opcode and
     * name, NULL past the stream's end) at which word of the stream, and a number the
     * sentence refers to (a mode, a size, a region). */
    const char *fault;
    const char *fault_command;
    uint32_t fault_opcode;
    uint32_t fault_word;
    uint32_t fault_detail;
    /* Operations the functional model executed. */
    uint32_t npu_ops;
} ap_ethosu_sim_record_t;

/* The optimizer-config fields Arm's driver compares (ethosu_dev_verify_optimizer_config) when
 * the stream's CONFIG word is not the NPU's: product, macs_per_cc and cmd_stream_version must be
 * equal, custom DMA may be used only by an NPU that has it; and always, the architecture's
 * major version must be equal and its minor version at most the NPU's. */
#define AP_ETHOSU_MISMATCH_PRODUCT 1u
#define AP_ETHOSU_MISMATCH_MACS_PER_CC 2u
#define AP_ETHOSU_MISMATCH_CMD_STREAM_VERSION 4u
#define AP_ETHOSU_MISMATCH_CUSTOM_DMA 8u
#define AP_ETHOSU_MISMATCH_ARCH 16u

/* CONFIG and ID register values of the emulated NPUs: what Vela writes into the optimizer
 * config of a stream compiled for that NPU (ethos-u-vela 5.2.0). */
#define AP_ETHOSU_U55_128_CONFIG 0x00001807u
#define AP_ETHOSU_U55_128_ID 0x10066001u
#define AP_ETHOSU_U85_256_CONFIG 0x20000118u
#define AP_ETHOSU_U85_256_ID 0x20007000u

/* Registers the emulated NPU with the driver (ethosu_init, after ethosu_deinit of an earlier
 * set-up) as an NPU reporting `config` and `id`, with the driver's optional fast memory, and
 * clears the records. Firmware for a real NPU calls ethosu_init itself (see the README). */
ap_status_t ap_ethosu_host_setup(uint32_t config, uint32_t id, const void *fast_memory, size_t fast_memory_size);

const ap_ethosu_sim_record_t *ap_ethosu_sim_last(void);
uint32_t ap_ethosu_sim_calls(void);
/* Clears the records (not the set-up). */
void ap_ethosu_sim_reset(void);

/* Delivers a pending NPU interrupt (ethosu_irq_handler), as the NPU's IRQ would; returns
 * whether one was pending. On the host the driver's wait calls it; firmware under QEMU calls it
 * from the PendSV handler the device layer pends. */
int ap_ethosu_host_irq(void);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_ETHOSU_SIM_H */
