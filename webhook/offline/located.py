"""Findings placed on the source lines that caused them: what the CI formats of `review` and `audit` report.

A `Located` is one finding of one judged object, with the rule that found it, its level, the text `review` prints,
its field path, and where in the input that field is written (`Location`), or why no place can be named (an object
read from standard input, from a cluster, or inside an AdmissionReview).
Source: docs/guides/review-ci.md "Findings on their lines".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    """What a finding does: an error denies the object (or fails the review), a warning is let through."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Location:
    """Where a field is written: the file as given on the command line (POSIX, relative when it was given
    relative), and the 1-based line and column of the field's key (or of the closest enclosing node written in the
    file, when the field itself is not)."""

    file: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Located:
    """One finding of one reviewed object.

    rule: the rule id ("CP-K8S-003"); for a decoding error of the API server, its OBJ-* id.
    level: Level.ERROR for a denial, Level.WARNING for a warning (ratcheted denials included).
    message: the finding as `review` prints it (`spec.kubernetes.versions[2].version: Duplicate value: "1.34.2"`).
    field: the finding's field path as rendered (`spec.kubernetes.versions[2].version`), "" for the whole object.
    ref: the object, `Kind/namespace/name` (or `Kind/name`). operation: what it was judged as (CREATE, UPDATE,
    DELETE).
    location: where `field` is written, or None; unplaced: why there is none ("read from standard input").
    """

    rule: str
    level: Level
    message: str
    field: str
    ref: str
    operation: str
    location: Location | None
    unplaced: str = ""


@dataclass(frozen=True, slots=True)
class ObjectReport:
    """One reviewed (or audited) object and its findings, in the order `review` prints them.

    ref, operation: as in Located. result: "ALLOWED", "DENIED" or "SKIPPED". reason: why it was skipped ("" else).
    findings: its denials, then its warnings, each Located. source: the input it came from as shown ("<stdin>" for
    standard input), "" when it came from no file (a cluster).
    """

    ref: str
    operation: str
    result: str
    findings: tuple[Located, ...]
    source: str = ""
    reason: str = ""
