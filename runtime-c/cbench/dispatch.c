/* Instructions the executor spends per delegate call, apart from the backend: a program of
 * CALLS delegate calls (3 arguments each) to a backend that returns at once, run under
 * `valgrind --tool=callgrind`. `scripts/bench-dispatch.sh` builds and counts it, and prints the
 * table the runtime README shows. */
#include <stdio.h>
#include <string.h>

#include "arenaplan/runtime.h"

#define CALLS 1000

static ap_status_t noop_execute(ap_context_t *ctx, ap_handle_t *h, ap_buffer_t *args, size_t nargs) {
    (void)ctx;
    (void)h;
    (void)args;
    (void)nargs;
    return AP_OK;
}
static const ap_backend_t noop = {"Noop", NULL, noop_execute, NULL, 0, NULL, 0};

static _Alignas(16) uint8_t arena[256];
static ap_instruction_t instructions[CALLS];

int main(void) {
    static const ap_tensor_desc_t tensors[] = {{1, 0, 16, NULL}, {1, 16, 16, NULL}, {1, 32, 64, NULL}};
    static const uint32_t args[] = {0, 1, 2}, in[] = {0}, out[] = {1};
    static const ap_delegate_desc_t del[] = {{"Noop", NULL, 0, NULL, 0}};
    for (int i = 0; i < CALLS; i++) {
        ap_instruction_t ins = {AP_INSTR_DELEGATE, 0, args, 3, 1, 1};
        instructions[i] = ins;
    }
    ap_program_t p = {tensors, 3, instructions, CALLS, del, 1, NULL, 0, in, 1, out, 1, NULL};
    ap_pool_t pool = {1, arena, sizeof arena};
    const ap_backend_t *backends[] = {&noop};
    ap_buffer_t values[3], argbuf[3];
    ap_handle_t handles[1];
    const ap_backend_t *resolved[1];
    ap_method_memory_t mem = {values, 3, handles, resolved, 1, NULL, 0, argbuf, 3, NULL, 0};
    ap_method_t m;
    if (ap_method_init(&m, &p, &pool, 1, backends, 1, NULL, 0, &mem) != AP_OK) {
        return 1;
    }
    ap_status_t s = ap_method_execute(&m);
    printf("%d calls: %s\n", CALLS, ap_status_name(s));
    return s == AP_OK ? 0 : 1;
}
