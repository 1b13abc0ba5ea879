"""How long a judgement that compares the clock with timestamps stays what it is: the timestamps a model holds (found
through the fields whose type can hold one, `TimeFields`) and the instants of the day they fall on (`DayPhases`).

A rule compares `now` with an expirationDate or a lifecycle startTime, possibly shifted by whole days ("expires
within N days"); such a comparison can change only when `now` passes one of those instants of the day. A result is
kept until the first of them (`stable_until`), at most a day. Used by `rules.judged_once`.
"""

from __future__ import annotations

import types
import typing
from bisect import bisect_left
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from pydantic import BaseModel

_DAY_US: Final = 86_400_000_000  # microseconds in a day
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_US: Final = timedelta(microseconds=1)


def day_phase(instant: datetime) -> int:
    """Microseconds after midnight UTC of `instant` (aware). Raises TypeError for a naive datetime."""
    return ((instant - _EPOCH) // _US) % _DAY_US


class DayPhases:
    """The instants of the day (`day_phase`) on which some timestamps fall, sorted and unique.

    Built once per model object (`rules.RuleCaches.phases_of`): a profile with 200 dated versions has a handful of
    distinct phases (midnight, mostly), so a request asks a bisection instead of comparing every date.
    """

    __slots__ = ("phases",)

    def __init__(self, stamps: Iterable[datetime]) -> None:
        self.phases = tuple(sorted({day_phase(stamp) for stamp in stamps}))

    def ahead(self, phase: int) -> int | None:
        """Microseconds from `phase` to the next phase of these timestamps, at most a day (none: a day); None when
        `phase` is one of them."""
        phases = self.phases
        if not phases:
            return _DAY_US
        i = bisect_left(phases, phase)
        if i < len(phases) and phases[i] == phase:
            return None
        following = phases[i] if i < len(phases) else phases[0] + _DAY_US
        return following - phase


def stable_until(now: datetime, phases: Iterable[DayPhases]) -> datetime | None:
    """The first instant after `now` (aware UTC) on one of `phases`, at most a day ahead; None when `now` is on one.

    The same instant as `findings.stable_until` of all the timestamps behind `phases`: until then, every comparison
    of `now` with one of them, shifted by whole days, comes out as it does at `now`.
    """
    at = day_phase(now)
    soonest = _DAY_US
    for of_one in phases:
        ahead = of_one.ahead(at)
        if ahead is None:
            return None
        soonest = min(soonest, ahead)
    return now + timedelta(microseconds=soonest)


class TimeFields:
    """Per model class, the fields whose declared type can hold a datetime (directly, or inside models, lists, dicts
    or unions of them); `stamps` walks only those.

    A Shoot spec has no such field, so finding its timestamps costs a look-up; a CloudProfile spec's are its
    versions' expirationDates and lifecycle startTimes. A field typed `Any` holds parsed JSON (text, never a
    datetime). A class met again while its own fields are being read is assumed to hold one (a recursive model is
    walked rather than missed). The store of plans is passed in (`rules.RuleCaches`): one entry per model class.
    """

    def __init__(self) -> None:
        self._plans: dict[type, tuple[str, ...]] = {}
        self._reading: set[type] = set()

    def of(self, cls: type[BaseModel]) -> tuple[str, ...]:
        """The names of `cls`'s fields that can hold a datetime."""
        plan = self._plans.get(cls)
        if plan is None:
            self._reading.add(cls)
            try:
                plan = tuple(name for name, info in cls.model_fields.items() if self._may_hold(info.annotation))
            finally:
                self._reading.discard(cls)
            self._plans[cls] = plan
        return plan

    def _may_hold(self, annotation: Any) -> bool:
        if isinstance(annotation, type):
            if issubclass(annotation, datetime):
                return True
            if issubclass(annotation, BaseModel):
                return annotation in self._reading or bool(self.of(annotation))
        origin = typing.get_origin(annotation)
        if origin is None and not isinstance(annotation, types.UnionType):
            return False
        return any(self._may_hold(arg) for arg in typing.get_args(annotation))

    def stamps(self, value: object) -> list[datetime]:
        """Every datetime in `value` (a model, or lists, tuples and dicts of models) in the fields that can hold one."""
        found: list[datetime] = []
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, datetime):
                found.append(item)
            elif isinstance(item, BaseModel):
                stack.extend(getattr(item, name) for name in self.of(type(item)))
            elif isinstance(item, list | tuple):
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())
        return found
