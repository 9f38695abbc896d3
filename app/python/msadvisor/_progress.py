"""Progress of long core calls: a callback(phase, fraction), by default a text bar on stderr when
stderr is a terminal (nothing otherwise)."""
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


@contextlib.contextmanager
def reporter(progress):
    """The callback for a core call: `progress` is None (the default bar in a terminal), False
    (silent) or a callable(phase: str, fraction: float)."""
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
    if not callable(progress):
        raise TypeError("progress must be None, False or a callable(phase, fraction)")
    yield progress
