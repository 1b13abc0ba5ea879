"""webhook/validators/shoot/profile.py: the machine type and machine image checks judge the pool's own entry first.

SH-ADM-MT-001 and SH-ADM-IMG-001 used to classify every machine type and image version of the profile for each pool
and then look the pool's one up; now they look at the pool's entries first and build the lists of supported values
only for a finding. `reference_*` below are the former loops, kept as the oracle: for random profiles (repeated
names and versions, unusable, unavailable and expired entries, in-place updates, capabilities) and random pools,
both give the same findings.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from webhook.domain import profiles
from webhook.domain.field import SPEC, FieldPath, Finding
from webhook.domain.profiles import Capabilities, capabilities_of
from webhook.domain.versions import Classification, current_classification, is_active
from webhook.models.cloudprofile import CloudProfileSpec
from webhook.models.shoot import Worker
from webhook.validators.meta import go_list
from webhook.validators.shoot import profile
from webhook.validators.shoot.effective import is_in_place
from webhook.validators.shoot.profile import SH_ADM_IMG_001, SH_ADM_MT_001, _Pool
from webhook.validators.shoot.profile_workers import quote as _quote
from webhook.validators.shoot.profile_workers import unavailable_in_a_zone

NOW = datetime(2026, 11, 21, tzinfo=UTC)
PATH = SPEC.child("provider", "workers").index(0)


def reference_machine_type(
    pool: _Pool, spec: CloudProfileSpec, capabilities: Capabilities, region: str, path: FieldPath
) -> list[Finding]:
    worker, old = pool.worker, pool.old
    if worker.machine.type == old.machine.type and worker.machine.architecture == old.machine.architecture:
        return []
    present = False
    supported: set[str] = set()
    arch_ok = usable = in_zones = False
    index = profiles.ProfileIndex(spec)
    for machine_type in spec.machine_types:
        t_arch = profiles.machine_type_architecture(machine_type, capabilities) == pool.architecture
        t_usable = bool(machine_type.usable)
        t_zones = not unavailable_in_a_zone(index, region, worker.zones, machine_type.name, volume=False)
        if t_arch and t_usable and t_zones:
            supported.add(machine_type.name)
        if machine_type.name == worker.machine.type:
            present, arch_ok, usable, in_zones = True, t_arch, t_usable, t_zones
    if not present:
        none = f"the cloud profile offers no usable machine types for architecture {_quote(pool.architecture)} in the pool's zones"
        return [SH_ADM_MT_001.unsupported(path, worker.machine.type, sorted(supported), none=none)]
    if arch_ok and usable and in_zones:
        return []
    detail = f"machine type {_quote(worker.machine.type)} "
    if not usable:
        detail += "is unusable, "
    if not in_zones:
        detail += "is unavailable in at least one zone, "
    if not arch_ok:
        detail += f"does not support CPU architecture {_quote(pool.architecture)}, "
    detail += f"supported types are {go_list(sorted(supported))}"
    return [SH_ADM_MT_001.invalid(path, worker.machine.type, detail)]


def reference_machine_image(
    pool: _Pool, spec: CloudProfileSpec, capabilities: Capabilities, now: datetime, path: FieldPath
) -> list[Finding]:
    worker, old = pool.worker, pool.old
    image, old_image = worker.machine.image, old.machine.image
    if image == old_image and worker.machine.architecture == old.machine.architecture:
        return []
    in_place = is_in_place(worker)
    old_version = (old_image.version or "") if old_image is not None else ""
    listed: set[str] = set()
    active: set[str] = set()
    arch_ok: set[str] = set()
    in_place_ok: set[str] = set()
    for machine_image in spec.machine_images:
        if image is not None and image.name != machine_image.name:
            continue
        for version in machine_image.versions:
            label = f"{machine_image.name}:{version.version}"
            listed.add(label)
            classification = current_classification(version, now)
            if is_active(classification) or (
                not pool.active_only
                and classification == Classification.EXPIRED
                and not profile._lower(version.version, old_version)
            ):
                active.add(label)
            if profiles.supports_architecture(version, capabilities, pool.architecture):
                arch_ok.add(label)
            if in_place and version.in_place_updates is not None and version.in_place_updates.supported:
                minimum = version.in_place_updates.min_version_for_update
                if pool.active_only or (
                    minimum is not None and image is not None and profile._at_most(minimum, old_version)
                ):
                    in_place_ok.add(label)
    valid = active & arch_ok
    if in_place:
        valid &= in_place_ok
    if image is None or not image.version:
        return []
    label = f"{image.name}:{image.version}"
    if label not in listed:
        none = f"the cloud profile offers no usable versions of machine image {_quote(image.name)} for this pool"
        return [SH_ADM_IMG_001.unsupported(path.child("image", "version"), image.version, sorted(valid), none=none)]
    if label in arch_ok and label in active and (not in_place or label in in_place_ok):
        return []
    detail = f"machine image version '{label}' "
    if label not in arch_ok:
        detail += f"does not support CPU architecture {_quote(pool.architecture)}, "
    if label not in active:
        detail += "is expired, "
    if in_place and label not in in_place_ok:
        detail += (
            "does not support in-place updates, "
            if pool.active_only
            else "cannot be in-place updated from the current version, "
        )
    detail += f"supported machine image versions are: {go_list(sorted(valid))}"
    return [SH_ADM_IMG_001.invalid(path.child("image"), image.model_dump(exclude_none=True), detail)]


TYPES = ("m5.large", "m5.xlarge", "m6g.large")
IMAGES = ("gardenlinux", "ubuntu")
VERSIONS = ("1.0.0", "1.1.0", "2.0.0", "1.1")
ARCHITECTURES = ("amd64", "arm64")
ZONES = ("eu-1a", "eu-1b")
DATES = (None, (NOW - timedelta(days=1)).isoformat(), (NOW + timedelta(days=1)).isoformat())

machine_types = st.lists(
    st.fixed_dictionaries(
        {"name": st.sampled_from(TYPES)},
        optional={"usable": st.booleans(), "architecture": st.sampled_from(ARCHITECTURES),
                  "capabilities": st.fixed_dictionaries({"architecture": st.lists(st.sampled_from(ARCHITECTURES), max_size=2)})},
    ),
    max_size=5,
)  # fmt: skip
versions = st.lists(
    st.fixed_dictionaries(
        {"version": st.sampled_from(VERSIONS)},
        optional={
            "classification": st.sampled_from(("preview", "supported", "deprecated")),
            "expirationDate": st.sampled_from(DATES),
            "architectures": st.lists(st.sampled_from(ARCHITECTURES), max_size=2),
            "inPlaceUpdates": st.fixed_dictionaries({"supported": st.booleans()}, optional={"minVersionForUpdate": st.sampled_from(VERSIONS)}),
            "capabilityFlavors": st.lists(st.fixed_dictionaries({"architecture": st.lists(st.sampled_from(ARCHITECTURES), max_size=1)}), max_size=2),
        },
    ),
    max_size=5,
)  # fmt: skip
specs = st.fixed_dictionaries(
    {
        "machineTypes": machine_types,
        "machineImages": st.lists(st.fixed_dictionaries({"name": st.sampled_from(IMAGES), "versions": versions}), max_size=3),
        "regions": st.lists(
            st.fixed_dictionaries({"name": st.sampled_from(("eu-1", "eu-2")), "zones": st.lists(
                st.fixed_dictionaries({"name": st.sampled_from(ZONES), "unavailableMachineTypes": st.lists(st.sampled_from(TYPES), max_size=2)}),
                max_size=2)}),
            max_size=2,
        ),
    },
    optional={"machineCapabilities": st.just([{"name": "architecture", "values": list(ARCHITECTURES)}])},
)  # fmt: skip
machines = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={"architecture": st.sampled_from(ARCHITECTURES),
              "image": st.fixed_dictionaries({"name": st.sampled_from(IMAGES)}, optional={"version": st.sampled_from((*VERSIONS, ""))})},
)  # fmt: skip
workers = st.fixed_dictionaries(
    {"name": st.just("pool"), "machine": machines, "zones": st.lists(st.sampled_from(ZONES), max_size=2)},
    optional={"updateStrategy": st.sampled_from(("AutoRollingUpdate", "AutoInPlaceUpdate", "ManualInPlaceUpdate"))},
)


@given(
    spec=specs, worker=workers, old=st.none() | workers, create=st.booleans(), region=st.sampled_from(("eu-1", "eu-3"))
)
def test_fast_checks_give_the_reference_findings(
    spec: dict[str, Any], worker: dict[str, Any], old: dict[str, Any] | None, create: bool, region: str
) -> None:
    decoded = CloudProfileSpec.model_validate(spec, by_alias=True)
    new_worker = Worker.model_validate(worker, by_alias=True)
    stored = Worker.model_validate(old, by_alias=True) if old is not None else profile._NEW_POOL_OLD
    pool = _Pool(
        0, new_worker, stored, is_new=old is None, create=create, architecture=new_worker.machine.architecture or ""
    )
    capabilities = capabilities_of(decoded.machine_capabilities)
    type_path = PATH.child("machine", "type")
    assert profile._validate_machine_type(
        pool, profiles.ProfileIndex(decoded), capabilities, region, type_path
    ) == reference_machine_type(pool, decoded, capabilities, region, type_path)
    image_path = PATH.child("machine")
    assert profile._validate_machine_image(
        pool, profiles.ProfileIndex(decoded), capabilities, NOW, image_path
    ) == reference_machine_image(pool, decoded, capabilities, NOW, image_path)
