"""NamespacedCloudProfile (core.gardener.cloud/v1beta1): gardener-rules.md §A.8 (work in progress)."""

from __future__ import annotations

from typing import Final

from webhook.field import Rule
from webhook.kinds import KindValidator
from webhook.models.core import NamespacedCloudProfile

RULES: Final[tuple[Rule, ...]] = ()

KIND: Final = KindValidator(group="core.gardener.cloud", kind="NamespacedCloudProfile", model=NamespacedCloudProfile, rules=RULES)
