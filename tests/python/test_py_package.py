"""The msadvisor package without PyTorch: loading models every way, errors, progress, the GIL,
and Ctrl-C (KeyboardInterrupt, nothing left running). Models are built with onnx.helper."""
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import msadvisor
from msadvisor import ModelAdvisor, _core, _progress


def conv_bn_relu_model(channels=16, size=32, blocks=3):
    """Conv → BatchNormalization → Relu, `blocks` times, named as torch.onnx.export names them."""
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    prev, c_in = "input", 3
    for b in range(blocks):
        w = numpy_helper.from_array(rng.standard_normal((channels, c_in, 3, 3)).astype(np.float32), "b{}.conv.weight".format(b))
        inits.append(w)
        for p, v in (("weight", rng.uniform(0.5, 1.5, channels)), ("bias", rng.uniform(-0.2, 0.2, channels)),
                     ("running_mean", rng.uniform(-0.5, 0.5, channels)), ("running_var", rng.uniform(0.5, 2, channels))):
            inits.append(numpy_helper.from_array(v.astype(np.float32), "b{}.bn.{}".format(b, p)))
        conv, bn, relu = "/b{}/conv/Conv".format(b), "/b{}/bn/BatchNormalization".format(b), "/b{}/act/Relu".format(b)
        nodes.append(helper.make_node("Conv", [prev, w.name], [conv + "_output_0"], name=conv, pads=[1, 1, 1, 1]))
        nodes.append(helper.make_node("BatchNormalization", [conv + "_output_0"] + ["b{}.bn.{}".format(b, p) for p in (
            "weight", "bias", "running_mean", "running_var")], [bn + "_output_0"], name=bn))
        nodes.append(helper.make_node("Relu", [bn + "_output_0"], [relu + "_output_0"], name=relu))
        prev, c_in = relu + "_output_0", channels
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, size, size])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["batch", channels, size, size])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="test")
    onnx.checker.check_model(model)
    return model


def thread_count():
    return len(os.listdir("/proc/self/task"))


class Loading(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proto = conv_bn_relu_model()
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "net.onnx")
        onnx.save(cls.proto, cls.path)

    def test_path_bytes_and_proto_load_the_same_model(self):
        from msadvisor.advisors import load
        a = load(self.path).core
        b = load(self.proto.SerializeToString()).core
        c = load(self.proto).core
        self.assertEqual(a.node_count, 9)
        self.assertEqual(a.node_names, b.node_names)
        self.assertEqual(a.node_names, c.node_names)
        self.assertEqual(a.inputs, [{"name": "input", "dtype": "float", "shape": ["batch", 3, 32, 32]}])
        self.assertEqual(a.op_histogram, {"BatchNormalization": 3, "Conv": 3, "Relu": 3})

    def test_errors_name_the_file(self):
        with self.assertRaises(msadvisor.ModelError) as e:
            _core.load_model(os.path.join(self.dir.name, "missing.onnx"))
        self.assertTrue(e.exception.file.endswith("missing.onnx"))
        self.assertEqual(e.exception.exit_code, 2)
        with self.assertRaises(msadvisor.ModelError) as e:
            _core.load_model_bytes(b"not a model", label="junk.onnx")
        self.assertIn("junk.onnx", str(e.exception))
        with self.assertRaises(TypeError):
            ModelAdvisor(model=42).analyze()
        with self.assertRaises(ValueError):  # UsageError is a ValueError too
            ModelAdvisor(self.path, optimization_goal="fastest", device="ascend910b").analyze()
        with self.assertRaises(msadvisor.Error):
            ModelAdvisor(self.path, device="no-such-device").analyze()
        self.assertTrue(issubclass(msadvisor.UsageError, ValueError))

    def test_hostile_models_are_refused_as_the_cli_refuses_them(self):
        # The same check at load as every client: a cycle, named by file and node.
        cyclic = onnx.ModelProto()
        cyclic.CopyFrom(self.proto)
        first = cyclic.graph.node[0]
        first.input[0] = cyclic.graph.node[2].output[0]
        path = os.path.join(self.dir.name, "cyclic.onnx")
        with open(path, "wb") as f:
            f.write(cyclic.SerializeToString())
        with self.assertRaises(msadvisor.ModelError) as e:
            _core.load_model(path)
        self.assertTrue(e.exception.file.endswith("cyclic.onnx"))
        self.assertIn("cycle", str(e.exception))
        self.assertEqual(e.exception.exit_code, 2)

    def test_symbolic_dims_from_the_example(self):
        # An ONNX model with a symbolic batch: the example's shape binds it ("input:0").
        report = ModelAdvisor(self.path, input_example=np.zeros((2, 3, 32, 32), np.float32), device="ascend910b",
                              progress=False).analyze()
        self.assertEqual(report.inputs, [{"name": "input", "shape": "[2,3,32,32]"}])
        self.assertEqual(report.latency_source, "estimated")
        conv_bn = [f for f in report.findings if f.rule == "fusion.conv_bn_act"]
        self.assertEqual(len(conv_bn), 3)
        # Without a module the location is the ONNX node name.
        self.assertEqual(sorted(f.location for f in conv_bn), ["/b0/conv/Conv", "/b1/conv/Conv", "/b2/conv/Conv"])

    def test_unbound_dims_are_an_error(self):
        with self.assertRaisesRegex(msadvisor.UsageError, "batch"):
            ModelAdvisor(self.path, progress=False, iterations=1).analyze()


class Progress(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.path = os.path.join(cls.dir.name, "net.onnx")
        onnx.save(conv_bn_relu_model(), cls.path)

    def analyze(self, progress, iterations=3):
        return ModelAdvisor(self.path, dims={"batch": 1}, iterations=iterations, warmup=1, calibration="off",
                            progress=progress).analyze()

    def test_callback_and_gil(self):
        seen = []
        ticks = [0]
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                ticks[0] += 1
                time.sleep(0.001)

        t = threading.Thread(target=spin)
        t.start()
        try:
            report = self.analyze(lambda phase, fraction: seen.append((phase, fraction, ticks[0])), iterations=20)
        finally:
            stop.set()
            t.join()
        self.assertEqual(report.latency_source, "measured")
        self.assertTrue(seen)
        self.assertTrue(all(isinstance(p, str) and 0.0 <= f <= 1.0 for p, f, _ in seen))
        # The other Python thread ran while the core worked: the call released the GIL.
        self.assertGreater(seen[-1][2] - seen[0][2], 0)
        self.assertEqual(_core.running_jobs(), 0)

    def test_default_is_silent_off_a_terminal_and_a_bar_on_one(self):
        with _progress.reporter(None) as cb:  # ctest's stderr is a pipe
            self.assertIsNone(cb)
        buf = io.StringIO()
        bar = _progress.TextBar(buf, width=10)
        bar("profiling", 0.5)
        bar.close()
        self.assertIn("[#####.....]  50 %  profiling", buf.getvalue())
        with self.assertRaises(TypeError):
            with _progress.reporter("loud"):
                pass

    def test_sigint_from_a_callback_cancels(self):
        self.analyze(False, iterations=1)  # the runtime's own threads exist from here on
        before = thread_count()
        calls = []

        def interrupt(phase, fraction):
            calls.append(phase)
            if len(calls) == 1:
                os.kill(os.getpid(), signal.SIGINT)

        with self.assertRaises(KeyboardInterrupt):
            self.analyze(interrupt, iterations=100000)
        self.assertEqual(_core.running_jobs(), 0)
        self.assertEqual(thread_count(), before)
        # And the next call runs normally.
        self.assertGreater(self.analyze(False, iterations=1).latency_ms, 0)

    def test_exception_in_callback_cancels_and_propagates(self):
        def fail(phase, fraction):
            raise RuntimeError("stop here")

        with self.assertRaisesRegex(RuntimeError, "stop here"):
            self.analyze(fail, iterations=100000)
        self.assertEqual(_core.running_jobs(), 0)

    def test_ctrl_c_in_a_script(self):
        """A real Ctrl-C: SIGINT to a Python process in the middle of a long analysis."""
        script = textwrap.dedent("""
            import sys
            from msadvisor import ModelAdvisor
            said = []
            def started(phase, fraction):
                if phase not in ("shapes", "loading") and not said:  # ONNX Runtime is running the model
                    said.append(phase)
                    print("started", flush=True)
            try:
                ModelAdvisor(sys.argv[1], dims={"batch": 1}, iterations=1000000, calibration="off",
                             progress=started).analyze()
            except KeyboardInterrupt:
                from msadvisor import _core
                print("interrupted, jobs", _core.running_jobs(), flush=True)
                raise
        """)
        child = subprocess.Popen([sys.executable, "-c", script, self.path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=dict(os.environ))
        try:
            line = child.stdout.readline()  # the analysis is under way
            self.assertEqual(line.strip(), "started")
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=120)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        self.assertIn("interrupted, jobs 0", out)
        self.assertIn("KeyboardInterrupt", err)
        self.assertNotEqual(child.returncode, 0)


class PhasesAreMonotonic(unittest.TestCase):
    def test_a_core_fraction_going_back_does_not_move_the_bar_back(self):
        seen = []
        with _progress.Phases(lambda p, f: seen.append((p, f)), [("export", 1), ("analysis", 8), ("timing", 1)]) as ph:
            ph.start("export")
            ph.done("export")
            cb = ph.callback("analysis")
            for phase, f in (("calibrating", 0.3), ("shapes", 0.0), ("profiling", 0.2), ("profiling", 0.9)):
                cb(phase, f)
            ph.report("timing", 0.5)
        fractions = [f for _, f in seen]
        self.assertEqual(fractions, sorted(fractions))
        self.assertEqual(seen[0], ("export", 0.0))
        self.assertEqual(seen[2], ("analysis: calibrating", 0.1 + 0.8 * 0.3))
        self.assertEqual(seen[3][1], seen[2][1])  # the core's restart is held, not shown
        self.assertAlmostEqual(seen[-1][1], 0.95)
        self.assertEqual(seen[-1][0], "timing")


def public_api():
    """(name, object) of every public class, method and property of the package."""
    import inspect
    for name in msadvisor.__all__:
        cls = getattr(msadvisor, name)
        if not inspect.isclass(cls) or issubclass(cls, BaseException) and cls.__module__ == "msadvisor._core":
            continue
        yield name, cls
        for attr, member in vars(cls).items():
            if attr.startswith("_"):
                continue
            if isinstance(member, property) or inspect.isfunction(member):
                yield "{}.{}".format(name, attr), member


USER_MADE = {"ModelAdvisor", "FusionAdvisor", "FormatAdvisor", "KernelAdvisor", "ModelOptimizer", "TrainingAdvisor"}


class Documentation(unittest.TestCase):
    def test_every_public_class_and_method_has_a_docstring_with_an_example(self):
        import inspect
        missing = []
        for name, obj in public_api():
            doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj) or ""
            if not doc.strip():
                missing.append(name + ": no docstring")
                continue
            if isinstance(obj, property):
                continue
            if inspect.isclass(obj):
                if "Example" not in doc:
                    missing.append(name + ": no example")
                # The arguments of the classes users make (the others are made by the package).
                init = vars(obj).get("__init__") if name in USER_MADE else None
                params = list(inspect.signature(init).parameters)[1:] if init else []
            else:
                if "Example" not in doc and "Returns" not in doc:
                    missing.append(name + ": neither an example nor what it returns")
                params = list(inspect.signature(obj).parameters)[1:]
            for p in params:
                if p not in ("args", "kwargs") and p not in doc:
                    missing.append("{}: parameter {} undocumented".format(name, p))
        self.assertEqual(missing, [])

    def test_help_is_a_useful_page(self):
        import pydoc
        text = pydoc.render_doc(msadvisor, renderer=pydoc.plaintext)
        for what in ("ModelAdvisor(model=model, input_example=", "report.print_summary()", "FusionAdvisor", "[:10]",
                     "optimized_model = optimizer.optimize()", "eager_speedup", "patch_pytorch", "TrainingAdvisor(model)",
                     "ExportError", "docs/python.md"):
            self.assertIn(what, text)


class ReportObjects(unittest.TestCase):
    def test_json_text_html_and_zh(self):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "net.onnx")
        onnx.save(conv_bn_relu_model(), path)
        r = ModelAdvisor(path, dims={"batch": 1}, device="ascend910b", progress=False).analyze()
        data = json.loads(r.to_json(os.path.join(d, "r.json")))
        with open(os.path.join(d, "r.json")) as f:
            self.assertEqual(json.load(f), data)
        for key in ("schema_version", "model", "device", "latency_ms", "latency_source", "optimum_ms", "gap_ratio",
                    "estimated_optimized_ms", "findings", "bottlenecks"):
            self.assertIn(key, data)
            self.assertTrue(hasattr(r, key), key)
        self.assertEqual([f.id for f in r.findings], [f["id"] for f in data["findings"]])
        self.assertEqual([f.id for f in r.bottlenecks], data["bottlenecks"])
        for f in r.findings:
            for key in ("id", "rule", "category", "priority", "impact_ms", "speedup_local", "speedup_global", "nodes",
                        "legal", "fix", "title", "suggestion"):
                self.assertTrue(hasattr(f, key), key)
        r.to_html(os.path.join(d, "r.html"))
        with open(os.path.join(d, "r.html"), encoding="utf-8") as f:
            self.assertIn("<html", f.read().lower())
        self.assertIn("OVERVIEW", r.summary())
        zh = r.summary(lang="zh")
        self.assertTrue(any("\u4e00" <= ch <= "\u9fff" for ch in zh))
        self.assertEqual(json.loads(r.to_json(lang="zh"))["lang"], "zh")
        with self.assertRaises(msadvisor.UsageError):
            r.summary(lang="fr")
        with self.assertRaises(msadvisor.UsageError):  # never over the model
            r.to_json(path)
        self.assertGreater(os.path.getsize(path), 1000)


if __name__ == "__main__":
    unittest.main()
