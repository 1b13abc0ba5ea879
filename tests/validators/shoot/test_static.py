"""Static Shoot rules (docs/rules.md §C.2, §C.3, SHM-001, kubelet skew of docs/requirements.md "Kubernetes version skew", CRI policy of docs/requirements.md "CRI Support"): tables per rule id.

Every case runs through the entry functions against the shared profile (tests/validators/shoot/cases.py), so a rule
that fires where it should not fails the case too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.validators.shoot.cases import (
    CP_VERSION,
    DUP,
    FOR,
    INV,
    REQ,
    UNS,
    W0,
    Triples,
    create,
    details,
    image_of,
    pool,
    shoot_dict,
    update,
    verdict_create,
    verdict_update,
)
from webhook.settings import FeatureGates, Settings, load_settings
from webhook.validators import ALL_RULES

IN_PLACE_ON = Settings(feature_gates=FeatureGates(InPlaceNodeUpdates=True))
CRI_POLICY = Settings(worker_cri_unsupported_images=("gardenlinux", "suse-chost"))
W0_VERSION = f"{W0}.kubernetes.version"
NO_PROFILE = {"cloudProfile": None}


def versioned(version: str, **fields: Any) -> dict[str, Any]:
    """A pool with its own Kubernetes version."""
    return pool(kubernetes={"version": version}, **fields)


def in_place(version: str = "1.0.0", **fields: Any) -> dict[str, Any]:
    """An AutoInPlaceUpdate pool on machine image local `version` (fields replace keys, `machine` included)."""
    return pool(**{"updateStrategy": "AutoInPlaceUpdate", "machine": image_of("local", version), **fields})


def in_garden(raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` moved to the garden namespace."""
    raw["metadata"]["namespace"] = "garden"
    return raw


def test_minimal_shoot_is_valid() -> None:
    assert create(shoot_dict()) == []
    assert update(shoot_dict(), shoot_dict()) == []


# ---------------------------------------------------------------------------------------------------- SHM-001


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"cloudProfileName": "other"}, [("SHM-001", "spec.cloudProfileName", FOR)], id="SHM-001-two-names"
        ),
        pytest.param(
            {"cloudProfileName": "local", "cloudProfile": {"kind": "CloudProfile", "name": "local"}},
            [],
            id="SHM-001-synced-copy",
        ),
        pytest.param({"cloudProfileName": "local", "cloudProfile": None}, [], id="SHM-001-legacy-only"),
    ],
)
def test_shm_001(spec: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(**spec)) == expected


def test_shm_001_is_not_judged_on_update() -> None:
    assert update(shoot_dict(cloudProfileName="other", region="eu-1"), shoot_dict(cloudProfileName="other")) == []


# ------------------------------------------------------------------------------------------ SH-K8S-001..005


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            shoot_dict(version=None, **NO_PROFILE),
            [("SH-VER-002", "spec.cloudProfile.name", REQ), ("SH-K8S-001", CP_VERSION, REQ)],
            id="SH-K8S-001-empty-without-profile",
        ),
        pytest.param(shoot_dict(version=None), [], id="SH-K8S-001-empty-is-resolved-with-profile"),
        pytest.param(
            shoot_dict(version="1.33.2", **NO_PROFILE),
            [("SH-VER-002", "spec.cloudProfile.name", REQ)],
            id="SH-K8S-001-set",
        ),
    ],
)
def test_sh_k8s_001(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            shoot_dict(version="1.32.9"),
            shoot_dict(version="1.33.2"),
            [("SH-K8S-002", CP_VERSION, FOR), ("SH-K8S-004", W0_VERSION, FOR)],
            id="SH-K8S-002-downgrade-also-for-pools-following-the-control-plane",
        ),
        pytest.param(shoot_dict(version="1.33.2"), shoot_dict(version="1.33.1"), [], id="SH-K8S-002-patch-upgrade"),
        pytest.param(
            shoot_dict(version="1.33"), shoot_dict(version="1.33.2"), [], id="SH-K8S-002-partial-resolves-to-same"
        ),
        pytest.param(
            shoot_dict(version="1.33.2"),
            shoot_dict(version="1.31.9"),
            [("SH-K8S-003", CP_VERSION, FOR)],
            id="SH-K8S-003-skips-a-minor",
        ),
        pytest.param(shoot_dict(version="1.33.2"), shoot_dict(version="1.32.9"), [], id="SH-K8S-003-next-minor"),
        pytest.param(
            shoot_dict(versioned("1.31.9")),
            shoot_dict(versioned("1.32.9")),
            [("SH-K8S-004", W0_VERSION, FOR)],
            id="SH-K8S-004-pool-downgrade",
        ),
        pytest.param(
            shoot_dict(versioned("1.33.2")), shoot_dict(versioned("1.30.14")), [], id="SH-K8S-004-rolling-skips-minors"
        ),
        pytest.param(
            shoot_dict(in_place(kubernetes={"version": "1.33.2"})),
            shoot_dict(in_place(kubernetes={"version": "1.31.9"})),
            [("SH-K8S-004", W0_VERSION, FOR)],
            id="SH-K8S-004-in-place-cannot-skip",
        ),
        pytest.param(
            shoot_dict(in_place(kubernetes={"version": "1.33.2"})),
            shoot_dict(in_place(kubernetes={"version": "1.32.9"})),
            [],
            id="SH-K8S-004-in-place-next-minor",
        ),
        pytest.param(
            shoot_dict(pool(), versioned("1.30.14", name="pool-b")),
            shoot_dict(pool()),
            [],
            id="SH-K8S-004-new-pool-compares-with-itself",
        ),
    ],
)
def test_kubernetes_version_updates(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


@pytest.mark.parametrize(
    ("control_plane", "kubelet", "expected"),
    [
        pytest.param("1.33.2", "1.34.2", [("SH-K8S-005", W0_VERSION, FOR)], id="SH-K8S-005-newer-than-control-plane"),
        pytest.param("1.33.2", "1.29.14", [("SH-K8S-005", W0_VERSION, FOR)], id="SH-K8S-005-four-minors-behind"),
        pytest.param("1.33.2", "1.30.14", [], id="SH-K8S-005-three-minors-behind"),
        pytest.param("1.33.2", "1.33.2", [], id="SH-K8S-005-same"),
        pytest.param("1.27.16", "1.24.17", [("SH-K8S-005", W0_VERSION, FOR)], id="SH-K8S-005-old-kubelet-three-behind"),
        pytest.param("1.26.15", "1.24.17", [], id="SH-K8S-005-old-kubelet-two-behind"),
        pytest.param("1.28.15", "1.25.16", [], id="SH-K8S-005-1.25-kubelet-three-behind"),
        pytest.param(
            "1.33.2",
            "a.b.c",
            [("SH-K8S-005", W0_VERSION, INV), ("SH-ADM-K8S-002", W0_VERSION, UNS)],
            id="SH-K8S-005-not-a-version",
        ),
    ],
)
def test_sh_k8s_005(control_plane: str, kubelet: str, expected: Triples) -> None:
    assert create(shoot_dict(versioned(kubelet), version=control_plane)) == expected


def test_sh_k8s_002_to_004_messages_name_both_versions() -> None:
    """Gardener's details, followed by the versions: a Forbidden finding shows no value of its own."""
    assert details(verdict_update(shoot_dict(version="1.32.9"), shoot_dict(version="1.33.2"))) == [
        f'{CP_VERSION}: kubernetes version downgrade is not supported: from "1.33.2" to "1.32.9"',
        f'{W0_VERSION}: kubernetes version downgrade is not supported: from "1.33.2" to "1.32.9"',
    ]
    assert details(verdict_update(shoot_dict(version="1.33.2"), shoot_dict(version="1.31.9"))) == [
        f'{CP_VERSION}: kubernetes version upgrade cannot skip a minor version: from "1.31.9" to "1.33.2"'
    ]
    new, old = (
        shoot_dict(in_place(kubernetes={"version": "1.33.2"})),
        shoot_dict(in_place(kubernetes={"version": "1.31.9"})),
    )
    assert details(verdict_update(new, old)) == [
        f'{W0_VERSION}: kubernetes version upgrade cannot skip a minor version: from "1.31.9" to "1.33.2"'
    ]


def test_sh_k8s_005_messages_cite_the_skew_policy() -> None:
    higher = details(verdict_create(shoot_dict(versioned("1.34.2"))))
    assert higher == [
        (
            f"{W0_VERSION}: worker group kubernetes version must not be higher than control plane version: "
            'worker "1.34.2", control plane "1.33.2"'
        )
    ]
    (three,) = details(verdict_create(shoot_dict(versioned("1.29.14"))))
    assert three.endswith(
        "at most three minor versions behind control plane version (Kubernetes version skew policy): "
        'worker "1.29.14", control plane "1.33.2"'
    )
    (two,) = details(verdict_create(shoot_dict(versioned("1.24.17"), version="1.27.16")))
    assert "(kubelet < 1.25) must be at most two minor versions behind" in two
    assert two.endswith('worker "1.24.17", control plane "1.27.16"')


# ------------------------------------------------------------------------------------------------- SH-VER-*


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            shoot_dict(version="1.34.2", cloudProfileName="local", cloudProfile=None),
            [("SH-VER-001", "spec.cloudProfileName", FOR)],
            id="SH-VER-001-legacy-name-from-1.34",
        ),
        pytest.param(
            shoot_dict(version="1.33.2", cloudProfileName="local", cloudProfile=None),
            [],
            id="SH-VER-001-legacy-name-before-1.34",
        ),
        pytest.param(
            shoot_dict(**NO_PROFILE), [("SH-VER-002", "spec.cloudProfile.name", REQ)], id="SH-VER-002-no-reference"
        ),
        pytest.param(
            shoot_dict(cloudProfile={"kind": "Secret", "name": "local"}),
            [("SH-VER-002", "spec.cloudProfile.kind", UNS)],
            id="SH-VER-002-kind",
        ),
        pytest.param(
            shoot_dict(cloudProfile={"kind": "CloudProfile", "name": "local"}), [], id="SH-VER-002-explicit-kind"
        ),
        pytest.param(
            shoot_dict(credentialsBindingName=None),
            [("SH-VER-003", "spec.secretBindingName", REQ)],
            id="SH-VER-003-none",
        ),
        pytest.param(
            shoot_dict(secretBindingName="s"), [("SH-VER-003", "spec.secretBindingName", FOR)], id="SH-VER-003-both"
        ),
        pytest.param(
            shoot_dict(credentialsBindingName=None, secretBindingName="s", version="1.34.2"),
            [("SH-VER-003", "spec.secretBindingName", FOR)],
            id="SH-VER-003-secret-binding-from-1.34",
        ),
        pytest.param(
            shoot_dict(credentialsBindingName=None, secretBindingName="s"),
            [],
            id="SH-VER-003-secret-binding-before-1.34",
        ),
        pytest.param(
            shoot_dict(provider={"type": "local", "workers": []}),
            [("SH-VER-003", "spec.credentialsBindingName", FOR)],
            id="SH-VER-003-workerless-with-binding",
        ),
        pytest.param(
            shoot_dict(provider={"type": "local", "workers": []}, credentialsBindingName=None),
            [],
            id="SH-VER-003-workerless",
        ),
        pytest.param(
            # Self-hosted Shoots live in the garden namespace (SH-SPEC-004) and run a one-node control plane pool.
            in_garden(shoot_dict(pool(controlPlane={}, maximum=1), credentialsBindingName=None)),
            [],
            id="SH-VER-003-self-hosted-needs-no-binding",
        ),
        pytest.param(
            shoot_dict(version="1.35.0", addons={"nginxIngress": {"enabled": False}}),
            [("SH-VER-004", "spec.addons", FOR)],
            id="SH-VER-004-addons-from-1.35",
        ),
        pytest.param(
            shoot_dict(provider={"type": "local", "workers": []}, credentialsBindingName=None, addons={}),
            [("SH-VER-004", "spec.addons", FOR)],
            id="SH-VER-004-workerless",
        ),
        pytest.param(shoot_dict(version="1.34.2", addons={}), [], id="SH-VER-004-addons-before-1.35"),
    ],
)
def test_version_gated_fields(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


# ------------------------------------------------------------------------------------------------- SH-WRK-*


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        pytest.param(pool(cri={"name": "docker"}), [("SH-WRK-001", f"{W0}.cri.name", UNS)], id="SH-WRK-001-docker"),
        pytest.param(
            pool(
                machine=image_of("gardenlinux", "1592.2.0"),
                cri={"name": "containerd", "containerRuntimes": [{"type": ""}, {"type": "gvisor"}, {"type": "gvisor"}]},
            ),
            [
                ("SH-META-001", "metadata.labels", INV),  # the runtime's label has no name part
                ("SH-WRK-001", f"{W0}.cri.containerruntimes[0].type", REQ),
                ("SH-WRK-001", f"{W0}.cri.containerruntimes[2].type", DUP),
            ],
            id="SH-WRK-001-runtime-types",
        ),
        pytest.param(
            pool(
                machine=image_of("gardenlinux", "1592.2.0"),
                cri={"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]},
            ),
            [],
            id="SH-WRK-001-gvisor",
        ),
        pytest.param(
            pool(machine={**image_of("gardenlinux", "1592.1.0"), "architecture": "s390x"}),
            [("SH-WRK-002", f"{W0}.machine.architecture", UNS)],
            id="SH-WRK-002-s390x",
        ),
        pytest.param(
            pool(machine={**image_of("gardenlinux", "1592.1.0"), "type": "m6g.large", "architecture": "arm64"}),
            [],
            id="SH-WRK-002-arm64",
        ),
        pytest.param(
            pool(machine={"type": "", "image": {"name": "gardenlinux", "version": "1592.1.0"}}),
            [("SH-WRK-003", f"{W0}.machine.type", REQ)],
            id="SH-WRK-003-no-machine-type",
        ),
        pytest.param(pool(machine={"type": "m5.large"}), [], id="SH-WRK-003-image-is-resolved"),
    ],
)
def test_workers(worker: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(worker)) == expected


def test_sh_wrk_001_keeps_gardeners_lower_case_path() -> None:
    verdict = verdict_create(shoot_dict(pool(cri={"name": "containerd", "containerRuntimes": [{"type": ""}]})))
    (line,) = [d for d in details(verdict) if not d.startswith("metadata.labels")]
    assert line == f"{W0}.cri.containerruntimes[0].type: must specify a container runtime type"


def test_sh_wrk_001_a_repeated_runtime_shows_the_runtime() -> None:
    cri = {"name": "containerd", "containerRuntimes": [{"type": "gvisor"}, {"type": "gvisor"}]}
    verdict = verdict_create(shoot_dict(pool(machine=image_of("gardenlinux", "1592.2.0"), cri=cri)))
    assert [(str(f.path), f.type, f.value) for f in verdict.errors] == [
        (f"{W0}.cri.containerruntimes[1].type", DUP, "gvisor")
    ]


@pytest.mark.parametrize(
    ("machine", "expected"),
    [
        pytest.param(
            {"type": "m5.large"},
            [("SH-VER-002", "spec.cloudProfile.name", REQ), ("SH-WRK-003", f"{W0}.machine.image", REQ)],
            id="SH-WRK-003-no-image-without-profile",
        ),
        pytest.param(
            {"type": "m5.large", "image": {"name": "gardenlinux"}},
            [("SH-VER-002", "spec.cloudProfile.name", REQ), ("SH-WRK-003", f"{W0}.machine.image.version", REQ)],
            id="SH-WRK-003-no-version-without-profile",
        ),
        pytest.param(
            {"type": "m5.large", "image": {"version": "1.0.0"}},
            [
                ("SH-META-001", "metadata.labels", INV),
                ("SH-VER-002", "spec.cloudProfile.name", REQ),
                ("SH-WRK-003", f"{W0}.machine.image.name", REQ),
            ],
            id="SH-WRK-003-no-name-without-profile",
        ),
    ],
)
def test_sh_wrk_003_without_profile(machine: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(pool(machine=machine), **NO_PROFILE)) == expected


# ------------------------------------------------------------------------------------------------- SH-INP-001

STRATEGY = f"{W0}.updateStrategy"


@pytest.mark.parametrize(
    ("worker", "settings", "expected"),
    [
        pytest.param(in_place(), Settings(), [("SH-INP-001", STRATEGY, INV)], id="SH-INP-001-gate-off"),
        pytest.param(in_place(), IN_PLACE_ON, [], id="SH-INP-001-gate-on"),
        pytest.param(
            pool(updateStrategy="Replace"),
            Settings(),
            [("SH-INP-001", STRATEGY, UNS)],
            id="SH-INP-001-unknown-strategy",
        ),
    ],
)
def test_sh_inp_001_create(worker: dict[str, Any], settings: Settings, expected: Triples) -> None:
    assert create(shoot_dict(worker), settings=settings) == expected


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(shoot_dict(in_place()), shoot_dict(in_place()), [], id="SH-INP-001-existing-pool-keeps-working"),
        pytest.param(
            shoot_dict(pool(), in_place(name="pool-b")),
            shoot_dict(pool()),
            [("SH-INP-001", "spec.provider.workers[1].updateStrategy", INV)],
            id="SH-INP-001-new-pool-gate-off",
        ),
        pytest.param(
            shoot_dict(pool(updateStrategy="AutoInPlaceUpdate")),
            shoot_dict(pool()),
            [("SH-INP-001", STRATEGY, INV)],
            id="SH-INP-001-rolling-to-in-place",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("local", "1.0.0"))),
            shoot_dict(in_place()),
            [("SH-INP-001", STRATEGY, INV)],
            id="SH-INP-001-in-place-to-rolling",
        ),
        pytest.param(
            shoot_dict(in_place(machine={**image_of("local", "1.0.0"), "type": "c5.large"})),
            shoot_dict(in_place()),
            [("SH-INP-001", f"{W0}.machine.type", INV)],
            id="SH-INP-001-in-place-machine-type",
        ),
        pytest.param(
            shoot_dict(in_place(volume={"type": "gp3", "size": "40Gi"})),
            shoot_dict(in_place(volume={"type": "gp3", "size": "50Gi"})),
            [("SH-INP-001", f"{W0}.volume", INV)],
            id="SH-INP-001-in-place-volume",
        ),
        pytest.param(
            shoot_dict(in_place("1.0.0")),
            shoot_dict(in_place("1.1.0")),
            [("SH-INP-001", f"{W0}.machine.image.version", FOR), ("SH-ADM-IMG-001", f"{W0}.machine.image", INV)],
            id="SH-INP-001-in-place-image-downgrade",
        ),
        pytest.param(
            shoot_dict(in_place("1.1.0")), shoot_dict(in_place("1.0.0")), [], id="SH-INP-001-in-place-image-upgrade"
        ),
    ],
)
def test_sh_inp_001_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


def test_sh_inp_001_unset_image_version_shows_the_version() -> None:
    """Only without a profile reference can the version stay unset; the value shown is the one at the path."""
    new = shoot_dict(in_place(machine={"type": "m5.large", "image": {"name": "local"}}), **NO_PROFILE)
    verdict = verdict_update(new, shoot_dict(in_place(), **NO_PROFILE))
    found = [(f.rule.id, str(f.path), f.value) for f in verdict.errors if f.rule.id == "SH-INP-001"]
    assert found == [("SH-INP-001", f"{W0}.machine.image.version", "")]


# ---------------------------------------------------------------------------------------------- SH-CRI-POL-001

GVISOR = {"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        pytest.param(
            pool(machine=image_of("gardenlinux", "1592.2.0"), cri=GVISOR),
            [("SH-CRI-POL-001", f"{W0}.cri", FOR)],
            id="SH-CRI-POL-001-configured",
        ),
        pytest.param(
            pool(machine={"type": "m5.large", "image": {"name": "gardenlinux", "version": "1592"}}, cri=GVISOR),
            [("SH-CRI-POL-001", f"{W0}.cri", FOR)],
            id="SH-CRI-POL-001-resolved-image",
        ),
        pytest.param(
            pool(machine=image_of("gardenlinux", "1592.2.0"), cri={"name": "containerd"}),
            [],
            id="SH-CRI-POL-001-default",
        ),
        pytest.param(pool(machine=image_of("gardenlinux", "1592.2.0")), [], id="SH-CRI-POL-001-no-cri-section"),
    ],
)
def test_sh_cri_pol_001(worker: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(worker), settings=CRI_POLICY) == expected


def test_sh_cri_pol_001_only_listed_images() -> None:
    raw = shoot_dict(pool(machine=image_of("gardenlinux", "1592.2.0"), cri=GVISOR))
    assert create(raw) == []
    (line,) = details(verdict_create(raw, settings=CRI_POLICY))
    assert line == (
        f'{W0}.cri: must not be configured: the OS extension of machine image "gardenlinux" does not support CRI configuration'
    )


def test_cri_policy_setting_from_file_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("workerCriUnsupportedImages: [suse-chost]\n")
    assert load_settings(path, known_rules=ALL_RULES).worker_cri_unsupported_images == ("suse-chost",)
    monkeypatch.setenv("GARDENER_WEBHOOK_WORKER_CRI_UNSUPPORTED_IMAGES", '["gardenlinux"]')
    assert load_settings(None, known_rules=ALL_RULES).worker_cri_unsupported_images == ("gardenlinux",)
