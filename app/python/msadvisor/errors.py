"""The package's exceptions. Core errors (msadvisor.Error and its subclasses) carry `kind`,
`file`, `node` and `exit_code`; the two below are raised by the Python layer, before the core
runs, for a torch.nn.Module and its input_example."""
from ._core import ModelError, UsageError


class ExportError(ModelError):
    """torch.onnx.export cannot export the module. The message is one sentence naming the
    operator and the module path calling it; `operator` ("aten::linalg_eigvals") and
    `module_path` ("encoder.layers.0", "" for the root module) hold them, None where unknown.

    Example:
        >>> try:
        ...     ModelAdvisor(model, x).analyze()
        ... except msadvisor.ExportError as e:
        ...     print(e.operator, e.module_path)
    """

    kind, exit_code, file, node = "model", 2, None, None
    operator = None
    module_path = None


class InputExampleError(UsageError):
    """input_example does not fit the module (a wrong shape, a dtype the weights do not have).
    The message is one sentence naming the module that raised and the example's shapes and
    dtypes; `module_path` is that module ("" the root). Also a ValueError.

    Example:
        >>> ModelAdvisor(resnet, torch.randn(1, 4, 224, 224)).analyze()
        InputExampleError: input_example ([1, 4, 224, 224] float32) does not run through ResNet: conv1 (Conv2d) raised RuntimeError: ...
    """

    kind, exit_code, file, node = "usage", 1, None, None
    module_path = None
