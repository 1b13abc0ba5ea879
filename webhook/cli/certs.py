"""`gardener-webhook certs`: write a CA and a serving certificate for the webhook's Service and print the base64
caBundle (docs/operations/deploy.md)."""

from __future__ import annotations

import argparse
import ipaddress
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from webhook.cli.base import UsageError


def _ip_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address") from None


def cmd_certs(args: argparse.Namespace, out: TextIO) -> int:
    """`certs`: write a CA and serving certificate for the webhook's Service; print the base64 caBundle."""
    from webhook.server.certs import CertsError, run_certs

    try:
        return run_certs(
            dns_names=args.dns,
            ips=args.ip,
            out_dir=args.out,
            days=args.days,
            ca_days=args.ca_days,
            patch=args.webhook_config_patch,
            cluster=args.cluster,
            now=datetime.now(UTC),
            out=out,
            err=sys.stderr,
        )
    except CertsError as exc:
        raise UsageError(str(exc)) from None


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `certs` sub-command's arguments."""
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
