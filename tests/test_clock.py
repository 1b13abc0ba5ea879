"""webhook/caching/clock.py: the clock window of a kept judgement is the one the plain comparison of every timestamp
gives, and the timestamps found through the fields' types are every timestamp a model holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from tests.strategies import BASES, mutated
from webhook.admission.kinds import decode
from webhook.caching import findings
from webhook.caching.clock import DayPhases, TimeFields, stable_until
from webhook.models.cloudprofile import CloudProfile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot

_INSTANTS = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)  # fmt: skip


@given(now=_INSTANTS, groups=st.lists(st.lists(_INSTANTS, max_size=6), max_size=4), near=st.booleans())
def test_the_window_of_day_phases_is_the_window_of_the_timestamps(
    now: datetime, groups: list[list[datetime]], near: bool
) -> None:
    if near and groups and groups[0]:  # now exactly a whole number of days from a stamp
        now = groups[0][0] + timedelta(days=3)
    flat = [stamp for group in groups for stamp in group]
    assert stable_until(now, [DayPhases(group) for group in groups]) == findings.stable_until(now, flat)


def _every_datetime(value: object) -> list[datetime]:
    """Every datetime in a model value, walking every field (the plain way)."""
    if isinstance(value, datetime):
        return [value]
    if isinstance(value, BaseModel):
        return [s for item in value.__dict__.values() for s in _every_datetime(item)]
    if isinstance(value, list | tuple):
        return [s for item in value for s in _every_datetime(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _every_datetime(item)]
    return []


_MODELS: dict[str, type[BaseModel]] = {
    "CloudProfile": CloudProfile,
    "NamespacedCloudProfile": NamespacedCloudProfile,
    "Shoot": Shoot,
}


@given(data=st.data())
def test_the_typed_walk_finds_every_timestamp(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(sorted(_MODELS)), label="kind")
    raw: Any = data.draw(mutated(BASES[kind](), max_mutations=3), label="object")
    model = decode(_MODELS[kind], raw)
    if isinstance(model, list):
        return  # does not decode
    assert sorted(TimeFields().stamps(model)) == sorted(_every_datetime(model))


def test_a_shoot_spec_holds_no_field_of_time_and_a_profile_its_dates() -> None:
    fields = TimeFields()
    shoot = decode(Shoot, BASES["Shoot"]())
    profile = decode(CloudProfile, BASES["CloudProfile"]())
    assert isinstance(shoot, Shoot) and isinstance(profile, CloudProfile)
    assert fields.of(type(shoot.spec)) == ()
    assert datetime(2026, 12, 1, tzinfo=UTC) in fields.stamps(profile.spec)


def test_the_typed_walk_finds_metadata_and_rotation_times() -> None:
    raw = BASES["Shoot"]()
    raw["metadata"]["creationTimestamp"] = "2025-01-02T03:04:05Z"
    raw["status"] = {
        "credentials": {
            "rotation": {
                "certificateAuthorities": {"lastInitiationTime": "2026-01-02T03:04:05Z"},
                "sshKeypair": {"lastInitiationTime": "2026-02-02T03:04:05Z"},
            }
        }
    }
    shoot = decode(Shoot, raw)
    assert isinstance(shoot, Shoot)
    found = sorted(TimeFields().stamps(shoot))
    assert len(found) == 3 and found == sorted(_every_datetime(shoot))
