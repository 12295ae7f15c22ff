/* arenaplan's device layer for Arm's Ethos-U driver, where there is no NPU (host, QEMU): the
 * ethosu_dev_* functions of the driver's src/ethosu_device.h, which Arm's register layer
 * (ethosu_device_u55_u65.c / ethosu_device_u85.c) implements on a board. Arm's
 * ethosu_driver.c runs unchanged on top of it.
 *
 * base_address given to ethosu_init must be an ap_ethosu_npu_t (ap_ethosu_host_setup passes
 * one): the registers this layer has. Running a command stream records QBASE, BASEP0..n and
 * their sizes, runs the job on the emulated NPU (ethosu_npu_model.c), and raises the NPU's
 * interrupt; the interrupt is delivered through the driver's ethosu_irq_handler, by the
 * semaphore wait on the host and by the PendSV exception on Cortex-M (the firmware's PendSV
 * handler calls ap_ethosu_host_irq).
 *
 * Also here: the driver's semaphores, static instead of the default malloc ones, so firmware
 * without a heap links. */
#include <ethosu_driver.h>

#include "ethosu_device.h"
#include "ethosu_npu_model.h"

#include <stddef.h>
#include <string.h>

#if !defined(__arm__)
#include <stdio.h>
#include <stdlib.h>
#endif

static ap_ethosu_npu_t *npu_of(struct ethosu_device *dev) { return (ap_ethosu_npu_t *)(uintptr_t)dev->reg; }

static struct ethosu_driver *driver_of(struct ethosu_device *dev) {
    return (struct ethosu_driver *)(void *)((uint8_t *)dev - offsetof(struct ethosu_driver, dev));
}

bool ethosu_dev_init(struct ethosu_device *dev, void *base_address, uint32_t secure_enable,
                     uint32_t privilege_enable) {
    if (base_address == NULL) {
        return false;
    }
    dev->reg = (volatile struct NPU_REG *)base_address;
    dev->secure = secure_enable;
    dev->privileged = privilege_enable;
    return true;
}

enum ethosu_error_codes ethosu_dev_axi_init(struct ethosu_device *dev) {
    (void)dev;
    return ETHOSU_SUCCESS;
}

void ethosu_dev_run_command_stream(struct ethosu_device *dev, const uint8_t *cmd_stream_ptr, uint32_t cms_length,
                                   const uint64_t *base_addr, int num_base_addr) {
    ap_ethosu_npu_t *npu = npu_of(dev);
    struct ethosu_driver *drv = driver_of(dev);
    npu->driver = drv;
    npu->job_ok = ap_ethosu_npu_run(npu, drv->job.custom_data_ptr, (size_t)drv->job.custom_data_size, cmd_stream_ptr,
                                    cms_length, base_addr, drv->job.base_addr_size, num_base_addr,
                                    drv->job.user_arg);
    npu->irq_pending = 1;
#if defined(__arm__)
    /* Pend PendSV (ICSR.PENDSVSET): the emulated NPU's interrupt line. */
    *(volatile uint32_t *)0xE000ED04u = 1u << 28;
#endif
}

void ethosu_dev_print_err_status(struct ethosu_device *dev) { (void)dev; }

bool ethosu_dev_handle_interrupt(struct ethosu_device *dev) {
    ap_ethosu_npu_t *npu = npu_of(dev);
    npu->irq_pending = 0;
    return npu->job_ok != 0;
}

void ethosu_dev_get_hw_info(struct ethosu_device *dev, struct ethosu_hw_info *hwinfo) {
    ap_ethosu_npu_t *npu = npu_of(dev);
    memset(hwinfo, 0, sizeof *hwinfo);
    hwinfo->version.arch_major_rev = npu->id >> 28;
    hwinfo->version.arch_minor_rev = (npu->id >> 20) & 0xFFu;
    hwinfo->version.product_major = (npu->id >> 16) & 0xFu;
    hwinfo->cfg.macs_per_cc = npu->config & 0xFu;
    hwinfo->cfg.cmd_stream_version = (npu->config >> 4) & 0xFu;
    hwinfo->cfg.custom_dma = (npu->config >> 27) & 1u;
}

bool ethosu_dev_verify_access_state(struct ethosu_device *dev) {
    (void)dev;
    return true;
}

enum ethosu_error_codes ethosu_dev_soft_reset(struct ethosu_device *dev) {
    npu_of(dev)->irq_pending = 0;
    return ETHOSU_SUCCESS;
}

enum ethosu_error_codes ethosu_dev_set_clock_and_power(struct ethosu_device *dev, enum ethosu_clock_q_request clock_q,
                                                       enum ethosu_power_q_request power_q) {
    (void)dev;
    (void)clock_q;
    (void)power_q;
    return ETHOSU_SUCCESS;
}

bool ethosu_dev_verify_optimizer_config(struct ethosu_device *dev, uint32_t cfg_in, uint32_t id_in) {
    return ap_ethosu_npu_verify_config(npu_of(dev), cfg_in, id_in) != 0;
}

int ap_ethosu_host_irq(void) {
    ap_ethosu_npu_t *npu = &ap_ethosu_host_npu;
    if (!npu->irq_pending || npu->driver == NULL) {
        return 0;
    }
    ethosu_irq_handler((struct ethosu_driver *)npu->driver);
    return 1;
}

/* ---- Semaphores: a small static pool (shared with the board's bring-up) -------------------- */

/* No interrupts on the host: a wait delivers the NPU's (a loud failure where none is pending). */
#if !defined(__arm__)
#define AP_ETHOSU_WAIT_HOOK()                                                                       \
    do {                                                                                         \
        if (!ap_ethosu_host_irq()) {                                                             \
            fprintf(stderr, "arenaplan: the Ethos-U driver waits for an interrupt no job will raise\n"); \
            abort();                                                                             \
        }                                                                                        \
    } while (0)
#endif
#include "../backends/ethos-u/ethosu_semaphores.h"
