"""Finding, warning and denial text: field-error lines, warnings composed to the API server's limits, denial bounds.

Pure text composition for `admission` (the response, and `Outcome` for the CLI and audit). A finding renders as a
Kubernetes field error (`<field path>: <Type>: <value>: <detail>`, values Go-quoted by `field.render_value`); a
warning is cleaned for a Warning header and composed to at most MAX_WARNING_CHARS characters without cutting inside
a quoted value; the warnings of a response are bounded by MAX_WARNINGS and MAX_WARNINGS_TOTAL_CHARS; a denial's
message (one finding per line, as kubectl prints causes) and causes by MAX_DENIAL_CAUSES and MAX_DENIAL_LINE_CHARS
(`compose_denial`, for `responses.denied`). Every function here is pure and never raises. Contract: docs/design.md §3.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import Final

from webhook.admission.responses import StatusCause
from webhook.domain.field import ErrorType, Finding, Mode, render_value

# Warning limits, in characters (Unicode code points, Go's runes). The API server dedupes the warnings of a request
# and, once they exceed 4096 runes in total (all sources: webhooks, the registry), cuts every one to 256 runes and
# drops those that arrive after 4096 runes are written: k8s.io/apiserver pkg/endpoints/filters/warning.go,
# recorder.AddWarning (truncateItemRunes, truncateAtTotalRunes). The AdmissionResponse.warnings API doc (k8s.io/api
# admission/v1) says the same: "Warnings over 256 characters and large numbers of warnings may be truncated".
# Within both, the API server never cuts ours, and drops them only if other sources used up the 4096.
MAX_WARNING_CHARS: Final = 256
MAX_WARNINGS_TOTAL_CHARS: Final = 4096
# Our own cap: a reader takes in 20 warnings, not 200.
MAX_WARNINGS: Final = 20
# A denial's Status carries at most this many causes and message lines, each at most this long (characters); the
# rest is counted ("… and N more findings"). kubectl prints every cause: a few screens is the useful most.
MAX_DENIAL_CAUSES: Final = 100
MAX_DENIAL_LINE_CHARS: Final = 1024
# When a warning is too long, quoted values longer than this are elided first, so that the detail after them fits.
ELIDE_VALUES_OVER_CHARS: Final = 64


def render_body(finding: Finding) -> str:
    """The Kubernetes field-error body: `Invalid value: "x": detail`, `Required value: detail`, …"""
    kind = finding.type
    if kind in (ErrorType.INVALID, ErrorType.UNSUPPORTED, ErrorType.DUPLICATE):
        body = f"{kind.text}: {render_value(finding.value)}"
    else:
        body = kind.text
    return f"{body}: {finding.detail}" if finding.detail else body


def render_line(finding: Finding) -> str:
    """One message line: `<field path>: <Type>: <detail>` (the path is omitted when empty)."""
    path = str(finding.path)
    return f"{path}: {render_body(finding)}" if path else render_body(finding)


def render_warning(finding: Finding) -> str:
    """Warning text: `<path>: <detail>` for advisory rules, the full error line for demoted denials.

    A ratcheted denial is its error line behind admission.RATCHETED_PREFIX (see `admission._outcome`).
    """
    if finding.rule.mode is Mode.WARN:
        path = str(finding.path)
        return f"{path}: {finding.detail}" if path else finding.detail
    return render_line(finding)


# A quoted value in a rendered warning: a Go-style double-quoted string with backslash escapes (field.render_value,
# `%q`), or a single-quoted value ('garden-team/prod', a regex) whose quotes do not touch a letter or digit outside:
# an apostrophe in a word (Shoot's, owners') opens or closes nothing, and one between letters inside stays (it's).
# Possessive (*+): a failed attempt gives nothing back, so it costs one scan of what it read.
_QUOTE: Final = re.compile("[\"']")
_DOUBLE_QUOTED: Final = re.compile(r'"(?:[^"\\]|\\.)*+"', re.DOTALL)
_SINGLE_QUOTED: Final = re.compile(r"(?<!\w)'(?:[^']|(?<=\w)'(?=\w))*+'(?!\w)", re.DOTALL)


def _quoted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted value in `text`, in order; an unclosed quote is a plain character.

    Linear in len(text): once a double quote is left unclosed, no later one can close (the scan from it would
    read the same characters in the same state), so double quotes are no longer tried.
    """
    spans: list[tuple[int, int]] = []
    double = True
    position = 0
    while (quote := _QUOTE.search(text, position)) is not None:
        at = quote.start()
        if text[at] == '"':
            found = _DOUBLE_QUOTED.match(text, at) if double else None
            double = found is not None
        else:
            found = _SINGLE_QUOTED.match(text, at)
        if found is None:
            position = at + 1
            continue
        spans.append(found.span())
        position = found.end()
    return spans


def clean_warning(text: str) -> str:
    """`text` as a Warning header can carry it: each control or separator character (Unicode C*, Z*, except the
    ASCII space; the API server drops a warning holding a control character) becomes a space, runs of spaces one.

    Pure; the common clean text is returned as is after C-speed checks.
    """
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def clean_warnings(texts: Sequence[str]) -> list[str]:
    """Every distinct non-empty warning, cleaned (`clean_warning`), in order; never shortened or capped."""
    return list(dict.fromkeys(clean for clean in map(clean_warning, texts) if clean))


def _placeholder(value: str) -> str:
    """What stands for an elided quoted value: its quotes around `<value of N characters>` (N: between the quotes)."""
    quote = value[0]
    return f"{quote}<value of {len(value) - 2} characters>{quote}"


def _enclosing(values: Sequence[tuple[int, int]], starts: Sequence[int], position: int) -> tuple[int, int] | None:
    """The value span that `position` falls strictly inside (a cut there would split it), or None."""
    i = bisect_left(starts, position) - 1
    return values[i] if i >= 0 and position < values[i][1] else None


def _cut_at(text: str, values: Sequence[tuple[int, int]], room: int) -> int:
    """Where to cut `text` so that at most `room` characters stay, never inside one of the `values` spans (sorted).

    Before the last space outside the values; without one (one long word), at `room` or the start of the value
    that `room` falls inside.
    """
    starts = [start for start, _ in values]
    space = text.rfind(" ", 0, room + 1)
    while space > 0:
        value = _enclosing(values, starts, space)
        if value is None:
            return space
        space = text.rfind(" ", 0, value[0])
    value = _enclosing(values, starts, room)
    return room if value is None or value[0] == 0 else value[0]


def compose_warning(text: str, limit: int = MAX_WARNING_CHARS) -> str:
    """`text` shortened to at most `limit` (default MAX_WARNING_CHARS) characters without cutting a quoted value.

    text: one cleaned warning (`clean_warning`), `<field path>: <fact>` with values quoted by `render_value` or in
    single quotes. A text that fits is returned unchanged (the common case, one `len`). Otherwise quoted values
    longer than ELIDE_VALUES_OVER_CHARS are replaced, longest first and only until the text fits, by a placeholder
    `"<value of N characters>"` (N counts the characters between the quotes, as rendered); then, if still too long,
    the text is cut before a space outside any quoted value and ends with "…". So the result is the text's
    beginning (field path and fact first) with whole values or placeholders, in order. Units: characters (code
    points, the API server's runes). Pure; never raises.
    Source: k8s.io/apiserver pkg/endpoints/filters/warning.go recorder.AddWarning (truncateItemRunes = 256).
    """
    if len(text) <= limit:
        return text
    spans = _quoted_spans(text)
    excess = len(text) - limit
    elided: set[int] = set()
    for i in sorted(range(len(spans)), key=lambda k: (spans[k][0] - spans[k][1], -spans[k][0])):
        start, end = spans[i]
        if excess <= 0 or end - start <= ELIDE_VALUES_OVER_CHARS:
            break
        elided.add(i)
        excess -= end - start - len(_placeholder(text[start:end]))
    if elided:
        parts: list[str] = []
        values: list[tuple[int, int]] = []
        done = length = 0
        for i, (start, end) in enumerate(spans):
            value = _placeholder(text[start:end]) if i in elided else text[start:end]
            parts += (text[done:start], value)
            length += start - done
            values.append((length, length + len(value)))
            length += len(value)
            done = end
        parts.append(text[done:])
        text, spans = "".join(parts), values
        if len(text) <= limit:
            return text
    return text[: _cut_at(text, spans, limit - 1)] + "…"


def _not_shown(count: int) -> str:
    return f"{count} more warning{'s' if count != 1 else ''} not shown"


def limit_warnings(full: Sequence[str]) -> list[str]:
    """The response's warnings for the cleaned, distinct texts `full` (`clean_warnings`), in order.

    Each is composed to fit (`compose_warning`) and de-duplicated on the composed text. At most MAX_WARNINGS
    entries and MAX_WARNINGS_TOTAL_CHARS characters in total: when more would be needed, whole warnings are dropped
    from the end and the last entry says how many ("7 more warnings not shown"). Pure; never raises.
    Source: k8s.io/apiserver pkg/endpoints/filters/warning.go recorder.AddWarning (truncateAtTotalRunes = 4096).
    """
    composed = list(dict.fromkeys(map(compose_warning, full)))
    if len(composed) <= MAX_WARNINGS and sum(map(len, composed)) <= MAX_WARNINGS_TOTAL_CHARS:
        return composed
    used = len(_not_shown(len(composed)))  # the longest "more" line this can need
    shown: list[str] = []
    for text in composed[: MAX_WARNINGS - 1]:
        if used + len(text) > MAX_WARNINGS_TOTAL_CHARS:
            break
        shown.append(text)
        used += len(text)
    return [*shown, _not_shown(len(composed) - len(shown))]


def sanitize_warnings(texts: Sequence[str]) -> list[str]:
    """Warnings as the API server passes them on: cleaned, distinct, composed to fit, bounded (`limit_warnings`)."""
    return limit_warnings(clean_warnings(texts))


def compose_denial(errors: Sequence[Finding], lines: Sequence[str]) -> tuple[str, list[StatusCause]]:
    """A denial's status.message and status.details.causes for `errors`; lines: the rendered `errors`, in order.

    One finding: its line is the message. Several: each on a line of its own as `* <line>`, after a leading line
    break, which is how kubectl prints an object's causes (k8s.io/kubectl pkg/cmd/util/helpers.go MultilineError);
    kubectl prints a 403 (and any denial of several objects) by its message only, behind the API server's
    `admission webhook "<name>" denied the request: ` (k8s.io/apiserver pkg/admission/plugin/webhook/errors
    ToStatusErr), so both read one finding per line whatever the code. Bounded whatever the request: the first
    MAX_DENIAL_CAUSES findings, each line and cause message composed to at most MAX_DENIAL_LINE_CHARS characters
    (values whole or elided, as warnings), then a line "… and N more findings". A 6 MiB object with thousands of
    invalid entries gets an answer of a few hundred KiB, not one larger than itself; `Outcome.messages` (review,
    audit, logs) keep every finding in full. Pure; never raises.
    """
    shown = errors[:MAX_DENIAL_CAUSES]
    causes: list[StatusCause] = [
        {
            "reason": f.type.reason,
            "message": compose_warning(render_body(f), MAX_DENIAL_LINE_CHARS),
            "field": str(f.path),
        }
        for f in shown
    ]
    composed = [compose_warning(line, MAX_DENIAL_LINE_CHARS) for line in lines[:MAX_DENIAL_CAUSES]]
    if len(composed) == 1 and len(errors) == 1:
        return composed[0], causes
    message = "".join(f"\n* {line}" for line in composed)
    if len(errors) > len(shown):
        more = len(errors) - len(shown)
        message += f"\n… and {more} more finding{'s' if more != 1 else ''}"
    return message, causes
