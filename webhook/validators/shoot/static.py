"""The static stage of a Shoot (docs/rules.md §C.2, §C.3): the object's own fields, 422 Invalid. It defines no rule.

A thin orchestrator: it calls the family modules in the order of Gardener's ValidateShoot and ValidateShootUpdate,
so the findings come in Gardener's order. They judge the Effective Shoot (partial versions resolved, see `resolve`),
as Gardener's static validation runs after its mutator; values still unknown are skipped (whatever kept them
unknown is reported already). The rules live with their families: the pools in `workers` (ValidateWorker in
`workers.worker`), the Kubernetes version and components in `kubernetes`, the version-gated fields in
`version_gates`, the kubelets in `kubelet`, the other top-level fields in `spec`, `networking`, `maintenance`,
`hibernation` and `access`.
Sources: gardener pkg/api/core/validation/shoot.go ValidateShoot, ValidateShootSpec, ValidateShootUpdate,
ValidateShootSpecUpdate; pkg/apiserver/registry/core/shoot/strategy.go; plugin/pkg/shoot/mutator/admission.go.
"""

from __future__ import annotations

from webhook.domain.field import SPEC, Finding
from webhook.models.shoot import Networking, Shoot
from webhook.validators.shoot import (
    access,
    hibernation,
    kubelet,
    maintenance,
    networking,
    resolve,
    version_gates,
)
from webhook.validators.shoot.effective import (
    KUBERNETES_VERSION,
    Effective,
    StaticContext,
    normalized,
)
from webhook.validators.shoot.kubernetes import components as kubernetes_components
from webhook.validators.shoot.kubernetes import versions as kubernetes_versions
from webhook.validators.shoot.spec import fields as spec_fields
from webhook.validators.shoot.workers import pool_list, worker
from webhook.validators.shoot.workers import update as workers_update

# ------------------------------------------------------------------------------------------------ entry points


def validate_create_only(shoot: Shoot) -> list[Finding]:
    """CREATE-only rules on the Shoot as given (SHM-001, `resolve`'s)."""
    return resolve.validate_single_profile_reference(shoot)


def validate_shoot(eff: Effective, ctx: StaticContext, *, create: bool) -> list[Finding]:
    """Every static rule on one Effective Shoot, in the order of gardener's ValidateShoot (ValidateShootSpec, then
    ValidateShootHAConfig), then the admission plugin's network overlap check; and the strategy's creation checks.

    create: apply the in-place gate to every pool (on UPDATE `validate_shoot_update` applies it to new pools).
    ValidateWorker's checks run module by module over the pools (`workers.worker`, `workers.pool_list`, `kubelet`); the components
    (and the Shoot's kubelet) only while the control plane's version is not known to be empty (SH-K8S-001; Gardener's
    validateKubernetes stops there). The control-plane zones (`access`, SH-ZONE-001) close ValidateShootSpec.
    """
    shoot = eff.shoot
    version = normalized(eff.version) if eff.version else None
    workerless = not shoot.spec.provider.workers
    spec_ctx = spec_fields.SpecContext(ctx.namespace, version)
    network = shoot.spec.networking or Networking()
    components = kubernetes_components.KubernetesContext(
        version=version,
        shown=eff.version or "",
        workerless=workerless,
        networking=network,
        max_pods=kubernetes_components.max_pods(shoot),
        allow_invalid_accepted_issuers=ctx.accepted_issuers_as_stored,
        etcd_key_auto_rotation=maintenance.etcd_key_auto_rotation(shoot.spec.maintenance),
    )
    kubernetes_path = SPEC.child("kubernetes")
    findings: list[Finding] = []
    findings.extend(version_gates.validate_profile_reference(shoot, eff.version, SPEC))  # ValidateCloudProfileReference
    # validateProvider: the type, each pool (ValidateWorker), the pool list, the node CIDR mask against maxPods.
    findings.extend(spec_fields.validate_provider_type(shoot))
    findings.extend(worker.validate_pools(eff, ctx, create=create))
    findings.extend(pool_list.validate_workers(eff, ctx))
    findings.extend(kubelet.validate_pool_kubelets(eff))
    findings.extend(kubernetes_components.validate_node_cidr_mask(shoot.spec.kubernetes, components, kubernetes_path))
    findings.extend(version_gates.validate_addons(shoot, eff.version, SPEC.child("addons")))
    findings.extend(spec_fields.validate_dns_extensions_resources(shoot, spec_ctx))
    kubernetes_version, known = shoot.spec.kubernetes.version, eff.control_plane_known
    findings.extend(kubernetes_versions.validate_kubernetes_version(kubernetes_version, known, KUBERNETES_VERSION))
    if eff.version != "":
        findings.extend(kubernetes_components.validate_kubernetes(shoot.spec.kubernetes, components, kubernetes_path))
    findings.extend(networking.validate_networking(network, workerless, SPEC.child("networking")))
    findings.extend(maintenance.validate_maintenance(shoot.spec.maintenance, workerless, SPEC.child("maintenance")))
    findings.extend(spec_fields.validate_monitoring(shoot))
    annotations, self_hosted = shoot.metadata.annotations, spec_fields.is_self_hosted(shoot)
    hibernation_path = SPEC.child("hibernation")
    findings.extend(
        hibernation.validate_hibernation(shoot.spec.hibernation, annotations, self_hosted, hibernation_path)
    )
    findings.extend(spec_fields.validate_region(shoot))
    findings.extend(version_gates.validate_bindings(shoot, eff.version, SPEC))
    findings.extend(spec_fields.validate_placement(shoot, spec_ctx))
    findings.extend(pool_list.validate_self_hosted_control_plane(eff))
    findings.extend(spec_fields.validate_scheduler_name(shoot))
    findings.extend(access.validate_control_plane_zones(shoot.spec.control_plane, access.CONTROL_PLANE))
    findings.extend(spec_fields.validate_high_availability(shoot))
    findings.extend(networking.validate_disjoint(network, SPEC.child("networking")))
    return findings


def validate_shoot_update(new: Effective, old: Effective, ctx: StaticContext) -> list[Finding]:
    """Update-only rules (gardener ValidateShootSpecUpdate, ValidateProviderUpdate, ValidateShootUpdate): versions
    never go down, the control plane never skips a minor, pinned control-plane zones stay (`access`, SH-ZONE-002), a
    Shoot keeps having workers (SH-WRK-018) and its hosting mode, in-place pools keep their shape, the other sections
    keep what may not change. After a switch to or from workerless Gardener judges none of ValidateShootSpecUpdate's
    later checks (provider, pools, networking, schedulerName); the checks outside it still run. The create rules run
    separately.
    """
    findings: list[Finding] = []
    if new.version is not None and old.version is not None:
        findings.extend(kubernetes_versions.validate_control_plane_update(new.version, old.version, KUBERNETES_VERSION))
    new_control_plane, old_control_plane = new.shoot.spec.control_plane, old.shoot.spec.control_plane
    findings.extend(
        access.validate_control_plane_zones_update(new_control_plane, old_control_plane, access.CONTROL_PLANE)
    )
    switch = workers_update.validate_workers_switch(new, old)
    findings.extend(switch)
    if not switch:
        findings.extend(workers_update.validate_workers_update(new, old))
        findings.extend(workers_update.validate_pools_update(new, old, ctx))
    findings.extend(spec_fields.validate_spec_update(new.shoot, old.shoot, switched=bool(switch)))
    new_network, old_network = new.shoot.spec.networking, old.shoot.spec.networking
    if new_network is not None and old_network is not None and not switch:
        findings.extend(networking.validate_networking_update(new_network, old_network, SPEC.child("networking")))
    kubernetes_path = SPEC.child("kubernetes")
    findings.extend(
        kubernetes_components.validate_kubernetes_update(
            new.shoot.spec.kubernetes, old.shoot.spec.kubernetes, kubernetes_path
        )
    )
    return findings


# ------------------------------------------------------------------------------------------ profile reference


# ---------------------------------------------------------------------------------------------------- versions


# ----------------------------------------------------------------------------------------------------- workers


# --------------------------------------------------------------------------------------------------- in-place


# ------------------------------------------------------------------------------------------------- CRI policy


__all__ = ["validate_create_only", "validate_shoot", "validate_shoot_update"]
