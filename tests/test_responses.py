"""webhook.admission.responses: the named constructors are the only source of answers, byte for byte (docs/design.md §3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.builders import EMPTY_VIEW, NOW, cloud_profile_dict, review_bytes, versions
from webhook.admission.responses import REASONS, AdmissionReview, allowed, denied, errored, timed_out
from webhook.judging.judge import RULES_ANNOTATION, judge
from webhook.settings import Settings
from webhook.validators.cloudprofile.spec import CP_REG_001

ENVELOPE = '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":'
CAUSE: Any = {"reason": "FieldValueInvalid", "message": 'Invalid value: "x": must be y', "field": "spec.a"}


def compact(review: AdmissionReview) -> str:
    """The bytes the server sends for a judged request (app.py: compact separators, ASCII)."""
    return json.dumps(review, separators=(",", ":"))


def test_allowed_is_uid_and_allowed_only() -> None:
    assert compact(allowed("u-1")) == ENVELOPE + '{"uid":"u-1","allowed":true}}'


def test_warnings_and_annotations_follow_the_status_and_are_left_out_when_empty() -> None:
    assert compact(allowed("u", warnings=[], annotations={})) == ENVELOPE + '{"uid":"u","allowed":true}}'
    out = allowed("u", warnings=("w1", "w2"), annotations={RULES_ANNOTATION: "CP-1"})
    assert out["response"]["warnings"] == ["w1", "w2"]  # a list, as JSON reads back
    assert compact(out) == (
        ENVELOPE + '{"uid":"u","allowed":true,"warnings":["w1","w2"],"auditAnnotations":{"rules":"CP-1"}}}'
    )


@pytest.mark.parametrize(("forbidden", "code", "reason"), [(False, 422, "Invalid"), (True, 403, "Forbidden")])
def test_denied_carries_the_details_before_the_code(forbidden: bool, code: int, reason: str) -> None:
    out = denied(
        "u", "spec.a: Invalid value", name="n", group="g", kind="K", causes=[CAUSE], forbidden=forbidden, warnings=["w"]
    )
    assert compact(out) == (
        ENVELOPE + '{"uid":"u","allowed":false,"status":{"metadata":{},"status":"Failure","message":"spec.a: Invalid '
        f'value","reason":"{reason}","details":{{"name":"n","group":"g","kind":"K","causes":[{{"reason":'
        '"FieldValueInvalid","message":"Invalid value: \\"x\\": must be y","field":"spec.a"}]},'
        f'"code":{code}}},"warnings":["w"]}}}}'
    )


@pytest.mark.parametrize(
    ("answer", "code", "reason"),
    [(errored("u", "m"), 500, "InternalError"), (timed_out("u", "m"), 504, "Timeout")],
    ids=["errored", "timed_out"],
)
def test_failures_of_the_webhook_have_no_details(answer: AdmissionReview, code: int, reason: str) -> None:
    assert compact(answer) == (
        ENVELOPE + '{"uid":"u","allowed":false,"status":{"metadata":{},"status":"Failure","message":"m",'
        f'"reason":"{reason}","code":{code}}}}}}}'
    )
    assert REASONS[code] == reason


def test_judge_answers_with_the_constructors() -> None:
    ok = judge(review_bytes(cloud_profile_dict(), uid="ok"), view=EMPTY_VIEW, settings=Settings(), now=NOW)
    assert compact(ok.review) == compact(allowed("ok"))
    raw = cloud_profile_dict(kubernetes=versions("1.33.2", "1.33.2"))
    bad = judge(review_bytes(raw, uid="bad"), view=EMPTY_VIEW, settings=Settings(), now=NOW)
    status = bad.response["status"]
    details = status["details"]
    expected = denied(
        "bad",
        status["message"],
        name=details["name"],
        group=details["group"],
        kind=details["kind"],
        causes=details["causes"],
        annotations={RULES_ANNOTATION: ",".join(bad.rule_ids)},
    )
    assert (bad.code, compact(bad.review)) == (422, compact(expected))


@CP_REG_001.check
def _explode(*_: Any) -> Any:
    """A rule's check that crashes (module-level, as every rule's check is)."""
    raise RuntimeError("boom")


def test_a_crashed_validator_is_answered_with_errored(monkeypatch: pytest.MonkeyPatch) -> None:
    from webhook.admission.kinds import KindValidator
    from webhook.judging import judge as admission
    from webhook.models.cloudprofile import CloudProfile

    broken = KindValidator("core.gardener.cloud", "CloudProfile", CloudProfile, (), create=_explode)
    monkeypatch.setattr(admission, "REGISTRY", {("core.gardener.cloud", "CloudProfile"): broken})
    body = review_bytes(cloud_profile_dict(), uid="crash-1")
    out = judge(body, view=EMPTY_VIEW, settings=Settings(), now=NOW)
    message = (
        'internal error in gardener-webhook rule CP-REG-001 while validating CloudProfile "local"; '
        "details are logged under uid crash-1"
    )
    assert (out.code, out.messages) == (500, (message,))
    assert compact(out.review) == compact(errored("crash-1", message, annotations={RULES_ANNOTATION: "CP-REG-001"}))
