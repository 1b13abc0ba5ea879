"""JSON log lines for the server: one object per record, on stderr.

Configured by `run_server` and by each `--workers` process (`workers.worker_main`) only, never at import, so tests
and the `review` command keep Python's defaults.
Each line holds `time` (RFC 3339, UTC, milliseconds), `level`, `logger`, `message`, every `extra=` field
of the record (uid, kind, object, operation, user, dryRun, decision, rules, duration_ms, …) and, when the
record carries an exception, `exception` with its traceback.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Final, TextIO

logger = logging.getLogger(__name__)

_STANDARD_ATTRIBUTES: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object; values that are not JSON types are written with str().

    fields: added to every line (a worker's index), before the record's own `extra=` fields.
    """

    def __init__(self, fields: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.fields = dict(fields or {})
        self._second = -1
        self._prefix = ""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "time": self._time(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **self.fields,
        }
        for key, value in vars(record).items():
            if key not in _STANDARD_ATTRIBUTES and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)

    def _time(self, created: float) -> str:
        """RFC 3339 in UTC with milliseconds; the part up to the second is formatted once per second."""
        second = int(created)
        if second != self._second:
            self._second = second
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return f"{self._prefix}.{int((created - second) * 1000):03d}Z"


@contextmanager
def json_logging(
    stream: TextIO | None = None, level: int = logging.INFO, fields: Mapping[str, Any] | None = None
) -> Iterator[logging.Handler]:
    """While active, send every record at level or above to stream (default stderr) as JSON (plus fields).

    Installs one handler on the root logger and restores the root logger's level and handlers on exit.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(fields))
    handler.addFilter(ClientErrorFilter())
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(level)
    # The lines never show where a call was made or which thread or process made it, so records skip collecting it
    # (the logging HOWTO's "Optimization" switches): a third of the cost of the one line per request.
    previous_switches = _set_switches(_NOT_COLLECTED)
    try:
        yield handler
    finally:
        _set_switches(previous_switches)
        root.removeHandler(handler)
        root.setLevel(previous_level)


class ClientErrorFilter(logging.Filter):
    """aiohttp's "Error handling request" records (malformed HTTP, a client that breaks off) become one WARNING
    line without traceback, naming the peer and the error, and at most `burst` of them per `window_seconds`.

    The volume of these lines is the client's to choose, so they are rate-limited: the first line after a
    suppressed stretch carries `suppressed`, the number of lines left out. Records of other loggers pass as they are.
    """

    LOGGER: Final = "aiohttp.server"

    def __init__(self, burst: int = 10, window_seconds: float = 10.0, clock: Any = time.monotonic) -> None:
        super().__init__()
        self.burst, self.window_seconds, self._clock = burst, window_seconds, clock
        self._window_start = -window_seconds
        self._in_window = 0
        self._suppressed = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name != self.LOGGER or record.levelno < logging.ERROR:
            return True
        now = self._clock()
        if now - self._window_start >= self.window_seconds:
            self._window_start, self._in_window = now, 0
        self._in_window += 1
        if self._in_window > self.burst:
            self._suppressed += 1
            return False
        message = record.getMessage()
        peer = message.rsplit(" from ", 1)[1] if " from " in message else ""
        error = record.exc_info[1] if record.exc_info else None
        record.msg, record.args = "client error: request rejected", ()
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.peer = peer
        detail = f"{type(error).__name__}: {error}" if error is not None else message
        record.error = " ".join(detail.split())[:200]  # one line, bounded: the client chose these bytes
        if self._suppressed:
            record.suppressed, self._suppressed = self._suppressed, 0
        return True


_NOT_COLLECTED: Final = {"_srcfile": None, "logThreads": False, "logProcesses": False, "logMultiprocessing": False}


def _set_switches(values: Mapping[str, Any]) -> dict[str, Any]:
    """Set attributes of the logging module; returns their previous values."""
    previous = {name: getattr(logging, name) for name in values}
    for name, value in values.items():
        setattr(logging, name, value)
    return previous
