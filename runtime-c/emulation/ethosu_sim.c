/* The Ethos-U driver simulator: Arm's driver API (arenaplan/ethosu_driver.h) for builds without
 * Arm's driver, over the emulated NPU (ethosu_npu_model.c). It applies the checks Arm's front
 * end applies, in its order (the driver's README and ethosu_driver.c v1.0.0 are the reference):
 *
 *  - the payload starts with the "COP1" word and is a whole number of words;
 *  - when ethosu_init was given fast memory and the job has a third base address, that base
 *    address is replaced by the fast memory (the job fails if the fast memory is smaller);
 *  - driver actions: OPTIMIZER_CONFIG (checked against the NPU), COMMAND_STREAM (the stream and
 *    every base address 16-byte aligned), NOP; anything else fails the job.
 *
 * One NPU, registered by ethosu_init. Where Arm's driver blocks (reserving a driver that is in
 * use), the simulator returns NULL. */
#include "arenaplan/ethosu_driver.h"

#include "ethosu_npu_model.h"

#include <string.h>
#include "../core/bytes.h"

#define COP1 0x31504F43u /* "COP1" read as a little-endian word */

enum { OPTIMIZER_CONFIG = 1, COMMAND_STREAM = 2, NOP = 5 };

static struct ethosu_driver *registered;


int ethosu_init(struct ethosu_driver *drv, void *const base_address, const void *fast_memory,
                const size_t fast_memory_size, uint32_t secure_enable, uint32_t privilege_enable) {
    (void)secure_enable;
    (void)privilege_enable;
    if (drv == NULL || base_address == NULL || registered != NULL) {
        return -1;
    }
    drv->fast_memory = (uint64_t)(uintptr_t)fast_memory;
    drv->fast_memory_size = fast_memory_size;
    drv->npu = base_address;
    drv->reserved = 0;
    drv->registered = 1;
    registered = drv;
    return 0;
}

void ethosu_deinit(struct ethosu_driver *drv) {
    if (drv != NULL && drv == registered) {
        registered = NULL;
        drv->registered = 0;
    }
}

struct ethosu_driver *ethosu_reserve_driver(void) {
    if (registered == NULL || registered->reserved) {
        return NULL;
    }
    registered->reserved = 1;
    return registered;
}

void ethosu_release_driver(struct ethosu_driver *drv) {
    if (drv != NULL && drv == registered) {
        drv->reserved = 0;
    }
}

int ap_ethosu_host_irq(void) { return 0; /* jobs complete synchronously here */ }

int ethosu_invoke_v3(struct ethosu_driver *drv, const void *custom_data_ptr, const int custom_data_size,
                     uint64_t *const base_addr, const size_t *base_addr_size, const int num_base_addr,
                     void *user_arg) {
    const uint8_t *data = custom_data_ptr;
    if (drv == NULL || drv != registered || data == NULL || base_addr == NULL || base_addr_size == NULL ||
        custom_data_size < 4 || num_base_addr < 0 || num_base_addr > (int)AP_ETHOSU_SIM_REGIONS) {
        ap_ethosu_npu_refused(AP_ETHOSU_SIM_BAD_CALL, NULL, NULL, 0);
        return -1;
    }
    if (ap_rd32(data) != COP1 || custom_data_size % 4 != 0) {
        ap_ethosu_npu_refused(AP_ETHOSU_SIM_BAD_CALL, base_addr, base_addr_size, num_base_addr);
        return -1;
    }
    if (drv->fast_memory != 0 && num_base_addr > 2) {
        if (base_addr_size[2] > drv->fast_memory_size) {
            ap_ethosu_npu_refused(AP_ETHOSU_SIM_BAD_REGION, base_addr, base_addr_size, num_base_addr);
            return -1;
        }
        base_addr[2] = drv->fast_memory;
    }
    ap_ethosu_npu_t *npu = drv->npu;
    size_t words = (size_t)custom_data_size / 4;
    for (size_t w = 1; w < words;) {
        uint32_t action = ap_rd32(data + 4 * w);
        switch (action & 0xFFu) {
        case OPTIMIZER_CONFIG:
            if (w + 3 > words || !ap_ethosu_npu_verify_config(npu, ap_rd32(data + 4 * w + 4), ap_rd32(data + 4 * w + 8))) {
                return -1;
            }
            w += 3;
            break;
        case COMMAND_STREAM: {
            size_t length = (size_t)(((action >> 8) & 0xFFu) << 16 | (action >> 16));
            const uint8_t *cmd = data + 4 * (w + 1);
            int aligned = ((uintptr_t)cmd & 15u) == 0;
            for (int k = 0; k < num_base_addr; k++) {
                aligned &= (base_addr[k] & 15u) == 0;
            }
            if (!aligned) {
                ap_ethosu_npu_refused(AP_ETHOSU_SIM_BAD_REGION, base_addr, base_addr_size, num_base_addr);
                return -1;
            }
            if (!ap_ethosu_npu_run(npu, data, (size_t)custom_data_size, cmd, (uint32_t)(length * 4), base_addr,
                                   base_addr_size, num_base_addr, user_arg)) {
                return -1;
            }
            w += 1 + length;
            break;
        }
        case NOP:
            w += 1;
            break;
        default:
            ap_ethosu_npu_refused(AP_ETHOSU_SIM_BAD_CALL, base_addr, base_addr_size, num_base_addr);
            return -1;
        }
    }
    return 0;
}
