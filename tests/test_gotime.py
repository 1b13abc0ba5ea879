"""webhook.goport.gotime: Go's ParseDuration, Duration.String, time.Parse("150405-0700") and LoadLocation, with Go's texts."""

from __future__ import annotations

import pytest

from webhook.goport.gotime import (
    HOUR,
    MILLISECOND,
    MINUTE,
    SECOND,
    ClockTime,
    InvalidTime,
    format_duration,
    location_error,
    parse_duration,
    parse_maintenance_time,
    window_seconds,
)


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("0", 0),
        ("1h30m", 90 * MINUTE),
        ("-1.5h", -90 * MINUTE),
        ("+5m", 5 * MINUTE),
        (".5s", SECOND // 2),
        ("1.s", SECOND),
        ("300ms", 300_000_000),
        ("1\u00b5s", 1_000),
        ("1\u03bcs", 1_000),
        ("2h45m3s4ms5us6ns", 2 * HOUR + 45 * MINUTE + 3 * SECOND + 4_000_000 + 5_000 + 6),
        ("-0", 0),
        ("2h45m", 2 * HOUR + 45 * MINUTE),
        ("1us", 1_000),
        ("9223372036854775807ns", (1 << 63) - 1),  # the largest
    ],
)
def test_parse_duration(text: str, nanoseconds: int) -> None:
    assert parse_duration(text) == nanoseconds


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", 'time: invalid duration ""'),
        ("1", 'time: missing unit in duration "1"'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        ("1h1x", 'time: unknown unit "x" in duration "1h1x"'),
        (".s", 'time: invalid duration ".s"'),
        ("-", 'time: invalid duration "-"'),
        ("1\u00e4", 'time: unknown unit "\\xc3\\xa4" in duration "1\\xc3\\xa4"'),
        ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
        ("s", 'time: invalid duration "s"'),
        ("1.2.3s", 'time: missing unit in duration "1.2.3s"'),
    ],
)
def test_parse_duration_errors(text: str, error: str) -> None:
    with pytest.raises(InvalidTime) as exc:
        parse_duration(text)
    assert str(exc.value) == error


@pytest.mark.parametrize(
    ("nanoseconds", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (1_500, "1.5\u00b5s"),
        (1_500_000, "1.5ms"),
        (90 * SECOND, "1m30s"),
        (6 * HOUR, "6h0m0s"),
        (-SECOND // 2, "-500ms"),
        (72 * HOUR + 3 * MINUTE + SECOND // 2, "72h3m0.5s"),
        (12, "12ns"),
        (500 * MILLISECOND, "500ms"),
        (SECOND, "1s"),
        (MINUTE, "1m0s"),
        (-MINUTE, "-1m0s"),
        (4 * HOUR, "4h0m0s"),
        (HOUR + 30 * MINUTE + SECOND // 2, "1h30m0.5s"),
    ],
)
def test_format_duration(nanoseconds: int, text: str) -> None:
    assert format_duration(nanoseconds) == text


@pytest.mark.parametrize(
    ("text", "utc"),
    [
        ("220000+0000", ClockTime(22, 0, 0)),
        ("020000+0100", ClockTime(1, 0, 0)),
        ("000000+0100", ClockTime(23, 0, 0)),
        ("233000-0130", ClockTime(1, 0, 0)),
        ("220000.5+0000", ClockTime(22, 0, 0)),  # Go reads and drops a fraction the layout does not ask for
        ("90000+0000", None),  # hour 90: out of range
    ],
)
def test_parse_maintenance_time(text: str, utc: ClockTime | None) -> None:
    if utc is None:
        with pytest.raises(InvalidTime):
            parse_maintenance_time(text)
    else:
        assert parse_maintenance_time(text) == utc


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("2200", 'parsing time "2200" as "150405-0700": cannot parse "" as "05"'),
        ("22000+0000", 'parsing time "22000+0000" as "150405-0700": cannot parse "0+0000" as "05"'),
        ("250000+0000", 'parsing time "250000+0000": hour out of range'),
        ("226000+0000", 'parsing time "226000+0000": minute out of range'),
        ("220000Z", 'parsing time "220000Z" as "150405-0700": cannot parse "Z" as "-0700"'),
        ("220000+01:00", 'parsing time "220000+01:00" as "150405-0700": cannot parse "+01:00" as "-0700"'),
        ("220000+2500", 'parsing time "220000+2500": time zone offset hour out of range'),
        ("220000+010000", 'parsing time "220000+010000": extra text: "00"'),
        ("", 'parsing time "" as "150405-0700": cannot parse "" as "15"'),
    ],
)
def test_parse_maintenance_time_errors(text: str, error: str) -> None:
    with pytest.raises(InvalidTime) as exc:
        parse_maintenance_time(text)
    assert str(exc.value) == error


def test_window_seconds_runs_into_the_next_day_when_end_is_not_after_begin() -> None:
    assert window_seconds(ClockTime(22, 0, 0), ClockTime(23, 0, 0)) == 3600
    assert window_seconds(ClockTime(23, 0, 0), ClockTime(1, 0, 0)) == 7200
    assert window_seconds(ClockTime(1, 0, 0), ClockTime(1, 0, 0)) == 86400


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("Europe/Berlin", None),
        ("America/Argentina/Buenos_Aires", None),
        ("", None),
        ("UTC", None),
        ("Local", None),
        ("Mars/Olympus_Mons", "unknown time zone Mars/Olympus_Mons"),
        ("europe/berlin", "unknown time zone europe/berlin"),
        ("../etc/passwd", "time: invalid location name"),
        ("/etc/localtime", "time: invalid location name"),
        ("\\x", "time: invalid location name"),
    ],
)
def test_location_error(name: str, error: str | None) -> None:
    assert location_error(name) == error
