"""`review` and `audit` answer what `kubectl apply` meets first: the API server's version lookup and strict decoding.

An unserved apiVersion, an unknown field and a key given twice are refused before any webhook is asked; under
`--field-validation=Warn` they are warnings, under `Ignore` nothing (docs/guides/review.md).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Final

import pytest
import yaml

from tests.builders import HAVE_REAL_FIXTURES, REAL_FIXTURES, REAL_FIXTURES_ABSENT
from webhook.cli import main

ROOT: Final = Path(__file__).resolve().parents[1]
LANDSCAPE: Final = ROOT / "examples" / "landscape"
NOW: Final = "2026-11-21T00:00:00Z"
PROD: Final = (LANDSCAPE / "shoot-prod.yaml").read_text()


def run(*argv: str | Path) -> tuple[int, str]:
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def review(tmp_path: Path, text: str, *flags: str) -> tuple[int, list[str]]:
    """Review `text` as shoot.yaml with the landscape's profiles as context; the lines without the Warning lines
    the unchanged example already has."""
    path = tmp_path / "shoot.yaml"
    path.write_text(text)
    code, out = run("review", "--strict", *flags, path, "--context", LANDSCAPE, "--now", NOW)
    return code, [line for line in out.splitlines() if "resolves to" not in line and "expires on" not in line]


def test_the_example_is_allowed(tmp_path: Path) -> None:
    assert review(tmp_path, PROD) == (0, ["ALLOWED Shoot/garden-team/prod"])


@pytest.mark.parametrize("version", ["v2", "v1", "v1beta"])
def test_an_unserved_version_is_refused_as_kubectl_refuses_it(tmp_path: Path, version: str) -> None:
    text = PROD.replace("core.gardener.cloud/v1beta1", f"core.gardener.cloud/{version}")
    assert review(tmp_path, text) == (
        1,
        [
            "DENIED Shoot/garden-team/prod",
            f'  no matches for kind "Shoot" in version "core.gardener.cloud/{version}"',
            "  hint: Shoot is served in core.gardener.cloud/v1beta1",
        ],
    )


def test_an_unknown_field_deep_in_a_worker_pool(tmp_path: Path) -> None:
    text = PROD.replace("    - name: ", "    - maxSurg: 1\n      name: ", 1)
    assert "maxSurg" in text
    assert review(tmp_path, text) == (
        1,
        [
            "DENIED Shoot/garden-team/prod",
            '  strict decoding error: unknown field "spec.provider.workers[0].maxSurg"',
        ],
    )


def test_a_duplicate_key(tmp_path: Path) -> None:
    text = PROD.replace("  region: eu-west-1\n", "  region: eu-west-1\n  region: eu-west-1\n", 1)
    assert text != PROD
    line = text.splitlines().index("  region: eu-west-1") + 1
    assert review(tmp_path, text) == (
        1,
        [
            "DENIED Shoot/garden-team/prod",
            '  strict decoding error: duplicate field "spec.region"',
            (
                f'  hint: {tmp_path / "shoot.yaml"} line {line + 1}: "spec.region" is already defined at line {line} '
                "(the last one wins without strict validation)"
            ),
        ],
    )


def _broken() -> str:
    text = PROD.replace("core.gardener.cloud/v1beta1", "core.gardener.cloud/v2")
    return text.replace("    - name: ", "    - maxSurg: 1\n      name: ", 1)


def test_warn_turns_them_into_warnings(tmp_path: Path) -> None:
    assert review(tmp_path, _broken(), "--field-validation=Warn") == (
        0,
        [
            "ALLOWED Shoot/garden-team/prod",
            '  Warning: no matches for kind "Shoot" in version "core.gardener.cloud/v2"',
            "  hint: Shoot is served in core.gardener.cloud/v1beta1",
        ],
    )
    text = PROD.replace("    - name: ", "    - maxSurg: 1\n      name: ", 1)
    assert review(tmp_path, text, "--field-validation", "Warn") == (
        0,
        [
            "ALLOWED Shoot/garden-team/prod",
            '  Warning: strict decoding error: unknown field "spec.provider.workers[0].maxSurg"',
        ],
    )


def test_ignore_drops_them(tmp_path: Path) -> None:
    assert review(tmp_path, _broken(), "--field-validation=Ignore") == (0, ["ALLOWED Shoot/garden-team/prod"])


def test_json_and_junit(tmp_path: Path) -> None:
    path = tmp_path / "shoot.yaml"
    path.write_text(PROD.replace("    - name: ", "    - maxSurg: 1\n      name: ", 1))
    code, out = run("review", path, "--context", LANDSCAPE, "--now", NOW, "--output", "json")
    assert code == 1
    [reviewed] = json.loads(out)
    assert reviewed["fieldValidation"] == {
        "errors": [
            {
                "rule": "OBJ-STRICT-001",
                "message": 'strict decoding error: unknown field "spec.provider.workers[0].maxSurg"',
            }
        ],
        "warnings": [],
    }
    code, out = run("review", path, "--context", LANDSCAPE, "--now", NOW, "--output", "junit")
    assert code == 1
    assert 'failure message="denied: 1 finding" type="DENIED">strict decoding error: unknown field' in out


def test_an_admission_review_input_is_checked_on_its_object(tmp_path: Path) -> None:
    shoot = yaml.safe_load(PROD)
    shoot["spec"]["provider"]["workers"][0]["maxSurg"] = 1
    review_ = {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "u",
            "kind": {"group": "core.gardener.cloud", "version": "v1beta1", "kind": "Shoot"},
            "resource": {"group": "core.gardener.cloud", "version": "v1beta1", "resource": "shoots"},
            "name": "prod",
            "namespace": "garden-team",
            "operation": "CREATE",
            "userInfo": {"username": "u"},
            "object": shoot,
        },
    }
    path = tmp_path / "review.json"
    path.write_text(json.dumps(review_))
    code, out = run("review", path, "--context", LANDSCAPE, "--now", NOW)
    assert code == 1
    assert '  strict decoding error: unknown field "spec.provider.workers[0].maxSurg"' in out.splitlines()


def test_a_kubectl_get_list_with_status_and_managed_fields_passes(tmp_path: Path) -> None:
    shoot = yaml.safe_load(PROD)
    shoot["metadata"].update(
        uid="0b8c3f3e-4a4e-4f6e-9d55-1b2c3d4e5f60",
        resourceVersion="12345",
        generation=3,
        creationTimestamp="2026-01-01T00:00:00Z",
        annotations={"gardener.cloud/created-by": "someone"},
        finalizers=["gardener"],
        managedFields=[
            {
                "apiVersion": "core.gardener.cloud/v1beta1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {"f:region": {}}},
                "manager": "kubectl",
                "operation": "Update",
                "time": "2026-01-01T00:00:00Z",
            }
        ],
    )
    shoot["status"] = {
        "hibernated": False,
        "technicalID": "shoot--team--prod",
        "uid": "x",
        "observedGeneration": 3,
        "gardener": {"id": "g", "name": "gardenlet", "version": "v1.150.0"},
        "lastOperation": {
            "type": "Reconcile",
            "state": "Succeeded",
            "progress": 100,
            "description": "ok",
            "lastUpdateTime": "2026-01-01T00:00:00Z",
        },
        "conditions": [
            {
                "type": "APIServerAvailable",
                "status": "True",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
                "lastUpdateTime": "2026-01-01T00:00:00Z",
                "reason": "HealthzRequestSucceeded",
                "message": "ok",
            }
        ],
        "credentials": {"rotation": {"sshKeypair": {"lastInitiationTime": "2026-01-01T00:00:00Z"}}},
    }
    listed = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [shoot]}
    assert review(tmp_path, yaml.safe_dump(listed)) == (0, ["ALLOWED Shoot/garden-team/prod"])


def test_delete_is_not_decoded(tmp_path: Path) -> None:
    path = tmp_path / "shoot.yaml"
    path.write_text(_broken())
    code, out = run("review", "--operation", "DELETE", path, "--now", NOW)
    assert (code, out) == (0, "ALLOWED Shoot/garden-team/prod\n")


def test_audit_reports_them_as_a_re_apply_would_meet_them(tmp_path: Path) -> None:
    path = tmp_path / "shoot.yaml"
    path.write_text(PROD.replace("    - name: ", "    - maxSurg: 1\n      name: ", 1))
    profiles = [LANDSCAPE / "cloudprofile.yaml", LANDSCAPE / "namespacedcloudprofile.yaml"]
    argv = ["audit", "--context", path, *(a for p in profiles for a in ("--context", p)), "--now", NOW]
    code, out = run(*argv, "--output", "json")
    assert code == 1
    rules = {r["rule"]: r["entries"] for r in json.loads(out)["rules"]}
    assert [(e["mode"], e["when"], e["message"]) for e in rules["OBJ-STRICT-001"]] == [
        ("deny", "re-applied", 'strict decoding error: unknown field "spec.provider.workers[0].maxSurg"')
    ]
    code, out = run(*argv, "--output", "json", "--field-validation=Warn")
    assert [e["mode"] for r in json.loads(out)["rules"] if r["rule"] == "OBJ-STRICT-001" for e in r["entries"]] == [
        "warn"
    ]
    code, out = run(*argv, "--output", "json", "--field-validation=Ignore")
    assert "OBJ-STRICT-001" not in out


def _manifest_files() -> list[Path]:
    found = sorted(p for folder in ("examples", "tests/fixtures") for p in (ROOT / folder).rglob("*") if p.is_file())
    return [p for p in found if p.suffix in (".yaml", ".yml", ".json")]


@pytest.mark.parametrize("path", _manifest_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_strict_finding_in_the_repositorys_manifests(path: Path) -> None:
    """Every manifest the suite and the documentation use decodes strictly, but the documentation's OSC with the
    seed's `spec.cri` spelling, which no API server accepts under strict field validation."""
    _, out = run("review", "--skip-non-objects", path, "--now", NOW, "--output", "json")
    found = [
        (item["request"].get("name"), error["message"])
        for item in json.loads(out or "[]")
        for error in item.get("fieldValidation", {}).get("errors", [])
    ]
    expected = (
        [("pool-a-original", 'strict decoding error: unknown field "spec.cri"')]
        if path == ROOT / "examples" / "seed" / "operatingsystemconfig.yaml"
        else []
    )
    assert found == expected


# The real manifests whose strict findings are what a current API server answers (checked against the Go types and
# the CRDs of gardener/gardener at the rules' commit): the OS extensions' examples set `encoding` on a file, not in
# `content.inline`; a template gives `providerConfig` twice; a historic ManagedSeed uses the removed `seedTemplate`;
# a historic gardenadm Shoot sets `controlPlane.backup.secretRef`, since replaced by `credentialsRef`.
REAL_STRICT_FINDINGS: Final = {
    "gardener-attic__gardener-extensions__controllers_os-suse-jeos_example_operatingsystemconfig.yaml": [
        'strict decoding error: unknown field "spec.files[0].encoding"'
    ],
    "gardener__gardener-extension-os-coreos__example_30-operatingsystemconfig.yaml": [
        'strict decoding error: unknown field "spec.files[0].encoding"'
    ],
    "gardener__gardener-extension-os-coreos__example_40-operatingsystemconfig.yaml": [
        'strict decoding error: unknown field "spec.files[0].encoding"'
    ],
    "gardener__gardener-extension-os-gardenlinux__example_40-operatingsystemconfig-gardenlinux.yaml": [
        'strict decoding error: unknown field "spec.files[0].encoding"'
    ],
    "gardener__gardener-extension-os-suse-chost__example_40-operatingsystemconfig-chost.yaml": [
        'strict decoding error: unknown field "spec.files[0].encoding"'
    ],
    "gardener__gardener-extension-os-ubuntu__example_40-operatingsystemconfig.yaml": [
        'strict decoding error: unknown field "spec.files[0].encoding"'
    ],
    "gardener__gardener__dev-setup_gardenconfig_overlays_remote_cloudprofile_cloudprofiles.yaml.tmpl": [
        'strict decoding error: duplicate field "spec.providerConfig"'
    ],
    "gardener__gardener__example_55-managedseed-seedtemplate.yaml": [
        'strict decoding error: unknown field "spec.seedTemplate"'
    ],
    "gardener__gardener__example_provider-local_gardenadm_shoot.yaml": [
        'strict decoding error: unknown field "spec.provider.workers[0].controlPlane.backup.secretRef"'
    ],
}


def _real_files() -> list[object]:
    if not HAVE_REAL_FIXTURES:
        return [pytest.param(None, marks=pytest.mark.skip(reason=REAL_FIXTURES_ABSENT), id="no-real-corpus")]
    return sorted(p for p in REAL_FIXTURES.iterdir() if p.name != "SOURCES.md")


@pytest.mark.parametrize("path", _real_files(), ids=lambda p: p.name[:70] if isinstance(p, Path) else "none")
def test_the_real_corpus_has_only_the_known_strict_findings(path: Path) -> None:
    code, out = run("review", path, "--now", NOW, "--output", "json")
    if code == 2:  # not YAML (the placeholder Gardenlet): nothing to decode
        return
    found = [
        error["message"] for item in json.loads(out) for error in item.get("fieldValidation", {}).get("errors", [])
    ]
    assert found == REAL_STRICT_FINDINGS.get(path.name, [])
