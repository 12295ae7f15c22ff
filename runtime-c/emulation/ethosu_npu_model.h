/* The emulated Ethos-U NPU shared by the device layer (with Arm's driver) and the driver
 * simulator (without it). Private to the runtime's simulator builds. */
#ifndef ARENAPLAN_ETHOSU_NPU_MODEL_H
#define ARENAPLAN_ETHOSU_NPU_MODEL_H

#include "arenaplan/ethosu_sim.h"

/* What ethosu_init's base_address points at on the host: the registers the emulation has. */
typedef struct ap_ethosu_npu {
    uint32_t config; /* CONFIG */
    uint32_t id;     /* ID */
    volatile int irq_pending;
    volatile int job_ok; /* STATUS: the last job reached its end without a fault */
    void *driver;        /* the struct ethosu_driver registered over it */
} ap_ethosu_npu_t;

/* The emulated NPU the host set-up registers. */
extern ap_ethosu_npu_t ap_ethosu_host_npu;

/* The optimizer config check of Arm's device layer: product, MACs and command stream version
 * must match CONFIG, the architecture major version ID's and its minor at least ID's. Records
 * a mismatch. Returns 1 when they match. */
int ap_ethosu_npu_verify_config(const ap_ethosu_npu_t *npu, uint32_t cfg, uint32_t id);

/* Runs one command stream (cmd, cmd_bytes) that lies in the payload (custom, custom_size) with
 * n regions. Records everything; returns 1 when the job ran, 0 on a fault. */
int ap_ethosu_npu_run(ap_ethosu_npu_t *npu, const uint8_t *custom, size_t custom_size, const uint8_t *cmd,
                      uint32_t cmd_bytes, const uint64_t *base, const size_t *size, int n, const void *user_arg);

/* Records a job the driver front end refused before the NPU saw it. */
void ap_ethosu_npu_refused(ap_ethosu_sim_status_t status, const uint64_t *base, const size_t *size, int n);

#endif /* ARENAPLAN_ETHOSU_NPU_MODEL_H */
