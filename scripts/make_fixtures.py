#!/usr/bin/env python3
"""Regenerates build-support/testdata/fixtures/: small int8 models of our own, compiled by Arm's
Vela, packed into ExecuTorch programs with Ethos-U delegate calls, plus a Neutron-delegated
program built to the Neutron payload layout.

    python3 -m venv /tmp/fx && /tmp/fx/bin/pip install -r scripts/requirements-fixtures.txt
    /tmp/fx/bin/python scripts/make_fixtures.py           # rewrite the fixtures
    /tmp/fx/bin/python scripts/make_fixtures.py --check   # regenerate elsewhere, compare bytes

Everything is deterministic (fixed seeds, no timestamps), so a run reproduces the committed
files byte for byte. The tests read the committed files and need no Python.

Our own writers throughout: TFLite and ExecuTorch flatbuffers are written table by table with
the flatbuffers package's low-level Builder, from the formats' documented field orders; the
Vela bin stream follows the block layout ExecuTorch's Arm backend uses. Each program gets a
`.expect.json` sidecar whose numbers come from Vela's own output, not from arenaplan.
"""

import argparse
import filecmp
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import flatbuffers
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "build-support", "testdata", "fixtures")

U55 = ["--accelerator-config=ethos-u55-128", "--system-config=Ethos_U55_High_End_Embedded",
       "--memory-mode=Shared_Sram"]
U85 = ["--accelerator-config=ethos-u85-256", "--system-config=Ethos_U85_SYS_DRAM_Mid",
       "--memory-mode=Dedicated_Sram"]

# TFLite facts: TensorType INT8 = 9, INT32 = 2; BuiltinOperator CONV_2D = 3, MAX_POOL_2D = 17;
# BuiltinOptions Conv2DOptions = 1, Pool2DOptions = 5; Padding SAME = 0, VALID = 1.
INT8, INT32 = 9, 2
CONV_2D, MAX_POOL_2D = 3, 17
CONV_OPTIONS, POOL_OPTIONS = 1, 5


# ---------------------------------------------------------------------------------------------
# A few flatbuffer helpers on top of the low-level Builder.

def vec_i32(b, values):
    return b.CreateNumpyVector(np.array(values, dtype=np.int32))


def vec_i64(b, values):
    return b.CreateNumpyVector(np.array(values, dtype=np.int64))


def vec_f32(b, values):
    return b.CreateNumpyVector(np.array(values, dtype=np.float32))


def vec_bytes(b, data, alignment=16):
    b.StartVector(1, len(data), alignment)
    b.head = b.head - len(data)
    b.Bytes[b.head:b.head + len(data)] = data
    return b.EndVector()


def vec_tables(b, offsets):
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def table(b, fields):
    """fields: list of (slot, kind, value); kinds: u8 i8 bool u32 i32 u64 i64 off."""
    b.StartObject(max((slot for slot, _, _ in fields), default=-1) + 1)
    for slot, kind, value in fields:
        if kind == "off":
            b.PrependUOffsetTRelativeSlot(slot, value, 0)
        else:
            {"u8": b.PrependUint8Slot, "i8": b.PrependInt8Slot, "bool": b.PrependBoolSlot,
             "u32": b.PrependUint32Slot, "i32": b.PrependInt32Slot, "u64": b.PrependUint64Slot,
             "i64": b.PrependInt64Slot}[kind](slot, value, 0 if kind != "bool" else False)
    return b.EndObject()


# ---------------------------------------------------------------------------------------------
# TFLite models.

def tflite_model(tensors, buffers, operators, opcodes, inputs, outputs):
    """tensors: dicts(name, shape, type, buffer, scale, zero_point, qdim);
    operators: dicts(opcode, inputs, outputs, options_type, options(builder->offset))."""
    b = flatbuffers.Builder(4096)
    buffer_offsets = []
    for data in buffers:
        fields = []
        if data:
            fields.append((0, "off", vec_bytes(b, data)))
        buffer_offsets.append(table(b, fields))
    tensor_offsets = []
    for t in tensors:
        quant = table(b, [(2, "off", vec_f32(b, t["scale"])),
                          (3, "off", vec_i64(b, t["zero_point"])),
                          (6, "i32", t.get("qdim", 0))])
        name = b.CreateString(t["name"])
        shape = vec_i32(b, t["shape"])
        tensor_offsets.append(table(b, [(0, "off", shape), (1, "i8", t["type"]),
                                        (2, "u32", t["buffer"]), (3, "off", name),
                                        (4, "off", quant)]))
    op_offsets = []
    for op in operators:
        options = op["options"](b)
        ins, outs = vec_i32(b, op["inputs"]), vec_i32(b, op["outputs"])
        op_offsets.append(table(b, [(0, "u32", op["opcode"]), (1, "off", ins), (2, "off", outs),
                                    (3, "u8", op["options_type"]), (4, "off", options)]))
    code_offsets = [table(b, [(0, "i8", min(code, 127)), (2, "i32", 1), (3, "i32", code)])
                    for code in opcodes]
    sg_name = b.CreateString("main")
    subgraph = table(b, [(0, "off", vec_tables(b, tensor_offsets)), (1, "off", vec_i32(b, inputs)),
                         (2, "off", vec_i32(b, outputs)), (3, "off", vec_tables(b, op_offsets)),
                         (4, "off", sg_name)])
    description = b.CreateString("arenaplan fixture")
    model = table(b, [(0, "u32", 3), (1, "off", vec_tables(b, code_offsets)),
                      (2, "off", vec_tables(b, [subgraph])), (3, "off", description),
                      (4, "off", vec_tables(b, buffer_offsets))])
    b.Finish(model, file_identifier=b"TFL3")
    return bytes(b.Output())


def act(name, shape, scale, zero_point):
    return dict(name=name, shape=shape, type=INT8, buffer=0, scale=[scale], zero_point=[zero_point])


def conv_model():
    """[1,8,8,4] int8 -> 3x3 convolution, 8 filters, SAME -> [1,8,8,8] int8."""
    rng = np.random.default_rng(1234)
    weights = rng.integers(-127, 128, size=(8, 3, 3, 4), dtype=np.int8)
    w_scales = [0.002 + 0.0005 * c for c in range(8)]
    in_scale, out_scale = 0.05, 0.1
    bias = rng.integers(-500, 500, size=8, dtype=np.int32)
    tensors = [
        act("input", [1, 8, 8, 4], in_scale, -1),
        dict(name="weights", shape=[8, 3, 3, 4], type=INT8, buffer=1, scale=w_scales,
             zero_point=[0] * 8, qdim=0),
        dict(name="bias", shape=[8], type=INT32, buffer=2, scale=[in_scale * s for s in w_scales],
             zero_point=[0] * 8, qdim=0),
        act("output", [1, 8, 8, 8], out_scale, 2),
    ]
    options = lambda b: table(b, [(0, "i8", 0), (1, "i32", 1), (2, "i32", 1), (3, "i8", 1),
                                  (4, "i32", 1), (5, "i32", 1)])
    return tflite_model(tensors, [b"", weights.tobytes(), bias.tobytes()],
                        [dict(opcode=0, inputs=[0, 1, 2], outputs=[3], options_type=CONV_OPTIONS,
                              options=options)],
                        [CONV_2D], [0], [3])


def pool_model():
    """[1,8,8,8] int8 -> 2x2 max pooling, stride 2 -> [1,4,4,8] int8."""
    tensors = [act("input", [1, 8, 8, 8], 0.1, 2), act("output", [1, 4, 4, 8], 0.1, 2)]
    options = lambda b: table(b, [(0, "i8", 1), (1, "i32", 2), (2, "i32", 2), (3, "i32", 2),
                                  (4, "i32", 2), (5, "i8", 0)])
    return tflite_model(tensors, [b""],
                        [dict(opcode=0, inputs=[0], outputs=[1], options_type=POOL_OPTIONS,
                              options=options)],
                        [MAX_POOL_2D], [0], [1])


# ---------------------------------------------------------------------------------------------
# Vela and the bin stream.

def vela(tflite_path, config, fmt, work):
    out = os.path.join(work, "vela-" + fmt + "-" + ("u85" if config is U85 else "u55"))
    os.makedirs(out, exist_ok=True)
    subprocess.run(["vela", *config, "--output-format=" + fmt, "--output-dir=" + out, tflite_path],
                   check=True, stdout=subprocess.DEVNULL)
    stem = os.path.splitext(os.path.basename(tflite_path))[0]
    return os.path.join(out, stem + "_vela." + ("npz" if fmt == "raw" else "tflite"))


def bin_stream(npz_path):
    """Packs Vela's raw output the way ExecuTorch's Arm backend does: named 32-byte block
    headers, data padded to 16."""
    z = np.load(npz_path, allow_pickle=False)

    def block(name, data):
        header = name.encode().ljust(16, b"\0") + struct.pack("<I", len(data)) + b"\0" * 12
        return header + data + b"\0" * (-len(data) % 16)

    def io(prefix):
        shapes = z[prefix + "_shape"]
        data = struct.pack("<I", len(shapes))
        for shape, elem, offset, region in zip(shapes, z[prefix + "_elem_size"],
                                               z[prefix + "_offset"], z[prefix + "_region"]):
            data += struct.pack("<6I", *[int(d) for d in shape])
            data += struct.pack("<3I", int(elem), int(offset), int(region))
        return data

    stream = (block("vela_bin_stream", b"")
              + block("cmd_data", bytes(z["cmd_data"]))
              + block("weight_data", bytes(z["weight_data"]))
              + block("scratch_size", struct.pack("<I", int(z["scratch_shape"][0])))
              + block("inputs", io("input"))
              + block("outputs", io("output"))
              + block("vela_end_stream", b""))
    facts = dict(scratch_size=int(z["scratch_shape"][0]),
                 fast_scratch_size=int(z["scratch_fast_shape"][0]),
                 cmd_data_size=len(bytes(z["cmd_data"])),
                 num_inputs=len(z["input_shape"]), num_outputs=len(z["output_shape"]))
    return stream, facts


# ---------------------------------------------------------------------------------------------
# ExecuTorch programs.

def pte_program(tensors, calls, delegates, use_segments, output=None):
    """tensors: list of (sizes, mem_id, offset); calls: list of (delegate index, args);
    delegates: list of (backend id, blob bytes, compile specs dict); output: the output tensor
    (default: the last). One method, `forward`, taking tensor 0."""
    output = len(tensors) - 1 if output is None else output
    arena = max(offset + int(np.prod(sizes)) for sizes, _, offset in tensors)
    method = dict(name="forward", tensors=tensors, calls=calls, delegates=delegates,
                  inputs=[0], outputs=[output], buffer_sizes=[0, (arena + 15) // 16 * 16])
    return pte_methods([method], use_segments)


def pte_methods(methods, use_segments, mutable=None):
    """methods: dicts with name, tensors, calls, delegates (as pte_program's), inputs, outputs
    (tensor indices) and buffer_sizes (non_const_buffer_sizes); a tensor may have a fourth
    element, its index into `mutable`: the initial states of mutable tensors, kept in one
    segment (index 0 is ExecuTorch's "none")."""
    b = flatbuffers.Builder(4096)
    inline, segments, plans = [], [], []
    for m in methods:
        plans.append(execution_plan(b, m, use_segments, inline, segments))
    mutable_lists = None
    if mutable:
        offsets, cursor = [0], 0
        for data in mutable[1:]:
            offsets.append(cursor)
            cursor += (len(data) + 15) // 16 * 16
        offsets_vec = b.StartVector(8, len(offsets), 8)
        for o in reversed(offsets):
            b.PrependUint64(o)
        offsets_vec = b.EndVector()
        sub = table(b, [(0, "u32", len(segments)), (1, "off", offsets_vec)])
        mutable_lists = vec_tables(b, [sub])
        segments.append(b"".join(d + b"\0" * (-len(d) % 16) for d in mutable[1:]))

    inline_offsets = [table(b, [(0, "off", vec_bytes(b, blob))]) for blob in inline]
    segment_table, cursor = [], 0
    for blob in segments:
        segment_table.append(table(b, [(0, "u64", cursor), (1, "u64", len(blob))]))
        cursor += (len(blob) + 15) // 16 * 16
    program_fields = [(1, "off", vec_tables(b, plans)),
                      (3, "off", vec_tables(b, inline_offsets)),
                      (4, "off", vec_tables(b, segment_table))]
    if mutable_lists is not None:
        program_fields.append((6, "off", mutable_lists))
    program = table(b, program_fields)
    b.Finish(program, file_identifier=b"ET12")
    data = bytes(b.Output())
    if not use_segments:
        return data
    # Extended header after the identifier: magic, length, program size, segment base and
    # segment data size. The root offset moves by the header's length.
    header_len = 32
    program_size = len(data) + header_len
    base = (program_size + 15) // 16 * 16
    root = struct.unpack_from("<I", data, 0)[0] + header_len
    header = b"eh00" + struct.pack("<IQQQ", header_len, program_size, base, cursor)
    out = struct.pack("<I", root) + data[4:8] + header + data[8:]
    out += b"\0" * (base - len(out))
    for blob in segments:
        out += blob + b"\0" * (-len(blob) % 16)
    return out


def execution_plan(b, m, use_segments, inline, segments):
    """One method's execution plan; its delegates' blobs go to `inline` or `segments`. A tensor
    is (sizes, mem_id, offset)."""
    values = []
    for sizes, mem_id, offset, *initial in m["tensors"]:
        alloc = table(b, [(0, "u32", mem_id), (1, "u32", offset), (2, "u32", 0)])
        dim_order = vec_bytes(b, bytes(range(len(sizes))), alignment=1)
        # A fourth element: the index of the tensor's initial state in the mutable data.
        fields = [(0, "i8", 1), (2, "off", vec_i32(b, sizes)), (3, "off", dim_order)]
        fields += [(5, "u32", initial[0])] if initial else []
        tensor = table(b, fields + [(6, "off", alloc)])
        values.append(table(b, [(0, "u8", 5), (1, "off", tensor)]))
    instructions = []
    for delegate, args in m["calls"]:
        call = table(b, [(0, "i32", delegate), (1, "off", vec_i32(b, args))])
        instructions.append(table(b, [(0, "u8", 2), (1, "off", call)]))
    chain = table(b, [(0, "off", vec_i32(b, m["inputs"])), (1, "off", vec_i32(b, m["outputs"])),
                      (2, "off", vec_tables(b, instructions))])
    delegate_offsets = []
    for backend, blob, specs in m["delegates"]:
        spec_offsets = [table(b, [(0, "off", b.CreateString(k)),
                                  (1, "off", vec_bytes(b, v.encode(), alignment=1))])
                        for k, v in sorted(specs.items())]
        if use_segments:
            reference = table(b, [(0, "i8", 1), (1, "u32", len(segments))])
            segments.append(blob)
        else:
            reference = table(b, [(0, "i8", 0), (1, "u32", len(inline))])
            inline.append(blob)
        delegate_offsets.append(table(b, [(0, "off", b.CreateString(backend)), (1, "off", reference),
                                          (2, "off", vec_tables(b, spec_offsets))]))
    return table(b, [(0, "off", b.CreateString(m["name"])),
                     (2, "off", vec_tables(b, values)),
                     (3, "off", vec_i32(b, m["inputs"])), (4, "off", vec_i32(b, m["outputs"])),
                     (5, "off", vec_tables(b, [chain])),
                     (7, "off", vec_tables(b, delegate_offsets)),
                     (8, "off", vec_i64(b, m["buffer_sizes"]))])


def neutron_payload(scratch, sram_scratch):
    """A Neutron payload, version 0: header bytes (inputs, outputs, input arguments, formats,
    maps, version), then at 16 the microcode (magic, sizes, scratch sizes), weights, kernels.
    Microcode body, weights and kernels are deterministic filler, not Neutron code."""
    rng = np.random.default_rng(99)
    header = bytes([1, 1, 1, 0, 0, 0, 0, 0]).ljust(16, b"\0")
    microcode_size, weights_size = 256, 512
    words = [0] * 16
    words[0] = 0x64434D6E
    words[6], words[7] = microcode_size, weights_size
    words[9], words[10] = scratch, sram_scratch
    words[11], words[12] = 1, 1
    microcode = struct.pack("<16I", *words)
    microcode += rng.integers(0, 256, microcode_size - len(microcode), dtype=np.uint8).tobytes()
    weights = rng.integers(0, 256, weights_size, dtype=np.uint8).tobytes()
    kernels = rng.integers(0, 256, 64, dtype=np.uint8).tobytes()
    return header + microcode + weights + kernels


def ethos_specs(config):
    flags = " ".join(["--output-format=raw", *config])
    return {"compile_flags": flags, "output_format": "vela",
            "target": "ethos-u85-256" if config is U85 else "ethos-u55-128"}


def generate(out):
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="arenaplan-fixtures-")
    try:
        models = {"fixture_conv": conv_model(), "fixture_pool": pool_model()}
        raw = {}
        for name, data in models.items():
            path = os.path.join(out, name + ".tflite")
            with open(path, "wb") as f:
                f.write(data)
            for config, tag in ((U55, "u55"), (U85, "u85")):
                shutil.copyfile(vela(path, config, "tflite", work),
                                os.path.join(out, f"{name}_vela_{tag}.tflite"))
                raw[(name, tag)] = bin_stream(vela(path, config, "raw", work))

        def write_program(file, tensors, calls, delegates, segments, expect, output=None):
            with open(os.path.join(out, file), "wb") as f:
                f.write(pte_program(tensors, calls, delegates, segments, output))
            with open(os.path.join(out, file.replace(".pte", ".expect.json")), "w") as f:
                json.dump(dict(file=file, **expect), f, indent=1, sort_keys=True)
                f.write("\n")

        conv55, conv55_facts = raw[("fixture_conv", "u55")]
        pool55, pool55_facts = raw[("fixture_pool", "u55")]
        conv85, conv85_facts = raw[("fixture_conv", "u85")]
        call = lambda facts, backend="EthosUBackend": dict(
            backend_id=backend, num_inputs=facts["num_inputs"], num_outputs=facts["num_outputs"],
            scratch=[facts["scratch_size"]], vela_fast_scratch=facts["fast_scratch_size"],
            fast_scratch_in_blob=False)
        # One call: input [1,8,8,4] (256 B) -> output [1,8,8,8] (512 B), blob inline.
        write_program("ethosu_u55_one_call.pte", [([1, 8, 8, 4], 1, 0), ([1, 8, 8, 8], 1, 256)],
                      [(0, [0, 1])], [("EthosUBackend", conv55, ethos_specs(U55))], False,
                      dict(non_const_buffer_sizes=[0, 768], delegate_calls=[call(conv55_facts)]))
        # Two chained calls, blobs in segments behind an extended header.
        write_program("ethosu_u55_two_calls.pte",
                      [([1, 8, 8, 4], 1, 0), ([1, 8, 8, 8], 1, 256), ([1, 4, 4, 8], 1, 768)],
                      [(0, [0, 1]), (1, [1, 2])],
                      [("EthosUBackend", conv55, ethos_specs(U55)),
                       ("EthosUBackend", pool55, ethos_specs(U55))], True,
                      dict(non_const_buffer_sizes=[0, 896],
                           delegate_calls=[call(conv55_facts), call(pool55_facts)]))
        # The same program carrying its scratch, as ExecuTorch's delegate-scratch pass emits it:
        # each call's Vela scratch as a trailing 1-D byte tensor, planned in the arena.
        s_conv, s_pool = conv55_facts["scratch_size"], pool55_facts["scratch_size"]
        write_program("ethosu_u55_two_calls_carried_scratch.pte",
                      [([1, 8, 8, 4], 1, 0), ([1, 8, 8, 8], 1, 256), ([1, 4, 4, 8], 1, 768),
                       ([s_conv], 1, 896), ([s_pool], 1, 896)],
                      [(0, [0, 1, 3]), (1, [1, 2, 4])],
                      [("EthosUBackend", conv55, ethos_specs(U55)),
                       ("EthosUBackend", pool55, ethos_specs(U55))], True,
                      dict(non_const_buffer_sizes=[0, 896 + max(s_conv, s_pool)],
                           delegate_calls=[call(conv55_facts), call(pool55_facts)]),
                      output=2)
        # Two methods sharing state, as ExecuTorch's share_mutable_buffers lays them out: the
        # state (512 B) at mem_id 2, offset 0 in both, the buffer every method's
        # non_const_buffer_sizes lists third; everything else on mem_id 1. `update` writes the
        # state from its input (conv); `forward` runs a conv of its own input first, then reads
        # the state (pool) into its output, so the state is not used by the first call of the
        # timeline: only keeping it for the whole program keeps that call off it.
        # The state starts from initial contents (ExecuTorch's mutable data segment).
        state = ([1, 8, 8, 8], 2, 0, 1)
        initial = bytes((7 * i + 1) % 256 for i in range(512))
        with open(os.path.join(out, "ethosu_u55_two_methods_shared_state.pte"), "wb") as f:
            f.write(pte_methods([
                dict(name="forward",
                     tensors=[state, ([1, 4, 4, 8], 1, 0), ([1, 8, 8, 4], 1, 128),
                              ([1, 8, 8, 8], 1, 384)],
                     calls=[(0, [2, 3]), (1, [0, 1])],
                     delegates=[("EthosUBackend", conv55, ethos_specs(U55)),
                                ("EthosUBackend", pool55, ethos_specs(U55))],
                     inputs=[2], outputs=[1, 3], buffer_sizes=[0, 896, 512]),
                dict(name="update", tensors=[([1, 8, 8, 4], 1, 0), state], calls=[(0, [0, 1])],
                     delegates=[("EthosUBackend", conv55, ethos_specs(U55))],
                     inputs=[0], outputs=[], buffer_sizes=[0, 256, 512]),
            ], True, mutable=[b"", initial]))
        # Dedicated_Sram: the fast scratch size is Vela's, but not in the blob.
        write_program("ethosu_u85_one_call.pte", [([1, 8, 8, 4], 1, 0), ([1, 8, 8, 8], 1, 256)],
                      [(0, [0, 1])], [("EthosUBackend", conv85, ethos_specs(U85))], True,
                      dict(non_const_buffer_sizes=[0, 768], delegate_calls=[call(conv85_facts)]))
        # The same Neutron call exported for each chip (the compile spec `target` NXP's
        # converter records, which the build compares with the target's `npu.config`).
        for file, chip in [("neutron_v0_one_call.pte", "imxrt700"),
                           ("neutron_v0_one_call_mcxn94x.pte", "mcxn94x")]:
            write_program(file, [([1, 8, 8, 4], 1, 0), ([1, 8, 8, 8], 1, 256)],
                          [(0, [0, 1])],
                          [("NeutronBackend", neutron_payload(8192, 2048), {"target": chip})],
                          False,
                          dict(non_const_buffer_sizes=[0, 768],
                               delegate_calls=[dict(backend_id="NeutronBackend", num_inputs=1,
                                                    num_outputs=1, scratch=[8192, 2048],
                                                    payload_version=0)]))
        vela_facts = {f"{name}_vela_{tag}.tflite": dict(scratch_size=facts["scratch_size"],
                                                         fast_scratch_size=facts["fast_scratch_size"],
                                                         shared_sram=tag == "u55")
                      for (name, tag), (_, facts) in sorted(raw.items())}
        with open(os.path.join(out, "vela.expect.json"), "w") as f:
            json.dump(vela_facts, f, indent=1, sort_keys=True)
            f.write("\n")
    finally:
        shutil.rmtree(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary folder and compare with the committed files")
    args = parser.parse_args()
    if not args.check:
        generate(OUT)
        print("wrote", os.path.normpath(OUT))
        return 0
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        names = sorted(set(os.listdir(fresh)) | set(os.listdir(OUT)))
        _, mismatch, errors = filecmp.cmpfiles(fresh, OUT, names, shallow=False)
        for name in mismatch + errors:
            print("differs:", name)
        print(f"{len(names) - len(mismatch) - len(errors)} of {len(names)} files identical")
        return 1 if mismatch or errors else 0


if __name__ == "__main__":
    sys.exit(main())
