"""Configuration file and environment (DESIGN.md §6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.field import Mode
from webhook.settings import ConfigError, load_settings
from webhook.validators import ALL_RULES


def test_defaults_without_file() -> None:
    s = load_settings(None, known_rules=ALL_RULES)
    assert (s.expiry_warning_days, s.feature_gates.version_classification_lifecycle, s.cluster.fail_closed) == (
        30,
        False,
        True,
    )


def test_full_file(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "rules: {CP-K8S-004: warn}\n"
        "exemptions: {users: [system:serviceaccount:garden:gardener-controller-manager], groups: [ops]}\n"
        "expiryWarningDays: 14\n"
        "featureGates: {VersionClassificationLifecycle: true}\n"
        "cluster: {failClosed: false, resyncSeconds: 300}\n"
    )
    s = load_settings(path, known_rules=ALL_RULES)
    assert s.rules == {"CP-K8S-004": Mode.WARN}
    assert s.exemptions.groups == ("ops",)
    assert (s.expiry_warning_days, s.feature_gates.version_classification_lifecycle, s.cluster.resync_seconds) == (
        14,
        True,
        300,
    )


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("unknown: 1\n", "unknown"),
        ("featureGates: {NoSuchGate: true}\n", "NoSuchGate"),
        ("cluster: {failOpen: true}\n", "failOpen"),
        ("expiryWarningDays: many\n", "expiryWarningDays"),
        ("rules: {CP-K8S-004: maybe}\n", "rules"),
        ("- a list\n", "mapping"),
    ],
)
def test_bad_files_are_refused(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=needle):
        load_settings(path, known_rules=ALL_RULES)


def test_environment_variable_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("expiryWarningDays: 14\n")
    monkeypatch.setenv("GARDENER_WEBHOOK_EXPIRY_WARNING_DAYS", "7")
    assert load_settings(path, known_rules=ALL_RULES).expiry_warning_days == 7


def test_credentials_rotation_interval_days(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """gardener-apiserver's --shoot-credentials-rotation-interval: 90 days by default, 24 hours to 2^32 seconds."""
    assert load_settings(None, known_rules=ALL_RULES).credentials_rotation_interval_days == 90
    path = tmp_path / "c.yaml"
    path.write_text("credentialsRotationIntervalDays: 30\n")
    assert load_settings(path, known_rules=ALL_RULES).credentials_rotation_interval_days == 30
    monkeypatch.setenv("GARDENER_WEBHOOK_CREDENTIALS_ROTATION_INTERVAL_DAYS", "7")
    assert load_settings(path, known_rules=ALL_RULES).credentials_rotation_interval_days == 7
    path.write_text("credentialsRotationIntervalDays: 0\n")
    monkeypatch.delenv("GARDENER_WEBHOOK_CREDENTIALS_ROTATION_INTERVAL_DAYS")
    with pytest.raises(ConfigError, match="credentialsRotationIntervalDays"):
        load_settings(path, known_rules=ALL_RULES)


def test_max_staleness_defaults_to_thirty_seconds_and_is_read_from_file_and_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert load_settings(None, known_rules=ALL_RULES).cluster.max_staleness_seconds == 30.0
    path = tmp_path / "c.yaml"
    path.write_text("cluster: {maxStalenessSeconds: 12.5, resyncSeconds: 60}\n")
    assert load_settings(path, known_rules=ALL_RULES).cluster.max_staleness_seconds == 12.5
    monkeypatch.setenv("GARDENER_WEBHOOK_CLUSTER__MAX_STALENESS_SECONDS", "45")
    assert load_settings(None, known_rules=ALL_RULES).cluster.max_staleness_seconds == 45.0


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        ("{maxStalenessSeconds: 0}", "cluster.maxStalenessSeconds: Input should be greater than or equal to 5"),
        ("{maxStalenessSeconds: -1}", "cluster.maxStalenessSeconds: Input should be greater than or equal to 5"),
        ("{maxStalenessSeconds: 700}", "maxStalenessSeconds (700) must not exceed resyncSeconds (600)"),
        ("{resyncSeconds: 20}", "maxStalenessSeconds (30) must not exceed resyncSeconds (20)"),
    ],
    ids=["zero", "negative", "beyond-the-default-resync", "default-beyond-a-short-resync"],
)
def test_max_staleness_must_be_positive_and_within_the_resync_period(
    tmp_path: Path, cluster: str, message: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"cluster: {cluster}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path, known_rules=ALL_RULES)
    assert str(caught.value).startswith(f"--config {path}: ") and message in str(caught.value)


def test_a_nested_key_set_in_the_file_and_the_environment_takes_the_environments_value(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("cluster: {resyncSeconds: 600, failClosed: false}\nfeatureGates: {InPlaceNodeUpdates: false}\n")
    monkeypatch.setenv("GARDENER_WEBHOOK_CLUSTER__RESYNC_SECONDS", "300")
    monkeypatch.setenv("GARDENER_WEBHOOK_FEATURE_GATES__IN_PLACE_NODE_UPDATES", "true")
    settings = load_settings(path, known_rules=ALL_RULES)
    assert (settings.cluster.resync_seconds, settings.cluster.fail_closed) == (300, False)
    assert settings.feature_gates.in_place_node_updates is True
