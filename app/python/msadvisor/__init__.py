"""msadvisor: where a model's inference time goes and what to do about it, from Python.

The same engine as msadvisor-cli and the desktop application. A torch.nn.Module is exported with
torch.onnx.export behind the scenes (PyTorch's fused inference paths off: they have no ONNX form)
and every finding names its module path (`layer1.0.conv1`).

Analyse a model (measured with ONNX Runtime on this CPU, beside PyTorch eager):

    import torch, torchvision
    from msadvisor import ModelAdvisor
    model = torchvision.models.mobilenet_v3_small()
    advisor = ModelAdvisor(model=model, input_example=torch.randn(1, 3, 224, 224),
                           optimization_goal="latency", deploy_scenario="edge")
    report = advisor.analyze()
    report.print_summary()         # the check-up sheet, findings by module path
    report.eager_latency_ms, report.current_latency_ms, report.latency_runtime

The specialised views (sequences: index, slice, len, iterate; they reuse the report's
measurement of the same model):

    FusionAdvisor(model=model, input_example=x).analyze()[:10]
    FormatAdvisor(model, x).analyze().unnecessary_conversions
    KernelAdvisor(model, x).analyze().wrong_kernel_selections

Optimize (the optimized torch.nn.Module back, verified, with its measured eager speedup):

    optimizer = ModelOptimizer(model=model, report=report, optimization_level="aggressive")
    optimized_model = optimizer.optimize()
    optimized_model.msadvisor.eager_speedup     # the OptimizationResult: ONNX, verification, timings
    optimizer.result.save("optimized.onnx")

What if (int8, session settings, batch, bf16: measured beside the original, accuracy checked):

    w = advisor.what_if()                       # or what_if(inputs="calib/", only=["int8_static"])
    w.best.name, w.best.speedup, w.best.accuracy
    w.save(w.best.name, "model.fast.onnx")      # and model.fast.onnx.session.json

Training (a profile of an ordinary loop):

    from msadvisor.integration import patch_pytorch
    with patch_pytorch():
        ...                                     # forward, backward, optimizer.step()
    TrainingAdvisor(model).analyze().print_training_suggestions()

Classes: ModelAdvisor, Report, Finding, FusionAdvisor, FormatAdvisor, KernelAdvisor,
ModelOptimizer, OptimizationResult, WhatIfReport, Variant, TrainingAdvisor, TrainingReport, TrainingComparison.
Errors: Error (UsageError, ModelError, DeviceError, VerificationError, Cancelled), ExportError,
InputExampleError. Long calls show a progress bar in a terminal and stop on Ctrl-C.
help(msadvisor.ModelAdvisor) and docs/python.md describe every argument.
"""
from ._core import (DEFAULT_TIMEOUT, Cancelled, DeviceError, Error, ModelError, TimeoutError,  # noqa: F401,A004
                    UsageError, VerificationError, __version__, set_read_limits)
from .errors import ExportError, InputExampleError  # noqa: F401
from .report import Finding, Report  # noqa: F401,E402
from .training import TrainingAdvisor, TrainingComparison, TrainingReport  # noqa: F401,E402
from .advisors import FormatAdvisor, FusionAdvisor, KernelAdvisor, ModelAdvisor  # noqa: F401,E402
from .optimizer import ModelOptimizer, OptimizationResult  # noqa: F401,E402
from .whatif import Variant, WhatIfReport  # noqa: F401,E402

__all__ = ["ModelAdvisor", "Report", "Finding", "FusionAdvisor", "FormatAdvisor", "KernelAdvisor", "ModelOptimizer",
           "OptimizationResult", "WhatIfReport", "Variant", "TrainingAdvisor", "TrainingReport", "TrainingComparison", "Error", "UsageError",
           "ModelError", "DeviceError", "VerificationError", "Cancelled", "ExportError", "InputExampleError",
           "__version__"]
