"""ModelAdvisor and the specialised advisors (FusionAdvisor, FormatAdvisor, KernelAdvisor): the
core's runAnalysis on a PyTorch module, an ONNX file, ONNX bytes or an onnx.ModelProto.

One measurement per model: a specialised advisor given report= uses that report; given a model,
it uses the last analysis of that same model object (same example shapes, device and settings,
weights unchanged) made in this process, and measures only when there is none."""
import collections.abc
import copy
import glob
import os
import tempfile
import weakref

from . import _args, _core, _progress, _torch
from ._core import DEFAULT_TIMEOUT
from .errors import ExportError, InputExampleError
from .report import Report
from .whatif import WhatIfReport


def _shape_dims(model, inputs):
    """Binds the symbolic dims of an ONNX model's inputs to the example's shapes ("input:axis")."""
    dims = {}
    graph_inputs = model.inputs
    if len(inputs) > len(graph_inputs):
        raise ValueError("input_example has {} tensors, the model {} inputs".format(len(inputs), len(graph_inputs)))
    for spec, tensor in zip(graph_inputs, inputs):
        shape = list(tensor.shape)
        declared = spec["shape"]
        if declared is not None and len(declared) != len(shape):
            raise ValueError("input '{}' has rank {}, input_example {}".format(spec["name"], len(declared), len(shape)))
        for axis, d in enumerate(declared or []):
            if not isinstance(d, int):
                dims["{}:{}".format(spec["name"], axis)] = int(shape[axis])
    return dims


def _on_npu(module):
    """True when the module's weights live on an Ascend NPU and torch_npu is importable."""
    try:
        first = next(module.parameters())
    except StopIteration:
        return False
    if first.device.type != "npu":
        return False
    try:
        import torch_npu  # noqa: F401
    except ImportError:
        return False
    return True


def _profile_on_npu(module, inputs, iterations, warmup):
    """Runs the module on its NPU under torch_npu's profiler (its documented API: profile,
    schedule, tensorboard_trace_handler) and returns the kernel_details.csv it wrote. This path
    cannot run without torch_npu and an Ascend device: docs/python.md says so."""
    import torch
    import torch_npu
    out = tempfile.mkdtemp(prefix="msadvisor-npu-")
    npu = torch_npu.profiler
    with torch.no_grad(), npu.profile(activities=[npu.ProfilerActivity.CPU, npu.ProfilerActivity.NPU],
                                      schedule=npu.schedule(wait=0, warmup=warmup, active=iterations, repeat=1),
                                      on_trace_ready=npu.tensorboard_trace_handler(out), record_shapes=True) as prof:
        for _ in range(warmup + iterations):
            module(*inputs)
            torch.npu.synchronize()
            prof.step()
    found = glob.glob(os.path.join(out, "*_ascend_pt", "ASCEND_PROFILER_OUTPUT", "kernel_details.csv"))
    if not found:
        raise _core.DeviceError("torch_npu.profiler wrote no kernel_details.csv under " + out)
    return found[0]


class LoadedModel:
    """A model as the core holds it, with what is needed to name PyTorch modules in findings.

    Attributes: `core` (msadvisor._core.Model), `source` ("torch.nn.Module ResNet", a path,
    "bytes", "onnx.ModelProto"), `label` (what reports call the model: "ResNet (torch.nn.Module)"
    or None for a file), `names` (ModuleNames of an exported module, else None), `module`,
    `inputs` (the example tuple), `fast_paths` (PyTorch fast paths disabled for the export)."""

    def __init__(self, core_model, source, names=None, module=None, inputs=None, keep=None, label=None, fast_paths=()):
        self.core = core_model
        self.source = source
        self.names = names
        self.module = module
        self.inputs = inputs
        self.label = label
        self.fast_paths = list(fast_paths)
        self._keep = keep         # the temporary folder of an export (external data lives there)


def _example_shapes(input_example):
    """For an ONNX model the example only binds symbolic dims: anything with a .shape will do
    (torch tensors, numpy arrays)."""
    if input_example is None:
        return None
    items = tuple(input_example) if isinstance(input_example, (tuple, list)) else (input_example,)
    for i, t in enumerate(items):
        if not hasattr(t, "shape"):
            raise TypeError("input_example[{}] has no shape ({})".format(i, type(t).__name__))
    return items


def module_label(module):
    return "{} (torch.nn.Module)".format(type(module).__name__)


def _export_module(model, inputs, opset):
    """The module exported to a temporary ONNX file; one-sentence errors for an example that does
    not fit and for a module the exporter refuses."""
    sentence = _torch.check_dtypes(model, inputs)
    if sentence:
        raise InputExampleError(sentence)
    tmp = tempfile.TemporaryDirectory(prefix="msadvisor-export-")
    path = os.path.join(tmp.name, _torch.file_name_for(model))
    try:
        if _on_npu(model):  # the export runs on a CPU copy; the profile comes from the NPU
            _, disabled = _torch.export(copy.deepcopy(model).cpu(), tuple(t.cpu() for t in inputs), path, opset)
        else:
            _, disabled = _torch.export(model, inputs, path, opset)
    except _torch.ExportFailed as failed:
        if failed.kind == "input":
            e = InputExampleError(failed.sentence)
        else:
            e = ExportError(failed.sentence)
            e.operator = failed.operator
        e.module_path = failed.module_path
        raise e from None
    return tmp, path, disabled


def load(model, input_example=None, opset=_torch.EXPORT_OPSET, phases=None):
    """`model` as a LoadedModel: a torch.nn.Module (exported to a temporary ONNX file), a path, ONNX
    bytes, an onnx.ModelProto, or a LoadedModel / msadvisor._core.Model already loaded."""
    if isinstance(model, LoadedModel):
        return model
    if isinstance(model, _core.Model):
        return LoadedModel(model, model.path or "<memory>")
    if _torch.is_module(model):
        inputs = _torch.as_input_tuple(input_example)  # a module needs an example of torch tensors
        if phases is not None:
            phases.start("export")
        tmp, path, disabled = _export_module(model, inputs, opset)
        if phases is not None:
            phases.done("export")
        core = _core.load_model(path)
        return LoadedModel(core, "torch.nn.Module " + type(model).__name__, _torch.ModuleNames(model), model, inputs, tmp,
                           label=module_label(model), fast_paths=disabled)
    inputs = _example_shapes(input_example)
    if isinstance(model, (str, os.PathLike)):
        return LoadedModel(_core.load_model(os.fspath(model)), os.fspath(model), inputs=inputs)
    if isinstance(model, (bytes, bytearray, memoryview)):
        return LoadedModel(_core.load_model_bytes(bytes(model), label="<bytes>"), "bytes", inputs=inputs)
    if type(model).__name__ == "ModelProto" and hasattr(model, "SerializeToString"):
        return LoadedModel(_core.load_model_bytes(model.SerializeToString(), label="<onnx.ModelProto>"), "onnx.ModelProto",
                           inputs=inputs)
    raise TypeError("model is a torch.nn.Module, an ONNX path, bytes or an onnx.ModelProto, not {}".format(
        type(model).__name__))


def _check_model(model, input_example):
    """The model and example's types, checked at construction (before the export)."""
    if model is None or isinstance(model, (LoadedModel, _core.Model, str, os.PathLike, bytes, bytearray, memoryview)):
        return
    if _torch.is_module(model):
        _torch.as_input_tuple(input_example)
        return
    if type(model).__name__ == "ModelProto" and hasattr(model, "SerializeToString"):
        return
    raise TypeError("model is a torch.nn.Module, an ONNX path, bytes or an onnx.ModelProto, not {}".format(
        type(model).__name__))


# -- one measurement per model -------------------------------------------------------------------

_by_module = weakref.WeakKeyDictionary()  # module -> {settings: (weights fingerprint, weakref(Report))}
_by_file = {}                              # (path, mtime, size) -> {settings: weakref(Report)}


def _weights_fingerprint(module):
    """Changes when a weight or buffer is replaced or modified in place (its version counter)."""
    return tuple((id(t), t._version) for t in list(module.parameters()) + list(module.buffers()))


def _file_key(model):
    if not isinstance(model, (str, os.PathLike)):
        return None
    try:
        st = os.stat(model)
    except OSError:
        return None
    return os.path.realpath(os.fspath(model)), st.st_mtime_ns, st.st_size


def _example_key(input_example):
    if input_example is None:
        return None
    items = tuple(input_example) if isinstance(input_example, (tuple, list)) else (input_example,)
    return tuple((tuple(int(d) for d in getattr(t, "shape", ())), str(getattr(t, "dtype", ""))) for t in items)


def _remember(advisor, report):
    key = advisor._settings_key()
    model = advisor.model
    if _torch.is_module(model):
        _by_module.setdefault(model, {})[key] = (_weights_fingerprint(model), weakref.ref(report))
    elif _file_key(model) is not None:
        _by_file.setdefault(_file_key(model), {})[key] = weakref.ref(report)


def previous_report(advisor):
    """The last Report of the same model object with the same settings (None when there is none,
    or the module's weights changed since)."""
    key = advisor._settings_key()
    model = advisor.model
    if _torch.is_module(model):
        entry = _by_module.get(model, {}).get(key)
        if entry is None or entry[0] != _weights_fingerprint(model):
            return None
        return entry[1]()
    fk = _file_key(model)
    ref = _by_file.get(fk, {}).get(key) if fk is not None else None
    return ref() if ref is not None else None


class ModelAdvisor:
    """Analyses a model: where the time goes and what to do about it, as `msadvisor-cli analyze`.

    Args:
        model: a torch.nn.Module (exported with torch.onnx.export to a temporary ONNX file), an
            ONNX path, ONNX bytes, an onnx.ModelProto, or None with `profile=`.
        input_example: a tensor or a tuple/list of tensors: the module's inputs (their shapes
            are the analysed shapes); for an ONNX model anything with a .shape binds its
            symbolic dims.
        optimization_goal: "latency" or "throughput" (the ranking's weights).
        deploy_scenario: "edge" or "datacenter".
        device: "cpu" or torch.device("cpu") measures on this CPU with ONNX Runtime (its optimizer
            on, as deployed, and off) and prices on this host's calibrated profile; a device
            profile id ("ascend910b", "ascend310p", ...) or a device JSON estimates on that
            device; torch.device("npu") is Ascend 910B (a module already on an NPU, with torch_npu,
            is profiled there).
        profile: an imported profile (msprof folder or CSV, torch_npu kernel_details.csv, ONNX
            Runtime JSON) analysed instead of measuring, with or without a model.
        dims: more symbolic-dim bindings ({"batch": 1}).
        top: the TOP-N findings.
        iterations, warmup, threads: the CPU measurement (ONNX Runtime; the PyTorch eager timing
            uses iterations and warmup too, with torch's own thread count).
        calibration: "auto", "cached", "refresh" or "off" (the host calibration).
        lang: "en" or "zh".
        progress: None (a bar on stderr in a terminal), False, True or a callable(phase, fraction).
        opset: the ONNX opset of the export.
        eager: time the module in PyTorch eager too (device "cpu" only), so the report states
            PyTorch's latency beside ONNX Runtime's.
        timeout: seconds (0 for none; the CLI's --timeout and its default) for analyze(): past it
            the work is cancelled and msadvisor.TimeoutError raised.

    Every argument is checked here, before any export or measurement.

    Example:
        >>> advisor = ModelAdvisor(model=model, input_example=torch.randn(1, 3, 224, 224),
        ...                        optimization_goal="latency", deploy_scenario="edge")
        >>> report = advisor.analyze()
        >>> report.print_summary()
    """

    def __init__(self, model=None, input_example=None, optimization_goal="latency", deploy_scenario="edge",
                 device="cpu", profile=None, dims=None, top=10, iterations=10, warmup=2, threads=0,
                 calibration="auto", lang="en", progress=None, opset=_torch.EXPORT_OPSET, eager=True,
                 timeout=DEFAULT_TIMEOUT):
        _check_model(model, input_example)
        if model is None and profile is None:
            raise _core.UsageError("ModelAdvisor needs a model, a profile=, or both")
        self.model = model
        self.input_example = input_example
        self.optimization_goal = _args.choice("optimization_goal", optimization_goal, _args.GOALS)
        self.deploy_scenario = _args.choice("deploy_scenario", deploy_scenario, _args.SCENARIOS)
        self.device = _args.device(device)
        self.profile = os.fspath(profile) if profile is not None else None
        self.dims = dict(dims or {})
        self.top = _args.integer("top", top, 1)
        self.iterations = _args.integer("iterations", iterations, 1)
        self.warmup = _args.integer("warmup", warmup, 0)
        self.threads = _args.integer("threads", threads, 0)
        self.calibration = _args.choice("calibration", calibration, _args.CALIBRATIONS)
        self.lang = _args.choice("lang", lang, _args.LANGS)
        _progress.check(progress)
        self.progress = progress
        self.opset = _args.integer("opset", opset, 7)
        self.eager = bool(eager)
        self.timeout = _args.timeout(timeout)
        self._loaded = None

    def _settings_key(self):
        return (self.device, self.profile, tuple(sorted(self.dims.items())), self.optimization_goal, self.deploy_scenario,
                self.threads, self.calibration, self.lang, self.opset, _example_key(self.input_example))

    def loaded(self):
        """The model as loaded, exported first when it is a module.

        Returns:
            LoadedModel (`core`, `source`, `label`, `names`, `module`, `inputs`, `fast_paths`), or
            None for a profile alone. Raises ExportError or InputExampleError (one sentence) for a
            module that does not export or an example that does not fit it.

        Example:
            >>> ModelAdvisor(model, x).loaded().core.op_histogram
        """
        return self._load(None)

    def _load(self, phases):
        if self._loaded is None and self.model is not None:
            self._loaded = load(self.model, self.input_example, self.opset, phases)
        return self._loaded

    def _times_eager(self, loaded):
        return (self.eager and loaded is not None and loaded.module is not None and self.profile is None
                and self.device == "cpu" and not _on_npu(loaded.module))

    def analyze(self, families=None):
        """Runs the analysis.

        Args:
            families: limit the rule families (["fusion", "kernel"]); None runs them all.

        Returns:
            Report: the findings, ranked, with the latency figures (see Report).

        Example:
            >>> report = ModelAdvisor(model, torch.randn(1, 3, 224, 224)).analyze()
            >>> report.bottlenecks[0].location
            'layer1.0.conv1'
        """
        is_module = _torch.is_module(self.model)
        stages = ([("export", 2)] if is_module and self._loaded is None else []) + [("analysis", 8)]
        if is_module and self.eager and self.device == "cpu" and self.profile is None:
            stages.append(("PyTorch eager timing", 2))
        with _progress.Phases(self.progress, stages) as phases:
            loaded = self._load(phases)
            dims = dict(self.dims)
            if loaded is not None and loaded.inputs is not None and loaded.names is None:
                dims = {**_shape_dims(loaded.core, loaded.inputs), **dims}
            device, profile = self.device, self.profile
            if profile is None and loaded is not None and loaded.module is not None and _on_npu(loaded.module):
                profile = _profile_on_npu(loaded.module, loaded.inputs, self.iterations, self.warmup)
                device = "ascend910b" if device == "cpu" else device
            phases.start("analysis")
            handle = _core.analyze(loaded.core if loaded else None, device=device, profile=profile, dims=dims,
                                   goal=self.optimization_goal, scenario=self.deploy_scenario, top=self.top,
                                   iterations=self.iterations, warmup=self.warmup, threads=self.threads,
                                   calibration=self.calibration, families=list(families or []),
                                   label=loaded.label if loaded and loaded.label else "",
                                   progress=phases.callback("analysis"), timeout=self.timeout)
            eager = None
            if self._times_eager(loaded):
                eager = eager_latency(loaded.module, loaded.inputs, self.iterations, 1,
                                      lambda f: phases.report("PyTorch eager timing", f))
        report = Report(handle, loaded.names if loaded else None, self.lang,
                        loaded.source if loaded else self.profile, top=self.top, eager=eager,
                        fast_paths=loaded.fast_paths if loaded else None)
        report._loaded = loaded
        if not families:
            _remember(self, report)
        return report

    def what_if(self, inputs=None, bound=None, goal=None, only=None, batches=None, samples=8, seed=1234, budget=40.0):
        """Builds the variants ONNX Runtime does not make by itself — int8 dynamic and static
        (QDQ), mixed precision, session settings, batch sizes, bf16 — checks each one's accuracy
        against the original on the same inputs and measures it beside the original as deployed,
        as `msadvisor-cli what-if` does. Nothing is changed: a variant is written only by
        WhatIfReport.save(). On an Ascend device the variants are estimated, and say so.

        Args:
            inputs: a folder of inputs (NAME.npy/.pb, *.npz, or one subfolder per sample) for
                calibration and accuracy; None uses seeded random inputs, and the accuracy is
                then only known for those.
            bound: "cosine=0.999,top1=0.99[,max_rel=…]" (the default); the verdict of each variant.
            goal: "latency" or "throughput" (adds batch sizes); default: the advisor's goal.
            only: variant names or kinds to build (["int8_dynamic", "threads_1"]); None: all that apply.
            batches: batch sizes for the throughput goal (default 2, 4, 8, 16).
            samples, seed: random inputs: calibration samples (as many again for accuracy), seed.
            budget: seconds of timing at most, after three rounds.

        Returns:
            WhatIfReport: `variants`, `best` (fastest within the bound), `baseline_ms`, `save()`.

        Example:
            >>> w = ModelAdvisor(model, torch.randn(1, 3, 224, 224)).what_if()
            >>> [(v.name, v.speedup, v.within_bound) for v in w]
        """
        goal = _args.choice("goal", goal if goal is not None else self.optimization_goal, _args.GOALS)
        only = [only] if isinstance(only, str) else list(only or [])
        batches = [_args.integer("batches", b, 2) for b in (batches or [])]
        samples = _args.integer("samples", samples, 1)
        stages = ([("export", 2)] if _torch.is_module(self.model) and self._loaded is None else []) + [("what-if", 10)]
        with _progress.Phases(self.progress, stages) as phases:
            loaded = self._load(phases)
            if loaded is None:
                raise _core.UsageError("what_if needs a model, not a profile alone")
            dims = dict(self.dims)
            if loaded.inputs is not None and loaded.names is None:
                dims = {**_shape_dims(loaded.core, loaded.inputs), **dims}
            phases.start("what-if")
            handle = _core.what_if(loaded.core, device=self.device, inputs=os.fspath(inputs) if inputs is not None else None,
                                   bound=bound or "", goal=goal, only=only, batches=batches, samples=samples,
                                   seed=_args.integer("seed", seed, 0), budget=float(budget), dims=dims,
                                   progress=phases.callback("what-if"), timeout=self.timeout)
        return WhatIfReport(handle, self.lang)


def eager_latency(module, inputs, runs, warmup=1, progress=None, min_runs=3, budget_s=3.0):
    """The module's PyTorch eager latency on the example (eval mode, autograd as the caller has
    it, torch's thread count): `warmup` untimed calls, then up to `runs` timed ones, stopping
    after `min_runs` once `budget_s` seconds are spent (a large model at a large input takes
    seconds per call). Returns {"median_ms", "p10_ms", "p90_ms", "runs", "threads", "grad_enabled"}."""
    import time
    torch = _torch.torch_module()
    samples = []
    with _torch.inference_state(module):
        for _ in range(warmup):
            module(*inputs)
        start = time.perf_counter()
        for i in range(runs):
            t0 = time.perf_counter()
            module(*inputs)
            samples.append((time.perf_counter() - t0) * 1000.0)
            if progress is not None:
                progress((i + 1) / runs)
            if len(samples) >= min_runs and time.perf_counter() - start > budget_s:
                break
    if progress is not None:
        progress(1.0)
    return {"median_ms": _torch.median(samples), "p10_ms": _torch.percentile(samples, 0.1),
            "p90_ms": _torch.percentile(samples, 0.9), "runs": len(samples), "threads": torch.get_num_threads(),
            "grad_enabled": torch.is_grad_enabled()}


# -- the specialised advisors ------------------------------------------------------------------------

class _FocusedAdvisor:
    """Takes ModelAdvisor's arguments, or report= an existing Report. analyze() keeps one category
    of the whole analysis (the ranking and the overlap accounting need every finding), reusing
    the report given, else the last analysis of the same model object in this process."""

    category = None

    def __init__(self, model=None, input_example=None, report=None, **kwargs):
        if report is not None and not isinstance(report, Report):
            raise TypeError("report is a msadvisor.Report (ModelAdvisor.analyze()), not {}".format(type(report).__name__))
        if report is None and model is None and kwargs.get("profile") is None:
            raise _core.UsageError("{} needs a model, a report= or a profile=".format(type(self).__name__))
        self.report = report
        self._advisor = None if report is not None else ModelAdvisor(model, input_example, **kwargs)

    def _report(self):
        if self.report is None:
            self.report = previous_report(self._advisor) or self._advisor.analyze()
        return self.report

    def analyze(self):
        report = self._report()
        return self._result(report, report.by_category(self.category))


def _number(text):
    try:
        return float(str(text).replace("×", "").replace("%", "").strip())
    except (TypeError, ValueError):
        return None


def _op_types(report, finding):
    ops = {n["name"]: n["op_type"] for n in report.nodes}
    return [ops.get(n, "?") for n in finding.nodes]


class _Item:
    """One entry of a focused analysis; `finding` is the full Finding."""

    _fields = ()

    def __init__(self, finding, **values):
        self.finding = finding
        self.__dict__.update(values)

    def to_dict(self):
        """The entry's fields as a dict."""
        return {k: getattr(self, k) for k in self._fields}

    def __repr__(self):
        return "<{} {}>".format(type(self).__name__, ", ".join("{}={!r}".format(k, getattr(self, k)) for k in self._fields[:3]))


class _Analysis(collections.abc.Sequence):
    """One category's entries, ranked: a sequence (index, slice, len, iterate) and, under the seed
    API's name, an attribute holding the same list. `report` is the Report they come from."""

    category = None
    entries = None  # the attribute name of the list

    def __init__(self, report, items, reason=None):
        self.report = report
        self.reason = reason
        setattr(self, self.entries, items)

    def __getitem__(self, index):
        return getattr(self, self.entries)[index]

    def __len__(self):
        return len(getattr(self, self.entries))

    def print_summary(self, lang=None):
        """Prints the CLI's focused view of this category (`msadvisor-cli fusions|formats|kernels`)."""
        print(self.report.category_summary(self.category, lang), end="")

    def __repr__(self):
        return "<{} {} {}{}>".format(type(self).__name__, len(self), self.entries,
                                      ": " + self.reason if self.reason and not len(self) else "")


class FusionOpportunity(_Item):
    """A fusion: `pattern` (the op chain), `location` (module path), `estimated_speedup` (as
    deployed: 1.0 when the runtime already applies it), `fusion_method`, `applied_by` (the
    runtime that already fuses it at load, e.g. "onnxruntime", else None), `speedup_unfused`
    (the fused part's local speedup against the unfused operators), `impact_ms`, `priority`,
    `legal`, `suggestion`, `finding`."""

    _fields = ("pattern", "location", "estimated_speedup", "fusion_method", "applied_by", "impact_ms", "priority", "legal")


class FusionAnalysis(_Analysis):
    """The fusion findings, ranked: a sequence of FusionOpportunity; also `opportunities`.
    `pending` lists those the runtime does not apply already.

    Example:
        >>> fusions = FusionAdvisor(report=report).analyze()
        >>> [o.location for o in fusions[:3]]
    """

    category, entries = "fusion", "opportunities"

    @property
    def pending(self):
        """The opportunities the runtime does not already apply."""
        return [o for o in self.opportunities if not o.applied_by]


class FusionAdvisor(_FocusedAdvisor):
    """Fusion opportunities of a model (`msadvisor-cli fusions`).

    Args:
        model, input_example, **kwargs: as ModelAdvisor.
        report: a Report to read instead of analysing (ModelAdvisor.analyze()).

    analyze() returns a FusionAnalysis: a sequence of FusionOpportunity, each with `pattern`
    ("Conv→BatchNormalization→Relu"), `location` (module path), `estimated_speedup` (as deployed:
    the fused part's current / fused time, 1.0 when the runtime already fuses it at load),
    `applied_by` ("onnxruntime" or None), `speedup_unfused` (against the unfused operators),
    `fusion_method` (the optimizer pass that applies it, or "manual" when it is advice only).

    Example:
        >>> fusions = FusionAdvisor(model=model, input_example=torch.randn(1, 3, 224, 224)).analyze()
        >>> for opp in fusions[:10]:
        ...     print(opp.pattern, opp.location, f"{opp.estimated_speedup:.2f}x", opp.fusion_method)
    """

    category = "fusion"

    def analyze(self):
        """Returns:
            FusionAnalysis: the fusion opportunities, ranked (a sequence)."""
        return super().analyze()

    def _result(self, report, findings):
        items = []
        for f in findings:
            pattern = f.params.get("pattern") or "→".join(_op_types(report, f))
            applied = f._data.get("applied_by") or None
            items.append(FusionOpportunity(
                f, pattern=pattern, location=f.location, estimated_speedup=1.0 if applied else f.speedup_local,
                speedup_unfused=f.speedup_local, applied_by=applied,
                fusion_method=f.fix if f.fix else (f.fix_pass or "manual"), impact_ms=f.impact_ms, priority=f.priority,
                legal=f.legal, suggestion=f.suggestion))
        return FusionAnalysis(report, items, None if items else report.empty_reason("fusion"))


class FormatConversion(_Item):
    """A layout/format conversion: `location`, `from_format`, `to_format`, `duration_ms` (its
    time now), `suggestion`, `applied_by`, `impact_ms`, `priority`, `finding`."""

    _fields = ("location", "from_format", "to_format", "duration_ms", "suggestion", "applied_by", "impact_ms", "priority")


def _formats(f):
    """(from, to) of a format finding, from its rule and parameters."""
    p = f.params
    if f.rule == "format.nchwc_reorder":
        block = p.get("block", "8/16")
        blocked = "NCHW{}c".format(block) if block.isdigit() else "NCHWc"
        variant = p.get("variant")
        if variant == "region_exit":
            return blocked, "NCHW"
        if variant == "sandwiched":
            return blocked, "NCHW (and back)"
        return "NCHW", blocked
    if f.rule in ("format.transdata", "format.small_channel"):
        return p.get("from_format", "NCHW"), p.get("to_format", "NC1HWC0")
    if f.rule in ("format.inverse_transpose", "format.layout_roundtrip"):
        perm = p.get("perm")
        return ("perm " + perm if perm else None), ("perm " + p["inverse"] if p.get("inverse") else "identity")
    return p.get("from_format"), p.get("to_format")


class FormatAnalysis(_Analysis):
    """The layout/format findings, ranked: a sequence of FormatConversion; also
    `unnecessary_conversions`.

    Example:
        >>> for conv in FormatAdvisor(report=report).analyze():
        ...     print(conv.location, conv.from_format, conv.to_format, conv.duration_ms)
    """

    category, entries = "format", "unnecessary_conversions"


class FormatAdvisor(_FocusedAdvisor):
    """Layout and format conversions of a model (`msadvisor-cli formats`).

    Args:
        model, input_example, **kwargs: as ModelAdvisor.
        report: a Report to read instead of analysing.

    analyze() returns a FormatAnalysis: a sequence of FormatConversion with `location`,
    `from_format`, `to_format` (NCHW ↔ NCHWc blocks for ONNX Runtime's reorders, NCHW → NC1HWC0
    for Ascend's TransData, Transpose permutations), `duration_ms` (the conversions' time now)
    and `suggestion`.

    Example:
        >>> format_report = FormatAdvisor(model, input_example).analyze()
        >>> for conv in format_report.unnecessary_conversions:
        ...     print(conv.location, conv.from_format, conv.to_format, f"{conv.duration_ms:.3f}ms")
    """

    category = "format"

    def analyze(self):
        """Returns:
            FormatAnalysis: the format findings, ranked (a sequence)."""
        return super().analyze()

    def _result(self, report, findings):
        items = []
        for f in findings:
            src, dst = _formats(f)
            items.append(FormatConversion(f, location=f.location, from_format=src, to_format=dst,
                                          duration_ms=f.impact["current_ms"], suggestion=f.suggestion,
                                          applied_by=f._data.get("applied_by") or None,
                                          impact_ms=f.impact_ms, priority=f.priority))
        return FormatAnalysis(report, items, None if items else report.empty_reason("format"))


class KernelSelection(_Item):
    """A kernel that runs slower than it could: `location`, `operator` (op type), `provider`
    (the execution provider or device unit), `current_kernel` (what the runtime ran, with the
    implementation where the runtime's graph tells it), `optimal_kernel` (what would be faster),
    `performance_gap` (× slower than that), `reason`, `impact_ms`, `priority`, `finding`."""

    _fields = ("location", "operator", "current_kernel", "optimal_kernel", "performance_gap", "reason", "provider")


# ONNX Runtime's CPU kernels by the op type of its optimized graph (the names its profile carries).
_ORT_CPU_IMPLEMENTATIONS = {
    "FusedConv": "FusedConv (MLAS convolution, activation fused)",
    "FusedGemm": "FusedGemm (MLAS SGEMM, activation fused)",
    "FusedMatMul": "FusedMatMul (MLAS SGEMM, scale/transpose fused)",
    "QLinearConv": "QLinearConv (int8)",
    "MatMulInteger": "MatMulInteger (int8 GEMM)",
}


def runtime_kernel(node, ir_ops=None):
    """What ONNX Runtime ran for a node of its optimized graph: "op (implementation) on provider".
    `node` is one of Report.runtime_nodes(); `ir_ops` (IR node name -> op type) names the ONNX
    operators it absorbed ("NCHWc Conv (MLAS blocked layout; BatchNormalization+Relu fused) on
    CPUExecutionProvider")."""
    op = node.get("op_type") or "?"
    provider = node.get("provider") or ""
    absorbed = [ir_ops.get(n, "?") for n in node.get("ir_nodes", [])[1:]] if ir_ops else []
    fused = "+".join(absorbed) + " fused" if absorbed else ""
    if node.get("domain") == "com.microsoft.nchwc":
        impl = "NCHWc {} (MLAS blocked layout{})".format(op, "; " + fused if fused else "")
    elif op in _ORT_CPU_IMPLEMENTATIONS:
        impl = _ORT_CPU_IMPLEMENTATIONS[op]
    elif op in ("MatMul", "Gemm") and node.get("constant_weight"):
        impl = "{} (MLAS SGEMM, constant weight prepacked at load{})".format(op, "; " + fused if fused else "")
    elif op == "Conv":
        impl = "Conv (MLAS, NCHW{})".format("; " + fused if fused else "")
    else:
        impl = op + (" ({})".format(fused) if fused else "")
    return impl + (" on " + provider if provider else "")


class KernelAnalysis(_Analysis):
    """The kernel findings, ranked: a sequence of KernelSelection; also
    `wrong_kernel_selections`. `reason` says why the list is empty when it is.

    Example:
        >>> kernels = KernelAdvisor(report=report).analyze()
        >>> for issue in kernels:
        ...     print(issue.location, issue.current_kernel, issue.optimal_kernel, issue.performance_gap)
    """

    category, entries = "kernel", "wrong_kernel_selections"


class KernelAdvisor(_FocusedAdvisor):
    """Kernels that run far below what they could (`msadvisor-cli kernels`).

    Args:
        model, input_example, **kwargs: as ModelAdvisor.
        report: a Report to read instead of analysing.

    analyze() returns a KernelAnalysis: a sequence of KernelSelection with `location`,
    `operator` (op type), `provider`, `current_kernel` (what the runtime ran: on the CPU the
    ONNX Runtime kernel of its optimized graph, e.g. "NCHWc Conv (MLAS blocked layout;
    BatchNormalization+Relu fused) on CPUExecutionProvider"; on Ascend the profile's kernel),
    `optimal_kernel` (what would be faster: on the CPU the implementation most kernels of its
    op type run, else the same kernel at the efficiency its same-type peers reach; on Ascend the fast path or kernel the finding names), `performance_gap` (× slower than that)
    and `reason` (the finding's title). An empty analysis carries `reason`.

    Example:
        >>> kernel_report = KernelAdvisor(model, input_example).analyze()
        >>> for issue in kernel_report.wrong_kernel_selections:
        ...     print(issue.location, issue.operator, issue.current_kernel, issue.optimal_kernel,
        ...           f"{issue.performance_gap:.2f}x", issue.reason)
    """

    category = "kernel"

    def analyze(self):
        """Returns:
            KernelAnalysis: the kernel findings, ranked (a sequence)."""
        return super().analyze()

    @staticmethod
    def _peer_kernels(report, runtime):
        """IR op type -> how many runtime kernels of ONNX Runtime ran each implementation for it."""
        ir_ops = {n["name"]: n["op_type"] for n in report.nodes}
        counts = {}
        for n in runtime.values():
            if n["inserted"] or not n["ir_nodes"] or not (n.get("provider") or "").endswith("ExecutionProvider"):
                continue
            op = ir_ops.get(n["ir_nodes"][0])
            impl = runtime_kernel(n, ir_ops).split(" (")[0]
            counts.setdefault(op, {}).setdefault(impl, 0)
            counts[op][impl] += 1
        return counts

    def _result(self, report, findings):
        runtime = {n["name"]: n for n in report.runtime_nodes()}
        by_ir = {}
        for n in runtime.values():
            for ir in n["ir_nodes"]:
                by_ir.setdefault(ir, n)
        peers = self._peer_kernels(report, runtime) if findings else {}
        ir_ops = {n["name"]: n["op_type"] for n in report.nodes}
        items = []
        for f in findings:
            p = f.params
            op = p.get("op") or (_op_types(report, f) or [None])[0]
            gap = _number(p.get("slowdown")) or f.speedup_local
            node = next((runtime[r] for r in (f._data.get("runtime_nodes") or []) if r in runtime), None)
            node = node or next((by_ir[n] for n in f.nodes if n in by_ir), None)
            optimal = p.get("optimal_kernel") or p.get("path") or p.get("reference_kernel")
            provider = p.get("kernel")
            if node is not None and (node.get("provider") or "").endswith("ExecutionProvider"):  # ONNX Runtime's graph
                current = runtime_kernel(node, ir_ops)
                provider = node.get("provider") or provider
                if not optimal and f.rule == "kernel.outlier":
                    # What the other kernels of its op type run: another implementation when most
                    # of them run one, else the same kernel at the efficiency its peers reach.
                    kinds = peers.get(ir_ops.get(node["ir_nodes"][0] if node["ir_nodes"] else None), {})
                    best = max(kinds.items(), key=lambda kv: kv[1]) if kinds else None
                    if best and best[0] != current.split(" (")[0] and best[1] * 2 > sum(kinds.values()):
                        optimal = "{} (as {} of the {} {} kernels run)".format(
                            best[0], best[1], sum(kinds.values()), ir_ops.get(node["ir_nodes"][0]))
                    else:
                        optimal = "{} at the efficiency of its {} same-type peers ({} against {})".format(
                            current.split(" on ")[0], p.get("peers", "?"), p.get("peer_efficiency", "?"),
                            p.get("best_efficiency", p.get("efficiency", "?")))
            else:
                current = p.get("kernel")
            if not optimal and f.rule == "kernel.outlier":
                # No kernel of the runtime's graph to compare with: the same kernel at the
                # efficiency its same-type peers reach, as the finding measured them.
                optimal = "{} at the efficiency of its {} same-type peers ({} against {})".format(
                    (current or op or "the kernel").split(" on ")[0], p.get("peers", "?"), p.get("peer_efficiency", "?"),
                    p.get("best_efficiency", p.get("efficiency", "?")))
            if not optimal and f.rule.startswith("hotspot.") and p.get("roofline_ms"):
                # A kernel far below its roofline (the measurement's hotspot rules): what it could
                # take is that roofline; the finding's title says why it does not.
                optimal = "{} at its roofline ({} ms against {} ms measured)".format(
                    (current or op or "the kernel").split(" on ")[0], p["roofline_ms"], p.get("measured_ms", "?"))
                gap = gap or (_number(p.get("measured_ms")) or 0) / max(_number(p["roofline_ms"]) or 0, 1e-12)
            items.append(KernelSelection(f, location=f.location, operator=op, provider=provider, current_kernel=current,
                                         optimal_kernel=optimal, performance_gap=gap, reason=f.title,
                                         suggestion=f.suggestion, impact_ms=f.impact_ms, priority=f.priority))
        return KernelAnalysis(report, items, None if items else report.empty_reason("kernel"))
