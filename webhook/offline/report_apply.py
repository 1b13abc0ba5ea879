"""`audit --apply`: write the audit's PolicyReports into a cluster, and delete the ones an earlier run left behind.

Each report is read (GET) and then created (POST) when absent, or replaced (PUT, with the resourceVersion just read)
when present: the report is ours alone, so a replace states the whole object, results and all. A 409 Conflict
(someone wrote between the read and the write) starts over from the read, at most CONFLICT_ATTEMPTS times. Then
every report an earlier run made (label MANAGED_BY and name REPORT_NAME, found by one list per kind across all
namespaces) that this run did not write is deleted: the PolicyReport of a namespace that holds no audited object any
more, and the ClusterPolicyReport when no result is cluster-scoped. A report of that name without the label is
replaced like ours but never deleted.
Every request is bounded by REQUEST_TIMEOUT_SECONDS (connect, read). Errors stop the run: ApplyError, one line
naming the report and the API server's answer (with a hint when the CRD is missing). Nothing here judges anything;
the RBAC this needs (VERBS of policyreports and clusterpolicyreports) is the audit CronJob's
(manifests/components/audit-cronjob).
Contract: docs/guides/audit.md "PolicyReports: where operators look".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

import urllib3
from kubernetes.client import CustomObjectsApi
from kubernetes.client.exceptions import ApiException

from webhook.offline.policyreport import (
    API_VERSION,
    CLUSTER_KIND,
    MANAGED_BY,
    NAMESPACED_KIND,
    REPORT_NAME,
    PolicyReport,
)

GROUP, _, VERSION = API_VERSION.partition("/")
PLURALS: Final = {NAMESPACED_KIND: "policyreports", CLUSTER_KIND: "clusterpolicyreports"}
REQUEST_TIMEOUT_SECONDS: Final = (10.0, 30.0)  # connect, read
CONFLICT_ATTEMPTS: Final = 3
# The RBAC verbs of the requests made here (GET of one report, the list across namespaces, POST, PUT, DELETE): the
# audit CronJob's ClusterRole grants exactly these on both plurals.
VERBS: Final = ("get", "list", "create", "update", "delete")
LABEL_SELECTOR: Final = "=".join(MANAGED_BY)
FIELD_SELECTOR: Final = f"metadata.name={REPORT_NAME}"

T = TypeVar("T")


class ApplyError(Exception):
    """A report could not be read, written or deleted; the message is one line for stderr."""


@dataclass(frozen=True, slots=True)
class Applied:
    """What `apply_reports` did to one report."""

    kind: str
    namespace: str  # "" for the ClusterPolicyReport
    action: Literal["created", "replaced", "deleted"]
    results: int = 0  # results written (0 when deleted)

    def __str__(self) -> str:
        where = f"{self.namespace}/{REPORT_NAME}" if self.namespace else REPORT_NAME
        written = f" ({self.results} result{'s' if self.results != 1 else ''})" if self.action != "deleted" else ""
        return f"{self.kind} {where} {self.action}{written}"


def apply_reports(api: CustomObjectsApi, reports: Sequence[PolicyReport]) -> list[Applied]:
    """Create or replace each report, then delete ours that `reports` no longer holds; returns what was done, in order.

    reports: from `policyreport.policy_reports` (at most one per kind and namespace). Raises ApplyError at the first
    request that fails (what was done before it stays done).
    """
    done = [_write(api, report) for report in reports]
    written = {(report["kind"], report["metadata"].get("namespace", "")) for report in reports}
    for kind in (CLUSTER_KIND, NAMESPACED_KIND):
        for namespace in _ours(api, kind):
            if (kind, namespace) not in written:
                _request(f"delete {_where(kind, namespace)}", kind, _delete, api, kind, namespace)
                done.append(Applied(kind, namespace, "deleted"))
    return done


def _where(kind: str, namespace: str) -> str:
    return f"{kind} {namespace}/{REPORT_NAME}" if namespace else f"{kind} {REPORT_NAME}"


def _write(api: CustomObjectsApi, report: PolicyReport) -> Applied:
    kind, namespace = report["kind"], report["metadata"].get("namespace", "")
    what = _where(kind, namespace)
    count = len(report["results"])
    for attempt in range(1, CONFLICT_ATTEMPTS + 1):
        current = _request(f"read {what}", kind, _get, api, kind, namespace)
        try:
            if current is None:
                _create(api, kind, namespace, dict(report))
                return Applied(kind, namespace, "created", count)
            version = str(current.get("metadata", {}).get("resourceVersion", ""))
            body = {**report, "metadata": {**report["metadata"], "resourceVersion": version}}
            _replace(api, kind, namespace, body)
            return Applied(kind, namespace, "replaced", count)
        except ApiException as exc:
            if exc.status != 409 or attempt == CONFLICT_ATTEMPTS:
                raise ApplyError(f"cannot write {what}: {_answer(exc, kind)}") from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ApplyError(f"cannot write {what}: {_answer(exc, kind)}") from None
    raise AssertionError("unreachable: the last attempt returns or raises")  # pragma: no cover


def _request(action: str, kind: str, call: Callable[..., T], *args: Any) -> T:
    """call(*args); its API or transport error becomes an ApplyError `cannot <action>: <answer>`."""
    try:
        return call(*args)
    except (ApiException, urllib3.exceptions.HTTPError, OSError) as exc:
        raise ApplyError(f"cannot {action}: {_answer(exc, kind)}") from None


def _answer(exc: BaseException, kind: str) -> str:
    """The API server's answer in one line: `HTTP 403 Forbidden: <Status message>`, or the transport error."""
    if not isinstance(exc, ApiException):
        return f"{type(exc).__name__}: {exc}".splitlines()[0]
    status: dict[str, Any] = {}
    try:
        decoded = json.loads(exc.body or "")
        status = decoded if isinstance(decoded, dict) else {}
    except (TypeError, ValueError):
        pass
    text = f"HTTP {exc.status} {exc.reason or ''}".strip()
    message = str(status.get("message") or "").replace("\n", " ")
    if message:
        text = f"{text}: {message}"
    details = status.get("details")
    if exc.status == 404 and not (isinstance(details, dict) and details.get("kind") == "namespaces"):
        text += f" (is the {API_VERSION} {kind} CRD installed?)"
    return text


def _get(api: CustomObjectsApi, kind: str, namespace: str) -> dict[str, Any] | None:
    """The stored report, or None when there is none (404 from a server that serves the kind)."""
    try:
        if namespace:
            found = api.get_namespaced_custom_object(
                GROUP, VERSION, namespace, PLURALS[kind], REPORT_NAME, _request_timeout=REQUEST_TIMEOUT_SECONDS
            )
        else:
            found = api.get_cluster_custom_object(
                GROUP, VERSION, PLURALS[kind], REPORT_NAME, _request_timeout=REQUEST_TIMEOUT_SECONDS
            )
    except ApiException as exc:
        if exc.status == 404:
            return None  # absent; or the CRD is missing, which the create then reports
        raise
    return found if isinstance(found, dict) else None


def _create(api: CustomObjectsApi, kind: str, namespace: str, body: dict[str, Any]) -> None:
    if namespace:
        api.create_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURALS[kind], body, _request_timeout=REQUEST_TIMEOUT_SECONDS
        )
    else:
        api.create_cluster_custom_object(GROUP, VERSION, PLURALS[kind], body, _request_timeout=REQUEST_TIMEOUT_SECONDS)


def _replace(api: CustomObjectsApi, kind: str, namespace: str, body: dict[str, Any]) -> None:
    if namespace:
        api.replace_namespaced_custom_object(
            GROUP, VERSION, namespace, PLURALS[kind], REPORT_NAME, body, _request_timeout=REQUEST_TIMEOUT_SECONDS
        )
    else:
        api.replace_cluster_custom_object(
            GROUP, VERSION, PLURALS[kind], REPORT_NAME, body, _request_timeout=REQUEST_TIMEOUT_SECONDS
        )


def _delete(api: CustomObjectsApi, kind: str, namespace: str) -> None:
    try:
        if namespace:
            api.delete_namespaced_custom_object(
                GROUP, VERSION, namespace, PLURALS[kind], REPORT_NAME, _request_timeout=REQUEST_TIMEOUT_SECONDS
            )
        else:
            api.delete_cluster_custom_object(
                GROUP, VERSION, PLURALS[kind], REPORT_NAME, _request_timeout=REQUEST_TIMEOUT_SECONDS
            )
    except ApiException as exc:
        if exc.status != 404:  # gone already: what a delete wants
            raise


def _ours(api: CustomObjectsApi, kind: str) -> list[str]:
    """Namespaces ("" for the cluster) that hold a report of `kind` made by this command (label and name)."""
    listed = _request(f"list {kind}s", kind, _list, api, kind)
    items = listed.get("items") if isinstance(listed, dict) else None
    namespaces = []
    label, value = MANAGED_BY
    for item in items if isinstance(items, list) else []:
        meta = item.get("metadata") if isinstance(item, dict) else None
        if not isinstance(meta, dict) or meta.get("name") != REPORT_NAME:
            continue
        labels = meta.get("labels")
        if isinstance(labels, dict) and labels.get(label) == value:  # deletes only what this command made
            namespaces.append(str(meta.get("namespace") or ""))
    return namespaces


def _list(api: CustomObjectsApi, kind: str) -> object:
    return api.list_cluster_custom_object(
        GROUP,
        VERSION,
        PLURALS[kind],
        label_selector=LABEL_SELECTOR,
        field_selector=FIELD_SELECTOR,
        _request_timeout=REQUEST_TIMEOUT_SECONDS,
    )
