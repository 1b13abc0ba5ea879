"""The charts of charts/ and the Extension that installs them, offline (no API server, no helm binary).

- Each chart's generated files equal the generator's output from its overlay (tests/charts.py), and rendering a
  chart gives its overlay's objects back but for what the generator documents it changes: so the charts and the
  overlays cannot drift.
- The Extension of manifests/overlays/virtual-garden/extension passes the CRD's openAPIV3Schema from
  gardener/gardener strictly (an unknown field is an error, as with `kubectl apply --dry-run=server
  --validate=strict`) and the checks of gardener-operator's validation for it, mirrored from
  pkg/api/operator/v1alpha1/validation/extension.go.
- gardener-operator's way from Extension to clusters, simulated: the value templates resolved from the Secrets it
  references (pkg/utils/chart/values.go), merged over each chart's values with the gardener.* values it adds
  (pkg/operator/controller/extension/extension/admission/admission.go), rendered.
The e2e tier renders the same with the pinned helm and applies it to real API servers (tests/e2e/test_charts.py).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest
import yaml

from tests.charts import (
    ALL,
    APPLICATION,
    GENERIC_KUBECONFIG_VOLUME,
    NAMESPACE,
    RUNTIME,
    SEED,
    TEMPLATE,
    VALUES,
    VIRTUAL_SERVICE_ACCOUNT,
    Chart,
    ChartError,
    comparable,
    generate,
    merge_values,
    operator_values,
    render_chart,
)
from tests.manifest_tree import ADMISSION_CERTS, KUBECTL, NO_KUBECTL, SEED_CERTS, kustomize, prepared_tree
from webhook import __version__

Object = dict[str, Any]
EXTENSION: Final = "virtual-garden/extension"
CRD: Final = Path(__file__).parent / "schemas" / "operator.gardener.cloud_extensions.yaml"
# gardener/gardener pkg/apis/core/v1beta1/constants/utils.go ResourceReferenceRegexp and
# pkg/api/core/validation/utils.go templateExpressionRegexp, alphanumericResourceNameRegexp.
RESOURCE_REFERENCE: Final = re.compile(
    r"\{\{\s*\.resources\.(?P<name>[a-zA-Z0-9]+)\.data\.(?P<key>[a-zA-Z0-9]+)\s*\}\}"
)
TEMPLATE_EXPRESSION: Final = re.compile(r"\{\{[^{}]*\}\}")
ALPHANUMERIC: Final = re.compile(r"^[a-zA-Z0-9]+$")
POLICIES: Final = ("Always", "AlwaysExceptNoShoots", "OnDemand")  # ControllerDeploymentPolicy


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return prepared_tree(tmp_path_factory.mktemp("manifests"))


@pytest.fixture(scope="module")
def rendered(tree: Path) -> dict[str, list[Object]]:
    if KUBECTL is None:
        pytest.skip(NO_KUBECTL)
    overlays = [chart.overlay for chart in ALL] + [EXTENSION]
    return {overlay: kustomize(KUBECTL, tree / "overlays" / overlay) for overlay in overlays}


def _defaults(chart: Chart) -> Object:
    values: Object = yaml.safe_load((chart.path / VALUES).read_text(encoding="utf-8"))
    return values


def _certificates(certs: Path) -> Object:
    """The certificate values as the Secret gives them: the PEM files `gardener-webhook certs` wrote."""
    pem = {
        name: (certs / name).read_text(encoding="utf-8") for name in ("tls.crt", "tls.key", "ca.crt", "client-ca.crt")
    }
    return {
        "tls": {"crt": pem["tls.crt"], "key": pem["tls.key"], "ca": pem["ca.crt"]},
        "clientCA": pem["client-ca.crt"],
    }


def _render(chart: Chart, overrides: Object, namespace: str = NAMESPACE) -> list[Object]:
    template = (chart.path / TEMPLATE).read_text(encoding="utf-8")
    return render_chart(template, merge_values(_defaults(chart), overrides), namespace)


# ------------------------------------------------------------------------------------------------ the charts


@pytest.mark.parametrize("chart", ALL, ids=lambda c: c.name)
def test_the_chart_is_generated_from_its_overlay(chart: Chart) -> None:
    """Regenerate with `.venv/bin/python -m tests.charts --write` after changing the kustomize tree."""
    if KUBECTL is None:
        pytest.skip(NO_KUBECTL)
    for path, text in generate(KUBECTL, chart).items():
        assert (chart.path / path).read_text(encoding="utf-8") == text, f"{chart.path / path} is stale"


@pytest.mark.parametrize("chart", ALL, ids=lambda c: c.name)
def test_the_chart_describes_itself_and_the_release_it_belongs_to(chart: Chart) -> None:
    meta = yaml.safe_load((chart.path / "Chart.yaml").read_text(encoding="utf-8"))
    assert (meta["apiVersion"], meta["name"], meta["type"]) == ("v2", chart.name, "application")
    assert meta["version"] == meta["appVersion"] == __version__
    if "image" in _defaults(chart):
        assert _defaults(chart)["image"] == f"gardener-webhook:{__version__}"  # the image the overlays name


def test_the_runtime_chart_renders_the_runtime_overlay(rendered: dict[str, list[Object]], tree: Path) -> None:
    """In the overlay's namespace, with its certificates: the overlay's objects, less the Namespace (the operator's
    garden), the two NetworkPolicies between namespaces (gardener-resource-manager's in garden) and the kubeconfig
    volume gardener-operator injects at the same path."""
    objects = _render(RUNTIME, _certificates(tree / ADMISSION_CERTS))
    expected = [o for o in rendered[RUNTIME.overlay] if o["kind"] != "Namespace"]
    expected = [o for o in expected if o["metadata"]["name"] != "gardener-webhook-from-apiservers"]
    (deployment,) = [o for o in expected if o["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    pod["volumes"] = [v for v in pod["volumes"] if v["name"] != GENERIC_KUBECONFIG_VOLUME]
    mounts = pod["containers"][0]["volumeMounts"]
    pod["containers"][0]["volumeMounts"] = [m for m in mounts if m["name"] != GENERIC_KUBECONFIG_VOLUME]
    assert comparable(objects) == comparable(expected)


def test_the_runtime_chart_lives_in_the_release_namespace(tree: Path) -> None:
    objects = _render(RUNTIME, _certificates(tree / ADMISSION_CERTS), namespace="garden")
    namespaced = [o for o in objects if o["kind"] not in ("ValidatingWebhookConfiguration",)]
    assert {o["metadata"]["namespace"] for o in namespaced} == {"garden"}
    (webhooks,) = [o for o in objects if o["kind"] == "ValidatingWebhookConfiguration"]
    (webhook,) = webhooks["webhooks"]
    assert webhook["clientConfig"]["service"] == {"name": "gardener-webhook", "namespace": "garden",
                                                  "path": "/validate", "port": 443}  # fmt: skip
    assert "'system:serviceaccount:garden:gardener-webhook'" in webhook["matchConditions"][1]["expression"]
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["priorityClassName"] == "gardener-garden-system-400"


def test_the_application_chart_renders_the_virtual_overlay(rendered: dict[str, list[Object]], tree: Path) -> None:
    """For the overlay's ServiceAccount: the overlay's objects, less what gardener-operator makes (the Namespace,
    the ServiceAccount and its token), with the webhooks calling the runtime chart's Service in namespace garden."""
    account = {"name": "gardener-webhook", "namespace": NAMESPACE}
    objects = _render(APPLICATION, {**_certificates(tree / ADMISSION_CERTS),
                                    "gardener": {"virtualCluster": {"serviceAccount": account}}})  # fmt: skip
    expected = [o for o in rendered[APPLICATION.overlay] if o["kind"] not in ("Namespace", "ServiceAccount", "Secret")]
    for obj in expected:
        for webhook in obj.get("webhooks", []):
            webhook["clientConfig"]["url"] = "https://gardener-webhook.garden.svc:443/validate"
    assert comparable(objects) == comparable(expected)


def test_the_application_chart_binds_the_operators_service_account(tree: Path) -> None:
    objects = _render(APPLICATION, _certificates(tree / ADMISSION_CERTS))
    subjects = [s for o in objects for s in o.get("subjects", [])]
    assert subjects and all(s == {"kind": "ServiceAccount", **VIRTUAL_SERVICE_ACCOUNT} for s in subjects)
    own = "system:serviceaccount:{namespace}:{name}".format(**VIRTUAL_SERVICE_ACCOUNT)
    (webhooks,) = [o for o in objects if o["kind"] == "ValidatingWebhookConfiguration"]
    for webhook in webhooks["webhooks"]:
        assert f"request.userInfo.username != '{own}'" in [c["expression"] for c in webhook["matchConditions"]]


def test_both_admission_charts_read_the_service_port_from_the_same_value(tree: Path) -> None:
    values = {**_certificates(tree / ADMISSION_CERTS), "service": {"port": 8443}}
    runtime = _render(RUNTIME, values, namespace="garden")
    application = _render(APPLICATION, values)
    (service,) = [o for o in runtime if o["kind"] == "Service"]
    assert [p["port"] for p in service["spec"]["ports"] if p["name"] == "https"] == [8443]
    urls = {w["clientConfig"]["url"] for o in application for w in o.get("webhooks", [])}
    assert urls == {"https://gardener-webhook.garden.svc:8443/validate"}


def test_the_seed_chart_renders_the_seed_overlay(rendered: dict[str, list[Object]], tree: Path) -> None:
    objects = _render(SEED, _certificates(tree / SEED_CERTS))
    assert comparable(objects) == comparable(rendered[SEED.overlay])
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    checksum = deployment["spec"]["template"]["metadata"]["annotations"]["checksum/config"]
    assert checksum == hashlib.sha256(_defaults(SEED)["config"].encode()).hexdigest()


@pytest.mark.parametrize("chart", [RUNTIME, SEED], ids=lambda c: c.name)
def test_a_configuration_change_rolls_the_pods(tree: Path, chart: Chart) -> None:
    values = _certificates(tree / SEED_CERTS)
    before = _render(chart, values)
    after = _render(chart, {**values, "config": "rules: {OSC-CGR-002: deny}\n"})
    (old,), (new,) = ([o for o in objects if o["kind"] == "Deployment"] for objects in (before, after))
    assert old["spec"]["template"] != new["spec"]["template"]
    (config_map,) = [o for o in after if o["kind"] == "ConfigMap"]
    assert config_map["data"]["config.yaml"] == "rules: {OSC-CGR-002: deny}\n"


@pytest.mark.parametrize("chart", ALL, ids=lambda c: c.name)
@pytest.mark.parametrize("missing", ["tls.crt", "tls.key", "tls.ca", "clientCA"])
def test_a_chart_refuses_to_render_without_a_certificate_it_uses(tree: Path, chart: Chart, missing: str) -> None:
    values = _certificates(tree / SEED_CERTS)
    *parents, last = missing.split(".")
    holder = values
    for key in parents:
        holder = holder[key]
    holder[last] = ""
    if f".Values.{missing} " not in (chart.path / TEMPLATE).read_text(encoding="utf-8"):
        assert chart is APPLICATION and missing != "tls.ca"  # its webhooks need only the CA
        _render(chart, values)
        return
    with pytest.raises(ChartError, match=rf"\.Values\.{re.escape(missing)}:"):
        _render(chart, values)


def test_render_chart_refuses_what_it_does_not_implement() -> None:
    """So that rendering the committed templates proves every construct in them is the one render_chart knows."""
    for template in ("a: {{ .Values.x | upper }}\n", "a: {{ if .Values.x }}b{{ end }}\n", "a: {{ .Release.Name }}\n"):
        with pytest.raises(ChartError):
            render_chart(template, {"x": "y"})
    assert render_chart('a: {{ required "x" .Values.x | b64enc | quote }}\n', {"x": "y"}) == [{"a": "eQ=="}]
    assert render_chart("a: {{ .Values.x | toJson }}\nb: {{ .Release.Namespace }}\n", {"x": {"k": "<"}}, "garden") == [
        {"a": {"k": "<"}, "b": "garden"}
    ]


# -------------------------------------------------------------------------------------------- the Extension


def _extension(rendered: dict[str, list[Object]]) -> Object:
    (extension,) = [o for o in rendered[EXTENSION] if o["kind"] == "Extension"]
    return extension


def _secrets(rendered: dict[str, list[Object]]) -> dict[str, Object]:
    return {o["metadata"]["name"]: o for o in rendered[EXTENSION] if o["kind"] == "Secret"}


def _strict(schema: Any) -> Any:
    """The CRD's structural schema as a JSON Schema in which unknown fields are errors (server-side strict field
    validation); x-kubernetes-preserve-unknown-fields keeps a field open, as the API server does."""
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    strict = {key: _strict(value) for key, value in schema.items()}
    if "properties" in schema and "additionalProperties" not in schema:
        strict["additionalProperties"] = bool(schema.get("x-kubernetes-preserve-unknown-fields", False))
    return strict


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [text for value in node.values() for text in _strings(value)]
    if isinstance(node, list):
        return [text for item in node for text in _strings(item)]
    return [node] if isinstance(node, str) else []


def test_the_extension_passes_the_crd_schema_strictly(rendered: dict[str, list[Object]]) -> None:
    (crd,) = [doc for doc in yaml.safe_load_all(CRD.read_text(encoding="utf-8")) if doc]
    extension = _extension(rendered)
    (version,) = crd["spec"]["versions"]
    assert extension["apiVersion"] == f"{crd['spec']['group']}/{version['name']}" and version["served"]
    assert extension["kind"] == crd["spec"]["names"]["kind"] and crd["spec"]["scope"] == "Cluster"
    schema = _strict(version["schema"]["openAPIV3Schema"])
    jsonschema.Draft7Validator(schema).validate({**extension, "metadata": {}})
    assert extension["metadata"] == {"name": "gardener-webhook"}  # the name the charts' defaults assume
    with pytest.raises(jsonschema.ValidationError):  # the strictness is real
        jsonschema.Draft7Validator(schema).validate({**extension, "spec": {**extension["spec"], "typo": 1}})


def test_the_extension_passes_gardener_operators_validation(rendered: dict[str, list[Object]]) -> None:
    """pkg/api/operator/v1alpha1/validation/extension.go ValidateExtension, for the fields this Extension sets."""
    spec = _extension(rendered)["spec"]
    assert spec.get("resources", []) == []  # no extension kind: ValidateControllerResources has nothing to check
    deployment = spec["deployment"]
    assert set(deployment) == {"admission", "extension", "resources"}
    names = [resource["name"] for resource in deployment["resources"]]
    assert len(set(names)) == len(names) and all(ALPHANUMERIC.match(name) for name in names)
    for resource in deployment["resources"]:
        assert resource["resourceRef"]["apiVersion"] == "v1" and resource["resourceRef"]["kind"] == "Secret"
    admission, extension = deployment["admission"], deployment["extension"]
    helms = [admission["runtimeCluster"]["helm"], admission["virtualCluster"]["helm"], extension["helm"]]
    for helm in helms:  # validateHelmDeployment / ValidateOCIRepository: a ref and nothing beside it
        assert set(helm) == {"ociRepository"} and set(helm["ociRepository"]) == {"ref"} and helm["ociRepository"]["ref"]
    assert extension["policy"] == "Always" and extension["policy"] in POLICIES  # every seed, Shoots or not
    assert "seedSelector" not in extension and "runtimeClusterValues" not in extension
    for text in _strings(admission["values"]) + _strings(extension["values"]):  # ValidateValuesTemplates
        for expression in TEMPLATE_EXPRESSION.findall(text):
            match = RESOURCE_REFERENCE.fullmatch(expression)
            assert match is not None and match["name"] in names, expression
        assert "{{" not in TEMPLATE_EXPRESSION.sub("", text) and "}}" not in TEMPLATE_EXPRESSION.sub("", text)


def test_the_referenced_secrets_are_ones_gardener_operator_reads(rendered: dict[str, list[Object]]) -> None:
    """pkg/utils/chart/values.go ResolveResources: Secrets in namespace garden with the resource-reference label,
    holding every key a value names."""
    deployment = _extension(rendered)["spec"]["deployment"]
    secrets = _secrets(rendered)
    by_name = {r["name"]: secrets[r["resourceRef"]["name"]] for r in deployment["resources"]}
    assert set(secrets) == {s["metadata"]["name"] for s in by_name.values()}
    for secret in secrets.values():
        assert secret["metadata"]["namespace"] == "garden"
        assert secret["metadata"]["labels"] == {"gardener.cloud/role": "resource-reference"}
    texts = _strings(deployment["admission"]["values"]) + _strings(deployment["extension"]["values"])
    for m in (m for text in texts for m in RESOURCE_REFERENCE.finditer(text)):
        assert m["key"] in by_name[m["name"]]["data"]


def test_the_extension_names_the_charts_and_the_values_they_have(rendered: dict[str, list[Object]]) -> None:
    deployment = _extension(rendered)["spec"]["deployment"]
    admission = deployment["admission"]
    for part, chart in (("runtimeCluster", RUNTIME), ("virtualCluster", APPLICATION)):
        meta = yaml.safe_load((chart.path / "Chart.yaml").read_text(encoding="utf-8"))
        assert admission[part]["helm"]["ociRepository"]["ref"].endswith(f"/{meta['name']}:{meta['version']}")
    meta = yaml.safe_load((SEED.path / "Chart.yaml").read_text(encoding="utf-8"))
    assert deployment["extension"]["helm"]["ociRepository"]["ref"].endswith(f"/{meta['name']}:{meta['version']}")
    # gardener-operator gives both admission charts the same values: each must be a value of one of them.
    known = _defaults(RUNTIME).keys() | _defaults(APPLICATION).keys()
    assert set(admission["values"]) <= known
    assert set(deployment["extension"]["values"]) <= _defaults(SEED).keys()


def _resolved(rendered: dict[str, list[Object]], values: Object) -> Object:
    """values with each `{{ .resources.<name>.data.<key> }}` replaced by the Secret's data, base64-decoded."""
    deployment = _extension(rendered)["spec"]["deployment"]
    secrets = _secrets(rendered)
    data = {r["name"]: secrets[r["resourceRef"]["name"]]["data"] for r in deployment["resources"]}

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, str):
            return RESOURCE_REFERENCE.sub(lambda m: base64.b64decode(data[m["name"]][m["key"]]).decode(), node)
        return node

    resolved: Object = resolve(values)
    return resolved


def test_what_the_clusters_get_is_what_the_overlays_hold(rendered: dict[str, list[Object]]) -> None:
    """The admission values resolved and merged with what gardener-operator adds, the seed values resolved as
    gardenlet resolves them: the runtime chart in garden, the application chart for the operator's ServiceAccount
    and the seed chart, each with the Extension's image and the certificates of its Secret."""
    deployment = _extension(rendered)["spec"]["deployment"]
    admission = _resolved(rendered, deployment["admission"]["values"])
    runtime = _render(RUNTIME, merge_values(admission, operator_values(RUNTIME)), namespace="garden")
    (deployment_object,) = [o for o in runtime if o["kind"] == "Deployment"]
    assert deployment_object["spec"]["template"]["spec"]["containers"][0]["image"] == admission["image"]
    tls = {o["metadata"]["name"]: o for o in runtime if o["kind"] == "Secret"}["gardener-webhook-tls"]
    assert base64.b64decode(tls["data"]["tls.crt"]).decode() == admission["tls"]["crt"]
    application = _render(APPLICATION, merge_values(admission, operator_values(APPLICATION)))
    bundles = {w["clientConfig"]["caBundle"] for o in application for w in o.get("webhooks", [])}
    assert bundles == {base64.b64encode(admission["tls"]["ca"].encode()).decode()}
    seed_values = _resolved(rendered, deployment["extension"]["values"])
    seed = _render(SEED, seed_values)
    expected = comparable(rendered[SEED.overlay])
    for obj in expected:
        if obj["kind"] == "Deployment":
            obj["spec"]["template"]["spec"]["containers"][0]["image"] = seed_values["image"]
    assert comparable(seed) == expected


def test_the_seed_and_the_admission_certificates_are_separate(rendered: dict[str, list[Object]], tree: Path) -> None:
    """The seeds' Service and the runtime chart's have different names, so each Secret holds its own pair."""
    secrets = _secrets(rendered)
    admission = secrets["gardener-webhook-admission-certs"]["data"]["tlscrt"]
    seed = secrets["gardener-webhook-seed-certs"]["data"]["tlscrt"]
    assert base64.b64decode(admission).decode() == (tree / ADMISSION_CERTS / "tls.crt").read_text()
    assert base64.b64decode(seed).decode() == (tree / SEED_CERTS / "tls.crt").read_text()
