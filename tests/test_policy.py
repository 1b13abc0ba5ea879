"""webhook/admission/policy.py: rule modes from `rules:`, CLUSTER-001 under `cluster.failClosed`, exemptions by user and group.

The rules here are made for the test (ids TEST-*), so only the policy decides where their findings go; CLUSTER-001 is
the real one, since the policy recognises it by identity.
"""

from __future__ import annotations

import pytest

from webhook.admission.kinds import CLUSTER_001, UserInfo
from webhook.admission.policy import apply_policy, is_exempt
from webhook.domain.field import SPEC, Finding, Mode, Rule, Verdict
from webhook.settings import ClusterSettings, Exemptions, Settings

DENYING = Rule("TEST-DENY-001", source="tests/test_policy.py")
WARNING = Rule("TEST-WARN-001", source="tests/test_policy.py", mode=Mode.WARN)
DENIAL = DENYING.forbidden(SPEC.child("a"), "must not be set")
ADVICE = WARNING.invalid(SPEC.child("b"), "x", "should be y")
NOT_KNOWN = CLUSTER_001.forbidden(SPEC.child("c"), "cluster state not yet known: cannot check c; retry shortly")

ALICE = UserInfo("alice", ("developers",))
EXEMPTIONS = Exemptions(users=("break-glass-admin",), groups=("gardener-webhook:break-glass",))


def sorted_out(verdict: Verdict) -> tuple[list[str], list[str]]:
    """(rule ids of the errors, rule ids of the warnings), in order."""
    return [f.rule.id for f in verdict.errors], [f.rule.id for f in verdict.warnings]


def test_default_modes_keep_the_verdict() -> None:
    verdict = apply_policy(Verdict((DENIAL,), (ADVICE,)), Settings(), ALICE)
    assert verdict == Verdict((DENIAL,), (ADVICE,))


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        pytest.param({}, (["TEST-DENY-001"], ["TEST-WARN-001"]), id="defaults"),
        pytest.param({"TEST-DENY-001": Mode.DENY}, (["TEST-DENY-001"], ["TEST-WARN-001"]), id="deny-stays-deny"),
        pytest.param({"TEST-DENY-001": Mode.WARN}, ([], ["TEST-DENY-001", "TEST-WARN-001"]), id="deny-to-warn"),
        pytest.param({"TEST-DENY-001": Mode.OFF}, ([], ["TEST-WARN-001"]), id="deny-to-off"),
        pytest.param({"TEST-WARN-001": Mode.DENY}, (["TEST-DENY-001", "TEST-WARN-001"], []), id="warn-to-deny"),
        pytest.param({"TEST-WARN-001": Mode.OFF}, (["TEST-DENY-001"], []), id="warn-to-off"),
        pytest.param({"TEST-DENY-001": Mode.OFF, "TEST-WARN-001": Mode.OFF}, ([], []), id="both-off"),
        pytest.param({"OTHER-001": Mode.OFF}, (["TEST-DENY-001"], ["TEST-WARN-001"]), id="other-rule-untouched"),
    ],
)
def test_configured_modes_re_sort_findings(rules: dict[str, Mode], expected: tuple[list[str], list[str]]) -> None:
    verdict = apply_policy(Verdict((DENIAL,), (ADVICE,)), Settings(rules=rules), ALICE)
    assert sorted_out(verdict) == expected


def test_the_rule_mode_decides_not_the_list_the_finding_arrived_in() -> None:
    """The policy re-sorts every finding by its rule's mode: a warning rule's finding among the errors warns."""
    verdict = apply_policy(Verdict((ADVICE,), (DENIAL,)), Settings(), ALICE)
    assert verdict == Verdict((DENIAL,), (ADVICE,))


def test_findings_keep_their_order_within_each_list() -> None:
    second = DENYING.required(SPEC.child("z"), "must provide z")
    verdict = apply_policy(Verdict((DENIAL, second), ()), Settings(), ALICE)
    assert verdict.errors == (DENIAL, second)


@pytest.mark.parametrize(
    ("fail_closed", "rules", "expected"),
    [
        pytest.param(True, {}, (["CLUSTER-001"], []), id="fail-closed-denies"),
        pytest.param(False, {}, ([], ["CLUSTER-001"]), id="fail-open-warns"),
        pytest.param(False, {"CLUSTER-001": Mode.DENY}, ([], ["CLUSTER-001"]), id="fail-open-beats-configured-deny"),
        pytest.param(True, {"CLUSTER-001": Mode.WARN}, ([], ["CLUSTER-001"]), id="fail-closed-configured-warn"),
        pytest.param(True, {"CLUSTER-001": Mode.OFF}, ([], []), id="fail-closed-configured-off"),
        pytest.param(False, {"CLUSTER-001": Mode.OFF}, ([], []), id="fail-open-configured-off"),
    ],
)
def test_cluster_001_follows_fail_closed(
    fail_closed: bool, rules: dict[str, Mode], expected: tuple[list[str], list[str]]
) -> None:
    settings = Settings(rules=rules, cluster=ClusterSettings(fail_closed=fail_closed))
    assert sorted_out(apply_policy(Verdict((NOT_KNOWN,), ()), settings, ALICE)) == expected


def test_fail_open_leaves_other_denials_alone() -> None:
    """`cluster.failClosed: false` concerns CLUSTER-001 only, however similar another cluster rule is."""
    lookalike = Rule("TEST-CLUSTER-001", source="tests/test_policy.py", uses_cluster=True)
    finding = lookalike.forbidden(SPEC, "cluster state not yet known")
    settings = Settings(cluster=ClusterSettings(fail_closed=False))
    assert sorted_out(apply_policy(Verdict((finding, NOT_KNOWN), ()), settings, ALICE)) == (
        ["TEST-CLUSTER-001"],
        ["CLUSTER-001"],
    )


@pytest.mark.parametrize(
    ("user", "exempt"),
    [
        pytest.param(UserInfo("break-glass-admin"), True, id="by-user"),
        pytest.param(UserInfo("bob", ("developers", "gardener-webhook:break-glass")), True, id="by-group"),
        pytest.param(UserInfo("alice", ("developers",)), False, id="neither"),
        pytest.param(UserInfo("gardener-webhook:break-glass"), False, id="group-name-as-user"),
        pytest.param(UserInfo("bob", ("break-glass-admin",)), False, id="user-name-as-group"),
        pytest.param(UserInfo("Break-Glass-Admin"), False, id="names-are-case-sensitive"),
    ],
)
def test_is_exempt(user: UserInfo, exempt: bool) -> None:
    assert is_exempt(user, Settings(exemptions=EXEMPTIONS)) is exempt


def test_nobody_is_exempt_by_default() -> None:
    assert not is_exempt(UserInfo("system:admin", ("system:masters",)), Settings())


@pytest.mark.parametrize(
    "user",
    [
        pytest.param(UserInfo("break-glass-admin"), id="by-user"),
        pytest.param(UserInfo("bob", ("gardener-webhook:break-glass",)), id="by-group"),
    ],
)
def test_exempt_denials_become_warnings_ahead_of_the_warnings(user: UserInfo) -> None:
    verdict = apply_policy(Verdict((DENIAL, NOT_KNOWN), (ADVICE,)), Settings(exemptions=EXEMPTIONS), user)
    assert verdict == Verdict((), (DENIAL, NOT_KNOWN, ADVICE))


def test_exemptions_do_not_touch_others() -> None:
    verdict = apply_policy(Verdict((DENIAL,), (ADVICE,)), Settings(exemptions=EXEMPTIONS), ALICE)
    assert verdict == Verdict((DENIAL,), (ADVICE,))


def test_exemptions_apply_after_modes() -> None:
    """A rule switched off stays off for an exempt user; a rule raised to deny turns into a warning for them."""
    settings = Settings(rules={"TEST-DENY-001": Mode.OFF, "TEST-WARN-001": Mode.DENY}, exemptions=EXEMPTIONS)
    verdict = apply_policy(Verdict((DENIAL,), (ADVICE,)), settings, UserInfo("break-glass-admin"))
    assert verdict == Verdict((), (ADVICE,))


def test_exempt_user_without_denials_gets_the_warnings_unchanged() -> None:
    warnings: tuple[Finding, ...] = (ADVICE,)
    verdict = apply_policy(Verdict((), warnings), Settings(exemptions=EXEMPTIONS), UserInfo("break-glass-admin"))
    assert verdict == Verdict((), warnings)
