"""The fast paths of `judge` give the answers of the plain paths.

1. `parse_review` reads the envelope with msgspec and keeps the objects as raw JSON slices; for any body, it accepts
   and rejects what the pydantic parse (`_parse_review_slowly`) does, with the same message, envelope and objects.
2. `Caches` answer a re-applied object (UPDATE, object byte for byte its oldObject) from a remembered verdict;
   over generated objects, clock shifts (across expiration dates, "expires in N days" and lifecycle boundaries) and
   cluster view changes, every response equals the one judged afresh.
3. `ParsedEntries` parses only list entries whose bytes no earlier request had: for any object text (duplicate
   keys, deep nesting, huge numbers, broken bytes) it gives what `_parse_object` gives, value or error.
4. `caching.findings.CleanEntries` skips entry checks that found nothing in the same decoded entry before, and
   `caching.findings.ListFindings` takes a list check's findings on the same entries within the same clock window; over
   generated UPDATE streams, clock moves (across expiration dates, "expires in N days" and lifecycle boundaries,
   forwards and back) and both settings of the gate those checks read, every response equals the one judged afresh
   (no caches).
"""

from __future__ import annotations

import copy
import json
import marshal
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.builders import shoot_dict, worker_dict
from tests.strategies import BASES, leaves, mutated, paths_of, reviews, to_json
from webhook.admission.wire import BadReview, _parse_review_slowly, parse_review
from webhook.admission.wire import parse_object as _parse_object
from webhook.caching.caches import Caches
from webhook.caching.findings import FindingStores
from webhook.caching.parsed import ParsedEntries
from webhook.cluster.static import StaticView
from webhook.domain.field import SPEC as SPEC_PATH
from webhook.judging import judge as admission
from webhook.judging.judge import Outcome, judge
from webhook.models.base import parse_rfc3339
from webhook.models.cloudprofile import MachineImage, MachineImageVersion
from webhook.settings import FeatureGates, Settings
from webhook.validators import REGISTRY

SETTINGS: Final = Settings()
LIFECYCLE_ON: Final = Settings(feature_gates=FeatureGates(VersionClassificationLifecycle=True))
START: Final = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)


def _body(fields: str) -> bytes:
    """An AdmissionReview body whose request has uid "u", kind X and `fields` (JSON members)."""
    head = '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","kind":{"kind":"X"},'
    return (head + fields + "}}").encode()


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _parsed(body: bytes, parse: Any) -> tuple[str, Any]:
    """("error", message) or ("ok", (envelope, subResource, object, oldObject)), objects as comparable JSON text."""
    try:
        review = parse(body)
        objects = review.objects()
    except BadReview as exc:
        return "error", str(exc)
    # NaN is not equal to itself: compare the JSON text (json.dumps writes NaN as NaN).
    return "ok", (review.envelope, review.sub_resource, *(json.dumps(o) for o in objects))


_ENVELOPE_EDITS: Final = (
    ("uid", 7),
    ("uid", ""),
    ("uid", None),
    ("dryRun", "true"),
    ("dryRun", 1),
    ("operation", "update"),
    ("operation", None),
    ("name", None),
    ("name", 5),
    ("userInfo", None),
    ("userInfo", {"username": 3}),
    ("userInfo", {"groups": "a"}),
    ("kind", None),
    ("kind", {"kind": 1}),
    ("subResource", None),
    ("object", "text"),
    ("object", [1]),
    ("object", None),
    ("oldObject", 5),
    ("old_object", {"a": 1}),
    ("sub_resource", "status"),
    ("dry_run", True),
)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """AdmissionReview bodies: the fuzzing reviews, with envelope fields of wrong types, names or depth."""
    body, _ = draw(reviews(draw(st.sampled_from(sorted(BASES)))))
    choice = draw(st.integers(min_value=0, max_value=5))
    if choice == 0:
        return body
    try:
        review = json.loads(body)
    except ValueError:
        return body
    request = review.get("request") if isinstance(review, dict) else None
    if not isinstance(request, dict):
        return body
    if choice <= 3:
        for key, value in draw(st.lists(st.sampled_from(_ENVELOPE_EDITS), min_size=1, max_size=3)):
            request[key] = value
        if draw(st.booleans()):
            del request[draw(st.sampled_from(sorted(request)))]
    elif choice == 4:  # nesting around the parser's depth limit, in the objects or instead of an envelope field
        depth = draw(st.integers(min_value=190, max_value=205))
        nested: Any = []
        for _ in range(depth):
            nested = [nested]
        where = draw(st.sampled_from(("object", "oldObject", "kind", "uid")))
        target = request.get(where)
        if where in ("object", "oldObject") and isinstance(target, dict):
            target["deep"] = nested
        else:
            request[where] = nested
    else:
        review[draw(st.sampled_from(("apiVersion", "kind")))] = draw(st.sampled_from(("v1", "", 1, None)))
    return to_json(review).encode("utf-8", "surrogatepass")


@given(body=bodies())
def test_fast_parse_takes_and_rejects_what_the_pydantic_parse_does(body: bytes) -> None:
    assert _parsed(body, parse_review) == _parsed(body, _parse_review_slowly)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # invalid UTF-8 in a field the webhook skips: still not JSON
        (
            _body('"options":"?","operation":"CREATE","object":{}').replace(b"?", b"\xff"),
            "request body is not valid JSON",
        ),
        (b"{not json", "request body is not valid JSON"),
        (b"[]", "not an AdmissionReview: body: Input should be an object"),
        (_body('"operation":"UPDATE","object":{},"old_object":{}'), "request.oldObject is required for UPDATE"),
    ],
)
def test_bad_bodies_keep_their_messages(body: bytes, message: str) -> None:
    with pytest.raises(BadReview) as caught:
        parse_review(body).objects()
    assert str(caught.value) == message


def test_an_object_nested_one_level_too_deep_is_refused_as_before() -> None:
    assert parse_review(_body(f'"operation":"CREATE","object":{{"a":{_nested(198)}}}')).objects()[0] is not None
    with pytest.raises(BadReview, match="not valid JSON"):
        parse_review(_body(f'"operation":"CREATE","object":{{"a":{_nested(199)}}}')).objects()


def test_deep_nesting_in_a_field_the_webhook_ignores_is_no_longer_refused() -> None:
    """The one difference, by decision: the fast parse skips fields it does not read without building them, so
    nesting beyond the JSON parser's limit (200 levels) there no longer makes the body invalid; in the objects and
    in the fields it reads, it still does. 5 000 levels are refused by both (msgspec's recursion guard)."""

    def body(depth: int) -> bytes:
        return _body(f'"options":{_nested(depth)},"operation":"CREATE","object":{{}}')

    assert parse_review(body(250)).envelope.uid == "u"
    with pytest.raises(BadReview, match="not valid JSON"):
        _parse_review_slowly(body(250))
    with pytest.raises(BadReview, match="not valid JSON"):
        parse_review(body(5000))


# ----------------------------------------------------------------------------------------------- parsed entries

_LISTS: Final = tuple(entry.shared_lists for entry in REGISTRY.values() if entry.shared_lists)


def _parsed_or_error(parse: Any, raw: bytes) -> tuple[str, Any]:
    try:
        return ("parsed", marshal.dumps(parse(raw), 2))  # equal bytes: equal values, types and key order included
    except ValueError:  # BadReview from the wire's parse, ValueError from the stores: both "not valid JSON"
        return ("not valid JSON", None)


@given(data=st.data())
def test_parsed_entries_give_what_the_plain_parse_gives(data: st.DataObject) -> None:
    """A stream of revisions, each a mutation of the one before, written with duplicate keys, indentation or broken
    bytes: the entry store (small or large) parses each as `_parse_object` does, whatever it kept from the others."""
    kind = data.draw(st.sampled_from(("CloudProfile", "NamespacedCloudProfile", "Shoot")), label="kind")
    lists = data.draw(st.sampled_from(_LISTS), label="lists")
    store = ParsedEntries(capacity=data.draw(st.sampled_from((2, 20_000)), label="capacity"))
    revision = BASES[kind]()
    for step in range(data.draw(st.integers(min_value=1, max_value=4), label="revisions")):
        revision = data.draw(mutated(revision, max_mutations=2), label=f"revision {step}")
        form = data.draw(st.sampled_from(("plain", "duplicates", "indented", "broken")), label=f"form {step}")
        if form == "duplicates":
            where = data.draw(st.lists(st.sampled_from(paths_of(revision)), max_size=3), label="duplicated")
            text = to_json(revision, frozenset(where), data.draw(leaves, label="decoy"))
        elif form == "indented":
            text = json.dumps(revision, indent=data.draw(st.integers(min_value=0, max_value=2)))
        else:
            text = json.dumps(revision)
        raw = text.encode()
        if form == "broken":
            at = data.draw(st.integers(min_value=0, max_value=len(raw) - 1), label="at")
            raw = (
                raw[:at]
                + data.draw(st.sampled_from((b"", b"}", b",", b'"', b"\\", b"\xff", b"NaN")), label="byte")
                + raw[at + 1 :]
            )
        assert _parsed_or_error(lambda r: store.parse(r, lists), raw) == _parsed_or_error(_parse_object, raw), step


def test_an_entry_seen_before_is_the_same_parsed_object() -> None:
    store = ParsedEntries()
    lists = REGISTRY["core.gardener.cloud", "CloudProfile"].shared_lists
    first = BASES["CloudProfile"]()
    second = copy.deepcopy(first)
    second["spec"]["machineImages"][0]["versions"].insert(0, {"version": "1600.0.0"})
    a = store.parse(json.dumps(first).encode(), lists)
    b = store.parse(json.dumps(second).encode(), lists)
    assert isinstance(a, dict) and isinstance(b, dict)
    old_versions, new_versions = a["spec"]["machineImages"][0]["versions"], b["spec"]["machineImages"][0]["versions"]
    assert new_versions[1] is old_versions[0] and new_versions[2] is old_versions[1]
    assert b == second


# ----------------------------------------------------------------------------------------------- the memo


class _View(StaticView):
    """A static view whose `synced` the test switches (a live view losing its first list after a restart)."""

    up = True

    @property
    def synced(self) -> bool:
        return self.up


def _reapplied(obj: dict[str, Any], kind: str = "") -> bytes:
    """An UPDATE re-applying `obj` (its kind from `kind` when its own fields were mutated away)."""
    kind = kind or obj["kind"]
    group, _, version = BASES[kind]()["apiVersion"].rpartition("/")
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    request = {
        "uid": "7c0a9d59-4fd7-4d3a-9a7e-2f8b4b8f2a11",
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": kind.lower() + "s"},
        "name": str(meta.get("name", "")),
        "namespace": str(meta.get("namespace", "") or ""),
        "operation": "UPDATE",
        "userInfo": {"username": "system:serviceaccount:flux-system:kustomize-controller"},
        "object": obj,
        "oldObject": obj,
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def _stamps(value: Any) -> list[datetime]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _stamps(v)]
    if isinstance(value, list):
        return [s for v in value for s in _stamps(v)]
    if isinstance(value, str):
        try:
            stamp = parse_rfc3339(value)
        except ValueError:
            return []
        return [stamp] if stamp is not None else []
    return []


def _answer(outcome: Outcome) -> tuple[Any, ...]:
    return (outcome.review, outcome.entries, outcome.full_warnings, outcome.messages, outcome.code)


_SHIFTS: Final = st.sampled_from(
    [timedelta(0), timedelta(microseconds=1), timedelta(seconds=1), timedelta(hours=1), timedelta(hours=23),
     timedelta(days=1), timedelta(days=3), timedelta(days=29), timedelta(days=400)]
)  # fmt: skip
_NEAR: Final = st.sampled_from([timedelta(microseconds=-1), timedelta(0), timedelta(microseconds=1)])


@st.composite
def _base(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    kind = draw(st.sampled_from(("CloudProfile", "CloudProfile", "OperatingSystemConfig")))
    obj = draw(mutated(BASES[kind](), max_mutations=2))
    if kind == "CloudProfile" and draw(st.booleans()):
        _with_dates(draw, obj)
    return kind, obj


def _with_dates(draw: st.DrawFn, obj: dict[str, Any]) -> None:
    """Dates at an odd time of day, days and hours from the start, in the first image's versions: boundaries fall
    between the steps."""
    images = obj["spec"].get("machineImages") if isinstance(obj.get("spec"), dict) else None
    if isinstance(images, list) and images and isinstance(images[0], dict):
        offset = draw(st.integers(min_value=-40 * 24, max_value=40 * 24))
        date = (START + timedelta(hours=offset, minutes=17, seconds=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
        images[0]["versions"] = [
            {"version": "1592.1.0", "cri": [{"name": "containerd"}], "architectures": ["amd64"]},
            {"version": "1591.0.0", "classification": "deprecated", "expirationDate": date,
             "architectures": ["amd64"]},
            {"version": "1590.0.0", "architectures": ["amd64"],
             "lifecycle": [{"classification": "preview"}, {"classification": "supported", "startTime": date}]},
        ]  # fmt: skip


@given(data=st.data())
def test_remembered_verdicts_equal_fresh_ones_across_clock_and_view_changes(data: st.DataObject) -> None:
    kind, obj = data.draw(_base(), label="object")
    body = _reapplied(obj, kind)
    view = _View.from_objects([copy.deepcopy(BASES["CloudProfile"]()), copy.deepcopy(BASES["Shoot"]())], source="test")
    memo = Caches()
    stamps = _stamps(obj)
    now = START
    for step in range(data.draw(st.integers(min_value=2, max_value=6), label="steps")):
        move = data.draw(st.sampled_from(("shift", "boundary", "view", "unsync", "same")), label=f"move {step}")
        if move == "shift":
            now += data.draw(_SHIFTS, label="shift")
        elif move == "boundary" and stamps:  # exactly at, or a microsecond around, T - k days
            stamp = data.draw(st.sampled_from(stamps), label="stamp")
            days = data.draw(st.integers(min_value=-3, max_value=35), label="days")
            near = data.draw(_NEAR, label="near")
            if datetime(100, 1, 1, tzinfo=UTC) < stamp < datetime(9900, 1, 1, tzinfo=UTC):  # 0001-01-01 - 3 days
                now = stamp - timedelta(days=days) + near
        elif move == "view":
            name = f"added-{step}"
            shoot = shoot_dict(worker_dict("pool-a"), version="1.33.2")
            shoot["metadata"]["name"] = name
            view.add(shoot, where=name)
        elif move == "unsync":
            view.up = not view.up
        remembered = _judged(body, view, now, memo)
        assert remembered == _judged(body, view, now, None), (move, now)


def _judged(
    body: bytes, view: StaticView, now: datetime, memo: Caches | None, settings: Settings = SETTINGS
) -> tuple[Any, ...]:
    """The answer with the caches `memo`; with memo None, the plain path."""
    try:
        return _answer(judge(body, view=view, settings=settings, now=now, caches=memo))
    except BadReview as exc:  # an object nested too deep
        return ("bad review", str(exc))


def _update(new: dict[str, Any], old: dict[str, Any], kind: str) -> bytes:
    review = json.loads(_reapplied(new, kind))
    review["request"]["oldObject"] = old
    return json.dumps(review).encode()


@st.composite
def _moved(draw: st.DrawFn, now: datetime, stamps: list[datetime]) -> datetime:
    """The clock kept, shifted forwards, or put at (or a microsecond around) a whole number of days before a stamp."""
    move = draw(st.sampled_from(("same", "shift", "boundary")))
    if move == "shift":
        return now + draw(_SHIFTS)
    usable = [s for s in stamps if datetime(100, 1, 1, tzinfo=UTC) < s < datetime(9900, 1, 1, tzinfo=UTC)]
    if move == "boundary" and usable:
        days = draw(st.integers(min_value=-3, max_value=35))
        return draw(st.sampled_from(usable)) - timedelta(days=days) + draw(_NEAR)
    return now


@given(data=st.data())
def test_a_stream_of_changing_updates_gets_the_answers_each_gets_alone(data: st.DataObject) -> None:
    """Decoded entries kept across requests (Caches.entries) change no answer: each UPDATE of a GitOps stream (every
    revision a small mutation of the one before, entries added, changed, dropped or repeated) is judged as alone."""
    kind = data.draw(st.sampled_from(("CloudProfile", "NamespacedCloudProfile")), label="kind")
    view = StaticView.from_objects([BASES["CloudProfile"](), BASES["Shoot"]()], source="test")
    kept = data.draw(st.sampled_from((3, 20_000)), label="entries kept")
    memos = {id(SETTINGS): Caches(entries=kept), id(LIFECYCLE_ON): Caches(entries=kept)}  # caches keep their settings
    revision = BASES[kind]()
    if data.draw(st.booleans(), label="dated versions"):
        _with_dates(data.draw, revision)
    now = START
    for step in range(data.draw(st.integers(min_value=1, max_value=5), label="updates")):
        following = data.draw(mutated(revision, max_mutations=2), label=f"revision {step}")
        body = _update(following, revision, kind)
        now = data.draw(_moved(now, _stamps(following)), label=f"now {step}")
        # Both gate settings judge the same decoded entries: what one found clean is not taken for the other.
        for settings in data.draw(st.permutations((SETTINGS, LIFECYCLE_ON)), label=f"settings {step}"):
            memo = memos[id(settings)]
            assert _judged(body, view, now, memo, settings) == _judged(body, view, now, None, settings), (step, now)
        revision = following
    assert all(len(memo.entries) <= memo.entries.capacity for memo in memos.values())


def test_a_reapplied_cloud_profile_is_judged_once_until_a_date_moves_it() -> None:
    profile = BASES["CloudProfile"]()
    date = datetime(2026, 12, 1, tzinfo=UTC)  # the base's image expirationDate
    assert date in _stamps(profile)
    body = _reapplied(profile)
    view, memo = StaticView.empty(), Caches()
    first = judge(body, view=view, settings=SETTINGS, now=START, caches=memo)
    again = judge(body, view=view, settings=SETTINGS, now=START + timedelta(hours=1), caches=memo)
    assert (memo.verdicts.misses, memo.verdicts.hits) == (1, 1)
    assert _answer(first) == _answer(again)
    # START is 09:30; the date is at midnight: "expires in N days" may change at the next midnight.
    judge(body, view=view, settings=SETTINGS, now=datetime(2026, 11, 25, tzinfo=UTC), caches=memo)
    assert (memo.verdicts.misses, memo.verdicts.hits) == (2, 1)
    view.add(shoot_dict(worker_dict("pool-a")), where="new Shoot")  # the cluster changed: judged again
    judge(body, view=view, settings=SETTINGS, now=datetime(2026, 11, 25, tzinfo=UTC), caches=memo)
    assert (memo.verdicts.misses, memo.verdicts.hits) == (3, 1)


def test_only_reapplies_of_kinds_that_read_their_own_dates_are_remembered() -> None:
    memo = Caches()
    view = StaticView.from_objects([BASES["CloudProfile"]()])
    shoot = BASES["Shoot"]()
    judge(_reapplied(shoot), view=view, settings=SETTINGS, now=START, caches=memo)
    changed = BASES["CloudProfile"]()
    new = json.loads(_reapplied(changed))
    new["request"]["object"]["spec"]["limits"] = {"maxNodesTotal": 7}
    judge(json.dumps(new).encode(), view=view, settings=SETTINGS, now=START, caches=memo)
    assert (memo.verdicts.hits, memo.verdicts.misses, len(memo.verdicts)) == (0, 0, 0)


def test_the_memo_keeps_at_most_its_capacity() -> None:
    memo = Caches(capacity=2)
    for limit in range(4):
        profile = BASES["CloudProfile"]()
        profile["spec"]["limits"] = {"maxNodesTotal": 10 + limit}
        judge(_reapplied(profile), view=StaticView.empty(), settings=SETTINGS, now=START, caches=memo)
    assert len(memo.verdicts) == 2


def test_decoded_entries_stay_bounded_and_an_object_larger_than_the_store_is_not_learned() -> None:
    memo = Caches(entries=40)

    def profile(first: int, count: int) -> dict[str, Any]:
        raw = BASES["CloudProfile"]()
        raw["spec"]["kubernetes"]["versions"] = [{"version": f"1.33.{p}"} for p in range(first, first + count)]
        return raw

    judge(_update(profile(0, 100), profile(0, 100), "CloudProfile"), view=StaticView.empty(), settings=SETTINGS,
          now=START, caches=memo)  # fmt: skip
    assert len(memo.entries) == 0  # 100 versions and more entries: larger than the store
    for first in range(0, 60, 6):  # a stream whose versions move on: the store keeps its newest entries
        body = _update(profile(first + 1, 6), profile(first, 6), "CloudProfile")
        judge(body, view=StaticView.empty(), settings=SETTINGS, now=START, caches=memo)
        assert 0 < len(memo.entries) <= 40


def test_a_decoded_entry_over_4_kib_is_not_kept() -> None:
    """Entries of a few hundred bytes are what CloudProfiles and Shoots carry; one of over 4 KiB of JSON is decoded
    on every request instead of being kept, so that 20 000 kept entries stay within about 200 MiB."""
    memo = Caches()
    raw = BASES["CloudProfile"]()
    raw["spec"]["kubernetes"]["versions"] = [{"version": "1.33.1"}, {"version": "1.33.2", "note": "x" * (4 << 10)}]
    judge(_update(raw, raw, "CloudProfile"), view=StaticView.empty(), settings=SETTINGS, now=START, caches=memo)
    kept = [model for model in memo.entries._models.values() if getattr(model, "version", None) in ("1.33.1", "1.33.2")]
    assert [model.version for model in kept] == ["1.33.1"]


def test_the_old_object_of_the_next_update_in_a_stream_is_neither_parsed_nor_decoded_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    revisions = []
    for limit in range(3):
        profile = BASES["CloudProfile"]()
        profile["spec"]["limits"] = {"maxNodesTotal": 100 + limit}
        revisions.append(profile)
    memo, view = Caches(), StaticView.empty()
    parsed: list[object] = []
    decoded: list[object] = []
    parse, decode_object = ParsedEntries.parse, admission.decode_object
    monkeypatch.setattr(ParsedEntries, "parse", lambda self, raw, lists: parsed.append(raw) or parse(self, raw, lists))
    monkeypatch.setattr(
        admission, "decode_object", lambda entry, raw, caches: decoded.append(raw) or decode_object(entry, raw, caches)
    )
    first = _update(revisions[1], revisions[0], "CloudProfile")
    judge(first, view=view, settings=SETTINGS, now=START, caches=memo)
    assert (len(parsed), len(decoded)) == (2, 2)
    second = _update(revisions[2], revisions[1], "CloudProfile")
    remembered = judge(second, view=view, settings=SETTINGS, now=START, caches=memo)
    assert (len(parsed), len(decoded)) == (3, 3)  # only revision 2, the new object
    assert _answer(remembered) == _answer(judge(second, view=view, settings=SETTINGS, now=START))


def test_a_stream_runs_the_version_checks_only_on_versions_no_request_had(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a GitOps stream each UPDATE adds one image version at the front: the per-version checks run on that one
    version, and a version with a finding is still reported on every request, at its new index."""
    from webhook.validators.cloudprofile import machine_images

    runs: list[str] = []
    own = machine_images._validate_image_version_architectures  # run by every check of a version's own fields

    def counted(version: Any, capabilities: Any, path: Any) -> Any:
        runs.append(version.version)
        return own(version, capabilities, path)

    monkeypatch.setattr(machine_images, "_validate_image_version_architectures", counted)
    view, memo = StaticView.empty(), Caches()
    revision = BASES["CloudProfile"]()
    bad = {"version": "1589.0.0", "kubeletVersionConstraint": "not a constraint", "architectures": ["amd64"]}
    revision["spec"]["machineImages"][0]["versions"].append(bad)
    for step in range(3):
        following = copy.deepcopy(revision)
        following["spec"]["machineImages"][0]["versions"].insert(
            0, {"version": f"1600.{step}.0", "cri": [{"name": "containerd"}], "architectures": ["amd64"]}
        )
        runs.clear()
        answer = judge(
            _update(following, revision, "CloudProfile"), view=view, settings=SETTINGS, now=START, caches=memo
        )
        checked = sorted(runs)
        assert answer == judge(_update(following, revision, "CloudProfile"), view=view, settings=SETTINGS, now=START)
        # Reported at the index the version has now (a new path, so not ratcheted).
        path = f"spec.machineImages[0].versions[{step + 3}].kubeletVersionConstraint: Invalid value"
        assert [e for e in answer.entries if e[:2] == ("CP-MI-009", "deny") and e[2].startswith(path)], answer.entries
        # The first request checks every version, and its stored object's judgement (for ratcheting) the one with a
        # finding again; later ones only the new version and the one with a finding: the stored object's image is
        # the image the request before judged, whose findings are remembered (ListFindings).
        first = ["1600.0.0", "1592.1.0", "1591.0.0", "22.4.0", "1589.0.0"]
        assert checked == sorted([*(first if step == 0 else [f"1600.{step}.0"]), "1589.0.0"])
        revision = following


_IMAGE_VERSIONS: Final = [MachineImageVersion(version=v) for v in ("1", "b-1", "1.0.0", "2.0.0", "")]


@given(
    images=st.lists(
        st.builds(
            lambda name, picks, strategy: MachineImage(
                name=name, versions=[_IMAGE_VERSIONS[k] for k in picks], update_strategy=strategy
            ),
            st.sampled_from(("a", "a-b", "b", "")),
            st.lists(st.integers(min_value=0, max_value=len(_IMAGE_VERSIONS) - 1), max_size=3),
            st.sampled_from((None, "major", "bogus")),
        ),
        max_size=4,
    ),
    remembered=st.booleans(),
)
def test_images_judged_one_by_one_give_what_the_shared_seen_sets_give(images: list[Any], remembered: bool) -> None:
    """validate_machine_images judges images that share no name or `name-version` key one by one (remembered per
    image); names and versions from a small alphabet make "a" + "b-1" and "a-b" + "1" collide."""
    from webhook.validators.cloudprofile.context import ProfileContext
    from webhook.validators.cloudprofile.machine_images import validate_machine_image, validate_machine_images

    path = SPEC_PATH.child("machineImages")
    plain = ProfileContext(now=START)
    seen_names: set[str] = set()
    seen_versions: set[str] = set()
    expected = []
    for i, image in enumerate(images):  # Gardener's loop: one pair of seen sets across all images
        expected.extend(
            validate_machine_image(
                image, {}, seen_names, seen_versions, plain, path.index(i), allow_empty_versions=False
            )
        )
    ctx = ProfileContext(now=START, findings=FindingStores() if remembered else None)
    for _ in range(2):  # the second time from the stores when remembered
        found = [f for f in validate_machine_images(images, {}, ctx, path, allow_empty_versions=False)]
        assert [f for f in found if f.path != path] == expected  # not the first loop's CP-MI-007 on the list


def test_parsed_entries_keep_no_entry_larger_than_entry_bytes_and_stay_within_kept_bytes() -> None:
    lists = REGISTRY["core.gardener.cloud", "CloudProfile"].shared_lists
    profile = BASES["CloudProfile"]()
    profile["spec"]["machineImages"][0]["versions"][0]["kubeletVersionConstraint"] = ">= 1.30" + " " * 300
    raw = json.dumps(profile).encode()
    small = ParsedEntries(entry_bytes=200)
    assert small.parse(raw, lists) == _parse_object(raw)
    kept = {(path, data) for path, data in small._parsed}
    assert kept and all(len(data) <= 200 for _, data in kept)
    tight, loose = ParsedEntries(kept_bytes=400), ParsedEntries()
    for k in range(5):  # every entry new each time
        for image in profile["spec"]["machineImages"]:
            for version in image["versions"]:
                version["kubeletVersionConstraint"] = f">= 1.{k}"
        raw = json.dumps(profile).encode()
        assert tight.parse(raw, lists) == loose.parse(raw, lists) == _parse_object(raw)
    assert tight._parsed_bytes < loose._parsed_bytes / 2  # the older half dropped whenever over kept_bytes
