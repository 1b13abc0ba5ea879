"""`gardener-webhook review`: judge manifests offline (docs/guides/review.md and
docs/guides/review-ci.md): text as each object is judged, JSON, JUnit (for input errors too), the CI formats with
each finding on its line (`webhook.cli.outputs`), `--report FORMAT=FILE`, and `--base`/`--base-dir`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from webhook.offline.documents import ManifestReader, SkippedFile
    from webhook.offline.review import Reviewed
    from webhook.settings import Settings

from webhook.cli.base import (
    EXIT_DENIED,
    EXIT_OK,
    ClusterError,
    UsageError,
    _cluster_client,
    _parse_now,
    _settings,
    _source_plan,
)
from webhook.cli.outputs import (
    FORMATS,
    PLACED,
    junit_input_error,
    print_text,
    render,
    report_spec,
    write_report,
    write_step_summary,
)


def _skipped_files(skipped: Sequence[SkippedFile], *, verbose: bool, out: TextIO) -> None:
    """One `-v` line per skipped file, then their count (nothing when no file was skipped)."""
    if verbose:
        out.writelines(f"skipped file {s.source}: {s.reason}\n" for s in skipped)
    if skipped:
        count = len(skipped)
        out.write(f"{count} file{'s' if count != 1 else ''} skipped{'' if verbose else ' (-v lists them and why)'}\n")


def cmd_review(args: argparse.Namespace, out: TextIO) -> int:
    """`review`: judge files offline exactly as the server would; returns the exit status.

    0: everything judged was allowed (and, with --strict, nothing was skipped); 1: something was denied, or
    skipped under --strict; 2: usage or unreadable input (with --output junit, still a report: one error case).
    Text is printed as each object is judged, with a progress line on stderr when it is a terminal and the run lasts
    over a second; JSON and JUnit are one document each, printed at the end, with no progress line. Skipped files
    (kustomize, Helm, CI files in a directory) are listed with -v and counted: after the results for text output,
    on stderr for json and junit, whose stdout a machine reads.
    """
    from webhook.admission.fieldvalidation import FieldValidation
    from webhook.offline.documents import Excludes, ManifestReader
    from webhook.offline.progress import ProgressLine
    from webhook.offline.review import Result, ReviewInputError, review_files

    against_cluster = args.kubeconfig is not None or args.in_cluster
    change = args.base is not None or args.base_dir is not None or against_cluster
    progress: ProgressLine | None = None
    print_now: Callable[[Reviewed, int, int], None] | None = None
    if args.output == "text":
        progress = line = ProgressLine(sys.stderr, "gardener-webhook review")

        def print_now(item: Reviewed, done: int, total: int) -> None:
            line.clear()
            print_text(item, out, operation=change)
            out.flush()  # a CI log shows each object when it is judged, not all of them at the end
            line.update(done, total)

    now = datetime.now(UTC)
    reports: list[tuple[str, Path]] = args.report
    placed = args.output in PLACED or any(fmt in PLACED for fmt, _ in reports)  # keep the YAML nodes for the lines
    reader = ManifestReader(
        sys.stdin, exclude=Excludes(args.exclude), skip_named=args.skip_non_objects, positions=placed
    )
    unchanged = 0
    try:
        settings = _settings(args.config)
        now = _parse_now(args.now)
        if against_cluster:
            results, unchanged = _review_against_cluster(args, settings, now, reader, print_now)
        elif change:
            base_reader = ManifestReader(
                exclude=Excludes(args.exclude), skip_named=args.skip_non_objects, positions=placed
            )
            results, unchanged = _review_change(args, settings, now, reader, base_reader, print_now)
        else:
            if args.all:
                raise UsageError("--all is only used with --base or --base-dir")
            results = review_files(
                args.files, operation=args.operation, old=args.old, context=args.context, settings=settings, now=now,
                reader=reader, on_result=print_now, field_validation=FieldValidation(args.field_validation),
            )  # fmt: skip
    except (ReviewInputError, UsageError, ClusterError) as exc:
        failed = junit_input_error(str(exc), getattr(exc, "source", ""), now)
        if args.output == "junit":  # the CI's report must show exactly the runs that went wrong
            out.write(failed)
        for fmt, file in reports:
            if fmt == "junit":
                write_report(file, failed)
        if args.verbose:  # else the error stays the one line on stderr that scripts expect
            _skipped_files(reader.skipped, verbose=True, out=sys.stderr)
        if isinstance(exc, ClusterError):
            raise
        raise UsageError(str(exc)) from None
    finally:
        if progress is not None:
            progress.clear()
    _write_outputs(args, results, unchanged, reader, out, now=now, change=change)
    denied = any(item.result is Result.DENIED for item in results)
    skipped = any(item.result is Result.SKIPPED for item in results)
    return EXIT_DENIED if denied or (args.strict and skipped) else EXIT_OK


def _write_outputs(
    args: argparse.Namespace,
    results: Sequence[Reviewed],
    unchanged: int,
    reader: ManifestReader,
    out: TextIO,
    *,
    now: datetime,
    change: bool,
) -> None:
    """After the judging: stdout's document (text was printed as judged), the unchanged count, the skipped files,
    each `--report` file, and for `github` the step summary. Raises UsageError when a file cannot be written."""
    if args.output != "text":
        out.write(render(args.output, results, strict=args.strict, now=now, operation=change))
    elif unchanged:
        plural = "s" if unchanged != 1 else ""
        out.write(f"{unchanged} unchanged object{plural} not judged (--all judges them as re-applies)\n")
    _skipped_files(reader.skipped, verbose=args.verbose, out=out if args.output == "text" else sys.stderr)
    for fmt, file in args.report:
        write_report(file, render(fmt, results, strict=args.strict, now=now, operation=change))
    if args.output == "github" or any(fmt == "github" for fmt, _ in args.report):
        try:
            write_step_summary(results)
        except OSError as exc:
            raise UsageError(f"$GITHUB_STEP_SUMMARY: cannot write: {exc.strerror or exc}") from None


def _review_change(
    args: argparse.Namespace,
    settings: Settings,
    now: datetime,
    reader: ManifestReader,
    base_reader: ManifestReader,
    on_result: Callable[[Reviewed, int, int], None] | None,
) -> tuple[list[Reviewed], int]:
    """`review --base REV` or `--base-dir DIR`: (results, unchanged objects not judged); see webhook.offline.change."""
    from webhook.admission.fieldvalidation import FieldValidation
    from webhook.offline.change import BaseError, git_base
    from webhook.offline.review import review_change

    if args.base is not None and args.base_dir is not None:
        raise UsageError("--base and --base-dir cannot be combined: the base is a revision or a directory")
    if args.old is not None or args.operation != "CREATE":
        raise UsageError("--base and --base-dir find each object's operation themselves: drop --old and --operation")
    options = {
        "context": args.context,
        "settings": settings,
        "now": now,
        "reader": reader,
        "base_reader": base_reader,
        "judge_unchanged": args.all,
        "on_result": on_result,
        "field_validation": FieldValidation(args.field_validation),
    }
    try:
        if args.base_dir is not None:
            if not args.base_dir.is_dir():
                raise UsageError(f"--base-dir {args.base_dir}: not a directory")
            done = review_change(args.files, base_dir=args.base_dir, base_label=str(args.base_dir), **options)
        else:
            with git_base(args.base, args.files) as base_dir:
                done = review_change(args.files, base_dir=base_dir, base_label=args.base, **options)
    except BaseError as exc:
        raise UsageError(str(exc)) from None
    return done.results, done.unchanged


def _review_against_cluster(
    args: argparse.Namespace,
    settings: Settings,
    now: datetime,
    reader: ManifestReader,
    on_result: Callable[[Reviewed, int, int], None] | None,
) -> tuple[list[Reviewed], int]:
    """`review --kubeconfig FILE` / `--in-cluster`: (results, unchanged objects not judged); see
    `review.review_against_cluster`. The tracked kinds are read from `cluster.sources` of --config where they name
    them, else from the flag's cluster, which also answers for the other judged kinds.

    Raises UsageError for flags that pick another pairing and for a client that cannot be set up, ClusterError
    (exit 3) when the cluster cannot be read."""
    from webhook.admission.fieldvalidation import FieldValidation
    from webhook.cluster.stored import Cluster, ClusterReader, ClusterReadError, context_namespace
    from webhook.offline.review import review_against_cluster

    if args.kubeconfig is not None and args.in_cluster:
        raise UsageError("--kubeconfig and --in-cluster cannot be combined: the cluster is one or the other")
    if args.base is not None or args.base_dir is not None or args.context:
        raise UsageError(
            "--kubeconfig/--in-cluster pair each object with the cluster's stored one: drop --base, --base-dir and "
            "--context (the cluster is the context)"
        )
    if args.old is not None or args.operation != "CREATE":
        raise UsageError(
            "--kubeconfig/--in-cluster find each object's operation themselves: drop --old and --operation"
        )
    flag = "--kubeconfig" if args.kubeconfig is not None else "--in-cluster"
    clusters: list[Cluster] = []
    try:
        for name, path, context, kinds, where in _source_plan(args.kubeconfig, args.in_cluster, settings, args.config):
            clusters.append(Cluster(name, _cluster_client(path, context, where), kinds))
        default = next((c for c in clusters if c.name == flag), None)
        if default is None:  # cluster.sources name every tracked kind: the flag's cluster answers for the rest
            default = Cluster(flag, _cluster_client(args.kubeconfig, None, flag), ())
    except UsageError:
        for built in clusters:
            built.client.close()
        raise
    cluster = ClusterReader(clusters, default, namespace=context_namespace(args.kubeconfig))
    try:
        done = review_against_cluster(
            args.files, cluster=cluster, label=f"cluster ({flag})", settings=settings, now=now, reader=reader,
            judge_unchanged=args.all, on_result=on_result, field_validation=FieldValidation(args.field_validation),
        )  # fmt: skip
    except ClusterReadError as exc:
        raise ClusterError(f"{flag}: {exc}") from None
    finally:
        cluster.close()
    return done.results, done.unchanged


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `review` sub-command's arguments."""
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
    review.add_argument(
        "--output", choices=FORMATS, default="text",
        help="what stdout gets: text, json, junit, or a format that places each finding on its line: sarif (SARIF "
        "2.1.0), github (workflow commands; a summary to $GITHUB_STEP_SUMMARY), gitlab (Code Quality), markdown",
    )  # fmt: skip
    review.add_argument(
        "--report", action="append", default=[], type=report_spec(FORMATS), metavar="FORMAT=FILE",
        help="also write the review in FORMAT (as --output) into FILE (repeatable: --report sarif=review.sarif "
        "--report junit=review.xml)",
    )  # fmt: skip
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
