"""webhook.goport.cron: robfig/cron v1.2.0 ParseStandard, as loose and as strict as Gardener's hibernation schedules."""

from __future__ import annotations

import pytest

from webhook.goport.cron import cron_error


@pytest.mark.parametrize(
    "spec",
    [
        "0 8 * * 1-5",
        "00 08 * * MON-FRI",
        "0 8 * * mon,wed,fri",
        "*/15 0-6 1,15 jan-jun ?",
        "30 22 * * *",
        "0 0 31 12 6",
        "5/10 * * * *",
        "0\t8  *\n* *",
        "@daily",
        "@midnight",
        "@every 1h30m",
        "1,,2 * * * *",  # empty list items are dropped
        ", * * * *",
        "*-5 * * * *",  # after `*` the rest of a range is ignored
    ],
)
def test_accepted(spec: str) -> None:
    assert cron_error(spec) is None


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("", "Empty spec string"),
        ("0 8 * *", "Expected exactly 5 fields, found 4: 0 8 * *"),
        ("0 0 8 * * *", "Expected exactly 5 fields, found 6: 0 0 8 * * *"),
        (" @daily", "Expected exactly 5 fields, found 1:  @daily"),
        ("@often", "Unrecognized descriptor: @often"),
        ("@daily ", "Unrecognized descriptor: @daily "),
        ("@every 1x", 'Failed to parse duration @every 1x: time: unknown unit "x" in duration "1x"'),
        ("60 * * * *", "End of range (60) above maximum (59): 60"),
        ("* 24 * * *", "End of range (24) above maximum (23): 24"),
        ("0 0 0 * *", "Beginning of range (0) below minimum (1): 0"),
        ("0 0 1 13 *", "End of range (13) above maximum (12): 13"),
        ("0 0 * * 7", "End of range (7) above maximum (6): 7"),
        ("5-1 * * * *", "Beginning of range (5) beyond end of range (1): 5-1"),
        ("*/0 * * * *", "Step of range should be a positive number: */0"),
        ("1-2-3 * * * *", "Too many hyphens: 1-2-3"),
        ("1/2/3 * * * *", "Too many slashes: 1/2/3"),
        ("x * * * *", 'Failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("-1 * * * *", 'Failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
        (
            "99999999999999999999 * * * *",
            (
                'Failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out '
                "of range"
            ),
        ),
        ("60 25 * * *", "End of range (60) above maximum (59): 60"),  # the first error only
    ],
)
def test_refused(spec: str, error: str) -> None:
    assert cron_error(spec) == error
