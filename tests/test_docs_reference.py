"""docs/reference/*.md: each page is what tests/docs_reference.py generates, and covers everything it documents.

Staleness: each page on disk equals the generator's output. Completeness, checked without the generator's own walk
where that is reasonable: every sub-command and option string of the CLI's parsers is in cli.md; every key of
manifests/config.schema.json is in configuration.md; every metric a registry assembled as the server assembles it
exposes (after one request of every kind was counted) is in metrics.md; every app the server code constructs is
one the page documents, and every route path is on it; every rule id of ALL_RULES has a heading in rules.md with a
denied (or, for a warn rule, warned) and an allowed example; the Gardener links use the commit docs/rules.md names.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

import pytest

from tests import docs_reference
from tests.docs_reference import ALLOWED_LABEL, DENIED_LABEL, REFERENCE, ROOT

# Rules for which the tests' cases give no denied or no allowed example (tests.docs_reference.rule_examples); a rule
# that gains one leaves this list, and one that loses its example fails until it is named here.
WITHOUT_EXAMPLES: Final[frozenset[str]] = frozenset()


@cache
def _pages() -> Mapping[Path, str]:
    return docs_reference.pages()  # runs the tests' rule cases once (about ten seconds)


def _text(name: str) -> str:
    return (REFERENCE / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["cli.md", "configuration.md", "metrics.md", "rules.md", "http.md"])
def test_page_is_current(name: str) -> None:
    path = REFERENCE / name
    expected = _pages()[path]
    assert path.is_file(), f"docs/reference/{name} is missing: run python -m tests.docs_reference --write"
    assert path.read_text(encoding="utf-8") == expected, (
        f"docs/reference/{name} is stale: run python -m tests.docs_reference --write"
    )


def test_every_page_says_it_is_generated() -> None:
    for path in _pages():
        assert path.read_text(encoding="utf-8").startswith(docs_reference.HEADER + "\n"), path


# ------------------------------------------------------------------------------------------------------------ cli


def _parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield parser.prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def test_cli_page_names_every_sub_command_and_option() -> None:
    from webhook.cli import build_parser

    text = _text("cli.md")
    sections = dict(re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL))
    for prog, parser in _parsers(build_parser()):
        assert prog in sections, f"cli.md has no section for {prog}"
        for action in parser._actions:
            for flag in action.option_strings:
                assert f"`{flag}`" in sections[prog], f"cli.md: {prog} lacks {flag}"
            if not action.option_strings and not isinstance(action, argparse._SubParsersAction):
                assert f"`{action.dest}`" in sections[prog], f"cli.md: {prog} lacks its argument {action.dest}"
            if action.choices and not isinstance(action, argparse._SubParsersAction):
                for choice in action.choices:
                    assert f"`{choice}`" in sections[prog], f"cli.md: {prog} lacks choice {choice}"


# -------------------------------------------------------------------------------------------------- configuration


def _schema_paths(schema: Mapping[str, Any]) -> Iterator[str]:
    """Every key of a JSON Schema as a dotted path, list entries as `[]`, free map keys as `<key>`."""

    def resolve(node: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = node.get("$ref")
        return {**resolve(schema["$defs"][ref.split("/")[-1]]), **node} if isinstance(ref, str) else node

    def walk(node: Mapping[str, Any], path: str) -> Iterator[str]:
        node = resolve(node)
        for key, child in node.get("properties", {}).items():
            dotted = f"{path}.{key}" if path else key
            yield dotted
            yield from walk(child, dotted)
        if isinstance(node.get("items"), dict):
            yield from walk(node["items"], f"{path}[]")
        if isinstance(node.get("additionalProperties"), dict):
            yield f"{path}.<key>"

    yield from walk(schema, "")


def test_configuration_page_names_every_schema_key() -> None:
    schema = json.loads((ROOT / "manifests" / "config.schema.json").read_text(encoding="utf-8"))
    text = _text("configuration.md")
    paths = list(_schema_paths(schema))
    assert "cluster.sources[].kinds" in paths  # the walk reaches list entries
    for path in paths:
        assert f"| `{path}` |" in text, f"configuration.md has no row for {path}"


# -------------------------------------------------------------------------------------------------------- metrics


def _server_registry() -> Any:
    """A registry holding what one server process (serve._assemble, serve_forever) and the --workers parent register,
    with one request of every outcome, a consistent read and a live view's gauges, so every series exists."""
    from prometheus_client import CollectorRegistry

    from webhook.server.metrics import CertificateMetrics, ClusterCollector, HandshakeMetrics, Metrics, RequestOutcome
    from webhook.server.serve import ServeOptions
    from webhook.server.workers import _Supervisor

    registry = CollectorRegistry()
    metrics = Metrics.create(registry)
    for outcome in RequestOutcome:
        metrics.observe(kind="Shoot", operation="CREATE", outcome=outcome, seconds=0.001, denied_rules=["SH-WRK-001"],
                        warned_rules=["SH-WARN-001"], warnings=1)  # fmt: skip
    metrics.consistent_read("Shoot", "current")
    CertificateMetrics.create(registry)
    HandshakeMetrics.create(registry)
    registry.register(
        ClusterCollector(
            synced=lambda: True,
            counts=lambda: {"Shoot": 1},
            staleness=lambda: {"Shoot": 0.0},
            not_found=lambda: {"Shoot": 0},
        )
    )
    supervisor = _Supervisor(ServeOptions(certs_root=ROOT), b"", io.StringIO(), tls_url="")
    supervisor.up.labels("0").set(1)
    supervisor.restarts.labels("0").inc()
    return registry, supervisor.registry


def test_metrics_page_names_every_metric_and_series() -> None:
    from prometheus_client import generate_latest

    text = _text("metrics.md")
    names: set[str] = set()
    for registry in _server_registry():
        exposition = generate_latest(registry).decode()
        names |= set(re.findall(r"^# TYPE (\S+) ", exposition, re.MULTILINE))
        names |= set(re.findall(r"^([A-Za-z_:][\w:]*)", exposition, re.MULTILINE))
    assert "gardener_webhook_request_duration_seconds_bucket" in names
    for name in sorted(names):
        assert f"`{name}`" in text, f"metrics.md does not name {name}"


# ----------------------------------------------------------------------------------------------------------- http


def test_every_app_the_server_builds_is_documented() -> None:
    """Each `web.Application(...)` under webhook/server/ stands in the factory of one documented app."""
    documented = {app.factory.__qualname__ for app in docs_reference.server_apps()}
    found: set[str] = set()
    for path in sorted((ROOT / "webhook" / "server").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for scope in ast.walk(tree):
            if not isinstance(scope, ast.ClassDef | ast.Module):
                continue
            for node in scope.body:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                    isinstance(n, ast.Call) and ast.unparse(n.func) == "web.Application" for n in ast.walk(node)
                ):
                    found.add(f"{scope.name}.{node.name}" if isinstance(scope, ast.ClassDef) else node.name)
    assert found == documented


def test_http_page_names_every_route() -> None:
    text = _text("http.md")
    for app in docs_reference.server_apps():
        for route in app.app.router.routes():
            assert f"### {route.method} {route.resource.canonical} " in text or route.method == "HEAD"
            assert f"`{route.resource.canonical}`" in text


# ---------------------------------------------------------------------------------------------------------- rules


def _rule_sections() -> dict[str, str]:
    text = _text("rules.md")
    return dict(re.findall(r"^### (\S+)\n(.*?)(?=^##+ |\Z)", text, re.MULTILINE | re.DOTALL))


def test_every_rule_has_a_heading() -> None:
    from webhook.validators import ALL_RULES

    sections = _rule_sections()
    assert set(ALL_RULES) <= set(sections), sorted(set(ALL_RULES) - set(sections))


def test_every_rule_has_a_denied_and_an_allowed_example() -> None:
    from webhook.validators import ALL_RULES

    sections = _rule_sections()
    missing = set()
    for rule_id, rule in ALL_RULES.items():
        body = sections[rule_id]
        denied = f"- {DENIED_LABEL[rule.mode.value == 'warn']} `tests/"
        allowed = f"- {ALLOWED_LABEL} `tests/"
        if denied not in body or allowed not in body:
            missing.add(rule_id)
    assert missing == WITHOUT_EXAMPLES, sorted(missing ^ WITHOUT_EXAMPLES)


def test_gardener_links_use_the_commit_the_catalogue_names() -> None:
    from webhook.domain.skew import GARDENER_COMMIT

    named = re.search(r"at commit `([0-9a-f]{40})`", (ROOT / "docs" / "rules.md").read_text(encoding="utf-8"))
    assert named is not None and named[1] == GARDENER_COMMIT
    commits = set(re.findall(r"https://github\.com/gardener/gardener/blob/([0-9a-f]+)/", _text("rules.md")))
    assert commits == {GARDENER_COMMIT}


def test_every_example_case_exists() -> None:
    """The test cases the examples name are real: their file holds the test function (and the case id)."""
    for case in set(re.findall(r"`(tests/[\w/]+\.py::[^`]+)`", _text("rules.md"))):
        file, _, rest = case.partition("::")
        function, _, case_id = rest.partition("[")
        source = (ROOT / file).read_text(encoding="utf-8")
        assert f"def {function.split(' ')[0]}(" in source, case
        assert not case_id or case_id.removesuffix("]") in source, case  # an id= of the case, or what ids= makes
