"""Go's `time.Duration` as `metav1.Duration` carries it in JSON: parsed from text, rendered back as Go prints it.

Gardener's rules compare durations (`must be non-negative`, `value must be between 30s and 4h`) and show them as
Go's `Duration.String()` renders them (`-1m0s`, `1h30m0s`, `500ms`), so both directions are ported. Durations are
whole nanoseconds (int). `parse_duration` raises `InvalidDuration` for text Go rejects; `format_duration` never
raises.
Source: golang/go src/time/format.go (ParseDuration, leadingInt, leadingFraction), src/time/time.go
(Duration.String, fmtFrac, fmtInt).
"""

from __future__ import annotations

from typing import Final

NANOSECOND: Final = 1
MICROSECOND: Final = 1000 * NANOSECOND
MILLISECOND: Final = 1000 * MICROSECOND
SECOND: Final = 1000 * MILLISECOND
MINUTE: Final = 60 * SECOND
HOUR: Final = 60 * MINUTE

_UNITS: Final = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "\u00b5s": MICROSECOND,  # micro sign
    "\u03bcs": MICROSECOND,  # Greek small letter mu
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_MAX: Final = (1 << 63) - 1
_DIGITS: Final = frozenset("0123456789")


class InvalidDuration(ValueError):
    """Raised by `parse_duration` for text that Go's time.ParseDuration rejects."""


def parse_duration(text: str) -> int:
    """Nanoseconds of a Go duration string (`300ms`, `-1.5h`, `2h45m`); raises InvalidDuration as Go would fail."""
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise InvalidDuration(f'time: invalid duration "{text}"')
    total = 0
    while rest:
        i = 0
        while i < len(rest) and rest[i] in _DIGITS:
            i += 1
        whole, rest = rest[:i], rest[i:]
        fraction = ""
        if rest[:1] == ".":
            j = 1
            while j < len(rest) and rest[j] in _DIGITS:
                j += 1
            fraction, rest = rest[1:j], rest[j:]
        if not whole and not fraction:
            raise InvalidDuration(f'time: invalid duration "{text}"')
        k = 0
        while k < len(rest) and rest[k] != "." and rest[k] not in _DIGITS:
            k += 1
        unit, rest = rest[:k], rest[k:]
        if not unit:
            raise InvalidDuration(f'time: missing unit in duration "{text}"')
        scale = _UNITS.get(unit)
        if scale is None:
            raise InvalidDuration(f'time: unknown unit "{unit}" in duration "{text}"')
        value = int(whole or "0") * scale
        if fraction:
            value += int(fraction) * scale // 10 ** len(fraction)
        total += value
        if total > _MAX + (1 if negative else 0):
            raise InvalidDuration(f'time: invalid duration "{text}"')
    return -total if negative else total


def _with_fraction(value: int, digits: int) -> str:
    """`value` / 10**digits with the fraction's trailing zeros (and a bare point) left out (Go's fmtFrac)."""
    whole, fraction = divmod(value, 10**digits)
    if not fraction:
        return str(whole)
    return f"{whole}." + f"{fraction:0{digits}d}".rstrip("0")


def format_duration(nanoseconds: int) -> str:
    """Go's Duration.String(): `0s`, `1.5µs`, `500ms`, `1m0s`, `-4h0m0s`, `1h30m0.5s`."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    u = abs(nanoseconds)
    if u < MICROSECOND:
        return f"{sign}{u}ns"
    if u < MILLISECOND:
        return f"{sign}{_with_fraction(u, 3)}\u00b5s"
    if u < SECOND:
        return f"{sign}{_with_fraction(u, 6)}ms"
    seconds, fraction = divmod(u, SECOND)
    text = _with_fraction((seconds % 60) * SECOND + fraction, 9) + "s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        hours = minutes // 60
        if hours:
            text = f"{hours}h{text}"
    return sign + text
