"""Load generators for `bench/run.py`: wrk when installed, else (and for what wrk cannot do) aiohttp clients.

- `run_wrk`: closed loop, keep-alive connections, as fast as the server answers (wrk's own latency percentiles).
- `closed_loop`: the same with `processes` aiohttp client processes (the fallback when wrk is missing).
- `open_loop`: a fixed request rate (requests are sent on schedule whether or not earlier ones were answered;
  latency counts from the scheduled send, so a stalled server cannot hide its queue).
- `mixed`: a closed loop over weighted bodies (valid, denied, malformed) that checks every answer: HTTP status,
  and for 200 a well-formed AdmissionReview whose `status.code` is not 500.
Client processes are started with the `spawn` method and pinned to `cpus` (the core the server does not use).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import re
import shutil
import ssl
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_WARNING_CHARS = 256  # the API server's limit per warning (webhook.admission.rendering.MAX_WARNING_CHARS)
MAX_BACKLOG = 500  # open loop: unanswered requests per client process before scheduled ones are skipped
GRACE_SECONDS = 5.0  # open loop: how long unanswered requests may still finish after the run
START_SECONDS = 2.0  # time given to spawned client processes to import before they start together

# One body, or a stream of bodies sent in turn (each connection cycles through them).
_LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local count = tonumber(os.getenv("BENCH_BODIES"))
local bodies = {}
for i = 1, count do
  local f = io.open(os.getenv("BENCH_BODY") .. "." .. i, "rb")
  bodies[i] = f:read("*a")
  f:close()
end
wrk.body = bodies[1]
local n = 0
if count > 1 then
  request = function()
    n = n % count + 1
    return wrk.format(nil, nil, nil, bodies[n])
  end
end
"""

Bodies = bytes | Sequence[bytes]  # one AdmissionReview body, or a stream sent in turn


def bodies_of(body: Bodies) -> list[bytes]:
    return [body] if isinstance(body, bytes) else list(body)


@dataclass
class Result:
    """What one load run saw. latencies: seconds (empty when the generator reports percentiles itself)."""

    requests: int = 0
    seconds: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)
    errors: int = 0  # connection errors, timeouts
    problems: Counter[str] = field(default_factory=Counter)  # malformed answers (mixed)
    latencies: list[float] = field(default_factory=list)
    p50: float | None = None
    p99: float | None = None
    client_cpu: float = 0.0  # seconds of CPU the client processes used
    missed: int = 0  # open loop: scheduled requests not sent because MAX_BACKLOG requests were still unanswered
    generator: str = ""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        if q == 0.5 and self.p50 is not None:
            return self.p50
        if q == 0.99 and self.p99 is not None:
            return self.p99
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def merge(self, other: Result) -> None:
        self.requests += other.requests
        self.seconds = max(self.seconds, other.seconds)
        self.statuses.update(other.statuses)
        self.errors += other.errors
        self.problems.update(other.problems)
        self.latencies.extend(other.latencies)
        self.client_cpu += other.client_cpu
        self.missed += other.missed


# ------------------------------------------------------------------------------------------------------ wrk


def wrk_path() -> str | None:
    return shutil.which("wrk")


_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}


def _seconds(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    if match is None:
        raise ValueError(f"unexpected wrk duration {text!r}")
    return float(match[1]) * _UNITS[match[2]]


def run_wrk(url: str, body: Bodies, *, connections: int, duration: float, cpus: set[int] | None) -> Result:
    """One wrk run (1 thread); a stream of bodies is sent in turn. Raises RuntimeError when wrk fails."""
    wrk = wrk_path()
    assert wrk is not None
    bodies = bodies_of(body)
    with tempfile.TemporaryDirectory() as tmp:
        body_file, script = Path(tmp) / "body.json", Path(tmp) / "post.lua"
        for i, one in enumerate(bodies, 1):
            Path(f"{body_file}.{i}").write_bytes(one)
        script.write_text(_LUA)
        command = [wrk, "-t1", f"-c{connections}", f"-d{max(1, round(duration))}s", "--latency", "-s", str(script), url]
        env = {**os.environ, "BENCH_BODY": str(body_file), "BENCH_BODIES": str(len(bodies))}
        started = os.times()
        done = subprocess.run(command, env=env, capture_output=True, text=True, preexec_fn=_pin(cpus), check=False)
        ended = os.times()
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed: {done.stderr or done.stdout}")
    out = done.stdout
    result = Result(
        generator="wrk",
        client_cpu=(ended.children_user + ended.children_system) - (started.children_user + started.children_system),
    )
    total = re.search(r"(\d+) requests in ([\d.]+\w+),", out)
    if total is None:
        raise RuntimeError(f"cannot read wrk output:\n{out}")
    result.requests, result.seconds = int(total[1]), _seconds(total[2])
    for q, name in ((50, "p50"), (99, "p99")):
        match = re.search(rf"^\s+{q}%\s+([\d.]+\w+)", out, re.MULTILINE)
        if match:
            setattr(result, name, _seconds(match[1]))
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if socket:
        result.errors = sum(int(x) for x in socket.groups())
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    bad = int(non2xx[1]) if non2xx else 0
    result.statuses[200] = result.requests - bad
    if bad:
        result.statuses[0] = bad  # wrk does not say which; counted as "not 2xx"
    return result


def _pin(cpus: set[int] | None) -> Any:
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


# -------------------------------------------------------------------------------------------- aiohttp clients


def _client_context(ca: str) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca)
    return context


def _check_answer(status: int, text: bytes, uid: str | None) -> str | None:
    """Why an answer breaks the contract (docs/design.md §2–3), or None."""
    if status >= 500:
        return f"HTTP {status}"
    if status in (400, 413, 415):
        return None
    if status != 200:
        return f"HTTP {status}"
    try:
        review = json.loads(text)
        response = review["response"]
    except (ValueError, KeyError, TypeError):
        return "200 without an AdmissionReview"
    if review.get("apiVersion") != "admission.k8s.io/v1" or review.get("kind") != "AdmissionReview":
        return "200 with a wrong apiVersion/kind"
    if uid is not None and response.get("uid") != uid:
        return "uid not echoed"
    if not isinstance(response.get("allowed"), bool):
        return "allowed is not a bool"
    status_code = (response.get("status") or {}).get("code")
    if not response["allowed"] and not isinstance(status_code, int):
        return "denied without status.code"
    if status_code == 500:
        return "status.code 500 (validator crash)"
    warnings = response.get("warnings", [])
    if not isinstance(warnings, list) or any(not isinstance(w, str) or len(w) > MAX_WARNING_CHARS for w in warnings):
        return "malformed warnings"
    return None


async def _session_loop(
    url: str,
    ca: str,
    items: Sequence[tuple[bytes, str, str | None]],
    weights: Sequence[int],
    *,
    connections: int,
    duration: float,
    rate: float | None,
    check: bool,
    start_at: float,
) -> Result:
    import aiohttp

    result = Result(generator="aiohttp")
    connector = aiohttp.TCPConnector(ssl=_client_context(ca), limit=connections, force_close=False)
    timeout = aiohttp.ClientTimeout(total=30)
    schedule = [i for i, w in enumerate(weights) for _ in range(w)]
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def one(n: int, scheduled: float) -> None:
            body, content_type, uid = items[schedule[n % len(schedule)]]
            try:
                async with session.post(url, data=body, headers={"Content-Type": content_type}) as resp:
                    text = await resp.read()
                    status = resp.status
            except (TimeoutError, aiohttp.ClientError, OSError):
                result.errors += 1
                return
            result.latencies.append(time.perf_counter() - scheduled)
            result.statuses[status] += 1
            result.requests += 1
            if check:
                problem = _check_answer(status, text, uid)
                if problem is not None:
                    result.problems[problem] += 1

        # Every client process starts at the same wall-clock moment, so that their counts add up over one period.
        await asyncio.sleep(max(0.0, start_at - time.time()))
        started = time.perf_counter()
        end = started + duration
        if rate is None:
            counter = iter(range(10**12))

            async def worker() -> None:
                while time.perf_counter() < end:
                    await one(next(counter), time.perf_counter())

            await asyncio.gather(*(worker() for _ in range(connections)))
        else:
            tasks: set[asyncio.Task[None]] = set()
            n = 0
            while True:
                scheduled = started + n / rate
                if scheduled >= end:
                    break
                delay = scheduled - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                n += 1
                if len(tasks) >= MAX_BACKLOG:  # the server falls behind the rate: do not pile up without bound
                    result.missed += 1
                    continue
                task = asyncio.ensure_future(one(n, scheduled))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if tasks:
                await asyncio.wait(tasks, timeout=GRACE_SECONDS)
            for task in tasks:
                task.cancel()
        result.seconds = time.perf_counter() - started
    return result


def _process_main(queue: Any, cpus: set[int] | None, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    if cpus:
        os.sched_setaffinity(0, cpus)
    before = os.times()
    result = asyncio.run(_session_loop(*args, **kwargs))
    after = os.times()
    result.client_cpu = (after.user + after.system) - (before.user + before.system)
    queue.put(result)


def _in_processes(
    processes: int,
    cpus: set[int] | None,
    url: str,
    ca: str,
    items: Sequence[tuple[bytes, str, str | None]],
    weights: Sequence[int],
    *,
    connections: int,
    duration: float,
    rate: float | None,
    check: bool,
) -> Result:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    per_rate = rate / processes if rate is not None else None
    per_connections = max(1, connections // processes)
    options = {"connections": per_connections, "duration": duration, "rate": per_rate, "check": check,
               "start_at": time.time() + START_SECONDS}  # fmt: skip
    workers = [
        context.Process(target=_process_main, args=(queue, cpus, (url, ca, items, weights), options))
        for _ in range(processes)
    ]
    for w in workers:
        w.start()
    total = Result(generator=f"aiohttp x{processes}")
    for _ in workers:
        total.merge(queue.get(timeout=duration + 120))
    for w in workers:
        w.join(timeout=10)
        if w.is_alive():
            w.kill()
            w.join()
    return total


def closed_loop(
    url: str,
    ca: str,
    body: Bodies,
    *,
    processes: int,
    connections: int,
    duration: float,
    cpus: set[int] | None,
    uid: str | None = "bench",
) -> Result:
    return _in_processes(
        processes,
        cpus,
        url,
        ca,
        [(one, "application/json", uid) for one in bodies_of(body)],
        [1] * len(bodies_of(body)),
        connections=connections,
        duration=duration,
        rate=None,
        check=False,
    )


def open_loop(
    url: str,
    ca: str,
    body: Bodies,
    *,
    rate: float,
    processes: int,
    connections: int,
    duration: float,
    cpus: set[int] | None,
) -> Result:
    return _in_processes(
        processes,
        cpus,
        url,
        ca,
        [(one, "application/json", "bench") for one in bodies_of(body)],
        [1] * len(bodies_of(body)),
        connections=connections,
        duration=duration,
        rate=rate,
        check=False,
    )


def mixed(
    url: str,
    ca: str,
    items: Sequence[tuple[bytes, str, str | None]],
    weights: Sequence[int],
    *,
    processes: int,
    connections: int,
    duration: float,
    cpus: set[int] | None,
) -> Result:
    return _in_processes(
        processes, cpus, url, ca, items, weights, connections=connections, duration=duration, rate=None, check=True
    )
