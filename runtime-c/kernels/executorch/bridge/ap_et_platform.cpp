/* What ExecuTorch's kernels need from a platform, for kernels run by arenaplan's runtime:
 *
 * - runtime_abort: an ExecuTorch check that fails (ET_CHECK) aborts. Under a shim it returns
 *   to the shim instead (ap_et_call.h, `guarded`), which reports AP_ERR_BACKEND for the call:
 *   a model cannot stop the firmware. Outside a call it traps.
 * - No logging (the shims build with ET_LOG_ENABLED=0), no clock, no heap: this file defines
 *   none of et_pal_*, so a kernel that reached for one would fail to link rather than
 *   allocate.
 * - operator delete: TensorImpl's and a few helpers' virtual destructors name it; nothing here
 *   allocates with new, so it is never called. */
#include <setjmp.h>
#include <stdlib.h>

#include <executorch/runtime/platform/abort.h>

extern "C" {
jmp_buf *ap_et_abort_target = nullptr;
}

namespace executorch {
namespace runtime {

ET_NORETURN void runtime_abort() {
    if (ap_et_abort_target != nullptr) {
        longjmp(*ap_et_abort_target, 1);
    }
    __builtin_trap();
}

} // namespace runtime
} // namespace executorch

__attribute__((weak)) void operator delete(void *) noexcept {}
__attribute__((weak)) void operator delete(void *, size_t) noexcept {}
