"""`serve --workers N`: N server processes on one TLS port (SO_REUSEPORT), supervised by the parent.

Each worker is a fresh Python process (`sys.executable -c …`, not a fork: the parent may already hold
threads and sockets) that receives its options, the settings and a picklable view factory on stdin, builds
its own cluster view (a live view lists and watches on its own), and runs the same `serve.serve_forever` as a
single process: certificate watcher, request deadline and drain included. The kernel spreads new
connections over the workers' listening sockets. The parent binds the TLS port first with SO_REUSEPORT
and keeps it bound (never listening), so port 0 resolves once for every worker, a port in use fails at
start-up, and no other program can take the port while a worker restarts.

Health and metrics port, the decision: the parent serves it, and nothing else does. kubelet probes and
Prometheus need one stable answer per Pod, which neither "worker 0 only" (blind to the others) nor a
shared SO_REUSEPORT health port (each probe or scrape lands on a random worker, so counters jump between
scrapes) gives. Each worker serves its own health app on an ephemeral 127.0.0.1 port, which it prints
on its stdout; the parent's
- `/healthz` is 200 while the parent runs (it restarts crashed workers itself; a liveness failure would
  restart all of them);
- `/readyz` is 200 when every worker's `/readyz` is (503 naming the workers that are not, or
  "shutting down" from the first SIGTERM on);
- `/metrics` is every worker's metrics with a `worker="<index>"` label added, plus the parent's own
  `gardener_webhook_worker_restarts_total{worker}` and `gardener_webhook_worker_up{worker}`.
A worker that exits while the parent is not stopping is restarted after a back-off (1 s, doubling to
30 s, reset after a minute of running). SIGTERM/SIGINT to the parent turns its `/readyz` false and is
forwarded as SIGTERM to every worker, which drains and finishes its in-flight requests; the parent exits 0
once all have exited (any worker still running after drain + shutdown timeout + 10 s is killed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import re
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Final, TextIO

import aiohttp
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

from webhook.cluster.view import ClusterView
from webhook.server.logs import json_logging
from webhook.server.serve import EXIT_OK, EXIT_USAGE, ServeError, ServeOptions, serve_forever, url
from webhook.server.tls import cert_dir_files
from webhook.settings import Settings

logger = logging.getLogger(__name__)

STARTUP_SECONDS: Final = 60.0  # a worker imports the package and lists the cluster before it listens
PROBE_SECONDS: Final = 2.0  # one worker's /readyz or /metrics answer
BACKOFF_SECONDS: Final = (1.0, 30.0)  # first and longest wait before a crashed worker is restarted
STABLE_SECONDS: Final = 60.0  # a worker that ran this long restarts without waiting
_HEALTH_LINE: Final = re.compile(rb"^Health and metrics on (http://\S+) ")
_WORKER_CODE: Final = "from webhook.server.workers import worker_main; worker_main()"

ViewFactory = Callable[[], ClusterView]  # pickled into each worker, which calls it to build its own view


def supervise(options: ServeOptions, *, settings: Settings, view_factory: ViewFactory, out: TextIO) -> int:
    """Run options.workers server processes until SIGTERM/SIGINT; the exit status (0, 2 unusable setup).

    options.cert_dir must name the certificate directory (the caller resolved self-signed material).
    Raises ServeError for a TLS port that cannot be bound.
    """
    reserved = _reserve(options.host, options.port)
    try:
        port = reserved.getsockname()[1]
        worker_options = replace(options, port=port, health_host="127.0.0.1", health_port=0, reuse_port=True, workers=1)
        payload = pickle.dumps((worker_options, settings, view_factory))
        supervisor = _Supervisor(options, payload, out, tls_url=url("https", (options.host, port)) + "/validate")
        return asyncio.run(supervisor.run())
    finally:
        reserved.close()


def _reserve(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {url('https', (host, port))} (TLS): {exc.strerror or exc}") from None
    return sock


def worker_main() -> None:
    """Entry of a worker process: read (options, settings, view factory) from stdin and serve."""
    index = int(sys.argv[1])
    options, settings, view_factory = pickle.loads(sys.stdin.buffer.read())
    with json_logging(fields={"worker": index}):
        try:
            view = view_factory()
            cert, key = cert_dir_files(options.cert_dir)
            asyncio.run(serve_forever(options, settings=settings, view=view, cert=cert, key=key, out=sys.stdout))
        except ServeError as exc:
            logger.error("worker cannot serve", extra={"reason": str(exc)})
            sys.exit(EXIT_USAGE)


@dataclass(slots=True)
class _Worker:
    index: int
    process: asyncio.subprocess.Process | None = None
    health_url: str | None = None
    started: float = 0.0
    backoff: float = BACKOFF_SECONDS[0]
    listening: asyncio.Event = field(default_factory=asyncio.Event)  # set once, at the first start
    reader: asyncio.Task[None] | None = None


class _Supervisor:
    def __init__(self, options: ServeOptions, payload: bytes, out: TextIO, *, tls_url: str) -> None:
        self.options = options
        self.payload = payload
        self.out = out
        self.tls_url = tls_url
        self.workers = [_Worker(i) for i in range(options.workers)]
        self.stopping = False
        self.running = False  # every worker listened once: from now on a crashed worker is restarted
        self.registry = CollectorRegistry()
        self.restarts = Counter(
            "gardener_webhook_worker_restarts", "Worker processes restarted after they exited.", ("worker",),
            registry=self.registry,
        )  # fmt: skip
        self.up = Gauge(
            "gardener_webhook_worker_up", "1 while the worker process runs.", ("worker",), registry=self.registry
        )
        self.session: aiohttp.ClientSession | None = None

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        signals = (signal.SIGTERM, signal.SIGINT)
        for sig in signals:
            loop.add_signal_handler(sig, stop.set)
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=PROBE_SECONDS))
        tasks = [asyncio.create_task(self._keep(worker), name=f"worker-{worker.index}") for worker in self.workers]
        runner = web.AppRunner(self._health_app(), access_log=None)
        await runner.setup()
        try:
            started = await self._wait_listening(stop)
            if not started:
                return EXIT_USAGE if not stop.is_set() else EXIT_OK
            self.running = True
            site = web.TCPSite(runner, self.options.health_host, self.options.health_port)
            try:
                await site.start()
            except OSError as exc:
                raise ServeError(f"cannot listen on {site.name} (health): {exc.strerror or exc}") from None
            health_url = url("http", runner.addresses[0])
            self.out.write(f"Listening on {self.tls_url} ({len(self.workers)} workers)\n")
            self.out.write(f"Health and metrics on {health_url} (/healthz, /readyz, /metrics)\n")
            self.out.flush()
            logger.info("serving", extra={"url": self.tls_url, "health_url": health_url, "workers": len(self.workers)})
            await stop.wait()
            logger.info("signal received, stopping workers")
        finally:
            self.stopping = True
            self._signal_all(signal.SIGTERM)
            stop.clear()
            second = asyncio.create_task(self._forward_second(stop))
            await self._wait_all()
            second.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, second, return_exceptions=True)
            await runner.cleanup()
            await self.session.close()
            for sig in signals:
                loop.remove_signal_handler(sig)
        logger.info("stopped")
        return EXIT_OK

    async def _wait_listening(self, stop: asyncio.Event) -> bool:
        """True once every worker listens; False when one exits first, the start-up time runs out, or a
        signal arrives."""
        waits = [asyncio.create_task(w.listening.wait()) for w in self.workers]
        stopped = asyncio.create_task(stop.wait())
        crashed = asyncio.create_task(self._first_exit())
        first: list[asyncio.Future[Any]] = [asyncio.gather(*waits), stopped, crashed]
        try:
            await asyncio.wait(first, timeout=STARTUP_SECONDS, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (*waits, stopped, crashed):
                task.cancel()
        ready = all(w.listening.is_set() for w in self.workers)
        if not ready and not stop.is_set():
            logger.error("a worker did not start; stopping (its error is logged above)")
        return ready and not stop.is_set()

    async def _first_exit(self) -> None:
        while all(w.process is None or w.process.returncode is None for w in self.workers):
            await asyncio.sleep(0.05)

    async def _keep(self, worker: _Worker) -> None:
        """Run the worker, and run it again after it exits (with back-off) until the parent stops."""
        while not self.stopping:
            await self._spawn(worker)
            assert worker.process is not None
            code = await worker.process.wait()
            self.up.labels(str(worker.index)).set(0)
            worker.health_url = None
            if self.stopping:
                return
            if not self.running:
                logger.error("worker exited before it listened", extra={"worker": worker.index, "exit_code": code})
                return  # a start-up failure: _wait_listening stops the parent
            ran = time.monotonic() - worker.started
            worker.backoff = BACKOFF_SECONDS[0] if ran >= STABLE_SECONDS else worker.backoff
            logger.error(
                "worker exited; restarting",
                extra={"worker": worker.index, "exit_code": code, "restart_in_s": worker.backoff},
            )
            await asyncio.sleep(worker.backoff)
            worker.backoff = min(worker.backoff * 2, BACKOFF_SECONDS[1])
            self.restarts.labels(str(worker.index)).inc()

    async def _spawn(self, worker: _Worker) -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", _WORKER_CODE, str(worker.index),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        worker.process, worker.started = process, time.monotonic()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(self.payload)
        process.stdin.close()
        self.up.labels(str(worker.index)).set(1)
        logger.info("worker started", extra={"worker": worker.index, "pid": process.pid})
        worker.reader = asyncio.create_task(self._read_stdout(worker, process.stdout))

    async def _read_stdout(self, worker: _Worker, stdout: asyncio.StreamReader) -> None:
        """Learn the worker's health URL from what it prints; drain the rest so the pipe never fills."""
        async for line in stdout:
            match = _HEALTH_LINE.match(line)
            if match:
                worker.health_url = match[1].decode()
                worker.listening.set()

    def _signal_all(self, sig: int) -> None:
        for worker in self.workers:
            if worker.process is not None and worker.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    worker.process.send_signal(sig)

    async def _forward_second(self, stop: asyncio.Event) -> None:
        await stop.wait()
        logger.info("second signal received, forwarded")
        self._signal_all(signal.SIGTERM)

    async def _wait_all(self) -> None:
        limit = self.options.drain_seconds + self.options.shutdown_timeout_seconds + 10.0
        running = [w.process for w in self.workers if w.process is not None]
        try:
            await asyncio.wait_for(asyncio.gather(*(p.wait() for p in running)), limit)
        except TimeoutError:
            logger.error("workers did not stop in time; killing them")
            self._signal_all(signal.SIGKILL)
            await asyncio.gather(*(p.wait() for p in running))

    # ------------------------------------------------------------------------------------- health app

    def _health_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/metrics", self._metrics)
        return app

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def _get(self, worker: _Worker, path: str) -> tuple[int, str]:
        if worker.health_url is None or worker.process is None or worker.process.returncode is not None:
            return 0, "not running"
        assert self.session is not None
        try:
            async with self.session.get(worker.health_url + path) as resp:
                return resp.status, await resp.text()
        except (aiohttp.ClientError, TimeoutError) as exc:
            return 0, f"no answer ({type(exc).__name__})"

    async def _readyz(self, request: web.Request) -> web.Response:
        if self.stopping:
            return web.Response(status=503, text="not ready: shutting down")
        answers = await asyncio.gather(*(self._get(w, "/readyz") for w in self.workers))
        missing = [
            f"worker {w.index}: {text.removeprefix('not ready: ')}"
            for w, (status, text) in zip(self.workers, answers, strict=True)
            if status != 200
        ]
        if missing:
            return web.Response(status=503, text="not ready: " + "; ".join(missing))
        return web.Response(text="ok")

    async def _metrics(self, request: web.Request) -> web.Response:
        answers = await asyncio.gather(*(self._get(w, "/metrics") for w in self.workers))
        registry = CollectorRegistry()
        texts = {str(w.index): text for w, (status, text) in zip(self.workers, answers, strict=True) if status == 200}
        registry.register(_Merged(self.registry, texts))
        response = web.Response(body=generate_latest(registry))
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response


class _Merged(Collector):
    """The parent's own metrics plus each worker's exposition with a `worker` label added."""

    def __init__(self, own: CollectorRegistry, expositions: dict[str, str]) -> None:
        self.own = own
        self.expositions = expositions

    def collect(self) -> Iterator[Metric]:
        yield from self.own.collect()
        families: dict[str, Metric] = {}
        for index, text in self.expositions.items():
            for family in text_string_to_metric_families(text):
                merged = families.setdefault(
                    family.name, Metric(family.name, family.documentation, family.type, family.unit)
                )
                for sample in family.samples:
                    labels: dict[str, Any] = {**sample.labels, "worker": index}
                    merged.add_sample(sample.name, labels, sample.value, sample.timestamp)
        yield from families.values()
