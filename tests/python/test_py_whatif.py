"""ModelAdvisor.what_if(): the CLI's what-if from Python — int8 dynamic quantization of an MLP's
MatMuls measured beside the original, its accuracy against the original, the verdict against
the bound, and save() writing exactly the variant measured (never over the original, never a
variant outside the bound)."""
import json
import os
import subprocess
import tempfile
import unittest

import onnx
import torch
import torch.nn as nn

import msadvisor
import pyhelpers  # noqa: F401  (two torch threads, as the other tests)
from msadvisor import ModelAdvisor


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(512, 1024)
        self.fc2 = nn.Linear(1024, 1024)
        self.fc3 = nn.Linear(1024, 10)

    def forward(self, x):
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class WhatIf(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.manual_seed(0)
        cls.dir = tempfile.mkdtemp(prefix="msa-test-whatif-")
        cls.model = Mlp().eval()
        cls.x = torch.randn(4, 512)
        cls.advisor = ModelAdvisor(cls.model, cls.x, progress=False)
        # A 10-class head on random inputs: int8 flips about 3 % of the top-1 classes, so the bound
        # asks 90 % agreement (the cosine stays the default's).
        cls.w = cls.advisor.what_if(only=["int8_dynamic", "threads_1"], bound="cosine=0.999,top1=0.9", budget=4)

    def test_the_variants_asked_are_measured(self):
        names = [v.name for v in self.w]
        self.assertIn("int8_dynamic", names)
        self.assertIn("threads_1", names)
        v = self.w["int8_dynamic"]
        self.assertEqual(v.kind, "int8_dynamic")
        self.assertTrue(v.measured)
        self.assertGreater(v.latency_ms, 0)
        self.assertLessEqual(v.latency_p10_ms, v.latency_ms)
        self.assertGreaterEqual(v.latency_p90_ms, v.latency_ms)
        self.assertGreater(self.w.baseline_ms, 0)
        # The speedup is the ratio of the two latencies the report states.
        self.assertAlmostEqual(v.speedup, self.w.baseline_ms / v.latency_ms, delta=0.02 * v.speedup)
        self.assertGreater(v.predicted_speedup, 0)
        self.assertTrue(self.w.random_inputs)

    def test_accuracy_is_measured_against_the_original(self):
        v = self.w["int8_dynamic"]
        self.assertIsNotNone(v.accuracy)
        # int8 weights change the outputs a little, never to nothing: not the original itself.
        self.assertGreater(v.accuracy["cosine"], 0.99)
        self.assertLess(v.accuracy["cosine"], 1.0)
        self.assertGreater(v.accuracy["max_rel_to_range"], 0)
        self.assertEqual(v.within_bound, v.accuracy["cosine"] >= self.w.bound["cosine"]
                         and v.accuracy["top1_agreement"] >= self.w.bound["top1"])
        # Session settings run the original model: its outputs exactly.
        t = self.w["threads_1"]
        self.assertAlmostEqual(t.accuracy["cosine"], 1.0, places=6)

    def test_save_writes_the_variant_measured(self):
        v = self.w["int8_dynamic"]
        self.assertTrue(v.within_bound, json.dumps(v.accuracy))
        self.assertEqual(self.w.bound["top1"], 0.9)
        out = os.path.join(self.dir, "mlp.int8.onnx")
        self.w.save("int8_dynamic", out)
        ops = {n.op_type for n in onnx.load(out).graph.node}
        self.assertTrue(ops & {"MatMulInteger", "DynamicQuantizeLinear", "DynamicQuantizeMatMul"}, ops)
        with open(out + ".session.json") as f:
            settings = json.load(f)
        self.assertIn("intra_op_num_threads", json.dumps(settings))

    def test_a_variant_outside_the_bound_is_not_written(self):
        strict = self.advisor.what_if(only=["int8_dynamic"], bound="cosine=1.0,top1=1.0", budget=2)
        self.assertFalse(strict["int8_dynamic"].within_bound)
        out = os.path.join(self.dir, "strict.onnx")
        with self.assertRaises(msadvisor.VerificationError):
            strict.save("int8_dynamic", out)
        self.assertFalse(os.path.exists(out))
        with self.assertRaises(msadvisor.UsageError):
            strict.save("no_such_variant", out)

    def test_never_over_the_original(self):
        path = os.path.join(self.dir, "original.onnx")
        torch.onnx.export(self.model, self.x, path)
        with open(path, "rb") as f:
            before = f.read()
        w = ModelAdvisor(path, progress=False).what_if(only=["threads_1"], budget=2)
        with self.assertRaises(msadvisor.Error):
            w.save("threads_1", path)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_bad_arguments_are_refused_before_any_work(self):
        with self.assertRaises(msadvisor.UsageError):
            self.advisor.what_if(bound="cosine=lots")
        with self.assertRaises(msadvisor.UsageError):
            self.advisor.what_if(goal="fastest")
        with self.assertRaises(msadvisor.UsageError):
            self.advisor.what_if(batches=[1])

    def test_the_cli_writes_the_same_variants(self):
        path = os.path.join(self.dir, "cli.onnx")
        torch.onnx.export(self.model, self.x, path)
        cli = os.environ["MSA_CLI"]  # set by tests/python/CMakeLists.txt
        out = os.path.join(self.dir, "cli.json")
        subprocess.run([cli, "what-if", path, "--only", "int8_dynamic,threads_1", "--budget", "2", "--json", out,
                        "--progress", "none"], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            j = json.load(f)
        py = ModelAdvisor(path, progress=False).what_if(only=["int8_dynamic", "threads_1"], budget=2)
        self.assertEqual([v["name"] for v in j["variants"]], [v.name for v in py])
        self.assertEqual(sorted(j.keys()), sorted(py.json.keys()))


if __name__ == "__main__":
    unittest.main(verbosity=2)
