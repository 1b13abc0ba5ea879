"""Version constraints as Masterminds/semver reads them (Gardener's kubeletVersionConstraint and the
Kubernetes feature tables): `>= 1.30, < 1.33`, `~1.2`, `^1.2`, `1.2 - 1.4`, `||` alternatives, `x` wildcards.
Source: github.com/Masterminds/semver/v3 constraints.go.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from webhook.domain.versions import InvalidVersion, Version, parse_version
from webhook.goport.goregexp import compile_go

# --------------------------------------------------------------------------------------------- constraints

_CV: Final = (
    r"v?([0-9|xX*]+)(\.[0-9|xX*]+)?(\.[0-9|xX*]+)?"
    r"(?:-([0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*))?"
    r"(?:\+([0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*))?"
)
_CV_NOGROUPS: Final = re.sub(r"\((?!\?)", "(?:", _CV)
_OPS: Final = r"=|!=|>|<|>=|=>|<=|=<|~|~>|\^|"
_ONE: Final = compile_go(rf"^\s*({_OPS})\s*({_CV})\s*$")
_FIND: Final = re.compile(rf"({_OPS})\s*({_CV_NOGROUPS})")
_VALID_GROUP: Final = compile_go(
    rf"^(?:\s*(?:{_OPS})\s*(?:{_CV_NOGROUPS})\s*)(?:(?:\s+|,\s*)(?:{_OPS})\s*(?:{_CV_NOGROUPS})\s*)*$"
)
_RANGE: Final = re.compile(rf"\s*({_CV_NOGROUPS})\s+-\s+({_CV_NOGROUPS})\s*")


class InvalidConstraint(ValueError):
    """Raised by `parse_constraint` for a string Masterminds' `NewConstraint` would reject."""


def _is_x(part: str) -> bool:
    return part in ("x", "X", "*")


@dataclass(frozen=True, slots=True)
class _Term:
    op: str
    version: Version
    minor_dirty: bool
    patch_dirty: bool
    dirty: bool

    def check(self, v: Version) -> bool:
        return _TERM_CHECKS[self.op](self, v)


def _tilde(t: _Term, v: Version) -> bool:
    if v < t.version:
        return False
    c = t.version
    if (c.major, c.minor, c.patch) == (0, 0, 0) and not t.minor_dirty and not t.patch_dirty:
        return True
    if v.major != c.major:
        return False
    return not (v.minor != c.minor and not t.minor_dirty)


def _tilde_or_equal(t: _Term, v: Version) -> bool:
    return _tilde(t, v) if t.dirty else v == t.version


def _not_equal(t: _Term, v: Version) -> bool:
    c = t.version
    if t.dirty:
        if c.major != v.major:
            return True
        if c.minor != v.minor and not t.minor_dirty:
            return True
        if t.minor_dirty:
            return False
        if c.patch != v.patch and not t.patch_dirty:
            return True
        if t.patch_dirty:
            return (v.prerelease or c.prerelease) != () and v.prerelease != c.prerelease
    return v != c


def _greater(t: _Term, v: Version) -> bool:
    c = t.version
    if not t.dirty:
        return v > c
    if v.major != c.major:
        return v.major > c.major
    if t.minor_dirty:
        return False
    if t.patch_dirty:
        return v.minor > c.minor
    return v > c


def _less_equal(t: _Term, v: Version) -> bool:
    c = t.version
    if not t.dirty:
        return v <= c
    if v.major > c.major:
        return False
    return not (v.major == c.major and v.minor > c.minor and not t.minor_dirty)


def _caret(t: _Term, v: Version) -> bool:
    c = t.version
    if v < c:
        return False
    if c.major > 0 or t.minor_dirty:
        return v.major == c.major
    if v.major > 0:
        return False
    if c.minor > 0 or t.patch_dirty:
        return v.minor == c.minor
    if v.minor > 0:
        return False
    return v.patch == c.patch


_TERM_CHECKS: Final[dict[str, Callable[[_Term, Version], bool]]] = {
    "": _tilde_or_equal,
    "=": _tilde_or_equal,
    "!=": _not_equal,
    ">": _greater,
    "<": lambda t, v: v < t.version,
    ">=": lambda t, v: v >= t.version,
    "=>": lambda t, v: v >= t.version,
    "<=": _less_equal,
    "=<": _less_equal,
    "~": _tilde,
    "~>": _tilde,
    "^": _caret,
}


@dataclass(frozen=True, slots=True)
class Constraint:
    """A parsed Masterminds constraint: OR-groups of AND-ed terms (`>= 1.26, < 1.30 || ~1.31`)."""

    text: str
    groups: tuple[tuple[_Term, ...], ...]
    group_has_prerelease: tuple[bool, ...]

    def allows(self, version: Version) -> bool:
        """True when `version` satisfies the constraint (pre-releases only match groups that name one)."""
        for terms, has_pre in zip(self.groups, self.group_has_prerelease, strict=True):
            if version.prerelease and not has_pre:
                continue
            if all(term.check(version) for term in terms):
                return True
        return False


def _parse_term(text: str) -> _Term:
    m = _ONE.match(text)
    if m is None:
        raise InvalidConstraint(f"improper constraint: {json.dumps(text)}")
    op, major, minor, patch, pre = m.group(1), m.group(3), m.group(4), m.group(5), m.group(6)
    suffix = f"-{pre}" if pre else ""
    minor_dirty = patch_dirty = dirty = False
    if _is_x(major):
        base, dirty = f"0.0.0{suffix}", True
    elif minor is None or _is_x(minor[1:]):
        base, dirty, minor_dirty = f"{major}.0.0{suffix}", True, True
    elif patch is None or _is_x(patch[1:]):
        base, dirty, patch_dirty = f"{major}{minor}.0{suffix}", True, True
    else:
        base = f"{major}{minor}{patch}{suffix}"
    try:
        version = parse_version(base)
    except InvalidVersion:
        raise InvalidConstraint(f"improper constraint: {json.dumps(text)}") from None
    return _Term(op, version, minor_dirty, patch_dirty, dirty)


@lru_cache(maxsize=4096)
def parse_constraint(text: str) -> Constraint:
    """Parse a `kubeletVersionConstraint` like Masterminds semver v3 `NewConstraint`.

    Accepts `< 1.26`, `>= 1.26, < 1.30`, `~1.30`, `1.28.x`, `^1.2`, `1.2 - 1.4.5`, `a || b`.
    Raises InvalidConstraint for the empty string and anything else Masterminds rejects.
    """
    rewritten = _RANGE.sub(lambda m: f">= {m.group(1)}, <= {m.group(2)} ", text)
    groups: list[tuple[_Term, ...]] = []
    has_pre: list[bool] = []
    for part in rewritten.split("||"):
        if not _VALID_GROUP.match(part):
            raise InvalidConstraint(f"improper constraint: {json.dumps(part)}")
        pieces = [m.group(0) for m in _FIND.finditer(part)] or [part]
        terms = tuple(_parse_term(p) for p in pieces)
        groups.append(terms)
        has_pre.append(any(t.version.prerelease for t in terms))
    return Constraint(text, tuple(groups), tuple(has_pre))
