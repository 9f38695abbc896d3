"""ModelOptimizer: the core's optimizer (msadvisor-cli optimize --verify) on the model a Report
analysed, and for a torch.nn.Module the module with the fixes PyTorch can express itself
(Conv+BatchNorm folded with torch.nn.utils.fusion.fuse_conv_bn_eval), verified against the
original module on the example input and timed against it in PyTorch eager.

optimize() returns the optimized model in the form it was given: the torch.nn.Module for a module
(its `msadvisor` attribute is the OptimizationResult), the OptimizationResult for an ONNX model.
The optimizer keeps the result too (`optimizer.result`)."""
import copy
import json
import os

from . import _args, _core, _progress, _torch
from .advisors import _check_model, load
from .report import Report

LEVELS = _args.LEVELS


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
    """`a` against the reference `b`, as the core's verification compares outputs (value_compare.h):
    an element fails only where both its absolute error (atol on the output's scale) and its
    relative error exceed their tolerance (Polygraphy), an output fails where its largest error
    exceeds rtol of its largest magnitude, and outputs that cannot tell a right result from a
    wrong one (all zero, within atol, constant, NaN) make the verdict "inconclusive", never a match.
    Also reported: max |a - b| / max |b|, cosine similarity, top-1 agreement for [batch, classes]."""
    xs, ys = _flatten(a), _flatten(b)
    result = {"passed": len(xs) == len(ys), "max_abs_error": 0.0, "max_rel_error": 0.0, "mismatches": 0,
              "max_error_to_magnitude": 0.0, "cosine": 1.0, "top1_agreement": None, "degenerate": [],
              "atol": atol, "rtol": rtol, "outputs": len(xs)}
    why = []
    for index, (x, y) in enumerate(zip(xs, ys)):
        if x.shape != y.shape:
            result["passed"] = False
            continue
        c = _core.compare_arrays(_float64_bytes(x), _float64_bytes(y), list(y.shape), atol, rtol)
        for key in ("max_abs_error", "max_rel_error", "max_error_to_magnitude"):
            result[key] = max(result[key], c[key])
        result["cosine"] = min(result["cosine"], c["cosine"])
        if c["top1_agreement"] is not None:
            prev = result["top1_agreement"]
            result["top1_agreement"] = c["top1_agreement"] if prev is None else min(prev, c["top1_agreement"])
        if c["degenerate"]:
            result["degenerate"].append(c["degenerate"])
            why.append(_core.ui_text("verify.degenerate." + c["degenerate"], "en")
                       .replace("{output}", str(index)).replace("{max}", "%.3g" % c["max_abs_expected"]))
        result["mismatches"] += c["mismatches"]
        result["passed"] = result["passed"] and c["passed"]
    inconclusive = result["passed"] and xs and len(result["degenerate"]) == len(xs)
    result["verdict"] = "failed" if not result["passed"] else "inconclusive" if inconclusive else "match"
    if inconclusive:
        result["inconclusive"] = _core.ui_text("verify.inconclusive", "en").replace("{why}", "; ".join(why))
    return result


def _float64_bytes(t):
    return t.detach().double().contiguous().cpu().numpy().tobytes()


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


def eager_comparison(original, optimized, inputs, min_blocks=7, max_blocks=21, block_seconds=0.25, max_runs=10,
                     budget_s=6.0, progress=None):
    """PyTorch eager latency of two modules on the example, timed in interleaved blocks (the
    order alternating) so that a change of the machine's load falls on both: eval mode, autograd
    as the caller has it, torch's thread count. Each block runs each module `runs` times (as many
    as fit in `block_seconds`, 1..max_runs) and keeps its fastest call (another process taking the
    core only ever adds time). The speedup is the median of the blocks' ratios; p10/p90 of those
    ratios are its spread. Blocks continue past `min_blocks` while the ratios spread by more than
    10 % between their quartiles, up to `max_blocks` or `budget_s` seconds."""
    import time
    torch = _torch.torch_module()
    with _torch.inference_state(original):
        original(*inputs)  # a warm-up, then the time of one call sets the calls per block
        t0 = time.perf_counter()
        original(*inputs)
        one = time.perf_counter() - t0
    runs = max(1, min(max_runs, int(round(block_seconds / max(one, 1e-6)))))
    ratios, fastest, start = [], ([], []), time.perf_counter()
    while len(ratios) < max_blocks:
        turn = len(ratios) % 2  # who goes first alternates
        calls = _torch.time_calls([original, optimized][::-1 if turn else 1], inputs, runs, 0 if ratios else 1)
        a, b = (min(calls[1]), min(calls[0])) if turn else (min(calls[0]), min(calls[1]))
        fastest[0].append(a)
        fastest[1].append(b)
        ratios.append(a / b if b > 0 else 1.0)
        if progress is not None:
            progress(min(1.0, len(ratios) / min_blocks))
        if len(ratios) >= min_blocks:
            spread = _torch.percentile(ratios, 0.75) / max(_torch.percentile(ratios, 0.25), 1e-12)
            if spread <= 1.10 or time.perf_counter() - start > budget_s:
                break
    return {"original_ms": _torch.median(fastest[0]), "optimized_ms": _torch.median(fastest[1]),
            "speedup": _torch.median(ratios), "speedup_p10": _torch.percentile(ratios, 0.1),
            "speedup_p90": _torch.percentile(ratios, 0.9), "block_ratios": ratios, "blocks": len(ratios),
            "runs_per_block": runs, "threads": torch.get_num_threads(), "grad_enabled": torch.is_grad_enabled(),
            "timed": True}


class OptimizationResult:
    """What ModelOptimizer.optimize() produced (for a module: `optimized_model.msadvisor`).

    Attributes:
        onnx_model: the optimized ONNX (msadvisor._core.Model), verified against the original
            with ONNX Runtime as `msadvisor-cli optimize --verify` does (`verification`);
            `save(path)`, `serialize()`.
        module: the optimized torch.nn.Module (a copy in eval mode with the Conv+BatchNorm pairs
            the ONNX optimizer folded folded the same way), or None for an ONNX input.
        folded: the (conv, bn) module paths folded; `module_unchanged_reason` says why nothing
            was (None when something was).
        module_verification: the module's outputs against the original module's on the example.
        eager: the PyTorch eager timing of original and optimized module (`original_ms`,
            `optimized_ms`, `speedup` with its spread `speedup_p10`/`speedup_p90`, `threads`,
            `grad_enabled`); `eager_speedup` is its speedup.
        applied, rolled_back, advice, level, passes, verification, op_counts, size: the
            `optimize --json` fields.
        current_latency_ms, estimated_optimized_latency_ms: the analysis report's latency on
            its runtime (Report.latency_runtime) and its estimate after every safe fix.
        measured_speedup: ONNX Runtime's speedup as deployed (optimizer on), after measure().

    Example:
        >>> optimized = ModelOptimizer(model=model, report=report).optimize()
        >>> result = optimized.msadvisor
        >>> result.passed, result.eager_speedup, result.folded[:2]
        >>> result.save("optimized.onnx")
    """

    def __init__(self, handle, report, module, module_verification, folded_pairs, progress, eager=None,
                 module_unchanged_reason=None):
        self._handle = handle
        self._progress = progress
        self.report = report
        self.onnx_model = handle.model
        self.module = module
        self.module_verification = module_verification
        self.folded = folded_pairs
        self.module_unchanged_reason = module_unchanged_reason
        self.eager = eager
        self._data = json.loads(handle.to_json())

    def __getattr__(self, name):
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError("OptimizationResult has no attribute '{}'".format(name)) from None

    # The module carries its result: copying the module shares it, pickling it (torch.save of the
    # whole module) keeps the figures and drops the ONNX model and the core handle.
    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        state = dict(self.__dict__)
        for k in ("_handle", "_progress", "report", "onnx_model", "module"):
            state[k] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def _live(self):
        if self._handle is None:
            raise _core.UsageError("this OptimizationResult was unpickled: its ONNX model was not kept "
                                   "(save() it before pickling the module)")
        return self._handle

    @property
    def passed(self):
        """True when the ONNX checker and the output comparison passed (and the module's, if any)."""
        ok = self._handle.passed if self._handle is not None else bool(self._data.get("verification", {}).get("passed"))
        if self.module_verification is not None:
            ok = ok and self.module_verification["passed"]
        return ok

    @property
    def current_latency_ms(self):
        """The analysis report's latency (ms) on its runtime (Report.latency_runtime); None without a report."""
        return self.report.latency_ms if self.report is not None else None

    @property
    def estimated_optimized_latency_ms(self):
        """The report's latency estimate (ms) once every safe fix is applied, on the same runtime."""
        return self.report.estimated_optimized_ms if self.report is not None else None

    @property
    def eager_speedup(self):
        """The optimized module's PyTorch eager speedup over the original (×, measured by
        optimize(); 1.0 when the module was returned unchanged); None for an ONNX input."""
        return self.eager["speedup"] if self.eager else None

    @property
    def measured_speedup(self):
        """ONNX Runtime's measured speedup of the optimized ONNX as deployed (graph optimizer on),
        after measure(); None before. The optimizer-off figure is measured_speedup_optimizer_off."""
        lat = self._data.get("latency_ms") or {}
        if self._data.get("measured_speedup_all") is not None:
            return self._data["measured_speedup_all"]
        if lat.get("original_all") and lat.get("optimized_all"):
            return lat["original_all"] / lat["optimized_all"]
        return None

    @property
    def measured_speedup_optimizer_off(self):
        """The same with ONNX Runtime's graph optimizer off (what the rewrites do on their own)."""
        return self._data.get("measured_speedup")

    def save(self, path):
        """Writes the optimized ONNX atomically; never over the original; refuses a model that
        failed verification (msadvisor.VerificationError).

        Args:
            path: the file to write (str or os.PathLike).

        Returns:
            str: the path written.

        Example:
            >>> optimizer.result.save("optimized.onnx")
        """
        handle = self._live()
        handle.save(os.fspath(path))
        self._data = json.loads(handle.to_json())
        return os.fspath(path)

    def serialize(self):
        """Returns the optimized ONNX model as bytes (weights inline).

        Example:
            >>> onnx.load_from_string(optimizer.result.serialize())
        """
        self._live()
        return self.onnx_model.serialize()

    timeout = _core.DEFAULT_TIMEOUT

    def measure(self, iterations=30, threads=0, progress=None, timeout=None):
        """Measured against estimated: times the original and the optimized ONNX with ONNX Runtime
        (graph optimizer on, as deployed, and off; taking turns) and the cost model's estimate.

        Args:
            iterations: timed runs per model and setting.
            threads: ONNX Runtime's intra-op threads (0: its default).
            progress: as ModelAdvisor's (None: the optimizer's).
            timeout: seconds, 0 for none (None: the optimizer's); msadvisor.TimeoutError past it.

        Returns:
            dict: `measured_ms` {original, optimized} as deployed and {original_optimizer_off,
            optimized_optimizer_off}; `measured_speedup` (as deployed) and
            `measured_speedup_optimizer_off`; `estimated_ms` and `estimated_speedup` (as deployed)
            and `estimated_speedup_optimizer_off`; the report's latency and estimate; the module's
            `eager_speedup`. The `optimize --json` fields are updated too.

        Example:
            >>> m = optimizer.result.measure(iterations=10)
            >>> m["measured_speedup"], m["estimated_speedup"]
        """
        handle = self._live()
        _args.integer("iterations", iterations, 1)
        _args.integer("threads", threads, 0)
        timeout = self.timeout if timeout is None else _args.timeout(timeout)
        with _progress.reporter(self._progress if progress is None else progress) as cb:
            self._data = json.loads(handle.measure(iterations=iterations, threads=threads, progress=cb,
                                                    timeout=timeout))
        lat, est = self._data["latency_ms"], self._data.get("estimate") or {}
        deployed_est = self._data.get("estimated_deployed_speedup")
        return {
            "measured_ms": {"original": lat["original_all"], "optimized": lat["optimized_all"],
                            "original_optimizer_off": lat["original_disabled"],
                            "optimized_optimizer_off": lat["optimized_disabled"]},
            "measured_speedup": self.measured_speedup,
            "measured_speedup_optimizer_off": self.measured_speedup_optimizer_off,
            "estimated_ms": {"original": est.get("deployed_original_ms") if deployed_est else est.get("original_ms"),
                             "optimized": est.get("deployed_optimized_ms") if deployed_est else est.get("optimized_ms"),
                             "original_optimizer_off": est.get("original_ms"),
                             "optimized_optimizer_off": est.get("optimized_ms")},
            "estimated_speedup": deployed_est if deployed_est else self._data.get("estimated_speedup"),
            "estimated_speedup_optimizer_off": self._data.get("estimated_speedup"),
            "report_latency_ms": self.current_latency_ms,
            "report_estimated_optimized_ms": self.estimated_optimized_latency_ms,
            "eager_speedup": self.eager_speedup,
            # How the runs were timed (threads, contended, cpu_share, load), and whether each
            # speedup's interval holds 1: a speedup within noise measured no change.
            "measurement": self._data.get("measurement"),
            "within_noise": self._data.get("within_noise"),
            "speedup_noise": self._data.get("speedup_noise"),
        }

    def to_json(self, path=None):
        """The `optimize --json` contract as a string; written to `path` when given.

        Example:
            >>> optimizer.result.to_json("optimize.json")
        """
        text = json.dumps(self._data, indent=1)
        if path is not None:
            self._handle.write(os.fspath(path), text)  # atomic, never over the original model or its data
        return text

    def __repr__(self):
        eager = ", eager ×{:.2f}".format(self.eager_speedup) if self.eager_speedup else ""
        return "<OptimizationResult {}: {} rewrites, {} rolled back, {} folded{}, {}>".format(
            self._data["level"], len(self._data["applied"]), len(self._data["rolled_back"]), len(self.folded or []),
            eager, "verified" if self.passed else "NOT verified")


class ModelOptimizer:
    """Applies the safe fixes of an analysis, verified (`msadvisor-cli optimize --verify`).

    Args:
        model: a torch.nn.Module, an ONNX path, bytes or an onnx.ModelProto; may be omitted when
            `report` analysed a model.
        report: a Report from ModelAdvisor.analyze(): names the findings each rewrite resolves,
            and for a module its export is reused.
        optimization_level: "conservative" (exact rewrites, atol=rtol=1e-5), "moderate"
            (+ float reassociation) or "aggressive" (+ runtime-specific operators).
        input_example: the module's example when no report gives it.
        verify: verify each pass against the original with ONNX Runtime.
        seed: the random inputs of the verification.
        progress: None (a bar in a terminal), False, True or a callable(phase, fraction).
        eager: time the optimized module against the original in PyTorch eager (a module only).
        timeout: seconds (0 for none; the CLI's --timeout and its default) for optimize() and the
            result's measure(): msadvisor.TimeoutError past it.

    After optimize(), `result` is the OptimizationResult.

    Example:
        >>> optimizer = ModelOptimizer(model=model, report=report, optimization_level="aggressive")
        >>> optimized_model = optimizer.optimize()          # a torch.nn.Module
        >>> torch.save(optimized_model.state_dict(), "optimized.pth")
        >>> optimized_model.msadvisor.eager_speedup          # measured in PyTorch eager
        >>> optimizer.result.save("optimized.onnx")           # the verified ONNX
    """

    def __init__(self, model=None, report=None, optimization_level="conservative", input_example=None, verify=True,
                 seed=1234, progress=None, eager=True, timeout=_core.DEFAULT_TIMEOUT):
        _args.choice("optimization_level", optimization_level, LEVELS)
        if model is None and report is None:
            raise _core.UsageError("ModelOptimizer needs a model or a report")
        if report is not None and not isinstance(report, Report):
            raise TypeError("report is a msadvisor.Report (ModelAdvisor.analyze()), not {}".format(type(report).__name__))
        if _torch.is_module(model) and input_example is None and (report is None or report._loaded is None):
            raise ValueError("a torch.nn.Module needs input_example, or report= its analysis")
        if input_example is not None:
            _check_model(model, input_example)
        _progress.check(progress)
        self.model = model
        self.report = report
        self.optimization_level = optimization_level
        self.input_example = input_example
        self.verify = bool(verify)
        self.seed = _args.integer("seed", seed, 0)
        self.progress = progress
        self.eager = bool(eager)
        self.result = None
        self.timeout = _args.timeout(timeout)  # seconds, 0 for none: bounds optimize() and measure() (msadvisor.TimeoutError)

    def _loaded(self, phases=None):
        r = self.report
        if r is not None and r._loaded is not None and (self.model is None or self.model is r._loaded.module
                                                         or self.model is r._loaded.core):
            return r._loaded
        if self.model is None:
            raise _core.UsageError("the report holds no model (a profile-only analysis): pass model=")
        example = self.input_example
        if example is None and r is not None and r._loaded is not None:
            example = r._loaded.inputs
        return load(self.model, example, phases=phases)

    def optimize(self):
        """Optimizes the model.

        Returns:
            torch.nn.Module for a module input: a copy in eval mode with the fixes PyTorch can
            express applied (Conv+BatchNorm folded where the ONNX optimizer folded them), verified
            against the original on the example; unchanged (a copy) when none applies, with the
            reason in `.msadvisor.module_unchanged_reason`. Its `msadvisor` attribute (also
            `optimizer.result`) is the OptimizationResult: the verified ONNX, the verifications,
            the eager timing (`eager_speedup`).
            OptimizationResult for an ONNX input.

        Example:
            >>> optimized_model = ModelOptimizer(model=model, report=report).optimize()
            >>> torch.onnx.export(optimized_model, torch.randn(1, 3, 224, 224), "optimized.onnx")
        """
        is_module = _torch.is_module(self.model) or (self.model is None and self.report is not None
                                                     and self.report._loaded is not None
                                                     and self.report._loaded.module is not None)
        reuse = self.report is not None and self.report._loaded is not None
        stages = ([] if reuse else [("export", 2)]) + [("optimize", 6)]
        if is_module:
            stages += [("fold and verify the module", 1)] + ([("PyTorch eager timing", 3)] if self.eager else [])
        with _progress.Phases(self.progress, stages) as phases:
            loaded = self._loaded(phases)
            analysis = self.report._handle if self.report is not None and self.report._loaded is loaded else None
            phases.start("optimize")
            handle = _core.optimize(loaded.core, level=self.optimization_level, analysis=analysis, verify=self.verify,
                                    seed=self.seed, progress=phases.callback("optimize"), timeout=self.timeout)
            if loaded.module is None:
                self.result = OptimizationResult(handle, self.report, None, None, [], self.progress)
                self.result.timeout = self.timeout
                return self.result
            phases.start("fold and verify the module")
            data = json.loads(handle.to_json())
            pairs = self._foldable_pairs(loaded, data)
            module = fold_batchnorm(loaded.module, pairs)
            verification = self._verify_module(loaded, module)
            reason = None if pairs else self._unchanged_reason(loaded, data)
            eager = None
            if not pairs:
                eager = {"speedup": 1.0, "timed": False}
            elif self.eager:
                eager = eager_comparison(loaded.module, module, loaded.inputs,
                                         progress=lambda f: phases.report("PyTorch eager timing", f))
        self.result = OptimizationResult(handle, self.report, module, verification, pairs, self.progress, eager, reason)
        self.result.timeout = self.timeout
        module.msadvisor = self.result
        return module

    @staticmethod
    def _unchanged_reason(loaded, data):
        folds = [a for a in data["applied"] if a["pass"] == "fold_bn_into_conv"]
        others = sorted({a["pass"] for a in data["applied"] if a["pass"] != "fold_bn_into_conv"})
        rest = (" the other rewrites ({}) exist only in the ONNX model".format(", ".join(others)) if others
                else " no other rewrite applied")
        if folds:
            return ("the Conv+BatchNorm folds of the ONNX model are of modules called more than once or not "
                    "Conv/BatchNorm modules, which PyTorch cannot fold one call at a time;" + rest)
        return "the ONNX optimizer folded no Conv+BatchNorm pair;" + rest

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
        with _torch.inference_state(loaded.module) as original, torch.no_grad():
            want = original(*loaded.inputs)
            got = module(*loaded.inputs)
        return compare_outputs(got, want, atol, rtol)
