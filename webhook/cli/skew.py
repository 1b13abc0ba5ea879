"""`gardener-webhook skew`: check component versions against the Kubernetes and Gardener version-skew policies
(docs/guides/skew.md); exit 1 on any violation."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from webhook.cli.base import EXIT_DENIED, EXIT_OK, UsageError

if TYPE_CHECKING:
    from webhook.domain.skew import Component
    from webhook.domain.versions import Version


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
    """`skew`: check component versions against the Kubernetes and Gardener skew policies (docs/guides/skew.md); exit
    1 on any violation."""
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


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `skew` sub-command's arguments."""
    from webhook.domain.skew import (
        COMPONENT_NAMES,  # for the help of `skew`; about 40 ms, most of it webhook.domain.versions
    )

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
