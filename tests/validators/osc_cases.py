"""Shared builders for the OperatingSystemConfig tests (validator, HTTP, CLI): short raw dicts and judges."""

from __future__ import annotations

import base64
import json
from typing import Any, Final

from tests.builders import EMPTY_VIEW, real_fixture, request, triples
from webhook.domain.field import ErrorType, Verdict
from webhook.models.extensions import OperatingSystemConfig
from webhook.settings import Settings
from webhook.validators import operatingsystemconfig

Triples = list[tuple[str, str, ErrorType]]
REQ, INV, UNS, DUP, FOR = (
    ErrorType.REQUIRED,
    ErrorType.INVALID,
    ErrorType.UNSUPPORTED,
    ErrorType.DUPLICATE,
    ErrorType.FORBIDDEN,
)

CONTAINERD: Final = "spec.criConfig.containerd"
KUBELET_PATH: Final = "/var/lib/kubelet/config/kubelet"
HYPERKUBE: Final = "europe-docker.pkg.dev/gardener-project/releases/hyperkube"

# The seven real OperatingSystemConfigs of the optional corpus in $GARDENER_WEBHOOK_REAL_FIXTURES (file names as there).
REAL_OSCS: Final = (
    "gardener-attic__gardener-extensions__controllers_os-suse-jeos_example_operatingsystemconfig.yaml",
    "gardener__gardener-extension-os-coreos__example_30-operatingsystemconfig.yaml",
    "gardener__gardener-extension-os-coreos__example_40-operatingsystemconfig.yaml",
    "gardener__gardener-extension-os-gardenlinux__example_40-operatingsystemconfig-gardenlinux.yaml",
    "gardener__gardener-extension-os-suse-chost__example_40-operatingsystemconfig-chost.yaml",
    "gardener__gardener-extension-os-ubuntu__example_40-operatingsystemconfig.yaml",
    "gardener__gardener__test_integration_resourcemanager_crddeletionprotection_testdata_osc.yaml",
)


def osc_dict(**spec_overrides: Any) -> dict[str, Any]:
    """A minimal valid reconcile OSC (shoot--dev--crazy/pool-a-original) as raw JSON; keywords replace spec fields.

    A keyword set to None removes that key from the spec.
    """
    spec: dict[str, Any] = {
        "type": "gardenlinux",
        "purpose": "reconcile",
        "criConfig": {
            "name": "containerd",
            "cgroupDriver": "systemd",
            "containerd": {"sandboxImage": "registry.k8s.io/pause:3.10"},
        },
        "units": [
            {
                "name": "kubelet.service",
                "command": "start",
                "enable": True,
                "content": "[Unit]\n",
                "filePaths": [KUBELET_PATH],
            }
        ],
        "files": [kubelet_file("systemd")],
    }
    spec.update(spec_overrides)
    spec = {k: v for k, v in spec.items() if v is not None}
    return {
        "apiVersion": "extensions.gardener.cloud/v1alpha1",
        "kind": "OperatingSystemConfig",
        "metadata": {"name": "pool-a-original", "namespace": "shoot--dev--crazy"},
        "spec": spec,
    }


def kubelet_config(cgroup_driver: str | None, *, as_json: bool = False) -> str:
    """A KubeletConfiguration document (YAML, or JSON), with cgroupDriver unless None."""
    doc: dict[str, Any] = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "maxPods": 110,
    }
    if cgroup_driver is not None:
        doc["cgroupDriver"] = cgroup_driver
    if as_json:
        return json.dumps(doc)
    return "".join(f"{k}: {v}\n" for k, v in doc.items())


def kubelet_file(
    cgroup_driver: str | None, *, b64: bool = True, as_json: bool = False, **fields: Any
) -> dict[str, Any]:
    """The kubelet configuration file as Gardener writes it (base64 unless b64=False); fields add keys (hostName)."""
    text = kubelet_config(cgroup_driver, as_json=as_json)
    data = base64.b64encode(text.encode()).decode() if b64 else text
    inline = {"encoding": "b64" if b64 else "", "data": data}
    return {"path": KUBELET_PATH, "permissions": 0o600, "content": {"inline": inline}, **fields}


def kubelet_binary(version: str) -> dict[str, Any]:
    """The kubelet binary file (imageRef into hyperkube), which records the Kubernetes version in its tag."""
    image_ref = {"image": f"{HYPERKUBE}:{version}", "filePathInImage": "/kubelet"}
    return {"path": "/opt/bin/kubelet", "permissions": 0o755, "content": {"imageRef": image_ref}}


def plain_file(path: str, data: str = "x", **fields: Any) -> dict[str, Any]:
    """An inline plain file; fields add keys (hostName, permissions)."""
    return {"path": path, "content": {"inline": {"encoding": "", "data": data}}, **fields}


def osc(raw: dict[str, Any]) -> OperatingSystemConfig:
    """Decode a raw OSC, as admission does (no defaulting for this kind)."""
    return OperatingSystemConfig.model_validate(raw, by_alias=True)


def create_verdict(raw: dict[str, Any]) -> Verdict:
    return operatingsystemconfig.validate_create(request(osc(raw)), EMPTY_VIEW, Settings())


def update_verdict(raw: dict[str, Any], old: dict[str, Any]) -> Verdict:
    return operatingsystemconfig.validate_update(request(osc(raw), osc(old)), EMPTY_VIEW, Settings())


def create(raw: dict[str, Any]) -> Triples:
    """(rule id, path, type) of the errors of a CREATE."""
    return triples(create_verdict(raw))


def warnings_of(raw: dict[str, Any]) -> Triples:
    """(rule id, path, type) of the warnings of a CREATE."""
    return triples(create_verdict(raw), warnings=True)


def update(raw: dict[str, Any], old: dict[str, Any]) -> Triples:
    """(rule id, path, type) of the errors of an UPDATE."""
    return triples(update_verdict(raw, old))


def real_osc(name: str) -> dict[str, Any]:
    return real_fixture(name)
