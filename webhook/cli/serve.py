"""`gardener-webhook serve`: the TLS admission server over a static view (`--context`) or a live one
(`cluster.sources` of the configuration, `--kubeconfig`, `--in-cluster`); docs/getting-started.md "Running the
server"."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from webhook.cli.base import UsageError, _live_requested, _live_view, _settings, _view

if TYPE_CHECKING:
    from webhook.cluster.view import ClusterView


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


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `serve` sub-command's arguments."""
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
