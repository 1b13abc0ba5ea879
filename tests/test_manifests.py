"""manifests/: every overlay rendered with `kubectl kustomize` and checked against the Kubernetes schemas.

Built-in kinds are validated strictly (unknown fields are errors) by kubernetes-validate, which bundles the
OpenAPI schemas and works offline; cert-manager's Certificate and Issuer have no built-in schema and are
checked structurally. Then the deployment contracts: RBAC exactly as the cluster view needs it, one webhook
per resource kind with the same safe settings, namespaceSelectors that never match kube-system or the
webhook's namespace, the Deployment's hardening, and both certificate flavours wired end to end (the static
flavour after running `gardener-webhook certs` into a copy of the tree). And the reliability contracts:
mTLS on by default (the client CA each flavour provides, the client name serve allows), a ServiceAccount token
only where a live view runs, NetworkPolicies that open one path each (judged by a small evaluator of their
selectors), probes with timeouts and a shutdown budget well inside the grace period; and the break-glass
design of the webhook configuration: which webhooks fail closed, and the matchConditions the API server
evaluates before calling the webhook. There is no CEL engine here: each expression is pinned verbatim, mirrored
by a Python function next to it, and the mirror is checked against what the validators would have said. And those of
the landscape layouts: the configuration file as a ConfigMap the shipped schema accepts, the webhook's own ServiceAccount never
sent, and a landscape with a virtual garden split into its runtime cluster and its virtual garden (webhooks by URL
with the caBundle, RBAC exactly per cluster, the view's kubeconfig mounted where its configuration points, Gardener's
network labels and annotations, the PriorityClass); and the garden's hourly `audit --in-cluster --apply`
CronJob (components/audit-cronjob): its exit-status handling, hardening, network isolation and RBAC (the view's
reads plus exactly the report writes it makes).
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.builders import DEFAULT_SETTINGS, review_bytes
from tests.cluster.fake_apiserver import gardener_deployment_obj
from tests.manifest_tree import KUBECTL, NO_KUBECTL, SERVICE_DNS, kustomize, prepared_tree
from webhook.cli import build_parser
from webhook.cli.audit import cmd_audit
from webhook.cli.base import EXIT_CLUSTER, EXIT_DENIED, EXIT_USAGE
from webhook.cluster.static import StaticView
from webhook.judging.judge import RULES_ANNOTATION, judge
from webhook.offline import report_apply
from webhook.server.certs import WEBHOOK_NAMES
from webhook.server.serve import FINAL_CLOSE_SECONDS
from webhook.settings import Settings, load_settings
from webhook.validators import ALL_RULES
from webhook.validators.meta import qualified_name_errors

ROOT = Path(__file__).resolve().parents[1]
KUBERNETES_VERSION = "1.31"  # oldest version with every field used (unhealthyPodEvictionPolicy is GA in 1.31)
NAMESPACE = "gardener-webhook"
# Each overlay and the cluster it is applied to (its webhooks are WEBHOOK_NAMES[cluster]): the garden and a seed in
# both certificate flavours; a landscape with a virtual garden (gardener-operator) as its two halves, the runtime
# cluster and the virtual garden.
CLUSTERS: Final = {
    "garden/cert-manager": "garden", "garden/static": "garden", "seed/cert-manager": "seed", "seed/static": "seed",
    "virtual-garden/runtime": "runtime", "virtual-garden/virtual": "virtual-garden",
}  # fmt: skip
OVERLAYS = list(CLUSTERS)
WORKLOADS = [overlay for overlay, cluster in CLUSTERS.items() if cluster != "virtual-garden"]  # the webhook's Pods run
LIVE_VIEW: Final = ("garden", "runtime")  # the clusters whose Pods keep a live view (and so talk to an API server)
RUNTIME, VIRTUAL = "virtual-garden/runtime", "virtual-garden/virtual"
VIRTUAL_GARDEN_URL: Final = f"https://{SERVICE_DNS}/validate"
VIRTUAL_GARDEN_KUBECONFIG: Final = Path("/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig/kubeconfig")
CERT_MANAGER = "cert-manager.io/v1"
CLIENT_CN: Final = "gardener-webhook-client"  # the name the API servers' client certificate carries
CLIENT_CA_SECRET: Final = "gardener-webhook-client-ca"
BREAK_GLASS_GROUP: Final = "gardener-webhook:break-glass"
OWN_SERVICE_ACCOUNT: Final = f"system:serviceaccount:{NAMESPACE}:gardener-webhook"

Object = dict[str, Any]


def by_kind(objects: list[Object], kind: str) -> list[Object]:
    return [o for o in objects if o["kind"] == kind]


def one(objects: list[Object], kind: str, name: str | None = None) -> Object:
    found = [o for o in by_kind(objects, kind) if name is None or o["metadata"]["name"] == name]
    assert len(found) == 1, f"{len(found)} objects of kind {kind}"
    return found[0]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of manifests/ with the certificates made by `gardener-webhook certs` (and the caBundle patch of the
    virtual garden's webhooks), as docs/operations/deploy.md and docs/operations/virtual-garden.md "Deploy with a
    virtual garden, by hand" make them."""
    return prepared_tree(tmp_path_factory.mktemp("manifests"))


@pytest.fixture(scope="module")
def rendered(tree: Path) -> dict[str, list[Object]]:
    if KUBECTL is None:
        pytest.skip(NO_KUBECTL)
    return {overlay: kustomize(KUBECTL, tree / "overlays" / overlay) for overlay in OVERLAYS}


def overlays(rendered: dict[str, list[Object]]) -> Iterator[tuple[str, list[Object]]]:
    yield from rendered.items()


# ------------------------------------------------------------------------------------------- schemas


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_object_passes_its_schema(rendered: dict[str, list[Object]], overlay: str) -> None:
    for obj in rendered[overlay]:
        name = f"{obj['kind']}/{obj['metadata']['name']}"
        if obj["apiVersion"] == CERT_MANAGER:
            _check_cert_manager(obj)
            continue
        try:
            kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"overlays/{overlay}: {name}: {exc.message} at {'.'.join(map(str, exc.path))}")


def _check_cert_manager(obj: Object) -> None:
    """Structure of the cert-manager objects we write (their CRD schemas are not bundled)."""
    assert set(obj) == {"apiVersion", "kind", "metadata", "spec"}
    assert obj["metadata"]["namespace"] == NAMESPACE
    spec = obj["spec"]
    if obj["kind"] == "Issuer":
        assert len(spec) == 1 and (spec == {"selfSigned": {}} or set(spec["ca"]) == {"secretName"})
    else:
        assert obj["kind"] == "Certificate"
        assert set(spec) <= {
            "secretName",
            "issuerRef",
            "dnsNames",
            "duration",
            "renewBefore",
            "usages",
            "privateKey",
            "isCA",
            "commonName",
        }
        assert set(spec["issuerRef"]) == {"kind", "name"} and spec["issuerRef"]["kind"] == "Issuer"
        assert spec["privateKey"]["algorithm"] == "ECDSA"
        assert spec["privateKey"]["rotationPolicy"] in ("Always", "Never")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_kinds_of_each_overlay(rendered: dict[str, list[Object]], overlay: str) -> None:
    kinds = sorted(o["kind"] for o in rendered[overlay])
    base = ["ConfigMap", "Deployment", "Namespace", "NetworkPolicy", "NetworkPolicy", "PodDisruptionBudget", "Service",
            "ServiceAccount", "ValidatingWebhookConfiguration"]  # fmt: skip
    audit = ["CronJob", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "Role", "RoleBinding",
             "RoleBinding", "NetworkPolicy"]  # components/audit-cronjob (garden overlays)  # fmt: skip
    certs = ["Certificate"] * 4 + ["Issuer"] * 3 if overlay.endswith("cert-manager") else ["Secret", "Secret"]
    garden_policies = ["NetworkPolicy"] * 3
    expected = {
        "garden": base + ["ClusterRole", "ClusterRoleBinding", "Role", "Role", "RoleBinding", "RoleBinding"]
        + garden_policies + certs + audit,
        "seed": base + certs,
        "runtime": base + ["Role", "RoleBinding"] + garden_policies + certs,
        "virtual-garden": ["ClusterRole", "ClusterRoleBinding", "Namespace", "Role", "RoleBinding", "Secret",
                           "ServiceAccount", "ValidatingWebhookConfiguration"],
    }[CLUSTERS[overlay]]  # fmt: skip
    assert kinds == sorted(expected)


# ---------------------------------------------------------------------------------------------- RBAC


Grant = tuple[str, str, str, tuple[str, ...], tuple[str, ...]]
# What the live view lists and watches of each of its kinds: (namespace or * for all, API group, resource, names).
VIEW_READS: Final = {
    "CloudProfile": ("*", "core.gardener.cloud", "cloudprofiles", ()),
    "NamespacedCloudProfile": ("*", "core.gardener.cloud", "namespacedcloudprofiles", ()),
    "Shoot": ("*", "core.gardener.cloud", "shoots", ()),
    "Seed": ("*", "core.gardener.cloud", "seeds", ()),
    "Deployment": ("garden", "apps", "deployments", ()),
    "ConfigMap": ("gardener-system-public", "", "configmaps", ("gardener-info",)),
}
# The same as grants: (namespace or "*", apiGroup, resource, resourceNames, verbs).
VIEW_GRANTS: Final[set[Grant]] = {(*read, ("list", "watch")) for read in VIEW_READS.values()}


def grants(objects: list[Object], account: str) -> set[Grant]:
    """Everything the ServiceAccount `account` (of the webhook's namespace) is granted through the bindings that name
    it: (namespace or "*", apiGroup, resource, resourceNames, sorted verbs). Each binding names one ServiceAccount
    of the webhook's namespace, and its role exists."""
    roles = {(r["kind"], r["metadata"].get("namespace", ""), r["metadata"]["name"]): r
             for r in by_kind(objects, "ClusterRole") + by_kind(objects, "Role")}  # fmt: skip
    found: set[Grant] = set()
    for binding in by_kind(objects, "ClusterRoleBinding") + by_kind(objects, "RoleBinding"):
        (subject,) = binding["subjects"]
        assert (subject["kind"], subject["namespace"]) == ("ServiceAccount", NAMESPACE)
        namespace, ref = binding["metadata"].get("namespace", ""), binding["roleRef"]
        role = roles[(ref["kind"], namespace if ref["kind"] == "Role" else "", ref["name"])]
        if subject["name"] != account:
            continue
        for rule in role["rules"]:
            assert set(rule) <= {"apiGroups", "resources", "verbs", "resourceNames"}
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    names, verbs = tuple(rule.get("resourceNames", ())), tuple(sorted(rule["verbs"]))
                    found.add((namespace or "*", group, resource, names, verbs))
    return found


def test_garden_rbac_is_exactly_list_and_watch_of_what_the_view_reads(rendered: dict[str, list[Object]]) -> None:
    assert grants(rendered["garden/cert-manager"], "gardener-webhook") == VIEW_GRANTS


def _granted(objects: list[Object]) -> set[tuple[str, str, str, tuple[str, ...]]]:
    """What the overlay grants the webhook's own ServiceAccount, as VIEW_READS entries; every grant is list and watch."""
    found = grants(objects, "gardener-webhook")
    assert {grant[4] for grant in found} <= {("list", "watch")}
    return {grant[:4] for grant in found}


@pytest.mark.parametrize("overlay", ["seed/cert-manager", "seed/static"])
def test_the_seed_gets_no_rbac_and_no_cluster_view(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    assert not [o for o in objects if o["apiVersion"].startswith("rbac.authorization.k8s.io/")]
    args = one(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "--in-cluster" not in args


# ------------------------------------------------------------------------------- webhook configuration

EXPECTED_RULES = {
    "cloudprofiles": ("core.gardener.cloud", "v1beta1", ["CREATE", "UPDATE", "DELETE"], "Cluster"),
    "namespacedcloudprofiles": ("core.gardener.cloud", "v1beta1", ["CREATE", "UPDATE", "DELETE"], "Namespaced"),
    "shoots": ("core.gardener.cloud", "v1beta1", ["CREATE", "UPDATE"], "Namespaced"),
    "gardenlets": ("seedmanagement.gardener.cloud", "v1alpha1", ["CREATE", "UPDATE"], "Namespaced"),
    "managedseeds": ("seedmanagement.gardener.cloud", "v1alpha1", ["CREATE", "UPDATE"], "Namespaced"),
    "deployments": ("apps", "v1", ["CREATE", "UPDATE"], "Namespaced"),
    "operatingsystemconfigs": ("extensions.gardener.cloud", "v1alpha1", ["CREATE", "UPDATE"], "Namespaced"),
}


def _selects(selector: Object, labels: dict[str, str]) -> bool:
    """Whether a LabelSelector matches labels (matchLabels and In/NotIn/Exists/DoesNotExist)."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, operator, values = expression["key"], expression["operator"], expression.get("values", [])
        ok = {
            "In": key in labels and labels[key] in values,
            "NotIn": key not in labels or labels[key] not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[operator]
        if not ok:
            return False
    return True


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_one_safe_webhook_per_resource_kind(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    config = one(objects, "ValidatingWebhookConfiguration")
    assert config["metadata"]["name"] == "gardener-webhook"
    cluster = CLUSTERS[overlay]
    assert [w["name"] for w in config["webhooks"]] == list(WEBHOOK_NAMES[cluster])  # the patch of `certs` agrees
    for webhook in config["webhooks"]:
        name = webhook["name"]
        assert webhook["admissionReviewVersions"] == ["v1"], name
        assert (webhook["sideEffects"], webhook["timeoutSeconds"]) == ("None", 10), name
        assert webhook["matchPolicy"] == "Equivalent", name
        if cluster == "virtual-garden":  # the runtime cluster's Service, by the name its API servers resolve there
            service = one(rendered[RUNTIME], "Service")
            host = f"{service['metadata']['name']}.{service['metadata']['namespace']}.svc"
            assert service["spec"]["ports"][0]["port"] == 443 and webhook["clientConfig"]["url"] == VIRTUAL_GARDEN_URL
            assert VIRTUAL_GARDEN_URL == f"https://{host}/validate" and set(webhook["clientConfig"]) == {
                "url",
                "caBundle",
            }
        else:
            service = one(objects, "Service")
            assert webhook["clientConfig"]["service"] == {
                "namespace": service["metadata"]["namespace"], "name": service["metadata"]["name"],
                "path": "/validate", "port": service["spec"]["ports"][0]["port"],
            }, name  # fmt: skip
        resource = name.split(".")[0]
        group, version, operations, scope = EXPECTED_RULES[resource]
        assert webhook["rules"] == [
            {
                "apiGroups": [group],
                "apiVersions": [version],
                "resources": [resource],
                "operations": operations,
                "scope": scope,
            }
        ], name
        for namespace in ("kube-system", NAMESPACE):
            assert not _selects(webhook["namespaceSelector"], {"kubernetes.io/metadata.name": namespace}), name
        assert _selects(webhook["namespaceSelector"], {"kubernetes.io/metadata.name": "garden"}), name
        if resource == "deployments":
            assert not _selects(webhook["namespaceSelector"], {"kubernetes.io/metadata.name": "garden-dev"})
            assert webhook["objectSelector"] == {"matchLabels": {"app": "gardener"}}
        else:
            assert "objectSelector" not in webhook, name
            assert _selects(webhook["namespaceSelector"], {"kubernetes.io/metadata.name": "shoot--dev--a"}), name


# ----------------------------------------------------------------------------------------------- audit annotation


def _audit_annotation_key_errors(key: str) -> list[str]:
    """Why the API server would drop an audit annotation filed under `key` ([] when it keeps it).

    Mirror of k8s.io/apiserver pkg/admission/attributes.go checkKeyFormat: exactly one "/", and the whole key a
    qualified name (apimachinery validation.IsQualifiedName: a DNS-subdomain prefix, a name of at most 63
    characters). A webhook's annotation `k` is filed under `<webhook name>/k` (pkg/admission/plugin/webhook/
    validating/dispatcher.go callHook), and a key that fails is dropped with only a line in the API server's log.
    """
    if len(key.split("/")) != 2:
        return ["annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name"]
    return qualified_name_errors(key)


def _shipped_webhook_names(objects: list[Object]) -> list[str]:
    return [w["name"] for o in by_kind(objects, "ValidatingWebhookConfiguration") for w in o["webhooks"]]


def test_the_api_server_rule_is_mirrored() -> None:
    """The mirror rejects what the API server rejected once (a key with two slashes) and accepts its own example."""
    assert _audit_annotation_key_errors("shoots.gardener-webhook.gardener.cloud/gardener-webhook/rules")
    assert _audit_annotation_key_errors("podsecuritypolicy.admission.k8s.io/admit-policy") == []
    assert _audit_annotation_key_errors(f"shoots.gardener-webhook.gardener.cloud/{'x' * 64}")


def test_the_rules_annotation_survives_every_shipped_webhook_name() -> None:
    """Every webhook name of every ValidatingWebhookConfiguration under manifests/, prefixed to RULES_ANNOTATION,
    is a key the API server keeps (the source files: no kubectl needed)."""
    sources = sorted((ROOT / "manifests").rglob("*.yaml"))
    objects = [doc for path in sources for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict)]
    names = _shipped_webhook_names([o for o in objects if "kind" in o])
    assert set(names) == {
        n for cluster in WEBHOOK_NAMES.values() for n in cluster
    }  # a cluster set may repeat another's
    for name in names:
        assert _audit_annotation_key_errors(f"{name}/{RULES_ANNOTATION}") == [], name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_rules_annotation_survives_each_rendered_overlay(rendered: dict[str, list[Object]], overlay: str) -> None:
    """The same for the webhook names each overlay renders (a patch could rename a webhook)."""
    names = _shipped_webhook_names(rendered[overlay])
    assert names
    for name in names:
        assert _audit_annotation_key_errors(f"{name}/{RULES_ANNOTATION}") == [], name


# ---------------------------------------------------------------------------------------------------- break-glass

# The matchConditions every webhook carries, pinned verbatim: the API server compiles these strings, and the
# mirrors below are what the tests take them to mean.
EXCLUDE_BREAK_GLASS: Final = {
    "name": "exclude-break-glass-group",
    "expression": f"!('{BREAK_GLASS_GROUP}' in request.userInfo.groups)",
}
EXCLUDE_OWN_SERVICE_ACCOUNT: Final = {
    "name": "exclude-own-service-account",
    "expression": f"request.userInfo.username != '{OWN_SERVICE_ACCOUNT}'",
}
ONLY_VERSION_CHANGES: Final = {
    "name": "only-version-changes",
    "expression": "request.operation == 'CREATE' || "
    "object.spec.template.spec.containers.map(c, c.image) != oldObject.spec.template.spec.containers.map(c, c.image)",
}
ONLY_SPEC_CHANGES: Final = {
    "name": "only-spec-changes",
    "expression": "request.operation == 'CREATE' || !has(object.spec) || !has(oldObject.spec) || "
    "object.spec != oldObject.spec",
}


def _images(obj: Object) -> list[str]:
    return [c["image"] for c in obj["spec"]["template"]["spec"]["containers"]]


# What each condition says about an AdmissionRequest (the `request` of a review, with `object`/`oldObject`).
MIRRORS: Final[dict[str, Callable[[Object], bool]]] = {
    "exclude-break-glass-group": lambda request: BREAK_GLASS_GROUP not in request["userInfo"]["groups"],
    "exclude-own-service-account": lambda request: request["userInfo"]["username"] != OWN_SERVICE_ACCOUNT,
    "only-version-changes": lambda request: (
        request["operation"] == "CREATE" or _images(request["object"]) != _images(request["oldObject"])
    ),
    "only-spec-changes": lambda request: (
        request["operation"] == "CREATE"
        or "spec" not in request["object"]
        or "spec" not in request["oldObject"]
        or request["object"]["spec"] != request["oldObject"]["spec"]
    ),
}
CONDITIONS: Final = (EXCLUDE_BREAK_GLASS, EXCLUDE_OWN_SERVICE_ACCOUNT, ONLY_VERSION_CHANGES, ONLY_SPEC_CHANGES)
# The conditions of each webhook besides the two every webhook has.
ONLY_CHANGES: Final = {
    "deployments": ONLY_VERSION_CHANGES,
    "gardenlets": ONLY_SPEC_CHANGES,
    "managedseeds": ONLY_SPEC_CHANGES,
}


def _sent(webhook: Object, request: Object) -> bool:
    """Whether the API server calls `webhook` for `request`: every matchCondition true (none false, none erring)."""
    return all(MIRRORS[condition["name"]](request) for condition in webhook.get("matchConditions", []))


def _webhooks(objects: list[Object]) -> dict[str, Object]:
    return {w["name"].split(".")[0]: w for w in one(objects, "ValidatingWebhookConfiguration")["webhooks"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_control_plane_deployments_fail_open(rendered: dict[str, list[Object]], overlay: str) -> None:
    """The Deployments' webhook is Ignore: it is down exactly when gardener-apiserver needs repairing."""
    policies = {resource: w["failurePolicy"] for resource, w in _webhooks(rendered[overlay]).items()}
    expected = {resource: "Ignore" if resource == "deployments" else "Fail" for resource in policies}
    assert policies == expected and ("deployments" in policies) == (CLUSTERS[overlay] in LIVE_VIEW)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_match_conditions_are_pinned(rendered: dict[str, list[Object]], overlay: str) -> None:
    for resource, webhook in _webhooks(rendered[overlay]).items():
        only = [ONLY_CHANGES[resource]] if resource in ONLY_CHANGES else []
        expected = [EXCLUDE_BREAK_GLASS, EXCLUDE_OWN_SERVICE_ACCOUNT, *only]
        assert [{**c, "expression": " ".join(c["expression"].split())} for c in webhook["matchConditions"]] == expected
    alternatives = {"only-version-changes": 2, "only-spec-changes": 4}  # the shape the mirrors read: nothing hides
    for condition in CONDITIONS:
        name, expression = condition["name"], condition["expression"]
        assert expression.count("||") + 1 == alternatives.get(name, 1) and "&&" not in expression, name


def _request(obj: Object | None, old: Object | None = None, *, groups: tuple[str, ...] = ("system:authenticated",),
             username: str = "alice") -> Object:  # fmt: skip
    request: Object = json.loads(review_bytes(obj, old, groups=groups, username=username))["request"]
    return request


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_break_glass_group_is_never_sent_to_any_webhook(rendered: dict[str, list[Object]], overlay: str) -> None:
    apiserver = gardener_deployment_obj("apiserver", "v1.37.2")
    for webhook in _webhooks(rendered[overlay]).values():
        assert _sent(webhook, _request(apiserver, groups=("system:authenticated",))), webhook["name"]
        break_glass = _request(apiserver, groups=("system:authenticated", BREAK_GLASS_GROUP))
        assert not _sent(webhook, break_glass), webhook["name"]
        assert _sent(webhook, _request(apiserver, groups=("system:masters", "system:authenticated"))), webhook["name"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_webhooks_own_service_account_is_never_sent(rendered: dict[str, list[Object]], overlay: str) -> None:
    """The account the Pods run as (the live view lists and watches with it) is never judged by its own webhook."""
    objects = rendered[overlay]
    pods = [o for o in objects if o["kind"] == "Deployment"]
    name = pods[0]["spec"]["template"]["spec"]["serviceAccountName"] if pods else "gardener-webhook"
    account = one(objects, "ServiceAccount", name)["metadata"]
    assert f"system:serviceaccount:{account['namespace']}:{account['name']}" == OWN_SERVICE_ACCOUNT
    apiserver = gardener_deployment_obj("apiserver", "v1.37.2")
    others = ("alice", f"system:serviceaccount:{NAMESPACE}:default", "system:serviceaccount:garden:gardener-webhook")
    for webhook in _webhooks(objects).values():
        assert not _sent(webhook, _request(apiserver, username=OWN_SERVICE_ACCOUNT)), webhook["name"]
        for other in others:
            assert _sent(webhook, _request(apiserver, username=other)), (webhook["name"], other)


NOW: Final = datetime(2026, 11, 21, tzinfo=UTC)


class _UnsyncedView(StaticView):
    """A live view that never finished its first list: gardener-apiserver is down and the webhook restarted."""

    @property
    def synced(self) -> bool:
        return False


def _changed(obj: Object, change: Callable[[Object], None]) -> Object:
    new = copy.deepcopy(obj)
    change(new)
    return new


def _scale(d: Object) -> None:
    d["spec"]["replicas"] = 4


def _flags_and_labels(d: Object) -> None:
    d["metadata"]["labels"]["repaired"] = "true"
    container = d["spec"]["template"]["spec"]["containers"][0]
    container["args"] = ["--v=4"]
    container["resources"] = {"limits": {"memory": "4Gi"}}


def _restart(d: Object) -> None:
    d["spec"]["template"]["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": "2026-11-21T10:00:00Z"}


def _sidecar_image(d: Object) -> None:
    d["spec"]["template"]["spec"]["containers"].append({"name": "proxy", "image": "envoy:v1.32.0"})


# gardener-apiserver at 1.37 and every other component far behind it: judged afresh, they would be denied.
SKEWED: Final = StaticView.from_objects([gardener_deployment_obj("apiserver", "v1.37.2")])
UNSYNCED: Final = _UnsyncedView.from_objects([])


@pytest.mark.parametrize("cluster", [SKEWED, UNSYNCED], ids=["skewed", "unsynced"])
@pytest.mark.parametrize("change", [_scale, _flags_and_labels, _restart])
@pytest.mark.parametrize(("role", "tag"), [("apiserver", "v1.37.2"), ("controller-manager", "v1.33.0"),
                                           ("scheduler", "v1.33.0"), ("operator", "v1.33.0")])  # fmt: skip
def test_repairs_that_keep_the_version_never_reach_the_webhook_and_lose_nothing(
    rendered: dict[str, list[Object]], role: str, tag: str, change: Callable[[Object], None], cluster: StaticView
) -> None:
    """only-version-changes skips exactly what the validators would allow anyway, whatever the cluster state."""
    webhook = _webhooks(rendered["garden/cert-manager"])["deployments"]
    old = gardener_deployment_obj(role, tag)
    new = _changed(old, change)
    assert not _sent(webhook, _request(new, old))
    outcome = judge(review_bytes(new, old), view=cluster, settings=DEFAULT_SETTINGS, now=NOW)
    assert outcome.response["allowed"] is True and outcome.rule_ids == ()  # nothing said, so nothing lost


def test_the_skipped_deployments_would_be_denied_if_they_were_new() -> None:
    """The cluster states above are not vacuous: the same objects as a CREATE (which is sent) are denied."""
    for role in ("controller-manager", "scheduler"):
        new = gardener_deployment_obj(role, "v1.33.0")
        for cluster, rule in ((SKEWED, "VS-GARDENER-002"), (UNSYNCED, "CLUSTER-001")):
            outcome = judge(review_bytes(new), view=cluster, settings=DEFAULT_SETTINGS, now=NOW)
            assert outcome.response["allowed"] is False and outcome.rule_ids == (rule,), (role, rule)


GARDENLET_CHART: Final = "europe-docker.pkg.dev/gardener-project/releases/charts/gardener/gardenlet"
GARDENLET_CONFIG: Final = {"apiVersion": "gardenlet.config.gardener.cloud/v1alpha1", "kind": "GardenletConfiguration"}


def _gardenlet(tag: str) -> Object:
    """A Gardenlet whose chart (and so gardenlet) version is `tag`."""
    deployment = {"helm": {"ociRepository": {"ref": f"{GARDENLET_CHART}:{tag}"}}}
    return {"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "Gardenlet",
            "metadata": {"name": "aws-eu1", "namespace": "garden"},
            "spec": {"deployment": deployment, "config": GARDENLET_CONFIG}}  # fmt: skip


def _managed_seed(tag: str) -> Object:
    """A ManagedSeed whose gardenlet image tag is `tag`."""
    gardenlet = {"deployment": {"image": {"tag": tag}}, "config": GARDENLET_CONFIG}
    return {"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "ManagedSeed",
            "metadata": {"name": "aws-eu1", "namespace": "garden"},
            "spec": {"shoot": {"name": "aws-eu1"}, "gardenlet": gardenlet}}  # fmt: skip


def _relabel(o: Object) -> None:
    o["metadata"]["labels"] = {"seed.gardener.cloud/eu": "true"}


def _request_reconcile(o: Object) -> None:
    o["metadata"]["annotations"] = {"gardener.cloud/operation": "reconcile"}


def _finalize(o: Object) -> None:
    o["metadata"]["finalizers"] = []
    o["metadata"]["deletionTimestamp"] = "2026-11-21T10:00:00Z"


def _report_status(o: Object) -> None:
    o["status"] = {"observedGeneration": 3, "conditions": [{"type": "SeedRegistered", "status": "True"}]}


def _webhook_of(rendered: dict[str, list[Object]], obj: Object) -> Object:
    return _webhooks(rendered["garden/cert-manager"])[obj["kind"].lower() + "s"]


@pytest.mark.parametrize("cluster", [SKEWED, UNSYNCED], ids=["skewed", "unsynced"])
@pytest.mark.parametrize("change", [_relabel, _request_reconcile, _finalize, _report_status])
@pytest.mark.parametrize("make", [_gardenlet, _managed_seed], ids=["gardenlet", "managedseed"])
def test_updates_that_keep_a_gardenlets_spec_never_reach_the_webhook_and_lose_nothing(
    rendered: dict[str, list[Object]], make: Callable[[str], Object], change: Callable[[Object], None],
    cluster: StaticView,
) -> None:  # fmt: skip
    """only-spec-changes skips exactly what the validators would allow without a word, whatever the cluster state."""
    old = make("v1.33.0")  # four minors behind gardener-apiserver 1.37: judged afresh, denied (below)
    new = _changed(old, change)
    assert not _sent(_webhook_of(rendered, old), _request(new, old))
    outcome = judge(review_bytes(new, old), view=cluster, settings=DEFAULT_SETTINGS, now=NOW)
    assert outcome.response["allowed"] is True and outcome.rule_ids == ()  # nothing said, so nothing lost


@pytest.mark.parametrize("make", [_gardenlet, _managed_seed], ids=["gardenlet", "managedseed"])
def test_a_gardenlet_spec_change_reaches_the_webhook(
    rendered: dict[str, list[Object]], make: Callable[[str], Object]
) -> None:
    """The skipped objects are not vacuous: new, or with their version set by an UPDATE, they are denied."""
    webhook = _webhook_of(rendered, make("v1.37.0"))
    for cluster, rule in ((SKEWED, "VS-GL-001"), (UNSYNCED, "CLUSTER-001")):
        outcome = judge(review_bytes(make("v1.33.0")), view=cluster, settings=DEFAULT_SETTINGS, now=NOW)
        assert outcome.response["allowed"] is False and outcome.rule_ids == (rule,)
    old, downgraded = make("v1.37.0"), make("v1.33.0")
    assert _sent(webhook, _request(downgraded, old)) and _sent(webhook, _request(downgraded))
    outcome = judge(review_bytes(downgraded, old), view=SKEWED, settings=DEFAULT_SETTINGS, now=NOW)
    assert outcome.response["allowed"] is False and outcome.rule_ids == ("VS-GL-001",)
    reconfigured = _changed(
        old, lambda o: o["spec"].update(extra={"seedConfig": {}})
    )  # any spec change, conservatively
    assert _sent(webhook, _request(reconfigured, old))


def test_version_changes_reach_the_webhook_and_only_break_glass_skips_a_denial(
    rendered: dict[str, list[Object]],
) -> None:
    """A rollback of gardener-apiserver is a downgrade (VS-GARDENER-003): a live webhook denies it, break-glass passes."""
    webhook = _webhooks(rendered["garden/cert-manager"])["deployments"]
    old = gardener_deployment_obj("apiserver", "v1.37.2")
    rollback = gardener_deployment_obj("apiserver", "v1.36.9")
    assert _sent(webhook, _request(rollback, old))
    assert _sent(webhook, _request(gardener_deployment_obj("scheduler", "v1.37.2")))  # CREATE
    assert _sent(webhook, _request(_changed(old, _sidecar_image), old))  # any image, conservatively
    cluster = StaticView.from_objects([old])
    outcome = judge(review_bytes(rollback, old), view=cluster, settings=DEFAULT_SETTINGS, now=NOW)
    assert outcome.response["allowed"] is False and "VS-GARDENER-003" in outcome.rule_ids
    assert not _sent(webhook, _request(rollback, old, groups=("system:masters", BREAK_GLASS_GROUP)))


# ------------------------------------------------------------------------ certificates and mTLS


@pytest.mark.parametrize("overlay", ["garden/static", "seed/static", RUNTIME, VIRTUAL])
def test_static_flavour_sets_the_ca_bundle_of_every_webhook(
    rendered: dict[str, list[Object]], tree: Path, overlay: str
) -> None:
    objects = rendered[overlay]
    ca = (tree / "components/static/certs/ca.crt").read_bytes()
    config = one(objects, "ValidatingWebhookConfiguration")
    assert "annotations" not in config["metadata"]
    for webhook in config["webhooks"]:
        assert "".join(webhook["clientConfig"]["caBundle"].split()) == base64.b64encode(ca).decode()
    if overlay == VIRTUAL:  # the CA alone (from the patch `certs` wrote): the serving pair stays in the runtime cluster
        assert sorted(_secrets(objects)) == ["gardener-webhook-token"]
        return
    secret = _secrets(objects)["gardener-webhook-tls"]
    assert (secret["metadata"]["namespace"], secret["type"]) == (NAMESPACE, "kubernetes.io/tls")
    assert sorted(secret["data"]) == ["ca.crt", "tls.crt", "tls.key"]  # never ca.key
    assert base64.b64decode(secret["data"]["tls.crt"]) == (tree / "components/static/certs/tls.crt").read_bytes()


def _secrets(objects: list[Object]) -> dict[str, Object]:
    return {s["metadata"]["name"]: s for s in by_kind(objects, "Secret")}


@pytest.mark.parametrize("cluster", ["garden", "seed"])
def test_cert_manager_flavour_injects_the_ca_of_the_serving_certificate(
    rendered: dict[str, list[Object]], cluster: str
) -> None:
    objects = rendered[f"{cluster}/cert-manager"]
    config = one(objects, "ValidatingWebhookConfiguration")
    namespace, _, name = config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].partition("/")
    certificates = {c["metadata"]["name"]: c for c in by_kind(objects, "Certificate")}
    serving = certificates[name]
    assert namespace == NAMESPACE and "isCA" not in serving["spec"]
    assert {SERVICE_DNS, SERVICE_DNS + ".cluster.local"} == set(serving["spec"]["dnsNames"])
    volumes = one(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]
    assert serving["spec"]["secretName"] == volumes[0]["secret"]["secretName"]
    assert _issuing_ca(objects, serving)["spec"]["secretName"] == "gardener-webhook-ca"
    for webhook in config["webhooks"]:
        assert "caBundle" not in webhook["clientConfig"]


def _issuing_ca(objects: list[Object], certificate: Object) -> Object:
    """The CA Certificate behind `certificate`: its CA Issuer's Secret, made by a self-signed Issuer."""
    certificates = {c["metadata"]["name"]: c for c in by_kind(objects, "Certificate")}
    issuers = {i["metadata"]["name"]: i for i in by_kind(objects, "Issuer")}
    ca_issuer = issuers[certificate["spec"]["issuerRef"]["name"]]
    ca = next(c for c in certificates.values() if c["spec"]["secretName"] == ca_issuer["spec"]["ca"]["secretName"])
    assert ca["spec"]["isCA"] is True
    assert issuers[ca["spec"]["issuerRef"]["name"]]["spec"] == {"selfSigned": {}}
    return ca


def _serve_args(deployment: Object) -> Any:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return build_parser().parse_args(["serve", *container["args"]])  # the flags exist, with these meanings


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_mtls_is_on_with_the_client_ca_each_flavour_provides(
    rendered: dict[str, list[Object]], tree: Path, overlay: str
) -> None:
    objects = rendered[overlay]
    deployment = one(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    args = _serve_args(deployment)
    assert args.client_cn == [CLIENT_CN]
    mounts = {m["name"]: m for m in pod["containers"][0]["volumeMounts"]}
    volume = next(v for v in pod["volumes"] if v["name"] == "client-ca")
    assert mounts["client-ca"]["readOnly"] is True
    assert volume["secret"]["secretName"] == CLIENT_CA_SECRET
    assert volume["secret"]["items"] == [{"key": "ca.crt", "path": "ca.crt"}]  # never the CA's key
    assert args.client_ca == Path(mounts["client-ca"]["mountPath"]) / "ca.crt"
    if not overlay.endswith("cert-manager"):
        secret = _secrets(objects)[CLIENT_CA_SECRET]
        assert sorted(secret["data"]) == ["ca.crt"]
        operator_file = tree / "components/static/certs/client-ca.crt"
        assert base64.b64decode(secret["data"]["ca.crt"]) == operator_file.read_bytes()
        return
    certificates = {c["metadata"]["name"]: c for c in by_kind(objects, "Certificate")}
    client = certificates["gardener-webhook-client"]["spec"]
    assert client["commonName"] == CLIENT_CN
    assert "client auth" in client["usages"] and "server auth" not in client["usages"]
    client_ca = _issuing_ca(objects, certificates["gardener-webhook-client"])
    assert client_ca["spec"]["secretName"] == CLIENT_CA_SECRET
    serving_ca = _issuing_ca(objects, certificates["gardener-webhook-serving"])
    assert client_ca["metadata"]["name"] != serving_ca["metadata"]["name"]  # neither certificate passes for the other


@pytest.mark.parametrize("cluster", ["garden", "seed"])
def test_the_client_certificate_can_be_applied_before_anything_else(
    rendered: dict[str, list[Object]], cluster: str
) -> None:
    """`kubectl apply -k … -l app.kubernetes.io/component=client-certificate` (docs/operations/certificates.md
    "Security") makes the client certificate, and nothing that would turn mTLS or a webhook on before the API servers
    can present it."""
    objects = rendered[f"{cluster}/cert-manager"]
    first = [
        o for o in objects if o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "client-certificate"
    ]
    assert sorted((o["kind"], o["metadata"]["name"]) for o in first) == [
        ("Certificate", "gardener-webhook-client"), ("Certificate", "gardener-webhook-client-ca"),
        ("Issuer", "gardener-webhook-client-ca"), ("Issuer", "gardener-webhook-selfsigned"),
    ]  # fmt: skip
    client = next(o for o in first if o["metadata"]["name"] == "gardener-webhook-client")
    assert _issuing_ca(first, client)["metadata"]["name"] == "gardener-webhook-client-ca"  # the chain is complete


# ----------------------------------------------------------------------------------- the workload


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_deployment_is_hardened_and_probed(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    deployment = one(objects, "Deployment")
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    assert spec["replicas"] == 2
    assert [c["topologyKey"] for c in pod["topologySpreadConstraints"]] == ["kubernetes.io/hostname"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == 65532
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    security = container["securityContext"]
    assert security == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }
    assert "cpu" in container["resources"]["requests"] and "cpu" not in container["resources"].get("limits", {})
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"https": 9443, "health": 8080}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    for probe in (container["readinessProbe"], container["livenessProbe"]):
        assert 1 < probe["timeoutSeconds"] < probe["periodSeconds"]  # explicit, never the kubelet's 1 s default
    kubeconfig = {"name": "garden-kubeconfig", "mountPath": VIRTUAL_GARDEN_KUBECONFIG.parent, "readOnly": True}
    assert container["volumeMounts"] == [
        {"name": "tls", "mountPath": "/etc/gardener-webhook/tls", "readOnly": True},
        {"name": "client-ca", "mountPath": "/etc/gardener-webhook/client-ca", "readOnly": True},
        {"name": "config", "mountPath": "/etc/gardener-webhook/config", "readOnly": True},
        *([{**kubeconfig, "mountPath": str(kubeconfig["mountPath"])}] if overlay == RUNTIME else []),
    ]
    garden = CLUSTERS[overlay] == "garden"  # the runtime cluster's view takes its clusters from cluster.sources
    expected = ["--in-cluster"] * garden + [
        "--config=/etc/gardener-webhook/config/config.yaml", "--cert-dir=/etc/gardener-webhook/tls", "--client-ca=/etc/gardener-webhook/client-ca/ca.crt",
        f"--client-cn={CLIENT_CN}", "--host=0.0.0.0", "--health-host=0.0.0.0", "--drain-seconds=5",
        "--shutdown-timeout-seconds=10",
    ]  # fmt: skip
    assert container["args"] == expected
    args = _serve_args(deployment)
    assert (str(args.cert_dir), args.host, args.health_host, args.port, args.health_port, args.in_cluster) == (
        "/etc/gardener-webhook/tls",
        "0.0.0.0",
        "0.0.0.0",
        ports["https"],
        ports["health"],
        garden,
    )
    assert pod["serviceAccountName"] == one(objects, "ServiceAccount", "gardener-webhook")["metadata"]["name"]
    # serve's whole shutdown (drain, in-flight wait, final close) ends well before the kubelet's SIGKILL.
    budget = args.drain_seconds + args.shutdown_timeout_seconds + FINAL_CLOSE_SECONDS
    assert pod["terminationGracePeriodSeconds"] == 30 and budget + 10 <= pod["terminationGracePeriodSeconds"]

    labels = spec["template"]["metadata"]["labels"]
    budget_spec = one(objects, "PodDisruptionBudget")["spec"]
    assert budget_spec["maxUnavailable"] == 1 and budget_spec["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    assert _selects(budget_spec["selector"], labels)
    service = one(objects, "Service")["spec"]
    assert _selects({"matchLabels": service["selector"]}, labels)
    assert service["ports"] == [{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}]


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_a_service_account_token_only_where_a_live_view_runs(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    deployment = one(objects, "Deployment")
    args = _serve_args(deployment)
    live = args.in_cluster or args.kubeconfig is not None or bool(_sources(objects))
    assert live == (CLUSTERS[overlay] in LIVE_VIEW)
    assert one(objects, "ServiceAccount", "gardener-webhook")["automountServiceAccountToken"] is False
    assert deployment["spec"]["template"]["spec"]["automountServiceAccountToken"] is live


# --------------------------------------------------------------------------------------------- configuration file

CONFIG_SCHEMA: Final = ROOT / "manifests" / "config.schema.json"
SCHEMA_LINE: Final = "# yaml-language-server: $schema="


def _config(objects: list[Object]) -> tuple[Object, str]:
    """The ConfigMap the Deployment mounts where --config points, and the text of the file --config names."""
    deployment = one(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    config = _serve_args(deployment).config
    mounts = {m["mountPath"]: m for m in pod["containers"][0]["volumeMounts"]}
    mount = mounts[str(config.parent)]
    assert mount["readOnly"] is True
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    config_map = next(c for c in by_kind(objects, "ConfigMap") if c["metadata"]["name"] == volume["configMap"]["name"])
    return config_map, config_map["data"][config.name]


def _loaded(text: str, tmp_path: Path) -> Settings:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return load_settings(path, known_rules=ALL_RULES)


# cluster.sources (the live view's per-kind clusters) arrives with the view that reads it; until the settings model
# (and so manifests/config.schema.json, regenerated by `gardener-webhook config-schema`) has it, the runtime
# cluster's file, which needs it, cannot validate.


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_the_configuration_file_is_a_config_map_the_schema_accepts(
    rendered: dict[str, list[Object]], overlay: str, tmp_path: Path
) -> None:
    """--config names a file of a ConfigMap (hashed name: a change rolls the Pods); it validates against the shipped
    schema, and serve's own loader reads it as the defaults, written out (in the runtime cluster: and the sources)."""
    config_map, text = _config(rendered[overlay])
    assert config_map["metadata"]["name"].startswith("gardener-webhook-config-")
    assert config_map["metadata"]["namespace"] == NAMESPACE
    jsonschema.Draft202012Validator(json.loads(CONFIG_SCHEMA.read_text(encoding="utf-8"))).validate(
        yaml.safe_load(text)
    )
    loaded = _loaded(text, tmp_path)
    if overlay == RUNTIME:
        sources = loaded.cluster.sources
        written = _sources(rendered[overlay])
        assert [(s.name, s.kinds) for s in sources] == [(w["name"], tuple(w["kinds"])) for w in written]
        loaded = loaded.model_copy(update={"cluster": loaded.cluster.model_copy(update={"sources": ()})})
    assert loaded == Settings()


def _sources(objects: list[Object]) -> list[Object]:
    """cluster.sources of the overlay's configuration file, as written."""
    sources: list[Object] = yaml.safe_load(_config(objects)[1]).get("cluster", {}).get("sources", [])
    return sources


def test_every_configuration_file_names_the_shipped_schema_for_editors() -> None:
    files = sorted((ROOT / "manifests").rglob("config.yaml"))
    assert files
    for path in files:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(SCHEMA_LINE), path
        assert (path.parent / first.removeprefix(SCHEMA_LINE)).resolve() == CONFIG_SCHEMA, path


# ------------------------------------------------------------------------------- network policies

WEBHOOK_POD: Final = {"app.kubernetes.io/name": "gardener-webhook"}
# Pods as Gardener labels them (gardener/gardener pkg/component/{gardener,kubernetes}/apiserver GetLabels), and
# prometheus-operator's Prometheus Pods.
GARDENER_APISERVER: Final = {"app": "gardener", "role": "apiserver"}
VIRTUAL_KUBE_APISERVER: Final = {"app": "kubernetes", "role": "apiserver", "gardener.cloud/role": "controlplane"}
CONTROLLER_MANAGER: Final = {"app": "gardener", "role": "controller-manager"}
PROMETHEUS: Final = {"app.kubernetes.io/name": "prometheus", "app.kubernetes.io/managed-by": "prometheus-operator"}
SOMEONE: Final = {"app": "debug"}


def _ns(name: str) -> dict[str, str]:
    return {"kubernetes.io/metadata.name": name}


def _peer_matches(peer: Object, namespace: dict[str, str], pod: dict[str, str], own_namespace: str) -> bool:
    """A NetworkPolicyPeer: namespaceSelector and/or podSelector (ANDed); a podSelector alone means own namespace."""
    assert "ipBlock" not in peer  # the shipped policies name Pods, never addresses
    if "namespaceSelector" in peer:
        if not _selects(peer["namespaceSelector"], namespace):
            return False
    elif namespace["kubernetes.io/metadata.name"] != own_namespace:
        return False
    return _selects(peer.get("podSelector", {}), pod)


def _rule_allows(rule: Object, peers_key: str, port: int, protocol: str, namespace: dict[str, str], pod: dict[str, str],
                 own_namespace: str) -> bool:  # fmt: skip
    ports = rule.get("ports")
    if ports and not any(p.get("port") == port and p.get("protocol", "TCP") == protocol for p in ports):
        return False
    peers = rule.get(peers_key)
    return not peers or any(_peer_matches(peer, namespace, pod, own_namespace) for peer in peers)


def _policies(objects: list[Object], namespace: str, pod: dict[str, str], direction: str) -> list[Object]:
    return [
        p for p in by_kind(objects, "NetworkPolicy")
        if p["metadata"]["namespace"] == namespace and _selects(p["spec"]["podSelector"], pod)
        and direction in p["spec"]["policyTypes"]
    ]  # fmt: skip


def _ingress(objects: list[Object], port: int, namespace: str, pod: dict[str, str]) -> bool:
    """Whether a connection from `pod` in `namespace` to the webhook's `port` is let in (TCP)."""
    policies = _policies(objects, NAMESPACE, WEBHOOK_POD, "Ingress")
    assert policies, "the webhook Pods are isolated for ingress"
    return any(
        _rule_allows(rule, "from", port, "TCP", _ns(namespace), pod, NAMESPACE)
        for p in policies for rule in p["spec"].get("ingress", [])
    )  # fmt: skip


def _egress_rules(objects: list[Object], namespace: str, pod: dict[str, str]) -> list[Object]:
    return [rule for p in _policies(objects, namespace, pod, "Egress") for rule in p["spec"].get("egress", [])]


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_health_and_metrics_port_only_for_prometheus(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    assert _ingress(objects, 8080, "garden", PROMETHEUS) and _ingress(objects, 8080, "monitoring", PROMETHEUS)
    for namespace, pod in (("garden", GARDENER_APISERVER), ("garden", SOMEONE), (NAMESPACE, SOMEONE)):
        assert not _ingress(objects, 8080, namespace, pod), (namespace, pod)
    assert not _ingress(objects, 9090, "garden", PROMETHEUS)


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_webhook_port_from_the_api_servers(rendered: dict[str, list[Object]], overlay: str) -> None:
    """9443 is open to the cluster's kube-apiserver (whose address no policy can name) in one policy of its own;
    without that policy only the API server Pods of namespace garden get in, and only in the garden."""
    objects = rendered[overlay]
    for namespace, pod in (("garden", GARDENER_APISERVER), ("garden", VIRTUAL_KUBE_APISERVER), ("default", SOMEONE)):
        assert _ingress(objects, 9443, namespace, pod)
    open_to_all = [
        p for p in by_kind(objects, "NetworkPolicy") if p["metadata"]["name"] == "gardener-webhook-from-kube-apiserver"
    ]
    assert [p["spec"]["ingress"] for p in open_to_all] == [[{"ports": [{"port": 9443, "protocol": "TCP"}]}]]
    # what docs/operations/certificates.md "Security" tells you to do where you can
    narrowed = [o for o in objects if o not in open_to_all]
    garden = CLUSTERS[overlay] in LIVE_VIEW
    assert _ingress(narrowed, 9443, "garden", GARDENER_APISERVER) is garden
    assert _ingress(narrowed, 9443, "garden", VIRTUAL_KUBE_APISERVER) is garden
    for namespace, pod in (("garden", CONTROLLER_MANAGER), ("garden", PROMETHEUS), ("shoot--dev--a", GARDENER_APISERVER),
                           (NAMESPACE, SOMEONE), ("default", SOMEONE)):  # fmt: skip
        assert not _ingress(narrowed, 9443, namespace, pod), (namespace, pod)


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_egress_only_to_the_api_server_where_a_view_runs(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    assert _policies(objects, NAMESPACE, WEBHOOK_POD, "Egress"), "the webhook Pods are isolated for egress"
    rules = _egress_rules(objects, NAMESPACE, WEBHOOK_POD)
    if CLUSTERS[overlay] not in LIVE_VIEW:
        assert rules == []  # no view, no calls: nothing leaves the Pod
        return
    allowed = sorted((p["protocol"], p["port"]) for rule in rules for p in rule["ports"])
    assert allowed == [("TCP", 53), ("TCP", 443), ("TCP", 6443), ("UDP", 53)]
    assert all("to" not in rule for rule in rules)  # ports only: the API server's address is not known here


@pytest.mark.parametrize("overlay", ["garden/cert-manager", "garden/static", RUNTIME])
def test_the_api_servers_in_garden_may_call_the_webhook(rendered: dict[str, list[Object]], overlay: str) -> None:
    """gardener-operator and gardenlet deny all egress in namespace garden: the API server Pods get a way to 9443."""
    objects = rendered[overlay]
    assert not _egress_rules(objects, "garden", CONTROLLER_MANAGER) and not _egress_rules(objects, "garden", SOMEONE)
    for pod in (GARDENER_APISERVER, VIRTUAL_KUBE_APISERVER):
        (rule,) = _egress_rules(objects, "garden", pod)
        assert _rule_allows(rule, "to", 9443, "TCP", _ns(NAMESPACE), WEBHOOK_POD, "garden")
        assert not _rule_allows(rule, "to", 8080, "TCP", _ns(NAMESPACE), WEBHOOK_POD, "garden")
        assert not _rule_allows(rule, "to", 9443, "TCP", _ns("garden"), WEBHOOK_POD, "garden")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_namespaced_objects_live_in_the_webhook_namespace(rendered: dict[str, list[Object]], overlay: str) -> None:
    cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration"}
    elsewhere = {("Role", "garden"), ("RoleBinding", "garden"), ("Role", "gardener-system-public"),
                 ("RoleBinding", "gardener-system-public"), ("NetworkPolicy", "garden")}  # fmt: skip
    for obj in rendered[overlay]:
        namespace = obj["metadata"].get("namespace")
        if obj["kind"] in cluster_scoped:
            assert namespace is None, obj["kind"]
        elif (obj["kind"], namespace) not in elsewhere:
            assert namespace == NAMESPACE, f"{obj['kind']}/{obj['metadata']['name']}"


# ---------------------------------------------------------------------------------------------- the audit CronJob

AUDIT_ACCOUNT: Final = "gardener-webhook-audit"
AUDITED_OVERLAYS: Final = [overlay for overlay in OVERLAYS if overlay.startswith("garden")]
# What `audit --apply` needs on the reports (webhook/offline/report_apply.py), in every namespace.
REPORT_GRANTS: Final[set[Grant]] = {
    ("*", "wgpolicyk8s.io", plural, (), tuple(sorted(report_apply.VERBS)))
    for plural in ("policyreports", "clusterpolicyreports")
}


def _audit_pod(objects: list[Object]) -> tuple[Object, Object]:
    """The audit CronJob's Job spec and Pod spec."""
    job = one(objects, "CronJob", "gardener-webhook-audit")["spec"]["jobTemplate"]["spec"]
    return job, job["template"]["spec"]


@pytest.mark.parametrize("overlay", AUDITED_OVERLAYS)
def test_the_audit_cronjob_runs_audit_apply_in_cluster(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    schedule = one(objects, "CronJob")["spec"]
    job, pod = _audit_pod(objects)
    (container,) = pod["containers"]
    assert container["command"] == ["gardener-webhook"]  # not the image's ENTRYPOINT, `serve`
    args = build_parser().parse_args(container["args"])
    assert args.func is cmd_audit
    assert (args.in_cluster, args.apply, args.kubeconfig, args.context, args.output) == (True, True, None, [], "text")
    assert job["activeDeadlineSeconds"] > args.sync_timeout
    assert (schedule["concurrencyPolicy"], len(schedule["schedule"].split()), schedule["timeZone"]) == (
        "Forbid",
        5,
        "Etc/UTC",
    )
    (webhook,) = one(objects, "Deployment")["spec"]["template"]["spec"]["containers"]
    assert (container["image"], container["imagePullPolicy"]) == (webhook["image"], webhook["imagePullPolicy"])


@pytest.mark.parametrize("overlay", AUDITED_OVERLAYS)
def test_the_audit_job_ends_on_a_finding_and_retries_a_failed_write(
    rendered: dict[str, list[Object]], overlay: str
) -> None:
    """Exit 1 (something would be denied; the reports are written) and 2 (usage) end the Job at once: a rerun would
    say the same. Exit 3 (the cluster could not be read, or the reports not written) counts against backoffLimit: it is
    retried."""
    job, pod = _audit_pod(rendered[overlay])
    (container,) = pod["containers"]
    assert pod["restartPolicy"] == "Never"  # what podFailurePolicy requires
    assert job["podFailurePolicy"]["rules"] == [
        {
            "action": "FailJob",
            "onExitCodes": {"containerName": container["name"], "operator": "In", "values": [EXIT_DENIED, EXIT_USAGE]},
        }
    ]
    assert EXIT_CLUSTER not in (EXIT_DENIED, EXIT_USAGE) and job["backoffLimit"] >= 1


@pytest.mark.parametrize("overlay", AUDITED_OVERLAYS)
def test_the_audit_pod_is_hardened_like_the_webhooks(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    _, pod = _audit_pod(objects)
    webhook = one(objects, "Deployment")["spec"]["template"]["spec"]
    assert pod["securityContext"] == webhook["securityContext"]
    (container,) = pod["containers"]
    assert container["securityContext"] == webhook["containers"][0]["securityContext"]
    assert "memory" in container["resources"]["limits"] and "cpu" in container["resources"]["requests"]
    assert pod["serviceAccountName"] == AUDIT_ACCOUNT
    assert one(objects, "ServiceAccount", AUDIT_ACCOUNT)["automountServiceAccountToken"] is False
    assert pod["automountServiceAccountToken"] is True  # the audit's live view and --apply talk to the API server


@pytest.mark.parametrize("overlay", AUDITED_OVERLAYS)
def test_the_audit_rbac_is_the_views_reads_and_the_reports(rendered: dict[str, list[Object]], overlay: str) -> None:
    objects = rendered[overlay]
    assert grants(objects, AUDIT_ACCOUNT) == VIEW_GRANTS | REPORT_GRANTS
    assert grants(objects, "gardener-webhook") == VIEW_GRANTS  # the webhook's own account stays read-only


@pytest.mark.parametrize("overlay", AUDITED_OVERLAYS)
def test_audit_pods_are_not_webhook_pods(rendered: dict[str, list[Object]], overlay: str) -> None:
    """The Service, the PodDisruptionBudget and the webhook's own policies never select an audit Pod; its policy lets
    nothing in and only the API server ports and DNS out."""
    objects = rendered[overlay]
    job, _ = _audit_pod(objects)
    labels = job["template"]["metadata"]["labels"]
    assert not _selects({"matchLabels": one(objects, "Service")["spec"]["selector"]}, labels)
    assert not _selects(one(objects, "PodDisruptionBudget")["spec"]["selector"], labels)
    assert not _selects(one(objects, "Deployment")["spec"]["selector"], labels)
    ingress = _policies(objects, NAMESPACE, labels, "Ingress")
    assert [p["metadata"]["name"] for p in ingress] == ["gardener-webhook-audit"]
    assert "ingress" not in ingress[0]["spec"]  # isolated: nothing may connect to it
    rules = _egress_rules(objects, NAMESPACE, labels)
    assert sorted((p["protocol"], p["port"]) for rule in rules for p in rule["ports"]) == [
        ("TCP", 53), ("TCP", 443), ("TCP", 6443), ("UDP", 53),
    ]  # fmt: skip
    assert all("to" not in rule for rule in rules)


def test_an_overlays_image_reaches_the_audit_too(tree: Path) -> None:
    """docs/operations/deploy.md step 1: one `images:` entry in the overlay points both workloads at the image."""
    if KUBECTL is None:
        pytest.skip(NO_KUBECTL)
    overlay = tree / "overlays/garden/registry"
    overlay.mkdir(exist_ok=True)
    image = {"name": "gardener-webhook", "newName": "registry.example.com/gardener-webhook", "newTag": "0.2.0"}
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                     "resources": ["../cert-manager"], "images": [image]}  # fmt: skip
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(kustomization), encoding="utf-8")
    objects = kustomize(KUBECTL, overlay)
    _, pod = _audit_pod(objects)
    webhook = one(objects, "Deployment")["spec"]["template"]["spec"]
    images = {c["image"] for c in pod["containers"] + webhook["containers"]}
    assert images == {"registry.example.com/gardener-webhook:0.2.0"}


@pytest.mark.parametrize("overlay", ["seed/cert-manager", "seed/static"])
def test_the_seed_runs_no_audit(rendered: dict[str, list[Object]], overlay: str) -> None:
    assert by_kind(rendered[overlay], "CronJob") == []


# ------------------------------------------------------------------------------ a landscape with a virtual garden


def _without_client_config(webhook: Object) -> Object:
    return {key: value for key, value in webhook.items() if key != "clientConfig"}


def test_the_virtual_garden_split_keeps_every_webhook_as_the_garden_has_it(rendered: dict[str, list[Object]]) -> None:
    """The runtime cluster and the virtual garden together register the garden's webhooks, unchanged but for where
    the virtual garden's point to (a URL, checked above)."""
    garden = _webhooks(rendered["garden/static"])
    runtime, virtual = _webhooks(rendered[RUNTIME]), _webhooks(rendered[VIRTUAL])
    assert sorted([*runtime, *virtual]) == sorted(garden) and not set(runtime) & set(virtual)
    assert runtime == {"deployments": garden["deployments"]}
    for resource, webhook in virtual.items():
        assert _without_client_config(webhook) == _without_client_config(garden[resource]), resource


def test_each_cluster_grants_exactly_what_the_view_reads_there(rendered: dict[str, list[Object]]) -> None:
    """cluster.sources names every kind of the view once; each cluster's RBAC is list and watch of its kinds."""
    sources = {("in-cluster" if s.get("inCluster") else "kubeconfig"): s["kinds"] for s in _sources(rendered[RUNTIME])}
    assert sorted(sources) == ["in-cluster", "kubeconfig"]
    assert sorted(kind for kinds in sources.values() for kind in kinds) == sorted(VIEW_READS)
    assert _granted(rendered[RUNTIME]) == {VIEW_READS[kind] for kind in sources["in-cluster"]}
    assert _granted(rendered[VIRTUAL]) == {VIEW_READS[kind] for kind in sources["kubeconfig"]}


def test_the_view_reads_the_virtual_garden_through_the_mounted_kubeconfig(rendered: dict[str, list[Object]]) -> None:
    objects = rendered[RUNTIME]
    (source,) = [s for s in _sources(objects) if "kubeconfig" in s]
    assert Path(source["kubeconfig"]) == VIRTUAL_GARDEN_KUBECONFIG and "context" not in source
    pod = one(objects, "Deployment")["spec"]["template"]["spec"]
    (mount,) = [
        m for m in pod["containers"][0]["volumeMounts"] if m["mountPath"] == str(VIRTUAL_GARDEN_KUBECONFIG.parent)
    ]
    (volume,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert mount["readOnly"] is True
    # made by the operator (docs/operations/virtual-garden.md)
    assert volume["secret"]["secretName"] == "gardener-webhook-virtual-garden"
    assert volume["secret"]["items"] == [{"key": "kubeconfig", "path": VIRTUAL_GARDEN_KUBECONFIG.name}]
    assert "gardener-webhook-virtual-garden" not in _secrets(objects)  # it holds a token: never in the tree
    args = _serve_args(one(objects, "Deployment"))
    assert not args.in_cluster and args.kubeconfig is None  # every kind comes from a source: no flag decides
    assert pod["automountServiceAccountToken"] is True  # the runtime source is the Pods' own ServiceAccount


def test_the_virtual_garden_holds_the_views_account_and_its_token(rendered: dict[str, list[Object]]) -> None:
    objects = rendered[VIRTUAL]
    account = one(objects, "ServiceAccount")
    assert (account["metadata"]["name"], account["metadata"]["namespace"]) == ("gardener-webhook", NAMESPACE)
    assert account["automountServiceAccountToken"] is False
    assert one(objects, "Namespace")["metadata"]["name"] == NAMESPACE
    token = _secrets(objects)["gardener-webhook-token"]
    assert token["type"] == "kubernetes.io/service-account-token" and "data" not in token  # the API server fills it
    assert token["metadata"]["annotations"] == {"kubernetes.io/service-account.name": "gardener-webhook"}
    assert token["metadata"]["namespace"] == NAMESPACE


def test_the_views_account_can_be_applied_before_the_webhooks(rendered: dict[str, list[Object]]) -> None:
    """`kubectl apply -k …/virtual -l app.kubernetes.io/component=cluster-view` (docs/operations/virtual-garden.md
    "Deploy with a virtual garden, by hand")
    makes the account the runtime cluster's kubeconfig needs, and nothing that would call the webhook before it runs."""
    objects = rendered[VIRTUAL]
    first = [o for o in objects if o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "cluster-view"]
    assert [o for o in objects if o not in first] == [one(objects, "ValidatingWebhookConfiguration")]


# gardener/gardener docs/operations/network_policies.md ("Webhook Servers", a server in its own namespace; "Egress
# Traffic" to the virtual garden's kube-apiserver) and docs/development/priority-classes.md (garden runtime cluster).
WEBHOOK_TARGET_ANNOTATIONS: Final = {
    "networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports": [{"port": 9443, "protocol": "TCP"}],
    "networking.resources.gardener.cloud/namespace-selectors": [
        {"matchLabels": {"kubernetes.io/metadata.name": "garden"}}
    ],
    "networking.resources.gardener.cloud/pod-label-selector-namespace-alias": "extensions",
}
RUNTIME_POD_LABELS: Final = {
    "networking.gardener.cloud/to-dns": "allowed",
    "networking.gardener.cloud/to-runtime-apiserver": "allowed",
    "networking.resources.gardener.cloud/to-garden-virtual-garden-kube-apiserver-tcp-443": "allowed",
}


def test_the_runtime_cluster_follows_gardeners_conventions(rendered: dict[str, list[Object]]) -> None:
    objects = rendered[RUNTIME]
    service = one(objects, "Service")
    annotations = service["metadata"]["annotations"]
    decoded = {key: value if key.endswith("alias") else json.loads(value) for key, value in annotations.items()}
    assert decoded == WEBHOOK_TARGET_ANNOTATIONS
    deployment = one(objects, "Deployment")
    pod = deployment["spec"]["template"]
    (port,) = WEBHOOK_TARGET_ANNOTATIONS["networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports"]
    assert {p["name"]: p["containerPort"] for p in pod["spec"]["containers"][0]["ports"]}["https"] == port["port"]
    assert pod["metadata"]["labels"] == {"app.kubernetes.io/name": "gardener-webhook", **RUNTIME_POD_LABELS}
    assert _selects(deployment["spec"]["selector"], pod["metadata"]["labels"])
    namespace = one(objects, "Namespace")["metadata"]["labels"]
    assert namespace["networking.gardener.cloud/access-target-apiserver"] == "allowed"


# Where Gardener guarantees PriorityClasses (docs/development/priority-classes.md): gardenlet keeps gardener-system-*
# in every seed (900: extensions), gardener-operator gardener-garden-system-* in the runtime cluster (400:
# gardener-admission-controller, extension admission controllers). A garden without gardener-operator may have none.
PRIORITY_CLASSES: Final = {"garden": None, "seed": "gardener-system-900", "runtime": "gardener-garden-system-400"}


@pytest.mark.parametrize("overlay", WORKLOADS)
def test_a_priority_class_where_gardener_keeps_one(rendered: dict[str, list[Object]], overlay: str) -> None:
    pod = one(rendered[overlay], "Deployment")["spec"]["template"]["spec"]
    assert pod.get("priorityClassName") == PRIORITY_CLASSES[CLUSTERS[overlay]]
