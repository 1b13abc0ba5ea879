"""`audit --output policyreport`: the audit as wgpolicyk8s.io/v1alpha2 PolicyReports, which Policy Reporter shows.

The mapping (docs/guides/audit.md explains the choices):
- Reports: one PolicyReport per namespace that holds an audited object, and one ClusterPolicyReport for the
  cluster-scoped objects (CloudProfiles) and for every landscape finding (the Gardener component skew: a relation
  between components, which no namespace owns). Every report is named REPORT_NAME and labelled MANAGED_BY, so
  `--apply` replaces them in place and finds its own to delete; a scope without results gets no report.
- Results: one per audit entry: `policy` POLICY, `rule` the rule id, `result` fail (deny) or warn (warn),
  `severity` high (deny) or low (warn), `scored` true for fail and false for warn (the CRD's summary counts warn as
  "non-scored"), `message` the finding (composed to at most MAX_MESSAGE_CHARS characters without cutting inside a
  quoted value), `resources` the object (apiVersion, kind, name, namespace, uid where known), `source` SOURCE,
  `timestamp` the audit's time, `category` the object's kind ("Version skew" for landscape findings), `properties`
  `when` (re-applied, created today, status, landscape) and `mode` (deny, warn).
- One `pass` result for each judged object with no entry at all, so a repaired object turns green instead of
  vanishing, and a namespace whose findings are gone keeps a report that says so. Nothing per rule that passed:
  a report holds at most one result per finding plus one per clean object.
- Bounded: at most MAX_RESULTS results per report (fail first, then warn, then pass; judging order kept), so that
  a report stays far below etcd's 1.5 MiB request limit; the number left out is the annotation OMITTED_ANNOTATION,
  and `audit` itself still prints everything.
Pure: builds data, never talks to a cluster (`report_apply` writes the reports).
Contract: docs/guides/audit.md "PolicyReports: where operators look"; the CRDs of kyverno v1.19.0
(tests/schemas/wgpolicyk8s.io_*.yaml).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Literal, Required, TypedDict

import yaml

from webhook.admission.rendering import MAX_DENIAL_LINE_CHARS, compose_warning
from webhook.offline.audit import SUBJECT_API_VERSIONS, AuditEntry, AuditReport, ObjectId

API_VERSION: Final = "wgpolicyk8s.io/v1alpha2"
NAMESPACED_KIND: Final = "PolicyReport"
CLUSTER_KIND: Final = "ClusterPolicyReport"
REPORT_NAME: Final = "gardener-webhook-audit"
MANAGED_BY: Final = ("app.kubernetes.io/managed-by", "gardener-webhook")
POLICY: Final = "gardener-webhook"
SOURCE: Final = "gardener-webhook"
VERSION_SKEW: Final = "Version skew"
MAX_RESULTS: Final = 500
MAX_MESSAGE_CHARS: Final = MAX_DENIAL_LINE_CHARS
OMITTED_ANNOTATION: Final = "gardener-webhook.gardener.cloud/omitted-results"
PASS_MESSAGE: Final = "no finding: allowed when re-applied and when created today"

ResultValue = Literal["pass", "fail", "warn"]
_RESULT: Final[Mapping[str, ResultValue]] = {"deny": "fail", "warn": "warn"}
# deny: the object's next write, or a copy of it made today, would be refused; warn: it passes with a warning.
_SEVERITY: Final[Mapping[str, str]] = {"deny": "high", "warn": "low"}
_KEEP_FIRST: Final[Mapping[str, int]] = {"fail": 0, "warn": 1, "pass": 2}


class ObjectReference(TypedDict, total=False):
    apiVersion: str
    kind: str
    name: str
    namespace: str
    uid: str


class Timestamp(TypedDict):
    seconds: int  # since the Unix epoch, UTC
    nanos: int


class Result(TypedDict, total=False):
    policy: Required[str]
    rule: str
    result: Required[ResultValue]
    severity: str
    scored: bool
    source: str
    category: str
    message: str
    resources: list[ObjectReference]
    timestamp: Timestamp
    properties: dict[str, str]


Summary = TypedDict("Summary", {"pass": int, "fail": int, "warn": int, "error": int, "skip": int})


class Metadata(TypedDict, total=False):
    name: Required[str]
    namespace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    resourceVersion: str


class PolicyReport(TypedDict):
    """A PolicyReport (metadata.namespace set) or a ClusterPolicyReport, as sent to the API server."""

    apiVersion: str
    kind: str
    metadata: Metadata
    summary: Summary
    results: list[Result]


def policy_reports(report: AuditReport) -> list[PolicyReport]:
    """The audit's reports: the ClusterPolicyReport first (when it has results), then a PolicyReport per namespace,
    sorted by namespace; results in judging order, landscape findings last. Pure; never raises."""
    timestamp = Timestamp(seconds=int(report.now.timestamp()), nanos=report.now.microsecond * 1000)
    judged = {subject.ref: subject for subject in report.judged}
    entries: dict[str, list[AuditEntry]] = {}
    landscape: list[AuditEntry] = []
    for entry in report.entries:
        if entry.when == "landscape":
            landscape.append(entry)
        else:
            entries.setdefault(entry.object_ref, []).append(entry)
    scopes: dict[str, list[Result]] = {}  # namespace ("": cluster-scoped) -> results
    for ref, subject in judged.items():
        results = scopes.setdefault(subject.namespace, [])
        found = entries.get(ref)
        if found:
            results.extend(_finding(entry, subject, subject.kind, timestamp) for entry in found)
        else:
            results.append(_pass(subject, timestamp))
    for entry in landscape:
        subject = judged.get(entry.object_ref) or ObjectId(
            entry.kind, entry.namespace, entry.name, SUBJECT_API_VERSIONS.get(entry.kind, "")
        )
        scopes.setdefault("", []).append(_finding(entry, subject, VERSION_SKEW, timestamp))
    return [_report(namespace, scopes[namespace]) for namespace in sorted(scopes)]


def render_yaml(reports: Sequence[PolicyReport]) -> str:
    """The reports as a YAML stream (`---` before each), what `kubectl apply -f -` reads; messages on one line."""
    return yaml.safe_dump_all(reports, sort_keys=False, explicit_start=True, allow_unicode=True, width=1_000_000)


def _reference(subject: ObjectId) -> ObjectReference:
    reference = ObjectReference(apiVersion=subject.api_version) if subject.api_version else ObjectReference()
    reference["kind"] = subject.kind
    reference["name"] = subject.name
    if subject.namespace:
        reference["namespace"] = subject.namespace
    if subject.uid:
        reference["uid"] = subject.uid
    return reference


def _finding(entry: AuditEntry, subject: ObjectId, category: str, timestamp: Timestamp) -> Result:
    result = _RESULT[entry.mode]
    return Result(
        policy=POLICY,
        rule=entry.rule,
        result=result,
        severity=_SEVERITY[entry.mode],
        scored=result == "fail",
        source=SOURCE,
        category=category,
        message=compose_warning(entry.message, MAX_MESSAGE_CHARS),
        resources=[_reference(subject)],
        timestamp=Timestamp(**timestamp),  # a copy each: no YAML anchors in the output
        properties={"when": entry.when, "mode": entry.mode},
    )


def _pass(subject: ObjectId, timestamp: Timestamp) -> Result:
    return Result(
        policy=POLICY,
        result="pass",
        scored=True,
        source=SOURCE,
        category=subject.kind,
        message=PASS_MESSAGE,
        resources=[_reference(subject)],
        timestamp=Timestamp(**timestamp),
    )


def _report(namespace: str, results: list[Result]) -> PolicyReport:
    omitted = max(len(results) - MAX_RESULTS, 0)
    if omitted:
        keep = sorted(range(len(results)), key=lambda i: (_KEEP_FIRST[results[i]["result"]], i))[:MAX_RESULTS]
        results = [results[i] for i in sorted(keep)]
    metadata = Metadata(name=REPORT_NAME, namespace=namespace) if namespace else Metadata(name=REPORT_NAME)
    metadata["labels"] = dict([MANAGED_BY])
    if omitted:
        metadata["annotations"] = {OMITTED_ANNOTATION: str(omitted)}
    summary = Summary({"pass": 0, "fail": 0, "warn": 0, "error": 0, "skip": 0})
    for result in results:
        summary[result["result"]] += 1
    return PolicyReport(
        apiVersion=API_VERSION,
        kind=NAMESPACED_KIND if namespace else CLUSTER_KIND,
        metadata=metadata,
        summary=summary,
        results=results,
    )
