"""Go's `time` package, as far as Gardener's Shoot validation shows its results: durations, clock times, zones.

Gardener validates `metav1.Duration` fields (the components', the kubelets', the pools' autoscaler and
machine-controller-manager timeouts), maintenance time windows (`150405-0700`) and hibernation locations with Go's
`time.ParseDuration`, `time.Parse` and `time.LoadLocation`, and puts their error text and `Duration.String()` into
its field errors (`must be non-negative` on `-1m0s`). These functions accept exactly what Go accepts and return Go's text. Pure functions; only
the `parse_*` functions raise (InvalidTime, carrying Go's error text), at the decoding edge.
Source: golang/go src/time/format.go (Parse, getnum, parseNanoseconds, ParseError.Error, quote),
src/time/time.go (Duration.String, ParseDuration, leadingInt, leadingFraction), src/time/zoneinfo.go (LoadLocation).
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

NANOSECOND: Final = 1
MICROSECOND: Final = 1_000
MILLISECOND: Final = 1_000_000
SECOND: Final = 1_000_000_000
MINUTE: Final = 60 * SECOND
HOUR: Final = 60 * MINUTE

_UNITS: Final = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "\u00b5s": MICROSECOND,  # micro sign
    "\u03bcs": MICROSECOND,  # Greek mu
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_MAX: Final = 1 << 63
_DIGITS: Final = frozenset("0123456789")


class InvalidTime(ValueError):
    """A duration or clock time Go's `time` package refuses; str(exc) is Go's error text."""


def time_quote(text: str) -> str:
    """Go's time.quote: double quotes, `\\"` and `\\\\` escaped, bytes of control and non-ASCII characters as `\\xNN`."""
    out: list[str] = []
    for c in text:
        if ord(c) >= 0x80 or c < " ":
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogatepass"))
        elif c in '"\\':
            out.append("\\" + c)
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


# ------------------------------------------------------------------------------------------------ durations


def parse_duration(text: str) -> int:
    """Go's time.ParseDuration: `[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+` into nanoseconds (an int64).

    Raises InvalidTime with Go's text: `time: invalid duration "x"`, `time: missing unit in duration "1"`,
    `time: unknown unit "d" in duration "1d"`.
    """
    return _parse_duration(text)


# A pure function of one short string, asked for the same few values on every request: remembered (bounded).
# The error is raised anew for each bad value (lru_cache keeps only results).
@lru_cache(maxsize=1024)
def _parse_duration(orig: str) -> int:
    invalid = f"time: invalid duration {time_quote(orig)}"
    s, neg = orig, False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise InvalidTime(invalid)
    total = 0
    while s:
        if not (s[0] == "." or s[0] in _DIGITS):
            raise InvalidTime(invalid)
        i = 0
        whole = 0
        while i < len(s) and s[i] in _DIGITS:
            if whole > _MAX // 10:
                raise InvalidTime(invalid)
            whole = whole * 10 + int(s[i])
            if whole > _MAX:
                raise InvalidTime(invalid)
            i += 1
        pre = i > 0
        s = s[i:]
        fraction, scale, post = 0, 1, False
        if s and s[0] == ".":
            s = s[1:]
            i, overflow = 0, False
            while i < len(s) and s[i] in _DIGITS:
                if not overflow:
                    bigger = fraction * 10 + int(s[i])
                    if fraction > (_MAX - 1) // 10 or bigger > _MAX:
                        overflow = True
                    else:
                        fraction, scale = bigger, scale * 10
                i += 1
            post = i > 0
            s = s[i:]
        if not pre and not post:
            raise InvalidTime(invalid)
        i = 0
        while i < len(s) and not (s[i] == "." or s[i] in _DIGITS):
            i += 1
        if i == 0:
            raise InvalidTime(f"time: missing unit in duration {time_quote(orig)}")
        unit_text, s = s[:i], s[i:]
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise InvalidTime(f"time: unknown unit {time_quote(unit_text)} in duration {time_quote(orig)}")
        if whole > _MAX // unit:
            raise InvalidTime(invalid)
        value = whole * unit
        if fraction > 0:
            value += int(float(fraction) * (float(unit) / scale))
            if value > _MAX:
                raise InvalidTime(invalid)
        total += value
        if total > _MAX:
            raise InvalidTime(invalid)
    if neg:
        return -total
    if total > _MAX - 1:
        raise InvalidTime(invalid)
    return total


def _fraction(value: int, precision: int) -> tuple[str, int]:
    """Go's fmtFrac: the fraction of value / 10**precision without trailing zeros (and without the point when 0)."""
    digits: list[str] = []
    printed = False
    for _ in range(precision):
        digit = value % 10
        printed = printed or digit != 0
        if printed:
            digits.append(str(digit))
        value //= 10
    text = "." + "".join(reversed(digits)) if printed else ""
    return text, value


def format_duration(nanoseconds: int) -> str:
    """Go's Duration.String: `72h3m0.5s`, `1.5ms`, `0s`; nanoseconds: an int64."""
    u = abs(nanoseconds)
    sign = "-" if nanoseconds < 0 else ""
    if u < SECOND:
        if u == 0:
            return "0s"
        if u < MICROSECOND:
            return f"{sign}{u}ns"
        unit, precision = ("\u00b5s", 3) if u < MILLISECOND else ("ms", 6)
        fraction, whole = _fraction(u, precision)
        return f"{sign}{whole}{fraction}{unit}"
    fraction, seconds = _fraction(u, 9)
    minutes, seconds = divmod(seconds, 60)
    text = f"{seconds}{fraction}s"
    if minutes:
        hours, minutes = divmod(minutes, 60)
        text = f"{minutes}m{text}"
        if hours:
            text = f"{hours}h{text}"
    return sign + text


# ------------------------------------------------------------------------------------------- maintenance times

MAINTENANCE_TIME_LAYOUT: Final = "150405-0700"


@dataclass(frozen=True, slots=True)
class ClockTime:
    """A time of day in UTC, to the second (Gardener's MaintenanceTime)."""

    hour: int
    minute: int
    second: int

    @property
    def seconds(self) -> int:
        """Seconds since midnight."""
        return (self.hour * 60 + self.minute) * 60 + self.second


def _getnum(value: str, fixed: bool) -> tuple[int, str] | None:
    """Go's getnum: one or two leading digits (exactly two when fixed); None when there are none."""
    if not value or value[0] not in _DIGITS:
        return None
    if len(value) < 2 or value[1] not in _DIGITS:
        return None if fixed else (int(value[0]), value[1:])
    return int(value[:2]), value[2:]


def parse_maintenance_time(value: str) -> ClockTime:
    """Go's time.Parse("150405-0700", value), converted to UTC (gardener timewindow.ParseMaintenanceTime).

    Raises InvalidTime with Go's ParseError text, e.g. `parsing time "2200" as "150405-0700": cannot parse "" as
    "05"` or `parsing time "250000+0000": hour out of range`.
    """
    return _parse_maintenance_time(value)


# Remembered (bounded): Shoots repeat a few dozen time windows. ClockTime is immutable; errors are raised anew.
@lru_cache(maxsize=1024)
def _parse_maintenance_time(value: str) -> ClockTime:
    layout = MAINTENANCE_TIME_LAYOUT

    def cannot(value_elem: str, layout_elem: str) -> InvalidTime:
        return InvalidTime(
            f"parsing time {time_quote(value)} as {time_quote(layout)}: cannot parse {time_quote(value_elem)} "
            f"as {time_quote(layout_elem)}"
        )

    def out_of_range(what: str) -> InvalidTime:
        return InvalidTime(f"parsing time {time_quote(value)}: {what} out of range")

    rest = value
    numbers: list[int] = []
    for element, fixed, limit, name in (
        ("15", False, 24, "hour"),
        ("04", True, 60, "minute"),
        ("05", True, 60, "second"),
    ):
        got = _getnum(rest, fixed)
        if got is None:
            raise cannot(rest, element)
        number, after = got
        if number >= limit:
            raise out_of_range(name)
        numbers.append(number)
        rest = after
    # A fraction of a second the layout does not ask for is read and dropped (Go's special case in stdSecond).
    if len(rest) >= 2 and rest[0] in ".," and rest[1] in _DIGITS:
        n = 2
        while n < len(rest) and rest[n] in _DIGITS:
            n += 1
        rest = rest[n:]
    if len(rest) < 5:
        raise cannot(rest, "-0700")
    sign, after = rest[0], rest[5:]
    zone_hour = _getnum(rest[1:3], True)
    zone_minute = _getnum(rest[3:5], True) if zone_hour is not None else None
    hours = zone_hour[0] if zone_hour is not None else 0
    minutes = zone_minute[0] if zone_minute is not None else 0
    # Go checks the ranges before it reports a bad number or sign.
    if hours > 24:
        raise out_of_range("time zone offset hour")
    if minutes > 60:
        raise out_of_range("time zone offset minute")
    if zone_minute is None or sign not in "+-":
        raise cannot(rest, "-0700")
    if after:
        raise InvalidTime(f"parsing time {time_quote(value)}: extra text: {time_quote(after)}")
    offset = (hours * 60 + minutes) * 60 * (-1 if sign == "-" else 1)
    utc = ((numbers[0] * 60 + numbers[1]) * 60 + numbers[2] - offset) % 86400
    return ClockTime(utc // 3600, utc // 60 % 60, utc % 60)


def window_seconds(begin: ClockTime, end: ClockTime) -> int:
    """Length of the time window from begin to end (the next day when end is not after begin), in seconds.

    Source: gardener pkg/apis/utils/timewindow MaintenanceTimeWindow.Duration, AdjustedEnd.
    """
    length = end.seconds - begin.seconds
    return length if length > 0 else length + 86400


# ------------------------------------------------------------------------------------------------- locations


def location_error(name: str) -> str | None:
    """Go's time.LoadLocation(name) error text, or None when Go loads it ("", UTC, Local and IANA zone names).

    `time: invalid location name` for names with `..` or a leading slash or backslash, else `unknown time zone
    <name>`. Zones come from the tz database (the system's, else the `tzdata` package).
    """
    if name in ("", "UTC", "Local"):
        return None
    if ".." in name or name[0] in "/\\":
        return "time: invalid location name"
    return None if _is_zone(name) else f"unknown time zone {name}"


@lru_cache(maxsize=512)
def _is_zone(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return False
    return True


__all__ = [
    "HOUR",
    "MAINTENANCE_TIME_LAYOUT",
    "MICROSECOND",
    "MILLISECOND",
    "MINUTE",
    "NANOSECOND",
    "SECOND",
    "ClockTime",
    "InvalidTime",
    "format_duration",
    "location_error",
    "parse_duration",
    "parse_maintenance_time",
    "time_quote",
    "window_seconds",
]
