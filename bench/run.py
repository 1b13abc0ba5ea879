"""`make bench`: gardener-webhook against the ceiling of its stack, with realistic AdmissionReviews (docs/design.md §7).

Run: `.venv/bin/python bench/run.py [--seconds 5] [--bad-seconds 20] [--client auto|wrk|aiohttp]`. Not a test: it
prints tables and exits 0 (1 when the bad-input load saw a connection error, a 5xx or a malformed answer).

On 127.0.0.1 it starts (a) `gardener-webhook serve` with one worker and a static cluster view (`--context`: the
stored CloudProfile and 50 Shoots, bench/payloads.py) and (b) bench/ceiling.py, a bare aiohttp TLS server that
parses the body and always answers allow. Both use one certificate made for the run. With two or more cores the
servers run on the first core and the load generator on the second (os.sched_setaffinity, no root needed).
Load: `wrk` (1 thread, keep-alive connections) when installed, else `--client-processes` aiohttp client
processes. Phases:
1. Throughput: per payload, each server in turn, 1 s warm-up then `--seconds` of closed-loop load: requests/s,
   p50/p99 latency, server CPU ms per request, and the ratio gardener-webhook / ceiling.
2. Fixed rate: each payload at 25, 50 and 75 % of gardener-webhook's own closed-loop requests/s (open loop,
   aiohttp clients): p50/p99, CPU ms per request, the client processes' CPU (% of one core: near 100, the
   clients, not the server, set the latency) and, at 50 %, the ceiling's p99 at the same rate (the control).
3. Workers: `serve --workers 2` (both cores, shared with the load generator) against the 1-worker figure.
4. Bad input: a fresh 1-worker server gets a weighted mix of valid, denied and malformed requests for
   `--bad-seconds`; every answer is checked (200 with a well-formed AdmissionReview and no status.code 500, or
   400/413/415); connection errors, 5xx and RSS before/after are reported.
Server CPU is read from /proc (utime + stime of the server process and its children).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(1, str(ROOT))

import load  # noqa: E402
import payloads  # noqa: E402

from webhook.server.tls import issue_certificates  # noqa: E402

LISTENING = re.compile(r"^Listening on (https://127\.0\.0\.1:\d+/validate)", re.MULTILINE)
TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------- processes


class Server:
    """A server subprocess (pinned to `cpus`), started and waited for until it prints its URL."""

    def __init__(self, name: str, command: Sequence[str], workdir: Path, cpus: set[int] | None) -> None:
        self.name = name
        self.pauses_file = workdir / f"{name}.gc" if "gc_serve.py" in " ".join(command) else None
        self.out = workdir / f"{name}.out"
        self.err = workdir / f"{name}.err"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen(
                list(command),
                cwd=workdir,
                stdout=out,
                stderr=err,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,  # noqa: PLW1509 - pins the child before exec
            )
        deadline = time.monotonic() + 60
        while True:
            match = LISTENING.search(self.out.read_text())
            if match:
                self.url = match[1]
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{name} did not start:\n{self.out.read_text()}\n{self.err.read_text()[-3000:]}")
            time.sleep(0.05)
        time.sleep(0.3 if "--workers" not in command else 2.0)  # every worker listening

    def pids(self) -> list[int]:
        """The server process and its descendants (the worker processes of `--workers N`)."""
        found = [self.process.pid]
        for pid in found:
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                try:
                    found.extend(int(p) for p in task.read_text().split())
                except OSError:
                    continue
        return found

    def cpu_seconds(self) -> float:
        total = 0.0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
        return total

    def rss_mib(self) -> float:
        total = 0.0
        for pid in self.pids():
            try:
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
            if match:
                total += int(match[1]) / 1024
        return total

    def pauses(self) -> dict[str, list[float]] | None:
        """The collector's pauses since the last call (`gc_serve.py`: {"gen2": [count, longest ms, total ms], …}), or
        None for a server that does not count them."""
        if self.pauses_file is None:
            return None
        self.pauses_file.unlink(missing_ok=True)
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                text = self.pauses_file.read_text()
                if text.endswith("\n"):
                    return json.loads(text)  # type: ignore[no-any-return]
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        return None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


# ------------------------------------------------------------------------------------------------- running


class Bench:
    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        cpus = sorted(os.sched_getaffinity(0))
        self.server_cpus = {cpus[0]} if len(cpus) >= 2 else None
        self.client_cpus = {cpus[1]} if len(cpus) >= 2 else None
        self.cores = len(cpus)
        self.use_wrk = args.client == "wrk" or (args.client == "auto" and load.wrk_path() is not None)
        if args.client == "wrk" and load.wrk_path() is None:
            raise SystemExit("--client wrk: wrk is not installed")
        now = datetime.now(UTC)
        issued = issue_certificates(
            workdir / "certs",
            dns_names=["localhost"],
            ips=[__import__("ipaddress").ip_address("127.0.0.1")],
            validity=timedelta(days=2),
            ca_validity=timedelta(days=3),
            now=now,
        )
        self.ca = str(issued.ca_cert)
        self.context = workdir / "context.json"
        self.context.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": payloads.context_objects()}))
        self.bodies = {
            name: make()
            for name, make in payloads.PAYLOADS.items()
            if not args.only or any(o in name for o in args.only)
        }

    def webhook(self, workers: int = 1, cpus: set[int] | None = None) -> Server:
        # One worker runs under gc_serve.py, which counts the collector's pauses.
        runner = ["-m", "webhook"] if workers > 1 else [str(BENCH / "gc_serve.py"), str(self.workdir / "webhook-1.gc")]
        command = [
            sys.executable,
            *runner,
            "serve",
            "--port",
            "0",
            "--health-port",
            "0",
            "--drain-seconds",
            "0",
            "--cert-dir",
            str(self.workdir / "certs"),
            "--context",
            str(self.context),
        ]
        if workers > 1:
            command += ["--workers", str(workers)]
        return Server(f"webhook-{workers}", command, self.workdir, cpus)

    def ceiling(self) -> Server:
        command = [sys.executable, str(BENCH / "ceiling.py"), "--port", "0", "--cert-dir", str(self.workdir / "certs")]
        return Server("ceiling", command, self.workdir, self.server_cpus)

    def closed(self, server: Server, body: bytes, seconds: float, cpus: set[int] | None) -> tuple[load.Result, float]:
        """(result, server CPU seconds) of one closed-loop run."""
        connections = self.args.connections
        if self.use_wrk:
            load.run_wrk(server.url, body, connections=connections, duration=1, cpus=cpus)  # warm-up
            before = server.cpu_seconds()
            result = load.run_wrk(server.url, body, connections=connections, duration=seconds, cpus=cpus)
        else:
            kwargs = {"processes": self.args.client_processes, "connections": connections, "cpus": cpus}
            load.closed_loop(server.url, self.ca, body, duration=1, **kwargs)
            before = server.cpu_seconds()
            result = load.closed_loop(server.url, self.ca, body, duration=seconds, **kwargs)
        return result, server.cpu_seconds() - before

    def fixed(self, server: Server, body: bytes, rate: float, seconds: float) -> tuple[load.Result, float]:
        before = server.cpu_seconds()
        result = load.open_loop(
            server.url,
            self.ca,
            body,
            rate=rate,
            processes=self.args.client_processes,
            connections=self.args.connections * 2,
            duration=seconds,
            cpus=self.client_cpus,
        )
        return result, server.cpu_seconds() - before


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))


def _table(title: str, header: Sequence[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [list(header), *rows]) for i in range(len(header))]
    print(f"\n{title}")
    print(_row(header, widths))
    print(_row(["-" * w for w in widths], widths))
    for r in rows:
        print(_row(r, widths))


def _pause_row(name: str, run: str, figures: dict[str, list[float]] | None) -> list[str]:
    """One row of the collector's table: per generation, the collections and the longest pause (ms)."""
    figures = figures or {}

    def cell(gen: str) -> str:
        return f"{figures[gen][0]:.0f} ({figures[gen][1]:.1f})" if gen in figures else "0"

    return [name, run, cell("gen0"), cell("gen1"), cell("gen2")]


def _cpu_ms_per_request(cpu: float, requests: int) -> str:
    return f"{cpu / requests * 1000:.3f}" if requests else "n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run (5)")
    parser.add_argument("--bad-seconds", type=float, default=20.0, help="seconds of bad-input load (20)")
    parser.add_argument("--connections", type=int, default=8, help="keep-alive connections (8)")
    parser.add_argument(
        "--client",
        choices=("auto", "wrk", "aiohttp"),
        default="auto",
        help="closed-loop load generator: wrk if installed (auto), or aiohttp client processes",
    )
    parser.add_argument("--client-processes", type=int, default=2, help="aiohttp client processes (2)")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=("fixed", "workers", "bad"),
        help="leave out a phase (repeatable)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="TEXT",
        help="only the payloads whose name holds TEXT (repeatable)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    failed = False
    with tempfile.TemporaryDirectory(prefix="gardener-webhook-bench-") as tmp:
        bench = Bench(args, Path(tmp))
        cpu_text = f"{bench.cores} cores, no pinning"
        if bench.server_cpus and bench.client_cpus:
            cpu_text = (
                f"{bench.cores} cores, servers on CPU {min(bench.server_cpus)}, load on CPU {min(bench.client_cpus)}"
            )
        print(
            f"gardener-webhook bench: {os.uname().machine}, {cpu_text}; Python {sys.version.split()[0]}; "
            f"load: {'wrk' if bench.use_wrk else f'aiohttp x{args.client_processes}'}, {args.connections} keep-alive connections, "
            f"{args.seconds:g} s per run"
        )
        for name, body in bench.bodies.items():
            bodies = load.bodies_of(body)
            sizes = f"{len(bodies[0]) / 1024:.1f} KiB" + (
                f" each, {len(bodies)} requests in turn" if len(bodies) > 1 else ""
            )
            print(f"  {name}: {sizes}; {payloads.judged(bodies)}")
        ceiling, webhook = bench.ceiling(), bench.webhook(cpus=bench.server_cpus)
        throughput: dict[tuple[str, str], tuple[load.Result, float]] = {}
        pauses: list[list[str]] = []  # the collector's pauses in the webhook, per row and phase
        try:
            for name, body in bench.bodies.items():
                for server in (ceiling, webhook):
                    if server is webhook:
                        webhook.pauses()  # counted from here
                    throughput[(name, server.name)] = bench.closed(server, body, args.seconds, bench.client_cpus)
                    if server is webhook:
                        pauses.append(_pause_row(name, "closed loop", webhook.pauses()))
            rows = []
            for name in bench.bodies:
                base = throughput[(name, "ceiling")][0].rate
                for server in (webhook, ceiling):
                    result, cpu = throughput[(name, server.name)]
                    label = "gardener-webhook" if server is webhook else "ceiling"
                    ratio = f"{result.rate / base:.2f}" if server is webhook else ""
                    rows.append(
                        [
                            name,
                            label,
                            f"{result.rate:.0f}",
                            _ms(result.percentile(0.5)),
                            _ms(result.percentile(0.99)),
                            _cpu_ms_per_request(cpu, result.requests),
                            ratio,
                        ]
                    )
            _table(
                "Throughput (closed loop, one worker on one core)",
                ["payload", "server", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "ratio"],
                rows,
            )
            for (name, server_name), (result, _cpu) in throughput.items():
                if result.errors or result.statuses.get(0):
                    print(
                        f"  note: {name} / {server_name}: {result.errors} socket errors, {result.statuses.get(0, 0)} non-2xx"
                    )

            if "fixed" not in args.skip:
                rows = []
                overloaded: list[str] = []
                for name, body in bench.bodies.items():
                    capacity = throughput[(name, "webhook-1")][0].rate
                    for share in (0.25, 0.5, 0.75):
                        webhook.pauses()
                        result, cpu = bench.fixed(webhook, body, capacity * share, args.seconds)
                        pauses.append(_pause_row(name, f"fixed {share:.0%}", webhook.pauses()))
                        # The control at 50 %: the ceiling at the same rate, from the same clients. A p99 both show
                        # is the load generator's or the machine's, not the webhook's.
                        control = (
                            bench.fixed(ceiling, body, capacity * share, args.seconds)[0] if share == 0.5 else None
                        )
                        rows.append(
                            [
                                name,
                                f"{share:.0%}",
                                f"{result.rate:.0f}",
                                _ms(result.percentile(0.5)),
                                _ms(result.percentile(0.99)),
                                _cpu_ms_per_request(cpu, result.requests),
                                f"{100 * result.client_cpu / result.seconds:.0f}" if result.seconds else "",
                                _ms(control.percentile(0.99)) if control is not None else "",
                            ]
                        )
                        if result.errors or set(result.statuses) - {200}:
                            print(
                                f"  note: {name} at {share:.0%}: {result.errors} errors, statuses {dict(result.statuses)}"
                            )
                        if result.missed:
                            overloaded.append(
                                f"{name} at {share:.0%}: {result.missed} of {result.missed + result.requests} requests not sent"
                            )
                _table(
                    "Fixed rate: 25/50/75 % of gardener-webhook's own closed-loop req/s (open loop, aiohttp clients)",
                    ["payload", "load", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "client CPU %", "ceiling p99 ms"],
                    rows,
                )
                for line in overloaded:
                    print(
                        f"  overloaded (slower than the rate; {load.MAX_BACKLOG} unanswered per client process): {line}"
                    )
            _table(
                "Collector pauses in gardener-webhook (one worker; bench/gc_serve.py): collections (longest pause, ms)",
                ["payload", "run", "gen0", "gen1", "gen2 (full pass)"],
                pauses,
            )
        finally:
            ceiling.stop()
            webhook.stop()

        if "workers" not in args.skip:
            two = bench.webhook(workers=2)
            rows = []
            try:
                for name, body in bench.bodies.items():
                    result, cpu = bench.closed(two, body, args.seconds, None)
                    one = throughput[(name, "webhook-1")][0].rate
                    rows.append(
                        [
                            name,
                            "--workers 2",
                            f"{result.rate:.0f}",
                            _ms(result.percentile(0.5)),
                            _ms(result.percentile(0.99)),
                            _cpu_ms_per_request(cpu, result.requests),
                            f"{result.rate / one:.2f}",
                        ]
                    )
            finally:
                two.stop()
            _table(
                "Workers: serve --workers 2 on both cores (load generator unpinned) vs one worker; ratio = 2 workers / 1",
                ["payload", "server", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "ratio"],
                rows,
            )

        if "bad" not in args.skip:
            failed = bad_input(bench, args.bad_seconds)
    print(f"\nbench finished in {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


def bad_input(bench: Bench, seconds: float) -> bool:
    """Phase 4; returns True when the server broke the contract."""
    # The first body of each payload (of a stream too), checked against its own uid.
    firsts = [load.bodies_of(body)[0] for body in bench.bodies.values()]
    valid = [(body, "application/json", json.loads(body)["request"]["uid"]) for body in firsts]
    bad = payloads.bad_inputs()
    items: list[tuple[bytes, str, str | None]] = [*valid, *((body, ctype, None) for _, body, ctype in bad)]
    too_large = (
        b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"big","object":"'
        + b"x" * (9 * 1024 * 1024)
        + b'"}}'
    )
    items.append((too_large, "application/json", None))
    weights = [4] * len(valid) + [2] * len(bad) + [1]
    server = bench.webhook(cpus=bench.server_cpus)
    try:
        load.mixed(
            server.url,
            bench.ca,
            items,
            weights,
            processes=bench.args.client_processes,
            connections=bench.args.connections,
            duration=2,
            cpus=bench.client_cpus,
        )  # warm-up
        rss_before = server.rss_mib()
        result = load.mixed(
            server.url,
            bench.ca,
            items,
            weights,
            processes=bench.args.client_processes,
            connections=bench.args.connections,
            duration=seconds,
            cpus=bench.client_cpus,
        )
        rss_after = server.rss_mib()
        alive = server.process.poll() is None
    finally:
        server.stop()
    fivexx = sum(n for status, n in result.statuses.items() if status >= 500)
    growth = (rss_after - rss_before) / rss_before * 100 if rss_before else 0.0
    statuses = ", ".join(f"{status}: {n}" for status, n in sorted(result.statuses.items()))
    print(
        f"\nBad input: {seconds:g} s of valid, denied and malformed requests "
        f"({len(valid)} valid, {len(bad)} bad bodies, one 9 MiB body; weights {weights})"
    )
    print(f"  requests: {result.requests} ({result.rate:.0f}/s); HTTP statuses: {statuses}")
    print(
        f"  connection errors: {result.errors}; 5xx: {fivexx}; malformed answers: {sum(result.problems.values())}"
        + (f" {dict(result.problems)}" if result.problems else "")
    )
    print(
        f"  server RSS: {rss_before:.1f} MiB before, {rss_after:.1f} MiB after ({growth:+.1f} %, limit +10 %); "
        f"server {'still running' if alive else 'DIED'}"
    )
    return bool(result.errors or fivexx or result.problems or growth > 10 or not alive)


if __name__ == "__main__":
    sys.exit(main())
