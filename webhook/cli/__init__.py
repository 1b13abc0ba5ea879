"""`gardener-webhook` sub-commands: serve, review, audit, skew, certs, config-schema (README).

- `serve`: the TLS admission server (`server.run_server`) over a static view (`--context`) or a live one
  (`cluster.sources` of the configuration, `--kubeconfig`, `--in-cluster`).
- `review`: judge manifests offline exactly as the server would (the CI gate).
- `audit`: judge every stored object (files, or a live cluster) as if re-applied and as if created today; as
  PolicyReports too, written into the cluster with `--apply`.
- `skew`: check component versions against the Kubernetes and Gardener version-skew policies.
- `certs`: write a CA and a serving certificate; print the base64 caBundle.
- `config-schema`: print the JSON Schema of the `--config` file (`manifests/config.schema.json`).
The CLI owns I/O and exit codes: it reads files, builds the one frozen Settings and the cluster view, wraps
plain objects into the AdmissionReview the API server would send, and calls the same `admission.judge`
as the server. Exit status: 0 ok; 1 `review` or `audit` found a denial (or, with --strict, a skipped object), or
`skew` a violation; 2 usage or unreadable input (message on stderr); 3 the cluster could not be read (`audit`: the
live view did not sync within --sync-timeout, unreachable or refusing to list; `review --kubeconfig`: a list or get
failed) or `audit --apply` judged everything but could not write its reports (one line on stderr).
"""

from __future__ import annotations

import argparse
import functools
import ipaddress
import json
import os
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from webhook import __version__
from webhook.cli.base import (
    EXIT_CLUSTER,
    EXIT_DENIED,
    EXIT_OK,
    EXIT_USAGE,
    ClusterError,
    UsageError,
    _cluster_client,
    _config_prefix,
    _context,
    _parse_now,
    _reader,
    _settings,
    _source_plan,
    _view,
)
from webhook.cli.review import cmd_review
from webhook.cli.tools import cmd_certs, cmd_config_schema, cmd_skew

# Everything else is imported by the command that needs it: `--version`, `--help` and a usage error start in about
# 0.1 s instead of 1.6 (the models, validators, pydantic settings, asyncio, aiohttp and kubernetes are not loaded).
# `python -X importtime -m webhook --version` shows what an import here would cost.
if TYPE_CHECKING:
    from kubernetes.client import ApiClient

    from webhook.cluster.live import NotListed
    from webhook.cluster.view import ClusterView
    from webhook.offline.policyreport import PolicyReport
    from webhook.settings import Settings


def _live_requested(args: argparse.Namespace, settings: Settings) -> bool:
    """Whether the command reads a live view: --kubeconfig or --in-cluster given, or `cluster.sources` configured.

    A configured source and --context are refused together: the view is either static or live.
    """
    if not settings.cluster.sources:
        return bool(args.kubeconfig is not None or args.in_cluster)
    if args.context:
        raise UsageError(
            f"{_config_prefix(args.config)}cluster.sources cannot be combined with --context: the cluster view is "
            "either static (--context) or live (cluster.sources, --kubeconfig, --in-cluster)"
        )
    return True


def _live_view(
    kubeconfig: Path | None, in_cluster: bool, settings: Settings, config: Path | None, *, full_shoots: bool = False
) -> ClusterView:
    """The live view of `cluster.sources` and, for the kinds no source names, of the cluster of `kubeconfig` (its
    current context) or, with in_cluster, of the cluster this Pod runs in. config: the --config file, for messages.
    full_shoots: keep whole Shoots (audit judges them) rather than their summaries (serve).

    Raises UsageError (one line) when kinds are left without a cluster or a cluster's client cannot be set up.
    Imported here: the kubernetes client costs about half a second to import, which `review` never needs.
    """
    from webhook.cluster.live import LiveView, Source

    cluster = settings.cluster
    sources: list[Source] = []
    try:
        for name, path, context, kinds, where in _source_plan(kubeconfig, in_cluster, settings, config):
            sources.append(Source(name, _cluster_client(path, context, where), kinds))
    except UsageError:
        for built in sources:
            built.client.close()
        raise
    return LiveView(
        sources,
        resync_seconds=cluster.resync_seconds,
        max_staleness_seconds=cluster.max_staleness_seconds,
        full_shoots=full_shoots,
    )


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """`serve`: run the TLS admission server until SIGTERM/SIGINT."""
    from webhook.server import ServeOptions, run_server

    if args.cert_dir is not None and args.self_signed_dir is not None:
        raise UsageError("--self-signed-dir is for generated certificates; it cannot be combined with --cert-dir")
    settings = _settings(args.config)
    view: ClusterView
    factory: Callable[[], ClusterView]
    if _live_requested(args, settings):
        live = (args.kubeconfig, args.in_cluster, settings, args.config)
        view = _live_view(*live)
        factory = functools.partial(_live_view, *live)  # one view per --workers process
    else:
        view = _view(args.context)
        factory = functools.partial(_view, list(args.context))
    options = ServeOptions(
        host=args.host,
        port=args.port,
        cert_dir=args.cert_dir,
        health_host=args.health_host,
        health_port=args.health_port,
        workers=args.workers,
        tls_min_version=args.tls_min_version,
        client_ca=args.client_ca,
        client_cns=tuple(args.client_cn),
        drain_seconds=args.drain_seconds,
        shutdown_timeout_seconds=args.shutdown_timeout_seconds,
        cert_poll_seconds=args.cert_poll_seconds,
        **({"certs_root": args.self_signed_dir} if args.self_signed_dir is not None else {}),
    )
    return run_server(options, settings=settings, view=view, out=out, view_factory=factory)


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    """`audit`: judge every stored object as if re-applied and as if created today; report by rule.

    With --apply, the PolicyReports are then written into the audited cluster (after the report is printed).
    Exit status: 0 nothing would be denied, 1 something would, 2 usage or unreadable input, 3 the live view did
    not sync within --sync-timeout (ClusterError) or the reports could not be written (--apply); one line on stderr.
    While the live view runs, its warnings go to stderr as text lines naming kind, source and cause.
    """
    from webhook.offline.audit import audit_objects, audit_view
    from webhook.offline.policyreport import policy_reports, render_yaml

    settings = _settings(args.config)
    live = _live_requested(args, settings)
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

        manifests, view = _context(args.context, _reader())
        report = audit_objects(
            [m.obj for m in manifests], view=view, settings=settings, now=now,
            field_validation=FieldValidation(args.field_validation), duplicates=[m.duplicates for m in manifests],
        )  # fmt: skip
    if args.output == "json":
        json.dump(report.to_json(), out, indent=2)
        out.write("\n")
    elif args.output == "junit":
        out.write(report.to_junit(strict=args.strict))
    elif args.output == "policyreport":
        out.write(render_yaml(policy_reports(report)))
    else:
        out.write(report.to_text())
    if args.apply:
        out.flush()  # the report comes first in the Job's log, whatever happens to the writes
        if not _apply_reports(_report_client(args, settings), policy_reports(report)):
            return EXIT_CLUSTER
    return EXIT_DENIED if report.denied or (args.strict and report.skipped) else EXIT_OK


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


def _ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    from webhook.domain.skew import (
        COMPONENT_NAMES,  # for the help of `skew`; about 40 ms, most of it webhook.domain.versions
    )

    parser = argparse.ArgumentParser(prog="gardener-webhook", description="Validating admission webhook for Gardener.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the TLS admission server")
    serve.add_argument("--host", default="127.0.0.1", help="address of the TLS listener (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=9443, help="TLS port (default 9443)")
    serve.add_argument(
        "--cert-dir", type=Path, metavar="DIR",
        help="directory with tls.crt and tls.key, reloaded when they change (default: a self-signed pair, see --self-signed-dir)",
    )  # fmt: skip
    serve.add_argument(
        "--self-signed-dir",
        type=Path,
        metavar="DIR",
        help="without --cert-dir: where the self-signed CA and serving certificate are kept (default "
        "$GARDENER_WEBHOOK_STATE_DIR/certs, else $XDG_STATE_HOME/gardener-webhook/certs, i.e. ~/.local/state/...)",
    )
    # Cluster state: one source (plus the configuration's cluster.sources, which take the kinds they name; the flag
    # gives the rest). Without any the view is static and empty (no auto-detection of a Pod: running in one does not
    # by itself mean the webhook may read that cluster).
    source = serve.add_mutually_exclusive_group()
    source.add_argument(
        "--context", type=Path, action="append", default=[], help="cluster snapshot file (repeatable; a static view)"
    )
    source.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="FILE",
        help="list and watch cluster state from the cluster of this kubeconfig's current context (the kinds "
        "cluster.sources of --config leave)",
    )
    source.add_argument(
        "--in-cluster",
        action="store_true",
        help="list and watch cluster state from the cluster this Pod runs in (its service account; the kinds "
        "cluster.sources leave); never automatic: without --kubeconfig, --in-cluster, cluster.sources or --context "
        "the view is empty",
    )
    serve.add_argument("--config", type=Path, help="configuration file (YAML)")
    serve.add_argument("--workers", type=int, default=1, help="server processes (default 1)")
    serve.add_argument("--health-host", default="127.0.0.1", help="address of the health/metrics listener")
    serve.add_argument("--health-port", type=int, default=8080, help="plain-HTTP port for /healthz, /readyz, /metrics")
    serve.add_argument(
        "--tls-min-version", choices=("1.2", "1.3"), default="1.2", help="lowest TLS version (default 1.2)"
    )
    serve.add_argument(
        "--client-ca", type=Path, metavar="FILE", help="require client certificates signed by a CA in this PEM bundle"
    )
    serve.add_argument(
        "--client-cn",
        action="append",
        default=[],
        metavar="NAME",
        help="allowed common name of a client certificate (repeatable; needs --client-ca; others get 403)",
    )
    serve.add_argument(
        "--drain-seconds",
        type=float,
        default=5.0,
        help="after SIGTERM, keep answering this long with /readyz false (5)",
    )
    serve.add_argument(
        "--shutdown-timeout-seconds", type=float, default=15.0, help="then wait this long for running requests (15)"
    )
    serve.add_argument(
        "--cert-poll-seconds", type=float, default=2.0, help="how often tls.crt/tls.key are checked for changes (2)"
    )
    serve.set_defaults(func=cmd_serve)

    certs = sub.add_parser("certs", help="write a CA and a serving certificate; print the base64 caBundle")
    certs.add_argument(
        "--dns", action="append", default=[], metavar="NAME", help="DNS name of the serving certificate (repeatable)"
    )
    certs.add_argument(
        "--ip",
        action="append",
        default=[],
        type=_ip_address,
        metavar="IP",
        help="IP address of the serving certificate (repeatable)",
    )
    certs.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="directory for tls.crt, tls.key, ca.crt, ca.key"
    )
    certs.add_argument("--days", type=int, default=365, help="validity of the serving certificate in days (365)")
    certs.add_argument("--ca-days", type=int, default=3650, help="validity of a new CA in days (3650)")
    certs.add_argument(
        "--webhook-config-patch",
        type=Path,
        metavar="FILE",
        help="also write a patch setting the caBundle of every webhook",
    )
    certs.add_argument(
        "--cluster",
        choices=("garden", "seed", "virtual-garden", "runtime"),
        default="garden",
        help="whose webhooks the patch names (garden)",
    )
    certs.set_defaults(func=cmd_certs)

    config_schema = sub.add_parser(
        "config-schema",
        help="print the JSON Schema of the --config file",
        description="Print the JSON Schema (draft 2020-12) of the --config file, generated from the settings model: "
        "manifests/config.schema.json is this output. Rule ids are checked for their shape only.",
    )
    config_schema.set_defaults(func=cmd_config_schema)

    review = sub.add_parser(
        "review",
        help="judge manifests offline exactly as the server would",
        description="Judge manifests offline exactly as the server would. Objects given together are each other's "
        "cluster state (a Shoot and its CloudProfile in one directory are judged together). Exit status: 0 all "
        "allowed, 1 any denied (or skipped, with --strict), 2 usage or unreadable input.",
    )
    review.add_argument(
        "files", nargs="+", metavar="PATH",
        help="YAML/JSON file or directory (recursive: *.yaml, *.yml, *.json) of objects or AdmissionReviews; '-' = stdin"
        "; in a directory, files that are no manifests (kustomize, Helm charts, CI files) are skipped",
    )  # fmt: skip
    review.add_argument("--operation", choices=("CREATE", "UPDATE", "DELETE"), default="CREATE")
    review.add_argument(
        "--old", metavar="PATH", help="the stored object(s) for --operation UPDATE (file, directory or '-')"
    )
    review.add_argument(
        "--context", action="append", default=[], metavar="PATH",
        help="stored cluster objects: file, directory or '-' (repeatable; e.g. kubectl get ... -o yaml)",
    )  # fmt: skip
    review.add_argument(
        "--base", metavar="REV",
        help="judge the change from this Git revision to the working tree: added objects as CREATE, changed as "
        "UPDATE, removed as DELETE, unchanged not at all",
    )  # fmt: skip
    review.add_argument(
        "--base-dir", type=Path, metavar="DIR", help="like --base, with the base checked out in DIR (same paths)"
    )
    review.add_argument(
        "--all", action="store_true",
        help="with --base/--base-dir/--kubeconfig/--in-cluster: judge unchanged objects too, as re-applies",
    )  # fmt: skip
    review.add_argument(
        "--kubeconfig", type=Path, metavar="FILE",
        help="judge the objects as `kubectl apply -f` into this kubeconfig's cluster would meet them now: each paired "
        "with its stored version (absent: CREATE, present: UPDATE), the cluster's Shoots as versions in use; reads only",
    )  # fmt: skip
    review.add_argument("--in-cluster", action="store_true", help="like --kubeconfig, for the cluster this Pod runs in")
    review.add_argument("--config", type=Path, help="configuration file (YAML)")
    review.add_argument("--now", help="fix the clock for date rules (RFC 3339)")
    review.add_argument("--output", choices=("text", "json", "junit"), default="text")
    review.add_argument(
        "--strict", action="store_true",
        help="for CI: an object no validator judges (SKIPPED) fails the review (exit 1)",
    )  # fmt: skip
    review.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB",
        help="skip files found in directories (PATHs, --context, --old) matching this gitignore-style pattern "
        "(repeatable; e.g. 'charts/', '**/secrets/*.yaml', '/kustomize')",
    )  # fmt: skip
    review.add_argument(
        "--skip-non-objects", action="store_true",
        help="skip named files that are no manifests, as in a directory (for tools that pass changed files one "
        "by one, such as the pre-commit hook); without it, a named file must hold objects",
    )  # fmt: skip
    review.add_argument("-v", "--verbose", action="store_true", help="name each skipped file and why")
    review.add_argument(
        "--field-validation", choices=("Strict", "Warn", "Ignore"), default="Strict",
        help="judged objects: what the API server's strict decoding refuses (a version it does not serve, unknown or "
        "duplicate fields), as kubectl --validate: Strict denies (default), Warn prints warnings, Ignore drops them",
    )  # fmt: skip
    review.set_defaults(func=cmd_review)

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
        "--output", choices=("text", "json", "junit", "policyreport"), default="text",
        help="policyreport: wgpolicyk8s.io/v1alpha2 PolicyReports and a ClusterPolicyReport, as a YAML stream",
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

    skew = sub.add_parser(
        "skew",
        help="check component versions against the Kubernetes and Gardener version skew policies",
        description="Check a set of component versions against the version skew policies of Kubernetes "
        "and Gardener. Exit status: 0 no violation, 1 any violation, 2 unusable input.",
    )
    skew.add_argument(
        "components", nargs="*", metavar="COMPONENT=VERSION",
        help=f"a running component (repeat a name for HA instances or nodes); components: {', '.join(COMPONENT_NAMES)}",
    )  # fmt: skip
    skew.add_argument(
        "--upgrade", metavar="COMPONENT=FROM:TO",
        help="check upgrading one instance: no downgrade or skipped minor, the upgrade order, and the state after it",
    )  # fmt: skip
    skew.set_defaults(func=cmd_skew)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Console entry point; returns the exit status (0 ok, 1 denied or skew violated, 2 usage or unreadable input,
    3 `audit` could not read its cluster or `audit --apply` could not write its reports)."""
    parser = build_parser()
    stream = out or sys.stdout
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(exc.code or 0)
    try:
        return int(args.func(args, stream))
    except UsageError as exc:
        sys.stderr.write(f"gardener-webhook {args.command}: {exc}\n")
        return EXIT_USAGE
    except ClusterError as exc:
        sys.stderr.write(f"gardener-webhook {args.command}: {exc}\n")
        return EXIT_CLUSTER


def entry() -> None:
    """Console-script wrapper that exits with `main`'s status.

    A reader that closes standard output early (`review … | head -1`) ends the command with one line on stderr
    and exit 2, not a traceback; stdout is pointed at /dev/null first so the interpreter's final flush of the
    closed pipe cannot raise again.
    """
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.stderr.write("gardener-webhook: standard output was closed before all results were written\n")
        status = EXIT_USAGE
    sys.exit(status)
