"""Cut off the judging of one request when its `?timeout=` budget runs out (docs/design.md §2 step 6).

`judge` is pure, CPU-bound Python that runs inline on the event loop (about a millisecond for a typical
review). To bound it without moving it off the loop, `Deadline.limit(seconds)` arms a one-shot interval
timer (`setitimer(ITIMER_REAL)`); if the timer fires while the limited block still runs, the SIGALRM
handler raises `DeadlineExceeded` in it. The handler raises only while a block is armed, so a signal that
arrives just after the block ended is ignored.

One request costs one system call: its blocks (the parse, and the judgement after it) share one absolute deadline
(`Deadline.until`), so the timer armed for the first block still stands for the second, and a block that ends
leaves the timer running instead of cancelling it (a second call): an alarm that fires while no block is armed is
ignored, and the next request's block sets the timer anew. The alarm of the last request of a burst fires once,
late and unheeded.

Why a timer and not a worker thread with `asyncio.wait_for`: a thread only stops *waiting* for the work,
which goes on using the CPU (and the GIL) after the answer was sent, while the timer really stops it. And
the timer costs one system call per request, while the thread hop cost about 13 % of one worker's
requests per second for a small CloudProfile review in our measurement (docs/getting-started.md "Running the server").
Limits: signals reach only the main thread, so the cut-off works when the event loop runs there (it does in
`serve`; `install` reports False otherwise and requests are then not cut off, only logged as late); a
long call into C (parsing one huge JSON body in pydantic-core) is interrupted when it returns.
`DeadlineExceeded` derives from BaseException so that the one `except Exception` around validators
(admission.run_validator) does not turn it into a rule crash.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from types import FrameType
from typing import Any

logger = logging.getLogger(__name__)


class DeadlineExceeded(BaseException):  # no "Error" suffix: named for what happened, as asyncio.CancelledError
    """The limited block ran out of time (raised inside it by the SIGALRM handler)."""


class Deadline:
    """A per-process cut-off for blocks of synchronous work on the main thread (one block at a time).

    `with deadline.until(at):` runs a block until `at` (in `time.perf_counter()` seconds) at the latest;
    `with deadline.limit(seconds):` for at most `seconds` from now.
    """

    def __init__(self) -> None:
        self.enabled = False
        self._armed = False
        self._previous: Any = None
        self._until = 0.0  # of the block being entered: time.perf_counter() seconds
        self._alarm_at: float | None = None  # when the interval timer set last fires (None: fired or never set)

    def install(self) -> bool:
        """Install the SIGALRM handler; False (limits are then no-ops) when not on the main thread."""
        if threading.current_thread() is not threading.main_thread():
            logger.warning("request timeouts are not enforced: the event loop does not run on the main thread")
            return False
        self._previous = signal.signal(signal.SIGALRM, self._on_alarm)
        self.enabled = True
        return True

    def uninstall(self) -> None:
        """Disarm and restore the previous SIGALRM handler."""
        if not self.enabled:
            return
        signal.setitimer(signal.ITIMER_REAL, 0)
        self._alarm_at = None
        signal.signal(signal.SIGALRM, self._previous)
        self.enabled = False

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        self._alarm_at = None
        if self._armed:
            self._armed = False
            raise DeadlineExceeded

    def until(self, at: float) -> Deadline:
        """The context manager of a block that must end by `at` (time.perf_counter() seconds); raises
        DeadlineExceeded when the block is entered at or after `at`, or inside it when `at` passes."""
        self._until = at
        return self

    def limit(self, seconds: float) -> Deadline:
        """The context manager of a block that may take `seconds` of wall-clock time; raises DeadlineExceeded past
        it (at once when seconds <= 0)."""
        return self.until(time.perf_counter() + seconds)

    def __enter__(self) -> None:
        if not self.enabled:
            return
        at = self._until
        self._armed = True  # first: an alarm from here on raises, so the block can never run without its timer
        if self._alarm_at != at:
            seconds = at - time.perf_counter()
            if seconds <= 0:
                self._armed = False
                raise DeadlineExceeded
            signal.setitimer(signal.ITIMER_REAL, seconds)
            self._alarm_at = at

    def __exit__(self, *exc: object) -> None:
        self._armed = False  # the timer runs on: the request's next block may use it (module docstring)
