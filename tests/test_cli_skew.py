"""`gardener-webhook skew`: the Kubernetes and Gardener skew policy rows (docs/requirements.md), the HA examples and the upgrade order through the command line."""

from __future__ import annotations

import io
import re

import pytest

from webhook.cli import main

POLICY_LINE = re.compile(r"^(VS-[A-Z0-9-]+): ", re.MULTILINE)


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(["skew", *argv], out=out)
    return code, out.getvalue()


def ids(*argv: str) -> tuple[int, list[str]]:
    code, out = run(*argv)
    return code, POLICY_LINE.findall(out)


@pytest.mark.parametrize(("argv", "expected"), [
    # docs/requirements.md "Kubernetes version skew"
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.29.4"], [], id="VS-K8S-002-three-older"),
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.28.4"], ["VS-K8S-002"], id="VS-K8S-002-four-older"),
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.33.0"], ["VS-K8S-002"], id="VS-K8S-002-newer"),
    pytest.param(["kube-apiserver=1.26.0", "kubelet=1.24.0"], [], id="VS-K8S-002-legacy-two"),
    pytest.param(["kube-apiserver=1.27.0", "kubelet=1.24.0"], ["VS-K8S-002"], id="VS-K8S-002-legacy-three"),
    pytest.param(["kube-apiserver=1.32.0", "kube-proxy=1.29.0"], [], id="VS-K8S-003-three-older"),
    pytest.param(["kube-apiserver=1.32.0", "kube-proxy=1.28.0"], ["VS-K8S-003"], id="VS-K8S-003-four-older"),
    pytest.param(["kubelet=1.30.0", "kube-proxy=1.33.0"], [], id="VS-K8S-004-three-newer"),
    pytest.param(["kubelet=1.30.0", "kube-proxy=1.34.0"], ["VS-K8S-004"], id="VS-K8S-004-four-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kube-scheduler=1.31.0"], [], id="VS-K8S-005-one-older"),
    pytest.param(["kube-apiserver=1.32.0", "cloud-controller-manager=1.30.0"], ["VS-K8S-005"], id="VS-K8S-005-two"),
    pytest.param(["kube-apiserver=1.32.0", "kube-controller-manager=1.33.0"], ["VS-K8S-005"], id="VS-K8S-005-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kubectl=1.33.0"], [], id="VS-K8S-006-one-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kubectl=1.34.0"], ["VS-K8S-006"], id="VS-K8S-006-two-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.0"], [], id="VS-K8S-001-one-minor"),
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.30.0"], ["VS-K8S-001"], id="VS-K8S-001-two-minors"),
    # docs/requirements.md "Kubernetes version skew" HA narrowing: instances at 1.32 and 1.31
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.0", "kubelet=1.31.0", "kubelet=1.29.0"], [],
                 id="ha-kubelet-1.31-and-1.29"),
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.0", "kubelet=1.32.0"], ["VS-K8S-002"],
                 id="ha-kubelet-1.32"),
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.0", "kube-controller-manager=1.32.0"],
                 ["VS-K8S-005"], id="ha-controller-manager-1.32"),
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.0", "kubectl=1.33.0"], ["VS-K8S-006"],
                 id="ha-kubectl-1.33"),
    # docs/requirements.md "Gardener version skew"
    pytest.param(["gardener-apiserver=1.37.0", "gardener-apiserver=1.36.0"], [], id="VS-GARDENER-001-one-minor"),
    pytest.param(["gardener-apiserver=1.37.0", "gardener-apiserver=1.35.0"], ["VS-GARDENER-001"],
                 id="VS-GARDENER-001-two-minors"),
    pytest.param(["gardener-apiserver=1.37.0", "gardener-controller-manager=1.36.0", "gardener-scheduler=1.37.0",
                  "gardener-admission-controller=1.36.9"], [], id="VS-GARDENER-002-ok"),
    pytest.param(["gardener-apiserver=1.37.0", "gardener-admission-controller=1.38.0"], ["VS-GARDENER-002"],
                 id="VS-GARDENER-002-newer"),
    pytest.param(["gardener-apiserver=1.37.0", "gardener-controller-manager=1.35.0"], ["VS-GARDENER-002"],
                 id="VS-GARDENER-002-two-older"),
    pytest.param(["gardener-apiserver=v1.37.0", "gardenlet=v1.35.2"], [], id="VS-GL-001-two-older"),
    pytest.param(["gardener-apiserver=v1.37.0", "gardenlet=v1.34.2"], ["VS-GL-001"], id="VS-GL-001-three-older"),
    pytest.param(["gardener-apiserver=v1.37.0", "gardenlet=v1.38.0"], ["VS-GL-001"], id="VS-GL-001-newer"),
    pytest.param(["gardener-operator=1.37.0", "gardener-operator=1.35.0"], ["VS-OP-002"], id="VS-OP-002-two"),
    # upgrades
    pytest.param(["--upgrade", "gardener-apiserver=1.37.0:1.38.0", "gardener-controller-manager=1.37.0",
                  "gardenlet=1.36.0"], [], id="seed-002-prerequisites-met"),
    pytest.param(["--upgrade", "gardener-apiserver=1.37.0:1.38.0", "gardener-scheduler=1.36.0",
                  "gardenlet=1.35.0"], ["VS-GARDENER-004", "VS-GARDENER-005"], id="seed-002-prerequisites-missing"),
    pytest.param(["--upgrade", "gardener-apiserver=1.37.0:1.39.0"], ["VS-GARDENER-003"], id="VS-GARDENER-003-skip"),
    pytest.param(["--upgrade", "gardener-operator=v1.38.1:v1.37.0"], ["VS-OP-001"], id="VS-OP-001-downgrade"),
    pytest.param(["--upgrade", "kube-apiserver=1.31.0:1.33.0"], ["VS-K8S-007"], id="VS-K8S-007-skip"),
    pytest.param(["--upgrade", "kube-apiserver=1.31.0:1.32.0", "kube-scheduler=1.30.0"], ["VS-K8S-008"],
                 id="VS-K8S-008-left-behind"),
    pytest.param(["--upgrade", "gardenlet=1.37.0:1.38.0", "gardener-apiserver=1.37.0"], ["VS-GL-001"],
                 id="seed-002-gardenlet-before-apiserver"),
])  # fmt: skip
def test_policies_and_exit_status(argv: list[str], expected: list[str]) -> None:
    code, found = ids(*argv)
    assert found == expected
    assert code == (1 if expected else 0)


def test_output_names_components_versions_and_seed() -> None:
    code, out = run("gardener-apiserver=v1.37.2", "gardenlet=v1.38.0", "gardener-scheduler=1.35.1")
    assert code == 1
    assert out == (
        "VS-GARDENER-002: gardener-scheduler 1.35.1 must be at most one minor version older than gardener-apiserver "
        "1.37.2\n"
        '  source: docs/requirements.md "Gardener version skew", Supported Version Skew: gardener-controller-manager, '
        "gardener-scheduler, gardener-admission-controller\n"
        "VS-GL-001: gardenlet version must not be newer than gardener-apiserver version (gardener-apiserver version: "
        "1.37.2, gardenlet version: 1.38.0)\n"
        '  source: docs/requirements.md "Gardener version skew", Supported Version Skew: gardenlet; gardener/gardener '
        "pkg/gardenlet/bootstrappers/verify_version.go VerifyGardenerVersion (wording)\n"
        "2 violations (3 components)\n"
    )


def test_no_violation_says_so() -> None:
    assert run("kube-apiserver=1.32.0") == (0, "OK: no version skew violation (1 component)\n")
    assert run("--upgrade", "kube-apiserver=1.31.0:1.32.0") == (
        0,
        "OK: no version skew violation (upgrading kube-apiserver from 1.31.0 to 1.32.0)\n",
    )


@pytest.mark.parametrize(("argv", "message"), [
    pytest.param(["kubelett=1.30.0"], "kubelett=1.30.0: unknown component 'kubelett' (known: cloud-controller-manager, "
                 "gardener-admission-controller, gardener-apiserver", id="unknown-component"),
    pytest.param(["kubelet=one.two"], "kubelet=one.two: 'one.two' is not a version", id="bad-version"),
    pytest.param(["kubelet="], "kubelet=: '' is not a version", id="empty-version"),
    pytest.param(["kubelet"], "kubelet: expected COMPONENT=VERSION", id="no-equals"),
    pytest.param([], "give at least one COMPONENT=VERSION or --upgrade", id="nothing"),
    pytest.param(["--upgrade", "kube-apiserver=1.31.0"], "--upgrade kube-apiserver=1.31.0: expected COMPONENT=FROM:TO",
                 id="upgrade-without-target"),
    pytest.param(["--upgrade", "kube-apiserver=1.31.0:latest"],
                 "kube-apiserver=1.31.0:latest: 'latest' is not a version", id="upgrade-bad-version"),
])  # fmt: skip
def test_unusable_input_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(*argv)
    assert (code, out) == (2, "")
    assert capsys.readouterr().err.startswith(f"gardener-webhook skew: {message}")
