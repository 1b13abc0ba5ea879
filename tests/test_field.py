"""webhook/domain/field.py: field paths as Kubernetes renders them, findings made by rules, Go-style values, verdicts."""

from __future__ import annotations

import traceback
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

import pytest

from webhook.caching.findings import CleanEntries, ListFindings, stable_until
from webhook.domain.field import (
    METADATA,
    NO_VALUE,
    ROOT,
    SPEC,
    ErrorType,
    FieldPath,
    Finding,
    Mode,
    Rule,
    Verdict,
    render_value,
    rule_of_frame,
    rules_table,
)

RULE = Rule("TEST-001", source="tests/test_field.py")
WARN = Rule("TEST-WARN-001", source="tests/test_field.py", mode=Mode.WARN)
OFF = Rule("TEST-OFF-001", source="tests/test_field.py", mode=Mode.OFF)

# ---------------------------------------------------------------------------------------------------- FieldPath


@pytest.mark.parametrize(
    ("path", "rendered"),
    [
        pytest.param(ROOT, "", id="root"),
        pytest.param(SPEC, "spec", id="spec"),
        pytest.param(METADATA.child("labels").index("app"), "metadata.labels[app]", id="map-key"),
        pytest.param(
            SPEC.child("machineImages").index(0).child("versions").index(2),
            "spec.machineImages[0].versions[2]",
            id="indexes",
        ),
        pytest.param(SPEC.child("kubernetes", "versions"), "spec.kubernetes.versions", id="several-names"),
        pytest.param(SPEC.child("versions[]").child("version"), "spec.versions[].version", id="gardener-literal"),
        pytest.param(ROOT.index(3), "[3]", id="index-first"),
        pytest.param(SPEC.child("a").index(1023), "spec.a[1023]", id="last-cached-index"),
        pytest.param(SPEC.child("a").index(1024), "spec.a[1024]", id="uncached-index"),
        pytest.param(SPEC.child("a").index(-1), "spec.a[-1]", id="negative-index"),
    ],
)
def test_field_path_renders_like_kubernetes(path: FieldPath, rendered: str) -> None:
    assert str(path) == rendered


def test_field_path_is_a_value() -> None:
    workers = SPEC.child("provider", "workers")
    first, second = workers.index(0), workers.index(1)
    assert str(workers) == "spec.provider.workers"  # extending never changes the path extended
    assert first != second
    assert first == SPEC.child("provider").child("workers").index(0)
    assert first == FieldPath(("spec", "provider", "workers", "[0]"))
    assert hash(first) == hash(FieldPath(("spec", "provider", "workers", "[0]")))
    assert workers.index(5) == workers.index("5")  # an index is kept rendered
    with pytest.raises(AttributeError):
        first.segments = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("loc", "base", "rendered"),
    [
        pytest.param(("spec", "machineImages", 0, "versions", 2), None, "spec.machineImages[0].versions[2]", id="loc"),
        pytest.param(("kubernetes", "versions", 4), SPEC, "spec.kubernetes.versions[4]", id="below-base"),
        pytest.param((), None, "", id="empty"),
        pytest.param((), SPEC.child("a"), "spec.a", id="empty-below-base"),
        pytest.param(("labels", "0"), METADATA, "metadata.labels.0", id="string-digits-are-names"),
    ],
)
def test_from_loc(loc: tuple[int | str, ...], base: FieldPath | None, rendered: str) -> None:
    path = FieldPath.from_loc(loc, base)
    assert str(path) == rendered


def test_from_loc_builds_the_same_path_as_child_and_index() -> None:
    assert FieldPath.from_loc(("spec", "workers", 1, "machine")) == SPEC.child("workers").index(1).child("machine")


# ---------------------------------------------------------------------------------------------- Rule, Finding


@pytest.mark.parametrize(
    ("error_type", "text", "reason"),
    [
        (ErrorType.REQUIRED, "Required value", "FieldValueRequired"),
        (ErrorType.INVALID, "Invalid value", "FieldValueInvalid"),
        (ErrorType.UNSUPPORTED, "Unsupported value", "FieldValueNotSupported"),
        (ErrorType.DUPLICATE, "Duplicate value", "FieldValueDuplicate"),
        (ErrorType.FORBIDDEN, "Forbidden", "FieldValueForbidden"),
        (ErrorType.TOO_LONG, "Too long", "FieldValueTooLong"),
    ],
)
def test_error_types_carry_kubernetes_text_and_reason(error_type: ErrorType, text: str, reason: str) -> None:
    assert (error_type.text, error_type.reason) == (text, reason)


PATH = SPEC.child("kubernetes", "versions").index(1)


@pytest.mark.parametrize(
    ("finding", "error_type", "detail", "value"),
    [
        pytest.param(RULE.required(PATH, "must provide a version"), ErrorType.REQUIRED, "must provide a version",
                     NO_VALUE, id="required"),
        pytest.param(RULE.invalid(PATH, "1.x", "must be a semantic version"), ErrorType.INVALID,
                     "must be a semantic version", "1.x", id="invalid"),
        pytest.param(RULE.unsupported(PATH, "beta", ["preview", "supported"]), ErrorType.UNSUPPORTED,
                     'supported values: "preview", "supported"', "beta", id="unsupported"),
        pytest.param(RULE.unsupported(PATH, "x", ("b", "a")), ErrorType.UNSUPPORTED, 'supported values: "b", "a"',
                     "x", id="unsupported-keeps-the-order-given"),
        pytest.param(RULE.unsupported(PATH, "x", []), ErrorType.UNSUPPORTED, "no value is supported", "x",
                     id="unsupported-nothing-allowed"),
        pytest.param(RULE.unsupported(PATH, "x", iter(()), none="the cloud profile offers no regions"),
                     ErrorType.UNSUPPORTED, "the cloud profile offers no regions", "x",
                     id="unsupported-nothing-allowed-says-what"),
        pytest.param(RULE.duplicate(PATH, "1.30.1"), ErrorType.DUPLICATE, "", "1.30.1", id="duplicate"),
        pytest.param(RULE.duplicate(PATH, "a", "must be unique"), ErrorType.DUPLICATE, "must be unique", "a",
                     id="duplicate-with-detail"),
        pytest.param(RULE.too_long(PATH, 15), ErrorType.TOO_LONG, "may not be more than 15 bytes", NO_VALUE,
                     id="too-long"),
        pytest.param(RULE.too_long(PATH, 1), ErrorType.TOO_LONG, "may not be more than 1 byte", NO_VALUE,
                     id="too-long-one-byte"),
        pytest.param(RULE.forbidden(PATH, "must not be removed"), ErrorType.FORBIDDEN, "must not be removed",
                     NO_VALUE, id="forbidden"),
    ],
)  # fmt: skip
def test_rule_constructors_pick_the_type(finding: Finding, error_type: ErrorType, detail: str, value: object) -> None:
    assert (finding.rule, finding.path, finding.type, finding.detail) == (RULE, PATH, error_type, detail)
    assert finding.value == value if value is not NO_VALUE else finding.value is NO_VALUE


def test_finding_key_identifies_the_same_finding_on_old_and_new_objects() -> None:
    finding = RULE.invalid(PATH, "1.x", "must be a semantic version")
    assert finding.key() == ("TEST-001", "spec.kubernetes.versions[1]", ErrorType.INVALID,
                             "must be a semantic version", '"1.x"')  # fmt: skip
    assert finding.key() == RULE.invalid(SPEC.child("kubernetes", "versions").index(1), "1.x", finding.detail).key()
    assert finding.key() != RULE.invalid(PATH, "1.y", finding.detail).key()
    assert RULE.forbidden(PATH, "must not").key()[4] == ""


def _crashing_check(path: FieldPath) -> list[Finding]:
    raise ValueError(str(path))


def _unmarked(path: FieldPath) -> list[Finding]:
    return _crashing_check(path)


def test_check_marks_the_function_for_crash_attribution_and_returns_it_unchanged() -> None:
    assert RULE.check(_crashing_check) is _crashing_check
    try:
        _unmarked(PATH)
    except ValueError as exc:
        rules = {frame.f_code.co_name: rule_of_frame(frame) for frame, _ in traceback.walk_tb(exc.__traceback__)}
    assert rules["_crashing_check"] is RULE
    assert rules["_unmarked"] is None
    assert rules["test_check_marks_the_function_for_crash_attribution_and_returns_it_unchanged"] is None


# ------------------------------------------------------------------------------------------------ render_value


class _Opaque:
    def __str__(self) -> str:
        return "opaque"


def _circular() -> list[Any]:
    items: list[Any] = []
    items.append(items)
    return items


@pytest.mark.parametrize(
    ("value", "rendered"),
    [
        pytest.param(NO_VALUE, "", id="no-value"),
        pytest.param("1.30.1", '"1.30.1"', id="string"),
        pytest.param("", '""', id="empty-string"),
        pytest.param('say "hi" \\ now', '"say \\"hi\\" \\\\ now"', id="quotes-and-backslash-escaped"),
        pytest.param("line\nbreak", '"line\\nbreak"', id="newline-escaped"),
        pytest.param("Größe ✓", '"Größe ✓"', id="unicode-as-is"),
        pytest.param(True, "true", id="true"),
        pytest.param(False, "false", id="false"),
        pytest.param(3, "3", id="int"),
        pytest.param(-7, "-7", id="negative-int"),
        pytest.param(1.5, "1.5", id="float"),
        pytest.param(None, "null", id="none"),
        pytest.param(["a", 1, True], '["a",1,true]', id="list-compact"),
        pytest.param(("a", "b"), '["a","b"]', id="tuple-as-list"),
        pytest.param({"b": 2, "a": {"c": None}}, '{"a":{"c":null},"b":2}', id="mapping-sorted-compact"),
        pytest.param({"name": "ü"}, '{"name":"ü"}', id="mapping-unicode-as-is"),
        pytest.param(datetime(2026, 11, 21, tzinfo=UTC), '"2026-11-21 00:00:00+00:00"', id="other-as-string"),
        pytest.param([_Opaque()], '["opaque"]', id="nested-other-as-string"),
        pytest.param(_circular(), '"[[...]]"', id="not-json-at-all"),
    ],
)
def test_render_value_quotes_like_go(value: object, rendered: str) -> None:
    assert render_value(value) == rendered


# ------------------------------------------------------------------------------------------------------ Verdict


def test_verdict_of_splits_by_each_rule_default_mode_in_order() -> None:
    first, second = RULE.forbidden(SPEC.child("a"), "must not"), RULE.forbidden(SPEC.child("b"), "must not")
    advice = WARN.invalid(SPEC.child("c"), 1, "should be 2")
    silent = OFF.invalid(SPEC.child("d"), 1, "is off by default")
    verdict = Verdict.of([first, advice, silent, second])
    assert verdict == Verdict((first, second), (advice,))
    assert verdict.findings == (first, second, advice)


def test_verdict_of_nothing_is_empty() -> None:
    assert Verdict.of([]) == Verdict() == Verdict((), ())
    assert Verdict.of(iter([])).findings == ()


# -------------------------------------------------------------------------------------------------- rules_table


def test_rules_table_maps_ids_to_rules_across_groups() -> None:
    table = rules_table([RULE, WARN], (OFF,), [RULE])  # the same rule twice is the same rule
    assert isinstance(table, MappingProxyType)
    assert dict(table) == {"TEST-001": RULE, "TEST-WARN-001": WARN, "TEST-OFF-001": OFF}
    with pytest.raises(TypeError):
        table["TEST-002"] = RULE  # type: ignore[index]


@pytest.mark.parametrize(
    "groups",
    [
        pytest.param(([RULE], [Rule("TEST-001", source="elsewhere")]), id="across-groups"),
        pytest.param(([RULE, Rule("TEST-001", source="elsewhere", mode=Mode.WARN)],), id="within-a-group"),
    ],
)
def test_rules_table_refuses_an_id_defined_twice(groups: tuple[list[Rule], ...]) -> None:
    with pytest.raises(ValueError, match="^rule id TEST-001 defined twice$"):
        rules_table(*groups)


def test_rules_table_tells_equal_rules_apart() -> None:
    """Two rules that compare equal are still two definitions: the table goes by identity."""
    twin = Rule(RULE.id, source=RULE.source)
    assert twin == RULE and twin is not RULE
    with pytest.raises(ValueError, match="defined twice"):
        rules_table([RULE, twin])


# ---------------------------------------------------------------------------------------- entry memos

NOW = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)


def test_stable_until_is_the_next_whole_day_offset_of_any_stamp() -> None:
    stamp = datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
    assert stable_until(NOW, []) == NOW + timedelta(days=1)
    assert stable_until(NOW, [stamp]) == datetime(2026, 11, 25, 0, 0, tzinfo=UTC)  # stamp - 6 days
    assert stable_until(NOW, [stamp, NOW + timedelta(hours=3, days=40)]) == NOW + timedelta(hours=3)
    assert stable_until(stamp - timedelta(days=6), [stamp]) is None  # a comparison flips at this very instant


def test_clean_entries_skip_only_the_same_object_under_the_same_context() -> None:
    memo = CleanEntries(capacity=4)
    entry, twin = {"a": 1}, {"a": 1}
    assert not memo.known(entry, "ctx")
    memo.learn(entry, "ctx", [])
    assert memo.known(entry, "ctx") and not memo.known(twin, "ctx") and not memo.known(entry, "other")
    memo.learn(twin, "ctx", [Finding(RULE, SPEC, ErrorType.INVALID, "bad")])
    assert not memo.known(twin, "ctx")  # an entry with findings is judged every time
    for i in range(10):
        memo.learn(object(), i, [])
    assert len(memo) <= 4


def test_list_findings_are_taken_for_the_same_entries_within_the_window_only() -> None:
    memo = ListFindings(capacity=2)
    entries = [object(), object()]
    runs: list[datetime] = []
    stamp = datetime(2026, 12, 1, tzinfo=UTC)

    def check(now: datetime) -> list[Finding]:
        runs.append(now)
        return [Finding(RULE, SPEC.child("x"), ErrorType.INVALID, f"at {now}")]

    def found(now: datetime, items: list[object] = entries, context: str = "ctx") -> list[Finding]:
        return memo.findings(check, items, context, lambda: check(now), now=now, stamps=lambda: [stamp])

    first = found(NOW)
    assert found(NOW + timedelta(hours=14)) == first and len(runs) == 1  # before 2026-11-25T00:00: remembered
    found(datetime(2026, 11, 25, tzinfo=UTC))  # the window's end: judged again
    found(NOW - timedelta(seconds=1))  # before the window: judged again
    assert len(runs) == 3
    found(NOW, [entries[0], object()])  # another entry
    found(NOW, context="other")
    assert len(runs) == 5 and len(memo) <= 2
    static = memo.findings(check, entries, "static", lambda: check(NOW))
    assert memo.findings(check, entries, "static", lambda: check(NOW + timedelta(days=9))) == static  # no clock
    assert len(runs) == 6


def test_list_findings_hold_at_most_max_entries() -> None:
    memo = ListFindings(capacity=100, max_entries=3)
    kept = [object(), object()]
    memo.findings(rules_table, kept, "a", list)
    memo.findings(rules_table, [object(), object()], "b", list)  # 4 entries held: the older result goes
    memo.findings(rules_table, [object()] * 4, "c", list)  # more than max_entries alone: not kept
    assert len(memo) == 1
    runs: list[int] = []
    memo.findings(rules_table, kept, "a", lambda: runs.append(1) or [])
    assert runs == [1]
