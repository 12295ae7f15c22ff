/* The bridge between arenaplan's kernel calls and ExecuTorch's own C++ kernels.
 *
 * A program's kernel call reaches a kernel as a flat argument list (ap_buffer_t: bytes only)
 * plus the value table (ap_value_meta_t: each argument's kind, dtype, shape and dim order). An
 * ExecuTorch kernel takes typed C++ arguments (Tensor, Scalar, IntArrayRef, optional<...>) in
 * its schema's order. The build generates one shim per operator a program uses; each shim is
 * only the schema: it asks an ApEtCall for its arguments in order, one reader per schema type,
 * and calls the kernel. Everything else lives here, once:
 *
 * - Tensors are ExecuTorch TensorImpls over the call's planned memory (no copy), with the
 *   table's sizes and dim order and the strides that order implies. Their storage is this
 *   object's (a fixed capacity the build sizes per program), so nothing is allocated.
 * - Non-tensor constants are read from their bytes (little-endian int64/double, one byte per
 *   bool) with their kind checked; a list is copied into aligned storage, since a constant in
 *   flash need not be 8-byte aligned and Cortex-M faults on an unaligned doubleword load.
 * - A failure the kernel reports (ctx.fail / ET_KERNEL_CHECK) and an ExecuTorch check that
 *   would abort (ET_CHECK, via runtime_abort) both come back as AP_ERR_BACKEND: the runtime
 *   names the failed instruction, hence the operator. An argument of the wrong kind, or more
 *   than the capacity, is AP_ERR_ARGUMENT_MISMATCH before the kernel runs.
 * - The kernel's temp allocator is the call's planned scratch (the last argument the build
 *   planned for it), or none: a kernel that asks for temp memory it was not planned gets
 *   nullptr and fails, never a heap.
 *
 * Used only by generated shims; C++17, no exceptions, no RTTI, no heap. */
#ifndef AP_ET_CALL_H
#define AP_ET_CALL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tuple> /* the return type of kernels with several outputs */

#include <arenaplan/runtime.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

/* Capacities of one call's argument storage; the generated shim file defines them from the
 * program (its largest call), before including this header. */
#ifndef AP_ET_MAX_TENSORS
#define AP_ET_MAX_TENSORS 16
#endif
#ifndef AP_ET_MAX_RANK
#define AP_ET_MAX_RANK 8
#endif
#ifndef AP_ET_MAX_LIST
#define AP_ET_MAX_LIST 16
#endif

namespace arenaplan {
namespace et {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Device;
using ::executorch::aten::Layout;
using ::executorch::aten::MemoryFormat;
using ::executorch::aten::optional;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::string_view;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::runtime::KernelRuntimeContext;
using ::executorch::runtime::MemoryAllocator;

/* Where runtime_abort (an ExecuTorch ET_CHECK that failed) returns to: the running shim's
 * jump buffer, or NULL outside a call. Kernels run one at a time (the runtime executes one
 * instruction at a time and is not reentrant), so one slot is enough. The compiler's own
 * setjmp/longjmp (five words, no C library): firmware links none. */
typedef void *ap_et_jmp_buf[5];
extern "C" ap_et_jmp_buf *ap_et_abort_target;

/* One kernel call's arguments as ExecuTorch's types. Readers take the arguments in schema
 * order; the first mismatch is remembered and every later reader returns a harmless default,
 * so a shim reads all its arguments, then asks ok() once. */
class Call {
  public:
    Call(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, size_t scratch_args)
        : ctx_(ctx), args_(args), temp_(scratch_size(ctx, args, nargs, scratch_args),
                                        scratch_base(ctx, args, nargs, scratch_args)),
          kernel_ctx_(nullptr, &temp_), placeholder_impl_(ScalarType::Float, 0, nullptr),
          placeholder_(&placeholder_impl_) {
        if (ctx == nullptr || args == nullptr || ctx->meta == nullptr || ctx->arg_ids == nullptr) {
            status_ = AP_ERR_ARGUMENT_MISMATCH;
            return;
        }
        size_t planned = (size_t)ctx->ninputs + ctx->noutputs;
        if (planned > nargs || nargs - planned != scratch_args) {
            status_ = AP_ERR_ARGUMENT_MISMATCH;
            return;
        }
        typed_ = planned;
    }

    /* Whether every argument was read as its kind, and all of them were read. */
    bool ok() const { return status_ == AP_OK && next_ == typed_; }
    ap_status_t status() const { return status_ != AP_OK ? status_ : AP_ERR_ARGUMENT_MISMATCH; }
    KernelRuntimeContext &context() { return kernel_ctx_; }
    /* The kernel's verdict: AP_OK, or AP_ERR_BACKEND when it failed the context. */
    ap_status_t finish() const {
        return kernel_ctx_.failure_state() == ::executorch::runtime::Error::Ok ? AP_OK
                                                                              : AP_ERR_BACKEND;
    }

    /* ---- Readers, one per schema type ---- */
    Tensor &tensor() {
        size_t i = take(AP_VALUE_TENSOR);
        return i == NONE ? placeholder() : make_tensor(i);
    }
    optional<Tensor> opt_tensor() {
        if (peek_none()) return optional<Tensor>();
        return optional<Tensor>(tensor());
    }
    /* A tensor list: the count, then that many tensors (or None, for Tensor?[]). */
    ArrayRef<Tensor> tensor_list() {
        size_t n = list_count();
        size_t first = ntensors_;
        for (size_t k = 0; k < n && status_ == AP_OK; k++) {
            tensor();
        }
        return status_ == AP_OK ? ArrayRef<Tensor>(tensors_ + first, n) : ArrayRef<Tensor>();
    }
    /* A list the kernel writes: the call's remaining arguments, each an output tensor (the
     * program passes the list's items, not the list). */
    ArrayRef<Tensor> out_tensor_list() {
        size_t first = ntensors_;
        size_t n = 0;
        while (status_ == AP_OK && next_ < typed_) {
            tensor();
            n++;
        }
        return status_ == AP_OK ? ArrayRef<Tensor>(tensors_ + first, n) : ArrayRef<Tensor>();
    }
    /* The `self` of an in-place operator (`copy_`, `index_put_`): the program passes it once,
     * as the call's one output, after the other arguments (its memory holds the value the
     * kernel reads and updates). Read first; the other readers then take the inputs. */
    Tensor &in_place_self() {
        if (status_ != AP_OK || next_ != 0 || ctx_->noutputs != 1 || typed_ == 0) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return placeholder();
        }
        size_t self = typed_ - 1;
        if (meta(self).kind != AP_VALUE_TENSOR) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return placeholder();
        }
        typed_ = self; /* the remaining readers stop before it */
        return make_tensor(self);
    }
    ArrayRef<optional<Tensor>> opt_tensor_list() {
        size_t n = list_count();
        if (status_ == AP_OK && nopt_ + n > AP_ET_MAX_TENSORS) fail(AP_ERR_ARGUMENT_MISMATCH);
        size_t first = nopt_;
        for (size_t k = 0; k < n && status_ == AP_OK; k++) {
            opt_tensors_[nopt_++] = opt_tensor();
        }
        return status_ == AP_OK ? ArrayRef<optional<Tensor>>(opt_tensors_ + first, n)
                                : ArrayRef<optional<Tensor>>();
    }
    Scalar scalar() {
        size_t i = next_;
        uint8_t kind = i < typed_ ? meta(i).kind : (uint8_t)AP_VALUE_NONE;
        if (kind == AP_VALUE_DOUBLE) return Scalar(float64());
        if (kind == AP_VALUE_BOOL) return Scalar(boolean());
        return Scalar(int64());
    }
    optional<Scalar> opt_scalar() {
        if (peek_none()) return optional<Scalar>();
        return optional<Scalar>(scalar());
    }
    int64_t int64() {
        size_t i = take(AP_VALUE_INT);
        return i == NONE ? 0 : read_i64(args_[i].data);
    }
    optional<int64_t> opt_int64() {
        if (peek_none()) return optional<int64_t>();
        return optional<int64_t>(int64());
    }
    double float64() {
        size_t i = take(AP_VALUE_DOUBLE);
        return i == NONE ? 0.0 : read_f64(args_[i].data);
    }
    optional<double> opt_float64() {
        if (peek_none()) return optional<double>();
        return optional<double>(float64());
    }
    bool boolean() {
        size_t i = take(AP_VALUE_BOOL);
        return i != NONE && args_[i].data[0] != 0;
    }
    optional<bool> opt_boolean() {
        if (peek_none()) return optional<bool>();
        return optional<bool>(boolean());
    }
    ScalarType scalar_type() { return static_cast<ScalarType>(int64()); }
    optional<ScalarType> opt_scalar_type() {
        if (peek_none()) return optional<ScalarType>();
        return optional<ScalarType>(scalar_type());
    }
    optional<MemoryFormat> opt_memory_format() {
        if (peek_none()) return optional<MemoryFormat>();
        return optional<MemoryFormat>(static_cast<MemoryFormat>(int64()));
    }
    optional<Layout> opt_layout() {
        if (peek_none()) return optional<Layout>();
        return optional<Layout>(static_cast<Layout>(int64()));
    }
    optional<Device> opt_device() {
        /* Programs for a microcontroller name no device but the CPU. */
        if (peek_none()) return optional<Device>();
        fail(AP_ERR_ARGUMENT_MISMATCH);
        return optional<Device>();
    }
    string_view string() {
        size_t i = take(AP_VALUE_STRING);
        return i == NONE ? string_view()
                         : string_view((const char *)args_[i].data, args_[i].size);
    }
    optional<string_view> opt_string() {
        if (peek_none()) return optional<string_view>();
        return optional<string_view>(string());
    }
    ArrayRef<int64_t> int_list() {
        size_t i = take(AP_VALUE_INT_LIST);
        if (i == NONE) return ArrayRef<int64_t>();
        size_t n = args_[i].size / 8;
        if (nints_ + n > AP_ET_MAX_LIST) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return ArrayRef<int64_t>();
        }
        int64_t *out = ints_ + nints_;
        for (size_t k = 0; k < n; k++) out[k] = read_i64(args_[i].data + 8 * k);
        nints_ += n;
        return ArrayRef<int64_t>(out, n);
    }
    optional<ArrayRef<int64_t>> opt_int_list() {
        if (peek_none()) return optional<ArrayRef<int64_t>>();
        return optional<ArrayRef<int64_t>>(int_list());
    }
    ArrayRef<double> float_list() {
        size_t i = take(AP_VALUE_DOUBLE_LIST);
        if (i == NONE) return ArrayRef<double>();
        size_t n = args_[i].size / 8;
        if (ndoubles_ + n > AP_ET_MAX_LIST) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return ArrayRef<double>();
        }
        double *out = doubles_ + ndoubles_;
        for (size_t k = 0; k < n; k++) out[k] = read_f64(args_[i].data + 8 * k);
        ndoubles_ += n;
        return ArrayRef<double>(out, n);
    }
    optional<ArrayRef<double>> opt_float_list() {
        if (peek_none()) return optional<ArrayRef<double>>();
        return optional<ArrayRef<double>>(float_list());
    }
    ArrayRef<bool> bool_list() {
        size_t i = take(AP_VALUE_BOOL_LIST);
        if (i == NONE) return ArrayRef<bool>();
        size_t n = args_[i].size;
        if (nbools_ + n > AP_ET_MAX_LIST) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return ArrayRef<bool>();
        }
        bool *out = bools_ + nbools_;
        for (size_t k = 0; k < n; k++) out[k] = args_[i].data[k] != 0;
        nbools_ += n;
        return ArrayRef<bool>(out, n);
    }

  private:
    static constexpr size_t NONE = (size_t)-1;

    /* The call's planned scratch (its one argument after the outputs), the kernel's temp
     * memory; none (an allocator of zero bytes) otherwise. */
    static const ap_buffer_t *scratch(ap_context_t *ctx, ap_buffer_t *args, size_t nargs,
                                      size_t scratch_args) {
        if (ctx == nullptr || args == nullptr || scratch_args != 1) return nullptr;
        size_t planned = (size_t)ctx->ninputs + ctx->noutputs;
        if (planned + 1 != nargs || args[planned].size > UINT32_MAX) return nullptr;
        return &args[planned];
    }
    static uint32_t scratch_size(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, size_t n) {
        const ap_buffer_t *s = scratch(ctx, args, nargs, n);
        return s != nullptr ? (uint32_t)s->size : 0;
    }
    static uint8_t *scratch_base(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, size_t n) {
        const ap_buffer_t *s = scratch(ctx, args, nargs, n);
        return s != nullptr ? s->data : nullptr;
    }

    const ap_value_meta_t &meta(size_t i) const { return ctx_->meta[ctx_->arg_ids[i]]; }
    void fail(ap_status_t s) {
        if (status_ == AP_OK) status_ = s;
    }
    /* The next argument, if it is of `kind` and its bytes hold one; NONE otherwise. */
    size_t take(uint8_t kind) {
        if (status_ != AP_OK) return NONE;
        if (next_ >= typed_) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return NONE;
        }
        size_t i = next_++;
        const ap_value_meta_t &m = meta(i);
        size_t need = kind == AP_VALUE_INT || kind == AP_VALUE_DOUBLE ? 8
                      : kind == AP_VALUE_BOOL                           ? 1
                                                                       : 0;
        if (m.kind != kind || args_[i].size < need || (need != 0 && args_[i].data == nullptr)) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return NONE;
        }
        return i;
    }
    /* An optional argument that is None: consumed, and true. */
    bool peek_none() {
        if (status_ == AP_OK && next_ < typed_ && meta(next_).kind == AP_VALUE_NONE) {
            next_++;
            return true;
        }
        return false;
    }
    size_t list_count() {
        size_t i = take(AP_VALUE_TENSOR_LIST);
        if (i == NONE || args_[i].size < 8) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return 0;
        }
        int64_t n = read_i64(args_[i].data);
        if (n < 0 || (uint64_t)n > typed_ - next_) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return 0;
        }
        return (size_t)n;
    }
    static int64_t read_i64(const uint8_t *p) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | p[k];
        return (int64_t)v;
    }
    static double read_f64(const uint8_t *p) {
        uint64_t bits = (uint64_t)read_i64(p);
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
    /* What a reader returns after a mismatch: a 0-d tensor over no memory, never passed to
     * a kernel (guarded() checks ok() first). A member, not a static: no guard variables or
     * exit-time destructors, which firmware without libstdc++ cannot link. */
    Tensor &placeholder() { return placeholder_; }
    /* Argument i as a tensor over its memory, with the table's shape and dim order. */
    Tensor &make_tensor(size_t i) {
        const ap_value_meta_t &m = meta(i);
        if (ntensors_ >= AP_ET_MAX_TENSORS || m.rank > AP_ET_MAX_RANK) {
            fail(AP_ERR_ARGUMENT_MISMATCH);
            return placeholder();
        }
        size_t t = ntensors_++;
        TensorImpl::SizesType *sizes = sizes_[t];
        TensorImpl::DimOrderType *order = orders_[t];
        TensorImpl::StridesType *strides = strides_[t];
        for (uint16_t d = 0; d < m.rank; d++) {
            if (m.dims[d] > (uint32_t)INT32_MAX) {
                fail(AP_ERR_ARGUMENT_MISMATCH);
                return placeholder();
            }
            sizes[d] = (TensorImpl::SizesType)m.dims[d];
            order[d] = m.dim_order != nullptr ? m.dim_order[d] : (uint8_t)d;
        }
        /* Strides from the dim order: the innermost dimension in memory has stride 1. */
        int64_t stride = 1;
        for (int k = (int)m.rank - 1; k >= 0; k--) {
            uint8_t d = order[k];
            strides[d] = (TensorImpl::StridesType)stride;
            stride *= sizes[d] > 1 ? sizes[d] : 1;
        }
        new (&impls_[t]) TensorImpl(static_cast<ScalarType>(m.dtype), m.rank, sizes,
                                    args_[i].data, order, strides);
        new (&tensors_[t]) Tensor(&impls_[t]);
        return tensors_[t];
    }

    ap_context_t *ctx_;
    ap_buffer_t *args_;
    size_t typed_ = 0;
    size_t next_ = 0;
    ap_status_t status_ = AP_OK;
    MemoryAllocator temp_;
    KernelRuntimeContext kernel_ctx_;
    TensorImpl placeholder_impl_;
    Tensor placeholder_;

    /* Tensors are built in place by make_tensor (TensorImpl has no default constructor). */
    size_t ntensors_ = 0;
    alignas(TensorImpl) unsigned char impl_bytes_[sizeof(TensorImpl) * AP_ET_MAX_TENSORS];
    alignas(Tensor) unsigned char tensor_bytes_[sizeof(Tensor) * AP_ET_MAX_TENSORS];
    TensorImpl *impls_ = reinterpret_cast<TensorImpl *>(impl_bytes_);
    Tensor *tensors_ = reinterpret_cast<Tensor *>(tensor_bytes_);
    TensorImpl::SizesType sizes_[AP_ET_MAX_TENSORS][AP_ET_MAX_RANK];
    TensorImpl::DimOrderType orders_[AP_ET_MAX_TENSORS][AP_ET_MAX_RANK];
    TensorImpl::StridesType strides_[AP_ET_MAX_TENSORS][AP_ET_MAX_RANK];
    optional<Tensor> opt_tensors_[AP_ET_MAX_TENSORS];
    size_t nopt_ = 0;
    int64_t ints_[AP_ET_MAX_LIST];
    size_t nints_ = 0;
    double doubles_[AP_ET_MAX_LIST];
    size_t ndoubles_ = 0;
    bool bools_[AP_ET_MAX_LIST];
    size_t nbools_ = 0;
};

/* Runs `body` (the kernel call) with ExecuTorch's aborts turned into AP_ERR_BACKEND. */
template <typename F>
ap_status_t guarded(Call &call, F body) {
    if (!call.ok()) return call.status();
    ap_et_jmp_buf here;
    ap_et_jmp_buf *outer = ap_et_abort_target;
    if (__builtin_setjmp(here) != 0) {
        ap_et_abort_target = outer;
        return AP_ERR_BACKEND;
    }
    ap_et_abort_target = &here;
    body();
    ap_et_abort_target = outer;
    return call.finish();
}

} // namespace et
} // namespace arenaplan

#endif
