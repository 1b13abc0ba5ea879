"""admission.judge: the response contract of docs/design.md §3, ratcheting on UPDATE, policy."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.builders import (
    EMPTY_VIEW,
    NOW,
    cloud_profile_dict,
    image,
    namespaced_cloud_profile_dict,
    review,
    review_bytes,
    shoot_dict,
    versions,
)
from webhook.admission.rendering import MAX_DENIAL_CAUSES, MAX_DENIAL_LINE_CHARS, MAX_WARNING_CHARS, sanitize_warnings
from webhook.admission.wire import BadReview, Envelope, parse_review
from webhook.caching.caches import Caches
from webhook.judging import judge as admission
from webhook.judging.judge import judge, kinds_to_confirm
from webhook.settings import Exemptions, Settings
from webhook.validators.cloudprofile.spec import CP_REG_001


def outcome(body: bytes, settings: Settings | None = None) -> Any:
    return judge(body, view=EMPTY_VIEW, settings=settings or Settings(), now=NOW)


def bad_profile() -> dict[str, Any]:
    raw = cloud_profile_dict(kubernetes=versions("1.33.2", "1.32.5", "1.33.2"))
    raw["spec"]["machineImages"][0]["updateStrategy"] = "sideways"
    return raw


def test_denial_renders_every_finding_as_a_field_error() -> None:
    out = outcome(review_bytes(bad_profile(), uid="abc"))
    response = out.response
    assert response["uid"] == "abc" and response["allowed"] is False
    status = response["status"]
    assert (status["code"], status["reason"], status["status"]) == (422, "Invalid", "Failure")
    assert status["message"] == (
        '\n* spec.kubernetes.versions[2].version: Duplicate value: "1.33.2"'
        '\n* spec.machineImages[0].updateStrategy: Unsupported value: "sideways": supported values: "major", "minor", "patch"'
    )
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueDuplicate",
            "message": 'Duplicate value: "1.33.2"',
            "field": "spec.kubernetes.versions[2].version",
        },
        {
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "sideways": supported values: "major", "minor", "patch"',
            "field": "spec.machineImages[0].updateStrategy",
        },
    ]
    assert response["auditAnnotations"] == {"rules": "CP-K8S-003,CP-MI-005"}
    assert "patch" not in response and "patchType" not in response


def test_dry_run_is_judged_like_a_real_request() -> None:
    real = outcome(review_bytes(bad_profile(), dry_run=False)).response
    dry = outcome(review_bytes(bad_profile(), dry_run=True)).response
    assert dry == real


def test_unchanged_update_ratchets_preexisting_defects_into_warnings() -> None:
    raw = cloud_profile_dict(machineTypes=[])
    out = outcome(review_bytes(raw, raw))
    assert out.allowed
    assert out.warnings == (
        "unchanged, not enforced: spec.machineTypes: Required value: must provide at least one machine type",
    )


def test_new_defects_are_denied_next_to_old_ones() -> None:
    old = cloud_profile_dict(machineTypes=[])
    new = cloud_profile_dict(machineTypes=[], regions=[])
    out = outcome(review_bytes(new, old))
    assert not out.allowed
    assert out.messages == ("spec.regions: Required value: must provide at least one region",)


def test_shape_errors_name_the_field() -> None:
    raw = cloud_profile_dict(kubernetes={"versions": "1.30.1"})
    raw["spec"]["machineTypes"][0]["usable"] = "yes"
    out = outcome(review_bytes(raw))
    assert out.code == 422
    assert out.messages == (
        'spec.kubernetes.versions: Invalid value: "1.30.1": must be a list',
        'spec.machineTypes[0].usable: Invalid value: "yes": must be a boolean',
    )


def test_date_only_expiration_is_a_shape_error() -> None:
    raw = cloud_profile_dict(kubernetes=versions("1.33.2", {"version": "1.32.5", "expirationDate": "2027-01-01"}))
    assert outcome(review_bytes(raw)).messages == (
        'spec.kubernetes.versions[1].expirationDate: Invalid value: "2027-01-01": must be an RFC 3339 date-time',
    )


def test_exempt_users_get_warnings_instead_of_denials() -> None:
    settings = Settings(exemptions=Exemptions(groups=("gardener-operators",)))
    out = outcome(review_bytes(bad_profile(), groups=("gardener-operators",)), settings)
    assert out.allowed and len(out.warnings) == 2
    assert not outcome(review_bytes(bad_profile(), groups=("devs",)), settings).allowed


def test_unknown_kinds_and_legacy_groups_are_allowed() -> None:
    legacy = {**cloud_profile_dict(type=""), "apiVersion": "garden.sapcloud.io/v1beta1"}
    assert outcome(review_bytes(legacy)).allowed
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "y"}}
    assert outcome(review_bytes(other)).allowed
    envelope = parse_review(review_bytes(other)).envelope
    assert admission.allowed_unjudged(envelope) == admission._outcome(envelope, admission.Verdict(), (), None)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"not json", "not valid JSON"),
        (b"[]", "not an AdmissionReview"),
        (json.dumps({**review(cloud_profile_dict()), "kind": "Review"}).encode(), "AdmissionReview"),
        (
            json.dumps({**review(cloud_profile_dict()), "apiVersion": "admission.k8s.io/v1beta1"}).encode(),
            "admission.k8s.io/v1",
        ),
        (json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}).encode(), "request"),
    ],
)
def test_unusable_reviews_raise(body: bytes, reason: str) -> None:
    with pytest.raises(BadReview, match=reason):
        outcome(body)


def test_missing_uid_and_missing_object_raise() -> None:
    no_uid = review(cloud_profile_dict())
    del no_uid["request"]["uid"]
    with pytest.raises(BadReview, match="uid"):
        outcome(json.dumps(no_uid).encode())
    no_object = review(cloud_profile_dict())
    no_object["request"]["object"] = None
    with pytest.raises(BadReview, match="object"):
        outcome(json.dumps(no_object).encode())
    not_object = review(cloud_profile_dict())
    not_object["request"]["object"] = [1, 2]
    with pytest.raises(BadReview, match="JSON object"):
        outcome(json.dumps(not_object).encode())


def test_warnings_are_sanitised() -> None:
    texts = ["a\x1b[31mred\x00", "a [31mred", "x" * 300, *[f"w{i}" for i in range(30)], "a [31mred"]
    out = sanitize_warnings(texts)
    assert out[0] == "a [31mred"
    assert len(out[1]) == MAX_WARNING_CHARS and out[1] == "x" * (MAX_WARNING_CHARS - 1) + "…"  # one long word: cut
    assert len(out) == 20 and out[-1] == "13 more warnings not shown"
    assert all(c.isprintable() for w in out for c in w)


def test_many_warnings_from_a_profile_are_capped() -> None:
    raw = cloud_profile_dict(
        kubernetes=versions(
            "1.40.0",
            *[
                {"version": f"1.{m}.0", "classification": "deprecated", "expirationDate": "2026-12-01T00:00:00Z"}
                for m in range(10, 39, 2)
            ],
        ),
        machineImages=[image("gl", "1.0.0")],
    )
    out = outcome(review_bytes(raw))
    assert out.allowed and len(out.warnings) == 20 and all(len(w) <= MAX_WARNING_CHARS for w in out.warnings)


def test_rules_escalated_by_config_are_ratcheted_too() -> None:
    from webhook.domain.field import Mode

    gap = cloud_profile_dict(kubernetes=versions("1.35.0", "1.33.3"))
    settings = Settings(rules={"CP-WARN-003": Mode.DENY})
    assert not outcome(review_bytes(gap), settings).allowed
    reapplied = outcome(review_bytes(gap, gap), settings)
    assert reapplied.allowed and reapplied.warnings[0].startswith(
        "unchanged, not enforced: spec.kubernetes.versions: Forbidden"
    )


@CP_REG_001.check
def _explode(*_: Any) -> Any:
    """A rule's check that crashes (module-level, as every rule's check is)."""
    raise RuntimeError("boom")


def test_a_crashing_validator_is_a_logged_500_denial(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from webhook.admission.kinds import KindValidator
    from webhook.judging import judge as admission
    from webhook.models.cloudprofile import CloudProfile

    explode = _explode
    broken = KindValidator("core.gardener.cloud", "CloudProfile", CloudProfile, (), create=explode, update=explode)
    monkeypatch.setattr(admission, "REGISTRY", {("core.gardener.cloud", "CloudProfile"): broken})
    out = outcome(review_bytes(cloud_profile_dict(), uid="crash-1"))
    status = out.response["status"]
    assert (out.allowed, status["code"], status["reason"]) == (False, 500, "InternalError")
    assert (
        "CP-REG-001" in status["message"] and "boom" not in status["message"] and "Traceback" not in status["message"]
    )
    assert any(getattr(r, "uid", None) == "crash-1" and r.exc_info for r in caplog.records)


def test_a_denial_is_bounded_while_messages_keep_every_finding() -> None:
    """Bounded denials: 600 invalid entries give 100 causes and a message ending in "… and 500 more findings"."""
    raw = cloud_profile_dict(kubernetes=versions(*(f"1.{i}" for i in range(600))))
    outcome = judge(review_bytes(raw), view=EMPTY_VIEW, settings=Settings(), now=NOW)
    status = outcome.response["status"]
    assert len(outcome.messages) == 600
    assert len(status["details"]["causes"]) == MAX_DENIAL_CAUSES
    assert status["message"].endswith("\n… and 500 more findings")
    assert status["message"].count("\n* ") == MAX_DENIAL_CAUSES
    assert status["details"]["causes"][0]["field"] == "spec.kubernetes.versions[0]"


def test_a_huge_value_is_elided_in_the_denial_not_cut() -> None:
    huge = "x" * 100_000
    raw = cloud_profile_dict(type=huge)
    raw["spec"]["machineImages"][0]["updateStrategy"] = huge
    outcome = judge(review_bytes(raw), view=EMPTY_VIEW, settings=Settings(), now=NOW)
    status = outcome.response["status"]
    assert len(json.dumps(status)) < 8 * MAX_DENIAL_LINE_CHARS
    (cause,) = [c for c in status["details"]["causes"] if c["field"] == "spec.machineImages[0].updateStrategy"]
    assert cause["message"].startswith('Unsupported value: "<value of 100000 characters>": supported values: ')
    assert any(huge in m for m in outcome.messages)


def test_parse_review_reads_the_envelope_and_judge_hands_it_over_before_judging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webhook.admission.kinds import UserInfo
    from webhook.judging import judge as admission

    body = review_bytes(bad_profile(), uid="env-1", dry_run=True, username="bob", groups=("ops",))
    envelope = parse_review(body).envelope
    assert envelope == Envelope(
        uid="env-1",
        group="core.gardener.cloud",
        kind="CloudProfile",
        operation="CREATE",
        name="local",
        namespace="",
        user=UserInfo("bob", ("ops",)),
        dry_run=True,
    )

    parsed = parse_review(body)
    denied = judge(body, view=EMPTY_VIEW, settings=Settings(), now=NOW, review=parsed)
    assert (denied.code, denied.envelope) == (422, envelope)

    def parsed_again(*args: Any) -> Any:
        raise AssertionError("a review parsed by the caller is not parsed again")

    monkeypatch.setattr(admission, "parse_review", parsed_again)
    assert judge(body, view=EMPTY_VIEW, settings=Settings(), now=NOW, review=parsed).envelope == envelope


# -------------------------------------------------------------------------------------- kinds to confirm

REFERRERS = ("NamespacedCloudProfile", "Shoot")
DELETING = "2026-11-20T00:00:00Z"


def _deleting(raw: dict[str, Any]) -> dict[str, Any]:
    raw["metadata"]["deletionTimestamp"] = DELETING
    return raw


def _subresource(body: dict[str, Any]) -> dict[str, Any]:
    body["request"]["subResource"] = "status"
    return body


def _ncp(*k8s: str) -> dict[str, Any]:
    overrides = {"kubernetes": {"versions": [{"version": v, "expirationDate": "2027-01-01T00:00:00Z"} for v in k8s]}}
    return namespaced_cloud_profile_dict(**overrides) if k8s else namespaced_cloud_profile_dict()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(review(cloud_profile_dict(kubernetes=versions("1.33.2")), cloud_profile_dict()), REFERRERS,
                     id="cp-update-removes-kubernetes-version"),
        pytest.param(review(cloud_profile_dict(machineImages=[image("gardenlinux", "1592.2.0")]), cloud_profile_dict()),
                     REFERRERS, id="cp-update-replaces-image-version"),
        pytest.param(review(cloud_profile_dict(machineImages=[image("ubuntu", "24.4.0")]), cloud_profile_dict()),
                     REFERRERS, id="cp-update-removes-image"),
        pytest.param(review(cloud_profile_dict(limits={"maxNodesTotal": 10}), cloud_profile_dict()), REFERRERS,
                     id="cp-update-changes-limits"),
        pytest.param(review(cloud_profile_dict(kubernetes=versions("1.33.2", "1.32.5", "1.31.9")),
                            cloud_profile_dict()), (), id="cp-update-adds-version"),
        pytest.param(review(cloud_profile_dict(machineImages=[image("gardenlinux", "1592.1.0"),
                                                              image("ubuntu", "24.4.0")]), cloud_profile_dict()),
                     (), id="cp-update-adds-image"),
        pytest.param(review(cloud_profile_dict(type="aws"), cloud_profile_dict()), (), id="cp-update-other-field"),
        pytest.param(review(cloud_profile_dict(), cloud_profile_dict()), (), id="cp-reapply"),
        pytest.param(review(cloud_profile_dict()), (), id="cp-create"),
        pytest.param(review(None, cloud_profile_dict(), operation="DELETE"), REFERRERS, id="cp-delete"),
        pytest.param(review(None, _deleting(cloud_profile_dict()), operation="DELETE"), (),
                     id="cp-delete-already-being-deleted"),
        pytest.param(review(_deleting(cloud_profile_dict(kubernetes=versions("1.33.2"))),
                            _deleting(cloud_profile_dict())), (), id="cp-update-being-deleted"),
        pytest.param(review(cloud_profile_dict(kubernetes={"versions": "1.33.2"}), cloud_profile_dict()), (),
                     id="cp-update-undecodable"),
        pytest.param(_subresource(review(cloud_profile_dict(kubernetes=versions("1.33.2")), cloud_profile_dict())), (),
                     id="cp-status-subresource"),
        pytest.param(review(_ncp(), _ncp("1.30.0")), ("CloudProfile", "Shoot"), id="ncp-update-removes-override"),
        pytest.param(review(_ncp("1.30.0"), _ncp()), (), id="ncp-update-adds-override"),
        pytest.param(review(None, _ncp(), operation="DELETE"), ("Shoot",), id="ncp-delete"),
        pytest.param(review(shoot_dict(), shoot_dict()), (), id="shoot-update"),
        pytest.param(review(None, shoot_dict(), operation="DELETE"), (), id="shoot-delete"),
    ],
)  # fmt: skip
def test_kinds_to_confirm_are_those_a_removal_reads(body: dict[str, Any], expected: tuple[str, ...]) -> None:
    assert kinds_to_confirm(parse_review(json.dumps(body).encode())) == expected


def test_kinds_to_confirm_decodes_once_for_judging(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server asks first, then judges the same parsed review: the objects are decoded once, the answer is the
    same as judging the body alone."""
    body = review_bytes(cloud_profile_dict(kubernetes=versions("1.33.2")), cloud_profile_dict(), uid="once")
    alone = judge(body, view=EMPTY_VIEW, settings=Settings(), now=NOW)
    calls: list[object] = []
    real = admission.decode_object
    monkeypatch.setattr(admission, "decode_object", lambda *args, **kw: calls.append(args) or real(*args, **kw))
    for memo in (None, Caches()):
        calls.clear()
        parsed = parse_review(body)
        assert admission.kinds_to_confirm(parsed, caches=memo) == REFERRERS
        answer = judge(body, view=EMPTY_VIEW, settings=Settings(), now=NOW, caches=memo, review=parsed)
        assert answer == alone
        assert len(calls) == 2  # the object and the stored object, once each
