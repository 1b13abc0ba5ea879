"""Cron specs as Gardener's hibernation schedules read them: github.com/robfig/cron v1.2.0 `ParseStandard`.

Five fields (minute, hour, day of month, month, day of week) with `*`, `?`, ranges, steps, lists and the names of
months and weekdays, or a descriptor (`@daily`, `@every 1h30m`, …). `cron_error` returns the parser's own error
text (Gardener shows it after "not a valid cron spec: "), or None for a spec the parser accepts; it is exactly as
loose or strict as robfig's parser (an empty list item such as `1,,2`, or `*-5`, is accepted there too).
Pure; never raises. Source: robfig/cron v1.2.0 parser.go (Parse, getField, getRange, parseIntOrName,
mustParseInt, parseDescriptor), spec.go (bounds); golang/go src/strings/strings.go (Fields).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from webhook.goport.gostrconv import NumError, atoi
from webhook.goport.gotime import InvalidTime, parse_duration


@dataclass(frozen=True, slots=True)
class _Bounds:
    low: int
    high: int
    names: dict[str, int] = field(default_factory=dict)


_SECONDS: Final = _Bounds(0, 59)
_MINUTES: Final = _Bounds(0, 59)
_HOURS: Final = _Bounds(0, 23)
_DAYS_OF_MONTH: Final = _Bounds(1, 31)
_MONTHS: Final = _Bounds(
    1,
    12,
    {
        m: i
        for i, m in enumerate(
            ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1
        )
    },
)
_DAYS_OF_WEEK: Final = _Bounds(0, 6, {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])})
# ParseStandard reads minute, hour, day of month, month and day of week; the second is always "0".
_STANDARD: Final = (_MINUTES, _HOURS, _DAYS_OF_MONTH, _MONTHS, _DAYS_OF_WEEK)
_DESCRIPTORS: Final = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_EVERY: Final = "@every "
_GO_SPACE: Final = frozenset("\t\n\v\f\r \x85\xa0")


class _CronError(ValueError):
    """A spec the parser refuses; str(exc) is the parser's text."""


def _is_go_space(c: str) -> bool:
    """Go's unicode.IsSpace (Python's isspace also counts U+001C…U+001F, which Go does not)."""
    return c in _GO_SPACE or (ord(c) > 0xFF and c.isspace())


def _go_fields(text: str) -> list[str]:
    """Go's strings.Fields: the runs of non-space characters."""
    fields: list[str] = []
    current: list[str] = []
    for c in text:
        if _is_go_space(c):
            if current:
                fields.append("".join(current))
                current = []
        else:
            current.append(c)
    if current:
        fields.append("".join(current))
    return fields


def _must_parse_int(expr: str) -> int:
    try:
        number = atoi(expr)
    except NumError as exc:
        raise _CronError(f"Failed to parse int from {expr}: {exc}") from None
    if number < 0:
        raise _CronError(f"Negative number ({number}) not allowed: {expr}")
    return number


def _parse_int_or_name(expr: str, bounds: _Bounds) -> int:
    named = bounds.names.get(expr.lower())
    return named if named is not None else _must_parse_int(expr)


def _check_range(expr: str, bounds: _Bounds) -> None:
    """robfig's getRange: `*` or `?`, or number[-number], then an optional /step, within the field's bounds."""
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    if low_and_high[0] in ("*", "?"):
        start, end = bounds.low, bounds.high
    else:
        start = _parse_int_or_name(low_and_high[0], bounds)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _parse_int_or_name(low_and_high[1], bounds)
        else:
            raise _CronError(f"Too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _must_parse_int(range_and_step[1])
        if len(low_and_high) == 1:
            end = bounds.high  # "N/step" means "N-max/step"
    else:
        raise _CronError(f"Too many slashes: {expr}")
    if start < bounds.low:
        raise _CronError(f"Beginning of range ({start}) below minimum ({bounds.low}): {expr}")
    if end > bounds.high:
        raise _CronError(f"End of range ({end}) above maximum ({bounds.high}): {expr}")
    if start > end:
        raise _CronError(f"Beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise _CronError(f"Step of range should be a positive number: {expr}")


def _check_descriptor(spec: str) -> None:
    if spec in _DESCRIPTORS:
        return
    if spec.startswith(_EVERY):
        try:
            parse_duration(spec[len(_EVERY) :])
        except InvalidTime as exc:
            raise _CronError(f"Failed to parse duration {spec}: {exc}") from None
        return
    raise _CronError(f"Unrecognized descriptor: {spec}")


def cron_error(spec: str) -> str | None:
    """The error text of robfig/cron v1.2.0 ParseStandard(spec), or None when it parses.

    E.g. `Expected exactly 5 fields, found 4: 0 8 * *`, `End of range (24) above maximum (23): 24`,
    `Failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`, `Unrecognized descriptor: @often`.
    """
    return _cron_error(spec)


@lru_cache(maxsize=1024)
def _cron_error(spec: str) -> str | None:
    try:
        if not spec:
            raise _CronError("Empty spec string")
        if spec[0] == "@":
            _check_descriptor(spec)
            return None
        fields = _go_fields(spec)
        if len(fields) != len(_STANDARD):
            raise _CronError(f"Expected exactly {len(_STANDARD)} fields, found {len(fields)}: {spec}")
        # The second is "0" in a standard spec, and checked first, as robfig does.
        for text, bounds in (("0", _SECONDS), *zip(fields, _STANDARD, strict=True)):
            for expr in (part for part in text.split(",") if part):  # strings.FieldsFunc on ','
                _check_range(expr, bounds)
    except _CronError as exc:
        return str(exc)
    return None


__all__ = ["cron_error"]
