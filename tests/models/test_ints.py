"""Go's integer fields: a JSON number outside int32 (or int64) is refused, as the API server's decoding refuses it
(gardener-apiserver answers 400 BadRequest before any validation; the webhook denies it naming the field)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from webhook.admission.kinds import decode
from webhook.models.cloudprofile import CloudProfile
from webhook.models.shoot import Shoot

LANDSCAPE: Final = Path(__file__).resolve().parents[2] / "examples" / "landscape"


def _profile(max_nodes: Any) -> dict[str, Any]:
    raw = yaml.safe_load((LANDSCAPE / "cloudprofile.yaml").read_text())
    raw["spec"]["limits"] = {"maxNodesTotal": max_nodes}
    return dict(raw)


@pytest.mark.parametrize("value", [2**31 - 1, -(2**31), 0])
def test_an_int32_in_range_decodes(value: int) -> None:
    decoded = decode(CloudProfile, _profile(value))
    assert isinstance(decoded, CloudProfile) and decoded.spec.limits is not None
    assert decoded.spec.limits.max_nodes_total == value


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 2**63])
def test_an_int32_out_of_range_is_a_field_error(value: int) -> None:
    findings = decode(CloudProfile, _profile(value))
    assert isinstance(findings, list)
    assert [(f.rule.id, str(f.path), f.detail) for f in findings] == [
        ("OBJ-DECODE-001", "spec.limits.maxNodesTotal", "must be a 32-bit integer")
    ]


def test_an_int64_field_holds_more_than_int32() -> None:
    raw = yaml.safe_load((LANDSCAPE / "shoot-prod.yaml").read_text())
    raw["spec"]["kubernetes"]["kubelet"] = {"podPidsLimit": 2**40}
    assert isinstance(decode(Shoot, raw), Shoot)
    raw["spec"]["kubernetes"]["kubelet"] = {"podPidsLimit": 2**63}
    findings = decode(Shoot, raw)
    assert isinstance(findings, list) and str(findings[0].path) == "spec.kubernetes.kubelet.podPidsLimit"


def test_an_operatingsystemconfig_file_mode_is_the_crds_int32() -> None:
    """kube-apiserver refuses `permissions: 2147483648` by the CRD's int32 format, before any webhook."""
    from tests.validators.osc_cases import osc_dict
    from webhook.models.extensions import OperatingSystemConfig

    raw = osc_dict(files=[{"path": "/etc/x", "permissions": 2**31, "content": {"inline": {"data": "x"}}}])
    findings = decode(OperatingSystemConfig, raw)
    assert isinstance(findings, list) and str(findings[0].path) == "spec.files[0].permissions"
