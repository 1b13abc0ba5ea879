"""The example landscape (examples/landscape/) as the e2e tier applies it: its dates moved to today.

The examples are written for the README's clock (2026-11-21): 1.33.4 expires in 14 days, gardenlinux 1592.9.0 in 19.
Applied to a real API server, they meet today's clock, so every `expirationDate` is moved by the same offset; the
relations between versions, and the warnings they earn, stay those the README shows.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import yaml

ROOT: Final = Path(__file__).resolve().parents[2]
LANDSCAPE: Final = ROOT / "examples" / "landscape"
README_NOW: Final = datetime(2026, 11, 21, tzinfo=UTC)
PROJECT_NAMESPACE: Final = "garden-team"


def today() -> datetime:
    """Midnight UTC of today."""
    return datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _moved(value: Any, offset: timedelta) -> Any:
    if isinstance(value, dict):
        return {
            k: (_shift(v, offset) if k == "expirationDate" and isinstance(v, str) else _moved(v, offset))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_moved(v, offset) for v in value]
    return value


def _shift(text: str, offset: timedelta) -> str:
    return (datetime.fromisoformat(text) + offset).strftime("%Y-%m-%dT%H:%M:%SZ")


def objects(name: str, folder: Path = LANDSCAPE) -> list[dict[str, Any]]:
    """The objects of `folder`/`name` (examples/landscape/ by default), dates moved to today."""
    offset = today() - README_NOW
    docs = [d for d in yaml.safe_load_all((folder / name).read_text()) if d]
    return [_moved(copy.deepcopy(d), offset) for d in docs]


def write(directory: Path, name: str, docs: list[dict[str, Any]]) -> Path:
    """Write `docs` as a YAML stream to directory/name; returns the path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def project_objects() -> list[dict[str, Any]]:
    """What gardener-apiserver needs before it admits the example Shoots: a ControllerRegistration for the extension
    types they use (its ExtensionValidator), their Project, and the Secret and CredentialsBinding prod names (its
    ResourceReferenceManager checks that they exist)."""
    kinds = [("Infrastructure", "aws"), ("ControlPlane", "aws"), ("Worker", "aws"), ("Network", "calico"), ("Network", "cilium"),
             ("OperatingSystemConfig", "gardenlinux"), ("OperatingSystemConfig", "ubuntu")]  # fmt: skip
    return [
        {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "ControllerRegistration",
         "metadata": {"name": "e2e-landscape-extensions"},
         "spec": {"resources": [*({"kind": kind, "type": type_} for kind, type_ in kinds),
                                {"kind": "Extension", "type": "shoot-oidc-service", "workerlessSupported": True}]}},
        {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Project", "metadata": {"name": "team"},
         "spec": {"namespace": PROJECT_NAMESPACE}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "aws-credentials", "namespace": PROJECT_NAMESPACE},
         "stringData": {"accessKeyID": "e2e", "secretAccessKey": "e2e"}},
        {"apiVersion": "security.gardener.cloud/v1alpha1", "kind": "CredentialsBinding",
         "metadata": {"name": "aws-credentials", "namespace": PROJECT_NAMESPACE}, "provider": {"type": "aws"},
         "credentialsRef": {"apiVersion": "v1", "kind": "Secret", "name": "aws-credentials",
                            "namespace": PROJECT_NAMESPACE}},
    ]  # fmt: skip
