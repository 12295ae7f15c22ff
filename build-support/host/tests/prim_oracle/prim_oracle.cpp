/* ExecuTorch's own prim ops (kernels/prim_ops/register_prim_ops.cpp) called by name, for
 * tests/prim_ops_match_executorch.rs: the file registers its kernels at static initialization
 * through register_kernels(), which this harness defines (keeping the list) instead of
 * ExecuTorch's registry, so no platform layer is needed. A kernel's abort (ET_CHECK) returns
 * here through the bridge's runtime_abort. */
#include <stdint.h>
#include <string.h>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::runtime::EValue;
using ::executorch::runtime::Error;
using ::executorch::runtime::Kernel;
using ::executorch::runtime::KernelRuntimeContext;
using ::executorch::runtime::Span;

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
static Span<const Kernel> registered;
Error register_kernels(const Span<const Kernel> kernels) {
    registered = kernels;
    return Error::Ok;
}
} // namespace ET_RUNTIME_NAMESPACE
} // namespace executorch

typedef void *ap_et_jmp_buf[5];
extern "C" ap_et_jmp_buf *ap_et_abort_target;

/* One argument or the result: kind as arenaplan's value kinds (0 tensor, 2 int, 3 double,
 * 4 bool); a tensor's dtype (ScalarType), rank, sizes and data. */
extern "C" struct ap_oracle_value {
    int32_t kind;
    int32_t dtype;
    int64_t i;
    double d;
    int32_t rank;
    int32_t sizes[8];
    void *data;
};

enum { MAX_ARGS = 8 };

/* Runs `op` on v[0..n-1] (the last is the output, written back): 0 when the kernel succeeded,
 * 1 when it failed the call (its context's failure, or an abort), -1 for an unknown op. */
extern "C" int ap_prim_oracle(const char *op, ap_oracle_value *v, size_t n) {
    const Kernel *kernel = nullptr;
    for (const Kernel &k : ::executorch::ET_RUNTIME_NAMESPACE::registered) {
        if (strcmp(k.name_, op) == 0) kernel = &k;
    }
    if (kernel == nullptr || n == 0 || n > MAX_ARGS) return -1;
    static TensorImpl::SizesType sizes[MAX_ARGS][8];
    static TensorImpl::DimOrderType orders[MAX_ARGS][8];
    static TensorImpl::StridesType strides[MAX_ARGS][8];
    alignas(TensorImpl) static unsigned char impls[MAX_ARGS][sizeof(TensorImpl)];
    EValue values[MAX_ARGS];
    EValue *stack[MAX_ARGS];
    for (size_t i = 0; i < n; i++) {
        switch (v[i].kind) {
        case 2: values[i] = EValue(v[i].i); break;
        case 3: values[i] = EValue(v[i].d); break;
        case 4: values[i] = EValue(v[i].i != 0); break;
        case 0: {
            int32_t rank = v[i].rank < 0 ? 0 : (v[i].rank > 8 ? 8 : v[i].rank);
            int64_t stride = 1;
            for (int d = rank - 1; d >= 0; d--) {
                sizes[i][d] = v[i].sizes[d];
                orders[i][d] = (TensorImpl::DimOrderType)d;
                strides[i][d] = (TensorImpl::StridesType)stride;
                stride *= v[i].sizes[d] > 1 ? v[i].sizes[d] : 1;
            }
            TensorImpl *impl = new (impls[i]) TensorImpl(static_cast<ScalarType>(v[i].dtype),
                                                         rank, sizes[i], v[i].data, orders[i],
                                                         strides[i]);
            values[i] = EValue(Tensor(impl));
            break;
        }
        default: return -1;
        }
        stack[i] = &values[i];
    }
    KernelRuntimeContext context;
    ap_et_jmp_buf here;
    ap_et_jmp_buf *outer = ap_et_abort_target;
    if (__builtin_setjmp(here) != 0) {
        ap_et_abort_target = outer;
        return 1;
    }
    ap_et_abort_target = &here;
    kernel->op_(context, Span<EValue *>(stack, n));
    ap_et_abort_target = outer;
    if (context.failure_state() != Error::Ok) return 1;
    EValue &out = values[n - 1];
    ap_oracle_value &r = v[n - 1];
    if (out.isInt()) {
        r.kind = 2;
        r.i = out.toInt();
    } else if (out.isDouble()) {
        r.kind = 3;
        r.d = out.toDouble();
    } else if (out.isBool()) {
        r.kind = 4;
        r.i = out.toBool() ? 1 : 0;
    } else {
        return 1;
    }
    return 0;
}
