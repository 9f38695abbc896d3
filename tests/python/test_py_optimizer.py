"""ModelOptimizer on torchvision's ResNet-18: the optimized ONNX verified against the original
with ONNX Runtime, and the module with Conv+BatchNorm folded by torch's own fusion utilities,
verified against the original module; optimize() returns that module (the result is its
`msadvisor` attribute and the optimizer's `result`)."""
import copy
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
from msadvisor import ModelAdvisor, ModelOptimizer, _core


class ResNet18(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.model = pyhelpers.trained_batchnorm(torchvision.models.resnet18())
        cls.x = torch.randn(1, 3, 96, 96)
        cls.report = ModelAdvisor(cls.model, cls.x, device="ascend910b", progress=False).analyze()
        cls.optimizer = ModelOptimizer(model=cls.model, report=cls.report, optimization_level="conservative")
        cls.module = cls.optimizer.optimize()
        cls.result = cls.optimizer.result

    def test_optimize_returns_the_module(self):
        m = self.module
        self.assertIsInstance(m, nn.Module)
        self.assertIs(type(m), type(self.model))
        self.assertIs(m, self.result.module)
        self.assertIs(m.msadvisor, self.result)
        self.assertFalse(m.training, "folded for inference: eval mode")
        with torch.no_grad():
            self.assertEqual(tuple(m(self.x).shape), (1, 1000))
        # What a PyTorch user does with it next: save its weights, export it, copy and pickle it.
        again = copy.deepcopy(m)
        again.load_state_dict(m.state_dict())
        self.assertIs(again.msadvisor, self.result)
        buf = io.BytesIO()
        torch.onnx.export(m, self.x, buf, opset_version=17)
        proto = onnx.load_from_string(buf.getvalue())
        self.assertNotIn("BatchNormalization", [n.op_type for n in proto.graph.node])
        buf = io.BytesIO()
        torch.save(m, buf)
        buf.seek(0)
        loaded = torch.load(buf)
        self.assertEqual(loaded.msadvisor.eager_speedup, self.result.eager_speedup)
        self.assertEqual(loaded.msadvisor.folded, self.result.folded)
        with self.assertRaisesRegex(msadvisor.UsageError, "unpickled"):
            loaded.msadvisor.save(os.path.join(tempfile.mkdtemp(), "x.onnx"))

    def test_the_module_carries_its_eager_speedup(self):
        e = self.result.eager
        self.assertTrue(e["timed"])
        self.assertEqual(self.result.eager_speedup, e["speedup"])
        self.assertLessEqual(e["speedup_p10"], e["speedup"])
        self.assertLessEqual(e["speedup"], e["speedup_p90"])
        self.assertEqual(len(e["block_ratios"]), e["blocks"])
        self.assertGreater(e["original_ms"], 0)
        self.assertGreater(e["optimized_ms"], 0)

    def test_onnx_is_verified_and_folded(self):
        r = self.result
        self.assertTrue(r.passed, r.verification)
        self.assertTrue(r.verification["passed"])
        self.assertLessEqual(r.verification["max_abs_error"], 1e-3)
        after = {o["op"]: o["after"] for o in r.op_counts}
        self.assertEqual(after.get("BatchNormalization", 0), 0)
        self.assertEqual(after["Conv"], 20)
        folds = [a for a in r.applied if a["pass"] == "fold_bn_into_conv"]
        self.assertEqual(len(folds), 20)
        # Each fold names the finding it resolves, from the report it was given.
        conv_bn_ids = {f.id for f in self.report.findings if f.rule == "fusion.conv_bn_act"}
        self.assertEqual({a["finding"] for a in folds}, conv_bn_ids)

    def test_module_is_folded_and_verified(self):
        r = self.result
        self.assertEqual(len(r.folded), 20)
        self.assertIn(("layer1.0.conv1", "layer1.0.bn1"), r.folded)
        self.assertIn(("layer2.0.downsample.0", "layer2.0.downsample.1"), r.folded)
        self.assertTrue(r.module_verification["passed"], r.module_verification)
        self.assertFalse(any(isinstance(m, nn.BatchNorm2d) for m in r.module.modules()))
        # Independently of the result's own check: the folded module computes what the original does.
        self.model.eval()
        try:
            with torch.no_grad():
                want, got = self.model(self.x), r.module(self.x)
        finally:
            self.model.train()
        self.assertTrue(torch.allclose(got, want, atol=1e-4, rtol=1e-4), float((got - want).abs().max()))

    def test_the_original_is_untouched(self):
        self.assertEqual(sum(isinstance(m, nn.BatchNorm2d) for m in self.model.modules()), 20)
        self.assertTrue(self.model.training)

    def test_save_and_reload(self):
        d = tempfile.mkdtemp()
        out = self.result.save(os.path.join(d, "resnet18-opt.onnx"))
        proto = onnx.load(out)
        onnx.checker.check_model(proto)
        self.assertNotIn("BatchNormalization", [n.op_type for n in proto.graph.node])
        self.assertEqual(self.result.output, out)
        self.assertGreater(self.result.size["file_bytes_after"], 0)

    def test_latencies_from_the_report_and_measured(self):
        r = self.result
        self.assertEqual(r.current_latency_ms, self.report.latency_ms)
        self.assertEqual(r.estimated_optimized_latency_ms, self.report.estimated_optimized_ms)
        m = r.measure(iterations=3, progress=False)
        self.assertGreater(m["measured_ms"]["original"], 0)
        self.assertGreater(m["measured_ms"]["optimized"], 0)
        self.assertGreater(m["estimated_speedup"], 0)
        self.assertEqual(r.measured_speedup, m["measured_speedup"])
        # Every speedup as deployed (ONNX Runtime's optimizer on) unless its name says otherwise.
        lat = r.latency_ms
        self.assertAlmostEqual(m["measured_speedup"], lat["original_all"] / lat["optimized_all"], places=9)
        self.assertAlmostEqual(m["measured_speedup_optimizer_off"], lat["original_disabled"] / lat["optimized_disabled"],
                               places=9)
        self.assertEqual(m["measured_ms"]["original"], lat["original_all"])
        self.assertEqual(m["estimated_speedup"], r.estimated_deployed_speedup or r.estimated_speedup)
        self.assertEqual(m["eager_speedup"], r.eager_speedup)

    def test_levels(self):
        with self.assertRaises(ValueError):
            ModelOptimizer(model=self.model, optimization_level="extreme")
        self.assertEqual(_core.tolerance("conservative"), (1e-5, 1e-5))


class NothingToFold(unittest.TestCase):
    def test_a_module_without_foldable_pairs_is_returned_unchanged_with_the_reason(self):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        x = torch.randn(1, 3, 16, 16)
        optimizer = ModelOptimizer(model=model, input_example=x, progress=False)
        out = optimizer.optimize()
        self.assertIsInstance(out, nn.Sequential)
        self.assertIsNot(out, model)
        self.assertEqual(out.msadvisor.folded, [])
        self.assertIn("folded no Conv+BatchNorm pair", out.msadvisor.module_unchanged_reason)
        self.assertEqual(out.msadvisor.eager_speedup, 1.0)
        for a, b in zip(model.state_dict().values(), out.state_dict().values()):
            self.assertTrue(torch.equal(a, b))
        self.assertTrue(model.training, "the original is untouched")


class SharedConv(nn.Module):
    """One Conv+BN pair called twice: the export has two Conv nodes reading one weight (tied) and
    two BatchNormalization nodes reading one set of statistics. Folding either pair on its own
    would copy the tied weight (the model grows and the tie is lost), so neither the ONNX pass nor
    the module fold touches them."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = self.stem(x)
        return self.bn(self.conv(y)) + self.bn(self.conv(torch.relu(y)))


class NearMisses(unittest.TestCase):
    def test_a_module_called_twice_keeps_its_tied_weight(self):
        model = pyhelpers.trained_batchnorm(SharedConv())
        x = torch.randn(1, 3, 16, 16)
        report = ModelAdvisor(model, x, device="ascend910b", progress=False).analyze()
        result = ModelOptimizer(model=model, report=report).optimize().msadvisor
        # The analysis says why the pairs are not a safe fix, and the optimizer does not fold them.
        pairs = [f for f in report.findings if f.rule == "fusion.conv_bn_act" and f.location == "conv"]
        self.assertEqual(len(pairs), 2, [f.to_dict() for f in report.findings])
        for f in pairs:
            self.assertFalse(f.legal)
            self.assertTrue(any(b["key"].startswith("shared_weight:") for b in f.blockers), f.blockers)
        self.assertEqual([a for a in result.applied if a["pass"] == "fold_bn_into_conv"], [])
        # The tie survives: both Convs still read one weight, and the model did not grow.
        proto = onnx.load_from_string(result.serialize())
        convs = [n for n in proto.graph.node if n.op_type == "Conv" and n.input[0] != proto.graph.input[0].name]
        self.assertEqual(len(convs), 2)
        self.assertEqual(convs[0].input[1], convs[1].input[1])
        self.assertLessEqual(result.size["weight_bytes_after"], result.size["weight_bytes_before"])
        self.assertEqual(result.folded, [])
        self.assertIn("folded no Conv+BatchNorm pair", result.module_unchanged_reason)
        self.assertTrue(result.passed, result.verification)
        self.assertTrue(result.module_verification["passed"])

    def test_the_module_fold_skips_a_module_called_twice(self):
        """Should a future ONNX pass fold both calls (one folded weight, still tied), the module
        must still not be folded pair by pair: fuse_conv_bn_eval on one call would replace the
        BatchNorm the other call runs through."""
        model = pyhelpers.trained_batchnorm(SharedConv())
        loaded = msadvisor.advisors.load(model, torch.randn(1, 3, 16, 16))
        names = loaded.core.node_names
        module_of = loaded.names.module_of
        convs = [n for n in names if module_of(n) == "conv"]
        bns = [n for n in names if module_of(n) == "bn"]
        self.assertEqual((len(convs), len(bns)), (2, 2))
        applied = {"applied": [{"pass": "fold_bn_into_conv", "nodes_before": [c, b]} for c, b in zip(convs, bns)]}
        self.assertEqual(ModelOptimizer._foldable_pairs(loaded, applied), [])
        # The same rewrites on a module called once are folded (the guard is not refusing everything).
        once = pyhelpers.trained_batchnorm(pyhelpers.ConvBnAct(3, 8))
        loaded = msadvisor.advisors.load(once, torch.randn(1, 3, 16, 16))
        module_of = loaded.names.module_of
        conv = [n for n in loaded.core.node_names if module_of(n) == "conv"]
        bn = [n for n in loaded.core.node_names if module_of(n) == "bn"]
        applied = {"applied": [{"pass": "fold_bn_into_conv", "nodes_before": conv + bn}]}
        self.assertEqual(ModelOptimizer._foldable_pairs(loaded, applied), [("conv", "bn")])

    def test_an_onnx_input_has_no_module(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "m.onnx")
        model = pyhelpers.trained_batchnorm(pyhelpers.TinyYolo()).eval()
        torch.onnx.export(model, torch.randn(1, 3, 64, 64), path, opset_version=17, training=torch.onnx.TrainingMode.PRESERVE)
        result = ModelOptimizer(model=path).optimize()
        self.assertIsNone(result.module)
        self.assertTrue(result.passed)
        with self.assertRaises(msadvisor.ModelError):
            result.save(path)  # never over the original


if __name__ == "__main__":
    unittest.main()
