"""StaticView: the cluster view built from `--context` files (a snapshot; no cluster needed).

Objects of kinds the view does not track are ignored, so a whole `kubectl get -o yaml` dump can be passed; Shoots are
decoded whole (a malformed one is refused) and kept as their `ShootSummary`. Tracked:
CloudProfiles, NamespacedCloudProfiles, Shoots and Seeds (core.gardener.cloud), Deployments (apps; the index keeps
only Gardener control-plane components) and ConfigMaps (v1; the index keeps only gardener-info).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel, ValidationError

from webhook.cluster.index import CORE_GROUP, ClusterIndex
from webhook.cluster.view import require_tracked
from webhook.models.cloudprofile import CloudProfile
from webhook.models.components import ConfigMap, Deployment, Seed
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot
from webhook.models.summary import ShootSummary

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
    """A ClusterView over a fixed set of objects; always synced, and every kind always fresh (a snapshot does not
    age while it is judged against)."""

    @property
    def synced(self) -> bool:
        return True

    def known(self, *kinds: str) -> bool:
        """Whatever `synced` says (True, unless a subclass says otherwise); ValueError for a kind no view tracks."""
        require_tracked(kinds)
        return self.synced

    @classmethod
    def empty(cls) -> StaticView:
        """A view of an empty cluster."""
        return cls()

    @classmethod
    def from_objects(cls, objects: Iterable[object], *, source: str = "<objects>") -> StaticView:
        """Build a view from parsed JSON objects; raises ContextError for a tracked object that cannot be decoded."""
        view = cls()
        for i, raw in enumerate(objects):
            view.add(raw, where=f"{source}: object {i}")
        return view

    def add(self, raw: object, *, where: str, strict: bool = True) -> bool:
        """Insert or replace one parsed JSON object if its kind is tracked; returns whether it was added.

        where: names the object in a ContextError (e.g. `file.yaml, document 2 (line 9)`). strict: raise
        ContextError when a tracked object cannot be decoded; when False such an object is left out (an object
        under review that is itself malformed is denied by its validator, not refused as context).
        """
        if not isinstance(raw, dict):
            return False
        group = str(raw.get("apiVersion", "")).rpartition("/")[0]  # "v1" is the core group ""
        model = _TRACKED.get((group, str(raw.get("kind", ""))))
        if model is None:
            return False
        try:
            obj = model.model_validate(raw, by_alias=True)
        except ValidationError as exc:
            if not strict:
                return False
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise ContextError(f"{where} ({raw.get('kind')}): {loc}: {first['msg']}") from None
        if isinstance(obj, Shoot):
            # Decoded whole, so a malformed Shoot is refused as context as before; kept as its summary (memory).
            obj = ShootSummary.model_validate(raw, by_alias=True)
        self.upsert(obj)  # type: ignore[arg-type]
        return True
