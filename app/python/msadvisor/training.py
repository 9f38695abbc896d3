"""TrainingAdvisor: the core's training analysis (`msadvisor-cli training`) on the trace that
patch_pytorch() wrote, or on any trace the CLI reads (Kineto / torch.profiler JSON, a torch_npu
*_ascend_pt folder, msprof or kernel_details CSV)."""
import json
import os
import sys

from . import _core, _progress
from .report import _JsonBacked, _text

# Which part of print_training_suggestions() a rule's findings go to.
_SECTIONS = (
    ("python.section_stalls", ("training.data_loading", "training.host_bound", "training.framework_overhead",
                               "training.communication", "training.pipeline_bubble", "training.host_copies",
                               "training.launch_bound", "training.host_sync", "training.dynamic_shape",
                               "training.slow_rank", "training.slow_link")),
    ("python.section_precision", ("training.amp",)),
    ("python.section_checkpoint", ("training.checkpoint",)),
    ("python.section_fusion", ("training.fusion_candidate", "training.fused_operator")),
)


class TrainingReport(_JsonBacked):
    """A training analysis: the `analyze` report fields (latency_ms is the median step) plus the
    `training` block (steps, breakdown, operators, kernels, memory) as `report.training`."""

    def __init__(self, handle, lang="en"):
        self._handle = handle
        self.lang = lang
        super().__init__(json.loads(handle.to_json(lang)))

    @property
    def step_ms(self):
        return self._data["latency_ms"]

    @property
    def checkpoint_candidates(self):
        """Modules worth gradient checkpointing (training.checkpoint findings), best first: each
        has location (the module), params['freed_mb'], params['recompute_ms']…"""
        return [f for f in self.findings if f.rule == "training.checkpoint"]

    @property
    def mixed_precision(self):
        return [f for f in self.findings if f.rule == "training.amp"]

    @property
    def stalls(self):
        return [f for f in self.findings if f.rule in _SECTIONS[0][1]]

    def summary(self, lang=None):
        """The CLI's `training` text."""
        return self._handle.to_text(lang or self.lang)

    def print_summary(self, lang=None, file=None):
        print(self.summary(lang), end="", file=file or sys.stdout)

    def training_suggestions(self, lang=None):
        lang = lang or self.lang
        data = self._data if lang == self.lang else json.loads(self._handle.to_json(lang))
        findings = data.get("findings", [])
        lines = ["{}: {}".format(_text("python.training_suggestions", lang), data.get("model", "")),
                 "{}: {:.3f} ms".format(_text("python.step", lang), data.get("latency_ms", 0.0))]
        placed = set()
        for key, rules in _SECTIONS + (("python.section_other", None),):
            chosen = [f for f in findings if (rules is None and f["id"] not in placed) or (rules and f["rule"] in rules)]
            placed.update(f["id"] for f in chosen)
            lines.append("")
            lines.append(_text(key, lang))
            if not chosen:
                lines.append("  - " + _text("python.none", lang))
            for f in chosen:
                lines.append("  - [{}] {}".format(f["priority"], f["title"]))
                lines.append("    " + f["suggestion"])
        return "\n".join(lines) + "\n"

    def print_training_suggestions(self, lang=None, file=None):
        """Which layers to checkpoint, which to run in mixed precision, where the step stalls."""
        print(self.training_suggestions(lang), end="", file=file or sys.stdout)

    def compare(self, previous, threshold=0.05):
        """This run against an earlier one (the previous epoch's report): TrainingComparison, whose
        `regression` is True when this run's median step is slower by more than `threshold` and
        above the previous run's p90. `int(not comparison.regression)`… or sys.exit(comparison.exit_code)."""
        if not isinstance(previous, TrainingReport):
            raise TypeError("compare() takes another TrainingReport")
        return TrainingComparison(json.loads(_core.compare_training(previous._handle, self._handle, threshold)))

    def to_json(self, path=None, lang=None):
        text = self._handle.to_json(lang or self.lang)
        if path is not None:
            self._handle.write(os.fspath(path), text)  # never over a file of the trace (the core's check)
        return text

    def __repr__(self):
        return "<TrainingReport {}: median step {:.3f} ms, {} findings>".format(
            self._data.get("model"), self._data.get("latency_ms", 0.0), len(self.findings))


class TrainingComparison:
    """Two training runs: previous_ms, current_ms, ratio, regression (bool), exit_code (0 / 1),
    regressions and improvements (operator or kernel names), nodes (per-item deltas)."""

    def __init__(self, data):
        self._data = data
        self.previous_ms = data["step_ms"]["previous"]
        self.current_ms = data["step_ms"]["current"]
        self.ratio = data["ratio"]
        self.regression = bool(data["regression"])
        self.regressions = data.get("regressions", [])
        self.improvements = data.get("improvements", [])
        self.nodes = data.get("nodes", [])

    @property
    def exit_code(self):
        return 1 if self.regression else 0

    def __bool__(self):
        """True when there is no regression (so `assert report.compare(prev)` holds a CI line)."""
        return not self.regression

    def to_dict(self):
        return dict(self._data)

    def __repr__(self):
        return "<TrainingComparison {:.3f} -> {:.3f} ms ({:.2f}x){}>".format(
            self.previous_ms, self.current_ms, self.ratio, ", REGRESSION" if self.regression else "")


class TrainingAdvisor:
    """TrainingAdvisor(model).analyze() analyses the trace patch_pytorch() wrote (stopping the
    session if it is still recording); TrainingAdvisor(trace=PATH) any trace the CLI reads.
    `device` names a device profile (ascend910b, …) for the report; on an Ascend profile a torch_npu
    trace's kernels are priced from their kernel_details shapes (report.optimum_ms,
    report.training["pricing"]); `short_us` the line below
    which a work item is launch-bound; `top` the TOP-N; `timeout` (seconds, 0 for none; the CLI's
    --timeout and its default) bounds analyze() (msadvisor.TimeoutError)."""

    def __init__(self, model=None, trace=None, device=None, short_us=None, top=10, lang="en", progress=None,
                 timeout=_core.DEFAULT_TIMEOUT):
        self.model = model
        self.trace = os.fspath(trace) if trace is not None else None
        self.device = device
        self.short_us = short_us
        self.top = top
        self.lang = lang
        self.progress = progress
        self.timeout = timeout

    def _trace_path(self):
        if self.trace is not None:
            return self.trace
        from .integration import active_session, last_session
        session = active_session() or last_session()
        if session is None:
            raise RuntimeError("no trace: call msadvisor.integration.patch_pytorch() before the training loop, "
                               "or pass trace=PATH")
        path = session.stop()
        if path is None:
            raise RuntimeError("the profiler wrote no trace: the loop ran fewer steps than the schedule's wait + "
                               "warmup ({} + {}); run more steps or lower them".format(session.wait, session.warmup))
        return path

    def analyze(self):
        path = self._trace_path()
        with _progress.reporter(self.progress) as cb:
            handle = _core.analyze_training(path, device=self.device, short_us=self.short_us, top=self.top, progress=cb,
                                            timeout=self.timeout)
        return TrainingReport(handle, self.lang)
