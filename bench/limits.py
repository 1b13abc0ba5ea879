"""`make soak`: the figures of docs/operations/reliability.md, measured against `gardener-webhook serve`.

Run: `.venv/bin/python bench/limits.py [--concurrent 50] [--mib 7.5]`. Not a test: it prints one line per figure.
It starts `serve` on 127.0.0.1 with the production bounds (webhook/server/limits.py) and the manifests' shutdown
flags (--drain-seconds 5 --shutdown-timeout-seconds 10), then measures:
1. Peak RSS (VmHWM of the server process) while `--concurrent` reviews of `--mib` MiB each arrive at once; every
   entry of their CloudProfile is a duplicate, so each one would be denied with one finding per entry. Also how
   many were answered 200 (judged) and how many 503 (waited past their 30 s timeout for a body slot).
2. /healthz latency (median, worst) from a separate process during phase 1.
3. The time until a client that sends half a request head is closed.
4. The time from SIGTERM to exit with a client holding half a body open.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import sys, time, urllib.request
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    started = time.monotonic()
    with urllib.request.urlopen(sys.argv[1], timeout=10) as resp:
        assert resp.status == 200
    print(time.monotonic() - started, flush=True)
    time.sleep(0.1)
"""


def review(mib: float) -> bytes:
    """An AdmissionReview CREATE of a CloudProfile of about `mib` MiB whose Kubernetes versions are all duplicates."""
    entry = {"version": "1.33.2", "classification": "supported"}
    count = int(mib * 2**20 / len(json.dumps(entry)))
    profile = {
        "apiVersion": "core.gardener.cloud/v1beta1", "kind": "CloudProfile", "metadata": {"name": "large"},
        "spec": {"type": "local", "kubernetes": {"versions": [entry] * count},
                 "machineImages": [{"name": "gardenlinux", "versions": [{"version": "1592.1.0"}]}],
                 "machineTypes": [{"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi"}],
                 "regions": [{"name": "eu-1"}]},
    }  # fmt: skip
    request = {
        "uid": "soak", "kind": {"group": "core.gardener.cloud", "version": "v1beta1", "kind": "CloudProfile"},
        "resource": {"group": "core.gardener.cloud", "version": "v1beta1", "resource": "cloudprofiles"},
        "name": "large", "operation": "CREATE", "userInfo": {"username": "soak"}, "object": profile,
    }  # fmt: skip
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def concurrent_reviews(url: str, context: ssl.SSLContext, body: bytes, count: int) -> dict[int, int]:
    statuses: dict[int, int] = {}

    async def one(session: aiohttp.ClientSession) -> None:
        try:
            async with session.post(url + "?timeout=30s", data=body, headers={"Content-Type": "application/json"}) as r:
                await r.read()
                statuses[r.status] = statuses.get(r.status, 0) + 1
        except aiohttp.ClientError:
            statuses[-1] = statuses.get(-1, 0) + 1

    connector = aiohttp.TCPConnector(ssl=context, limit=count)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=90)) as session:
        await asyncio.gather(*(one(session) for _ in range(count)))
    return statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--mib", type=float, default=7.5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        env = {**os.environ, "GARDENER_WEBHOOK_STATE_DIR": work}
        command = [sys.executable, "-m", "webhook", "serve", "--port", "0", "--health-port", "0",
                   "--drain-seconds", "5", "--shutdown-timeout-seconds", "10"]  # fmt: skip
        out_path = Path(work) / "out"
        with out_path.open("w") as out:
            server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.DEVNULL)
        try:
            while not re.search(r"Health and metrics on (\S+)", out_path.read_text()):
                time.sleep(0.1)
            text = out_path.read_text()
            url = re.search(r"Listening on (\S+)", text)[1]  # type: ignore[index]
            health = re.search(r"Health and metrics on (\S+)", text)[1]  # type: ignore[index]
            context = ssl.create_default_context(cafile=str(Path(work) / "certs" / "ca.crt"))
            body = review(args.mib)
            idle = peak_rss_mib(server.pid)
            probe = subprocess.Popen(
                [sys.executable, "-c", PROBE, health + "/healthz", "40"], stdout=subprocess.PIPE, text=True
            )
            started = time.monotonic()
            statuses = asyncio.run(concurrent_reviews(url, context, body, args.concurrent))
            seconds = time.monotonic() - started
            probe.terminate()
            latencies = [float(x) for x in (probe.communicate()[0] or "").split()]
            print(
                f"peak RSS: {peak_rss_mib(server.pid):.0f} MiB (idle {idle:.0f} MiB) with {args.concurrent} concurrent "
                f"{len(body) / 2**20:.1f} MiB reviews; answers by HTTP status {dict(sorted(statuses.items()))} in {seconds:.1f} s"
            )
            if latencies:
                print(
                    f"/healthz during that load: median {statistics.median(latencies) * 1000:.1f} ms, "
                    f"worst {max(latencies) * 1000:.1f} ms over {len(latencies)} probes"
                )
            host, port = url.removeprefix("https://").split("/")[0].split(":")
            with socket.create_connection((host, int(port))) as raw:
                tls = context.wrap_socket(raw, server_hostname="localhost")
                tls.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Ty")
                started = time.monotonic()
                tls.settimeout(60)
                tls.recv(1)
                print(f"stalled request head closed after {time.monotonic() - started:.1f} s")
            with socket.create_connection((host, int(port))) as raw:
                tls = context.wrap_socket(raw, server_hostname="localhost")
                tls.sendall(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            b"Content-Length: 1000\r\n\r\n{")  # fmt: skip
                time.sleep(0.2)
                started = time.monotonic()
                server.send_signal(signal.SIGTERM)
                code = server.wait(timeout=60)
                print(
                    f"shutdown with a stalled client: exit {code} after {time.monotonic() - started:.1f} s "
                    "(drain 5 s + in-flight budget 10 s + final close 1 s; terminationGracePeriodSeconds 30)"
                )
        finally:
            if server.poll() is None:
                server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
