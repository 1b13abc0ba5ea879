"""The differential: thousands of reviews judged before and after a change of structure, compared byte for byte.

A refactoring that moves rules, caches or modules must leave every answer as it was. This module builds a fixed,
seeded set of AdmissionReviews and records each answer (the `response` without its uid, canonical JSON), so that a
later run can be compared with the record:

    .venv/bin/python -m tests.differential record /tmp/before.json     # before the change
    .venv/bin/python -m tests.differential compare /tmp/before.json    # after each step: exit 1 on any difference

The reviews: every object of `examples/`, `tests/fixtures/`, the fuzzing bases (`tests.strategies.BASES`) and,
when present, the real corpus, each of a judged kind, as CREATE, re-applied (UPDATE with itself), DELETE, and
`--mutations` seeded mutations of it (values replaced by other values of their type, versions and dates from the
fuzzing pools, entries dropped or repeated, keys dropped) as CREATE, as an UPDATE of the object and as an UPDATE
back to it; all under both settings of the VersionClassificationLifecycle gate and at three clocks (before,
between and after the examples' expiration dates). The cluster state is every tracked base object.
Each review is judged twice: on the plain path (no caches) and through one `Caches` per setting that sees the
reviews as a stream, as a server worker does; the two answers must be equal (else the run fails at once), and the
plain one is recorded.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import random
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from tests.strategies import BASES, NASTY_STRINGS, NASTY_VERSIONS, paths_of
from webhook.admission.wire import make_review
from webhook.caching.caches import Caches
from webhook.cluster.static import StaticView
from webhook.judging.judge import judge
from webhook.offline.documents import read_objects
from webhook.settings import FeatureGates, Settings
from webhook.validators import REGISTRY

ROOT: Final = Path(__file__).resolve().parents[1]
REAL: Final = ROOT.parent / "shared" / "fixtures" / "real"
CLOCKS: Final = (
    datetime(2026, 11, 21, tzinfo=UTC),
    datetime(2026, 12, 7, 12, 30, tzinfo=UTC),
    datetime(2027, 6, 1, tzinfo=UTC),
)
DATES: Final = ("2026-12-05T00:00:00Z", "2026-12-10T00:00:00Z", "2025-01-31T23:59:59Z", "2099-12-31T23:59:59Z")


def base_objects() -> list[tuple[str, dict[str, Any]]]:
    """(label, object) of every judged object the differential starts from, in a fixed order."""
    found: list[tuple[str, dict[str, Any]]] = []
    folders = [ROOT / "examples", ROOT / "tests" / "fixtures"] + ([REAL] if REAL.is_dir() else [])
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.suffix not in (".yaml", ".yml", ".json"):
                continue
            try:
                objects = read_objects(path)
            except ValueError:
                continue
            for i, obj in enumerate(objects):
                if _judged(obj):
                    found.append((f"{path.relative_to(ROOT.parent)}#{i}", obj))
    found.extend((f"strategies:{kind}", make()) for kind, make in BASES.items())
    return found


def _judged(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    return (str(obj.get("apiVersion", "")).rpartition("/")[0], str(obj.get("kind", ""))) in REGISTRY


def mutate(rng: random.Random, base: dict[str, Any]) -> dict[str, Any]:
    """base with one to three seeded mutations that mostly keep types, so the rules see odd values."""
    obj = copy.deepcopy(base)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in paths_of(obj) if p and p[0] in ("spec", "metadata")]
        if not paths:
            break
        path = rng.choice(paths)
        parent: Any = obj
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        value = parent[key]
        if isinstance(value, bool):
            parent[key] = not value
        elif isinstance(value, str):
            parent[key] = rng.choice((*NASTY_VERSIONS, *NASTY_STRINGS, *DATES, value + "x", value.upper()))
        elif isinstance(value, int | float):
            parent[key] = rng.choice((0, 1, -1, 3, 10**6, value + 1))
        elif isinstance(value, list) and value:
            i = rng.randrange(len(value))
            if rng.random() < 0.5:
                del value[i]
            else:
                value.insert(rng.randrange(len(value) + 1), copy.deepcopy(value[i]))
        elif isinstance(value, dict) and value:
            del value[rng.choice(sorted(value, key=str))]
    return obj


def reviews(mutations: int, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, AdmissionReview) of the differential, in a fixed order."""
    rng = random.Random(seed)
    for label, obj in base_objects():
        yield f"{label} CREATE", make_review(obj, "CREATE", None)
        yield f"{label} re-apply", make_review(obj, "UPDATE", obj)
        yield f"{label} DELETE", make_review(obj, "DELETE", None)
        for m in range(mutations):
            variant = mutate(rng, obj)
            yield f"{label} ~{m} CREATE", make_review(variant, "CREATE", None)
            yield f"{label} ~{m} UPDATE", make_review(variant, "UPDATE", obj)
            yield f"{label} ~{m} back", make_review(obj, "UPDATE", variant)


def _view(objects: list[tuple[str, dict[str, Any]]]) -> StaticView:
    view = StaticView()
    for label, obj in objects:
        view.add(obj, where=label, strict=False)
    return view


def _answer(body: bytes, view: StaticView, settings: Settings, now: datetime, caches: Caches | None) -> str:
    response = dict(judge(body, view=view, settings=settings, now=now, caches=caches).response)
    response.pop("uid", None)
    return json.dumps(response, sort_keys=True, ensure_ascii=False)


def run(mutations: int, seed: int) -> list[tuple[str, str]]:
    """(label, canonical answer) of every review under every setting and clock; raises AssertionError when the
    cached path answers differently from the plain one."""
    view = _view(base_objects())
    items = list(reviews(mutations, seed))
    bodies = [(label, json.dumps(review).encode()) for label, review in items]
    answers: list[tuple[str, str]] = []
    for gate in (False, True):
        settings = Settings(feature_gates=FeatureGates(version_classification_lifecycle=gate))
        caches = Caches()
        for now in CLOCKS:
            for label, body in bodies:
                plain = _answer(body, view, settings, now, None)
                cached = _answer(body, view, settings, now, caches)
                tag = f"{label} lifecycle={gate} now={now:%Y-%m-%dT%H:%M}"
                assert cached == plain, f"{tag}: the cached path answers otherwise\nplain:  {plain}\ncached: {cached}"
                answers.append((tag, plain))
    return answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.differential", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("record", "compare"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--mutations", type=int, default=24, help="seeded mutations per base object (24)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.command == "compare":
        record = json.loads(args.file.read_text())
        args.mutations, args.seed = record["mutations"], record["seed"]
    answers = run(args.mutations, args.seed)
    digest = hashlib.sha256("\n".join(a for _, a in answers).encode()).hexdigest()
    seconds = time.perf_counter() - started
    if args.command == "record":
        record = {"mutations": args.mutations, "seed": args.seed, "digest": digest, "answers": answers}
        args.file.write_text(json.dumps(record))
        print(f"recorded {len(answers)} answers in {seconds:.0f} s, digest {digest[:16]}")
        return 0
    recorded = [tuple(a) for a in record["answers"]]
    differ = [(old, new) for old, new in zip(recorded, answers, strict=False) if old != new]
    if len(recorded) != len(answers):
        print(f"{len(answers)} answers, the record has {len(recorded)}")
    for (tag, old), (_, new) in differ[:5]:
        print(f"DIFFERS {tag}\n  before: {old}\n  after:  {new}")
    same = not differ and len(recorded) == len(answers)
    verdict = "byte-identical" if same else f"{len(differ)} differ"
    print(f"{len(answers)} answers compared in {seconds:.0f} s: {verdict} (digest {digest[:16]})")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
