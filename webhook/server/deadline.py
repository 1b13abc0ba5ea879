"""Cut off the judging of one request when its `?timeout=` budget runs out (docs/design.md §2 step 6).

`judge` is pure, CPU-bound Python that runs inline on the event loop (about a millisecond for a typical
review). To bound it without moving it off the loop, `Deadline.limit(seconds)` arms a one-shot interval
timer (`setitimer(ITIMER_REAL)`); if the timer fires while the limited block still runs, the SIGALRM
handler raises `DeadlineExceeded` in it. The handler raises only while a block is armed, so a signal that
arrives just after the block ended is ignored.

Why a timer and not a worker thread with `asyncio.wait_for`: a thread only stops *waiting* for the work,
which goes on using the CPU (and the GIL) after the answer was sent, while the timer really stops it. And
the timer costs two system calls per request, while the thread hop cost about 13 % of one worker's
requests per second for a small CloudProfile review in our measurement (README "Running the server").
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
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

logger = logging.getLogger(__name__)


class DeadlineExceeded(BaseException):  # no "Error" suffix: named for what happened, as asyncio.CancelledError
    """The limited block ran out of time (raised inside it by the SIGALRM handler)."""


class Deadline:
    """A per-process cut-off for blocks of synchronous work on the main thread (one block at a time)."""

    def __init__(self) -> None:
        self.enabled = False
        self._armed = False
        self._previous: Any = None

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
        signal.signal(signal.SIGALRM, self._previous)
        self.enabled = False

    def _on_alarm(self, signum: int, frame: FrameType | None) -> None:
        if self._armed:
            self._armed = False
            raise DeadlineExceeded

    @contextmanager
    def limit(self, seconds: float) -> Iterator[None]:
        """Run the block with at most `seconds` of wall-clock time; raises DeadlineExceeded past it."""
        if not self.enabled:
            yield
            return
        if seconds <= 0:
            raise DeadlineExceeded
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
