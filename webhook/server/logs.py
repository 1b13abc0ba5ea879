"""Log lines: JSON for the server, one object per record on stderr; text for the `audit` command's live view.

Configured by `run_server` and by each `--workers` process (`workers.worker_main`) only, never at import, so tests
and the `review` command keep Python's defaults.
Each line holds `time` (RFC 3339, UTC, milliseconds), `level`, `logger`, `message`, every `extra=` field
of the record (uid, kind, object, operation, user, dryRun, decision, rules, duration_ms, …) and, when the
record carries an exception, `exception` with its traceback.
`text_logging` (the `audit` command, while its live view runs) writes the same record as one line a person reads in a
terminal or a Job's log: `gardener-webhook audit: warning: <message>: key=value …`, the `extra=` fields included.
Python's fallback handler, which the command had before, printed the message alone, so a reflector's "cluster
list/watch failed; retrying" named neither the kind, nor the cluster, nor the cause.
"""

from __future__ import annotations

import json
import logging
import math
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import islice
from typing import Any, Final, TextIO

import msgspec

logger = logging.getLogger(__name__)

_STANDARD_ATTRIBUTES: Final = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}
# LogRecord.__init__ sets its attributes first and in this order; `extra=` fields and a filter's come after them.
_RECORD_ATTRIBUTES: Final = tuple(vars(logging.LogRecord("", 0, "", 0, "", (), None)))
_ENCODER: Final = msgspec.json.Encoder()
_SCALARS: Final = frozenset({str, int, bool, type(None)})


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON object (compact); values that are not JSON types are written with str().

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
        data.update(extra_fields(record))
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json_line(data)

    def _time(self, created: float) -> str:
        """RFC 3339 in UTC with milliseconds; the part up to the second is formatted once per second."""
        second = int(created)
        if second != self._second:
            self._second = second
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return f"{self._prefix}.{int((created - second) * 1000):03d}Z"


def json_line(data: Mapping[str, Any]) -> str:
    """data as compact JSON text, non-ASCII characters as they are, values that are not JSON types as str().

    msgspec writes the line when every value is a plain JSON value (strings, ints, bools, None, finite floats, and
    lists and string-keyed dicts of them), else `json.dumps` does, with the same output: msgspec would write some
    other types its own way (datetimes, sets, bytes, enums by value) where the line has always shown str().
    """
    if _all_plain(data.values()):
        try:
            return _ENCODER.encode(data).decode()
        except (msgspec.EncodeError, OverflowError, UnicodeEncodeError):  # ints past 64 bits, lone surrogates
            pass
    return json.dumps(data, default=str, ensure_ascii=False, separators=(",", ":"))


def _all_plain(values: Iterable[Any]) -> bool:
    for value in values:
        if type(value) not in _SCALARS and not _is_plain(value):
            return False
    return True


def _is_plain(value: Any) -> bool:
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)  # json.dumps writes NaN and Infinity, msgspec null
    if kind is list or kind is tuple:
        return _all_plain(value)
    if kind is dict:
        return all(type(key) is str for key in value) and _all_plain(value.values())
    return False


def extra_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a record was given with `extra=` (kind, source, error, …), in the order given."""
    attributes = vars(record)
    items: Iterable[tuple[str, Any]] = attributes.items()
    standard = len(_RECORD_ATTRIBUTES)
    if len(attributes) >= standard and next(islice(attributes, standard - 1, None)) == _RECORD_ATTRIBUTES[-1]:
        items = islice(items, standard, None)  # skip what LogRecord.__init__ set, unlooked at
    return {k: v for k, v in items if k not in _STANDARD_ATTRIBUTES and not k.startswith("_")}


class TextFormatter(logging.Formatter):
    """Formats a record as one line: `<prefix>: <level>: <message>: key=value key="a value" …`.

    Strings with spaces, quotes or nothing in them are quoted (JSON), other values are JSON or str(); no time: a
    terminal does not need one and `kubectl logs --timestamps` adds it. An exception adds its last line (type:
    message), never a traceback.
    """

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def format(self, record: logging.LogRecord) -> str:
        line = f"{self.prefix}: {record.levelname.lower()}: {record.getMessage()}"
        pairs = [f"{key}={_text_value(value)}" for key, value in extra_fields(record).items()]
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            pairs.append(f"exception={_text_value(f'{type(error).__name__}: {error}')}")
        return f"{line}: {' '.join(pairs)}" if pairs else line


def _text_value(value: Any) -> str:
    if isinstance(value, str):
        plain = value and not any(c.isspace() or c in '"=' for c in value)
        return value if plain else json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float | bool) or value is None:
        return json.dumps(value)
    return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":"))


@contextmanager
def text_logging(prefix: str, stream: TextIO | None = None, level: int = logging.WARNING) -> Iterator[logging.Handler]:
    """While active, send every record at level (WARNING) or above to stream (default stderr) as a `TextFormatter`
    line; restores the root logger's level and handlers on exit."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(TextFormatter(prefix))
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)


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
