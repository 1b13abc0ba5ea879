"""The Helm charts of charts/: kustomize overlays turned into charts, generated, so the two ways cannot drift.

gardener-operator installs what an `Extension` names from OCI Helm charts (docs/operations/virtual-garden.md "Deploy
with gardener-operator"):
- charts/gardener-webhook-runtime, from `kubectl kustomize manifests/overlays/virtual-garden/runtime`: the Pods, the
  Service, the Deployments' webhook and the RBAC of the runtime cluster, rendered by gardener-operator into the
  runtime cluster's namespace `garden` (`.Release.Namespace`), with the generic token kubeconfig of the virtual
  garden injected into every Deployment (gardener/gardener pkg/utils/gardener/garden.go
  InjectGenericGardenKubeconfig: GARDEN_KUBECONFIG and a volume at /var/run/secrets/gardener.cloud/shoot/
  generic-kubeconfig, the path components/runtime/config.yaml reads, so the overlay's own volume is dropped);
- charts/gardener-webhook-application, from `kubectl kustomize manifests/overlays/virtual-garden/virtual`: the
  webhooks of the Gardener API kinds and the live view's RBAC, rendered into the virtual garden, bound to the
  ServiceAccount gardener-operator gives the extension there (`gardener.virtualCluster.serviceAccount`);
- charts/gardener-webhook-seed, from `kubectl kustomize manifests/overlays/seed/static`: what gardenlet installs in
  every seed.
The per-landscape parts become values: the certificates (the static flavour's files), the image, the replicas,
resources, topology spread and priority class of the Deployment, the Service's port, the configuration file (whose
ConfigMap takes a fixed name; a `checksum/config` annotation rolls the Pods when it changes, as the kustomize name
hash does). `python -m tests.charts --write` rewrites each chart's templates/gardener-webhook.yaml and values.yaml;
Chart.yaml and any other template (the runtime chart's vpa.yaml: a VerticalPodAutoscaler has no place in the
overlays, which also serve clusters without VPA) are written by hand. tests/test_charts.py fails while the generated
files are stale.

The generated templates use one construct, `{{ [required "<message>"] .Values.<path>|.Release.Namespace
[| <function>]… }}` with the Helm (sprig) functions b64enc, quote, toJson and sha256sum. `render_chart` renders
exactly that construct and refuses any other, so `make test` renders them without a helm binary; the e2e tier
renders every chart with the pinned helm and checks that both agree (tests/e2e/test_charts.py).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

from tests.manifest_tree import CA_BUNDLE_PATCH, GENERATED, ROOT, STATIC_CERTS, kustomize
from tests.pods import pod_template

Object = dict[str, Any]
CHARTS: Final = ROOT / "charts"
TEMPLATE: Final = Path("templates") / "gardener-webhook.yaml"
VALUES: Final = Path("values.yaml")
CONFIG_MAP: Final = "gardener-webhook-config"
NAMESPACE: Final = "gardener-webhook"  # the overlays' namespace; the admission charts use the release's
RUNTIME_NAMESPACE: Final = "garden"  # where gardener-operator renders the runtime chart (v1beta1constants)
GENERIC_KUBECONFIG_VOLUME: Final = "garden-kubeconfig"
# The ServiceAccount gardener-operator makes for an Extension named gardener-webhook in the virtual garden
# (pkg/operator/controller/extension/extension/admission/admission.go: extension-admission-<name>, kube-system).
VIRTUAL_SERVICE_ACCOUNT: Final = {"name": "extension-admission-gardener-webhook", "namespace": "kube-system"}

# What the overlay's static certificate files become: each file's value and the expression that renders it.
CERTIFICATE_VALUES: Final = {
    "tls.crt": ("tls.crt", "the serving certificate (PEM)"),
    "tls.key": ("tls.key", "the serving certificate's private key (PEM)"),
    "ca.crt": ("tls.ca", "the CA of the serving certificate (PEM), the webhooks' caBundle"),
    "client-ca.crt": ("clientCA", "the CA bundle of the client certificate the API servers present (PEM)"),
}


def _go_json(value: Any) -> str:
    """Go's encoding/json as sprig's toJson calls it: sorted keys, no spaces, <, > and & escaped."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _text(value: Any) -> str:
    """A value as Go's text/template prints it (for the scalars the charts print)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_FUNCTIONS: Final[Mapping[str, Callable[[Any], str]]] = {
    "b64enc": lambda value: base64.b64encode(_text(value).encode()).decode(),
    "quote": lambda value: json.dumps(_text(value)),  # sprig: Go's %q; the same for the ASCII strings rendered here
    "toJson": _go_json,
    "sha256sum": lambda value: hashlib.sha256(_text(value).encode()).hexdigest(),
}
_EXPRESSION: Final = re.compile(
    r'\{\{ (?:required "(?P<message>[^"]*)" )?(?:\.Values\.(?P<path>[A-Za-z][A-Za-z.]*)|\.Release\.(?P<release>Namespace))'
    r"(?P<functions>(?: \| \w+)*) \}\}"
)
_SENTINEL: Final = re.compile(r"'@@template-(\d+)@@'|@@template-(\d+)@@")  # a whole quoted scalar, or inside one


class ChartError(Exception):
    """A template construct render_chart does not know, a required value missing, or an overlay the generator no
    longer recognises (a certificate file or an object that reaches no manifest)."""


def render_chart(template: str, values: Mapping[str, Any], namespace: str = NAMESPACE) -> list[Object]:
    """The objects the template renders to with `values` in release namespace `namespace`, as Helm would (for the
    one construct the generated templates use).

    Raises ChartError for any other `{{ … }}` and for a `required` value that is empty, as `helm template` fails.
    """

    def expand(match: re.Match[str]) -> str:
        value: Any = values if match["path"] else namespace
        for key in match["path"].split(".") if match["path"] else ():
            value = value.get(key) if isinstance(value, Mapping) else None
        if match["message"] is not None and not value:
            raise ChartError(f"required value .Values.{match['path']}: {match['message']}")
        functions = [name.strip() for name in match["functions"].split("|")[1:]]
        for name in functions:
            if name not in _FUNCTIONS:
                raise ChartError(f"unknown function {name!r}")
            value = _FUNCTIONS[name](value)
        return _text(value)

    left = _EXPRESSION.sub("", template)
    if "{{" in left:  # a lone "}}" is text to Go templates too
        raise ChartError(f"a template construct render_chart does not know: {left[left.find('{{') :][:80]!r}")
    rendered = _EXPRESSION.sub(expand, template)
    return [doc for doc in yaml.safe_load_all(rendered) if doc]


def merge_values(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> Object:
    """Helm's merge of user values over a chart's values.yaml (maps merge key by key, everything else replaces)."""
    merged = copy.deepcopy(dict(defaults))
    for key, value in overrides.items():
        both_maps = isinstance(value, Mapping) and isinstance(merged.get(key), Mapping)
        merged[key] = merge_values(merged[key], value) if both_maps else copy.deepcopy(value)
    return merged


def comparable(objects: list[Object]) -> list[Object]:
    """`objects` sorted by kind, namespace and name (helm orders by kind, kustomize by its own rules), with the
    configuration's ConfigMap under its chart name (kustomize adds a hash of the content, the chart a checksum
    annotation on the Pods instead; both roll the Pods when the file changes), and base64 without the line breaks
    kustomize puts into long values (decoders skip them)."""
    result = copy.deepcopy(objects)
    for obj in result:
        if obj["kind"] == "Secret":
            obj["data"] = {key: "".join(value.split()) for key, value in obj.get("data", {}).items()}
        for webhook in obj.get("webhooks", []):
            webhook["clientConfig"]["caBundle"] = "".join(webhook["clientConfig"]["caBundle"].split())
        if obj["kind"] == "ConfigMap" and obj["metadata"]["name"].startswith(CONFIG_MAP):
            obj["metadata"]["name"] = CONFIG_MAP
        if obj["kind"] == "Deployment":
            pod = obj["spec"]["template"]
            pod["metadata"].get("annotations", {}).pop("checksum/config", None)
            if not pod["metadata"].get("annotations", True):
                del pod["metadata"]["annotations"]
            for volume in pod["spec"]["volumes"]:
                if volume.get("configMap", {}).get("name", "").startswith(CONFIG_MAP):
                    volume["configMap"]["name"] = CONFIG_MAP
    return sorted(result, key=lambda o: (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]))


class _Templates:
    """Expressions to place in the dumped YAML: `mark(expression)` returns a sentinel string that stands for it."""

    def __init__(self) -> None:
        self.expressions: list[str] = []

    def mark(self, expression: str) -> str:
        self.expressions.append(expression)
        return f"@@template-{len(self.expressions) - 1}@@"

    def place(self, dumped: str) -> str:
        return _SENTINEL.sub(lambda m: self.expressions[int(m[1] or m[2])], dumped)


def _only(objects: list[Object], kind: str, name: str | None = None) -> Object:
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    if len(found) != 1:
        raise ChartError(f"the overlay renders {len(found)} {kind} {name or ''}, the generator expects one")
    return found[0]


def _drop(objects: list[Object], kind: str, name: str, namespace: str | None = None) -> list[Object]:
    kept = [
        o
        for o in objects
        if not (o["kind"] == kind and o["metadata"]["name"] == name and o["metadata"].get("namespace") == namespace)
    ]
    if len(kept) != len(objects) - 1:
        raise ChartError(f"the overlay no longer renders {kind} {namespace}/{name}")
    return kept


def _configuration(objects: list[Object], t: _Templates) -> str:
    """Give the configuration's ConfigMap its fixed name and the file from `.Values.config`; return the file."""
    config_map = _only(objects, "ConfigMap")
    deployment = _only(objects, "Deployment")
    hashed, config = config_map["metadata"]["name"], config_map["data"]["config.yaml"]
    config_map["metadata"]["name"] = CONFIG_MAP
    config_map["data"]["config.yaml"] = t.mark("{{ .Values.config | toJson }}")
    pod = deployment["spec"]["template"]
    (volume,) = [v for v in pod["spec"]["volumes"] if v.get("configMap", {}).get("name") == hashed]
    volume["configMap"]["name"] = CONFIG_MAP
    pod["metadata"].setdefault("annotations", {})["checksum/config"] = t.mark(
        "{{ .Values.config | sha256sum | quote }}"
    )
    return str(config)


def _image(objects: list[Object], t: _Templates) -> str:
    (container,) = _only(objects, "Deployment")["spec"]["template"]["spec"]["containers"]
    image: str = container["image"]
    container["image"] = t.mark('{{ required "the webhook\'s image" .Values.image | quote }}')
    return image


def _release_namespace(objects: list[Object], t: _Templates) -> None:
    """Every reference to the overlay's namespace becomes the release's: metadata, subjects, the Service the
    webhooks call, the own-ServiceAccount matchCondition."""
    ns = t.mark("{{ .Release.Namespace }}")
    for obj in objects:
        if obj["metadata"].get("namespace") == NAMESPACE:
            obj["metadata"]["namespace"] = ns
        for subject in obj.get("subjects", []):
            if subject.get("namespace") == NAMESPACE:
                subject["namespace"] = ns
        for webhook in obj.get("webhooks", []):
            service = webhook["clientConfig"].get("service")
            if service and service["namespace"] == NAMESPACE:
                service["namespace"] = ns
            for condition in webhook.get("matchConditions", []):
                own = f"system:serviceaccount:{NAMESPACE}:"
                condition["expression"] = condition["expression"].replace(own, f"system:serviceaccount:{ns}:")


def _service_port(objects: list[Object], t: _Templates) -> None:
    port = t.mark("{{ .Values.service.port }}")
    service = _only(objects, "Service", "gardener-webhook")
    (https,) = [p for p in service["spec"]["ports"] if p["name"] == "https"]
    https["port"] = port
    for webhook in _only(objects, "ValidatingWebhookConfiguration")["webhooks"]:
        webhook["clientConfig"]["service"]["port"] = port


def _deployment_values(objects: list[Object], t: _Templates) -> Object:
    """replicas, resources, topologySpreadConstraints and priorityClassName from values; returns the overlay's."""
    deployment = _only(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    found = {
        "replicas": deployment["spec"]["replicas"],
        "resources": container["resources"],
        "topologySpreadConstraints": pod["topologySpreadConstraints"],
    }
    deployment["spec"]["replicas"] = t.mark("{{ .Values.replicas }}")
    container["resources"] = t.mark("{{ .Values.resources | toJson }}")
    pod["topologySpreadConstraints"] = t.mark("{{ .Values.topologySpreadConstraints | toJson }}")
    if pod.get("priorityClassName") != "gardener-garden-system-400":
        raise ChartError("the runtime overlay no longer sets priorityClassName gardener-garden-system-400")
    pod["priorityClassName"] = t.mark(
        '{{ required "the priority class (gardener-operator sets it)" .Values.gardener.runtimeCluster.priorityClassName'
        " | quote }}"
    )
    return found


def _without_own_kubeconfig(objects: list[Object]) -> None:
    """Drop the overlay's virtual-garden kubeconfig volume: gardener-operator injects its own at the same path."""
    pod = _only(objects, "Deployment")["spec"]["template"]["spec"]
    before = len(pod["volumes"])
    pod["volumes"] = [v for v in pod["volumes"] if v["name"] != GENERIC_KUBECONFIG_VOLUME]
    (container,) = pod["containers"]
    container["volumeMounts"] = [m for m in container["volumeMounts"] if m["name"] != GENERIC_KUBECONFIG_VOLUME]
    if len(pod["volumes"]) != before - 1:
        raise ChartError(f"the runtime overlay no longer mounts the volume {GENERIC_KUBECONFIG_VOLUME}")


def _virtual_service_account(objects: list[Object], t: _Templates) -> None:
    """The RBAC and the own-ServiceAccount matchCondition name gardener-operator's ServiceAccount."""
    name = t.mark(
        '{{ required "the live view\'s ServiceAccount (gardener-operator sets it)"'
        " .Values.gardener.virtualCluster.serviceAccount.name }}"
    )
    namespace = t.mark(
        '{{ required "the namespace of that ServiceAccount" .Values.gardener.virtualCluster.serviceAccount.namespace }}'
    )
    account = "system:serviceaccount:{}:{}".format(
        t.mark("{{ .Values.gardener.virtualCluster.serviceAccount.namespace }}"),
        t.mark("{{ .Values.gardener.virtualCluster.serviceAccount.name }}"),
    )
    for obj in objects:
        for subject in obj.get("subjects", []):
            subject.update(name=name, namespace=namespace)
        for webhook in obj.get("webhooks", []):
            for condition in webhook.get("matchConditions", []):
                own = f"system:serviceaccount:{NAMESPACE}:gardener-webhook"
                condition["expression"] = condition["expression"].replace(own, account)


def _runtime_url(objects: list[Object], t: _Templates) -> None:
    """The virtual garden's webhooks call the runtime chart's Service, in namespace garden of the runtime cluster,
    where gardener-apiserver runs (the overlay's URL names the overlay's namespace)."""
    port = t.mark("{{ .Values.service.port }}")
    for webhook in _only(objects, "ValidatingWebhookConfiguration")["webhooks"]:
        overlay_url = f"https://gardener-webhook.{NAMESPACE}.svc/validate"
        if webhook["clientConfig"].get("url") != overlay_url:
            raise ChartError(f"webhook {webhook['name']} no longer calls {overlay_url}")
        webhook["clientConfig"]["url"] = f"https://gardener-webhook.{RUNTIME_NAMESPACE}.svc:{port}/validate"


@dataclass(frozen=True)
class Chart:
    """One generated chart: `name` under charts/, from manifests/overlays/`overlay`; `edit` turns the rendered
    objects into the template's and returns the values the overlay had (for values.yaml)."""

    name: str
    overlay: str
    edit: Callable[[list[Object], _Templates], tuple[list[Object], Object]]
    values_intro: str

    @property
    def path(self) -> Path:
        return CHARTS / self.name


def _edit_seed(objects: list[Object], t: _Templates) -> tuple[list[Object], Object]:
    config = _configuration(objects, t)
    image = _image(objects, t)
    return objects, {"image": image, "config": config}


def _edit_runtime(objects: list[Object], t: _Templates) -> tuple[list[Object], Object]:
    # No Namespace: the release's (garden) is gardener-operator's. No cross-namespace NetworkPolicies: in namespace
    # garden, gardener-resource-manager opens the path from gardener-apiserver and the virtual garden's
    # kube-apiserver through the Service's annotations and the Pods' labels (the pair would also share one name
    # there).
    objects = _drop(objects, "Namespace", NAMESPACE)
    objects = _drop(objects, "NetworkPolicy", "gardener-webhook-from-apiservers", NAMESPACE)
    objects = _drop(objects, "NetworkPolicy", "gardener-webhook-from-apiservers", RUNTIME_NAMESPACE)
    config = _configuration(objects, t)
    image = _image(objects, t)
    _without_own_kubeconfig(objects)
    found = _deployment_values(objects, t)
    _service_port(objects, t)
    _release_namespace(objects, t)
    return objects, {"image": image, **found, "config": config}


def _edit_application(objects: list[Object], t: _Templates) -> tuple[list[Object], Object]:
    # No Namespace, ServiceAccount or token: gardener-operator makes the extension's ServiceAccount and its token.
    objects = _drop(objects, "Namespace", NAMESPACE)
    objects = _drop(objects, "ServiceAccount", "gardener-webhook", NAMESPACE)
    objects = _drop(objects, "Secret", "gardener-webhook-token", NAMESPACE)
    _virtual_service_account(objects, t)
    _runtime_url(objects, t)
    return objects, {}


SEED: Final = Chart(
    "gardener-webhook-seed",
    "seed/static",
    _edit_seed,
    "the OperatingSystemConfig webhook of every\n# seed; the Extension's spec.deployment.extension.values set them",
)
RUNTIME: Final = Chart(
    "gardener-webhook-runtime",
    "virtual-garden/runtime",
    _edit_runtime,
    "the runtime cluster's part;\n# gardener-operator renders it into namespace garden with the Extension's spec.deployment.admission.values and\n"
    "# the gardener.* values it adds",
)
APPLICATION: Final = Chart(
    "gardener-webhook-application",
    "virtual-garden/virtual",
    _edit_application,
    "the virtual garden's part;\n# gardener-operator renders it there with the Extension's spec.deployment.admission.values (the same as the\n"
    "# runtime chart's) and the gardener.* values it adds",
)
ALL: Final = (RUNTIME, APPLICATION, SEED)


def _marked_tree(manifests: Path, scratch: Path) -> tuple[Path, dict[str, str]]:
    """A copy of `manifests` with marker certificate files and caBundle patch; returns it and base64 -> expression."""
    tree = scratch / "manifests"
    shutil.copytree(manifests, tree, ignore=shutil.ignore_patterns(*GENERATED))
    certs = tree / STATIC_CERTS
    certs.mkdir()
    markers: dict[str, str] = {}
    for file, (value, message) in CERTIFICATE_VALUES.items():
        (certs / file).write_text(f"{file} of the chart\n", encoding="utf-8")
        encoded = base64.b64encode(f"{file} of the chart\n".encode()).decode()
        markers[encoded] = f'{{{{ required "{message}" .Values.{value} | b64enc | quote }}}}'
    ca = base64.b64encode(b"ca.crt of the chart\n").decode()
    (webhooks,) = [
        doc
        for doc in yaml.safe_load_all((manifests / "components/garden/webhooks/validatingwebhookconfiguration.yaml").read_text())
        if doc
    ]  # fmt: skip
    patch = {
        "apiVersion": webhooks["apiVersion"],
        "kind": webhooks["kind"],
        "metadata": {"name": webhooks["metadata"]["name"]},
        "webhooks": [{"name": w["name"], "clientConfig": {"caBundle": ca}} for w in webhooks["webhooks"]],
    }
    (tree / CA_BUNDLE_PATCH).write_text(yaml.safe_dump(patch), encoding="utf-8")
    return tree, markers


def generate(kubectl: str, chart: Chart, manifests: Path = ROOT / "manifests") -> dict[Path, str]:
    """The generated files of `chart` (relative path -> text) from its overlay of `manifests`. Raises ChartError
    when the overlay no longer has what the generator turns into values, KustomizeError when it does not render."""
    t = _Templates()
    with tempfile.TemporaryDirectory() as scratch:
        tree, markers = _marked_tree(manifests, Path(scratch))
        objects = kustomize(kubectl, tree / "overlays" / chart.overlay)
    found: set[str] = set()

    def replace(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: replace(value) for key, value in node.items()}
        if isinstance(node, list):
            return [replace(item) for item in node]
        encoded = "".join(node.split()) if isinstance(node, str) else None  # kustomize breaks long base64 lines
        if encoded in markers:
            found.add(encoded)
            return t.mark(markers[encoded])
        return node

    objects = [replace(obj) for obj in objects]
    objects, values = chart.edit(objects, t)
    if not found:
        raise ChartError(f"no certificate file of the static flavour reaches {chart.overlay}")
    header = (
        f"# Generated by `python -m tests.charts --write` from `kubectl kustomize manifests/overlays/{chart.overlay}`;\n"
        "# do not edit: change the kustomize tree and generate again.\n"
    )
    dumped = "---\n".join(yaml.safe_dump(obj, sort_keys=False, width=1000) for obj in objects)
    used = {m["path"].split(".")[0] for m in _EXPRESSION.finditer(t.place(dumped)) if m["path"]}
    return {TEMPLATE: header + t.place(dumped), VALUES: _values(chart, values, used)}


def _block(text: str) -> str:
    return "".join(f"  {line}" if line.strip() else line for line in text.splitlines(keepends=True))


def _values(chart: Chart, found: Object, used: set[str]) -> str:
    """values.yaml: a commented entry for each top-level value the template reads, the overlay's value as default."""
    entries: dict[str, str] = {
        "image": f"# The webhook's image (the overlays set it with kustomize's `images:`).\nimage: {found.get('image')}\n",
        "replicas": f"# The Deployment's replicas (the PodDisruptionBudget lets one go at a time).\nreplicas: {found.get('replicas')}\n",
        "resources": "# The webhook container's resources (the VerticalPodAutoscaler, vpa.enabled, adjusts the requests).\n"
        + yaml.safe_dump({"resources": found.get("resources")}, sort_keys=False),
        "topologySpreadConstraints": "# How the Pods spread over nodes (best effort: a single-node cluster still runs them).\n"
        + yaml.safe_dump({"topologySpreadConstraints": found.get("topologySpreadConstraints")}, sort_keys=False),
        "service": "# The Service's port, which the webhooks call; the Pods listen on 9443 (the runtime and the\n"
        "# application chart must get the same value: gardener-operator passes both the same values).\nservice:\n  port: 443\n",
        "tls": "# The serving certificate for gardener-webhook.<namespace>.svc, its key and its CA (PEM, as\n"
        "# `gardener-webhook certs` writes them); the CA is every webhook's caBundle.\n"
        'tls:\n  crt: ""\n  key: ""\n  ca: ""\n',
        "clientCA": "# The CA bundle of the client certificate the API servers present (PEM;\n"
        '# docs/operations/certificates.md "Security").\nclientCA: ""\n',
        "config": "# The configuration file (serve --config; docs/operations/configuration.md), as in the\n"
        "# overlay's config.yaml.\n"
        f"config: |\n{_block(str(found.get('config', '')))}",
        "gardener": "# What gardener-operator sets (pkg/operator/controller/extension/extension/admission/admission.go);\n"
        "# the defaults are its values for an Extension named gardener-webhook.\n"
        + yaml.safe_dump(merge_values(operator_values(RUNTIME), operator_values(APPLICATION)), sort_keys=False),
    }
    if chart is RUNTIME:
        used |= {"vpa"}
        entries["vpa"] = (
            "# A VerticalPodAutoscaler for the webhook container (templates/vpa.yaml; the runtime cluster of\n"
            "# gardener-operator runs VPA). It sets requests within these bounds and leaves the memory limit.\n"
            "vpa:\n  enabled: true\n  updateMode: Recreate\n  minAllowed:\n    memory: 128Mi\n  maxAllowed:\n"
            "    cpu: '2'\n    memory: 2Gi\n"
        )
    unknown = used - set(entries)
    if unknown:
        raise ChartError(f"the template reads values without a values.yaml entry: {sorted(unknown)}")
    head = f"# Values of the {chart.name} chart: {chart.values_intro}.\n"
    head += f"# Generated by `python -m tests.charts --write` from manifests/overlays/{chart.overlay}.\n"
    return head + "".join(entries[key] for key in entries if key in used)


GENERIC_KUBECONFIG_PATH: Final = "/var/run/secrets/gardener.cloud/shoot/generic-kubeconfig"
# gardener-operator's Secrets in namespace garden: the generic token kubeconfig, and the access token of the
# Extension's ServiceAccount in the virtual garden (admission.go: extension-admission-<name>).
GENERIC_KUBECONFIG_SECRET: Final = "generic-token-kubeconfig"
ACCESS_SECRET: Final = "extension-admission-gardener-webhook"


def operator_values(chart: Chart) -> Object:
    """The `gardener.*` values gardener-operator adds to the Extension's values when it renders `chart`
    (pkg/operator/controller/extension/extension/admission/admission.go); none for the seed chart."""
    if chart is RUNTIME:
        return {"gardener": {"runtimeCluster": {"priorityClassName": "gardener-garden-system-400"},
                             "virtualCluster": {"enabled": True, "namespace": "extension-gardener-webhook"}}}  # fmt: skip
    if chart is APPLICATION:
        return {"gardener": {"virtualCluster": {"enabled": True, "serviceAccount": VIRTUAL_SERVICE_ACCOUNT}}}
    return {}


def inject_generic_garden_kubeconfig(
    obj: Object, generic_kubeconfig_secret: str = GENERIC_KUBECONFIG_SECRET, access_secret: str = ACCESS_SECRET
) -> Object:
    """`obj` (a Deployment or CronJob) as gardener-operator changes it before it applies the runtime chart's objects
    (gardener/gardener pkg/utils/gardener/garden.go InjectGenericGardenKubeconfig): every container gets the volume
    garden-kubeconfig, projected from the generic kubeconfig Secret's `kubeconfig` and the access Secret's `token`,
    mounted read-only at GENERIC_KUBECONFIG_PATH, and GARDEN_KUBECONFIG naming the kubeconfig in it. An object whose
    containers already set GARDEN_KUBECONFIG is returned unchanged, as there. Other kinds are returned unchanged."""
    result = copy.deepcopy(obj)
    if result["kind"] not in ("Deployment", "CronJob"):
        return result
    pod = pod_template(result)["spec"]
    if any(e["name"] == "GARDEN_KUBECONFIG" for c in pod["containers"] for e in c.get("env", [])):
        return result
    pod.setdefault("volumes", []).append({
        "name": GENERIC_KUBECONFIG_VOLUME,
        "projected": {
            "defaultMode": 0o644,
            "sources": [
                {"secret": {"name": generic_kubeconfig_secret, "items": [{"key": "kubeconfig", "path": "kubeconfig"}],
                            "optional": False}},
                {"secret": {"name": access_secret, "items": [{"key": "token", "path": "token"}], "optional": False}},
            ],
        },
    })  # fmt: skip
    for container in pod["containers"]:
        mount = {"name": GENERIC_KUBECONFIG_VOLUME, "mountPath": GENERIC_KUBECONFIG_PATH, "readOnly": True}
        container.setdefault("volumeMounts", []).append(mount)
        container.setdefault("env", []).append(
            {"name": "GARDEN_KUBECONFIG", "value": f"{GENERIC_KUBECONFIG_PATH}/kubeconfig"}
        )
    return result


def main(argv: list[str]) -> int:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        print("kubectl is not installed: the overlays cannot be rendered", file=sys.stderr)
        return 2
    stale = []
    for chart in ALL:
        for path, text in generate(kubectl, chart).items():
            target = chart.path / path
            if not target.is_file() or target.read_text(encoding="utf-8") != text:
                stale.append(target)
                if "--write" in argv:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text, encoding="utf-8")
    if "--write" in argv:
        return 0
    for target in stale:
        print(f"{target.relative_to(ROOT)} is stale", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
