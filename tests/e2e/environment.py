"""etcd, kube-apiserver and gardener-apiserver of the pinned releases on 127.0.0.1, as Gardener's envtest runs them.

The trio of gardener/gardener `test/envtest` (environment.go, apiserver.go, aggregator.go): etcd; kube-apiserver
with a front-proxy CA for aggregation; gardener-apiserver on the same etcd, delegating authentication and
authorization to kube-apiserver, registered through one APIService per Gardener group-version with an ExternalName
Service `kube-system/gardener-apiserver` -> localhost. On top of it, the extensions.gardener.cloud CRDs from
Gardener's own module (OperatingSystemConfig …) and the wgpolicyk8s.io PolicyReport CRDs as Kyverno ships them.

Both API servers read an AdmissionConfiguration whose webhook kubeconfig presents a client certificate (CN
`gardener-webhook-client`, the name the manifests' `--client-cn` admits) to every webhook: the mTLS of
docs/operations/certificates.md "The API servers' client certificate".

Every server listens on 127.0.0.1 on ports the kernel picked, with certificates made for this run (trustme), and
gets SIGTERM when the Python process that started it dies (PR_SET_PDEATHSIG), so nothing outlives a test run.

`python -m tests.e2e.environment` (what `make e2e-env` runs) starts it, prints the admin kubeconfig's path and
waits; Ctrl-C (or SIGTERM) stops every server and removes the folder.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Self

import trustme
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tools.e2e import components as e2e_tools

ROOT: Final = Path(__file__).resolve().parents[2]

POLICY_REPORT_CRDS: Final = (
    ROOT / "tests" / "schemas" / "wgpolicyk8s.io_policyreports.yaml",
    ROOT / "tests" / "schemas" / "wgpolicyk8s.io_clusterpolicyreports.yaml",
)
# The group-versions gardener-apiserver serves (pkg/apiserver AllGardenerAPIGroupVersions at the pinned release).
GARDENER_GROUP_VERSIONS: Final = (
    ("core.gardener.cloud", "v1"),
    ("core.gardener.cloud", "v1beta1"),
    ("operations.gardener.cloud", "v1alpha1"),
    ("security.gardener.cloud", "v1alpha1"),
    ("seedmanagement.gardener.cloud", "v1alpha1"),
)
WEBHOOK_CLIENT_CN: Final = "gardener-webhook-client"
# Upper bounds, not expectations: each wait ends at its event. A cold start of the trio on a busy 2-core machine
# took about 20 s.
# The Service names the charts' webhooks call (charts/gardener-webhook-runtime's Service in namespace garden). The API
# servers resolve them to 127.0.0.1, as cluster DNS resolves a Service name to its address: each runs in a mount
# namespace of its own with an /etc/hosts that adds them (unshare(1) and mount(8), as root; Go reads /etc/hosts
# first). Where that cannot be done, `cluster_dns` is False and the tests that need it skip.
CLUSTER_DNS: Final = ("gardener-webhook.garden.svc",)
START_SECONDS: Final = 180.0
STOP_SECONDS: Final = 30.0


class EnvironmentError_(RuntimeError):
    """A server did not start or become ready; the message ends with the tail of its log."""


def free_port() -> int:
    """A 127.0.0.1 port the kernel picked free (closed again at once; the server binds it right after)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:
    # PR_SET_PDEATHSIG = 1: the kernel sends SIGTERM to the server when the process that started it dies.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


class Server:
    """One started binary, its log file, and how it is stopped (SIGTERM, then SIGKILL after STOP_SECONDS)."""

    def __init__(self, name: str, argv: Sequence[str], log: Path) -> None:
        self.name, self.argv, self.log = name, list(argv), log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the binary (stdout and stderr into the log)."""
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent,  # noqa: PLW1509 (prctl only, before exec)
            )

    def stop(self) -> None:
        """Stop the binary and wait for it."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def tail(self, lines: int = 30) -> str:
        """The last lines of the log."""
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def check_running(self) -> None:
        """Raise EnvironmentError_ with the log's tail if the binary has exited."""
        if self.process is not None and self.process.poll() is not None:
            raise EnvironmentError_(f"{self.name} exited with {self.process.returncode}:\n{self.tail()}")


class Environment:
    """The running trio. `kubeconfig` is the admin's (system:masters) for kube-apiserver, which aggregates the
    Gardener API; `kubectl(...)` runs the pinned kubectl with it. Use as a context manager, or start()/stop()."""

    def __init__(self, workdir: Path | None = None, *, cache: Path | None = None) -> None:
        self._owns_workdir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="gardener-webhook-e2e-"))
        self.cache = cache or e2e_tools.cache_root()
        pins = e2e_tools.load_pins()
        self.binaries = {b.name: e2e_tools.binary_path(self.cache, b) for b in e2e_tools.binaries(pins)}
        self.crds = e2e_tools.crd_dir(self.cache, pins)
        self.pins = pins
        self.servers: dict[str, Server] = {}
        self.etcd_url = ""
        self.kube_url = ""
        self.gardener_url = ""
        self.ca = trustme.CA(organization_name="gardener-webhook e2e")
        self.front_proxy_ca = trustme.CA(organization_name="gardener-webhook e2e front-proxy")
        self.webhook_client_ca = trustme.CA(organization_name="gardener-webhook e2e webhook clients")
        self.kubeconfig = self.workdir / "admin.kubeconfig"
        self.gardener_ca_file = self.workdir / "pki" / "gardener-apiserver-ca.crt"
        self.admin_cert = (self.workdir / "pki" / "admin.crt", self.workdir / "pki" / "admin.key")
        self.cluster_dns = False

    # ------------------------------------------------------------------ files

    def _pem(self, name: str, data: bytes) -> Path:
        path = self.workdir / "pki" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o600)
        return path

    def _issued(
        self, ca: trustme.CA, name: str, *identities: str, cn: str, org: str | None = None
    ) -> tuple[Path, Path]:
        # trustme wants one identity at least: a client certificate names its CN as a DNS name too (unread).
        cert = ca.issue_cert(*(identities or (cn,)), common_name=cn, organization_name=org)
        crt = self._pem(f"{name}.crt", b"".join(blob.bytes() for blob in cert.cert_chain_pems))
        key = self._pem(f"{name}.key", cert.private_key_pem.bytes())
        return crt, key

    def write_kubeconfig(self, path: Path, server: str, *, cert: tuple[Path, Path] | None = None,
                         token: str | None = None, ca: Path | None = None) -> Path:  # fmt: skip
        """A kubeconfig for `server` with a client certificate or a bearer token; `ca` verifies the server."""
        user: dict[str, Any] = {}
        if cert is not None:
            user = {"client-certificate": str(cert[0]), "client-key": str(cert[1])}
        if token is not None:
            user = {"token": token}
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": "e2e", "cluster": {"server": server, "certificate-authority": str(ca or self.ca_file)}}
            ],
            "users": [{"name": "e2e", "user": user}],
            "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "e2e", "namespace": "default"}}],
            "current-context": "e2e",
        }
        path.write_text(yaml.safe_dump(config))
        path.chmod(0o600)
        return path

    def _admission_config(self) -> Path:
        """The AdmissionConfiguration both API servers read: every webhook gets the webhook client certificate."""
        cert = self._issued(self.webhook_client_ca, "webhook-client", cn=WEBHOOK_CLIENT_CN)
        kubeconfig = {
            "apiVersion": "v1",
            "kind": "Config",
            "users": [{"name": "*", "user": {"client-certificate": str(cert[0]), "client-key": str(cert[1])}}],
        }
        webhook_kubeconfig = self.workdir / "webhook-client.kubeconfig"
        webhook_kubeconfig.write_text(yaml.safe_dump(kubeconfig))
        webhook = {"kubeConfigFile": str(webhook_kubeconfig)}
        config = {
            "apiVersion": "apiserver.config.k8s.io/v1",
            "kind": "AdmissionConfiguration",
            "plugins": [
                {
                    "name": name,
                    "configuration": {
                        "apiVersion": "apiserver.config.k8s.io/v1",
                        "kind": "WebhookAdmissionConfiguration",
                        **webhook,
                    },
                }
                for name in ("ValidatingAdmissionWebhook", "MutatingAdmissionWebhook")
            ],
        }
        path = self.workdir / "admission-config.yaml"
        path.write_text(yaml.safe_dump(config))
        return path

    @property
    def ca_file(self) -> Path:
        """The CA of the API servers' serving certificates."""
        return self.workdir / "pki" / "ca.crt"

    @property
    def webhook_client_ca_file(self) -> Path:
        """The CA bundle of the API servers' webhook client certificate (the webhook's --client-ca)."""
        return self.workdir / "pki" / "webhook-client-ca.crt"

    # ------------------------------------------------------------------ start

    def start(self) -> Environment:
        """Start etcd, kube-apiserver and gardener-apiserver and wait until the Gardener API is discoverable.
        Raises EnvironmentError_ (binaries missing: run `make e2e-tools`)."""
        absent = [str(p) for p in self.binaries.values() if not p.is_file()]
        if absent:
            raise EnvironmentError_(f"not built: {', '.join(absent)}; run `make e2e-tools`")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._pem("ca.crt", self.ca.cert_pem.bytes())
        self._pem("webhook-client-ca.crt", self.webhook_client_ca.cert_pem.bytes())
        try:
            self._start_etcd()
            self._start_kube_apiserver()
            self._install_crds()
            self._start_gardener_apiserver()
        except BaseException:
            self.stop()
            raise
        return self

    def _with_cluster_dns(self, argv: list[str]) -> list[str]:
        """argv run with CLUSTER_DNS in its /etc/hosts (the same PID: `exec`), or argv itself where that fails."""
        hosts = self.workdir / "hosts"
        if not hosts.exists():
            base = Path("/etc/hosts").read_text(encoding="utf-8") if Path("/etc/hosts").is_file() else ""
            hosts.write_text(base.rstrip("\n") + "\n" + "".join(f"127.0.0.1 {name}\n" for name in CLUSTER_DNS))
        wrapper = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                   'mount --bind "$0" /etc/hosts && exec "$@"', str(hosts)]  # fmt: skip
        probe = subprocess.run([*wrapper, "getent", "hosts", CLUSTER_DNS[0]], capture_output=True, check=False)
        self.cluster_dns = probe.returncode == 0
        return [*wrapper, *argv] if self.cluster_dns else argv

    def _start_etcd(self) -> None:
        client, peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        server = Server(
            "etcd",
            [
                str(self.binaries["etcd"]),
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={self.etcd_url}",
                f"--advertise-client-urls={self.etcd_url}",
                f"--listen-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-cluster=default=http://127.0.0.1:{peer}",
                "--listen-metrics-urls=",
                "--unsafe-no-fsync",  # a test's data: no fsync per write on a shared disk
                "--log-level=warn",
            ],
            self.workdir / "etcd.log",
        )
        self.servers["etcd"] = server
        server.start()
        self._wait(server, lambda: _get(f"{self.etcd_url}/health", None)[0] == 200)

    def _start_kube_apiserver(self) -> None:
        port = free_port()
        self.kube_url = f"https://127.0.0.1:{port}"
        serving = self._issued(self.ca, "kube-apiserver", "127.0.0.1", "localhost", cn="kube-apiserver")
        admin = self._issued(self.ca, "admin", cn="admin", org="system:masters")
        proxy_client = self._issued(self.front_proxy_ca, "front-proxy-client", cn="front-proxy")
        proxy_ca = self._pem("front-proxy-ca.crt", self.front_proxy_ca.cert_pem.bytes())
        sa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        sa_private = self._pem(
            "service-account.key",
            sa_key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ),
        )
        sa_public = self._pem(
            "service-account.pub",
            sa_key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ),
        )
        server = Server(
            "kube-apiserver",
            self._with_cluster_dns(
                [
                    str(self.binaries["kube-apiserver"]),
                    "--bind-address=127.0.0.1",
                    "--advertise-address=127.0.0.1",
                    f"--secure-port={port}",
                    f"--etcd-servers={self.etcd_url}",
                    f"--tls-cert-file={serving[0]}",
                    f"--tls-private-key-file={serving[1]}",
                    f"--client-ca-file={self.ca_file}",
                    f"--service-account-issuer={self.kube_url}",
                    f"--service-account-key-file={sa_public}",
                    f"--service-account-signing-key-file={sa_private}",
                    "--service-cluster-ip-range=10.0.0.0/24",
                    # The `kubernetes` Service's endpoints may not be loopback addresses; nothing here needs them.
                    "--endpoint-reconciler-type=none",
                    "--authorization-mode=RBAC",
                    "--allow-privileged=true",
                    f"--admission-control-config-file={self._admission_config()}",
                    # aggregation (gardener/gardener test/envtest/aggregator.go)
                    f"--requestheader-client-ca-file={proxy_ca}",
                    "--requestheader-allowed-names=front-proxy",
                    "--requestheader-extra-headers-prefix=X-Remote-Extra-",
                    "--requestheader-group-headers=X-Remote-Group",
                    "--requestheader-username-headers=X-Remote-User",
                    f"--proxy-client-cert-file={proxy_client[0]}",
                    f"--proxy-client-key-file={proxy_client[1]}",
                    f"--cert-dir={self.workdir / 'kube-apiserver-certs'}",
                ]
            ),
            self.workdir / "kube-apiserver.log",
        )
        self.servers["kube-apiserver"] = server
        server.start()
        self.write_kubeconfig(self.kubeconfig, self.kube_url, cert=admin)
        self._admin_cert = admin
        self._wait(server, lambda: self._get_kube("/readyz")[0] == 200)

    def _install_crds(self) -> None:
        crds = sorted(self.crds.glob("*.yaml"))
        if not crds:
            raise EnvironmentError_(f"no CRDs in {self.crds}; run `make e2e-tools`")
        files = [*crds, *POLICY_REPORT_CRDS]
        self.kubectl("apply", "--server-side", *(arg for f in files for arg in ("-f", str(f))))
        self.kubectl("wait", "--for=condition=Established", "--timeout=120s", "crd", "--all")

    def _start_gardener_apiserver(self) -> None:
        port = free_port()
        self.gardener_url = f"https://127.0.0.1:{port}"
        gardener_ca = trustme.CA(organization_name="gardener-webhook e2e gardener-apiserver")
        cert = gardener_ca.issue_cert("localhost", "127.0.0.1", "gardener-apiserver.kube-system.svc")
        serving = (
            self._pem("gardener-apiserver.crt", b"".join(b.bytes() for b in cert.cert_chain_pems)),
            self._pem("gardener-apiserver.key", cert.private_key_pem.bytes()),
        )
        kubeconfig = self.workdir / "gardener-apiserver.kubeconfig"
        self.write_kubeconfig(kubeconfig, self.kube_url, cert=self._admin_cert)
        server = Server(
            "gardener-apiserver",
            self._with_cluster_dns(
                [
                    str(self.binaries["gardener-apiserver"]),
                    "--bind-address=127.0.0.1",
                    f"--secure-port={port}",
                    f"--etcd-servers={self.etcd_url}",
                    f"--tls-cert-file={serving[0]}",
                    f"--tls-private-key-file={serving[1]}",
                    "--cluster-identity=e2e",
                    "--authorization-always-allow-paths=/healthz,/readyz,/livez",
                    f"--authentication-kubeconfig={kubeconfig}",
                    f"--authorization-kubeconfig={kubeconfig}",
                    f"--kubeconfig={kubeconfig}",
                    f"--admission-control-config-file={self.workdir / 'admission-config.yaml'}",
                ]
            ),
            self.workdir / "gardener-apiserver.log",
        )
        self.servers["gardener-apiserver"] = server
        server.start()
        self.gardener_ca_file = self._pem("gardener-apiserver-ca.crt", gardener_ca.cert_pem.bytes())
        context = ssl.create_default_context(cadata=gardener_ca.cert_pem.bytes().decode())
        self._wait(server, lambda: _get(f"{self.gardener_url}/healthz", context)[0] == 200)
        self._register_gardener_apis(port, gardener_ca.cert_pem.bytes())

    def _register_gardener_apis(self, port: int, ca_bundle: bytes) -> None:
        objects: list[dict[str, Any]] = [
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "gardener-apiserver", "namespace": "kube-system"},
                "spec": {"type": "ExternalName", "externalName": "localhost"},
            }
        ]
        for group, version in GARDENER_GROUP_VERSIONS:
            objects.append(
                {
                    "apiVersion": "apiregistration.k8s.io/v1",
                    "kind": "APIService",
                    "metadata": {"name": f"{version}.{group}"},
                    "spec": {
                        "group": group,
                        "version": version,
                        "groupPriorityMinimum": 100,
                        "versionPriority": 100,
                        "caBundle": base64.b64encode(ca_bundle).decode(),
                        "service": {"name": "gardener-apiserver", "namespace": "kube-system", "port": port},
                    },
                }
            )
        self.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
        server = self.servers["gardener-apiserver"]
        names = [f"apiservice/{v}.{g}" for g, v in GARDENER_GROUP_VERSIONS]
        self._wait(
            server,
            lambda: (
                self.kubectl("wait", "--for=condition=Available", "--timeout=5s", *names, check=False).returncode == 0
            ),
        )
        # Discoverable and listable through the aggregator (envtest waits for the same: a fresh gardener-apiserver
        # has been seen to fail its first etcd reads after the APIServices turned Available).
        self._wait(
            server,
            lambda: (
                self.kubectl("get", "cloudprofiles,shoots", "-A", "--request-timeout=5s", check=False).returncode == 0
            ),
        )

    def _wait(self, server: Server, ready: Any) -> None:
        deadline = time.monotonic() + START_SECONDS
        while True:
            server.check_running()
            with contextlib.suppress(OSError, urllib.error.URLError, ssl.SSLError, ConnectionError):
                if ready():
                    return
            if time.monotonic() > deadline:
                raise EnvironmentError_(f"{server.name} not ready after {START_SECONDS:.0f} s:\n{server.tail()}")
            time.sleep(0.2)

    def _get_kube(self, path: str) -> tuple[int, str]:
        context = ssl.create_default_context(cafile=str(self.ca_file))
        context.load_cert_chain(str(self._admin_cert[0]), str(self._admin_cert[1]))
        return _get(f"{self.kube_url}{path}", context)

    # ------------------------------------------------------------------ use

    def kubectl(self, *args: str, input: str | None = None, check: bool = True, kubeconfig: Path | None = None,
                timeout: float = 120.0) -> subprocess.CompletedProcess[str]:  # fmt: skip
        """Run the pinned kubectl against kube-apiserver (admin, or `kubeconfig`). Raises EnvironmentError_ with
        its output when it fails and `check`."""
        argv = [str(self.binaries["kubectl"]), f"--kubeconfig={kubeconfig or self.kubeconfig}", *args]
        proc = subprocess.run(argv, input=input, capture_output=True, text=True, timeout=timeout, check=False)
        if check and proc.returncode != 0:
            raise EnvironmentError_(f"kubectl {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
        return proc

    def restart(self, name: str) -> None:
        """Stop the server `name` and start it again with the same flags (same port), waiting until it serves."""
        server = self.servers[name]
        server.stop()
        server.start()
        if name == "gardener-apiserver":
            self._wait(
                server,
                lambda: self.kubectl("get", "cloudprofiles", "--request-timeout=5s", check=False).returncode == 0,
            )

    def stop(self) -> None:
        """Stop every server (last started first) and remove the folder if this environment made it."""
        for server in reversed(list(self.servers.values())):
            server.stop()
        if self._owns_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _get(url: str, context: ssl.SSLContext | None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, context=context, timeout=5) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode(errors="replace")


def main() -> int:
    """`make e2e-env`: start the environment, print where it is, wait for Ctrl-C or SIGTERM."""
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    started = time.monotonic()
    try:
        with Environment() as env:
            version = env.kubectl("version", "-o", "json").stdout
            server = json.loads(version).get("serverVersion", {}).get("gitVersion", "?")
            print(
                f"etcd {env.etcd_url}, kube-apiserver {env.kube_url} ({server}), gardener-apiserver {env.gardener_url}"
            )
            print(f"ready in {time.monotonic() - started:.0f} s; logs in {env.workdir}")
            print(f"export KUBECONFIG={env.kubeconfig}")
            print("Ctrl-C stops every server and removes the folder.", flush=True)
            while True:
                for server in env.servers.values():
                    server.check_running()
                time.sleep(1)
    except KeyboardInterrupt:
        print("stopped")
        return 0
    except EnvironmentError_ as exc:
        print(f"e2e-env: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
