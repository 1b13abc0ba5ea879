"""What every `gardener-webhook` sub-command shares: exit codes, the two error kinds, the clock, the settings and
the static cluster view of `--context`. Imports nothing heavy at module level (see `cli`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from kubernetes.client import ApiClient

    from webhook.cluster.static import StaticView
    from webhook.cluster.view import ClusterView
    from webhook.offline.documents import Manifest, ManifestReader
    from webhook.settings import Settings

# EXIT_CLUSTER: the audited cluster could not be read or written; a later run may succeed (the CronJob retries it).
EXIT_OK, EXIT_DENIED, EXIT_USAGE, EXIT_CLUSTER = 0, 1, 2, 3


class UsageError(Exception):
    """Bad command line or unreadable input: message to stderr, exit 2."""


class ClusterError(Exception):
    """The audited cluster could not be read: its live view did not sync in time. Message to stderr, exit 3."""


def _parse_now(text: str | None) -> datetime:
    from webhook.models.base import parse_rfc3339

    if text is None:
        return datetime.now(UTC)
    try:
        value = parse_rfc3339(text)
    except ValueError:
        value = None
    if value is None:
        raise UsageError(f"--now: {text!r} is not an RFC 3339 date-time (e.g. 2026-11-21T00:00:00Z)")
    return value


def _settings(path: Path | None) -> Settings:
    from webhook.settings import ConfigError, load_settings
    from webhook.validators import ALL_RULES

    try:
        return load_settings(path, known_rules=ALL_RULES)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _context(paths: Sequence[Path | str], reader: ManifestReader) -> tuple[list[Manifest], StaticView]:
    """The objects of the --context paths (files, directories, "-") and the static view built from them."""
    from webhook.offline.review import ReviewInputError, build_view
    from webhook.offline.yamlload import DocumentError

    try:
        manifests = reader.read_all(paths)
        return manifests, build_view([], manifests)
    except DocumentError as exc:
        raise UsageError(f"--context: {exc}") from None
    except ReviewInputError as exc:
        raise UsageError(str(exc)) from None


def _view(paths: Sequence[Path | str]) -> StaticView:
    return _context(paths, _reader())[1]


def _reader() -> ManifestReader:
    from webhook.offline.documents import ManifestReader

    return ManifestReader(sys.stdin)


def _config_prefix(config: Path | None) -> str:
    """How a message names the configuration file, as `load_settings` does ("" for the environment)."""
    return f"--config {config}: " if config is not None else ""


# One cluster to read: (source name, kubeconfig or None for in-cluster, context, kinds, how messages name it).
SourcePlan = tuple[str, "Path | None", "str | None", tuple[str, ...], str]


def _source_plan(
    kubeconfig: Path | None, in_cluster: bool, settings: Settings, config: Path | None
) -> list[SourcePlan]:
    """The clusters the tracked kinds are read from: each `cluster.sources` entry with its kinds, then the cluster of
    --kubeconfig (or, with in_cluster, this Pod's) for the kinds no source names, named by its flag (no configured
    name can look like it). Raises UsageError when kinds are left without a cluster."""
    from webhook.cluster.view import KINDS

    named = {kind for source in settings.cluster.sources for kind in source.kinds}
    rest = tuple(kind for kind in KINDS if kind not in named)
    plan: list[SourcePlan] = [
        (s.name, s.kubeconfig, s.context, s.kinds, f"{_config_prefix(config)}cluster.sources[{i}] ({s.name})")
        for i, s in enumerate(settings.cluster.sources)
    ]
    if rest:
        flag = "--in-cluster" if in_cluster else "--kubeconfig" if kubeconfig is not None else None
        if flag is None:
            them = "it" if len(rest) == 1 else "them"
            raise UsageError(
                f"{_config_prefix(config)}cluster.sources leave {', '.join(rest)} without a cluster: name {them} in "
                "the kinds of a source, or give --kubeconfig FILE or --in-cluster for the kinds no source names"
            )
        plan.append((flag, kubeconfig, None, rest, flag))
    return plan


def _cluster_client(kubeconfig: Path | None, context: str | None, where: str) -> ApiClient:
    """A client for the cluster of `kubeconfig` (`context`, else its current one), or of this Pod's cluster when None.

    Raises UsageError `where: reason` when it cannot be set up.
    """
    from webhook.cluster.live import LiveViewError, client_from_kubeconfig, client_in_cluster

    try:
        return client_in_cluster() if kubeconfig is None else client_from_kubeconfig(kubeconfig, context=context)
    except LiveViewError as exc:
        raise UsageError(f"{where}: {exc}") from None


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
