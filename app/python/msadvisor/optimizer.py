"""ModelOptimizer: the core's optimizer (msadvisor-cli optimize --verify) on the model a Report
analysed, and for a torch.nn.Module also the module with the fixes PyTorch can express itself
(Conv+BatchNorm folded with torch.nn.utils.fusion.fuse_conv_bn_eval), verified against the
original module on the example input."""
import copy
import json
import os

from . import _core, _progress, _torch
from .advisors import load

LEVELS = ("conservative", "moderate", "aggressive")


def _flatten(out):
    torch = _torch.torch_module()
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, dict):
        return [t for k in sorted(out) for t in _flatten(out[k])]
    return []


def compare_outputs(a, b, atol, rtol):
    """Polygraphy's rule, as the core's verification: an element fails only where both the
    absolute error exceeds atol and the relative error exceeds rtol."""
    torch = _torch.torch_module()
    xs, ys = _flatten(a), _flatten(b)
    result = {"passed": len(xs) == len(ys), "max_abs_error": 0.0, "max_rel_error": 0.0, "mismatches": 0,
              "atol": atol, "rtol": rtol, "outputs": len(xs)}
    for x, y in zip(xs, ys):
        if x.shape != y.shape:
            result["passed"] = False
            continue
        x, y = x.detach().double(), y.detach().double()
        diff = (x - y).abs()
        rel = diff / y.abs().clamp_min(1e-30)
        bad = int(((diff > atol) & (rel > rtol)).sum())
        result["max_abs_error"] = max(result["max_abs_error"], float(diff.max()) if diff.numel() else 0.0)
        result["max_rel_error"] = max(result["max_rel_error"], float(rel.max()) if rel.numel() else 0.0)
        result["mismatches"] += bad
        result["passed"] = result["passed"] and bad == 0
    return result


def _set_submodule(root, path, module):
    parent, _, name = path.rpartition(".")
    owner = root.get_submodule(parent) if parent else root
    setattr(owner, name, module)


def fold_batchnorm(module, pairs):
    """A copy of `module` (eval mode) with each (conv path, bn path) pair folded: the Conv takes
    the BatchNorm's affine transform (torch.nn.utils.fusion.fuse_conv_bn_eval) and the BatchNorm
    becomes nn.Identity."""
    torch = _torch.torch_module()
    from torch.nn.utils.fusion import fuse_conv_bn_eval
    folded = copy.deepcopy(module).eval()
    for conv_path, bn_path in pairs:
        conv, bn = folded.get_submodule(conv_path), folded.get_submodule(bn_path)
        _set_submodule(folded, conv_path, fuse_conv_bn_eval(conv, bn))
        _set_submodule(folded, bn_path, torch.nn.Identity())
    return folded


class OptimizationResult:
    """What ModelOptimizer.optimize() returns.

    - `onnx_model` (msadvisor._core.Model), `save(path)`: the optimized ONNX, verified against
      the original with ONNX Runtime as msadvisor-cli optimize --verify does (`verification`);
    - `module`: for a torch.nn.Module input, the module with Conv+BatchNorm folded (None
      otherwise), `module_verification` its outputs against the original module's;
    - `applied`, `rolled_back`, `advice`, `level`, `passes`: the `optimize --json` fields;
    - `current_latency_ms`, `estimated_optimized_latency_ms`: the analysis report's latency and
      its estimate once every safe fix is applied; `measure()` times both models."""

    def __init__(self, handle, report, module, module_verification, folded_pairs, progress):
        self._handle = handle
        self._progress = progress
        self.report = report
        self.onnx_model = handle.model
        self.module = module
        self.module_verification = module_verification
        self.folded = folded_pairs
        self._data = json.loads(handle.to_json())

    def __getattr__(self, name):
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError("OptimizationResult has no attribute '{}'".format(name)) from None

    @property
    def passed(self):
        """True when the ONNX checker and the output comparison passed (and the module's, if any)."""
        ok = self._handle.passed
        if self.module_verification is not None:
            ok = ok and self.module_verification["passed"]
        return ok

    @property
    def current_latency_ms(self):
        return self.report.latency_ms if self.report is not None else None

    @property
    def estimated_optimized_latency_ms(self):
        return self.report.estimated_optimized_ms if self.report is not None else None

    def save(self, path):
        """Writes the optimized ONNX atomically; never over the original; refuses a model that
        failed verification (msadvisor.VerificationError)."""
        self._handle.save(os.fspath(path))
        self._data = json.loads(self._handle.to_json())
        return os.fspath(path)

    def serialize(self):
        return self.onnx_model.serialize()

    timeout = _core.DEFAULT_TIMEOUT

    def measure(self, iterations=30, threads=0, progress=None, timeout=None):
        """Measured against estimated: times the original and the optimized model with ONNX
        Runtime (optimizations disabled and all, taking turns) and the cost model's estimate.
        Returns a dict: measured_ms / estimated_ms {original, optimized}, measured_speedup,
        estimated_speedup, and the analysis report's estimate; the `optimize --json` fields
        (latency_ms, measured_speedup, estimated_speedup, estimate) are updated too."""
        with _progress.reporter(self._progress if progress is None else progress) as cb:
            self._data = json.loads(self._handle.measure(iterations=iterations, threads=threads, progress=cb,
                                                         timeout=self.timeout if timeout is None else timeout))
        lat, est = self._data["latency_ms"], self._data.get("estimate") or {}
        return {
            "measured_ms": {"original": lat["original_disabled"], "optimized": lat["optimized_disabled"],
                            "original_all": lat["original_all"], "optimized_all": lat["optimized_all"]},
            "measured_speedup": self._data["measured_speedup"],
            "estimated_ms": {"original": est.get("original_ms"), "optimized": est.get("optimized_ms")},
            "estimated_speedup": self._data["estimated_speedup"],
            "report_latency_ms": self.current_latency_ms,
            "report_estimated_optimized_ms": self.estimated_optimized_latency_ms,
        }

    def to_json(self, path=None):
        text = json.dumps(self._data, indent=1)
        if path is not None:
            self._handle.write(os.fspath(path), text)  # atomic, never over the original model or its data
        return text

    def __repr__(self):
        return "<OptimizationResult {}: {} rewrites, {} rolled back, {}>".format(
            self._data["level"], len(self._data["applied"]), len(self._data["rolled_back"]),
            "verified" if self.passed else "NOT verified")


class ModelOptimizer:
    """ModelOptimizer(model=model, report=report, optimization_level="conservative").optimize().

    `report` (from ModelAdvisor.analyze()) names the findings each rewrite resolves and, for a
    module, reuses its export; without one the model is loaded (exported) here. The levels are the
    optimizer's: conservative (exact rewrites, atol=rtol=1e-5), moderate (+ float reassociation),
    aggressive (+ runtime-specific operators)."""

    def __init__(self, model=None, report=None, optimization_level="conservative", input_example=None, verify=True,
                 seed=1234, progress=None, timeout=_core.DEFAULT_TIMEOUT):
        if optimization_level not in LEVELS:
            raise ValueError("optimization_level is one of {}".format(", ".join(LEVELS)))
        if model is None and report is None:
            raise ValueError("ModelOptimizer needs a model or a report")
        self.model = model
        self.report = report
        self.optimization_level = optimization_level
        self.input_example = input_example
        self.verify = verify
        self.seed = seed
        self.progress = progress
        self.timeout = timeout  # seconds, 0 for none: bounds optimize() and measure() (msadvisor.TimeoutError)

    def _loaded(self):
        r = self.report
        if r is not None and r._loaded is not None and (self.model is None or self.model is r._loaded.module
                                                         or self.model is r._loaded.core):
            return r._loaded
        if self.model is None:
            raise ValueError("the report holds no model (a profile-only analysis): pass model=")
        example = self.input_example
        if example is None and r is not None and r._loaded is not None:
            example = r._loaded.inputs
        return load(self.model, example)

    def optimize(self):
        loaded = self._loaded()
        analysis = self.report._handle if self.report is not None and self.report._loaded is loaded else None
        with _progress.reporter(self.progress) as cb:
            handle = _core.optimize(loaded.core, level=self.optimization_level, analysis=analysis, verify=self.verify,
                                    seed=self.seed, progress=cb, timeout=self.timeout)
        module, verification, pairs = None, None, []
        if loaded.module is not None:
            pairs = self._foldable_pairs(loaded, json.loads(handle.to_json()))
            module = fold_batchnorm(loaded.module, pairs)
            verification = self._verify_module(loaded, module)
        result = OptimizationResult(handle, self.report, module, verification, pairs, self.progress)
        result.timeout = self.timeout
        return result

    @staticmethod
    def _foldable_pairs(loaded, data):
        """(conv, bn) module paths of the Conv+BatchNorm folds the ONNX optimizer applied, where each
        module ran exactly once in the export (a module called twice may pair with different
        BatchNorms) and is a Conv / BatchNorm module."""
        torch = _torch.torch_module()
        names = loaded.names
        calls = {}
        for n in loaded.core.node_names:
            path = names.module_of(n)
            if path:
                calls[path] = calls.get(path, 0) + 1
        pairs = []
        for rewrite in data["applied"]:
            before = rewrite["nodes_before"]
            if rewrite["pass"] != "fold_bn_into_conv" or len(before) != 2:
                continue
            conv, bn = names.module_of(before[0]), names.module_of(before[1])
            if not conv or not bn or calls.get(conv) != 1 or calls.get(bn) != 1:
                continue
            cm, bm = loaded.module.get_submodule(conv), loaded.module.get_submodule(bn)
            if isinstance(cm, torch.nn.modules.conv._ConvNd) and isinstance(bm, torch.nn.modules.batchnorm._BatchNorm):
                pairs.append((conv, bn))
        return pairs

    def _verify_module(self, loaded, module):
        torch = _torch.torch_module()
        atol, rtol = _core.tolerance(self.optimization_level)
        original = loaded.module
        states = [(m, m.training) for m in original.modules()]
        original.eval()
        try:
            with torch.no_grad():
                want = original(*loaded.inputs)
                got = module(*loaded.inputs)
        finally:
            for m, training in states:
                m.training = training
        return compare_outputs(got, want, atol, rtol)
