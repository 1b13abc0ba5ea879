"""manifests/monitoring/: the ServiceMonitor, alerts and dashboard (docs/operations/monitoring.md), rendered and
checked offline.

- Both variants (garden, seed) render with `kubectl kustomize`. Built-in kinds pass kubernetes-validate (strict);
  the ServiceMonitor and PrometheusRule pass the openAPIV3Schema of prometheus-operator v0.93.0's CRDs
  (tests/schemas/prometheus-operator), with unknown fields as errors, as `kubectl apply` validates them.
- Each variant carries the labels that Gardener's Prometheus and Plutono of that cluster select (cited in the
  overlays), and the paths from that Prometheus to the metrics port are open.
- Every PromQL expression (the alerts, the dashboard's queries and its variable's selector) parses with
  promql-parser (GreptimeTeam's PromQL parser in Rust, through its Python bindings). The metric names come from
  the parse trees, and a real `gardener-webhook serve` with a live cluster view, after allowed, denied
  and warned reviews, must export every one of them (with the labels and label values the queries match on).
- With promtool installed (Debian's `prometheus` package ships it), the rules pass `promtool check rules` and the
  unit tests of tests/promtool/alerts_test.yaml; without it those two tests skip.
- dashboard.json is what manifests/monitoring/dashboard.py writes, and a dashboard Plutono 7.5 can load.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import aiohttp
import jsonschema
import kubernetes_validate
import promql_parser
import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from tests.builders import cloud_profile_dict, review_bytes
from tests.cluster.fake_apiserver import FakeApiServer, write_kubeconfig
from tests.server.processes import ServeProcess, wait_for
from webhook.server.metrics import DURATION_BUCKETS_SECONDS, HandshakeFailure
from webhook.settings import ClusterSettings

ROOT: Final = Path(__file__).resolve().parents[1]
MONITORING: Final = ROOT / "manifests" / "monitoring"
SCHEMAS: Final = Path(__file__).parent / "schemas" / "prometheus-operator"
KUBECTL: Final = shutil.which("kubectl")
PROMTOOL: Final = shutil.which("promtool")
KUBERNETES_VERSION: Final = "1.31"
VARIANTS: Final = ("garden", "seed")
# Per variant: the Prometheus (its name is the `prometheus` label it selects, and the label prometheus-operator
# gives its Pods) and the key of Plutono's dashboard label (dashboard.monitoring.gardener.cloud/<key>=true).
PROMETHEUS: Final = {"garden": "garden", "seed": "aggregate"}
PLUTONO: Final = {"garden": "garden", "seed": "seed"}
WEBHOOK_NAMESPACE: Final = "gardener-webhook"
JOB: Final = "gardener-webhook"
# Labels a ServiceMonitor scrape adds to every series (prometheus-operator pkg/prometheus/promcfg.go), and `up`,
# which Prometheus records for every target itself: neither is on /metrics.
TARGET_LABELS: Final = frozenset({"job", "instance", "namespace", "service", "pod", "container", "endpoint"})
FROM_PROMETHEUS: Final = frozenset({"up"})
# Plutono's built-in interval variables, as Plutono substitutes them before a query is sent.
PLUTONO_INTERVALS: Final = {"$__rate_interval": "4m", "$__interval": "1m", "$__range": "6h"}
# The core panel plugins of Plutono v7.5.49 (credativ/plutono public/app/plugins/panel/*), and the newest dashboard
# schema it migrates to (public/app/features/dashboard/state/DashboardMigrator.ts).
PLUTONO_PANELS: Final = frozenset({"alertlist", "annolist", "barchart", "bargauge", "dashlist", "gauge", "graph",
                                   "heatmap", "logs", "news", "nodeGraph", "piechart", "pluginlist", "row",
                                   "singlestat", "stat", "table", "table-old", "text", "timeseries", "xychart"})  # fmt: skip
PLUTONO_SCHEMA_VERSION: Final = 27

Object = dict[str, Any]


# ------------------------------------------------------------------------------------------- rendering


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[Object]]:
    if KUBECTL is None:
        pytest.skip("SKIPPED: kubectl is not installed, so manifests/monitoring cannot be rendered and checked")
    result: dict[str, list[Object]] = {}
    for variant in VARIANTS:
        done = subprocess.run(
            [KUBECTL, "kustomize", str(MONITORING / variant)], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, f"kubectl kustomize manifests/monitoring/{variant}: {done.stderr}"
        result[variant] = [doc for doc in yaml.safe_load_all(done.stdout) if doc]
    return result


def one(objects: list[Object], kind: str) -> Object:
    (found,) = (o for o in objects if o["kind"] == kind)
    return found


def rules(objects: list[Object]) -> list[Object]:
    return [rule for group in one(objects, "PrometheusRule")["spec"]["groups"] for rule in group["rules"]]


def dashboard_of(objects: list[Object]) -> Object:
    (text,) = one(objects, "ConfigMap")["data"].values()
    loaded: Object = json.loads(text)
    return loaded


def panels(dashboard: Object) -> list[Object]:
    return [p for p in dashboard["panels"] if p["type"] != "row"]


def expressions(objects: list[Object]) -> Iterator[tuple[str, str]]:
    """(where, PromQL) of every query of the bundle, Plutono's variables replaced by values it would send."""
    for rule in rules(objects):
        yield f"alert {rule['alert']}", rule["expr"]
    dashboard = dashboard_of(objects)
    variables = {f"${v['name']}": v["allValue"] for v in dashboard["templating"]["list"]}
    for panel in panels(dashboard):
        for target in panel["targets"]:
            yield f"panel {panel['title']!r} {target['refId']}", _substitute(target["expr"], variables)
    for variable in dashboard["templating"]["list"]:
        # label_values(<series selector>, <label>) is Plutono's, not PromQL: its selector is.
        call = re.fullmatch(r"label_values\((?P<selector>.+), *(?P<label>\w+)\)", variable["query"]["query"])
        assert call is not None, variable["query"]
        yield f"variable ${variable['name']}", call["selector"]


def _substitute(expr: str, variables: dict[str, str]) -> str:
    for name, value in sorted({**PLUTONO_INTERVALS, **variables}.items(), key=lambda item: -len(item[0])):
        expr = expr.replace(name, value)
    assert "$" not in expr, f"unknown Plutono variable in {expr}"
    return expr


@pytest.mark.parametrize("variant", VARIANTS)
def test_what_each_variant_holds(rendered: dict[str, list[Object]], variant: str) -> None:
    placed = sorted((o["kind"], o["metadata"]["namespace"], o["metadata"]["name"]) for o in rendered[variant])
    assert placed == [
        ("ConfigMap", "garden", "gardener-webhook-dashboard"),  # where Plutono's sidecar watches
        ("NetworkPolicy", "garden", "gardener-webhook-from-prometheus"),
        ("PrometheusRule", WEBHOOK_NAMESPACE, "gardener-webhook"),
        ("Service", WEBHOOK_NAMESPACE, "gardener-webhook-metrics"),
        ("ServiceMonitor", WEBHOOK_NAMESPACE, "gardener-webhook"),
    ]


def test_the_variants_differ_only_in_whom_they_address(rendered: dict[str, list[Object]]) -> None:
    """The same Service, scrape, alerts and dashboard for every cluster; only the Prometheus and Plutono differ."""

    def addressed_to_nobody(objects: list[Object]) -> list[Object]:
        neutral = copy.deepcopy(objects)
        for obj in neutral:
            labels = obj["metadata"]["labels"]
            for key in [k for k in labels if k == "prometheus" or k.startswith("dashboard.monitoring.gardener.cloud/")]:
                del labels[key]
            if obj["kind"] == "NetworkPolicy":
                del obj["spec"]["podSelector"]["matchLabels"]["prometheus"]
        return neutral

    garden, seed = (addressed_to_nobody(rendered[variant]) for variant in VARIANTS)
    assert garden == seed and garden != rendered["garden"]


# --------------------------------------------------------------------------------------------- schemas


def _kubernetes_schema_error(obj: Object) -> str:
    """What kubernetes-validate (strict: unknown fields too) finds wrong with a built-in object; "" for nothing."""
    try:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as exc:
        return f"{obj['kind']}/{obj['metadata']['name']}: {exc.message}"
    return ""


@pytest.mark.parametrize("variant", VARIANTS)
def test_built_in_kinds_pass_their_schema(rendered: dict[str, list[Object]], variant: str) -> None:
    built_in = [o for o in rendered[variant] if not o["apiVersion"].startswith("monitoring.coreos.com/")]
    assert len(built_in) == 3 and [e for e in map(_kubernetes_schema_error, built_in) if e] == []


def _strict(schema: Object) -> Object:
    """A CRD's structural schema as the API server applies it with strict field validation (kubectl's default):
    an object with `properties` has no other fields, unless it preserves unknown fields or declares a map."""
    out = dict(schema)
    if "properties" in schema:
        out["properties"] = {name: _strict(sub) for name, sub in schema["properties"].items()}
        if "additionalProperties" not in schema and not schema.get("x-kubernetes-preserve-unknown-fields"):
            out["additionalProperties"] = False
    if isinstance(schema.get("additionalProperties"), dict):
        out["additionalProperties"] = _strict(schema["additionalProperties"])
    if "items" in schema:
        out["items"] = _strict(schema["items"])
    for key in ("allOf", "anyOf", "oneOf"):
        if key in schema:
            out[key] = [_strict(sub) for sub in schema[key]]
    return out


@pytest.fixture(scope="module")
def crd_validators() -> dict[str, jsonschema.Draft7Validator]:
    """Kind -> a validator of the CRD's served version (v1)."""
    validators = {}
    for path in sorted(SCHEMAS.glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        (version,) = (v for v in crd["spec"]["versions"] if v["name"] == "v1")
        validators[crd["spec"]["names"]["kind"]] = jsonschema.Draft7Validator(
            _strict(version["schema"]["openAPIV3Schema"])
        )
    return validators


def _schema_errors(validators: dict[str, jsonschema.Draft7Validator], obj: Object) -> list[str]:
    errors = validators[obj["kind"]].iter_errors(obj)
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


@pytest.mark.parametrize("variant", VARIANTS)
def test_custom_resources_pass_prometheus_operators_crds(
    rendered: dict[str, list[Object]], crd_validators: dict[str, jsonschema.Draft7Validator], variant: str
) -> None:
    custom = [o for o in rendered[variant] if o["apiVersion"] == "monitoring.coreos.com/v1"]
    assert sorted(o["kind"] for o in custom) == ["PrometheusRule", "ServiceMonitor"]
    for obj in custom:
        assert _schema_errors(crd_validators, obj) == [], obj["kind"]
        labels = obj["metadata"]["labels"]  # metadata is not in the CRD's schema: an ObjectMeta's labels are strings
        assert all(isinstance(v, str) for v in labels.values()), labels


def test_the_crd_schemas_catch_a_typo_and_a_wrong_type(
    rendered: dict[str, list[Object]], crd_validators: dict[str, jsonschema.Draft7Validator]
) -> None:
    monitor = copy.deepcopy(one(rendered["garden"], "ServiceMonitor"))
    monitor["spec"]["endpoints"][0]["intervall"] = "30s"
    rule = copy.deepcopy(one(rendered["garden"], "PrometheusRule"))
    rule["spec"]["groups"][0]["rules"][0]["labels"]["replicas"] = 2
    assert any("intervall" in e for e in _schema_errors(crd_validators, monitor))
    assert any("is not of type 'string'" in e for e in _schema_errors(crd_validators, rule))


# ----------------------------------------------------------------------- what Gardener picks up and reaches


def _matches(selector: Object, labels: dict[str, str]) -> bool:
    assert set(selector) == {"matchLabels"}  # the bundle's selectors name labels only
    return bool(labels.items() >= selector["matchLabels"].items())


def _prometheus_pod(name: str) -> dict[str, str]:
    """The labels prometheus-operator gives the Pods of Prometheus `name` (pkg/prometheus/server/operator.go
    makeSelectorLabels, v0.93.0)."""
    return {"app.kubernetes.io/managed-by": "prometheus-operator", "app.kubernetes.io/name": "prometheus",
            "app.kubernetes.io/instance": name, "operator.prometheus.io/name": name, "prometheus": name}  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
def test_gardeners_prometheus_and_plutono_pick_the_bundle_up(rendered: dict[str, list[Object]], variant: str) -> None:
    objects = rendered[variant]
    for kind in ("ServiceMonitor", "PrometheusRule"):
        assert one(objects, kind)["metadata"]["labels"]["prometheus"] == PROMETHEUS[variant], kind
    config_map = one(objects, "ConfigMap")
    dashboard_labels = {k for k in config_map["metadata"]["labels"] if k.startswith("dashboard.monitoring.gardener.")}
    assert dashboard_labels == {f"dashboard.monitoring.gardener.cloud/{PLUTONO[variant]}"}
    assert config_map["metadata"]["labels"][f"dashboard.monitoring.gardener.cloud/{PLUTONO[variant]}"] == "true"
    (key,) = config_map["data"]
    assert key.endswith(".json")


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_prometheus_reaches_the_metrics_port(rendered: dict[str, list[Object]], variant: str) -> None:
    """ServiceMonitor -> metrics Service -> the Pods' health port; egress from the Prometheus in garden (this
    bundle), ingress on the webhook's side (manifests/base)."""
    objects = rendered[variant]
    pod = yaml.safe_load((ROOT / "manifests/base/deployment.yaml").read_text())["spec"]["template"]
    (health,) = (p for p in pod["spec"]["containers"][0]["ports"] if p["name"] == "health")
    monitor, service = one(objects, "ServiceMonitor"), one(objects, "Service")
    (endpoint,) = monitor["spec"]["endpoints"]
    (port,) = (p for p in service["spec"]["ports"] if p["name"] == endpoint["port"])
    assert port["targetPort"] == "health" and _matches(monitor["spec"]["selector"], service["metadata"]["labels"])
    assert _matches({"matchLabels": service["spec"]["selector"]}, pod["metadata"]["labels"])
    assert service["metadata"]["labels"][monitor["spec"]["jobLabel"]] == JOB  # the job the queries select
    webhook_service = yaml.safe_load((ROOT / "manifests/base/service.yaml").read_text())
    assert not _matches(monitor["spec"]["selector"], webhook_service["metadata"].get("labels", {}))

    prometheus = _prometheus_pod(PROMETHEUS[variant])
    egress = one(objects, "NetworkPolicy")
    assert egress["spec"]["policyTypes"] == ["Egress"] and _matches(egress["spec"]["podSelector"], prometheus)
    assert not _matches(egress["spec"]["podSelector"], _prometheus_pod("shoot"))
    (rule,) = egress["spec"]["egress"]
    assert rule["ports"] == [{"port": health["containerPort"], "protocol": "TCP"}]
    (to,) = rule["to"]
    assert _matches(to["namespaceSelector"], {"kubernetes.io/metadata.name": WEBHOOK_NAMESPACE})
    assert _matches(to["podSelector"], pod["metadata"]["labels"])

    policies = list(yaml.safe_load_all((ROOT / "manifests/base/networkpolicy.yaml").read_text()))
    (isolation,) = (p for p in policies if p["metadata"]["name"] == "gardener-webhook")
    (ingress,) = (r for r in isolation["spec"]["ingress"] if {"port": health["containerPort"], "protocol": "TCP"}
                  in r["ports"])  # fmt: skip
    assert any(
        peer.get("namespaceSelector") == {} and _matches(peer["podSelector"], prometheus) for peer in ingress["from"]
    )


def test_the_scrape_keeps_every_metric_the_queries_name(rendered: dict[str, list[Object]]) -> None:
    (endpoint,) = one(rendered["garden"], "ServiceMonitor")["spec"]["endpoints"]
    (keep,) = endpoint["metricRelabelings"]
    assert keep["action"] == "keep" and keep["sourceLabels"] == ["__name__"]
    named = {name for _, expr in expressions(rendered["garden"]) for name in _names(expr)} - FROM_PROMETHEUS
    assert named and all(re.fullmatch(keep["regex"], name) for name in named), named
    assert not re.fullmatch(keep["regex"], "python_gc_objects_collected_total")


# ------------------------------------------------------------------------------------------------ alerts


# Where the runbooks are: the Monitoring page of the documentation site (mkdocs.yml site_url; use_directory_urls).
RUNBOOKS: Final = "https://gardener-community.github.io/gardener-webhook/operations/monitoring/"


def _anchors(markdown: str) -> set[str]:
    """The anchors MkDocs (and GitHub) give a page's headings: lower case, punctuation but - and _ dropped, spaces
    to -. The site's build with --strict (tests/test_site.py) checks the anchors of every link it holds."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)  # a shell comment is no heading
    headings = re.findall(r"^#{1,6} +(.+?) *$", prose, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_alert_follows_gardeners_conventions_and_has_a_runbook(
    rendered: dict[str, list[Object]], variant: str
) -> None:
    anchors = _anchors((ROOT / "docs" / "operations" / "monitoring.md").read_text())
    alerts = rules(rendered[variant])
    assert len({a["alert"] for a in alerts}) == len(alerts) == 7
    for alert in alerts:
        name = alert["alert"]
        assert set(alert) == {"alert", "expr", "for", "labels", "annotations"}, name
        assert alert["labels"]["service"] == JOB and alert["labels"]["visibility"] == "operator", name
        assert alert["labels"]["severity"] in {"critical", "warning"}, name
        assert set(alert["annotations"]) == {"summary", "description", "runbook_url"}, name
        url, _, anchor = alert["annotations"]["runbook_url"].partition("#")
        assert url == RUNBOOKS and anchor == name.lower(), name
        assert anchor in anchors, f"{name}: docs/operations/monitoring.md has no heading for #{anchor}"


def _number(node: promql_parser.Expr) -> float:
    """The value of a constant expression (a number, or numbers combined by + - * /)."""
    if isinstance(node, promql_parser.NumberLiteral):
        return float(node.val)
    assert isinstance(node, promql_parser.BinaryExpr), node
    ops = {"+": float.__add__, "-": float.__sub__, "*": float.__mul__, "/": float.__truediv__}
    return ops[str(node.op)](_number(node.lhs), _number(node.rhs))


def _threshold(alerts: list[Object], name: str) -> tuple[str, float]:
    """(comparison, bound) of an alert `<expression> <comparison> <constant>`."""
    (alert,) = (a for a in alerts if a["alert"] == name)
    tree = promql_parser.parse(alert["expr"])
    assert isinstance(tree, promql_parser.BinaryExpr), name
    return str(tree.op), _number(tree.rhs)


def test_thresholds_follow_the_webhook_configuration_and_settings(rendered: dict[str, list[Object]]) -> None:
    alerts = rules(rendered["garden"])
    configurations = [
        path
        for cluster in VARIANTS
        for path in (ROOT / "manifests/components" / cluster).rglob("validatingwebhookconfiguration.yaml")
    ]
    assert configurations
    timeouts = {w["timeoutSeconds"] for path in configurations for w in yaml.safe_load(path.read_text())["webhooks"]}
    (timeout,) = timeouts
    op, slow = _threshold(alerts, "GardenerWebhookSlow")
    assert (op, slow) == (">", timeout / 2) and slow in DURATION_BUCKETS_SECONDS  # a bucket bound: p99 is exact there
    assert _threshold(alerts, "GardenerWebhookClusterViewStale") == (">", ClusterSettings().max_staleness_seconds)
    assert _threshold(alerts, "GardenerWebhookCertificateExpiresSoon") == ("<", 7 * 24 * 3600)
    dashboard = dashboard_of(rendered["garden"])
    lines = {p["title"]: [t["value"] for t in p.get("thresholds", [])] for p in panels(dashboard)}
    assert lines["Latency by kind"] == [slow]  # the dashboard draws the alerts' thresholds
    assert lines["Staleness by kind"] == [ClusterSettings().max_staleness_seconds]
    assert lines["Certificate expiry by Pod"] == [7 * 24 * 3600]


def test_the_handshake_alert_watches_refused_callers_only(rendered: dict[str, list[Object]]) -> None:
    """Every reason it names is one the server counts; a TCP probe (closed) and a silent client (timeout) are not
    refused callers, every other reason but `other` is."""
    (alert,) = (a for a in rules(rendered["garden"]) if a["alert"] == "GardenerWebhookTLSHandshakeFailures")
    (selector,) = _selectors(alert["expr"])
    (reasons,) = (m for m in selector.matchers.matchers if m.name == "reason")
    assert reasons.op == promql_parser.MatchOp.Re
    watched = set(reasons.value.split("|"))
    assert watched == {r.value for r in HandshakeFailure} - {"closed", "timeout", "other"}


@pytest.mark.skipif(PROMTOOL is None, reason="promtool is not installed (Debian/Ubuntu: apt-get install prometheus)")
def test_promtool_checks_the_rules_and_runs_their_unit_tests(rendered: dict[str, list[Object]], tmp_path: Path) -> None:
    spec = one(rendered["garden"], "PrometheusRule")["spec"]
    checked = tmp_path / "checked.yaml"
    checked.write_text(yaml.safe_dump(spec))
    done = subprocess.run(
        [str(PROMTOOL), "check", "rules", str(checked)], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0 and "SUCCESS: 7 rules found" in done.stdout, done.stdout + done.stderr

    bare = copy.deepcopy(spec)  # the unit tests pin when alerts fire and their labels, not the prose
    for rule in (r for group in bare["groups"] for r in group["rules"]):
        del rule["annotations"]
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(bare))
    shutil.copy(Path(__file__).parent / "promtool" / "alerts_test.yaml", tmp_path)
    done = subprocess.run(
        [str(PROMTOOL), "test", "rules", "alerts_test.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# -------------------------------------------------------------------------------------------- PromQL


def _selectors(expr: str | promql_parser.Expr) -> list[promql_parser.VectorSelector]:
    """Every series selector of expr (a query or a node of its parse tree), those of range vectors included."""
    found: list[promql_parser.VectorSelector] = []

    def visit(node: promql_parser.Expr) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            found.append(node)

    promql_parser.walk(promql_parser.parse(expr) if isinstance(expr, str) else expr, visit)
    return found


def _names(expr: str) -> set[str]:
    names = {s.name for s in _selectors(expr)}
    assert None not in names, f"a selector without a metric name in {expr}"
    return {n for n in names if n is not None}


def _grouping(expr: str) -> list[tuple[list[str], set[str]]]:
    """(labels of a `by (…)`, metric names below it) of every aggregation of expr."""
    found: list[tuple[list[str], set[str]]] = []

    def visit(node: promql_parser.Expr) -> None:
        modifier = node.modifier if isinstance(node, promql_parser.AggregateExpr) else None
        if modifier is not None and modifier.type == promql_parser.AggModifierType.By:
            assert isinstance(node, promql_parser.AggregateExpr)
            found.append((list(modifier.labels), {s.name for s in _selectors(node.expr) if s.name}))

    promql_parser.walk(promql_parser.parse(expr), visit)
    return found


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_query_parses(rendered: dict[str, list[Object]], variant: str) -> None:
    errors = []
    queries = list(expressions(rendered[variant]))
    for where, expr in queries:
        try:
            promql_parser.parse(expr)
        except ValueError as exc:
            errors.append(f"{where}: {exc}: {expr}")
    assert errors == [] and len(queries) > 20
    with pytest.raises(ValueError, match="binary expression must contain only scalar and instant vector types"):
        promql_parser.parse("gardener_webhook_requests_total[5m] > 1")  # the parser type-checks, too


Samples = dict[str, list[dict[str, str]]]  # sample name -> the label sets it has on /metrics


def _unexported(queries: list[tuple[str, str]], samples: Samples) -> list[str]:
    """What the queries name that the scrape lacks: metrics, labels matched on or grouped by, matched values."""
    problems = []
    for where, expr in queries:
        for selector in _selectors(expr):
            name = selector.name or ""
            if name in FROM_PROMETHEUS:
                continue
            if name not in samples:
                problems.append(f"{where}: {name} is not exported")
                continue
            for matcher in selector.matchers.matchers:
                values = {labels.get(matcher.name) for labels in samples[name]} - {None}
                if matcher.name in TARGET_LABELS:
                    continue
                if not values:
                    problems.append(f"{where}: {name} has no label {matcher.name}")
                elif matcher.op == promql_parser.MatchOp.Equal and matcher.value not in values:
                    problems.append(f"{where}: {name}{{{matcher.name}={matcher.value!r}}} never occurs")
        for labels, names in _grouping(expr):
            known = TARGET_LABELS.union(*(set(s) for n in names - FROM_PROMETHEUS for s in samples.get(n, [])))
            problems += [f"{where}: grouped by {label}, a label none of {sorted(names)} has" for label in labels
                         if label not in known]  # fmt: skip
    return problems


async def _scrape_after_reviews(tmp_path: Path, kubeconfig: Path) -> str:
    """/metrics of `serve --kubeconfig` (a live view) after an allowed, a denied and a warned review."""
    config = tmp_path / "config.yaml"
    config.write_text("rules:\n  CP-MI-005: warn\n")
    args = ["--kubeconfig", str(kubeconfig), "--config", str(config), "--drain-seconds", "0"]
    served = await asyncio.to_thread(ServeProcess, tmp_path, args)
    try:
        await asyncio.to_thread(wait_for, served.health_url + "/readyz", (200, "ok"))
        allowed = cloud_profile_dict()
        denied = cloud_profile_dict(kubernetes={"versions": [{"version": "1.33.2"}, {"version": "1.33.2"}]})
        warned = cloud_profile_dict(
            machineImages=[{"name": "gardenlinux", "updateStrategy": "sideways", "versions": [{"version": "1592.1.0"}]}]
        )
        connector = aiohttp.TCPConnector(ssl=served.client_context())
        async with aiohttp.ClientSession(connector=connector) as session:
            for raw, expected in ((allowed, True), (denied, False), (warned, True)):
                headers = {"Content-Type": "application/json"}
                async with session.post(served.url + "/validate", data=review_bytes(raw), headers=headers) as resp:
                    assert (await resp.json())["response"]["allowed"] is expected
            async with session.get(served.health_url + "/metrics") as resp:
                return await resp.text()
    finally:
        await asyncio.to_thread(served.stop)


async def test_every_metric_the_alerts_and_the_dashboard_name_is_exported(
    rendered: dict[str, list[Object]], aiohttp_server: Any, tmp_path: Path
) -> None:
    fake = FakeApiServer()
    server = await aiohttp_server(fake.app())
    fake.url = str(server.make_url("")).rstrip("/")
    text = await _scrape_after_reviews(tmp_path, write_kubeconfig(tmp_path, fake.url))
    samples: Samples = defaultdict(list)
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[sample.name].append(dict(sample.labels))

    queries = [q for variant in VARIANTS for q in expressions(rendered[variant])]
    assert _unexported(queries, samples) == []
    named = {name for _, expr in queries for name in _names(expr)}
    assert {"gardener_webhook_cluster_staleness_seconds", "gardener_webhook_rule_decisions_total"} <= named
    # The check has teeth: a misspelt metric, a label the metric lacks and a value it never has are each reported.
    typos = [("typo", 'gardener_webhook_request_total{job="gardener-webhook"}'),
             ("typo", 'sum by (rules) (gardener_webhook_rule_decisions_total{mode="denied"})')]  # fmt: skip
    assert _unexported(typos, samples) == [
        "typo: gardener_webhook_request_total is not exported",
        "typo: gardener_webhook_rule_decisions_total{mode='denied'} never occurs",
        "typo: grouped by rules, a label none of ['gardener_webhook_rule_decisions_total'] has",
    ]


# --------------------------------------------------------------------------------------------- dashboard


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("monitoring_dashboard", MONITORING / "dashboard.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_committed_dashboard_is_what_the_generator_writes(rendered: dict[str, list[Object]]) -> None:
    committed = (MONITORING / "base" / "dashboard.json").read_text()
    assert committed == _generator().render(), "run: .venv/bin/python manifests/monitoring/dashboard.py"
    for variant in VARIANTS:
        assert list(one(rendered[variant], "ConfigMap")["data"].values()) == [committed]


def test_the_dashboard_is_one_plutono_can_load(rendered: dict[str, list[Object]]) -> None:
    dashboard = dashboard_of(rendered["garden"])
    assert dashboard["uid"] == "gardener-webhook" and dashboard["schemaVersion"] <= PLUTONO_SCHEMA_VERSION
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(set(ids)) == len(ids)
    cells: set[tuple[int, int]] = set()
    for panel in dashboard["panels"]:
        assert panel["type"] in PLUTONO_PANELS, panel["type"]
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, panel["title"]
        columns, rows = range(grid["x"], grid["x"] + grid["w"]), range(grid["y"], grid["y"] + grid["h"])
        covered = {(x, y) for x in columns for y in rows}
        assert not covered & cells, f"{panel['title']} overlaps another panel"
        cells |= covered
    for panel in panels(dashboard):
        assert panel["datasource"] is None and panel["description"], panel["title"]  # the cluster's default Prometheus
        refs = [t["refId"] for t in panel["targets"]]
        assert refs and len(set(refs)) == len(refs), panel["title"]


def test_the_dashboard_shows_what_issue_14_asks_for(rendered: dict[str, list[Object]]) -> None:
    """Requests and latency per kind, decisions per rule, warnings, certificate expiry, view sync and staleness."""
    dashboard = dashboard_of(rendered["garden"])
    shown: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for panel in panels(dashboard):
        for target in panel["targets"]:
            expr = _substitute(target["expr"], {"$pod": ".+"})
            for labels, names in _grouping(expr) or [((), _names(expr))]:
                for name in names:
                    shown[name].add(tuple(labels))
    assert ("kind", "outcome") in shown["gardener_webhook_requests_total"]
    assert ("kind", "le") in shown["gardener_webhook_request_duration_seconds_bucket"]
    assert ("rule",) in shown["gardener_webhook_rule_decisions_total"]
    assert ("kind",) in shown["gardener_webhook_warnings_total"]
    assert shown["gardener_webhook_certificate_expiry_seconds"] and shown["gardener_webhook_cluster_synced"]
    assert ("kind",) in shown["gardener_webhook_cluster_staleness_seconds"]
    assert ("reason",) in shown["gardener_webhook_tls_handshake_failures_total"]
    assert ("certificate", "result") in shown["gardener_webhook_certificate_reloads_total"]
