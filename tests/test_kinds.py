"""webhook/admission/kinds.py: `share_entries`, the UPDATE fast path that decodes the stored object's unchanged list entries once.

The contract is that it changes nothing but the cost: decoding the shared raw object gives the same model (or the
same OBJ-DECODE-001 findings) as decoding the stored object alone, and `judge` answers every review the same with
and without it. Hypothesis mutates realistic (Namespaced)CloudProfiles (tests/strategies.py) into pairs of new and
stored objects.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import webhook.admission.kinds
import webhook.caching.entries
import webhook.judging.judge
from tests.builders import NOW, review_bytes
from tests.strategies import BASES, CLUSTER, mutated
from webhook.admission.kinds import decode
from webhook.admission.wire import BadReview
from webhook.caching.caches import Caches
from webhook.caching.entries import share_entries
from webhook.judging.judge import judge
from webhook.settings import Settings
from webhook.validators import REGISTRY

SHARING_KINDS = sorted(kind for (_, kind), entry in REGISTRY.items() if entry.shared_lists)


def test_cloud_profiles_share_entries() -> None:
    assert SHARING_KINDS == ["CloudProfile", "NamespacedCloudProfile"]


def _entry(kind: str) -> Any:
    return next(entry for (_, k), entry in REGISTRY.items() if k == kind)


def test_unchanged_entries_are_the_new_objects_models_and_the_input_is_untouched() -> None:
    entry = _entry("CloudProfile")
    new = BASES["CloudProfile"]()
    old = copy.deepcopy(new)
    old["spec"]["machineTypes"][1]["cpu"] = "4"  # one changed entry
    new["spec"]["kubernetes"]["versions"].insert(0, {"version": "1.34.0"})  # a shifted list
    before = copy.deepcopy(old)
    decoded_new = decode(entry.model, new)
    shared = share_entries(old, new, decoded_new, entry.shared_lists)
    assert old == before
    decoded_old = decode(entry.model, shared)
    assert decoded_old == decode(entry.model, before)
    assert decoded_old.spec.kubernetes.versions[0] is decoded_new.spec.kubernetes.versions[1]
    assert decoded_old.spec.machine_types[0] is decoded_new.spec.machine_types[0]
    assert decoded_old.spec.machine_types[1] is not decoded_new.spec.machine_types[1]


def test_equal_json_in_another_list_or_of_another_kind_is_another_model() -> None:
    """A Kubernetes version and an image version can be the same JSON; each list decodes its own model, and so does
    a NamespacedCloudProfile's list of the same path (found by `make fuzz`: a shared store keyed by JSON alone)."""
    same = {"version": "1.33.2"}
    profile = BASES["CloudProfile"]()
    profile["spec"]["kubernetes"]["versions"].append(dict(same))
    profile["spec"]["machineImages"][1]["versions"].append(dict(same))
    entry = _entry("CloudProfile")
    decoded = decode(entry.model, profile)
    shared = share_entries(copy.deepcopy(profile), profile, decoded, entry.shared_lists)
    assert decode(entry.model, shared) == decoded
    memo = Caches()
    cloud_profile = _update_review("CloudProfile", BASES["CloudProfile"](), profile, profile)
    namespaced = BASES["NamespacedCloudProfile"]()
    namespaced["spec"]["kubernetes"] = {"versions": [dict(same)]}
    for body in (cloud_profile, _update_review("NamespacedCloudProfile", namespaced, namespaced, namespaced)):
        assert _answer(body, memo) == _answer(body)


@pytest.mark.parametrize(
    ("new_value", "old_value"),
    [
        pytest.param(1, 1.0, id="int-and-float"),
        pytest.param(True, 1, id="bool-and-int"),
        pytest.param(0.0, -0.0, id="zero-and-negative-zero"),
    ],
)
def test_equal_but_differently_typed_values_are_not_shared(new_value: object, old_value: object) -> None:
    entry = _entry("CloudProfile")
    new = BASES["CloudProfile"]()
    old = copy.deepcopy(new)
    new["spec"]["machineTypes"][1]["cpu"] = new_value
    old["spec"]["machineTypes"][1]["cpu"] = old_value
    decoded_new = decode(entry.model, new)
    shared = share_entries(old, new, decoded_new, entry.shared_lists)
    assert shared["spec"]["machineTypes"][1] == {**old["spec"]["machineTypes"][1]}
    assert isinstance(shared["spec"]["machineTypes"][1], dict)
    assert repr(decode(entry.model, shared)) == repr(decode(entry.model, old))


@pytest.mark.parametrize("kind", SHARING_KINDS)
@given(data=st.data())
def test_sharing_decodes_the_stored_object_as_decoding_it_alone(kind: str, data: st.DataObject) -> None:
    entry = _entry(kind)
    base = BASES[kind]()
    new = data.draw(mutated(base), label="new")
    old = data.draw(mutated(new), label="old")
    decoded_new = decode(entry.model, new)
    if isinstance(decoded_new, list):
        return  # admission shares only from a new object that decoded
    alone = decode(entry.model, copy.deepcopy(old))
    shared = decode(entry.model, share_entries(old, new, decoded_new, entry.shared_lists))
    assert repr(shared) == repr(alone)


def _update_review(kind: str, base: dict[str, Any], new: object, old: object) -> bytes:
    """An UPDATE review of `kind` (group, version and name from the unmutated base) for any new and old JSON."""
    src = {**base, "metadata": base["metadata"]}
    review = json.loads(review_bytes(src, src, operation="UPDATE"))
    review["request"]["object"], review["request"]["oldObject"] = new, old
    return json.dumps(review).encode()


@pytest.mark.parametrize("kind", SHARING_KINDS)
@given(data=st.data())
def test_judge_answers_the_same_with_and_without_sharing(
    kind: str, data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = BASES[kind]()
    new = data.draw(mutated(base), label="new")
    old = data.draw(mutated(new), label="old")
    body = _update_review(kind, base, new, old)
    with_sharing = _answer(body)
    memo = Caches()
    _answer(_update_review(kind, base, old, base), memo)  # entries of an earlier request kept across requests
    with_earlier_entries = _answer(body, memo)
    with monkeypatch.context() as patch:
        patch.setattr(webhook.caching.entries.DecodedEntries, "reuse", lambda self, raw, model, lists: raw)
        without = _answer(body)
    assert with_sharing == without == with_earlier_entries


def _answer(body: bytes, memo: Caches | None = None) -> str:
    """The review judge answers (JSON), or the BadReview reason."""
    try:
        return json.dumps(judge(body, view=CLUSTER, settings=Settings(), now=NOW, caches=memo).review)
    except BadReview as exc:
        return f"BadReview: {exc}"
