"""Configuration file and environment (docs/design.md §6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from webhook.domain.field import Mode
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


def test_an_unquoted_off_is_the_mode_off(tmp_path: Path) -> None:
    """PyYAML reads `off` as false (YAML 1.1); the file means the mode, as editors (YAML 1.2) read it too."""
    path = tmp_path / "c.yaml"
    path.write_text("rules: {CP-K8S-004: off, CP-WARN-001: 'off', CP-K8S-008: warn}\n")
    s = load_settings(path, known_rules=ALL_RULES)
    assert s.rules == {"CP-K8S-004": Mode.OFF, "CP-WARN-001": Mode.OFF, "CP-K8S-008": Mode.WARN}


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("unknown: 1\n", "unknown"),
        ("rules: {CP-K8S-004: on}\n", "CP-K8S-004"),
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


VIRTUAL_GARDEN_SOURCES = """\
cluster:
  sources:
    - name: virtual-garden
      kubeconfig: /var/run/secrets/gardener-webhook/virtual-garden/kubeconfig
      context: virtual-garden
      kinds: [CloudProfile, NamespacedCloudProfile, Shoot, Seed, ConfigMap]
    - name: runtime
      inCluster: true
      kinds: [Deployment]
"""


def test_cluster_sources_name_the_cluster_of_each_kind(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(VIRTUAL_GARDEN_SOURCES)
    sources = load_settings(path, known_rules=ALL_RULES).cluster.sources
    assert [(s.name, s.kubeconfig, s.context, s.in_cluster, s.kinds) for s in sources] == [
        ("virtual-garden", Path("/var/run/secrets/gardener-webhook/virtual-garden/kubeconfig"), "virtual-garden",
         False, ("CloudProfile", "NamespacedCloudProfile", "Shoot", "Seed", "ConfigMap")),
        ("runtime", None, None, True, ("Deployment",)),
    ]  # fmt: skip
    assert load_settings(None, known_rules=ALL_RULES).cluster.sources == ()


def test_cluster_sources_from_the_environment_as_json_replace_the_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(VIRTUAL_GARDEN_SOURCES)
    monkeypatch.setenv("GARDENER_WEBHOOK_CLUSTER__SOURCES", '[{"name": "all", "inCluster": true, "kinds": ["Shoot"]}]')
    sources = load_settings(path, known_rules=ALL_RULES).cluster.sources
    assert [(s.name, s.in_cluster, s.kinds) for s in sources] == [("all", True, ("Shoot",))]


KINDS_TEXT = "CloudProfile, NamespacedCloudProfile, Shoot, Seed, Deployment, ConfigMap"
ONE_CLUSTER = "cluster.sources[0]: source 'a': give exactly one of kubeconfig (a file) or inCluster: true"


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        pytest.param("[{name: a, inCluster: true, kinds: [Shot]}]",
                     f"cluster.sources[0].kinds: unknown kind Shot; the cluster view's kinds are {KINDS_TEXT}",
                     id="unknown-kind"),
        pytest.param("[{name: a, inCluster: true, kinds: [Shoot]}, {name: b, inCluster: true, kinds: [Seed, Shoot]}]",
                     "cluster.sources: kind Shoot is named by sources 'a' and 'b'; each kind comes from one cluster",
                     id="kind-in-two-sources"),
        pytest.param("[{name: a, inCluster: true, kinds: [Shoot, Shoot]}]",
                     "cluster.sources[0].kinds: kind Shoot named twice", id="kind-twice-in-one-source"),
        pytest.param("[{name: a, kubeconfig: k, inCluster: true, kinds: [Shoot]}]", ONE_CLUSTER,
                     id="both-kubeconfig-and-in-cluster"),
        pytest.param("[{name: a, inCluster: false, kinds: [Shoot]}]", ONE_CLUSTER, id="neither-kubeconfig-nor-in-cluster"),
        pytest.param("[{name: a, inCluster: true, context: x, kinds: [Shoot]}]",
                     "cluster.sources[0]: source 'a': context selects a kubeconfig context; it needs kubeconfig",
                     id="context-without-kubeconfig"),
        pytest.param("[{name: a, inCluster: true, kinds: [Shoot]}, {name: a, inCluster: true, kinds: [Seed]}]",
                     "cluster.sources: source name 'a' used twice", id="name-twice"),
        pytest.param("[{name: Virtual_Garden, inCluster: true, kinds: [Shoot]}]",
                     "cluster.sources[0].name: 'Virtual_Garden' must be a DNS label: at most 63 lower-case letters, "
                     "digits and '-'", id="name-not-a-dns-label"),
        pytest.param("[{name: a, inCluster: true, kinds: []}]",
                     "cluster.sources[0].kinds: Tuple should have at least 1 item", id="no-kinds"),
        pytest.param("[{name: a, inCluster: true}]", "cluster.sources[0].kinds: Field required", id="kinds-missing"),
        pytest.param("[{name: a, in-cluster: true, kinds: [Shoot]}]",
                     "unknown configuration key 'cluster.sources[0].in-cluster'", id="unknown-key"),
    ],
)  # fmt: skip
def test_bad_cluster_sources_are_refused_in_one_line_naming_the_key(tmp_path: Path, sources: str, message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"cluster: {{sources: {sources}}}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(path, known_rules=ALL_RULES)
    assert str(caught.value).startswith(f"--config {path}: {message}")
    assert "\n" not in str(caught.value)
