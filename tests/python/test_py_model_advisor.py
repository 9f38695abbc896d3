"""ModelAdvisor and the specialised advisors on PyTorch models: torchvision's ResNet-18 measured on
the CPU with ONNX Runtime, a small YOLO-like detector estimated on Ascend 910B. Findings name the
PyTorch modules (layer1.0.conv1, backbone.2.cv1.conv) with the ONNX node names beside them."""
import io
import os
import tempfile
import unittest

import onnx
import torch
import torch.nn as nn
import torchvision

import msadvisor
import pyhelpers
from msadvisor import FormatAdvisor, FusionAdvisor, KernelAdvisor, ModelAdvisor


def conv_bn_pairs(model):
    """(conv path, bn path) for every BatchNorm fed directly by a convolution, from the module
    definitions: what the exporter writes as Conv → BatchNormalization."""
    mods = dict(model.named_modules())
    convs = [p for p, m in mods.items() if isinstance(m, nn.Conv2d)]
    pairs = []
    for p in convs:
        parent, _, name = p.rpartition(".")
        # torchvision / YOLO naming: conv1→bn1, conv→bn, downsample.0→downsample.1
        for bn in (name.replace("conv", "bn"), str(int(name) + 1) if name.isdigit() else None):
            q = (parent + "." if parent else "") + bn if bn else None
            if q and isinstance(mods.get(q), nn.BatchNorm2d):
                pairs.append((p, q))
    return pairs


class ResNet18Measured(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = pyhelpers.trained_batchnorm(torchvision.models.resnet18())
        cls.advisor = ModelAdvisor(model=cls.model, input_example=torch.randn(1, 3, 112, 112),
                                   optimization_goal="latency", deploy_scenario="edge", iterations=3, warmup=1)
        cls.report = cls.advisor.analyze()

    def test_measured_with_the_contract_fields(self):
        r = self.report
        self.assertEqual(r.latency_source, "measured")
        self.assertEqual(r.device, "cpu-host")
        self.assertTrue(r.device_calibrated, "device='cpu' prices on this host's calibration by default")
        self.assertGreater(r.latency_ms, 0)
        self.assertEqual(r.current_latency_ms, r.latency_ms)
        self.assertEqual(r.estimated_optimized_latency_ms, r.estimated_optimized_ms)
        self.assertLessEqual(r.estimated_optimized_ms, r.latency_ms)
        # The same deployed headline as the CLI and the GUI: ONNX Runtime with its optimizer on.
        self.assertEqual(r.latency_run, "deployed")
        self.assertEqual(r.latency_ms, r.runtime_latency_ms)
        self.assertGreater(r.unoptimized_latency_ms, 0)
        # On a machine that stayed busy the headline says so first (issue 24), then the same run.
        busy = r.measurement["contended"]
        self.assertEqual(r.headline.startswith("Measured on a busy machine: "), busy, r.headline)
        self.assertIn("With ONNX Runtime's optimizer: ", r.headline)
        self.assertGreaterEqual(r.measurement["threads"], 1)
        folds = [f for f in r.findings if f.rule == "fusion.conv_bn_act"]
        self.assertTrue(folds)
        for f in folds:
            self.assertEqual(f.applied_by, "onnxruntime", f.id)
            self.assertNotIn(f.id, r.bottleneck_ids)
        self.assertEqual(r.inputs, [{"name": "x", "shape": "[1,3,112,112]"}])  # forward(self, x)
        self.assertEqual(r.source, "torch.nn.Module ResNet")
        self.assertTrue(self.model.training, "the module's train/eval state is restored after the export")

    def test_conv_bn_findings_named_by_module_path(self):
        found = {(f.location, f.modules[1]) for f in self.report.findings if f.rule == "fusion.conv_bn_act"}
        expected = set(conv_bn_pairs(self.model))
        self.assertEqual(len(expected), 20)  # every conv of ResNet-18, downsample included
        self.assertEqual(found, expected)
        first = next(f for f in self.report.findings if f.rule == "fusion.conv_bn_act" and f.location == "layer1.0.conv1")
        self.assertEqual(first.onnx_nodes[:2], ["/layer1/layer1.0/conv1/Conv", "/layer1/layer1.0/bn1/BatchNormalization"])
        self.assertEqual(first.modules[:2], ["layer1.0.conv1", "layer1.0.bn1"])
        self.assertEqual(first.nodes, first.onnx_nodes)
        self.assertEqual(first.fix, "fold_bn_into_conv")

    def test_every_location_is_a_module_or_a_node(self):
        mods = dict(self.model.named_modules())
        nodes = {n["name"] for n in self.report.nodes}
        for f in self.report.findings:
            self.assertTrue(f.location in mods or f.location in nodes or f.location == f.id, f)

    def test_summary_follows_the_top_list(self):
        # The module section names the TOP findings; the Conv+BN folds ONNX Runtime applies at
        # load are not among them, and are listed apart by their ONNX nodes.
        out = io.StringIO()
        self.report.print_summary(file=out)
        text = out.getvalue()
        self.assertEqual("Where in the PyTorch model" in text, bool(self.report.bottlenecks))
        section = text.split("Where in the PyTorch model")[-1]
        for f in self.report.bottlenecks:
            self.assertIn(f.location, section)
        # The sheet wraps its lines at 100 columns: compare with the line breaks as spaces.
        self.assertIn("/layer1/layer1.0/conv1/Conv — applied by ONNX Runtime at load", " ".join(text.split()))
        # The modules of those folds, listed apart from the TOP list.
        self.assertRegex(text, r"fusion\.conv_bn_act\s+onnxruntime\s+x20\s+conv1, layer1\.0\.conv1,")

    def test_fusion_advisor(self):
        opps = FusionAdvisor(report=self.report).analyze().opportunities
        conv_bn = [o for o in opps if o.finding.rule == "fusion.conv_bn_act"]
        self.assertEqual(len(conv_bn), 20)
        for o in conv_bn:
            self.assertTrue(o.pattern.startswith("Conv→BatchNormalization"), o.pattern)
            self.assertEqual(o.fusion_method, "fold_bn_into_conv")
            self.assertGreaterEqual(o.estimated_speedup, 1.0)
            self.assertIn(o.location, dict(self.model.named_modules()))

    def test_fusions_the_runtime_applies_say_so(self):
        # ONNX Runtime folds every Conv+BatchNorm at load: as deployed they gain nothing more.
        fusions = FusionAdvisor(report=self.report).analyze()
        conv_bn = [o for o in fusions if o.finding.rule == "fusion.conv_bn_act"]
        self.assertEqual(len(conv_bn), 20)
        for o in conv_bn:
            self.assertEqual(o.applied_by, "onnxruntime")
            self.assertEqual(o.estimated_speedup, 1.0)
            self.assertEqual(o.speedup_unfused, o.finding.speedup_local)
        self.assertFalse(set(map(id, conv_bn)) & set(map(id, fusions.pending)))

    def test_kernels_are_named_as_the_runtime_ran_them(self):
        nodes = self.report.runtime_nodes()
        self.assertTrue(nodes)
        self.assertEqual({n["provider"] for n in nodes}, {"CPUExecutionProvider"})
        # ONNX Runtime ran ResNet-18's convolutions in its NCHWc layout (com.microsoft.nchwc in its
        # optimized graph), each with the BatchNormalization and activation it absorbed.
        ir_ops = {n["name"]: n["op_type"] for n in self.report.nodes}
        nchwc = [n for n in nodes if n["domain"] == "com.microsoft.nchwc" and n["op_type"] == "Conv"]
        self.assertEqual(len(nchwc), 20, [(n["name"], n["op_type"], n["domain"]) for n in nodes])
        first = next(n for n in nchwc if n["ir_nodes"][0] == "/conv1/Conv")
        self.assertEqual(msadvisor.advisors.runtime_kernel(first, ir_ops),
                         "NCHWc Conv (MLAS blocked layout; BatchNormalization+Relu fused) on CPUExecutionProvider")
        gemm = [n for n in nodes if n["op_type"] in ("Gemm", "FusedGemm", "MatMul")]
        self.assertEqual(len(gemm), 1, gemm)
        self.assertTrue(gemm[0]["constant_weight"])
        self.assertIn("constant weight prepacked", msadvisor.advisors.runtime_kernel(gemm[0], ir_ops))
        # A kernel.outlier finding on that Conv, as the kernel rule writes it: the current kernel
        # is the runtime's, the optimal one what its peers run at their efficiency.
        finding = msadvisor.Finding({"id": "kernel.outlier@x", "rule": "kernel.outlier", "category": "kernel",
                                     "nodes": first["ir_nodes"], "runtime_nodes": [first["name"]], "title": "slow",
                                     "suggestion": "s", "impact_ms": 1.0, "priority": "P1", "speedup_local": 3.0,
                                     "params": {"op": first["op_type"], "kernel": "CPUExecutionProvider:com.microsoft.nchwc",
                                                "slowdown": "3.00", "peers": "12", "peer_efficiency": "40%",
                                                "best_efficiency": "13%"}},
                                    self.report._names)
        k = KernelAdvisor(report=self.report)._result(self.report, [finding])[0]
        self.assertEqual(k.current_kernel, msadvisor.advisors.runtime_kernel(first, ir_ops))
        self.assertEqual(k.provider, "CPUExecutionProvider")
        self.assertEqual(k.location, "conv1")
        self.assertEqual(k.optimal_kernel, "NCHWc Conv (MLAS blocked layout; BatchNormalization+Relu fused) at the "
                                           "efficiency of its 12 same-type peers (40% against 13%)")
        self.assertEqual(k.performance_gap, 3.0)

    def test_format_and_kernel_advisors(self):
        for c in FormatAdvisor(report=self.report).analyze().unnecessary_conversions:
            self.assertEqual(c.finding.category, "format")
            self.assertIsInstance(c.duration_ms, float)
            self.assertTrue(c.suggestion)
            self.assertTrue(c.from_format or c.to_format)
        for k in KernelAdvisor(report=self.report).analyze().wrong_kernel_selections:
            self.assertEqual(k.finding.category, "kernel")
            self.assertTrue(k.operator)
            self.assertIsNotNone(k.performance_gap)
            self.assertEqual(k.reason, k.finding.title)
            self.assertTrue(hasattr(k, "current_kernel") and hasattr(k, "optimal_kernel"))

    def test_json_and_html(self):
        d = tempfile.mkdtemp()
        self.report.to_json(os.path.join(d, "r.json"))
        self.report.to_html(os.path.join(d, "r.html"))
        self.assertGreater(os.path.getsize(os.path.join(d, "r.html")), 1000)


class TinyYoloEstimated(unittest.TestCase):
    """The YOLO-like detector estimated on Ascend 910B (no measurement: a device profile)."""

    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = pyhelpers.trained_batchnorm(pyhelpers.TinyYolo())
        cls.x = torch.randn(1, 3, 128, 128)
        cls.report = ModelAdvisor(cls.model, cls.x, device="ascend910b", progress=False).analyze()

    def test_estimated_on_the_device(self):
        self.assertEqual(self.report.latency_source, "estimated")
        self.assertEqual(self.report.device, "ascend910b")

    def test_conv_bn_named_by_module_path(self):
        conv_bn = [f for f in self.report.findings if f.rule == "fusion.conv_bn_act"]
        self.assertEqual(len(conv_bn), pyhelpers.TinyYolo.CONV_BN_PAIRS)
        locations = {f.location for f in conv_bn}
        self.assertIn("backbone.0.conv", locations)
        self.assertIn("backbone.2.cv1.conv", locations)   # inside a residual Bottleneck
        self.assertIn("backbone.6.cv2.conv", locations)   # SPPF
        self.assertIn("neck.conv", locations)
        for f in conv_bn:
            self.assertTrue(f.location.endswith(".conv") and f.modules[1] == f.location[:-4] + "bn", f.modules)

    def test_summary_names_modules(self):
        # On Ascend the first convolution's 3 input channels stay the user's to fix (the graph
        # engine folds the BatchNormalizations itself): the TOP finding, by its module path.
        out = io.StringIO()
        self.report.print_summary(file=out)
        section = out.getvalue().split("Where in the PyTorch model")
        self.assertEqual(len(section), 2, out.getvalue())
        self.assertIn("format.small_channel     backbone.0.conv", section[1])

    def test_the_heads_are_modules_too(self):
        # head is a ModuleDict the forward indexes: the exporter names its Convs /p4/Conv, /p5/Conv.
        names = {n["name"] for n in self.report.nodes}
        self.assertIn("/p4/Conv", names)
        loaded = self.report._loaded
        self.assertEqual(loaded.names.module_of("/p4/Conv"), "head.p4")

    def test_fusion_advisor_runs_its_own_analysis(self):
        opps = FusionAdvisor(self.model, self.x, device="ascend910b", progress=False).analyze().opportunities
        self.assertGreaterEqual(len([o for o in opps if o.fusion_method == "fold_bn_into_conv"]), pyhelpers.TinyYolo.CONV_BN_PAIRS)


class ResultsAreSequences(unittest.TestCase):
    """The article indexes and slices the specialised results: fusion_opportunities[:10]."""

    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = pyhelpers.trained_batchnorm(pyhelpers.TinyYolo())
        cls.report = ModelAdvisor(cls.model, torch.randn(1, 3, 128, 128), device="ascend910b", progress=False).analyze()

    def test_index_slice_len_iterate(self):
        for advisor, attr in ((FusionAdvisor, "opportunities"), (FormatAdvisor, "unnecessary_conversions"),
                              (KernelAdvisor, "wrong_kernel_selections")):
            result = advisor(report=self.report).analyze()
            items = getattr(result, attr)
            self.assertEqual(len(result), len(items))
            self.assertEqual(list(result), items)
            self.assertEqual(result[:10], items[:10])
            if items:
                self.assertIs(result[0], items[0])
                self.assertIs(result[-1], items[-1])
                self.assertEqual(result.index(items[-1]), len(items) - 1)
            else:
                self.assertTrue(result.reason)
        fusions = FusionAdvisor(report=self.report).analyze()
        self.assertGreaterEqual(len(fusions), pyhelpers.TinyYolo.CONV_BN_PAIRS)
        self.assertEqual(len(list(enumerate(fusions[:10], 1))), 10)


class OneMeasurementPerModel(unittest.TestCase):
    """The specialised advisors reuse the analysis of the same model object: one measurement."""

    def test_advisors_reuse_the_report_of_the_same_model(self):
        torch.manual_seed(0)
        model = pyhelpers.trained_batchnorm(pyhelpers.TinyYolo())
        report = ModelAdvisor(model, torch.randn(1, 3, 64, 64), iterations=2, warmup=1, progress=False).analyze()
        self.assertEqual(report.latency_source, "measured")
        for advisor in (FusionAdvisor, FormatAdvisor, KernelAdvisor):
            result = advisor(model=model, input_example=torch.randn(1, 3, 64, 64), progress=False).analyze()
            self.assertIs(result.report, report, advisor.__name__)
            self.assertEqual([e.finding.id for e in result], [f.id for f in report.by_category(advisor.category)])
        # Another shape, another model object, or weights changed since: not the same analysis.
        lookup = msadvisor.advisors.previous_report
        self.assertIs(lookup(ModelAdvisor(model, torch.randn(1, 3, 64, 64))), report)
        self.assertIsNone(lookup(ModelAdvisor(model, torch.randn(1, 3, 96, 96))))
        self.assertIsNone(lookup(ModelAdvisor(pyhelpers.TinyYolo(), torch.randn(1, 3, 64, 64))))
        self.assertIsNone(lookup(ModelAdvisor(model, torch.randn(1, 3, 64, 64), device="ascend910b")))
        with torch.no_grad():
            model.neck.conv.weight.mul_(1.5)
        self.assertIsNone(lookup(ModelAdvisor(model, torch.randn(1, 3, 64, 64))))


class ArgumentsAndInputs(unittest.TestCase):
    """Arguments are checked before the export; a bad example is one sentence; devices as torch.device."""

    def test_arguments_are_checked_before_any_export(self):
        model = pyhelpers.CountingNet()
        x = torch.randn(1, 3, 16, 16)
        bad = [({"optimization_goal": "fastest"}, ValueError), ({"deploy_scenario": "cloud"}, ValueError),
               ({"device": "cuda"}, msadvisor.UsageError), ({"device": torch.device("cpu", 0), "top": 0}, ValueError),
               ({"iterations": 0}, ValueError), ({"progress": "loud"}, TypeError), ({"lang": "fr"}, ValueError),
               ({"calibration": "sometimes"}, ValueError)]
        for kwargs, error in bad:
            with self.assertRaises(error, msg=kwargs) as e:
                ModelAdvisor(model, x, **kwargs).analyze()
            self.assertEqual(str(e.exception).count("\n"), 0, str(e.exception))
            with self.assertRaises(error, msg=kwargs):
                FusionAdvisor(model, x, **kwargs).analyze()
        with self.assertRaises(ValueError):
            msadvisor.ModelOptimizer(model=model, input_example=x, optimization_level="extreme").optimize()
        self.assertEqual(model.calls, 0, "nothing ran before the arguments were checked")
        with self.assertRaises(msadvisor.UsageError) as e:
            ModelAdvisor(model, x, device="cuda")
        self.assertIn("ascend910b", str(e.exception))  # what it runs on instead

    def test_devices_as_torch_device_or_strings(self):
        model = pyhelpers.CountingNet()
        x = torch.randn(1, 3, 16, 16)
        self.assertEqual(ModelAdvisor(model, x, device=torch.device("cpu")).device, "cpu")
        self.assertEqual(ModelAdvisor(model, x, device="cpu:0").device, "cpu")
        self.assertEqual(ModelAdvisor(model, x, device="npu:0").device, "ascend910b")
        with self.assertRaisesRegex(msadvisor.UsageError, "device cuda:0 is not one msadvisor runs on"):
            ModelAdvisor(model, x, device=torch.device("cuda", 0))
        r = ModelAdvisor(model, x, device=torch.device("cpu"), iterations=1, warmup=0, calibration="off", eager=False,
                         progress=False).analyze()
        self.assertEqual(r.latency_source, "measured")
        self.assertIsNone(msadvisor.TrainingAdvisor(device=torch.device("cpu")).device)

    def test_a_wrong_shape_is_one_sentence(self):
        model = pyhelpers.CountingNet()
        with self.assertRaises(msadvisor.InputExampleError) as e:
            ModelAdvisor(model, torch.randn(1, 4, 16, 16), device="ascend910b", progress=False).analyze()
        text = str(e.exception)
        self.assertEqual(text.count("\n"), 0, text)
        self.assertIn("[1, 4, 16, 16] float32", text)
        self.assertIn("conv1 (Conv2d)", text)
        self.assertEqual(e.exception.module_path, "conv1")
        self.assertIsInstance(e.exception, ValueError)
        self.assertIsNone(e.exception.__cause__)
        self.assertTrue(e.exception.__suppress_context__)

    def test_a_half_precision_model_is_one_sentence(self):
        model = pyhelpers.CountingNet().half()
        with self.assertRaisesRegex(msadvisor.InputExampleError,
                                    r"^input_example\[0\] is float32 but CountingNet's weights are float16"):
            ModelAdvisor(model, torch.randn(1, 3, 16, 16), device="ascend910b", progress=False).analyze()
        self.assertEqual(model.calls, 0)
        with self.assertRaises(msadvisor.InputExampleError) as e:  # half on the CPU: PyTorch has no kernel
            ModelAdvisor(model, torch.randn(1, 3, 16, 16).half(), device="ascend910b", progress=False).analyze()
        self.assertEqual(str(e.exception).count("\n"), 0)
        self.assertIn("float16", str(e.exception))

    def test_the_summary_names_the_model_class(self):
        model = pyhelpers.trained_batchnorm(pyhelpers.TinyYolo())
        report = ModelAdvisor(model, torch.randn(1, 3, 64, 64), device="ascend910b", progress=False).analyze()
        text = report.summary()
        self.assertIn("TinyYolo (torch.nn.Module)", text)
        self.assertNotIn("msadvisor-export", text)
        self.assertEqual(report.model, "TinyYolo (torch.nn.Module)")

    def test_progress_is_monotonic_with_named_phases(self):
        seen = []
        model = pyhelpers.trained_batchnorm(pyhelpers.TinyYolo())
        ModelAdvisor(model, torch.randn(1, 3, 64, 64), iterations=2, warmup=1, calibration="off",
                     progress=lambda phase, f: seen.append((phase, f))).analyze()
        fractions = [f for _, f in seen]
        self.assertEqual(fractions, sorted(fractions), seen)
        phases = [p.split(":")[0] for p, _ in seen]
        self.assertEqual(phases[0], "export")
        self.assertIn("analysis", phases)
        self.assertEqual(phases[-1], "PyTorch eager timing")
        self.assertAlmostEqual(fractions[-1], 1.0)


class Export(unittest.TestCase):
    """Every module torch.onnx.export can export exports; one that cannot is one sentence."""

    def encoder(self, frozen=False):
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 2, 64, batch_first=True), 2)
        if frozen:
            enc.requires_grad_(False)
        return enc

    def test_transformer_encoder_off_its_fast_path(self):
        for frozen in (False, True):
            enc = self.encoder(frozen)
            report = ModelAdvisor(enc, torch.randn(1, 8, 32), device="ascend910b", progress=False).analyze()
            self.assertIn("MatMul", {t["op_type"] for t in report.time_by_op_type})
            disabled = {(d["module"], d["type"]) for d in report.fast_paths}
            self.assertIn(("layers.1", "TransformerEncoderLayer"), disabled)
            self.assertIn(("layers.0.self_attn", "MultiheadAttention"), disabled)
            self.assertIn("fused inference paths off", report.summary())
            # The user's module as it was: train mode, frozen weights still frozen.
            self.assertTrue(enc.training)
            self.assertEqual({p.requires_grad for p in enc.parameters()}, {not frozen})

    def test_an_unexportable_operator_is_one_sentence(self):
        with self.assertRaises(msadvisor.ExportError) as e:
            ModelAdvisor(pyhelpers.Unexportable(), torch.randn(4), device="ascend910b", progress=False).analyze()
        text = str(e.exception)
        self.assertEqual(text.count("\n"), 0, text)
        self.assertEqual(e.exception.operator, "aten::linalg_eigvals")
        self.assertEqual(e.exception.module_path, "inner.1")
        self.assertIn("operator aten::linalg_eigvals (called in inner.1)", text)
        self.assertIsInstance(e.exception, msadvisor.ModelError)


class ImportedProfile(unittest.TestCase):
    """profile=: a ResNet-18 module with an msprof export of the same graph (the hand-built
    fixture tests/data/msprof/resnet18_cann8, named as ATC names torch's export) analysed instead
    of measured, priced on Ascend 310P; the profile's kernels carry the module paths."""

    PROFILE = os.path.join(os.environ.get("MSA_SOURCE_DIR", ""), "tests", "data", "msprof", "resnet18_cann8")

    @classmethod
    def setUpClass(cls):
        cls.model = torchvision.models.resnet18()
        cls.x = torch.randn(1, 3, 224, 224)
        cls.report = ModelAdvisor(cls.model, cls.x, device="ascend310p", profile=cls.PROFILE, progress=False).analyze()

    def test_the_profile_is_the_latency(self):
        r = self.report
        self.assertEqual(r.device, "ascend310p")
        self.assertEqual(r.profile["runtime"], "msprof")
        self.assertTrue(r.profile["source"].startswith("imported:op_summary_"), r.profile["source"])
        self.assertEqual(r.latency_ms, r.profile["latency_ms"]["median"])
        self.assertEqual(r.profile["iterations"], 3)

    def test_profiled_findings_name_modules(self):
        kernel = KernelAdvisor(report=self.report).analyze().wrong_kernel_selections
        self.assertTrue(kernel)
        mods = dict(self.model.named_modules())
        for k in kernel:
            self.assertIn(k.location, mods)
        conversions = FormatAdvisor(report=self.report).analyze().unnecessary_conversions
        first = next(c for c in conversions if c.location == "conv1")  # the 3-channel input padded to C0
        self.assertEqual((first.from_format, first.to_format), ("NCHW", "NC1HWC0"))
        self.assertGreater(first.duration_ms, 0)

    def test_a_profile_alone(self):
        """No model: the profile-only analysis, each kernel priced from its own row (torch_npu's
        kernel_details of a Linear+ReLU, tests/data/msprof/linear_relu_ascend_pt)."""
        folder = os.path.join(os.path.dirname(self.PROFILE), "linear_relu_ascend_pt")
        r = ModelAdvisor(profile=folder, device="ascend910b", progress=False).analyze()
        self.assertIn("profile_only", [n["key"] for n in r.notes])
        self.assertEqual(r.profile["source"], "imported:kernel_details.csv")
        self.assertGreater(r.optimum_ms, 0)
        self.assertLess(r.optimum_ms, r.latency_ms)
        kernels = {n["name"] for n in r.nodes}
        self.assertIn("aclnnMm_MatMulCommon_MatMulV2", kernels)
        self.assertTrue(r.findings)
        for f in r.findings:  # no module to name: the kernels
            self.assertIn(f.location, kernels)
            self.assertEqual(f.modules, [None] * len(f.nodes))
        conversions = FormatAdvisor(report=r).analyze().unnecessary_conversions
        self.assertIn("trans_TransData_0", [c.location for c in conversions])

    def test_a_missing_profile_names_the_file(self):
        missing = os.path.join(tempfile.mkdtemp(), "op_summary.csv")
        with self.assertRaises(msadvisor.ModelError) as e:
            ModelAdvisor(self.model, self.x, device="ascend310p", profile=missing, progress=False).analyze()
        self.assertIn(missing, str(e.exception))


class InputForms(unittest.TestCase):
    """The same model as an ONNX file, as bytes and as an onnx.ModelProto."""

    def test_path_bytes_and_proto(self):
        model = pyhelpers.TinyYolo().eval()
        d = tempfile.mkdtemp()
        path = os.path.join(d, "yolo.onnx")
        torch.onnx.export(model, torch.randn(1, 3, 64, 64), path, opset_version=17,
                          training=torch.onnx.TrainingMode.PRESERVE)
        proto = onnx.load(path)
        counts = []
        for source in (path, proto.SerializeToString(), proto):
            r = ModelAdvisor(source, device="ascend910b", progress=False).analyze()
            counts.append(len([f for f in r.findings if f.rule == "fusion.conv_bn_act"]))
            for f in r.findings:  # no module to map to: the ONNX node names
                self.assertIsNone(f.modules[0] if f.modules else None)
        self.assertEqual(counts, [pyhelpers.TinyYolo.CONV_BN_PAIRS] * 3)

    def test_bad_inputs(self):
        with self.assertRaises(ValueError):
            ModelAdvisor(pyhelpers.TinyYolo(), None).analyze()  # a module needs an example
        with self.assertRaises(TypeError):
            ModelAdvisor(pyhelpers.TinyYolo(), [torch.randn(1, 3, 64, 64), "x"]).analyze()
        with self.assertRaises(msadvisor.ModelError):
            ModelAdvisor("/nonexistent/model.onnx").analyze()


if __name__ == "__main__":
    unittest.main()
