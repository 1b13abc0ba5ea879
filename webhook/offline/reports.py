"""The findings of `review` in the formats merge-request pipelines show: SARIF, GitHub workflow commands, GitLab Code
Quality and a Markdown table. Pure renderers: ObjectReports (webhook/offline/located.py) in, text out, no I/O.

Where a finding is shown, in every format alike:
- a located finding (`Located.location` set) is shown on its file, line and column;
- an unplaced finding of an object read from a file (`ObjectReport.source` set and not "<stdin>", e.g. an object
  inside an AdmissionReview) is shown on that file as a whole, without a line;
- an unplaced finding of an object read from standard input or a cluster has no file at all.
An unplaced finding's text is prefixed with its object ("Shoot/garden-dev/a: …"), since no line tells which object
of the file it is about.

Fingerprints (SARIF `partialFingerprints`, GitLab `fingerprint`) identify a finding across runs, so that a CI shows
only the findings a change introduced: sha256 of the rule, file, object, field and message, and the finding's
occurrence number among identical ones, but not its line or column, so that an edit above a finding does not make it
new (`fingerprints`).
Sources: SARIF 2.1.0 (OASIS Standard, https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html; GitHub's
use of it: https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning);
GitHub workflow commands (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands,
escaping as @actions/core's command.ts); GitLab Code Quality
(https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from webhook.domain.field import Mode, Rule
from webhook.offline.located import Level, Located, ObjectReport

TOOL: Final = "gardener-webhook"
INFORMATION_URI: Final = "https://gardener-community.github.io/gardener-webhook/"
RULES_URI: Final = INFORMATION_URI + "reference/rules/"
SARIF_SCHEMA: Final = "https://json.schemastore.org/sarif-2.1.0.json"
# The key of our fingerprint in SARIF `partialFingerprints`, versioned so that a changed recipe is a new key, not a
# silent mismatch with the fingerprints of earlier runs.
FINGERPRINT_KEY: Final = "gardenerWebhookFinding/v1"
# A GitHub comment's body is at most 65 536 characters; a step summary at most 1 MiB (of UTF-8).
COMMENT_LIMIT: Final = 65_536
STEP_SUMMARY_LIMIT: Final = 1024 * 1024
STDIN: Final = "<stdin>"

_SARIF_LEVEL: Final = {Mode.DENY: "error", Mode.WARN: "warning", Mode.OFF: "none"}
# GitLab's severities are info, minor, major, critical and blocker. An error denies the object: "major", the highest
# level that still says "fix before merging" rather than "outage"; "critical" and "blocker" would rank a duplicate
# version with the worst a report can hold. A warning lets the object through: "minor" (not "info": it asks for a
# change, an expiration date or a newer version).
_GITLAB_SEVERITY: Final = {Level.ERROR: "major", Level.WARNING: "minor"}
_VERDICT_ORDER: Final = {"DENIED": 0, "ALLOWED": 1, "SKIPPED": 2}


@dataclass(frozen=True, slots=True)
class _Shown:
    """A finding with where it is shown: file ("" for none), line and column (0 for the whole file or none),
    the text to show (prefixed with its object when it has no line) and its fingerprint."""

    finding: Located
    file: str
    line: int
    column: int
    text: str
    fingerprint: str


def _source_file(obj: ObjectReport) -> str:
    """The file the object was read from, "" for standard input or a cluster."""
    return "" if obj.source in ("", STDIN) else obj.source


def fingerprint(finding: Located, file: str, occurrence: int) -> str:
    """sha256 hex of rule, file, object, field, message and occurrence (1 for the first of identical findings),
    NUL-separated (none of them holds a NUL). Not the line: an unrelated edit above leaves it as it was."""
    parts = (FINGERPRINT_KEY, finding.rule, file, finding.ref, finding.field, finding.message, str(occurrence))
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _shown(objects: Sequence[ObjectReport]) -> Iterator[tuple[ObjectReport, _Shown]]:
    """Every finding of `objects`, in order, with where it is shown and its fingerprint."""
    seen: Counter[tuple[str, str, str, str, str]] = Counter()
    for obj in objects:
        for finding in obj.findings:
            where = finding.location
            if where is not None:
                file, line, column, text = where.file, where.line, where.column, finding.message
            else:
                file, line, column, text = _source_file(obj), 0, 0, f"{finding.ref}: {finding.message}"
            key = (finding.rule, file or obj.source, finding.ref, finding.field, finding.message)
            seen[key] += 1
            yield obj, _Shown(finding, file, line, column, text, fingerprint(finding, key[1], seen[key]))


def fingerprints(objects: Sequence[ObjectReport]) -> list[str]:
    """The fingerprint of every finding of `objects`, in order (as SARIF and GitLab carry them).

    file: the finding's location file, else its object's source ("<stdin>" included, so that an object from
    standard input and one from a file differ). Identical findings of one object (same rule, field and message)
    are told apart by their occurrence number, 1, 2, …, in report order.
    """
    return [shown.fingerprint for _, shown in _shown(objects)]


# --- SARIF -------------------------------------------------------------------------------------------------------


def _uri(file: str) -> str:
    """A file name as a SARIF `artifactLocation.uri` (a URI reference, RFC 3986): percent-encoded, so that a space, a
    `%` or a `:` (which would read as a scheme) stays part of the path; an absolute path as a file: URI. A relative
    one is left relative: code scanning resolves it against the repository's root."""
    encoded = quote(file, safe="/")
    return "file://" + encoded if file.startswith("/") else encoded


def _help_uri(rule_id: str) -> str:
    # The rules page's headings are the ids; MkDocs' anchors are their lower-cased slugs.
    return RULES_URI + "#" + rule_id.lower()


def _rule_entry(rule_id: str, rule: Rule | None) -> dict[str, Any]:
    """A SARIF reportingDescriptor; for an id missing from the rules table, just its id and name (and the
    description GitHub asks for), since nothing is known of it."""
    if rule is None:
        return {"id": rule_id, "name": rule_id, "shortDescription": {"text": rule_id}}
    uri = _help_uri(rule_id)
    return {
        "id": rule_id,
        "name": rule_id,
        "shortDescription": {"text": rule.source},
        "helpUri": uri,
        "help": {
            "text": f"{rule_id}: {rule.source}. See {uri}",
            # A source may hold Markdown markup ("pkg/apis/*/<version>/register.go").
            "markdown": f"**{rule_id}**: {_text(rule.source)}. [Reference]({uri})",
        },
        "defaultConfiguration": {"level": _SARIF_LEVEL[rule.mode]},
        "properties": {"source": rule.source},
    }


def _logical(ref: str) -> list[dict[str, str]]:
    return [{"fullyQualifiedName": ref, "kind": "object"}]


def _sarif_location(file: str, line: int, column: int, ref: str) -> dict[str, Any]:
    """A SARIF location: the file (with its region when there is a line) and the object as a logical location."""
    location: dict[str, Any] = {}
    if file:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(file)}}
        if line:
            physical["region"] = {"startLine": line, "startColumn": column}
        location["physicalLocation"] = physical
    location["logicalLocations"] = _logical(ref)
    return location


def sarif(objects: Sequence[ObjectReport], rules: Mapping[str, Rule], *, version: str) -> str:
    """The review as a SARIF 2.1.0 log (JSON, indent 2, trailing newline), for GitHub code scanning and other viewers.

    Shape: {"$schema", "version": "2.1.0", "runs": [{"tool": {"driver": {"name", "version", "informationUri",
    "rules"}}, "invocations": [{"executionSuccessful": true, "toolExecutionNotifications"}], "columnKind",
    "results"}]}.
    - driver.rules: the rules the results name, sorted by id, not every rule of `rules`: every entry listed is one a
      reader needs (its description, help and helpUri, the rule's reference page), the log stays small, and the
      same input gives the same log whatever the table holds. Each has id and name (the id), shortDescription
      (`Rule.source`: the Gardener file + function or the requirement), helpUri, help, defaultConfiguration.level
      (the rule's default mode: deny → error, warn → warning, off → none) and properties.source. An id missing from
      `rules` gets a minimal entry (id, name, shortDescription: the id).
    - results: one per finding, in order: ruleId, ruleIndex (into driver.rules), level (error | warning),
      message.text (prefixed "<ref>: " when unplaced), locations (one: physicalLocation with artifactLocation.uri
      and region {startLine, startColumn} when located, artifactLocation only for an unplaced finding of a file,
      no physicalLocation from stdin or a cluster; always logicalLocations [{fullyQualifiedName: ref, kind: "object"}]),
      partialFingerprints {FINGERPRINT_KEY: fingerprint}, properties {operation, field[, unplaced]}.
    - a skipped object (no validator judges its kind) is a toolExecutionNotification of level "warning" with the
      reason and the object's location: it was not reviewed, which `review --strict` fails; it is no result,
      since no rule found anything. executionSuccessful is true: what is rendered was judged (an input that
      cannot be read ends the run with an error, not with a report).
    columnKind is unicodeCodePoints: the YAML parser counts columns in characters.
    version: the gardener-webhook version (driver.version).
    """
    shown = list(_shown(objects))
    ids = sorted({item.finding.rule for _, item in shown})
    index = {rule_id: i for i, rule_id in enumerate(ids)}
    results = []
    for _, item in shown:
        finding = item.finding
        properties = {"operation": finding.operation, "field": finding.field}
        if finding.location is None and finding.unplaced:
            properties["unplaced"] = finding.unplaced
        results.append(
            {
                "ruleId": finding.rule,
                "ruleIndex": index[finding.rule],
                "level": finding.level.value,
                "message": {"text": item.text},
                "locations": [_sarif_location(item.file, item.line, item.column, finding.ref)],
                "partialFingerprints": {FINGERPRINT_KEY: item.fingerprint},
                "properties": properties,
            }
        )
    notifications = [
        {
            "level": "warning",
            "message": {"text": f"{obj.ref}: skipped: {obj.reason}" if obj.reason else f"{obj.ref}: skipped"},
            "locations": [_sarif_location(_source_file(obj), 0, 0, obj.ref)],
            "properties": {"operation": obj.operation},
        }
        for obj in objects
        if obj.result == "SKIPPED"
    ]
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": TOOL,
                        "version": version,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule_entry(rule_id, rules.get(rule_id)) for rule_id in ids],
                    }
                },
                "invocations": [invocation],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# --- GitHub Actions ----------------------------------------------------------------------------------------------


def _escape_data(text: str) -> str:
    """A workflow command's message, escaped as @actions/core's escapeData (`%` first, so that no escape is
    escaped twice)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value, escaped as @actions/core's escapeProperty: `:` and `,` too, which
    would end the value."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(objects: Sequence[ObjectReport]) -> str:
    """The findings as GitHub Actions workflow commands, one line per finding (trailing newline; "" for none), which
    the runner turns into annotations on the files of the pull request.

    Located: `::error file=F,line=L,col=C,title=RULE::MESSAGE` (`::warning` for a warning); unplaced in a file:
    `::error file=F,title=RULE::REF: MESSAGE` (on the file as a whole); from stdin or a cluster:
    `::error title=RULE::REF: MESSAGE`. Property values and the message are escaped as the Actions toolkit does
    (message: `%` `\\r` `\\n`; properties also `:` `,`). Skipped objects get no line (no rule found anything; the
    step summary lists them). GitHub shows at most 10 annotations of each level per step, so the step summary
    (`github_summary`) is where the whole review is.
    """
    lines = []
    for _, item in _shown(objects):
        properties = []
        if item.file:
            properties.append(f"file={_escape_property(item.file)}")
            if item.line:
                properties += [f"line={item.line}", f"col={item.column}"]
        properties.append(f"title={_escape_property(item.finding.rule)}")
        lines.append(f"::{item.finding.level.value} {','.join(properties)}::{_escape_data(item.text)}\n")
    return "".join(lines)


def github_summary(objects: Sequence[ObjectReport], *, title: str = "gardener-webhook review") -> str:
    """The Markdown for `$GITHUB_STEP_SUMMARY`: `markdown`, bounded by the step summary's 1 MiB of UTF-8."""
    return _markdown(objects, STEP_SUMMARY_LIMIT, lambda text: len(text.encode()), title)


# --- GitLab Code Quality -----------------------------------------------------------------------------------------


def gitlab(objects: Sequence[ObjectReport]) -> str:
    """The findings as a GitLab Code Quality report (JSON array, indent 2, trailing newline), which GitLab shows in
    the merge request widget and diff, comparing its fingerprints with the target branch's report.

    Each finding: {"description": message, "check_name": rule, "fingerprint": see `fingerprints`, "severity":
    "major" for an error, "minor" for a warning, "location": {"path": file, "lines": {"begin": line}}}.
    GitLab requires location.path and lines.begin, so an unplaced finding of an object read from a file is placed
    on that file's line 1 (the file as a whole), its description prefixed "<ref>: "; an unplaced finding of an
    object read from standard input or a cluster has no file in the repository to name and is left out (a made-up
    path such as "<stdin>" would be a broken link in every merge request); the job's log, exit status and the other
    formats still carry it. Skipped objects are no findings and are not listed.
    """
    issues = [
        {
            "description": item.text,
            "check_name": item.finding.rule,
            "fingerprint": item.fingerprint,
            "severity": _GITLAB_SEVERITY[item.finding.level],
            "location": {"path": item.file, "lines": {"begin": item.line or 1}},
        }
        for _, item in _shown(objects)
        if item.file
    ]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


# --- Markdown ----------------------------------------------------------------------------------------------------

# Characters of plain text that GitHub and GitLab Markdown would read as markup in a table cell: emphasis, code,
# links, HTML (`<stdin>` would vanish as a tag), strikethrough, math, mentions and the cell separator. CommonMark
# lets any ASCII punctuation be backslash-escaped, and GFM tables take `\|` as a literal pipe.
_MARKUP: Final = frozenset("\\`*_[]<>|~$@&")


def _text(text: str) -> str:
    """Plain text for a table cell: markup escaped, line breaks as `<br>` (a row is one line)."""
    escaped = "".join("\\" + char if char in _MARKUP else char for char in text)
    return escaped.replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")


def _code(text: str) -> str:
    """Text as a code span in a table cell: fenced with more backticks than it holds, line breaks as spaces (a code
    span cannot hold `<br>`), pipes as `\\|` (GFM splits cells before it reads code spans)."""
    text = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ").replace("|", "\\|")
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    # A space on each side when the text begins or ends with a backtick, which CommonMark strips again.
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _finding_cell(item: _Shown) -> str:
    """`file:line` **level** `RULE` message; a finding without a line shows its file, if any, and why it has none."""
    finding = item.finding
    why = f"({_text(finding.unplaced)}) " if finding.unplaced else ""
    if item.line:
        place = _code(f"{item.file}:{item.line}") + " "
    elif item.file:
        place = _code(item.file) + " " + why
    else:
        place = why
    return f"{place}**{finding.level.value}** {_code(finding.rule)} {_text(finding.message)}"


def _row(obj: ObjectReport, items: Sequence[_Shown]) -> str:
    if obj.result == "SKIPPED":
        cell = _text(obj.reason)
    else:
        cell = "<br>".join(_finding_cell(item) for item in items)
    return f"| {_code(obj.ref)} | {_text(obj.operation)} | {_text(obj.result)} | {cell} |\n"


def _markdown(objects: Sequence[ObjectReport], limit: int, size: Callable[[str], int], title: str) -> str:
    by_object: dict[int, list[_Shown]] = {}
    for obj, item in _shown(objects):
        by_object.setdefault(id(obj), []).append(item)
    verdicts = Counter(obj.result for obj in objects)
    levels = Counter(finding.level for obj in objects for finding in obj.findings)
    head = (
        f"### {_text(title)}\n\n"
        f"{_plural(len(objects), 'object')}: {verdicts['DENIED']} denied, {verdicts['ALLOWED']} allowed, "
        f"{verdicts['SKIPPED']} skipped; {_plural(levels[Level.ERROR], 'error')}, "
        f"{_plural(levels[Level.WARNING], 'warning')}\n"
    )
    if not objects:
        return head
    text = head + "\n| object | operation | verdict | findings |\n| --- | --- | --- | --- |\n"
    used = size(text)
    # Denied objects first, then allowed (with their warnings), then skipped: what a cut drops is the least needed.
    ordered = sorted(objects, key=lambda obj: _VERDICT_ORDER.get(obj.result, len(_VERDICT_ORDER)))
    rows = []
    for shown_count, obj in enumerate(ordered):
        row = _row(obj, by_object.get(id(obj), []))
        left = len(ordered) - shown_count - 1
        # Room is kept for the closing line the rows after this one would need, so that it always fits.
        reserve = size(_more(left)) if left else 0
        if used + size(row) + reserve > limit:
            rows.append(_more(len(ordered) - shown_count))
            break
        rows.append(row)
        used += size(row)
    return text + "".join(rows)


def _more(count: int) -> str:
    return f"\n… and {_plural(count, 'more object')} (the report's size limit)\n"


def markdown(
    objects: Sequence[ObjectReport], *, limit: int = COMMENT_LIMIT, title: str = "gardener-webhook review"
) -> str:
    """The review as Markdown for a merge-request comment (GitHub and GitLab flavoured).

    Shape: "### <title>" ("gardener-webhook review", or "gardener-webhook audit"), a blank line, the summary ("3 objects: 1 denied, 1 allowed, 1 skipped;
    2 errors, 1 warning"), then a table `| object | operation | verdict | findings |`, one row per object: denied
    first, then allowed, then skipped, each group in report order. The findings cell lists the object's findings
    separated by `<br>`, each as `file:line` **level** `RULE` message (for an unplaced finding, its file if it has one
    and the reason it is unplaced); a skipped object's cell is the reason. The object
    reference, places and rule ids are code spans; other text has Markdown markup, `|` included, backslash-escaped,
    and line breaks as `<br>`.
    limit: the most characters the text may have, by default 65 536 (a GitHub comment's limit; GitLab's is
    1 000 000). Whole rows are kept while they fit with room for a last line "… and N more objects (the report's
    size limit)", which replaces the rows cut. The heading, summary and table header are always written, so a
    limit below their size is exceeded by them alone.
    """
    return _markdown(objects, limit, len, title)
