"""What gardener-webhook's handler costs around a request no validator judges, part by part (docs/design.md §7).

Run: `.venv/bin/python bench/overhead.py [--requests 20000] [--rounds 5] [--profile] [--tls SECONDS]`.
Not a test: it prints CPU milliseconds per request and exits 0.

In-process: the admission app (`create_app`, a static empty view, JSON logging at INFO to /dev/null, the request
deadline installed, as `serve` runs it) answers `--requests` ConfigMap AdmissionReviews (a kind no validator judges:
the answer is an allow) through its handler, called with aiohttp's mocked requests whose body is already in the
stream, so what is timed (`time.process_time`, the handler calls only) is the handler's own work: the content-type
and size checks, the body gate, reading the body, the deadline, parsing, judging, the response, the metrics and the
log line. Each part is then switched off in turn (variant "no X"; the body budget: the body read with a plain
`read()`, no timer), and the difference to "all parts" is what it costs; the variants run interleaved, `--rounds`
times, and the table shows the least disturbed round (min), the median and the worst, since the figures are noisy on
a shared machine. `--profile` prints the cProfile of the "all parts" variant.

`--tls SECONDS` adds the end-to-end figure: `gardener-webhook serve` (one worker) and bench/ceiling.py, each on the
first core, loaded with the same ConfigMap review over TLS from aiohttp client processes on the second core
(closed loop, as bench/run.py): server CPU per request (utime + stime from /proc) of each.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import logging
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(1, str(ROOT))

from aiohttp import web  # noqa: E402
from aiohttp.streams import StreamReader  # noqa: E402
from aiohttp.test_utils import make_mocked_request  # noqa: E402

from webhook.cluster.static import StaticView  # noqa: E402
from webhook.server import app as app_module  # noqa: E402
from webhook.server.logs import json_logging  # noqa: E402
from webhook.server.serve import GC_GEN0_THRESHOLD  # noqa: E402
from webhook.settings import Settings  # noqa: E402

CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "shoot-info", "namespace": "kube-system", "labels": {"app": "bench"}},
    "data": {"domain": "webshop.example.com", "region": "eu-central-1"},
}


def configmap_review(uid: str = "bench-configmap") -> bytes:
    """An AdmissionReview v1 CREATE of a ConfigMap, as the API server sends it (no validator judges it)."""
    request = {
        "uid": uid,
        "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
        "resource": {"group": "", "version": "v1", "resource": "configmaps"},
        "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
        "name": "shoot-info",
        "namespace": "kube-system",
        "operation": "CREATE",
        "userInfo": {"username": "system:serviceaccount:kube-system:gardener-resource-manager", "groups": []},
        "object": CONFIGMAP,
        "oldObject": None,
        "dryRun": False,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"},
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


class _Protocol:
    """The least a StreamReader needs of its protocol (flow control is never triggered: one body, fed whole)."""

    _reading_paused = False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self, resume_parser: bool = True) -> None:
        pass


def _request(app: web.Application, body: bytes, loop: asyncio.AbstractEventLoop) -> web.Request:
    stream = StreamReader(_Protocol(), 2**16, loop=loop)  # type: ignore[arg-type]
    stream.feed_data(body)
    stream.feed_eof()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    return make_mocked_request("POST", "/validate?timeout=10s", headers, payload=stream, app=app)


@contextmanager
def _no_log(app: web.Application) -> Iterator[None]:
    logging.disable(logging.CRITICAL)  # both lines of a request: the judge's "no validator" and the access line
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


@contextmanager
def _no_metrics(app: web.Application) -> Iterator[None]:
    metrics = app[app_module.METRICS]
    saved = type(metrics).observe, metrics.in_flight

    class _Gauge:
        def inc(self) -> None:
            pass

        def dec(self) -> None:
            pass

    cls = type(metrics)
    cls.observe = lambda self, **_: None  # type: ignore[method-assign,assignment]
    metrics.in_flight = _Gauge()  # type: ignore[assignment]
    try:
        yield
    finally:
        cls.observe = saved[0]  # type: ignore[method-assign]
        metrics.in_flight = saved[1]


@contextmanager
def _no_deadline(app: web.Application) -> Iterator[None]:
    deadline = app[app_module.DEADLINE]
    enabled = deadline.enabled
    deadline.enabled = False
    try:
        yield
    finally:
        deadline.enabled = enabled


@contextmanager
def _no_gate(app: web.Application) -> Iterator[None]:
    gate = app[app_module.BODY_GATE]
    cls = type(gate)
    acquire, release = cls.acquire, cls.release

    async def free(self: Any, timeout: float) -> float | None:
        return 0.0

    cls.acquire = free  # type: ignore[method-assign]
    cls.release = lambda self: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        cls.acquire, cls.release = acquire, release  # type: ignore[method-assign]


@contextmanager
def _no_body_budget(app: web.Application) -> Iterator[None]:
    async def plain(content: StreamReader, **_: Any) -> bytes:
        return await content.read()

    read_body = app_module.read_body
    app_module.read_body = plain  # type: ignore[assignment]
    try:
        yield
    finally:
        app_module.read_body = read_body


VARIANTS: dict[str, Callable[[web.Application], Any]] = {
    "log line": _no_log,
    "metrics": _no_metrics,
    "deadline": _no_deadline,
    "body gate": _no_gate,
    "body budget": _no_body_budget,
}


async def _run(app: web.Application, body: bytes, count: int, profiler: cProfile.Profile | None = None) -> float:
    """CPU seconds per request of `count` handler calls (requests built outside the timed part, in batches)."""
    loop = asyncio.get_running_loop()
    handler = app_module.handle_validate
    spent = 0.0
    batch = 500
    for start in range(0, count, batch):
        requests = [_request(app, body, loop) for _ in range(min(batch, count - start))]
        gc.collect()  # the mocked requests are old before the timed part, as a server's start-up heap is (frozen)
        if profiler is not None:
            profiler.enable()
        began = time.process_time()
        for request in requests:
            response = await handler(request)
            if response.status != 200:
                raise SystemExit(f"unexpected status {response.status}: {response.text}")
        spent += time.process_time() - began
        if profiler is not None:
            profiler.disable()
    return spent / count


async def in_process(args: argparse.Namespace) -> None:
    body = configmap_review()
    app = app_module.create_app(Settings(), StaticView.empty())
    app[app_module.DEADLINE].install()
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])  # as `serve` runs
    try:
        await _run(app, body, 2000)  # warm-up: caches of aiohttp, prometheus children, the logger
        figures: dict[str, list[float]] = {"all parts": [], **{f"no {name}": [] for name in VARIANTS}}
        for _ in range(args.rounds):
            figures["all parts"].append(await _run(app, body, args.requests))
            for name, switch in VARIANTS.items():
                with ExitStack() as stack:
                    stack.enter_context(switch(app))
                    figures[f"no {name}"].append(await _run(app, body, args.requests))
        full = min(figures["all parts"])
        print(
            f"\nIn-process handler, ConfigMap CREATE ({len(body)} B), {args.requests} requests x {args.rounds} rounds"
            " (part cost: all parts - the variant, from the least disturbed round of each)"
        )
        print(f"{'variant':<16} {'ms/req (min)':>13} {'median':>8} {'max':>8} {'part cost ms':>13}")
        for name, values in figures.items():
            best = min(values)
            part = "" if name == "all parts" else f"{(full - best) * 1000:.4f}"
            median, worst = statistics.median(values) * 1000, max(values) * 1000
            print(f"{name:<16} {best * 1000:>13.4f} {median:>8.4f} {worst:>8.4f} {part:>13}")
        if args.profile:
            profiler = cProfile.Profile()
            await _run(app, body, args.requests, profiler)
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(30)
            print(out.getvalue())
    finally:
        app[app_module.DEADLINE].uninstall()


def over_tls(seconds: float) -> None:
    import load
    import run

    namespace = argparse.Namespace(client="aiohttp", connections=8, client_processes=2)
    with tempfile.TemporaryDirectory(prefix="gardener-webhook-overhead-") as tmp:
        bench = run.Bench(namespace, Path(tmp))
        body = configmap_review()
        servers = [bench.ceiling(), bench.webhook(cpus=bench.server_cpus)]
        try:
            print(f"\nOver TLS, ConfigMap CREATE, closed loop ({seconds:g} s, 8 connections, aiohttp x2)")
            print(f"{'server':<18} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'CPU ms/req':>11}")
            for server in servers:
                result, cpu = bench.closed(server, body, seconds, bench.client_cpus)
                per = f"{cpu / result.requests * 1000:.3f}" if result.requests else "n/a"
                p50, p99 = result.percentile(0.5) * 1000, result.percentile(0.99) * 1000
                print(f"{server.name:<18} {result.rate:>7.0f} {p50:>7.2f} {p99:>7.2f} {per:>11}")
                if result.errors or set(result.statuses) - {200}:
                    print(f"  note: {result.errors} errors, statuses {dict(result.statuses)}")
        finally:
            for server in servers:
                server.stop()
    del load


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=20000, help="handler calls per variant and round (20000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every variant (5)")
    parser.add_argument("--profile", action="store_true", help="print the cProfile of the full handler")
    parser.add_argument("--tls", type=float, default=0.0, help="seconds of TLS load per server (0: skip)")
    args = parser.parse_args()
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})  # one core, as a worker under load
    try:
        with open(os.devnull, "w") as devnull, json_logging(devnull):
            asyncio.run(in_process(args))
    finally:
        os.sched_setaffinity(0, cpus)
    if args.tls:
        over_tls(args.tls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
