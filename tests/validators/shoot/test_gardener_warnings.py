"""gardener-apiserver's own Shoot warnings (webhook/validators/shoot/gardener_warnings.py): SH-GW-001..014.

Through the Shoot entry points against the shared profile; only SH-GW-* warnings are compared (the docs/requirements.md "Versioning"
advice has its own tests). Gardener's wording is the contract: the texts are asserted where Gardener's are kept.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.builders import NOW, review_bytes
from tests.validators.shoot.cases import (
    FOR,
    PROFILE,
    VIEW,
    Triples,
    pool,
    shoot_dict,
    verdict_create,
    verdict_on_reconciled,
    verdict_update,
)
from tests.validators.shoot.cases import RECONCILED as RECONCILED_STATUS
from webhook.admission.rendering import MAX_WARNING_CHARS
from webhook.cli import main
from webhook.domain.field import Verdict
from webhook.judging.judge import judge
from webhook.models.defaults import default_shoot
from webhook.models.shoot import Shoot
from webhook.offline.audit import audit_objects
from webhook.settings import Settings
from webhook.validators.shoot import gardener_warnings
from webhook.validators.shoot.effective import Effective
from webhook.validators.shoot.gardener_warnings import go_duration

ROTATION_DOC: Final = (
    "https://github.com/gardener/gardener/blob/master/docs/usage/shoot-operations/shoot_credentials_rotation.md"
)
LONG_AGO: Final = "2026-01-01T00:00:00Z"  # more than 90 days before NOW (2026-11-21)
RECENTLY: Final = "2026-11-01T00:00:00Z"  # 20 days before NOW
LEGACY: Final = {"cloudProfileName": "local", "cloudProfile": None}
# 999 DNS providers without secretName, each with the credentials a non-primary provider needs (SH-SPEC-008).
WORKLOAD_IDENTITY_PROVIDERS: Final = [
    {
        "type": "aws-route53",
        "credentialsRef": {
            "apiVersion": "security.gardener.cloud/v1alpha1",
            "kind": "WorkloadIdentity",
            "name": f"w{i}",
        },
    }
    for i in range(999)
]


def gw(verdict: Verdict) -> Triples:
    return [(f.rule.id, str(f.path), f.type) for f in verdict.warnings if f.rule.id.startswith("SH-GW-")]


def gw_texts(verdict: Verdict) -> list[str]:
    return [f.detail for f in verdict.warnings if f.rule.id.startswith("SH-GW-")]


def with_meta(raw: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    raw["metadata"].update(metadata)
    return raw


def with_status(raw: dict[str, Any], rotation: dict[str, Any] | None) -> dict[str, Any]:
    raw["status"] = {"credentials": {"rotation": rotation}} if rotation is not None else {}
    return raw


def kubernetes(version: str = "1.33.2", **fields: Any) -> dict[str, Any]:
    return {"version": version, **fields}


def one(rule: str) -> Triples:
    return [(rule, "", FOR)]


# --------------------------------------------------------------------------------- SH-GW-004..014 (CREATE)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(shoot_dict(), [], id="SH-GW-none-for-a-current-shoot"),
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.32.9", kubeControllerManager={"podEvictionTimeout": "2m0s"})),
            one("SH-GW-004"),
            id="SH-GW-004-pod-eviction-timeout",
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.32.9", kubeControllerManager={"nodeMonitorGracePeriod": "40s"})),
            [],
            id="SH-GW-004-other-fields",
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.32.9", clusterAutoscaler={"maxEmptyBulkDelete": 10})),
            one("SH-GW-006"),
            id="SH-GW-006-below-1.33",
        ),
        pytest.param(shoot_dict(**LEGACY), one("SH-GW-007"), id="SH-GW-007-from-1.33"),
        pytest.param(shoot_dict(version="1.32.9", **LEGACY), [], id="SH-GW-007-below-1.33"),
        pytest.param(shoot_dict(version="1.33", **LEGACY), one("SH-GW-007"), id="SH-GW-007-resolved-version"),
        pytest.param(shoot_dict(addons={}), one("SH-GW-008"), id="SH-GW-008-addons"),
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.35.0", kubeProxy={"mode": "IPVS"})),
            one("SH-GW-009"),
            id="SH-GW-009-ipvs-from-1.35",
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.33.2", kubeProxy={"mode": "IPVS"})), [], id="SH-GW-009-below-1.35"
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.35.0", kubeProxy={"mode": "IPVS", "enabled": False})),
            [],
            id="SH-GW-009-kube-proxy-disabled",
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes(kubeScheduler={"kubeMaxPDVols": "39"})),
            one("SH-GW-010"),
            id="SH-GW-010-kube-max-pd-vols",
        ),
        pytest.param(
            shoot_dict(secretBindingName="local", credentialsBindingName=None), one("SH-GW-011"), id="SH-GW-011"
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes(kubeAPIServer={"enableAnonymousAuthentication": False})),
            one("SH-GW-012"),
            id="SH-GW-012-anonymous-authentication",
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes(kubeAPIServer={"watchCacheSizes": {"default": 100}})),
            one("SH-GW-013"),
            id="SH-GW-013-watch-cache-default",
        ),
        pytest.param(
            shoot_dict(kubernetes=kubernetes(kubeAPIServer={"watchCacheSizes": {"resources": []}})),
            [],
            id="SH-GW-013-per-resource-sizes",
        ),
        pytest.param(
            shoot_dict(
                dns={
                    "domain": "prod.example.com",
                    "providers": [
                        {"type": "aws-route53", "primary": True},
                        {"type": "aws-route53", "secretName": "dns"},
                    ],
                }
            ),
            one("SH-GW-014"),
            id="SH-GW-014-dns-provider-secret-name",
        ),
    ],
)
def test_create(raw: dict[str, Any], expected: Triples) -> None:
    verdict = verdict_create(raw)
    assert verdict.errors == ()
    assert gw(verdict) == expected


# Where Gardener's static validation forbids what a warning names (maxEmptyBulkDelete from 1.33: SH-K8S-014; kubeProxy
# of a workerless Shoot: SH-K8S-017), the static rule denies and no warning repeats the defect; the warning itself
# is not given for these Shoots either (its own version and workerless conditions).
@pytest.mark.parametrize(
    ("raw", "denied"),
    [
        pytest.param(
            shoot_dict(kubernetes=kubernetes("1.33.2", clusterAutoscaler={"maxEmptyBulkDelete": 10})),
            [("SH-K8S-014", "spec.kubernetes.clusterAutoscaler.maxEmptyBulkDelete")],
            id="SH-GW-006-from-1.33",
        ),
        pytest.param(
            shoot_dict(
                kubernetes=kubernetes("1.35.0", kubeProxy={"mode": "IPVS"}),
                provider={"type": "local", "workers": []},
                credentialsBindingName=None,
            ),
            [("SH-K8S-017", "spec.kubernetes.kubeProxy")],
            id="SH-GW-009-workerless-defaults-to-disabled",
        ),
    ],
)
def test_create_denied_by_a_static_rule_is_not_warned(raw: dict[str, Any], denied: list[tuple[str, str]]) -> None:
    verdict = verdict_create(raw)
    assert [(f.rule.id, str(f.path)) for f in verdict.errors] == denied
    assert gw(verdict) == []
    shoot = default_shoot(Shoot.model_validate(raw, by_alias=True))
    assert gardener_warnings.warn_shoot(Effective(shoot), None, NOW, 90) == []


def test_texts_keep_gardeners_words() -> None:
    raw = shoot_dict(
        addons={},
        dns={"providers": [{"type": "aws-route53", "secretName": "a"}, {"type": "aws-route53", "secretName": "b"}]},
        kubernetes=kubernetes(
            kubeAPIServer={"watchCacheSizes": {"default": 100}}, kubeScheduler={"kubeMaxPDVols": "39"}
        ),
        secretBindingName="local",
        credentialsBindingName=None,
        **LEGACY,
    )
    assert gw_texts(verdict_create(raw)) == [
        (
            "you are setting the spec.cloudProfileName field. The field is deprecated and will be forcefully set empty "
            "starting with Kubernetes 1.34. Use the new spec.cloudProfile.name field instead."
        ),
        (
            "you are setting the spec.addons field. The field is deprecated and will be forbidden starting with "
            "Kubernetes 1.35."
        ),
        (
            "you are setting the spec.kubernetes.kubeScheduler.kubeMaxPDVols field. The field has been deprecated and "
            "is forbidden to be set starting from Kubernetes 1.35. It is no longer necessary: the CSI drivers set the "
            "values."
        ),
        (
            "spec.secretBindingName is deprecated and will be disallowed starting with Kubernetes 1.34. For migration "
            "instructions, see: https://github.com/gardener/gardener/blob/master/docs/usage/shoot-operations/"
            "secretbinding-to-credentialsbinding-migration.md"
        ),
        (
            "you are setting the spec.kubernetes.kubeAPIServer.watchCacheSizes.default field. The field has been "
            "deprecated and is forbidden to be set starting from Kubernetes 1.35. The cache size is automatically sized "
            "by the kube-apiserver."
        ),
        (
            "you are setting the spec.dns.providers[0].secretName field. The field is deprecated and is forbidden to be "
            "set starting from Kubernetes 1.35. Use spec.dns.providers[0].credentialsRef instead."
        ),
        (
            "you are setting the spec.dns.providers[1].secretName field. The field is deprecated and is forbidden to be "
            "set starting from Kubernetes 1.35. Use spec.dns.providers[1].credentialsRef instead."
        ),
    ]
    ipvs = shoot_dict(kubernetes=kubernetes("1.35.0", kubeProxy={"mode": "IPVS"}))
    assert gw_texts(verdict_create(ipvs)) == [
        (
            "you are using IPVS mode for kube-proxy. The IPVS mode is deprecated starting with Kubernetes 1.35. "
            "Please switch to iptables or nftables mode."
        )
    ]


def test_every_text_fits_the_api_servers_limit_and_keeps_gardeners_opening_words() -> None:
    raw = with_meta(
        shoot_dict(
            version="1.32.9",
            kubernetes=kubernetes(
                "1.32.9",
                kubeControllerManager={"podEvictionTimeout": "2m0s"},
                clusterAutoscaler={"maxEmptyBulkDelete": 10},
                kubeAPIServer={"enableAnonymousAuthentication": True, "watchCacheSizes": {"default": 1}},
                kubeScheduler={"kubeMaxPDVols": "39"},
            ),
            dns={"providers": [*WORKLOAD_IDENTITY_PROVIDERS, {"type": "aws-route53", "secretName": "s"}]},
            addons={},
        ),
        annotations={"gardener.cloud/operation": "rotate-etcd-encryption-key-complete"},
    )
    prepared = {"credentials": {"rotation": {"etcdEncryptionKey": {"phase": "Prepared"}}}}
    texts = gw_texts(verdict_on_reconciled(raw, {**RECONCILED_STATUS, **prepared}))
    assert [t[:40] for t in texts] == [
        "you are setting the spec.kubernetes.kube",
        "you are setting the operation annotation",
        "you are setting the spec.kubernetes.clus",
        "you are setting the spec.addons field. T",
        "you are setting the spec.kubernetes.kube",
        "you are setting the spec.kubernetes.kube",
        "you are setting the spec.kubernetes.kube",
        "you are setting the spec.dns.providers[9",
    ]
    assert max(map(len, texts)) <= MAX_WARNING_CHARS
    assert texts[1].startswith(
        "you are setting the operation annotation to rotate-etcd-encryption-key-complete. This annotation has been "
        "deprecated"
    )


# -------------------------------------------------------------------------------------- UPDATE-only warnings


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        pytest.param("rotate-etcd-encryption-key-start", one("SH-GW-005"), id="SH-GW-005-start"),
        pytest.param("rotate-etcd-encryption-key", [], id="SH-GW-005-full-rotation"),
    ],
)
def test_sh_gw_005_on_a_reconciled_shoot(operation: str, expected: Triples) -> None:
    """A rotation starts on a Shoot Gardener created and reconciled (a new Shoot has no status: it may not start one)."""
    old = shoot_dict()
    old["status"] = {"lastOperation": {"type": "Reconcile", "state": "Succeeded"}}
    new = with_meta(copy.deepcopy(old), annotations={"gardener.cloud/operation": operation})
    verdict = verdict_update(new, old)
    assert verdict.errors == ()
    assert gw(verdict) == expected


def test_sh_gw_009_switched_to_ipvs_on_update() -> None:
    new = shoot_dict(kubernetes=kubernetes(kubeProxy={"mode": "IPVS"}))
    old = shoot_dict(kubernetes=kubernetes(kubeProxy={"mode": "IPTables"}))
    assert gw(verdict_update(new, old)) == one("SH-GW-009")
    assert gw_texts(verdict_update(new, old))[0].startswith("you have switched to IPVS mode for kube-proxy.")
    assert gw(verdict_update(new, new)) == []


ALL_ROTATED_RECENTLY: Final = {
    name: {"lastInitiationTime": RECENTLY}
    for name in ("certificateAuthorities", "etcdEncryptionKey", "observability", "serviceAccountKey", "sshKeypair")
}


@pytest.mark.parametrize(
    ("created", "rotation", "purpose", "expected"),
    [
        pytest.param(LONG_AGO, None, None, one("SH-GW-001"), id="SH-GW-001-never-rotated"),
        pytest.param(RECENTLY, None, None, [], id="SH-GW-001-young-shoot"),
        pytest.param(None, None, None, [], id="SH-GW-001-age-unknown"),
        pytest.param(LONG_AGO, ALL_ROTATED_RECENTLY, None, [], id="SH-GW-002-all-rotated-recently"),
        pytest.param(
            LONG_AGO,
            {**ALL_ROTATED_RECENTLY, "certificateAuthorities": {"lastInitiationTime": LONG_AGO}},
            None,
            one("SH-GW-002"),
            id="SH-GW-002-ca-due",
        ),
        pytest.param(
            LONG_AGO,
            {"certificateAuthorities": {"lastInitiationTime": RECENTLY}},
            None,
            one("SH-GW-002") * 4,
            id="SH-GW-002-never-rotated-credentials",
        ),
        pytest.param(
            LONG_AGO,
            {"certificateAuthorities": {"lastInitiationTime": RECENTLY}},
            "testing",
            one("SH-GW-002") * 3,
            id="SH-GW-002-testing-skips-observability",
        ),
    ],
)
def test_due_rotations(
    created: str | None, rotation: dict[str, Any] | None, purpose: str | None, expected: Triples
) -> None:
    raw = with_status(shoot_dict(purpose=purpose) if purpose else shoot_dict(), rotation)
    if created is not None:
        raw["metadata"]["creationTimestamp"] = created
    assert gw(verdict_update(raw, raw)) == expected
    assert gw(verdict_create(raw)) == []  # Gardener's rotation warnings are for UPDATE only


def test_sh_gw_002_texts_and_ssh_access() -> None:
    raw = with_meta(
        with_status(shoot_dict(), {"observability": {"lastInitiationTime": RECENTLY}}), creationTimestamp=LONG_AGO
    )
    assert gw_texts(verdict_update(raw, raw)) == [
        f"you should consider rotating the certificate authorities, see {ROTATION_DOC}#certificate-authorities for details",
        f"you should consider rotating the ETCD encryption key, see {ROTATION_DOC}#etcd-encryption-key for details",
        (
            "you should consider rotating the ServiceAccount token signing key, see "
            f"{ROTATION_DOC}#serviceaccount-token-signing-key for details"
        ),
        f"you should consider rotating the SSH keypair, see {ROTATION_DOC}#ssh-key-pair-for-worker-nodes for details",
    ]
    no_ssh = with_meta(
        with_status(
            shoot_dict(
                provider={"type": "local", "workers": [pool()], "workersSettings": {"sshAccess": {"enabled": False}}}
            ),
            {"observability": {"lastInitiationTime": RECENTLY}},
        ),
        creationTimestamp=LONG_AGO,
    )
    assert len(gw(verdict_update(no_ssh, no_ssh))) == 3
    never = with_meta(with_status(shoot_dict(), None), creationTimestamp=LONG_AGO)
    assert gw_texts(verdict_update(never, never)) == [
        f"you should consider rotating the shoot credentials, see {ROTATION_DOC}#gardener-provided-credentials for details"
    ]


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param({"lastInitiationFinishedTime": "2026-10-01T00:00:00Z"}, one("SH-GW-003"), id="SH-GW-003-overdue"),
        pytest.param({"lastInitiationFinishedTime": "2026-11-01T00:00:00Z"}, [], id="SH-GW-003-within-a-third"),
        pytest.param(
            {
                "lastInitiationFinishedTime": "2026-10-01T00:00:00Z",
                "lastCompletionTriggeredTime": "2026-10-02T00:00:00Z",
            },
            [],
            id="SH-GW-003-completion-triggered",
        ),
        pytest.param({"lastInitiationTime": "2026-10-01T00:00:00Z"}, [], id="SH-GW-003-not-prepared"),
    ],
)
def test_sh_gw_003(status: dict[str, Any], expected: Triples) -> None:
    raw = with_status(shoot_dict(), {"serviceAccountKey": status})  # no creationTimestamp: 001/002 stay quiet
    assert gw(verdict_update(raw, raw)) == expected


def test_sh_gw_003_text_and_interval() -> None:
    raw = with_status(shoot_dict(), {"etcdEncryptionKey": {"lastInitiationFinishedTime": "2026-11-10T00:00:00Z"}})
    assert gw_texts(verdict_update(raw, raw, settings=Settings(credentials_rotation_interval_days=30))) == [
        "the ETCD encryption key rotation initiation was finished more than 240h0m0s ago and should be completed"
    ]
    assert gw(verdict_update(raw, raw)) == []  # 90 days: a third is 30 days


def test_go_duration() -> None:
    assert [go_duration(s) for s in (0, 45, 90, 3600, 2592000)] == ["0s", "45s", "1m30s", "1h0m0s", "720h0m0s"]


# ------------------------------------------------------------------------------------------------- timing


def test_not_given_when_static_validation_denies() -> None:
    """Gardener computes its warnings only after static validation passed: SH-VER-004 (addons from 1.35) denies."""
    verdict = verdict_create(shoot_dict(version="1.35.0", addons={}))
    assert [f.rule.id for f in verdict.errors] == ["SH-VER-004"]
    assert gw(verdict) == []


def test_given_when_the_profile_denies() -> None:
    """A denial against the profile (admission, after Gardener's warnings) keeps them."""
    verdict = verdict_create(shoot_dict(pool(zones=[]), addons={}, region="eu-9"))
    assert [f.rule.id for f in verdict.errors] == ["SH-ADM-REG-001"]
    assert gw(verdict) == one("SH-GW-008")


def test_unchanged_update_still_warns() -> None:
    raw = shoot_dict(addons={})
    assert gw(verdict_update(raw, raw)) == one("SH-GW-008")


def test_in_the_admission_review_and_the_cli(tmp_path: Path) -> None:
    raw = shoot_dict(addons={})
    out = judge(review_bytes(raw), view=VIEW, settings=Settings(), now=NOW)
    assert out.allowed
    assert out.response["warnings"] == [
        (
            "you are setting the spec.addons field. The field is deprecated and will be forbidden starting with "
            "Kubernetes 1.35."
        )
    ]
    assert "SH-GW-008" in out.rule_ids
    profile = tmp_path / "profile.yaml"
    profile.write_text(yaml.safe_dump(PROFILE))
    shoot = tmp_path / "shoot.yaml"
    shoot.write_text(yaml.safe_dump(raw))
    text = io.StringIO()
    assert main(["review", str(shoot), "--context", str(profile), "--now", "2026-11-21T12:00:00Z"], out=text) == 0
    assert text.getvalue().splitlines() == [
        "ALLOWED Shoot/garden-dev/crazy-botany",
        (
            "  Warning: you are setting the spec.addons field. The field is deprecated and will be forbidden starting "
            "with Kubernetes 1.35."
        ),
    ]
    data = io.StringIO()
    main(["review", str(shoot), "--context", str(profile), "--output", "json"], out=data)
    assert json.loads(data.getvalue())[0]["response"]["warnings"][0].startswith("you are setting the spec.addons")


def test_rules_are_warnings() -> None:
    assert {r.mode.value for r in gardener_warnings.RULES} == {"warn"}
    assert [r.id for r in gardener_warnings.RULES] == [f"SH-GW-{n:03d}" for n in range(1, 15)]


def test_in_the_audit_report() -> None:
    """`audit` judges a stored Shoot re-applied: Gardener's warnings are among what it reports."""
    shoot = shoot_dict(addons={})
    report = audit_objects([PROFILE, shoot], view=VIEW, settings=Settings(), now=NOW)
    [entry] = report.by_rule()["SH-GW-008"]
    assert (entry.mode, entry.when, entry.object_ref) == ("warn", "re-applied", "Shoot/garden-dev/crazy-botany")
    assert entry.message.startswith("you are setting the spec.addons field.")
