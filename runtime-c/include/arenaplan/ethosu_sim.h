/* What the Ethos-U driver simulator recorded, for tests. */
#ifndef ARENAPLAN_ETHOSU_SIM_H
#define ARENAPLAN_ETHOSU_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_ethosu_sim_status {
    AP_ETHOSU_SIM_OK = 0,
    AP_ETHOSU_SIM_BAD_CALL = 1,   /* wrong driver, NULL, bad command stream or region count */
    AP_ETHOSU_SIM_BAD_REGION = 2, /* NULL, unaligned, or an I/O copy outside the scratch */
    AP_ETHOSU_SIM_OVERLAP = 3,    /* two regions overlap */
    AP_ETHOSU_SIM_FORCE_32_BITS = 0x7FFFFFFF /* as ap_status_t: 32 bits everywhere */
} ap_ethosu_sim_status_t;

typedef struct ap_ethosu_sim_record {
    ap_ethosu_sim_status_t status;
    uint32_t num_regions;
    uint64_t base[3];
    size_t size[3];
    uint32_t input_sum;
} ap_ethosu_sim_record_t;

const ap_ethosu_sim_record_t *ap_ethosu_sim_last(void);
uint32_t ap_ethosu_sim_calls(void);
void ap_ethosu_sim_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_ETHOSU_SIM_H */
