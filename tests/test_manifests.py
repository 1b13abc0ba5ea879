"""manifests/: every overlay rendered with `kubectl kustomize` and checked against the Kubernetes schemas.

Built-in kinds are validated strictly (unknown fields are errors) by kubernetes-validate, which bundles the
OpenAPI schemas and works offline; cert-manager's Certificate and Issuer have no built-in schema and are
checked structurally. Then the contracts of issue 6: RBAC exactly as the cluster view needs it, one webhook
per resource kind with the same safe settings, namespaceSelectors that never match kube-system or the
webhook's namespace, the Deployment's hardening, and both certificate flavours wired end to end (the static
flavour after running `gardener-webhook certs` into a copy of the tree).
"""

from __future__ import annotations

import base64
import io
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from webhook.certs import WEBHOOK_NAMES
from webhook.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
KUBERNETES_VERSION = "1.31"  # oldest version with every field used (unhealthyPodEvictionPolicy is GA in 1.31)
NAMESPACE = "gardener-webhook"
SERVICE_DNS = f"gardener-webhook.{NAMESPACE}.svc"
OVERLAYS = [f"{cluster}/{flavour}" for cluster in ("garden", "seed") for flavour in ("cert-manager", "static")]
CERT_MANAGER = "cert-manager.io/v1"
KUBECTL = shutil.which("kubectl")

Object = dict[str, Any]


def by_kind(objects: list[Object], kind: str) -> list[Object]:
    return [o for o in objects if o["kind"] == kind]


def one(objects: list[Object], kind: str) -> Object:
    found = by_kind(objects, kind)
    assert len(found) == 1, f"{len(found)} objects of kind {kind}"
    return found[0]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of manifests/ with the static flavour's certificates made by `gardener-webhook certs`."""
    copy = tmp_path_factory.mktemp("manifests") / "manifests"
    shutil.copytree(ROOT / "manifests", copy, ignore=shutil.ignore_patterns("certs"))
    out = io.StringIO()
    assert main(["certs", "--dns", SERVICE_DNS, "--out", str(copy / "components/static/certs")], out=out) == 0
    return copy


@pytest.fixture(scope="module")
def rendered(tree: Path) -> dict[str, list[Object]]:
    if KUBECTL is None:
        pytest.skip("SKIPPED: kubectl is not installed, so the kustomize overlays cannot be rendered and checked")
    result: dict[str, list[Object]] = {}
    for overlay in OVERLAYS:
        done = subprocess.run(
            [KUBECTL, "kustomize", str(tree / "overlays" / overlay)], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, f"kubectl kustomize overlays/{overlay}: {done.stderr}"
        result[overlay] = [doc for doc in yaml.safe_load_all(done.stdout) if doc]
    return result


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
        assert set(spec) <= {"secretName", "issuerRef", "dnsNames", "duration", "renewBefore", "usages", "privateKey", "isCA", "commonName"}
        assert set(spec["issuerRef"]) == {"kind", "name"} and spec["issuerRef"]["kind"] == "Issuer"
        assert spec["privateKey"]["algorithm"] == "ECDSA"
        assert spec["privateKey"]["rotationPolicy"] in ("Always", "Never")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_kinds_of_each_overlay(rendered: dict[str, list[Object]], overlay: str) -> None:
    kinds = sorted(o["kind"] for o in rendered[overlay])
    base = ["Deployment", "Namespace", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount", "ValidatingWebhookConfiguration"]
    rbac = ["ClusterRole", "ClusterRoleBinding", "Role", "Role", "RoleBinding", "RoleBinding"] if overlay.startswith("garden") else []
    certs = ["Certificate", "Certificate", "Issuer", "Issuer"] if overlay.endswith("cert-manager") else ["Secret"]
    assert kinds == sorted(base + rbac + certs)


# ---------------------------------------------------------------------------------------------- RBAC


def test_garden_rbac_is_exactly_list_and_watch_of_what_the_view_reads(rendered: dict[str, list[Object]]) -> None:
    objects = rendered["garden/cert-manager"]
    granted = set()
    for role in by_kind(objects, "ClusterRole") + by_kind(objects, "Role"):
        scope = role["metadata"].get("namespace", "*")
        for rule in role["rules"]:
            assert set(rule) <= {"apiGroups", "resources", "verbs", "resourceNames"}
            assert sorted(rule["verbs"]) == ["list", "watch"]
            for group in rule["apiGroups"]:
                for resource in rule["resources"]:
                    granted.add((scope, group, resource, tuple(rule.get("resourceNames", ()))))
    assert granted == {
        ("*", "core.gardener.cloud", "cloudprofiles", ()),
        ("*", "core.gardener.cloud", "namespacedcloudprofiles", ()),
        ("*", "core.gardener.cloud", "shoots", ()),
        ("*", "core.gardener.cloud", "seeds", ()),
        ("garden", "apps", "deployments", ()),
        ("gardener-system-public", "", "configmaps", ("gardener-info",)),
    }
    roles = {(r["kind"], r["metadata"].get("namespace", "")) for r in by_kind(objects, "ClusterRole") + by_kind(objects, "Role")}
    for binding in by_kind(objects, "ClusterRoleBinding") + by_kind(objects, "RoleBinding"):
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "gardener-webhook", "namespace": NAMESPACE}]
        ref = binding["roleRef"]
        assert (ref["kind"], binding["metadata"].get("namespace", "")) in roles


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
    cluster = overlay.split("/")[0]
    assert [w["name"] for w in config["webhooks"]] == list(WEBHOOK_NAMES[cluster])  # the patch of `certs` agrees
    service = one(objects, "Service")
    for webhook in config["webhooks"]:
        name = webhook["name"]
        assert webhook["admissionReviewVersions"] == ["v1"], name
        assert (webhook["sideEffects"], webhook["failurePolicy"], webhook["timeoutSeconds"]) == ("None", "Fail", 10), name
        assert webhook["matchPolicy"] == "Equivalent", name
        assert webhook["clientConfig"]["service"] == {
            "namespace": service["metadata"]["namespace"], "name": service["metadata"]["name"],
            "path": "/validate", "port": service["spec"]["ports"][0]["port"],
        }, name  # fmt: skip
        resource = name.split(".")[0]
        group, version, operations, scope = EXPECTED_RULES[resource]
        assert webhook["rules"] == [
            {"apiGroups": [group], "apiVersions": [version], "resources": [resource], "operations": operations, "scope": scope}
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


@pytest.mark.parametrize("cluster", ["garden", "seed"])
def test_static_flavour_sets_the_ca_bundle_of_every_webhook(rendered: dict[str, list[Object]], tree: Path, cluster: str) -> None:
    objects = rendered[f"{cluster}/static"]
    ca = (tree / "components/static/certs/ca.crt").read_bytes()
    config = one(objects, "ValidatingWebhookConfiguration")
    assert "annotations" not in config["metadata"]
    for webhook in config["webhooks"]:
        assert "".join(webhook["clientConfig"]["caBundle"].split()) == base64.b64encode(ca).decode()
    secret = one(objects, "Secret")
    assert (secret["metadata"]["name"], secret["metadata"]["namespace"], secret["type"]) == (
        "gardener-webhook-tls", NAMESPACE, "kubernetes.io/tls"
    )
    assert sorted(secret["data"]) == ["ca.crt", "tls.crt", "tls.key"]  # never ca.key
    assert base64.b64decode(secret["data"]["tls.crt"]) == (tree / "components/static/certs/tls.crt").read_bytes()


@pytest.mark.parametrize("cluster", ["garden", "seed"])
def test_cert_manager_flavour_injects_the_ca_of_the_serving_certificate(rendered: dict[str, list[Object]], cluster: str) -> None:
    objects = rendered[f"{cluster}/cert-manager"]
    config = one(objects, "ValidatingWebhookConfiguration")
    namespace, _, name = config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"].partition("/")
    certificates = {c["metadata"]["name"]: c for c in by_kind(objects, "Certificate")}
    issuers = {i["metadata"]["name"]: i for i in by_kind(objects, "Issuer")}
    serving = certificates[name]
    assert namespace == NAMESPACE and "isCA" not in serving["spec"]
    assert {SERVICE_DNS, SERVICE_DNS + ".cluster.local"} == set(serving["spec"]["dnsNames"])
    volumes = one(objects, "Deployment")["spec"]["template"]["spec"]["volumes"]
    assert serving["spec"]["secretName"] == volumes[0]["secret"]["secretName"]
    ca_issuer = issuers[serving["spec"]["issuerRef"]["name"]]  # serving ← CA issuer ← CA certificate ← self-signed
    ca_certificate = next(c for c in certificates.values() if c["spec"]["secretName"] == ca_issuer["spec"]["ca"]["secretName"])
    assert ca_certificate["spec"]["isCA"] is True
    assert issuers[ca_certificate["spec"]["issuerRef"]["name"]]["spec"] == {"selfSigned": {}}
    for webhook in config["webhooks"]:
        assert "caBundle" not in webhook["clientConfig"]


# ----------------------------------------------------------------------------------- the workload


@pytest.mark.parametrize("overlay", OVERLAYS)
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
    assert security == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]}}
    assert "cpu" in container["resources"]["requests"] and "cpu" not in container["resources"].get("limits", {})
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"https": 9443, "health": 8080}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    assert container["volumeMounts"] == [{"name": "tls", "mountPath": "/etc/gardener-webhook/tls", "readOnly": True}]
    garden = overlay.startswith("garden")
    expected = ["--in-cluster"] * garden + ["--cert-dir=/etc/gardener-webhook/tls", "--host=0.0.0.0", "--health-host=0.0.0.0"]
    assert container["args"] == expected
    args = build_parser().parse_args(["serve", *container["args"]])  # the flags exist, with these meanings
    assert (str(args.cert_dir), args.host, args.health_host, args.port, args.health_port, args.in_cluster) == (
        "/etc/gardener-webhook/tls", "0.0.0.0", "0.0.0.0", ports["https"], ports["health"], garden
    )
    assert pod["serviceAccountName"] == one(objects, "ServiceAccount")["metadata"]["name"]
    drain_and_shutdown = 5 + 15  # serve's --drain-seconds and --shutdown-timeout-seconds defaults
    assert pod["terminationGracePeriodSeconds"] > drain_and_shutdown

    labels = spec["template"]["metadata"]["labels"]
    budget = one(objects, "PodDisruptionBudget")["spec"]
    assert budget["maxUnavailable"] == 1 and budget["unhealthyPodEvictionPolicy"] == "AlwaysAllow"
    assert _selects(budget["selector"], labels)
    service = one(objects, "Service")["spec"]
    assert _selects({"matchLabels": service["selector"]}, labels)
    assert service["ports"] == [{"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}]
    policy = one(objects, "NetworkPolicy")["spec"]
    assert _selects(policy["podSelector"], labels)
    assert policy["policyTypes"] == ["Ingress"]
    assert policy["ingress"] == [{"ports": [{"port": ports["https"], "protocol": "TCP"}]}]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_namespaced_objects_live_in_the_webhook_namespace(rendered: dict[str, list[Object]], overlay: str) -> None:
    cluster_scoped = {"Namespace", "ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration"}
    elsewhere = {("Role", "garden"), ("RoleBinding", "garden"), ("Role", "gardener-system-public"), ("RoleBinding", "gardener-system-public")}
    for obj in rendered[overlay]:
        namespace = obj["metadata"].get("namespace")
        if obj["kind"] in cluster_scoped:
            assert namespace is None, obj["kind"]
        elif (obj["kind"], namespace) not in elsewhere:
            assert namespace == NAMESPACE, f"{obj['kind']}/{obj['metadata']['name']}"
