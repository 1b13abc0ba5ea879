"""Go's time.ParseDuration and Duration.String port (webhook/goduration.py): what Go accepts, refuses and prints."""

from __future__ import annotations

import pytest

from webhook.goduration import HOUR, MILLISECOND, MINUTE, SECOND, InvalidDuration, format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        pytest.param("0", 0, id="bare-zero"),
        pytest.param("-0", 0, id="negative-zero"),
        pytest.param("+5s", 5 * SECOND, id="plus-sign"),
        pytest.param("300ms", 300 * MILLISECOND, id="milliseconds"),
        pytest.param("-1.5h", -(HOUR + 30 * MINUTE), id="negative-fraction"),
        pytest.param("2h45m", 2 * HOUR + 45 * MINUTE, id="two-units"),
        pytest.param(".5s", 500 * MILLISECOND, id="fraction-only"),
        pytest.param("1.s", SECOND, id="point-without-fraction"),
        pytest.param("1us", 1000, id="us"),
        pytest.param("1\u00b5s", 1000, id="micro-sign"),
        pytest.param("1\u03bcs", 1000, id="greek-mu"),
        pytest.param("9223372036854775807ns", (1 << 63) - 1, id="largest"),
    ],
)
def test_parse_duration_accepts_what_go_accepts(text: str, nanoseconds: int) -> None:
    assert parse_duration(text) == nanoseconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", 'time: invalid duration ""', id="empty"),
        pytest.param("-", 'time: invalid duration "-"', id="sign-only"),
        pytest.param("s", 'time: invalid duration "s"', id="unit-only"),
        pytest.param("5", 'time: missing unit in duration "5"', id="no-unit"),
        pytest.param("1.2.3s", 'time: missing unit in duration "1.2.3s"', id="two-points"),
        pytest.param("5x", 'time: unknown unit "x" in duration "5x"', id="unknown-unit"),
        pytest.param("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"', id="overflow"),
    ],
)
def test_parse_duration_refuses_what_go_refuses(text: str, message: str) -> None:
    with pytest.raises(InvalidDuration) as raised:
        parse_duration(text)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("nanoseconds", "text"),
    [
        pytest.param(0, "0s", id="zero"),
        pytest.param(12, "12ns", id="nanoseconds"),
        pytest.param(1500, "1.5\u00b5s", id="microseconds"),
        pytest.param(500 * MILLISECOND, "500ms", id="milliseconds"),
        pytest.param(SECOND, "1s", id="second"),
        pytest.param(MINUTE, "1m0s", id="minute"),
        pytest.param(-MINUTE, "-1m0s", id="negative"),
        pytest.param(4 * HOUR, "4h0m0s", id="hours"),
        pytest.param(HOUR + 30 * MINUTE + SECOND // 2, "1h30m0.5s", id="all-units"),
    ],
)
def test_format_duration_prints_as_go(nanoseconds: int, text: str) -> None:
    assert format_duration(nanoseconds) == text
