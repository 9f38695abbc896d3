"""PyTorch models as the core sees them: exported with torch.onnx.export to a temporary ONNX file,
and the exporter's node names mapped back to module paths.

torch.onnx.export (1.13 and later) names every node after the module scopes it was traced in:
`/layer1/layer1.0/conv1/Conv` is the Conv of module `layer1.0.conv1`. A scope component is the
attribute name (`conv1`), or the qualified name for members of containers (`layer1.0`,
`backbone.0.0`), or the member's own name when the container itself was never called (a ModuleDict
entry `head.p3` is `/p3`); a module called again gets `_1`, `_2`… (`/relu_1/Relu`). ModuleNames
resolves each component against the module tree, so a finding names `layer1.0.conv1`.
"""
import contextlib
import inspect
import re
import sys
import warnings

# The newest opset torch 1.13 exports that libonnx 1.12's shape inference knows.
EXPORT_OPSET = 17


def torch_module():
    """The torch package if it is already imported (msadvisor never imports it on its own)."""
    return sys.modules.get("torch")


def is_module(obj):
    torch = torch_module()
    return torch is not None and isinstance(obj, torch.nn.Module)


def is_tensor(obj):
    torch = torch_module()
    return torch is not None and isinstance(obj, torch.Tensor)


def as_input_tuple(input_example):
    """`input_example` as the tuple torch.onnx.export takes: a tensor or a tuple/list of tensors."""
    if input_example is None:
        raise ValueError("a torch.nn.Module needs input_example: a tensor or a tuple of tensors")
    items = tuple(input_example) if isinstance(input_example, (tuple, list)) else (input_example,)
    for i, t in enumerate(items):
        if not is_tensor(t):
            raise TypeError("input_example[{}] is a {}, not a torch.Tensor".format(i, type(t).__name__))
    return items


def input_names(module, count):
    """The forward()'s parameter names (what the user calls the inputs), else input_0, input_1…"""
    try:
        params = [p for p in inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params[:count]]
    if len(names) < count or len(set(names)) < count:
        names = ["input"] if count == 1 else ["input_{}".format(i) for i in range(count)]
    return names


@contextlib.contextmanager
def _keep_initializers(torch):
    """In eval mode the exporter merges initializers of equal value (an untrained network's
    BatchNorm weights are all ones) and reads them through Identity nodes, which hides every
    Conv+BatchNorm pair from the fusion rules. The analysis wants the graph as written."""
    name = "_jit_pass_onnx_deduplicate_initializers"
    original = getattr(torch._C, name, None)
    if original is None:
        yield
        return
    setattr(torch._C, name, lambda graph, params, is_train: params)
    try:
        yield
    finally:
        setattr(torch._C, name, original)


def export(module, inputs, path, opset=EXPORT_OPSET):
    """Exports `module` in inference mode with BatchNorm kept as its own node (the exporter's
    eval-mode Conv+BatchNorm folding is off: the advisor reports it, ModelOptimizer does it).
    The module's train/eval state is restored afterwards."""
    torch = torch_module()
    states = [(m, m.training) for m in module.modules()]
    names = input_names(module, len(inputs))
    module.eval()
    try:
        with _keep_initializers(torch), warnings.catch_warnings(), torch.no_grad():
            # PRESERVE keeps BatchNorm (every module is in eval mode, so it is exported for
            # inference); the exporter then advises against constant folding for training graphs.
            warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
            torch.onnx.export(module, inputs, path, opset_version=opset, training=torch.onnx.TrainingMode.PRESERVE,
                              do_constant_folding=True, input_names=names)
    finally:
        for m, training in states:
            m.training = training
    return names


class ModuleNames:
    """ONNX node names of an export -> module paths of the exported module."""

    _SUFFIX = re.compile(r"^(.*)_(\d+)$")

    def __init__(self, module):
        self.root_type = type(module).__name__
        self._paths = {name: type(m).__name__ for name, m in module.named_modules()}
        self._cache = {}

    def module_type(self, path):
        return self._paths.get(path)

    def __contains__(self, path):
        return path in self._paths

    def _resolve(self, current, component):
        prefix = current + "." if current else ""
        candidates = [component]
        m = self._SUFFIX.match(component)
        if m:
            candidates.append(m.group(1))
        for c in candidates:
            if prefix + c in self._paths:
                return prefix + c
            if c in self._paths and c.startswith(prefix) and c != current:
                return c
            below = [p for p in self._paths if p.startswith(prefix) and p.endswith("." + c)]
            if below:
                shortest = min(len(p) for p in below)
                best = [p for p in below if len(p) == shortest]
                if len(best) == 1:
                    return best[0]
        return None

    def module_of(self, node_name):
        """The module path a node was exported from ("" for the root module's own code), or None
        when the name does not come from the exporter's scopes."""
        if node_name in self._cache:
            return self._cache[node_name]
        path = None
        if node_name and node_name.startswith("/"):
            path = ""
            for component in node_name.split("/")[1:-1]:
                nxt = self._resolve(path, component)
                if nxt is None:
                    break
                path = nxt
        self._cache[node_name] = path
        return path


def file_name_for(module):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", type(module).__name__) + ".onnx"
