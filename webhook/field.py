"""Field paths, rules and findings: the vocabulary every validator speaks.

A validator returns a list of `Finding`s. Each finding is made by a `Rule` (so it always carries a rule id),
points at a `FieldPath` inside the object, and has a Kubernetes field-error `ErrorType`. Only
`webhook.admission` renders findings into messages; the shapes here mirror
k8s.io/apimachinery/pkg/util/validation/field (Path, Error, ErrorType).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import Enum, StrEnum
from types import CodeType, MappingProxyType
from typing import Any, Final, TypeVar


@dataclass(frozen=True, slots=True)
class FieldPath:
    """Path to an API field, rendered as Kubernetes renders it: ``spec.machineImages[0].versions[2]``.

    Segments are the API's camelCase spelling (never derived from Python names); an index segment is stored
    pre-rendered as ``[i]``. Gardener's literal ``versions[]`` segment is passed to `child` as is.
    """

    segments: tuple[str, ...] = ()

    # child() and index() run for every list entry a validator visits: they build the new path without the
    # frozen dataclass __init__ (object.__new__ plus the slot's setter, both C), about twice as fast.
    def child(self, *names: str) -> FieldPath:
        """Return this path extended by one or more field names."""
        path = _new_path(FieldPath)
        _set_segments(path, self.segments + names)
        return path

    def index(self, i: int | str) -> FieldPath:
        """Return this path extended by a list index or a map key (``labels[app]``)."""
        path = _new_path(FieldPath)
        segment = _INDEXES[i] if type(i) is int and 0 <= i < _CACHED_INDEXES else f"[{i}]"
        _set_segments(path, (*self.segments, segment))
        return path

    def __str__(self) -> str:
        return "".join(s if s.startswith("[") else "." + s for s in self.segments).removeprefix(".")

    @classmethod
    def from_loc(cls, loc: Sequence[int | str], base: FieldPath | None = None) -> FieldPath:
        """Turn a pydantic error location (aliases, ints for list indexes) into a path below `base`."""
        path = base or ROOT
        for part in loc:
            path = path.index(part) if isinstance(part, int) else path.child(part)
        return path


_new_path: Final = object.__new__
_set_segments: Final = FieldPath.segments.__set__  # type: ignore[attr-defined,misc]  # the slot descriptor
_CACHED_INDEXES: Final = 1024
_INDEXES: Final = tuple(f"[{i}]" for i in range(_CACHED_INDEXES))

ROOT: Final = FieldPath()
METADATA: Final = ROOT.child("metadata")
SPEC: Final = ROOT.child("spec")


class ErrorType(Enum):
    """Kubernetes field-error types; value = (text in status.message, reason in status.details.causes)."""

    REQUIRED = ("Required value", "FieldValueRequired")
    INVALID = ("Invalid value", "FieldValueInvalid")
    UNSUPPORTED = ("Unsupported value", "FieldValueNotSupported")
    DUPLICATE = ("Duplicate value", "FieldValueDuplicate")
    FORBIDDEN = ("Forbidden", "FieldValueForbidden")
    TOO_LONG = ("Too long", "FieldValueTooLong")

    @property
    def text(self) -> str:
        return self.value[0]

    @property
    def reason(self) -> str:
        return self.value[1]


class Mode(StrEnum):
    """What a finding of a rule does: deny the request, become a warning, or nothing (config `rules:`)."""

    DENY = "deny"
    WARN = "warn"
    OFF = "off"


class _NoValue:
    """Marker for findings that show no value (Required, Forbidden)."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Final = _NoValue()
# The detail of a NotSupported finding whose list of allowed values is empty, unless its rule names what is missing.
NOTHING_SUPPORTED: Final = "no value is supported"

# Write-once table: code object of a @Rule.check function -> rule, for naming the rule behind a crash.
_RULE_OF_CODE: dict[CodeType, Rule] = {}

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the catalogue (docs/rules.md) or of a requirement (docs/requirements.md).

    id: stable id used in config keys, audit annotations and logs ("CP-K8S-003").
    source: where the rule comes from (Gardener file + function, or docs/requirements.md + heading).
    mode: default mode; the configuration's `rules:` map overrides it.
    uses_cluster: findings depend on cluster state, so a denial is 403 Forbidden rather than 422 Invalid.
    """

    id: str
    source: str
    mode: Mode = Mode.DENY
    uses_cluster: bool = False

    def required(self, path: FieldPath, detail: str) -> Finding:
        return Finding(self, path, ErrorType.REQUIRED, detail)

    def invalid(self, path: FieldPath, value: object, detail: str) -> Finding:
        return Finding(self, path, ErrorType.INVALID, detail, value)

    def unsupported(
        self, path: FieldPath, value: object, allowed: Iterable[str], *, none: str = NOTHING_SUPPORTED
    ) -> Finding:
        """NotSupported: `value` is not one of `allowed` (listed quoted, in the given order).

        none: the detail when nothing is allowed, naming what is missing ("the cloud profile offers no regions"),
        so that no message ends in an empty "supported values: ".
        """
        quoted = ", ".join(json.dumps(a) for a in allowed)
        return Finding(self, path, ErrorType.UNSUPPORTED, f"supported values: {quoted}" if quoted else none, value)

    def duplicate(self, path: FieldPath, value: object, detail: str = "") -> Finding:
        return Finding(self, path, ErrorType.DUPLICATE, detail, value)

    def forbidden(self, path: FieldPath, detail: str) -> Finding:
        return Finding(self, path, ErrorType.FORBIDDEN, detail)

    def too_long(self, path: FieldPath, max_bytes: int) -> Finding:
        """apimachinery field.TooLong: the value is not shown, only the limit (bytes)."""
        unit = "byte" if max_bytes == 1 else "bytes"
        return Finding(self, path, ErrorType.TOO_LONG, f"may not be more than {max_bytes} {unit}")

    def check(self, fn: F) -> F:
        """Record `fn` as an implementation of this rule (for crash attribution); returns `fn` unchanged."""
        _RULE_OF_CODE[fn.__code__] = self
        return fn


def rule_of_code(code: CodeType) -> Rule | None:
    """Rule whose `check`-decorated function owns `code`, or None."""
    return _RULE_OF_CODE.get(code)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem found in an object: a Kubernetes field error tagged with the rule that found it.

    detail: lower case, no trailing period, states the requirement ("must …", "cannot …").
    value: the offending value, shown for Invalid, Unsupported and Duplicate only.
    """

    rule: Rule
    path: FieldPath
    type: ErrorType
    detail: str
    value: object = field(default=NO_VALUE)

    def key(self) -> tuple[str, str, ErrorType, str, str]:
        """Identity used to recognise the same finding on the old and the new object (ratcheting)."""
        return (self.rule.id, str(self.path), self.type, self.detail, render_value(self.value))


def render_value(value: object) -> str:
    """Render a value the way Go's field errors do: strings quoted, numbers bare, others as compact JSON."""
    if value is NO_VALUE:
        return ""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=str)
    except (TypeError, ValueError):
        return json.dumps(str(value))


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a validator concluded: findings that deny and findings that warn (before policy is applied)."""

    errors: tuple[Finding, ...] = ()
    warnings: tuple[Finding, ...] = ()

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> Verdict:
        """Split findings by each rule's default mode; OFF-by-default rules are dropped."""
        errors: list[Finding] = []
        warnings: list[Finding] = []
        for f in findings:
            if f.rule.mode is Mode.DENY:
                errors.append(f)
            elif f.rule.mode is Mode.WARN:
                warnings.append(f)
        return cls(tuple(errors), tuple(warnings))

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.errors + self.warnings


def rules_table(*groups: Iterable[Rule]) -> MappingProxyType[str, Rule]:
    """Build a read-only id -> Rule table; raises ValueError on a repeated id (a programming error)."""
    table: dict[str, Rule] = {}
    for group in groups:
        for r in group:
            if r.id in table and table[r.id] is not r:
                raise ValueError(f"rule id {r.id} defined twice")
            table[r.id] = r
    return MappingProxyType(table)


class CleanEntries:
    """List entries known to pass a check that reads nothing but the entry and a hashable context key.

    A CloudProfile UPDATE repeats hundreds of machine image versions that an earlier request already judged, and
    the server shares one decoded model per unchanged entry across requests (`kinds.DecodedEntries`). A check whose
    findings are a pure function of (entry, context) need not run again on a model it found nothing in: `check`
    is skipped for such an entry. Only clean results are kept, so every finding is computed as
    before and its path and message stay what they were; an entry with findings is judged every time.

    Entries are remembered by identity with a strong reference, so an identity cannot be reused while it is
    remembered; models are never changed after decoding (defaulting copies). context: a hashable value that, with
    the entry, fixes the check's result (the check function itself is part of the key). capacity: (entry, context)
    pairs kept (each pair holds its entry: as many as the entries `DecodedEntries` keeps); beyond it the older half
    is dropped. A caller asks `known` and, when not, runs the check and
    `learn`s its result. Not thread-safe: validators run on one event loop per process.
    The contract: findings that depend only on entries whose content did not change are known (README "How a request
    is kept cheap, with the same answer").
    """

    def __init__(self, capacity: int = 20_000) -> None:
        self.capacity = capacity
        self.enabled = True
        self._clean: dict[tuple[int, object], object] = {}

    def __len__(self) -> int:
        return len(self._clean)

    def known(self, entry: object, context: Hashable) -> bool:
        """Whether the check of `context` found nothing in `entry` before (then it need not run)."""
        return self.enabled and self._clean.get((id(entry), context)) is entry

    def learn(self, entry: object, context: Hashable, found: Sequence[Finding]) -> None:
        """Record what the check of `context` found in `entry`: only an empty result is kept."""
        if found or not self.enabled:
            return
        clean = self._clean
        clean[(id(entry), context)] = entry
        if len(clean) > self.capacity:
            self._clean = dict(list(clean.items())[-(self.capacity // 2) :])

    def clear(self) -> None:
        """Forget every entry (tests compare with and without the memo)."""
        self._clean.clear()


# One per process: the validators' entry checks are pure, so sharing what they found clean changes no answer.
CLEAN_ENTRIES: Final = CleanEntries()


_DAY: Final = timedelta(days=1)
FOREVER: Final = datetime.max.replace(tzinfo=UTC)
_EPOCH: Final = datetime.min.replace(tzinfo=UTC)


def stable_until(now: datetime, stamps: Iterable[datetime]) -> datetime | None:
    """The first instant after `now` (aware UTC) that lies a whole number of days from one of `stamps`, at most a day
    ahead; None when `now` is such an instant. Until then, every comparison of `now` with a stamp shifted by whole
    days (expirationDate, lifecycle startTime, "expires within N days", "in N days") comes out as it does at `now`.
    """
    until = now + _DAY
    for stamp in stamps:
        ahead = (stamp - now) % _DAY
        if not ahead:
            return None
        until = min(until, now + ahead)
    return until


class ListFindings:
    """Findings of a check over a list of entries, remembered by the entries' identities, a context and a clock window.

    The companion of `CleanEntries` for checks across entries (duplicates, one supported version per minor,
    expiry warnings): when every entry is the same object as before (the server shares one decoded model per
    unchanged entry, `kinds.DecodedEntries`), the same context (every other input of the check, the field path
    included: findings carry it) and `now` lies in [then, until), the findings are those found then. A caller asks
    `known` and, when it returns None, runs the check and `learn`s its findings with `until`: `stable_until` of the
    entries' timestamps for a check that reads the clock, FOREVER for one that does not, None to keep nothing
    (`findings` does both).
    Holds the entries, so their ids are not reused while kept; capacity: results kept, max_entries: entries they
    hold in all (each holds a model, so this bounds the memory a stream of distinct objects can pin); least
    recently used dropped first. Not thread-safe: validators run on one event loop per process. Contract as for `EntryFindings` above.
    """

    def __init__(self, capacity: int = 4096, max_entries: int = 20_000) -> None:
        self.capacity = capacity
        self.max_entries = max_entries
        self.enabled = True
        self._held = 0  # entries held by the kept results
        self._found: OrderedDict[tuple[Any, ...], tuple[tuple[object, ...], datetime, datetime, list[Finding]]] = (
            OrderedDict()
        )

    def __len__(self) -> int:
        return len(self._found)

    def known(
        self, check: Callable[..., Any], entries: Sequence[object], context: Hashable, now: datetime
    ) -> list[Finding] | None:
        """The findings `check` had on these very entries under `context` with a clock in the same window, or None."""
        if not self.enabled:
            return None
        key = (check, context, *map(id, entries))
        found = self._found.get(key)
        # The key holds the entries' ids and the value holds the entries: ids of live objects are unique, so equal
        # keys mean the very same objects.
        if found is None or not found[1] <= now < found[2]:
            return None
        self._found.move_to_end(key)
        return list(found[3])

    def learn(
        self,
        check: Callable[..., Any],
        entries: Sequence[object],
        context: Hashable,
        since: datetime,
        until: datetime | None,
        found: Sequence[Finding],
    ) -> None:
        """Remember what `check` found on `entries` under `context`, valid for a clock in [since, until) (None:
        nothing is kept)."""
        if until is None or not self.enabled:
            return
        if len(entries) > self.max_entries:
            return
        key = (check, context, *map(id, entries))
        previous = self._found.pop(key, None)
        if previous is not None:
            self._held -= len(previous[0])
        self._found[key] = (tuple(entries), since, until, list(found))
        self._held += len(entries)
        while len(self._found) > self.capacity or self._held > self.max_entries:
            self._held -= len(self._found.popitem(last=False)[1][0])

    def findings(
        self,
        check: Callable[..., Any],
        entries: Sequence[object],
        context: Hashable,
        run: Callable[[], list[Finding]],
        *,
        now: datetime | None = None,
        stamps: Callable[[], Iterable[datetime]] | None = None,
    ) -> list[Finding]:
        """`known`, else `run()` learned. now, stamps: for a check that reads the clock, the request's clock and every
        timestamp of the entries it compares with it (kept until `stable_until(now, stamps())`); both None for a
        check that does not (kept for ever)."""
        at = _EPOCH if now is None else now
        found = self.known(check, entries, context, at)
        if found is not None:
            return found
        found = run()
        if now is None:
            self.learn(check, entries, context, _EPOCH, FOREVER, found)
        else:
            self.learn(check, entries, context, now, stable_until(now, stamps() if stamps is not None else ()), found)
        return found

    def clear(self) -> None:
        self._found.clear()
        self._held = 0


# One per process, like CLEAN_ENTRIES.
LIST_FINDINGS: Final = ListFindings()


def remember_entry_findings(enabled: bool) -> None:
    """Switch CLEAN_ENTRIES and LIST_FINDINGS on or off (tests compare both paths); what they hold is kept."""
    CLEAN_ENTRIES.enabled = LIST_FINDINGS.enabled = enabled
