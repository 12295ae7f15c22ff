/* The shared harness (see harness.h): the counters, the room runner, the method set-up and the
 * counting backend. */
#include "harness.h"

int ctest_passed, ctest_failed;

/* The room whose program is running: setup() resets its devices. */
static const ctest_room_t *current;

int ctest_main(const ctest_room_t *room) {
    current = room;
    if (room->start != NULL && room->start() != AP_OK) {
        printf("FAILED: %s: the emulated devices do not set up\n0 passed, 1 failed\n", room->name);
        return 1;
    }
    for (size_t i = 0; i < room->ncases; i++) {
        int before = ctest_failed;
        if (room->reset != NULL) {
            room->reset(); /* each test starts from empty records, whatever ran before */
        }
        room->cases[i].run();
        if (ctest_failed != before) {
            /* The lines above name file and line; this names the test they belong to. */
            printf("FAILED test %s/%s: %d check(s)\n", room->name, room->cases[i].name, ctest_failed - before);
        }
    }
    printf("%d passed, %d failed\n", ctest_passed, ctest_failed);
    return ctest_failed == 0 ? 0 : 1;
}

/* ---- A method over static pools ---------------------------------------------------------------- */

_Alignas(32) uint8_t arena[4096];
_Alignas(32) uint8_t arena2[256]; /* pool mem_id 2 */
_Alignas(32) uint8_t temp_pool[1024];
ap_buffer_t values[MAXV];
ap_handle_t handles[4];
const ap_backend_t *delegate_backends[4];
const ap_kernel_t *kernel_fns[4];
ap_buffer_t argbuf[8];

ap_status_t setup(ap_method_t *m, const ap_program_t *p, const ap_backend_t *const *backends, size_t nb,
                  const ap_kernel_t *kernels, size_t nk) {
    static ap_pool_t pools[2];
    pools[0].mem_id = 1;
    pools[0].base = arena;
    pools[0].size = sizeof arena;
    pools[1].mem_id = 2;
    pools[1].base = arena2;
    pools[1].size = sizeof arena2;
    ap_method_memory_t mem = {values, MAXV, handles, delegate_backends, 4, kernel_fns, 4, argbuf, 8,
                              temp_pool, sizeof temp_pool};
    memset(arena, 0, sizeof arena);
    memset(arena2, 0, sizeof arena2);
    if (current != NULL && current->reset != NULL) {
        current->reset();
    }
    return ap_method_init(m, p, pools, 2, backends, nb, kernels, nk, &mem);
}

/* ---- A backend that counts what the runtime does with it --------------------------------------- */

int counted_inits, counted_executes, counted_destroys;

static ap_status_t counting_init(const uint8_t *blob, size_t blob_size, const ap_compile_spec_t *specs, size_t nspecs,
                                 ap_handle_t *h) {
    (void)blob;
    (void)specs;
    (void)nspecs;
    (void)h;
    counted_inits++;
    return blob_size == 1 ? AP_ERR_BAD_BLOB : AP_OK;
}
static ap_status_t counting_execute(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t nargs) {
    (void)ctx;
    (void)h;
    (void)args;
    (void)nargs;
    counted_executes++;
    return AP_OK;
}
static void counting_destroy(ap_handle_t *h) {
    (void)h;
    counted_destroys++;
}
const ap_backend_t counting = {"Counting", counting_init, counting_execute, counting_destroy, 0, NULL, 0};
const ap_backend_t counting_small = {"Counting", counting_init, counting_execute, counting_destroy, 8, NULL, 0};

void reset_counts(void) { counted_inits = counted_executes = counted_destroys = 0; }

int refuses_every_entry_point(ap_method_t *m) {
    int executes = counted_executes, destroys = counted_destroys;
    ap_buffer_t b = {NULL, 7};
    int ok = ap_method_input(m, 0, &b) == AP_ERR_NOT_INITIALIZED;
    ok &= ap_method_output(m, 0, &b) == AP_ERR_NOT_INITIALIZED;
    ok &= ap_method_execute(m) == AP_ERR_NOT_INITIALIZED;
    ok &= b.data == NULL && b.size == 7;
    ap_method_destroy(m);
    ap_method_destroy(m);
    ok &= ap_method_execute(m) == AP_ERR_NOT_INITIALIZED;
    ok &= ap_method_input(m, 0, &b) == AP_ERR_NOT_INITIALIZED;
    ok &= counted_executes == executes && counted_destroys == destroys;
    return ok;
}
