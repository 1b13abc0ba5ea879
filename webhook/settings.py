"""Configuration: the YAML file of docs/design.md §6, environment variables, and their validation.

Precedence, highest first: environment (`GARDENER_WEBHOOK_*`), the `--config` file, the defaults below.
The file uses the documented camelCase keys; unknown keys and bad values are refused at start-up with a
message that names the key. Settings are built once (by the CLI) and passed down; nothing reads a global.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel, to_snake
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from webhook.cluster.view import KINDS
from webhook.domain.field import FieldPath, Mode


class ConfigError(ValueError):
    """Raised for an unreadable or invalid configuration; the message names the offending key."""


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True)


class Exemptions(_Section):
    """Users and groups whose requests are never denied: their findings become warnings.

    users: user names as the API server authenticated them (`system:serviceaccount:<namespace>:<name>` for a
    ServiceAccount), compared exactly.
    groups: group names of the request's user info (`system:serviceaccounts:<namespace>`, a team's group), compared
    exactly.
    """

    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()


class FeatureGates(BaseModel):
    """Gardener feature gates that change rules; defaults are gardener-apiserver's (docs/rules.md §0.4).

    version_classification_lifecycle: a version's `lifecycle` list (classification stages with start times) is
    allowed and judged (CP-LC-*); off, setting it is refused (CP-LC-000).
    cloud_profile_capabilities: `spec.machineCapabilities` may be set (off: CP-CAP-001 refuses it); the capability
    flavors of images and machine types are judged against it (CP-CAP-*).
    in_place_node_updates: worker pools may use the in-place update strategies (SH-INP-001).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True)

    version_classification_lifecycle: bool = Field(default=False, alias="VersionClassificationLifecycle")
    cloud_profile_capabilities: bool = Field(default=True, alias="CloudProfileCapabilities")
    in_place_node_updates: bool = Field(default=False, alias="InPlaceNodeUpdates")


_DNS_LABEL: Final = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


class ClusterSource(_Section):
    """One cluster the live view reads some of its kinds from (an entry of `cluster.sources`).

    name: names the source in logs and errors (a DNS label: lower-case letters, digits and '-', at most 63).
    kubeconfig: path of a kubeconfig file, read when the view is built (e.g. a token kubeconfig for a ServiceAccount
    of the virtual garden, mounted from a Secret); in_cluster: the cluster this Pod runs in (its ServiceAccount).
    Exactly one of the two. context: a context of that kubeconfig other than its current one (kubeconfig only).
    kinds: the view's kinds (`cluster.view.KINDS`: CloudProfile, NamespacedCloudProfile, Shoot, Seed, Deployment,
    ConfigMap) read from this cluster, at least one; `ClusterSettings` refuses a kind named by two sources.
    """

    name: str
    kubeconfig: Path | None = None
    in_cluster: bool = False
    context: str | None = Field(default=None, min_length=1)
    kinds: tuple[str, ...] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _dns_label(cls, name: str) -> str:
        if not _DNS_LABEL.fullmatch(name):
            raise ValueError(f"{name!r} must be a DNS label: at most 63 lower-case letters, digits and '-'")
        return name

    @field_validator("kinds")
    @classmethod
    def _tracked_kinds(cls, kinds: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [kind for kind in kinds if kind not in KINDS]
        if unknown:
            raise ValueError(f"unknown kind {', '.join(unknown)}; the cluster view's kinds are {', '.join(KINDS)}")
        repeated = sorted({kind for kind in kinds if kinds.count(kind) > 1})
        if repeated:
            raise ValueError(f"kind {', '.join(repeated)} named twice")
        return kinds

    @model_validator(mode="after")
    def _one_cluster(self) -> ClusterSource:
        if (self.kubeconfig is not None) == self.in_cluster:
            raise ValueError(f"source {self.name!r}: give exactly one of kubeconfig (a file) or inCluster: true")
        if self.context is not None and self.kubeconfig is None:
            raise ValueError(f"source {self.name!r}: context selects a kubeconfig context; it needs kubeconfig")
        return self


class ClusterSettings(_Section):
    """Cluster view behaviour.

    fail_closed: deny (True) or warn while the cluster state a finding needs is unknown (CLUSTER-001).
    resync_seconds: period of the live view's full relist (seconds, >= 10).
    max_staleness_seconds: a kind of the live view whose last list, watch event or bookmark (or a watch that the
    server ended at its timeout) is older than this is stale, and findings that read it become CLUSTER-001
    (seconds, >= 5 and <= resync_seconds).
    The live view asks the API server to end each watch within a third to two thirds of it, so a healthy kind
    without events is confirmed in time. At least 5 s so that a few quick reconnects do not make a kind stale; at
    most the relist period, since a bound looser than the periodic relist (the repair for lost events) would let
    the view be trusted although it missed a whole relist.
    sources: which cluster each kind of the live view is read from (`ClusterSource`; names unique, each kind in one
    source at most). Kinds no source names come from the cluster of `--kubeconfig`/`--in-cluster` (the CLI refuses
    to start when neither is given). Empty (the default): every kind from that cluster.
    """

    fail_closed: bool = True
    resync_seconds: int = Field(default=600, ge=10)
    max_staleness_seconds: float = Field(default=30.0, ge=5.0)
    sources: tuple[ClusterSource, ...] = ()

    @field_validator("sources")
    @classmethod
    def _each_kind_from_one_source(cls, sources: tuple[ClusterSource, ...]) -> tuple[ClusterSource, ...]:
        names: set[str] = set()
        owner: dict[str, str] = {}
        for source in sources:
            if source.name in names:
                raise ValueError(f"source name {source.name!r} used twice")
            names.add(source.name)
            for kind in source.kinds:
                if kind in owner:
                    raise ValueError(
                        f"kind {kind} is named by sources {owner[kind]!r} and {source.name!r}; each kind comes from "
                        "one cluster"
                    )
                owner[kind] = source.name
        return sources

    @model_validator(mode="after")
    def _staleness_within_resync(self) -> ClusterSettings:
        if self.max_staleness_seconds > self.resync_seconds:
            raise ValueError(
                f"maxStalenessSeconds ({self.max_staleness_seconds:g}) must not exceed resyncSeconds "
                f"({self.resync_seconds}); lower maxStalenessSeconds with it"
            )
        return self


class Settings(BaseSettings):
    """Everything a validator may consult besides the request and the cluster view.

    rules: rule id -> mode (deny | warn | off), overriding each rule's default.
    exemptions: users / groups whose findings never deny.
    expiry_warning_days: warn when a version expires within this many days (days, >= 0).
    feature_gates: Gardener feature gates (VersionClassificationLifecycle, CloudProfileCapabilities, …).
    cluster: cluster view options.
    worker_cri_unsupported_images: machine image names whose OS extension does not support CRI configuration;
    a Shoot worker pool on such an image must not configure its `cri` section (docs/requirements.md "OperatingSystemConfig contract", CRI Support).
    credentials_rotation_interval_days: after how long since creation or the last rotation Gardener's Shoot warnings
    suggest rotating credentials (days, 1 to 49710; gardener-apiserver's --shoot-credentials-rotation-interval,
    default 90 days, between 24 hours and 2^32 seconds).
    """

    model_config = SettingsConfigDict(
        frozen=True, extra="forbid", env_prefix="GARDENER_WEBHOOK_", env_nested_delimiter="__"
    )

    rules: dict[str, Mode] = {}
    exemptions: Exemptions = Exemptions()
    expiry_warning_days: int = Field(default=30, ge=0, le=3650)
    feature_gates: FeatureGates = FeatureGates()
    cluster: ClusterSettings = ClusterSettings()
    worker_cri_unsupported_images: tuple[str, ...] = ()
    credentials_rotation_interval_days: int = Field(default=90, ge=1, le=49710)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Environment beats the file (passed as init values): operators override a mounted file per Pod.
        return (env_settings, init_settings)

    def mode_of(self, rule_id: str, default: Mode) -> Mode:
        """Configured mode of a rule, else its default."""
        return self.rules.get(rule_id, default)


ENV_PREFIX = "GARDENER_WEBHOOK_"


def _env_variable(loc: tuple[Any, ...]) -> str | None:
    """The set environment variable that supplied the value at `loc` (or a mapping holding it), else None.

    Matches pydantic-settings' lookup: prefix, nested keys joined by "__", case-insensitive.
    """
    present = {name.upper(): name for name in os.environ}
    parts = [str(part).upper() for part in loc]
    for end in range(len(parts), 0, -1):
        name = ENV_PREFIX + "__".join(parts[:end])
        if name in present:
            return present[name]
    return None


def _describe(error: Mapping[str, Any], path: Path | None) -> str:
    loc = str(FieldPath.from_loc([to_camel(p) if isinstance(p, str) and "_" in p else p for p in error["loc"]]))
    # A validator's ValueError: its own words, without pydantic's "Value error, " in front.
    message = str(error["ctx"]["error"]) if error["type"] == "value_error" and "ctx" in error else error["msg"]
    detail = f"unknown configuration key {loc!r}" if error["type"] == "extra_forbidden" else f"{loc}: {message}"
    variable = _env_variable(tuple(error["loc"]))
    if variable is not None:
        return f"environment variable {variable}: {detail}"
    return f"--config {path}: {detail}" if path is not None else detail


# Sections whose keys are field names: the file's camelCase keys are given by field name, as the environment's
# GARDENER_WEBHOOK_CLUSTER__RESYNC_SECONDS is, so that a key set in both merges instead of being seen twice.
# An unknown key is kept as written, so the error names it as the operator wrote it.
_NESTED_SECTIONS: Final[Mapping[str, type[BaseModel]]] = {
    "exemptions": Exemptions,
    "cluster": ClusterSettings,
    "feature_gates": FeatureGates,
}


def _field_names(section: dict[Any, Any], model: type[BaseModel]) -> dict[Any, Any]:
    named = {}
    for key, value in section.items():
        name = to_snake(str(key))
        named[name if name in model.model_fields else key] = value
    return named


def load_settings(path: Path | None, *, known_rules: Iterable[str]) -> Settings:
    """Build Settings from an optional YAML file plus the environment.

    Raises ConfigError naming where the bad value came from (`environment variable GARDENER_WEBHOOK_…` or
    `--config FILE`) and the key, for unknown keys, wrong types, out-of-range values, JSON that does not
    decode and rule ids that no validator defines.
    """
    data: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc).replace("\n", " ")
            raise ConfigError(f"--config {path}: cannot read configuration file: {reason}") from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"--config {path}: the configuration file must hold a mapping of keys")
        for key, value in loaded.items():
            name = to_snake(str(key))
            if name not in Settings.model_fields or to_camel(name) != key:
                raise ConfigError(f"--config {path}: unknown configuration key {str(key)!r}")
            section = _NESTED_SECTIONS.get(name)
            data[name] = _field_names(value, section) if section is not None and isinstance(value, dict) else value
            if name == "rules" and isinstance(value, dict):
                # YAML 1.1 reads an unquoted `off` as false; the mode is what the operator wrote (editors read YAML
                # 1.2, where it is the string, and manifests/config.schema.json allows it).
                data[name] = {rule: "off" if mode is False else mode for rule, mode in value.items()}
    try:
        settings = Settings(**data)
    except ValidationError as exc:
        raise ConfigError("; ".join(_describe(e, path) for e in exc.errors())) from None
    except SettingsError as exc:
        # pydantic-settings could not decode a complex value (JSON) from the environment.
        field = exc.args[0].split('"')[1] if exc.args and exc.args[0].count('"') >= 2 else ""
        variable = _env_variable((field,)) or f"{ENV_PREFIX}{field.upper()}"
        raise ConfigError(f"environment variable {variable}: not valid JSON ({field} is a mapping or list)") from None
    unknown = sorted(set(settings.rules) - set(known_rules))
    if unknown:
        where = _env_variable(("rules",))
        prefix = f"environment variable {where}: " if where else (f"--config {path}: " if path is not None else "")
        raise ConfigError(f"{prefix}rules: unknown rule id(s) {', '.join(unknown)}")
    return settings
