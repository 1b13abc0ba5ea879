"""The small `gardener-webhook` sub-commands: `certs`, `config-schema` and `skew` (README "Version skew",
"Deploy to a cluster")."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from webhook.domain.skew import Component
    from webhook.domain.versions import Version

from webhook.cli.base import EXIT_DENIED, EXIT_OK, UsageError


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


def cmd_config_schema(args: argparse.Namespace, out: TextIO) -> int:
    """`config-schema`: print the configuration file's JSON Schema (manifests/config.schema.json is this output)."""
    from webhook.cli.config_schema import config_schema

    out.write(json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


def _skew_version(argument: str, text: str) -> Version:
    from webhook.domain.versions import InvalidVersion, parse_version

    try:
        return parse_version(text)
    except InvalidVersion:
        raise UsageError(f"{argument}: {text!r} is not a version (e.g. 1.32.4 or v1.110.0)") from None


def _skew_component(argument: str) -> tuple[Component, str]:
    from webhook.domain.skew import COMPONENT_NAMES, UnknownComponent, parse_component

    name, sep, value = argument.partition("=")
    if not sep:
        raise UsageError(f"{argument}: expected COMPONENT=VERSION")
    try:
        return parse_component(name), value
    except UnknownComponent:
        raise UsageError(f"{argument}: unknown component {name!r} (known: {', '.join(COMPONENT_NAMES)})") from None


def cmd_skew(args: argparse.Namespace, out: TextIO) -> int:
    """`skew`: check component versions against the Kubernetes and Gardener skew policies (README "Version skew"); exit 1 on any violation."""
    from webhook.domain.skew import Instance, check_state, plan_upgrade

    installed: list[Instance] = []
    for argument in args.components:
        component, text = _skew_component(argument)
        installed.append(Instance(component, _skew_version(argument, text)))
    if args.upgrade is not None:
        component, fromto = _skew_component(args.upgrade)
        old, sep, new = fromto.partition(":")
        if not sep:
            raise UsageError(f"--upgrade {args.upgrade}: expected COMPONENT=FROM:TO")
        upgrade = (component, _skew_version(args.upgrade, old), _skew_version(args.upgrade, new))
        violations = plan_upgrade(installed, *upgrade)
        what = f"upgrading {component} from {upgrade[1]} to {upgrade[2]}"
    elif installed:
        violations = check_state(installed)
        what = "components" if len(installed) != 1 else "component"
        what = f"{len(installed)} {what}"
    else:
        raise UsageError("give at least one COMPONENT=VERSION or --upgrade")
    out.writelines(
        f"{violation.policy_id}: {violation.message}\n  source: {violation.source}\n" for violation in violations
    )
    if not violations:
        out.write(f"OK: no version skew violation ({what})\n")
        return EXIT_OK
    count = len(violations)
    out.write(f"{count} violation{'s' if count != 1 else ''} ({what})\n")
    return EXIT_DENIED
