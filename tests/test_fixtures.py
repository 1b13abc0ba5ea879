"""The repository's own landscape fixtures (tests/fixtures/), judged through the public CLI as a user would run it.

tests/fixtures/ holds manifests written for this project: a garden landscape (CloudProfile "aws", the
NamespacedCloudProfile garden-team/aws-team and three Shoots), a seed's OperatingSystemConfig, and the Gardener
control plane with a Gardenlet and a ManagedSeed. Every test calls `webhook.cli.main` and reads what `review` and
`audit` print, so the suite covers realistic objects end to end without the external corpus of real manifests.

The clock is fixed: NOW (2026-11-21T12:00:00Z) for the landscape as it stands, LATER (2027-02-01T12:00:00Z) for
the same landscape after 1.33.5, 1.32.8, 1.31.10, the 1.30 line, gardenlinux 1592.14.0 and 1592.12.0 and
suse-chost 15.5 have expired. Broken variants are the fixtures edited in Python and written to tmp_path; each
asserted denial line was checked against the Gardener rule it reproduces (rules catalogue docs/rules.md, id in
the case name).
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from webhook.cli import main

FIXTURES: Final = Path(__file__).resolve().parent / "fixtures"
LANDSCAPE: Final = FIXTURES / "landscape"
SEED: Final = FIXTURES / "seed"
GARDEN: Final = FIXTURES / "garden"
NOW: Final = "2026-11-21T12:00:00Z"
LATER: Final = "2027-02-01T12:00:00Z"

Manifest = dict[str, Any]
Report = list[tuple[str, list[str]]]


def run(*argv: str | Path) -> tuple[int, str]:
    """`gardener-webhook <argv>`: (exit status, standard output)."""
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def parse_report(output: str) -> Report:
    """`review` text output as [(object line, [its indented denial/warning/hint lines, unindented])]."""
    report: Report = []
    for line in output.splitlines():
        if line.startswith("  "):
            assert report, f"indented line before any object line: {line!r}"
            report[-1][1].append(line[2:])
        elif line:
            report.append((line, []))
    return report


def load(path: Path) -> Manifest:
    """The single object of a fixture file."""
    documents = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    assert len(documents) == 1, f"{path} holds {len(documents)} objects"
    document: Manifest = documents[0]
    return document


def write(directory: Path, name: str, obj: Manifest) -> Path:
    path = directory / name
    path.write_text(yaml.safe_dump(obj, sort_keys=False))
    return path


def status_code(*argv: str | Path) -> int:
    """The `status.code` of the single AdmissionReview answer `review --output json` prints for argv."""
    code, output = run(*argv, "--output", "json")
    assert code == 1, output
    (review,) = json.loads(output)
    answered: int = review["response"]["status"]["code"]
    return answered


# ------------------------------------------------------------------------------------------ what each folder holds

# The warnings a Shoot owner reads for the landscape at NOW (docs/requirements.md "Versioning"; Gardener itself prints none of them).
PROD_EU1_WARNINGS: Final = [
    'Warning: spec.kubernetes.version: "1.33.5" expires on 2026-12-10, then a force update moves it to "1.33.6"',
    'Warning: spec.provider.workers[2].kubernetes.version: "1.31.12" is deprecated and expires on 2027-03-31',
    (
        'Warning: spec.provider.workers[2].machine.image.version: "ubuntu:22.4.20250910" is deprecated and expires on '
        "2027-04-30"
    ),
]
ML_BATCH_WARNINGS: Final = [
    # 2027-04-30 and 2027-04-20 are the team profile's extensions, not the parent's 2027-01-31 and 2027-01-20.
    'Warning: spec.kubernetes.version: "1.32.8" is deprecated and expires on 2027-04-30',
    (
        'Warning: spec.provider.workers[1].machine.image.version: "gardenlinux:1592.12.0" is deprecated and expires on '
        "2027-04-20"
    ),
]
CI_APIS_WARNINGS: Final = [
    'Warning: spec.kubernetes.version: "1.34.3" is a preview version, not recommended for production',
]


def unsupported_minor(index: int, minor: str) -> str:
    """CP-WARN-006 for the landscape profile's Kubernetes 1.30 and 1.31 lines (Gardener v1.150 supports 1.32-1.36)."""
    return (
        f"Warning: spec.kubernetes.versions[{index}].version: Kubernetes {minor} is not supported by Gardener "
        "v1.150.0-dev, which supports Kubernetes 1.32–1.36 (kubernetesversion.SupportedVersions)"
    )


CLOUDPROFILE_WARNINGS: Final = [
    (
        'Warning: spec.kubernetes.versions[4].expirationDate: Kubernetes version "1.33.5" expires on 2026-12-10 '
        "(in 19 days)"
    ),
    unsupported_minor(8, "1.31"),
    unsupported_minor(10, "1.30"),
    (
        'Warning: spec.machineImages[0].versions[2].expirationDate: version "1592.14.0" of machine image "gardenlinux" '
        "expires on 2026-12-15 (in 24 days)"
    ),
]

LANDSCAPE_REPORT: Final[Report] = [
    ("ALLOWED CloudProfile/aws", CLOUDPROFILE_WARNINGS),
    ("ALLOWED NamespacedCloudProfile/garden-team/aws-team", []),
    ("ALLOWED Shoot/garden-team/prod-eu1", PROD_EU1_WARNINGS),
    ("ALLOWED Shoot/garden-team/ml-batch", ML_BATCH_WARNINGS),
    ("ALLOWED Shoot/garden-team/ci-apis", CI_APIS_WARNINGS),
]
SEED_REPORT: Final[Report] = [
    ("ALLOWED OperatingSystemConfig/shoot--team--prod-eu1/worker-system-2c6e1-original", []),
]
GARDEN_REPORT: Final[Report] = [
    ("ALLOWED Deployment/garden/gardener-apiserver", []),
    ("ALLOWED Deployment/garden/gardener-controller-manager", []),
    ("ALLOWED Deployment/garden/gardener-scheduler", []),
    ("ALLOWED Deployment/garden/gardener-admission-controller", []),
    ("ALLOWED Gardenlet/garden/aws-eu1", []),
    ("ALLOWED ManagedSeed/garden/aws-eu2", []),
]


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        pytest.param(LANDSCAPE, LANDSCAPE_REPORT, id="landscape"),
        pytest.param(SEED, SEED_REPORT, id="seed"),
        pytest.param(GARDEN, GARDEN_REPORT, id="garden"),
    ],
)
def test_review_strict_allows_every_object_of_a_folder(folder: Path, expected: Report) -> None:
    """`review --strict <folder>` (objects of one folder are each other's cluster) allows every object, skips none,
    and prints exactly the expected warnings: the CloudProfile's versions expiring within 30 days, and for the Shoots
    the deprecated, preview and soon-expiring versions they run, with the force-update target where one is due."""
    code, output = run("review", "--strict", folder, "--now", NOW)

    assert code == 0, output
    assert parse_report(output) == expected


def test_review_strict_of_all_fixtures_at_once() -> None:
    """All three folders reviewed together still allow everything: nothing in one folder disturbs another."""
    code, output = run("review", "--strict", FIXTURES, "--now", NOW)

    assert code == 0, output
    assert sorted(line for line, _ in parse_report(output)) == sorted(
        line for line, _ in [*LANDSCAPE_REPORT, *SEED_REPORT, *GARDEN_REPORT]
    )


# ------------------------------------------------------------------------------------------ re-applied unchanged

FIXTURE_FILES: Final = sorted(p for p in FIXTURES.rglob("*.yaml"))


def test_fixture_files_are_the_expected_ones() -> None:
    """The parametrized tests below cover exactly these files (a new fixture needs its expectations here)."""
    assert [str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES] == [
        "garden/gardener-controlplane.yaml",
        "garden/gardenlet.yaml",
        "garden/managedseed.yaml",
        "landscape/cloudprofile-aws.yaml",
        "landscape/namespacedcloudprofile.yaml",
        "landscape/shoot-multipool.yaml",
        "landscape/shoot-ncp.yaml",
        "landscape/shoot-workerless.yaml",
        "seed/operatingsystemconfig.yaml",
    ]


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES])
def test_reapplied_unchanged_is_allowed(path: Path) -> None:
    """Each fixture re-applied unchanged (`--operation UPDATE --old F F`, the landscape as cluster context), as a
    GitOps tool does daily, is allowed, and nothing is merely waved through as an old defect ("unchanged, not
    enforced"): the fixtures have none."""
    code, output = run(
        "review", "--strict", "--operation", "UPDATE", "--old", path, path, "--context", LANDSCAPE, "--now", NOW
    )

    assert code == 0, output
    report = parse_report(output)
    assert report, output
    assert all(line.startswith("ALLOWED ") for line, _ in report), output
    assert not [d for _, details in report for d in details if d.startswith("Warning: unchanged, not enforced")]


def test_landscape_reapplied_after_expiry_is_allowed_and_says_what_maintenance_does() -> None:
    """At LATER the Shoots still run versions that have expired meanwhile: re-applying them is allowed (an existing
    cluster may stay until maintenance force-updates it), and the owner is told the target. ml-batch runs 1.32.8 and
    gardenlinux 1592.12.0 on its team profile, which extends both, so it sees no expiry."""
    code, output = run("review", "--strict", "--operation", "UPDATE", "--old", LANDSCAPE, LANDSCAPE, "--now", LATER)

    assert code == 0, output
    assert (
        parse_report(output)
        == [
            (
                "ALLOWED CloudProfile/aws",
                [
                    (
                        'Warning: spec.kubernetes.versions[5].expirationDate: Kubernetes version "1.33.3" expires on '
                        "2027-02-28 (in 27 days)"
                    ),
                    unsupported_minor(8, "1.31"),  # the 1.30 line has expired by LATER
                    (
                        'Warning: spec.machineImages[2].versions[1].expirationDate: version "15.6.20250915" of machine image '
                        '"suse-chost" expires on 2027-02-15 (in 14 days)'
                    ),
                ],
            ),
            ("ALLOWED NamespacedCloudProfile/garden-team/aws-team", []),
            (
                "ALLOWED Shoot/garden-team/prod-eu1",
                [
                    (
                        'Warning: spec.kubernetes.version: "1.33.5" is expired: the next maintenance window force-updates it '
                        'to "1.33.6"'
                    ),
                    *PROD_EU1_WARNINGS[1:],
                ],
            ),
            ("ALLOWED Shoot/garden-team/ml-batch", ML_BATCH_WARNINGS),
            ("ALLOWED Shoot/garden-team/ci-apis", CI_APIS_WARNINGS),
        ]
    )


# ------------------------------------------------------------------------------------------ broken variants


@dataclass(frozen=True)
class Change:
    """A realistic edit of one fixture and what review must answer.

    fixture: the file edited; edit: mutates the loaded object in place; operation: CREATE (the edited object is new)
    or UPDATE (the fixture is the stored object); context: cluster state; header/lines: the expected object line and
    its indented lines; code: the expected status.code (422 own fields, 403 cluster state).
    """

    fixture: Path
    edit: Callable[[Manifest], None]
    operation: str
    context: tuple[Path, ...]
    now: str
    header: str
    lines: tuple[str, ...]
    code: int


def _remove_kubernetes_version(version: str) -> Callable[[Manifest], None]:
    def edit(obj: Manifest) -> None:
        versions = obj["spec"]["kubernetes"]["versions"]
        obj["spec"]["kubernetes"]["versions"] = [v for v in versions if v["version"] != version]

    return edit


def _new_ci_cluster(profile_kind: str, profile_name: str) -> Callable[[Manifest], None]:
    """A second workerless CI cluster pinned to 1.32.8, on the given profile."""

    def edit(obj: Manifest) -> None:
        obj["metadata"]["name"] = "ci-apis-legacy"
        obj["spec"]["cloudProfile"] = {"kind": profile_kind, "name": profile_name}
        obj["spec"]["kubernetes"]["version"] = "1.32.8"

    return edit


def _system_pool_image(version: str) -> Callable[[Manifest], None]:
    def edit(obj: Manifest) -> None:
        obj["spec"]["provider"]["workers"][0]["machine"]["image"]["version"] = version

    return edit


def _legacy_pool_kubelet(version: str) -> Callable[[Manifest], None]:
    def edit(obj: Manifest) -> None:
        obj["spec"]["provider"]["workers"][2]["kubernetes"]["version"] = version

    return edit


def _upgrade_to_1_34(obj: Manifest) -> None:
    """ml-batch jumps from 1.32.8 to 1.34.2 and moves its cpu pool off gardenlinux 1592.12.0 (kubelet < 1.34)."""
    obj["spec"]["kubernetes"]["version"] = "1.34.2"
    obj["spec"]["provider"]["workers"][1]["machine"]["image"]["version"] = "1877.4.0"


def _cgroup_driver(obj: Manifest) -> None:
    obj["spec"]["criConfig"]["cgroupDriver"] = "cgroupv2"


def _gardenlet_chart(tag: str) -> Callable[[Manifest], None]:
    def edit(obj: Manifest) -> None:
        oci = obj["spec"]["deployment"]["helm"]["ociRepository"]
        oci["ref"] = oci["ref"].rsplit(":", 1)[0] + ":" + tag

    return edit


def _managed_seed_image(tag: str) -> Callable[[Manifest], None]:
    def edit(obj: Manifest) -> None:
        obj["spec"]["gardenlet"]["deployment"]["image"]["tag"] = tag

    return edit


CHANGES: Final = [
    pytest.param(
        Change(
            LANDSCAPE / "cloudprofile-aws.yaml",
            _remove_kubernetes_version("1.33.5"),
            "UPDATE",
            (LANDSCAPE,),
            NOW,
            "DENIED CloudProfile/aws",
            (
                (
                    'spec.kubernetes.versions: Forbidden: unable to delete Kubernetes version "1.33.5" from CloudProfile '
                    "\"aws\" - version is still in use by shoot 'garden-team/prod-eu1'"
                ),
                unsupported_minor(7, "1.31"),
                unsupported_minor(9, "1.30"),
                CLOUDPROFILE_WARNINGS[3],
            ),
            403,
        ),
        id="REF-CP-001-cloudprofile-drops-control-plane-version",
    ),
    pytest.param(
        Change(
            LANDSCAPE / "shoot-workerless.yaml",
            _new_ci_cluster("CloudProfile", "aws"),
            "CREATE",
            (LANDSCAPE,),
            LATER,
            "DENIED Shoot/garden-team/ci-apis-legacy",
            (
                (
                    'spec.kubernetes.version: Unsupported value: "1.32.8": supported values: "1.34.3 (preview)", "1.34.2", '
                    '"1.34.1", "1.33.6", "1.33.3", "1.32.9", "1.31.12"'
                ),
            ),
            403,
        ),
        id="SH-ADM-K8S-001-create-on-expired-version",
    ),
    pytest.param(
        Change(
            LANDSCAPE / "shoot-multipool.yaml",
            _system_pool_image("1877.6.0"),
            "UPDATE",
            (LANDSCAPE,),
            NOW,
            "DENIED Shoot/garden-team/prod-eu1",
            (
                (
                    'spec.provider.workers[0].machine.image.version: Unsupported value: "1877.6.0": supported values: '
                    '"gardenlinux:1592.12.0", "gardenlinux:1592.14.0", "gardenlinux:1877.4.0", "gardenlinux:1877.5.0"'
                ),
                *PROD_EU1_WARNINGS,
            ),
            403,
        ),
        id="SH-ADM-IMG-001-pool-image-version-not-in-profile",
    ),
    pytest.param(
        Change(
            LANDSCAPE / "shoot-multipool.yaml",
            _legacy_pool_kubelet("1.33.6"),
            "UPDATE",
            (LANDSCAPE,),
            NOW,
            "DENIED Shoot/garden-team/prod-eu1",
            (
                (
                    "spec.provider.workers[2].kubernetes.version: Forbidden: worker group kubernetes version must not be "
                    'higher than control plane version: worker "1.33.6", control plane "1.33.5"'
                ),
                PROD_EU1_WARNINGS[0],
                PROD_EU1_WARNINGS[2],
            ),
            422,
        ),
        id="SH-K8S-005-pool-kubelet-above-control-plane",
    ),
    pytest.param(
        Change(
            LANDSCAPE / "shoot-ncp.yaml",
            _upgrade_to_1_34,
            "UPDATE",
            (LANDSCAPE,),
            NOW,
            "DENIED Shoot/garden-team/ml-batch",
            (
                (
                    "spec.kubernetes.version: Forbidden: kubernetes version upgrade cannot skip a minor version: "
                    'from "1.32.8" to "1.34.2"'
                ),
            ),
            422,
        ),
        id="SH-K8S-003-upgrade-skips-a-minor",
    ),
    pytest.param(
        Change(
            SEED / "operatingsystemconfig.yaml",
            _cgroup_driver,
            "UPDATE",
            (),
            NOW,
            "DENIED OperatingSystemConfig/shoot--team--prod-eu1/worker-system-2c6e1-original",
            ('spec.criConfig.cgroupDriver: Unsupported value: "cgroupv2": supported values: "cgroupfs", "systemd"',),
            422,
        ),
        id="OSC-CRI-001-unknown-cgroup-driver",
    ),
    pytest.param(
        Change(
            GARDEN / "gardenlet.yaml",
            _gardenlet_chart("v1.129.0"),
            "UPDATE",
            (GARDEN / "gardener-controlplane.yaml",),
            NOW,
            "DENIED Gardenlet/garden/aws-eu1",
            (
                (
                    "spec.deployment.helm.ociRepository.ref: Forbidden: gardenlet version must not be newer than "
                    "gardener-apiserver version (gardener-apiserver version: 1.128.3, gardenlet version: 1.129.0)"
                ),
            ),
            403,
        ),
        id="VS-GL-001-gardenlet-newer-than-apiserver",
    ),
    pytest.param(
        Change(
            GARDEN / "managedseed.yaml",
            _managed_seed_image("v1.125.0"),
            "UPDATE",
            (GARDEN / "gardener-controlplane.yaml",),
            NOW,
            "DENIED ManagedSeed/garden/aws-eu2",
            (
                (
                    "spec.gardenlet.deployment.image.tag: Forbidden: gardenlet version must not be older than two minor "
                    "gardener-apiserver versions (gardener-apiserver version: 1.128.3, gardenlet version: 1.125.0)"
                ),
            ),
            403,
        ),
        id="VS-GL-001-managedseed-gardenlet-three-minors-behind",
    ),
]


@pytest.mark.parametrize("change", CHANGES)
def test_broken_variant_is_denied(change: Change, tmp_path: Path) -> None:
    """A realistic mistake made to a fixture is denied with the API server's field errors (`<path>: <type>:
    <detail>`), exactly these lines and no others, and the answer's status code says whether the object's own fields
    (422) or the cluster state (403) are at fault."""
    original = load(change.fixture)
    edited = copy.deepcopy(original)
    change.edit(edited)
    assert edited != original
    path = write(tmp_path, change.fixture.name, edited)
    argv: list[str | Path] = ["review", path, "--now", change.now]
    if change.operation == "UPDATE":
        argv += ["--operation", "UPDATE", "--old", change.fixture]
    for context in change.context:
        argv += ["--context", context]

    code, output = run(*argv)

    assert code == 1, output
    assert parse_report(output) == [(change.header, list(change.lines))]
    assert status_code(*argv) == change.code


def test_team_profile_keeps_an_expired_version_usable(tmp_path: Path) -> None:
    """The counterpart of SH-ADM-K8S-001 above: at LATER 1.32.8 has expired in CloudProfile "aws", but
    NamespacedCloudProfile garden-team/aws-team extends it to 2027-04-30, so the same new Shoot on the team profile is
    allowed (with the deprecation notice)."""
    shoot = load(LANDSCAPE / "shoot-workerless.yaml")
    _new_ci_cluster("NamespacedCloudProfile", "aws-team")(shoot)
    path = write(tmp_path, "shoot-ci-apis-legacy.yaml", shoot)

    code, output = run("review", "--strict", path, "--context", LANDSCAPE, "--now", LATER)

    assert code == 0, output
    assert parse_report(output) == [
        (
            "ALLOWED Shoot/garden-team/ci-apis-legacy",
            ['Warning: spec.kubernetes.version: "1.32.8" is deprecated and expires on 2027-04-30'],
        )
    ]


def test_one_minor_upgrade_is_allowed(tmp_path: Path) -> None:
    """The counterpart of SH-K8S-003 above: ml-batch moving one minor, 1.32.8 to 1.33.6 (its cpu pool to
    gardenlinux 1877.4.0), is allowed without any warning: both target versions are supported."""
    shoot = load(LANDSCAPE / "shoot-ncp.yaml")
    shoot["spec"]["kubernetes"]["version"] = "1.33.6"
    shoot["spec"]["provider"]["workers"][1]["machine"]["image"]["version"] = "1877.4.0"
    path = write(tmp_path, "shoot-ncp.yaml", shoot)

    code, output = run(
        "review", "--operation", "UPDATE", "--old", LANDSCAPE / "shoot-ncp.yaml", path, "--context", LANDSCAPE,
        "--now", NOW,
    )  # fmt: skip

    assert code == 0, output
    assert parse_report(output) == [("ALLOWED Shoot/garden-team/ml-batch", [])]


# ------------------------------------------------------------------------------------------ audit


def test_audit_of_all_fixtures_finds_no_denial() -> None:
    """`audit --context tests/fixtures` judges every object re-applied and as if created today, plus the component
    skew, and finds nothing to deny; what it reports are the same warnings review prints."""
    code, output = run("audit", "--context", FIXTURES, "--now", NOW)

    assert code == 0, output
    lines = output.splitlines()
    assert lines[0] == (
        f"audit at {NOW}: 1 CloudProfile, 4 Deployment, 1 Gardenlet, 1 ManagedSeed, 1 NamespacedCloudProfile, "
        "1 OperatingSystemConfig, 3 Shoot; 0 denials, 10 warnings"
    )
    assert not [line for line in lines if line.lstrip().startswith("DENY ")]
    assert [line.split()[0] for line in lines[1:] if not line.startswith(" ")] == [
        "CP-WARN-002",
        "CP-WARN-006",
        "SH-WARN-001",
        "SH-WARN-002",
        "SH-WARN-003",
    ]
