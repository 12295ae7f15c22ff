#!/usr/bin/env python3
"""Regenerates build-support/testdata/exported/: small ExecuTorch programs made by the real
exporter (torch.export -> executorch.exir.to_edge_transform_and_lower -> to_executorch), each
with a call sequence, input files and reference outputs.

Run by hand, not in CI (the tests read the committed files and need no Python):

    python3.11 -m venv /tmp/et-venv
    /tmp/et-venv/bin/pip install -r scripts/requirements-export.txt
    /tmp/et-venv/bin/python scripts/export_fixtures.py             # rewrite every case
    /tmp/et-venv/bin/python scripts/export_fixtures.py cond_64k    # rewrite some cases
    /tmp/et-venv/bin/python scripts/export_fixtures.py --check     # regenerate elsewhere, compare bytes
    /tmp/et-venv/bin/python scripts/export_fixtures.py --describe  # print what the committed programs hold

Each case directory holds:

    program.pte            the exported program
    <k>-<method>-in<i>.npy input i of call k (k counts calls from 0, in order)
    <k>-<method>-<i>.npy   reference output i of call k
    manifest.json          exporter versions, target, reference kind, description, the calls

Reference outputs of CPU programs come from ExecuTorch's own runtime (executorch.runtime): the
calls run in order in one process on one loaded program, so mutable state carries from call to
call and method to method exactly as that runtime keeps it. They are also compared with eager
PyTorch and any difference is printed (it is not an error). Ethos-U programs cannot run in
that runtime (it has no Ethos-U backend and no FVP is used here). Their forward outputs come
from the lowered program itself, recorded as "reference": "tosa-reference-model": its CPU
operators (quantize, dequantize, cortex_m::, the CPU's average pool) run in PyTorch, and each
delegate call runs the TOSA graph Vela compiled for it on TOSA's reference model
(tosa_reference_model, from tosa-tools) with the inputs that call actually gets. Those outputs
are also compared with the quantized PyTorch model (the converted pt2e graph) and with float
eager PyTorch; differences are printed, not errors.

Everything is seeded and nothing records a time, so a rerun with the pinned packages
reproduces the committed files byte for byte (--check says if it does not).
"""

import argparse
import contextlib
import copy
import importlib.metadata
import io
import json
import os
import shutil
import sys
import tempfile
import traceback
import types
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "build-support", "testdata", "exported"))

# Versions recorded in every manifest. Local version tags (torch's "+cpu", "+cu130") are
# dropped so the manifests do not depend on which torch wheel was installed.
RECORDED_PACKAGES = ["torch", "executorch", "torchao", "tosa-tools", "ethos-u-vela",
                     "ml_dtypes", "numpy"]

RUNTIME = "executorch.runtime"
# A program ExecuTorch's own runtime refuses to load (an operator it has no kernel for): the
# case has no calls, and arenaplan must refuse it at plan time naming the same operators.
REFUSED = "executorch.runtime-refuses"
# The Ethos-U programs: PyTorch runs the CPU operators of the lowered program, TOSA's reference
# model runs each delegate call's TOSA graph (see TosaDelegates).
TOSA_REFERENCE = "tosa-reference-model"
# What the Ethos-U programs' outputs are also compared with: the converted pt2e model.
QUANTIZED = "pytorch-quantized"
# The Cortex-M backend's operators (cortex_m::*) are not registered in ExecuTorch's Python
# runtime: their reference is the lowered program run by PyTorch on the reference
# implementations the backend registers for them (backends/cortex_m/ops/operators.py).
CORTEX_M_REFERENCE = "cortex-m-torch-reference"

NO_FVP = ("No Corstone FVP was available when these files were made, so the NPU's own outputs "
          "were never observed. The reference follows instead the TOSA graph the Arm backend "
          "handed to Vela for each delegate call (Vela compiles it again into the delegate's "
          "bytes exactly), run on TOSA's reference model (tosa_reference_model, tosa-tools) "
          "with the inputs the call actually gets: the NPU's part is what the TOSA "
          "specification says that graph computes, integer for integer, not a float model's "
          "rounding of it. The converted pt2e model's outputs were compared with it when the "
          "files were made; differences are printed, not recorded.")


def versions():
    out = {}
    for name in RECORDED_PACKAGES:
        out[name] = importlib.metadata.version(name).split("+")[0]
    return out


# ---------------------------------------------------------------------------------------------
# Exporting.

@contextlib.contextmanager
def entry_point(module, name):
    """Lets torch.export trace `module.<name>` as if it were forward, keeping the module's
    buffer names (so "state" stays "state" in every method)."""
    if name == "forward":
        yield module
        return
    module.forward = types.MethodType(getattr(type(module), name), module)
    try:
        yield module
    finally:
        del module.forward


def export_methods(module, methods):
    """methods: {name: example args}. Returns {name: ExportedProgram}."""
    programs = {}
    for name, args in methods.items():
        with entry_point(module, name) as m:
            programs[name] = torch.export.export(m, args)
    return programs


def lower(programs, config=None, transform_passes=None, partitioner=None):
    from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower

    edge = to_edge_transform_and_lower(programs, transform_passes=transform_passes,
                                       partitioner=partitioner)
    return edge.to_executorch(config or ExecutorchBackendConfig())


class Built:
    """What a case hands back: the program bytes, the calls (method, inputs) in order, the
    eager model and anything else to compare with, and how the reference outputs are made."""

    def __init__(self, buffer, calls, eager=None, reference=RUNTIME, computed=None,
                 runtime_methods=None, missing=None, cross_checks=None):
        # For a REFUSED program: the operators without a kernel, which the program must call.
        self.missing = missing or []
        self.buffer = buffer
        self.calls = calls
        # eager(method, inputs) -> outputs; it keeps its own state across calls.
        self.eager = eager
        self.reference = reference
        # computed(method, inputs) -> outputs, for a reference other than executorch.runtime's.
        self.computed = computed
        # Methods whose outputs come from executorch.runtime even when the others are computed
        # (the constant methods of an int8-I/O program).
        self.runtime_methods = runtime_methods or set()
        # [(what, fn(method, inputs) -> outputs)]: more outputs to compare the reference with,
        # besides eager; differences are printed, not errors.
        self.cross_checks = cross_checks or []


def method_caller(module):
    """eager(method, inputs) on one module, so its buffers carry from call to call."""
    def call(method, inputs):
        with torch.no_grad():
            out = getattr(module, method)(*inputs)
        if isinstance(out, (tuple, list)):
            return list(out)
        return [out]
    return call


CASES = {}


def case(name, target, description):
    def register(fn):
        CASES[name] = (fn, target, description)
        return fn
    return register


# ---------------------------------------------------------------------------------------------
# torch.cond

class CondBoolInput(torch.nn.Module):
    def forward(self, pred, x):
        return torch.cond(pred, lambda x: x * 2.0, lambda x: x - 1.5, (x,))


@case("cond_bool_input", "corstone-300",
      "torch.cond on a bool 0-d tensor input: true arm x * 2.0, false arm x - 1.5. "
      "Calls take the true arm, the false arm, then the true arm again.")
def cond_bool_input():
    torch.manual_seed(1)
    model = CondBoolInput().eval()
    x = torch.randn(2, 3)
    et = lower(torch.export.export(model, (torch.tensor(True), x)))
    calls = [("forward", [torch.tensor(True), torch.randn(2, 3)]),
             ("forward", [torch.tensor(False), torch.randn(2, 3)]),
             ("forward", [torch.tensor(True), torch.randn(2, 3)])]
    return Built(et.buffer, calls, method_caller(model))


class CondSumGt(torch.nn.Module):
    def forward(self, x, y):
        return torch.cond(x.sum() > 0, lambda x, y: x + y, lambda x, y: x * y, (x, y))


@case("cond_sum_gt", "corstone-300",
      "torch.cond whose predicate is computed in the graph (x.sum() > 0): true arm x + y, "
      "false arm x * y. Call 0 has a positive sum, call 1 a negative one.")
def cond_sum_gt():
    torch.manual_seed(2)
    model = CondSumGt().eval()
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    et = lower(torch.export.export(model, (x, y)))
    pos = torch.rand(4, 4) + 0.1
    neg = -(torch.rand(4, 4) + 0.1)
    calls = [("forward", [pos, torch.randn(4, 4)]),
             ("forward", [neg, torch.randn(4, 4)])]
    return Built(et.buffer, calls, method_caller(model))


class CondNested(torch.nn.Module):
    def forward(self, pred, x):
        def outer_true(x):
            return torch.cond(x.sum() > 0, lambda x: x * 2.0, lambda x: x + 3.0, (x,))

        def outer_false(x):
            return x - 1.5

        return torch.cond(pred, outer_true, outer_false, (x,))


@case("cond_nested", "corstone-300",
      "A torch.cond inside the true arm of another: the outer predicate is a bool input, the "
      "inner one is x.sum() > 0. Calls reach all three leaves: (true, sum>0) -> x * 2.0, "
      "(true, sum<=0) -> x + 3.0, (false, sum>0) and (false, sum<=0) -> x - 1.5.")
def cond_nested():
    torch.manual_seed(3)
    model = CondNested().eval()
    et = lower(torch.export.export(model, (torch.tensor(True), torch.randn(3, 5))))
    pos = lambda: torch.rand(3, 5) + 0.1  # noqa: E731
    neg = lambda: -(torch.rand(3, 5) + 0.1)  # noqa: E731
    calls = [("forward", [torch.tensor(True), pos()]),
             ("forward", [torch.tensor(True), neg()]),
             ("forward", [torch.tensor(False), pos()]),
             ("forward", [torch.tensor(False), neg()])]
    return Built(et.buffer, calls, method_caller(model))


class CondTwoOutputs(torch.nn.Module):
    def forward(self, pred, x, y):
        def true_arm(x, y):
            return x + y, x * 2.0

        def false_arm(x, y):
            return x - y, y * 0.5

        a, b = torch.cond(pred, true_arm, false_arm, (x, y))
        return a, b


@case("cond_two_outputs", "corstone-300",
      "torch.cond whose arms return two tensors each: true (x + y, x * 2.0), false "
      "(x - y, y * 0.5); the predicate is a bool input. Calls take the true arm, then the "
      "false arm.")
def cond_two_outputs():
    torch.manual_seed(4)
    model = CondTwoOutputs().eval()
    et = lower(torch.export.export(model, (torch.tensor(True), torch.randn(2, 8),
                                           torch.randn(2, 8))))
    calls = [("forward", [torch.tensor(True), torch.randn(2, 8), torch.randn(2, 8)]),
             ("forward", [torch.tensor(False), torch.randn(2, 8), torch.randn(2, 8)])]
    return Built(et.buffer, calls, method_caller(model))


class Cond64k(torch.nn.Module):
    def forward(self, pred, x):
        return torch.cond(pred, lambda x: x * 2.0, lambda x: x + 1.0, (x,))


@case("cond_64k", "corstone-300",
      "torch.cond on 64 KiB tensors (16384 float32): bool input predicate, true arm x * 2.0, "
      "false arm x + 1.0. Calls take the true arm, then the false arm.")
def cond_64k():
    torch.manual_seed(5)
    model = Cond64k().eval()
    et = lower(torch.export.export(model, (torch.tensor(True), torch.randn(16384))))
    calls = [("forward", [torch.tensor(True), torch.randn(16384)]),
             ("forward", [torch.tensor(False), torch.randn(16384)])]
    return Built(et.buffer, calls, method_caller(model))


# ---------------------------------------------------------------------------------------------
# Mutable buffers

class Counter(torch.nn.Module):
    def __init__(self, initial):
        super().__init__()
        self.register_buffer("state", initial.clone())

    def forward(self, x):
        self.state.add_(x)
        return self.state * 1.0


@case("state_counter_copy", "corstone-300",
      "A mutable buffer `state` (8 float32, zeros) with state.add_(x), written back with "
      "aten::copy_; returns state * 1.0. Three calls with x = ones count 1, 2, 3. Default "
      "export settings: the buffer is memory planned in mem_id 1 and has no serialized "
      "initial value (ExecuTorch treats its initial contents as meaningless; "
      "executorch.runtime's planned memory starts zeroed, which is what the reference "
      "assumes).")
def state_counter_copy():
    model = Counter(torch.zeros(8)).eval()
    eager = copy.deepcopy(model)
    et = lower(torch.export.export(model, (torch.ones(8),)))
    calls = [("forward", [torch.ones(8)]) for _ in range(3)]
    return Built(et.buffer, calls, method_caller(eager))


@case("state_counter_copy_init", "corstone-300",
      "As state_counter_copy, but the buffer starts at arange(8) and InitializedMutableBufferPass"
      "(['state']) serializes that initial value (in the program's mutable-data segment; the "
      "tensor has both a data_buffer_idx and a planned allocation). Three calls with x = ones.")
def state_counter_copy_init():
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    model = Counter(torch.arange(8, dtype=torch.float32)).eval()
    eager = copy.deepcopy(model)
    et = lower(torch.export.export(model, (torch.ones(8),)),
               transform_passes=[InitializedMutableBufferPass(["state"])])
    calls = [("forward", [torch.ones(8)]) for _ in range(3)]
    return Built(et.buffer, calls, method_caller(eager))


class KvCache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, 8, 4))

    def forward(self, pos, v):
        self.cache[:, pos] = v
        return self.cache.sum(dim=2)


def kv_case(reinplace):
    from executorch.exir import ExecutorchBackendConfig

    torch.manual_seed(6)
    model = KvCache().eval()
    eager = copy.deepcopy(model)
    et = lower(torch.export.export(model, (torch.tensor([0]), torch.randn(2, 1, 4))),
               config=ExecutorchBackendConfig(run_reinplace_pass=reinplace))
    calls = [("forward", [torch.tensor([p]), torch.randn(2, 1, 4)]) for p in (0, 1, 2, 5)]
    return Built(et.buffer, calls, method_caller(eager))


KV_DESCRIPTION = (
    "A KV-cache-like mutable buffer `cache` (2 x 8 x 4 float32, zeros; no serialized initial "
    "value, so the reference relies on executorch.runtime's planned memory starting zeroed) "
    "written with `cache[:, pos] = v` (aten::index_put_ with indices [None, pos]; pos is "
    "an int64 [1] input, v is 2 x 1 x 4); returns cache.sum(dim=2). Calls write positions 0, 1, "
    "2, 5. ")


@case("state_kv_index_put_reinplace", "corstone-300",
      KV_DESCRIPTION + "ExecutorchBackendConfig(run_reinplace_pass=True): the write is one "
      "in-place aten::index_put_ on the buffer, no aten::copy_.")
def state_kv_index_put_reinplace():
    return kv_case(True)


@case("state_kv_index_put_no_reinplace", "corstone-300",
      KV_DESCRIPTION + "run_reinplace_pass=False (the default): aten::index_put.out into a "
      "temporary, then aten::copy_ back into the buffer.")
def state_kv_index_put_no_reinplace():
    return kv_case(False)


class ThreeMethods(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(2, 4))

    def set(self, x):
        self.state.copy_(x)
        return self.state.sum()

    def get(self):
        return self.state.clone()

    def forward(self, x):
        self.state.add_(x)
        return self.state * 2.0


def three_methods_case(share):
    from executorch.exir import ExecutorchBackendConfig
    from executorch.exir.passes import MemoryPlanningPass

    torch.manual_seed(7)
    model = ThreeMethods().eval()
    eager = copy.deepcopy(model)
    programs = export_methods(model, {"set": (torch.zeros(2, 4),), "get": (),
                                      "forward": (torch.zeros(2, 4),)})
    config = ExecutorchBackendConfig(
        emit_mutable_buffer_names=True,
        memory_planning_pass=MemoryPlanningPass(share_mutable_buffers=share))
    et = lower(programs, config=config)
    calls = [("set", [torch.randn(2, 4)]),
             ("get", []),
             ("forward", [torch.randn(2, 4)]),
             ("forward", [torch.randn(2, 4)]),
             ("get", [])]
    return Built(et.buffer, calls, method_caller(eager))


THREE_DESCRIPTION = (
    "Three methods over one buffer `state` (2 x 4 float32): set(x) does state.copy_(x) and "
    "returns state.sum(); get() returns state.clone(); forward(x) does state.add_(x) and "
    "returns state * 2.0. Exported as a dict of three programs through "
    "to_edge_transform_and_lower, with emit_mutable_buffer_names=True. Call sequence "
    "set / get / forward / forward / get. ")


@case("state_shared_three_methods", "corstone-300",
      THREE_DESCRIPTION + "MemoryPlanningPass(share_mutable_buffers=True): every method "
      "places `state` at mem_id 2, offset 0, so all three see one tensor.")
def state_shared_three_methods():
    return three_methods_case(True)


@case("state_unshared_three_methods", "corstone-300",
      THREE_DESCRIPTION + "Default MemoryPlanningPass (no sharing): each method that mutates "
      "`state` plans its own copy in its mem_id 1 arena (set: offset 32, forward: offset 64), "
      "and get(), which does not mutate it, reads it as a constant (its export-time value, "
      "zeros). The reference outputs are what executorch.runtime does, and its Python binding "
      "gives all host-only methods of a program one shared set of planned arenas: forward's "
      "copy of `state` starts out holding whatever set left at those bytes (set's 0-d sum "
      "output lands on its first element), it then carries from forward to forward, and get "
      "always returns zeros. They differ from eager PyTorch (one module, one state) and depend "
      "on that binding's arena sharing, not only on the program.")
def state_unshared_three_methods():
    return three_methods_case(False)


# ---------------------------------------------------------------------------------------------
# Linear / addmm stacks

class LinearStack(torch.nn.Module):
    def __init__(self, bias):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32, bias=bias)
        self.fc2 = torch.nn.Linear(32, 8, bias=bias)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def linear_case(bias, batch, seed):
    torch.manual_seed(seed)
    model = LinearStack(bias).eval()
    et = lower(torch.export.export(model, (torch.randn(batch, 16),)))
    calls = [("forward", [torch.randn(batch, 16)]), ("forward", [torch.randn(batch, 16)])]
    return Built(et.buffer, calls, method_caller(model))


def linear_description(bias, batch):
    return (f"nn.Linear(16, 32{'' if bias else ', bias=False'}) -> relu -> nn.Linear(32, 8"
            f"{'' if bias else ', bias=False'}), batch {batch}, float32. Two calls.")


@case("linear_stack_bias", "corstone-300", linear_description(True, 1))
def linear_stack_bias():
    return linear_case(True, 1, 10)


@case("linear_stack_bias_batch4", "corstone-300", linear_description(True, 4))
def linear_stack_bias_batch4():
    return linear_case(True, 4, 11)


@case("linear_stack_nobias", "corstone-300", linear_description(False, 1))
def linear_stack_nobias():
    return linear_case(False, 1, 12)


@case("linear_stack_nobias_batch4", "corstone-300", linear_description(False, 4))
def linear_stack_nobias_batch4():
    return linear_case(False, 4, 13)


# ---------------------------------------------------------------------------------------------
# Scalar arithmetic and data movement

class MulAddSub(torch.nn.Module):
    def forward(self, x, n):
        return x * 2.0, x + 3, x - 1.5, n + 3, n * 2


@case("scalar_mul_add_sub", "corstone-300",
      "Scalar arithmetic: x * 2.0, x + 3, x - 1.5 on a float32 2 x 3 input and n + 3, n * 2 "
      "on an int64 2 x 3 input; five outputs. Two calls.")
def scalar_mul_add_sub():
    torch.manual_seed(20)
    model = MulAddSub().eval()
    n = torch.randint(-50, 50, (2, 3), dtype=torch.int64)
    et = lower(torch.export.export(model, (torch.randn(2, 3), n)))
    calls = [("forward", [torch.randn(2, 3), torch.randint(-50, 50, (2, 3), dtype=torch.int64)])
             for _ in range(2)]
    return Built(et.buffer, calls, method_caller(model))


class Sums(torch.nn.Module):
    def forward(self, x):
        return x.sum(), x.sum(dim=1)


@case("scalar_sum", "corstone-300",
      "x.sum() (a 0-d output) and x.sum(dim=1) of a float32 3 x 5 input. Two calls.")
def scalar_sum():
    torch.manual_seed(21)
    model = Sums().eval()
    et = lower(torch.export.export(model, (torch.randn(3, 5),)))
    calls = [("forward", [torch.randn(3, 5)]) for _ in range(2)]
    return Built(et.buffer, calls, method_caller(model))


class WhereCatSelect(torch.nn.Module):
    def forward(self, x, y):
        return torch.where(x > 0, x, 0.5 * x), torch.cat([x, y], dim=1), x[:, 0]


@case("scalar_where_cat_select", "corstone-300",
      "torch.where(x > 0, x, 0.5 * x), torch.cat([x, y], dim=1) and x[:, 0] (select) on "
      "float32 x: 3 x 4, y: 3 x 2. Two calls.")
def scalar_where_cat_select():
    torch.manual_seed(22)
    model = WhereCatSelect().eval()
    et = lower(torch.export.export(model, (torch.randn(3, 4), torch.randn(3, 2))))
    calls = [("forward", [torch.randn(3, 4), torch.randn(3, 2)]) for _ in range(2)]
    return Built(et.buffer, calls, method_caller(model))


class ViewClone(torch.nn.Module):
    def forward(self, x):
        a = (x + 1.0).view(-1)
        b = x.reshape(4, 3) * 2.0
        c = x.clone()
        return a, b, c


@case("scalar_view_reshape_clone", "corstone-300",
      "(x + 1.0).view(-1), x.reshape(4, 3) * 2.0 and x.clone() on a float32 2 x 6 input. "
      "Static views are left to ExecuTorch's defaults (remove_view_copy=True). Two calls.")
def scalar_view_reshape_clone():
    torch.manual_seed(23)
    model = ViewClone().eval()
    et = lower(torch.export.export(model, (torch.randn(2, 6),)))
    calls = [("forward", [torch.randn(2, 6)]) for _ in range(2)]
    return Built(et.buffer, calls, method_caller(model))


class ZeroDim(torch.nn.Module):
    def forward(self, x, s):
        return x * s, s + 1.0


@case("scalar_zero_dim_input", "corstone-300",
      "A 0-d float32 input s next to a 4-vector x: returns x * s and s + 1.0 (a 0-d output). "
      "Two calls.")
def scalar_zero_dim_input():
    torch.manual_seed(24)
    model = ZeroDim().eval()
    et = lower(torch.export.export(model, (torch.randn(4), torch.tensor(2.0))))
    calls = [("forward", [torch.randn(4), torch.tensor(0.5)]),
             ("forward", [torch.randn(4), torch.tensor(-3.0)])]
    return Built(et.buffer, calls, method_caller(model))


# ---------------------------------------------------------------------------------------------
# Realistic CPU programs: the families firmware teams deploy, at small shapes. Every operator
# ExecuTorch's exporter leaves in them runs on ExecuTorch's own kernels.

def cpu_case(model, example, calls_inputs, seed):
    """A float32 CPU program: exported, lowered with ExecuTorch's defaults, two or more calls."""
    torch.manual_seed(seed)
    model = model().eval()
    et = lower(torch.export.export(model, example))
    calls = [("forward", list(inputs)) for inputs in calls_inputs()]
    return Built(et.buffer, calls, method_caller(model))


class InvertedResidual(torch.nn.Module):
    """MobileNetV2's block and head: 1x1 expand, 3x3 depthwise, 1x1 project, each with
    batch norm, ReLU6 between; a residual add; global average pool and a classifier."""

    def __init__(self):
        super().__init__()
        c, e = 8, 16
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, c, 3, stride=2, padding=1, bias=False),
                                        torch.nn.BatchNorm2d(c), torch.nn.ReLU6())
        self.block = torch.nn.Sequential(
            torch.nn.Conv2d(c, e, 1, bias=False), torch.nn.BatchNorm2d(e), torch.nn.ReLU6(),
            torch.nn.Conv2d(e, e, 3, padding=1, groups=e, bias=False), torch.nn.BatchNorm2d(e),
            torch.nn.ReLU6(),
            torch.nn.Conv2d(e, c, 1, bias=False), torch.nn.BatchNorm2d(c))
        self.fc = torch.nn.Linear(c, 5)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.block(x)
        return self.fc(x.mean(dim=(2, 3)))


def randomize_batch_norms(model):
    """Batch-norm statistics other than the initial ones, so their arithmetic shows."""
    for m in model.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    return model


@case("cnn_mobilenet_v2_block", "corstone-300",
      "MobileNetV2's inverted residual block with a stride-2 stem and its head (1x1 expand, 3x3 "
      "depthwise, 1x1 project, batch norm, ReLU6, residual add, mean over H and W, linear), "
      "float32, input 1 x 3 x 16 x 16. Two calls.")
def cnn_mobilenet_v2_block():
    return cpu_case(lambda: randomize_batch_norms(InvertedResidual()), (torch.randn(1, 3, 16, 16),),
                    lambda: [(torch.randn(1, 3, 16, 16),) for _ in range(2)], 30)


class ResNetBlock(torch.nn.Module):
    """ResNet's stem and basic block: 3x3 conv, batch norm, ReLU, 3x3 max pool, two 3x3 convs
    with a residual, a strided average pool and a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1, bias=False),
                                        torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                        torch.nn.MaxPool2d(3, stride=2, padding=1))
        self.conv1 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.AvgPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        x = self.stem(x)
        y = torch.relu(self.bn1(self.conv1(x)))
        x = torch.relu(x + self.bn2(self.conv2(y)))
        return self.fc(torch.flatten(self.pool(x), 1))


@case("cnn_resnet_block", "corstone-300",
      "ResNet's stem and basic block (3x3 conv, batch norm, ReLU, 3x3/2 max pool, two 3x3 convs "
      "with a residual, 2x2 average pool, flatten, linear), float32, input 1 x 3 x 16 x 16. "
      "Two calls.")
def cnn_resnet_block():
    return cpu_case(lambda: randomize_batch_norms(ResNetBlock()), (torch.randn(1, 3, 16, 16),),
                    lambda: [(torch.randn(1, 3, 16, 16),) for _ in range(2)], 31)


class DsCnn(torch.nn.Module):
    """The DS-CNN keyword spotter's shape (MLPerf Tiny's KWS): a strided 10x4 conv over MFCC
    frames, depthwise-separable blocks, global average pool, classifier; hardtanh as ReLU6."""

    def __init__(self):
        super().__init__()
        c = 8
        self.conv = torch.nn.Conv2d(1, c, (10, 4), stride=2, padding=(5, 1))
        self.bn = torch.nn.BatchNorm2d(c)
        blocks = []
        for _ in range(2):
            blocks += [torch.nn.Conv2d(c, c, 3, padding=1, groups=c), torch.nn.BatchNorm2d(c),
                       torch.nn.Hardtanh(0.0, 6.0),
                       torch.nn.Conv2d(c, c, 1), torch.nn.BatchNorm2d(c), torch.nn.Hardtanh(0.0, 6.0)]
        self.blocks = torch.nn.Sequential(*blocks)
        self.pool = torch.nn.AvgPool2d((13, 5))
        self.fc = torch.nn.Linear(c, 12)

    def forward(self, x):
        x = torch.nn.functional.hardtanh(self.bn(self.conv(x)), 0.0, 6.0)
        x = self.pool(self.blocks(x))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


@case("cnn_ds_cnn", "corstone-300",
      "A DS-CNN keyword spotter (MLPerf Tiny KWS's shape, narrower): 10x4/2 conv over 1 x 1 x 25 "
      "x 10 MFCC frames, two depthwise-separable blocks with batch norm and hardtanh(0, 6), "
      "average pool over the whole map, linear, softmax; float32. Two calls.")
def cnn_ds_cnn():
    return cpu_case(lambda: randomize_batch_norms(DsCnn()), (torch.randn(1, 1, 25, 10),),
                    lambda: [(torch.randn(1, 1, 25, 10),) for _ in range(2)], 32)


class Conv1dAudio(torch.nn.Module):
    """A 1-D convolutional audio classifier: strided conv over raw samples, batch norm, ReLU,
    max pool, a second conv, mean over time, classifier."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv1d(1, 8, 9, stride=4, padding=4)
        self.bn1 = torch.nn.BatchNorm1d(8)
        self.pool = torch.nn.MaxPool1d(2)
        self.conv2 = torch.nn.Conv1d(8, 8, 5, padding=2)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        x = torch.relu(self.conv2(x))
        return self.fc(x.mean(dim=2))


@case("conv1d_audio", "corstone-300",
      "A 1-D conv audio net over 1 x 1 x 128 samples: 9-tap/4 conv, batch norm, ReLU, max pool 2, "
      "5-tap conv, ReLU, mean over time, linear; float32. Two calls.")
def conv1d_audio():
    return cpu_case(lambda: randomize_batch_norms(Conv1dAudio()), (torch.randn(1, 1, 128),),
                    lambda: [(torch.randn(1, 1, 128),) for _ in range(2)], 33)


class Recurrent(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.rnn = kind(8, 12, batch_first=True)
        self.fc = torch.nn.Linear(12, 4)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


@case("rnn_lstm", "corstone-300",
      "nn.LSTM(8, 12) over a 1 x 6 x 8 sequence (batch first), the last step through a linear; "
      "float32. Two calls.")
def rnn_lstm():
    return cpu_case(lambda: Recurrent(torch.nn.LSTM), (torch.randn(1, 6, 8),),
                    lambda: [(torch.randn(1, 6, 8),) for _ in range(2)], 34)


@case("rnn_gru", "corstone-300",
      "nn.GRU(8, 12) over a 1 x 6 x 8 sequence (batch first), the last step through a linear; "
      "float32. Two calls.")
def rnn_gru():
    return cpu_case(lambda: Recurrent(torch.nn.GRU), (torch.randn(1, 6, 8),),
                    lambda: [(torch.randn(1, 6, 8),) for _ in range(2)], 35)


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0,
                                                      batch_first=True)

    def forward(self, x):
        return self.layer(x)


@case("transformer_encoder", "corstone-300",
      "nn.TransformerEncoderLayer(d_model 16, 2 heads, feed-forward 32, no dropout, batch first) "
      "over a 1 x 6 x 16 sequence; float32. Two calls.")
def transformer_encoder():
    return cpu_case(Encoder, (torch.randn(1, 6, 16),),
                    lambda: [(torch.randn(1, 6, 16),) for _ in range(2)], 36)


class NormMlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 6)

    def forward(self, x):
        x = torch.nn.functional.gelu(self.fc1(self.norm(x)))
        return torch.softmax(self.fc2(x), dim=-1)


@case("mlp_layernorm_gelu_softmax", "corstone-300",
      "LayerNorm(16) -> linear 16x32 -> GELU -> linear 32x6 -> softmax over a 2 x 4 x 16 input; "
      "float32. Two calls.")
def mlp_layernorm_gelu_softmax():
    return cpu_case(NormMlp, (torch.randn(2, 4, 16),),
                    lambda: [(torch.randn(2, 4, 16),) for _ in range(2)], 37)


class DecoderStep(torch.nn.Module):
    """One decoder step with a KV cache kept in the program's state: the new token's key and
    value are written at position `pos`, attention runs over the cache with positions after
    `pos` masked out."""

    def __init__(self):
        super().__init__()
        self.d, self.n = 8, 6
        self.q = torch.nn.Linear(8, 8, bias=False)
        self.k = torch.nn.Linear(8, 8, bias=False)
        self.v = torch.nn.Linear(8, 8, bias=False)
        self.o = torch.nn.Linear(8, 8)
        self.register_buffer("k_cache", torch.zeros(1, 6, 8))
        self.register_buffer("v_cache", torch.zeros(1, 6, 8))

    def forward(self, x, pos):
        self.k_cache[:, pos] = self.k(x)
        self.v_cache[:, pos] = self.v(x)
        scores = torch.bmm(self.q(x), self.k_cache.transpose(1, 2)) / (self.d ** 0.5)
        mask = torch.arange(self.n).unsqueeze(0).unsqueeze(0) > pos
        scores = scores.masked_fill(mask, float("-inf"))
        return self.o(torch.bmm(torch.softmax(scores, dim=-1), self.v_cache))


@case("kv_decoder_step", "corstone-300",
      "One attention decoder step with a 6-position KV cache in mutable buffers: the new key and "
      "value written at `pos` (int64 input, `cache[:, pos] = k`), bmm, causal mask, softmax, bmm, output "
      "projection; float32 1 x 1 x 8 token. Three calls, positions 0, 1, 2: the cache carries.")
def kv_decoder_step():
    torch.manual_seed(38)
    model = DecoderStep().eval().requires_grad_(False)
    eager = copy.deepcopy(model)
    et = lower(torch.export.export(model, (torch.randn(1, 1, 8), torch.tensor([0]))))
    calls = [("forward", [torch.randn(1, 1, 8), torch.tensor([p])]) for p in range(3)]
    return Built(et.buffer, calls, method_caller(eager))


class CondConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(2, 4, 3, padding=1)
        self.b = torch.nn.Conv2d(2, 4, 1)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: torch.relu(self.a(t)), lambda t: self.b(t) * 0.5,
                          (x,))


@case("cond_conv", "corstone-300",
      "torch.cond on x.sum() > 0 choosing a 3x3 conv + ReLU or a 1x1 conv * 0.5, float32 input "
      "1 x 2 x 6 x 6. Two calls, one per branch.")
def cond_conv():
    torch.manual_seed(39)
    model = CondConv().eval()
    et = lower(torch.export.export(model, (torch.randn(1, 2, 6, 6),)))
    calls = [("forward", [torch.randn(1, 2, 6, 6).abs()]),
             ("forward", [-torch.randn(1, 2, 6, 6).abs()])]
    return Built(et.buffer, calls, method_caller(model))


@case("transformer_encoder_fastpath", "corstone-300",
      "nn.TransformerEncoderLayer(16, 2, 32, batch_first) exported as aot_arm_compiler exports "
      "(strict torch.export under no_grad), which takes PyTorch's fast path: the whole layer is "
      "one aten::_transformer_encoder_layer_fwd, kept by to_edge_transform_and_lower "
      "(_check_ir_validity=False, as aot_arm_compiler). ExecuTorch has no kernel for it: its "
      "runtime refuses to load the method (Missing operator, error 0x14), so there are no "
      "calls and no reference outputs; arenaplan must refuse it at plan time, naming it.")
def transformer_encoder_fastpath():
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower
    torch.manual_seed(36)
    model = torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True, dropout=0.0).eval()
    with torch.no_grad():
        exported = torch.export.export(model, (torch.randn(1, 4, 16),), strict=True)
    edge = to_edge_transform_and_lower(
        exported, compile_config=EdgeCompileConfig(_check_ir_validity=False))
    missing = "aten::_transformer_encoder_layer_fwd.out"
    et = edge.to_executorch()
    names = {f"{op.name}.{op.overload}" for op in et.executorch_program.execution_plan[0].operators}
    if missing not in names:
        raise RuntimeError(f"the fast path was not taken: the program calls {sorted(names)}")
    return Built(et.buffer, [], reference=REFUSED, missing=[missing])


# ---------------------------------------------------------------------------------------------
# Cortex-M: ExecuTorch's Cortex-M backend (the `--target cortex-m55` flow of aot_arm_compiler):
# CortexMQuantizer, to_edge with the backend's compile config, CortexMPassManager for the M55.

class TinyKws(torch.nn.Module):
    """A small int8 keyword spotter: conv, depthwise conv, pointwise conv (ReLU after each), a
    residual add, max pool, linear. (Max, not average, pool: the backend's reference for its
    average pool dequantizes and averages in float, a rounding step from CMSIS-NN's integer
    average, so it cannot be a bit-exact reference.)"""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 8, 3, stride=2, padding=1)
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 8, 1)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 3, 6)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        y = torch.relu(self.pw(torch.relu(self.dw(x))))
        x = self.pool(x + y)
        return self.fc(torch.flatten(x, 1))


def channels_last(t):
    return t.to(memory_format=torch.channels_last)


def cortex_m_lower(model, example, calibration):
    from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
    from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
    from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
    from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig
    from executorch.exir import to_edge
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    captured = torch.export.export(model, example, strict=True).module(check_guards=False)
    prepared = prepare_pt2e(captured, CortexMQuantizer())
    for inputs in calibration:
        prepared(*inputs)
    converted = convert_pt2e(prepared)
    edge = to_edge(torch.export.export(converted, example, strict=True),
                   compile_config=cortex_m_edge_compile_config())
    manager = CortexMPassManager(edge.exported_program(), CortexMPassManager.pass_list,
                                 target_config=CortexMTargetConfig(cpu=CortexM.M55))
    edge._edge_programs["forward"] = manager.transform()
    lowered = edge.exported_program().module()

    def reference(method, inputs):
        with torch.no_grad():
            out = lowered(*inputs)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    return edge.to_executorch(), reference


@case("cortex_m55_kws", "corstone-300",
      "A small int8 keyword spotter (3x3/2 conv, depthwise 3x3, pointwise 1x1, ReLUs, residual "
      "add, 2x2 max pool, linear) lowered by ExecuTorch's Cortex-M backend for the M55 "
      "(CortexMQuantizer, CortexMPassManager): cortex_m:: quantize/dequantize, quantized conv2d, "
      "depthwise conv2d, add, max_pool2d and linear on CMSIS-NN, float32 I/O, input "
      "1 x 1 x 16 x 12. Reference: the lowered program on the backend's PyTorch reference "
      "operators. Two calls.")
def cortex_m55_kws():
    torch.manual_seed(40)
    # Channels-last, as the backend's convolutions want their tensors (CMSIS-NN is NHWC).
    model = TinyKws().eval().to(memory_format=torch.channels_last)
    example = (channels_last(torch.randn(1, 1, 16, 12)),)
    calibration = [(channels_last(torch.randn(1, 1, 16, 12)),) for _ in range(8)]
    et, reference = cortex_m_lower(model, example, calibration)
    calls = [("forward", [channels_last(torch.randn(1, 1, 16, 12))]) for _ in range(2)]
    return Built(et.buffer, calls, method_caller(model), reference=CORTEX_M_REFERENCE,
                 computed=reference)


# ---------------------------------------------------------------------------------------------
# Ethos-U

class TinyConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv2(torch.relu(self.conv1(x))))


ETHOSU_CONFIG_METHODS = ["input0_scale", "input0_zp", "output0_scale", "output0_zp"]


def ethosu_tosa_graphs(program):
    """The TOSA graph (flatbuffer bytes) behind each Ethos-U delegate of an edge program, keyed
    by the delegate's bytes. The program keeps only Vela's output, so each partition's own
    graph is lowered to TOSA again as the backend did, and Vela must turn that TOSA into the
    delegate's bytes exactly, or the case fails: the graph is the one the NPU's command stream
    was compiled from. (The compile spec's dump_intermediate_artifacts_to would write these
    graphs during the export, but it also stores its folder in the delegate's compile specs,
    inside the program.)"""
    from executorch.backends.arm.ethosu import EthosUCompileSpec
    from executorch.backends.arm.ethosu.backend import EthosUBackend
    from executorch.backends.arm.tosa.backend import TOSABackend
    from executorch.exir.lowered_backend_module import get_lowered_submodules

    graphs = {}
    for name, lowered, _ in get_lowered_submodules(program.graph_module):
        if lowered.backend_id != "EthosUBackend":
            raise RuntimeError(f"{name}: a {lowered.backend_id} delegate, not an Ethos-U one")
        spec = EthosUCompileSpec._from_list(lowered.compile_specs)
        tosa = TOSABackend._preprocess(copy.deepcopy(lowered.original_module),
                                       TOSABackend.filter_tosa_compile_specs(spec))
        with contextlib.redirect_stdout(io.StringIO()):
            vela = EthosUBackend._compile_tosa_flatbuffer(tosa.processed_bytes, spec)
        if vela.processed_bytes != lowered.processed_bytes:
            raise RuntimeError(f"{name}: Vela does not compile the TOSA made again from the "
                               f"partition into the delegate's bytes")
        graphs[bytes(lowered.processed_bytes)] = tosa.processed_bytes
    return graphs


class TosaDelegates(torch.fx.Interpreter):
    """Runs an edge program's graph node by node in PyTorch, except that each
    executorch_call_delegate runs the delegate's TOSA graph on TOSA's reference model, with
    the tensors the call gets as its inputs."""

    def __init__(self, module, graphs):
        super().__init__(module)
        self.graphs = graphs
        self.delegate_calls = sum(1 for n in module.graph.nodes if self.is_delegate_call(n))
        self.ran = 0

    @staticmethod
    def is_delegate_call(node):
        return node.op == "call_function" and \
            node.target is torch.ops.higher_order.executorch_call_delegate

    def run(self, *args):
        # Every delegate call must have gone through run_node below: a call missed there
        # would run the partition's own PyTorch graph instead, and nothing would show it.
        self.ran = 0
        out = super().run(*args)
        if self.ran != self.delegate_calls:
            raise RuntimeError(f"{self.ran} of {self.delegate_calls} delegate calls ran on "
                               f"TOSA's reference model")
        return out

    def run_node(self, node):
        if not self.is_delegate_call(node):
            return super().run_node(node)
        import tosa_reference_model

        self.ran += 1
        args, _ = self.fetch_args_kwargs_from_env(node)
        lowered, inputs = args[0], args[1:]
        for t in inputs:
            # The graph takes each input in its tensor's dim order: a contiguous tensor's
            # numpy array as it is. No case has a channels-last delegate input.
            if t.dim_order() != tuple(range(t.dim())):
                raise RuntimeError(f"{node.name}: an input in dim order {t.dim_order()}")
        arrays = [np.ascontiguousarray(t.detach().numpy()) for t in inputs]
        outputs, status = tosa_reference_model.run(
            self.graphs[bytes(lowered.processed_bytes)], arrays, verbosity="NONE",
            initialize_variable_tensor_from_numpy=True)
        if status != tosa_reference_model.GraphStatus.TOSA_VALID:
            raise RuntimeError(f"{node.name}: TOSA's reference model says {status}")
        wanted = node.meta["val"]
        if len(outputs) != len(wanted):
            raise RuntimeError(f"{node.name}: {len(outputs)} outputs, the call has {len(wanted)}")
        results = []
        for out, want in zip(outputs, wanted):
            t = torch.from_numpy(np.array(out))
            if t.dtype != want.dtype or list(t.shape) != list(want.shape):
                raise RuntimeError(f"{node.name}: output {t.dtype}{list(t.shape)} where the "
                                   f"call has {want.dtype}{list(want.shape)}")
            results.append(t)
        return tuple(results)


def ethosu_case(accelerator, memory_mode, int_io, cortex_m_io=False, model_fn=None,
                shape=(1, 3, 8, 8)):
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import (EthosUQuantizer,
                                                   get_symmetric_quantization_config)
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.passes.quantize_io_pass import extract_io_quant_params
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    torch.manual_seed(30)
    model = (model_fn or TinyConv)().eval()
    calibration = [torch.randn(*shape) for _ in range(8)]
    test_inputs = [torch.randn(*shape) for _ in range(2)]

    spec = EthosUCompileSpec(accelerator, memory_mode=memory_mode)
    quantizer = EthosUQuantizer(spec)
    quantizer.set_global(get_symmetric_quantization_config())
    exported = torch.export.export(model, (calibration[0],))
    # Without the guard-check submodule: the Arm quantizer's average-pool pass refuses a
    # graph with a call_module node (the tiny conv net has no pool and is exported as before).
    graph = exported.module() if model_fn is None else exported.module(check_guards=False)
    prepared = prepare_pt2e(graph, quantizer)
    for sample in calibration:
        prepared(sample)
    converted = convert_pt2e(prepared)

    vela_log = io.StringIO()  # Vela prints a performance summary; keep it out of the way
    with contextlib.redirect_stdout(vela_log):
        edge = to_edge_transform_and_lower(
            torch.export.export(converted, (calibration[0],)),
            partitioner=[EthosUPartitioner(spec)])
    if cortex_m_io == "replace_quant_nodes":
        # Exactly aot_arm_compiler's step for an Ethos-U target (_apply_replace_quant_nodes):
        # the quantize/dequantize left on the CPU become cortex_m's; every other CPU operator
        # stays an aten one (here the float average pool between them).
        from executorch.backends.cortex_m.passes.replace_quant_nodes_pass import (
            ReplaceQuantNodesPass)
        edge = edge.transform([ReplaceQuantNodesPass()])
    elif cortex_m_io:
        # As aot_arm_compiler does for an Ethos-U target: the Cortex-M backend's passes over
        # what stays on the CPU, so the quantize/dequantize at the NPU's boundaries become
        # cortex_m::quantize_per_tensor / dequantize_per_tensor (CMSIS-NN's).
        from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
        from executorch.backends.cortex_m.target_config import CortexM, CortexMTargetConfig
        manager = CortexMPassManager(edge.exported_program(), CortexMPassManager.pass_list,
                                     target_config=CortexMTargetConfig(cpu=CortexM.M55))
        edge._edge_programs["forward"] = manager.transform()
    qparams = None
    if int_io:
        # Strips the CPU quantize/dequantize at the I/O and adds constant methods
        # input0_scale, input0_zp, ..., output0_dtype.
        io_params = extract_io_quant_params(edge, input_idxs=(0,), output_idxs=(0,))
        (qin,) = io_params["inputs"].values()
        (qout,) = io_params["outputs"].values()
        qparams = (qin, qout)
    # The program as it is serialized: what the reference runs, CPU operators and all.
    lowered_program = copy.deepcopy(edge.exported_program())
    et = edge.to_executorch()
    on_tosa = TosaDelegates(lowered_program.module(), ethosu_tosa_graphs(lowered_program))

    def q(t, p):
        return torch.ops.quantized_decomposed.quantize_per_tensor(
            t, p["scale"], p["zero_point"], p["quant_min"], p["quant_max"], torch.int8)

    def dq(t, p):
        return torch.ops.quantized_decomposed.dequantize_per_tensor(
            t, p["scale"], p["zero_point"], p["quant_min"], p["quant_max"], torch.int8)

    def io_param(method):  # what extract_io_quant_params reported
        side, key = method.split("_")
        p = qparams[0] if side == "input0" else qparams[1]
        return [p["scale"] if key == "scale" else int(p["zero_point"])]

    def tosa_reference(method, inputs):
        with torch.no_grad():
            out = on_tosa.run(*inputs)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    def quantized(method, inputs):
        if method in ETHOSU_CONFIG_METHODS:
            return io_param(method)
        with torch.no_grad():
            if not int_io:
                return [converted(*inputs)]
            qin, qout = qparams
            return [q(converted(dq(inputs[0], qin)), qout)]

    def eager_float(method, inputs):
        if method in ETHOSU_CONFIG_METHODS:
            return io_param(method)
        with torch.no_grad():
            if not int_io:
                return [model(*inputs)]
            qin, qout = qparams
            return [q(model(dq(inputs[0], qin)), qout)]

    calls = []
    if int_io:
        qin, _ = qparams
        calls += [(name, []) for name in ETHOSU_CONFIG_METHODS]
        calls += [("forward", [q(t, qin)]) for t in test_inputs]
    else:
        calls += [("forward", [t]) for t in test_inputs]
    return Built(et.buffer, calls, eager_float, reference=TOSA_REFERENCE,
                 computed=tosa_reference, cross_checks=[(QUANTIZED, quantized)],
                 runtime_methods=set(ETHOSU_CONFIG_METHODS) if int_io else set())


def ethosu_description(accelerator, memory_mode, int_io, cortex_m_io=False):
    text = (f"Tiny conv net (conv2d 3->8 3x3 + relu, conv2d 8->4 3x3 + relu, 1x3x8x8 input), "
            f"int8-quantized with EthosUQuantizer + get_symmetric_quantization_config "
            f"(torchao prepare_pt2e / convert_pt2e, 8 seeded calibration inputs), lowered with "
            f"EthosUPartitioner(EthosUCompileSpec('{accelerator}', memory_mode='{memory_mode}')). ")
    if int_io:
        text += ("int8 I/O: extract_io_quant_params removed the CPU quantize/dequantize, so "
                 "forward takes and returns int8 and the program gains constant methods "
                 "input0_/output0_ scale, zp, quant_min, quant_max, dtype. The calls first read "
                 "input0_scale, input0_zp, output0_scale, output0_zp (no inputs; outputs are "
                 "from executorch.runtime and are a Double (float64 0-d npy) or an Int (int64 "
                 "0-d npy) EValue), then run forward twice. forward is the delegate call alone: "
                 "its reference is the delegate's TOSA graph on TOSA's reference model. ")
    elif cortex_m_io:
        text += ("float I/O, as ExecuTorch's aot_arm_compiler writes it: the Cortex-M backend's "
                 "passes (CortexMPassManager, M55) replace the quantize/dequantize around the "
                 "delegate call with cortex_m::quantize_per_tensor and dequantize_per_tensor. Two "
                 "forward calls; the reference runs the program: the cortex_m:: operators on the "
                 "PyTorch implementations the Cortex-M backend registers for them, the delegate "
                 "call's TOSA graph on TOSA's reference model. ")
    else:
        text += ("float I/O: quantized_decomposed::quantize_per_tensor and "
                 "dequantize_per_tensor run on the CPU around the delegate call. Two forward "
                 "calls; the reference runs the program: the quantize/dequantize in PyTorch, the "
                 "delegate call's TOSA graph on TOSA's reference model. ")
    return text + NO_FVP


@case("ethosu_u55_conv_float_io", "corstone-300",
      ethosu_description("ethos-u55-128", "Shared_Sram", False))
def ethosu_u55_conv_float_io():
    return ethosu_case("ethos-u55-128", "Shared_Sram", False)


@case("ethosu_u55_conv_int8_io", "corstone-300",
      ethosu_description("ethos-u55-128", "Shared_Sram", True))
def ethosu_u55_conv_int8_io():
    return ethosu_case("ethos-u55-128", "Shared_Sram", True)


@case("ethosu_u85_conv_float_io", "corstone-320",
      ethosu_description("ethos-u85-256", "Dedicated_Sram", False))
def ethosu_u85_conv_float_io():
    return ethosu_case("ethos-u85-256", "Dedicated_Sram", False)


@case("ethosu_u85_conv_int8_io", "corstone-320",
      ethosu_description("ethos-u85-256", "Dedicated_Sram", True))
def ethosu_u85_conv_int8_io():
    return ethosu_case("ethos-u85-256", "Dedicated_Sram", True)


@case("ethosu_u55_conv_cortex_m_io", "corstone-300",
      ethosu_description("ethos-u55-128", "Shared_Sram", False, cortex_m_io=True))
def ethosu_u55_conv_cortex_m_io():
    return ethosu_case("ethos-u55-128", "Shared_Sram", False, cortex_m_io=True)


@case("ethosu_u85_conv_cortex_m_io", "corstone-320",
      ethosu_description("ethos-u85-256", "Dedicated_Sram", False, cortex_m_io=True))
def ethosu_u85_conv_cortex_m_io():
    return ethosu_case("ethos-u85-256", "Dedicated_Sram", False, cortex_m_io=True)


@case("ethosu_u55_ds_cnn_cpu_avg_pool", "corstone-300",
      "The DS-CNN of cnn_ds_cnn (batch norms randomized, seed 30), int8-quantized with "
      "EthosUQuantizer + get_symmetric_quantization_config (8 seeded calibration inputs of 1 x 1 "
      "x 25 x 10), lowered with EthosUPartitioner(EthosUCompileSpec('ethos-u55-128', "
      "memory_mode='Shared_Sram')) and then, as aot_arm_compiler does for an Ethos-U target, "
      "ReplaceQuantNodesPass (the CPU's quantize/dequantize become cortex_m::'s). Its 13x5 "
      "average pool has stride 13x5, beyond the U55's 3, so the partitioner leaves it on the "
      "CPU between two NPU calls: dequantize, aten::avg_pool2d in float, quantize. Two forward "
      "calls; the reference runs the program: the CPU's operators in PyTorch (cortex_m:: on "
      "the implementations the Cortex-M backend registers for them), each of the two delegate "
      "calls' TOSA graphs on TOSA's reference model with what the CPU handed it. " + NO_FVP)
def ethosu_u55_ds_cnn_cpu_avg_pool():
    return ethosu_case("ethos-u55-128", "Shared_Sram", False, cortex_m_io="replace_quant_nodes",
                       model_fn=lambda: randomize_batch_norms(DsCnn()), shape=(1, 1, 25, 10))


# ---------------------------------------------------------------------------------------------
# Running the calls and writing a case.

def to_numpy(value):
    if isinstance(value, torch.Tensor):
        return np.ascontiguousarray(value.detach().cpu().numpy())
    if isinstance(value, bool):
        return np.array(value, dtype=np.bool_)
    if isinstance(value, int):
        return np.array(value, dtype=np.int64)
    if isinstance(value, float):
        return np.array(value, dtype=np.float64)
    raise TypeError(f"cannot store a {type(value).__name__} output in a .npy file")


def differences(against, k, method, got, want):
    """Human-readable differences between two output lists (`want` from `against`)."""
    out = []
    if len(got) != len(want):
        return [f"call {k} {method}: {len(got)} outputs vs {len(want)} in {against}"]
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = to_numpy(g), to_numpy(w)
        where = f"call {k} {method} output {i}"
        if g.shape != w.shape or g.dtype != w.dtype:
            out.append(f"{where}: {g.dtype}{list(g.shape)} vs {against} "
                       f"{w.dtype}{list(w.shape)}")
            continue
        if np.array_equal(g, w):
            continue
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        out.append(f"{where}: max abs diff {diff.max():.6g} "
                   f"({int((diff > 0).sum())} of {diff.size} elements differ)")
    return out


def run_calls(built):
    """Returns the reference outputs of every call, and {what: differences} against eager
    PyTorch and the case's other cross-checks."""
    from executorch.runtime import Runtime

    program = None
    if built.reference == REFUSED:
        try:
            Runtime.get().load_program(built.buffer).load_method("forward")
        except RuntimeError:
            return [], {}
        raise RuntimeError("ExecuTorch's runtime loaded a program the case says it refuses")
    if built.reference == RUNTIME or built.runtime_methods:
        program = Runtime.get().load_program(built.buffer)
    checks = list(built.cross_checks)
    if built.eager is not None:
        against = "eager PyTorch" if built.reference == RUNTIME else "float eager PyTorch"
        checks.insert(0, (against, built.eager))
    results, notes = [], {against: [] for against, _ in checks}
    for k, (method, inputs) in enumerate(built.calls):
        if built.reference == RUNTIME or method in built.runtime_methods:
            outs = list(program.load_method(method).execute([t.clone() for t in inputs]))
        else:
            outs = built.computed(method, [t.clone() for t in inputs])
        results.append(outs)
        for against, fn in checks:
            want = fn(method, [t.clone() for t in inputs])
            notes[against] += differences(against, k, method, outs, want)
    return results, notes


def write_case(name, out_dir):
    fn, target, description = CASES[name]
    built = fn()
    results, notes = run_calls(built)

    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "program.pte"), "wb") as f:
        f.write(bytes(built.buffer))
    calls = []
    for k, ((method, inputs), outputs) in enumerate(zip(built.calls, results)):
        entry = {"method": method, "inputs": [], "outputs": []}
        for i, t in enumerate(inputs):
            file = f"{k}-{method}-in{i}.npy"
            np.save(os.path.join(out_dir, file), to_numpy(t), allow_pickle=False)
            entry["inputs"].append(file)
        for i, t in enumerate(outputs):
            file = f"{k}-{method}-{i}.npy"
            np.save(os.path.join(out_dir, file), to_numpy(t), allow_pickle=False)
            entry["outputs"].append(file)
        calls.append(entry)
    manifest = {
        "exporter": versions(),
        "target": target,
        "reference": built.reference,
        "description": description,
        "calls": calls,
    }
    if built.missing:
        manifest["missing_operators"] = built.missing
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        f.write(json.dumps(manifest, indent=2, sort_keys=True) + "\n")

    print(f"[{name}] {len(calls)} calls, {len(built.buffer)} bytes of program, "
          f"reference {built.reference}")
    if built.reference == REFUSED:
        print(f"[{name}] ExecuTorch's runtime refuses it, as the case says")
    for against, found in notes.items():
        if found:
            print(f"[{name}] differs from {against}:")
            for note in found:
                print(f"    {note}")
        else:
            print(f"[{name}] matches {against} exactly")
    return {against: found for against, found in notes.items() if found}


def generate(names, root):
    failed, differing = [], {}
    for name in names:
        try:
            notes = write_case(name, os.path.join(root, name))
        except Exception as e:  # a case the toolchain cannot export is skipped, not faked
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            print(f"[{name}] SKIPPED: the toolchain failed: {type(e).__name__}: {e}")
            traceback.print_exc()
            failed.append(name)
            continue
        if notes:
            differing[name] = notes
    return failed, differing


def compare_trees(a, b):
    """Paths that differ between two case trees (missing on either side, or other bytes)."""
    def files(root):
        found = set()
        for d, _, fs in os.walk(root):
            for f in fs:
                found.add(os.path.relpath(os.path.join(d, f), root))
        return found

    fa, fb = files(a), files(b)
    out = [f"only committed: {p}" for p in sorted(fa - fb)]
    out += [f"only regenerated: {p}" for p in sorted(fb - fa)]
    for p in sorted(fa & fb):
        with open(os.path.join(a, p), "rb") as x, open(os.path.join(b, p), "rb") as y:
            if x.read() != y.read():
                out.append(f"bytes differ: {p}")
    return out


# ---------------------------------------------------------------------------------------------
# --describe: what the committed programs hold, read back with ExecuTorch's own deserializer.

def evalue_kind(v):
    return type(v.val).__name__


def op_schema(name, overload):
    namespace, op = name.split("::")
    try:
        packet = getattr(getattr(torch.ops, namespace), op)
        return str(getattr(packet, overload or "default")._schema)
    except (AttributeError, RuntimeError):
        return "(schema not registered in this process)"


def describe(root, names):
    import executorch.exir  # noqa: F401  (registers ExecuTorch's operator namespaces)
    import executorch.kernels.quantized  # noqa: F401  (quantized_decomposed .out schemas)
    from executorch.exir._serialize._program import deserialize_pte_binary

    schemas = {}
    for name in names:
        path = os.path.join(root, name, "program.pte")
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            pte = deserialize_pte_binary(f.read())
        program = pte.program
        print(f"== {name}")
        if pte.mutable_data:
            print(f"   mutable-data segment: {[len(b.storage) for b in pte.mutable_data]} bytes")
        for plan in program.execution_plan:
            ops = [f"{o.name}.{o.overload}" if o.overload else o.name for o in plan.operators]
            for o in plan.operators:
                schemas[(o.name, o.overload)] = op_schema(o.name, o.overload)
            print(f"-- method {plan.name}: inputs {plan.inputs} outputs {plan.outputs} "
                  f"non_const_buffer_sizes {plan.non_const_buffer_sizes}")
            print(f"   operators: {ops}")
            if plan.delegates:
                print(f"   delegates: {[d.id for d in plan.delegates]}")
            kinds = set()
            for ci, chain in enumerate(plan.chains):
                for ii, ins in enumerate(chain.instructions):
                    a = ins.instr_args
                    kind = type(a).__name__
                    if kind == "KernelCall":
                        arg_kinds = [evalue_kind(plan.values[x]) for x in a.args]
                        kinds.update(k for k in arg_kinds if k != "Tensor")
                        print(f"   [{ii}] {ops[a.op_index]} args {a.args} "
                              f"({', '.join(arg_kinds)})")
                        writes_self = not plan.operators[a.op_index].overload.endswith("out") \
                            and len(a.args) > 1 and a.args[0] == a.args[-1]
                        if writes_self:
                            print(f"       in place on value {a.args[0]}")
                    elif kind == "DelegateCall":
                        arg_kinds = [evalue_kind(plan.values[x]) for x in a.args]
                        kinds.update(k for k in arg_kinds if k != "Tensor")
                        print(f"   [{ii}] delegate {a.delegate_index} args {a.args}")
                    else:
                        print(f"   [{ii}] {a}")
            print(f"   non-tensor EValue kinds in instruction args: {sorted(kinds)}")
            for i, v in enumerate(plan.values):
                t = v.val
                if type(t).__name__ != "Tensor":
                    print(f"   value {i}: {t}")
                    continue
                alloc = t.allocation_info
                where = (f"mem_id {alloc.memory_id} offset {alloc.memory_offset}"
                         if alloc else "unplanned")
                fqn = t.extra_tensor_info.fully_qualified_name if t.extra_tensor_info else None
                print(f"   value {i}: Tensor {t.scalar_type.name}{t.sizes} {where} "
                      f"data_buffer_idx {t.data_buffer_idx}"
                      + (f" fqn {fqn!r}" if fqn else ""))
    print("== operator schemas")
    for (name, overload), schema in sorted(schemas.items()):
        print(f"{name}.{overload or 'default'}: {schema}")


# ---------------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="cases to make (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and compare bytes with the "
                             "committed files")
    parser.add_argument("--describe", action="store_true",
                        help="print operators, instructions and allocations of the committed "
                             "programs")
    parser.add_argument("--list", action="store_true", help="list the cases")
    args = parser.parse_args()

    names = args.cases or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"unknown cases: {unknown}; known: {list(CASES)}")
    if args.list:
        print("\n".join(CASES))
        return
    if args.describe:
        describe(OUT, names)
        return

    warnings.filterwarnings("ignore")
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)

    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            failed, differing = generate(names, tmp)
            problems = []
            for name in names:
                if name in failed:
                    continue
                problems += [f"{name}/{p}" for p in compare_trees(os.path.join(OUT, name),
                                                                  os.path.join(tmp, name))]
        print()
        for p in problems:
            print(f"DIFF {p}")
        print(f"{len(problems)} differences" if problems else "regenerated files are identical")
        sys.exit(1 if problems or failed else 0)

    for name in names:
        shutil.rmtree(os.path.join(OUT, name), ignore_errors=True)
    failed, differing = generate(names, OUT)
    print()
    if failed:
        print(f"skipped (toolchain failure): {failed}")
    if differing:
        print("cases whose reference differs from what it is compared with: "
              + ", ".join(f"{name} ({', '.join(notes)})" for name, notes in differing.items()))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
