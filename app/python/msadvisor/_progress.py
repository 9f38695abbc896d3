"""Progress of long calls: a callback(phase, fraction), by default a text bar on stderr when
stderr is a terminal (nothing otherwise).

A call made of several stages (a module's export, the core's analysis, the PyTorch timing) goes
through one `Phases` object: each stage owns a slice of the bar, the core's own fractions are
mapped into its slice, and the fraction shown never goes backwards (the core restarts its
fraction in some sub-stages)."""
import contextlib
import sys


class TextBar:
    """One line on a stream, redrawn in place: `[##########..........]  50 %  profiling`."""

    def __init__(self, stream=None, width=30):
        self.stream = stream or sys.stderr
        self.width = width
        self._shown = False
        self._last = None

    def __call__(self, phase, fraction):
        fraction = min(max(float(fraction), 0.0), 1.0)
        filled = int(round(fraction * self.width))
        line = "[{}{}] {:3d} %  {}".format("#" * filled, "." * (self.width - filled), int(fraction * 100), phase)
        if line == self._last:
            return
        self._last = line
        self.stream.write("\r" + line[:100].ljust(100))
        self.stream.flush()
        self._shown = True

    def close(self):
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def check(progress):
    """Raises TypeError unless `progress` is None, True, False or a callable (checked before any
    slow work)."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return
    raise TypeError("progress is None (a bar in a terminal), False (silent) or a callable(phase, fraction), "
                    "not {}".format(type(progress).__name__))


@contextlib.contextmanager
def reporter(progress):
    """The callback for a call: `progress` is None (the default bar in a terminal), False
    (silent), True (a bar even off a terminal) or a callable(phase: str, fraction: float)."""
    check(progress)
    if progress is False:
        yield None
        return
    if progress is None or progress is True:
        if progress is None and not _is_terminal(sys.stderr):
            yield None
            return
        bar = TextBar()
        try:
            yield bar
        finally:
            bar.close()
        return
    yield progress


class Phases:
    """Named stages of one call on one monotonic bar.

        with Phases(progress, [("export", 1), ("analysis", 8), ("PyTorch timing", 1)]) as p:
            p.start("export")                     # 0 % export
            core_call(progress=p.callback("analysis"))   # 10 %..90 %, "analysis: profiling"
            p.report("PyTorch timing", 0.5)      # 95 %

    Weights set each stage's share of the bar; a stage may be skipped. Every fraction handed on is
    at least the previous one."""

    def __init__(self, progress, stages):
        self._progress = progress
        self._stages = [name for name, _ in stages]
        total = float(sum(w for _, w in stages)) or 1.0
        self._span = {}
        lo = 0.0
        for name, w in stages:
            self._span[name] = (lo, lo + w / total)
            lo += w / total
        self._cm = None
        self._cb = None
        self._last = 0.0

    def __enter__(self):
        self._cm = reporter(self._progress)
        self._cb = self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)

    @property
    def active(self):
        return self._cb is not None

    def report(self, stage, fraction, detail=None):
        if self._cb is None:
            return
        lo, hi = self._span[stage]
        f = max(self._last, lo + (hi - lo) * min(max(float(fraction), 0.0), 1.0))
        self._last = f
        self._cb(stage + (": " + detail if detail and detail != stage else ""), f)

    def start(self, stage):
        self.report(stage, 0.0)

    def done(self, stage):
        self.report(stage, 1.0)

    def callback(self, stage):
        """A callback(phase, fraction) for a core call running as `stage` (None when silent)."""
        if self._cb is None:
            return None
        return lambda phase, fraction: self.report(stage, fraction, phase)
