"""`review` on a real repository's layout: kustomize files, Helm charts, READMEs and CI files beside manifests.

Everything goes through the CLI (`main`) on a scratch repository: the landscape of examples/ plus the
files a GitOps repository holds that are no Kubernetes objects.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

import pytest

from tests.test_cli_review import NOW, run

ROOT: Final = Path(__file__).resolve().parents[1]
KUSTOMIZATION: Final = (
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- cloudprofile.yaml\n"
)
BARE_KUSTOMIZATION: Final = "resources:\n- ../../landscape\nnamePrefix: dev-\n"
TEMPLATE: Final = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: {{ .Values.x }}\n"
# What `-v` says about each file of `repository` that is no manifest, in path order.
SKIPS: Final = [
    "skipped file {r}/charts/app/Chart.yaml: a Helm chart's Chart.yaml",
    "skipped file {r}/charts/app/templates/deployment.yaml: a Helm chart template (below {r}/charts/app/templates)",
    "skipped file {r}/charts/app/values-prod.yaml: a Helm chart's values file (beside Chart.yaml)",
    "skipped file {r}/charts/app/values.yaml: a Helm chart's values file (beside Chart.yaml)",
    "skipped file {r}/ci/pipeline.yml: no Kubernetes object (no document has apiVersion and kind)",
    "skipped file {r}/landscape/kustomization.yaml: a kustomize file (kustomization.yaml)",
    "skipped file {r}/misc/component.yaml: a kustomize file (kind Component)",
    "skipped file {r}/misc/rendered.yaml: holds template braces {{{{ }}}} (a template, not a manifest)",
    "skipped file {r}/overlays/dev/kustomization.yaml: a kustomize file (kustomization.yaml)",
]


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """examples/landscape/ (a CloudProfile, a NamespacedCloudProfile, two Shoots) in a repository that also holds
    kustomize files (with and without apiVersion), a Helm chart, a README and CI files."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "landscape", repo / "landscape")
    files = {
        "landscape/kustomization.yaml": KUSTOMIZATION,
        "overlays/dev/kustomization.yaml": BARE_KUSTOMIZATION,
        "charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
        "charts/app/values.yaml": "x: 1\n",
        "charts/app/values-prod.yaml": "x: 3\n",
        "charts/app/templates/deployment.yaml": TEMPLATE,
        "misc/component.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n",
        "misc/rendered.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ .name }}'\n",
        "README.md": "# landscape\n",
        ".gitlab-ci.yml": "stages: [test]\nreview:\n  script: [gardener-webhook review --strict .]\n",
        ".github/workflows/review.yml": "on: push\njobs: {}\n",
        "ci/pipeline.yml": "steps:\n- run: make\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    return repo


def test_strict_review_of_a_repository_skips_and_counts_what_is_no_manifest(repository: Path) -> None:
    code, out = run("review", "--strict", repository, "--now", NOW)
    assert code == 0, out
    lines = out.splitlines()
    assert [line for line in lines if not line.startswith("  ")] == [
        "ALLOWED CloudProfile/aws",
        "ALLOWED NamespacedCloudProfile/garden-team/aws-team",
        "ALLOWED Shoot/garden-team/dev",
        "ALLOWED Shoot/garden-team/prod",
        "9 files skipped (-v lists them and why)",
    ]


def test_verbose_names_each_skipped_file_and_why(repository: Path) -> None:
    code, out = run("review", "--strict", "-v", repository, "--now", NOW)
    assert code == 0
    tail = out.splitlines()[-len(SKIPS) - 1 :]
    assert tail == [line.format(r=repository) for line in SKIPS] + ["9 files skipped"]


def test_context_directories_skip_what_is_no_manifest(repository: Path) -> None:
    shoot = repository / "landscape" / "shoot-prod.yaml"
    code, out = run("review", "--strict", shoot, "--context", repository, "--now", NOW)
    assert code == 0, out
    assert out.splitlines()[0] == "ALLOWED Shoot/garden-team/prod"
    assert out.splitlines()[-1] == "9 files skipped (-v lists them and why)"


def test_exclude_removes_a_file_that_would_be_denied(repository: Path) -> None:
    (repository / "drafts").mkdir()
    invalid = (ROOT / "examples" / "changes" / "cloudprofile-invalid.yaml").read_text()
    (repository / "drafts" / "x.yaml").write_text(invalid.replace("name: aws\n", "name: draft\n", 1))
    code, out = run("review", repository, "--now", NOW)
    assert code == 1 and "DENIED CloudProfile/draft" in out
    for pattern in ("drafts/", f"{repository}/drafts/x.yaml", "/drafts", "**/x.yaml"):
        code, out = run("review", "-v", repository, "--exclude", pattern, "--exclude", "charts/", "--now", NOW)
        assert code == 0, (pattern, out)
        assert f"skipped file {repository}/drafts/x.yaml: excluded by --exclude {pattern!r}" in out.splitlines()
        assert f"skipped file {repository}/charts/app/Chart.yaml: excluded by --exclude 'charts/'" in out.splitlines()


def test_exclude_applies_to_context_and_old_directories(repository: Path) -> None:
    profile = repository / "landscape" / "cloudprofile.yaml"
    old = repository / "stored"
    old.mkdir()
    shutil.copy(profile, old / "cloudprofile.yaml")
    (old / "broken.yaml").write_text("metadata: [\n")  # not YAML: unusable unless excluded
    args = ["review", "--operation", "UPDATE", profile, "--old", old, "--now", NOW]
    assert run(*args)[0] == 2
    code, out = run(*args, "--exclude", "broken.yaml", "--context", repository, "--exclude", "landscape/")
    assert code == 0, out
    assert out.splitlines()[0] == "ALLOWED CloudProfile/aws"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        pytest.param("overlays/dev/kustomization.yaml", "document 1 (line 1): object has no apiVersion and no kind", id="kustomization"),
        pytest.param("charts/app/Chart.yaml", "document 1 (line 1): object has no kind", id="chart"),
        pytest.param("ci/pipeline.yml", "document 1 (line 1): object has no apiVersion and no kind", id="ci-file"),
    ],
)  # fmt: skip
def test_a_named_file_without_objects_is_still_an_input_error(
    repository: Path, name: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("review", repository / name) == (2, "")
    assert capsys.readouterr().err == f"gardener-webhook review: {repository / name}, {message}\n"


def test_skip_non_objects_treats_named_files_like_found_ones(repository: Path) -> None:
    """What the pre-commit hook runs: the changed files, named one by one."""
    changed = [repository / "overlays/dev/kustomization.yaml", repository / ".gitlab-ci.yml"]
    code, out = run("review", "--strict", "--skip-non-objects", *changed, "--context", repository / "landscape")
    # and the kustomization.yaml of the --context directory
    assert (code, out) == (0, "3 files skipped (-v lists them and why)\n")
    code, out = run("review", "--strict", "--skip-non-objects", repository / "landscape/shoot-dev.yaml", *changed,
                    "--context", repository / "landscape", "--now", NOW)  # fmt: skip
    assert code == 0 and out.startswith("ALLOWED Shoot/garden-team/dev\n")


def test_a_broken_manifest_in_a_directory_is_still_an_error(
    repository: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file with objects is a manifest file: its document without a kind is a mistake, not a stray file."""
    broken = repository / "landscape" / "more.yaml"
    broken.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nmetadata: {name: b}\n"
    )
    assert run("review", repository) == (2, "")
    assert capsys.readouterr().err == f"gardener-webhook review: {broken}, document 2 (line 4): object has no kind\n"


def test_a_directory_of_nothing_but_skipped_files_says_so(repository: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("review", repository / "charts") == (2, "")
    assert capsys.readouterr().err == (
        f"gardener-webhook review: no objects found in {repository / 'charts'} (4 files skipped; -v lists them and why)\n"
    )
