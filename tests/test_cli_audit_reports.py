"""`audit --context … --output sarif|github|gitlab|markdown` and `--report FORMAT=FILE`: the audit's findings on the
lines of their fields when the objects come from files, without lines (and saying whose they are) from a pipe."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Final

import jsonschema
import pytest

from webhook.cli import main

ROOT: Final = Path(__file__).resolve().parents[1]
LANDSCAPE: Final = "examples/landscape/"
AFTER_EXPIRY: Final = "2026-12-06T00:00:00Z"  # 1.33.4 expired the day before
SARIF_SCHEMA: Final = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def _audit(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["audit", *argv, "--now", AFTER_EXPIRY], out=out), out.getvalue()


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_audit_findings_are_placed_on_their_fields() -> None:
    code, out = _audit("--context", LANDSCAPE, "--output", "sarif")
    log = json.loads(out)
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    errors = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
         r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in log["runs"][0]["results"] if r["level"] == "error"
    }  # fmt: skip
    profile, prod = ROOT / LANDSCAPE / "cloudprofile.yaml", ROOT / LANDSCAPE / "shoot-prod.yaml"
    assert code == 1
    assert errors == {
        ("CP-EXP-001", f"{LANDSCAPE}cloudprofile.yaml", _line_of(profile, 'expirationDate: "2026-12-05')),
        ("SH-ADM-K8S-002", f"{LANDSCAPE}shoot-prod.yaml", _line_of(prod, "version: 1.33.4")),
    }


def test_audit_from_a_pipe_has_no_lines_and_writes_every_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "".join(f"---\n{p.read_text()}" for p in sorted((ROOT / LANDSCAPE).glob("*.yaml")))
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    markdown, policy = tmp_path / "audit.md", tmp_path / "reports.yaml"
    code, out = _audit("--context", "-", "--output", "github", "--report", f"markdown={markdown}",
                       "--report", f"policyreport={policy}")  # fmt: skip
    assert code == 1
    assert out.splitlines() and all(
        line.startswith(("::error title=", "::warning title=")) for line in out.splitlines()
    )
    assert "::error title=CP-EXP-001::CloudProfile/aws: (created today): spec.kubernetes.versions[3]" in out
    assert markdown.read_text().startswith("### gardener-webhook audit\n")
    assert "kind: ClusterPolicyReport" in policy.read_text()
