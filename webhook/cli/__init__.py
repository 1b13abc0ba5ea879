"""`gardener-webhook` sub-commands: serve, review, audit, skew, certs, config-schema (docs/reference/cli.md).

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
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from webhook import __version__
from webhook.cli import audit, certs, config_schema, review, serve, skew
from webhook.cli.base import EXIT_CLUSTER, EXIT_USAGE, ClusterError, UsageError

# Each command module imports at its top only what its parser needs: `--version`, `--help` and a usage error start in
# about 0.1 s instead of 1.6 (the models, validators, pydantic settings, asyncio, aiohttp and kubernetes are loaded by
# the command that runs). `python -X importtime -m webhook --version` shows what an import here would cost.


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command (each command module adds its own)."""
    parser = argparse.ArgumentParser(prog="gardener-webhook", description="Validating admission webhook for Gardener.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in (serve, certs, config_schema, review, audit, skew):
        command.add_parser(sub)
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
