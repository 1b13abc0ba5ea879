"""Shoot metadata (SH-META-*): the object metadata gardener-apiserver checks before the spec.

SH-META-001: apimachinery's ValidateObjectMeta with NameIsDNSLabel (name or generateName, namespace, labels,
annotations), then Gardener's "no two consecutive hyphens" on the name. SH-META-002: on CREATE, the Shoot name
together with its project's name at most 21 characters (16 for a generateName, which gets 5 random characters).
SH-META-003: the operations in the `gardener.cloud/operation` and `maintenance.gardener.cloud/operation`
annotations (`;`-separated): known, run in parallel only where allowed, not in both, not together with an
incompatible one, none that Kubernetes >= 1.34 or a Shoot with `spec.hibernation.enabled` refuses, and each
operation's context (validateShootOperationContext) as the Shoot's status in the request tells it: a rotation starts
only once the Shoot was created (its last operation), and only from the phase the credential's rotation is in; no
rotation with pending in-place worker updates; a workers rollout names existing pools. The status is the stored one
(gardener-apiserver copies it into the new object before validating), and a CREATE has none, so it starts no
rotation.
One check that reads the status is not made: an encryption change rolling out.
Name and namespace never change after CREATE (ValidateObjectMetaUpdate), so they are judged on CREATE only;
labels and annotations on every operation.
The project is found by gardener-apiserver among the Projects (the one whose spec.namespace is the Shoot's); the
view holds no Projects, so SH-META-002 reads the project name from the namespace as Gardener names a project's
namespace: `garden` for project `garden`, `garden-<project>` otherwise. A Shoot without a namespace (kubectl apply
takes it from the context) or in another namespace is not judged by it.
Source: gardener pkg/api/core/validation/shoot.go ValidateShootWithOpts, utils.go validateNameConsecutiveHyphens;
validateShootOperation; plugin/pkg/shoot/validator/admission.go validateProjectMembership; k8s.io/apimachinery pkg/api/validation
objectmeta.go ValidateObjectMeta.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.constraints import parse_constraint
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.models.base import ObjectMeta
from webhook.models.shoot import Shoot, ShootStatus
from webhook.validators.meta import (
    CONTAINER_RUNTIME_LABEL,
    DNS_RECORD_LABEL,
    EXPOSURE_LABEL,
    EXTENSION_LABEL,
    NETWORKING_LABEL,
    OPERATING_SYSTEM_LABEL,
    PROVIDER_LABEL,
    name_is_dns_label,
    validate_annotations,
    validate_labels,
    validate_object_name,
)
from webhook.validators.meta import validate_extension_labels as meta_extension_labels
from webhook.validators.shoot.effective import satisfies

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_META_001 = Rule(
    "SH-META-001",
    f"{_SHOOT} ValidateShootWithOpts (ValidateObjectMeta with NameIsDNSLabel, validateNameConsecutiveHyphens; with "
    "the labels plugin/pkg/global/extensionlabels sets)",
)
SH_META_002 = Rule("SH-META-002", "gardener/gardener plugin/pkg/shoot/validator/admission.go validateProjectMembership")

SH_META_003 = Rule("SH-META-003", f"{_SHOOT} validateShootOperation")

RULES: Final = (SH_META_001, SH_META_002, SH_META_003)

# gardener-apiserver's limit on len(project name + shoot name), and the random suffix a generateName gets.
NAME_LENGTH_LIMIT: Final = 21
GENERATED_SUFFIX_LENGTH: Final = 5
_GARDEN_NAMESPACE: Final = "garden"
_PROJECT_NAMESPACE_PREFIX: Final = "garden-"


def validate_metadata(meta: ObjectMeta, namespace: str, path: FieldPath, *, create: bool) -> list[Finding]:
    """SH-META-001 and, on CREATE, SH-META-002 on a Shoot's metadata; path: metadata. Never raises.

    namespace: the request's namespace, else metadata.namespace ("" when neither names one).
    """
    findings = _validate_object_meta(meta, path, create=create)
    if create:
        findings.extend(_validate_name_length(meta, namespace))
    return findings


@SH_META_001.check
def _validate_object_meta(meta: ObjectMeta, path: FieldPath, *, create: bool) -> list[Finding]:
    """Name (DNS label, no "--"), generateName, namespace on CREATE; labels and annotations always."""
    findings: list[Finding] = []
    if create:
        findings.extend(
            validate_object_name(
                SH_META_001, meta, path, namespaced=True, name_fn=name_is_dns_label, namespace_from_context=True
            )
        )
    findings.extend(validate_labels(SH_META_001, meta.labels, path.child("labels")))
    findings.extend(validate_annotations(SH_META_001, meta.annotations, path.child("annotations")))
    if create and "--" in meta.name:
        findings.append(
            SH_META_001.invalid(path.child("name"), meta.name, "name may not contain two consecutive hyphens")
        )
    return findings


def validate_extension_labels(shoot: Shoot, path: FieldPath) -> list[Finding]:
    """SH-META-001 on the labels gardener-apiserver's ExtensionLabels plugin derives from the Shoot's types before it
    validates the Shoot (`meta.validate_extension_labels`): provider, networking, each pool's container runtimes,
    machine image and exposure extension, managed DNS providers, enabled extensions; path: metadata.labels."""
    spec = shoot.spec
    types: list[tuple[str, str]] = [(EXTENSION_LABEL, e.type) for e in spec.extensions if e.disabled is not True]
    for pool in spec.provider.workers:
        if pool.cri is not None:
            types.extend((CONTAINER_RUNTIME_LABEL, runtime.type) for runtime in pool.cri.container_runtimes)
        if pool.machine.image is not None:
            types.append((OPERATING_SYSTEM_LABEL, pool.machine.image.name))
        exposure = pool.control_plane.exposure if pool.control_plane is not None else None
        if exposure is not None and exposure.extension is not None and exposure.extension.type is not None:
            types.append((EXPOSURE_LABEL, exposure.extension.type))
    if spec.dns is not None:
        types.extend((DNS_RECORD_LABEL, p.type) for p in spec.dns.providers if p.type not in (None, "unmanaged"))
    types.append((PROVIDER_LABEL, spec.provider.type))
    if spec.networking is not None and spec.networking.type is not None:
        types.append((NETWORKING_LABEL, spec.networking.type))
    return meta_extension_labels(SH_META_001, types, path)


def project_of_namespace(namespace: str) -> str | None:
    """The project name Gardener gives namespace `namespace` by default (`garden` -> garden, `garden-x` -> x), or
    None for any other namespace."""
    if namespace == _GARDEN_NAMESPACE:
        return _GARDEN_NAMESPACE
    if namespace.startswith(_PROJECT_NAMESPACE_PREFIX) and len(namespace) > len(_PROJECT_NAMESPACE_PREFIX):
        return namespace.removeprefix(_PROJECT_NAMESPACE_PREFIX)
    return None


@SH_META_002.check
def _validate_name_length(meta: ObjectMeta, namespace: str) -> list[Finding]:
    """len(project + name) <= 21, or len(project + generateName) <= 16 without a name; the path is gardener-apiserver's
    `name` (not metadata.name), the value the name ("" for a generateName)."""
    project = project_of_namespace(namespace)
    if project is None:
        return []
    path = FieldPath().child("name")
    if not meta.name and meta.generate_name:
        limit = NAME_LENGTH_LIMIT - GENERATED_SUFFIX_LENGTH
        if len((project + meta.generate_name).encode()) > limit:  # Go's len: bytes
            detail = (
                f"the length of the shoot generateName and the project name must not exceed {limit} characters "
                f"(project: {project}; shoot with generateName: {meta.generate_name})"
            )
            return [SH_META_002.invalid(path, meta.name, detail)]
    elif len((project + meta.name).encode()) > NAME_LENGTH_LIMIT:
        detail = (
            f"the length of the shoot name and the project name must not exceed {NAME_LENGTH_LIMIT} characters "
            f"(project: {project}; shoot: {meta.name})"
        )
        return [SH_META_002.invalid(path, meta.name, detail)]
    return []


# ------------------------------------------------------------------------------------------------ operations

OPERATION: Final = "gardener.cloud/operation"
MAINTENANCE_OPERATION: Final = "maintenance.gardener.cloud/operation"
_ROTATE_CREDENTIALS_START: Final = "rotate-credentials-start"
_ROTATE_CREDENTIALS_START_NO_ROLLOUT: Final = "rotate-credentials-start-without-workers-rollout"
_ROTATE_CREDENTIALS_COMPLETE: Final = "rotate-credentials-complete"
_ROTATE_CA_START: Final = "rotate-ca-start"
_ROTATE_CA_START_NO_ROLLOUT: Final = "rotate-ca-start-without-workers-rollout"
_ROTATE_SA_KEY_START: Final = "rotate-serviceaccount-key-start"
_ROTATE_SA_KEY_START_NO_ROLLOUT: Final = "rotate-serviceaccount-key-start-without-workers-rollout"
_ROTATE_ETCD_KEY: Final = "rotate-etcd-encryption-key"
_ROTATE_ETCD_KEY_START: Final = "rotate-etcd-encryption-key-start"
_ROTATE_ETCD_KEY_COMPLETE: Final = "rotate-etcd-encryption-key-complete"
# Operations that carry a pool name after the prefix (rotate-rollout-workers=pool-a,pool-b).
_WORKER_PREFIXES: Final = ("rotate-rollout-workers", "rollout-workers")
# forbiddenShootOperationsWhenHibernated, availableShootMaintenanceOperations (= those run in parallel),
# availableShootOperations.
FORBIDDEN_WHEN_HIBERNATED: Final = frozenset({
    _ROTATE_CREDENTIALS_START, _ROTATE_CREDENTIALS_START_NO_ROLLOUT, _ROTATE_CREDENTIALS_COMPLETE, _ROTATE_ETCD_KEY,
    _ROTATE_ETCD_KEY_START, _ROTATE_ETCD_KEY_COMPLETE, _ROTATE_SA_KEY_START, _ROTATE_SA_KEY_START_NO_ROLLOUT,
    "rotate-serviceaccount-key-complete",
})  # fmt: skip
PARALLEL_OPERATIONS: Final = FORBIDDEN_WHEN_HIBERNATED | {
    "reconcile", _ROTATE_CA_START, _ROTATE_CA_START_NO_ROLLOUT, "rotate-ca-complete", "rotate-observability-credentials",
    "rotate-ssh-keypair", *_WORKER_PREFIXES,
}  # fmt: skip
SHOOT_OPERATIONS: Final = tuple(sorted(PARALLEL_OPERATIONS | {"maintain", "retry", "force-in-place-update"}))
_FORBIDDEN_FROM_134: Final = frozenset({_ROTATE_ETCD_KEY_START, _ROTATE_ETCD_KEY_COMPLETE})
# incompatibleShootOperations, in Gardener's order of each list.
_INCOMPATIBLE: Final = {
    _ROTATE_CREDENTIALS_START: (_ROTATE_CA_START_NO_ROLLOUT, _ROTATE_SA_KEY_START_NO_ROLLOUT,
                                _ROTATE_CREDENTIALS_START_NO_ROLLOUT),
    _ROTATE_CREDENTIALS_START_NO_ROLLOUT: (_ROTATE_CA_START, _ROTATE_SA_KEY_START),
    _ROTATE_CA_START: (_ROTATE_CA_START_NO_ROLLOUT,),
    _ROTATE_SA_KEY_START: (_ROTATE_SA_KEY_START_NO_ROLLOUT,),
    _ROTATE_ETCD_KEY: (_ROTATE_ETCD_KEY_START,),
}  # fmt: skip
# What an operation in one annotation may not meet in the other (the "Validate operation conflicts" switch).
_START_CONFLICTS: Final = frozenset({
    _ROTATE_CA_START, _ROTATE_CA_START_NO_ROLLOUT, _ROTATE_SA_KEY_START, _ROTATE_SA_KEY_START_NO_ROLLOUT,
    _ROTATE_ETCD_KEY, _ROTATE_ETCD_KEY_START,
})  # fmt: skip
_COMPLETE_CONFLICTS: Final = frozenset(
    {"rotate-ca-complete", "rotate-serviceaccount-key-complete", _ROTATE_ETCD_KEY_COMPLETE}
)
_CONFLICTS: Final = {
    _ROTATE_CREDENTIALS_START: _START_CONFLICTS,
    _ROTATE_CREDENTIALS_START_NO_ROLLOUT: _START_CONFLICTS,
    _ROTATE_CREDENTIALS_COMPLETE: _COMPLETE_CONFLICTS,
}
_LESS_134: Final = parse_constraint("< 1.34-0")


def split_operations(value: str) -> list[str]:
    """gardener utils.SplitAndTrimString(value, ";"): [] for "", else every part trimmed (empty parts kept)."""
    return [part.strip() for part in value.split(";")] if value else []


def validate_operations(
    shoot: Shoot, version: str | None, path: FieldPath, *, stored: ShootStatus | None
) -> list[Finding]:
    """SH-META-003 on the operation annotations; version: the control plane's resolved Kubernetes version (None while
    unknown: the >= 1.34 check is skipped); path: metadata.annotations; stored: the stored Shoot's status on UPDATE,
    None on CREATE. The status the checks read is the one gardener-apiserver gives the new object before it
    validates: none on CREATE, the stored one on UPDATE (strategy.go PrepareForCreate, PrepareForUpdate), whatever
    status the request's object carries. Never raises."""
    annotations = shoot.metadata.annotations
    ops = split_operations(annotations.get(OPERATION, ""))
    maintenance = split_operations(annotations.get(MAINTENANCE_OPERATION, ""))
    if not ops and not maintenance:
        return []
    status = stored if stored is not None else _NO_STATUS
    judged = shoot if shoot.status == status else shoot.model_copy(update={"status": status})
    return _validate_operations(ops, maintenance, judged, version, path)


_NO_STATUS: Final = ShootStatus()


def _is_worker_operation(op: str) -> bool:
    return op.startswith(_WORKER_PREFIXES)


def _validate_known(ops: list[str], shoot: Shoot, path: FieldPath) -> list[Finding]:
    """The first unknown, not-parallel or self-hosted-refused operation of one annotation (Gardener stops there)."""
    self_hosted = any(w.control_plane is not None for w in shoot.spec.provider.workers)
    managed = shoot.spec.credentials_binding_name is not None or shoot.spec.secret_binding_name is not None
    for op in ops:
        if op not in SHOOT_OPERATIONS and not _is_worker_operation(op):
            return [SH_META_003.unsupported(path, op, SHOOT_OPERATIONS)]
        if len(ops) > 1 and op not in PARALLEL_OPERATIONS and not _is_worker_operation(op):
            return [
                SH_META_003.forbidden(
                    path, f"operation '{op}' is not permitted to be run in parallel with other operations"
                )
            ]
        if self_hosted and not managed and _is_worker_operation(op):
            detail = f"operation '{op}' is not permitted for self-hosted shoot clusters with unmanaged infrastructure"
            return [SH_META_003.forbidden(path, detail)]
    return []


@SH_META_003.check
def _validate_operations(
    ops: list[str], maintenance: list[str], shoot: Shoot, version: str | None, path: FieldPath
) -> list[Finding]:
    """validateShootOperation without its status checks; path: metadata.annotations."""
    if not ops and not maintenance:
        return []
    op_path, maintenance_path = path.index(OPERATION), path.index(MAINTENANCE_OPERATION)
    known = _validate_known(ops, shoot, op_path) or _validate_known(maintenance, shoot, maintenance_path)
    if known:  # Gardener returns at the first of these
        return known
    findings: list[Finding] = []
    if set(ops) & set(maintenance):
        detail = f"annotations {op_path} and {maintenance_path} must not have any equal operations"
        findings.append(SH_META_003.forbidden(path, detail))
    # helper.IsShootInHibernation: hibernation enabled in the spec, or the status says the Shoot is hibernated.
    hibernated = (
        shoot.spec.hibernation is not None and shoot.spec.hibernation.enabled is True
    ) or shoot.status.is_hibernated
    from_134 = version is not None and not satisfies(version, _LESS_134)
    for own, own_path, suffix in (
        (ops, op_path, "operations"),
        (maintenance, maintenance_path, "maintenance operations"),
    ):
        for op in own:
            if op in _FORBIDDEN_FROM_134 and from_134:  # Gardener names the operation annotation for both
                detail = (
                    f"for Kubernetes versions >= 1.34, operation '{op}' is no longer supported, please use "
                    "'rotate-etcd-encryption-key' instead, which performs a complete etcd encryption key rotation"
                )
                findings.append(SH_META_003.forbidden(op_path, detail))
            incompatible = _INCOMPATIBLE.get(op, ())
            if set(incompatible) & set(own):
                detail = f"operation '{op}' is not permitted to be run together with {', '.join(incompatible)} {suffix}"
                findings.append(SH_META_003.forbidden(own_path, detail))
            if hibernated and (op in FORBIDDEN_WHEN_HIBERNATED or _is_worker_operation(op)):
                detail = f"operation '{op}' is not permitted when shoot is hibernated or is waking up"
                findings.append(SH_META_003.forbidden(own_path, detail))
    for op in maintenance:
        clash = sorted(_CONFLICTS.get(op, frozenset()) & set(ops))
        if clash:
            detail = f"operation '{', '.join(clash)}' is not permitted when maintenance operation is '{op}'"
            findings.append(SH_META_003.forbidden(op_path, detail))
    for op in ops:
        clash = sorted(_CONFLICTS.get(op, frozenset()) & set(maintenance))
        if clash:
            detail = f"operation '{op}' is not permitted when maintenance operation is '{', '.join(clash)}'"
            findings.append(SH_META_003.forbidden(op_path, detail))
    for op in ops:
        findings.extend(_validate_context(op, shoot, version, op_path))
    if shoot.metadata.deletion_timestamp is None:  # a Shoot in deletion runs no maintenance
        for op in maintenance:
            findings.extend(_validate_context(op, shoot, version, maintenance_path))
    return findings


# Each rotation start: (what the message calls it, the credentials whose phase must be Completed, in Gardener's
# order; whether pending in-place worker updates forbid it).
_STARTS: Final = {
    _ROTATE_CREDENTIALS_START: ("rotation of all credentials", ("certificateAuthorities", "serviceAccountKey", "etcdEncryptionKey"), True),
    _ROTATE_CREDENTIALS_START_NO_ROLLOUT: ("rotation of all credentials", ("certificateAuthorities", "serviceAccountKey", "etcdEncryptionKey"), True),
    _ROTATE_CA_START: ("CA rotation", ("certificateAuthorities",), True),
    _ROTATE_CA_START_NO_ROLLOUT: ("CA rotation", ("certificateAuthorities",), True),
    _ROTATE_SA_KEY_START: ("service account key rotation", ("serviceAccountKey",), True),
    _ROTATE_SA_KEY_START_NO_ROLLOUT: ("service account key rotation", ("serviceAccountKey",), True),
    _ROTATE_ETCD_KEY: ("ETCD encryption key rotation", ("etcdEncryptionKey",), False),
    _ROTATE_ETCD_KEY_START: ("ETCD encryption key rotation", ("etcdEncryptionKey",), False),
}  # fmt: skip
# Each completion: (what the message calls it, the credentials whose phase must be Prepared).
_COMPLETES: Final = {
    _ROTATE_CREDENTIALS_COMPLETE: ("rotation of all credentials", ("certificateAuthorities", "serviceAccountKey", "etcdEncryptionKey")),
    "rotate-ca-complete": ("CA rotation", ("certificateAuthorities",)),
    "rotate-serviceaccount-key-complete": ("service account key rotation", ("serviceAccountKey",)),
    _ROTATE_ETCD_KEY_COMPLETE: ("ETCD encryption key rotation", ("etcdEncryptionKey",)),
}  # fmt: skip
_ROTATION_FIELDS: Final = {
    "certificateAuthorities": "certificate_authorities",
    "serviceAccountKey": "service_account_key",
    "etcdEncryptionKey": "etcd_encryption_key",
}


def _phase(shoot: Shoot, credential: str) -> str:
    """status.credentials.rotation.<credential>.phase ("" when absent: helper.GetShoot…RotationPhase)."""
    credentials = shoot.status.credentials
    rotation = credentials.rotation if credentials is not None else None
    entry = getattr(rotation, _ROTATION_FIELDS[credential]) if rotation is not None else None
    return str(getattr(entry, "phase", "") or "")


def _ready_for_rotation_start(shoot: Shoot) -> bool:
    """Gardener's isShootReadyForRotationStart: created or restored successfully, or reconciled since."""
    last = shoot.status.last_operation
    if last is None:
        return False
    if last.type in ("Create", "Restore") and last.state == "Succeeded":
        return True
    return last.type == "Reconcile"


def _validate_context(op: str, shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """validateShootOperationContext for one operation; path: the annotation's key. Source: gardener/gardener
    pkg/api/core/validation/shoot.go validateShootOperationContext, isShootReadyForRotationStart,
    validatePendingWorkerUpdates, validateOperationRolloutWorkers."""
    findings: list[Finding] = []
    if op in _STARTS:
        what, credentials, pending_forbids = _STARTS[op]
        if not _ready_for_rotation_start(shoot):
            detail = f"cannot start {what} if shoot was not yet created successfully or is not ready for reconciliation"
            findings.append(SH_META_003.forbidden(path, detail))
        for credential in credentials:
            if (phase := _phase(shoot, credential)) and phase != "Completed":
                detail = f"cannot start {what} if .status.credentials.rotation.{credential}.phase is not 'Completed'"
                findings.append(SH_META_003.forbidden(path, detail))
        if pending_forbids:
            findings.extend(_pending_worker_updates(shoot, what, path))
    elif op in _COMPLETES:
        what, credentials = _COMPLETES[op]
        less_134 = version is not None and satisfies(version, _LESS_134)
        for credential in credentials:
            if op == _ROTATE_CREDENTIALS_COMPLETE and credential == "etcdEncryptionKey" and not less_134:
                continue  # from 1.34 on, etcd's key rotates in one step
            if _phase(shoot, credential) != "Prepared":
                detail = f"cannot complete {what} if .status.credentials.rotation.{credential}.phase is not 'Prepared'"
                findings.append(SH_META_003.forbidden(path, detail))
    if op.startswith(_WORKER_PREFIXES[0]):
        findings.extend(_validate_rotate_rollout(op, shoot, path))
    elif op.startswith(_WORKER_PREFIXES[1]):
        findings.extend(_validate_rollout(op, shoot, path))
    return findings


def _pending_worker_updates(shoot: Shoot, what: str, path: FieldPath) -> list[Finding]:
    updates = shoot.status.in_place_updates
    pending = updates.pending_worker_updates if updates is not None else None
    if pending is None:
        return []
    found = []
    for name, pools in (("autoInPlaceUpdate", pending.auto_in_place_update),
                        ("manualInPlaceUpdate", pending.manual_in_place_update)):  # fmt: skip
        if pools:
            detail = f"cannot start {what} if status.inPlaceUpdates.pendingWorkerUpdates.{name} is not empty"
            found.append(SH_META_003.forbidden(path, detail))
    return found


def _pool_names(op: str, prefix: str) -> list[str]:
    """The pools an operation names, as Gardener splits them (strings.TrimPrefix of `prefix=`, then `,`)."""
    return op.removeprefix(prefix + "=").split(",")


def _validate_rotate_rollout(op: str, shoot: Shoot, path: FieldPath) -> list[Finding]:
    """rotate-rollout-workers=<pools>: a CA or service account key rotation waits for it; the pools exist."""
    findings: list[Finding] = []
    if "WaitingForWorkersRollout" not in (_phase(shoot, "certificateAuthorities"), _phase(shoot, "serviceAccountKey")):
        detail = (
            "either .status.credentials.rotation.certificateAuthorities.phase or .status.credentials.rotation."
            "serviceAccountKey.phase must be in 'WaitingForWorkersRollout' in order to trigger workers rollout"
        )
        findings.append(SH_META_003.forbidden(path, detail))
    names = _pool_names(op, _WORKER_PREFIXES[0])
    if "" in names:
        detail = f"must provide at least one pool name via {_WORKER_PREFIXES[0]}=<poolName1>[,<poolName2>,...]"
        findings.append(SH_META_003.required(path, detail))
    findings.extend(_validate_pool_names(names, shoot, path, in_place_refused=False))
    return findings


def _validate_rollout(op: str, shoot: Shoot, path: FieldPath) -> list[Finding]:
    """rollout-workers=<pools>|*: the pools exist, none rolls in place; `*` stands alone for every pool."""
    findings: list[Finding] = []
    names = _pool_names(op, _WORKER_PREFIXES[1])
    if "" in names:
        detail = (
            f"must provide either '*' or at least one pool name via {_WORKER_PREFIXES[1]}=<poolName1>[,<poolName2>,...]"
        )
        findings.append(SH_META_003.required(path, detail))
    if names == ["*"]:
        names = [w.name for w in shoot.spec.provider.workers]
    if "*" in names:
        findings.append(SH_META_003.forbidden(path, "if '*' is provided, no other pool names are allowed"))
    findings.extend(_validate_pool_names(names, shoot, path, in_place_refused=True))
    return findings


def _validate_pool_names(names: list[str], shoot: Shoot, path: FieldPath, *, in_place_refused: bool) -> list[Finding]:
    findings: list[Finding] = []
    seen: set[str] = set()
    pools = {w.name: w for w in shoot.spec.provider.workers}
    for name in names:
        if name in seen:
            # Gardener's field.Duplicate(path, "pool name … multiple times"): the sentence is the value.
            findings.append(SH_META_003.duplicate(path, f"pool name {name} was specified multiple times"))
        seen.add(name)
        if name not in pools:
            detail = f"worker pool name {name} does not exist in .spec.provider.workers[]"
            findings.append(SH_META_003.invalid(path, name, detail))
        elif in_place_refused and pools[name].update_strategy in ("AutoInPlaceUpdate", "ManualInPlaceUpdate"):
            detail = f"worker pool {name} is using in-place update strategy; manual worker pool rollout is not supported for such pools"
            findings.append(SH_META_003.invalid(path, name, detail))
    return findings
