"""TrainingAdvisor: the core's training analysis (`msadvisor-cli training`) on the trace that
patch_pytorch() wrote, or on any trace the CLI reads (Kineto / torch.profiler JSON, a torch_npu
*_ascend_pt folder, msprof or kernel_details CSV)."""
import json
import os
import re
import sys

from . import _args, _core, _progress, _torch
from .report import _JsonBacked, _text

# Which part of print_training_suggestions() a rule's findings go to.
_SECTIONS = (
    ("python.section_stalls", ("training.data_loading", "training.host_bound", "training.framework_overhead",
                               "training.communication", "training.pipeline_bubble", "training.host_copies",
                               "training.launch_bound", "training.host_sync", "training.dynamic_shape",
                               "training.slow_rank", "training.slow_rank_host", "training.slow_link")),
    ("python.section_precision", ("training.amp",)),
    ("python.section_checkpoint", ("training.checkpoint",)),
    ("python.section_fusion", ("training.fusion_candidate", "training.fused_operator")),
)


class TrainingReport(_JsonBacked):
    """A training analysis: the `analyze` report fields (latency_ms is the median step) plus the
    `training` block (steps, breakdown, operators, kernels, memory) as `report.training`.

    Attributes beyond the JSON: `steps_recorded` (the steps the figures come from),
    `steps_needed` (what the step statistics need; `step_statistics_are_a_guess` when fewer),
    `memory` (the memory the loop reached and the limit gradient checkpointing is judged against:
    `peak_bytes`, `limit_bytes`, `limit` ("budget" | "capacity" | None), `device`, `short`).

    Example:
        >>> report = TrainingAdvisor(model).analyze()
        >>> report.print_training_suggestions()
        >>> report.step_ms, report.steps_recorded, [f.location for f in report.checkpoint_candidates]
    """

    def __init__(self, handle, lang="en", memory=None, label=None):
        from .integration import STEPS_NEEDED
        self._handle = handle
        self.lang = lang
        self.memory = memory
        self.label = label  # the trained module's class ("ResNet (torch.nn.Module)"), when known
        super().__init__(json.loads(handle.to_json(lang)))
        self.steps_recorded = len(self._data.get("training", {}).get("steps", []))
        self.steps_needed = STEPS_NEEDED

    @property
    def step_statistics_are_a_guess(self):
        """True when fewer steps were recorded than the step statistics need (steps_needed)."""
        return self.steps_recorded < self.steps_needed

    @property
    def step_ms(self):
        """The median step (ms)."""
        return self._data["latency_ms"]

    @property
    def checkpoint_candidates(self):
        """Modules worth gradient checkpointing (training.checkpoint findings), best first: each
        has location (the module), params['freed_mb'], params['recompute_ms']…"""
        return [f for f in self.findings if f.rule == "training.checkpoint"]

    @property
    def mixed_precision(self):
        """The mixed-precision findings (training.amp)."""
        return [f for f in self.findings if f.rule == "training.amp"]

    @property
    def stalls(self):
        """Where the step stalls: data loading, host-bound, communication, copies, launches, syncs."""
        return [f for f in self.findings if f.rule in _SECTIONS[0][1]]

    def summary(self, lang=None):
        """The CLI's `training` text.

        Args:
            lang: "en" or "zh" (default: the report's).

        Returns:
            str

        Example:
            >>> print(report.summary())
        """
        return self._handle.to_text(lang or self.lang)

    def print_summary(self, lang=None, file=None):
        """Prints summary() to `file` (default sys.stdout).

        Example:
            >>> report.print_summary(lang="zh")
        """
        print(self.summary(lang), end="", file=file or sys.stdout)

    def training_suggestions(self, lang=None):
        """The suggestions as text: where the step stalls, mixed precision, gradient
        checkpointing (only when memory is short; otherwise why not), fused operators, the rest.

        Args:
            lang: "en" or "zh" (default: the report's).

        Returns:
            str

        Example:
            >>> text = report.training_suggestions()
        """
        lang = lang or self.lang
        data = self._data if lang == self.lang else json.loads(self._handle.to_json(lang))
        findings = data.get("findings", [])
        step = "{}: {:.3f} ms".format(_text("python.step", lang), data.get("latency_ms", 0.0))
        if self.step_statistics_are_a_guess:
            step += " " + _text("python.few_steps", lang).format(steps=self.steps_recorded, needed=self.steps_needed)
        what = "{} ({})".format(self.label, data.get("model", "")) if self.label else data.get("model", "")
        lines = ["{}: {}".format(_text("python.training_suggestions", lang), what), step]
        placed = set()
        for key, rules in _SECTIONS + (("python.section_other", None),):
            chosen = [f for f in findings if (rules is None and f["id"] not in placed) or (rules and f["rule"] in rules)]
            placed.update(f["id"] for f in chosen)
            lines.append("")
            lines.append(_text(key, lang))
            if not chosen and key == "python.section_checkpoint" and self.memory and data.get("training", {}).get(
                    "memory", {}).get("modules"):
                lines.append("  - " + self._no_pressure_text(lang))
            elif not chosen:
                lines.append("  - " + _text("python.none", lang))
            for f in chosen:
                lines.append("  - [{}] {}".format(f["priority"], f["title"]))
                lines.append("    " + f["suggestion"])
        return "\n".join(lines) + "\n"

    def _no_pressure_text(self, lang):
        m = self.memory
        if not m.get("limit_bytes"):
            return _text("python.checkpoint_no_limit", lang)
        return _text("python.checkpoint_no_pressure", lang).format(
            peak="{:.1f}".format(m["peak_bytes"] / 2 ** 20), limit="{:.1f}".format(m["limit_bytes"] / 2 ** 20),
            share="{:.0f}".format(100.0 * m["peak_bytes"] / m["limit_bytes"]),
            of=_text("python.memory_budget" if m["limit"] == "budget" else "python.memory_capacity", lang).format(
                device=m.get("device") or "?"))

    def print_training_suggestions(self, lang=None, file=None):
        """Prints training_suggestions(): which layers to checkpoint, which to run in mixed
        precision, where the step stalls.

        Args:
            lang: "en" or "zh".
            file: the stream (default sys.stdout).

        Example:
            >>> TrainingAdvisor(model).analyze().print_training_suggestions()
        """
        print(self.training_suggestions(lang), end="", file=file or sys.stdout)

    def compare(self, previous, threshold=0.05):
        """This run against an earlier one (the previous epoch's report).

        Args:
            previous: the earlier TrainingReport.
            threshold: the relative slowdown of the median step that counts as a regression.

        Returns:
            TrainingComparison: `regression` is True when this run's median step is slower by more
            than `threshold` and above the previous run's p90; `exit_code` for sys.exit.

        Example:
            >>> sys.exit(report.compare(previous).exit_code)
        """
        if not isinstance(previous, TrainingReport):
            raise TypeError("compare() takes another TrainingReport")
        return TrainingComparison(json.loads(_core.compare_training(previous._handle, self._handle, threshold)))

    def to_json(self, path=None, lang=None):
        """The CLI's `training --json` as a string (in `lang`, default the report's); written
        atomically to `path` when given.

        Example:
            >>> report.to_json("training.json")
        """
        text = self._handle.to_json(lang or self.lang)
        if path is not None:
            self._handle.write(os.fspath(path), text)  # never over a file of the trace (the core's check)
        return text

    def __repr__(self):
        return "<TrainingReport {}: median step {:.3f} ms, {} findings>".format(
            self._data.get("model"), self._data.get("latency_ms", 0.0), len(self.findings))


class TrainingComparison:
    """Two training runs (TrainingReport.compare()): previous_ms, current_ms, ratio, regression
    (bool), exit_code (0 / 1), regressions and improvements (operator or kernel names), nodes
    (per-item deltas). True when there is no regression.

    Example:
        >>> assert report.compare(previous), "the step got slower"
    """

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
        """1 on a regression, else 0 (for sys.exit)."""
        return 1 if self.regression else 0

    def __bool__(self):
        """True when there is no regression (so `assert report.compare(prev)` holds a CI line)."""
        return not self.regression

    def to_dict(self):
        """The comparison's JSON as a dict.

        Example:
            >>> report.compare(previous).to_dict()["ratio"]
        """
        return dict(self._data)

    def __repr__(self):
        return "<TrainingComparison {:.3f} -> {:.3f} ms ({:.2f}x){}>".format(
            self.previous_ms, self.current_ms, self.ratio, ", REGRESSION" if self.regression else "")


_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgt]?i?b?)\s*$", re.I)
_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "kib": 2 ** 10, "m": 1e6, "mb": 1e6, "mib": 2 ** 20, "g": 1e9,
          "gb": 1e9, "gib": 2 ** 30, "t": 1e12, "tb": 1e12, "tib": 2 ** 40}


def memory_bytes(value):
    """A memory size: bytes (int/float) or a string ("16GiB", "512 MB", "2e9")."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError("memory_budget is bytes or a size string like '16GiB', not a bool")
    if isinstance(value, (int, float)):
        n = float(value)
    elif isinstance(value, str):
        m = _SIZE.match(value)
        unit = m.group(2).lower() if m else None
        if not m or unit not in _UNITS:
            raise _core.UsageError("memory_budget {!r} is not a size: bytes, or a number with KB, MB, GB (10^3...) or "
                                   "KiB, MiB, GiB (2^10...)".format(value))
        n = float(m.group(1)) * _UNITS[unit]
    else:
        raise TypeError("memory_budget is bytes or a size string like '16GiB', not {}".format(type(value).__name__))
    if n <= 0:
        raise _core.UsageError("memory_budget must be positive")
    return n


class TrainingAdvisor:
    """Training advice from a profile of the training loop (`msadvisor-cli training`).

    Args:
        model: the torch.nn.Module whose training steps patch_pytorch() recorded: the latest
            session that ran this module is analysed (an error says so when none did). None: the
            last session.
        trace: any trace the CLI reads instead (Kineto / torch.profiler JSON, a torch_npu
            *_ascend_pt folder, msprof or kernel_details CSV).
        device: a device profile to price an Ascend trace's kernels on ("ascend910b",
            torch.device("npu")); None, "cpu" or torch.device("cpu"): the trace's own device.
        short_us: the duration below which a work item is launch-bound (µs).
        top: the TOP-N.
        lang: "en" or "zh".
        progress: None, False, True or a callable(phase, fraction).
        memory_budget: the memory the training may use (bytes or "16GiB"). Gradient
            checkpointing is proposed only when memory is short: the step's peak reaches 90 % of
            this budget, else of the device's capacity (patch_pytorch records both).
        timeout: seconds (0 for none; the CLI's --timeout and its default) for analyze():
            msadvisor.TimeoutError past it.

    Example:
        >>> with patch_pytorch():
        ...     train(model)
        >>> TrainingAdvisor(model).analyze().print_training_suggestions()
        >>> TrainingAdvisor(trace="run/rank0_ascend_pt", device="ascend910b").analyze()
    """

    def __init__(self, model=None, trace=None, device=None, short_us=None, top=10, lang="en", progress=None,
                 memory_budget=None, timeout=_core.DEFAULT_TIMEOUT):
        if model is not None and not _torch.is_module(model):
            raise TypeError("model is the torch.nn.Module that was trained, not {}".format(type(model).__name__))
        device = _args.device(device, allow_none=True)
        self.model = model
        self.trace = os.fspath(trace) if trace is not None else None
        self.device = None if device == "cpu" else device
        if short_us is not None and not (isinstance(short_us, (int, float)) and short_us > 0):
            raise _core.UsageError("short_us must be a positive number of microseconds")
        self.short_us = short_us
        self.top = _args.integer("top", top, 1)
        self.lang = _args.choice("lang", lang, _args.LANGS)
        _progress.check(progress)
        self.progress = progress
        self.memory_budget = memory_bytes(memory_budget)
        self.timeout = _args.timeout(timeout)

    def _session(self):
        from .integration import active_session, last_session, session_for
        if self.trace is not None:
            return None
        if self.model is not None:
            session = session_for(self.model)
            if session is None:
                raise RuntimeError("no recorded training steps of {}: call msadvisor.integration.patch_pytorch() "
                                   "before its training loop, or pass trace=PATH".format(type(self.model).__name__))
            return session
        session = active_session() or last_session()
        if session is None:
            raise RuntimeError("no trace: call msadvisor.integration.patch_pytorch() before the training loop, "
                               "or pass trace=PATH")
        return session

    def _memory(self, session):
        """The memory facts checkpointing is judged on: the session's peak and capacity, the budget."""
        reached = (session.memory if session is not None else None) or {}
        peak = float(reached.get("peak_bytes") or 0.0)
        if self.memory_budget:
            return {"peak_bytes": peak, "limit_bytes": self.memory_budget, "limit": "budget",
                    "device": reached.get("device"), "short": None}
        capacity = float(reached.get("capacity_bytes") or 0.0)
        return {"peak_bytes": peak, "limit_bytes": capacity, "limit": "capacity" if capacity else None,
                "device": reached.get("device"), "short": None}

    def analyze(self):
        """Analyses the recorded steps (stopping the session if it is still recording) or the trace.

        Returns:
            TrainingReport

        Example:
            >>> report = TrainingAdvisor(model).analyze()
        """
        session = self._session()
        if session is None:
            path = self.trace
        else:
            path = session.stop()
            if path is None:
                raise RuntimeError("the profiler wrote no trace: the loop ran fewer steps than the schedule's wait + "
                                   "warmup ({} + {}); run more steps or lower them".format(session.wait, session.warmup))
        memory = self._memory(session)
        with _progress.reporter(self.progress) as cb:
            handle = _core.analyze_training(path, device=self.device, short_us=self.short_us, top=self.top,
                                            memory_limit=memory["limit_bytes"],
                                            memory_limit_is_budget=memory["limit"] == "budget",
                                            memory_device=memory["device"] or "", memory_peak=memory["peak_bytes"],
                                            progress=cb, timeout=self.timeout)
        report = TrainingReport(handle, self.lang, memory,
                                "{} (torch.nn.Module)".format(type(self.model).__name__) if self.model is not None else None)
        if memory["limit_bytes"]:  # the rule's peak: at least the saved activations
            saved = report.training.get("memory", {}).get("saved_bytes") or 0.0
            memory["peak_bytes"] = max(memory["peak_bytes"], float(saved))
            memory["short"] = memory["peak_bytes"] >= 0.9 * memory["limit_bytes"]
        return report
