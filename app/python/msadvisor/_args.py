"""Argument checks made before any slow work (an export, a measurement): a wrong goal, scenario,
device or count fails at once, in one sentence."""
import os

from . import _core, _torch

GOALS = ("latency", "throughput")
SCENARIOS = ("edge", "datacenter")
CALIBRATIONS = ("auto", "cached", "refresh", "off")
LANGS = ("en", "zh")
LEVELS = ("conservative", "moderate", "aggressive")


def choice(name, value, allowed):
    if value not in allowed:
        raise _core.UsageError("{} is {}, not {!r}".format(name, " or ".join("'{}'".format(a) for a in allowed), value))
    return value


def integer(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("{} is an int, not {}".format(name, type(value).__name__))
    if value < minimum:
        raise _core.UsageError("{} must be at least {}, not {}".format(name, minimum, value))
    return value


def timeout(value):
    """Seconds (0 for none), as the CLI's --timeout."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("timeout is a number of seconds, not {}".format(type(value).__name__))
    if not value >= 0:
        raise _core.UsageError("timeout is a number of seconds, 0 for none, not {!r}".format(value))
    return float(value)


def _device_sentence(value):
    return ("device {} is not one msadvisor runs on: 'cpu' measures on this CPU with ONNX Runtime, a device "
            "profile ({}) or a device JSON file estimates on that device; a trace or profile from any other "
            "device is analysed with profile= (ModelAdvisor) or trace= (TrainingAdvisor)".format(
                value, ", ".join(_core.device_ids())))


def device(value, allow_none=False):
    """A device argument as the core takes it: "cpu", a device profile id, a device JSON path, or
    None where allowed. torch.device("cpu") is "cpu"; torch.device("npu") (and "npu", "npu:0")
    is Ascend 910B's profile (a module already on the NPU is profiled there)."""
    if value is None and allow_none:
        return None
    torch = _torch.torch_module()
    if torch is not None and isinstance(value, torch.device):
        value = value.type if value.index is None else "{}:{}".format(value.type, value.index)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TypeError("device is a str, a torch.device or a path, not {}".format(type(value).__name__))
    kind = value.split(":", 1)[0]
    if kind == "cpu":
        return "cpu"
    if kind == "npu":
        return "ascend910b"
    if value in _core.device_ids() or (value.endswith(".json") and os.path.isfile(value)):
        return value
    raise _core.UsageError(_device_sentence(value))
