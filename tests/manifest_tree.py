"""manifests/ as an operator prepares it before applying, and `kubectl kustomize` to render its overlays.

The static certificate flavour and the overlays of a virtual garden read files the repository does not hold
(git-ignored): the serving certificate that `gardener-webhook certs` writes (with the caBundle patch of the virtual
garden's webhooks), the client CA bundle the operator provides, and the seeds' certificates. `prepared_tree` makes
them in a copy of the tree, as the deployment pages' steps do (docs/operations/).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import trustme
import yaml

from webhook.cli import main

ROOT: Final = Path(__file__).resolve().parents[1]
KUBECTL: Final = shutil.which("kubectl")
NO_KUBECTL: Final = "SKIPPED: kubectl is not installed, so the kustomize overlays cannot be rendered and checked"
SERVICE_DNS: Final = "gardener-webhook.gardener-webhook.svc"
STATIC_CERTS: Final = Path("components/static/certs")
EXTENSION_CERTS: Final = Path("overlays/virtual-garden/extension/certs")
SEED_CERTS: Final = EXTENSION_CERTS / "seed"
ADMISSION_CERTS: Final = EXTENSION_CERTS / "admission"
CA_BUNDLE_PATCH: Final = Path("overlays/virtual-garden/virtual/ca-bundle.yaml")
GENERATED: Final = ("certs", CA_BUNDLE_PATCH.name)  # what a checkout may hold from an earlier run: never copied


class KustomizeError(Exception):
    """`kubectl kustomize` failed; the message is kubectl's."""


def prepared_tree(parent: Path) -> Path:
    """A copy of manifests/ under `parent`, with the files the deployment pages have the operator make; returns its
    root."""
    tree = parent / "manifests"
    shutil.copytree(ROOT / "manifests", tree, ignore=shutil.ignore_patterns(*GENERATED))
    certs = ["certs", "--dns", SERVICE_DNS, "--out", str(tree / STATIC_CERTS)]
    patch = ["--webhook-config-patch", str(tree / CA_BUNDLE_PATCH), "--cluster", "virtual-garden"]
    assert main([*certs, *patch], out=io.StringIO()) == 0
    trustme.CA().cert_pem.write_to_path(str(tree / STATIC_CERTS / "client-ca.crt"))  # the operator's file
    for certs in (SEED_CERTS, ADMISSION_CERTS):
        shutil.copytree(tree / STATIC_CERTS, tree / certs, ignore=shutil.ignore_patterns("ca.key"))
    return tree


def kustomize(kubectl: str, overlay_dir: Path) -> list[dict[str, Any]]:
    """The objects `kubectl kustomize overlay_dir` renders, in its order; raises KustomizeError."""
    done = subprocess.run(
        [kubectl, "kustomize", str(overlay_dir)], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise KustomizeError(f"kubectl kustomize {overlay_dir}: {done.stderr.strip()}")
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]
