"""README's "From Python" example, run as written (its first code block)."""
import contextlib
import io
import os
import re
import unittest


def readme_block():
    path = os.path.join(os.environ.get("MSA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")), "README.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## From Python", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


class Readme(unittest.TestCase):
    def test_the_example_runs_as_written(self):
        code = readme_block()
        self.assertIn("ModelAdvisor(model=model, input_example=torch.randn(1, 3, 640, 640)", code)
        out = io.StringIO()
        scope = {}
        with contextlib.redirect_stdout(out):
            exec(compile(code, "README.md", "exec"), scope)
        text = out.getvalue()
        self.assertIn("Performance check-up", text)
        self.assertIn("[1,3,640,640]", text)
        report = scope["report"]
        self.assertEqual(report.latency_source, "measured")
        self.assertEqual(report.latency_run, "deployed")
        # ONNX Runtime folds every Conv+BatchNorm at load: the 20 folds are listed by module path
        # as applied by it, and none is in the TOP list (whose modules are listed when it has any).
        folds = [f for f in report.findings if f.rule == "fusion.conv_bn_act"]
        self.assertEqual(len(folds), 20)
        self.assertTrue(all(f.applied_by == "onnxruntime" for f in folds))
        self.assertIn("Applied by the runtime at load", text)
        self.assertRegex(text, r"fusion\.conv_bn_act\s+onnxruntime\s+x20\s+conv1, layer1\.0\.conv1, layer1\.0\.conv2,")
        top = {f.id for f in report.bottlenecks}
        self.assertFalse(top & {f.id for f in folds})
        if report.bottlenecks:
            self.assertIn("Where in the PyTorch model", text)
            self.assertIn(report.bottlenecks[0].location, text)
        print(text)  # what the example prints, in the test log


if __name__ == "__main__":
    unittest.main()
