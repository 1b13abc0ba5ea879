"""The webhook as deployed, met through kubectl: gardener-apiserver and kube-apiserver call it over mTLS.

What kubectl prints is what a person sees: `Warning: …` lines on stderr for an admitted object, and for a denied one
`admission webhook "<name>" denied the request: <field errors>`. Each test makes the objects it needs; the example
landscape (its dates moved to today, tests/e2e/landscape.py) is applied once per module.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.e2e import landscape
from tests.e2e.conftest import MANIFESTS, Webhook
from tests.e2e.environment import Environment
from tests.server.processes import wait_for
from tools.e2e import components
from webhook.cli import main
from webhook.offline.change import LAST_APPLIED

PINS: Final = components.load_pins()
CLOUDPROFILE_WEBHOOK: Final = 'admission webhook "cloudprofiles.gardener-webhook.gardener.cloud" denied the request'


def _apply(env: Environment, docs: list[dict[str, Any]], *args: str, check: bool = False) -> Any:
    return env.kubectl("apply", *args, "-f", "-", input=yaml.safe_dump_all(docs), check=check)


@pytest.fixture(scope="module")
def applied_landscape(e2e_env: Environment, webhook: Webhook) -> Iterator[dict[str, dict[str, Any]]]:
    """CloudProfile aws and Shoot garden-team/prod on it, applied with kubectl through the webhook."""
    env = e2e_env
    env.kubectl("create", "namespace", landscape.PROJECT_NAMESPACE, check=False)
    _apply(env, landscape.project_objects(), check=True)
    profile = landscape.objects("cloudprofile.yaml")[0]
    prod = landscape.objects("shoot-prod.yaml")[0]
    _apply(env, [profile], check=True)
    _apply(env, [prod], check=True)
    yield {"profile": profile, "prod": prod}
    env.kubectl("delete", "shoot", "prod", "-n", landscape.PROJECT_NAMESPACE, "--wait=false", check=False)


def test_the_gardener_api_is_served_by_gardener_apiserver_at_the_pinned_release(e2e_env: Environment) -> None:
    groups = json.loads(e2e_env.kubectl("get", "--raw", "/apis").stdout)["groups"]
    assert "core.gardener.cloud" in [g["name"] for g in groups]
    service = json.loads(e2e_env.kubectl("get", "apiservice", "v1beta1.core.gardener.cloud", "-o", "json").stdout)
    assert service["spec"]["service"] == {"name": "gardener-apiserver", "namespace": "kube-system",
                                          "port": service["spec"]["service"]["port"]}  # fmt: skip
    assert {c["type"]: c["status"] for c in service["status"]["conditions"]}["Available"] == "True"
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # only the version is read here
    with urllib.request.urlopen(f"{e2e_env.gardener_url}/version", context=context, timeout=10) as response:
        version = json.loads(response.read())
    assert (version["gitVersion"], version["gitCommit"]) == (PINS["gardener"]["version"], PINS["gardener"]["commit"])


def test_an_expiring_version_is_admitted_with_the_webhooks_warning_and_a_dry_run_stores_nothing(
    e2e_env: Environment, webhook: Webhook
) -> None:
    profile = landscape.objects("cloudprofile.yaml")[0]
    profile["metadata"]["name"] = "expiring"
    # Whole days left, counted from now: midnight eleven days ahead is 10 days and some hours away all day.
    expires = (landscape.today() + timedelta(days=11)).strftime("%Y-%m-%d")
    profile["spec"]["kubernetes"]["versions"][3]["expirationDate"] = f"{expires}T00:00:00Z"
    result = _apply(e2e_env, [profile], "--dry-run=server")
    assert result.returncode == 0, result.stderr
    version = profile["spec"]["kubernetes"]["versions"][3]["version"]
    assert (
        f'Warning: spec.kubernetes.versions[3].expirationDate: Kubernetes version "{version}" expires on {expires} '
        "(in 10 days)"
    ) in result.stderr.splitlines()
    assert "cloudprofile.core.gardener.cloud/expiring created (server dry run)" in result.stdout
    missing = e2e_env.kubectl("get", "cloudprofile", "expiring", check=False)
    assert missing.returncode == 1 and "NotFound" in missing.stderr
    dry = [line for line in webhook.judged() if line.get("object") == "expiring"]
    assert dry and dry[-1]["dryRun"] is True and dry[-1]["operation"] == "CREATE"


def test_removing_a_version_a_worker_pool_uses_is_denied(
    e2e_env: Environment, applied_landscape: dict[str, dict[str, Any]]
) -> None:
    """prod's pool-b runs its kubelet on 1.33.4; Gardener's own check reads only the control plane's version."""
    profile = json.loads(json.dumps(applied_landscape["profile"]))
    profile["spec"]["kubernetes"]["versions"] = [
        v for v in profile["spec"]["kubernetes"]["versions"] if v["version"] != "1.33.4"
    ]
    for args in (("--dry-run=server",), ()):
        result = _apply(e2e_env, [profile], *args)
        assert result.returncode == 1, result.stdout
        assert CLOUDPROFILE_WEBHOOK in result.stderr
        assert 'unable to delete Kubernetes version "1.33.4"' in result.stderr
        assert "garden-team/prod" in result.stderr
    stored = json.loads(e2e_env.kubectl("get", "cloudprofile", "aws", "-o", "json").stdout)
    assert "1.33.4" in [v["version"] for v in stored["spec"]["kubernetes"]["versions"]]


def test_deleting_a_profile_a_shoot_uses_is_denied(
    e2e_env: Environment, applied_landscape: dict[str, dict[str, Any]]
) -> None:
    result = e2e_env.kubectl("delete", "cloudprofile", "aws", "--dry-run=server", check=False)
    assert result.returncode == 1
    assert CLOUDPROFILE_WEBHOOK in result.stderr and "garden-team/prod" in result.stderr


def test_an_operatingsystemconfig_whose_cgroup_drivers_disagree_is_denied_by_kube_apiserver(
    e2e_env: Environment, webhook: Webhook
) -> None:
    osc = yaml.safe_load((landscape.ROOT / "examples" / "seed" / "operatingsystemconfig.yaml").read_text())
    e2e_env.kubectl("create", "namespace", osc["metadata"]["namespace"], check=False)
    # The CRD's schema has no `cri` (the seed document's spelling): kubectl's strict field validation refuses it
    # before admission (and without it, the API server prunes it), so the webhook never sees that field.
    refused = _apply(e2e_env, [osc], "--dry-run=server")
    assert refused.returncode == 1 and 'strict decoding error: unknown field "spec.cri"' in refused.stderr
    del osc["spec"]["cri"]
    result = _apply(e2e_env, [osc], "--dry-run=server")
    assert result.returncode == 1, result.stdout
    # A denial with field causes (422): kubectl prints it as it prints the API server's own validation.
    lines = result.stderr.splitlines()
    assert 'The OperatingSystemConfig "pool-a-original" is invalid: ' in lines, result.stderr
    assert (
        '* spec.criConfig.cgroupDriver: Invalid value: "systemd": must equal the kubelet\'s cgroupDriver "cgroupfs" in '
        "spec.files[0].content.inline.data"
    ) in lines
    assert "Warning: spec.files[0].content.inline.data: kubelet cgroupDriver cgroupfs with Kubernetes 1.33: use systemd " \
        "from 1.31 on" in lines  # fmt: skip
    assert any(line["kind"] == "OperatingSystemConfig" for line in webhook.judged())


def _kubectl_words(env: Environment, directory: Path) -> dict[str, str]:
    """{name: configured | unchanged | created} as `kubectl apply --dry-run=server -f directory` prints them."""
    out = env.kubectl("apply", "--dry-run=server", "-f", str(directory)).stdout
    found = re.findall(r"^[\w.]+/([\w-]+) (\w+) \(server dry run\)$", out, flags=re.MULTILINE)
    return dict(found)


def _review_judged(env: Environment, directory: Path) -> dict[str, dict[str, Any]]:
    out = io.StringIO()
    code = main(["review", str(directory), "--kubeconfig", str(env.kubeconfig), "--output", "json"], out)
    assert code == 0, out.getvalue()
    return {r["request"]["name"]: r["request"] for r in json.loads(out.getvalue())}


def test_review_against_the_cluster_judges_what_kubectl_apply_would_change(
    e2e_env: Environment, applied_landscape: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """`review --kubeconfig dir/` judges, as UPDATE, exactly the objects `kubectl apply -f dir/` reports configured:
    none after the apply but prod, whose "1.33" gardener-apiserver stores as "1.33.5" (kubectl patches it back each
    time); the edited profile after an edit, with the last-applied annotation kubectl then writes."""
    directory = tmp_path / "landscape"
    landscape.write(directory, "cloudprofile.yaml", [applied_landscape["profile"]])
    landscape.write(directory, "shoot-prod.yaml", [applied_landscape["prod"]])
    e2e_env.kubectl("apply", "-f", str(directory))
    words = _kubectl_words(e2e_env, directory)
    assert words == {"aws": "unchanged", "prod": "configured"}
    judged = _review_judged(e2e_env, directory)
    assert {name: r["operation"] for name, r in judged.items()} == {"prod": "UPDATE"}
    profile = json.loads(json.dumps(applied_landscape["profile"]))
    profile["metadata"]["labels"] = {"reviewed": "e2e"}
    landscape.write(directory, "cloudprofile.yaml", [profile])
    assert _kubectl_words(e2e_env, directory)["aws"] == "configured"
    judged = _review_judged(e2e_env, directory)
    assert judged["aws"]["operation"] == "UPDATE"
    computed = judged["aws"]["object"]["metadata"]["annotations"][LAST_APPLIED]
    e2e_env.kubectl("apply", "-f", str(directory / "cloudprofile.yaml"))
    stored = json.loads(e2e_env.kubectl("get", "cloudprofile", "aws", "-o", "json").stdout)
    assert stored["metadata"]["annotations"][LAST_APPLIED] == computed
    assert _kubectl_words(e2e_env, directory)["aws"] == "unchanged"
    assert "aws" not in _review_judged(e2e_env, directory)


def test_audit_of_a_clean_landscape_prints_nothing_on_stderr(
    e2e_env: Environment, applied_landscape: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "webhook", "audit", "--kubeconfig", str(e2e_env.kubeconfig), "--sync-timeout", "60"],
        capture_output=True, text=True, timeout=300, check=False, cwd=landscape.ROOT,
    )  # fmt: skip
    assert result.stderr == ""
    assert result.returncode in (0, 1), result.stdout
    assert "CloudProfile" in result.stdout.splitlines()[0]


def _gardener_deployment(role: str, tag: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"gardener-{role}", "namespace": "garden", "labels": {"app": "gardener", "role": role}},
        "spec": {
            "replicas": 0,  # no controller-manager runs here: nothing would start them anyway
            "selector": {"matchLabels": {"app": "gardener", "role": role}},
            "template": {
                "metadata": {"labels": {"app": "gardener", "role": role}},
                "spec": {
                    "containers": [{"name": f"gardener-{role}", "image": f"registry.example/gardener/{role}:{tag}"}]
                },
            },
        },
    }


def test_a_gardener_component_newer_than_the_apiserver_is_denied_by_kube_apiserver(
    e2e_env: Environment, webhook: Webhook
) -> None:
    """The control-plane Deployments in `garden` (VS-CP rules), judged against the gardener-apiserver Deployment the
    webhook's live view reads."""
    _apply(e2e_env, [_gardener_deployment("apiserver", "v1.150.0")], check=True)
    ok = _apply(e2e_env, [_gardener_deployment("controller-manager", "v1.150.0")], "--dry-run=server")
    assert ok.returncode == 0, ok.stderr
    newer = _gardener_deployment("controller-manager", "v1.151.0")
    deadline = time.monotonic() + 60  # the view sees the apiserver Deployment through its watch
    while True:
        result = _apply(e2e_env, [newer], "--dry-run=server")
        if result.returncode == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'admission webhook "deployments.gardener-webhook.gardener.cloud" denied the request' in result.stderr
    assert "1.151.0" in result.stderr and "1.150.0" in result.stderr


def test_no_version_in_use_can_be_removed_across_a_gardener_apiserver_restart(
    e2e_env: Environment, webhook: Webhook, applied_landscape: dict[str, dict[str, Any]]
) -> None:
    """The live view watches through kube-apiserver's aggregator; while gardener-apiserver restarts, the watches
    break. Right after it is back, removing a version prod's pool uses is denied, whether or not the view has
    caught up (found in use, or refused as unknown: cluster.failClosed)."""
    profile = json.loads(json.dumps(applied_landscape["profile"]))
    profile["spec"]["kubernetes"]["versions"] = [
        v for v in profile["spec"]["kubernetes"]["versions"] if v["version"] != "1.33.4"
    ]
    e2e_env.restart("gardener-apiserver")
    result = _apply(e2e_env, [profile], "--dry-run=server")
    assert result.returncode == 1, result.stdout
    assert CLOUDPROFILE_WEBHOOK in result.stderr
    # And once the view has synced again, the denial names the Shoot.
    wait_for(f"{webhook.process.health_url}/readyz", (200, "ok"))
    result = _apply(e2e_env, [profile], "--dry-run=server")
    assert result.returncode == 1 and "garden-team/prod" in result.stderr, result.stderr


def test_the_hourly_audit_writes_policyreports_in_cluster_with_its_own_serviceaccount(
    e2e_env: Environment, applied_landscape: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """The CronJob's command (`audit --in-cluster --apply`), its ServiceAccount and RBAC from the manifests, and the
    paths a Pod has: the token, CA and namespace under /var/run/secrets/kubernetes.io/serviceaccount (bound there by
    bubblewrap) and KUBERNETES_SERVICE_HOST/PORT."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        message = "bubblewrap (bwrap) is needed to lay out a Pod's service account files; .ci/run installs it"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    rbac = [d for d in yaml.safe_load_all((MANIFESTS / "components" / "audit-cronjob" / "rbac.yaml").read_text()) if d]
    _apply(e2e_env, rbac, check=True)
    cronjob = yaml.safe_load((MANIFESTS / "components" / "audit-cronjob" / "cronjob.yaml").read_text())
    container = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    account = tmp_path / "serviceaccount"
    account.mkdir()
    token = e2e_env.kubectl("create", "token", "gardener-webhook-audit", "-n", "gardener-webhook").stdout.strip()
    (account / "token").write_text(token)
    shutil.copy(e2e_env.ca_file, account / "ca.crt")
    (account / "namespace").write_text("gardener-webhook")
    host, port = e2e_env.kube_url.removeprefix("https://").rsplit(":", 1)
    result = subprocess.run(
        [bwrap, "--dev-bind", "/", "/", "--tmpfs", "/run", "--ro-bind", str(account),
         "/run/secrets/kubernetes.io/serviceaccount", "--chdir", str(landscape.ROOT),
         sys.executable, "-m", "webhook", *container["args"]],
        env={**os.environ, "KUBERNETES_SERVICE_HOST": host, "KUBERNETES_SERVICE_PORT": port},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode in (0, 1), result.stdout + result.stderr
    reports = json.loads(e2e_env.kubectl("get", "policyreports", "-n", "garden-team", "-o", "json").stdout)["items"]
    assert reports, result.stdout
    subjects = {
        r["resources"][0]["name"] for report in reports for r in report.get("results", []) if r.get("resources")
    }
    assert "prod" in subjects
    cluster = json.loads(e2e_env.kubectl("get", "clusterpolicyreports", "-o", "json").stdout)["items"]
    assert cluster and any(r.get("results") for r in cluster)
