/* Data-cache maintenance by address (see arenaplan/dcache.h). */
#include "arenaplan/dcache.h"

#include <string.h>

typedef char line_is_a_power_of_two[(AP_DCACHE_LINE_SIZE & (AP_DCACHE_LINE_SIZE - 1u)) == 0 &&
                                            AP_DCACHE_LINE_SIZE >= 16u
                                        ? 1
                                        : -1];

#ifdef AP_DCACHE_SCB
/* Armv8-M System Control Block cache maintenance registers (by MVA to the point of coherency). */
#define AP_SCB_DCIMVAC (*(volatile uint32_t *)0xE000EF5Cu)
#define AP_SCB_DCCMVAC (*(volatile uint32_t *)0xE000EF68u)

static void barriers(void) {
    __asm volatile("dsb 0xF" ::: "memory");
    __asm volatile("isb 0xF" ::: "memory");
}

static void by_line(volatile uint32_t *reg, uintptr_t start, size_t size) {
    uintptr_t first = start & ~(uintptr_t)(AP_DCACHE_LINE_SIZE - 1u);
    uintptr_t end = start + size;
    __asm volatile("dsb 0xF" ::: "memory");
    for (uintptr_t line = first; line < end; line += AP_DCACHE_LINE_SIZE) {
        *reg = (uint32_t)line;
    }
    barriers();
}
#endif

#ifdef AP_DCACHE_RECORD
static ap_dcache_record_t records[AP_DCACHE_RECORDS];
static uint32_t count, misaligned;

static int record(ap_dcache_op_t op, const void *addr, size_t size) {
    uintptr_t a = (uintptr_t)addr;
    if (count < AP_DCACHE_RECORDS) {
        records[count].op = op;
        records[count].addr = (uint64_t)a;
        records[count].size = (uint64_t)size;
    }
    count++;
    int ok = (a % AP_DCACHE_LINE_SIZE) == 0 && (size % AP_DCACHE_LINE_SIZE) == 0;
    if (!ok) {
        misaligned++;
    }
    return ok;
}

uint32_t ap_dcache_count(void) { return count; }
const ap_dcache_record_t *ap_dcache_records(void) { return records; }
uint32_t ap_dcache_misaligned(void) { return misaligned; }
void ap_dcache_reset(void) {
    memset(records, 0, sizeof records);
    count = 0;
    misaligned = 0;
}
#endif

void ap_dcache_clean(const void *addr, size_t size) {
#ifdef AP_DCACHE_RECORD
    (void)record(AP_DCACHE_CLEAN, addr, size);
#endif
#ifdef AP_DCACHE_SCB
    by_line(&AP_SCB_DCCMVAC, (uintptr_t)addr, size);
#endif
    (void)addr;
    (void)size;
}

void ap_dcache_invalidate(void *addr, size_t size) {
#ifdef AP_DCACHE_RECORD
    if (!record(AP_DCACHE_INVALIDATE, addr, size) && addr != NULL && size > 0) {
        /* What a real cache would do: the partial lines at either end are discarded whole, and
         * with them any bytes a neighbour had written there and not yet cleaned. The recorder
         * cannot know which of those bytes were dirty, so it assumes all were and poisons them:
         * a plan that lets a buffer share a line with an NPU buffer fails a test. */
        uintptr_t a = (uintptr_t)addr;
        uintptr_t first = a & ~(uintptr_t)(AP_DCACHE_LINE_SIZE - 1u);
        uintptr_t end = a + size;
        uintptr_t last = (end + AP_DCACHE_LINE_SIZE - 1u) & ~(uintptr_t)(AP_DCACHE_LINE_SIZE - 1u);
        memset((void *)first, 0xCA, (size_t)(a - first));
        memset((void *)end, 0xCA, (size_t)(last - end));
    }
#endif
#ifdef AP_DCACHE_SCB
    by_line(&AP_SCB_DCIMVAC, (uintptr_t)addr, size);
#endif
    (void)addr;
    (void)size;
}
