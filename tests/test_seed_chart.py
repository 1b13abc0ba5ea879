"""Every seed: the chart charts/gardener-webhook-seed and the Extension that rolls it out.

What is checked offline, without an API server or a helm binary:
- the chart is `kubectl kustomize manifests/overlays/seed/static` with its per-landscape parts as values (the
  committed files equal the generator's output), and rendering it gives the overlay's objects back;
- the Extension (operator.gardener.cloud/v1alpha1) passes the CRD's openAPIV3Schema from gardener/gardener, strictly
  (an unknown field is an error, as with `kubectl apply --dry-run=server --validate=strict`), and the checks of
  gardener-operator's validating webhook for it, mirrored from pkg/api/operator/v1alpha1/validation/extension.go;
- gardener-operator's and gardenlet's way from Extension to seed, simulated: its value templates resolved from the
  Secret it references (pkg/utils/chart/values.go), merged over the chart's values and rendered, give the seed
  overlay's objects with the Extension's image.
Not checked: that helm itself renders the chart (render_chart implements the one construct the template uses and
refuses any other), and what runs after rendering in a real landscape (the ControllerInstallation, gardenlet's
ManagedResource in each seed).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import re
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest
import yaml

from tests.manifest_tree import KUBECTL, NO_KUBECTL, SEED_CERTS, kustomize, prepared_tree
from tests.seed_chart import CHART, CONFIG_MAP, OVERLAY, TEMPLATE, VALUES, ChartError, generate, render_chart
from webhook import __version__

Object = dict[str, Any]
SEEDS: Final = "virtual-garden/seeds"
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
    return {overlay: kustomize(KUBECTL, tree / "overlays" / overlay) for overlay in (OVERLAY, SEEDS)}


def _committed(path: Path) -> str:
    return (CHART / path).read_text(encoding="utf-8")


def _defaults() -> Object:
    values: Object = yaml.safe_load(_committed(VALUES))
    return values


def _certificate_values(tree: Path) -> Object:
    """The certificate values as the operator gives them: the PEM files `gardener-webhook certs` wrote."""
    certs = tree / SEED_CERTS
    pem = {
        name: (certs / name).read_text(encoding="utf-8") for name in ("tls.crt", "tls.key", "ca.crt", "client-ca.crt")
    }
    return {
        "tls": {"crt": pem["tls.crt"], "key": pem["tls.key"], "ca": pem["ca.crt"]},
        "clientCA": pem["client-ca.crt"],
    }


def _merged(defaults: Object, overrides: Object) -> Object:
    """Helm's merge of user values over the chart's values.yaml (maps merge key by key, everything else replaces)."""
    merged = copy.deepcopy(defaults)
    for key, value in overrides.items():
        both_maps = isinstance(value, dict) and isinstance(merged.get(key), dict)
        merged[key] = _merged(merged[key], value) if both_maps else value
    return merged


def _comparable(objects: list[Object]) -> list[Object]:
    """objects with the configuration's ConfigMap under its chart name (kustomize adds a hash of the content, the
    chart a checksum annotation on the Pods instead; both roll the Pods when the file changes), and base64 without
    the line breaks kustomize puts into long values (decoders skip them)."""
    result = copy.deepcopy(objects)
    for obj in result:
        if obj["kind"] == "Secret":
            obj["data"] = {key: "".join(value.split()) for key, value in obj["data"].items()}
        for webhook in obj.get("webhooks", []):
            webhook["clientConfig"]["caBundle"] = "".join(webhook["clientConfig"]["caBundle"].split())
        if obj["kind"] == "ConfigMap":
            obj["metadata"]["name"] = CONFIG_MAP
        if obj["kind"] == "Deployment":
            pod = obj["spec"]["template"]
            pod["metadata"].get("annotations", {}).pop("checksum/config", None)
            if not pod["metadata"].get("annotations", True):
                del pod["metadata"]["annotations"]
            for volume in pod["spec"]["volumes"]:
                if "configMap" in volume:
                    volume["configMap"]["name"] = CONFIG_MAP
    return result


# ------------------------------------------------------------------------------------------------ the chart


def test_the_chart_is_generated_from_the_seed_overlay() -> None:
    """Regenerate with `.venv/bin/python -m tests.seed_chart --write` after changing the kustomize tree."""
    if KUBECTL is None:
        pytest.skip(NO_KUBECTL)
    for path, text in generate(KUBECTL).items():
        assert _committed(path) == text, f"charts/gardener-webhook-seed/{path} is stale"


def test_the_chart_describes_itself_and_the_release_it_belongs_to() -> None:
    chart = yaml.safe_load(_committed(Path("Chart.yaml")))
    assert (chart["apiVersion"], chart["name"], chart["type"]) == ("v2", CHART.name, "application")
    assert chart["version"] == chart["appVersion"] == __version__
    assert _defaults()["image"] == f"gardener-webhook:{__version__}"  # the image the overlays name


def test_the_chart_renders_the_seed_overlay(rendered: dict[str, list[Object]], tree: Path) -> None:
    objects = render_chart(_committed(TEMPLATE), _merged(_defaults(), _certificate_values(tree)))
    assert _comparable(objects) == _comparable(rendered[OVERLAY])
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    checksum = deployment["spec"]["template"]["metadata"]["annotations"]["checksum/config"]
    assert checksum == hashlib.sha256(_defaults()["config"].encode()).hexdigest()


def test_a_configuration_change_rolls_the_pods(tree: Path) -> None:
    values = _merged(_defaults(), _certificate_values(tree))
    before = render_chart(_committed(TEMPLATE), values)
    after = render_chart(_committed(TEMPLATE), {**values, "config": "rules: {OSC-CGR-002: deny}\n"})
    (old,), (new,) = ([o for o in objects if o["kind"] == "Deployment"] for objects in (before, after))
    assert old["spec"]["template"] != new["spec"]["template"]
    (config_map,) = [o for o in after if o["kind"] == "ConfigMap"]
    assert config_map["data"]["config.yaml"] == "rules: {OSC-CGR-002: deny}\n"


@pytest.mark.parametrize("missing", ["tls.crt", "tls.key", "tls.ca", "clientCA"])
def test_the_chart_refuses_to_render_without_a_certificate(tree: Path, missing: str) -> None:
    values = _merged(_defaults(), _certificate_values(tree))
    *parents, last = missing.split(".")
    holder = values
    for key in parents:
        holder = holder[key]
    holder[last] = ""
    with pytest.raises(ChartError, match=rf"\.Values\.{re.escape(missing)}:"):
        render_chart(_committed(TEMPLATE), values)


def test_render_chart_refuses_what_it_does_not_implement() -> None:
    """So that rendering the committed template proves every construct in it is the one render_chart knows."""
    for template in ("a: {{ .Values.x | upper }}\n", "a: {{ if .Values.x }}b{{ end }}\n", "a: {{ .Release.Name }}\n"):
        with pytest.raises(ChartError):
            render_chart(template, {"x": "y"})
    assert render_chart('a: {{ required "x" .Values.x | b64enc | quote }}\n', {"x": "y"}) == [{"a": "eQ=="}]


# -------------------------------------------------------------------------------------------- the Extension


def _extension(rendered: dict[str, list[Object]]) -> Object:
    (extension,) = [o for o in rendered[SEEDS] if o["kind"] == "Extension"]
    return extension


def _secret(rendered: dict[str, list[Object]]) -> Object:
    (secret,) = [o for o in rendered[SEEDS] if o["kind"] == "Secret"]
    return secret


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


def test_the_extension_passes_the_crd_schema_strictly(rendered: dict[str, list[Object]]) -> None:
    (crd,) = [doc for doc in yaml.safe_load_all(CRD.read_text(encoding="utf-8")) if doc]
    extension = _extension(rendered)
    (version,) = crd["spec"]["versions"]
    assert extension["apiVersion"] == f"{crd['spec']['group']}/{version['name']}" and version["served"]
    assert extension["kind"] == crd["spec"]["names"]["kind"] and crd["spec"]["scope"] == "Cluster"
    schema = _strict(version["schema"]["openAPIV3Schema"])
    jsonschema.Draft7Validator(schema).validate({**extension, "metadata": {}})
    assert set(extension["metadata"]) == {"name"} and re.fullmatch(
        r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", extension["metadata"]["name"]
    )
    with pytest.raises(jsonschema.ValidationError):  # the strictness is real
        jsonschema.Draft7Validator(schema).validate({**extension, "spec": {**extension["spec"], "typo": 1}})


def test_the_extension_passes_gardener_operators_validation(rendered: dict[str, list[Object]]) -> None:
    """pkg/api/operator/v1alpha1/validation/extension.go ValidateExtension, for the fields this Extension sets."""
    spec = _extension(rendered)["spec"]
    assert spec.get("resources", []) == []  # no extension kind: ValidateControllerResources has nothing to check
    deployment = spec["deployment"]
    assert set(deployment) == {"extension", "resources"}  # an extension deployment, no admission
    extension = deployment["extension"]
    oci = extension["helm"]["ociRepository"]
    assert set(oci) == {"ref"} and oci["ref"]  # ValidateOCIRepository: a ref and nothing beside it
    assert extension["policy"] == "Always" and extension["policy"] in POLICIES  # every seed, Shoots or not
    assert "seedSelector" not in extension and "runtimeClusterValues" not in extension  # no runtime deployment
    names = [resource["name"] for resource in deployment["resources"]]
    assert len(set(names)) == len(names) and all(ALPHANUMERIC.match(name) for name in names)
    for resource in deployment["resources"]:
        assert resource["resourceRef"]["apiVersion"] == "v1" and resource["resourceRef"]["kind"] == "Secret"
    strings = _strings(extension["values"])
    for text in strings:  # ValidateValuesTemplates: only resource references to declared names, no stray braces
        for expression in TEMPLATE_EXPRESSION.findall(text):
            match = RESOURCE_REFERENCE.fullmatch(expression)
            assert match is not None and match["name"] in names, expression
        assert "{{" not in TEMPLATE_EXPRESSION.sub("", text) and "}}" not in TEMPLATE_EXPRESSION.sub("", text)


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [text for value in node.values() for text in _strings(value)]
    if isinstance(node, list):
        return [text for item in node for text in _strings(item)]
    return [node] if isinstance(node, str) else []


def test_the_referenced_secret_is_one_gardener_operator_reads(rendered: dict[str, list[Object]]) -> None:
    """pkg/utils/chart/values.go ResolveResources: a Secret in namespace garden with the resource-reference label."""
    secret = _secret(rendered)
    (reference,) = _extension(rendered)["spec"]["deployment"]["resources"]
    assert reference["resourceRef"]["name"] == secret["metadata"]["name"]
    assert secret["metadata"]["namespace"] == "garden"
    assert secret["metadata"]["labels"] == {"gardener.cloud/role": "resource-reference"}
    keys = {m["key"] for text in _strings(_extension(rendered)["spec"]["deployment"]["extension"]["values"])
            for m in RESOURCE_REFERENCE.finditer(text)}  # fmt: skip
    assert keys == set(secret["data"]) and all(ALPHANUMERIC.match(key) for key in keys)


def test_the_extension_names_the_chart_and_the_values_it_has(rendered: dict[str, list[Object]]) -> None:
    extension = _extension(rendered)["spec"]["deployment"]["extension"]
    chart = yaml.safe_load(_committed(Path("Chart.yaml")))
    assert extension["helm"]["ociRepository"]["ref"].endswith(f"/{chart['name']}:{chart['version']}")
    assert _merged(_defaults(), extension["values"]).keys() == _defaults().keys()  # no value the chart ignores
    assert set(extension["values"]["tls"]) == set(_defaults()["tls"])


def test_what_a_seed_gets_is_the_seed_overlay(rendered: dict[str, list[Object]]) -> None:
    """The Extension's values with its templates resolved as gardener-operator and gardenlet resolve them (the
    Secret's data, base64-decoded), merged over the chart's values and rendered: the seed overlay's objects with the
    certificates of the Secret and the Extension's image."""
    extension = _extension(rendered)["spec"]["deployment"]["extension"]
    data = {key: base64.b64decode(value).decode() for key, value in _secret(rendered)["data"].items()}

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, str):
            return RESOURCE_REFERENCE.sub(lambda m: data[m["key"]], node)
        return node

    objects = render_chart(_committed(TEMPLATE), _merged(_defaults(), resolve(extension["values"])))
    expected = _comparable(rendered[OVERLAY])
    for obj in expected:
        if obj["kind"] == "Deployment":
            obj["spec"]["template"]["spec"]["containers"][0]["image"] = extension["values"]["image"]
    assert _comparable(objects) == expected
