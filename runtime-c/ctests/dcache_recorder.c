/* Tests of the data-cache recorder (core/dcache.c built with AP_DCACHE_RECORD), the stand-in
 * for a CPU's data cache in simulator builds: it records each clean and invalidation, counts the
 * ranges that are not whole lines, and on such an invalidation loses the neighbours' bytes as a
 * real cache would. */
#include "arenaplan/dcache.h"
#include "harness.h"

static void invalidating_a_partial_line_loses_the_neighbours(void) {
    /* The recorder: invalidating a range that does not own its lines loses the neighbours. */
    memset(arena, 0x55, 64);
    ap_dcache_invalidate(arena + 8, 16);
    CHECK(ap_dcache_misaligned() == 1 && arena[0] == 0xCA && arena[31] == 0xCA && arena[32] == 0x55);
}

static const ctest_case_t cases[] = {
    CTEST(invalidating_a_partial_line_loses_the_neighbours),
};

int main(void) {
    const ctest_room_t room = {"dcache_recorder", NULL, ap_dcache_reset, cases, sizeof cases / sizeof cases[0]};
    return ctest_main(&room);
}
