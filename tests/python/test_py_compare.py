"""compare_outputs, the comparison ModelOptimizer holds a folded module to: the core's own
(value_compare.h), so that outputs far below the absolute tolerance are compared to their
magnitude and references that cannot tell a right result from a wrong one are never a match."""
import unittest

import torch

from msadvisor.optimizer import compare_outputs


class CompareOutputs(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)

    def test_tiny_outputs_no_longer_pass_silently(self):
        # An untrained network's outputs (at most ~1e-9): every element is within atol 1e-5, so
        # element tolerances alone passed anything.
        reference = torch.randn(1, 1000) * 1e-9
        r = compare_outputs(torch.zeros(1, 1000), reference, 1e-5, 1e-5)
        self.assertFalse(r["passed"], r)
        self.assertEqual(r["verdict"], "failed")
        self.assertGreaterEqual(r["max_error_to_magnitude"], 0.99)

    def test_a_broken_rewrite_fails_and_a_faithful_one_is_inconclusive_on_tiny_outputs(self):
        reference = torch.randn(2, 1000) * 1e-9
        broken = reference[:, torch.randperm(1000)]
        self.assertFalse(compare_outputs(broken, reference, 1e-5, 1e-5)["passed"])
        faithful = reference * (1 + 1e-7 * torch.randn(2, 1000))
        r = compare_outputs(faithful, reference, 1e-5, 1e-5)
        self.assertTrue(r["passed"], r)
        self.assertEqual(r["verdict"], "inconclusive")  # never "match" on such outputs
        self.assertIn("these inputs do not exercise the model", r["inconclusive"])
        self.assertEqual(r["top1_agreement"], 1.0)

    def test_real_outputs_match_with_their_figures(self):
        reference = torch.randn(4, 10)
        r = compare_outputs(reference + 1e-7, reference, 1e-5, 1e-5)
        self.assertTrue(r["passed"], r)
        self.assertEqual(r["verdict"], "match")
        self.assertGreater(r["cosine"], 0.999999)
        self.assertEqual(r["top1_agreement"], 1.0)
        # A classifier whose classes were swapped is caught by its top-1 agreement too.
        swapped = reference.flip(1)
        bad = compare_outputs(swapped, reference, 1e-5, 1e-5)
        self.assertFalse(bad["passed"])
        self.assertLess(bad["top1_agreement"], 1.0)

    def test_constant_and_nan_references_are_inconclusive(self):
        self.assertEqual(compare_outputs(torch.full((3, 3), 2.0), torch.full((3, 3), 2.0), 1e-5, 1e-5)["verdict"],
                         "inconclusive")
        nan = torch.randn(3, 3)
        nan[0, 0] = float("nan")
        self.assertEqual(compare_outputs(nan, nan.clone(), 1e-5, 1e-5)["verdict"], "inconclusive")


if __name__ == "__main__":
    unittest.main()
