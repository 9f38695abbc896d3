"""patch_pytorch(): profile an ordinary PyTorch training loop without changing it.

    from msadvisor.integration import patch_pytorch
    with patch_pytorch():                    # or patch_pytorch() alone, before the loop
        for x, y in loader:                  # the loop as it was
            loss = loss_fn(model(x), y)
            loss.backward(); optimizer.step(); optimizer.zero_grad()
    TrainingAdvisor(model).analyze().print_training_suggestions()

What it does:
- starts torch.profiler (torch_npu.profiler when torch_npu is importable) with a schedule that
  skips warm-up steps (`wait`, `warmup`) and records `active` steps, shapes and memory on;
- advances the profiler after every optimizer step (a step hook on torch.optim.Optimizer), so a
  step is what the loop calls one;
- wraps every module's forward in a record_function range named `nn.Module: <path>` (global
  module hooks), so the trace says which layer each operator ran in;
- counts, per module, the bytes autograd saves for the backward pass (a saved-tensor hook) and
  the bytes of its output, over the active steps: what gradient checkpointing would free;
- records the memory the loop reached: on a CUDA or NPU device its allocator's peak and the
  device's capacity, on the CPU the process's peak resident memory and the machine's physical
  memory (TrainingAdvisor proposes gradient checkpointing only when memory is short);
- when the active steps are done, writes a Kineto (Chrome) trace into `output_dir` — on a torch
  built without Kineto (Debian's python3-torch) msadvisor writes the same format from the
  profiler's events — with the memory counts in its "msadvisor" block, and removes every hook.
- is undone however the loop ends: `with patch_pytorch():` stops it at the end of the block,
  exception or not, and Ctrl-C (SIGINT in the main thread) stops it before the
  KeyboardInterrupt propagates, with or without `with`.

On an NPU the documented torch_npu.profiler API is used instead (profile, schedule,
tensorboard_trace_handler; ProfilerActivity.CPU and NPU; record_shapes, profile_memory): it
writes its *_ascend_pt folder, which the core reads as it is. That path cannot run on a machine
without torch_npu and an Ascend device; docs/python.md says what was and was not run.
"""
import json
import os
import signal
import tempfile
import threading
import weakref

_lock = threading.Lock()
_session = None  # the active ProfilingSession
_last = None     # the last one that finished
_finished = []   # the sessions that finished, oldest first (the last few)
_KEEP = 16

# Step statistics (the median step, its p90, a regression against another run) need this many
# recorded steps; patch_pytorch records as many by default, and a report from fewer says so.
STEPS_NEEDED = 10

MODULE_RANGE_PREFIX = "nn.Module: "


def active_session():
    return _session


def last_session():
    return _last


def session_for(model):
    """The session that recorded `model`'s training steps: the active one if it has seen the model
    run, else the latest finished one that has (None when none has). A session started with
    modules=False records no module tree: it is taken as it is."""
    candidates = ([_session] if _session is not None else []) + list(reversed(_finished))
    for s in candidates:
        if s.has_seen(model):
            return s
    return None


def _torch():
    import torch
    return torch


def _npu_profiler():
    try:
        import torch_npu  # noqa: F401  (registers the NPU backend)
        import torch_npu.profiler as npu_profiler
    except ImportError:
        return None
    torch = _torch()
    if not hasattr(torch, "npu") or not torch.npu.is_available():
        return None
    return npu_profiler


def _storage_key_and_bytes(t):
    try:
        s = t.untyped_storage()
        return s.data_ptr(), s.nbytes()
    except (AttributeError, RuntimeError, NotImplementedError):
        pass
    try:
        s = t.storage()
        return s.data_ptr(), s.nbytes()
    except (AttributeError, RuntimeError, NotImplementedError):
        return id(t), t.numel() * t.element_size()


def _tensor_bytes(obj, seen):
    torch = _torch()
    if isinstance(obj, torch.Tensor):
        key, n = _storage_key_and_bytes(obj)
        if key in seen:
            return 0
        seen.add(key)
        return n
    if isinstance(obj, (list, tuple)):
        return sum(_tensor_bytes(o, seen) for o in obj)
    if isinstance(obj, dict):
        return sum(_tensor_bytes(o, seen) for o in obj.values())
    return 0


class _ModuleTracker:
    """Global module hooks (a named range per forward) and the saved-tensor accounting."""

    def __init__(self, session):
        self.session = session
        self.names = {}      # id(module) -> path
        self.roots = []      # strong references: the ids above stay valid
        self.parameters = set()  # storage keys of the roots' parameters: never activations
        self.local = threading.local()
        self.handles = []
        self.saved_hooks = None
        self.step = None     # per-step accounting while recording, else None

    def install(self):
        torch = _torch()
        from torch.nn.modules import module as nn_module
        self.handles = [nn_module.register_module_forward_pre_hook(self._pre),
                        nn_module.register_module_forward_hook(self._post)]
        self.saved_hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
        self.saved_hooks.__enter__()

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []
        if self.saved_hooks is not None:
            self.saved_hooks.__exit__(None, None, None)
            self.saved_hooks = None
        self._close_ranges()
        self.roots = []

    def _stack(self):
        s = getattr(self.local, "stack", None)
        if s is None:
            s = self.local.stack = []
        return s

    def _path(self, module):
        path = self.names.get(id(module))
        if path is not None:
            return path
        # Called outside every known tree: a root. Its children are named relative to it.
        self.roots.append(module)
        for name, sub in module.named_modules():
            self.names.setdefault(id(sub), name)
            self.session.seen.add(sub)
        for p in module.parameters():
            self.parameters.add(_storage_key_and_bytes(p)[0])
        self.names[id(module)] = type(module).__name__
        return self.names[id(module)]

    def _pre(self, module, inputs):
        torch = _torch()
        path = self._path(module)
        rf = torch.autograd.profiler.record_function(MODULE_RANGE_PREFIX + path)
        rf.__enter__()
        self._stack().append((module, path, rf))
        if self.step is not None:
            self.step.setdefault(path, [0, 0, 0, type(module).__name__])[2] += 1

    def _post(self, module, inputs, output):
        stack = self._stack()
        while stack:
            m, path, rf = stack.pop()
            rf.__exit__(None, None, None)
            if m is module:
                if self.step is not None:
                    self.step[path][1] += _tensor_bytes(output, set())
                break

    def _close_ranges(self):
        stack = self._stack()
        while stack:
            stack.pop()[2].__exit__(None, None, None)

    def _pack(self, t):
        step = self.step
        stack = self._stack()
        if step is not None and stack and not (t.is_leaf and t.requires_grad):
            key, n = _storage_key_and_bytes(t)
            seen = step.setdefault(None, set())
            if key not in seen and key not in self.parameters:  # a weight (or a view of one, w.t())
                seen.add(key)
                path = stack[-1][1]
                step.setdefault(path, [0, 0, 0, type(stack[-1][0]).__name__])[0] += n
        return t

    @staticmethod
    def _unpack(t):
        return t


def _patch_optimizers(session):
    """Calls session.after_step() after every optimizer step; returns the undo."""
    torch = _torch()
    register = getattr(getattr(torch.optim, "optimizer", None), "register_optimizer_step_post_hook", None)
    if register is not None:  # torch >= 2.0
        handle = register(lambda opt, args, kwargs: session.after_step(opt))
        return handle.remove
    # torch 1.13: every Optimizer.step runs inside torch's own profiling wrapper, which calls
    # _optimizer_step_code() once the step is done (the hook torch.profiler itself uses).
    original = torch.optim.Optimizer._optimizer_step_code

    def step_code(self):
        original(self)
        session.after_step(self)

    torch.optim.Optimizer._optimizer_step_code = step_code

    def unpatch():
        if torch.optim.Optimizer._optimizer_step_code is step_code:
            torch.optim.Optimizer._optimizer_step_code = original
    return unpatch


class ProfilingSession:
    """The profiler patch_pytorch() started: `trace_path` (set once the trace is written),
    `steps_done`, `steps_recorded`, `finished`, `memory` (memory_reached() at the stop), `backend`
    ("torch" or "torch_npu"). A context manager: leaving the block stops it.

    Example:
        >>> with patch_pytorch() as session:
        ...     train(model)
        >>> session.trace_path
    """

    def __init__(self, output_dir, wait, warmup, active, record_shapes, profile_memory, with_stack, modules):
        self.output_dir = output_dir
        self.wait, self.warmup, self.active = wait, warmup, active
        self.steps_done = 0
        self.trace_path = None
        self.finished = False
        self._clock = None  # the optimizer whose steps are the training steps
        self._memory_steps = []
        self.seen = weakref.WeakSet()  # every module run inside the loop (the model and its submodules)
        self.memory = None             # the memory the loop reached (memory_reached()), set when it stops
        self._tracker = _ModuleTracker(self) if modules else None
        self._unpatch = None
        self._previous_sigint = None
        torch = _torch()
        npu = _npu_profiler()
        self.backend = "torch_npu" if npu else "torch"
        if npu is not None:
            self._profiler = npu.profile(
                activities=[npu.ProfilerActivity.CPU, npu.ProfilerActivity.NPU],
                schedule=npu.schedule(wait=wait, warmup=warmup, active=active, repeat=1),
                on_trace_ready=npu.tensorboard_trace_handler(output_dir),
                record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack)
        else:
            activities = [torch.profiler.ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(torch.profiler.ProfilerActivity.CUDA)
            self._profiler = torch.profiler.profile(
                activities=activities,
                schedule=torch.profiler.schedule(wait=wait, warmup=warmup, active=active, repeat=1),
                on_trace_ready=self._write_trace, record_shapes=record_shapes, profile_memory=profile_memory,
                with_stack=with_stack)

    # -- lifecycle
    def start(self):
        self._unpatch = _patch_optimizers(self)
        if self._tracker is not None:
            self._tracker.install()
        _reset_device_peak()
        self._profiler.start()
        self._install_sigint()
        self._begin_step()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def has_seen(self, model):
        if self._tracker is None:
            return True
        try:
            return model in self.seen
        except TypeError:
            return False

    @property
    def steps_recorded(self):
        """Training steps recorded so far (at most `active`)."""
        return max(0, min(self.active, self.steps_done - self.wait - self.warmup))

    def _install_sigint(self):
        """Ctrl-C in the loop stops the session (hooks removed, trace of the steps so far written)
        before the KeyboardInterrupt goes on. Only the main thread may set a signal handler."""
        if threading.current_thread() is not threading.main_thread():
            return
        previous = signal.getsignal(signal.SIGINT)

        def on_sigint(signum, frame):
            self.stop()
            if callable(previous):
                return previous(signum, frame)
            raise KeyboardInterrupt

        try:
            signal.signal(signal.SIGINT, on_sigint)
        except (ValueError, OSError):
            return
        self._previous_sigint = (previous, on_sigint)

    def _remove_sigint(self):
        if self._previous_sigint is None:
            return
        previous, ours = self._previous_sigint
        self._previous_sigint = None
        if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is ours:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)

    def _recording(self):
        first = self.wait + self.warmup
        return first <= self.steps_done < first + self.active

    def _begin_step(self):
        if self._tracker is not None:
            self._tracker.step = {} if self._recording() else None

    def _end_step(self):
        if self._tracker is not None and self._tracker.step is not None:
            step = self._tracker.step
            step.pop(None, None)
            self._memory_steps.append(step)
            self._tracker.step = None

    def after_step(self, optimizer):
        if self.finished:
            return
        if self._clock is None:
            self._clock = optimizer
        elif optimizer is not self._clock:
            return  # a second optimizer in the same step (GANs): the first one counts the steps
        self._end_step()
        self._profiler.step()
        self.steps_done += 1
        if self.steps_done >= self.wait + self.warmup + self.active:
            self.stop()
        else:
            self._begin_step()

    def stop(self):
        """Stops profiling (writing the trace of the steps recorded so far) and removes every hook.
        Returns the trace's path (None when no step was recorded)."""
        global _session, _last
        if self.finished:
            return self.trace_path
        self.finished = True
        self._end_step()
        if self.memory is None:
            self.memory = memory_reached()
        try:
            self._profiler.stop()
        finally:
            self._remove_sigint()
            if self._tracker is not None:
                self._tracker.remove()
            if self._unpatch is not None:
                self._unpatch()
            with _lock:
                if _session is self:
                    _session = None
                _last = self
                _finished.append(self)
                del _finished[:-_KEEP]
        if self.backend == "torch_npu":
            self.trace_path = _newest_ascend_folder(self.output_dir)
        return self.trace_path

    # -- the trace
    def memory_block(self):
        """Per module, per recorded step: saved-for-backward bytes, output bytes, calls; and the
        memory the loop reached."""
        if self.memory is None:
            self.memory = memory_reached()
        steps = len(self._memory_steps)
        totals = {}
        for step in self._memory_steps:
            for path, (saved, out, calls, kind) in step.items():
                t = totals.setdefault(path, [0, 0, 0, kind])
                t[0] += saved
                t[1] += out
                t[2] += calls
        modules = [{"path": p, "type": k, "saved_bytes": s / steps, "output_bytes": o / steps, "calls": c / steps}
                   for p, (s, o, c, k) in sorted(totals.items())] if steps else []
        return {"writer": "msadvisor.integration.patch_pytorch", "steps": steps, "memory_reached": self.memory,
                "saved_bytes": "bytes autograd saved for backward per step, by the innermost module running "
                               "(each storage counted once; parameters excluded)",
                "modules": modules}

    def _write_trace(self, prof):
        torch = _torch()
        os.makedirs(self.output_dir, exist_ok=True)
        path = os.path.join(self.output_dir, "msadvisor_{}_{}.pt.trace.json".format(os.getpid(), prof.step_num))
        kineto = getattr(torch.autograd, "kineto_available", lambda: False)()
        if kineto:
            prof.export_chrome_trace(path)
            with open(path) as f:
                doc = json.load(f)
            if isinstance(doc, list):
                doc = {"traceEvents": doc}
        else:
            doc = {"schemaVersion": 1, "traceEvents": _kineto_events(prof.events())}
        # The schedule writes the trace once its `active` steps are done; stop() writes the steps
        # done so far, and the profiler has then opened one more step range that holds only the
        # rest of the loop after the last optimizer step: not a step.
        _keep_steps(doc["traceEvents"], self.steps_recorded if self.finished else self.active)
        doc["msadvisor"] = self.memory_block()
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, path)
        self.trace_path = path


def _accelerator():
    """("cuda" | "npu", module) when the loop can run on such a device, else (None, None)."""
    torch = _torch()
    npu = getattr(torch, "npu", None)
    try:
        if npu is not None and npu.is_available():
            return "npu", npu
    except Exception:  # noqa: BLE001 - a half-installed torch_npu is no accelerator
        pass
    if torch.cuda.is_available():
        return "cuda", torch.cuda
    return None, None


def _reset_device_peak():
    kind, dev = _accelerator()
    if dev is not None:
        dev.reset_peak_memory_stats()


def memory_reached():
    """The memory the loop reached against what the device has: {"device", "peak_bytes",
    "capacity_bytes", "peak_source", "capacity_source"}. On CUDA/NPU the caching allocator's peak
    since the session started and the device's total memory; on the CPU the process's peak
    resident memory and the machine's physical memory."""
    kind, dev = _accelerator()
    if dev is not None:
        index = dev.current_device()
        return {"device": "{}:{}".format(kind, index), "peak_bytes": float(dev.max_memory_allocated(index)),
                "capacity_bytes": float(dev.get_device_properties(index).total_memory),
                "peak_source": "torch.{}.max_memory_allocated".format(kind),
                "capacity_source": "torch.{}.get_device_properties().total_memory".format(kind)}
    import resource
    peak = float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024.0  # KiB on Linux
    try:
        capacity = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        capacity = 0.0
    return {"device": "cpu", "peak_bytes": peak, "capacity_bytes": capacity,
            "peak_source": "the process's peak resident memory", "capacity_source": "the machine's physical memory"}


def _keep_steps(events, count):
    """Keeps the first `count` ProfilerStep ranges (by start time), numbered in order: a stopped
    session's trailing partial step goes, and torch 1.13's legacy profiler, which names the first
    two ranges of a schedule without warm-up both "ProfilerStep#0", gets distinct names."""
    steps = sorted((e for e in events if str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"])
    if not steps:
        return
    numbers = [int(n) for n in (e["name"].split("#", 1)[1] for e in steps) if n.isdigit()]
    first = min(numbers) if numbers else 0
    drop = set(map(id, steps[count:]))
    events[:] = [e for e in events if id(e) not in drop]
    for i, e in enumerate(steps[:count]):
        e["name"] = "ProfilerStep#{}".format(first + i)


def _annotation(name):
    return (name.startswith(MODULE_RANGE_PREFIX) or name.startswith("ProfilerStep") or name.startswith("Optimizer.")
            or name.startswith("enumerate(DataLoader)") or "#" in name)


def _kineto_events(events):
    """The legacy profiler's events in Kineto's Chrome-trace form (host operators only: this torch
    has no device tracing): cpu_op / user_annotation, Input Dims from record_shapes."""
    out = []
    pid = os.getpid()
    for e in events:
        name = getattr(e, "trace_name", None) or e.name
        start = e.time_range.start
        ev = {"ph": "X", "cat": "user_annotation" if _annotation(name) else "cpu_op", "name": name, "pid": pid,
              "tid": e.thread, "ts": start, "dur": e.time_range.end - start, "args": {"External id": e.id}}
        if e.input_shapes and not _annotation(name):
            ev["args"]["Input Dims"] = [list(s) if isinstance(s, (list, tuple)) else [] for s in e.input_shapes]
        out.append(ev)
    return out


def _newest_ascend_folder(root):
    try:
        folders = [os.path.join(root, d) for d in os.listdir(root) if d.endswith("_ascend_pt")]
    except OSError:
        return None
    return max(folders, key=os.path.getmtime) if folders else None


def patch_pytorch(output_dir=None, wait=1, warmup=1, active=STEPS_NEEDED, record_shapes=True, profile_memory=True,
                  with_stack=False, modules=True):
    """Profiles the training loop that follows (see the module's documentation).

    Args:
        output_dir: where the trace is written (default: a new temporary folder).
        wait, warmup: steps skipped before recording (not recorded).
        active: steps recorded (default 10: what the step statistics need; fewer give a report
            that says its step figures are a guess).
        record_shapes, profile_memory, with_stack: torch.profiler's options.
        modules: name each operator's module (global module hooks) and count the activations
            each module saves for backward.

    Returns:
        ProfilingSession: also a context manager (`with patch_pytorch(): ...` stops it at the end
        of the block, exception or not). Calling patch_pytorch() again while a session is active
        returns that session.

    Example:
        >>> with patch_pytorch():
        ...     for x, y in loader:
        ...         loss_fn(model(x), y).backward(); opt.step(); opt.zero_grad()
        >>> TrainingAdvisor(model).analyze().print_training_suggestions()
    """
    global _session
    for name, v in (("wait", wait), ("warmup", warmup)):
        if int(v) < 0:
            raise ValueError("{} must be >= 0".format(name))
    if int(active) < 1:
        raise ValueError("active must be >= 1: at least one step is recorded")
    with _lock:
        if _session is not None:
            return _session
        if output_dir is None:
            output_dir = tempfile.mkdtemp(prefix="msadvisor-trace-")
        session = ProfilingSession(os.fspath(output_dir), int(wait), int(warmup), int(active), record_shapes,
                                   profile_memory, with_stack, modules)
        _session = session
    try:
        session.start()
    except BaseException:
        with _lock:
            _session = None
        raise
    return session


def unpatch_pytorch():
    """Stops the active session, if any (its trace is written).

    Returns:
        str or None: the trace's path.

    Example:
        >>> unpatch_pytorch()
    """
    s = _session
    return s.stop() if s is not None else None
