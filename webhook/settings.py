"""Configuration: the YAML file of DESIGN.md §6, environment variables, and their validation.

Precedence, highest first: environment (`GARDENER_WEBHOOK_*`), the `--config` file, the defaults below.
The file uses the documented camelCase keys; unknown keys and bad values are refused at start-up with a
message that names the key. Settings are built once (by the CLI) and passed down; nothing reads a global.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel, to_snake
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from webhook.field import Mode


class ConfigError(ValueError):
    """Raised for an unreadable or invalid configuration; the message names the offending key."""


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=to_camel, validate_by_name=True)


class Exemptions(_Section):
    """Users and groups whose requests are never denied: their findings become warnings."""

    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()


class FeatureGates(BaseModel):
    """Gardener feature gates that change rules; defaults are gardener-apiserver's (gardener-rules.md §0.4)."""

    model_config = ConfigDict(frozen=True, extra="forbid", validate_by_name=True)

    version_classification_lifecycle: bool = Field(default=False, alias="VersionClassificationLifecycle")
    cloud_profile_capabilities: bool = Field(default=True, alias="CloudProfileCapabilities")
    in_place_node_updates: bool = Field(default=False, alias="InPlaceNodeUpdates")


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
    """

    fail_closed: bool = True
    resync_seconds: int = Field(default=600, ge=10)
    max_staleness_seconds: float = Field(default=30.0, ge=5.0)

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
    a Shoot worker pool on such an image must not configure its `cri` section (seed 003, CRI Support).
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
    loc = ".".join(to_camel(str(p)) if isinstance(p, str) and "_" in p else str(p) for p in error["loc"])
    detail = f"unknown configuration key {loc!r}" if error["type"] == "extra_forbidden" else f"{loc}: {error['msg']}"
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
