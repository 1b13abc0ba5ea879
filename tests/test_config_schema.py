"""webhook/cli/config_schema.py: the committed manifests/config.schema.json is the generator's output, and the schema
accepts exactly what load_settings accepts, but for the two checks it leaves to load_settings (known rule ids,
relations between keys)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest
import yaml

from webhook.cli import main
from webhook.cli.config_schema import RULE_ID_PATTERN
from webhook.settings import ConfigError, load_settings
from webhook.validators import ALL_RULES

ROOT: Final = Path(__file__).resolve().parents[1]
SCHEMA_FILE: Final = ROOT / "manifests" / "config.schema.json"
VALIDATOR: Final = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def test_the_committed_schema_is_what_config_schema_prints() -> None:
    """Regenerate with `.venv/bin/gardener-webhook config-schema > manifests/config.schema.json`."""
    out = io.StringIO()
    assert main(["config-schema"], out=out) == 0
    assert SCHEMA_FILE.read_text(encoding="utf-8") == out.getvalue()


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(VALIDATOR.schema)
    assert VALIDATOR.schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_rule_id_has_the_shape_the_schema_allows() -> None:
    assert ALL_RULES and all(re.fullmatch(RULE_ID_PATTERN, rule_id) for rule_id in ALL_RULES)


def _schema_accepts(config: Any) -> bool:
    return VALIDATOR.is_valid(config)


def _loader_accepts(text: str, tmp_path: Path) -> bool:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        load_settings(path, known_rules=ALL_RULES)
    except ConfigError:
        return False
    return True


AGREED: Final = [
    pytest.param("{}\n", True, id="empty"),
    pytest.param(
        "rules: {CP-K8S-004: warn, SH-ADM-REF-001: 'off', OBJ-DECODE-001: deny}\n"
        "exemptions: {users: [system:serviceaccount:garden:gardener-controller-manager], groups: [ops]}\n"
        "expiryWarningDays: 14\nworkerCriUnsupportedImages: [memoryone-gardenlinux]\n"
        "featureGates: {VersionClassificationLifecycle: true, CloudProfileCapabilities: false, InPlaceNodeUpdates: true}\n"
        "cluster: {failClosed: false, resyncSeconds: 300, maxStalenessSeconds: 12.5}\n",
        True,
        id="every-key",
    ),
    pytest.param("unknown: 1\n", False, id="unknown-key"),
    pytest.param("expiry_warning_days: 14\n", False, id="snake-case-key"),
    pytest.param("ExpiryWarningDays: 14\n", False, id="wrong-case-key"),
    pytest.param("expiryWarningDays: many\n", False, id="not-a-number"),
    pytest.param("expiryWarningDays: -1\n", False, id="below-minimum"),
    pytest.param("expiryWarningDays: 3651\n", False, id="above-maximum"),
    pytest.param("rules: {CP-K8S-004: maybe}\n", False, id="unknown-mode"),
    pytest.param("rules: {cp-k8s-004: warn}\n", False, id="rule-id-shape"),
    pytest.param("featureGates: {NoSuchGate: true}\n", False, id="unknown-gate"),
    pytest.param("cluster: {failOpen: true}\n", False, id="unknown-cluster-key"),
    pytest.param("cluster: {resyncSeconds: 5}\n", False, id="resync-below-minimum"),
    pytest.param("exemptions: {users: system:admin}\n", False, id="users-not-a-list"),
    pytest.param("exemptions: {teams: [a]}\n", False, id="unknown-exemption-key"),
]


@pytest.mark.parametrize(("text", "accepted"), AGREED)
def test_the_schema_accepts_what_load_settings_accepts(text: str, accepted: bool, tmp_path: Path) -> None:
    assert (_schema_accepts(yaml.safe_load(text)), _loader_accepts(text, tmp_path)) == (accepted, accepted)


@pytest.mark.parametrize(
    ("text", "schema", "loader"),
    [
        pytest.param("rules: {CP-K8S-999: warn}\n", True, False, id="rule-no-validator-defines"),
        pytest.param(
            "cluster: {resyncSeconds: 60, maxStalenessSeconds: 61}\n", True, False, id="staleness-above-resync"
        ),
        pytest.param("featureGates: {version_classification_lifecycle: true}\n", False, True, id="gate-python-name"),
        pytest.param("cluster: {fail_closed: false}\n", False, True, id="section-key-python-name"),
    ],
)
def test_where_the_schema_and_load_settings_differ(text: str, schema: bool, loader: bool, tmp_path: Path) -> None:
    """The schema checks a rule id's shape and each key alone (start-up refuses the rest, with a message), and knows
    only the documented spelling, where load_settings also takes a section's keys by their Python names."""
    assert (_schema_accepts(yaml.safe_load(text)), _loader_accepts(text, tmp_path)) == (schema, loader)


def test_the_readme_example_configuration_validates() -> None:
    VALIDATOR.validate(yaml.safe_load((ROOT / "examples" / "config.yaml").read_text(encoding="utf-8")))
