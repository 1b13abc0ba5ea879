"""StaticView: the cluster view built from `--context` files (a snapshot; no cluster needed).

Objects of kinds the view does not track are ignored, so a whole `kubectl get -o yaml` dump can be passed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ValidationError

from webhook.cluster.index import CORE_GROUP, ClusterIndex
from webhook.documents import DocumentError, read_objects
from webhook.models.core import CloudProfile, NamespacedCloudProfile, Shoot

_TRACKED: Final[dict[str, type[BaseModel]]] = {
    "CloudProfile": CloudProfile,
    "NamespacedCloudProfile": NamespacedCloudProfile,
    "Shoot": Shoot,
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
            group = str(raw.get("apiVersion", "")).split("/")[0]
            model = _TRACKED.get(str(raw.get("kind", "")))
            if model is None or group != CORE_GROUP:
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
