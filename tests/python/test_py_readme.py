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
        self.assertIn("layer1.0.conv1", text)  # the module paths of the TOP findings
        report = scope["report"]
        self.assertEqual(report.latency_source, "measured")
        print(text)  # what the example prints, in the test log


if __name__ == "__main__":
    unittest.main()
