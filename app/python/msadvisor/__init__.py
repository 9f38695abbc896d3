"""msadvisor from Python: the same engine as msadvisor-cli and the desktop application.

    from msadvisor import ModelAdvisor
    advisor = ModelAdvisor(model=model, input_example=torch.randn(1, 3, 640, 640),
                           optimization_goal="latency", deploy_scenario="edge")
    report = advisor.analyze()
    report.print_summary()

See docs/python.md for the whole API.
"""
from ._core import (DEFAULT_TIMEOUT, Cancelled, DeviceError, Error, ModelError, TimeoutError,  # noqa: F401,A004
                    UsageError, VerificationError, __version__, set_read_limits)
from .report import Finding, Report  # noqa: F401,E402
from .training import TrainingAdvisor, TrainingComparison, TrainingReport  # noqa: F401,E402
from .advisors import FormatAdvisor, FusionAdvisor, KernelAdvisor, ModelAdvisor  # noqa: F401,E402
from .optimizer import ModelOptimizer, OptimizationResult  # noqa: F401,E402
