/* Data-cache maintenance around NPU jobs, for CPUs with a data cache (Cortex-M55/M85: 32-byte
 * lines). The NPU reads and writes memory behind the CPU's cache, so before a job the backend
 * cleans what the CPU may hold dirty in the NPU's buffers, and after it invalidates them so the
 * CPU reads what the NPU wrote. Maintenance works on whole lines: a range must start on a line
 * and cover whole lines, or it would also clean or discard a neighbour's bytes. arenaplan's plans
 * give every NPU-visible buffer whole lines of its own in pools with a `dcache_line`.
 *
 * Implementations (core/dcache.c): with AP_DCACHE_SCB defined, the Armv8-M SCB by-address
 * operations (what CMSIS's SCB_CleanDCache_by_Addr / SCB_InvalidateDCache_by_Addr do); in
 * simulator builds, a recorder that checks every range is line-aligned and keeps the last ones
 * for tests; otherwise nothing (a CPU without a data cache). */
#ifndef ARENAPLAN_DCACHE_H
#define ARENAPLAN_DCACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CPU's data-cache line in bytes (a power of two, at least 16: the NPU's own alignment). */
#ifndef AP_DCACHE_LINE_SIZE
#define AP_DCACHE_LINE_SIZE 32u
#endif

/* Whether this build maintains the cache (and so needs NPU buffers on whole lines of their own):
 * with the SCB operations or the recorder. Without, the NPU's 16-byte alignment is enough. */
#if defined(AP_DCACHE_SCB) || defined(AP_DCACHE_RECORD)
#define AP_DCACHE_MAINTAINED 1
#else
#define AP_DCACHE_MAINTAINED 0
#endif

/* `size` rounded up to whole lines. */
#define AP_DCACHE_ROUND(size) (((size) + (AP_DCACHE_LINE_SIZE - 1u)) & ~(size_t)(AP_DCACHE_LINE_SIZE - 1u))

/* Writes back dirty lines of [addr, addr + size) to memory. */
void ap_dcache_clean(const void *addr, size_t size);
/* Discards the lines of [addr, addr + size), so the next read comes from memory. */
void ap_dcache_invalidate(void *addr, size_t size);

/* ---- The recorder (simulator builds) ---------------------------------------------------------- */

typedef enum ap_dcache_op {
    AP_DCACHE_CLEAN = 0,
    AP_DCACHE_INVALIDATE = 1,
    AP_DCACHE_OP_FORCE_32_BITS = 0x7FFFFFFF
} ap_dcache_op_t;

typedef struct ap_dcache_record {
    ap_dcache_op_t op;
    uint64_t addr;
    uint64_t size;
} ap_dcache_record_t;

#define AP_DCACHE_RECORDS 64u

/* Operations since the last reset (the first AP_DCACHE_RECORDS are kept). */
uint32_t ap_dcache_count(void);
const ap_dcache_record_t *ap_dcache_records(void);
/* Ranges that did not start on a line or did not cover whole lines. */
uint32_t ap_dcache_misaligned(void);
void ap_dcache_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_DCACHE_H */
