/* What ExecuTorch's kernels need from a platform, for kernels run by arenaplan's runtime:
 *
 * - runtime_abort: an ExecuTorch check that fails (ET_CHECK) aborts. Under a shim it returns
 *   to the shim instead (ap_et_call.h, `guarded`), which reports AP_ERR_BACKEND for the call:
 *   a model cannot stop the firmware. Outside a call it traps.
 * - Logging: none in firmware (ET_LOG_ENABLED=0). On the host (ET_LOG_ENABLED=1) a kernel's
 *   error and fatal messages go to stderr, so a failing call says why.
 * - No clock, no heap: this file defines none of et_pal_*, so a kernel that reached for one
 *   would fail to link rather than allocate.
 * - operator delete: TensorImpl's and a few helpers' virtual destructors name it; nothing here
 *   allocates with new, so it is never called. */
#include <setjmp.h>
#include <stdlib.h>

#include <executorch/runtime/platform/abort.h>

#if ET_LOG_ENABLED
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace runtime {
namespace internal {

et_timestamp_t get_log_timestamp() { return 0; }

void vlogf(LogLevel level, et_timestamp_t, const char *filename, const char *, size_t line,
           const char *format, va_list args) {
    if (level < LogLevel::Error) return;
    const char *base = filename != nullptr ? strrchr(filename, '/') : nullptr;
    fprintf(stderr, "ExecuTorch kernel (%s:%zu): ", base != nullptr ? base + 1 : filename, line);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
}

} // namespace internal
} // namespace runtime
} // namespace executorch
#endif

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
