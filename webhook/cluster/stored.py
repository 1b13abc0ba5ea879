"""One-shot reads of a cluster for `review --kubeconfig` / `--in-cluster`: what `kubectl apply -f dir/` meets now.

`ClusterReader` reads, once and without writing anything:
- every object of the kinds the cluster view tracks (`live.RESOURCES`: CloudProfiles, NamespacedCloudProfiles,
  Shoots, Seeds, the Gardener control-plane Deployments, the gardener-info ConfigMap), raw and page by page, each
  kind from the cluster it is read from (`cluster.sources`, else the flag's cluster). A kind the cluster does not
  serve (404) is empty, as in the live view;
- the stored version of each reviewed object: from those lists for CloudProfiles, NamespacedCloudProfiles and
  Shoots (listed whole), else with one GET of the object (`change.STORED_AS` names its resource).
Any failure (unreachable, 401, 403, 5xx, a kind of a judged object the cluster does not serve) is a
`ClusterReadError` naming the request and the API server's own words; nothing is retried (the command is run again).
Source: docs/guides/review.md (against the cluster).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import urllib3
from kubernetes.client import ApiClient, CoreV1Api, CustomObjectsApi
from kubernetes.client.exceptions import ApiException

from webhook.cluster.live import RESOURCES
from webhook.cluster.reflector import LIST_PAGE_SIZE, describe_error, list_collection
from webhook.cluster.resources import STORED_AS
from webhook.cluster.watched import Resource

# (connect, read) timeouts of each request, in seconds: a list page of 500 Shoots arrives well within the read one.
REQUEST_TIMEOUT_SECONDS: Final = (10.0, 60.0)
# Kinds whose list holds every stored object (no selector): the stored version of a reviewed one is looked up there.
_LISTED_WHOLE: Final = frozenset({"CloudProfile", "NamespacedCloudProfile", "Shoot"})
SERVICE_ACCOUNT_NAMESPACE: Final = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")

ObjectId = tuple[str, str, str, str]  # (group, kind, namespace, name), as documents.Manifest.identity


class ClusterReadError(Exception):
    """The cluster could not be read: the message names what was asked, of which source, and why (one line)."""


@dataclass(frozen=True, slots=True)
class Cluster:
    """One cluster to read: name (how messages name it: `--kubeconfig`, a `cluster.sources` name), its client, and
    the tracked kinds (names of `live.RESOURCES`) read from it."""

    name: str
    client: ApiClient
    kinds: tuple[str, ...]


@dataclass
class ClusterReader:
    """Reads tracked kinds and stored objects from `clusters`; `default` is the cluster of the kinds no
    `cluster.sources` entry names and of every judged kind the view does not track (Gardenlets, ManagedSeeds,
    OperatingSystemConfigs, Deployments outside Gardener's control plane).

    namespace: where an object without `metadata.namespace` of a namespaced kind is applied (the kubeconfig
    context's namespace, the Pod's, else `default`), as kubectl does. Closes every client on `close`.
    """

    clusters: Sequence[Cluster]
    default: Cluster
    namespace: str = "default"
    _listed: dict[ObjectId, dict[str, Any]] = field(default_factory=dict)

    def snapshot(self) -> list[dict[str, Any]]:
        """Every stored object of the tracked kinds (raw JSON objects with apiVersion and kind), kind by kind.

        Raises ClusterReadError when a list fails (a 404 counts as an empty kind)."""
        objects: list[dict[str, Any]] = []
        for resource in RESOURCES:
            cluster = self._cluster_of(resource.kind)
            for raw in self._list(cluster, resource):
                objects.append(raw)
                if resource.kind in _LISTED_WHOLE:
                    self._listed[_identity(raw)] = raw
        return objects

    def stored(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The stored object `kind` `namespace/name` (namespace "" when cluster-scoped) of `api_version`'s group, or
        None when there is none. Call `snapshot` first: the kinds it lists whole are answered from it.

        Raises ClusterReadError when the GET fails or the cluster does not serve the kind in that version
        (kubectl's "no matches for kind"), and KeyError for a kind `change.STORED_AS` does not name."""
        group, _, version = api_version.rpartition("/")
        if kind in _LISTED_WHOLE and group == RESOURCES[0].group:
            return self._listed.get((group, kind, namespace, name))
        plural, _ = STORED_AS[(group, kind)]
        cluster = self._cluster_of(kind)
        api = CustomObjectsApi(cluster.client)
        options: dict[str, Any] = {"_preload_content": False, "_request_timeout": REQUEST_TIMEOUT_SECONDS}
        what = f"get {plural}.{group or 'core'} {namespace + '/' if namespace else ''}{name} from {cluster.name}"
        try:
            if namespace:
                response = api.get_namespaced_custom_object(group, version, namespace, plural, name, **options)
            else:
                response = api.get_cluster_custom_object(group, version, plural, name, **options)
            return _json_object(response, what)
        except ApiException as exc:
            if exc.status == 404 and _names(exc, name):
                return None
            if exc.status == 404:
                raise ClusterReadError(
                    f'{what}: no matches for kind "{kind}" in version "{api_version}" (the cluster does not serve it)'
                ) from None
            raise ClusterReadError(f"{what}: {describe_error(exc)}") from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ClusterReadError(f"{what}: {describe_error(exc)}") from None

    def close(self) -> None:
        """Close the clients (each once)."""
        for client in {id(c.client): c.client for c in (*self.clusters, self.default)}.values():
            client.close()

    def _cluster_of(self, kind: str) -> Cluster:
        for cluster in self.clusters:
            if kind in cluster.kinds:
                return cluster
        return self.default

    def _list(self, cluster: Cluster, resource: Resource) -> list[dict[str, Any]]:
        where = f" in namespace {resource.namespace}" if resource.namespace else ""
        what = f"list {resource.plural}.{resource.group or 'core'}{where} from {cluster.name}"
        items: list[dict[str, Any]] = []
        token: str | None = None
        while True:
            try:
                response = list_collection(
                    CoreV1Api(cluster.client), CustomObjectsApi(cluster.client), resource,
                    limit=LIST_PAGE_SIZE, _continue=token, _request_timeout=REQUEST_TIMEOUT_SECONDS,
                )  # fmt: skip
                page = _json_object(response, what)
            except ApiException as exc:
                if exc.status == 404:
                    return []  # not served: an empty kind, as for the live view
                raise ClusterReadError(f"{what}: {describe_error(exc)}") from None
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                raise ClusterReadError(f"{what}: {describe_error(exc)}") from None
            found = page.get("items") or []
            if not isinstance(found, list):
                raise ClusterReadError(f"{what}: the list's items are not a list")
            api_version = f"{resource.group}/{resource.version}" if resource.group else resource.version
            # A list's items carry no apiVersion/kind: they are the list's.
            items.extend({"apiVersion": api_version, "kind": resource.kind, **i} for i in found if isinstance(i, dict))
            meta = page.get("metadata")
            token = (meta.get("continue") if isinstance(meta, dict) else None) or None
            if token is None:
                return items


def _json_object(response: Any, what: str) -> dict[str, Any]:
    """The JSON object of an unread response (closed here); ClusterReadError when it is none."""
    try:
        body = json.loads(bytes(response.data))
    except ValueError:
        raise ClusterReadError(f"{what}: the answer is not JSON") from None
    finally:
        response.release_conn()
    if not isinstance(body, dict):
        raise ClusterReadError(f"{what}: the answer is not a JSON object")
    return body


def _names(exc: ApiException, name: str) -> bool:
    """Whether a 404 names the object (a Status whose details.name is it): the object is absent, the kind served."""
    try:
        status = json.loads(exc.body or "")
    except (TypeError, ValueError):
        return False
    details = status.get("details") if isinstance(status, dict) else None
    return isinstance(details, dict) and details.get("name") == name


def _identity(raw: Mapping[str, Any]) -> ObjectId:
    meta = raw.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    group = str(raw.get("apiVersion", "")).rpartition("/")[0]
    return group, str(raw.get("kind", "")), str(meta.get("namespace") or ""), str(meta.get("name") or "")


def context_namespace(kubeconfig: Path | None, context: str | None = None) -> str:
    """The namespace kubectl applies unnamespaced objects to: the kubeconfig context's (`context`, else the current
    one), or with kubeconfig None the Pod's service account namespace; `default` when none is set or readable."""
    if kubeconfig is None:
        try:
            return SERVICE_ACCOUNT_NAMESPACE.read_text(encoding="utf-8").strip() or "default"
        except OSError:
            return "default"
    from kubernetes.config import list_kube_config_contexts
    from kubernetes.config.config_exception import ConfigException

    try:
        contexts, current = list_kube_config_contexts(config_file=str(kubeconfig))
    except (ConfigException, OSError, ValueError):
        return "default"
    chosen = next((c for c in contexts if c.get("name") == context), current) if context else current
    found = ((chosen or {}).get("context") or {}).get("namespace")
    return str(found) if found else "default"
