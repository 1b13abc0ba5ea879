"""Run a container of a rendered manifest the way the kubelet runs it, in a bubblewrap sandbox.

What the sandbox gives the program, from the manifest and the Dockerfile's runtime stage:
- the image's ENTRYPOINT/CMD replaced by the container's `command`/`args` as Kubernetes does (`command` drops
  both, `args` only CMD), the image's ENV then the container's `env`, the image's WORKDIR, and HOME=/ (what the
  runtime sets for a uid without a passwd entry);
- the Pod's `runAsUser`/`runAsGroup` (65532) in a user namespace, no capabilities, a new PID namespace in which the
  program is PID 1 (signals it does not handle are ignored there, as in a container), and its own network namespace
  with only a loopback interface: it binds 0.0.0.0 as in the Pod and no two sandboxes share a port;
- a root filesystem that is read-only when `readOnlyRootFilesystem` is set, holding the system's /usr, /etc and
  libraries, the Python installation and the project's virtual environment (the image's /opt/gardener-webhook: the
  venv is bound there too), and nothing writable: no /tmp, no /var/tmp;
- only the volumes the container mounts: Secrets and ConfigMaps (from the rendered objects or from test material),
  in the kubelet's atomic-writer layout (`..data` symlink) with their `defaultMode`/`items`, emptyDirs (writable),
  and the ServiceAccount token volume at /var/run/secrets/kubernetes.io/serviceaccount when the token is mounted,
  with KUBERNETES_SERVICE_HOST/PORT pointing at the test's API server inside the sandbox's network namespace.

The test reaches into the sandbox's network namespace from a thread that entered it (`setns`, `Sandbox.in_netns`):
sockets made there (the fake API server's listener, the probes' connections) belong to that namespace and can be
used from any thread. Needs bubblewrap and the right to enter a namespace (root, as in CI); `unavailable()` says why
not.
"""

from __future__ import annotations

import base64
import concurrent.futures
import contextlib
import ctypes
import functools
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Self, TypeVar

from tests.test_dockerfile import parse, stages

ROOT: Final = Path(__file__).resolve().parents[1]
BWRAP: Final = shutil.which("bwrap")
CLONE_NEWNET: Final = 0x40000000
IMAGE_PREFIX: Final = "/opt/gardener-webhook"  # where the Dockerfile's runtime stage puts the virtualenv
SERVICE_ACCOUNT_DIR: Final = "/var/run/secrets/kubernetes.io/serviceaccount"
T = TypeVar("T")


@dataclass(frozen=True)
class Image:
    """The runtime stage of the Dockerfile: what a container of the image starts with."""

    entrypoint: tuple[str, ...]
    cmd: tuple[str, ...]
    env: dict[str, str]
    user: str
    workdir: str
    rootfs: Path | None = None  # the built image's filesystem; None: the host's, with the venv where the image has it

    @classmethod
    def from_oci(cls, config: Mapping[str, Any], rootfs: Path) -> Image:
        """A built image: its OCI config (`podman image inspect`'s Config) and its mounted root filesystem."""
        env = dict(item.split("=", 1) for item in config.get("Env") or [])
        return cls(tuple(config.get("Entrypoint") or ()), tuple(config.get("Cmd") or ()), env,
                   config.get("User") or "0", config.get("WorkingDir") or "/", rootfs)  # fmt: skip

    @classmethod
    def from_dockerfile(cls, path: Path = ROOT / "Dockerfile") -> Image:
        runtime = stages(parse(path.read_text(encoding="utf-8")))[-1]
        entrypoint: list[str] = []
        cmd: list[str] = []
        env: dict[str, str] = {}
        user, workdir = "0", "/"
        for instruction in runtime:
            if instruction.keyword == "ENTRYPOINT":
                entrypoint = json.loads(instruction.arguments)
            elif instruction.keyword == "CMD":
                cmd = json.loads(instruction.arguments)
            elif instruction.keyword == "ENV":
                for pair in instruction.arguments.split():
                    name, _, value = pair.partition("=")
                    env[name] = value.replace("$PATH", "/usr/local/bin:/usr/bin:/bin")
            elif instruction.keyword == "USER":
                user = instruction.arguments
            elif instruction.keyword == "WORKDIR":
                workdir = instruction.arguments
        return cls(tuple(entrypoint), tuple(cmd), env, user, workdir)


@dataclass
class Material:
    """What the cluster would provide that the rendered manifests do not hold.

    secrets / config_maps: name -> key -> bytes, used where the render has no object of that name (a Secret that
    cert-manager or the operator makes). api_host/api_port: the API server as the Pod sees it (KUBERNETES_SERVICE_*).
    token, ca_crt, namespace: the ServiceAccount token volume's files.
    """

    secrets: dict[str, dict[str, bytes]] = field(default_factory=dict)
    config_maps: dict[str, dict[str, bytes]] = field(default_factory=dict)
    api_host: str = "127.0.0.1"
    api_port: int = 6443
    token: bytes = b"service-account-token"
    ca_crt: bytes = b""
    namespace: str = "gardener-webhook"


@dataclass(frozen=True)
class ContainerRun:
    """One container, resolved: argv, environment, user, mounts (host path, container path, writable)."""

    name: str
    argv: tuple[str, ...]
    env: dict[str, str]
    uid: int
    gid: int
    workdir: str
    read_only_root: bool
    mounts: tuple[tuple[Path, str, bool], ...]
    grace_seconds: float
    ports: dict[str, int]
    rootfs: Path | None = None


class ManifestError(Exception):
    """The manifest asks for something the sandbox cannot provide (a volume source without material)."""


def pod_template(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The Pod template of a Deployment or CronJob."""
    if obj["kind"] == "CronJob":
        return dict(obj["spec"]["jobTemplate"]["spec"]["template"])
    return dict(obj["spec"]["template"])


def resolve(
    workload: Mapping[str, Any], container: Mapping[str, Any], objects: list[dict[str, Any]], image: Image,
    material: Material, scratch: Path,
) -> ContainerRun:  # fmt: skip
    """The ContainerRun of `container` of `workload` (a Deployment or CronJob among `objects`); volume contents are
    written under `scratch`. Raises ManifestError for a volume the render and the material lack."""
    pod = pod_template(workload)["spec"]
    namespace = workload["metadata"].get("namespace", "default")
    security = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
    command = container.get("command")
    args = container.get("args")
    if command is not None:
        argv = [*command, *(args or [])]
    else:
        argv = [*image.entrypoint, *(args if args is not None else image.cmd)]
    env = {**image.env, "HOME": "/", "HOSTNAME": workload["metadata"]["name"]}
    automount = pod.get("automountServiceAccountToken", True)
    if automount:
        env |= {
            "KUBERNETES_SERVICE_HOST": material.api_host,
            "KUBERNETES_SERVICE_PORT": str(material.api_port),
            "KUBERNETES_SERVICE_PORT_HTTPS": str(material.api_port),
        }
    for variable in container.get("env", []):
        if "value" in variable:
            env[variable["name"]] = variable["value"]
        else:
            raise ManifestError(f"env {variable['name']}: only literal values are supported here")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounts: list[tuple[Path, str, bool]] = []
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        host = scratch / "volumes" / mount["name"]
        if "emptyDir" in volume:
            host.mkdir(parents=True, exist_ok=True)
            mounts.append((host, mount["mountPath"], not mount.get("readOnly", False)))
            continue
        files = _volume_files(volume, objects, namespace, material)
        _atomic_writer(host, files, volume)
        mounts.append((host, mount["mountPath"], False))
    if automount and not any(path == SERVICE_ACCOUNT_DIR for _, path, _ in mounts):
        token = {"token": material.token, "ca.crt": material.ca_crt, "namespace": material.namespace.encode()}
        host = scratch / "volumes" / "kube-api-access"
        _atomic_writer(host, token, {"projected": {"defaultMode": 0o644}})
        mounts.append((host, SERVICE_ACCOUNT_DIR, False))
    ports = {p["name"]: p["containerPort"] for p in container.get("ports", []) if "name" in p}
    return ContainerRun(
        name=container["name"],
        argv=tuple(argv),
        env=env,
        uid=int(security.get("runAsUser", image.user.split(":")[0])),
        gid=int(security.get("runAsGroup", image.user.partition(":")[2] or 0)),
        workdir=container.get("workingDir", image.workdir),
        read_only_root=bool(security.get("readOnlyRootFilesystem", False)),
        mounts=tuple(mounts),
        grace_seconds=float(pod.get("terminationGracePeriodSeconds", 30)),
        ports=ports,
        rootfs=image.rootfs,
    )


def _volume_files(
    volume: Mapping[str, Any], objects: list[dict[str, Any]], namespace: str, material: Material
) -> dict[str, bytes]:
    if "projected" in volume:  # Secret sources only, each with its items (what gardener-operator injects)
        files: dict[str, bytes] = {}
        for source in volume["projected"]["sources"]:
            if "secret" not in source:
                raise ManifestError(f"volume {volume['name']}: only Secret sources of a projected volume are supported")
            files |= _volume_files({"name": volume["name"], "secret": {**source["secret"],
                                    "secretName": source["secret"]["name"]}}, objects, namespace, material)  # fmt: skip
        return files
    if "secret" in volume:
        source, kind, name = volume["secret"], "Secret", volume["secret"]["secretName"]
        rendered = _object(objects, kind, namespace, name)
        data = (
            {k: base64.b64decode("".join(v.split())) for k, v in rendered.get("data", {}).items()}
            | {k: v.encode() for k, v in rendered.get("stringData", {}).items()}
            if rendered is not None
            else material.secrets.get(name)
        )
    elif "configMap" in volume:
        source, kind, name = volume["configMap"], "ConfigMap", volume["configMap"]["name"]
        rendered = _object(objects, kind, namespace, name)
        data = (
            {k: v.encode() for k, v in rendered.get("data", {}).items()}
            if rendered is not None
            else material.config_maps.get(name)
        )
    else:
        raise ManifestError(f"volume {volume['name']}: only secret, configMap and emptyDir volumes are supported here")
    if data is None:
        raise ManifestError(f"volume {volume['name']}: {kind} {namespace}/{name} is neither rendered nor test material")
    items = source.get("items")
    if items is None:
        return data
    missing = [item["key"] for item in items if item["key"] not in data]
    if missing:
        raise ManifestError(f"volume {volume['name']}: {kind} {name} has no key {', '.join(missing)}")
    return {item["path"]: data[item["key"]] for item in items}


def _object(objects: list[dict[str, Any]], kind: str, namespace: str, name: str) -> dict[str, Any] | None:
    for obj in objects:
        meta = obj.get("metadata", {})
        if obj.get("kind") == kind and meta.get("name") == name and meta.get("namespace", namespace) == namespace:
            return obj
    return None


def _atomic_writer(directory: Path, files: Mapping[str, bytes], volume: Mapping[str, Any]) -> None:
    """The kubelet's layout of a Secret/ConfigMap volume: files in a timestamped folder, `..data` pointing at it,
    and each visible name a symlink through `..data`."""
    source = next((volume[k] for k in ("secret", "configMap", "projected") if k in volume), {})
    mode = source.get("defaultMode", 0o644)
    stamp = directory / "..2026_11_28_00_00_00.000000001"
    stamp.mkdir(parents=True)
    for name, content in files.items():
        target = stamp / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(mode)
    (directory / "..data").symlink_to(stamp.name)
    for name in {name.split("/")[0] for name in files}:
        (directory / name).symlink_to(f"..data/{name}")


def unavailable() -> str | None:
    """Why containers cannot be sandboxed here, or None."""
    if sys.platform != "linux":
        return "SKIPPED: the container sandbox needs Linux namespaces"
    if BWRAP is None:
        return "SKIPPED: bubblewrap (bwrap) is not installed; .ci/run installs it from the Debian packages"
    probe = subprocess.run(
        [BWRAP, "--ro-bind", "/", "/", "--unshare-all", "--uid", "65532", "true"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        return f"SKIPPED: bubblewrap cannot make namespaces here: {probe.stderr.strip()}"
    if os.geteuid() != 0:
        return "SKIPPED: entering a sandbox's network namespace needs root (CAP_SYS_ADMIN)"
    return None


def _system_binds() -> list[str]:
    """Read-only binds of the host's system folders and the Python installation and project the image holds."""
    args: list[str] = []
    for top in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    for entry in sorted(Path("/etc").iterdir()):  # one by one: mount points under /etc can still be made
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), str(entry)]
        elif entry.exists():
            args += ["--ro-bind", str(entry), str(entry)]
    venv = Path(sys.prefix)
    for path in (Path(sys.base_prefix), venv, ROOT / "webhook"):
        if not str(path).startswith(("/usr/", "/etc/")):
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind", str(venv), IMAGE_PREFIX]
    return args


def _image_binds(rootfs: Path) -> list[str]:
    """Read-only binds of a built image's filesystem. /etc and /var entry by entry, and no /run, so that the mount
    points of the Pod's volumes (/etc/gardener-webhook/…, /var/run/secrets/…) can be made on the root's tmpfs, as the
    runtime makes them over the image's layers."""
    args: list[str] = []
    for entry in sorted(rootfs.iterdir()):
        target = f"/{entry.name}"
        if entry.name in ("proc", "dev", "sys", "run"):
            continue
        if entry.is_symlink():
            args += ["--symlink", os.readlink(entry), target]
        elif entry.name in ("etc", "var"):
            for inner in sorted(entry.iterdir()):
                if inner.name == "run":  # /var/run -> /run: made on the tmpfs with the volume mounts under it
                    continue
                if inner.is_symlink():
                    args += ["--symlink", os.readlink(inner), f"{target}/{inner.name}"]
                else:
                    args += ["--ro-bind", str(inner), f"{target}/{inner.name}"]
        else:
            args += ["--ro-bind", str(entry), target]
    return args


class Sandbox:
    """A running container (see the module docstring). Use as a context manager: the program is stopped (SIGKILL)
    and the sandbox removed on exit. `start()` returns once the namespaces exist; `release()` starts the program,
    so the test can serve its API server in the sandbox's network namespace first."""

    def __init__(self, run: ContainerRun, logs: Path) -> None:
        self.run = run
        self._logs = logs
        self._process: subprocess.Popen[bytes] | None = None
        self._release_fd: int | None = None
        self.pid = 0  # the program's pid as the host sees it
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._listeners: list[socket.socket] = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def start(self) -> None:
        assert BWRAP is not None
        info_read, info_write = os.pipe()
        block_read, block_write = os.pipe()
        run = self.run
        args = [BWRAP, "--unshare-all", "--die-with-parent", "--as-pid-1", "--uid", str(run.uid), "--gid", str(run.gid)]
        binds = _image_binds(run.rootfs) if run.rootfs is not None else _system_binds()
        args += ["--tmpfs", "/", *binds, "--dev", "/dev", "--proc", "/proc"]
        for host, path, writable in run.mounts:
            args += ["--bind" if writable else "--ro-bind", str(host), path]
        if run.read_only_root:
            args += ["--remount-ro", "/"]
        args += ["--chdir", run.workdir, "--clearenv"]
        for name, value in run.env.items():
            args += ["--setenv", name, value]
        args += ["--info-fd", str(info_write), "--block-fd", str(block_read), "--cap-drop", "ALL", "--", *run.argv]
        out = (self._logs / f"{run.name}.stdout").open("wb")
        err = (self._logs / f"{run.name}.stderr").open("wb")
        with out, err:
            self._process = subprocess.Popen(args, stdout=out, stderr=err, pass_fds=(info_write, block_read))
        os.close(info_write)
        os.close(block_read)
        self._release_fd = block_write
        with os.fdopen(info_read, "rb") as info:
            data = b""
            while not data.rstrip().endswith(b"}"):
                chunk = info.read1(4096)
                if not chunk:
                    raise RuntimeError(f"bwrap did not start: {self.stderr()}")
                data += chunk
        self.pid = int(json.loads(data)["child-pid"])
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=4, thread_name_prefix=f"netns-{run.name}", initializer=_enter_netns, initargs=(self.pid,)
        )

    def release(self) -> None:
        """Let the program start (it waits for this after the namespaces are made)."""
        assert self._release_fd is not None
        os.write(self._release_fd, b"x")
        os.close(self._release_fd)
        self._release_fd = None

    def in_netns(self, fn: Callable[[], T]) -> concurrent.futures.Future[T]:
        """Run fn in a thread inside the sandbox's network namespace."""
        assert self._executor is not None
        return self._executor.submit(fn)

    def publish(self, host_port: int, port: int) -> None:
        """Relay connections to 127.0.0.1:`host_port` of the host into the sandbox's 127.0.0.1:`port`, as a Service's
        address leads to the Pod's (the sandbox has only a loopback interface). Ends with the sandbox."""
        listener = socket.create_server(("127.0.0.1", host_port))
        self._listeners.append(listener)

        def inside() -> socket.socket:
            return self.in_netns(lambda: socket.create_connection(("127.0.0.1", port), timeout=10)).result()

        threading.Thread(target=_relay, args=(listener, inside), daemon=True).start()

    def route(self, port: int, host: str, host_port: int) -> None:
        """Relay connections to the sandbox's 127.0.0.1:`port` out to `host`:`host_port` of the host (the Pod's way
        to an API server)."""
        listener = self.in_netns(lambda: socket.create_server(("127.0.0.1", port))).result()
        self._listeners.append(listener)
        outside = functools.partial(socket.create_connection, (host, host_port), timeout=10)
        threading.Thread(target=_relay, args=(listener, outside), daemon=True).start()

    def returncode(self) -> int | None:
        assert self._process is not None
        return self._process.poll()

    def stderr(self) -> str:
        path = self._logs / f"{self.run.name}.stderr"
        return path.read_text(errors="replace") if path.exists() else ""

    def signal(self, sig: signal.Signals) -> None:
        """Send sig to the program (PID 1 of the sandbox), as the kubelet does through the runtime."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, sig)

    def wait(self, timeout: float) -> int | None:
        """The exit status once the program ended within timeout seconds, else None."""
        assert self._process is not None
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        if self._release_fd is not None:
            os.close(self._release_fd)
            self._release_fd = None
        if self._process is not None and self._process.poll() is None:
            self.signal(signal.SIGKILL)
            self._process.kill()
            self._process.wait(30)
        for listener in self._listeners:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() of its relay thread
            listener.close()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _relay(listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
    """Accept on `listener` until it is closed; join each connection to a new `connect()` both ways."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        try:
            upstream = connect()
        except OSError:
            client.close()
            continue
        upstream.settimeout(None)  # the connect timeout only: a watch may stay silent for minutes
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _enter_netns(pid: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns into the sandbox's network namespace failed")
    finally:
        os.close(fd)


def http_ready(port: int, path: str) -> bool | None:
    """True once GET `path` on 127.0.0.1:`port` answers 200 (None before: not listening yet, or another status), as a
    kubelet's httpGet probe. Call it from inside the sandbox's network namespace (`Sandbox.in_netns`)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        return True if connection.getresponse().status == 200 else None
    except OSError:
        return None
    finally:
        connection.close()


def poll(check: Callable[[], T | None], *, until: float, interval: float = 0.2, alive: Sandbox | None = None) -> T:
    """Call check until it returns a value (not None); fail at `until` (time.monotonic()) or when `alive` ended."""
    while True:
        value = check()
        if value is not None:
            return value
        if alive is not None and alive.returncode() is not None:
            raise AssertionError(f"{alive.run.name} exited {alive.returncode()}:\n{alive.stderr()[-3000:]}")
        if time.monotonic() > until:
            raise AssertionError("timed out" + (f"; stderr:\n{alive.stderr()[-3000:]}" if alive else ""))
        time.sleep(interval)
