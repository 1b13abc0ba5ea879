"""Configuration file and environment (DESIGN.md §6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.field import Mode
from webhook.settings import ConfigError, load_settings
from webhook.validators import ALL_RULES


def test_defaults_without_file() -> None:
    s = load_settings(None, known_rules=ALL_RULES)
    assert (s.expiry_warning_days, s.feature_gates.version_classification_lifecycle, s.cluster.fail_closed) == (30, False, True)


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
    assert (s.expiry_warning_days, s.feature_gates.version_classification_lifecycle, s.cluster.resync_seconds) == (14, True, 300)


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
