"""OperatingSystemConfig rules (docs/rules.md §D, docs/requirements.md "OperatingSystemConfig contract", docs/design.md §5): one table per rule id."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.builders import EMPTY_VIEW, NOW, review_bytes
from tests.validators.osc_cases import (
    CONTAINERD,
    DUP,
    FOR,
    INV,
    KUBELET_PATH,
    REAL_OSCS,
    REQ,
    UNS,
    Triples,
    create,
    create_verdict,
    kubelet_binary,
    kubelet_file,
    osc_dict,
    plain_file,
    real_osc,
    update,
    update_verdict,
    warnings_of,
)
from webhook.judging.judge import judge
from webhook.settings import Settings
from webhook.validators import ALL_RULES, REGISTRY, operatingsystemconfig
from webhook.validators.meta import SUBDOMAIN_MESSAGE

CRI_DEFAULT = {
    "name": "containerd",
    "cgroupDriver": "systemd",
    "containerd": {"sandboxImage": "registry.k8s.io/pause:3.10"},
}


def containerd(**fields: Any) -> dict[str, Any]:
    """criConfig with a containerd section: sandboxImage plus fields."""
    return {"name": "containerd", "containerd": {"sandboxImage": "registry.k8s.io/pause:3.10", **fields}}


def with_status(raw: dict[str, Any], **status: Any) -> dict[str, Any]:
    raw["status"] = status
    return raw


def deleting(raw: dict[str, Any]) -> dict[str, Any]:
    raw["metadata"]["deletionTimestamp"] = "2026-11-20T10:00:00Z"
    return raw


def test_minimal_osc_is_valid() -> None:
    assert create(osc_dict()) == []
    assert warnings_of(osc_dict()) == []
    assert update(osc_dict(), osc_dict()) == []


def test_registered_for_create_and_update_only() -> None:
    kind = REGISTRY[("extensions.gardener.cloud", "OperatingSystemConfig")]
    assert kind is operatingsystemconfig.KIND
    assert (kind.create, kind.update, kind.delete) == (
        operatingsystemconfig.validate_create,
        operatingsystemconfig.validate_update,
        None,
    )
    assert {r.id for r in operatingsystemconfig.RULES} <= set(ALL_RULES)


# ------------------------------------------------------------------------------------------ metadata


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        pytest.param({"name": "pool-a-original", "namespace": "shoot--dev--crazy"}, [], id="OSC-META-001-valid"),
        pytest.param(
            {"namespace": "shoot--dev--crazy"}, [("OSC-META-001", "metadata.name", REQ)], id="OSC-META-001-no-name"
        ),
        pytest.param(
            {"name": "Pool_A", "namespace": "x"}, [("OSC-META-001", "metadata.name", INV)], id="OSC-META-001-not-dns"
        ),
        pytest.param({"name": "pool-a"}, [("OSC-META-001", "metadata.namespace", REQ)], id="OSC-META-001-no-namespace"),
    ],
)
def test_metadata(metadata: dict[str, Any], expected: Triples) -> None:
    raw = osc_dict()
    raw["metadata"] = metadata
    assert create(raw) == expected


# ------------------------------------------------------------------------------------------ CRD schema


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            {k: v for k, v in osc_dict().items() if k != "spec"},
            [("OSC-CRD-001", "spec", REQ)],
            id="OSC-CRD-001-no-spec",
        ),
        pytest.param(osc_dict(type=None), [("OSC-CRD-001", "spec.type", REQ)], id="OSC-CRD-001-no-type"),
        pytest.param(osc_dict(purpose=None), [("OSC-CRD-001", "spec.purpose", REQ)], id="OSC-CRD-001-no-purpose"),
        pytest.param(
            osc_dict(type=None, purpose=None),
            [("OSC-CRD-001", "spec.purpose", REQ), ("OSC-CRD-001", "spec.type", REQ)],
            id="OSC-CRD-001-neither",
        ),
        # Presence only: an empty type passes the schema, and Gardener's webhook no longer checks it (OSC-TYPE-001).
        pytest.param(osc_dict(type=""), [], id="OSC-CRD-001-empty-type-allowed"),
    ],
)
def test_crd_spec_keys(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


@pytest.mark.parametrize(
    ("cri", "expected"),
    [
        pytest.param({"name": "containerd"}, [], id="OSC-CRD-002-containerd"),
        pytest.param(
            {"cgroupDriver": "systemd"}, [("OSC-CRD-002", "spec.criConfig.name", REQ)], id="OSC-CRD-002-no-name"
        ),
        pytest.param({"name": "docker"}, [("OSC-CRD-002", "spec.criConfig.name", UNS)], id="OSC-CRD-002-docker"),
        pytest.param({"name": ""}, [("OSC-CRD-002", "spec.criConfig.name", UNS)], id="OSC-CRD-002-empty"),
    ],
)
def test_cri_name(cri: dict[str, Any], expected: Triples) -> None:
    assert create(osc_dict(criConfig=cri, files=[plain_file("/etc/a")], units=[])) == expected


def test_cri_name_message() -> None:
    [finding] = create_verdict(osc_dict(criConfig={"name": "docker"})).errors
    assert (finding.detail, finding.value) == ('supported values: "containerd"', "docker")


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            {"name": "docker"},
            {"name": "containerd"},
            [("OSC-CRD-002", "spec.criConfig.name", UNS)],
            id="OSC-CRD-002-changed-outside-the-enum-is-the-enum",  # the CEL rule waits for the schema
        ),
        pytest.param(
            {"name": "containerd"},
            {"name": "docker"},
            [("OSC-CRD-002", "spec.criConfig.name", INV)],
            id="OSC-CRD-002-immutable-back-to-the-enum",
        ),
        pytest.param(
            {"name": "docker"},
            {"name": "docker"},
            [("OSC-CRD-002", "spec.criConfig.name", UNS)],
            id="OSC-CRD-002-unchanged-outside-the-enum",
        ),
        pytest.param({"name": "containerd"}, None, [], id="OSC-CRD-002-added-on-update"),
        pytest.param(None, {"name": "containerd"}, [], id="OSC-CRD-002-removed-on-update"),
    ],
)
def test_cri_name_immutable(new: dict[str, Any] | None, old: dict[str, Any] | None, expected: Triples) -> None:
    assert update(osc_dict(criConfig=new, files=[], units=[]), osc_dict(criConfig=old, files=[], units=[])) == expected


def test_cel_immutability_message() -> None:
    """The CEL message, with the new value (the API server shows the schema type, "string") and the stored one."""
    verdict = update_verdict(osc_dict(**{"class": "seed"}), osc_dict(**{"class": "shoot"}))
    [finding] = verdict.errors
    assert (finding.rule.id, str(finding.path), finding.value, finding.detail) == (
        "OSC-CRD-003", "spec.class", "seed", 'Value is immutable (was "shoot")',
    )  # fmt: skip
    new, old = osc_dict(criConfig={"name": "containerd"}), osc_dict(criConfig={"name": "docker"})
    [finding] = update_verdict(new, old).errors
    assert (finding.rule.id, str(finding.path), finding.value, finding.detail) == (
        "OSC-CRD-002", "spec.criConfig.name", "containerd", 'Value is immutable (was "docker")',
    )  # fmt: skip


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param("seed", "shoot", [("OSC-CRD-003", "spec.class", INV)], id="OSC-CRD-003-changed"),
        pytest.param("shoot", "shoot", [], id="OSC-CRD-003-unchanged"),
        pytest.param("seed", None, [], id="OSC-CRD-003-set-later"),
        pytest.param(None, "seed", [], id="OSC-CRD-003-removed"),
    ],
)
def test_class_immutable(new: str | None, old: str | None, expected: Triples) -> None:
    assert update(osc_dict(**{"class": new}), osc_dict(**{"class": old})) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"files": [{"permissions": 0o644}]},
            [("OSC-CRD-004", "spec.files[0].content", REQ), ("OSC-CRD-004", "spec.files[0].path", REQ)],
            id="OSC-CRD-004-file-path-content",
        ),
        pytest.param(
            {"files": [{"path": "/a", "content": {"inline": {}}}]},
            [
                ("OSC-CRD-004", "spec.files[0].content.inline.data", REQ),
                ("OSC-CRD-004", "spec.files[0].content.inline.encoding", REQ),
            ],
            id="OSC-CRD-004-inline-keys",
        ),
        pytest.param(
            {"files": [{"path": "/a", "content": {"inline": {"data": "x"}}}]},
            [("OSC-CRD-004", "spec.files[0].content.inline.encoding", REQ)],
            id="OSC-CRD-004-inline-without-encoding",
        ),
        pytest.param(
            {"files": [{"path": "/a", "content": {"secretRef": {}}}]},
            [
                ("OSC-CRD-004", "spec.files[0].content.secretRef.dataKey", REQ),
                ("OSC-CRD-004", "spec.files[0].content.secretRef.name", REQ),
            ],
            id="OSC-CRD-004-secret-ref-keys",
        ),
        pytest.param(
            {"files": [{"path": "/a", "content": {"imageRef": {}}}]},
            [
                ("OSC-CRD-004", "spec.files[0].content.imageRef.filePathInImage", REQ),
                ("OSC-CRD-004", "spec.files[0].content.imageRef.image", REQ),
            ],
            id="OSC-CRD-004-image-ref-keys",
        ),
        pytest.param(
            {"units": [{"command": "start", "dropIns": [{}]}]},
            [
                ("OSC-CRD-004", "spec.units[0].name", REQ),
                ("OSC-CRD-004", "spec.units[0].dropIns[0].content", REQ),
                ("OSC-CRD-004", "spec.units[0].dropIns[0].name", REQ),
            ],
            id="OSC-CRD-004-unit-keys",
        ),
        pytest.param(
            {
                "criConfig": {
                    "name": "containerd",
                    "containerd": {"registries": [{"hosts": [{}]}], "plugins": [{"op": "add"}]},
                }
            },
            [
                ("OSC-CRD-004", f"{CONTAINERD}.plugins[0].path", REQ),
                ("OSC-CRD-004", f"{CONTAINERD}.registries[0].hosts[0].url", REQ),
                ("OSC-CRD-004", f"{CONTAINERD}.registries[0].upstream", REQ),
                ("OSC-CRD-004", f"{CONTAINERD}.sandboxImage", REQ),
            ],
            id="OSC-CRD-004-containerd-keys",
        ),
        pytest.param(
            {"inPlaceUpdates": {}},
            [
                ("OSC-CRD-004", "spec.inPlaceUpdates.kubelet", REQ),
                ("OSC-CRD-004", "spec.inPlaceUpdates.operatingSystemVersion", REQ),
            ],
            id="OSC-CRD-004-in-place-updates-keys",
        ),
        pytest.param(
            {"inPlaceUpdates": {"kubelet": "1.33.2", "operatingSystemVersion": "1877.1"}},
            [],
            id="OSC-CRD-004-in-place-updates",
        ),
    ],
)
def test_crd_required_keys(spec: dict[str, Any], expected: Triples) -> None:
    raw = osc_dict(units=[], files=[], criConfig=None)
    raw["spec"].update(spec)
    assert create(raw) == expected


def test_crd_required_keys_in_status() -> None:
    raw = with_status(osc_dict(), extensionUnits=[{}], extensionFiles=[{"content": {"inline": {"encoding": ""}}}])
    assert create(raw) == [
        ("OSC-CRD-004", "status.extensionUnits[0].name", REQ),
        ("OSC-CRD-004", "status.extensionFiles[0].path", REQ),
        ("OSC-CRD-004", "status.extensionFiles[0].content.inline.data", REQ),
    ]


# ------------------------------------------------------------------------------------------ purpose


@pytest.mark.parametrize(
    ("purpose", "expected"),
    [
        pytest.param("reconcile", [], id="OSC-PUR-001-reconcile"),
        pytest.param("provision", [], id="OSC-PUR-001-provision"),
        pytest.param("", [("OSC-PUR-001", "spec.purpose", REQ)], id="OSC-PUR-001-empty"),
        pytest.param("bootstrap", [("OSC-PUR-001", "spec.purpose", UNS)], id="OSC-PUR-001-unsupported"),
    ],
)
def test_purpose(purpose: str, expected: Triples) -> None:
    assert create(osc_dict(purpose=purpose, criConfig={"name": "containerd"})) == expected


def test_purpose_messages() -> None:
    [empty] = create_verdict(osc_dict(purpose="")).errors
    assert empty.detail == "field is required"
    [bad] = create_verdict(osc_dict(purpose="bootstrap")).errors
    assert bad.detail == 'supported values: "provision", "reconcile"'


# ------------------------------------------------------------------------------------------ CRI


@pytest.mark.parametrize(
    ("driver", "expected"),
    [
        pytest.param("systemd", [], id="OSC-CRI-001-systemd"),
        pytest.param("cgroupfs", [], id="OSC-CRI-001-cgroupfs"),
        pytest.param("cgroupv2", [("OSC-CRI-001", "spec.criConfig.cgroupDriver", UNS)], id="OSC-CRI-001-unsupported"),
    ],
)
def test_cgroup_driver_values(driver: str, expected: Triples) -> None:
    cri = {"name": "containerd", "cgroupDriver": driver}
    assert create(osc_dict(criConfig=cri, files=[plain_file("/etc/a")], units=[])) == expected


@pytest.mark.parametrize(
    ("purpose", "cri", "expected"),
    [
        pytest.param(
            "provision", containerd(), [("OSC-CRI-002", CONTAINERD, FOR)], id="OSC-CRI-002-provision-with-containerd"
        ),
        # Nothing further is judged for provision: the empty sandbox image is not reported (only the key is, by the CRD).
        pytest.param(
            "provision", {"name": "containerd", "containerd": {"sandboxImage": ""}}, [("OSC-CRI-002", CONTAINERD, FOR)],
            id="OSC-CRI-002-provision-stops-there",
        ),
        pytest.param("provision", {"name": "containerd", "cgroupDriver": "systemd"}, [], id="OSC-CRI-002-provision-name-only"),
        pytest.param("reconcile", containerd(), [], id="OSC-CRI-002-reconcile"),
        pytest.param(
            "reconcile", {"name": "containerd", "containerd": {"sandboxImage": ""}}, [("OSC-CRI-003", f"{CONTAINERD}.sandboxImage", REQ)],
            id="OSC-CRI-003-empty-sandbox-image",
        ),
        pytest.param(
            "provision", {"name": "containerd", "containerd": {}},
            [("OSC-CRD-004", f"{CONTAINERD}.sandboxImage", REQ), ("OSC-CRI-002", CONTAINERD, FOR)],
            id="OSC-CRI-002-crd-still-requires-sandbox-image",
        ),
    ],
)  # fmt: skip
def test_containerd_section(purpose: str, cri: dict[str, Any], expected: Triples) -> None:
    assert create(osc_dict(purpose=purpose, criConfig=cri)) == expected


def test_provision_message() -> None:
    [finding] = create_verdict(osc_dict(purpose="provision", criConfig=containerd())).errors
    assert finding.detail == "containerd config is not allowed for OperatingSystemConfig with purpose 'provision'"


REG = f"{CONTAINERD}.registries"


@pytest.mark.parametrize(
    ("registries", "expected"),
    [
        pytest.param(
            [{"upstream": "docker.io", "server": "https://registry-1.docker.io",
              "hosts": [{"url": "http://10.4.0.12:5000", "capabilities": ["pull", "resolve"]}]},
             {"upstream": "_default", "hosts": [{"url": "https://mirror.example.com"}]},
             {"upstream": "my-registry.local:5000"}],
            [],
            id="OSC-CRI-004-valid",
        ),
        pytest.param(
            [{"upstream": "docker.io"}, {"upstream": "docker.io"}], [("OSC-CRI-004", f"{REG}[1].upstream", DUP)],
            id="OSC-CRI-004-duplicate-upstream",
        ),
        pytest.param([{"upstream": "https://docker.io"}], [("OSC-CRI-004", f"{REG}[0].upstream", INV)], id="OSC-CRI-004-upstream-scheme"),
        pytest.param([{"upstream": "docker.io/library"}], [("OSC-CRI-004", f"{REG}[0].upstream", INV)], id="OSC-CRI-004-upstream-path"),
        pytest.param([{"upstream": "Docker.io"}], [("OSC-CRI-004", f"{REG}[0].upstream", INV)], id="OSC-CRI-004-upstream-upper-case"),
        pytest.param([{"upstream": "localhost:0"}], [("OSC-CRI-004", f"{REG}[0].upstream", INV)], id="OSC-CRI-004-port-zero"),
        pytest.param([{"upstream": "localhost:65536"}], [("OSC-CRI-004", f"{REG}[0].upstream", INV)], id="OSC-CRI-004-port-too-high"),
        pytest.param(
            [{"upstream": "docker.io", "server": "ftp://registry.example.com"}], [("OSC-CRI-004", f"{REG}[0].server", UNS)],
            id="OSC-CRI-004-server-scheme",
        ),
        pytest.param(
            [{"upstream": "docker.io", "server": "registry.example.com"}],
            [("OSC-CRI-004", f"{REG}[0].server", UNS), ("OSC-CRI-004", f"{REG}[0].server", INV)],
            id="OSC-CRI-004-server-without-scheme",
        ),
        pytest.param(
            [{"upstream": "docker.io", "server": "://registry"}], [("OSC-CRI-004", f"{REG}[0].server", REQ)],
            id="OSC-CRI-004-server-unparsable",
        ),
        pytest.param(
            [{"upstream": "docker.io", "hosts": [{"url": "1a"}]}], [("OSC-CRI-004", f"{REG}[0].hosts[0].url", INV)],
            id="OSC-CRI-004-host-url-without-host",
        ),
        pytest.param(
            [{"upstream": "docker.io", "hosts": [{"url": "http://<service-ip>:<port>]"}]}],
            [("OSC-CRI-004", f"{REG}[0].hosts[0].url", REQ)],
            id="OSC-CRI-004-host-url-seed-placeholder",
        ),
        pytest.param(
            [{"upstream": "docker.io", "hosts": [{"url": "https://m.example.com", "capabilities": ["pull", "mirror"]}]}],
            [("OSC-CRI-004", f"{REG}[0].hosts[0].capabilities[1]", UNS)],
            id="OSC-CRI-004-capability",
        ),
    ],
)  # fmt: skip
def test_registries(registries: list[dict[str, Any]], expected: Triples) -> None:
    assert create(osc_dict(criConfig=containerd(registries=registries))) == expected


@pytest.mark.parametrize(
    ("registry", "value", "detail"),
    [
        pytest.param(
            {"upstream": "localhost:65536"}, "localhost:65536",
            "port '65536' is not valid, valid port must be in the range [1, 65535]", id="port",
        ),
        pytest.param(
            {"upstream": "https://registry.example.com/v2"}, "https://registry.example.com/v2",
            f'upstream is host[:port]: drop "https://" and "/v2"; {SUBDOMAIN_MESSAGE}', id="upstream-url",
        ),
        pytest.param(
            {"upstream": "docker.io/library"}, "docker.io/library",
            f'upstream is host[:port]: drop "/library"; {SUBDOMAIN_MESSAGE}', id="upstream-path",
        ),
        pytest.param({"upstream": "Docker.io"}, "Docker.io", SUBDOMAIN_MESSAGE, id="upstream-upper-case"),
        pytest.param(
            {"upstream": "docker.io", "server": "://registry"}, None,
            'url must be a valid URL: parse "://registry": missing protocol scheme; desired format: https://host[:port]',
            id="unparsable",
        ),
        pytest.param(
            {"upstream": "docker.io", "hosts": [{"url": "https://a b"}]}, None,
            'url must be a valid URL: parse "https://a b": invalid character " " in host name; desired format: https://host[:port]',
            id="host-character",
        ),
        pytest.param(
            {"upstream": "docker.io", "hosts": [{"url": "1a"}]}, "", "host must be provided; desired format: https://host[:port]",
            id="no-host",
        ),
    ],
)  # fmt: skip
def test_registry_messages(registry: dict[str, Any], value: str | None, detail: str) -> None:
    [finding] = create_verdict(osc_dict(criConfig=containerd(registries=[registry]))).errors
    assert finding.detail == detail
    if value is not None:
        assert finding.value == value


PLUGINS = f"{CONTAINERD}.plugins"


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        pytest.param(
            [{"path": ["io.containerd.grpc.v1.cri", "containerd"], "values": {"default_runtime_name": "runc"}},
             {"op": "remove", "path": ["io.containerd.grpc.v1.cri", "registry"]},
             {"op": "add", "path": ["a"]}],
            [],
            id="OSC-CRI-005-valid",
        ),
        pytest.param([{"op": "replace", "path": ["a"]}], [("OSC-CRI-005", f"{PLUGINS}[0].op", UNS)], id="OSC-CRI-005-op"),
        pytest.param([{"path": []}], [("OSC-CRI-005", f"{PLUGINS}[0].path", REQ)], id="OSC-CRI-005-empty-path"),
        pytest.param(
            [{"op": "remove", "path": ["a"], "values": {"x": 1}}], [("OSC-CRI-005", f"{PLUGINS}[0].values", FOR)],
            id="OSC-CRI-005-values-with-remove",
        ),
        pytest.param([{"path": ["a"], "values": [1, 2]}], [("OSC-CRI-005", f"{PLUGINS}[0].values", INV)], id="OSC-CRI-005-values-array"),
        pytest.param([{"path": ["a"], "values": "runc"}], [("OSC-CRI-005", f"{PLUGINS}[0].values", INV)], id="OSC-CRI-005-values-string"),
        pytest.param([{"path": ["a"], "values": None}], [], id="OSC-CRI-005-values-null"),
    ],
)  # fmt: skip
def test_plugins(plugins: list[dict[str, Any]], expected: Triples) -> None:
    assert create(osc_dict(criConfig=containerd(plugins=plugins))) == expected


def test_plugin_values_message_shows_the_json() -> None:
    [finding] = create_verdict(osc_dict(criConfig=containerd(plugins=[{"path": ["a"], "values": [1, 2]}]))).errors
    assert (finding.value, finding.detail) == ("[1,2]", "provided values must be given in json format")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"cri": {"name": "containerd"}}, [("OSC-CRI-006", "spec.cri", FOR)], id="OSC-CRI-006-seed-spelling"
        ),
        pytest.param({}, [], id="OSC-CRI-006-api-spelling"),
    ],
)
def test_seed_cri_spelling_is_a_warning(spec: dict[str, Any], expected: Triples) -> None:
    raw = osc_dict(**spec)
    assert create(raw) == []
    assert warnings_of(raw) == expected


# ------------------------------------------------------------------------------------------ cgroup driver


CGR = ("OSC-CGR-001", "spec.criConfig.cgroupDriver", INV)


@pytest.mark.parametrize(
    ("cri_driver", "files", "expected"),
    [
        pytest.param("systemd", [kubelet_file("systemd")], [], id="OSC-CGR-001-both-systemd"),
        pytest.param("cgroupfs", [kubelet_file("cgroupfs")], [], id="OSC-CGR-001-both-cgroupfs"),
        pytest.param("systemd", [kubelet_file("cgroupfs")], [CGR], id="OSC-CGR-001-b64-differs"),
        pytest.param("cgroupfs", [kubelet_file("systemd", b64=False)], [CGR], id="OSC-CGR-001-plain-differs"),
        pytest.param("systemd", [kubelet_file("cgroupfs", as_json=True)], [CGR], id="OSC-CGR-001-json-differs"),
        pytest.param("systemd", [kubelet_file(None)], [], id="OSC-CGR-001-kubelet-unset"),
        # Found by fuzzing: base64 data with non-ASCII characters cannot be decoded, so the file is not read.
        pytest.param(
            "systemd", [{"path": KUBELET_PATH, "content": {"inline": {"encoding": "b64", "data": "\bèÈvÄ"}}}], [],
            id="OSC-CGR-001-b64-not-ascii-not-read",
        ),
        pytest.param(None, [kubelet_file("cgroupfs")], [], id="OSC-CGR-001-cri-unset"),
        # An unsupported CRI value is OSC-CRI-001's finding and is not compared.
        pytest.param(
            "cgroupv2", [kubelet_file("cgroupfs")], [("OSC-CRI-001", "spec.criConfig.cgroupDriver", UNS)],
            id="OSC-CGR-001-unsupported-cri-value-not-compared",
        ),
        pytest.param(
            "systemd", [plain_file("/etc/notes", "# a KubeletConfiguration lives elsewhere\ncgroupDriver: cgroupfs")], [],
            id="OSC-CGR-001-not-a-kubelet-configuration",
        ),
        pytest.param(
            "systemd", [kubelet_file("systemd", hostName="node-a"), kubelet_file("cgroupfs", hostName="node-b")], [CGR],
            id="OSC-CGR-001-one-of-two-host-files-differs",
        ),
    ],
)  # fmt: skip
def test_cgroup_driver_consistency(cri_driver: str | None, files: list[dict[str, Any]], expected: Triples) -> None:
    cri = {"name": "containerd"} if cri_driver is None else {"name": "containerd", "cgroupDriver": cri_driver}
    assert create(osc_dict(criConfig=cri, files=files, units=[])) == expected


def test_cgroup_driver_mismatch_names_both_paths() -> None:
    files = [plain_file("/etc/a"), kubelet_file("cgroupfs")]
    [finding] = create_verdict(osc_dict(files=files)).errors
    assert (str(finding.path), finding.value) == ("spec.criConfig.cgroupDriver", "systemd")
    assert finding.detail == 'must equal the kubelet\'s cgroupDriver "cgroupfs" in spec.files[1].content.inline.data'


CGROUPFS_CRI = {"name": "containerd", "cgroupDriver": "cgroupfs"}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"inPlaceUpdates": {"kubelet": "1.31.0", "operatingSystemVersion": "1877.1"}, "files": [kubelet_file(None)]},
            [("OSC-CGR-002", "spec.criConfig.cgroupDriver", FOR)],
            id="OSC-CGR-002-in-place-1.31",
        ),
        pytest.param(
            {"inPlaceUpdates": {"kubelet": "1.30.9", "operatingSystemVersion": "1877.1"}}, [], id="OSC-CGR-002-in-place-1.30",
        ),
        pytest.param(
            {"files": [kubelet_file("cgroupfs"), kubelet_binary("v1.33.2")]},
            [("OSC-CGR-002", "spec.criConfig.cgroupDriver", FOR), ("OSC-CGR-002", "spec.files[0].content.inline.data", FOR)],
            id="OSC-CGR-002-kubelet-image-1.33",
        ),
        pytest.param({"files": [kubelet_file("cgroupfs"), kubelet_binary("v1.30.4")]}, [], id="OSC-CGR-002-kubelet-image-1.30"),
        pytest.param({"files": [kubelet_file("cgroupfs")]}, [], id="OSC-CGR-002-version-unknown"),
        pytest.param(
            {"criConfig": CRI_DEFAULT, "files": [kubelet_file("systemd")], "inPlaceUpdates": {"kubelet": "1.29.1", "operatingSystemVersion": "1"}},
            [],
            id="OSC-CGR-002-systemd-below-1.31-allowed",
        ),
        pytest.param(
            {"criConfig": CRI_DEFAULT, "files": [kubelet_file("systemd"), kubelet_binary("v1.34.0@sha256:" + "a" * 64)]}, [],
            id="OSC-CGR-002-systemd-digest-pinned",
        ),
    ],
)  # fmt: skip
def test_cgroupfs_on_new_kubernetes_is_a_warning(spec: dict[str, Any], expected: Triples) -> None:
    raw = osc_dict(**{"criConfig": CGROUPFS_CRI, "files": [kubelet_file("cgroupfs")], **spec})
    assert create(raw) == []
    assert warnings_of(raw) == expected


def test_cgroupfs_warning_text() -> None:
    raw = osc_dict(criConfig=CGROUPFS_CRI, files=[kubelet_file("cgroupfs"), kubelet_binary("v1.33.2")])
    texts = [f"{f.path}: {f.detail}" for f in create_verdict(raw).warnings]
    assert texts == [
        "spec.criConfig.cgroupDriver: cgroupfs with Kubernetes 1.33: use systemd from 1.31 on",
        "spec.files[0].content.inline.data: kubelet cgroupDriver cgroupfs with Kubernetes 1.33: use systemd from 1.31 on",
    ]
    assert all(len(t) <= 120 for t in texts)


def test_kubernetes_version_prefers_in_place_updates() -> None:
    files = [kubelet_file(None), kubelet_binary("v1.30.1")]
    in_place = {"kubelet": "1.32.0", "operatingSystemVersion": "1877.1"}
    [warning] = create_verdict(osc_dict(criConfig=CGROUPFS_CRI, files=files, inPlaceUpdates=in_place)).warnings
    assert warning.detail == "cgroupfs with Kubernetes 1.32: use systemd from 1.31 on"
    assert create_verdict(osc_dict(criConfig=CGROUPFS_CRI, files=files)).warnings == ()


# ------------------------------------------------------------------------------------------ units


@pytest.mark.parametrize(
    ("units", "expected"),
    [
        pytest.param(
            [{"name": "a.service", "dropIns": [{"name": "10-a.conf", "content": "[Service]"}]}],
            [],
            id="OSC-UNIT-001-valid",
        ),
        pytest.param([{"name": ""}], [("OSC-UNIT-001", "spec.units[0].name", REQ)], id="OSC-UNIT-001-empty-name"),
        pytest.param(
            [{"name": "a.service", "dropIns": [{"name": "", "content": ""}]}],
            [
                ("OSC-UNIT-001", "spec.units[0].dropIns[0].name", REQ),
                ("OSC-UNIT-001", "spec.units[0].dropIns[0].content", REQ),
            ],
            id="OSC-UNIT-001-empty-drop-in",
        ),
        pytest.param(
            [{"name": "a.service", "filePaths": [KUBELET_PATH, "/etc/missing"]}],
            [("OSC-UNIT-001", "spec.units[0].filePaths[1]", INV)],
            id="OSC-UNIT-001-file-path-without-file",
        ),
        # Units may depend on files the extension added to the status.
        pytest.param(
            [{"name": "a.service", "filePaths": ["/etc/from-extension"]}], [], id="OSC-UNIT-001-file-from-status"
        ),
    ],
)
def test_units(units: list[dict[str, Any]], expected: Triples) -> None:
    raw = with_status(osc_dict(units=units), extensionFiles=[plain_file("/etc/from-extension")])
    assert create(raw) == expected


def test_extension_units_are_judged_too() -> None:
    raw = with_status(osc_dict(), extensionUnits=[{"name": "", "filePaths": ["/nope", KUBELET_PATH]}])
    assert create(raw) == [
        ("OSC-UNIT-001", "status.extensionUnits[0].name", REQ),
        ("OSC-UNIT-001", "status.extensionUnits[0].filePaths[0]", INV),
    ]
    [finding] = create_verdict(with_status(osc_dict(), extensionUnits=[{"name": "x", "filePaths": ["/nope"]}])).errors
    assert finding.detail == "'filePath' requires a matching 'path' in 'spec.files'"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param("start", [], id="OSC-UNIT-002-start"),
        pytest.param("restart", [], id="OSC-UNIT-002-restart"),
        pytest.param("stop", [], id="OSC-UNIT-002-stop"),
        pytest.param("enable", [("OSC-UNIT-002", "spec.units[0].command", FOR)], id="OSC-UNIT-002-unknown"),
        pytest.param("", [("OSC-UNIT-002", "spec.units[0].command", FOR)], id="OSC-UNIT-002-empty"),
    ],
)
def test_unit_command_is_a_warning(command: str, expected: Triples) -> None:
    raw = osc_dict(units=[{"name": "a.service", "command": command}])
    assert create(raw) == []
    assert warnings_of(raw) == expected


def test_unit_command_warning_in_status() -> None:
    raw = with_status(osc_dict(), extensionUnits=[{"name": "a.service", "command": "reload"}])
    [warning] = create_verdict(raw).warnings
    assert f"{warning.path}: {warning.detail}" == (
        'status.extensionUnits[0].command: "reload" is not a unit command: use start, restart or stop'
    )


# ------------------------------------------------------------------------------------------ files


@pytest.mark.parametrize(
    ("file", "expected"),
    [
        pytest.param(plain_file("/etc/a"), [], id="OSC-FILE-001-valid"),
        pytest.param(plain_file(""), [("OSC-FILE-001", "spec.files[1].path", REQ)], id="OSC-FILE-001-empty-path"),
        pytest.param({"path": "/etc/a", "content": {}}, [("OSC-FILE-001", "spec.files[1].content", REQ)], id="OSC-FILE-001-no-source"),
        pytest.param(
            {"path": "/etc/a", "content": {"transmitUnencoded": True}}, [("OSC-FILE-001", "spec.files[1].content", REQ)],
            id="OSC-FILE-001-only-transmit-unencoded",
        ),
        pytest.param(
            {"path": "/etc/a", "content": {"inline": {"encoding": "", "data": "x"}, "secretRef": {"name": "s", "dataKey": "k"}}},
            [("OSC-FILE-001", "spec.files[1].content", INV)],
            id="OSC-FILE-001-two-sources",
        ),
        pytest.param(
            {"path": "/etc/a", "content": {"secretRef": {"name": "", "dataKey": ""}}},
            [("OSC-FILE-002", "spec.files[1].content.secretRef.name", REQ), ("OSC-FILE-002", "spec.files[1].content.secretRef.dataKey", REQ)],
            id="OSC-FILE-002-secret-ref",
        ),
        pytest.param(
            {"path": "/etc/a", "content": {"imageRef": {"image": "", "filePathInImage": ""}}},
            [("OSC-FILE-002", "spec.files[1].content.imageRef.image", REQ), ("OSC-FILE-002", "spec.files[1].content.imageRef.filePathInImage", REQ)],
            id="OSC-FILE-002-image-ref",
        ),
        pytest.param({"path": "/etc/a", "content": {"secretRef": {"name": "s", "dataKey": "k"}}}, [], id="OSC-FILE-002-valid-secret-ref"),
        pytest.param(
            {"path": "/etc/a", "content": {"inline": {"encoding": "gzip+b64", "data": "x"}}},
            [("OSC-FILE-003", "spec.files[1].content.inline.encoding", UNS)],
            id="OSC-FILE-003-gzip-no-longer-accepted",
        ),
        pytest.param(
            {"path": "/etc/a", "content": {"inline": {"encoding": "b64", "data": ""}}},
            [("OSC-FILE-003", "spec.files[1].content.inline.data", REQ)],
            id="OSC-FILE-003-empty-data",
        ),
        pytest.param(plain_file("/etc/a", hostName="node-1.example.com"), [], id="OSC-FILE-005-valid-host-name"),
        pytest.param(plain_file("/etc/a", hostName="Node_1"), [("OSC-FILE-005", "spec.files[1].hostName", INV)], id="OSC-FILE-005-not-dns"),
        pytest.param(plain_file("/etc/a", hostName=""), [("OSC-FILE-005", "spec.files[1].hostName", INV)], id="OSC-FILE-005-empty"),
    ],
)  # fmt: skip
def test_files(file: dict[str, Any], expected: Triples) -> None:
    assert create(osc_dict(files=[kubelet_file("systemd"), file])) == expected


def test_file_messages() -> None:
    two = {
        "path": "/a",
        "content": {"inline": {"encoding": "", "data": "x"}, "imageRef": {"image": "i", "filePathInImage": "/f"}},
    }
    [finding] = create_verdict(osc_dict(files=[kubelet_file("systemd"), two])).errors
    assert finding.value == ["inline", "imageRef"]
    assert (
        finding.detail == "either 'secretRef', 'inline' or 'imageRef' must be provided, not multiple at the same time"
    )
    gzip = plain_file("/a")
    gzip["content"]["inline"]["encoding"] = "gzip"
    [finding] = create_verdict(osc_dict(files=[kubelet_file("systemd"), gzip])).errors
    assert finding.detail == 'supported values: "", "b64"'


def test_extension_files_are_judged_too() -> None:
    raw = with_status(osc_dict(), extensionFiles=[{"path": "", "content": {}}])
    assert create(raw) == [
        ("OSC-FILE-001", "status.extensionFiles[0].path", REQ),
        ("OSC-FILE-001", "status.extensionFiles[0].content", REQ),
    ]


@pytest.mark.parametrize(
    ("permissions", "expected"),
    [
        pytest.param(0o644, [], id="OSC-FILE-004-0644"),
        pytest.param(493, [], id="OSC-FILE-004-yaml-0755-is-493"),
        pytest.param(0, [], id="OSC-FILE-004-zero"),
        pytest.param(0o4755, [], id="OSC-FILE-004-setuid"),
        pytest.param(888, [("OSC-FILE-004", "spec.files[0].permissions", FOR)], id="OSC-FILE-004-0888-in-decimal"),
        pytest.param(1999, [("OSC-FILE-004", "spec.files[0].permissions", FOR)], id="OSC-FILE-004-1999-in-decimal"),
        pytest.param(0o10000, [("OSC-FILE-004", "spec.files[0].permissions", FOR)], id="OSC-FILE-004-too-large"),
        pytest.param(-1, [("OSC-FILE-004", "spec.files[0].permissions", FOR)], id="OSC-FILE-004-negative"),
    ],
)
def test_file_permissions_are_a_warning(permissions: int, expected: Triples) -> None:
    raw = osc_dict(files=[plain_file("/etc/a", permissions=permissions)], units=[])
    assert create(raw) == []
    assert warnings_of(raw) == expected


def test_file_permissions_warning_text() -> None:
    raw = with_status(osc_dict(), extensionFiles=[plain_file("/etc/a", permissions=888)])
    [warning] = create_verdict(raw).warnings
    text = f"{warning.path}: {warning.detail}"
    assert text == (
        "status.extensionFiles[0].permissions: 888 (0o1570) looks like a mode written in decimal, but 8 and 9 are no octal digits"
    )
    assert len(text) <= 120


def _paths(*entries: tuple[str, str | None]) -> list[dict[str, Any]]:
    return [plain_file(p) if host is None else plain_file(p, hostName=host) for p, host in entries]


@pytest.mark.parametrize(
    ("files", "extension_files", "expected"),
    [
        pytest.param(_paths(("/a", None), ("/b", None)), [], [], id="OSC-FILE-006-distinct-paths"),
        pytest.param(_paths(("/a", None), ("/a", None)), [], [("OSC-FILE-006", "spec.files[1].path", DUP)], id="OSC-FILE-006-two-global"),
        pytest.param(_paths(("/a", None), ("/a", "n1")), [], [("OSC-FILE-006", "spec.files[1].path", DUP)], id="OSC-FILE-006-global-then-host"),
        pytest.param(_paths(("/a", "n1"), ("/a", None)), [], [("OSC-FILE-006", "spec.files[1].path", DUP)], id="OSC-FILE-006-host-then-global"),
        pytest.param(_paths(("/a", "n1"), ("/a", "n2")), [], [], id="OSC-FILE-006-distinct-hosts"),
        pytest.param(_paths(("/a", "n1"), ("/a", "n1")), [], [("OSC-FILE-006", "spec.files[1].path", DUP)], id="OSC-FILE-006-same-host"),
        # Gardener remembers only the first host name of a path and lets this through; docs/design.md §5 does not.
        pytest.param(
            _paths(("/a", "n1"), ("/a", "n2"), ("/a", "n2")), [], [("OSC-FILE-006", "spec.files[2].path", DUP)],
            id="OSC-FILE-006-repeat-of-a-later-host",
        ),
        # After a global entry, every later host entry of that path is a repeat for that host.
        pytest.param(
            _paths(("/a", "n1"), ("/a", None), ("/a", "n2")), [],
            [("OSC-FILE-006", "spec.files[1].path", DUP), ("OSC-FILE-006", "spec.files[2].path", DUP)],
            id="OSC-FILE-006-host-after-a-global-repeat",
        ),
        pytest.param(
            _paths(("/a", None)), _paths(("/a", None)), [("OSC-FILE-006", "status.extensionFiles[0].path", DUP)],
            id="OSC-FILE-006-spec-and-status",
        ),
        pytest.param(_paths(("/a", "n1")), _paths(("/a", "n2")), [], id="OSC-FILE-006-spec-and-status-distinct-hosts"),
        pytest.param(
            [], _paths(("/a", None), ("/a", None)), [("OSC-FILE-006", "status.extensionFiles[1].path", DUP)],
            id="OSC-FILE-006-within-status",
        ),
    ],
)  # fmt: skip
def test_duplicate_file_paths(
    files: list[dict[str, Any]], extension_files: list[dict[str, Any]], expected: Triples
) -> None:
    raw = with_status(osc_dict(files=files, units=[]), extensionFiles=extension_files)
    assert create(raw) == expected


def test_empty_paths_are_not_duplicates() -> None:
    assert create(osc_dict(files=_paths(("", None), ("", None)), units=[])) == [
        ("OSC-FILE-001", "spec.files[0].path", REQ),
        ("OSC-FILE-001", "spec.files[1].path", REQ),
    ]


# ------------------------------------------------------------------------------------------ update


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(osc_dict(type="ubuntu"), osc_dict(), [("OSC-UPD-002", "spec.type", INV)], id="OSC-UPD-002-type"),
        pytest.param(
            osc_dict(purpose="provision", criConfig={"name": "containerd"}), osc_dict(criConfig={"name": "containerd"}),
            [("OSC-UPD-002", "spec.purpose", INV)],
            id="OSC-UPD-002-purpose",
        ),
        pytest.param(osc_dict(units=[]), osc_dict(), [], id="OSC-UPD-002-units-may-change"),
        pytest.param(osc_dict(criConfig={**CRI_DEFAULT, "cgroupDriver": None}), osc_dict(), [], id="OSC-UPD-002-cri-may-change"),
        pytest.param(
            deleting(osc_dict(units=[])), osc_dict(), [("OSC-UPD-001", "spec", FOR)], id="OSC-UPD-001-spec-change-while-deleting",
        ),
        # The early return skips OSC-UPD-002 (as Gardener) but not the create rules on the new object.
        pytest.param(
            deleting(osc_dict(type="ubuntu", purpose="")), osc_dict(),
            [("OSC-PUR-001", "spec.purpose", REQ), ("OSC-UPD-001", "spec", FOR)],
            id="OSC-UPD-001-returns-before-immutability",
        ),
        pytest.param(deleting(osc_dict()), osc_dict(), [], id="OSC-UPD-001-unchanged-while-deleting"),
        pytest.param(
            deleting(osc_dict(providerConfig={"a": 2})), osc_dict(providerConfig={"a": 1}), [("OSC-UPD-001", "spec", FOR)],
            id="OSC-UPD-001-unmodelled-field-counts",
        ),
        # OSC-UPD-003: an update runs every create rule on the new object.
        pytest.param(
            osc_dict(files=[{**kubelet_file("systemd"), "content": {"inline": {"encoding": "gzip", "data": "x"}}}]), osc_dict(),
            [("OSC-FILE-003", "spec.files[0].content.inline.encoding", UNS)],
            id="OSC-UPD-003-create-rules-rerun",
        ),
    ],
)  # fmt: skip
def test_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


def test_deletion_timestamp_message_lists_changes() -> None:
    [finding] = update_verdict(deleting(osc_dict(type="ubuntu")), osc_dict()).errors
    assert finding.detail == (
        'cannot update operatingsystemconfig spec if deletion timestamp is set. Requested changes: spec.type: "ubuntu" != "gardenlinux"'
    )


# ------------------------------------------------------------------------------------------ through admission


def _judge(obj: dict[str, Any] | None, old: dict[str, Any] | None = None, *, operation: str | None = None) -> Any:
    return judge(review_bytes(obj, old, operation=operation), view=EMPTY_VIEW, settings=Settings(), now=NOW)


@pytest.mark.parametrize(
    ("spec", "field", "message"),
    [
        pytest.param({"units": {"name": "a"}}, "spec.units", 'spec.units: Invalid value: "object": must be a list', id="units-object"),
        pytest.param(
            {"files": [{"path": "/a", "permissions": "0644", "content": {"inline": {"encoding": "", "data": "x"}}}]},
            "spec.files[0].permissions",
            'spec.files[0].permissions: Invalid value: "0644": must be an integer',
            id="permissions-string",
        ),
        pytest.param(
            {"criConfig": {"name": "containerd", "cgroupDriver": 2}}, "spec.criConfig.cgroupDriver",
            "spec.criConfig.cgroupDriver: Invalid value: 2: must be a string", id="driver-number",
        ),
    ],
)  # fmt: skip
def test_wrong_shapes_are_decode_denials(spec: dict[str, Any], field: str, message: str) -> None:
    outcome = _judge(osc_dict(**spec))
    assert (outcome.allowed, outcome.code, outcome.rule_ids) == (False, 422, ("OBJ-DECODE-001",))
    assert outcome.messages == (message,)
    assert outcome.response["status"]["details"]["causes"][0]["field"] == field


def test_delete_is_never_validated() -> None:
    broken = osc_dict(purpose="bootstrap", files=[{"path": ""}])
    outcome = _judge(None, broken, operation="DELETE")
    assert (outcome.allowed, outcome.warnings, outcome.rule_ids) == (True, (), ())


def test_status_subresource_is_not_judged() -> None:
    body = json.loads(review_bytes(osc_dict(purpose="bootstrap"), osc_dict()))
    body["request"]["subResource"] = "status"
    outcome = judge(json.dumps(body).encode(), view=EMPTY_VIEW, settings=Settings(), now=NOW)
    assert outcome.allowed and outcome.rule_ids == ()


def test_warning_rules_can_be_escalated() -> None:
    settings = Settings(rules={"OSC-FILE-004": "deny"})
    raw = osc_dict(files=[plain_file("/etc/a", permissions=888)], units=[])
    outcome = judge(review_bytes(raw), view=EMPTY_VIEW, settings=settings, now=NOW)
    assert not outcome.allowed
    assert outcome.messages == (
        "spec.files[0].permissions: Forbidden: 888 (0o1570) looks like a mode written in decimal, but 8 and 9 are no octal digits",
    )


# ------------------------------------------------------------------------------------------ real manifests


# What Gardener does today with each real OSC on CREATE (kube-apiserver checks the CRD schema first, so these are
# the CRD's errors; gardener-resource-manager's webhook would add `spec.purpose: Required value: field is
# required`). Six of the seven predate the required `purpose` (2021+) and the required `inline.encoding` key, so a
# current seed rejects them; their file-level `encoding: b64` is an unknown field the API server drops.
_PURPOSE_AND_ENCODING = ["spec.purpose: Required value", "spec.files[1].content.inline.encoding: Required value"]
REAL_ON_CREATE = {
    "gardener-attic__gardener-extensions__controllers_os-suse-jeos_example_operatingsystemconfig.yaml": _PURPOSE_AND_ENCODING,
    "gardener__gardener-extension-os-coreos__example_30-operatingsystemconfig.yaml": _PURPOSE_AND_ENCODING,
    "gardener__gardener-extension-os-coreos__example_40-operatingsystemconfig.yaml": _PURPOSE_AND_ENCODING,
    "gardener__gardener-extension-os-gardenlinux__example_40-operatingsystemconfig-gardenlinux.yaml": _PURPOSE_AND_ENCODING,
    "gardener__gardener-extension-os-suse-chost__example_40-operatingsystemconfig-chost.yaml": _PURPOSE_AND_ENCODING,
    "gardener__gardener-extension-os-ubuntu__example_40-operatingsystemconfig.yaml": _PURPOSE_AND_ENCODING,
    "gardener__gardener__test_integration_resourcemanager_crddeletionprotection_testdata_osc.yaml": [],
}


def _real_id(name: str) -> str:
    verdict = "gardener-rejects-no-purpose-no-inline-encoding" if REAL_ON_CREATE[name] else "gardener-accepts"
    return f"{name.split('__')[1]}-{name.rsplit('_', 1)[-1].removesuffix('.yaml')}-{verdict}"


@pytest.mark.parametrize("name", REAL_OSCS, ids=_real_id)
def test_real_oscs_reapplied_unchanged_are_allowed(name: str) -> None:
    """Re-applying a stored OSC never fails for what it already had: the CRD findings come back as warnings."""
    raw = real_osc(name)
    outcome = _judge(raw, raw)
    assert outcome.allowed, outcome.messages
    assert list(outcome.warnings) == [f"unchanged, not enforced: {m}" for m in REAL_ON_CREATE[name]]


@pytest.mark.parametrize("name", REAL_OSCS, ids=_real_id)
def test_real_oscs_on_create_as_gardener_judges_them(name: str) -> None:
    outcome = _judge(real_osc(name))
    assert list(outcome.messages) == REAL_ON_CREATE[name]
    assert outcome.warnings == ()


def test_real_oscs_are_all_covered() -> None:
    assert set(REAL_OSCS) == set(REAL_ON_CREATE)
    assert len(REAL_OSCS) == 7


def test_rule_table_is_complete() -> None:
    ids = [r.id for r in operatingsystemconfig.RULES]
    expected = [f"OSC-CRD-00{i}" for i in range(1, 5)] + ["OSC-META-001", "OSC-PUR-001"]
    expected += [f"OSC-CRI-00{i}" for i in range(1, 7)] + ["OSC-CGR-001", "OSC-CGR-002", "OSC-UNIT-001", "OSC-UNIT-002"]
    expected += [f"OSC-FILE-00{i}" for i in range(1, 7)] + ["OSC-UPD-001", "OSC-UPD-002"]
    assert ids == expected
    assert [r.id for r in operatingsystemconfig.RULES if r.mode.value == "warn"] == [
        "OSC-CRI-006", "OSC-CGR-002", "OSC-UNIT-002", "OSC-FILE-004",
    ]  # fmt: skip
    assert all(r.source for r in operatingsystemconfig.RULES)
