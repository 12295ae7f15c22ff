/* The harness every C test program of the runtime shares: one program per room (the executor,
 * each backend, each emulation, the data-cache recorder; runtime-c/README.md, "Tests").
 *
 * A room's program lists its tests in a ctest_room_t and hands it to ctest_main, which sets up
 * the room's emulated devices, runs the tests in order and prints one line per failed check and
 * a closing "N passed, N failed" line (tests/c_runtime.rs reads it); the exit status is 0 only
 * when nothing failed. Plain C11, no allocation: .ci/run runs every program under
 * AddressSanitizer, UBSan and valgrind.
 *
 * Also here, the fixtures more than one room needs: a method set up over static pools, and a
 * backend that counts what the runtime does with it. Blob builders are in blobs.h. */
#ifndef ARENAPLAN_CTESTS_HARNESS_H
#define ARENAPLAN_CTESTS_HARNESS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arenaplan/runtime.h"

/* ---- Checks ------------------------------------------------------------------------------------ */

/* Checks passed and failed so far in this program. */
extern int ctest_passed, ctest_failed;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) {                                                                   \
            ctest_passed++;                                                           \
        } else {                                                                      \
            ctest_failed++;                                                           \
            printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                  \
        }                                                                             \
    } while (0)

#define CHECK_STATUS(expr, expected)                                                  \
    do {                                                                              \
        ap_status_t s_ = (expr);                                                      \
        if (s_ == (expected)) {                                                       \
            ctest_passed++;                                                           \
        } else {                                                                      \
            ctest_failed++;                                                           \
            printf("FAILED %s:%d: %s gave %s, expected %s\n", __FILE__, __LINE__, #expr, \
                   ap_status_name(s_), ap_status_name(expected));                     \
        }                                                                             \
    } while (0)

/* ---- Rooms and their tests --------------------------------------------------------------------- */

typedef struct ctest_case {
    const char *name;
    void (*run)(void);
} ctest_case_t;

/* One entry of a room's test list: the function, named by itself. */
#define CTEST(fn) {#fn, fn}

typedef struct ctest_room {
    const char *name;
    /* Once, before the first test: registers the emulated devices the room uses. NULL: none. */
    ap_status_t (*start)(void);
    /* Before every test and every method set-up (setup below): clears the devices' records.
     * NULL: none. */
    void (*reset)(void);
    const ctest_case_t *cases;
    size_t ncases;
} ctest_room_t;

/* Runs the room's tests in order and prints the closing line; a room's main returns it. */
int ctest_main(const ctest_room_t *room);

/* ---- A method over static pools ---------------------------------------------------------------- */

#define MAXV 16
/* Pool mem_id 1 (4 KiB) and mem_id 2 (256 B), 32-byte aligned (a data-cache line), and the
 * method's temp pool. */
extern uint8_t arena[4096];
extern uint8_t arena2[256];
extern uint8_t temp_pool[1024];
/* The method's storage, for tests that call ap_method_init themselves. */
extern ap_buffer_t values[MAXV];
extern ap_handle_t handles[4];
extern const ap_backend_t *delegate_backends[4];
extern const ap_kernel_t *kernel_fns[4];
extern ap_buffer_t argbuf[8];

/* ap_method_init of `p` over both pools, zeroed, and the static storage above, after the
 * room's reset. */
ap_status_t setup(ap_method_t *m, const ap_program_t *p, const ap_backend_t *const *backends, size_t nb,
                  const ap_kernel_t *kernels, size_t nk);

/* What both emulated NPUs write: byte j of an output whose inputs' bytes sum to `sum`. */
static inline uint8_t expected_output(uint32_t sum, uint32_t j) { return (uint8_t)(sum + 31u * j); }

/* ---- A backend that counts what the runtime does with it --------------------------------------- */

/* Its init fails for a blob of one byte. `counting` keeps no handle of its own size;
 * `counting_small` says it keeps 8 bytes. Both have the id "Counting". */
extern int counted_inits, counted_executes, counted_destroys;
extern const ap_backend_t counting, counting_small;
void reset_counts(void);

/* Every entry point taking a method refuses one that is not initialized, touches neither `out`
 * nor any backend, and keeps refusing after a destroy (which does nothing). */
int refuses_every_entry_point(ap_method_t *m);

#endif /* ARENAPLAN_CTESTS_HARNESS_H */
