/* Selective build by dtype: what a generated unit (arenaplan-build's
 * `kernels::executorch::selection`) needs to write its `should_include_kernel_dtype`, the
 * function ExecuTorch's `ET_SWITCH_*` macros ask before each dtype's case.
 *
 * A unit is: this header; its function, one test per operator of the program the kernel file
 * defines (`AP_ET_NAMED(op, "add.out") ? (t == AP_ET_DTYPE::Float) : ...`, any other switch
 * name keeps every case); `ap_et_selective_end.h`; the kernel file. The function must fold to
 * a constant in every case, or nothing is removed: `__builtin_strcmp` of two constant strings,
 * always inlined, is one GCC folds at -Os (ExecuTorch's own generator compares
 * `std::string_view`s, which GCC 12 leaves to run time; so does a character loop). At -O0
 * nothing folds: the comparison calls strcmp (ap_et_platform.cpp has one for firmware without
 * a C library). */
#ifndef AP_ET_SELECTIVE_H
#define AP_ET_SELECTIVE_H

#include <executorch/runtime/core/exec_aten/exec_aten.h>

/* ExecuTorch's switch: each case asks the selection (selective_build.h). */
#define EXECUTORCH_SELECTIVE_BUILD_DTYPE 1

#define AP_ET_INLINE __attribute__((always_inline)) inline
#define AP_ET_DTYPE ::executorch::aten::ScalarType
#define AP_ET_NAMED(op, name) (__builtin_strcmp((op), (name)) == 0)

#endif
