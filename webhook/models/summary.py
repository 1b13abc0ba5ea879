"""ShootSummary: the few fields of a Shoot the cluster view indexes, so that 10 000 stored Shoots stay small.

The server's cluster view (static or live) answers only in-use questions about Shoots (webhook.cluster.index): which
profile a Shoot references, its control plane and worker pool Kubernetes versions, its pools' machine images and
minimums, and whether it is being deleted. Keeping the full `Shoot` model (every field a Shoot rule reads) for each
stored Shoot would cost several times the memory for nothing; `audit` of a live cluster, which judges the stored
Shoots themselves, asks its view for full Shoots instead. Decoding follows the same rules as `Shoot`'s (a field
that does not decode makes the object undecodable, as it would as a Shoot), restricted to these fields.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import Int32, List, Model, Str, Struct, Time
from webhook.models.cloudprofile import CloudProfileReference
from webhook.models.shoot import reference_of


class SummaryMeta(Model):
    name: Str = ""
    namespace: Str = ""
    deletion_timestamp: Time = None


class SummaryImage(Model):
    name: Str = ""
    version: str | None = None


class SummaryMachine(Model):
    image: SummaryImage | None = None


class SummaryWorkerKubernetes(Model):
    version: str | None = None


class SummaryWorker(Model):
    name: Str = ""
    machine: SummaryMachine = SummaryMachine()
    kubernetes: SummaryWorkerKubernetes | None = None
    minimum: Int32 = 0


class SummaryProvider(Model):
    workers: List[SummaryWorker] = Field(default_factory=list)


class SummaryKubernetes(Model):
    version: Str = ""


class SummarySpec(Model):
    cloud_profile_name: str | None = None
    cloud_profile: CloudProfileReference | None = None
    kubernetes: Struct[SummaryKubernetes] = SummaryKubernetes()
    provider: SummaryProvider = SummaryProvider()


class ShootSummary(Model):
    """A stored Shoot as the cluster view keeps it: metadata.name/namespace/deletionTimestamp, the profile reference,
    spec.kubernetes.version and each pool's name, kubernetes.version, machine.image and minimum."""

    metadata: SummaryMeta = SummaryMeta()
    spec: SummarySpec = SummarySpec()

    def profile_reference(self) -> CloudProfileReference | None:
        """The referenced (Namespaced)CloudProfile, as `Shoot.profile_reference` says."""
        return reference_of(self.spec.cloud_profile, self.spec.cloud_profile_name)
