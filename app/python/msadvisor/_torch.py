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


@contextlib.contextmanager
def inference_state(module):
    """`module` in eval mode for the block; every submodule's train/eval flag restored after."""
    states = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        yield module
    finally:
        for m, training in states:
            m.training = training


# PyTorch's fused inference kernels with no ONNX form, by the module that takes them. torch 1.13
# takes them in eval mode when autograd is off or no weight requires grad (the checks in
# TransformerEncoderLayer.forward and MultiheadAttention.forward; TransformerEncoder's nested-
# tensor path has the same guard); torch >= 2.1 also has a global switch, torch.backends.mha.
_FAST_PATHS = (("TransformerEncoderLayer", "aten::_transformer_encoder_layer_fwd"),
               ("MultiheadAttention", "aten::_native_multi_head_attention"),
               ("TransformerEncoder", "aten::_nested_tensor_from_mask"))


@contextlib.contextmanager
def fast_paths_off(module):
    """Keeps `module` off PyTorch's fused inference paths while tracing. Autograd stays on and
    every weight of a module that has such a path requires grad for the block (frozen weights
    are switched back after), which is what each fast path checks; torch.backends.mha's switch
    is turned off where it exists. Yields what was disabled: one dict per module (`module`,
    `type`, `operator`), plus the global switch."""
    torch = torch_module()
    kinds = dict(_FAST_PATHS)
    disabled, frozen = [], []
    for path, m in module.named_modules():
        kind = type(m).__name__
        if kind not in kinds or not isinstance(m, getattr(torch.nn, kind, ())):
            continue
        disabled.append({"module": path, "type": kind, "operator": kinds[kind]})
        for p in m.parameters(recurse=False):
            if not p.requires_grad and p.is_floating_point():
                frozen.append(p)
    mha = getattr(torch.backends, "mha", None)
    switch = getattr(mha, "set_fastpath_enabled", None) if mha is not None else None
    was = mha.get_fastpath_enabled() if switch is not None else None
    for p in frozen:
        p.requires_grad_(True)
    try:
        if switch is not None:
            switch(False)
            disabled.append({"module": None, "type": "torch.backends.mha", "operator": "set_fastpath_enabled(False)"})
        with torch.enable_grad():
            yield disabled
    finally:
        if switch is not None:
            switch(was)
        for p in frozen:
            p.requires_grad_(False)


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return text[0].rstrip(". ") if text else type(exc).__name__


def _shape_text(t):
    return "[{}] {}".format(", ".join(str(int(d)) for d in t.shape), str(t.dtype).replace("torch.", ""))


def example_text(inputs):
    return ", ".join(_shape_text(t) for t in inputs)


def check_dtypes(module, inputs):
    """The one sentence of an input_example whose floating dtype differs from the module's
    weights (None when they agree). Checked before the export: it costs nothing."""
    weights = {}
    for name, p in module.named_parameters():
        if p.is_floating_point():
            weights.setdefault(p.dtype, name)
    if len(weights) != 1:
        return None
    (dtype, first), = weights.items()
    for i, t in enumerate(inputs):
        if t.is_floating_point() and t.dtype != dtype:
            return ("input_example[{}] is {} but {}'s weights are {} ({}): pass input_example.to({}) or "
                    "analyse model.to({})".format(i, str(t.dtype).replace("torch.", ""), type(module).__name__,
                                                  str(dtype).replace("torch.", ""), first, dtype, t.dtype))
    return None


def run_located(module, inputs):
    """Runs the module once on the example (eval mode, autograd off) with a forward hook on
    every submodule. Returns None when it runs, else (module path, module type,
    exception) of the innermost module that was running when it raised ("" the root)."""
    torch = torch_module()
    paths = {id(m): p for p, m in module.named_modules()}
    stack, handles = [], []

    def pre(m, args):
        stack.append(m)

    def post(m, args, out):
        if stack and stack[-1] is m:
            stack.pop()

    for m in module.modules():
        handles.append(m.register_forward_pre_hook(pre))
        handles.append(m.register_forward_hook(post))
    try:
        with inference_state(module), torch.no_grad():
            module(*inputs)
        return None
    except Exception as e:  # noqa: BLE001 - any failure of the user's forward is reported as one sentence
        where = stack[-1] if stack else module
        return paths.get(id(where), ""), type(where).__name__, e
    finally:
        for h in handles:
            h.remove()


def forward_failure(module, inputs, located):
    path, kind, exc = located
    where = "{} ({})".format(path, kind) if path else type(module).__name__
    hint = ""
    if re.search(r"not implemented for '(Half|BFloat16)'", str(exc)):
        hint = " (PyTorch has no such kernel on the CPU: analyse model.float() with a float32 input_example)"
    return "input_example ({}) does not run through {}: {} raised {}: {}{}".format(
        example_text(inputs), type(module).__name__, where, type(exc).__name__, _first_line(exc), hint)


_OPERATOR = re.compile(r"operator '?([A-Za-z_][\w.]*::[\w.]+)'?")


def _operator_module(module, inputs, operator):
    """The module path that calls `operator` in a trace of the module ("" the root; None when
    the trace does not show it)."""
    torch = torch_module()
    try:
        with inference_state(module), fast_paths_off(module), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(module, tuple(inputs), check_trace=False, strict=False)
        for node in traced.inlined_graph.nodes():
            if node.kind() == operator:
                scope = node.scopeName().split("/")[-1]
                return scope[len("__module."):] if scope.startswith("__module.") else ""
    except Exception:  # noqa: BLE001 - the sentence is written without the module then
        return None
    return None


def export_failure(module, inputs, exc, opset):
    """One sentence for a module torch.onnx.export cannot export: the operator and the module
    path that calls it, where the exporter's message and a trace tell them."""
    m = _OPERATOR.search(str(exc))
    if m:
        op = m.group(1)
        path = _operator_module(module, inputs, op)
        where = " (called in {})".format(path or "the root module's forward") if path is not None else ""
        return ("torch.onnx.export cannot export {}: operator {}{} has no ONNX form at opset {}".format(
            type(module).__name__, op, where, opset), op, path)
    return "torch.onnx.export cannot export {}: {}".format(type(module).__name__, _first_line(exc)), None, None


def export(module, inputs, path, opset=EXPORT_OPSET):
    """Exports `module` for inference: every module in eval mode, BatchNorm kept as its own node
    (the exporter's eval-mode Conv+BatchNorm folding is off: the advisor reports it, ModelOptimizer
    does it), PyTorch's fused inference paths off (fast_paths_off). The module's train/eval state
    and its weights' requires_grad are restored afterwards. Returns (input names, what was disabled).
    Raises ExportFailed with one sentence when the example does not run or the exporter refuses."""
    torch = torch_module()
    names = input_names(module, len(inputs))
    with inference_state(module):
        try:
            with _keep_initializers(torch), warnings.catch_warnings(), fast_paths_off(module) as disabled:
                # PRESERVE keeps BatchNorm (every module is in eval mode, so it is exported for
                # inference); the exporter then advises against constant folding for training graphs.
                warnings.filterwarnings("ignore", message="It is recommended that constant folding be turned off")
                torch.onnx.export(module, inputs, path, opset_version=opset, training=torch.onnx.TrainingMode.PRESERVE,
                                  do_constant_folding=True, input_names=names)
        except Exception as e:  # noqa: BLE001 - turned into one sentence below
            failure = e
        else:
            return names, disabled
    located = run_located(module, inputs)
    if located is not None:
        raise ExportFailed("input", forward_failure(module, inputs, located), None, located[0]) from None
    sentence, op, where = export_failure(module, inputs, failure, opset)
    raise ExportFailed("export", sentence, op, where) from None


class ExportFailed(Exception):
    """Internal: why a module did not export (advisors.load raises the public error)."""

    def __init__(self, kind, sentence, operator, module_path):
        super().__init__(sentence)
        self.kind, self.sentence, self.operator, self.module_path = kind, sentence, operator, module_path


def time_calls(modules, inputs, runs, warmup=0):
    """Times each module in turn on the example — eval mode, autograd as the caller has it,
    torch's own thread count: `warmup` untimed calls, then `runs` timed ones. Returns, per module,
    the call times (ms)."""
    import time
    samples = [[] for _ in modules]
    with contextlib.ExitStack() as stack:
        for m in modules:
            stack.enter_context(inference_state(m))
        for i, m in enumerate(modules):
            for _ in range(warmup):
                m(*inputs)
            for _ in range(runs):
                t0 = time.perf_counter()
                m(*inputs)
                samples[i].append((time.perf_counter() - t0) * 1000.0)
    return samples


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return 0.0
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def percentile(values, q):
    """Linear interpolation between closest ranks (as the core's Stats)."""
    v = sorted(values)
    if not v:
        return 0.0
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


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
