"""`review --output junit` for every outcome: a run that stops at an input error (exit 2) still writes its report.

The CI shows a report for exactly the failures people need to see. Through the CLI (`main`); each
report is checked against tests/schemas/junit.xsd.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from lxml import etree

from tests.builders import cloud_profile_dict
from tests.test_cli_review import NOW, SCHEMA, run


def _report(out: str) -> etree._Element:
    doc = etree.fromstring(out.encode("utf-8"))
    SCHEMA.assertValid(doc)
    return doc


def _only_error(doc: etree._Element) -> etree._Element:
    """The one error of a report that holds one test case, after checking every count says so."""
    assert (doc.get("tests"), doc.get("failures"), doc.get("errors")) == ("1", "0", "1")
    (suite,) = doc.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "1",
        "0",
        "1",
        "0",
    )
    (error,) = suite.findall("testcase/error")
    return error


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\n---\nmetadata:\n  name: [a\n  labels: {}\n",
            "document 2: line 6, column 9: not valid YAML or JSON",
            id="yaml-error",
        ),
        pytest.param("apiVersion: v1\nkind: ConfigMap\n---\nmetadata: {name: b}\n", ", document 2 (line 3): object has no", id="no-kind"),
        pytest.param(b"\xff\xfe not UTF-8", ": cannot read: not UTF-8 text", id="unreadable"),
    ],
)  # fmt: skip
def test_an_input_error_is_an_error_case_naming_file_document_and_line(
    tmp_path: Path, text: str | bytes, detail: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "landscape" / "a-profile.yaml"
    good.parent.mkdir()
    good.write_text(yaml.safe_dump(cloud_profile_dict()))
    bad = tmp_path / "landscape" / "b-broken.yaml"
    bad.write_bytes(text if isinstance(text, bytes) else text.encode())
    code, out = run("review", "--strict", "--output", "junit", tmp_path / "landscape", "--now", NOW)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1  # stderr keeps its one line
    error = _only_error(_report(out))
    message = err.removeprefix("gardener-webhook review: ").rstrip("\n")
    assert error.get("message") == message and error.text == message and error.get("type") == "InputError"
    assert message.startswith(str(bad)) and detail in message
    suite = error.getparent().getparent()
    assert suite.get("name") == str(bad) and error.getparent().get("name") == str(bad)


def test_an_input_error_from_stdin_names_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run("review", "--output", "junit", "-", stdin="metadata: {name: x}\n", monkeypatch=monkeypatch)
    assert code == 2
    error = _only_error(_report(out))
    assert error.get("message") == "<stdin>, document 1 (line 1): object has no apiVersion and no kind"
    assert error.getparent().getparent().get("name") == "<stdin>"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(["--now", "yesterday"], "--now: 'yesterday' is not an RFC 3339 date-time", id="now"),
        pytest.param(["--context", "missing.yaml"], "--context: missing.yaml: cannot read: no such file", id="context"),
        pytest.param(["--old", "x.yaml"], "--old is only used with --operation UPDATE", id="old"),
    ],
)
def test_usage_errors_of_a_junit_run_are_reported_too(
    tmp_path: Path, argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("x.yaml").write_text(yaml.safe_dump(cloud_profile_dict()))
    code, out = run("review", "--output", "junit", "x.yaml", *argv)
    assert code == 2
    error = _only_error(_report(out))
    assert (error.get("message") or "").startswith(message)
    assert error.getparent().getparent().get("name") == "inputs"


def test_a_clean_junit_report_counts_no_errors(tmp_path: Path) -> None:
    path = tmp_path / "cp.yaml"
    path.write_text(yaml.safe_dump(cloud_profile_dict()))
    code, out = run("review", "--output", "junit", path, "--now", NOW)
    doc = _report(out)
    assert code == 0 and doc.get("errors") == "0" and doc.find("testsuite").get("errors") == "0"
