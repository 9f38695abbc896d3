"""What if…: the speedups ONNX Runtime does not take by itself (int8, session settings, batch,
bf16), measured beside the original and checked for accuracy — ModelAdvisor.what_if()'s result,
the document `msadvisor-cli what-if --json` writes (docs/whatif.md)."""
import json
import os


class Variant:
    """One variant as measured (or estimated, on an Ascend profile).

    Attributes:
        name, kind: "int8_static", "threads_1", "batch_8"…; "int8_dynamic", "int8_static",
            "int8_mixed", "runtime_settings", "batch", "bf16" (Ascend: "fp16", "int8_amct", "impl_mode").
        measured, estimated: how its latency is known; error: why it could not run.
        latency_ms, latency_p10_ms, latency_p90_ms: per run (per batch for a batch variant).
        speedup: original latency / the variant's (items/s over the original's for a batch);
            predicted_speedup: the cost model's figure before measuring.
        accuracy: {"cosine", "top1_agreement", "max_rel_to_range", …} against the original on the
            same inputs, or None; within_bound: the verdict against the report's bound.
        int8_layers, float_layers, calibration: what a quantized variant holds.
        json: the variant's whole JSON object.

    Example:
        >>> v = ModelAdvisor(model, x).what_if()["int8_static"]
        >>> v.speedup, v.accuracy["cosine"], v.within_bound
    """

    def __init__(self, j):
        self.json = j
        self.name = j.get("name", "")
        self.kind = j.get("kind", "")
        self.measured = bool(j.get("measured", False))
        self.estimated = bool(j.get("estimated", False))
        self.error = j.get("error") or None
        self.latency_ms = j.get("latency_ms")
        self.latency_p10_ms = j.get("latency_p10_ms")
        self.latency_p90_ms = j.get("latency_p90_ms")
        self.speedup = j.get("speedup")
        self.predicted_speedup = j.get("predicted_speedup")
        self.accuracy = j.get("accuracy") or None
        self.within_bound = bool(j.get("within_bound", False))
        self.int8_layers = list(j.get("int8_layers") or [])
        self.float_layers = list(j.get("float_layers") or [])
        self.calibration = j.get("calibration")

    def __repr__(self):
        return "Variant({!r}, speedup={}, within_bound={})".format(self.name, self.speedup, self.within_bound)


class WhatIfReport:
    """The variants of one model, ranked as the CLI lists them, and the best within the bound.

    Attributes:
        variants: list of Variant (index, iterate, len).
        best: the Variant measured fastest within the accuracy bound, or None.
        baseline_ms: the original as deployed (ONNX Runtime, all optimizations), ms per run.
        bound: the accuracy bound the verdicts use; random_inputs: True when no inputs were given
            (accuracy is then not known for real data).
        json: the whole document (`msadvisor-cli what-if --json`'s).

    Example:
        >>> w = ModelAdvisor("model.onnx").what_if(only=["int8_dynamic", "threads_1"])
        >>> w.best.name, w.best.speedup
        >>> w.save(w.best.name, "model.int8.onnx")   # and model.int8.onnx.session.json
    """

    def __init__(self, handle, lang="en"):
        self._handle = handle
        self.json = json.loads(handle.to_json(lang))
        self.variants = [Variant(v) for v in self.json.get("variants", [])]
        best = self.json.get("best") or ""
        self.best = next((v for v in self.variants if v.name == best), None)
        baseline = self.json.get("baseline") or {}
        self.baseline_ms = baseline.get("latency_ms")
        self.bound = self.json.get("bound")
        self.random_inputs = bool(self.json.get("random_inputs", True))

    def __getitem__(self, key):
        if isinstance(key, str):
            for v in self.variants:
                if v.name == key:
                    return v
            raise KeyError(key)
        return self.variants[key]

    def __len__(self):
        return len(self.variants)

    def __iter__(self):
        return iter(self.variants)

    def to_json(self):
        """Returns the report as JSON text: the document `msadvisor-cli what-if --json` writes."""
        return json.dumps(self.json)

    def save(self, name, path):
        """Writes variant `name` (measured and within the bound) to `path`, atomically and never
        over the original or its external data, and its session settings beside it as
        PATH.session.json. Raises VerificationError for a variant outside the bound, DeviceError
        for one that was not measured, UsageError for a name that was not built.

        Example:
            >>> w.save("int8_static", "model.int8.onnx")
        """
        self._handle.save(name, os.fspath(path))
