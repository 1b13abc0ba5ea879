"""A Shoot UPDATE of metadata only is judged from the request: the same answer as the full judgement, and what a
person patching labels or annotations sees (docs/concepts/change-review.md "Metadata-only updates").

The property: over 10 000 generated (stored, patched) pairs, `judge` with the Shoot validator's shortcut and `judge`
with `validate_update_in_full` (every spec rule run, then what an unchanged spec keeps) give the same response:
allowed, status, every finding and every warning, in order. The stored Shoots are the Shoots of examples/,
tests/fixtures/, the fuzzing base and (when present) the real corpus, each as it is and with seeded spec defects;
the patches are what controllers and people change on a stored Shoot: labels, annotations (operations, the
deletion confirmation, the maintenance operation), finalizers, the deletion timestamp, bookkeeping fields.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections import Counter
from datetime import UTC, datetime
from typing import Any, Final

import pytest

from tests.differential import CLOCKS, REAL, _view, base_objects, mutate
from webhook.admission.wire import make_review
from webhook.cluster.static import StaticView
from webhook.judging import judge as judging
from webhook.judging.judge import judge
from webhook.settings import Settings
from webhook.validators import REGISTRY
from webhook.validators.shoot import KIND, validate_update_in_full

PAIRS: Final = 10_000
SHOOT: Final = ("core.gardener.cloud", "Shoot")
_OPERATIONS: Final = (
    "reconcile",
    "retry",
    "maintain",
    "rotate-credentials-start",
    "rotate-credentials-complete",
    "rotate-etcd-encryption-key-start",
    "rotate-ssh-keypair",
    "rotate-observability-credentials",
    "rotate-ca-start;rotate-serviceaccount-key-start",
    "force-in-place-update",
    "wake-up",
    "not-an-operation",
)
_LABEL_VALUES: Final = ("healthy", "progressing", "unhealthy", "", "-bad-", "x" * 64, "a.b_c-d")
_LABEL_KEYS: Final = (
    "shoot.gardener.cloud/status",
    "team",
    "extensions.extensions.gardener.cloud/shoot-dns-service",
    "networking.extensions.gardener.cloud/calico",
    "provider.extensions.gardener.cloud/aws",
    "bad key!",
    "example.com/" + "k" * 70,
)


def _patch(rng: random.Random, stored: dict[str, Any]) -> dict[str, Any]:
    """`stored` with one to four metadata changes, its spec and status untouched."""
    new = copy.deepcopy(stored)
    meta = new.setdefault("metadata", {})
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(9)
        labels = meta.setdefault("labels", {}) if choice < 2 else None
        annotations = meta.setdefault("annotations", {}) if 2 <= choice < 6 else None
        if labels is not None and choice == 0:
            labels[rng.choice(_LABEL_KEYS)] = rng.choice(_LABEL_VALUES)
        elif labels is not None and labels:
            del labels[rng.choice(sorted(labels))]
        elif annotations is not None and choice == 2:
            annotations["gardener.cloud/operation"] = rng.choice(_OPERATIONS)
        elif annotations is not None and choice == 3:
            annotations["confirmation.gardener.cloud/deletion"] = rng.choice(("true", "false", "yes"))
        elif annotations is not None and choice == 4:
            annotations["gardener.cloud/last-reconcile"] = str(rng.randrange(10**6))
        elif annotations is not None and choice == 5:
            annotations["maintenance.gardener.cloud/operation"] = rng.choice(_OPERATIONS)
        elif choice == 6:
            finalizers = meta.setdefault("finalizers", ["gardener"])
            if finalizers and rng.random() < 0.5:
                finalizers.pop(rng.randrange(len(finalizers)))
            else:
                finalizers.append(rng.choice(("gardener", "example.com/hold", "Bad Finalizer")))
        elif choice == 7:
            meta["deletionTimestamp"] = rng.choice(("2026-11-30T10:00:00Z", "2026-12-01T00:00:00Z"))
        else:
            meta["resourceVersion"] = str(rng.randrange(10**9))
            meta["generation"] = rng.randrange(1, 50)
    return new


def _stored_shoots(rng: random.Random) -> list[dict[str, Any]]:
    """Every base Shoot, and three copies of each with seeded spec defects (the stored object may predate a rule)."""
    shoots = [obj for _, obj in base_objects() if obj.get("kind") == "Shoot"]
    defective = []
    for shoot in shoots:
        for _ in range(3):
            variant = mutate(rng, shoot)
            if variant.get("metadata") == shoot.get("metadata"):
                defective.append(variant)
    return shoots + defective


def _response(body: bytes, view: StaticView, settings: Settings, now: datetime) -> dict[str, Any]:
    response = dict(judge(body, view=view, settings=settings, now=now).response)
    response.pop("uid", None)
    return response


@pytest.fixture(scope="module")
def in_full() -> Any:
    """The registry with the Shoot validator's UPDATE judged in full."""
    return {**REGISTRY, SHOOT: dataclasses.replace(KIND, update=validate_update_in_full)}


def test_a_metadata_update_is_answered_as_the_full_judgement_answers_it(
    in_full: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(36)
    view, settings = _view(base_objects()), Settings()
    stored = _stored_shoots(rng)
    seen: Counter[str] = Counter()
    for i in range(PAIRS):
        old = rng.choice(stored)
        new = _patch(rng, old)
        body = json.dumps(make_review(new, "UPDATE", old)).encode()
        now = CLOCKS[i % len(CLOCKS)]
        short = _response(body, view, settings, now)
        with monkeypatch.context() as patched:
            patched.setattr(judging, "REGISTRY", in_full)
            full = _response(body, view, settings, now)
        assert short == full, f"pair {i}:\nstored:  {json.dumps(old)}\npatched: {json.dumps(new)}"
        seen["allowed" if short["allowed"] else "denied"] += 1
        seen["with warnings"] += bool(short.get("warnings"))
        rules = short.get("auditAnnotations", {}).get("rules", "")
        seen["SH-WARN"] += "SH-WARN-" in rules
        seen["SH-GW"] += "SH-GW-" in rules
        seen["SH-META"] += "SH-META-" in rules
    print(f"{PAIRS} pairs: {dict(seen)}")
    # The pairs reach every kind of answer the shortcut must get right (else the property proves little).
    assert seen["allowed"] > PAIRS // 10 and seen["denied"] > PAIRS // 20, seen
    assert min(seen["SH-WARN"], seen["SH-GW"], seen["SH-META"]) > PAIRS // 50, seen


def _profile_and_shoot(expiration: str) -> tuple[StaticView, dict[str, Any]]:
    """The fuzzing base's profile with the Shoot's Kubernetes version expiring at `expiration`, and the Shoot."""
    profile = next(obj for _, obj in base_objects() if obj.get("kind") == "CloudProfile")
    shoot = next(obj for _, obj in base_objects() if obj.get("kind") == "Shoot")
    shoot = copy.deepcopy(shoot)
    profile = copy.deepcopy(profile)
    version = shoot["spec"]["kubernetes"]["version"] = "1.33.5"
    for entry in profile["spec"]["kubernetes"]["versions"]:
        if entry["version"] == version:
            entry["expirationDate"] = expiration
    shoot["spec"]["cloudProfile"] = {"kind": "CloudProfile", "name": profile["metadata"]["name"]}
    shoot["spec"].pop("cloudProfileName", None)
    return StaticView.from_objects([profile, shoot]), shoot


def test_kubectl_annotate_still_gets_the_expiry_warning_but_not_the_stored_spec_defects() -> None:
    view, shoot = _profile_and_shoot("2026-12-10T00:00:00Z")
    shoot["spec"]["provider"]["workers"][0]["maximum"] = -1  # a defect of the stored spec
    annotated = copy.deepcopy(shoot)
    annotated["metadata"].setdefault("annotations", {})["team"] = "platform"
    now = datetime(2026, 12, 2, tzinfo=UTC)
    created = judge(json.dumps(make_review(shoot, "CREATE", None)).encode(), view=view, settings=Settings(), now=now)
    assert not created.allowed  # the defect is denied where it is made
    outcome = judge(
        json.dumps(make_review(annotated, "UPDATE", shoot)).encode(), view=view, settings=Settings(), now=now
    )
    assert outcome.allowed
    assert any("SH-WARN-003" == rule for rule in outcome.rule_ids), outcome.warnings
    assert not any(w.startswith("unchanged, not enforced") for w in outcome.warnings), outcome.warnings


def test_a_label_patch_is_judged_by_the_metadata_rules() -> None:
    view, shoot = _profile_and_shoot("2099-12-31T23:59:59Z")
    patched = copy.deepcopy(shoot)
    patched["metadata"].setdefault("labels", {})["bad key!"] = "x"
    now = datetime(2026, 12, 2, tzinfo=UTC)
    outcome = judge(json.dumps(make_review(patched, "UPDATE", shoot)).encode(), view=view, settings=Settings(), now=now)
    assert not outcome.allowed
    assert outcome.messages and outcome.messages[0].startswith('metadata.labels: Invalid value: "bad key!"'), (
        outcome.messages
    )


def test_the_corpus_holds_the_real_shoots_or_says_why() -> None:
    if not REAL.is_dir():
        pytest.skip(f"the real corpus is absent ({REAL}): the property runs on the repository's own Shoots")
    assert sum(obj.get("kind") == "Shoot" for _, obj in base_objects()) > 10
