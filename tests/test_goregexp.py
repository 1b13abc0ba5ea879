"""Go's `$` in ported patterns: the end of the text, never before a final newline (webhook.goport.goregexp).

Python's `$` also matches before a final "\\n": names and values written with one passed checks gardener-apiserver
refuses (the differential against it sent a NamespacedCloudProfile machine type named "1.2.3\\n").
"""

from __future__ import annotations

import re

import pytest

from tests.builders import EMPTY_VIEW, cloud_profile, cloud_profile_dict, request, triples
from webhook.domain.field import ErrorType
from webhook.domain.quantity import InvalidQuantity, parse_quantity
from webhook.goport.goregexp import compile_go
from webhook.settings import Settings
from webhook.validators import cloudprofile
from webhook.validators.meta import dns1123_label_errors, label_value_errors, qualified_name_errors


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^[a-z]+$", "abc", True),
        ("^[a-z]+$", "abc\n", False),
        (r"^[a-z]+\$", "abc$", True),  # an escaped dollar is a character
        ("^[a-z]+", "abc\n", True),  # no anchor at the end: untouched
    ],
)
def test_the_final_dollar_is_the_end_of_the_text(pattern: str, text: str, matches: bool) -> None:
    assert bool(compile_go(pattern).match(text)) is matches


def test_pythons_own_dollar_accepts_a_final_newline() -> None:
    """Why compile_go exists: the plain pattern takes "abc\n" for a name."""
    assert re.match("^[a-z]+$", "abc\n") is not None


@pytest.mark.parametrize("check", [dns1123_label_errors, qualified_name_errors, label_value_errors])
def test_a_trailing_newline_is_no_valid_name_or_value(check: object) -> None:
    assert callable(check)
    assert check("abc") == []
    assert check("abc\n") != []


def test_a_quantity_with_a_trailing_newline_does_not_parse() -> None:
    parse_quantity("8Gi")
    with pytest.raises(InvalidQuantity):
        parse_quantity("8Gi\n")


def test_a_machine_type_named_with_a_trailing_newline_is_denied() -> None:
    raw = cloud_profile_dict()
    raw["spec"]["machineTypes"][0]["name"] += "\n"
    found = triples(cloudprofile.validate_create(request(cloud_profile(raw)), EMPTY_VIEW, Settings()))
    assert ("CP-MT-002", "spec.machineTypes[0].name", ErrorType.INVALID) in found
