"""Results as Python objects. A Report carries the fields of the `analyze` JSON contract
(docs/report.md) as attributes: report.latency_ms, report.latency_source, report.optimum_ms,
report.gap_ratio, report.estimated_optimized_ms, report.findings, report.bottlenecks, ... and
whatever else the core's report JSON holds. The JSON, the text summary and the HTML come from the
core's own writers, so they are the CLI's, byte for byte in content."""
import json
import os
import sys
import textwrap

from . import _core


def _text(key, lang):
    return _core.ui_text(key, lang)


class Finding:
    """One finding (Report.findings). Every key of the report JSON's finding is an attribute (id, rule, category,
    priority, impact_ms, speedup_local, speedup_global, nodes, legal, fix, title, suggestion,
    impact, params, ...; on a TOP finding that stands for the same problem elsewhere, `alike`: their
    ids, and `alike_ms`). `location` is the PyTorch module path of the anchor node where the
    export's names allow it (`layer1.0.conv1`), else the anchor's ONNX node name; `modules` lists
    the module path of every node (None where a node has none); `onnx_nodes` is `nodes`.

    Example:
        >>> f = report.bottlenecks[0]
        >>> f.priority, f.rule, f.location, f.impact_ms, f.suggestion
    """

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
        """The finding's JSON with `location` and `modules`, as a dict.

        Example:
            >>> report.findings[0].to_dict()["location"]
        """
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
        """The Finding with id `finding_id` (KeyError when there is none).

        Example:
            >>> report.finding(report.bottleneck_ids[0]).location
        """
        for f in self.findings:
            if f.id == finding_id:
                return f
        raise KeyError(finding_id)

    def by_category(self, category):
        """The findings of one `category` ("fusion", "format", "kernel", …), ranked.

        Example:
            >>> [f.location for f in report.by_category("fusion")]
        """
        return [f for f in self.findings if f.category == category]

    def to_dict(self):
        """The report's JSON as a dict (a copy).

        Example:
            >>> report.to_dict()["latency_ms"]
        """
        return json.loads(json.dumps(self._data))




class Report(_JsonBacked):
    """The analysis of a model (ModelAdvisor.analyze()).

    Every key of the `analyze` JSON contract is an attribute (latency_ms, latency_source,
    latency_run, optimum_ms, gap_ratio, estimated_optimized_ms, findings, bottlenecks, nodes, …;
    docs/report.md). The latencies are the runtime's, named by `latency_runtime`: on
    device="cpu" ONNX Runtime with its graph optimizer on, as deployed; on a device profile the
    estimate for that device. For a torch.nn.Module measured on the CPU, `eager_latency_ms` is
    PyTorch's own latency on the example input, timed beside it.

    Example:
        >>> report = ModelAdvisor(model, torch.randn(1, 3, 224, 224)).analyze()
        >>> report.print_summary()
        >>> print(report.eager_latency_ms, report.current_latency_ms, report.latency_runtime)
        >>> report.to_html("report.html")
    """

    def __init__(self, handle, names=None, lang="en", source=None, top=10, eager=None, fast_paths=None):
        self._handle = handle
        self.lang = lang
        self.top = top
        self.source = source  # what was analysed: "torch.nn.Module ResNet", a path, "bytes"
        self._loaded = None   # the advisors' LoadedModel (ModelOptimizer reuses the export)
        self.eager = eager    # PyTorch eager timing of a module (advisors.eager_latency), else None
        self.fast_paths = list(fast_paths or [])
        super().__init__(json.loads(handle.to_json(lang, top)), names)

    # The seed's names (msadvisor's ModelAdvisor API) for two contract fields.
    @property
    def current_latency_ms(self):
        """The model's latency now (ms) on the runtime `latency_runtime` names: ONNX Runtime as
        deployed (graph optimizer on) for device="cpu". The `latency_ms` field."""
        return self._data["latency_ms"]

    @property
    def estimated_optimized_latency_ms(self):
        """The latency (ms) on the same runtime (`latency_runtime`) once every safe fix is applied:
        the `estimated_optimized_ms` field. On ONNX Runtime the fixes it already applies at load
        (Conv+BatchNorm folding, most fusions) save nothing more, so it can equal the current
        latency; the PyTorch module ModelOptimizer returns carries its own eager speedup."""
        return self._data["estimated_optimized_ms"]

    @property
    def latency_runtime(self):
        """Which runtime the latency figures describe: "ONNX Runtime 1.21.1 on this CPU, graph
        optimizations on (as deployed)", "estimated on Ascend 910B", an imported profile's runtime."""
        rp = self._data.get("runtime_profile") or {}
        if self._data.get("latency_source") != "measured":
            return "estimated on {}".format(self._data.get("device_name") or self._data.get("device"))
        runtime = rp.get("runtime") or (self._data.get("profile") or {}).get("runtime") or "the runtime"
        if runtime.startswith("onnxruntime"):
            runtime = "ONNX Runtime" + runtime[len("onnxruntime"):]
        run = self._data.get("latency_run")
        if run == "deployed":
            return "{} on this CPU, graph optimizations on (as deployed)".format(runtime) \
                if (self._data.get("device") or "").startswith("cpu") else "{} (as deployed)".format(runtime)
        if run == "unoptimized":
            return "{}, graph optimizations off".format(runtime)
        return runtime

    @property
    def eager_latency_ms(self):
        """PyTorch eager latency (ms, median) of the module on the example input, on this CPU with
        torch's thread count; None when not timed (an ONNX model, a device profile, eager=False)."""
        return self.eager["median_ms"] if self.eager else None

    @property
    def runtime_speedup_over_eager(self):
        """PyTorch eager latency / the runtime's latency (×): what exporting to ONNX Runtime gains
        on this CPU as deployed. None without both figures."""
        if not self.eager or self._data.get("latency_source") != "measured" or not self._data.get("latency_ms"):
            return None
        return self.eager["median_ms"] / self._data["latency_ms"]

    def runtime_nodes(self):
        """What the deployed run ran (the runtime's optimized graph, as its profile names it).

        Returns:
            list of dict: `name`, `op_type`, `provider`, `ir_nodes` (the ONNX nodes whose work it
            did), `inserted`, `median_ms`, `constant_weight` (a weight input is an initializer).
            Empty without a profile.

        Example:
            >>> [n["op_type"] for n in report.runtime_nodes()][:5]
        """
        return self._handle.runtime_nodes()

    def empty_reason(self, category):
        """Why a `category` has no finding, in one sentence (what its rules check).

        Example:
            >>> report.empty_reason("kernel")
        """
        return _text("python.no_finding_" + category, self.lang)

    def summary(self, lang=None):
        """The check-up sheet (the CLI's `analyze` text); for a PyTorch module also its eager
        latency beside the runtime's, where the TOP findings are in it and which modules' findings
        the runtime already applies at load.

        Args:
            lang: "en" or "zh" (default: the report's).

        Returns:
            str

        Example:
            >>> print(report.summary(lang="zh"))
        """
        lang = lang or self.lang
        text = self._handle.to_text(lang, self.top)
        if self._names is None:
            return text
        rows = []
        if self.eager:
            text = self._with_eager_row(text, lang)
        if self.fast_paths:
            rows += ["", _text("python.fast_paths_off", lang).format(
                modules=", ".join("{} ({})".format(d["module"] or d["type"], d["operator"]) for d in self.fast_paths))]
        if self.bottlenecks:
            rows += ["", _text("python.where_in_module", lang)]
            for rank, f in enumerate(self.bottlenecks, 1):
                # The same problem elsewhere (the JSON's `alike`) is in other modules: named too.
                alike = [self.finding(i) for i in f._data.get("alike", [])]
                mods = [m for m in dict.fromkeys(f.modules + [m for a in alike for m in a.modules]) if m]
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

    def _with_eager_row(self, text, lang):
        """The sheet with PyTorch's eager latency as an OVERVIEW row, before the optimum (at the
        end when the sheet has no such row)."""
        ratio = self.runtime_speedup_over_eager
        value = _text("python.eager_vs_runtime" if ratio else "python.eager_only", lang).format(
            eager="{:.1f}".format(self.eager["median_ms"]), runtime="{:.1f}".format(self._data.get("latency_ms", 0.0)),
            ratio="{:.1f}".format(ratio or 0.0), threads=self.eager["threads"], runs=self.eager["runs"])
        lines = textwrap.wrap(value, 73) or [""]
        row = ["  " + _text("python.eager_label", lang).ljust(24) + " " + lines[0]] + [" " * 27 + x for x in lines[1:]]
        sheet = text.split("\n")
        anchor = "  " + _text("report.optimum", lang)
        at = next((i for i, line in enumerate(sheet) if line.startswith(anchor)), None)
        if at is None:
            return text.rstrip("\n") + "\n\n" + "\n".join(row) + "\n"
        return "\n".join(sheet[:at] + row + sheet[at:])

    def print_summary(self, lang=None, file=None):
        """Prints summary() to `file` (default sys.stdout).

        Args:
            lang: "en" or "zh".
            file: the stream.

        Example:
            >>> report.print_summary()
        """
        print(self.summary(lang), end="", file=file or sys.stdout)

    def category_summary(self, category, lang=None):
        """The CLI's focused view (`fusions`, `formats`, `kernels`) of one category.

        Args:
            category: "fusion", "format", "kernel", …
            lang: "en" or "zh".

        Returns:
            str

        Example:
            >>> print(report.category_summary("fusion"))
        """
        return self._handle.category_text(category, lang or self.lang, self.top)

    def to_json(self, path=None, lang=None):
        """The report as the `analyze --json` contract; written atomically to `path` when given
        (never over the model).

        Args:
            path: a file to write, or None.
            lang: "en" or "zh".

        Returns:
            str: the JSON.

        Example:
            >>> report.to_json("report.json")
        """
        text = self._handle.to_json(lang, self.top) if lang and lang != self.lang else json.dumps(
            self._data, ensure_ascii=False, indent=1)
        if path is not None:
            self._handle.write(os.fspath(path), text)  # never over a file the analysis read (the core's check)
        return text

    def to_html(self, path, lang=None):
        """Writes a self-contained HTML report (the CLI's --html) to `path`.

        Args:
            path: the file to write.
            lang: "en" or "zh".

        Returns:
            str: the path.

        Example:
            >>> report.to_html("report.html")
        """
        self._handle.write(os.fspath(path), self._handle.to_html(lang or self.lang, self.top))  # the core's check
        return os.fspath(path)

    def to_markdown(self, path=None, lang=None):
        """The report as Markdown (the CLI's --md); written to `path` when given.

        Args:
            path: a file to write, or None.
            lang: "en" or "zh".

        Returns:
            str: the Markdown.

        Example:
            >>> report.to_markdown("report.md")
        """
        text = self._handle.to_markdown(lang or self.lang, self.top)
        if path is not None:
            self._handle.write(os.fspath(path), text)
        return text

    def __repr__(self):
        return "<Report {} on {}: {:.3f} ms ({}), {} findings>".format(
            self._data.get("model"), self._data.get("device"), self._data.get("latency_ms", 0.0),
            self._data.get("latency_source"), len(self.findings))
