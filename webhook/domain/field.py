"""Field paths, rules and findings: the vocabulary every validator speaks.

A validator returns a list of `Finding`s. Each finding is made by a `Rule` (so it always carries a rule id),
points at a `FieldPath` inside the object, and has a Kubernetes field-error `ErrorType`. Only
`webhook.judging.judge` renders findings into messages; the shapes here mirror
k8s.io/apimachinery/pkg/util/validation/field (Path, Error, ErrorType).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from types import FrameType, MappingProxyType
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
        """Mark `fn`, a module-level function, as an implementation of this rule (for crash attribution:
        `rule_of_frame`); returns `fn` itself."""
        fn.checked_rule = self  # type: ignore[attr-defined]
        return fn


def rule_of_frame(frame: FrameType) -> Rule | None:
    """The rule of the `Rule.check`-marked module-level function running in `frame` (through a wrapper of the cache
    layer too), or None."""
    fn = frame.f_globals.get(frame.f_code.co_name)
    if getattr(getattr(fn, "__wrapped__", fn), "__code__", None) is not frame.f_code:
        return None
    rule = getattr(fn, "checked_rule", None)
    return rule if isinstance(rule, Rule) else None


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
