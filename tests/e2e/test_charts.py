"""The charts of charts/ rendered by the pinned helm and applied to the real API servers, and the webhook they install.

- `helm lint --strict` of each chart with the values gardener-operator gives it is clean, and `helm template` renders
  what tests/charts.py's render_chart renders (which `make test` relies on), plus the hand-written templates.
- Every rendered object is accepted by `kubectl apply --dry-run=server --validate=strict`: the runtime chart's (with
  gardener-operator's generic kubeconfig injected, as it applies them) and manifests/monitoring/garden into
  kube-apiserver with the VerticalPodAutoscaler and prometheus-operator CRDs that gardener-operator installs into a
  runtime cluster; the application chart's into the virtual side (kube-apiserver with the aggregated
  gardener-apiserver, which stands for the virtual garden here); the Extension of
  manifests/overlays/virtual-garden/extension against gardener-operator's Extension CRD of the pinned release.
- The webhook the charts install serves: both charts' objects applied for real, the runtime chart's Pod run as its
  manifest says (tests/pods.py: uid 65532, read-only root, no capabilities, the manifest's volumes, among them the
  injected generic kubeconfig with a real ServiceAccount token of the virtual side), its Service name resolved by the
  API servers (environment.CLUSTER_DNS) and relayed to the Pod as a Service's address is, and a bad CloudProfile
  applied with kubectl is denied by it over mTLS, with the chart's certificates.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Final

import pytest
import trustme
import yaml

from tests.charts import (
    ACCESS_SECRET,
    ALL,
    APPLICATION,
    GENERIC_KUBECONFIG_SECRET,
    RUNTIME,
    TEMPLATE,
    VALUES,
    VIRTUAL_SERVICE_ACCOUNT,
    Chart,
    comparable,
    inject_generic_garden_kubeconfig,
    merge_values,
    operator_values,
    render_chart,
)
from tests.e2e import landscape as landscape_examples
from tests.e2e.environment import Environment, free_port
from tests.image import conformance_image
from tests.manifest_tree import ADMISSION_CERTS, SEED_CERTS, prepared_tree
from tests.pods import Material, Sandbox, http_ready, pod_template, poll, resolve, unavailable
from tools.e2e import components as e2e_tools

ROOT: Final = Path(__file__).resolve().parents[2]
GARDEN: Final = "garden"
SERVICE: Final = "gardener-webhook.garden.svc"
START_SECONDS: Final = 180.0  # upper bound to readiness on a loaded machine; ends at readiness
Object = dict[str, Any]


class Landscape:
    """What gardener-operator holds for the Extension: the certificates, the values it passes, the helm binary."""

    def __init__(self, env: Environment, scratch: Path) -> None:
        self.env = env
        self.scratch = scratch
        self.helm = env.binaries["helm"]
        self.serving_ca = trustme.CA(organization_name="gardener-webhook e2e charts")
        cert = self.serving_ca.issue_cert(SERVICE, f"{SERVICE}.cluster.local")
        self.values: Object = {
            "tls": {
                "crt": b"".join(b.bytes() for b in cert.cert_chain_pems).decode(),
                "key": cert.private_key_pem.bytes().decode(),
                "ca": self.serving_ca.cert_pem.bytes().decode(),
            },
            "clientCA": env.webhook_client_ca_file.read_text(encoding="utf-8"),
        }

    def operator_values(self, chart: Chart, **extra: Any) -> Object:
        """The values gardener-operator renders `chart` with (the Extension's and its own), plus `extra`."""
        return merge_values(self.values, {**extra, **operator_values(chart)})

    def helm_run(self, *args: str) -> str:
        proc = subprocess.run([str(self.helm), *args], capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 0, f"helm {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
        return proc.stdout + proc.stderr

    def template(self, chart: Chart, namespace: str, **extra: Any) -> list[Object]:
        """`helm template` of `chart` as gardener-operator renders it (release name = the Extension's)."""
        values = self.scratch / f"{chart.name}.values.yaml"
        values.write_text(yaml.safe_dump(self.operator_values(chart, **extra)), encoding="utf-8")
        out = self.helm_run("template", "gardener-webhook", str(chart.path), "-n", namespace, "-f", str(values))
        return [doc for doc in yaml.safe_load_all(out) if doc]


@pytest.fixture(scope="module")
def landscape(e2e_env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Landscape:
    for namespace in (GARDEN, "gardener-system-public", "gardener-webhook"):
        e2e_env.kubectl("create", "namespace", namespace, check=False)
    runtime_crds = e2e_tools.runtime_crd_dir(e2e_env.cache, e2e_env.pins)
    files = sorted(runtime_crds.glob("*.yaml"))
    assert {f.name for f in files} == set(e2e_tools.RUNTIME_CRDS), f"run `make e2e-tools`: {runtime_crds}"
    e2e_env.kubectl("apply", "--server-side", *(arg for f in files for arg in ("-f", str(f))))
    e2e_env.kubectl("wait", "--for=condition=Established", "--timeout=120s", "crd", "--all")
    return Landscape(e2e_env, tmp_path_factory.mktemp("charts"))


def _apply(env: Environment, objects: list[Object], *flags: str) -> str:
    document = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
    return env.kubectl("apply", *flags, "-f", "-", input=document).stdout


def _injected(objects: list[Object]) -> list[Object]:
    return [inject_generic_garden_kubeconfig(o) for o in objects]


# ------------------------------------------------------------------------------------------ helm


@pytest.mark.parametrize("chart", ALL, ids=lambda c: c.name)
def test_helm_lint_is_clean(landscape: Landscape, chart: Chart) -> None:
    values = landscape.scratch / f"{chart.name}.lint.yaml"
    values.write_text(yaml.safe_dump(landscape.operator_values(chart)), encoding="utf-8")
    out = landscape.helm_run("lint", "--strict", str(chart.path), "-f", str(values))
    assert "1 chart(s) linted, 0 chart(s) failed" in out
    assert "[WARNING]" not in out and "[ERROR]" not in out and "[INFO]" not in out, out


@pytest.mark.parametrize("chart", ALL, ids=lambda c: c.name)
def test_helm_renders_what_render_chart_renders(landscape: Landscape, chart: Chart) -> None:
    namespace = GARDEN if chart is RUNTIME else "gardener-webhook"
    by_helm = landscape.template(chart, namespace)
    defaults = yaml.safe_load((chart.path / VALUES).read_text(encoding="utf-8"))
    template = (chart.path / TEMPLATE).read_text(encoding="utf-8")
    ours = render_chart(template, merge_values(defaults, landscape.operator_values(chart)), namespace)
    hand_written = [o for o in by_helm if o["kind"] == "VerticalPodAutoscaler"]
    assert comparable([o for o in by_helm if o not in hand_written]) == comparable(ours)
    assert [o["metadata"]["name"] for o in hand_written] == (["gardener-webhook"] if chart is RUNTIME else [])


def test_the_vpa_is_optional(landscape: Landscape) -> None:
    kinds = {o["kind"] for o in landscape.template(RUNTIME, GARDEN, vpa={"enabled": False})}
    assert "VerticalPodAutoscaler" not in kinds and "Deployment" in kinds


# ------------------------------------------------------------------------------------ the API servers' word


def test_the_runtime_objects_are_valid_for_kube_apiserver(landscape: Landscape) -> None:
    objects = _injected(landscape.template(RUNTIME, GARDEN))
    out = _apply(landscape.env, objects, "--dry-run=server", "--validate=strict")
    assert out.count("(server dry run)") == len(objects), out


def test_the_monitoring_objects_are_valid_for_kube_apiserver(landscape: Landscape) -> None:
    env = landscape.env
    objects = [
        d for d in yaml.safe_load_all(env.kubectl("kustomize", str(ROOT / "manifests/monitoring/garden")).stdout) if d
    ]
    assert {"ServiceMonitor", "PrometheusRule"} <= {o["kind"] for o in objects}
    out = _apply(env, objects, "--dry-run=server", "--validate=strict")
    assert out.count("(server dry run)") == len(objects), out


def test_the_application_objects_are_valid_for_the_virtual_garden(landscape: Landscape) -> None:
    objects = landscape.template(APPLICATION, "extension-gardener-webhook")
    out = _apply(landscape.env, objects, "--dry-run=server", "--validate=strict")
    assert out.count("(server dry run)") == len(objects), out


def test_the_extension_is_valid_for_gardener_operators_crd(landscape: Landscape) -> None:
    """The example Extension and its Secrets, as docs/operations/virtual-garden.md "Deploy with gardener-operator"
    applies them."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        tree = prepared_tree(landscape.scratch / "tree")
    assert (tree / ADMISSION_CERTS / "tls.crt").is_file() and (tree / SEED_CERTS / "tls.crt").is_file()
    kustomization = tree / "overlays" / "virtual-garden" / "extension"
    out = landscape.env.kubectl("apply", "--dry-run=server", "--validate=strict", "-k", str(kustomization)).stdout
    assert "extension.operator.gardener.cloud/gardener-webhook created (server dry run)" in out, out
    broken = yaml.safe_load((kustomization / "extension.yaml").read_text(encoding="utf-8"))
    broken["spec"]["deployment"]["admission"]["typo"] = True  # the CRD's strict schema is what judges
    proc = landscape.env.kubectl("apply", "--dry-run=server", "--validate=strict", "-f", "-",
                                 input=json.dumps(broken), check=False)  # fmt: skip
    assert proc.returncode != 0 and 'unknown field "spec.deployment.admission.typo"' in proc.stderr, proc.stderr


# --------------------------------------------------------------------------------- the installed webhook


def _generic_kubeconfig(env: Environment, server: str) -> str:
    """gardener-operator's generic token kubeconfig: the virtual garden's address and CA, the token read from the
    file the access Secret's `token` is mounted as."""
    ca = base64.b64encode(env.ca_file.read_bytes()).decode()
    return yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "garden",
        "clusters": [{"name": "garden", "cluster": {"server": server, "certificate-authority-data": ca}}],
        "users": [{"name": "extension", "user": {"tokenFile": "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/token"}}],
        "contexts": [{"name": "garden", "context": {"cluster": "garden", "user": "extension"}}],
    })  # fmt: skip


def test_the_webhook_the_charts_installed_denies_a_bad_cloudprofile(landscape: Landscape) -> None:
    env = landscape.env
    if not env.cluster_dns:
        pytest.skip("the API servers cannot resolve the charts' Service name here (unshare/mount, as root)")
    if (reason := unavailable()) is not None:
        pytest.skip(reason)
    port = free_port()  # the Service's port; the Pod listens on 9443 inside its own network namespace
    runtime = _injected(landscape.template(RUNTIME, GARDEN, service={"port": port}))
    application = landscape.template(APPLICATION, "extension-gardener-webhook", service={"port": port})
    # What gardener-operator makes: the extension's ServiceAccount in the virtual garden and its token.
    env.kubectl("create", "serviceaccount", VIRTUAL_SERVICE_ACCOUNT["name"], "-n", "kube-system", check=False)
    virtual_token = env.kubectl("create", "token", VIRTUAL_SERVICE_ACCOUNT["name"], "-n", "kube-system",
                                "--duration=1h").stdout.strip()  # fmt: skip
    # As gardener-operator goes: the virtual garden's objects first (the webhook configuration only once the Pods
    # answer, since it fails closed), then the runtime cluster's.
    _apply(env, [o for o in application if o["kind"] != "ValidatingWebhookConfiguration"])
    _apply(env, [o for o in runtime if o["kind"] != "ValidatingWebhookConfiguration"])
    runtime_token = env.kubectl("create", "token", "gardener-webhook", "-n", GARDEN, "--duration=1h").stdout.strip()
    (deployment,) = [o for o in runtime if o["kind"] == "Deployment"]
    (container,) = pod_template(deployment)["spec"]["containers"]
    api_port = 6443  # the API server as the Pod reaches it: its own 127.0.0.1:6443, relayed out
    material = Material(
        secrets={
            GENERIC_KUBECONFIG_SECRET: {"kubeconfig": _generic_kubeconfig(env, f"https://127.0.0.1:{api_port}").encode()},
            ACCESS_SECRET: {"token": virtual_token.encode()},
        },
        api_port=api_port, token=runtime_token.encode(), ca_crt=env.ca_file.read_bytes(), namespace=GARDEN,
    )  # fmt: skip
    scratch = landscape.scratch / "pod"
    scratch.mkdir()
    run = resolve(deployment, container, runtime, conformance_image()[0], material, scratch)
    assert run.uid == 65532 and run.read_only_root
    kube_port = int(env.kube_url.rsplit(":", 1)[1])
    try:
        with Sandbox(run, scratch) as pod:
            pod.start()
            pod.route(api_port, "127.0.0.1", kube_port)
            pod.release()
            probe = container["readinessProbe"]["httpGet"]
            until = time.monotonic() + START_SECONDS
            pod.in_netns(lambda: poll(lambda: http_ready(run.ports[probe["port"]], probe["path"]), until=until,
                                      alive=pod)).result()  # fmt: skip
            pod.publish(port, run.ports["https"])
            # Runtime cluster and virtual garden are one kube-apiserver here: the runtime chart's configuration (the
            # Deployments' webhook) goes in under a name of its own beside the application chart's.
            (deployments_webhook,) = [o for o in runtime if o["kind"] == "ValidatingWebhookConfiguration"]
            deployments_webhook["metadata"]["name"] = "gardener-webhook-runtime"
            _apply(
                env, [deployments_webhook, *(o for o in application if o["kind"] == "ValidatingWebhookConfiguration")]
            )
            # Valid for gardener-apiserver, which checks only the control plane's version; the webhook also sees
            # that a worker pool of a Shoot still runs its kubelet on it (docs/design.md §5, "Versions in use").
            env.kubectl("create", "namespace", landscape_examples.PROJECT_NAMESPACE, check=False)
            _apply(env, landscape_examples.project_objects())
            (profile,) = landscape_examples.objects("cloudprofile.yaml")
            (shoot,) = landscape_examples.objects("shoot-prod.yaml")
            profile["metadata"]["name"] = shoot["spec"]["cloudProfile"]["name"] = "charts-aws"
            shoot["metadata"]["name"] = "charts-prod"
            created = env.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                                         "items": [profile, shoot]}))  # fmt: skip
            assert "Warning: " in created.stderr, created.stderr  # the webhook's warnings: it answered
            profile["spec"]["kubernetes"]["versions"] = [
                v for v in profile["spec"]["kubernetes"]["versions"] if v["version"] != "1.33.4"
            ]
            proc = env.kubectl("apply", "-f", "-", input=json.dumps(profile), check=False)
            assert proc.returncode != 0, proc.stdout + proc.stderr
            assert 'admission webhook "cloudprofiles.gardener-webhook.gardener.cloud" denied the request' in proc.stderr
            assert 'unable to delete Kubernetes version "1.33.4"' in proc.stderr, proc.stderr
            env.kubectl("delete", "shoot", "charts-prod", "-n", landscape_examples.PROJECT_NAMESPACE, "--wait=false",
                        check=False)  # fmt: skip
            pod.signal(signal.SIGTERM)
            assert pod.wait(run.grace_seconds) == 0, pod.stderr()[-3000:]
    finally:
        names = [o["metadata"]["name"] for o in runtime + application if o["kind"] == "ValidatingWebhookConfiguration"]
        env.kubectl("delete", "validatingwebhookconfiguration", *names, "--ignore-not-found", check=False)
