"""The e2e tier's fixtures: the real API servers (tests/e2e/environment.py) and the webhook registered on them.

`make e2e` builds the pinned binaries first (`make e2e-tools`). Without them the tier skips with that reason, except
under CI (`CI=true`), where a missing binary is an error: CI must never pass an e2e tier that did not run.

The webhook runs as the garden overlay's Deployment runs it (`serve --config components/garden/config.yaml
--cert-dir … --client-ca … --client-cn gardener-webhook-client`, its live view as the ServiceAccount
`gardener-webhook/gardener-webhook` with the overlay's RBAC and a TokenRequest token), and is registered with the
ValidatingWebhookConfigurations the manifests render (`kubectl kustomize manifests/components/garden/webhooks`, and
the seed's), changed in one respect only: `clientConfig.service` becomes `url: https://localhost:<port>/validate`,
since no cluster DNS or Service network exists here (a Pod's Service would be reached the same way on port 443).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
import trustme
import yaml

from tests.e2e.environment import Environment, EnvironmentError_
from tests.server.processes import ServeProcess, wait_for

ROOT: Final = Path(__file__).resolve().parents[2]
MANIFESTS: Final = ROOT / "manifests"
NAMESPACE: Final = "gardener-webhook"
SERVICE_DNS: Final = ("gardener-webhook.gardener-webhook.svc", "gardener-webhook.gardener-webhook.svc.cluster.local")


@pytest.fixture(scope="session")
def e2e_env() -> Iterator[Environment]:
    """The running etcd, kube-apiserver and gardener-apiserver (session-wide)."""
    env = Environment()
    absent = [str(p) for p in env.binaries.values() if not p.is_file()]
    if absent:
        reason = f"the e2e binaries are not built ({', '.join(absent)}): run `make e2e`"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        env.start()
    except EnvironmentError_ as exc:
        pytest.fail(str(exc))
    yield env
    env.stop()


def rendered(env: Environment, kustomization: Path) -> list[dict[str, Any]]:
    """The objects `kubectl kustomize` renders from `kustomization` (the pinned kubectl's own kustomize)."""
    text = env.kubectl("kustomize", str(kustomization)).stdout
    return [doc for doc in yaml.safe_load_all(text) if doc]


def registered(configuration: dict[str, Any], url: str, ca_bundle: bytes, name: str) -> dict[str, Any]:
    """A rendered ValidatingWebhookConfiguration pointed at `url`, with `ca_bundle`, renamed `name`."""
    webhooks = []
    for webhook in configuration["webhooks"]:
        service = webhook["clientConfig"].get("service") or {}
        path = service.get("path", "/validate")
        webhooks.append(
            {**webhook, "clientConfig": {"url": f"{url}{path}", "caBundle": base64.b64encode(ca_bundle).decode()}}
        )
    return {**configuration, "metadata": {**configuration["metadata"], "name": name}, "webhooks": webhooks}


class Webhook:
    """The served, registered webhook: `process` (ServeProcess), `url`, and its log lines."""

    def __init__(self, process: ServeProcess, url: str) -> None:
        self.process, self.url = process, url

    def judged(self) -> list[dict[str, Any]]:
        """The webhook's `admission review judged` log lines so far."""
        return [line for line in self.process.logs() if line.get("message") == "admission review judged"]


@pytest.fixture(scope="session")
def webhook(e2e_env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Webhook]:
    """gardener-webhook serving both API servers, registered as the manifests register it (see the module)."""
    env = e2e_env
    workdir = tmp_path_factory.mktemp("webhook")
    serving_ca = trustme.CA(organization_name="gardener-webhook e2e serving")
    cert = serving_ca.issue_cert("localhost", "127.0.0.1", *SERVICE_DNS)
    certs = workdir / "tls"
    certs.mkdir()
    cert.private_key_pem.write_to_path(str(certs / "tls.key"))
    cert.cert_chain_pems[0].write_to_path(str(certs / "tls.crt"))
    # The ServiceAccount and its read-only RBAC, as the garden overlay installs them.
    env.kubectl("create", "namespace", NAMESPACE, check=False)  # tests/e2e/test_charts.py may have made it
    for namespace in ("garden", "gardener-system-public"):
        env.kubectl("create", "namespace", namespace, check=False)
    env.kubectl("apply", "-f", str(MANIFESTS / "base" / "serviceaccount.yaml"))
    env.kubectl("apply", "-k", str(MANIFESTS / "components" / "garden" / "rbac"))
    token = env.kubectl("create", "token", "gardener-webhook", "-n", NAMESPACE, "--duration=2h").stdout.strip()
    view = env.write_kubeconfig(workdir / "view.kubeconfig", env.kube_url, token=token)
    args = [
        "--config", str(MANIFESTS / "components" / "garden" / "config.yaml"),
        "--cert-dir", str(certs),
        "--client-ca", str(env.webhook_client_ca_file),
        "--client-cn", "gardener-webhook-client",
        "--kubeconfig", str(view),
        "--drain-seconds", "0",
    ]  # fmt: skip
    process = ServeProcess(workdir, args)
    url = process.url.replace("127.0.0.1", "localhost")
    try:
        wait_for(f"{process.health_url}/readyz", (200, "ok"))
        garden = rendered(env, MANIFESTS / "components" / "garden" / "webhooks")[0]
        seed = yaml.safe_load((MANIFESTS / "components" / "seed" / "validatingwebhookconfiguration.yaml").read_text())
        ca_bundle = serving_ca.cert_pem.bytes()
        for config in (registered(garden, url, ca_bundle, "gardener-webhook"),
                       registered(seed, url, ca_bundle, "gardener-webhook-seed")):  # fmt: skip
            env.kubectl("apply", "-f", "-", input=yaml.safe_dump(config))
        served = Webhook(process, url)
        yield served
        errors = [line for line in process.logs() if line.get("level") == "error"]
        assert not errors, f"the webhook logged errors: {errors[:5]}"
    finally:
        env.kubectl("delete", "validatingwebhookconfiguration", "gardener-webhook", "gardener-webhook-seed",
                    "--ignore-not-found", check=False)  # fmt: skip
        process.stop()
