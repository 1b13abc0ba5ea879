"""core.gardener.cloud/v1beta1 types more than one kind uses: container runtimes and CRI (a CloudProfile's machine image
versions, a Shoot's pools), label selectors, object references.

Field names follow pkg/apis/core/v1beta1/types_shoot.go and k8s.io/api core/v1, meta/v1.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import (
    List,
    Model,
    Str,
    StrMap,
)


class ContainerRuntime(Model):
    type: Str = ""


class CRI(Model):
    name: Str = ""
    container_runtimes: List[ContainerRuntime] = Field(default_factory=list)


class LabelSelectorRequirement(Model):
    key: Str = ""
    operator: Str = ""
    values: List[str] = Field(default_factory=list)


class LabelSelector(Model):
    match_labels: StrMap = Field(default_factory=dict)
    match_expressions: List[LabelSelectorRequirement] = Field(default_factory=list)


class ObjectReference(Model):
    """A corev1.ObjectReference (every field, as Gardener prints whole references in messages)."""

    kind: Str = ""
    namespace: Str = ""
    name: Str = ""
    uid: Str = ""
    api_version: Str = ""
    resource_version: Str = ""
    field_path: Str = ""
