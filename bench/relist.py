"""Benchmark: how long applying a list of 10 000 Shoots blocks the event loop of the live cluster view.

Run: `.venv/bin/python bench/relist.py [--shoots 10000] [--resync 4] [--relists 2]`. Not a test: it prints figures
and exits 0.

A fake API server (tests/cluster/fake_apiserver.py, in a child process so that its JSON encoding does not run on the
measured loop) holds the CloudProfile, 20 NamespacedCloudProfiles and `--shoots` Shoots (5 worker pools each) that
bench/inuse.py builds. A LiveView lists and watches it with a full relist every `--resync` seconds, while a probe
coroutine on the same loop sleeps 1 ms at a time and records by how much each wake-up was late (time.perf_counter):
its largest lateness is the longest time the loop was blocked. Printed per phase, in milliseconds: the first list
(every Shoot new), relists in which no Shoot changed, and relists in which every Shoot changed (the server rewrites
each Shoot, so each gets a new resourceVersion, before it answers the first page of a list).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.inuse import objects  # noqa: E402
from tests.cluster.fake_apiserver import FakeApiServer, write_kubeconfig  # noqa: E402
from webhook.cluster.live import LiveView, Source, client_from_kubeconfig  # noqa: E402

PROBE_SLEEP_SECONDS = 0.001


class _ChurningApiServer(FakeApiServer):
    """Rewrites every Shoot before the first page of each Shoot list after the first when `churn` is set."""

    churn: bool = False
    shoot_lists: int = 0

    async def _list(self, plural: str, params: dict[str, str], namespace: str = "") -> web.Response:
        if plural == "shoots" and "continue" not in params:
            self.shoot_lists += 1
            if self.churn and self.shoot_lists > 1:
                for shoot in list(self.objects["shoots"].values()):
                    self.put(shoot, notify=False)
        return await super()._list(plural, params, namespace)


def _serve(conn: Connection, shoots: int, churn: bool) -> None:
    """Child process: serve the fake API server on 127.0.0.1 and send its URL through conn."""
    fake = _ChurningApiServer()
    fake.churn = churn
    for obj in objects(shoots):
        fake.put(obj, notify=False)

    async def run() -> None:
        runner = web.AppRunner(fake.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        host, port = runner.addresses[0][:2]
        conn.send(f"http://{host}:{port}")
        await asyncio.Event().wait()

    asyncio.run(run())


class _Probe:
    """Sleeps PROBE_SLEEP_SECONDS at a time on the loop and keeps (time, lateness in seconds) of every wake-up."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []

    async def run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(PROBE_SLEEP_SECONDS)
            now = time.perf_counter()
            self.samples.append((now, now - started - PROBE_SLEEP_SECONDS))

    def worst_ms(self, start: float, end: float) -> float:
        """The largest lateness (ms) of wake-ups in [start, end]."""
        return 1000 * max((lag for t, lag in self.samples if start <= t <= end), default=0.0)


async def _measure(url: str, *, shoots: int, resync: float, relists: int) -> tuple[float, float, float]:
    """(seconds to sync, worst lateness in ms during the first list, worst lateness in ms after it)."""
    with tempfile.TemporaryDirectory() as tmp:
        view = LiveView(
            [Source("bench", client_from_kubeconfig(write_kubeconfig(Path(tmp), url)))], resync_seconds=resync
        )
    probe = _Probe()
    probing = asyncio.create_task(probe.run())
    started = time.perf_counter()
    await view.start()
    try:
        while not (view.synced and view.counts()["Shoot"] == shoots):
            await asyncio.sleep(0.01)
        synced = time.perf_counter()
        await asyncio.sleep(resync * (relists + 0.5))
        ended = time.perf_counter()
    finally:
        await view.stop()
        probing.cancel()
    return synced - started, probe.worst_ms(started, synced + 0.5), probe.worst_ms(synced + 0.5, ended)


def _run(shoots: int, resync: float, relists: int, churn: bool) -> tuple[float, float, float]:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve, args=(child, shoots, churn), daemon=True)
    server.start()
    try:
        url = parent.recv()
        return asyncio.run(_measure(url, shoots=shoots, resync=resync, relists=relists))
    finally:
        server.terminate()
        server.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoots", type=int, default=10_000)
    parser.add_argument("--resync", type=float, default=4.0, help="seconds between full relists")
    parser.add_argument("--relists", type=int, default=2, help="relists to observe after the first list")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    print(f"{args.shoots} Shoots, a relist every {args.resync:g} s; worst event-loop block (1 ms probe):")
    for churn in (False, True):
        seconds, first, later = _run(args.shoots, args.resync, args.relists, churn)
        what = "every Shoot changed" if churn else "nothing changed"
        if not churn:
            print(f"  first list (all new):          {first:8.1f} ms   (synced after {seconds:.1f} s)")
        print(f"  {args.relists} relists, {what + ':':20} {later:8.1f} ms")


if __name__ == "__main__":
    main()
