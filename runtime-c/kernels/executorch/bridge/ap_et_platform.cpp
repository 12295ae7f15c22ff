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
 *   allocates with new, so it is never called.
 * - In firmware (AP_ET_FREESTANDING): the few C and C++ library functions the kernels' headers
 *   name, each routed to the abort above. */
#include <stddef.h>

#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

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

typedef void *ap_et_jmp_buf[5];
extern "C" {
ap_et_jmp_buf *ap_et_abort_target = nullptr;
}

namespace executorch {
namespace runtime {

ET_NORETURN void runtime_abort() {
    if (ap_et_abort_target != nullptr) {
        __builtin_longjmp(*ap_et_abort_target, 1);
    }
    __builtin_trap();
}

} // namespace runtime
} // namespace executorch

/* A dtype's case the unit's selection left out (ap_et_selective_end.h): the call stops, as
 * ExecuTorch's own selective build stops it, and the host says which. */
namespace arenaplan {
namespace et {
[[noreturn]] void unselected_dtype(const char *op, ::executorch::aten::ScalarType dtype) {
#if ET_LOG_ENABLED
    ET_LOG(Error,
           "dtype %s is not selected for operator %s: the build compiled this kernel for the "
           "dtypes the program's calls use (arenaplan-build's kernels::executorch::selection); "
           "build with all_kernel_dtypes(true) (arenaplan plan/run --all-kernel-dtypes) and report "
           "the program",
           ::executorch::runtime::toString(dtype), op);
#else
    (void)op;
    (void)dtype;
#endif
    ::executorch::runtime::runtime_abort();
}
} // namespace et
} // namespace arenaplan

__attribute__((weak)) void operator delete(void *) noexcept {}
__attribute__((weak)) void operator delete(void *, size_t) noexcept {}

#if AP_ET_FREESTANDING
/* Firmware links no C library and no C++ runtime library. What the kernels' headers may still
 * name, routed to the abort above (a failed call, not a stopped firmware): a range-checked
 * access out of range (std::array::at), the C library's abort, a pure virtual call; and the
 * C library's strcmp. Each weak: a firmware's own C library wins. */
namespace std {
__attribute__((weak, noreturn)) void __throw_out_of_range_fmt(const char *, ...) {
    executorch::runtime::runtime_abort();
}
} // namespace std
extern "C" {
__attribute__((weak, noreturn)) void abort(void) { executorch::runtime::runtime_abort(); }
__attribute__((weak, noreturn)) void __cxa_pure_virtual(void) {
    executorch::runtime::runtime_abort();
}
/* A unit's dtype selection compares switch names with __builtin_strcmp, folded away when
 * optimizing; unoptimized (-O0) it calls this. */
__attribute__((weak)) int strcmp(const char *a, const char *b) {
    while (*a != '\0' && *a == *b) {
        ++a;
        ++b;
    }
    return (int)(unsigned char)*a - (int)(unsigned char)*b;
}
}
#endif
