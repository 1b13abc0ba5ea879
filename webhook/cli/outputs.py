"""What `review` writes: its formats, on stdout (`--output`) and into files (`--report FORMAT=FILE`, repeatable).

text (for people; printed as each object is judged), json (the AdmissionReviews with their responses), junit (a
suite per input file), and the formats merge-request pipelines show, each finding on the line of its field:
sarif (SARIF 2.1.0, for code scanning), github (GitHub Actions workflow commands, plus a Markdown summary appended
to `$GITHUB_STEP_SUMMARY` when it is set), gitlab (a GitLab Code Quality report) and markdown (a table for a
merge-request comment). Source: docs/guides/review-ci.md "Findings on their lines".
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

if TYPE_CHECKING:
    from webhook.offline.located import ObjectReport
    from webhook.offline.review import Reviewed

FORMATS: Final = ("text", "json", "junit", "sarif", "github", "gitlab", "markdown")
# The formats that name each finding's file and line: the manifests are read with their YAML nodes kept.
PLACED: Final = frozenset({"sarif", "github", "gitlab", "markdown"})
SUMMARY_VARIABLE: Final = "GITHUB_STEP_SUMMARY"


def report_spec(formats: Sequence[str]) -> Callable[[str], tuple[str, Path]]:
    """The argparse type of `--report FORMAT=FILE` for a command with these formats: it gives (format, file) and
    raises argparse.ArgumentTypeError naming the formats for anything else."""

    def parse(value: str) -> tuple[str, Path]:
        fmt, sep, file = value.partition("=")
        if not sep or fmt not in formats or not file:
            raise argparse.ArgumentTypeError(f"{value!r}: expected FORMAT=FILE with FORMAT one of {', '.join(formats)}")
        return fmt, Path(file)

    return parse


def write_report(file: Path, text: str) -> None:
    """Write one `--report` file; raises UsageError (exit 2) naming it when it cannot be written."""
    from webhook.cli.base import UsageError

    try:
        file.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--report {file}: cannot write: {exc.strerror or exc}") from None


def render_placed(fmt: str, objects: Sequence[ObjectReport], *, title: str) -> str:
    """`objects` in one of the PLACED formats; title heads the markdown table ("gardener-webhook review")."""
    from webhook import __version__
    from webhook.offline import reports
    from webhook.validators import ALL_RULES

    if fmt == "sarif":
        return reports.sarif(objects, ALL_RULES, version=__version__)
    if fmt == "github":
        return reports.github(objects)
    if fmt == "gitlab":
        return reports.gitlab(objects)
    return reports.markdown(objects, title=title)


def print_text(item: Reviewed, out: TextIO, *, operation: bool = False) -> None:
    """One object as `review` prints it: `RESULT Kind/ns/name[ as OPERATION]`, then its denials, warnings and
    hints, indented."""
    judged_as = f" as {item.operation}" if operation else ""
    if item.outcome is None:
        out.write(f"{item.result} {item.ref}{judged_as} ({item.reason})\n")
        return
    out.write(f"{item.result} {item.ref}{judged_as}\n")
    out.writelines(f"  {message}\n" for message in item.messages)
    out.writelines(f"  Warning: {warning}\n" for warning in item.warnings)
    out.writelines(f"  hint: {hint}\n" for hint in item.hints)


def junit_review(results: Sequence[Reviewed], *, strict: bool, now: datetime, operation: bool = False) -> str:
    """`review --output junit`: a suite per input file, a case per object (failures carry the denial lines)."""
    from webhook.offline import junit
    from webhook.offline.review import Result, display_group

    suites: dict[str, list[junit.Case]] = {}
    for item in results:
        group, kind = item.group_kind
        classname = f"{display_group(group)}.{kind}"
        output = tuple([f"Warning: {w}" for w in item.warnings] + [f"hint: {h}" for h in item.hints])
        failure = None
        skipped = None
        if item.result is Result.DENIED and item.outcome is not None:
            count = len(item.messages)
            failure = (
                f"denied: {count} finding{'s' if count != 1 else ''}",
                "DENIED",
                "\n".join(item.messages),
            )
        elif item.result is Result.SKIPPED:
            if strict:
                failure = (f"skipped under --strict: {item.reason}", "SKIPPED", item.reason)
            else:
                skipped = item.reason
        name = f"{item.ref} as {item.operation}" if operation else item.ref
        case = junit.Case(name, classname, failure, skipped, output)
        source = "<stdin>" if item.manifest.source == "-" else item.manifest.source
        suites.setdefault(source, []).append(case)
    return junit.render(
        "gardener-webhook review", [junit.Suite(name, tuple(cases)) for name, cases in suites.items()], now=now
    )


def junit_input_error(message: str, source: str, now: datetime) -> str:
    """`review --output junit` for a run that stopped at an input error: one test case whose `error` is the
    message (file, document and line, as on stderr), in a suite named after the file when the error is one file's."""
    from webhook.offline import junit

    case = junit.Case(source or "inputs", "gardener-webhook.input", error=(message, "InputError", message))
    return junit.render("gardener-webhook review", [junit.Suite(source or "inputs", (case,))], now=now)


def render(fmt: str, results: Sequence[Reviewed], *, strict: bool, now: datetime, operation: bool) -> str:
    """The whole review in `fmt` (one of FORMATS), as one document; text as `print_text` prints it."""
    if fmt == "text":
        from io import StringIO

        buffer = StringIO()
        for item in results:
            print_text(item, buffer, operation=operation)
        return buffer.getvalue()
    if fmt == "json":
        return json.dumps([item.to_json() for item in results], indent=2) + "\n"
    if fmt == "junit":
        return junit_review(results, strict=strict, now=now, operation=operation)
    from webhook.offline.placing import object_report

    return render_placed(fmt, [object_report(item) for item in results], title="gardener-webhook review")


def write_step_summary(results: Sequence[Reviewed]) -> None:
    """Append the Markdown summary of a `github` review to the file `$GITHUB_STEP_SUMMARY` names, when it is set
    (GitHub Actions shows it on the run's page). Raises OSError when the file cannot be written."""
    target = os.environ.get(SUMMARY_VARIABLE)
    if not target:
        return
    from webhook.offline import reports
    from webhook.offline.placing import object_report

    with open(target, "a", encoding="utf-8") as summary:
        summary.write(reports.github_summary([object_report(item) for item in results]))
