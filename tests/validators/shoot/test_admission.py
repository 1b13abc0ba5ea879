"""Shoots end to end: AdmissionReview in, response out (`webhook.judging.judge.judge`), the CLI, and the real manifests.

Real Shoots (shared fixtures/real, see SOURCES.md there) are judged against a CloudProfile that makes sense for
them: provider-local Shoots against Gardener's current provider-local profile (dev-setup). The others reference
profiles that exist nowhere in the fixtures (regiocloud, equinix-metal with other versions, aws, gcp) or none
(the gardenadm Shoot, the test-framework template); re-applied unchanged they pass immediately, as in Gardener,
so the missing profile is never reported for them.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Final

import pytest

from tests.builders import NOW, real_fixtures_of, real_path, requires_real_fixtures, review, review_bytes
from tests.validators.shoot.cases import PROFILE, VIEW, W0, UnsyncedView, image_of, pool, shoot_dict
from webhook.cli import main
from webhook.cluster.static import StaticView
from webhook.judging.judge import Outcome, judge
from webhook.offline.documents import read_objects
from webhook.settings import ClusterSettings, Settings

LOCAL_PROFILE: Final = "gardener__gardener__dev-setup_gardenconfig_components_cloudprofile_cloudprofile.yaml"


def local_view() -> StaticView:
    """Gardener's provider-local CloudProfile (dev-setup) as the only cluster object; skips without the corpus."""
    path = real_path(LOCAL_PROFILE)
    return StaticView.from_objects(read_objects(path), source=str(path))


def outcome(body: bytes, *, view: StaticView = VIEW, settings: Settings | None = None) -> Outcome:
    return judge(body, view=view, settings=settings or Settings(), now=NOW)


def test_static_denial_is_422() -> None:
    out = outcome(review_bytes(shoot_dict(pool(kubernetes={"version": "1.29.14"}))))
    assert (out.allowed, out.code) == (False, 422)
    assert out.response["status"]["reason"] == "Invalid"
    assert out.messages == (
        (
            f"{W0}.kubernetes.version: Forbidden: worker group kubernetes version must be at most three minor versions behind "
            'control plane version (Kubernetes version skew policy): worker "1.29.14", control plane "1.33.2"'
        ),
    )


def test_issue_13_worker_defects_are_denied_with_gardeners_messages() -> None:
    """The pools the issue names (same name twice, a 16-character name, maximum below minimum, no rolling-update
    budget, a system-component pool with fewer nodes than zones) are 422 with Gardener's field errors."""
    raw = shoot_dict(
        pool("pool-a", minimum=3, maximum=2, maxSurge=0, maxUnavailable=0),
        pool("pool-a"),
        pool("a-very-long-name", minimum=1, maximum=1, zones=["eu-1a", "eu-1b"]),
    )
    out = outcome(review_bytes(raw))
    assert (out.allowed, out.code) == (False, 422)
    assert out.messages == (
        f"{W0}.maximum: Forbidden: maximum value must not be less than minimum value",
        f"{W0}.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0",
        "spec.provider.workers[2].name: Too long: may not be more than 15 bytes",
        'spec.provider.workers[1].name: Duplicate value: "pool-a"',
        (
            "spec.provider.workers[2].maximum: Forbidden: maximum node count should be greater than or equal to the "
            "number of zones specified for this pool"
        ),
    )
    causes = out.response["status"]["details"]["causes"]
    assert [c["reason"] for c in causes][2] == "FieldValueTooLong"


def test_issue_13_kube_reserved_over_capacity_through_the_cli(tmp_path: Path) -> None:
    raw = shoot_dict(pool(kubernetes={"kubelet": {"kubeReserved": {"memory": "8Gi"}}}))
    (tmp_path / "shoot.json").write_text(json.dumps(raw), encoding="utf-8")
    (tmp_path / "profile.json").write_text(json.dumps(PROFILE), encoding="utf-8")
    out = io.StringIO()
    code = main(["review", str(tmp_path / "shoot.json"), "--context", str(tmp_path / "profile.json"),
                 "--now", "2026-11-21T12:00:00Z"], out=out)  # fmt: skip
    assert code == 1
    assert out.getvalue().splitlines()[:2] == [
        "DENIED Shoot/garden-dev/crazy-botany",
        (
            f'  {W0}.kubernetes.kubelet: Invalid value: "kubeReserved memory: 8Gi": total reserved memory (kubeReserved) '
            "cannot be more than the Node's memory capacity '8Gi'"
        ),
    ]


def test_profile_denial_is_403() -> None:
    out = outcome(review_bytes(shoot_dict(version="1.32.5")))
    assert (out.allowed, out.code) == (False, 403)
    assert out.response["status"]["reason"] == "Forbidden"
    assert out.response["auditAnnotations"] == {"rules": "SH-ADM-K8S-001"}


def test_static_and_profile_findings_together_answer_403_with_both() -> None:
    out = outcome(review_bytes(shoot_dict(pool(kubernetes={"version": "1.28.15"}), version="1.32.5")))
    assert out.code == 403
    assert [c["field"] for c in out.response["status"]["details"]["causes"]] == [
        f"{W0}.kubernetes.version",
        "spec.kubernetes.version",
    ]


def test_allowed_with_resolution_warnings_within_120_characters() -> None:
    raw = shoot_dict(
        pool(machine={"type": "m5.large", "image": {"name": "gardenlinux", "version": "1443"}}), version="1.33"
    )
    out = outcome(review_bytes(raw))
    assert out.allowed
    assert out.warnings == (
        'spec.kubernetes.version: "1.33" resolves to "1.33.2"',
        f'{W0}.machine.image: version "1443" resolves to "gardenlinux:1443.10.0"',
        f'{W0}.machine.image.version: "1443.10.0" expires on 2026-12-01, then force update to "1592.2.0"',
    )
    assert all(len(w) <= 120 for w in out.warnings)


def test_unchanged_update_passes_even_without_its_profile() -> None:
    raw = shoot_dict(cloudProfile={"name": "gone"}, version="1.20.0", secretBindingName="both")
    out = outcome(review_bytes(raw, copy.deepcopy(raw)))
    # Only the advisory warnings: gardener-apiserver's own on the stored spec (which its static rules, not judged
    # again on an unchanged spec, would refuse: secretBindingName beside credentialsBindingName).
    assert out.allowed and out.rule_ids == ("SH-GW-011",), out.warnings
    changed = copy.deepcopy(raw)
    changed["metadata"]["labels"] = {"team": "a"}
    out = outcome(review_bytes(changed, raw))
    assert not out.allowed and out.code == 403  # now judged: the profile is missing


def test_unchanged_unmodelled_fields_count_as_changes() -> None:
    raw = shoot_dict(pool(machine=image_of("gardenlinux", "1312.4.0")))
    stored = copy.deepcopy(raw)
    assert outcome(review_bytes(raw, stored)).allowed
    # Not modelled, still a change: the kubelet constraint is judged. (The networking type this test changed before is
    # modelled now, and immutable: SH-NET-004.)
    raw["spec"]["provider"]["infrastructureConfig"] = {"kind": "InfrastructureConfig"}
    out = outcome(review_bytes(raw, stored))
    assert not out.allowed and out.rule_ids == ("SH-ADM-KUB-001",)


def test_preexisting_static_defects_are_ratcheted_on_update() -> None:
    old = shoot_dict(credentialsBindingName=None)  # SH-VER-003: stored before the rule existed
    new = copy.deepcopy(old)
    new["spec"]["provider"]["workers"][0]["maximum"] = 3
    out = outcome(review_bytes(new, old))
    assert out.allowed
    assert out.warnings == (
        "unchanged, not enforced: spec.secretBindingName: Required value: must be set when credentialsBindingName is not",
    )


def test_delete_and_subresources_are_not_judged() -> None:
    expired = shoot_dict(version="1.32.5", cloudProfile={"name": "gone"})
    assert outcome(review_bytes(None, expired, operation="DELETE")).allowed
    body = review(shoot_dict(version="1.32.5"), shoot_dict(version="1.31.9"))
    body["request"]["subResource"] = "status"
    assert outcome(json.dumps(body).encode()).allowed


def test_cluster_state_unknown_follows_fail_closed() -> None:
    body = review_bytes(shoot_dict(version="1.33"))
    closed = outcome(body, view=UnsyncedView())
    assert (closed.allowed, closed.code, closed.rule_ids) == (False, 403, ("CLUSTER-001",))
    opened = outcome(body, view=UnsyncedView(), settings=Settings(cluster=ClusterSettings(fail_closed=False)))
    assert opened.allowed and opened.warnings[0].startswith(
        "spec.cloudProfile.name: Forbidden: cluster state not yet known"
    )


# ------------------------------------------------------------------------------------------------- real Shoots


REAL_SHOOTS: Final = real_fixtures_of("Shoot")


@requires_real_fixtures
def test_all_real_shoots_are_covered() -> None:
    assert len(REAL_SHOOTS) == 17


@pytest.mark.parametrize("path", REAL_SHOOTS, ids=lambda p: p.name[:70])
def test_real_shoot_reapplied_unchanged_is_allowed(path: Path) -> None:
    """Every real Shoot, templates included, passes when re-applied unchanged (Gardener's early exit).

    Templates: `shoot-for-seed.yaml` (hcloud CI) carries `REPLACE_ME` as name and Kubernetes version, and
    `shoot-template.yaml` (gardenerless setup) `NAMEPLACEHOLDER`; neither is a valid Shoot to create (the version
    is not a semantic version, the names are no DNS labels), but a stored object is not judged again unchanged.
    """
    (raw,) = read_objects(path)
    out = judge(review_bytes(raw, copy.deepcopy(raw)), view=local_view(), settings=Settings(), now=NOW)
    assert out.allowed, out.messages
    # Our own warnings fit 120 characters; Gardener's (SH-GW-*, in its words) the API server's 256.
    assert all(len(text) <= 120 for rule, _, text in out.entries if not rule.startswith("SH-GW-"))
    assert all(len(text) <= 256 for text in out.full_warnings)


@pytest.mark.parametrize("path", REAL_SHOOTS, ids=lambda p: p.name[:70])
def test_real_shoot_through_the_cli(path: Path) -> None:
    # The rules only: what strict decoding finds in the corpus is tests/test_cli_review_strict.py's.
    out = io.StringIO()
    code = main(["review", "--field-validation=Ignore", "--operation", "UPDATE", "--old", str(path), str(path),
                 "--context", str(real_path(LOCAL_PROFILE)), "--now", "2026-11-21T12:00:00Z"], out=out)  # fmt: skip
    assert code == 0, out.getvalue()
    assert out.getvalue().startswith("ALLOWED Shoot/")


# What CREATE says about the provider-local Shoots against today's provider-local profile (Kubernetes 1.32-1.36):
# those that still use `secretBindingName` resolve to Kubernetes 1.36.0, where Gardener forbids that field.
CREATE_LOCAL: Final = {
    "gardener__gardener-extension-auditing__example_local-setup_shoot.yaml": (),
    "gardener__gardener-extension-registry-cache__example_shoot-registry-cache.yaml": (),
    "gardener__gardener-extension-shoot-oidc-service__example_local_01-shoot-workerless.yaml": (),
    "gardener__gardener-extension-shoot-oidc-service__example_local_01-shoot.yaml": ("SH-VER-003",),
    "gardener__gardener-extension-shoot-traefik__examples_shoot.yaml": (),
    "gardener__gardener__example_provider-local_managedseeds_shoot-managedseed-ipv6.yaml": (),
    "gardener__gardener__example_provider-local_managedseeds_shoot-managedseed.yaml": (),
    "gardener__gardener__example_provider-local_shoot-ipv6.yaml": (),
    "gardener__gardener__example_provider-local_shoot-workerless.yaml": (),
    "gardener__gardener__example_provider-local_shoot.yaml": (),
    "stackitcloud__gardener-extension-shoot-flux__example_shoot.yaml": ("SH-VER-003",),
}


@pytest.mark.parametrize(
    ("name", "rules"), sorted(CREATE_LOCAL.items()), ids=lambda v: v[:60] if isinstance(v, str) else ""
)
def test_provider_local_shoots_on_create(name: str, rules: tuple[str, ...]) -> None:
    (raw,) = read_objects(real_path(name))
    out = judge(review_bytes(raw), view=local_view(), settings=Settings(), now=NOW)
    assert tuple(f for f in out.rule_ids if not f.startswith("SH-WARN")) == rules
    assert out.allowed == (not rules)
    if "version" not in raw["spec"].get("kubernetes", {}):
        assert 'spec.kubernetes.version: not set, resolves to "1.36.0"' in out.warnings


def test_registry_cache_shoot_resolves_only_its_image() -> None:
    (raw,) = read_objects(real_path("gardener__gardener-extension-registry-cache__example_shoot-registry-cache.yaml"))
    out = judge(review_bytes(raw), view=local_view(), settings=Settings(), now=NOW)
    assert out.warnings == (f'{W0}.machine.image: not set, resolves to "local:1.0.0"',)


# ------------------------------------------------------------------------- spec sections through the CLI


def _review(tmp_path: Path, raw: dict[str, object]) -> tuple[int, str]:
    profile = tmp_path / "profile.yaml"
    profile.write_text(json.dumps(PROFILE))
    shoot_file = tmp_path / "shoot.yaml"
    shoot_file.write_text(json.dumps(raw))
    out = io.StringIO()
    code = main(["review", str(shoot_file), "--context", str(profile), "--now", "2026-11-21T12:00:00Z"], out=out)
    return code, out.getvalue()


def test_kubernetes_null_is_read_as_empty(tmp_path: Path) -> None:
    """`spec.kubernetes: null` is Go's zero value (Gardener defaults it): the version resolves like an empty one."""
    raw = shoot_dict(version=None)
    raw["spec"]["kubernetes"] = None
    code, text = _review(tmp_path, raw)
    assert code == 0, text
    assert text.splitlines()[0] == "ALLOWED Shoot/garden-dev/crazy-botany"
    assert 'spec.kubernetes.version: not set, resolves to "1.34.2"' in text


def test_durations_decode_as_go_reads_them() -> None:
    """A metav1.Duration that Go's time.ParseDuration refuses is a decoding error, as in the API server."""
    raw = shoot_dict()
    raw["spec"]["kubernetes"]["kubeAPIServer"] = {"eventTTL": "1d"}
    out = outcome(review_bytes(raw))
    assert (out.allowed, out.rule_ids) == (False, ("OBJ-DECODE-001",))
    assert out.messages == (
        'spec.kubernetes.kubeAPIServer.eventTTL: Invalid value: "1d": must be a duration such as "90s" or "1h30m"',
    )


def test_time_window_and_schedules_through_the_cli(tmp_path: Path) -> None:
    raw = shoot_dict(
        maintenance={"timeWindow": {"begin": "220000+0000", "end": "050000+0000"}},
        hibernation={"schedules": [{"start": "0 20 * * 1-5", "location": "Europe/Berlln"}]},
    )
    code, text = _review(tmp_path, raw)
    assert code == 1
    assert text.splitlines()[1:] == [
        '  spec.maintenance.timeWindow: Invalid value: "7h0m0s": time window must not be greater than 6h0m0s',
        (
            '  spec.hibernation.schedules[0].location: Invalid value: "Europe/Berlln": not a valid location: unknown time '
            "zone Europe/Berlln"
        ),
    ]
