"""`review --output sarif|github|gitlab|markdown` and `--report FORMAT=FILE`: findings on the lines of their fields,
through the command line as a pipeline runs it (docs/guides/review-ci.md "Findings on their lines").

The lines asserted are those of the files under `examples/` (and of a change made in a scratch Git repository),
found by searching the text for the field, not typed as numbers, so an edit of an example moves both.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest
import yaml

from webhook.cli import main

ROOT: Final = Path(__file__).resolve().parents[1]
INVALID: Final = "examples/changes/cloudprofile-invalid.yaml"
NOW: Final = "2026-11-21T00:00:00Z"
SARIF_SCHEMA: Final = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def _review(*argv: str, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = main(["review", *argv, "--now", NOW], out=out)
    return code, out.getvalue()


def _line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the `occurrence`-th line of `path` that holds `needle`."""
    hits = [n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    return hits[occurrence - 1]


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


def test_sarif_is_valid_and_places_each_finding_on_its_field() -> None:
    code, out = _review(INVALID, "--output", "sarif")
    log = json.loads(out)
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(log)
    (run,) = log["runs"]
    places = [
        (r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]
    ]
    path = ROOT / INVALID
    assert code == 1
    assert places == [
        ("CP-K8S-003", "error", _line_of(path, "- version: 1.34.2", 2)),  # versions[2], the second 1.34.2
        ("CP-MI-005", "error", _line_of(path, "updateStrategy: sideways")),
        ("CP-WARN-001", "warning", _line_of(path, "- version: 1.33.4")),  # expirationDate is missing: its entry
    ]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {INVALID}
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == {"CP-K8S-003", "CP-MI-005", "CP-WARN-001"}


def test_text_for_people_and_files_for_the_ci_in_one_run(tmp_path: Path) -> None:
    reports = {fmt: tmp_path / f"review.{fmt}" for fmt in ("sarif", "junit", "gitlab", "markdown", "json")}
    code, out = _review(INVALID, *(f"--report={fmt}={file}" for fmt, file in reports.items()))
    assert (code, out) == _review(INVALID)  # stdout as without any report
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(json.loads(reports["sarif"].read_text()))
    assert '<testcase name="CloudProfile/aws"' in reports["junit"].read_text()
    assert [q["check_name"] for q in json.loads(reports["gitlab"].read_text())] == [
        "CP-K8S-003", "CP-MI-005", "CP-WARN-001",
    ]  # fmt: skip
    assert f"`{INVALID}:{_line_of(ROOT / INVALID, 'updateStrategy: sideways')}`" in reports["markdown"].read_text()
    assert json.loads(reports["json"].read_text())[0]["response"]["allowed"] is False


def test_gitlab_fingerprints_survive_a_second_run_and_an_edit_above(tmp_path: Path) -> None:
    copy = tmp_path / "cloudprofile.yaml"
    shutil.copy(ROOT / INVALID, copy)
    first = json.loads(_review(str(copy), "--output", "gitlab")[1])
    second = json.loads(_review(str(copy), "--output", "gitlab")[1])
    copy.write_text("# a comment added above everything\n" + copy.read_text())
    moved = json.loads(_review(str(copy), "--output", "gitlab")[1])
    assert [f["fingerprint"] for f in first] == [f["fingerprint"] for f in second] == [f["fingerprint"] for f in moved]
    assert [f["location"]["lines"]["begin"] + 1 for f in first] == [f["location"]["lines"]["begin"] for f in moved]
    assert len({f["fingerprint"] for f in first}) == len(first)


def test_github_annotations_and_the_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out = _review(INVALID, "--output", "github")
    line = _line_of(ROOT / INVALID, "updateStrategy: sideways")
    assert code == 1
    assert out.splitlines()[1] == (
        f"::error file={INVALID},line={line},col=5,title=CP-MI-005::spec.machineImages[0].updateStrategy: Unsupported "
        'value: "sideways": supported values: "major", "minor", "patch"'
    )
    assert out.splitlines()[2].startswith("::warning file=")
    text = summary.read_text()
    assert (
        text.startswith("earlier step\n### gardener-webhook review")
        and "| `CloudProfile/aws` | CREATE | DENIED |" in text
    )


def test_an_object_from_standard_input_has_no_line_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = _review("-", "--output", "sarif", stdin=(ROOT / INVALID).read_text(), monkeypatch=monkeypatch)
    (run,) = json.loads(out)["runs"]
    assert code == 1 and run["results"]
    for result in run["results"]:
        assert "physicalLocation" not in result["locations"][0], result
        assert result["message"]["text"].startswith("CloudProfile/aws: ")
    github = _review("-", "--output", "github", stdin=(ROOT / INVALID).read_text(), monkeypatch=monkeypatch)[1]
    assert github.splitlines()[0].startswith("::error title=CP-K8S-003::CloudProfile/aws: spec.kubernetes.versions[2]")


def test_a_bad_report_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", INVALID, "--report", "pdf=review.pdf"], out=io.StringIO()) == 2
    assert "expected FORMAT=FILE with FORMAT one of text, json, junit, sarif, github, gitlab, markdown" in (
        capsys.readouterr().err
    )


# ------------------------------------------------------------------------------------------- --base


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *argv],
        cwd=repo, check=True, capture_output=True, timeout=60,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_change_is_placed_in_the_new_file_and_a_removal_in_the_base_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version removed from a profile: on the list that held it, in the new file. A NamespacedCloudProfile deleted
    while a Shoot uses it: in the base's file, at the path the repository had it."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "landscape", repo / "landscape")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    profile_file = repo / "landscape" / "cloudprofile.yaml"
    profile: dict[str, Any] = yaml.safe_load(profile_file.read_text())
    versions = profile["spec"]["kubernetes"]["versions"]
    profile["spec"]["kubernetes"]["versions"] = [v for v in versions if v["version"] != "1.33.4"]
    profile_file.write_text(yaml.safe_dump(profile, sort_keys=False))
    (repo / "landscape" / "namespacedcloudprofile.yaml").unlink()
    monkeypatch.chdir(repo)
    out = io.StringIO()
    assert main(["review", "landscape/", "--base", "HEAD", "--now", NOW, "--output", "sarif"], out=out) == 1
    (run,) = json.loads(out.getvalue())["runs"]
    jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(json.loads(out.getvalue()))
    places = {
        (
            r["ruleId"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in run["results"]
        if r["level"] == "error"
    }
    base_text = subprocess.run(
        ["git", "show", "HEAD:landscape/namespacedcloudprofile.yaml"], cwd=repo, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    kind_line = next(n for n, line in enumerate(base_text.splitlines(), 1) if line.startswith("apiVersion:"))
    assert ("REF-CP-001", "landscape/cloudprofile.yaml", _line_of(profile_file, "versions:")) in places
    assert ("REF-DEL-002", "landscape/namespacedcloudprofile.yaml", kind_line) in places


# --------------------------------------------------------------------------- the pipelines of the docs


def _ci_example(name: str) -> dict[str, Any]:
    """The YAML block after `<!-- ci-example: NAME -->` in docs/guides/review-ci.md, parsed."""
    text = (ROOT / "docs" / "guides" / "review-ci.md").read_text(encoding="utf-8")
    block = text.split(f"<!-- ci-example: {name} -->\n```yaml\n", 1)[1].split("```", 1)[0]
    parsed: dict[str, Any] = yaml.safe_load(block)
    return parsed


def _review_command(script: str) -> str:
    (command,) = [line for line in script.splitlines() if "gardener-webhook review" in line] or [script]
    return command


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("pipeline", ["github", "gitlab"])
def test_the_pipelines_of_the_docs_parse_and_their_review_runs(
    pipeline: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each example pipeline is valid YAML of its CI's shape, and its `review` command, run in a merge request's
    checkout (the base branch fetched as origin/main; a removed Kubernetes version a Shoot uses), fails the job and
    writes the reports the pipeline uploads."""
    example = _ci_example(pipeline)
    if pipeline == "github":
        steps = example["jobs"]["review"]["steps"]
        command = next(s["run"] for s in steps if "gardener-webhook review" in str(s.get("run", "")))
        upload = next(s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif"))
        uploaded = [upload["with"]["sarif_file"]]
        command = command.replace("${{ github.base_ref }}", "main")
        env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    else:
        job = example["gardener-review"]
        command = _review_command("\n".join(job["script"]))
        uploaded = [job["artifacts"]["reports"]["codequality"], job["artifacts"]["reports"]["junit"]]
        env = {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "landscape", repo / "landscape")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    profile_file = repo / "landscape" / "cloudprofile.yaml"
    profile_file.write_text(profile_file.read_text().replace("- version: 1.33.4", "- version: 1.33.9"))
    venv_bin = Path(shutil.which("gardener-webhook") or ROOT / ".venv" / "bin" / "gardener-webhook").parent
    done = subprocess.run(
        ["bash", "-c", command], cwd=repo, capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": f"{venv_bin}:/usr/bin:/bin", "HOME": str(tmp_path), **env},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1.33.4" in done.stdout
    for report in uploaded:
        assert (repo / report).stat().st_size > 0, report
    if pipeline == "github":
        assert "::error file=landscape/cloudprofile.yaml,line=" in done.stdout
        assert (tmp_path / "summary.md").read_text().startswith("### gardener-webhook review")
        jsonschema.Draft202012Validator(SARIF_SCHEMA).validate(json.loads((repo / "review.sarif").read_text()))
