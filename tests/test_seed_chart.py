"""Every seed: the chart charts/gardener-webhook-seed, offline (tests/test_charts.py checks that it is generated and
the Extension that rolls it out; tests/e2e/test_charts.py renders it with helm).

Rendering it (render_chart, which implements the one construct the template uses and refuses any other) gives the
seed overlay's objects back; a configuration change rolls the Pods; a missing certificate stops the render.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.charts import SEED, TEMPLATE, VALUES, ChartError, comparable, merge_values, render_chart
from tests.manifest_tree import KUBECTL, NO_KUBECTL, SEED_CERTS, kustomize, prepared_tree
from webhook import __version__

Object = dict[str, Any]
CHART: Final = SEED.path
OVERLAY: Final = SEED.overlay
SEEDS: Final = "virtual-garden/extension"
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


# ------------------------------------------------------------------------------------------------ the chart


def test_the_chart_describes_itself_and_the_release_it_belongs_to() -> None:
    chart = yaml.safe_load(_committed(Path("Chart.yaml")))
    assert (chart["apiVersion"], chart["name"], chart["type"]) == ("v2", CHART.name, "application")
    assert chart["version"] == chart["appVersion"] == __version__
    assert _defaults()["image"] == f"gardener-webhook:{__version__}"  # the image the overlays name


def test_the_chart_renders_the_seed_overlay(rendered: dict[str, list[Object]], tree: Path) -> None:
    objects = render_chart(_committed(TEMPLATE), merge_values(_defaults(), _certificate_values(tree)))
    assert comparable(objects) == comparable(rendered[OVERLAY])
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    checksum = deployment["spec"]["template"]["metadata"]["annotations"]["checksum/config"]
    assert checksum == hashlib.sha256(_defaults()["config"].encode()).hexdigest()


def test_a_configuration_change_rolls_the_pods(tree: Path) -> None:
    values = merge_values(_defaults(), _certificate_values(tree))
    before = render_chart(_committed(TEMPLATE), values)
    after = render_chart(_committed(TEMPLATE), {**values, "config": "rules: {OSC-CGR-002: deny}\n"})
    (old,), (new,) = ([o for o in objects if o["kind"] == "Deployment"] for objects in (before, after))
    assert old["spec"]["template"] != new["spec"]["template"]
    (config_map,) = [o for o in after if o["kind"] == "ConfigMap"]
    assert config_map["data"]["config.yaml"] == "rules: {OSC-CGR-002: deny}\n"


@pytest.mark.parametrize("missing", ["tls.crt", "tls.key", "tls.ca", "clientCA"])
def test_the_chart_refuses_to_render_without_a_certificate(tree: Path, missing: str) -> None:
    values = merge_values(_defaults(), _certificate_values(tree))
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
