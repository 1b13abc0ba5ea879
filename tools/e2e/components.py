"""Build the e2e tier's real components (etcd, kube-apiserver, kubectl, gardener-apiserver, helm) from Go modules.

`python3 tools/e2e/components.py build` (what `make e2e-tools` runs) builds every binary that tools/e2e/components.toml
pins and the cache lacks, with this machine's Go and its module proxy, then runs each binary's `--version` and
fails unless it reports the pinned version. A binary already in the cache is only version-checked, so a second
run does nothing but that (the contract of controller-runtime's setup-envtest, built here instead of downloaded).
`paths` prints NAME=PATH per binary, `root` the cache folder. Standard library only: it runs before any venv.

The cache (`$GARDENER_WEBHOOK_E2E_CACHE`, else `$XDG_CACHE_HOME/gardener-webhook/e2e`, else
`~/.cache/gardener-webhook/e2e`) holds:
- `bin/<component>-<version>/<binary>` and `bin/<component>-<version>/<binary>.version` (what --version printed);
- `share/gardener-<version>/crds/*.yaml`: the extensions.gardener.cloud CRDs from Gardener's own module;
- `share/gardener-<version>/runtime-crds/*.yaml`: the CRDs gardener-operator installs into a runtime cluster that
  the charts use (VerticalPodAutoscaler, ServiceMonitor, PrometheusRule), from the templates it deploys them with,
  and its own Extension CRD;
- `go/mod`, `go/build`: Go's module and build caches for these builds, so the folder is the whole footprint.
Two builds at once wait for each other (an exclusive flock on `<cache>/.lock`).

How each is built (no script of the components' own; the module sources come from the proxy):
- etcd: a throwaway main module that requires `go.etcd.io/etcd/server/v3` and builds its main package.
- helm: a throwaway main module that requires `helm.sh/helm/v4` and builds `cmd/helm`, with the version flag of
  Helm's Makefile.
- kube-apiserver, kubectl: a throwaway main module that requires `k8s.io/kubernetes` and replaces each staging
  module (`k8s.io/api => ./staging/src/k8s.io/api` in Kubernetes' go.mod) with the published `v0.<minor>.<patch>`.
- gardener-apiserver: Gardener's module laid out as a main module (its go.mod replaces `pkg/apis` with ./pkg/apis,
  so the `pkg/apis` module at the same tag is laid there), with the version flags of its `hack/get-build-ld-flags.sh`.

Exit status: 0 when every binary is there and reports its version; 1 with the failing step otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PINS = Path(__file__).resolve().parent / "components.toml"


class BuildError(RuntimeError):
    """A build step failed; the message names the step and the end of its output."""


@dataclass(frozen=True)
class Binary:
    """One pinned binary: `name` of component `component` at `version`, and how its version is asked and read."""

    component: str
    name: str
    version: str
    version_args: tuple[str, ...]
    expected: re.Pattern[str]


def load_pins(path: Path = PINS) -> dict[str, dict[str, Any]]:
    """The tables of components.toml, keyed by component name (gardener, kubernetes, etcd, helm)."""
    with path.open("rb") as f:
        return tomllib.load(f)


def cache_root() -> Path:
    """The cache folder (see the module docstring); created on first use."""
    if env := os.environ.get("GARDENER_WEBHOOK_E2E_CACHE"):
        return Path(env).expanduser().resolve()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gardener-webhook" / "e2e"


def binaries(pins: dict[str, dict[str, Any]]) -> list[Binary]:
    """Every pinned binary with the --version call that identifies it and the pattern its output must match."""
    k8s = pins["kubernetes"]["version"]
    gardener = pins["gardener"]["version"]
    etcd = pins["etcd"]["version"].removeprefix("v")
    helm = pins["helm"]["version"]
    return [
        Binary(
            "etcd", "etcd", pins["etcd"]["version"], ("--version",), re.compile(rf"etcd Version: {re.escape(etcd)}\b")
        ),
        Binary("kubernetes", "kube-apiserver", k8s, ("--version",), re.compile(rf"Kubernetes {re.escape(k8s)}\b")),
        Binary(
            "kubernetes", "kubectl", k8s, ("version", "--client"), re.compile(rf"Client Version: {re.escape(k8s)}\b")
        ),
        Binary("gardener", "gardener-apiserver", gardener, ("--version",), re.compile(rf"\b{re.escape(gardener)}\b")),
        Binary("helm", "helm", helm, ("version",), re.compile(rf'Version:"{re.escape(helm)}"')),
    ]


def binary_path(root: Path, binary: Binary) -> Path:
    """Where `binary` lives in the cache rooted at `root`."""
    return root / "bin" / f"{binary.component}-{binary.version}" / binary.name


def crd_dir(root: Path, pins: dict[str, dict[str, Any]]) -> Path:
    """The folder of Gardener's extensions.gardener.cloud CRD manifests at the pinned version."""
    return root / "share" / f"gardener-{pins['gardener']['version']}" / "crds"


def runtime_crd_dir(root: Path, pins: dict[str, dict[str, Any]]) -> Path:
    """The folder of the runtime cluster's CRDs at the pinned Gardener version (RUNTIME_CRDS, file name = key)."""
    return root / "share" / f"gardener-{pins['gardener']['version']}" / "runtime-crds"


# The CRDs of a runtime cluster that the charts' objects need, as gardener-operator installs them (the templates its
# vpa and prometheus-operator components deploy) plus its own Extension CRD: file name -> path in Gardener's module.
RUNTIME_CRDS = {
    "verticalpodautoscalers.yaml": "pkg/component/autoscaling/vpa/templates/crd-autoscaling.k8s.io_verticalpodautoscalers.yaml",
    "servicemonitors.yaml": "pkg/component/observability/monitoring/prometheusoperator/templates/crd-monitoring.coreos.com_servicemonitors.yaml",
    "prometheusrules.yaml": "pkg/component/observability/monitoring/prometheusoperator/templates/crd-monitoring.coreos.com_prometheusrules.yaml",
    "extensions.operator.gardener.cloud.yaml": "example/operator/10-crd-operator.gardener.cloud_extensions.yaml",
}


def _go_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GOMODCACHE=str(root / "go" / "mod"),
        GOCACHE=str(root / "go" / "build"),
        GOFLAGS="-mod=mod -buildvcs=false",
        GOWORK="off",
        # The machine's Go builds these; a go.mod asking for a newer one is an error, not a download.
        GOTOOLCHAIN="local",
        CGO_ENABLED="0",
    )
    return env


def _run(cmd: list[str], *, cwd: Path, env: dict[str, str], step: str) -> str:
    started = time.monotonic()
    print(f"e2e-tools: {step}: {' '.join(cmd)}", flush=True)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        raise BuildError(f"{step} failed (exit {proc.returncode}):\n{tail}")
    print(f"e2e-tools: {step}: done in {time.monotonic() - started:.0f} s", flush=True)
    return proc.stdout


def _download(module: str, version: str, *, cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    out = _run(["go", "mod", "download", "-json", f"{module}@{version}"], cwd=cwd, env=env, step=f"download {module}")
    info: dict[str, Any] = json.loads(out)
    if info.get("Error"):
        raise BuildError(f"download {module}@{version}: {info['Error']}")
    return info


def _ldflags(package: str, version: str, commit: str, program: str | None = None) -> str:
    """The -X flags of Kubernetes' and Gardener's builds for the k8s.io/component-base-style `package`/version."""
    m = re.match(r"^v(\d+)\.(\d+)", version)
    major, minor = (m.group(1), m.group(2)) if m else ("", "")
    flags = {
        "gitMajor": major,
        "gitMinor": minor,
        "gitVersion": version,
        "gitCommit": commit,
        "gitTreeState": "clean",
        "buildDate": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    parts = ["-s", "-w", *(f"-X {package}/version.{k}={v}" for k, v in flags.items())]
    if program:
        parts.append(f"-X {package}/version/verflag.programName={program}")
    return " ".join(parts)


def _main_module(work: Path, name: str, requires: dict[str, str], replaces: dict[str, str]) -> None:
    lines = [f"module {name}", "", "go 1.26", ""]
    lines += [f"require {m} {v}" for m, v in requires.items()]
    lines += [f"replace {m} => {target}" for m, target in replaces.items()]
    (work / "go.mod").write_text("\n".join(lines) + "\n")


def _build_commands(names: list[str], parent: str, flags: str, out: Path, cwd: Path, env: dict[str, str]) -> None:
    """`go build` each `parent/<name>` main package into `out/<name>` with the ldflags `flags`."""
    for name in names:
        command = ["go", "build", "-trimpath", "-ldflags", flags, "-o", str(out / name), f"{parent}/{name}"]
        _run(command, cwd=cwd, env=env, step=f"build {name}")


def build_etcd(pin: dict[str, Any], out: Path, work: Path, env: dict[str, str]) -> None:
    """Build etcd's server binary into `out` (a folder)."""
    _main_module(work, "e2e.local/etcd", {pin["module"]: pin["version"]}, {})
    info = _download(pin["module"], pin["version"], cwd=work, env=env)
    sha = (info.get("Origin") or {}).get("Hash", "")[:9]
    flags = f"-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA={sha}"
    _run(
        ["go", "build", "-trimpath", "-ldflags", flags, "-o", str(out / "etcd"), pin["module"]],
        cwd=work,
        env=env,
        step="build etcd",
    )


def build_helm(pin: dict[str, Any], out: Path, work: Path, env: dict[str, str]) -> None:
    """Build Helm's CLI into `out` (a folder)."""
    _main_module(work, "e2e.local/helm", {pin["module"]: pin["version"]}, {})
    info = _download(pin["module"], pin["version"], cwd=work, env=env)
    commit = (info.get("Origin") or {}).get("Hash", "")
    package = f"{pin['module']}/internal/version"
    flags = (
        f"-s -w -X {package}.version={pin['version']} -X {package}.gitCommit={commit} -X {package}.gitTreeState=clean"
    )
    _build_commands(pin["binaries"], f"{pin['module']}/cmd", flags, out, work, env)


def build_kubernetes(pin: dict[str, Any], out: Path, work: Path, env: dict[str, str]) -> None:
    """Build kube-apiserver and kubectl of k8s.io/kubernetes into `out` (a folder)."""
    _main_module(work, "e2e.local/kubernetes", {pin["module"]: pin["version"]}, {})
    info = _download(pin["module"], pin["version"], cwd=work, env=env)
    gomod = Path(info["GoMod"]).read_text()
    staging = re.findall(r"^\s*(k8s\.io/[\w.-]+)\s+=>\s+\./staging/", gomod, flags=re.MULTILINE)
    if not staging:
        raise BuildError(f"{pin['module']}@{pin['version']}: no staging replace directives in its go.mod")
    lib = "v0." + pin["version"].removeprefix("v1.")
    _main_module(work, "e2e.local/kubernetes", {pin["module"]: pin["version"]}, {m: f"{m} {lib}" for m in staging})
    commit = (info.get("Origin") or {}).get("Hash", "")
    flags = _ldflags("k8s.io/component-base", pin["version"], commit)
    _build_commands(pin["binaries"], f"{pin['module']}/cmd", flags, out, work, env)


def share_gardener(pin: dict[str, Any], work: Path, env: dict[str, str], runtime_crds: Path) -> None:
    """Copy RUNTIME_CRDS from Gardener's module (downloaded, or already in the module cache) into `runtime_crds`."""
    _main_module(work, "e2e.local/download", {}, {})
    tree = Path(_download(pin["module"], pin["version"], cwd=work, env=env)["Dir"])
    runtime_crds.mkdir(parents=True, exist_ok=True)
    for name, source in RUNTIME_CRDS.items():
        if not (tree / source).is_file():
            raise BuildError(f"Gardener's module has no {source}")
        shutil.copy(tree / source, runtime_crds / name)


def build_gardener(pin: dict[str, Any], out: Path, work: Path, env: dict[str, str], crds: Path) -> None:
    """Build gardener-apiserver into `out` and copy the extensions.gardener.cloud CRDs into `crds`."""
    _main_module(work, "e2e.local/download", {}, {})
    src = Path(_download(pin["module"], pin["version"], cwd=work, env=env)["Dir"])
    apis = Path(_download(pin["apis_module"], pin["version"], cwd=work, env=env)["Dir"])
    tree = work / "gardener"
    # The module cache is read-only; the build needs a tree of its own with pkg/apis in place.
    shutil.copytree(src, tree, copy_function=shutil.copy)
    shutil.copytree(apis, tree / "pkg" / "apis", copy_function=shutil.copy)
    for path in tree.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    flags = _ldflags("k8s.io/component-base", pin["version"], pin["commit"], program="Gardener")
    _build_commands(pin["binaries"], "./cmd", flags, out, tree, env)
    crds.mkdir(parents=True, exist_ok=True)
    found = sorted((tree / "example" / "seed-crds").glob("10-crd-extensions.gardener.cloud_*.yaml"))
    if not found:
        raise BuildError(f"{pin['module']}@{pin['version']}: no extensions.gardener.cloud CRDs in example/seed-crds")
    for crd in found:
        shutil.copy(crd, crds / crd.name)


def check_version(path: Path, binary: Binary) -> str:
    """Run the binary's version call; return its first line. Raises BuildError unless it reports the pin."""
    try:
        proc = subprocess.run(
            [str(path), *binary.version_args], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildError(f"{path}: {exc}") from exc
    text = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0 or not binary.expected.search(text):
        raise BuildError(f"{path} {' '.join(binary.version_args)} printed {text!r}, expected {binary.expected.pattern}")
    return next((line for line in text.splitlines() if binary.expected.search(line)), text)


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def missing(root: Path, pins: dict[str, dict[str, Any]]) -> set[str]:
    """The components with a binary (or, for gardener, the CRDs) not yet in the cache."""
    absent = {b.component for b in binaries(pins) if not binary_path(root, b).is_file()}
    if not any(crd_dir(root, pins).glob("*.yaml")):
        absent.add("gardener")
    return absent


def build(root: Path, pins: dict[str, dict[str, Any]]) -> dict[str, Path]:
    """Build what the cache lacks, check every binary's version, return {binary name: path}. Raises BuildError."""
    if shutil.which("go") is None:
        raise BuildError("go not found on PATH: the e2e tier builds its components with Go (see docs/e2e.md)")
    with _locked(root):
        env = _go_env(root)
        for component in sorted(missing(root, pins)):
            pin = pins[component]
            out = root / "bin" / f"{component}-{pin['version']}"
            started = time.monotonic()
            with tempfile.TemporaryDirectory(prefix=f"build-{component}-", dir=root) as tmp:
                staged = Path(tmp) / "out"
                staged.mkdir()
                work = Path(tmp) / "work"
                work.mkdir()
                if component == "etcd":
                    build_etcd(pin, staged, work, env)
                elif component == "kubernetes":
                    build_kubernetes(pin, staged, work, env)
                elif component == "helm":
                    build_helm(pin, staged, work, env)
                else:
                    build_gardener(pin, staged, work, env, crd_dir(root, pins))
                out.parent.mkdir(parents=True, exist_ok=True)
                if out.exists():
                    shutil.rmtree(out)
                # Whole or not at all: an interrupted build leaves no half folder that would pass for built.
                os.replace(staged, out)
            print(f"e2e-tools: {component} {pin['version']} built in {time.monotonic() - started:.0f} s", flush=True)
        runtime_crds = runtime_crd_dir(root, pins)
        if not all((runtime_crds / name).is_file() for name in RUNTIME_CRDS):
            with tempfile.TemporaryDirectory(prefix="share-gardener-", dir=root) as tmp:
                share_gardener(pins["gardener"], Path(tmp), env, runtime_crds)
        paths = {}
        for binary in binaries(pins):
            path = binary_path(root, binary)
            line = check_version(path, binary)
            (path.parent / f"{binary.name}.version").write_text(line + "\n")
            print(f"e2e-tools: {binary.name}: {line} ({path})", flush=True)
            paths[binary.name] = path
        return paths


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="tools/e2e/components.py", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build", "paths", "root"], nargs="?", default="build")
    args = parser.parse_args(argv)
    root, pins = cache_root(), load_pins()
    if args.command == "root":
        print(root)
        return 0
    if args.command == "paths":
        for binary in binaries(pins):
            print(f"{binary.name}={binary_path(root, binary)}")
        return 0
    started = time.monotonic()
    try:
        build(root, pins)
    except BuildError as exc:
        print(f"e2e-tools: {exc}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    print(f"e2e-tools: ready in {time.monotonic() - started:.0f} s; cache {root} holds {size / 2**30:.1f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
