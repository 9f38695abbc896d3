#!/usr/bin/env python3
"""A second set of hostile inputs, made differently from the catalogue (tests/support/hostile_cases):
models are encoded by hand in protobuf's wire format here (no ONNX library), with other damage
than the catalogue's; profiles are other formats and other corruptions. Every file goes through
every verb of the CLI; the check is the same for all: no crash, no hang, a refusal names the file.

    hostile_second_set.py CLI OUT_DIR          # writes the files, runs the verbs, prints a table
"""
import gzip
import json
import os
import struct
import subprocess
import sys
import zlib


# --- a minimal protobuf wire-format encoder ---------------------------------------------------
def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def key(field, wire):
    return varint((field << 3) | wire)


def f_int(field, v):
    return key(field, 0) + varint(v)


def f_bytes(field, b):
    if isinstance(b, str):
        b = b.encode()
    return key(field, 2) + varint(len(b)) + b


def f_float(field, v):
    return key(field, 5) + struct.pack("<f", v)


FLOAT, INT64, BOOL = 1, 7, 9


def tensor_type(elem, dims):
    shape = b"".join(f_bytes(1, f_int(1, d) if isinstance(d, int) else f_bytes(2, d)) for d in dims)
    return f_bytes(1, f_int(1, elem) + f_bytes(2, shape))  # TypeProto.tensor_type


def value_info(name, elem=FLOAT, dims=(1, 4)):
    return f_bytes(1, name) + f_bytes(2, tensor_type(elem, dims))


def attr_int(name, v):
    return f_bytes(1, name) + f_int(20, 2) + f_int(3, v)


def attr_ints(name, vs):
    return f_bytes(1, name) + f_int(20, 7) + b"".join(f_int(8, v) for v in vs)


def attr_float(name, v):
    return f_bytes(1, name) + f_int(20, 1) + f_float(2, v)


def attr_graph(name, g):
    return f_bytes(1, name) + f_int(20, 5) + f_bytes(6, g)


def node(op, ins, outs, name="", domain="", attrs=()):
    b = b"".join(f_bytes(1, i) for i in ins) + b"".join(f_bytes(2, o) for o in outs)
    if name:
        b += f_bytes(3, name)
    b += f_bytes(4, op)
    b += b"".join(f_bytes(5, a) for a in attrs)
    if domain:
        b += f_bytes(7, domain)
    return b


def tensor(name, dims, elem=FLOAT, raw=None, floats=None, ints=None):
    b = b"".join(f_int(1, d) for d in dims) + f_int(2, elem)
    if floats is not None:
        b += b"".join(f_float(4, x) for x in floats)
    if ints is not None:
        b += b"".join(f_int(7, x) for x in ints)
    b += f_bytes(8, name)
    if raw is not None:
        b += f_bytes(9, raw)
    return b


def graph(nodes, inputs, outputs, inits=(), name="g"):
    return (b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, name) + b"".join(f_bytes(5, t) for t in inits)
            + b"".join(f_bytes(11, i) for i in inputs) + b"".join(f_bytes(12, o) for o in outputs))


def model(g, opsets=(("", 17),), ir=8, functions=()):
    b = f_int(1, ir) + f_bytes(2, "hostile-2")
    b += f_bytes(7, g)
    b += b"".join(f_bytes(8, (f_bytes(1, d) if d else b"") + f_int(2, v)) for d, v in opsets)
    b += b"".join(f_bytes(25, fn) for fn in functions)
    return b


def relu_model(**kw):
    return model(graph([node("Relu", ["x"], ["y"], "r")], [value_info("x")], [value_info("y")]), **kw)


# --- the models ----------------------------------------------------------------------------------
def models():
    m = {}
    # A model-local function that calls itself: inlining it never ends.
    fn = (f_bytes(1, "Self") + f_bytes(4, "x") + f_bytes(5, "y") + f_bytes(7, node("Self", ["x"], ["y"], domain="local"))
          + f_bytes(9, f_bytes(1, "") + f_int(2, 17)) + f_bytes(10, "local"))
    m["recursive_function"] = model(graph([node("Self", ["x"], ["y"], "call", domain="local")], [value_info("x")],
                                          [value_info("y")]), opsets=(("", 17), ("local", 1)), functions=[fn])
    # Loop whose body has no outputs at all.
    body = graph([], [value_info("i", INT64, ()), value_info("c", BOOL, ())], [], name="body")
    m["loop_empty_body"] = model(graph([node("Loop", ["", ""], ["y"], "loop", attrs=[attr_graph("body", body)])],
                                       [value_info("x")], [value_info("y")]))
    # Conv with stride 0 and a kernel larger than its input.
    w = tensor("w", [1, 1, 9, 9], raw=b"\0" * 324)
    m["conv_stride_zero"] = model(graph([node("Conv", ["x", "w"], ["y"], "conv", attrs=[attr_ints("strides", [0, 0])])],
                                        [value_info("x", FLOAT, (1, 1, 4, 4))], [value_info("y", FLOAT, (1, 1, 1, 1))], [w]))
    # Reshape to a constant shape whose product overflows int64.
    shape = tensor("s", [3], INT64, ints=[1 << 40, 1 << 40, 1 << 40])
    m["reshape_overflow"] = model(graph([node("Reshape", ["x", "s"], ["y"], "reshape")], [value_info("x")],
                                        [value_info("y", FLOAT, ())], [shape]))
    # Transpose with a permutation out of range; Concat on axis 1000; Split into more parts than dims.
    m["transpose_bad_perm"] = model(graph([node("Transpose", ["x"], ["y"], "t", attrs=[attr_ints("perm", [5, 7])])],
                                          [value_info("x")], [value_info("y")]))
    m["concat_axis_1000"] = model(graph([node("Concat", ["x", "x"], ["y"], "c", attrs=[attr_int("axis", 1000)])],
                                        [value_info("x")], [value_info("y")]))
    m["gather_huge_index"] = model(graph([node("Gather", ["x", "i"], ["y"], "g")], [value_info("x")], [value_info("y")],
                                         [tensor("i", [1], INT64, ints=[1 << 62])]))
    m["pad_negative"] = model(graph([node("Pad", ["x", "p"], ["y"], "pad")], [value_info("x")], [value_info("y")],
                                    [tensor("p", [4], INT64, ints=[-100, -100, -100, -100])]))
    # An attribute of the wrong type (kernel_shape as a float) and one named twice.
    m["attr_wrong_type"] = model(graph([node("MaxPool", ["x"], ["y"], "pool", attrs=[attr_float("kernel_shape", 3.0)])],
                                       [value_info("x", FLOAT, (1, 1, 4, 4))], [value_info("y", FLOAT, (1, 1, 2, 2))]))
    m["attr_twice"] = model(graph([node("Softmax", ["x"], ["y"], "s", attrs=[attr_int("axis", 1), attr_int("axis", 9)])],
                                  [value_info("x")], [value_info("y")]))
    # Initializer with both raw_data and float_data; a zero-sized tensor; a string tensor into Add.
    m["raw_and_typed"] = model(graph([node("Add", ["x", "b"], ["y"], "add")], [value_info("x")], [value_info("y")],
                                     [tensor("b", [1, 4], raw=b"\0" * 16, floats=[1, 2, 3, 4])]))
    m["zero_sized"] = model(graph([node("Relu", ["x"], ["y"], "r")], [value_info("x", FLOAT, (0, 4))],
                                  [value_info("y", FLOAT, (0, 4))]))
    m["string_into_add"] = model(graph([node("Add", ["x", "s"], ["y"], "add")], [value_info("x")], [value_info("y")],
                                       [f_bytes(8, "s") + f_int(1, 1) + f_int(1, 4) + f_int(2, 8) + b"".join(f_bytes(6, "a") for _ in range(4))]))
    # A node with 2000 outputs; a chain of 20000 Relus; a node name of 1 MB; an empty node name everywhere.
    m["many_outputs"] = model(graph([node("Split", ["x"], [f"o{i}" for i in range(2000)], "split")], [value_info("x")],
                                    [value_info("o0")]))
    chain = [node("Relu", ["x" if i == 0 else f"v{i - 1}"], [f"v{i}"]) for i in range(20000)]
    m["chain_20000"] = model(graph(chain, [value_info("x")], [value_info("v19999")]))
    m["name_1mb"] = model(graph([node("Relu", ["x"], ["y"], "n" * (1 << 20))], [value_info("x")], [value_info("y")]))
    # ir_version far in the future; default domain imported twice with different versions; no opset at all.
    m["ir_version_99"] = relu_model(ir=99)
    m["opset_twice"] = relu_model(opsets=(("", 13), ("", 17)))
    m["no_opset"] = relu_model(opsets=())
    # Graph input of sequence type fed to Relu; a graph without outputs.
    seq = f_bytes(1, "x") + f_bytes(2, f_bytes(4, f_bytes(1, tensor_type(FLOAT, (1, 4)))))
    m["sequence_into_relu"] = model(graph([node("Relu", ["x"], ["y"], "r")], [seq], [value_info("y")]))
    m["no_outputs"] = model(graph([node("Relu", ["x"], ["y"], "r")], [value_info("x")], []))
    # If nested 16 deep (the limit itself) whose branches are otherwise valid.
    leaf = graph([node("Identity", ["x"], ["l"])], [], [value_info("l")], name="leaf")
    g = leaf
    for level in range(15):
        g = graph([node("If", ["c"], [f"o{level}"], f"if{level}", attrs=[attr_graph("then_branch", g), attr_graph("else_branch", g)])],
                  [], [value_info(f"o{level}")], name=f"l{level}")
    top = node("If", ["c"], ["y"], "top", attrs=[attr_graph("then_branch", g), attr_graph("else_branch", g)])
    # Both branches hold the next level: 2^16 subgraphs in 3 MB.
    m["nested_if_16"] = model(graph([top], [value_info("x"), value_info("c", BOOL, ())], [value_info("y")]))
    # Damage to the bytes themselves: a varint of 11 bytes, a wire type 7, a zero-length graph,
    # field number 0, a length that stops one byte short.
    good = relu_model()
    m["varint_11_bytes"] = b"\x08" + b"\xff" * 10 + b"\x01" + good
    m["wire_type_7"] = b"\x0f" + good
    m["empty_graph_field"] = f_int(1, 8) + f_bytes(7, b"") + f_bytes(8, f_int(2, 17))
    m["field_number_zero"] = b"\x02\x01\x00" + good
    m["length_one_short"] = good[:-1]
    return m


# --- the profiles ----------------------------------------------------------------------------------
def profiles(out):
    p = {}
    ev = {"cat": "Node", "name": "r_kernel_time", "ph": "X", "ts": 5, "dur": 3, "pid": 1, "tid": 1, "args": {"op_name": "Relu"}}
    run = {"cat": "Session", "name": "model_run", "ph": "X", "ts": 1, "dur": 10, "pid": 1, "tid": 1}
    p["ort_args_array.json"] = json.dumps([run, dict(ev, args=[1, 2])])
    p["ort_ts_string.json"] = json.dumps([run, dict(ev, ts="five")])
    p["ort_dur_1e308.json"] = json.dumps([run, dict(ev, dur=1e308)]).replace("1e+308", "1e999")
    p["ort_duplicate_keys.json"] = '[{"name":"model_run","name":"r_kernel_time","ph":"X","ts":1,"dur":1,"cat":"Node"}]'
    p["ort_100k_events.json"] = json.dumps([run] + [dict(ev, ts=5 + i) for i in range(100000)])
    p["ort_nan.json"] = json.dumps([run, dict(ev, dur=float("nan"))])
    # A gzip "bomb": well under 1 MB on disk, 128 MB of spaces inside, named as a PyTorch trace.
    p["bomb.pt.trace.json.gz"] = gzip.compress(b'{"traceEvents":[' + b" " * (128 << 20) + b"]}", 1)
    p["not_gzip.pt.trace.json.gz"] = b"this is not gzip at all"
    p["kineto_events_object.pt.trace.json"] = json.dumps({"traceEvents": {"ph": "X"}})
    p["kineto_ts_overflow.pt.trace.json"] = json.dumps({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 9.2e18, "dur": 9.2e18},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": -9.2e18, "dur": 1e300}]})
    # msprof: a CSV with 5000 columns; a quoted field of 8 MB; a PROF_ folder with an empty device folder.
    hdr = "Op Name,OP Type,Task Type,Task Duration(us)," + ",".join(f"c{i}" for i in range(5000))
    p["wide/op_summary_1.csv"] = hdr + "\n" + "r,Relu,AI_CORE,1.0," + ",".join("0" for _ in range(5000)) + "\n"
    p["bigquote/op_summary_1.csv"] = 'Op Name,OP Type,Task Type,Task Duration(us)\n"' + "x" * (8 << 20) + '",Relu,AI_CORE,1.0\n'
    p["PROF_000001_20250101000000000_AAAAAAAAAAAAAAAA/device_0/.keep"] = ""
    p["kernel_details_utf16/kernel_details.csv"] = "Name,Type,Duration(us)\nr,Relu,1.0\n".encode("utf-16")
    p["trt_count_zero.profile"] = json.dumps([{"count": 0}, {"name": "r", "timeMs": 1.0, "averageMs": 1.0, "percentage": 100}])
    p["trt_object.profile"] = json.dumps({"count": 10})
    p["netron_metrics_huge.json"] = json.dumps({"signature": "netron:attachment", "metrics": [
        {"kind": "node", "target": "r", "name": "latency", "value": "1e400 ms"}]})
    p["profile_json_error_record.json"] = json.dumps({"error": {"kind": "model", "message": "x"}})
    for name, data in p.items():
        path = os.path.join(out, "profiles", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
    return sorted({n.split("/")[0] if "/" in n else n for n in p})


def run(cli, args, timeout=300):
    try:
        r = subprocess.run([cli] + args, capture_output=True, timeout=timeout)
        return r.returncode, r.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "HANG", ""


def main():
    cli, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "models"), exist_ok=True)
    base = os.path.join(out, "models", "relu.onnx")
    with open(base, "wb") as f:
        f.write(relu_model())
    rows, bad = [], 0
    for name, data in sorted(models().items()):
        path = os.path.join(out, "models", name + ".onnx")
        with open(path, "wb") as f:
            f.write(data)
        verbs = {"info": ["info", path], "estimate": ["estimate", path, "--device", "ascend910b"],
                 "analyze": ["analyze", path, "-n", "1", "--warmup", "0", "--timeout", "120"],
                 "optimize": ["optimize", path, "-o", os.path.join(out, name + ".out.onnx"), "--verify", "--timeout", "120"]}
        cells = []
        for verb, args in verbs.items():
            code, err = run(cli, args)
            ok = code in (0, 1, 2, 3, 4) and (code == 0 or name + ".onnx" in err)
            bad += not ok
            cells.append(f"{code}{'' if ok else ' BAD'}")
        rows.append((name, cells))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    for name in profiles(out):
        path = os.path.join(out, "profiles", name)
        cells = []
        for verb, args in {"import": ["profile", "--import", path, base], "analyze": ["analyze", "--profile", path]}.items():
            code, err = run(cli, args)
            ok = code in (0, 1, 2, 3) and (code == 0 or os.path.basename(name) in err)
            bad += not ok
            cells.append(f"{code}{'' if ok else ' BAD'}")
        rows.append((name, cells))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print(f"{len(rows)} files, {bad} bad outcomes (a crash, a hang, or a refusal not naming the file)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
