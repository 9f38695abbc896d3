"""Results as Python objects. A Report carries the fields of the `analyze` JSON contract
(docs/report.md) as attributes: report.latency_ms, report.latency_source, report.optimum_ms,
report.gap_ratio, report.estimated_optimized_ms, report.findings, report.bottlenecks, ... and
whatever else the core's report JSON holds. The JSON, the text summary and the HTML come from the
core's own writers, so they are the CLI's, byte for byte in content."""
import json
import os
import sys

from . import _core


def _text(key, lang):
    return _core.ui_text(key, lang)


class Finding:
    """One finding. Every key of the report JSON's finding is an attribute (id, rule, category,
    priority, impact_ms, speedup_local, speedup_global, nodes, legal, fix, title, suggestion,
    impact, params, ...). `location` is the PyTorch module path of the anchor node where the
    export's names allow it (`layer1.0.conv1`), else the anchor's ONNX node name; `modules` lists
    the module path of every node (None where a node has none); `onnx_nodes` is `nodes`."""

    def __init__(self, data, names=None):
        self._data = data
        nodes = data.get("nodes") or []
        self.onnx_nodes = list(nodes)
        self.modules = [names.module_of(n) if names is not None else None for n in nodes]
        anchor_module = self.modules[0] if self.modules else None
        if anchor_module:
            self.location = anchor_module
        elif nodes:
            self.location = nodes[0]
        else:
            self.location = data.get("id", "")

    def __getattr__(self, name):
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError("Finding has no attribute '{}'".format(name)) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._data))

    def to_dict(self):
        d = dict(self._data)
        d["location"] = self.location
        d["modules"] = self.modules
        return d

    def __repr__(self):
        return "<Finding {} {} at {}: {:.3f} ms>".format(self._data.get("priority"), self._data.get("rule"), self.location,
                                                         self._data.get("impact_ms", 0.0))


class _JsonBacked:
    """Attributes from the core's report JSON; findings wrapped as Finding objects."""

    def __init__(self, data, names=None):
        self._data = data
        self._names = names
        self.findings = [Finding(f, names) for f in data.get("findings", [])]
        by_id = {f.id: f for f in self.findings}
        self.bottleneck_ids = list(data.get("bottlenecks", []))
        self.bottlenecks = [by_id[i] for i in self.bottleneck_ids if i in by_id]

    def __getattr__(self, name):
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError("{} has no attribute '{}'".format(type(self).__name__, name)) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._data))

    def finding(self, finding_id):
        for f in self.findings:
            if f.id == finding_id:
                return f
        raise KeyError(finding_id)

    def by_category(self, category):
        return [f for f in self.findings if f.category == category]

    def to_dict(self):
        return json.loads(json.dumps(self._data))




class Report(_JsonBacked):
    """The analysis of a model (ModelAdvisor.analyze())."""

    def __init__(self, handle, names=None, lang="en", source=None, top=10):
        self._handle = handle
        self.lang = lang
        self.top = top
        self.source = source  # what was analysed: "torch.nn.Module ResNet", a path, "bytes"
        self._loaded = None   # the advisors' LoadedModel (ModelOptimizer reuses the export)
        super().__init__(json.loads(handle.to_json(lang, top)), names)

    # The seed's names (msadvisor's ModelAdvisor API) for two contract fields.
    @property
    def current_latency_ms(self):
        return self._data["latency_ms"]

    @property
    def estimated_optimized_latency_ms(self):
        return self._data["estimated_optimized_ms"]

    def summary(self, lang=None):
        """The check-up sheet (the CLI's `analyze` text), then, when it was a PyTorch model, where
        the TOP findings are in it and which modules' findings the runtime already applies at load."""
        lang = lang or self.lang
        text = self._handle.to_text(lang, self.top)
        if self._names is None:
            return text
        rows = []
        if self.bottlenecks:
            rows += ["", _text("python.where_in_module", lang)]
            for rank, f in enumerate(self.bottlenecks, 1):
                mods = [m for m in dict.fromkeys(f.modules) if m]
                rows.append("  {:>2}. {:<3} {:<24} {}".format(rank, f.priority, f.rule, ", ".join(mods) or f.location))
        # What the runtime already does at load (ResNet's Conv+BN folds on ONNX Runtime) is never
        # in the TOP list; the module paths say which layers it is.
        applied = {}
        for f in self.findings:
            if f._data.get("applied_by"):
                applied.setdefault((f.applied_by, f.rule), []).append(f.location)
        if applied:
            rows += ["", _text("python.applied_in_module", lang)]
            for (who, rule), where in applied.items():
                rows.append("  {:<24} {:<12} x{:<3} {}".format(rule, who, len(where), ", ".join(where)))
        if rows:
            text = text.rstrip("\n") + "\n" + "\n".join(rows) + "\n"
        return text

    def print_summary(self, lang=None, file=None):
        print(self.summary(lang), end="", file=file or sys.stdout)

    def category_summary(self, category, lang=None):
        """The CLI's focused view (`fusions`, `formats`, `kernels`) of one category."""
        return self._handle.category_text(category, lang or self.lang, self.top)

    def to_json(self, path=None, lang=None):
        """The report as the `analyze --json` contract; written to `path` when given."""
        text = self._handle.to_json(lang, self.top) if lang and lang != self.lang else json.dumps(
            self._data, ensure_ascii=False, indent=1)
        if path is not None:
            self._handle.write(os.fspath(path), text)  # never over a file the analysis read (the core's check)
        return text

    def to_html(self, path, lang=None):
        """A self-contained HTML report (the CLI's --html)."""
        self._handle.write(os.fspath(path), self._handle.to_html(lang or self.lang, self.top))
        return os.fspath(path)

    def to_markdown(self, path=None, lang=None):
        text = self._handle.to_markdown(lang or self.lang, self.top)
        if path is not None:
            self._handle.write(os.fspath(path), text)
        return text

    def __repr__(self):
        return "<Report {} on {}: {:.3f} ms ({}), {} findings>".format(
            self._data.get("model"), self._data.get("device"), self._data.get("latency_ms", 0.0),
            self._data.get("latency_source"), len(self.findings))
