#!/usr/bin/python3
"""Writes the torch_npu-shaped fixture tests/data/training/npu_train_ascend_pt (README.md).

There is no Ascend hardware here: the folder is built by hand from the documented formats —
kernel_details.csv columns as torch_npu writes them (_csv_headers.py: Name, Type, Accelerator
Core, Start Time(us), Duration(us), Wait Time(us), Block Num, plus Step Id, OP State, Input/Output
Shapes/Data Types/Formats and aic_/aiv_ metrics), trace_view.json as a bare JSON list with
process_name lanes "Python", "CANN", "Ascend Hardware", "Overlap Analysis", decimal-string
timestamps and torch_to_npu flows, step_trace_time.csv with Step, Computing, Communication(Not
Overlapped), Overlapped, Communication, Free, Stage, Bubble, Communication(Not Overlapped and
Exclude Receive), Preparing (µs). Durations are plausible for an Atlas A2 but invented.

What the three steps hold (each a ProfilerStep#N on the host):
  - a data-loading range (_MultiProcessingDataLoaderIter.__next__) of 1.2 ms before any kernel;
  - an fp32 MatMulV2 (aten::addmm under aten::linear) of 1.5 ms: the AMP rule;
  - IndexPutV2 (int64 indices, 180 µs) and NonZero (60 µs) on AI_CPU: the AI CPU rule;
  - Mul → Add → Relu six times, 3–4 µs kernels 25 µs apart: launch-bound, a fusion candidate;
  - step 2 runs the matmul on a batch of 16 instead of 8 and pays 2 ms of extra host time before
    its first kernel (a compile); step 3 repeats step 1's shapes: the dynamic-shape rule.
step_trace_time.csv is computed from the same timeline (Computing = union of the step's kernels,
Free = the rest of the ProfilerStep range), so it cross-checks the analysis.
"""
import csv
import json
import os
import sys

BASE = 1718090000000000.0  # µs, the clock every file shares
PY_PID, PY_TID = 1001, 1001
CANN_PID = 1500
HW_PID, HW_TID = 2002, 2
OVERLAP_PID = 3003


def ts(v):
    return f"{BASE + v:.3f}"


class Fixture:
    def __init__(self):
        self.trace = [
            {"ph": "M", "name": "process_name", "pid": PY_PID, "tid": 0, "args": {"name": "Python"}},
            {"ph": "M", "name": "process_name", "pid": CANN_PID, "tid": 0, "args": {"name": "CANN"}},
            {"ph": "M", "name": "process_name", "pid": HW_PID, "tid": 0, "args": {"name": "Ascend Hardware"}},
            {"ph": "M", "name": "thread_name", "pid": HW_PID, "tid": HW_TID, "args": {"name": "Stream 2"}},
            {"ph": "M", "name": "process_name", "pid": OVERLAP_PID, "tid": 0, "args": {"name": "Overlap Analysis"}},
        ]
        self.kernels = []  # kernel_details rows
        self.flow = 0
        self.task = 100

    def host(self, name, start, dur, dims=None, types=None, cat="cpu_op"):
        args = {"Sequence number": -1, "Fwd thread id": 0}
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = types
        self.trace.append({"ph": "X", "name": name, "pid": PY_PID, "tid": PY_TID, "ts": ts(start), "dur": dur,
                           "cat": cat, "args": args})

    def kernel(self, step, launch, start, dur, name, op_type, core, shapes, dtypes, out_shape, out_dtype):
        self.task += 1
        self.flow += 1
        self.trace.append({"ph": "X", "name": name, "pid": HW_PID, "tid": HW_TID, "ts": ts(start), "dur": dur,
                           "args": {"Task Type": core, "Stream Id": HW_TID, "Task Id": self.task, "Model Id": 4294967295}})
        self.trace.append({"ph": "X", "name": "AscendCL@" + name.split("_")[0], "pid": CANN_PID, "tid": PY_TID,
                           "ts": ts(launch), "dur": 2.0, "args": {"connection_id": self.flow}})
        self.trace.append({"ph": "s", "cat": "async_npu", "name": "torch_to_npu", "id": self.flow, "pid": PY_PID,
                           "tid": PY_TID, "ts": ts(launch)})
        self.trace.append({"ph": "f", "cat": "async_npu", "name": "torch_to_npu", "id": self.flow, "pid": HW_PID,
                           "tid": HW_TID, "ts": ts(start), "bp": "e"})
        cube = core in ("AI_CORE", "MIX_AIC")
        self.kernels.append({
            "Step Id": step, "Device_id": 0, "Name": name, "Type": op_type, "OP State": "dynamic" if step == 2 else "static",
            "Accelerator Core": core, "Start Time(us)": f"{BASE + start:.3f}\t", "Duration(us)": f"{dur:.3f}",
            "Wait Time(us)": "0.000", "Block Num": 20 if cube else (1 if core == "AI_CPU" else 8),
            "Mix Block Num": 40 if core == "MIX_AIC" else 0, "HF32 Eligible": "NO",
            "Input Shapes": shapes, "Input Data Types": dtypes,
            "Input Formats": ";".join(["FORMAT_ND"] * len(dtypes.split(";"))),
            "Output Shapes": out_shape, "Output Data Types": out_dtype, "Output Formats": "FORMAT_ND",
            "aic_mac_ratio": "0.812" if cube else "N/A", "aiv_vec_ratio": "N/A" if cube or core == "AI_CPU" else "0.311",
        })
        return start + dur

    def step(self, n, start):
        batch = 16 if n == 2 else 8
        compile_us = 2000.0 if n == 2 else 0.0
        kernel_spans = []
        t = start
        # data loading: the device has nothing to do yet
        self.host(f"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", t, 1200.0, cat="user_annotation")
        t += 1200.0 + 20.0 + compile_us
        # forward: linear -> addmm -> MatMulV2 (fp32)
        self.host("aten::linear", t, 60.0, [[batch, 1024], [4096, 1024], [4096]], ["float", "float", "float"])
        self.host("aten::addmm", t + 10, 45.0, [[4096], [batch, 1024], [1024, 4096], [], []],
                  ["float", "float", "float", "Scalar", "Scalar"])
        k0 = t + 80.0
        end = self.kernel(n, t + 30, k0, 1500.0, "aclnnMm_MatMulCommon_MatMulV2", "MatMulV2", "AI_CORE",
                          f"{batch},1024;1024,4096", "FLOAT;FLOAT", f"{batch},4096", "FLOAT")
        kernel_spans.append((k0, end))
        t += 100.0
        # index_put with int64 indices and nonzero: AI CPU
        self.host("aten::index_put_", t, 40.0, [[batch, 4096], [batch], [batch]], ["float", "long int", "float"])
        k = max(end, t + 30) + 5.0
        end = self.kernel(n, t + 20, k, 180.0, "IndexPutV2_IndexPutV2_AICPU", "IndexPutV2", "AI_CPU",
                          f"{batch},4096;{batch};{batch}", "FLOAT;INT64;FLOAT", f"{batch},4096", "FLOAT")
        kernel_spans.append((k, end))
        t += 60.0
        self.host("aten::nonzero", t, 30.0, [[batch, 4096]], ["bool"])
        k = max(end, t + 20) + 5.0
        end = self.kernel(n, t + 15, k, 60.0, "NonZero_NonZero_AICPU", "NonZero", "AI_CPU",
                          f"{batch},4096", "BOOL", "32768,2", "INT64")
        kernel_spans.append((k, end))
        t = max(t + 40.0, end + 10.0)
        # six small elementwise chains, launched one by one
        for i in range(6):
            for op, ktype, dur in (("aten::mul", "Mul", 4.0), ("aten::add", "Add", 3.0), ("aten::relu", "Relu", 3.0)):
                self.host(op, t, 20.0, [[batch, 256], [batch, 256]] if op != "aten::relu" else [[batch, 256]],
                          ["float", "float"] if op != "aten::relu" else ["float"])
                k = t + 25.0
                end = self.kernel(n, t + 10, k, dur, f"aclnn{ktype}_{ktype}AiCore_{ktype}", ktype, "AI_VECTOR_CORE",
                                  f"{batch},256;{batch},256" if ktype != "Relu" else f"{batch},256",
                                  "FLOAT;FLOAT" if ktype != "Relu" else "FLOAT", f"{batch},256", "FLOAT")
                kernel_spans.append((k, end))
                t = end
        t += 300.0  # optimizer and bookkeeping on the host
        self.host("Optimizer.step#AdamW.step", t - 250.0, 200.0, cat="user_annotation")
        step_end = t
        self.host(f"ProfilerStep#{n}", start, step_end - start, cat="user_annotation")
        for a, b in kernel_spans:
            self.trace.append({"ph": "X", "name": "Computing", "pid": OVERLAP_PID, "tid": 0, "ts": ts(a), "dur": b - a})
        busy = 0.0
        lo = hi = None
        for a, b in sorted(kernel_spans):
            if hi is None or a > hi:
                if hi is not None:
                    busy += hi - lo
                lo, hi = a, b
            else:
                hi = max(hi, b)
        busy += hi - lo
        total = step_end - start
        row = {"Device_id": 0, "Step": n, "Computing": f"{busy:.3f}", "Communication(Not Overlapped)": "0.000",
               "Overlapped": "0.000", "Communication": "0.000", "Free": f"{total - busy:.3f}", "Stage": f"{total:.3f}",
               "Bubble": "0.000", "Communication(Not Overlapped and Exclude Receive)": "0.000",
               "Preparing": f"{kernel_spans[0][0] - start:.3f}"}
        return step_end, row


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "npu_train_ascend_pt")
    out = os.path.join(root, "localhost_4242_20240611083015123_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out, exist_ok=True)
    f = Fixture()
    rows = []
    start = 3000.0
    for n in (1, 2, 3):
        end, row = f.step(n, start)
        rows.append(row)
        start = end + 50.0
    with open(os.path.join(out, "trace_view.json"), "w", encoding="utf-8") as fh:
        json.dump(f.trace, fh, indent=None, separators=(",", ":"))
    with open(os.path.join(out, "kernel_details.csv"), "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(f.kernels[0].keys()))
        w.writeheader()
        w.writerows(sorted(f.kernels, key=lambda r: float(r["Start Time(us)"])))
    with open(os.path.join(out, "step_trace_time.csv"), "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print("wrote", out)


if __name__ == "__main__":
    main()
