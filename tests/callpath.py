"""The path a request takes through the floors of the package, traced: which stage is entered, in which order.

    .venv/bin/python -m tests.callpath        # a Shoot CREATE and a CloudProfile UPDATE, through the server's path

A stage is one of the modules a request passes through: the wire (`admission.wire`), judging (`judging.judge`),
the validator seam (`admission.kinds`), the kind's validator (`validators.*`), the policy (`admission.policy`) and
the outcome (`admission.rendering`, `admission.responses`). Calls into the domain, the models, the cache layer and
the view are not stages (they are what the stages use). The trace records each call that enters a stage from
another place; `path` is the order in which the server and judging hand the request on, and `callbacks` the calls
back into judging from below (the cache layer or a validator), of which there are none.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from types import FrameType
from typing import Any, Final

from tests.builders import cloud_profile_dict, shoot_dict
from webhook.admission.wire import make_review, parse_review
from webhook.caching.caches import Caches
from webhook.cluster.static import StaticView
from webhook.judging.judge import judge
from webhook.settings import Settings

NOW: Final = datetime(2026, 11, 21, tzinfo=UTC)
STAGES: Final = (
    ("wire", "webhook.admission.wire"),
    ("judge", "webhook.judging.judge"),
    ("kinds", "webhook.admission.kinds"),
    ("validator", "webhook.validators"),
    ("policy", "webhook.admission.policy"),
    ("outcome", "webhook.admission.rendering"),
    ("outcome", "webhook.admission.responses"),
)


def stage_of(module: str) -> str | None:
    """The stage a module belongs to, or None."""
    for stage, prefix in STAGES:
        if module == prefix or module.startswith(prefix + "."):
            return stage
    return None


def trace(call: Callable[[], Any]) -> list[tuple[str | None, str, str]]:
    """Every call `call` makes that enters a stage from another place: (the caller's stage or None, the stage
    entered, the function entered), in order."""
    entered: list[tuple[str | None, str, str]] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        stage = stage_of(frame.f_globals.get("__name__", ""))
        caller = frame.f_back
        from_stage = stage_of(caller.f_globals.get("__name__", "")) if caller is not None else None
        if stage is not None and stage != from_stage:
            entered.append((from_stage, stage, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entered


def path(entries: list[tuple[str | None, str, str]]) -> list[str]:
    """The stages in the order the request passes them: the stage entered from outside the package, then every
    stage judging calls, consecutive repeats (judging calling the same stage again) counted once."""
    stages: list[str] = []
    for from_stage, stage, _ in entries:
        if from_stage in (None, "judge") and (not stages or stages[-1] != stage):
            stages.append(stage)
    return stages


def callbacks(entries: list[tuple[str | None, str, str]]) -> list[str]:
    """Calls into judging from a stage below it (a store or a validator calling back into judging): none."""
    return [f"{from_stage} -> judge.{name}" for from_stage, stage, name in entries if stage == "judge" and from_stage]


def server_path(obj: dict[str, Any], operation: str, old: dict[str, Any] | None, view: StaticView) -> Callable[[], Any]:
    """What the server does with one request: parse the body, then judge the parsed review."""
    body = json.dumps(make_review(obj, operation, old)).encode()
    caches, settings = Caches(), Settings()

    def run() -> Any:
        review = parse_review(body)
        return judge(body, view=view, settings=settings, now=NOW, caches=caches, review=review)

    return run


def examples() -> dict[str, Callable[[], Any]]:
    """The traced requests: a Shoot CREATE on its profile, a CloudProfile UPDATE adding a version."""
    profile = cloud_profile_dict()
    view = StaticView.from_objects([profile])
    changed = cloud_profile_dict()
    changed["spec"]["kubernetes"]["versions"].insert(0, {"version": "1.34.1"})
    return {
        "Shoot CREATE": server_path(shoot_dict(), "CREATE", None, view),
        "CloudProfile UPDATE": server_path(changed, "UPDATE", profile, view),
    }


if __name__ == "__main__":
    for name, run in examples().items():
        entries = trace(run)
        print(f"{name}: {' -> '.join(path(entries))}; callbacks into judging: {callbacks(entries) or 'none'}")
