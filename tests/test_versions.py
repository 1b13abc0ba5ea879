"""Version parsing and constraints must match Masterminds semver v3, as Gardener uses it (§0.5)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from webhook.domain.constraints import InvalidConstraint, parse_constraint
from webhook.domain.versions import (
    InvalidVersion,
    current_classification,
    is_kubernetes_version_format,
    normalize_version,
    parse_version,
)
from webhook.models.cloudprofile import ExpirableVersion, LifecycleStage

NOW = datetime(2026, 11, 21, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.30.1", (1, 30, 1)),
        ("v1.30.1", (1, 30, 1)),
        ("1.30", (1, 30, 0)),
        ("1", (1, 0, 0)),
        ("18.04.201906170", (18, 4, 201906170)),
        ("1.0.1-dev", (1, 0, 1)),
        ("1.2.3+build.5", (1, 2, 3)),
    ],
)
def test_loose_versions_parse(text: str, expected: tuple[int, int, int]) -> None:
    v = parse_version(text)
    assert (v.major, v.minor, v.patch) == expected


@pytest.mark.parametrize(
    "text", ["", "a.b.c", "1.2.baz", "1..2", "v-1", "1.2.3.4", "99999999999999999999.1.1", "1.0.0-01", " 1.2.3"]
)
def test_invalid_versions_raise(text: str) -> None:
    with pytest.raises(InvalidVersion):
        parse_version(text)


def test_ordering_follows_semver_precedence() -> None:
    ordered = [
        "1.0.0-alpha",
        "1.0.0-alpha.1",
        "1.0.0-alpha.beta",
        "1.0.0-beta.2",
        "1.0.0-beta.11",
        "1.0.0-rc.1",
        "1.0.0",
        "1.0.1",
        "1.10.0",
    ]
    parsed = [parse_version(t) for t in ordered]
    backwards = list(reversed(parsed))
    assert sorted(backwards) == parsed
    assert parse_version("1.2.3+a") == parse_version("1.2.3+b")


def test_kubernetes_format_and_normalisation() -> None:
    assert is_kubernetes_version_format("1.30.1")
    assert not is_kubernetes_version_format("1.30")
    assert not is_kubernetes_version_format("v1.30.1")
    assert normalize_version("v1.2.3-foo+bar") == "1.2.3"


@pytest.mark.parametrize(
    ("constraint", "version", "allowed"),
    [
        ("< 1.26", "1.25.9", True),
        ("< 1.26", "1.26.0", False),
        (">= 1.26, < 1.30", "1.29.3", True),
        (">= 1.26, < 1.30", "1.30.0", False),
        ("~1.30", "1.30.7", True),
        ("~1.30", "1.31.0", False),
        ("1.28.x", "1.28.9", True),
        ("1.28.x", "1.29.0", False),
        ("^1.2", "1.9.0", True),
        ("^1.2", "2.0.0", False),
        ("< 1.26 || >= 1.30", "1.31.0", True),
        ("1.2 - 1.4.5", "1.4.5", True),
        ("1.2 - 1.4.5", "1.4.6", False),
        ("!= 1.30.1", "1.30.1", False),
        ("> 1.30", "1.30.5", False),
        ("> 1.30", "1.31.0", True),
        ("<= 1.30", "1.30.9", True),
        ("< 1.30", "1.29.0-rc.1", False),
    ],
)
def test_constraints(constraint: str, version: str, allowed: bool) -> None:
    assert parse_constraint(constraint).allows(parse_version(version)) is allowed


@pytest.mark.parametrize("text", ["", "invalid-version", ">>1.2", "1.2 <", "~>"])
def test_invalid_constraints(text: str) -> None:
    with pytest.raises(InvalidConstraint):
        parse_constraint(text)


def _v(**fields: object) -> ExpirableVersion:
    return ExpirableVersion.model_validate({"version": "1.0.0", **fields})


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "supported"),
        ({"classification": "preview"}, "preview"),
        ({"classification": "deprecated", "expirationDate": "2026-01-01T00:00:00Z"}, "expired"),
        ({"classification": "preview", "expirationDate": "2027-01-01T00:00:00Z"}, "preview"),
        ({"expirationDate": "2026-01-01T00:00:00Z"}, "expired"),
        ({"lifecycle": [{"classification": "preview", "startTime": "2027-01-01T00:00:00Z"}]}, "unavailable"),
        (
            {
                "lifecycle": [
                    {"classification": "preview"},
                    {"classification": "supported", "startTime": "2026-06-01T00:00:00Z"},
                ]
            },
            "supported",
        ),
    ],
)
def test_current_classification(fields: dict[str, object], expected: str) -> None:
    assert current_classification(_v(**fields), NOW) == expected


def test_lifecycle_stage_model_roundtrip() -> None:
    stage = LifecycleStage.model_validate({"classification": "supported", "startTime": "2026-01-01T00:00:00+02:00"})
    assert stage.start_time == datetime(2025, 12, 31, 22, tzinfo=UTC)
