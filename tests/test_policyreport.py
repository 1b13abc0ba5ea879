"""`audit --output policyreport` and `audit --apply`: the audit as wgpolicyk8s.io/v1alpha2 reports.

The reports are checked against the CRD schema of kyverno v1.19.0 (tests/policyreport_schema.py: strictly, so that a
field the API server would prune fails too), and `--apply` against the fake API server, which refuses what the
schema refuses. With DRY_RUN_KUBECONFIG naming a kubeconfig of a real cluster that has the CRDs, the reports are
also sent to its API server as a server-side dry run (nothing is stored); without it that test is skipped.
"""

from __future__ import annotations

import asyncio
import copy
import io
import os
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.builders import NOW, PAST, SOON, cloud_profile_dict, namespaced_cloud_profile_dict, shoot_dict, versions
from tests.cluster.fake_apiserver import (
    FakeApiServer,
    cloud_profile_obj,
    gardener_deployment_obj,
    seed_obj,
    write_kubeconfig,
)
from tests.policyreport_schema import errors
from webhook.cli import main
from webhook.cluster.static import StaticView
from webhook.cluster.view import KINDS
from webhook.offline import policyreport
from webhook.offline.audit import audit_objects
from webhook.offline.policyreport import OMITTED_ANNOTATION, PolicyReport, policy_reports
from webhook.settings import Settings

NOW_TEXT: Final = "2026-11-21T12:00:00Z"
PROFILE_UID: Final = "0b7d5c1e-0000-4000-8000-000000000001"
LEGACY_UID: Final = "0b7d5c1e-0000-4000-8000-000000000002"
MANAGED: Final = {"app.kubernetes.io/managed-by": "gardener-webhook"}


def landscape() -> list[dict[str, Any]]:
    """A CloudProfile with a deny and two warnings; a clean NamespacedCloudProfile (garden-local) and Shoot
    (garden-dev); a Shoot on an expired version (garden-prod); gardener-apiserver 1.40 and a gardenlet at 1.37."""
    profile = cloud_profile_dict(
        kubernetes=versions(
            "1.33.2", {"version": "1.32.5", "expirationDate": SOON}, {"version": "1.30.1", "expirationDate": PAST}
        )
    )
    profile["metadata"]["uid"] = PROFILE_UID
    legacy = shoot_dict(version="1.30.1")
    legacy["metadata"] = {"name": "legacy", "namespace": "garden-prod", "uid": LEGACY_UID}
    objects = [profile, namespaced_cloud_profile_dict(), shoot_dict(), legacy]
    return [*objects, gardener_deployment_obj("apiserver", "v1.40.2"), seed_obj("aws-eu1", "v1.37.5")]


def reports_of(objects: list[dict[str, Any]]) -> list[PolicyReport]:
    report = audit_objects(objects, view=StaticView.from_objects(objects), settings=Settings(), now=NOW)
    return policy_reports(report)


def scopes(reports: list[PolicyReport]) -> list[tuple[str, str]]:
    return [(r["kind"], r["metadata"].get("namespace", "")) for r in reports]


def results(report: PolicyReport) -> list[tuple[str, str, str, str, str]]:
    """(rule, result, severity, Kind/name of the object, when) of each result."""
    return [
        (r.get("rule", ""), r["result"], r.get("severity", ""), f"{r['resources'][0]['kind']}/{r['resources'][0]['name']}",
         r.get("properties", {}).get("when", ""))
        for r in report["results"]
    ]  # fmt: skip


# --------------------------------------------------------------------------------------------- the reports


def test_reports_validate_against_the_crd_schema() -> None:
    reports = reports_of(landscape())
    assert scopes(reports) == [
        ("ClusterPolicyReport", ""), ("PolicyReport", "garden"), ("PolicyReport", "garden-dev"),
        ("PolicyReport", "garden-local"), ("PolicyReport", "garden-prod"),
    ]  # fmt: skip
    for report in reports:
        assert errors(report) == [], scopes([report])


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param(
            lambda r: r["results"][0].update(extra="x"), "results.0: Additional properties", id="pruned-field"
        ),
        pytest.param(lambda r: r["results"][0].update(severity="urgent"), "results.0.severity", id="severity-enum"),
        pytest.param(lambda r: r["results"][0].update(result="denied"), "results.0.result", id="result-enum"),
        pytest.param(lambda r: r["results"][0]["timestamp"].pop("nanos"), "results.0.timestamp", id="timestamp"),
        pytest.param(lambda r: r["metadata"].update(namespace="garden"), "metadata: Additional", id="cluster-ns"),
        pytest.param(lambda r: r["summary"].update(fail="1"), "summary.fail", id="summary-type"),
        pytest.param(lambda r: r["metadata"].update(name="Gardener_Webhook"), "metadata.name", id="name"),
    ],
)
def test_the_schema_check_refuses_what_the_api_server_would(change: Any, expected: str) -> None:
    (report,) = [r for r in reports_of(landscape()) if r["kind"] == "ClusterPolicyReport"]
    broken = copy.deepcopy(report)
    change(broken)
    assert any(e.startswith(expected) for e in errors(broken)), errors(broken)


def test_one_result_per_finding_and_a_pass_per_clean_object() -> None:
    reports = reports_of(landscape())
    by_scope = dict(zip(scopes(reports), reports, strict=True))
    assert results(by_scope[("ClusterPolicyReport", "")]) == [
        ("CP-WARN-002", "warn", "low", "CloudProfile/local", "re-applied"),
        ("CP-WARN-003", "warn", "low", "CloudProfile/local", "re-applied"),
        ("CP-EXP-001", "fail", "high", "CloudProfile/local", "created today"),
        ("VS-GL-001", "fail", "high", "Seed/aws-eu1", "landscape"),
    ]
    assert results(by_scope[("PolicyReport", "garden-prod")]) == [
        ("SH-WARN-004", "warn", "low", "Shoot/legacy", "re-applied"),
        ("SH-ADM-K8S-001", "fail", "high", "Shoot/legacy", "created today"),
    ]
    for clean in ("garden", "garden-dev", "garden-local"):
        assert [(r, result) for r, result, *_ in results(by_scope[("PolicyReport", clean)])] == [("", "pass")]
    (passed,) = by_scope[("PolicyReport", "garden-dev")]["results"]
    assert passed["message"] == "no finding: allowed when re-applied and when created today"
    assert passed["resources"] == [
        {
            "apiVersion": "core.gardener.cloud/v1beta1",
            "kind": "Shoot",
            "name": "crazy-botany",
            "namespace": "garden-dev",
        }
    ]


def test_a_result_names_its_object_rule_and_finding() -> None:
    (cluster, *_) = reports_of(landscape())
    expired, skew = cluster["results"][2], cluster["results"][3]
    assert expired == {
        "policy": "gardener-webhook",
        "rule": "CP-EXP-001",
        "result": "fail",
        "severity": "high",
        "scored": True,
        "source": "gardener-webhook",
        "category": "CloudProfile",
        "message": 'spec.kubernetes.versions[2].expirationDate: Forbidden: new version "1.30.1" must not have an '
        "expiration date in the past (2025-01-31)",
        "resources": [
            {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "name": "local", "uid": PROFILE_UID}
        ],
        "timestamp": {"seconds": int(NOW.timestamp()), "nanos": 0},
        "properties": {"when": "created today", "mode": "deny"},
    }
    assert (skew["category"], skew["resources"]) == (
        "Version skew",
        [{"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "name": "aws-eu1"}],
    )
    assert cluster["results"][0]["scored"] is False  # a warning is not scored (the CRD counts it as such)


def test_report_names_labels_and_summaries() -> None:
    for report in reports_of(landscape()):
        assert report["apiVersion"] == "wgpolicyk8s.io/v1alpha2"
        assert report["metadata"]["name"] == "gardener-webhook-audit"
        assert report["metadata"]["labels"] == MANAGED
        counted = {key: sum(1 for r in report["results"] if r["result"] == key) for key in ("pass", "fail", "warn")}
        assert report["summary"] == {**counted, "error": 0, "skip": 0}


def test_the_gardener_control_plane_skew_goes_to_the_cluster_report() -> None:
    """A Deployment in garden named by a skew finding: the finding is the landscape's, not namespace garden's."""
    objects = [
        gardener_deployment_obj("apiserver", "v1.40.2"),
        gardener_deployment_obj("controller-manager", "v1.38.0"),
    ]
    reports = reports_of(objects)
    assert scopes(reports) == [("ClusterPolicyReport", ""), ("PolicyReport", "garden")]
    [skew] = [r for r in reports[0]["results"] if r["category"] == "Version skew"]
    assert skew["resources"] == [
        {"apiVersion": "apps/v1", "kind": "Deployment", "name": "gardener-controller-manager", "namespace": "garden"}
    ]
    assert errors(reports[0]) == []


def test_reports_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_RESULTS a report keeps fail, then warn, then pass results, and says how many it left out."""
    monkeypatch.setattr(policyreport, "MAX_RESULTS", 3)
    objects = landscape()
    for name in ("a", "b", "c"):
        clean = shoot_dict()
        clean["metadata"] = {"name": name, "namespace": "garden-prod"}
        objects.append(clean)
    (prod,) = [r for r in reports_of(objects) if r["metadata"].get("namespace") == "garden-prod"]
    assert [(rule, result) for rule, result, *_ in results(prod)] == [
        ("SH-WARN-004", "warn"), ("SH-ADM-K8S-001", "fail"), ("", "pass"),
    ]  # fmt: skip
    assert prod["results"][2]["resources"][0]["name"] == "a"
    assert prod["metadata"]["annotations"] == {OMITTED_ANNOTATION: "2"}
    assert prod["summary"] == {"pass": 1, "fail": 1, "warn": 1, "error": 0, "skip": 0}
    assert errors(prod) == []


def test_a_long_finding_is_composed_to_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages are cut to MAX_MESSAGE_CHARS as warnings are: never inside a quoted value."""
    monkeypatch.setattr(policyreport, "MAX_MESSAGE_CHARS", 80)
    (cluster,) = reports_of([cloud_profile_dict(kubernetes=versions("1.33.2", "1.33.2"))])
    (result,) = cluster["results"]
    assert result["rule"] == "CP-K8S-003"
    assert result["message"] == 'spec.kubernetes.versions[1].version: Duplicate value: "1.33.2"'
    long = cloud_profile_dict(kubernetes=versions("1.33.2", {"version": "1.32.5", "expirationDate": SOON}))
    long["spec"]["machineImages"][0]["name"] = "garden-linux-with-a-name-long-enough-to-need-cutting"
    long["spec"]["machineImages"][0]["versions"][0]["expirationDate"] = SOON
    (cluster,) = reports_of([long])
    messages = [r["message"] for r in cluster["results"]]
    assert messages and all(len(m) <= 80 for m in messages) and any(m.endswith("…") for m in messages), messages
    assert all(m.count('"') % 2 == 0 for m in messages)
    assert errors(cluster) == []


# -------------------------------------------------------------------------------------------------- the CLI


def _write(tmp_path: Path, objects: list[dict[str, Any]]) -> Path:
    path = tmp_path / "landscape.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return path


def test_cli_prints_a_yaml_stream_kubectl_can_apply(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["audit", "--context", str(_write(tmp_path, landscape())), "--now", NOW_TEXT, "--output", "policyreport"]
    assert main(argv, out=out) == 1  # exit status as ever: something would be denied
    text = out.getvalue()
    assert text.startswith("---\napiVersion: wgpolicyk8s.io/v1alpha2\nkind: ClusterPolicyReport\n")
    documents = list(yaml.safe_load_all(text))
    assert scopes(documents) == scopes(reports_of(landscape()))
    assert all(errors(d) == [] for d in documents)
    assert "&id" not in text and "*id" not in text  # no YAML anchors: every result stands alone


def test_cli_a_clean_landscape_exits_0(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["audit", "--context", str(_write(tmp_path, [cloud_profile_dict()])), "--now", NOW_TEXT]
    assert main([*argv, "--output", "policyreport"], out=out) == 0
    (report,) = yaml.safe_load_all(out.getvalue())
    assert (report["kind"], report["summary"]["pass"], len(report["results"])) == ("ClusterPolicyReport", 1, 1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--apply"],
            "--apply writes into the audited cluster: give it with --kubeconfig, --in-cluster or cluster.sources",
        ),
        (["--apply", "--output", "policyreport"], "--apply writes into the audited cluster"),
    ],
)
def test_cli_apply_needs_a_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = io.StringIO()
    assert main(["audit", "--context", str(_write(tmp_path, landscape())), *argv], out=out) == 2
    assert out.getvalue() == ""  # refused before anything is judged
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"gardener-webhook audit: {message}")


def test_cli_unknown_output_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--context", str(tmp_path), "--output", "policyreports"], out=io.StringIO()) == 2
    assert "invalid choice: 'policyreports'" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------- --apply


def _shoot(namespace: str, name: str, version: str = "1.33.2", uid: str = "") -> dict[str, Any]:
    shoot = shoot_dict(version=version)
    shoot["metadata"] = {"name": name, "namespace": namespace, **({"uid": uid} if uid else {})}
    return shoot


def _cluster(fake: FakeApiServer) -> None:
    """The live landscape: CloudProfile local (uid PROFILE_UID), a clean Shoot in garden-dev, one in garden-prod on a
    version the profile lacks (denied when created today), gardener-apiserver 1.40 and a gardenlet at 1.37."""
    profile = cloud_profile_obj("local")
    profile["metadata"]["uid"] = PROFILE_UID
    fake.put(profile)
    fake.put(_shoot("garden-dev", "crazy-botany"))
    fake.put(_shoot("garden-prod", "legacy", "1.30.1", LEGACY_UID))
    fake.put(gardener_deployment_obj("apiserver", "v1.40.0"))
    fake.put(seed_obj("old-seed", "v1.37.1"))


async def _audit(kubeconfig: Path, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    argv = ["audit", "--kubeconfig", str(kubeconfig), "--now", NOW_TEXT, "--sync-timeout", "10", "--apply", *extra]
    code = await asyncio.to_thread(main, argv, out)
    return code, out.getvalue()


@pytest.fixture
async def fake(aiohttp_server: Any) -> FakeApiServer:
    fake = FakeApiServer()
    fake.schemas = {"policyreports": errors, "clusterpolicyreports": errors}  # as the CRDs would refuse
    server = await aiohttp_server(fake.app())
    fake.url = str(server.make_url("")).rstrip("/")
    return fake


def _writes(fake: FakeApiServer) -> list[tuple[str, str, str, int]]:
    return [(w.method, w.plural, w.namespace, w.status) for w in fake.writes]


async def test_apply_creates_then_replaces_then_prunes(
    fake: FakeApiServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _cluster(fake)
    kubeconfig = write_kubeconfig(tmp_path, fake.url)
    code, out = await _audit(kubeconfig)
    assert code == 1 and out.startswith(f"audit at {NOW_TEXT}: 1 CloudProfile, 2 Shoot;")  # the report, as ever
    assert _writes(fake) == [
        ("POST", "clusterpolicyreports", "", 201),
        ("POST", "policyreports", "garden-dev", 201),
        ("POST", "policyreports", "garden-prod", 201),
    ]
    assert capsys.readouterr().err.splitlines() == [
        "ClusterPolicyReport gardener-webhook-audit created (2 results)",
        "PolicyReport garden-dev/gardener-webhook-audit created (1 result)",
        "PolicyReport garden-prod/gardener-webhook-audit created (1 result)",
    ]
    stored = fake.stored("PolicyReport")[("garden-prod", "gardener-webhook-audit")]
    assert [(r["rule"], r["result"], r["resources"][0]["uid"]) for r in stored["results"]] == [
        ("SH-ADM-K8S-001", "fail", LEGACY_UID)
    ]
    cluster = fake.stored("ClusterPolicyReport")[("", "gardener-webhook-audit")]
    assert [(r.get("rule"), r["result"]) for r in cluster["results"]] == [(None, "pass"), ("VS-GL-001", "fail")]
    assert cluster["results"][0]["resources"][0]["uid"] == PROFILE_UID

    # Second run: garden-prod's Shoot is repaired, garden-dev's is gone, and someone's report of that name in
    # garden-dev without our label stays.
    fake.put(_shoot("garden-prod", "legacy", uid=LEGACY_UID))
    fake.delete("Shoot", "garden-dev", "crazy-botany")
    fake.writes.clear()
    theirs = {"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport",
              "metadata": {"name": "gardener-webhook-audit", "namespace": "garden-other"}, "results": []}  # fmt: skip
    fake.put(theirs)
    before = fake.stored("PolicyReport")[("garden-prod", "gardener-webhook-audit")]["metadata"]["resourceVersion"]
    code, _ = await _audit(kubeconfig)
    assert code == 1  # the gardenlet's skew remains
    assert _writes(fake) == [
        ("PUT", "clusterpolicyreports", "", 200),
        ("PUT", "policyreports", "garden-prod", 200),
        ("DELETE", "policyreports", "garden-dev", 200),
    ]
    put = next(w for w in fake.writes if w.namespace == "garden-prod")
    assert put.body is not None and put.body["metadata"]["resourceVersion"] == before  # replaced what was read
    stored = fake.stored("PolicyReport")[("garden-prod", "gardener-webhook-audit")]
    assert [(r["result"], r["resources"][0]["name"]) for r in stored["results"]] == [("pass", "legacy")]
    assert set(fake.stored("PolicyReport")) == {
        ("garden-prod", "gardener-webhook-audit"),
        ("garden-other", "gardener-webhook-audit"),
    }
    assert capsys.readouterr().err.splitlines()[-1] == "PolicyReport garden-dev/gardener-webhook-audit deleted"


async def test_apply_deletes_the_cluster_report_when_nothing_is_cluster_scoped(
    fake: FakeApiServer, tmp_path: Path
) -> None:
    fake.put(cloud_profile_obj("local"))
    kubeconfig = write_kubeconfig(tmp_path, fake.url)
    assert (await _audit(kubeconfig))[0] == 0
    fake.delete("CloudProfile", "", "local")
    fake.writes.clear()
    assert (await _audit(kubeconfig))[0] == 0
    assert _writes(fake) == [("DELETE", "clusterpolicyreports", "", 200)]
    assert fake.stored("ClusterPolicyReport") == {}


async def test_apply_retries_a_conflict(fake: FakeApiServer, tmp_path: Path) -> None:
    fake.put(cloud_profile_obj("local"))
    kubeconfig = write_kubeconfig(tmp_path, fake.url)
    assert (await _audit(kubeconfig))[0] == 0
    fake.writes.clear()
    fake.conflicts = 1  # someone writes between our read and our write, once
    assert (await _audit(kubeconfig))[0] == 0
    assert _writes(fake) == [("PUT", "clusterpolicyreports", "", 409), ("PUT", "clusterpolicyreports", "", 200)]


@pytest.mark.parametrize(
    ("setup", "existing", "message"),
    [
        pytest.param(
            lambda fake: fake.fail_writes(403),
            False,
            "cannot write ClusterPolicyReport gardener-webhook-audit: HTTP 403 Forbidden: clusterpolicyreports."
            "wgpolicyk8s.io is refused by the test (403)",
            id="forbidden",
        ),
        pytest.param(
            lambda fake: (fake.unserve("PolicyReport"), fake.unserve("ClusterPolicyReport")),
            False,
            "cannot write ClusterPolicyReport gardener-webhook-audit: HTTP 404 Not Found: the server could not find "
            "the requested resource (is the wgpolicyk8s.io/v1alpha2 ClusterPolicyReport CRD installed?)",
            id="no-crd",
        ),
        pytest.param(
            lambda fake: setattr(fake, "conflicts", 3),
            True,  # a report to replace, and a conflict on each of the three attempts
            "cannot write ClusterPolicyReport gardener-webhook-audit: HTTP 409 Conflict: Operation cannot be "
            'fulfilled on clusterpolicyreports.wgpolicyk8s.io "gardener-webhook-audit": the object has been modified',
            id="conflicts",
        ),
    ],
)
async def test_apply_failure_exits_3_with_one_line(
    fake: FakeApiServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    setup: Any,
    existing: bool,
    message: str,
) -> None:
    fake.put(cloud_profile_obj("local"))
    kubeconfig = write_kubeconfig(tmp_path, fake.url)
    if existing:
        assert (await _audit(kubeconfig))[0] == 0
        capsys.readouterr()
    setup(fake)
    code, out = await _audit(kubeconfig)
    assert code == 3
    assert out.startswith(f"audit at {NOW_TEXT}: 1 CloudProfile;")  # the report was printed all the same
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"gardener-webhook audit: --apply: {message}")


async def test_apply_sends_only_what_the_crd_schema_accepts(
    fake: FakeApiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The fake refuses what the CRD's schema refuses, so a report that broke it would fail these tests."""
    _cluster(fake)
    kubeconfig = write_kubeconfig(tmp_path, fake.url)
    monkeypatch.setitem(policyreport._SEVERITY, "deny", "urgent")
    assert (await _audit(kubeconfig))[0] == 3
    assert [w.status for w in fake.writes] == [422]
    assert "results.1.severity: 'urgent' is not one of" in capsys.readouterr().err


# ------------------------------------------------------------------------------- server-side dry run

DRY_RUN_KUBECONFIG: Final = os.environ.get("DRY_RUN_KUBECONFIG", "")


@pytest.mark.skipif(not DRY_RUN_KUBECONFIG, reason="DRY_RUN_KUBECONFIG names no cluster with the wgpolicyk8s.io CRDs")
def test_a_real_api_server_accepts_the_reports() -> None:
    """Server-side dry run (dryRun=All, fieldValidation=Strict: a field the CRD would prune is an error) of every
    report, in namespace default and under a name of its own; nothing is stored."""
    from kubernetes.client import CustomObjectsApi

    from webhook.cluster.live import client_from_kubeconfig

    api = CustomObjectsApi(client_from_kubeconfig(Path(DRY_RUN_KUBECONFIG)))
    objects = [o for o in landscape() if o["metadata"].get("namespace", "") in ("", "garden-prod")]
    for obj in objects:
        if obj["metadata"].get("namespace"):
            obj["metadata"]["namespace"] = "default"
    for report in reports_of(objects):
        body: dict[str, Any] = copy.deepcopy(dict(report))
        body["metadata"]["name"] = "gardener-webhook-audit-dry-run"
        if report["kind"] == "ClusterPolicyReport":
            api.create_cluster_custom_object(
                "wgpolicyk8s.io", "v1alpha2", "clusterpolicyreports", body, dry_run="All", field_validation="Strict"
            )
        else:
            api.create_namespaced_custom_object(
                "wgpolicyk8s.io", "v1alpha2", "default", "policyreports", body, dry_run="All", field_validation="Strict"
            )


async def test_apply_writes_beside_the_shoots_when_kinds_come_from_two_clusters(
    fake: FakeApiServer, aiohttp_server: Any, tmp_path: Path
) -> None:
    # A gardener-operator landscape: the Gardener API kinds in the virtual garden (`fake`), the control-plane
    # Deployments in the runtime cluster; the reports go to the cluster the Shoots are read from.
    _cluster(fake)
    runtime = FakeApiServer()
    runtime.put(gardener_deployment_obj("apiserver", "v1.40.0"))
    await runtime.serve(aiohttp_server)
    virtual = write_kubeconfig(tmp_path, fake.url, name="virtual-garden")
    config = tmp_path / "config.yaml"
    sources = [
        {"name": "virtual-garden", "kubeconfig": str(virtual), "kinds": [k for k in KINDS if k != "Deployment"]},
        {"name": "runtime", "kubeconfig": str(write_kubeconfig(tmp_path, runtime.url)), "kinds": ["Deployment"]},
    ]
    config.write_text(yaml.safe_dump({"cluster": {"sources": sources}}), encoding="utf-8")
    out = io.StringIO()
    argv = ["audit", "--config", str(config), "--now", NOW_TEXT, "--sync-timeout", "10", "--apply"]
    code = await asyncio.to_thread(main, argv, out)
    assert code == 1
    assert [w.plural for w in fake.writes] == ["clusterpolicyreports", "policyreports", "policyreports"]
    assert runtime.writes == []
