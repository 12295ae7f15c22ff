/* Tests of the data-cache recorder (core/dcache.c built with AP_DCACHE_RECORD), the stand-in
 * for a CPU's data cache in simulator builds: it records each clean and invalidation, counts the
 * ranges that are not whole lines, and on such an invalidation loses the neighbours' bytes as a
 * real cache would. The backends' tests lean on it; these check it on its own. */
#include "arenaplan/dcache.h"
#include "harness.h"

/* Whole lines: recorded in order with their address and size, nothing counted as misaligned,
 * and no byte changed. */
static void whole_lines_are_recorded_and_keep_their_neighbours(void) {
    memset(arena, 0x55, 128);
    ap_dcache_clean(arena + 32, 32);
    ap_dcache_invalidate(arena + 32, 64);
    const ap_dcache_record_t *ops = ap_dcache_records();
    CHECK(ap_dcache_count() == 2 && ap_dcache_misaligned() == 0);
    CHECK(ops[0].op == AP_DCACHE_CLEAN && ops[0].addr == (uint64_t)(uintptr_t)(arena + 32) && ops[0].size == 32);
    CHECK(ops[1].op == AP_DCACHE_INVALIDATE && ops[1].addr == (uint64_t)(uintptr_t)(arena + 32) && ops[1].size == 64);
    CHECK(arena[31] == 0x55 && arena[32] == 0x55 && arena[95] == 0x55 && arena[96] == 0x55);
}

/* A clean of part of a line is counted (it would write back a neighbour's bytes too), but
 * writing back loses nothing. */
static void a_partial_clean_is_counted_and_loses_nothing(void) {
    memset(arena, 0x55, 64);
    ap_dcache_clean(arena + 8, 16);
    CHECK(ap_dcache_count() == 1 && ap_dcache_misaligned() == 1);
    CHECK(arena[0] == 0x55 && arena[7] == 0x55 && arena[24] == 0x55 && arena[31] == 0x55);
}

static void invalidating_a_partial_line_loses_the_neighbours(void) {
    /* The recorder: invalidating a range that does not own its lines loses the neighbours. */
    memset(arena, 0x55, 64);
    ap_dcache_invalidate(arena + 8, 16);
    CHECK(ap_dcache_misaligned() == 1 && arena[0] == 0xCA && arena[31] == 0xCA && arena[32] == 0x55);
}

/* Past AP_DCACHE_RECORDS operations the count goes on and the first records stay; a reset
 * clears both counts. */
static void the_first_records_are_kept(void) {
    for (uint32_t i = 0; i < AP_DCACHE_RECORDS + 3u; i++) {
        ap_dcache_clean(arena + 32u * (i % 8u), 32);
    }
    ap_dcache_clean(arena + 1, 1);
    CHECK(ap_dcache_count() == AP_DCACHE_RECORDS + 4u && ap_dcache_misaligned() == 1);
    const ap_dcache_record_t *last_kept = &ap_dcache_records()[AP_DCACHE_RECORDS - 1u];
    CHECK(last_kept->addr == (uint64_t)(uintptr_t)(arena + 32u * ((AP_DCACHE_RECORDS - 1u) % 8u)));
    ap_dcache_reset();
    CHECK(ap_dcache_count() == 0 && ap_dcache_misaligned() == 0);
}

static const ctest_case_t cases[] = {
    CTEST(whole_lines_are_recorded_and_keep_their_neighbours),
    CTEST(a_partial_clean_is_counted_and_loses_nothing),
    CTEST(invalidating_a_partial_line_loses_the_neighbours),
    CTEST(the_first_records_are_kept),
};

int main(void) {
    const ctest_room_t room = {"dcache_recorder", NULL, ap_dcache_reset, cases, sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}
