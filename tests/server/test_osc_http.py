"""OperatingSystemConfigs through POST /validate over TLS, as the seed's kube-apiserver sends them."""

from __future__ import annotations

import json
from typing import Any

from aiohttp.test_utils import TestClient

from tests.builders import review, review_bytes
from tests.validators.osc_cases import REAL_OSCS, kubelet_binary, kubelet_file, osc_dict, plain_file, real_osc

Client = TestClient[Any, Any]
JSON = {"Content-Type": "application/json"}


async def answer(client: Client, body: bytes) -> dict[str, Any]:
    """POST an AdmissionReview and return its response, asserting a 200 JSON answer."""
    resp = await client.post("/validate", data=body, headers=JSON)
    assert resp.status == 200, await resp.text()
    return (await resp.json())["response"]  # type: ignore[no-any-return]


async def test_valid_osc_is_allowed(tls_client: Client) -> None:
    assert await answer(tls_client, review_bytes(osc_dict(), uid="osc-1")) == {"uid": "osc-1", "allowed": True}


async def test_denial_names_every_finding(tls_client: Client) -> None:
    raw = osc_dict(
        purpose="provision",
        criConfig={"name": "containerd", "containerd": {"sandboxImage": "registry.k8s.io/pause:3.10"}},
        files=[kubelet_file("systemd"), plain_file("/etc/a"), plain_file("/etc/a", hostName="node-1")],
    )
    response = await answer(tls_client, review_bytes(raw, uid="osc-2"))
    assert (response["uid"], response["allowed"]) == ("osc-2", False)
    status = response["status"]
    assert (status["code"], status["reason"]) == (422, "Invalid")
    assert status["message"] == (
        "\n* spec.criConfig.containerd: Forbidden: containerd config is not allowed for OperatingSystemConfig with "
        "purpose 'provision'\n* spec.files[2].path: Duplicate value: \"/etc/a\""
    )
    assert [(c["field"], c["reason"]) for c in status["details"]["causes"]] == [
        ("spec.criConfig.containerd", "FieldValueForbidden"),
        ("spec.files[2].path", "FieldValueDuplicate"),
    ]
    assert status["details"]["kind"] == "OperatingSystemConfig"
    assert status["details"]["group"] == "extensions.gardener.cloud"
    assert response["auditAnnotations"] == {"rules": "OSC-CRI-002,OSC-FILE-006"}


async def test_cgroup_driver_mismatch_is_denied(tls_client: Client) -> None:
    response = await answer(tls_client, review_bytes(osc_dict(files=[kubelet_file("cgroupfs")])))
    assert response["allowed"] is False
    assert response["status"]["message"] == (
        'spec.criConfig.cgroupDriver: Invalid value: "systemd": must equal the kubelet\'s cgroupDriver "cgroupfs" in '
        "spec.files[0].content.inline.data"
    )


async def test_seed_vocabulary_and_cgroupfs_are_warnings(tls_client: Client) -> None:
    raw = osc_dict(
        cri={"name": "containerd"},
        criConfig={"name": "containerd", "cgroupDriver": "cgroupfs"},
        units=[{"name": "kubelet.service", "command": "enable"}],
        files=[kubelet_file("cgroupfs"), kubelet_binary("v1.33.2"), plain_file("/etc/a", permissions=888)],
    )
    response = await answer(tls_client, review_bytes(raw))
    assert response["allowed"] is True
    assert response["warnings"] == [
        'spec.units[0].command: "enable" is not a unit command: use start, restart or stop',
        "spec.files[2].permissions: 888 (0o1570) looks like a mode written in decimal, but 8 and 9 are no octal digits",
        "spec.criConfig.cgroupDriver: cgroupfs with Kubernetes 1.33: use systemd from 1.31 on",
        "spec.files[0].content.inline.data: kubelet cgroupDriver cgroupfs with Kubernetes 1.33: use systemd from 1.31 on",
        "spec.cri: not an API field, the API server drops it: CRI settings belong in spec.criConfig",
    ]
    assert response["auditAnnotations"] == {"rules": "OSC-UNIT-002,OSC-FILE-004,OSC-CGR-002,OSC-CRI-006"}


async def test_real_osc_reapplied_unchanged_is_allowed(tls_client: Client) -> None:
    raw = real_osc(REAL_OSCS[3])  # gardenlinux: no purpose, inline file without encoding
    response = await answer(tls_client, review_bytes(raw, raw))
    assert response["allowed"] is True
    assert response["warnings"] == [
        "unchanged, not enforced: spec.purpose: Required value",
        "unchanged, not enforced: spec.files[1].content.inline.encoding: Required value",
    ]
    created = await answer(tls_client, review_bytes(raw))
    assert created["allowed"] is False and created["status"]["code"] == 422


async def test_changing_purpose_is_denied(tls_client: Client) -> None:
    response = await answer(
        tls_client, review_bytes(osc_dict(purpose="provision", criConfig=None), osc_dict(criConfig=None))
    )
    assert response["status"]["message"] == 'spec.purpose: Invalid value: "provision": field is immutable'


async def test_delete_and_status_updates_are_not_judged(tls_client: Client) -> None:
    broken = osc_dict(purpose="bootstrap")
    deleted = await answer(tls_client, review_bytes(None, broken, operation="DELETE", uid="osc-del"))
    assert deleted == {"uid": "osc-del", "allowed": True}
    body = review(broken, osc_dict(), uid="osc-status")
    body["request"]["subResource"] = "status"
    assert await answer(tls_client, json.dumps(body).encode()) == {"uid": "osc-status", "allowed": True}


async def test_wrong_shape_is_a_denial_naming_the_field(tls_client: Client) -> None:
    response = await answer(tls_client, review_bytes(osc_dict(files={"path": "/etc/a"})))
    assert response["allowed"] is False
    assert response["status"]["message"] == 'spec.files: Invalid value: "object": must be a list'
    assert response["auditAnnotations"] == {"rules": "OBJ-DECODE-001"}
