#!/usr/bin/env python3
"""Writes build-support/src/kernels/executorch/signatures.tsv: the C++ signature of every
ExecuTorch kernel arenaplan can bind (portable, quantized, Cortex-M), one line per operator.

The build generates each operator's shim from this table (which reader takes each argument,
which function it calls, which file defines it), so binding a kernel needs no hand-written
code. The signatures are ExecuTorch's own: each operator's schema (its `func:` in the kernel
library's yaml, or torch's `native_functions.yaml` for ATen operators that yaml names only by
`op:`), turned into C++ types by ExecuTorch's code generator (`codegen/api/et_cpp.py`), as its
own build declares them in `NativeFunctions.h`. A type the table gets wrong fails to link
(C++ mangles parameter types), never runs.

Run by hand with the pinned packages (scripts/requirements-export.txt), against the kernel
sources the tests build (EXECUTORCH_PATH, default ../shared/third_party/executorch):

    /tmp/et-venv/bin/python scripts/make_et_signatures.py           # rewrite the table
    /tmp/et-venv/bin/python scripts/make_et_signatures.py --check   # compare with the committed one
"""

import argparse
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(
    HERE, "..", "build-support", "src", "kernels", "executorch", "signatures.tsv"))

# (yaml, the folder whose op_*.cpp define its kernels, namespace of operators the yaml names
# without one). Order is the table's order.
LIBRARIES = [
    ("kernels/portable/functions.yaml", "kernels/portable/cpu", "aten"),
    ("kernels/portable/custom_ops.yaml", "kernels/portable/cpu", "aten"),
    ("kernels/quantized/quantized.yaml", "kernels/quantized/cpu", "quantized_decomposed"),
    ("backends/cortex_m/ops/operators.yaml", "backends/cortex_m/ops", "cortex_m"),
]


# Namespaces no microcontroller program can use: `et_copy` copies between host and device
# memory, and a microcontroller has one memory space (their kernels need a device allocator).
SKIPPED_NAMESPACES = {"et_copy"}


def native_schemas():
    """Torch's schemas of the ATen operators, by `name.overload`."""
    import torchgen
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")
    from torchgen.gen import parse_native_yaml
    # Parsed as torchgen does, so the out variants it generates (`autogen:`) are there too.
    parsed = parse_native_yaml(path, os.path.join(os.path.dirname(path), "tags.yaml"))
    return {str(f.func.name): str(f.func) for f in parsed.native_functions}


def cpp_signature(func):
    """(return type, [argument C++ types]) of a schema, as ExecuTorch's codegen declares it."""
    from torchgen.model import FunctionSchema
    from executorch.codegen.api import et_cpp
    from torchgen import local
    schema = FunctionSchema.parse(func)
    with local.parametrize(use_const_ref_for_mutable_tensors=False,
                           use_ilistref_for_tensor_lists=False):
        return _signature(et_cpp, schema)


def _signature(et_cpp, schema):
    args = et_cpp.arguments(schema.arguments, faithful=True, method=False,
                            cpp_no_default_args=set())
    returns = et_cpp.returns_type(schema.returns).cpp_type()
    return returns, [a.type for a in args], [str(a.name) for a in args]


def defining_file(root, folder, function):
    """The op_*.cpp under `folder` that defines `function` (a declaration followed by a body)."""
    pattern = re.compile(r"\b%s\s*\([^;{]*\)\s*(const\s*)?\{" % re.escape(function), re.S)
    # A kernel a macro defines (`DEFINE_UNARY_UFUNC_...(tanh_out, std::tanh)`) has no body of
    # its own: then the one file naming it.
    mention = re.compile(r"\b%s\b" % re.escape(function))
    defined, named = [], []
    for name in sorted(os.listdir(os.path.join(root, folder))):
        if not name.endswith(".cpp"):
            continue
        with open(os.path.join(root, folder, name), encoding="utf-8") as f:
            text = f.read()
        if pattern.search(text):
            defined.append(f"{folder}/{name}")
        elif mention.search(text):
            named.append(f"{folder}/{name}")
    return defined or named


def rows(root):
    natives = native_schemas()
    out = []
    for yaml_path, folder, default_ns in LIBRARIES:
        with open(os.path.join(root, yaml_path)) as f:
            entries = yaml.load(f, Loader=yaml.CSafeLoader) or []
        for e in entries:
            kernels = e.get("kernels") or []
            if not kernels:
                continue  # a schema with no kernel (a functional variant ExecuTorch never runs)
            kernel = kernels[0]["kernel_name"]
            if "func" in e:
                func = e["func"]
                name = func.split("(", 1)[0]
                func_plain = func
                if "::" in name:
                    ns, name = name.split("::", 1)
                    func_plain = func.split("::", 1)[1]
                else:
                    ns = default_ns
            else:
                name = e["op"]
                ns = "aten"
                func_plain = natives.get(name)
                if func_plain is None:
                    print(f"skipped {name}: not in torch's native_functions.yaml", file=sys.stderr)
                    continue
            if ns in SKIPPED_NAMESPACES:
                continue
            returns, types, names = cpp_signature(func_plain)
            if returns not in ("void",) and not returns.endswith("&") \
                    and not returns.endswith("&>"):
                continue  # a functional form (returns a new tensor): never in a program
            prefix, function = kernel.rsplit("::", 1)
            qualified = f"{prefix}::native::{function}"
            files = defining_file(root, folder, function)
            if len(files) != 1:
                print(f"skipped {ns}::{name}: {function} defined in {files or 'no file'}",
                      file=sys.stderr)
                continue
            out.append("\t".join([f"{ns}::{name}", qualified, files[0], returns,
                                  "|".join(f"{t} {n}" for t, n in zip(types, names))]))
    return out


HEADER = """# ExecuTorch kernels arenaplan binds: operator, C++ function, defining file (under
# EXECUTORCH_PATH), return type, and each schema argument's C++ type and name in order.
# Written by scripts/make_et_signatures.py from ExecuTorch's yaml and torch's schemas; do not
# edit by hand.
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true")
    p.add_argument("--executorch", default=os.environ.get(
        "EXECUTORCH_PATH", os.path.join(HERE, "..", "..", "shared", "third_party", "executorch")))
    a = p.parse_args()
    text = HEADER + "\n".join(rows(a.executorch)) + "\n"
    if a.check:
        with open(OUT) as f:
            if f.read() != text:
                sys.exit(f"{OUT} differs from what the pinned packages give")
        print("signatures.tsv reproduces")
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}: {text.count(chr(10)) - HEADER.count(chr(10))} kernels")


if __name__ == "__main__":
    main()
