"""Shoot metadata (SH-META-001, SH-META-002) and addons (SH-ADD-001…005): tables per rule id.

Cases come from Gardener's own tables (pkg/api/core/validation/shoot_test.go "Shoot metadata" and "Addons
validation"); each `*-message` case holds the line the Go code prints for the same input, worked out from the Go
source (the field.Error constructors and apimachinery's validation messages).
"""

from __future__ import annotations

import copy
from typing import Any, Final

import pytest

from tests.validators.shoot.cases import (
    FOR,
    INV,
    REQ,
    UNS,
    Triples,
    create,
    shoot_dict,
    triples,
    update,
    verdict_create,
    verdict_update,
)
from webhook.admission.rendering import render_line
from webhook.domain.field import ErrorType, Verdict

TOO_LONG = ErrorType.TOO_LONG
NAME = "metadata.name"
ADDONS = "spec.addons"
NGINX = "spec.addons.nginxIngress"


def named(name: str = "crazy-botany", namespace: str = "garden-dev", **meta: Any) -> dict[str, Any]:
    raw = shoot_dict()
    raw["metadata"] = {"name": name, "namespace": namespace, **meta}
    return raw


def only(rule_prefix: str, found: Triples) -> Triples:
    return [t for t in found if t[0].startswith(rule_prefix)]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(named(), [], id="SH-META-001-valid"),
        pytest.param(named(""), [("SH-META-001", NAME, REQ)], id="SH-META-001-no-name"),
        pytest.param(named("shoot.test"), [("SH-META-001", NAME, INV)], id="SH-META-001-dot"),
        pytest.param(named("shoot_test"), [("SH-META-001", NAME, INV)], id="SH-META-001-underscore"),
        pytest.param(named("sho--oot"), [("SH-META-001", NAME, INV)], id="SH-META-001-consecutive-hyphens"),
        pytest.param(named("Dev_Cluster"), [("SH-META-001", NAME, INV)], id="SH-META-001-upper"),
        pytest.param(named("", generateName="dev-"), [], id="SH-META-001-generate-name"),
        pytest.param(
            named("", generateName="Dev-"), [("SH-META-001", "metadata.generateName", INV)], id="SH-META-001-bad-prefix"
        ),
        pytest.param(named(namespace=""), [], id="SH-META-001-namespace-from-context"),
        pytest.param(named(namespace="Garden_dev"), [("SH-META-001", "metadata.namespace", INV)], id="SH-META-001-ns"),
        pytest.param(
            named(labels={"-bad": "x"}), [("SH-META-001", "metadata.labels", INV)], id="SH-META-001-label-key"
        ),
        pytest.param(
            named(labels={"app": "no/slash/allowed"}), [("SH-META-001", "metadata.labels", INV)], id="SH-META-001-value"
        ),
        pytest.param(
            named(annotations={"a/b/c": "x"}), [("SH-META-001", "metadata.annotations", INV)], id="SH-META-001-annot"
        ),
        pytest.param(named(annotations={"Upper.Case/Key": "x"}), [], id="SH-META-001-annotation-key-any-case"),
        pytest.param(
            named(annotations={"big": "x" * (256 * 1024)}),
            [("SH-META-001", "metadata.annotations", TOO_LONG)],
            id="SH-META-001-annotations-too-big",
        ),
        pytest.param(named("a-shoot-of-18-char", "garden-dev"), [], id="SH-META-002-21"),
        pytest.param(named("a-shoot-of-19-chars", "garden-dev"), [("SH-META-002", "name", INV)], id="SH-META-002-22"),
        pytest.param(named("crazy-botany-15", "garden"), [], id="SH-META-002-garden-project"),
        pytest.param(named("crazy-botany-16c", "garden"), [("SH-META-002", "name", INV)], id="SH-META-002-garden-22"),
        pytest.param(named("a-shoot-of-19-chars", "team-x"), [], id="SH-META-002-not-a-project-namespace"),
        pytest.param(named("", "garden-dev", generateName="shoot-of-13-"), [], id="SH-META-002-generate-16"),
        pytest.param(
            named("", "garden-dev", generateName="shoot-of-14ch-"), [("SH-META-002", "name", INV)], id="SH-META-002-gen"
        ),
    ],
)
def test_metadata(raw: dict[str, Any], expected: Triples) -> None:
    assert only("SH-META", create(raw)) == expected


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        pytest.param(
            named("sho--oot"),
            'metadata.name: Invalid value: "sho--oot": name may not contain two consecutive hyphens',
            id="SH-META-001-hyphens-message",
        ),
        pytest.param(
            named("shoot.test"),
            'metadata.name: Invalid value: "shoot.test": must not contain dots',
            id="SH-META-001-dot",
        ),
        pytest.param(
            named(labels={"-bad": "x"}),
            "metadata.labels: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or "
            "'.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
            "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            id="SH-META-001-label-message",
        ),
        pytest.param(
            named(annotations={"big": "x" * (256 * 1024)}),
            "metadata.annotations: Too long: may not be more than 262144 bytes",
            id="SH-META-001-annotations-message",
        ),
        pytest.param(
            named("a-shoot-of-19-chars"),
            'name: Invalid value: "a-shoot-of-19-chars": the length of the shoot name and the project name must not '
            "exceed 21 characters (project: dev; shoot: a-shoot-of-19-chars)",
            id="SH-META-002-message",
        ),
        pytest.param(
            named("", generateName="shoot-of-14ch-"),
            'name: Invalid value: "": the length of the shoot generateName and the project name must not exceed 16 '
            "characters (project: dev; shoot with generateName: shoot-of-14ch-)",
            id="SH-META-002-generate-name-message",
        ),
    ],
)
def test_metadata_messages(raw: dict[str, Any], line: str) -> None:
    """The line kube-apiserver / gardener-apiserver print for the same input (Go: field.Error.Error())."""
    lines = [render_line(f) for f in verdict_create(raw).errors if f.rule.id.startswith("SH-META")]
    assert lines[-1:] == [line]


def test_metadata_name_is_judged_on_create_only() -> None:
    """Name and namespace are immutable: a stored name is not judged again; changed labels are."""
    old = named("sho--oot")
    new = copy.deepcopy(old)
    new["spec"]["region"] = "eu-2"
    assert only("SH-META", update(new, old)) == []
    new["metadata"]["labels"] = {"-bad": "x"}
    assert only("SH-META", update(new, old)) == [("SH-META-001", "metadata.labels", INV)]


# ----------------------------------------------------------------------------------------------------- addons


def with_addons(addons: dict[str, Any], purpose: str | None = "evaluation", version: str = "1.34.2") -> dict[str, Any]:
    raw = shoot_dict(version=version, addons=addons)
    if purpose is not None:
        raw["spec"]["purpose"] = purpose
    return raw


def nginx(**fields: Any) -> dict[str, Any]:
    return {"nginxIngress": {"enabled": True, **fields}}


DASHBOARD = {"kubernetesDashboard": {"enabled": True}}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(with_addons(DASHBOARD), [], id="SH-ADD-001-evaluation"),
        pytest.param(with_addons(DASHBOARD, purpose=None), [], id="SH-ADD-001-purpose-defaults-to-evaluation"),
        pytest.param(with_addons(DASHBOARD, "testing"), [("SH-ADD-001", ADDONS, FOR)], id="SH-ADD-001-testing"),
        pytest.param(with_addons(nginx(), "development"), [("SH-ADD-001", ADDONS, FOR)], id="SH-ADD-001-development"),
        pytest.param(with_addons(DASHBOARD, "production"), [("SH-ADD-001", ADDONS, FOR)], id="SH-ADD-001-production"),
        pytest.param(
            with_addons({"nginxIngress": {"enabled": False}}, "production"), [], id="SH-ADD-001-disabled-addons"
        ),
        pytest.param(
            with_addons(DASHBOARD, version="1.35.0"), [("SH-VER-004", ADDONS, FOR)], id="SH-ADD-001-not-from-1.35"
        ),
        pytest.param(
            with_addons(nginx(loadBalancerSourceRanges=["192.168.123.56/32", "2001:db8::/64"])),
            [],
            id="SH-ADD-002-valid",
        ),
        pytest.param(
            with_addons(
                nginx(loadBalancerSourceRanges=["", "invalid-source-range", "192.168.123.56/33", "2001:db.8::/64"])
            ),
            [("SH-ADD-002", f"{NGINX}.loadBalancerSourceRanges[{i}]", INV) for i in range(4)],
            id="SH-ADD-002-invalid",
        ),
        pytest.param(
            with_addons(nginx(loadBalancerSourceRanges=["10.0.0.1/8", "010.0.0.0/8", "::ffff:10.0.0.0/104"])),
            [("SH-ADD-002", f"{NGINX}.loadBalancerSourceRanges[{i}]", INV) for i in range(3)],
            id="SH-ADD-002-strict",
        ),
        pytest.param(
            with_addons({"nginxIngress": {"enabled": False, "loadBalancerSourceRanges": ["x"]}}),
            [],
            id="SH-ADD-002-disabled",
        ),
        pytest.param(with_addons(nginx(config={"foo": "bar"})), [], id="SH-ADD-003-valid"),
        pytest.param(
            with_addons(nginx(config={"$/{}|][": "1", "a" * 260: "2", "valid-key": "b" * (1024 * 1024)})),
            [
                ("SH-ADD-003", f"{NGINX}.config[$/{{}}|][]", INV),
                ("SH-ADD-003", f"{NGINX}.config[{'a' * 260}]", INV),
                ("SH-ADD-003", f"{NGINX}.config", TOO_LONG),
            ],
            id="SH-ADD-003-invalid",
        ),
        pytest.param(with_addons(nginx(externalTrafficPolicy="Cluster")), [], id="SH-ADD-004-cluster"),
        pytest.param(with_addons(nginx(externalTrafficPolicy="Local")), [], id="SH-ADD-004-local"),
        pytest.param(
            with_addons(nginx(externalTrafficPolicy="something-else")),
            [("SH-ADD-004", f"{NGINX}.externalTrafficPolicy", UNS)],
            id="SH-ADD-004-unsupported",
        ),
        pytest.param(
            with_addons({"kubernetesDashboard": {"enabled": True, "authenticationMode": "token"}}), [], id="SH-ADD-005"
        ),
        pytest.param(
            with_addons({"kubernetesDashboard": {"enabled": True, "authenticationMode": "does-not-exist"}}),
            [("SH-ADD-005", f"{ADDONS}.kubernetesDashboard.authenticationMode", UNS)],
            id="SH-ADD-005-unsupported",
        ),
    ],
)
def test_addons(raw: dict[str, Any], expected: Triples) -> None:
    found = [t for t in create(raw) if t[0].startswith(("SH-ADD", "SH-VER-004"))]
    assert found == expected


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        pytest.param(
            with_addons(DASHBOARD, "production"),
            ["spec.addons: Forbidden: addons can only be enabled on shoots with .spec.purpose=evaluation"],
            id="SH-ADD-001-message",
        ),
        pytest.param(
            with_addons(
                nginx(
                    loadBalancerSourceRanges=[
                        "192.168.123.56/33",
                        "10.0.0.1/8",
                        "010.0.0.0/8",
                        "10.0.0.0/08",
                        "::ffff:10.0.0.0/104",
                        "2001:DB8::/64",
                    ]
                )
            ),
            [
                (
                    f'{NGINX}.loadBalancerSourceRanges[0]: Invalid value: "192.168.123.56/33": must be a valid CIDR value, '
                    "(e.g. 10.9.8.0/24 or 2001:db8::/64)"
                ),
                (
                    f'{NGINX}.loadBalancerSourceRanges[1]: Invalid value: "10.0.0.1/8": must not have bits set beyond the '
                    "prefix length"
                ),
                (
                    f'{NGINX}.loadBalancerSourceRanges[2]: Invalid value: "010.0.0.0/8": must not have leading 0s in IP or '
                    "prefix length"
                ),
                (
                    f'{NGINX}.loadBalancerSourceRanges[3]: Invalid value: "10.0.0.0/08": must not have leading 0s in IP or '
                    "prefix length"
                ),
                (
                    f'{NGINX}.loadBalancerSourceRanges[4]: Invalid value: "::ffff:10.0.0.0/104": must not have an '
                    "IPv4-mapped IPv6 address"
                ),
                (
                    f'{NGINX}.loadBalancerSourceRanges[5]: Invalid value: "2001:DB8::/64": must be in canonical form '
                    '("2001:db8::/64")'
                ),
            ],
            id="SH-ADD-002-messages",
        ),
        pytest.param(
            with_addons(nginx(config={"..x": "1"})),
            [
                f"{NGINX}.config[..x]: Invalid value: \"..x\": must not start with '..'",
            ],
            id="SH-ADD-003-message",
        ),
        pytest.param(
            with_addons(nginx(config={"k": "b" * (1024 * 1024 + 1)})),
            [f"{NGINX}.config: Too long: may not be more than 1048576 bytes"],
            id="SH-ADD-003-size-message",
        ),
        pytest.param(
            with_addons(nginx(externalTrafficPolicy="something-else")),
            [
                f'{NGINX}.externalTrafficPolicy: Unsupported value: "something-else": supported values: "Cluster", "Local"'
            ],
            id="SH-ADD-004-message",
        ),
        pytest.param(
            with_addons({"kubernetesDashboard": {"enabled": True, "authenticationMode": "basic"}}),
            [
                (
                    'spec.addons.kubernetesDashboard.authenticationMode: Unsupported value: "basic": supported values: '
                    '"token"'
                )
            ],
            id="SH-ADD-005-message",
        ),
    ],
)
def test_addons_messages(raw: dict[str, Any], lines: list[str]) -> None:
    """The lines gardener-apiserver prints for the same input (Go: field.Error.Error() of validateAddons' errors)."""
    assert [render_line(f) for f in verdict_create(raw).errors if f.rule.id.startswith("SH-ADD")] == lines


# ------------------------------------------------------------------------------------------------- operations

OP = "metadata.annotations[gardener.cloud/operation]"
MOP = "metadata.annotations[maintenance.gardener.cloud/operation]"


RECONCILED: Final = {"lastOperation": {"type": "Reconcile", "state": "Succeeded"}}


def operations(
    op: str | None = None, maintenance: str | None = None, status: dict[str, Any] | None = None, **spec: Any
) -> dict[str, Any]:
    """A Shoot with these operation annotations, as stored with `status` (by default a Shoot Gardener created and
    reconciled, so that a rotation may start): the stored status is what validateShootOperationContext reads. The
    stored Shoot itself has no operation annotation (a user adds it now)."""
    raw = shoot_dict(**spec)
    annotations = {"gardener.cloud/operation": op, "maintenance.gardener.cloud/operation": maintenance}
    raw["metadata"]["annotations"] = {k: v for k, v in annotations.items() if v is not None}
    raw["status"] = RECONCILED if status is None else status
    return raw


def annotated(raw: dict[str, Any]) -> Verdict:
    """The verdict on adding `raw`'s operation annotations to the stored Shoot (`raw` without them)."""
    stored = copy.deepcopy(raw)
    stored["metadata"]["annotations"] = {}
    return verdict_update(raw, stored)


def rotating(**phases: str) -> dict[str, Any]:
    """A reconciled Shoot's status with these credential rotation phases (certificateAuthorities=…)."""
    return {**RECONCILED, "credentials": {"rotation": {k: {"phase": v} for k, v in phases.items()}}}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(operations("reconcile"), [], id="SH-META-003-reconcile"),
        pytest.param(
            operations(
                "rotate-rollout-workers=pool-a", status=rotating(certificateAuthorities="WaitingForWorkersRollout")
            ),
            [],
            id="SH-META-003-worker-prefix",
        ),
        pytest.param(operations("rotate-ca-start;rotate-ssh-keypair"), [], id="SH-META-003-parallel"),
        pytest.param(operations("foo"), [("SH-META-003", OP, UNS)], id="SH-META-003-unknown"),
        pytest.param(operations(maintenance="foo"), [("SH-META-003", MOP, UNS)], id="SH-META-003-unknown-maintenance"),
        pytest.param(operations("maintain;retry"), [("SH-META-003", OP, FOR)], id="SH-META-003-not-parallel"),
        pytest.param(
            operations("reconcile", "reconcile"), [("SH-META-003", "metadata.annotations", FOR)], id="SH-META-003-equal"
        ),
        pytest.param(
            operations("rotate-ca-start;rotate-ca-start-without-workers-rollout"),
            [("SH-META-003", OP, FOR)],
            id="SH-META-003-incompatible",
        ),
        pytest.param(
            operations("rotate-credentials-start", hibernation={"enabled": True}),
            [("SH-META-003", OP, FOR)],
            id="SH-META-003-hibernated",
        ),
        pytest.param(
            operations("rotate-etcd-encryption-key-start", version="1.34.1"),
            [("SH-META-003", OP, FOR)],
            id="SH-META-003-from-1.34",
        ),
        pytest.param(operations("rotate-etcd-encryption-key-start"), [], id="SH-META-003-before-1.34"),
        pytest.param(
            operations(maintenance="rotate-etcd-encryption-key-complete", version="1.34.1"),
            # The version's refusal is at the operation annotation, the context's at the maintenance one.
            [("SH-META-003", OP, FOR), ("SH-META-003", MOP, FOR)],
            id="SH-META-003-from-1.34-maintenance-at-gardeners-path",
        ),
        pytest.param(
            operations("rotate-ca-start", "rotate-credentials-start"),
            [("SH-META-003", OP, FOR)],
            id="SH-META-003-conflict-with-maintenance",
        ),
    ],
)
def test_operations(raw: dict[str, Any], expected: Triples) -> None:
    assert only("SH-META", triples(annotated(raw))) == expected


@pytest.mark.parametrize(
    ("raw", "lines"),
    [
        pytest.param(operations("rotate-ca-start", status={}), [
            (f"{OP}: Forbidden: cannot start CA rotation if shoot was not yet created successfully or is not ready "
            "for reconciliation")], id="start-before-the-shoot-was-created"),
        pytest.param(operations("rotate-ca-start", status={"lastOperation": {"type": "Create", "state": "Failed"}}),
                     [(f"{OP}: Forbidden: cannot start CA rotation if shoot was not yet created successfully or is not "
                      "ready for reconciliation")], id="start-after-a-failed-create"),
        pytest.param(operations("rotate-ca-start", status={"lastOperation": {"type": "Restore", "state": "Succeeded"}}),
                     [], id="start-after-a-restore"),
        pytest.param(operations("rotate-ca-start", status=rotating(certificateAuthorities="Preparing")), [
            (f"{OP}: Forbidden: cannot start CA rotation if .status.credentials.rotation.certificateAuthorities.phase "
            "is not 'Completed'")], id="start-while-rotating"),
        pytest.param(operations("rotate-ca-start", status=rotating(certificateAuthorities="Completed")), [],
                     id="start-after-a-completed-rotation"),
        pytest.param(operations("rotate-credentials-complete", status=rotating(certificateAuthorities="Prepared",
                                                                               serviceAccountKey="Preparing")),
                     [(f"{OP}: Forbidden: cannot complete rotation of all credentials if "
                      ".status.credentials.rotation.serviceAccountKey.phase is not 'Prepared'"),
                      (f"{OP}: Forbidden: cannot complete rotation of all credentials if "
                      ".status.credentials.rotation.etcdEncryptionKey.phase is not 'Prepared'")],
                     id="complete-before-prepared"),
        pytest.param(operations("rotate-credentials-complete", version="1.34.1",
                                status=rotating(certificateAuthorities="Prepared", serviceAccountKey="Prepared")),
                     [], id="complete-from-1.34-without-the-etcd-key"),
        pytest.param(operations("rotate-ca-start", status={**RECONCILED, "inPlaceUpdates": {
            "pendingWorkerUpdates": {"manualInPlaceUpdate": ["pool-a"]}}}),
                     [(f"{OP}: Forbidden: cannot start CA rotation if "
                      "status.inPlaceUpdates.pendingWorkerUpdates.manualInPlaceUpdate is not empty")],
                     id="start-with-pending-in-place-updates"),
        pytest.param(operations("rotate-rollout-workers=pool-a,pool-x"), [
            (f"{OP}: Forbidden: either .status.credentials.rotation.certificateAuthorities.phase or "
            ".status.credentials.rotation.serviceAccountKey.phase must be in 'WaitingForWorkersRollout' in order to "
            "trigger workers rollout"),
            f'{OP}: Invalid value: "pool-x": worker pool name pool-x does not exist in .spec.provider.workers[]'],
                     id="rotate-rollout-of-an-unknown-pool"),
        pytest.param(operations("rollout-workers=pool-a,pool-a"), [
            f'{OP}: Duplicate value: "pool name pool-a was specified multiple times"'], id="rollout-a-pool-twice"),
        pytest.param(operations("rollout-workers=*"), [], id="rollout-every-pool"),
        pytest.param(operations("rollout-workers=*,pool-a"), [
            f"{OP}: Forbidden: if '*' is provided, no other pool names are allowed",
            f'{OP}: Invalid value: "*": worker pool name * does not exist in .spec.provider.workers[]'],
                     id="rollout-star-and-more"),
        pytest.param(operations(maintenance="rotate-ca-start", status={}), [
            (f"{MOP}: Forbidden: cannot start CA rotation if shoot was not yet created successfully or is not ready "
            "for reconciliation")], id="maintenance-start-before-the-shoot-was-created"),
        pytest.param(operations("rotate-credentials-start", status={"hibernated": True, **RECONCILED}), [
            (f"{OP}: Forbidden: operation 'rotate-credentials-start' is not permitted when shoot is hibernated or is "
            "waking up")], id="hibernated-per-status"),
    ],
)  # fmt: skip
def test_operation_contexts(raw: dict[str, Any], lines: list[str]) -> None:
    """validateShootOperationContext: the Shoot's status decides whether an operation may run (Gardener's wording;
    the cases the differential against gardener-apiserver found allowed)."""
    assert [render_line(f) for f in annotated(raw).errors if f.rule.id == "SH-META-003"] == lines


def test_a_created_shoot_has_no_status_to_start_a_rotation_from() -> None:
    """gardener-apiserver clears the status of a new Shoot before it validates it: whatever the manifest says."""
    raw = operations("rotate-ca-start")
    assert [render_line(f) for f in verdict_create(raw).errors if f.rule.id == "SH-META-003"] == [
        (
            f"{OP}: Forbidden: cannot start CA rotation if shoot was not yet created successfully or is not ready for "
            "reconciliation"
        )
    ]


@pytest.mark.parametrize(
    ("maintenance", "op", "detail"),
    [  # Gardener's table "should forbid operations when the maintenance operation conflicts" (shoot_test.go)
        ("rotate-credentials-start", "rotate-ca-start",
         "operation 'rotate-ca-start' is not permitted when maintenance operation is 'rotate-credentials-start'"),
        ("rotate-credentials-start", "rotate-ca-start; rotate-etcd-encryption-key",
         ("operation 'rotate-ca-start, rotate-etcd-encryption-key' is not permitted when maintenance operation is "
         "'rotate-credentials-start'")),
        ("rotate-credentials-complete", "rotate-ca-complete; rotate-serviceaccount-key-complete",
         ("operation 'rotate-ca-complete, rotate-serviceaccount-key-complete' is not permitted when maintenance "
         "operation is 'rotate-credentials-complete'")),
        ("rotate-ca-start; rotate-etcd-encryption-key", "rotate-credentials-start",
         ("operation 'rotate-credentials-start' is not permitted when maintenance operation is 'rotate-ca-start, "
         "rotate-etcd-encryption-key'")),
    ],
)  # fmt: skip
def test_operation_conflicts(maintenance: str, op: str, detail: str) -> None:
    status = rotating(certificateAuthorities="Prepared", serviceAccountKey="Prepared", etcdEncryptionKey="Prepared")
    raw = operations(op, maintenance, status=status if "complete" in op else None)
    lines = [render_line(f) for f in annotated(raw).errors]
    assert lines == [f"{OP}: Forbidden: {detail}"]


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        pytest.param(
            operations("foo"),
            f'{OP}: Unsupported value: "foo": supported values: "force-in-place-update", "maintain", "reconcile", '
            '"retry", "rollout-workers", "rotate-ca-complete", "rotate-ca-start", '
            '"rotate-ca-start-without-workers-rollout", "rotate-credentials-complete", "rotate-credentials-start", '
            '"rotate-credentials-start-without-workers-rollout", "rotate-etcd-encryption-key", '
            '"rotate-etcd-encryption-key-complete", "rotate-etcd-encryption-key-start", '
            '"rotate-observability-credentials", "rotate-rollout-workers", "rotate-serviceaccount-key-complete", '
            '"rotate-serviceaccount-key-start", "rotate-serviceaccount-key-start-without-workers-rollout", '
            '"rotate-ssh-keypair"',
            id="SH-META-003-unknown-message",
        ),
        pytest.param(
            operations("rotate-etcd-encryption-key-start", version="1.34.0"),
            f"{OP}: Forbidden: for Kubernetes versions >= 1.34, operation 'rotate-etcd-encryption-key-start' is no "
            "longer supported, please use 'rotate-etcd-encryption-key' instead, which performs a complete etcd "
            "encryption key rotation",
            id="SH-META-003-1.34-message",
        ),
        pytest.param(
            operations("reconcile", "reconcile"),
            f"metadata.annotations: Forbidden: annotations {OP} and {MOP} must not have any equal operations",
            id="SH-META-003-equal-message",
        ),
        pytest.param(
            operations("rotate-credentials-start;rotate-ca-start-without-workers-rollout"),
            f"{OP}: Forbidden: operation 'rotate-credentials-start' is not permitted to be run together with "
            "rotate-ca-start-without-workers-rollout, rotate-serviceaccount-key-start-without-workers-rollout, "
            "rotate-credentials-start-without-workers-rollout operations",
            id="SH-META-003-incompatible-message",
        ),
    ],
)
def test_operation_messages(raw: dict[str, Any], line: str) -> None:
    """The line gardener-apiserver prints for the same input (Go: validateShootOperation's field.Error)."""
    assert [render_line(f) for f in annotated(raw).errors if f.rule.id == "SH-META-003"] == [line]


@pytest.mark.parametrize(
    ("spec", "keys"),
    [
        pytest.param({}, [], id="every-type-makes-a-valid-label"),
        pytest.param({"networking": {"type": ""}}, ["networking.extensions.gardener.cloud/"], id="empty-networking"),
        pytest.param({"extensions": [{"type": "a b"}]}, ["extensions.extensions.gardener.cloud/a b"], id="extension"),
        pytest.param({"extensions": [{"type": "a b", "disabled": True}]}, [], id="disabled-extension"),
        pytest.param({"dns": {"providers": [{"type": "-x-"}, {"type": "unmanaged"}]}},
                     ["dnsrecord.extensions.gardener.cloud/-x-"], id="dns-provider"),
    ],
)  # fmt: skip
def test_the_labels_gardener_derives_from_types(spec: dict[str, Any], keys: list[str]) -> None:
    """gardener-apiserver's ExtensionLabels plugin labels the Shoot with each type it names; a type that makes no
    label key is refused at metadata.labels (besides its own field), as the differential against it showed."""
    raw = shoot_dict(**spec)
    found = [f for f in verdict_create(raw).errors if str(f.path) == "metadata.labels"]
    assert sorted({f.value for f in found}) == keys
    assert all(f.rule.id == "SH-META-001" for f in found)
