"""Every container of every overlay and chart runs as its manifest runs it.

For each Deployment and CronJob that `kubectl kustomize` renders from `manifests/overlays/*/*` and that the seed and
runtime charts render (the runtime chart with gardener-operator's generic kubeconfig injected), each container is started in a
sandbox (`tests/pods.py`): its command, args and env over the image `make image` built, its own filesystem and config
(tests/image.py; where no container engine exists, over the Dockerfile's runtime stage with the host's virtualenv,
and test_the_containers_run_from_the_built_image skips saying so), as uid 65532 with a read-only root filesystem,
with only the volumes it declares, made from the rendered objects or from test material (certificates, the virtual garden's kubeconfig with inline
`certificate-authority-data` as `kubectl config view --raw --flatten` writes it, the ServiceAccount token). Where
the container reads a cluster, a fake API server (TLS, 127.0.0.1:6443 of the sandbox's own network namespace) is
the cluster, for the in-cluster configuration and the kubeconfig alike.
A server container must become ready on its readiness probe, answer an AdmissionReview over its port with the
client certificate the API servers present, and exit 0 within its terminationGracePeriodSeconds of SIGTERM. The
audit CronJob's container must finish its run with a defined exit status (0 nothing denied, 1 findings).
Budgets are generous upper bounds for a busy machine: every wait ends as soon as its event happens.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import http.client
import json
import signal
import socket
import ssl
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import trustme
import yaml
from aiohttp import web

from tests.builders import review
from tests.charts import (
    ACCESS_SECRET,
    GENERIC_KUBECONFIG_PATH,
    GENERIC_KUBECONFIG_SECRET,
    RUNTIME,
    SEED,
    TEMPLATE,
    VALUES,
    inject_generic_garden_kubeconfig,
    merge_values,
    render_chart,
)
from tests.cluster.fake_apiserver import (
    FakeApiServer,
    cloud_profile_obj,
    gardener_deployment_obj,
    gardener_info_obj,
    seed_obj,
    shoot_obj,
)
from tests.image import conformance_image
from tests.manifest_tree import KUBECTL, NO_KUBECTL, SEED_CERTS, SERVICE_DNS, STATIC_CERTS, kustomize, prepared_tree
from tests.pods import Image, Material, Sandbox, http_ready, pod_template, poll, resolve, unavailable

ROOT: Final = Path(__file__).resolve().parents[1]
OVERLAYS: Final = sorted(
    str(p.parent.relative_to(ROOT / "manifests" / "overlays")) for p in (ROOT / "manifests" / "overlays").glob("*/*/kustomization.yaml")
)  # fmt: skip
SEED_CHART: Final = "chart/gardener-webhook-seed"
RUNTIME_CHART: Final = "chart/gardener-webhook-runtime"  # as gardener-operator applies it: kubeconfig injected
API_PORT: Final = 6443
START_SECONDS: Final = 180.0  # upper bound for start-up to readiness on a loaded machine; ends at readiness
CLIENT_CN: Final = "gardener-webhook-client"
VIRTUAL_GARDEN_KUBECONFIG: Final = "gardener-webhook-virtual-garden"


@dataclass(frozen=True)
class Certificates:
    server_ca: trustme.CA  # signs the serving certificate where cert-manager would
    client_ca: trustme.CA  # the API servers' client certificates
    api_ca: trustme.CA  # the fake API server's


@dataclass(frozen=True)
class Case:
    overlay: str
    kind: str
    name: str
    container: str

    @property
    def id(self) -> str:
        return f"{self.overlay}:{self.kind}/{self.name}:{self.container}"


@pytest.fixture(scope="module")
def certificates() -> Certificates:
    return Certificates(trustme.CA(), trustme.CA(), trustme.CA())


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, certificates: Certificates) -> dict[str, list[dict[str, Any]]]:
    """overlay -> its rendered objects, and the seed chart rendered with the static certificates."""
    if KUBECTL is None:
        pytest.skip(NO_KUBECTL)
    tree = prepared_tree(tmp_path_factory.mktemp("manifests"))
    for certs in (STATIC_CERTS, SEED_CERTS):  # the operator's client CA: the one our client certificate is from
        certificates.client_ca.cert_pem.write_to_path(str(tree / certs / "client-ca.crt"))
    objects = {overlay: kustomize(KUBECTL, tree / "overlays" / overlay) for overlay in OVERLAYS}
    static = tree / STATIC_CERTS
    values = yaml.safe_load((SEED.path / VALUES).read_text(encoding="utf-8"))
    values["tls"] = {"crt": (static / "tls.crt").read_text(), "key": (static / "tls.key").read_text(),
                     "ca": (static / "ca.crt").read_text()}  # fmt: skip
    values["clientCA"] = certificates.client_ca.cert_pem.bytes().decode()
    objects[SEED_CHART] = render_chart((SEED.path / TEMPLATE).read_text(encoding="utf-8"), values)
    defaults = yaml.safe_load((RUNTIME.path / VALUES).read_text(encoding="utf-8"))
    runtime_values = merge_values(defaults, {key: values[key] for key in ("tls", "clientCA")})
    runtime = render_chart((RUNTIME.path / TEMPLATE).read_text(encoding="utf-8"), runtime_values, "garden")
    objects[RUNTIME_CHART] = [inject_generic_garden_kubeconfig(o) for o in runtime]
    return objects


def _cases() -> list[Case]:
    """Every container of every workload, listed for readable test ids before anything is rendered;
    test_every_rendered_container_is_a_case checks that the render gives exactly these."""
    return [
        Case("garden/cert-manager", "CronJob", "gardener-webhook-audit", "audit"),
        Case("garden/cert-manager", "Deployment", "gardener-webhook", "gardener-webhook"),
        Case("garden/static", "CronJob", "gardener-webhook-audit", "audit"),
        Case("garden/static", "Deployment", "gardener-webhook", "gardener-webhook"),
        Case("seed/cert-manager", "Deployment", "gardener-webhook", "gardener-webhook"),
        Case("seed/static", "Deployment", "gardener-webhook", "gardener-webhook"),
        Case("virtual-garden/runtime", "Deployment", "gardener-webhook", "gardener-webhook"),
        Case(SEED_CHART, "Deployment", "gardener-webhook", "gardener-webhook"),
        Case(RUNTIME_CHART, "Deployment", "gardener-webhook", "gardener-webhook"),
    ]


CASES: Final = _cases()


def _workloads(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in objects if o.get("kind") in ("Deployment", "CronJob", "Job", "StatefulSet", "DaemonSet")]


def test_every_rendered_container_is_a_case(rendered: dict[str, list[dict[str, Any]]]) -> None:
    found = {
        Case(overlay, w["kind"], w["metadata"]["name"], c["name"])
        for overlay, objects in rendered.items()
        for w in _workloads(objects)
        for c in [*pod_template(w)["spec"].get("initContainers", []), *pod_template(w)["spec"]["containers"]]
    }
    assert found == set(CASES)


@pytest.fixture(scope="module")
def sandboxing() -> None:
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)


def _material(certificates: Certificates) -> Material:
    serving = certificates.server_ca.issue_cert(SERVICE_DNS)
    kubeconfig = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "virtual-garden", "cluster": {
            "server": f"https://127.0.0.1:{API_PORT}",
            "certificate-authority-data": _b64(certificates.api_ca.cert_pem.bytes()),  # --embed-certs
        }}],
        "users": [{"name": "gardener-webhook", "user": {"token": "virtual-garden-token"}}],
        "contexts": [{"name": "virtual-garden", "context": {"cluster": "virtual-garden", "user": "gardener-webhook"}}],
        "current-context": "virtual-garden",
    }  # fmt: skip
    generic = {**kubeconfig, "users": [{"name": "gardener-webhook", "user": {
        "tokenFile": f"{GENERIC_KUBECONFIG_PATH}/token"}}]}  # fmt: skip
    return Material(
        secrets={
            "gardener-webhook-tls": {
                "tls.crt": serving.cert_chain_pems[0].bytes(),
                "tls.key": serving.private_key_pem.bytes(),
                "ca.crt": certificates.server_ca.cert_pem.bytes(),
            },
            "gardener-webhook-client-ca": {"ca.crt": certificates.client_ca.cert_pem.bytes()},
            VIRTUAL_GARDEN_KUBECONFIG: {"kubeconfig": yaml.safe_dump(kubeconfig).encode()},
            # gardener-operator's generic token kubeconfig and the extension's access token (projected together)
            GENERIC_KUBECONFIG_SECRET: {"kubeconfig": yaml.safe_dump(generic).encode()},
            ACCESS_SECRET: {"token": b"virtual-garden-token"},
        },
        api_port=API_PORT,
        ca_crt=certificates.api_ca.cert_pem.bytes(),
    )


def _b64(data: bytes) -> str:
    return base64.standard_b64encode(data).decode()


def _cluster() -> FakeApiServer:
    cluster = FakeApiServer()
    cluster.put(cloud_profile_obj("aws", "1.33.4", "1.34.2"))
    cluster.put(shoot_obj("garden-team", "dev", profile="aws"))
    cluster.put(seed_obj("aws-eu1", "1.120.0"))
    cluster.put(gardener_deployment_obj("apiserver", "v1.120.0"))
    cluster.put(gardener_info_obj("v1.120.0"))
    return cluster


async def _serve_api(
    sandbox: Sandbox, certificates: Certificates, runners: list[web.AppRunner], *,
    bearer_tokens: frozenset[str] | None = None,
) -> FakeApiServer:  # fmt: skip
    """A fake API server on 127.0.0.1:6443 of the sandbox's network namespace (TLS, the api CA); its runner is
    appended to `runners` for the caller to clean up."""
    cluster = _cluster()
    cluster.bearer_tokens = bearer_tokens
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificates.api_ca.issue_cert("127.0.0.1").configure_cert(context)
    listener = await asyncio.wrap_future(sandbox.in_netns(lambda: _listener(API_PORT)))
    runner = web.AppRunner(cluster.app())
    await runner.setup()
    runners.append(runner)
    await web.SockSite(runner, listener, ssl_context=context).start()
    cluster.url = f"https://127.0.0.1:{API_PORT}"
    return cluster


@pytest.fixture
async def api_server_in(certificates: Certificates) -> AsyncIterator[Any]:
    """serve(sandbox, bearer_tokens=None): `_serve_api` on this test's loop, cleaned up after the test."""
    runners: list[web.AppRunner] = []

    async def serve(sandbox: Sandbox, *, bearer_tokens: frozenset[str] | None = None) -> FakeApiServer:
        return await _serve_api(sandbox, certificates, runners, bearer_tokens=bearer_tokens)

    yield serve
    for runner in runners:
        await runner.cleanup()


def _listener(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    sock.setblocking(False)
    return sock


def _admission_review(port: int, trust: ssl.SSLContext) -> dict[str, Any]:
    """POST an AdmissionReview to /validate as the API server does (Service DNS name, client certificate)."""
    obj = yaml.safe_load((ROOT / "examples" / "landscape" / "cloudprofile.yaml").read_text(encoding="utf-8"))
    body = json.dumps(review(obj, uid="conformance-1")).encode()
    raw = socket.create_connection(("127.0.0.1", port), timeout=60)
    connection = http.client.HTTPSConnection(SERVICE_DNS, port, timeout=60)
    connection.sock = trust.wrap_socket(raw, server_hostname=SERVICE_DNS)
    try:
        connection.request("POST", "/validate?timeout=30s", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        assert answer.status == 200, answer.read()
        return json.loads(answer.read())  # type: ignore[no-any-return]
    finally:
        connection.close()


def _client_context(rendered: dict[str, list[dict[str, Any]]], certificates: Certificates) -> ssl.SSLContext:
    """Trust every CA a serving certificate may come from; present the API servers' client certificate."""
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    certificates.server_ca.configure_trust(context)
    for objects in rendered.values():
        for obj in objects:
            if obj.get("kind") == "Secret" and "ca.crt" in obj.get("data", {}):
                context.load_verify_locations(cadata=_unb64(obj["data"]["ca.crt"]))
    certificates.client_ca.issue_cert(common_name=CLIENT_CN).configure_cert(context)
    return context


def _unb64(text: str) -> str:
    return base64.b64decode("".join(text.split())).decode()


async def _run_case(
    case: Case, rendered: dict[str, list[dict[str, Any]]], certificates: Certificates, scratch: Path
) -> None:
    """Start `case`'s container in a sandbox with a fake API server and check it as the module docstring says."""
    objects = rendered[case.overlay]
    (workload,) = [w for w in _workloads(objects) if (w["kind"], w["metadata"]["name"]) == (case.kind, case.name)]
    (container,) = [c for c in pod_template(workload)["spec"]["containers"] if c["name"] == case.container]
    run = resolve(workload, container, objects, conformance_image()[0], _material(certificates), scratch)
    assert run.uid == 65532 and run.read_only_root
    runners: list[web.AppRunner] = []
    try:
        with Sandbox(run, scratch) as sandbox:
            sandbox.start()
            cluster = await _serve_api(sandbox, certificates, runners)
            sandbox.release()
            if case.kind == "CronJob":
                deadline = float(workload["spec"]["jobTemplate"]["spec"].get("activeDeadlineSeconds", 900))
                status = await asyncio.to_thread(sandbox.wait, deadline)
                assert status in (0, 1), f"audit exited {status}:\n{sandbox.stderr()[-3000:]}"
                assert "Traceback" not in sandbox.stderr()  # 1 is also Python's status for an uncaught exception
                assert cluster.writes, "the audit wrote no PolicyReport"
                return
            probe = container["readinessProbe"]["httpGet"]
            health = probe["port"] if isinstance(probe["port"], int) else run.ports[probe["port"]]
            until = time.monotonic() + START_SECONDS
            await asyncio.wrap_future(
                sandbox.in_netns(lambda: poll(lambda: http_ready(health, probe["path"]), until=until, alive=sandbox))
            )
            answer = await asyncio.wrap_future(
                sandbox.in_netns(lambda: _admission_review(run.ports["https"], _client_context(rendered, certificates)))
            )
            assert answer["response"]["uid"] == "conformance-1"
            assert isinstance(answer["response"]["allowed"], bool)
            sandbox.signal(signal.SIGTERM)
            status = await asyncio.to_thread(sandbox.wait, run.grace_seconds)
            assert status == 0, (
                f"not stopped within {run.grace_seconds} s of SIGTERM ({status}):\n{sandbox.stderr()[-3000:]}"
            )
    finally:
        for runner in runners:
            await runner.cleanup()


@pytest.fixture(scope="module")
def outcomes(
    sandboxing: None, rendered: dict[str, list[dict[str, Any]]], certificates: Certificates,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[Case, Exception | None]:  # fmt: skip
    """Every case run at once, each in a thread with its own event loop (the sandboxes share no port: each has its
    own network namespace): the drains of SIGTERM overlap instead of adding up. case -> what failed, or None."""

    def one(case: Case) -> Exception | None:
        scratch = tmp_path_factory.mktemp(case.id.replace("/", "-").replace(":", "-"))
        try:
            asyncio.run(_run_case(case, rendered, certificates, scratch))
        except Exception as exc:  # noqa: BLE001 - reported by the case's own test, with its traceback
            return exc
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=len(CASES)) as pool:
        return dict(zip(CASES, pool.map(one, CASES), strict=True))


def test_the_containers_run_from_the_built_image() -> None:
    """Which image the cases ran from; a skip says the sandbox imitated it. The built image's config is the
    Dockerfile's runtime stage."""
    image, which = conformance_image()
    if image.rootfs is None:
        pytest.skip(f"SKIPPED: {which}")
    print(which)
    dockerfile = Image.from_dockerfile()
    assert (image.entrypoint, image.cmd, image.user, image.workdir) == (
        dockerfile.entrypoint, dockerfile.cmd, dockerfile.user, dockerfile.workdir)  # fmt: skip
    assert {k: v for k, v in image.env.items() if k != "PATH"} == {
        k: v for k, v in dockerfile.env.items() if k != "PATH"
    }
    assert (image.rootfs / "opt/gardener-webhook/bin/gardener-webhook").is_file()
    assert not list((image.rootfs / "opt/gardener-webhook/lib").glob("python3*/site-packages/pip"))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_the_container_runs_as_its_manifest_runs_it(case: Case, outcomes: dict[Case, Exception | None]) -> None:
    error = outcomes[case]
    if error is not None:
        raise error


AUDIT: Final = Case("garden/static", "CronJob", "gardener-webhook-audit", "audit")


@pytest.mark.parametrize("api_server", ["unreachable", "refusing"])
async def test_the_audit_container_exits_3_when_the_cluster_cannot_be_read(
    api_server: str, sandboxing: None, rendered: dict[str, list[dict[str, Any]]], certificates: Certificates,
    api_server_in: Any, tmp_path: Path,
) -> None:  # fmt: skip
    """Exit 3 is what the CronJob's podFailurePolicy retries: no API server listening in the Pod's network, or one
    that refuses the ServiceAccount's token (401). Only `--sync-timeout` is shortened (120 s in the manifest, 2 s here)."""
    objects = rendered[AUDIT.overlay]
    (workload,) = [w for w in _workloads(objects) if w["kind"] == AUDIT.kind]
    (container,) = pod_template(workload)["spec"]["containers"]
    assert "--sync-timeout=120" in container["args"]
    container = {
        **container,
        "args": [a if a != "--sync-timeout=120" else "--sync-timeout=2" for a in container["args"]],
    }
    run = resolve(workload, container, objects, conformance_image()[0], _material(certificates), tmp_path)
    with Sandbox(run, tmp_path) as sandbox:
        sandbox.start()
        cluster = None
        if api_server == "refusing":
            cluster = await api_server_in(sandbox, bearer_tokens=frozenset({"another-token"}))
        sandbox.release()
        status = await asyncio.to_thread(sandbox.wait, 300)
        stderr = sandbox.stderr()
        assert status == 3, stderr[-3000:]
        last = stderr.strip().splitlines()[-1]
        assert "did not sync within 2 s" in last, last
        assert ("401" if api_server == "refusing" else "refused") in last, last
        assert cluster is None or not cluster.writes
