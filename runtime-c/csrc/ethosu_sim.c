/* A host simulator of Arm's Ethos-U driver API, for the host and QEMU (no NPU). Not a model of
 * the NPU: it checks the contract and makes mistakes visible.
 *
 * ethosu_invoke_v3 checks every region (non-NULL, 16-byte aligned, non-empty, no two
 * overlapping, the scratch holding every I/O copy), records the call, reads the inputs from
 * their copies in the scratch region, then POISONS the whole scratch (and fast scratch) with
 * 0xDB, then writes each output as a documented function of the inputs:
 *
 *     output[k][j] = (sum of all input bytes + 31 * j + 7 * k) mod 256
 *
 * So a plan that let scratch overlap a live tensor corrupts it, and a test sees it. */
#include "arenaplan/ethosu.h"
#include "arenaplan/ethosu_driver.h"
#include "arenaplan/ethosu_sim.h"

#include <string.h>

struct ethosu_driver {
    int reserved;
};

static struct ethosu_driver the_driver;
static ap_ethosu_sim_record_t last;
static uint32_t calls;

struct ethosu_driver *ethosu_reserve_driver(void) {
    if (the_driver.reserved) {
        return NULL;
    }
    the_driver.reserved = 1;
    return &the_driver;
}

void ethosu_release_driver(struct ethosu_driver *drv) {
    if (drv == &the_driver) {
        the_driver.reserved = 0;
    }
}

static int overlap(uint64_t a, size_t an, uint64_t b, size_t bn) {
    return an > 0 && bn > 0 && a < b + bn && b < a + an;
}

int ethosu_invoke_v3(struct ethosu_driver *drv, const void *cmd, const int cmd_size, uint64_t *const base,
                     const size_t *sizes, const int n, void *user_arg) {
    memset(&last, 0, sizeof last);
    last.status = AP_ETHOSU_SIM_BAD_CALL;
    calls++;
    if (drv != &the_driver || cmd == NULL || cmd_size < 4 || base == NULL || sizes == NULL || n < 2 || n > 3 ||
        user_arg == NULL) {
        return -1;
    }
    if (memcmp(cmd, "COP1", 4) != 0 && memcmp(cmd, "COP2", 4) != 0) {
        return -1;
    }
    last.num_regions = (uint32_t)n;
    for (int k = 0; k < n; k++) {
        last.base[k] = base[k];
        last.size[k] = sizes[k];
        if (k >= 1 && sizes[k] > 0 && (base[k] == 0 || (base[k] & 15u) != 0)) {
            last.status = AP_ETHOSU_SIM_BAD_REGION;
            return -1;
        }
        for (int j = 0; j < k; j++) {
            if (overlap(base[j], sizes[j], base[k], sizes[k])) {
                last.status = AP_ETHOSU_SIM_OVERLAP;
                return -1;
            }
        }
    }
    const ap_ethosu_job_t *job = (const ap_ethosu_job_t *)user_arg;
    uint8_t *scratch = (uint8_t *)(uintptr_t)base[1];
    if (scratch == NULL || job->ninputs > AP_ETHOSU_MAX_IO || job->noutputs > AP_ETHOSU_MAX_IO) {
        last.status = AP_ETHOSU_SIM_BAD_REGION;
        return -1;
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < job->ninputs; i++) {
        const ap_ethosu_io_t *io = &job->inputs[i];
        if (io->offset > sizes[1] || io->size > sizes[1] - io->offset) {
            last.status = AP_ETHOSU_SIM_BAD_REGION;
            return -1;
        }
        for (uint32_t j = 0; j < io->size; j++) {
            sum += scratch[io->offset + j];
        }
    }
    for (uint32_t i = 0; i < job->noutputs; i++) {
        const ap_ethosu_io_t *io = &job->outputs[i];
        if (io->offset > sizes[1] || io->size > sizes[1] - io->offset) {
            last.status = AP_ETHOSU_SIM_BAD_REGION;
            return -1;
        }
    }
    memset(scratch, 0xDB, sizes[1]);
    if (n == 3 && sizes[2] > 0) {
        memset((uint8_t *)(uintptr_t)base[2], 0xDB, sizes[2]);
    }
    for (uint32_t k = 0; k < job->noutputs; k++) {
        const ap_ethosu_io_t *io = &job->outputs[k];
        for (uint32_t j = 0; j < io->size; j++) {
            scratch[io->offset + j] = (uint8_t)(sum + 31u * j + 7u * k);
        }
    }
    last.input_sum = sum;
    last.status = AP_ETHOSU_SIM_OK;
    return 0;
}

const ap_ethosu_sim_record_t *ap_ethosu_sim_last(void) { return &last; }
uint32_t ap_ethosu_sim_calls(void) { return calls; }
void ap_ethosu_sim_reset(void) {
    memset(&last, 0, sizeof last);
    calls = 0;
    the_driver.reserved = 0;
}
