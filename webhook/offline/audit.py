"""`gardener-webhook audit`: what the landscape's stored objects would meet today.

Every stored object of a kind with a validator is judged twice through `admission.judge`, exactly as the server
would judge it: as if it were re-applied unchanged (UPDATE with itself: what an operator's next `kubectl apply`
or a controller's next write meets, warnings included) and as if it were created today (CREATE: every rule,
every version judged by today's clock, so expired versions, minor gaps and pre-existing defects show). The
landscape's Gardener component versions known to the cluster view (control-plane Deployments, the gardenlet
each Seed reports) are checked against the skew policies too. A CloudProfile's `status`, where gardener-controller-
manager writes each version's current classification, is compared with the classification computed at `now`
(AUD-CLS-001, an audit-only finding: a controller that lags, or a reading of the lifecycle that differs). The report
groups entries by rule id.
Contract: docs/design.md §4 `audit`; docs/guides/audit.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from pydantic import ValidationError

from webhook.admission.fieldvalidation import Duplicate, FieldValidation, check_object
from webhook.admission.wire import make_review
from webhook.caching.caches import Caches
from webhook.cluster.view import ClusterView
from webhook.domain.skew import Component, Instance, check_state
from webhook.domain.versions import current_classification, find_version
from webhook.judging.judge import judge
from webhook.models.base import format_rfc3339
from webhook.models.cloudprofile import CloudProfile, ExpirableVersion, ExpirableVersionStatus
from webhook.offline import junit
from webhook.offline.review import skip_reason
from webhook.settings import Settings
from webhook.validators import REGISTRY

When = Literal["re-applied", "created today", "landscape", "status"]
Mode = Literal["deny", "warn"]

# Audit-only finding: a CloudProfile's written status.*.classification differs from the one computed at `now`.
AUD_CLS_001: Final = "AUD-CLS-001"
AUD_CLS_001_SOURCE: Final = (
    "gardener/gardener pkg/controllermanager/controller/cloudprofile/reconciler.go patchCloudProfileStatusVersions; "
    "pkg/api/core/v1beta1/helper/cloudprofile.go CurrentLifecycleClassification"
)

# Deployment role label -> the component the skew policies name (docs/requirements.md "Gardener version skew").
_COMPONENT_OF_ROLE: Final[Mapping[str, Component]] = {
    "apiserver": Component.GARDENER_APISERVER,
    "controller-manager": Component.GARDENER_CONTROLLER_MANAGER,
    "scheduler": Component.GARDENER_SCHEDULER,
    "admission-controller": Component.GARDENER_ADMISSION_CONTROLLER,
    "operator": Component.GARDENER_OPERATOR,
}


@dataclass(frozen=True, slots=True)
class ObjectId:
    """One audited object: kind, namespace ("" when cluster-scoped), name, and its apiVersion and uid where known."""

    kind: str
    namespace: str
    name: str
    api_version: str = ""
    uid: str = ""

    @property
    def ref(self) -> str:
        """Kind/namespace/name, or Kind/name when cluster-scoped (as AuditEntry.object_ref)."""
        return "/".join(part for part in (self.kind, self.namespace, self.name) if part)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """One finding about one object: which rule, deny or warn, in which situation, and the message.

    path: the field path the finding is about, as rendered ("" for the whole object or a landscape finding), for
    placing it on its line when the object came from a file.
    """

    rule: str
    mode: Mode
    when: When
    kind: str
    namespace: str
    name: str
    message: str
    path: str = ""

    @property
    def object_ref(self) -> str:
        ref = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind}/{ref}"


@dataclass(frozen=True, slots=True)
class AuditReport:
    """Everything audit found. counts: objects judged per kind; entries in judging order."""

    now: datetime
    counts: Mapping[str, int]
    entries: tuple[AuditEntry, ...] = field(default=())
    skipped: tuple[tuple[str, str], ...] = field(default=())  # (Kind/namespace/name, reason) of unjudged objects
    judged: tuple[ObjectId, ...] = field(default=())  # every judged object, in order

    @property
    def denied(self) -> bool:
        """Whether anything would be denied (today's create, a re-apply, or the landscape's skew)."""
        return any(e.mode == "deny" for e in self.entries)

    def by_rule(self) -> dict[str, list[AuditEntry]]:
        """Entries grouped by rule id, rules sorted; each group keeps the judging order."""
        groups: dict[str, list[AuditEntry]] = {}
        for entry in self.entries:
            groups.setdefault(entry.rule, []).append(entry)
        return {rule: groups[rule] for rule in sorted(groups)}

    def to_json(self) -> dict[str, Any]:
        """The report as JSON-ready data (the `--output json` contract)."""
        return {
            "now": format_rfc3339(self.now),
            "objects": dict(self.counts),
            "denied": self.denied,
            "skipped": [{"object": ref, "reason": reason} for ref, reason in self.skipped],
            "rules": [
                {"rule": rule, "entries": [_entry_json(e) for e in entries]} for rule, entries in self.by_rule().items()
            ],
        }

    def to_text(self) -> str:
        """The report for people: a summary line, then per rule its objects, situations and messages."""
        judged = ", ".join(f"{n} {kind}" for kind, n in sorted(self.counts.items())) or "no objects"
        denials = sum(1 for e in self.entries if e.mode == "deny")
        warnings = len(self.entries) - denials
        skipped = f", {len(self.skipped)} skipped" if self.skipped else ""
        lines = [f"audit at {format_rfc3339(self.now)}: {judged}{skipped}; {denials} denials, {warnings} warnings"]
        lines.extend(f"SKIPPED {ref} ({reason})" for ref, reason in self.skipped)
        for rule, entries in self.by_rule().items():
            objects = len({e.object_ref for e in entries})
            lines.append(f"{rule} ({objects} object{'s' if objects != 1 else ''})")
            for e in entries:
                lines.append(f"  {e.mode.upper():4} {e.object_ref} ({e.when}): {e.message}")
        return "\n".join(lines) + "\n"

    def to_junit(self, *, strict: bool = False) -> str:
        """The report as JUnit XML: a suite per kind, a case per judged object (failing when anything would be
        denied, its denials as the body; warnings in system-out), skipped objects as skipped cases (failures with
        strict), and a `landscape` suite for the component skew."""
        cases: dict[str, dict[str, list[AuditEntry]]] = {}
        for kind in sorted(self.counts):
            cases[kind] = {}
        for judged in self.judged:
            cases.setdefault(judged.kind, {}).setdefault(judged.ref, [])
        for entry in self.entries:
            suite = "landscape" if entry.when == "landscape" else entry.kind
            cases.setdefault(suite, {}).setdefault(entry.object_ref, []).append(entry)
        suites: list[junit.Suite] = []
        for suite, objects in cases.items():
            built: list[junit.Case] = []
            for ref, entries in objects.items():
                denials = [f"{e.rule} ({e.when}): {e.message}" for e in entries if e.mode == "deny"]
                output = tuple(f"{e.rule} ({e.when}): {e.message}" for e in entries if e.mode != "deny")
                failure = None
                if denials:
                    count = len(denials)
                    failure = (
                        f"would be denied: {count} finding{'s' if count != 1 else ''}",
                        "DENIED",
                        "\n".join(denials),
                    )
                built.append(junit.Case(ref, f"audit.{suite}", failure, None, output))
            suites.append(junit.Suite(suite, tuple(built)))
        if self.skipped:
            skipped_cases = tuple(
                junit.Case(ref, "audit.skipped", (f"skipped under --strict: {reason}", "SKIPPED", reason) if strict else None,
                           None if strict else reason)
                for ref, reason in self.skipped
            )  # fmt: skip
            suites.append(junit.Suite("skipped", skipped_cases))
        return junit.render("gardener-webhook audit", suites, now=self.now)


def _entry_json(entry: AuditEntry) -> dict[str, Any]:
    """An entry as `--output json` gives it: {rule, mode, when, kind, namespace, name, message} (the field path is
    what the formats that place findings read)."""
    found = asdict(entry)
    del found["path"]
    return found


def _judge(
    raw: dict[str, Any], operation: str, view: ClusterView, settings: Settings, now: datetime, caches: Caches
) -> Any:
    body = json.dumps(make_review(raw, operation, raw if operation == "UPDATE" else None)).encode("utf-8")
    return judge(body, view=view, settings=settings, now=now, caches=caches)


def audit_objects(
    objects: Iterable[dict[str, Any]],
    *,
    view: ClusterView,
    settings: Settings,
    now: datetime,
    field_validation: FieldValidation = FieldValidation.IGNORE,
    duplicates: Sequence[Sequence[Duplicate]] = (),
) -> AuditReport:
    """Judge each raw object (parsed JSON) re-applied and created today, plus the landscape's component skew.

    Objects of kinds without a validator are reported as skipped (with a "did you mean" for near misses such as
    `Cloudprofile`), never as judged. now: aware UTC. Never raises for bad objects: they
    become OBJ-DECODE-001 entries like any other finding.
    field_validation: for objects read from files, what the API server's strict decoding would refuse on a
    re-apply (`fieldvalidation.check_object`: unserved version, unknown and duplicate fields) as deny or warn entries
    (Ignore, the default, for objects a cluster returned: it decoded them). duplicates: the keys given twice in
    each object, in the order of `objects` (missing: none).
    """
    counts: dict[str, int] = {}
    entries: list[AuditEntry] = []
    skipped: list[tuple[str, str]] = []
    judged: list[ObjectId] = []
    caches = Caches()  # one per audit: unchanged entries across objects are judged once
    for number, raw in enumerate(objects):
        if not isinstance(raw, dict):
            continue
        group = str(raw.get("apiVersion", "")).rpartition("/")[0]
        kind = str(raw.get("kind", ""))
        meta = found if isinstance(found := raw.get("metadata"), dict) else {}
        ident = (kind, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        subject = ObjectId(*ident, str(raw.get("apiVersion") or ""), str(meta.get("uid") or ""))
        if (group, kind) not in REGISTRY:
            skipped.append((subject.ref, skip_reason(group, kind)))
            continue
        counts[kind] = counts.get(kind, 0) + 1
        judged.append(subject)
        repeated = duplicates[number] if number < len(duplicates) else ()
        checked = check_object(raw, repeated, where=subject.ref, mode=field_validation)
        entries.extend(AuditEntry(f.rule.id, "deny", "re-applied", *ident, f.message, f.path) for f in checked.errors)
        entries.extend(AuditEntry(f.rule.id, "warn", "re-applied", *ident, f.message, f.path) for f in checked.warnings)
        reapplied = _judge(raw, "UPDATE", view, settings, now, caches)
        for (rule, mode, text), path in zip(reapplied.entries, reapplied.paths, strict=True):
            if mode in ("deny", "warn"):
                entries.append(AuditEntry(rule, mode, "re-applied", *ident, text, path))
        created = _judge(raw, "CREATE", view, settings, now, caches)
        for (rule, mode, text), path in zip(created.entries, created.paths, strict=True):
            if mode == "deny":
                entries.append(AuditEntry(rule, "deny", "created today", *ident, text, path))
        if (group, kind) == ("core.gardener.cloud", "CloudProfile"):
            entries.extend(AuditEntry(AUD_CLS_001, "warn", "status", *ident, m) for m in _status_drift(raw, now))
    entries.extend(landscape_entries(view))
    return AuditReport(now, counts, tuple(entries), tuple(skipped), tuple(judged))


def _status_drift(raw: dict[str, Any], now: datetime) -> list[str]:
    """One message per version whose classification in the CloudProfile's status differs from the one computed at
    `now` (aware UTC) from its spec entry. Status entries without a spec counterpart are not judged; a profile that
    does not decode (the judging reports OBJ-DECODE-001) or has no status gives none.
    """
    try:
        profile = CloudProfile.model_validate(raw, by_alias=True)
    except ValidationError:
        return []
    status, spec = profile.status, profile.spec
    messages: list[str] = []
    if status.kubernetes is not None:
        messages += _classification_drift(
            status.kubernetes.versions,
            spec.kubernetes.versions,
            now,
            "status.kubernetes.versions",
            "Kubernetes version",
        )
    images = {image.name: image for image in reversed(spec.machine_images)}  # the first of a repeated name
    for j, written in enumerate(status.machine_images):
        image = images.get(written.name)
        if image is not None:
            what = f'machine image "{image.name}" version'
            messages += _classification_drift(
                written.versions, image.versions, now, f"status.machineImages[{j}].versions", what
            )
    return messages


def _classification_drift(
    written: Sequence[ExpirableVersionStatus], versions: Sequence[ExpirableVersion], now: datetime, at: str, what: str
) -> list[str]:
    """`<at>[i].classification: "<written>" is written for <what> "<v>", which is "<computed>" now` for each written
    entry that differs from its spec version's classification at `now` (Gardener's CurrentLifecycleClassification)."""
    by_version = {v.version: v for v in reversed(versions)}  # the first entry of a repeated version
    messages: list[str] = []
    for i, entry in enumerate(written):
        version = by_version.get(entry.version)
        if version is None:
            continue
        computed = current_classification(version, now)
        if entry.classification != computed:
            messages.append(
                f'{at}[{i}].classification: "{entry.classification}" is written for {what} "{entry.version}", '
                f'which is "{computed}" now'
            )
    return messages


# apiVersion of each kind a landscape entry names (the objects the view takes component versions from).
SUBJECT_API_VERSIONS: Final[Mapping[str, str]] = {
    "Deployment": "apps/v1",
    "ConfigMap": "v1",
    "Seed": "core.gardener.cloud/v1beta1",
}


def landscape_entries(view: ClusterView) -> list[AuditEntry]:
    """Skew violations among the Gardener components the view knows (docs/requirements.md "Gardener version skew"):
    Deployments and Seeds."""
    instances: list[tuple[Instance, str, str]] = []
    for role, component in _COMPONENT_OF_ROLE.items():
        for entry in view.gardener_component_versions(role):
            version = find_version(entry.version)
            if version is not None:
                instances.append((Instance(component, version, entry.name), "Deployment", f"garden/{entry.name}"))
    if not any(i.component is Component.GARDENER_APISERVER for i, _, _ in instances):
        for text in view.gardener_apiserver_versions():  # gardener-info ConfigMap when no Deployment is known
            version = find_version(text)
            if version is not None:
                instances.append(
                    (
                        Instance(Component.GARDENER_APISERVER, version, "gardener-info"),
                        "ConfigMap",
                        "gardener-system-public/gardener-info",
                    )
                )
    for entry in view.seeds_with_gardenlet_versions():
        version = find_version(entry.version)
        if version is not None:
            instances.append((Instance(Component.GARDENLET, version, entry.name), "Seed", entry.name))
    where = {id(i): (kind, ref) for i, kind, ref in instances}
    found: list[AuditEntry] = []
    for violation in check_state([i for i, _, _ in instances]):
        kind, ref = where.get(id(violation.subject), ("", violation.subject.name))
        namespace, _, name = ref.rpartition("/")
        found.append(AuditEntry(violation.policy_id, "deny", "landscape", kind, namespace, name, violation.message))
    return found


def audit_view(view: Any, *, settings: Settings, now: datetime) -> AuditReport:
    """Audit the objects a cluster view holds (its CloudProfiles, NamespacedCloudProfiles and Shoots)."""
    raws: Sequence[dict[str, Any]] = [
        obj.model_dump(mode="json", by_alias=True, exclude_none=True) for obj in view.objects()
    ]
    return audit_objects(raws, view=view, settings=settings, now=now)
