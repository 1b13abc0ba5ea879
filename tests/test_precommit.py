"""The pre-commit hook (.pre-commit-hooks.yaml) as a GitOps repository uses it: `pre-commit try-repo`.

pre-commit installs this repository into a fresh environment (from the package registry, like any user of the
hook) and runs `gardener-webhook review --strict --skip-non-objects` on the repository's YAML files: manifests,
and the kustomize, Helm and CI files beside them, which are skipped; the second hook judges a commit against HEAD.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.builders import cloud_profile_dict, namespaced_cloud_profile_dict, shoot_dict

ROOT: Final = Path(__file__).resolve().parents[1]
PRE_COMMIT: Final = Path(sys.executable).with_name("pre-commit")


def test_hook_definitions() -> None:
    hook, change = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "gardener-webhook-review"
    assert hook["entry"] == "gardener-webhook review --strict --skip-non-objects"
    assert hook["language"] == "python"
    assert hook["types_or"] == ["yaml", "json"]
    assert change["id"] == "gardener-webhook-review-change"
    assert change["entry"] == "gardener-webhook review --strict --base HEAD"
    assert change["pass_filenames"] is False and change["always_run"] is True


def _git(cwd: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One PRE_COMMIT_HOME for the module: pre-commit keys its environments by repository and revision, so on a
    clean checkout (as in CI) `try-repo` and the documentation's configuration pinned to HEAD share one install."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_try_repo_passes_a_clean_repository_and_fails_a_typo(tmp_path: Path, pre_commit_home: Path) -> None:
    gitops = tmp_path / "gitops"
    (gitops / "profiles").mkdir(parents=True)
    (gitops / "profiles" / "local.yaml").write_text(yaml.safe_dump(cloud_profile_dict()))
    # What a GitOps repository holds beside its manifests: none of it fails the hook.
    (gitops / "profiles" / "kustomization.yaml").write_text("resources:\n- local.yaml\n")
    (gitops / ".gitlab-ci.yml").write_text("review:\n  script: [gardener-webhook review --strict profiles/]\n")
    (gitops / "charts" / "app" / "templates").mkdir(parents=True)
    (gitops / "charts" / "app" / "Chart.yaml").write_text("apiVersion: v2\nname: app\nversion: 0.1.0\n")
    (gitops / "charts" / "app" / "values.yaml").write_text("replicas: 1\n")
    (gitops / "charts" / "app" / "templates" / "deployment.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: {{ .Values.replicas }}\n"
    )
    _git(gitops, "init", "-q")
    _git(gitops, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "GIT_CONFIG_NOSYSTEM": "1"}

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


def _readme_config(hook: str = "gardener-webhook-review") -> dict[str, Any]:
    """The pre-commit configuration of `hook` in docs/guides/review-ci.md, as a user copies it."""
    text = (ROOT / "docs" / "guides" / "review-ci.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)
    (block,) = [b for b in blocks if re.search(rf"id: {hook}$", b, flags=re.MULTILINE)]
    config: dict[str, Any] = yaml.safe_load(block)
    return config


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_readme_configuration_passes_a_repository_with_kustomize_helm_and_ci_files(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    """The documentation's example, pinned to this checkout's HEAD, on a landscape/ that holds more than manifests."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    config = _readme_config()
    config["repos"][0].update(repo=str(ROOT), rev=head.stdout.strip())
    gitops = tmp_path / "gitops"
    files = {
        ".pre-commit-config.yaml": yaml.safe_dump(config),
        "landscape/profile.yaml": yaml.safe_dump(cloud_profile_dict()),
        "landscape/kustomization.yaml": "resources:\n- profile.yaml\n",
        "landscape/charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
        "landscape/charts/app/values.yaml": "replicas: 1\n",
        "landscape/charts/app/templates/deployment.yaml": "spec:\n  replicas: {{ .Values.replicas }}\n",
        "landscape/.gitlab-ci.yml": "review:\n  script: [make]\n",
    }
    for name, text in files.items():
        (gitops / name).parent.mkdir(parents=True, exist_ok=True)
        (gitops / name).write_text(text)
    _git(gitops, "init", "-q")
    _git(gitops, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "GIT_CONFIG_NOSYSTEM": "1"}
    run = subprocess.run(
        [str(PRE_COMMIT), "run", "--all-files"],
        cwd=gitops, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "gardener-webhook review" in run.stdout and "Passed" in run.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_readme_change_hook_judges_a_commit_against_head(tmp_path: Path, pre_commit_home: Path) -> None:
    """The documentation's second configuration: the first commit is judged as all CREATEs; a commit that deletes a
    profile a Shoot still uses fails with the DELETE, and one that leaves everything alone passes."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)
    config = _readme_config("gardener-webhook-review-change")
    config["repos"][0].update(repo=str(ROOT), rev=head.stdout.strip())
    gitops = tmp_path / "gitops"
    shoot = shoot_dict(cloudProfile={"kind": "NamespacedCloudProfile", "name": "custom"})
    shoot["metadata"]["namespace"] = "garden-local"
    files = {  # no dates: the hook judges by today's clock
        "cloudprofile.yaml": cloud_profile_dict(),
        "namespacedcloudprofile.yaml": namespaced_cloud_profile_dict(),
        "shoot.yaml": shoot,
    }
    (gitops / "landscape").mkdir(parents=True)
    for name, obj in files.items():
        (gitops / "landscape" / name).write_text(yaml.safe_dump(obj))
    (gitops / "landscape" / "kustomization.yaml").write_text("resources:\n- cloudprofile.yaml\n")
    (gitops / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ, "PRE_COMMIT_HOME": str(pre_commit_home), "GIT_CONFIG_NOSYSTEM": "1"}

    def commit() -> subprocess.CompletedProcess[str]:
        _git(gitops, "add", "-A")
        return subprocess.run(
            [str(PRE_COMMIT), "run", "--hook-stage", "pre-commit"],
            cwd=gitops, env=env, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip

    _git(gitops, "init", "-q")
    first = commit()  # no HEAD yet: everything is added
    assert first.returncode == 0, first.stdout + first.stderr
    _git(gitops, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--no-verify", "-m", "base")
    (gitops / "landscape" / "namespacedcloudprofile.yaml").unlink()  # the Shoot runs on it
    deleted = commit()
    assert deleted.returncode == 1, deleted.stdout + deleted.stderr
    assert "DENIED NamespacedCloudProfile/garden-local/custom as DELETE" in deleted.stdout
    _git(gitops, "reset", "-q")
    _git(gitops, "checkout", "--", ".")
    nothing = commit()
    assert nothing.returncode == 0, nothing.stdout + nothing.stderr
