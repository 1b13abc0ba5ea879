"""JUnit XML for CI systems (GitLab, Jenkins, GitHub Actions reporters): one test case per judged object.

The shape follows the Jenkins/Surefire JUnit schema that CI systems accept (a `testsuites` root, a `testsuite`
per input file with `name`, `tests`, `failures`, `errors`, `skipped`, `time`, `timestamp`; a `testcase` with
`name` and `classname` holding at most one of `error`, `failure` or `skipped`, and `system-out` for warnings).
An `error` is an input that could not be judged at all (exit 2), so a CI shows the report for exactly the runs
that went wrong. Text is stripped of characters XML 1.0 cannot carry.
Source: docs/guides/review-ci.md (`--output junit`, input errors included); schema checked by
tests/schemas/junit.xsd.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from webhook.models.base import format_rfc3339

_NOT_XML: Final = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


@dataclass(frozen=True, slots=True)
class Case:
    """One test case. failure: (message, type, body) when it failed; skipped: the reason when not judged;
    output: lines for `system-out` (warnings, hints); error: (message, type, body) when the input could not be
    judged at all (it wins over failure and skipped)."""

    name: str
    classname: str
    failure: tuple[str, str, str] | None = None
    skipped: str | None = None
    output: tuple[str, ...] = field(default=())
    error: tuple[str, str, str] | None = None


@dataclass(frozen=True, slots=True)
class Suite:
    """A group of cases, e.g. the objects of one input file."""

    name: str
    cases: tuple[Case, ...]


def render(name: str, suites: Sequence[Suite], *, now: datetime) -> str:
    """The JUnit XML document (UTF-8 text with declaration); now: aware UTC, the suites' timestamp."""
    root = ET.Element("testsuites", name=_text(name))
    total = failures = errors = 0
    for suite in suites:
        suite_errors = sum(1 for c in suite.cases if c.error is not None)
        suite_failures = sum(1 for c in suite.cases if c.failure is not None and c.error is None)
        skipped = sum(1 for c in suite.cases if c.skipped is not None and c.failure is None and c.error is None)
        element = ET.SubElement(
            root,
            "testsuite",
            name=_text(suite.name),
            tests=str(len(suite.cases)),
            failures=str(suite_failures),
            errors=str(suite_errors),
            skipped=str(skipped),
            time="0",
            timestamp=format_rfc3339(now).removesuffix("Z"),
        )
        for case in suite.cases:
            item = ET.SubElement(element, "testcase", name=_text(case.name), classname=_text(case.classname), time="0")
            if case.error is not None:
                message, kind, body = case.error
                ET.SubElement(item, "error", message=_text(message), type=_text(kind)).text = _text(body)
            elif case.failure is not None:
                message, kind, body = case.failure
                ET.SubElement(item, "failure", message=_text(message), type=_text(kind)).text = _text(body)
            elif case.skipped is not None:
                ET.SubElement(item, "skipped", message=_text(case.skipped))
            if case.output:
                ET.SubElement(item, "system-out").text = _text("\n".join(case.output))
        total += len(suite.cases)
        failures += suite_failures
        errors += suite_errors
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
