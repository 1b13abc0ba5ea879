"""Each finding of a review or an audit placed on the line of the manifest that holds its field
(`located.ObjectReport`).

The findings come in the order `review` prints them: the API server's decoding errors, the judgement's denials,
then the decoding's warnings and the judgement's warnings (ratcheted denials with their `unchanged, not enforced:`
prefix). A finding's place is its field's node in the object's YAML (`positions.locate`); an object read from
standard input, or carried inside an AdmissionReview, has none, and each of its findings says why.
Source: docs/guides/review-ci.md "Findings on their lines".
"""

from __future__ import annotations

from collections.abc import Sequence

from webhook.judging.judge import RATCHETED_PREFIX
from webhook.offline.audit import AuditReport
from webhook.offline.documents import Manifest
from webhook.offline.located import Level, Located, Location, ObjectReport
from webhook.offline.positions import locate
from webhook.offline.review import Reviewed
from webhook.offline.yamlload import STDIN


def _unplaced(manifest: Manifest | None) -> str:
    """Why the findings of `manifest` cannot be placed ("" when they can): no manifest means a cluster's object."""
    if manifest is None:
        return "read from a cluster"
    if manifest.source == STDIN:
        return "read from standard input"
    if manifest.kind == "AdmissionReview":
        return "inside an AdmissionReview, whose object has no lines of its own"
    return "" if manifest.node is not None else "no source lines were kept"


def _shown(manifest: Manifest) -> str:
    return "<stdin>" if manifest.source == STDIN else manifest.source


def _located(
    manifest: Manifest | None, rule: str, level: Level, message: str, path: str, ref: str, operation: str
) -> Located:
    """One finding, on the line of `path` in `manifest` when it can be placed, else saying why not."""
    unplaced = _unplaced(manifest)
    location = None
    if manifest is not None and not unplaced:
        line, column = locate(manifest.node, path)
        location = Location(manifest.file, line, column)
    return Located(rule, level, message, path, ref, operation, location, unplaced)


def object_report(item: Reviewed) -> ObjectReport:
    """The findings of one reviewed object, each with its place (or why it has none)."""
    found: list[tuple[str, Level, str, str]] = []
    found += [(f.rule.id, Level.ERROR, f.message, f.path) for f in item.fields.errors]
    outcome = item.outcome
    entries = list(zip(outcome.entries, outcome.paths, strict=True)) if outcome is not None else []
    found += [(rule, Level.ERROR, text, path) for (rule, mode, text), path in entries if mode == "deny"]
    found += [(f.rule.id, Level.WARNING, f.message, f.path) for f in item.fields.warnings]
    for (rule, mode, text), path in entries:
        if mode == "warn":
            found.append((rule, Level.WARNING, text, path))
        elif mode == "ratcheted":
            found.append((rule, Level.WARNING, RATCHETED_PREFIX + text, path))
    findings = tuple(
        _located(item.manifest, rule, level, message, path, item.ref, item.operation)
        for rule, level, message, path in dict.fromkeys(found)  # a finding given twice is one, as printed
    )
    return ObjectReport(item.ref, item.operation, str(item.result), findings, _shown(item.manifest), item.reason)


def audit_reports(report: AuditReport, manifests: Sequence[Manifest] = ()) -> list[ObjectReport]:
    """The audit's findings by object, each placed on its line when the object came from a file (`manifests`:
    those audit read, matched by kind, namespace and name); objects of a live view, and the landscape's component
    skew, have no lines. A finding's text carries its situation as `audit` prints it (`(created today): …`), and
    so does its operation (`re-applied`, `created today`). Objects audit skipped are listed with why.
    """
    by_id = {(m.kind, m.namespace, m.name): m for m in manifests}
    grouped: dict[tuple[str, str, str], list[Located]] = {}
    for entry in report.entries:
        ident = (entry.kind, entry.namespace, entry.name)
        level = Level.ERROR if entry.mode == "deny" else Level.WARNING
        text = f"({entry.when}): {entry.message}"
        grouped.setdefault(ident, []).append(
            _located(by_id.get(ident), entry.rule, level, text, entry.path, entry.object_ref, str(entry.when))
        )
    objects = []
    for ident, findings in grouped.items():
        manifest = by_id.get(ident)
        result = "DENIED" if any(f.level is Level.ERROR for f in findings) else "ALLOWED"
        source = "" if manifest is None else _shown(manifest)
        objects.append(ObjectReport(findings[0].ref, "AUDIT", result, tuple(findings), source))
    objects += [ObjectReport(ref, "AUDIT", "SKIPPED", (), "", reason) for ref, reason in report.skipped]
    return objects
