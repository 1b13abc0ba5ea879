"""Models of the objects that carry Gardener component versions (docs/requirements.md "Gardener version skew", docs/rules.md §E).

- `Deployment` (apps/v1): a deliberately tiny subset, since every Deployment of a cluster may be sent to the
  webhook: name, namespace, labels and the containers' names and images. Gardener's control-plane Deployments sit
  in namespace `garden`, labelled `app=gardener` and `role=<role>`; the component's version is the image tag of the
  container named like the Deployment (gardener/gardener pkg/component/gardener/*: GetLabels, DeploymentName).
- `Gardenlet` and `ManagedSeed` (seedmanagement.gardener.cloud/v1alpha1): where the gardenlet's chart and image are
  chosen (types_gardenlet.go, types_managedseed.go; `OCIRepository` from pkg/apis/core/v1).
- `Seed` (core.gardener.cloud/v1beta1): `status.gardener.version`, the version of the Seed's gardenlet.
- `ConfigMap` (v1): `gardener-system-public/gardener-info`, whose `gardenerAPIServer` key holds YAML
  `{version: ..., workloadIdentityIssuerURL: ...}` written by gardener-operator.
Only the fields a rule reads are modelled; everything else passes through (`extra="ignore"`).
"""

from __future__ import annotations

from typing import Final

import yaml

from webhook.goport.goregexp import compile_go
from webhook.models.base import KubernetesObject, List, Model, ObjectMeta, Str, StrMap

GARDEN_NAMESPACE: Final = "garden"
LABEL_APP: Final = "app"
LABEL_ROLE: Final = "role"
APP_GARDENER: Final = "gardener"
# Roles of the Gardener control-plane Deployments the skew rules judge, sorted (gardener v1beta1constants).
GARDENER_ROLES: Final = ("admission-controller", "apiserver", "controller-manager", "operator", "scheduler")

GARDENER_SYSTEM_PUBLIC_NAMESPACE: Final = "gardener-system-public"
GARDENER_INFO_NAME: Final = "gardener-info"
GARDENER_INFO_APISERVER_KEY: Final = "gardenerAPIServer"

# An image reference's last path segment: name, then an optional :tag, then an optional @digest.
_LAST_SEGMENT: Final = compile_go(r"^[^:@]*(?::(?P<tag>[^@]*))?(?:@.*)?$")


def image_tag(reference: str) -> str:
    """The tag of an image or OCI reference (`repo/name:tag`, `host:5000/name:tag@sha256:…`, `oci://…`); "" if none.

    A registry port is not a tag: only the last path segment is looked at.
    """
    last = reference.removeprefix("oci://").rsplit("/", 1)[-1]
    match = _LAST_SEGMENT.match(last)
    return (match.group("tag") or "") if match else ""


# ------------------------------------------------------------------------------------------------ Deployment


class DeploymentMeta(Model):
    """The metadata a Deployment rule reads: identity and labels (annotations are never decoded)."""

    name: Str = ""
    namespace: Str = ""
    labels: StrMap = {}


class Container(Model):
    name: Str = ""
    image: Str = ""


class PodSpec(Model):
    containers: List[Container] = []


class PodTemplateSpec(Model):
    spec: PodSpec = PodSpec()


class DeploymentSpec(Model):
    template: PodTemplateSpec = PodTemplateSpec()


class Deployment(Model):
    """apps/v1 Deployment: only what identifies a Gardener component and its version."""

    api_version: Str = ""
    kind: Str = ""
    metadata: DeploymentMeta = DeploymentMeta()
    spec: DeploymentSpec = DeploymentSpec()

    def gardener_role(self) -> str | None:
        """The Gardener control-plane role (`apiserver`, …) when this is one of those Deployments, else None.

        Namespace `garden`, label `app=gardener` and a `role` label in GARDENER_ROLES; labels only, nothing decoded.
        """
        meta = self.metadata
        if meta.namespace != GARDEN_NAMESPACE or meta.labels.get(LABEL_APP) != APP_GARDENER:
            return None
        role = meta.labels.get(LABEL_ROLE)
        return role if role in GARDENER_ROLES else None

    def component_container(self) -> tuple[int, Container] | None:
        """(index, container) of the container named like the Deployment, or None."""
        for i, container in enumerate(self.spec.template.spec.containers):
            if container.name == self.metadata.name:
                return i, container
        return None

    def component_version(self) -> str:
        """The image tag of the container named like the Deployment ("" when there is none)."""
        found = self.component_container()
        return image_tag(found[1].image) if found is not None else ""


# ------------------------------------------------------------------------------------- Gardenlet, ManagedSeed


class OCIRepository(Model):
    """Where a chart is pulled from: `ref`, or `repository` with `tag` or `digest` (digest wins over tag)."""

    ref: Str | None = None
    repository: Str | None = None
    tag: Str | None = None
    digest: Str | None = None


class GardenletHelm(Model):
    oci_repository: OCIRepository = OCIRepository()


class Image(Model):
    """seedmanagement Image: `repository` + `tag`, or `ref` (mutually exclusive)."""

    repository: Str | None = None
    tag: Str | None = None
    ref: Str | None = None


class GardenletSelfDeployment(Model):
    """Gardenlet.spec.deployment: the chart (`helm`) and an optional image override."""

    helm: GardenletHelm = GardenletHelm()
    image: Image | None = None


class GardenletSpec(Model):
    deployment: GardenletSelfDeployment = GardenletSelfDeployment()


class Gardenlet(KubernetesObject):
    """seedmanagement.gardener.cloud/v1alpha1 Gardenlet: the gardenlet's chart and image."""

    spec: GardenletSpec = GardenletSpec()


class GardenletDeployment(Model):
    image: Image | None = None


class GardenletConfig(Model):
    deployment: GardenletDeployment | None = None


class ManagedSeedSpec(Model):
    gardenlet: GardenletConfig | None = None


class ManagedSeed(KubernetesObject):
    """seedmanagement.gardener.cloud/v1alpha1 ManagedSeed: the gardenlet image, if overridden."""

    spec: ManagedSeedSpec = ManagedSeedSpec()


# ------------------------------------------------------------------------------------------------ Seed, ConfigMap


class Gardener(Model):
    """core.gardener.cloud Gardener: the identity of the gardenlet that last reported."""

    version: Str = ""


class SeedStatus(Model):
    gardener: Gardener | None = None


class Seed(KubernetesObject):
    """core.gardener.cloud/v1beta1 Seed: only the version of its gardenlet."""

    status: SeedStatus = SeedStatus()

    def gardenlet_version(self) -> str:
        """`status.gardener.version` ("" when the gardenlet has not reported yet)."""
        return self.status.gardener.version if self.status.gardener is not None else ""


class ConfigMap(Model):
    """v1 ConfigMap: metadata and string data."""

    api_version: Str = ""
    kind: Str = ""
    metadata: ObjectMeta = ObjectMeta()
    data: StrMap = {}

    def is_gardener_info(self) -> bool:
        """True for `gardener-system-public/gardener-info`."""
        return (self.metadata.namespace, self.metadata.name) == (GARDENER_SYSTEM_PUBLIC_NAMESPACE, GARDENER_INFO_NAME)

    def gardener_apiserver_version(self) -> str:
        """`gardenerAPIServer.version` ("" when the key is missing or its YAML is not the expected shape).

        The value is YAML `{version: ..., workloadIdentityIssuerURL: ...}` (gardenerutils.APIServerInfo).
        """
        text = self.data.get(GARDENER_INFO_APISERVER_KEY, "")
        try:
            loaded = yaml.safe_load(text) if text else None
        except yaml.YAMLError:
            return ""
        if not isinstance(loaded, dict) or not isinstance(loaded.get("version"), str):
            return ""
        version: str = loaded["version"]
        return version
