"""Build the container image from the Dockerfile with buildah, on a base made from Debian's packages (`make image`).

No container registry is reachable, so the Dockerfile's default base (`python:3.11.13-slim-bookworm`) cannot be
pulled. A stand-in is made locally and passed as its build argument PYTHON_IMAGE:
- `mmdebstrap --variant=minbase` of Debian bookworm (the release the default base is built on) with Debian's
  python3 (3.11), python3-venv (ensurepip, which the build stage's `python -m venv` needs), python-is-python3 (the
  `python` command the Dockerfile runs) and ca-certificates, imported as `localhost/gardener-webhook-base:bookworm`.
  It is what it is: Debian's Python in /usr, where the official image has its own build in /usr/local; nothing of
  the Dockerfile depends on the difference (the virtualenv's interpreter is a symlink to whichever python it was
  made with). It is made once and kept; `--rebuild-base` makes it again from today's packages.
- `buildah bud --isolation=chroot` builds the Dockerfile as it is (chroot: no OCI runtime is needed to run the
  build's steps; the image is the same). The host's CA bundle is mounted over the build's, so pip reaches PyPI where
  the host does through a CA of its own. The image is tagged `localhost/gardener-webhook:<version>` and labelled
  `gardener-webhook.context=<CONTEXT_HASH>`: a hash of the Dockerfile, of every file it copies and of the base's
  image id, which tests/test_containers.py compares to tell a current image from a stale one.

After the build it prints the build time, the image's size and what the image holds that a running webhook does not
need (measured in the image's filesystem). A second `make image` with nothing changed only checks the label.
Exit status: 0 built or current; 1 a step failed (its output is printed); 2 a tool is missing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
BASE: Final = "localhost/gardener-webhook-base:bookworm"
SUITE: Final = "bookworm"
PACKAGES: Final = ("python3", "python3-venv", "python-is-python3", "ca-certificates")
LABEL: Final = "gardener-webhook.context"
# What the Dockerfile copies into the image (its COPY lines), and the Dockerfile itself.
CONTEXT: Final = ("Dockerfile", "requirements.lock", "pyproject.toml", "README.md", "LICENSE", "webhook")
HOST_CA_BUNDLE: Final = Path("/etc/ssl/certs/ca-certificates.crt")
# Paths of the image a running webhook never reads, and why (the report of `make image`).
UNNEEDED: Final = (
    ("usr/share/python-wheels", ("pip, setuptools and wheel wheels for ensurepip (python3-venv): only the build stage "
                                "makes a virtualenv")),
    ("usr/lib/python3.11/ensurepip", "ensurepip itself"),
    ("usr/lib/python3.11/venv", "the venv module"),
    ("usr/lib/python3.11/lib2to3", "lib2to3, never imported"),
    ("usr/lib/python3.11/pydoc_data", "pydoc's topics"),
    ("var/lib/dpkg", "dpkg's database (Debian's package manager)"),
    ("usr/bin/apt*", "apt's commands"),
    ("usr/lib/apt", "apt's methods"),
    ("usr/lib/x86_64-linux-gnu/libapt-*", "apt's libraries"),
    ("var/lib/apt", "apt's lists"),
    ("var/cache", "caches of apt and debconf"),
    ("usr/bin/perl", "perl (Essential in Debian: dpkg's scripts need it)"),
    ("usr/lib/x86_64-linux-gnu/perl-base", "perl's modules"),
    ("usr/share/perl5", "more perl modules (debconf)"),
    ("usr/share/doc", "documentation"),
    ("usr/share/man", "manual pages"),
    ("usr/share/locale", "translations"),
    ("usr/share/zoneinfo", "time zones (the webhook keeps UTC)"),
    ("opt/gardener-webhook/lib/python3.11/site-packages/kubernetes/aio", ("the kubernetes client's asyncio twin: the "
     "webhook imports kubernetes.client and kubernetes.config only")),
    ("opt/gardener-webhook/lib/python3.11/site-packages/*/tests", "the test suites some dependencies ship"),
)  # fmt: skip


class BuildError(RuntimeError):
    """A step failed; the message names it and ends with its output."""


def version() -> str:
    """The package's version (webhook/__init__.py), the image's tag."""
    for line in (ROOT / "webhook" / "__init__.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise BuildError("webhook/__init__.py has no __version__")


def image_name() -> str:
    """`localhost/gardener-webhook:<version>`."""
    return f"localhost/gardener-webhook:{version()}"


def _files() -> list[Path]:
    files: list[Path] = []
    for name in CONTEXT:
        path = ROOT / name
        if path.is_dir():
            files += sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        else:
            files.append(path)
    return files


def context_hash(base_id: str) -> str:
    """sha256 over the Dockerfile, what it copies (path and content) and the base image's id: equal hashes, equal
    images (up to the dependencies' downloads, which requirements.lock pins by hash)."""
    digest = hashlib.sha256(base_id.encode())
    for path in _files():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _run(cmd: list[str], step: str, *, quiet: bool = False) -> str:
    started = time.monotonic()
    if not quiet:
        print(f"image: {step}: {' '.join(cmd)}", flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-40:])
        raise BuildError(f"{step} failed (exit {proc.returncode}):\n{tail}")
    if not quiet:
        print(f"image: {step}: done in {time.monotonic() - started:.0f} s", flush=True)
    return proc.stdout


def inspect(name: str) -> dict[str, Any] | None:
    """`podman image inspect` of `name`, or None when there is no such image."""
    proc = subprocess.run(["podman", "image", "inspect", name], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return None
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    return found[0] if found else None


def is_current(image: dict[str, Any] | None, base_id: str) -> bool:
    """Whether `image` (its `inspect`) was built from what the checkout holds now on the base `base_id`."""
    return image is not None and (image.get("Labels") or {}).get(LABEL) == context_hash(base_id)


def build_base(rebuild: bool) -> str:
    """Make BASE from Debian's packages unless it is there; return its image id."""
    existing = inspect(BASE)
    if existing is not None and not rebuild:
        return str(existing["Id"])
    with tempfile.TemporaryDirectory(prefix="gardener-webhook-base-") as scratch:
        tar = Path(scratch) / "rootfs.tar"
        include = ",".join(PACKAGES)
        _run(
            ["mmdebstrap", "--quiet", "--variant=minbase", f"--include={include}", SUITE, str(tar)], "base: mmdebstrap"
        )
        changes = [
            'CMD ["python3"]',
            f"LABEL org.opencontainers.image.description=Debian {SUITE} minbase with {include}",
        ]
        _run(["podman", "import", *(a for c in changes for a in ("--change", c)), str(tar), BASE], "base: import")
    made = inspect(BASE)
    assert made is not None
    return str(made["Id"])


def build(rebuild_base: bool = False) -> dict[str, Any]:
    """Build the image unless a current one is there; return its `podman image inspect`. Raises BuildError."""
    base_id = build_base(rebuild_base)
    wanted = context_hash(base_id)
    existing = inspect(image_name())
    if existing is not None and is_current(existing, base_id) and not rebuild_base:
        print(f"image: {image_name()} is current ({LABEL}={wanted[:12]})")
        return existing
    command = ["buildah", "bud", "--isolation=chroot", "--build-arg", f"PYTHON_IMAGE={BASE}",
               "--label", f"{LABEL}={wanted}", "-t", image_name()]  # fmt: skip
    if HOST_CA_BUNDLE.is_file():
        command += ["-v", f"{HOST_CA_BUNDLE}:{HOST_CA_BUNDLE}:ro"]
    started = time.monotonic()
    _run([*command, str(ROOT)], "buildah bud")
    print(f"image: built {image_name()} in {time.monotonic() - started:.0f} s")
    built = inspect(image_name())
    assert built is not None
    return built


def _size(path: Path) -> int:
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir() or p.is_symlink())


def report(image: dict[str, Any]) -> str:
    """The image's size and what in it a running webhook does not need, measured in its filesystem."""
    mount = Path(_run(["podman", "image", "mount", image_name()], "mount", quiet=True).strip())
    try:
        lines = [f"image: {image_name()}: {image['Size'] / 2**20:.0f} MiB (base {BASE})"]
        total = 0
        for pattern, why in UNNEEDED:
            paths = sorted(mount.glob(pattern))
            size = sum(_size(p) for p in paths)
            total += size
            if size:
                lines.append(f"  {size / 2**20:7.1f} MiB  /{pattern}: {why}")
        lines.append(f"  {total / 2**20:7.1f} MiB  in all that a running webhook does not need")
        venv = mount / "opt" / "gardener-webhook"
        lines.append(f"  ({_size(venv) / 2**20:.1f} MiB the webhook's virtualenv; no pip, setuptools or wheel in it)")
        return "\n".join(lines)
    finally:
        subprocess.run(["podman", "image", "unmount", image_name()], capture_output=True, check=False)


def missing_tools() -> list[str]:
    """The commands `make image` needs and this machine lacks (Debian packages of the same names)."""
    return [tool for tool in ("mmdebstrap", "buildah", "podman") if shutil.which(tool) is None]


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="tools/image/build.py", description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild-base", action="store_true", help="make the Debian base again")
    args = parser.parse_args(argv)
    if absent := missing_tools():
        print(f"image: not installed: {', '.join(absent)} (apt-get install {' '.join(absent)})", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        image = build(args.rebuild_base)
        print(report(image))
    except BuildError as exc:
        print(f"image: {exc}", file=sys.stderr)
        return 1
    print(f"image: ready in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
