/* The second half of a generated unit's selection (see ap_et_selective.h): ExecuTorch's
 * selective_build.h, then its per-case check made non-returning. ExecuTorch's check logs and
 * calls runtime_abort(); here it calls arenaplan::et::unselected_dtype, which is declared
 * noreturn, so the compiler drops an unselected case's body (and every template it would
 * instantiate). Called at run time, the case stops its call: the shim returns AP_ERR_BACKEND
 * (ap_et_call.h, `guarded`), and the host says which dtype of which operator. */
#ifndef AP_ET_SELECTIVE_END_H
#define AP_ET_SELECTIVE_END_H

/* The switch's cases test the selection only if selective_build.h defines the check before
 * scalar_type_util.h defines them: a unit that included the latter first would select nothing. */
#ifdef ET_INTERNAL_SWITCH_CASE
#error "scalar_type_util.h was included before ap_et_selective_end.h: its switches would not check the selection"
#endif
#include <executorch/kernels/portable/cpu/selective_build.h>

namespace arenaplan {
namespace et {
[[noreturn]] void unselected_dtype(const char *op, ::executorch::aten::ScalarType dtype);
} // namespace et
} // namespace arenaplan

/* scalar_type_util.h (included above) defined its switch cases to call this by name, so the
 * definition in force where a kernel expands a switch is this one. */
#undef ET_INTERNAL_CHECK_SELECTIVE_BUILD
#define ET_INTERNAL_CHECK_SELECTIVE_BUILD(enum_type)                                           \
    do {                                                                                       \
        if (!should_include_kernel_dtype(et_switch_name, enum_type)) {                         \
            ::arenaplan::et::unselected_dtype(et_switch_name, enum_type);                      \
        }                                                                                      \
    } while (0)

#endif
