"""JSON log lines for the server: one object per record, on stderr.

Configured by `run_server` only (never at import), so tests and the `review` command keep Python's defaults.
Each line holds `time` (RFC 3339, UTC, milliseconds), `level`, `logger`, `message`, every `extra=` field
of the record (uid, kind, object, operation, user, dryRun, decision, rules, duration_ms, …) and, when the
record carries an exception, `exception` with its traceback.
"""

from __future__ import annotations

import json
import logging
import sys
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

    def format(self, record: logging.LogRecord) -> str:
        created = datetime.fromtimestamp(record.created, UTC)
        data: dict[str, Any] = {
            "time": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
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


@contextmanager
def json_logging(
    stream: TextIO | None = None, level: int = logging.INFO, fields: Mapping[str, Any] | None = None
) -> Iterator[logging.Handler]:
    """While active, send every record at level or above to stream (default stderr) as JSON (plus fields).

    Installs one handler on the root logger and restores the root logger's level and handlers on exit.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(fields))
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(previous_level)
