"""Static Shoot rules (docs/rules.md §C.2, §C.3, SHM-001, docs/requirements.md "OperatingSystemConfig contract"): the object's own fields, 422 Invalid.

They judge the Effective Shoot (partial versions resolved, see `resolve`), as Gardener's static validation runs
after its mutator. Values still unknown are skipped: whatever kept them unknown is reported already.
Worker kubelet skew follows the Kubernetes skew policy (docs/requirements.md "Kubernetes version skew", docs/design.md §5) instead of Gardener's flat
"three minors" rule. Sources: gardener pkg/api/core/validation/shoot.go (functions named per rule),
pkg/apiserver/registry/core/shoot/strategy.go, plugin/pkg/shoot/mutator/admission.go.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from webhook.field import SPEC, FieldPath, Finding, Rule
from webhook.models.core import CRI, Networking, Shoot, ShootMachineImage, Worker
from webhook.profiles import ARCHITECTURES, CRI_NAMES
from webhook.validators.shoot import (
    access,
    addons,
    hibernation,
    kubelet,
    maintenance,
    networking,
    resolve,
    spec,
    workers,
)
from webhook.validators.shoot.effective import (
    IN_PLACE_STRATEGIES,
    KUBERNETES_VERSION,
    UPDATE_STRATEGIES,
    Effective,
    is_in_place,
    normalized,
    satisfies,
    worker_path,
)
from webhook.validators.shoot.kubernetes import components as kubernetes_components
from webhook.validators.shoot.kubernetes import versions as kubernetes_versions
from webhook.validators.shoot.lookup import PROFILE_KINDS
from webhook.validators.shoot.shared import WORKERLESS
from webhook.versions import parse_constraint

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_VER_001 = Rule("SH-VER-001", f"{_SHOOT} ValidateCloudProfileReference (cloudProfileName, >= 1.34)")
SH_VER_002 = Rule("SH-VER-002", f"{_SHOOT} ValidateCloudProfileReference")
SH_VER_003 = Rule("SH-VER-003", f"{_SHOOT} ValidateShootSpec (secretBindingName, credentialsBindingName)")
SH_VER_004 = Rule("SH-VER-004", f"{_SHOOT} validateAddons")
SH_WRK_001 = Rule("SH-WRK-001", f"{_SHOOT} ValidateCRI, ValidateContainerRuntimes")
SH_WRK_002 = Rule("SH-WRK-002", f"{_SHOOT} ValidateArchitecture")
SH_WRK_003 = Rule("SH-WRK-003", f"{_SHOOT} ValidateWorker (machine type and image presence)")
SH_INP_001 = Rule(
    "SH-INP-001",
    f"{_SHOOT} ValidateWorker (updateStrategy), ValidateInPlaceUpdateStrategyOnCreation, ValidateProviderUpdate, "
    "validateMachineImageVersionInPlaceUpdate",
)
SH_CRI_POL_001 = Rule("SH-CRI-POL-001", 'docs/requirements.md "CRI Support"; settings.workerCriUnsupportedImages')

RULES: Final = (
    SH_VER_001, SH_VER_002, SH_VER_003, SH_VER_004, SH_WRK_001, SH_WRK_002, SH_WRK_003, SH_INP_001, SH_CRI_POL_001,
)  # fmt: skip

_GE_134: Final = parse_constraint(">= 1.34-0")
_GE_135: Final = parse_constraint(">= 1.35-0")
_GATE_OFF: Final = (
    "can not configure `AutoInPlaceUpdate` or `ManualInPlaceUpdate` update strategies when the `InPlaceNodeUpdates` "
    "feature gate is disabled."
)


@dataclass(frozen=True, slots=True)
class StaticContext:
    """What static rules read besides the Shoot: the InPlaceNodeUpdates gate, the CRI policy (docs/requirements.md "OperatingSystemConfig contract"), the Shoot's
    namespace, and whether an UPDATE keeps kube-apiserver's acceptedIssuers as stored (then they are not judged).
    """

    in_place_gate: bool = False
    cri_unsupported_images: frozenset[str] = frozenset()
    namespace: str = ""
    accepted_issuers_as_stored: bool = False


# ------------------------------------------------------------------------------------------------ entry points


def validate_create_only(shoot: Shoot) -> list[Finding]:
    """CREATE-only rules on the Shoot as given (SHM-001, `resolve`'s)."""
    return resolve.validate_single_profile_reference(shoot)


def validate_shoot(eff: Effective, ctx: StaticContext, *, create: bool) -> list[Finding]:
    """Every static rule on one Effective Shoot, in the order of gardener's ValidateShoot (ValidateShootSpec, then
    ValidateShootHAConfig), then the admission plugin's network overlap check; and the strategy's creation checks.

    create: apply the in-place gate to every pool (on UPDATE `validate_shoot_update` applies it to new pools).
    ValidateWorker's checks run module by module over the pools (this module's, `workers`, `kubelet`); the components
    (and the Shoot's kubelet) only while the control plane's version is not known to be empty (SH-K8S-001; Gardener's
    validateKubernetes stops there). The control-plane zones (`access`, SH-ZONE-001) close ValidateShootSpec.
    """
    shoot = eff.shoot
    version = normalized(eff.version) if eff.version else None
    workerless = not shoot.spec.provider.workers
    spec_ctx = spec.SpecContext(ctx.namespace, version)
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
    findings.extend(_validate_profile_reference(shoot, eff.version, SPEC))  # ValidateCloudProfileReference
    # validateProvider: the type, each pool (ValidateWorker), the pool list, the node CIDR mask against maxPods.
    findings.extend(spec.validate_provider_type(shoot))
    findings.extend(_validate_pools(eff, ctx, create=create))
    findings.extend(workers.validate_workers(eff))
    findings.extend(kubelet.validate_pool_kubelets(eff))
    findings.extend(kubernetes_components.validate_node_cidr_mask(shoot.spec.kubernetes, components, kubernetes_path))
    findings.extend(_validate_addons(shoot, eff.version, SPEC.child("addons")))
    findings.extend(spec.validate_dns_extensions_resources(shoot, spec_ctx))
    kubernetes_version, known = shoot.spec.kubernetes.version, eff.control_plane_known
    findings.extend(kubernetes_versions.validate_kubernetes_version(kubernetes_version, known, KUBERNETES_VERSION))
    if eff.version != "":
        findings.extend(kubernetes_components.validate_kubernetes(shoot.spec.kubernetes, components, kubernetes_path))
    findings.extend(networking.validate_networking(network, workerless, SPEC.child("networking")))
    findings.extend(maintenance.validate_maintenance(shoot.spec.maintenance, workerless, SPEC.child("maintenance")))
    findings.extend(spec.validate_monitoring(shoot))
    annotations, self_hosted = shoot.metadata.annotations, spec.is_self_hosted(shoot)
    hibernation_path = SPEC.child("hibernation")
    findings.extend(
        hibernation.validate_hibernation(shoot.spec.hibernation, annotations, self_hosted, hibernation_path)
    )
    findings.extend(spec.validate_region(shoot))
    findings.extend(_validate_bindings(shoot, eff.version, SPEC))
    findings.extend(spec.validate_placement(shoot, spec_ctx))
    findings.extend(workers.validate_self_hosted_control_plane(eff))
    findings.extend(spec.validate_scheduler_name(shoot))
    findings.extend(access.validate_control_plane_zones(shoot.spec.control_plane, access.CONTROL_PLANE))
    findings.extend(spec.validate_high_availability(shoot))
    findings.extend(networking.validate_disjoint(network, SPEC.child("networking")))
    return findings


def _validate_pools(eff: Effective, ctx: StaticContext, *, create: bool) -> list[Finding]:
    """This module's checks of each pool (ValidateWorker's machine, CRI, architecture, update strategy and kubelet
    version, the in-place gate, the CRI policy of docs/requirements.md "OperatingSystemConfig contract")."""
    findings: list[Finding] = []
    for i, worker in enumerate(eff.workers):
        path = worker_path(i)
        findings.extend(_validate_worker_machine(worker, eff.image_known(i), path))
        if worker.cri is not None:
            findings.extend(_validate_cri(worker.cri, path.child("cri")))
        if worker.machine.architecture is not None:
            findings.extend(_validate_architecture(worker.machine.architecture, path.child("machine", "architecture")))
        findings.extend(_validate_update_strategy(worker.update_strategy, path.child("updateStrategy")))
        if create:
            findings.extend(_validate_in_place_gate(worker, ctx, path.child("updateStrategy")))
        own = eff.pool_version(i)
        if own is not None and eff.version is not None:
            findings.extend(
                kubernetes_versions.validate_kubelet_skew(eff.version, own, path.child("kubernetes", "version"))
            )
        findings.extend(_validate_cri_policy(worker, eff.image(i), ctx, path.child("cri")))
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
    switch = workers.validate_workers_switch(new, old)
    findings.extend(switch)
    if not switch:
        findings.extend(workers.validate_workers_update(new, old))
        findings.extend(_validate_pools_update(new, old, ctx))
    findings.extend(spec.validate_spec_update(new.shoot, old.shoot, switched=bool(switch)))
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


def _validate_pools_update(new: Effective, old: Effective, ctx: StaticContext) -> list[Finding]:
    """Each pool's version update, the in-place gate for new pools, the in-place switches and shape."""
    findings: list[Finding] = []
    for i, worker in enumerate(new.workers):
        path = worker_path(i)
        j = next((k for k, w in enumerate(old.workers) if w.name == worker.name), None)
        before = old.workers[j] if j is not None else None
        findings.extend(
            kubernetes_versions.validate_pool_version_update(new, old, i, j, path.child("kubernetes", "version"))
        )
        if before is None:
            findings.extend(_validate_in_place_gate(worker, ctx, path.child("updateStrategy")))
        else:
            findings.extend(_validate_in_place_switch(worker, before, path))
        if is_in_place(worker) and new.image_known(i) and (j is None or old.image_known(j)):
            old_image = before.machine.image if before is not None else worker.machine.image
            version_path = path.child("machine", "image", "version")
            findings.extend(_validate_in_place_image_version(worker.machine.image, old_image, version_path))
    return findings


# ------------------------------------------------------------------------------------------ profile reference


def _validate_profile_reference(shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """SH-VER-001 (no cloudProfileName from 1.34 on) and SH-VER-002 (a reference of a supported kind); path: spec.

    An empty kind counts as CloudProfile: the API server's strategy sets it before validation.
    Source: gardener shoot.go ValidateCloudProfileReference; pkg/utils/gardener SyncCloudProfileFields.
    """
    findings: list[Finding] = []
    if satisfies(version, _GE_134) and shoot.spec.cloud_profile_name:
        detail = (
            "for Kubernetes version >= 1.34, cloudProfileName field is no longer supported, "
            "use spec.cloudProfile.name instead"
        )
        findings.append(SH_VER_001.forbidden(path.child("cloudProfileName"), detail))
    ref = shoot.spec.cloud_profile
    kind, name = "CloudProfile", shoot.spec.cloud_profile_name
    if ref is not None:
        kind, name = ref.kind or "CloudProfile", ref.name
    if not name:
        findings.append(SH_VER_002.required(path.child("cloudProfile", "name"), "must specify a cloud profile"))
    elif kind not in PROFILE_KINDS:
        findings.append(SH_VER_002.unsupported(path.child("cloudProfile", "kind"), kind, PROFILE_KINDS))
    return findings


@SH_VER_003.check
def _validate_bindings(shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """Shoots with workers (not self-hosted) need exactly one of secretBindingName / credentialsBindingName, and no
    secretBindingName from Kubernetes 1.34 on; workerless Shoots set neither. path: spec.
    """
    spec = shoot.spec
    workers = spec.provider.workers
    findings: list[Finding] = []
    if not workers:
        if spec.secret_binding_name is not None:
            findings.append(SH_VER_003.forbidden(path.child("secretBindingName"), WORKERLESS))
        if spec.credentials_binding_name is not None:
            findings.append(SH_VER_003.forbidden(path.child("credentialsBindingName"), WORKERLESS))
        return findings
    if any(w.control_plane is not None for w in workers):
        return findings  # self-hosted Shoots run their own infrastructure
    secret, credentials = spec.secret_binding_name or "", spec.credentials_binding_name or ""
    if not secret and not credentials:
        detail = "must be set when credentialsBindingName is not"
        findings.append(SH_VER_003.required(path.child("secretBindingName"), detail))
    elif secret and credentials:
        detail = "is incompatible with credentialsBindingName"
        findings.append(SH_VER_003.forbidden(path.child("secretBindingName"), detail))
    if secret and satisfies(version, _GE_134):
        findings.append(
            SH_VER_003.forbidden(
                path.child("secretBindingName"),
                "for Kubernetes versions >= 1.34, secretBindingName field is no longer supported, use "
                "spec.credentialsBindingName instead",
            )
        )
    return findings


@SH_VER_004.check
def _validate_addons(shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """`spec.addons` is forbidden for workerless Shoots and from Kubernetes 1.35 on; else its content is judged
    (SH-ADD-*, `addons`). path: spec.addons."""
    if shoot.spec.addons is None:
        return []
    if not shoot.spec.provider.workers:
        return [SH_VER_004.forbidden(path, "addons cannot be enabled for Workerless Shoot clusters")]
    if satisfies(version, _GE_135):
        return [SH_VER_004.forbidden(path, "for Kubernetes versions >= 1.35, addons field is no longer supported")]
    return addons.validate_addons(shoot.spec.addons, shoot.spec.purpose, path)


# ---------------------------------------------------------------------------------------------------- versions


# ----------------------------------------------------------------------------------------------------- workers


@SH_WRK_003.check
def _validate_worker_machine(worker: Worker, image_known: bool, path: FieldPath) -> list[Finding]:
    """Machine type, image, image name and image version are required (SH-WRK-003); path: workers[i].

    An omitted image (or name, or version) is what Gardener's mutator fills: it is resolved and announced
    (SH-WARN-006) or reported by SHM-005 / SH-ADM-REF-001 / CLUSTER-001, so it is required here only for Shoots
    without a profile reference, where nothing can ever fill it.
    """
    machine_path = path.child("machine")
    findings: list[Finding] = []
    if not worker.machine.type:
        findings.append(SH_WRK_003.required(machine_path.child("type"), "must specify a machine type"))
    if not image_known:
        return findings
    image = worker.machine.image
    if image is None:
        findings.append(SH_WRK_003.required(machine_path.child("image"), "must specify a machine image"))
        return findings
    if not image.name:
        findings.append(SH_WRK_003.required(machine_path.child("image", "name"), "must specify a machine image name"))
    if not image.version:
        detail = "must specify a machine image version"
        findings.append(SH_WRK_003.required(machine_path.child("image", "version"), detail))
    return findings


@SH_WRK_001.check
def _validate_cri(cri: CRI, path: FieldPath) -> list[Finding]:
    """CRI name containerd; container runtime types present and unique, reported at Gardener's lower-case
    `containerruntimes` path (SH-WRK-001); path: workers[i].cri.
    """
    findings: list[Finding] = []
    if cri.name not in CRI_NAMES:
        findings.append(SH_WRK_001.unsupported(path.child("name"), cri.name, CRI_NAMES))
    seen: set[str] = set()
    for k, runtime in enumerate(cri.container_runtimes):
        type_path = path.child("containerruntimes").index(k).child("type")
        if not runtime.type:
            findings.append(SH_WRK_001.required(type_path, "must specify a container runtime type"))
        if runtime.type in seen:
            # Gardener's value is the sentence "must specify different type, <type> already exist"; a finding shows
            # the value at its path, and Duplicate value: "<type>" says the rest.
            findings.append(SH_WRK_001.duplicate(type_path, runtime.type))
        seen.add(runtime.type)
    return findings


@SH_WRK_002.check
def _validate_architecture(architecture: str, path: FieldPath) -> list[Finding]:
    """A pool's CPU architecture is amd64 or arm64 (SH-WRK-002); path: workers[i].machine.architecture."""
    return [] if architecture in ARCHITECTURES else [SH_WRK_002.unsupported(path, architecture, ARCHITECTURES)]


# --------------------------------------------------------------------------------------------------- in-place


@SH_INP_001.check
def _validate_update_strategy(strategy: str | None, path: FieldPath) -> list[Finding]:
    """updateStrategy is one of Gardener's three (ValidateWorker); path: workers[i].updateStrategy."""
    if strategy is None or strategy in UPDATE_STRATEGIES:
        return []
    return [SH_INP_001.unsupported(path, strategy, UPDATE_STRATEGIES)]


@SH_INP_001.check
def _validate_in_place_gate(worker: Worker, ctx: StaticContext, path: FieldPath) -> list[Finding]:
    """In-place strategies need the InPlaceNodeUpdates gate, for new pools only (existing ones keep working)."""
    if ctx.in_place_gate or worker.update_strategy not in IN_PLACE_STRATEGIES:
        return []
    return [SH_INP_001.invalid(path, worker.update_strategy, _GATE_OFF)]


@SH_INP_001.check
def _validate_in_place_switch(new: Worker, old: Worker, path: FieldPath) -> list[Finding]:
    """An existing pool never switches between rolling and in-place updates, and an in-place pool keeps its machine
    type, image name, CRI name and volume. path: workers[i]. Source: gardener shoot.go ValidateProviderUpdate.
    """
    findings: list[Finding] = []
    was, now = is_in_place(old), is_in_place(new)
    strategy_path = path.child("updateStrategy")
    if was and not now:
        detail = "update strategy cannot be changed from AutoInPlaceUpdate/ManualInPlaceUpdate to AutoRollingUpdate"
        findings.append(SH_INP_001.invalid(strategy_path, new.update_strategy, detail))
    if now and not was:
        detail = "update strategy cannot be changed from AutoRollingUpdate to AutoInPlaceUpdate/ManualInPlaceUpdate"
        findings.append(SH_INP_001.invalid(strategy_path, new.update_strategy, detail))
    if not (now and new.update_strategy == old.update_strategy):
        return findings
    suffix = "cannot be changed if update strategy is AutoInPlaceUpdate/ManualInPlaceUpdate"
    if new.machine.type != old.machine.type:
        findings.append(SH_INP_001.invalid(path.child("machine", "type"), new.machine.type, f"machine type {suffix}"))
    new_image, old_image = new.machine.image, old.machine.image
    if new_image is not None and old_image is not None and new_image.name != old_image.name:
        name_path = path.child("machine", "image", "name")
        findings.append(SH_INP_001.invalid(name_path, new_image.name, f"machine image name {suffix}"))
    if new.cri is not None and old.cri is not None and new.cri.name != old.cri.name:
        findings.append(SH_INP_001.invalid(path.child("cri", "name"), new.cri.name, f"CRI name {suffix}"))
    if new.volume != old.volume:
        shown = new.volume.model_dump(by_alias=True, exclude_none=True) if new.volume is not None else None
        findings.append(SH_INP_001.invalid(path.child("volume"), shown, f"volume {suffix}"))
    return findings


@SH_INP_001.check
def _validate_in_place_image_version(
    new: ShootMachineImage | None, old: ShootMachineImage | None, path: FieldPath
) -> list[Finding]:
    """An in-place pool's machine image version is never downgraded; path: workers[i].machine.image.version.

    Source: gardener shoot.go validateMachineImageVersionInPlaceUpdate.
    """
    after = new.version if new is not None else None
    before = old.version if old is not None else None
    if not after:  # Gardener shows the whole image here; the finding shows the value at its path, the version
        return [SH_INP_001.invalid(path, "", "cannot validate machine image version upgrade because it is unset")]
    a, b = normalized(after), normalized(before or "")
    if a is not None and b is not None and a < b:
        detail = (
            "machine image version downgrade is not supported when the update strategy is AutoInPlaceUpdate or "
            "ManualInPlaceUpdate"
        )
        return [SH_INP_001.forbidden(path, detail)]
    return []


# ------------------------------------------------------------------------------------------------- CRI policy


def _configures_cri(cri: CRI | None) -> bool:
    """Whether a pool's CRI section says more than the API server's default ({name: containerd}).

    The default is written into every pool before a webhook sees it, so it cannot mean the user configured
    anything; container runtimes or another CRI name can.
    """
    return cri is not None and (cri.name not in CRI_NAMES or bool(cri.container_runtimes))


@SH_CRI_POL_001.check
def _validate_cri_policy(
    worker: Worker, image: ShootMachineImage | None, ctx: StaticContext, path: FieldPath
) -> list[Finding]:
    """Pools on machine images whose OS extension does not support CRI configuration do not configure their CRI
    (docs/requirements.md "OperatingSystemConfig contract": "prevent specifying the .spec.provider.workers[].cri section"); path: workers[i].cri.

    image: the effective machine image (as given, kept from the stored pool, or resolved).
    """
    name = image.name if image is not None else (worker.machine.image.name if worker.machine.image is not None else "")
    if not name or name not in ctx.cri_unsupported_images or not _configures_cri(worker.cri):
        return []
    detail = f'must not be configured: the OS extension of machine image "{name}" does not support CRI configuration'
    return [SH_CRI_POL_001.forbidden(path, detail)]


__all__ = ["RULES", "StaticContext", "validate_create_only", "validate_shoot", "validate_shoot_update"]
