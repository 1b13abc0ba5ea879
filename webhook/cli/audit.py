"""`gardener-webhook audit`: judge every stored object (files, or a live cluster) as if re-applied and as if
created today; as PolicyReports too, written into the cluster with `--apply` (docs/guides/audit.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from webhook.cli.base import (
    EXIT_CLUSTER,
    EXIT_DENIED,
    EXIT_OK,
    ClusterError,
    UsageError,
    _cluster_client,
    _config_prefix,
    _context,
    _live_requested,
    _live_view,
    _parse_now,
    _reader,
    _settings,
)
from webhook.cli.outputs import FORMATS, PLACED, render_placed, report_spec, write_report

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

    from webhook.cluster.live import NotListed
    from webhook.offline.audit import AuditReport
    from webhook.offline.documents import Manifest
    from webhook.offline.policyreport import PolicyReport
    from webhook.settings import Settings


AUDIT_FORMATS: Final = (*FORMATS, "policyreport")  # review's formats, and the PolicyReports


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    """`audit`: judge every stored object as if re-applied and as if created today; report by rule.

    With --apply, the PolicyReports are then written into the audited cluster (after the report is printed).
    Exit status: 0 nothing would be denied, 1 something would, 2 usage or unreadable input, 3 the live view did
    not sync within --sync-timeout (ClusterError) or the reports could not be written (--apply); one line on stderr.
    While the live view runs, its warnings go to stderr as text lines naming kind, source and cause.
    """
    from webhook.offline.audit import audit_objects, audit_view
    from webhook.offline.policyreport import policy_reports

    settings = _settings(args.config)
    live = _live_requested(args, settings)
    manifests: list[Manifest] = []
    if args.apply and not live:
        raise UsageError(
            "--apply writes into the audited cluster: give it with --kubeconfig, --in-cluster or cluster.sources"
        )
    now = _parse_now(args.now)
    if live:
        import asyncio

        from webhook.server.logs import text_logging

        with text_logging("gardener-webhook audit"):
            report = asyncio.run(_audit_live(args, settings, now, audit_view))
    else:
        if not args.context:
            raise UsageError(
                "give the objects to audit with --context PATH, or a cluster with --kubeconfig/--in-cluster or "
                "cluster.sources in --config"
            )
        from webhook.admission.fieldvalidation import FieldValidation
        from webhook.offline.documents import ManifestReader

        placed = args.output in PLACED or any(fmt in PLACED for fmt, _ in args.report)
        manifests, view = _context(args.context, ManifestReader(sys.stdin, positions=placed) if placed else _reader())
        report = audit_objects(
            [m.obj for m in manifests], view=view, settings=settings, now=now,
            field_validation=FieldValidation(args.field_validation), duplicates=[m.duplicates for m in manifests],
        )  # fmt: skip
    out.write(_render(args.output, report, manifests, strict=args.strict))
    for fmt, file in args.report:
        write_report(file, _render(fmt, report, manifests, strict=args.strict))
    if args.apply:
        out.flush()  # the report comes first in the Job's log, whatever happens to the writes
        if not _apply_reports(_report_client(args, settings), policy_reports(report)):
            return EXIT_CLUSTER
    return EXIT_DENIED if report.denied or (args.strict and report.skipped) else EXIT_OK


def _render(fmt: str, report: AuditReport, manifests: Sequence[Manifest], *, strict: bool) -> str:
    """The audit in `fmt`: text, json, junit, policyreport, or a format that places each finding on its line
    (`webhook.cli.outputs.PLACED`; objects of `manifests`, read from files, get their lines)."""
    from webhook.offline.policyreport import policy_reports, render_yaml

    if fmt == "json":
        return json.dumps(report.to_json(), indent=2) + "\n"
    if fmt == "junit":
        return report.to_junit(strict=strict)
    if fmt == "policyreport":
        return render_yaml(policy_reports(report))
    if fmt == "text":
        return report.to_text()
    from webhook.offline.placing import audit_reports

    return render_placed(fmt, audit_reports(report, manifests), title="gardener-webhook audit")


def _report_client(args: argparse.Namespace, settings: Settings) -> ApiClient:
    """The cluster `audit --apply` writes into: where the audited Shoots are read from (the `cluster.sources` entry
    that names Shoot, else --kubeconfig/--in-cluster), so that the reports sit beside the objects they describe.

    Raises UsageError when its client cannot be set up.
    """
    for i, source in enumerate(settings.cluster.sources):
        if "Shoot" in source.kinds:
            where = f"{_config_prefix(args.config)}cluster.sources[{i}] ({source.name})"
            return _cluster_client(source.kubeconfig, source.context, where)
    flag = "--kubeconfig" if args.kubeconfig is not None else "--in-cluster"
    return _cluster_client(args.kubeconfig, None, flag)


def _apply_reports(client: ApiClient, reports: Sequence[PolicyReport]) -> bool:
    """`audit --apply`: write the reports (a line on stderr per report), prune stale ones; False when that failed.

    client: the cluster to write into (closed here)."""
    from kubernetes.client import CustomObjectsApi

    from webhook.offline.report_apply import ApplyError, apply_reports

    try:
        for applied in apply_reports(CustomObjectsApi(client), reports):
            sys.stderr.write(f"{applied}\n")
    except ApplyError as exc:
        sys.stderr.write(f"gardener-webhook audit: --apply: {exc}\n")
        return False
    finally:
        client.close()
    return True


async def _audit_live(args: argparse.Namespace, settings: Settings, now: datetime, audit_view: Any) -> Any:
    """Start a live view, wait (at most --sync-timeout seconds) until it has listed every kind, audit, stop.

    Raises ClusterError naming the kinds not listed and their last errors when the view does not sync in time: the
    API server is unreachable or refuses (401, 403, 5xx), and the reflectors retry until then.
    """
    import asyncio

    view: Any = _live_view(args.kubeconfig, args.in_cluster, settings, args.config, full_shoots=True)
    await view.start()
    try:
        deadline = asyncio.get_running_loop().time() + args.sync_timeout
        while not view.synced:
            if asyncio.get_running_loop().time() > deadline:
                raise ClusterError(_not_synced(view.not_listed(), args.sync_timeout))
            await asyncio.sleep(0.05)
        return audit_view(view, settings=settings, now=now)
    finally:
        await view.stop()


def _not_synced(pending: Sequence[NotListed], timeout_seconds: float) -> str:
    """One line: the kinds not listed, grouped by source and last error, e.g. `the cluster view did not sync within
    120 s; not listed: Shoot, Seed from --in-cluster (last error: HTTP 403 Forbidden: …)`."""
    groups: dict[tuple[str, str | None], list[str]] = {}
    for item in pending:
        groups.setdefault((item.source, item.error), []).append(item.kind)
    parts = [
        f"{', '.join(kinds)} from {source} ({f'last error: {error}' if error else 'no answer yet'})"
        for (source, error), kinds in groups.items()
    ]
    return f"the cluster view did not sync within {timeout_seconds:g} s; not listed: {'; '.join(parts)}"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `audit` sub-command's arguments."""
    audit = sub.add_parser(
        "audit", help="judge every stored object as if re-applied and as if created today; report by rule"
    )
    audit_source = audit.add_mutually_exclusive_group()
    audit_source.add_argument(
        "--context", action="append", default=[], metavar="PATH",
        help="objects to audit: file, directory (recursive) or '-' (repeatable; e.g. kubectl get ... -A -o yaml)",
    )  # fmt: skip
    audit_source.add_argument(
        "--kubeconfig", type=Path,
        help="audit the cluster of this kubeconfig's current context (the kinds cluster.sources of --config leave)",
    )  # fmt: skip
    audit_source.add_argument(
        "--in-cluster", action="store_true",
        help="audit the cluster this Pod runs in (the kinds cluster.sources of --config leave)",
    )  # fmt: skip
    audit.add_argument("--config", type=Path, help="configuration file (YAML)")
    audit.add_argument("--now", help="judge as of this time (RFC 3339); default: now")
    audit.add_argument(
        "--output", choices=AUDIT_FORMATS, default="text",
        help="policyreport: wgpolicyk8s.io/v1alpha2 PolicyReports and a ClusterPolicyReport, as a YAML stream; "
        "sarif, github, gitlab, markdown: each finding on the line of its field (objects from --context files)",
    )  # fmt: skip
    audit.add_argument(
        "--report", action="append", default=[], type=report_spec(AUDIT_FORMATS), metavar="FORMAT=FILE",
        help="also write the audit in FORMAT (as --output) into FILE (repeatable)",
    )  # fmt: skip
    audit.add_argument(
        "--strict", action="store_true", help="for CI: an object no validator judges (SKIPPED) fails the audit (exit 1)"
    )
    audit.add_argument(
        "--field-validation", choices=("Strict", "Warn", "Ignore"), default="Strict",
        help="objects read from --context files: what the API server's strict decoding refuses (a version it does not serve, unknown or "
        "duplicate fields), as kubectl --validate: Strict denies (default), Warn prints warnings, Ignore drops them",
    )  # fmt: skip
    audit.add_argument(
        "--apply", action="store_true",
        help="also create or replace the PolicyReports in the audited cluster and delete stale ones "
        "(needs --kubeconfig or --in-cluster; exit 3 when that fails)",
    )  # fmt: skip
    audit.add_argument(
        "--sync-timeout", type=float, default=60.0,
        help="seconds to wait until a live view has listed every kind (60); exit 3 when it has not",
    )  # fmt: skip
    audit.set_defaults(func=cmd_audit)
