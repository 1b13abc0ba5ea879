"""A progress line on a terminal for long CLI runs: `gardener-webhook review: 120/1000 objects judged`.

The standard library's carriage return, not tqdm or rich: neither is a dependency of the package (both would be
new runtime pins in requirements.lock for one line of text), and the line needs three things, all here: show
nothing unless standard error is a terminal and the run has lasted a second, overwrite itself, and step aside
while results are printed to the same terminal.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Final, TextIO

DELAY_SECONDS: Final = 1.0  # runs shorter than this show no progress at all
REDRAW_SECONDS: Final = 0.1  # at most ten redraws a second: a redraw per object would cost more than a Shoot
_CLEAR: Final = "\r\x1b[K"  # back to the line's start, erase to its end (ECMA-48 EL, every terminal since the VT100)


class ProgressLine:
    """One self-overwriting line on `stream`, shown only when `stream` is a terminal and `delay_seconds` (default
    DELAY_SECONDS) have passed since the line was created (clock: seconds, monotonic). Never raises; writes nothing when not shown.

    `update(done, total)` redraws it (at most every REDRAW_SECONDS, and always at the last object); `clear()` erases
    it, before other output goes to the terminal and at the end (a later `update` draws it again).
    """

    def __init__(
        self,
        stream: TextIO,
        label: str,
        *,
        delay_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._label = label
        self._clock = clock
        self._show_from = clock() + (DELAY_SECONDS if delay_seconds is None else delay_seconds)
        self._enabled = _is_terminal(stream)
        self._shown = False
        self._drawn_at = float("-inf")

    def update(self, done: int, total: int) -> None:
        """Show `label: done/total objects judged` if it is time to."""
        if not self._enabled:
            return
        now = self._clock()
        if now < self._show_from:
            return
        if now - self._drawn_at < REDRAW_SECONDS and done != total:
            return  # also after a clear(): while results scroll by, the line comes back ten times a second at most
        self._write(f"{_CLEAR}{self._label}: {done}/{total} objects judged")
        self._shown, self._drawn_at = True, now

    def clear(self) -> None:
        """Erase the line if it is shown."""
        if self._shown:
            self._write(_CLEAR)
            self._shown = False

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # a closed terminal: progress is a courtesy, never a reason to fail
            self._enabled = False


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False
