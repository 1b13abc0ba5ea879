"""What one request fixes for every CloudProfile and NamespacedCloudProfile check: the clock, the gates and the
stores the cache layer lends it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from webhook.admission.kinds import RequestInfo
from webhook.caching.findings import FindingStores
from webhook.settings import Settings


@dataclass(frozen=True, slots=True)
class ProfileContext:
    """What a request fixes for every profile check: the clock (aware UTC) and the feature gates; findings: the
    stores remembered checks use (`caching.findings`; None: every check runs). Two contexts with equal clock and
    gates give equal findings, whatever their stores."""

    now: datetime
    lifecycle_gate: bool = False
    capabilities_gate: bool = True
    findings: FindingStores | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[bool, bool]:
        """What remembered checks are keyed by besides their inputs: the feature gates."""
        return self.lifecycle_gate, self.capabilities_gate


def profile_context(request: RequestInfo, settings: Settings) -> ProfileContext:
    """The context of one request (judged at its `now`, aware UTC, with the stores of its `caches`) under
    `settings`' feature gates (VersionClassificationLifecycle, CloudProfileCapabilities)."""
    gates = settings.feature_gates
    return ProfileContext(
        now=request.now,
        lifecycle_gate=gates.version_classification_lifecycle,
        capabilities_gate=gates.cloud_profile_capabilities,
        findings=request.caches.findings if request.caches is not None else None,
    )
