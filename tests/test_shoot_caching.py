"""Shoot requests through `Caches` give the answers of the plain path, and no store keeps a Shoot.

No store keeps a Shoot's spec, its pools or what the rules found for them: at a landscape's 5 000 Shoots none was
asked twice before it went, and their bookkeeping cost more than it saved (docs/performance.md "What the stores buy
at 5 000 Shoots"). What the caches still do for a Shoot: the profile's index is built once per profile, and an
UPDATE's stored object takes the new object's decoded spec or pools where they are equal (within the request).
Over generated streams (metadata changes, the annotations the spec rules read, spec mutations, pools changed, added,
removed and swapped, deletionTimestamp and status changes), clock moves across the profile's expiration dates and
the view's profile being replaced, every answer equals the one judged afresh (no caches).
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import BASES, mutated
from webhook.admission.wire import BadReview
from webhook.caching.caches import Caches
from webhook.cluster.static import StaticView
from webhook.judging.judge import Outcome, judge
from webhook.settings import FeatureGates, Settings

SETTINGS: Final = Settings()
LIFECYCLE_ON: Final = Settings(feature_gates=FeatureGates(VersionClassificationLifecycle=True))
START: Final = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
EXPIRY: Final = datetime(2026, 12, 1, tzinfo=UTC)  # the base profile's gardenlinux 1591.0.0 expirationDate
ANNOTATIONS: Final = (
    ("maintenance.gardener.cloud/operation", "reconcile"),
    ("maintenance.gardener.cloud/operation", "rotate-credentials-start"),
    ("gardener.cloud/operation", "rotate-ssh-keypair"),
    ("gardener.cloud/operation", "no-such-operation"),
    ("shoot.gardener.cloud/tasks", "deployInfrastructure"),
    ("owner", "team-a"),
)


def _review(new: dict[str, Any], old: dict[str, Any] | None, uid: str = "u-1") -> bytes:
    request: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": "core.gardener.cloud", "version": "v1beta1", "kind": "Shoot"},
        "resource": {"group": "core.gardener.cloud", "version": "v1beta1", "resource": "shoots"},
        "name": "shoot", "namespace": "garden-dev",
        "operation": "CREATE" if old is None else "UPDATE",
        "userInfo": {"username": "gardenlet"},
        "object": new,
        "oldObject": old,
    }  # fmt: skip
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def _answer(body: bytes, view: StaticView, now: datetime, caches: Caches | None, settings: Settings) -> Any:
    try:
        outcome: Outcome = judge(body, view=view, settings=settings, now=now, caches=caches)
    except BadReview as exc:
        return ("bad review", str(exc))
    return (outcome.review, outcome.entries, outcome.full_warnings, outcome.messages, outcome.code)


def _metadata_change(draw: st.DrawFn, shoot: dict[str, Any], step: int) -> dict[str, Any]:
    """`shoot` with labels, annotations, a deletionTimestamp or status.hibernated changed, its spec kept."""
    changed = copy.deepcopy(shoot)
    meta = changed.setdefault("metadata", {})
    if not isinstance(meta, dict):
        return changed
    what = draw(st.sampled_from(("label", "annotation", "drop annotations", "deletion", "hibernated", "version")))
    if what == "label":
        meta.setdefault("labels", {})[f"step-{draw(st.integers(0, 2))}"] = str(step)
    elif what == "annotation":
        key, value = draw(st.sampled_from(ANNOTATIONS))
        meta.setdefault("annotations", {})[key] = value
    elif what == "drop annotations":
        meta.pop("annotations", None)
    elif what == "deletion":
        meta["deletionTimestamp"] = None if meta.get("deletionTimestamp") else "2026-11-25T10:00:00Z"
    elif what == "hibernated":
        changed["status"] = {"hibernated": draw(st.booleans())}
    else:
        meta["resourceVersion"] = str(1000 + step)
    return changed


def _pool_change(draw: st.DrawFn, shoot: dict[str, Any]) -> dict[str, Any]:
    """`shoot` with one pool changed as users change pools: its maximum, machine type, image version or zones, a
    pool added (a copy of another under a new name) or removed, or two pools swapped."""
    changed = copy.deepcopy(shoot)
    workers = changed.get("spec", {}).get("provider", {}).get("workers")
    if not isinstance(workers, list) or not workers or not all(isinstance(w, dict) for w in workers):
        return changed
    i = draw(st.integers(0, len(workers) - 1))
    pool = workers[i]
    what = draw(st.sampled_from(("maximum", "type", "image", "zones", "add", "remove", "swap")))
    if what == "maximum":
        pool["maximum"] = draw(st.integers(0, 12))
    elif what == "type":
        pool.setdefault("machine", {})["type"] = draw(st.sampled_from(("m5.large", "m6g.large", "no-such-type")))
    elif what == "image":
        image = {"name": "gardenlinux", "version": draw(st.sampled_from(("1592.1.0", "1591.0.0", "1590.0.0", "")))}
        pool.setdefault("machine", {})["image"] = image
    elif what == "zones":
        pool["zones"] = draw(st.sampled_from((["eu-1a"], ["eu-1b"], ["eu-1a", "eu-1b"], ["eu-9z"])))
    elif what == "add":
        workers.append({**copy.deepcopy(pool), "name": f"pool-{len(workers)}"})
    elif what == "remove" and len(workers) > 1:
        workers.pop(i)
    elif what == "swap" and len(workers) > 1:
        workers[0], workers[-1] = workers[-1], workers[0]
    return changed


def _moved(draw: st.DrawFn, now: datetime) -> datetime:
    """The clock kept, shifted, or put at (or a microsecond around) a whole number of days before the expiry."""
    move = draw(st.sampled_from(("same", "shift", "boundary")))
    if move == "shift":
        return now + draw(st.sampled_from([timedelta(seconds=1), timedelta(hours=5), timedelta(days=1)]))
    if move == "boundary":
        days = draw(st.integers(min_value=-2, max_value=35))
        near = draw(st.sampled_from([timedelta(microseconds=-1), timedelta(0), timedelta(microseconds=1)]))
        return EXPIRY - timedelta(days=days) + near
    return now


@given(data=st.data())
def test_a_stream_of_shoot_updates_gets_the_answers_each_gets_alone(data: st.DataObject) -> None:
    profile = BASES["CloudProfile"]()
    view = StaticView.from_objects([copy.deepcopy(profile), BASES["Shoot"]()], source="test")
    caches = {id(SETTINGS): Caches(), id(LIFECYCLE_ON): Caches()}  # caches keep their settings
    revision = BASES["Shoot"]()
    if data.draw(st.booleans(), label="hibernated"):  # the maintenance operations then matter (SH-HIB-003)
        revision["spec"]["hibernation"] = {"enabled": True}
    now = START
    for step in range(data.draw(st.integers(min_value=2, max_value=7), label="requests")):
        change = data.draw(
            st.sampled_from(("metadata", "metadata", "spec", "pool", "create", "profile")), label=f"{step}"
        )
        if change == "profile":  # the view's profile replaced by a revision of it (a new object)
            view.add(
                data.draw(mutated(copy.deepcopy(profile), max_mutations=1), label="profile"), where="p", strict=False
            )
            following = _metadata_change(data.draw, revision, step)
        elif change == "spec":
            following = data.draw(mutated(revision, max_mutations=1), label=f"revision {step}")
        elif change == "pool":
            following = _pool_change(data.draw, revision)
        else:
            following = _metadata_change(data.draw, revision, step)
        body = _review(following, None if change == "create" else revision, uid=f"u-{step}")
        now = _moved(data.draw, now)
        for settings in (SETTINGS, LIFECYCLE_ON):
            cached = _answer(body, view, now, caches[id(settings)], settings)
            assert cached == _answer(body, view, now, None, settings), (step, change, now)
        if isinstance(following.get("spec"), dict) and isinstance(following.get("metadata"), dict):
            revision = following


def test_an_unchanged_spec_is_decoded_once_per_request_and_kept_by_none() -> None:
    """An UPDATE's stored object takes the new object's decoded and defaulted spec when both are equal; the next
    request decodes its own (nothing keeps a spec by its content across requests)."""
    from webhook.admission.wire import parse_review
    from webhook.judging.judge import _decode_review
    from webhook.validators import REGISTRY

    entry = REGISTRY[("core.gardener.cloud", "Shoot")]
    caches = Caches()
    stored = BASES["Shoot"]()
    first, second = copy.deepcopy(stored), copy.deepcopy(stored)
    first["metadata"]["labels"] = {"rev": "1"}
    second["metadata"]["labels"] = {"rev": "2"}
    new_1, _, old_1, _ = _decode_review(entry, parse_review(_review(first, stored)), caches)
    new_2, _, old_2, _ = _decode_review(entry, parse_review(_review(second, first)), caches)
    assert new_1.spec is old_1.spec  # shared within the request
    assert old_2 is new_1  # the last objects parsed (`RecentObjects`): the oldObject was the object before
    assert new_2.spec is not new_1.spec and new_2.spec == new_1.spec  # no spec kept by its content
    assert new_2.metadata.labels == {"rev": "2"}


def test_a_landscape_of_shoots_leaves_no_shoot_behind() -> None:
    """200 distinct Shoots judged through one `Caches` leave alive only the Shoots of the last objects parsed
    (`caching.parsed.RecentObjects`, 16): no store keeps a spec, a pool or a finding of one."""
    import gc

    from webhook.models.shoot import ShootSpec

    view = StaticView.from_objects([BASES["CloudProfile"](), BASES["Shoot"]()], source="test")
    caches = Caches()
    gc.collect()
    before = sum(isinstance(o, ShootSpec) for o in gc.get_objects())  # what other tests left alive
    for k, shoot in enumerate(_landscape(200)):
        changed = copy.deepcopy(shoot)
        changed["metadata"]["labels"] = {"rev": str(k)}
        judge(_review(changed, shoot, f"u-{k}"), view=view, settings=SETTINGS, now=START, caches=caches)
    gc.collect()
    alive = sum(isinstance(o, ShootSpec) for o in gc.get_objects()) - before
    assert alive <= 4 * caches.recent.kept, alive  # per kept object: decoded, defaulted, as judged, resolved


def test_a_stream_of_label_changes_keeps_nothing_per_request() -> None:
    """The spec found by content is not kept per parsed object: 400 label changes hold no more objects than 200."""
    import gc

    view = StaticView.from_objects([BASES["CloudProfile"](), BASES["Shoot"]()], source="test")
    caches = Caches()
    stored = BASES["Shoot"]()
    counts = []
    for rounds in (200, 200):
        for i in range(rounds):
            changed = copy.deepcopy(stored)
            changed["metadata"]["labels"] = {"rev": f"{len(counts)}-{i}"}
            judge(_review(changed, stored), view=view, settings=SETTINGS, now=START, caches=caches)
            stored = changed
        gc.collect()
        counts.append(len(gc.get_objects()))
    assert counts[1] - counts[0] < 1000, counts


def test_a_value_of_the_other_type_at_a_shared_path_is_left_to_decoding() -> None:
    """Found by the stream test: a known empty pool `{}` must not stand in for `workers: {}` (an object where the
    pool list belongs), nor a known spec for a spec given as a list; the answer names the value as given."""
    view = StaticView.from_objects([BASES["CloudProfile"](), BASES["Shoot"]()], source="test")
    caches = Caches()
    with_empty_pool = BASES["Shoot"]()
    with_empty_pool["spec"]["provider"]["workers"].insert(0, {})
    judge(_review(with_empty_pool, None), view=view, settings=SETTINGS, now=START, caches=caches)
    pools_as_object = copy.deepcopy(with_empty_pool)
    pools_as_object["spec"]["provider"]["workers"] = {}
    spec_as_list = copy.deepcopy(with_empty_pool)
    spec_as_list["spec"] = [with_empty_pool["spec"]]
    for shoot in (pools_as_object, spec_as_list):
        body = _review(shoot, with_empty_pool)
        cached = _answer(body, view, START, caches, SETTINGS)
        assert cached == _answer(body, view, START, None, SETTINGS)
        assert "must be a" in cached[0]["response"]["status"]["message"]


def _landscape(count: int, pools: int = 3) -> list[dict[str, Any]]:
    """`count` Shoots, each with its own name and its own pools (their maximum differs)."""
    shoots = []
    for k in range(count):
        shoot = copy.deepcopy(BASES["Shoot"]())
        shoot["metadata"]["name"] = f"shoot-{k}"
        base = shoot["spec"]["provider"]["workers"][0]
        shoot["spec"]["provider"]["workers"] = [{**base, "name": f"pool-{j}", "maximum": 10 + k} for j in range(pools)]
        shoots.append(shoot)
    return shoots
