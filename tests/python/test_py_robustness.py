"""Untrusted files through the Python API (issue 28, second pass): every case of the hostile
catalogue (tests/support/hostile_cases.h, written by msa-hostile-cases) with the outcome the
catalogue gives its CLI verb; reports never written over what the analysis read, names never
markup in them; calls bounded by the CLI's timeout, with its default, and stopped by it, their
temporary folders gone. No torch needed."""
import json
import os
import subprocess
import tempfile
import unittest

import msadvisor

HOSTILE = os.environ.get("MSA_HOSTILE_CASES", "")
CODE_CLASS = {0: None, 1: msadvisor.UsageError, 2: msadvisor.ModelError, 3: msadvisor.DeviceError}


def loop_model(path, trips=2 ** 62):
    """A Loop of `trips` iterations adding 1 (onnx's helper, no torch): runs until stopped."""
    import onnx
    from onnx import TensorProto, helper
    body = helper.make_graph(
        [helper.make_node("Add", ["x_in", "one"], ["x_out"]), helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [1])],
        [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "cond", "x"], ["y"], body=body)], "loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
        [helper.make_tensor("trips", TensorProto.INT64, [], [trips]), helper.make_tensor("cond", TensorProto.BOOL, [], [True])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


@unittest.skipUnless(HOSTILE and os.path.exists(HOSTILE), "msa-hostile-cases not built")
class HostileCatalogue(unittest.TestCase):
    """Each case as the Python user meets it: ModelAdvisor on a device profile (the CLI's
    `report` verb), a profile alone (`analyze --profile`) and TrainingAdvisor (`training`)."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="py-hostile-")
        subprocess.run([HOSTILE, cls.dir.name], check=True, stdout=subprocess.DEVNULL)
        cls.cases = json.loads(subprocess.run([HOSTILE, "--json"], check=True, capture_output=True, text=True).stdout)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def expect(self, case, verb, call):
        code = case["exit"][verb]
        limits = {"--max-events": "max_events", "--max-names": "max_names"}
        args = case["extra_args"]
        for k in range(0, len(args) - 1, 2):
            if args[k] in limits:
                msadvisor.set_read_limits(**{limits[args[k]]: int(args[k + 1])})
        try:
            with self.subTest(case=case["id"], verb=verb):
                if CODE_CLASS[code] is None:
                    call()
                else:
                    with self.assertRaises(CODE_CLASS[code]) as caught:
                        call()
                    self.assertIn(os.path.basename(case["file"]), str(caught.exception))
        finally:
            msadvisor.set_read_limits(max_events=2000000, max_names=200000)

    def test_every_case(self):
        for case in self.cases:
            path = os.path.join(self.dir.name, case["file"])
            if case["profile"]:
                self.expect(case, "analyze-profile", lambda: msadvisor.ModelAdvisor(profile=path).analyze())
                self.expect(case, "training", lambda: msadvisor.TrainingAdvisor(trace=path).analyze())
            else:
                dims = {}
                args = case["extra_args"]
                for k in range(0, len(args) - 1, 2):
                    if args[k] == "--dim":
                        name, value = args[k + 1].split("=")
                        dims[name] = int(value)
                self.expect(case, "report", lambda: msadvisor.ModelAdvisor(model=path, device="ascend910b", dims=dims).analyze())

    def test_reports_hold_no_markup(self):
        path = os.path.join(self.dir.name, "models", "escape_names.onnx")
        report = msadvisor.ModelAdvisor(model=path, device="ascend910b").analyze()
        for bad in ("<script", "<img", "](javascript:", "\x1b", "\u202e", "\u009b", "\nFAKE FINDING"):
            self.assertNotIn(bad, report.to_markdown())
        # The terminal's text shows markup as text; what a terminal acts on is escaped.
        for bad in ("\x1b", "\u202e", "\u009b", "\x07", "\nFAKE FINDING"):
            self.assertNotIn(bad, report.summary())
        html = report.to_html(os.path.join(self.dir.name, "r.html"))
        with open(html, encoding="utf-8") as f:
            text = f.read()
        for bad in ("<script", "<img", "\x1b", "\u202e"):
            self.assertNotIn(bad, text)


class NothingTheRunReadsIsWritten(unittest.TestCase):
    def test_reports_never_land_on_the_model_or_its_data(self):
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        import numpy as np
        with tempfile.TemporaryDirectory() as d:
            w = numpy_helper.from_array(np.ones((64, 64), dtype=np.float32), "w")
            graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
                                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w])
            model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
            model.ir_version = 8
            path = os.path.join(d, "model.onnx")
            onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="w.bin",
                      size_threshold=0)
            os.link(path, os.path.join(d, "hard.md"))
            before = {n: open(os.path.join(d, n), "rb").read() for n in ("model.onnx", "w.bin")}
            report = msadvisor.ModelAdvisor(model=path, device="ascend910b").analyze()
            for write in (lambda p: report.to_json(p), lambda p: report.to_html(p), lambda p: report.to_markdown(p)):
                for target in ("model.onnx", "w.bin", "hard.md"):
                    with self.assertRaises(msadvisor.UsageError) as caught:
                        write(os.path.join(d, target))
                    self.assertIn("refusing to write over its input", str(caught.exception))
            for name, data in before.items():
                with open(os.path.join(d, name), "rb") as f:
                    self.assertEqual(f.read(), data, name)
            report.to_markdown(os.path.join(d, "report.md"))  # anywhere else: written
            self.assertTrue(os.path.getsize(os.path.join(d, "report.md")) > 0)

    def test_training_report_never_lands_on_its_trace(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, "t.pt.trace.json")
            events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
                      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 50}]
            with open(trace, "w") as f:
                json.dump({"schemaVersion": 1, "traceEvents": events}, f)
            report = msadvisor.TrainingAdvisor(trace=trace).analyze()
            with self.assertRaises(msadvisor.UsageError):
                report.to_json(trace)
            with open(trace) as f:
                self.assertEqual(json.load(f)["traceEvents"], events)


class Timeouts(unittest.TestCase):
    def test_the_cli_default(self):
        self.assertEqual(msadvisor.DEFAULT_TIMEOUT, 1800)
        self.assertEqual(msadvisor.ModelAdvisor(model="x.onnx").timeout, 1800)
        self.assertEqual(msadvisor.TrainingAdvisor(trace="x.json").timeout, 1800)

    def test_a_loop_that_never_ends_is_stopped(self):
        """A Loop of 2^62 trips ran until the process was killed, and left its msadvisor-profile-*
        folder behind; with timeout=3 it stops, raises TimeoutError, and leaves nothing."""
        try:
            import onnx  # noqa: F401
        except ImportError:
            self.skipTest("python3-onnx")
        with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "loop.onnx")
            loop_model(path)
            old = os.environ.get("TMPDIR")
            os.environ["TMPDIR"] = tmp
            try:
                with self.assertRaises(msadvisor.TimeoutError) as caught:
                    msadvisor.ModelAdvisor(model=path, iterations=1, warmup=0, timeout=3).analyze()
            finally:
                if old is None:
                    del os.environ["TMPDIR"]
                else:
                    os.environ["TMPDIR"] = old
            self.assertIsInstance(caught.exception, msadvisor.DeviceError)
            self.assertIsInstance(caught.exception, TimeoutError)
            self.assertEqual(caught.exception.kind, "timeout")
            self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main()
