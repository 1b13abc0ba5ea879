"""StaticView: the cluster view built from `--context` files (a snapshot; no cluster needed).

Objects of kinds the view does not track are ignored, so a whole `kubectl get -o yaml` dump can be passed. Tracked:
CloudProfiles, NamespacedCloudProfiles, Shoots and Seeds (core.gardener.cloud), Deployments (apps; the index keeps
only Gardener control-plane components) and ConfigMaps (v1; the index keeps only gardener-info).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ValidationError

from webhook.cluster.index import CORE_GROUP, ClusterIndex
from webhook.documents import DocumentError, read_objects
from webhook.models.components import ConfigMap, Deployment, Seed
from webhook.models.core import CloudProfile, NamespacedCloudProfile, Shoot

_TRACKED: Final[dict[tuple[str, str], type[BaseModel]]] = {  # (API group, kind) -> model
    (CORE_GROUP, "CloudProfile"): CloudProfile,
    (CORE_GROUP, "NamespacedCloudProfile"): NamespacedCloudProfile,
    (CORE_GROUP, "Shoot"): Shoot,
    (CORE_GROUP, "Seed"): Seed,
    ("apps", "Deployment"): Deployment,
    ("", "ConfigMap"): ConfigMap,
}


class ContextError(ValueError):
    """Raised when a context file cannot be read or holds an object that cannot be decoded."""


class StaticView(ClusterIndex):
    """A ClusterView over a fixed set of objects; always synced."""

    @property
    def synced(self) -> bool:
        return True

    @classmethod
    def empty(cls) -> StaticView:
        """A view of an empty cluster."""
        return cls()

    @classmethod
    def from_objects(cls, objects: Iterable[object], *, source: str = "<objects>") -> StaticView:
        """Build a view from parsed JSON objects; raises ContextError for a tracked object that cannot be decoded."""
        view = cls()
        for i, raw in enumerate(objects):
            if not isinstance(raw, dict):
                continue
            group = str(raw.get("apiVersion", "")).rpartition("/")[0]  # "v1" is the core group ""
            model = _TRACKED.get((group, str(raw.get("kind", ""))))
            if model is None:
                continue
            try:
                obj = model.model_validate(raw, by_alias=True)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ContextError(f"{source}: object {i} ({raw.get('kind')}): {where}: {first['msg']}") from None
            view.upsert(obj)  # type: ignore[arg-type]
        return view

    @classmethod
    def from_files(cls, paths: Sequence[Path]) -> StaticView:
        """Build a view from YAML/JSON files; raises ContextError naming the file on any problem."""
        objects: list[object] = []
        for path in paths:
            try:
                objects.extend(read_objects(path))
            except DocumentError as exc:
                raise ContextError(str(exc)) from None
        return cls.from_objects(objects, source=", ".join(str(p) for p in paths))
