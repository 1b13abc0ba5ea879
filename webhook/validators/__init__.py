"""Validators, one module per kind, and the registry that maps (group, kind) to them.

The registry is one explicit table (no import-time registration); ALL_RULES gathers every rule so that
configuration keys can be checked against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from webhook.admission import fieldvalidation
from webhook.admission.kinds import CLUSTER_001, OBJ_DECODE_001, KindValidator
from webhook.domain.field import Rule, rules_table
from webhook.validators import cloudprofile, gardener_components, namespacedcloudprofile, operatingsystemconfig, shoot

REGISTRY: Final[Mapping[tuple[str, str], KindValidator[Any]]] = MappingProxyType(
    {
        (k.group, k.kind): k
        for k in (
            cloudprofile.KIND,
            namespacedcloudprofile.KIND,
            shoot.KIND,
            operatingsystemconfig.KIND,
            *gardener_components.KINDS,
        )
    }
)

# The field-validation rules are run by review and audit around judging, never by the server (fieldvalidation).
ALL_RULES: Final[Mapping[str, Rule]] = rules_table(
    (OBJ_DECODE_001, CLUSTER_001), fieldvalidation.RULES, *(k.rules for k in REGISTRY.values())
)
