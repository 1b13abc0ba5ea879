"""What one request fixes for every CloudProfile and NamespacedCloudProfile check: the clock and the gates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from webhook.settings import Settings


@dataclass(frozen=True, slots=True)
class ProfileContext:
    """What a request fixes for every profile check: the clock (aware UTC) and the feature gates."""

    now: datetime
    lifecycle_gate: bool = False
    capabilities_gate: bool = True


def profile_context(now: datetime, settings: Settings) -> ProfileContext:
    """The context of one request judged at `now` (aware UTC) under `settings`' feature gates
    (VersionClassificationLifecycle, CloudProfileCapabilities)."""
    gates = settings.feature_gates
    return ProfileContext(
        now=now,
        lifecycle_gate=gates.version_classification_lifecycle,
        capabilities_gate=gates.cloud_profile_capabilities,
    )
