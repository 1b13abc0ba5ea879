"""`review --base REV` / `--base-dir DIR`: a change judged the way the API server will meet it when applied.

A landscape repository in a temporary Git repository: a base commit with the CloudProfile `aws`, the
NamespacedCloudProfile `garden-team/aws-team`, two Shoots and a second CloudProfile `legacy` that nobody touches;
then a change that adds a Shoot on a version no profile offers (CREATE), removes a Kubernetes version a Shoot uses
(UPDATE), deletes a NamespacedCloudProfile a Shoot uses (DELETE) and edits a Shoot validly (UPDATE).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Final

import pytest
import yaml

from webhook.cli import main

ROOT: Final = Path(__file__).resolve().parents[1]
LANDSCAPE: Final = ROOT / "examples" / "landscape"
BEFORE_EXPIRY: Final = "2026-11-21T00:00:00Z"
AFTER_EXPIRY: Final = "2027-06-01T00:00:00Z"  # every dated version of the profiles has expired

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="SKIPPED: git is not installed")


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *argv],
        cwd=repo, check=True, capture_output=True, timeout=60,
    )  # fmt: skip


def _review(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["review", "--strict", *argv], out=out)
    return code, out.getvalue()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The repository, with the base committed; the working directory is its root."""
    repo = tmp_path / "landscape-repo"
    shutil.copytree(LANDSCAPE, repo / "landscape")
    legacy = yaml.safe_load((LANDSCAPE / "cloudprofile.yaml").read_text())
    legacy["metadata"]["name"] = "legacy"
    (repo / "landscape" / "legacy.yaml").write_text(yaml.safe_dump(legacy))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    monkeypatch.chdir(repo)
    return repo


def _change(repo: Path) -> None:
    landscape = repo / "landscape"
    profile = yaml.safe_load((landscape / "cloudprofile.yaml").read_text())
    versions = profile["spec"]["kubernetes"]["versions"]
    profile["spec"]["kubernetes"]["versions"] = [v for v in versions if v["version"] != "1.33.4"]  # prod's pool-b
    (landscape / "cloudprofile.yaml").write_text(yaml.safe_dump(profile))
    (landscape / "namespacedcloudprofile.yaml").unlink()  # Shoot dev runs on it
    newcomer = yaml.safe_load((landscape / "shoot-dev.yaml").read_text())
    newcomer["metadata"]["name"] = "newcomer"
    newcomer["spec"]["cloudProfile"] = {"kind": "CloudProfile", "name": "aws"}
    newcomer["spec"]["kubernetes"]["version"] = "1.31.0"  # offered by no profile
    (landscape / "shoot-newcomer.yaml").write_text(yaml.safe_dump(newcomer))
    _edit_prod_validly(landscape)


def _edit_prod_validly(landscape: Path) -> None:
    prod = yaml.safe_load((landscape / "shoot-prod.yaml").read_text())
    prod["metadata"].setdefault("labels", {})["team"] = "platform"
    (landscape / "shoot-prod.yaml").write_text(yaml.safe_dump(prod))


def _headers(output: str) -> list[str]:
    return [line for line in output.splitlines() if not line.startswith(" ")]


def test_a_change_is_judged_per_object_as_create_update_and_delete(repo: Path) -> None:
    _change(repo)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "change")
    code, output = _review("landscape/", "--base", "HEAD~1", "--now", BEFORE_EXPIRY)
    assert code == 1, output
    assert _headers(output) == [
        "DENIED CloudProfile/aws as UPDATE",
        "DENIED Shoot/garden-team/newcomer as CREATE",
        "ALLOWED Shoot/garden-team/prod as UPDATE",
        "DENIED NamespacedCloudProfile/garden-team/aws-team as DELETE",
        "2 unchanged objects not judged (--all judges them as re-applies)",
    ]
    assert 'unable to delete Kubernetes version "1.33.4"' in output and "'garden-team/prod'" in output
    assert "1.31.0" in output
    assert "garden-team/dev" in output  # the deleted profile's user


def test_reverting_the_bad_parts_passes_on_any_date(repo: Path) -> None:
    _edit_prod_validly(repo / "landscape")
    for now in (BEFORE_EXPIRY, AFTER_EXPIRY):
        code, output = _review("landscape/", "--base", "HEAD", "--now", now)
        assert code == 0, output
        assert _headers(output)[0] == "ALLOWED Shoot/garden-team/prod as UPDATE"
    # The same untouched repository reviewed as a snapshot turns red once a version has expired.
    code, output = _review("landscape/", "--now", AFTER_EXPIRY)
    assert code == 1 and "DENIED CloudProfile/legacy" in output


def test_all_judges_unchanged_objects_as_re_applies_without_denying_what_was_there(repo: Path) -> None:
    code, output = _review("landscape/", "--base", "HEAD", "--all", "--now", AFTER_EXPIRY)
    assert code == 0, output
    assert "ALLOWED CloudProfile/legacy as UPDATE" in output
    assert "unchanged, not enforced:" in output or "Warning:" in output


def test_a_base_directory_does_the_same(repo: Path, tmp_path: Path) -> None:
    base = tmp_path / "target-branch"
    shutil.copytree(repo / "landscape", base / "landscape")
    _change(repo)
    code, output = _review("landscape/", "--base-dir", str(base), "--now", BEFORE_EXPIRY)
    assert code == 1
    assert "DENIED NamespacedCloudProfile/garden-team/aws-team as DELETE" in output


def test_json_and_junit_carry_the_operation(repo: Path) -> None:
    _change(repo)
    code, output = _review("landscape/", "--base", "HEAD", "--now", BEFORE_EXPIRY, "--output", "json")
    assert code == 1
    operations = {
        (r["request"]["kind"]["kind"], r["request"]["name"]): r["request"]["operation"] for r in yaml.safe_load(output)
    }
    assert operations[("NamespacedCloudProfile", "aws-team")] == "DELETE"
    assert operations[("Shoot", "newcomer")] == "CREATE"
    code, output = _review("landscape/", "--base", "HEAD", "--now", BEFORE_EXPIRY, "--output", "junit")
    assert code == 1
    assert 'name="NamespacedCloudProfile/garden-team/aws-team as DELETE"' in output


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--base", "no-such-revision"], "no such revision"),
        (["--base", "HEAD", "--base-dir", "."], "cannot be combined"),
        (["--base", "HEAD", "--operation", "UPDATE"], "find each object's operation themselves"),
        (["--all"], "only used with --base"),
    ],
)
def test_usage_errors(repo: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _review("landscape/", *argv)
    assert code == 2
    assert message in capsys.readouterr().err
