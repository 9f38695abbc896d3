"""The article's code (docs/python.md, "From the article"), one test per line, run as written on
CPU tensors: torchvision's mobilenet_v3_small and regnet_x_400mf and an
nn.TransformerEncoder(batch_first=True), at inputs smaller than the article's 640x640 (the one
change to the text besides an ordinary training loop where its comment stands). And the check the
article's reader makes: the eager speedup the optimized module carries is what timing it finds."""
import ast
import contextlib
import io
import os
import re
import shutil
import tempfile
import time
import unittest

import onnx
import torch
import torch.nn as nn
import torchvision

import msadvisor
import pyhelpers

# One intra-op thread for PyTorch: ctest runs another test beside this one on two cores, and a
# two-thread OpenMP region then waits at every barrier for its descheduled thread.
torch.set_num_threads(1)

TRAIN_MARK = "# ... an ordinary training loop"


def article_statements():
    """The article's block as (source line, statement text) pairs, the training-loop comment
    replaced by a call of the test's loop; the 640x640 examples take the model's shape."""
    path = os.path.join(os.environ.get("MSA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "docs", "python.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## From the article", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert TRAIN_MARK in code and code.count("torch.randn(1, 3, 640, 640)") == 3, code
    code = "\n".join("__train__(model)" if line.startswith(TRAIN_MARK) else line for line in code.splitlines())
    code = code.replace("torch.randn(1, 3, 640, 640)", "torch.randn(*EXAMPLE_SHAPE)")
    return [(node.lineno, ast.get_source_segment(code, node)) for node in ast.parse(code).body]


def train_classifier(model, steps=12, shape=(2, 3, 32, 32)):
    """An ordinary loop: SGD, cross-entropy, fixed shapes (the default schedule's 1 + 1 + 10 steps)."""
    torch.manual_seed(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(steps):
        x, y = torch.randn(*shape), torch.randint(0, 1000, (shape[0],))
        loss_fn(model(x), y).backward()
        opt.step()
        opt.zero_grad()


def train_encoder(model, steps=12):
    torch.manual_seed(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    model.train()
    for _ in range(steps):
        x = torch.randn(2, 16, 256)
        (model(x) - x).pow(2).mean().backward()
        opt.step()
        opt.zero_grad()


def encoder():
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True), 2)


class _Article:
    """One model through the article's lines; a test per statement, in order."""

    FACTORY = None
    SHAPE = None
    TRAIN = None
    CNN = True

    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.dir = tempfile.mkdtemp(prefix="msa-article-")
        cls.cwd = os.getcwd()
        os.chdir(cls.dir)  # the article writes yolov5s_optimized.* into the working folder
        model = cls.FACTORY()
        if cls.CNN:
            pyhelpers.trained_batchnorm(model)
        cls.scope = {"torch": torch, "time": time, "model": model, "input_example": torch.randn(*cls.SHAPE),
                     "EXAMPLE_SHAPE": cls.SHAPE, "__train__": cls.TRAIN}
        cls.printed = {}
        cls.failed = None

    @classmethod
    def tearDownClass(cls):
        os.chdir(cls.cwd)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_line(self, index, source):
        if self.failed is not None:
            self.skipTest("line {} failed".format(self.failed))
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(source, "docs/python.md (the article)", "exec"), self.scope)
        except BaseException:
            type(self).failed = index
            raise
        finally:
            self.printed[index] = out.getvalue()
            print(out.getvalue(), end="")
        check = self.checks.get(source.split("(")[0].split(" =")[0].strip())
        if check is not None:
            check(self, out.getvalue())

    # -- what each line must give, beyond running
    def after_summary(self, out):
        s, report = self.scope, self.scope["report"]
        self.assertIn("{} (torch.nn.Module)".format(type(s["model"]).__name__), out)
        self.assertNotIn("msadvisor-export", out)  # no temporary export path as the model's name
        self.assertGreater(report.eager_latency_ms, 0)
        flat = " ".join(out.split())  # the sheet wraps its rows
        self.assertIn("PyTorch eager {:.1f} ms on this CPU".format(report.eager_latency_ms), flat)
        self.assertIn("exported to ONNX Runtime: {:.1f} ms, {:.1f}×".format(
            report.latency_ms, report.eager_latency_ms / report.latency_ms), flat)
        self.assertIn("ONNX Runtime", report.latency_runtime)
        self.assertIn("as deployed", report.latency_runtime)

    def after_fusions(self, out):
        fusions = self.scope["fusion_opportunities"]
        self.assertIs(fusions.report, self.scope["report"], "one measurement per model")
        for o in fusions:
            if o.applied_by:
                self.assertEqual(o.estimated_speedup, 1.0, o)

    def after_format(self, out):
        self.assertIs(self.scope["format_report"].report, self.scope["report"])

    def after_kernels(self, out):
        kernels = self.scope["kernel_report"]
        self.assertIs(kernels.report, self.scope["report"])
        report_kernel_ids = [f.id for f in self.scope["report"].findings if f.category == "kernel"]
        self.assertEqual([k.finding.id for k in kernels], report_kernel_ids)
        for k in kernels:
            self.assertNotEqual(k.current_kernel, "CPUExecutionProvider")
            self.assertTrue(k.current_kernel.endswith(" on CPUExecutionProvider"), k.current_kernel)
            self.assertIsNotNone(k.optimal_kernel)
        if not kernels:
            self.assertTrue(kernels.reason)

    def after_optimize(self, out):
        model, optimized = self.scope["model"], self.scope["optimized_model"]
        self.assertIsInstance(optimized, nn.Module)
        self.assertIs(type(optimized), type(model))
        self.assertIsNot(optimized, model)
        result = optimized.msadvisor
        self.assertIs(result, self.scope["optimizer"].result)
        self.assertTrue(result.passed, result.verification)
        self.assertTrue(result.module_verification["passed"], result.module_verification)
        if self.CNN:
            self.assertTrue(result.folded)
            self.assertFalse(any(isinstance(m, nn.BatchNorm2d) for m in optimized.modules()))
            self.assertGreater(result.eager_speedup, 0)
        else:
            self.assertEqual(result.folded, [])
            self.assertIn("folded no Conv+BatchNorm", result.module_unchanged_reason)
            self.assertEqual(result.eager_speedup, 1.0)

    def after_save(self, out):
        state = torch.load("yolov5s_optimized.pth")
        self.scope["optimized_model"].load_state_dict(state)  # strict: the same keys

    def after_export(self, out):
        proto = onnx.load("yolov5s_optimized.onnx")
        onnx.checker.check_model(proto)
        ops = {n.op_type for n in proto.graph.node}
        self.assertNotIn("BatchNormalization", ops)

    def after_training(self, out):
        self.assertIn("Training suggestions: {} (torch.nn.Module)".format(type(self.scope["model"]).__name__), out)
        self.assertIn("Gradient checkpointing", out)
        self.assertIn("not proposed: memory is not short", out)
        self.assertNotIn("change input shapes", out)  # the loop's shapes never change
        self.assertNotIn("a guess", out)  # patch_pytorch() recorded the 10 steps the statistics need

    checks = {
        "report.print_summary": after_summary,
        "fusion_opportunities": after_fusions,
        "format_report": after_format,
        "kernel_report": after_kernels,
        "optimized_model": after_optimize,
        "torch.save": after_save,
        "torch.onnx.export": after_export,
        "TrainingAdvisor": after_training,
    }


def _add_line_tests(cls):
    for index, (line, source) in enumerate(article_statements()):
        slug = re.sub(r"\W+", "_", source.split("\n")[0])[:40].strip("_")

        def test(self, index=index, source=source):
            self.run_line(index, source)

        test.__doc__ = "docs/python.md article line {}: {}".format(line, source.split("\n")[0])
        setattr(cls, "test_{:02d}_{}".format(index, slug), test)
    return cls


@_add_line_tests
class MobileNetV3Small(_Article, unittest.TestCase):
    FACTORY = staticmethod(torchvision.models.mobilenet_v3_small)
    SHAPE = (1, 3, 224, 224)
    TRAIN = staticmethod(train_classifier)


@_add_line_tests
class RegNetX400MF(_Article, unittest.TestCase):
    FACTORY = staticmethod(torchvision.models.regnet_x_400mf)
    SHAPE = (1, 3, 112, 112)
    TRAIN = staticmethod(train_classifier)


@_add_line_tests
class TransformerEncoder(_Article, unittest.TestCase):
    FACTORY = staticmethod(encoder)
    SHAPE = (1, 32, 256)
    TRAIN = staticmethod(train_encoder)
    CNN = False

    def after_summary(self, out):
        super().after_summary(out)
        # The fused inference paths were off for the export, and the report says which.
        disabled = {(d["module"], d["operator"]) for d in self.scope["report"].fast_paths}
        self.assertIn(("layers.0", "aten::_transformer_encoder_layer_fwd"), disabled)
        self.assertIn(("layers.1.self_attn", "aten::_native_multi_head_attention"), disabled)
        self.assertIn("fused inference paths off", " ".join(out.split()))

    checks = dict(_Article.checks, **{"report.print_summary": after_summary})


class EagerSpeedupAsTheReaderMeasuresIt(unittest.TestCase):
    """The module optimize() returns carries its eager speedup over the original; the reader's own
    timing of the two (here: interleaved blocks written in this test, not the package's timer)
    finds the same within the noise of that timing."""

    def test_the_stated_speedup_is_the_measured_one(self):
        # A model whose fold changes the eager time by far more than the noise (mobilenet's few
        # per cent would let a claim of 1.0 pass too). At 8x8 the eager time is PyTorch's
        # per-operator dispatch, which the fold removes a third of (x1.4 here) and which other
        # processes' load slows the same in both; at larger inputs the BatchNormalizations'
        # memory traffic makes the ratio depend on what else loads the memory bus.
        torch.manual_seed(0)
        model = pyhelpers.batchnorm_heavy()
        x = torch.randn(1, 3, 8, 8)
        report = msadvisor.ModelAdvisor(model, x, device="ascend910b", progress=False).analyze()
        optimized = msadvisor.ModelOptimizer(model=model, report=report, progress=False).optimize()
        stated = optimized.msadvisor.eager_speedup
        self.assertTrue(optimized.msadvisor.eager["timed"])
        self.assertEqual(len(optimized.msadvisor.folded), 8)
        # The reader's own timing: interleaved blocks, each module's fastest of 5 calls a block.
        model.eval()
        try:
            ratios = []
            for b in range(15):
                fastest = {}
                for name, m in (("a", model), ("b", optimized)) if b % 2 == 0 else (("b", optimized), ("a", model)):
                    m(x)
                    samples = []
                    for _ in range(5):
                        t0 = time.perf_counter()
                        m(x)
                        samples.append(time.perf_counter() - t0)
                    fastest[name] = min(samples)
                ratios.append(fastest["a"] / fastest["b"])
        finally:
            model.train()
        ratios.sort()
        measured = ratios[len(ratios) // 2]
        e = optimized.msadvisor.eager
        print("stated x{:.3f} ({} blocks, {:.3f}..{:.3f}); measured here x{:.3f} (blocks {})".format(
            stated, e["blocks"], e["speedup_p10"], e["speedup_p90"], measured,
            " ".join("{:.3f}".format(r) for r in ratios)))
        # Within the noise: the two figures differ by no more than the two timings' spreads (half
        # the width of each one's central blocks: the stated p10..p90, this timing's 2nd to 14th of
        # 15), and never less than 3 % (five runs of this test on this machine put their medians
        # 2 % apart). A claim of x1.0, or ONNX Runtime's ratio, is far outside.
        noise = max((e["speedup_p90"] - e["speedup_p10"]) / 2 + (ratios[-2] - ratios[1]) / 2, 0.03 * measured)
        self.assertLessEqual(abs(stated - measured), noise)


if __name__ == "__main__":
    unittest.main()
