"""The declarations of the cache layer (`caching.findings.remembered`, `clean_when_empty`): a wrapped check gives
what the plain check gives, runs again exactly when an input it declares changes, and refuses declarations that do
not name its parameters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.caching.findings import FindingStores, clean_when_empty, remembered
from webhook.domain.field import SPEC, FieldPath, Finding, Rule

RULE = Rule("TEST-CACHE-001", source="tests/test_caching_findings.py")
NOW = datetime(2026, 11, 21, tzinfo=UTC)


@dataclass(frozen=True)
class Ctx:
    """A context as remembered checks read it: the stores, the clock and the key of the settings."""

    now: datetime = NOW
    key: tuple[bool, ...] = (False,)
    findings: FindingStores | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Entry:
    value: int
    expires: datetime | None = None


@dataclass(frozen=True)
class Image:
    name: str
    strategy: str
    versions: tuple[Entry, ...]


RUNS: list[str] = []


def _stamps(entries: Sequence[Entry]) -> list[datetime]:
    return [e.expires for e in entries if e.expires is not None]


@remembered(entries="image.versions", keys={"image": lambda image: (image.name, image.strategy)}, clock=_stamps)
def _check_image(image: Image, limit: int, ctx: Ctx, path: FieldPath) -> list[Finding]:
    RUNS.append(image.name)
    found = [
        RULE.invalid(path.index(i), e.value, f"over {limit}") for i, e in enumerate(image.versions) if e.value > limit
    ]
    found += [
        RULE.forbidden(path.index(i), f"{image.strategy} expired")
        for i, e in enumerate(image.versions)
        if e.expires is not None and e.expires <= ctx.now
    ]
    return found


@clean_when_empty(entry="entry", keys={"limit": lambda limit: limit // 10})
def _check_entry(entry: Entry, limit: int, ctx: Ctx, path: FieldPath) -> list[Finding]:
    RUNS.append(str(entry.value))
    return [RULE.invalid(path, entry.value, "over")] if entry.value > (limit // 10) * 10 else []


@st.composite
def images(draw: st.DrawFn) -> Image:
    entries = tuple(
        Entry(v, NOW + timedelta(hours=h) if h is not None else None)
        for v, h in draw(st.lists(st.tuples(st.integers(0, 9), st.none() | st.integers(-48, 48)), max_size=4))
    )
    return Image(draw(st.sampled_from(("a", "b"))), draw(st.sampled_from(("major", "patch"))), entries)


@given(data=st.data())
def test_a_remembered_check_answers_as_the_plain_one_whatever_changes(data: st.DataObject) -> None:
    stores = FindingStores()
    image = data.draw(images(), label="image")
    for step in range(data.draw(st.integers(1, 6), label="steps")):
        move = data.draw(st.sampled_from(("same", "rename", "clock", "limit", "new entries")), label=f"move {step}")
        now = NOW + timedelta(hours=data.draw(st.integers(-50, 50), label=f"hours {step}"))
        limit = data.draw(st.integers(0, 9), label=f"limit {step}")
        if move == "rename":
            image = Image("c" + image.name, image.strategy, image.versions)
        elif move == "new entries":
            image = data.draw(images(), label=f"image {step}")
        cached = _check_image(image, limit, Ctx(now=now, findings=stores), SPEC)
        assert cached == _check_image(image, limit, Ctx(now=now), SPEC), (move, now, limit)


def test_a_remembered_check_runs_again_when_a_declared_input_changes() -> None:
    stores, versions = FindingStores(), (Entry(5), Entry(7, NOW + timedelta(days=2, hours=5)))
    image = Image("a", "major", versions)
    RUNS.clear()
    for _ in range(2):
        _check_image(image, 6, Ctx(findings=stores), SPEC)
    assert RUNS == ["a"]  # the same entries, values and clock window: remembered
    _check_image(Image("a", "patch", versions), 6, Ctx(findings=stores), SPEC)  # the strategy is read
    _check_image(image, 4, Ctx(findings=stores), SPEC)  # so is the limit
    _check_image(image, 6, Ctx(findings=stores, key=(True,)), SPEC)  # and the settings
    _check_image(
        Image("a", "major", (Entry(5), Entry(7, NOW + timedelta(days=2, hours=5)))), 6, Ctx(findings=stores), SPEC
    )
    _check_image(image, 6, Ctx(now=NOW + timedelta(days=3), findings=stores), SPEC)  # past an expiry: the clock
    assert RUNS == ["a"] * 6


def test_a_clean_entry_is_skipped_until_a_declared_input_changes() -> None:
    stores, entry = FindingStores(), Entry(3)
    RUNS.clear()
    assert _check_entry(entry, 30, Ctx(findings=stores), SPEC) == []
    assert _check_entry(entry, 35, Ctx(findings=stores), SPEC.child("x")) == []  # the same limit // 10, another path
    assert RUNS == ["3"]
    assert _check_entry(entry, 1, Ctx(findings=stores), SPEC) != []  # another declared input: judged
    assert _check_entry(entry, 1, Ctx(findings=stores), SPEC) != []  # findings are never remembered
    assert RUNS == ["3", "3", "3"]


def test_a_declaration_must_name_the_checks_parameters() -> None:
    def no_ctx(entry: Entry) -> list[Finding]:
        return []

    def named(entry: Entry, ctx: Ctx) -> list[Finding]:
        return []

    def variadic(*args: Any, ctx: Ctx) -> list[Finding]:
        return []

    with pytest.raises(TypeError, match="takes its context as `ctx`"):
        clean_when_empty(entry="entry")(no_ctx)
    with pytest.raises(TypeError, match="no parameter versions"):
        remembered(entries="versions")(named)
    with pytest.raises(TypeError, match="names each of its parameters"):
        remembered(entries="ctx")(variadic)
