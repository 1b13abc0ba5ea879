"""Rule modes and exemptions: the only place where configuration changes what a finding does.

Pure: takes a verdict, the settings and the requesting user, returns the verdict to answer with.
"""

from __future__ import annotations

from webhook.admission.kinds import CLUSTER_001, UserInfo
from webhook.domain.field import Finding, Mode, Verdict
from webhook.settings import Settings


def is_exempt(user: UserInfo, settings: Settings) -> bool:
    """Whether the user, or one of its groups, is listed under `exemptions`."""
    exemptions = settings.exemptions
    return user.username in exemptions.users or any(g in exemptions.groups for g in user.groups)


def apply_policy(verdict: Verdict, settings: Settings, user: UserInfo) -> Verdict:
    """Re-sort every finding by its configured mode (`rules:`), then turn denials of exempt users into warnings.

    CLUSTER-001 (cluster state not yet known) follows `cluster.failClosed`: deny when true, warn when false.
    """
    errors: list[Finding] = []
    warnings: list[Finding] = []
    for finding in verdict.findings:
        mode = settings.mode_of(finding.rule.id, finding.rule.mode)
        if finding.rule is CLUSTER_001 and not settings.cluster.fail_closed and mode is Mode.DENY:
            mode = Mode.WARN  # cluster.failClosed: false -> allow with a warning while the view syncs
        if mode is Mode.DENY:
            errors.append(finding)
        elif mode is Mode.WARN:
            warnings.append(finding)
    if errors and is_exempt(user, settings):
        return Verdict((), tuple(errors + warnings))
    return Verdict(tuple(errors), tuple(warnings))
