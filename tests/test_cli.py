"""The `gardener-webhook` command line: review's contract (docs/design.md §4) and the real manifests."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.builders import cloud_profile_dict, real_fixtures_of, real_path, requires_real_fixtures, review
from webhook import __version__
from webhook.cli import main
from webhook.offline.documents import read_objects

EXAMPLE = "gardener__gardener__example_30-cloudprofile.yaml"
LOCAL_PARENT = "gardener__gardener__dev-setup_gardenconfig_components_cloudprofile_cloudprofile.yaml"
# A template skeleton that gives `spec.providerConfig` twice: the API server's strict decoding refuses it.
DUPLICATE_KEY_TEMPLATE = (
    "gardener__gardener__dev-setup_gardenconfig_overlays_remote_cloudprofile_cloudprofiles.yaml.tmpl"
)
# In the repository: the documentation's broken CloudProfile (a duplicate version, an unsupported updateStrategy).
INVALID_EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "changes" / "cloudprofile-invalid.yaml"


def run(*argv: str | Path) -> tuple[int, str]:
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def write(tmp_path: Path, name: str, obj: Any) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(obj) if not isinstance(obj, str) else obj)
    return path


@pytest.mark.parametrize("path", real_fixtures_of("CloudProfile", "NamespacedCloudProfile"), ids=lambda p: p.name[:70])
def test_real_profiles_reapplied_unchanged_are_allowed(path: Path) -> None:
    code, out = run("review", "--operation", "UPDATE", "--old", path, path, "--context", real_path(LOCAL_PARENT))
    if path.name == DUPLICATE_KEY_TEMPLATE:
        assert code == 1, out
        assert [line for line in out.splitlines() if line.startswith("  strict")] == [
            '  strict decoding error: duplicate field "spec.providerConfig"'
        ]
        code, out = run(
            "review", "--field-validation=Warn", "--operation", "UPDATE", "--old", path, path,
            "--context", real_path(LOCAL_PARENT),
        )  # fmt: skip
    assert code == 0, out
    if "apiVersion: garden.sapcloud.io/" in path.read_text():
        # Gardener's pre-1.0 API group: no API server serves it any more, so nothing judges it.
        assert out.startswith("SKIPPED ") and "did you mean core.gardener.cloud CloudProfile?" in out
    else:
        assert out.startswith("ALLOWED ")


@requires_real_fixtures
def test_real_profiles_are_all_covered() -> None:
    assert len(real_fixtures_of("CloudProfile", "NamespacedCloudProfile")) == 12


def test_example_is_allowed_on_update_and_invalid_variant_denied(tmp_path: Path) -> None:
    example = real_path(EXAMPLE)
    obj = read_objects(example)[0]
    obj["spec"]["kubernetes"]["versions"].append({"version": "1.34.7"})
    obj["spec"]["machineImages"][0]["updateStrategy"] = "sideways"
    bad = write(tmp_path, "bad.yaml", obj)
    code, out = run("review", "--operation", "UPDATE", "--old", example, bad, "--now", "2026-11-21T00:00:00Z")
    assert code == 1
    assert "DENIED CloudProfile/cloudprofile1" in out
    assert 'spec.kubernetes.versions[4].version: Duplicate value: "1.34.7"' in out
    assert (
        'spec.machineImages[0].updateStrategy: Unsupported value: "sideways": supported values: "major", "minor", "patch"'
        in out
    )


def test_create_judges_every_version_by_the_clock(tmp_path: Path) -> None:
    # Gardener's example names its type `<some-provider-name>`, which gardener-apiserver v1.150.0 refuses as a label
    # (provider.extensions.gardener.cloud/<type>); with a real type only the clock decides.
    example = tmp_path / "cloudprofile.yaml"
    example.write_text(real_path(EXAMPLE).read_text().replace("type: <some-provider-name>", "type: local", 1))
    code, out = run("review", str(example), "--now", "2026-11-21T00:00:00Z")
    assert code == 1
    assert 'new version "1.32.13" must not have an expiration date in the past (2025-11-30)' in out
    code, out = run("review", str(example), "--now", "2022-01-01T00:00:00Z")
    assert code == 0, out
    code, out = run("review", real_path(EXAMPLE), "--now", "2022-01-01T00:00:00Z")
    assert (
        code == 1 and 'metadata.labels: Invalid value: "provider.extensions.gardener.cloud/<some-provider-name>"' in out
    )


def test_json_output_is_one_review_per_document(tmp_path: Path) -> None:
    docs = [
        cloud_profile_dict(),
        {**cloud_profile_dict(), "metadata": {"name": "other"}, "spec": {**cloud_profile_dict()["spec"], "type": ""}},
    ]
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    code, out = run("review", path, "--output", "json")
    assert code == 1
    reviews = json.loads(out)
    assert [r["response"]["allowed"] for r in reviews] == [True, False]
    assert reviews[1]["response"]["status"]["code"] == 422
    assert reviews[1]["request"]["uid"] == reviews[1]["response"]["uid"]


def test_kind_list_and_admission_review_inputs(tmp_path: Path) -> None:
    as_list = write(tmp_path, "list.yaml", {"apiVersion": "v1", "kind": "List", "items": [cloud_profile_dict()]})
    assert run("review", as_list)[0] == 0
    as_review = write(tmp_path, "review.json", json.dumps(review(cloud_profile_dict())))
    code, out = run("review", as_review)
    assert (code, out.splitlines()[0]) == (0, "ALLOWED CloudProfile/local")


def test_delete_is_allowed(tmp_path: Path) -> None:
    assert run("review", "--operation", "DELETE", write(tmp_path, "cp.yaml", cloud_profile_dict()))[0] == 0


def test_unquoted_yaml_timestamps_are_rfc3339(tmp_path: Path) -> None:
    text = yaml.safe_dump(cloud_profile_dict()).replace(
        "- version: 1.32.5", "- version: 1.32.5\n      expirationDate: 2027-01-01T00:00:00Z"
    )
    path = write(tmp_path, "ts.yaml", text)
    assert "expirationDate: 2027-01-01T00:00:00Z" in path.read_text()
    assert run("review", path, "--now", "2026-11-21T00:00:00Z")[0] == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["review", "/nonexistent.yaml"], "cannot read"),
        (["review", "--now", "yesterday", str(INVALID_EXAMPLE)], "--now"),
        (["review", "--operation", "UPDATE", str(INVALID_EXAMPLE)], "--old"),
        (["review", "--context", "/nonexistent.yaml", str(INVALID_EXAMPLE)], "--context"),
    ],
)
def test_unusable_input_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv, out=io.StringIO()) == 2
    assert message in capsys.readouterr().err


def test_not_yaml_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(write(tmp_path, "x.yaml", "a: [b"))], out=io.StringIO()) == 2
    assert "not valid YAML" in capsys.readouterr().err


def test_config_modes_and_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = cloud_profile_dict(type="")
    path = write(tmp_path, "cp.yaml", raw)
    assert run("review", path)[0] == 1
    # An empty type also makes an empty label key (provider.extensions.gardener.cloud/): CP-META-001 says so.
    warn = write(tmp_path, "warn.yaml", {"rules": {"CP-TYPE-001": "warn", "CP-META-001": "warn"}})
    code, out = run("review", path, "--config", warn)
    assert code == 0 and "Warning: spec.type: Required value: must provide a provider type" in out
    off = write(tmp_path, "off.yaml", {"rules": {"CP-TYPE-001": "off", "CP-META-001": "off"}})
    assert run("review", path, "--config", off) == (0, "ALLOWED CloudProfile/local\n")
    for bad in (
        {"rules": {"CP-NOPE-1": "deny"}},
        {"rules": {"CP-TYPE-001": "block"}},
        {"expiryDays": 3},
        {"expiryWarningDays": -1},
    ):
        assert main(["review", str(path), "--config", str(write(tmp_path, "bad.yaml", bad))], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert "CP-NOPE-1" in err and "expiryDays" in err


def test_console_script_and_module_entry_point() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "webhook", "review", str(INVALID_EXAMPLE), "--now", "2026-11-21T00:00:00Z"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout.startswith(
        'DENIED CloudProfile/aws\n  spec.kubernetes.versions[2].version: Duplicate value: "1.34.2"'
    )


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"gardener-webhook {__version__}\n"
