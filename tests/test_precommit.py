"""The pre-commit hook (.pre-commit-hooks.yaml) as a GitOps repository uses it: `pre-commit try-repo`.

pre-commit installs this repository into a fresh environment (from the package registry, like any user of the
hook) and runs `gardener-webhook review --strict` on the repository's manifests. Issue 10 item 3.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest
import yaml

from tests.builders import cloud_profile_dict

ROOT: Final = Path(__file__).resolve().parents[1]
PRE_COMMIT: Final = Path(sys.executable).with_name("pre-commit")


def test_hook_definition() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "gardener-webhook-review"
    assert hook["entry"] == "gardener-webhook review --strict"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["yaml", "json"]


def _git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_try_repo_passes_a_clean_repository_and_fails_a_typo(tmp_path: Path) -> None:
    gitops = tmp_path / "gitops"
    (gitops / "profiles").mkdir(parents=True)
    (gitops / "profiles" / "local.yaml").write_text(yaml.safe_dump(cloud_profile_dict()))
    _git(gitops, "init", "-q")
    _git(gitops, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_CONFIG_NOSYSTEM": "1"}

    def try_repo() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PRE_COMMIT), "try-repo", str(ROOT), "gardener-webhook-review", "--all-files"],
            cwd=gitops, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip

    clean = try_repo()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "gardener-webhook review" in clean.stdout and "Passed" in clean.stdout

    (gitops / "profiles" / "typo.yaml").write_text(yaml.safe_dump({**cloud_profile_dict(), "kind": "Cloudprofile"}))
    _git(gitops, "add", ".")
    typo = try_repo()
    assert typo.returncode == 1, typo.stdout + typo.stderr
    assert "did you mean core.gardener.cloud CloudProfile?" in typo.stdout
