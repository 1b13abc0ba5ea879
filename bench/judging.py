"""What judging alone costs per request, in process, for each stream of bench/payloads.py (docs/design.md §7).

Run: `.venv/bin/python bench/judging.py [--only TEXT] [--rounds 5] [--requests 1000] [--plain] [--profile]`.
Not a test: it prints CPU milliseconds per request and exits 0.

Each row's bodies go through `judge` (the path of the server and the CLI) against the bench's static view, with one
`Caches` kept across the whole row as a server worker keeps it, and the garbage collector set as `serve` sets it
(`gc.freeze` after loading, the same generation-0 threshold). A round sends the row's bodies in turn, at least
`--requests` requests (a one-body row: that body again and again); `--rounds` rounds run in a row, and the first,
which fills the stores, is not timed; the table shows the least disturbed of the timed rounds (min), their median and the worst, in CPU time (`time.process_time`) of the `judge` calls only. No TLS, HTTP, log line or metrics: that is
bench/overhead.py's part. `--plain` judges without the stores (the path every shortcut is checked against), to
show what the stores buy on each row; `--profile` prints the cProfile of one more round of each row, after the timed ones.
Each row ends with the garbage collector's pauses in its timed rounds (`gcpauses`): a full pass (gen2) walks every
long-lived object that is not frozen.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(1, str(BENCH.parent))

import gcpauses  # noqa: E402
import payloads  # noqa: E402

from webhook.caching.caches import Caches  # noqa: E402
from webhook.cluster.static import StaticView  # noqa: E402
from webhook.judging.judge import judge  # noqa: E402
from webhook.server.serve import GC_GEN0_THRESHOLD  # noqa: E402
from webhook.settings import Settings  # noqa: E402


def _bodies(make: object) -> list[bytes]:
    made = make()  # type: ignore[operator]
    return made if isinstance(made, list) else [made]


def _row(name: str, bodies: list[bytes], args: argparse.Namespace, view: StaticView, settings: Settings) -> None:
    caches = None if args.plain else Caches()
    sent = bodies * -(-args.requests // len(bodies))  # a round: the stream in turn, at least --requests requests
    now = datetime.now(UTC)
    rounds: list[float] = []
    profiler = cProfile.Profile() if args.profile else None
    pauses: gcpauses.Pauses | None = None
    for r in range(args.rounds + 1 + (profiler is not None)):
        profiling = r == args.rounds + 1
        if r == 1:
            pauses = gcpauses.Pauses()  # the timed rounds only
        if profiling:
            assert pauses is not None and profiler is not None
            pauses.stop()
            profiler.enable()
        start = time.process_time()
        for body in sent:
            judge(body, view=view, settings=settings, now=now, caches=caches)
        spent = time.process_time() - start
        if profiling:
            profiler.disable()  # type: ignore[union-attr]
        elif r:  # the first round fills the stores
            rounds.append(spent * 1000 / len(sent))
    if pauses is not None:
        pauses.stop()
    print(
        f"{name:<64} {min(rounds):6.3f} {statistics.median(rounds):6.3f} {max(rounds):6.3f}   ({len(bodies)} bodies, {len(sent)} a round)",
        flush=True,
    )
    print(f"{'':<4}collector in the timed rounds: {pauses.summary() if pauses is not None else 'not measured'}")
    if profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
        print(out.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only the rows whose name contains TEXT")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds per row, after one that fills the stores")
    parser.add_argument("--requests", type=int, default=1000, help="requests per round, at least (the stream in turn)")
    parser.add_argument("--plain", action="store_true", help="judge without the stores (Caches)")
    parser.add_argument("--profile", action="store_true", help="print the cProfile of one more round of each row")
    args = parser.parse_args()
    view, settings = StaticView.from_objects(payloads.context_objects()), Settings()
    rows = [(name, _bodies(make)) for name, make in payloads.PAYLOADS.items() if args.only in name]
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])
    print(
        f"{'judging, ms of CPU per request' + (' (plain path)' if args.plain else ''):<64} {'min':>6} {'median':>6} "
        f"{'worst':>6}"
    )
    for name, bodies in rows:
        _row(name, bodies, args, view, settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
