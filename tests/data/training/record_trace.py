#!/usr/bin/python3
"""Records the PyTorch training traces the training tests read (tests/data/training/README.md).

Run with Debian's python3-torch (1.13, CPU only): `/usr/bin/python3 record_trace.py [OUTDIR]`.

Each scenario trains a small model for a few steps under torch.profiler with a schedule
(wait 1, warmup 1, active STEPS) and record_shapes=True, and writes:
  <scenario>.pt.trace.json[.gz]   the trace in the Kineto Chrome-trace format (see below)
  <scenario>.torch_summary.json   torch's own key_averages() of the same run: per op name the
                                  call count, self and total CPU time (µs) — what the tests
                                  compare the C++ reader against
and, for the cnn scenario, cnn.legacy.json.gz: torch's export_chrome_trace() output as is.

Debian's torch is built without libkineto (torch.autograd.kineto_available() is False), so
export_chrome_trace() writes the legacy autograd format (a bare list, pid "CPU functions",
no categories, no shapes). The profiler still records everything Kineto would write for CPU
ops — names, start/duration, thread, correlation ("External id"), sequence numbers, input
shapes and dtypes — in profiler.kineto_results.events(). write_kineto_trace() serialises
those events the way libkineto's output_json.cpp does (traceEvents, ph "X", cat cpu_op /
user_annotation, args "External id", "Input Dims", "Input type", "Sequence number",
"Fwd thread id"; ts in µs from baseTimeNanoseconds). Every number in it is torch's.
"""
import gzip
import json
import os
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule

USER_SCOPE = 7  # c10::RecordScope::USER_SCOPE: record_function() ranges -> "user_annotation"
WAIT, WARMUP, STEPS = 1, 1, 4


def write_json(path, obj):
    text = json.dumps(obj, separators=(",", ":"))
    if len(text) > 1_000_000:
        path += ".gz"
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as f:
            f.write(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return path


def write_kineto_trace(prof, path, name):
    result = prof.profiler.kineto_results
    events = result.events()
    base_us = min(e.start_us() for e in events) if events else 0
    pid = os.getpid()
    trace = []
    threads = sorted({e.start_thread_id() for e in events})
    trace.append({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python3"}})
    for t in threads:
        trace.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": t, "args": {"name": f"thread {t}"}})
    for e in events:
        args = {"External id": e.correlation_id()}
        if e.scope() != USER_SCOPE:
            shapes, dtypes = e.shapes(), e.dtypes()
            if shapes or dtypes:
                args["Input Dims"] = [list(s) for s in shapes]
                args["Input type"] = list(dtypes)
            if e.sequence_nr() >= 0:
                args["Sequence number"] = e.sequence_nr()
                args["Fwd thread id"] = e.fwd_thread_id()
        trace.append({
            "ph": "X",
            "cat": "user_annotation" if e.scope() == USER_SCOPE else "cpu_op",
            "name": e.name(),
            "pid": pid,
            "tid": e.start_thread_id(),
            "ts": e.start_us() - base_us,
            "dur": e.duration_us(),
            "args": args,
        })
    doc = {
        "schemaVersion": 1,
        "deviceProperties": [],
        "distributedInfo": {"backend": "", "rank": 0, "world_size": 1},
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": base_us * 1000,
        "traceName": name,
        "traceEvents": trace,
    }
    return write_json(path, doc)


def write_summary(prof, path):
    rows = []
    for a in prof.key_averages():
        rows.append({"name": a.key, "count": a.count, "self_cpu_us": a.self_cpu_time_total, "cpu_total_us": a.cpu_time_total})
    rows.sort(key=lambda r: -r["self_cpu_us"])
    write_json(path, {"torch": torch.__version__, "ops": rows})


# ---- models -------------------------------------------------------------------------------

class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        self.features = nn.Sequential(block(3, 16), block(16, 32), nn.MaxPool2d(2), block(32, 32), nn.MaxPool2d(2))
        self.head = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


class SmallTransformer(nn.Module):
    def __init__(self, vocab=500, d=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


class TinyOpsMlp(nn.Module):
    """48 layers of 16x16 Linear + ReLU on a batch of 4: every op is microseconds."""
    def __init__(self, depth=48, width=16):
        super().__init__()
        self.layers = nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(width, width), nn.ReLU())])

    def forward(self, x):
        return self.layers(x)


class SlowImages(torch.utils.data.Dataset):
    """CIFAR-sized images whose loading sleeps: a data pipeline slower than the step."""
    def __init__(self, n, delay_s):
        self.x = torch.randn(n, 3, 32, 32)
        self.y = torch.randint(0, 10, (n,))
        self.delay_s = delay_s

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(self.delay_s)
        return self.x[i], self.y[i]


class VariableLengthTokens(torch.utils.data.Dataset):
    """Batches of token ids whose sequence length changes from batch to batch (no padding to a fixed length)."""
    def __init__(self, batches, batch, lengths, vocab=500):
        g = torch.Generator().manual_seed(1)
        self.items = [(torch.randint(0, vocab, (batch, lengths[i % len(lengths)]), generator=g)) for i in range(batches)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        t = self.items[i]
        return t, t.roll(-1, dims=1)


# ---- scenarios ----------------------------------------------------------------------------

def image_loader(n=8 * (WAIT + WARMUP + STEPS), batch=8, delay_s=0.0):
    ds = SlowImages(n, delay_s) if delay_s > 0 else torch.utils.data.TensorDataset(torch.randn(n, 3, 32, 32), torch.randint(0, 10, (n,)))
    return torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=False, num_workers=0)


def token_loader(lengths, batch=8):
    ds = VariableLengthTokens(WAIT + WARMUP + STEPS, batch, lengths)
    return torch.utils.data.DataLoader(ds, batch_size=None, shuffle=False, num_workers=0)


def classify_step(model, opt, batch):
    x, y = batch
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def lm_step(model, opt, batch):
    tokens, targets = batch
    logits = model(tokens)
    loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()


def scenario(name):
    if name == "cnn":
        m = SmallCnn()
        return m, torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9), image_loader(), classify_step
    if name == "transformer":
        m = SmallTransformer()
        return m, torch.optim.AdamW(m.parameters(), lr=1e-3), token_loader([32]), lm_step
    if name == "dataloader_stall":
        m = SmallCnn()
        # 8 samples x 3 ms of sleep: ~24 ms of loading per step, on the training process.
        return m, torch.optim.SGD(m.parameters(), lr=0.01), image_loader(delay_s=0.003), classify_step
    if name == "tiny_ops":
        m = TinyOpsMlp()
        data = [(torch.randn(4, 16), torch.randint(0, 16, (4,))) for _ in range(WAIT + WARMUP + STEPS)]
        return m, torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9), data, classify_step
    if name == "dynamic_shapes":
        m = SmallTransformer()
        return m, torch.optim.AdamW(m.parameters(), lr=1e-3), token_loader([16, 24, 32, 40, 48, 56]), lm_step
    raise SystemExit(f"unknown scenario {name}")


SCENARIOS = ["cnn", "transformer", "dataloader_stall", "tiny_ops", "dynamic_shapes"]


def record(name, outdir):
    torch.manual_seed(0)
    model, opt, data, step = scenario(name)
    model.train()
    written = []

    def ready(prof):
        written.append(write_kineto_trace(prof, os.path.join(outdir, f"{name}.pt.trace.json"), name))
        write_summary(prof, os.path.join(outdir, f"{name}.torch_summary.json"))
        if name == "cnn":
            legacy = os.path.join(outdir, "cnn.legacy.json")
            prof.export_chrome_trace(legacy)
            with open(legacy, "rb") as f, gzip.open(legacy + ".gz", "wb", compresslevel=9) as g:
                g.write(f.read())
            os.remove(legacy)
            written.append(legacy + ".gz")

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=WAIT, warmup=WARMUP, active=STEPS, repeat=1),
                 record_shapes=True, on_trace_ready=ready) as prof:
        for batch in data:
            step(model, opt, batch)
            prof.step()
    print(name, "->", ", ".join(written))


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    names = sys.argv[2:] or SCENARIOS
    torch.set_num_threads(1)  # steadier timings on a shared machine
    for name in names:
        record(name, outdir)


if __name__ == "__main__":
    main()
