"""ModelAdvisor and the specialised advisors (FusionAdvisor, FormatAdvisor, KernelAdvisor): the
core's runAnalysis on a PyTorch module, an ONNX file, ONNX bytes or an onnx.ModelProto."""
import copy
import glob
import os
import tempfile

from . import _core, _progress, _torch
from ._core import DEFAULT_TIMEOUT
from .report import Report


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
    """A model as the core holds it, with what is needed to name PyTorch modules in findings."""

    def __init__(self, core_model, source, names=None, module=None, inputs=None, keep=None):
        self.core = core_model
        self.source = source      # "torch.nn.Module ResNet", a path, "bytes", "onnx.ModelProto"
        self.names = names        # _torch.ModuleNames for an exported module, else None
        self.module = module
        self.inputs = inputs      # the example tuple (torch tensors), if given
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


def load(model, input_example=None, opset=_torch.EXPORT_OPSET):
    """`model` as a LoadedModel: a torch.nn.Module (exported to a temporary ONNX file), a path, ONNX
    bytes, an onnx.ModelProto, or a LoadedModel / msadvisor._core.Model already loaded."""
    if isinstance(model, LoadedModel):
        return model
    if isinstance(model, _core.Model):
        return LoadedModel(model, model.path or "<memory>")
    if _torch.is_module(model):
        inputs = _torch.as_input_tuple(input_example)  # a module needs an example of torch tensors
        tmp = tempfile.TemporaryDirectory(prefix="msadvisor-export-")
        path = os.path.join(tmp.name, _torch.file_name_for(model))
        if _on_npu(model):  # the export runs on a CPU copy; the profile comes from the NPU
            _torch.export(copy.deepcopy(model).cpu(), tuple(t.cpu() for t in inputs), path, opset)
        else:
            _torch.export(model, inputs, path, opset)
        core = _core.load_model(path)
        return LoadedModel(core, "torch.nn.Module " + type(model).__name__, _torch.ModuleNames(model), model, inputs, tmp)
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


class ModelAdvisor:
    """ModelAdvisor(model, input_example, optimization_goal="latency"|"throughput",
    deploy_scenario="edge"|"datacenter", device="cpu"|profile id|device JSON, profile=None).

    device="cpu" measures with ONNX Runtime on this machine (twice: the runtime's optimizations
    off and on, as msadvisor-cli analyze does) and prices on this host's calibrated cpu-host
    profile; a device profile id ("ascend910b", "ascend310p", ...) estimates on that device;
    profile=PATH analyses an imported profile (msprof folder or CSV, torch_npu kernel_details.csv,
    ONNX Runtime JSON) instead of measuring, with or without a model. A module already on an Ascend
    NPU (torch_npu importable) is run there under torch_npu.profiler and its kernel_details.csv
    analysed, priced on `device` when that is a device profile, else on ascend910b. `timeout`
    (seconds, 0 for none; the CLI's --timeout and its default) bounds analyze(): past it the work
    is cancelled and msadvisor.TimeoutError raised."""

    def __init__(self, model=None, input_example=None, optimization_goal="latency", deploy_scenario="edge",
                 device="cpu", profile=None, dims=None, top=10, iterations=10, warmup=2, threads=0,
                 calibration="auto", lang="en", progress=None, opset=_torch.EXPORT_OPSET, timeout=DEFAULT_TIMEOUT):
        self.model = model
        self.input_example = input_example
        self.optimization_goal = optimization_goal
        self.deploy_scenario = deploy_scenario
        self.device = device
        self.profile = os.fspath(profile) if profile is not None else None
        self.dims = dict(dims or {})
        self.top = top
        self.iterations = iterations
        self.warmup = warmup
        self.threads = threads
        self.calibration = calibration
        self.lang = lang
        self.progress = progress
        self.opset = opset
        self.timeout = timeout
        self._loaded = None

    def loaded(self):
        """The model as loaded (exported first when it is a module); None for a profile alone."""
        if self._loaded is None and self.model is not None:
            self._loaded = load(self.model, self.input_example, self.opset)
        return self._loaded

    def analyze(self, families=None):
        loaded = self.loaded()
        dims = dict(self.dims)
        if loaded is not None and loaded.inputs is not None and loaded.names is None:
            dims = {**_shape_dims(loaded.core, loaded.inputs), **dims}
        device, profile = self.device, self.profile
        if profile is None and loaded is not None and loaded.module is not None and _on_npu(loaded.module):
            profile = _profile_on_npu(loaded.module, loaded.inputs, self.iterations, self.warmup)
            device = "ascend910b" if device == "cpu" else device
        with _progress.reporter(self.progress) as cb:
            handle = _core.analyze(loaded.core if loaded else None, device=device, profile=profile, dims=dims,
                                   goal=self.optimization_goal, scenario=self.deploy_scenario, top=self.top,
                                   iterations=self.iterations, warmup=self.warmup, threads=self.threads,
                                   calibration=self.calibration, families=list(families or []), progress=cb,
                                   timeout=self.timeout)
        report = Report(handle, loaded.names if loaded else None, self.lang,
                        loaded.source if loaded else self.profile, top=self.top)
        report._loaded = loaded
        return report


class _FocusedAdvisor:
    """Runs the whole analysis (as msadvisor-cli fusions|formats|kernels does: the ranking and the
    overlap accounting need every finding) and keeps one category. Takes the ModelAdvisor
    arguments, or report= an existing Report."""

    category = None

    def __init__(self, model=None, input_example=None, report=None, **kwargs):
        self.report = report
        self._advisor = None if report is not None else ModelAdvisor(model, input_example, **kwargs)

    def _report(self):
        if self.report is None:
            self.report = self._advisor.analyze()
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
        return {k: getattr(self, k) for k in self._fields}

    def __repr__(self):
        return "<{} {}>".format(type(self).__name__, ", ".join("{}={!r}".format(k, getattr(self, k)) for k in self._fields[:3]))


class FusionOpportunity(_Item):
    _fields = ("pattern", "location", "estimated_speedup", "fusion_method", "impact_ms", "priority", "legal")


class _Analysis:
    """One category's entries, ranked, under the seed API's name (`opportunities`, …)."""

    category = None
    entries = None  # the attribute name of the list

    def __init__(self, report, items):
        self.report = report
        setattr(self, self.entries, items)

    def __iter__(self):
        return iter(getattr(self, self.entries))

    def __len__(self):
        return len(getattr(self, self.entries))

    def print_summary(self, lang=None):
        print(self.report.category_summary(self.category, lang), end="")


class FusionAnalysis(_Analysis):
    """`opportunities`: the fusion findings, ranked."""

    category, entries = "fusion", "opportunities"


class FusionAdvisor(_FocusedAdvisor):
    """FusionAdvisor(model, input_example).analyze().opportunities: each with `pattern` (the op
    chain, "Conv → BatchNormalization → Relu"), `location` (module path), `estimated_speedup` (the
    fused part's local speedup, current / fused time), `fusion_method` (the optimizer pass that
    applies it, or "manual" when it is advice only)."""

    category = "fusion"

    def _result(self, report, findings):
        items = []
        for f in findings:
            pattern = f.params.get("pattern") or " → ".join(_op_types(report, f))
            items.append(FusionOpportunity(
                f, pattern=pattern, location=f.location, estimated_speedup=f.speedup_local,
                fusion_method=f.fix if f.fix else (f.fix_pass or "manual"), impact_ms=f.impact_ms, priority=f.priority,
                legal=f.legal, suggestion=f.suggestion))
        return FusionAnalysis(report, items)


class FormatConversion(_Item):
    _fields = ("location", "from_format", "to_format", "duration_ms", "suggestion", "impact_ms", "priority")


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
    """`unnecessary_conversions`: the layout/format findings, ranked."""

    category, entries = "format", "unnecessary_conversions"


class FormatAdvisor(_FocusedAdvisor):
    """FormatAdvisor(...).analyze().unnecessary_conversions: each with `location`, `from_format`,
    `to_format`, `duration_ms` (the conversions' time now) and `suggestion`."""

    category = "format"

    def _result(self, report, findings):
        items = []
        for f in findings:
            src, dst = _formats(f)
            items.append(FormatConversion(f, location=f.location, from_format=src, to_format=dst,
                                          duration_ms=f.impact["current_ms"], suggestion=f.suggestion,
                                          impact_ms=f.impact_ms, priority=f.priority))
        return FormatAnalysis(report, items)


class KernelSelection(_Item):
    _fields = ("location", "operator", "current_kernel", "optimal_kernel", "performance_gap", "reason")


class KernelAnalysis(_Analysis):
    """`wrong_kernel_selections`: the kernel findings, ranked."""

    category, entries = "kernel", "wrong_kernel_selections"


class KernelAdvisor(_FocusedAdvisor):
    """KernelAdvisor(...).analyze().wrong_kernel_selections: each with `location`, `operator` (op
    type), `current_kernel` (what the runtime ran), `optimal_kernel` (what the finding says would
    be faster: the fast path or the peers' kernel, where the rule names it; else None),
    `performance_gap` (× slower than that: current / fixed time) and `reason` (the finding's title)."""

    category = "kernel"

    def _result(self, report, findings):
        items = []
        for f in findings:
            p = f.params
            op = p.get("op") or (_op_types(report, f) or [None])[0]
            gap = _number(p.get("slowdown")) or f.speedup_local
            items.append(KernelSelection(f, location=f.location, operator=op, current_kernel=p.get("kernel"),
                                         optimal_kernel=p.get("optimal_kernel") or p.get("path") or p.get("reference_kernel"),
                                         performance_gap=gap, reason=f.title, suggestion=f.suggestion,
                                         impact_ms=f.impact_ms, priority=f.priority))
        return KernelAnalysis(report, items)
