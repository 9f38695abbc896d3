"""patch_pytorch() and TrainingAdvisor on a few CPU training steps of small CNNs."""
import io
import json
import os
import signal
import tempfile
import time
import unittest

import torch
import torch.nn as nn

import pyhelpers
from msadvisor import TrainingAdvisor, TrainingReport
from msadvisor.integration import MODULE_RANGE_PREFIX, active_session, patch_pytorch


OPTIMIZER_STEP_CODE = torch.optim.Optimizer._optimizer_step_code


# One intra-op thread: ctest runs another test beside this one on two cores, and a two-thread
# OpenMP region then waits at every barrier for its descheduled thread. `wide`'s five small
# parallel operators took 37-49 ms a step that way instead of 1, against whole steps of ~25 ms.
torch.set_num_threads(1)


def profile(model, steps=5, sleep_in_forward=0.0, **kwargs):
    out = tempfile.mkdtemp(prefix="msa-test-trace-")
    session = patch_pytorch(output_dir=out, wait=1, warmup=1, active=3, **kwargs)
    pyhelpers.train(model, steps, sleep_in_forward=sleep_in_forward)
    return session


class PatchPytorch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = pyhelpers.CheckpointNet()
        cls.session = profile(cls.model)
        # A budget the step exceeds: memory is short, so checkpointing is on the table.
        cls.report = TrainingAdvisor(cls.model, memory_budget="16MiB").analyze()

    def test_trace_is_written_and_hooks_removed(self):
        s = self.session
        self.assertTrue(s.finished, "the schedule (1 + 1 + 3 steps) ended within the 5 steps")
        self.assertIsNone(active_session())
        self.assertTrue(os.path.isfile(s.trace_path))
        with open(s.trace_path) as f:
            doc = json.load(f)
        names = [e["name"] for e in doc["traceEvents"]]
        steps = sorted({n for n in names if n.startswith("ProfilerStep#")})
        self.assertEqual(len(steps), 3, steps)  # wait and warm-up skipped, 3 active steps
        self.assertIn(MODULE_RANGE_PREFIX + "wide", names)
        self.assertIn(MODULE_RANGE_PREFIX + "body.1", names)
        self.assertTrue(any(e.get("args", {}).get("Input Dims") for e in doc["traceEvents"]), "record_shapes")
        self.assertEqual(doc["msadvisor"]["steps"], 3)
        # The global hooks and the optimizer wrapper are gone: a module call adds no range now.
        from torch.nn.modules import module as nn_module
        self.assertEqual(len(nn_module._global_forward_pre_hooks), 0)
        self.assertEqual(len(nn_module._global_forward_hooks), 0)
        self.assertIs(torch.optim.Optimizer._optimizer_step_code, OPTIMIZER_STEP_CODE)

    def test_saved_activation_accounting(self):
        with open(self.session.trace_path) as f:
            mods = {m["path"]: m for m in json.load(f)["msadvisor"]["modules"]}
        # Each ReLU in `wide` saves its own 8×8×64×64 float32 output for backward: 1 MiB.
        for relu in ("wide.1", "wide.2", "wide.3"):
            self.assertEqual(mods[relu]["saved_bytes"], 8 * 8 * 64 * 64 * 4, relu)
        # Linear saves its input, not its weight (a parameter, seen through w.t()): 8×2048 floats.
        self.assertEqual(mods["body.1"]["saved_bytes"], 8 * 2048 * 4)
        self.assertEqual(mods["body.1"]["output_bytes"], 8 * 256 * 4)

    def test_checkpoint_candidate(self):
        cands = self.report.checkpoint_candidates
        self.assertTrue(cands, [f.rule for f in self.report.findings])
        top = cands[0]
        self.assertEqual(top.location, "wide")
        mem = self.report.training["memory"]
        wide = next(m for m in mem["modules"] if m["module"] == "wide")
        freed = wide["saved_bytes"] - wide["output_bytes"]
        self.assertEqual(int(top.params["freed_bytes"]), round(freed))
        self.assertGreater(freed, 0.8 * mem["saved_bytes"])
        self.assertEqual(top.impact_ms, 0.0)  # memory, not time
        self.assertIn("torch.utils.checkpoint", top.suggestion)
        self.assertIn("Memory is short: the step peaks at", top.hazard)
        self.assertIn("of your memory budget", top.hazard)
        self.assertEqual(top.params["limit_mb"], "16.0")
        # `body` holds the compute: never a candidate.
        self.assertNotIn("body", [c.location for c in cands])

    def test_report_fields_and_suggestions(self):
        r = self.report
        self.assertIsInstance(r, TrainingReport)
        self.assertEqual(r.kind, "training")
        self.assertGreater(r.latency_ms, 0)
        self.assertEqual(r.latency_ms, r.step_ms)
        self.assertEqual(len(r.training["steps"]), 3)
        self.assertEqual(r.training["memory"]["source"], "saved_tensors")
        text = r.training_suggestions()
        self.assertIn("Gradient checkpointing", text)
        self.assertIn("Checkpoint wide", text)
        zh = r.training_suggestions(lang="zh")
        self.assertIn("梯度检查点", zh)
        self.assertIn("Step time", r.summary())

    def test_compare_flags_a_slower_run(self):
        same = self.report.compare(self.report)
        self.assertFalse(same.regression)
        self.assertEqual(same.exit_code, 0)
        self.assertTrue(same)
        slow_model = pyhelpers.CheckpointNet()
        profile(slow_model, sleep_in_forward=1.0)  # well above this shared machine's step-to-step noise
        slow = TrainingAdvisor(slow_model).analyze()
        worse = slow.compare(self.report)
        self.assertTrue(worse.regression, worse)
        self.assertEqual(worse.exit_code, 1)
        self.assertGreater(worse.ratio, 1.05)
        self.assertFalse(self.report.compare(slow).regression)  # faster than the previous one


class SlowDataset(torch.utils.data.Dataset):
    """Each sample costs 10 ms to "decode": with num_workers=0 the step waits 80 ms per batch of 8."""

    def __len__(self):
        return 40  # 5 batches: wait 1, warm-up 1, 3 active steps

    def __getitem__(self, i):
        time.sleep(0.01)
        return torch.randn(3, 16, 16), i % 10


class DataLoaderStall(unittest.TestCase):
    """The known num_workers=0 stall under patch_pytorch(): the top P0, where the step stalls."""

    def test_the_stall_is_the_top_finding(self):
        model = pyhelpers.PlainNet()
        patch_pytorch(output_dir=tempfile.mkdtemp(), wait=1, warmup=1, active=3)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = nn.CrossEntropyLoss()
        for x, y in torch.utils.data.DataLoader(SlowDataset(), batch_size=8, num_workers=0):
            loss_fn(model(x), y).backward()
            opt.step()
            opt.zero_grad()
        report = TrainingAdvisor(model).analyze()
        top = report.findings[0]
        self.assertEqual((top.rule, top.priority), ("training.data_loading", "P0"), report.findings)
        self.assertIn("DataLoader", top.location)
        self.assertGreaterEqual(top.impact_ms, 80 * 0.95)  # at least the sleeps (the clock's granularity aside)
        self.assertLess(top.impact_ms, report.step_ms)
        self.assertEqual(report.stalls[0].id, top.id)
        out = io.StringIO()
        report.print_training_suggestions(file=out)
        text = out.getvalue()
        stalls = text.index("Where the step stalls")
        self.assertLess(stalls, text.index(top.title), text)
        self.assertLess(text.index(top.title), text.index("Mixed precision"), text)
        self.assertIn("num_workers>0", text)


class NoCandidate(unittest.TestCase):
    def test_plain_network_has_no_checkpoint_candidate(self):
        model = pyhelpers.PlainNet()
        profile(model)
        report = TrainingAdvisor(model, memory_budget="16MiB").analyze()  # short of memory, yet nothing worth it
        self.assertEqual(report.checkpoint_candidates, [])
        self.assertTrue(report.training["memory"]["modules"])


class StalledStep(unittest.TestCase):
    def test_a_stall_in_one_step_moves_no_module_time(self):
        # Another process takes the core for 60 ms inside `wide` in one of the three profiled
        # steps (calls 3-5 of the schedule): the step time is a median, so is the module's.
        model = pyhelpers.CheckpointNet()
        calls = []

        def stall(module, inputs):  # a pre-hook runs inside the module's range (opened by a global one)
            calls.append(1)
            if len(calls) == 4:
                time.sleep(0.06)

        model.wide.register_forward_pre_hook(stall)
        profile(model)
        report = TrainingAdvisor(model, memory_budget="16MiB").analyze()
        wide = next(m for m in report.training["memory"]["modules"] if m["module"] == "wide")
        self.assertLess(wide["forward_ms"], 10.0)  # the mean of the three steps is above 20
        self.assertIn("wide", [c.location for c in report.checkpoint_candidates])


class Misuse(unittest.TestCase):
    def test_too_few_steps_says_why(self):
        model = pyhelpers.PlainNet()
        session = patch_pytorch(output_dir=tempfile.mkdtemp(), wait=5, warmup=1, active=1)
        pyhelpers.train(model, 2)
        with self.assertRaisesRegex(RuntimeError, "fewer steps"):
            TrainingAdvisor(model).analyze()
        self.assertTrue(session.finished)

    def test_bad_schedule(self):
        with self.assertRaises(ValueError):
            patch_pytorch(active=0)


class VaryingCalls(nn.Module):
    """PlainNet whose forward divides its output once, then twice, then once… per step: the same
    shape every time (an operator called a varying number of times is no shape change)."""

    def __init__(self):
        super().__init__()
        self.net = pyhelpers.PlainNet()
        self.steps = 0

    def forward(self, x):
        self.steps += 1
        y = self.net(x)
        for _ in range(1 + self.steps % 2):
            y = y.div(1.5)
        return y


class ShapeChanges(unittest.TestCase):
    def test_a_varying_call_count_is_no_shape_change(self):
        model = VaryingCalls()
        profile(model)
        report = TrainingAdvisor(model).analyze()
        found = [f.params for f in report.findings if f.rule == "training.dynamic_shape"]
        self.assertEqual(found, [], "a shape change was reported: %s (steps %s)" % (found, report.steps_recorded))

    def test_a_smaller_last_batch_is_one(self):
        model = pyhelpers.PlainNet()
        patch_pytorch(output_dir=tempfile.mkdtemp(), wait=1, warmup=1, active=4)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for batch in (8, 8, 8, 8, 8, 3):
            x, y = torch.randn(batch, 3, 16, 16), torch.randint(0, 10, (batch,))
            nn.CrossEntropyLoss()(model(x), y).backward()
            opt.step()
            opt.zero_grad()
        report = TrainingAdvisor(model).analyze()
        f = next(f for f in report.findings if f.rule == "training.dynamic_shape")
        self.assertNotEqual(f.params["shape_a"], f.params["shape_b"])
        self.assertIn("[3,", f.params["shape_b"])
        self.assertEqual(f.params["new_steps"], "1")


class MemoryReason(unittest.TestCase):
    """Checkpointing only where memory is short: device capacity, or the user's budget."""

    def test_no_candidate_without_memory_pressure(self):
        model = pyhelpers.CheckpointNet()
        session = profile(model)
        report = TrainingAdvisor(model).analyze()
        self.assertEqual(report.checkpoint_candidates, [])
        self.assertEqual(session.memory["device"], "cpu")
        self.assertGreater(session.memory["peak_bytes"], 16 * 2 ** 20)
        self.assertLess(session.memory["peak_bytes"], 0.9 * session.memory["capacity_bytes"])
        self.assertFalse(report.memory["short"])
        text = report.training_suggestions()
        self.assertIn("not proposed: memory is not short", text)
        self.assertIn("cpu's memory", text)

    def test_a_budget_the_step_exceeds_proposes_it(self):
        model = pyhelpers.CheckpointNet()
        profile(model)
        report = TrainingAdvisor(model, memory_budget=16 * 2 ** 20).analyze()
        self.assertEqual([c.location for c in report.checkpoint_candidates], ["wide"])
        self.assertTrue(report.memory["short"])
        self.assertIn("MiB of activations", report.checkpoint_candidates[0].title)
        with self.assertRaises(ValueError):
            TrainingAdvisor(model, memory_budget="lots")


class Steps(unittest.TestCase):
    def test_the_default_records_what_the_statistics_need(self):
        model = pyhelpers.PlainNet()
        session = patch_pytorch(output_dir=tempfile.mkdtemp())
        pyhelpers.train(model, 12)
        self.assertTrue(session.finished)
        report = TrainingAdvisor(model).analyze()
        self.assertEqual(report.steps_recorded, 10)
        self.assertFalse(report.step_statistics_are_a_guess)
        self.assertNotIn("a guess", report.training_suggestions())

    def test_fewer_steps_say_it_is_a_guess(self):
        model = pyhelpers.PlainNet()
        profile(model)  # 3 recorded steps
        report = TrainingAdvisor(model).analyze()
        self.assertEqual(report.steps_recorded, 3)
        self.assertTrue(report.step_statistics_are_a_guess)
        self.assertIn("from 3 recorded steps: a guess", report.training_suggestions())


class TheModelsOwnSteps(unittest.TestCase):
    def test_training_advisor_analyses_that_models_session(self):
        first, second = pyhelpers.PlainNet(), pyhelpers.CheckpointNet()
        profile(first)
        profile(second)  # the last session is the second model's
        modules = {m["module"] for m in TrainingAdvisor(first).analyze().training["memory"]["modules"]}
        self.assertNotIn("wide", modules)
        self.assertIn("body.1", modules)
        modules = {m["module"] for m in TrainingAdvisor(second).analyze().training["memory"]["modules"]}
        self.assertIn("wide", modules)
        with self.assertRaisesRegex(RuntimeError, "no recorded training steps of CheckpointNet"):
            TrainingAdvisor(pyhelpers.CheckpointNet()).analyze()


def hooks_removed(test):
    from torch.nn.modules import module as nn_module
    test.assertEqual(len(nn_module._global_forward_pre_hooks), 0)
    test.assertEqual(len(nn_module._global_forward_hooks), 0)
    test.assertIs(torch.optim.Optimizer._optimizer_step_code, OPTIMIZER_STEP_CODE)
    test.assertIsNone(active_session())
    test.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)


class Undone(unittest.TestCase):
    """patch_pytorch() is undone however the loop ends."""

    def test_context_manager_on_an_exception(self):
        model = pyhelpers.PlainNet()
        with self.assertRaisesRegex(ValueError, "bad batch"):
            with patch_pytorch(output_dir=tempfile.mkdtemp()) as session:
                pyhelpers.train(model, 3)
                raise ValueError("bad batch")
        self.assertTrue(session.finished)
        hooks_removed(self)
        self.assertEqual(session.steps_recorded, 1)

    def test_context_manager_at_the_end(self):
        model = pyhelpers.PlainNet()
        with patch_pytorch(output_dir=tempfile.mkdtemp(), wait=0, warmup=0, active=20) as session:
            pyhelpers.train(model, 4)
        hooks_removed(self)
        self.assertEqual(session.steps_recorded, 4)
        self.assertEqual(TrainingAdvisor(model).analyze().steps_recorded, 4)

    def test_ctrl_c_in_the_loop(self):
        model = pyhelpers.PlainNet()
        session = patch_pytorch(output_dir=tempfile.mkdtemp(), wait=0, warmup=0, active=20)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        with self.assertRaises(KeyboardInterrupt):
            for step in range(10):
                out = model(torch.randn(8, 3, 16, 16))
                if step == 3:
                    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of a step
                out.sum().backward()
                opt.step()
                opt.zero_grad()
        self.assertTrue(session.finished)
        hooks_removed(self)
        self.assertEqual(session.steps_recorded, 3)
        self.assertTrue(os.path.isfile(session.trace_path))


class PricedTrace(unittest.TestCase):
    """device= an Ascend profile prices a torch_npu trace's kernels from their kernel_details
    shapes with the Ascend cost model: the report's optimum is theirs (13.6)."""

    FOLDER = os.path.join(os.environ.get("MSA_SOURCE_DIR", ""), "tests", "data", "training", "npu_train_ascend_pt")

    def test_the_optimum_is_the_priced_kernels(self):
        r = TrainingAdvisor(trace=self.FOLDER, device="ascend910b").analyze()
        pricing = r.training["pricing"]
        self.assertEqual(pricing["device"], "ascend910b")
        self.assertGreater(pricing["roofline_ms"], 0)
        self.assertEqual(r.optimum_ms, pricing["roofline_ms"])
        self.assertLessEqual(pricing["priced_ms"], pricing["compute_ms"])
        self.assertIn("MatMulV2", [t["op_type"] for t in pricing["op_types"]])
        self.assertIn("training_optimum", [n["key"] for n in r.notes])
        self.assertIn("Kernels priced on ascend910b", r.summary())
        # Without a device the one analysis of a profile decides the chip from the kernels; this
        # fixture names none (no block dims, no info.json), so it is priced on the default profile
        # and says so (chip_unknown) — the same figures `analyze --profile` gives.
        plain = TrainingAdvisor(trace=self.FOLDER).analyze()
        self.assertEqual(plain.optimum_ms, plain.training["pricing"]["roofline_ms"])
        self.assertIn("chip_unknown", [n["key"] for n in plain.notes])


class RealTorchNpuTrace(unittest.TestCase):
    """The same rule on torch_npu's operator_memory.csv (AlexNet training on a 910B)."""

    def test_alexnet_features_are_the_candidate(self):
        root = pyhelpers.real_profiles()
        if root is None:
            self.skipTest("no real-profiles folder")
        folder = os.path.join(root, "ascend", "torch_npu_alexnet_train_level1", "rank0_ascend_pt")
        # The run held ~2 GiB of a 64 GiB 910B: checkpointing is advised for a budget it exceeds.
        self.assertEqual(TrainingAdvisor(trace=folder).analyze().checkpoint_candidates, [])
        report = TrainingAdvisor(trace=folder, memory_budget="48MiB").analyze()
        mem = report.training["memory"]
        self.assertEqual(mem["source"], "operator_memory")
        self.assertEqual([c.location for c in report.checkpoint_candidates], ["Sequential_0"])
        self.assertGreater(float(report.checkpoint_candidates[0].params["freed_mb"]), 50)
        # The seed's three questions, each answered under its own heading: the exposed gradient
        # all-reduce of this 2-rank data-parallel run is where the step stalls, the float32
        # MatMulV2 is the mixed-precision candidate.
        self.assertEqual(report.findings[0].rule, "training.communication")
        self.assertEqual(report.stalls[0].id, report.findings[0].id)
        self.assertEqual([f.rule for f in report.mixed_precision], ["training.amp"])
        out = io.StringIO()
        report.print_training_suggestions(file=out)
        text = out.getvalue()
        order = [text.index(s) for s in ("Where the step stalls", report.findings[0].title, "Mixed precision",
                                          report.mixed_precision[0].title, "Gradient checkpointing",
                                          report.checkpoint_candidates[0].title)]
        self.assertEqual(order, sorted(order), text)

    def test_alexnet_kernels_are_priced_from_their_shapes(self):
        root = pyhelpers.real_profiles()
        if root is None:
            self.skipTest("no real-profiles folder")
        folder = os.path.join(root, "ascend", "torch_npu_alexnet_train_level1", "rank0_ascend_pt")
        report = TrainingAdvisor(trace=folder, device="ascend910b").analyze()
        pricing = report.training["pricing"]
        # Every kernel_details row has its shapes; only MemSet (no tensors listed) is left unpriced.
        self.assertGreater(pricing["known_time_share"], 0.9)
        self.assertEqual([u["op_type"] for u in pricing["unpriced"]], ["MemSet"])
        self.assertGreater(report.gap_ratio, 1)  # a real run is slower than its kernels' roofline
        self.assertLess(report.optimum_ms, pricing["compute_ms"])


if __name__ == "__main__":
    unittest.main()
