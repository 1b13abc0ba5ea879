"""Quick measurement: what bounding judge() by ?timeout= costs one worker (docs/getting-started.md "Running the
server").

Run: `.venv/bin/python bench/timeout_cost.py [bare|inline|thread|alarm]…` (needs `wrk`, e.g. `apt-get install
wrk`; BIG=1 for the 35-version CloudProfile of bench/inuse.py, ROUNDS=N). Not a test: it prints requests/s.
Each variant is a one-core aiohttp TLS server (CPU 0) answering POST /validate; wrk (CPU 1, 8 keep-alive
connections, 4 s) loads it. Variants: `bare` a fixed answer, `inline` judge() with no bound, `thread`
judge() in a worker thread under asyncio.wait_for, `alarm` judge() inline under a SIGALRM timer, `app` the
real admission app (webhook.server.create_app: Deadline, metrics, the request log line).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import signal
import ssl
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from datetime import UTC, datetime  # noqa: E402 - after the path set-up, to run from a checkout

import trustme  # noqa: E402
from aiohttp import web  # noqa: E402


def make_body_big():
    from inuse import KUBERNETES, profile_dict, review_bytes

    p = profile_dict(KUBERNETES)
    return review_bytes(p, p)


def make_body():
    if os.environ.get("BIG"):
        return make_body_big()
    from tests.builders import cloud_profile_dict, review_bytes

    return review_bytes(cloud_profile_dict(), uid="u")


class Deadline(BaseException):
    pass


def server(mode, port_q, certfile, keyfile):
    os.sched_setaffinity(0, {0})
    from webhook.cluster.static import StaticView
    from webhook.judging.judge import judge
    from webhook.settings import Settings

    view, settings = StaticView.empty(), Settings()
    active = [False]

    def on_alarm(signum, frame):
        if active[0]:
            raise Deadline()

    signal.signal(signal.SIGALRM, on_alarm)

    async def h(request):
        body = await request.read()
        now = datetime.now(UTC)
        if mode == "bare":
            return web.Response(body=b'{"response":{"allowed":true}}', content_type="application/json")
        if mode == "inline":
            out = judge(body, view=view, settings=settings, now=now)
        elif mode == "thread":
            out = await asyncio.wait_for(asyncio.to_thread(judge, body, view=view, settings=settings, now=now), 9.0)
        elif mode == "alarm":
            active[0] = True
            signal.setitimer(signal.ITIMER_REAL, 9.0)
            try:
                out = judge(body, view=view, settings=settings, now=now)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                active[0] = False
        return web.Response(
            body=json.dumps(out.review, separators=(",", ":")).encode(), content_type="application/json"
        )

    if mode == "app":  # the real admission app: Deadline, metrics, logging and all
        from webhook.server import create_app

        app = create_app(settings, view)
    else:
        app = web.Application(client_max_size=8 << 20)
        app.router.add_post("/validate", h)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certfile, keyfile)

    async def main():
        r = web.AppRunner(app, access_log=None)
        await r.setup()
        s = web.TCPSite(r, "127.0.0.1", 0, ssl_context=ctx)
        await s.start()
        port_q.put(r.addresses[0][1])
        await asyncio.sleep(3600)

    asyncio.run(main())


if __name__ == "__main__":
    ca = trustme.CA()
    leaf = ca.issue_cert("127.0.0.1")
    import tempfile

    d = tempfile.mkdtemp(prefix="timeout-cost-")
    ca.cert_pem.write_to_path(f"{d}/ca.pem")
    leaf.cert_chain_pems[0].write_to_path(f"{d}/c.pem")
    leaf.private_key_pem.write_to_path(f"{d}/k.pem")
    body = make_body()
    print("body bytes", len(body))
    os.sched_setaffinity(0, {1})
    modes = sys.argv[1:] or ["bare", "inline", "thread", "alarm"]
    res = {m: [] for m in modes}
    for rnd in range(int(os.environ.get("ROUNDS", "3"))):
        for m in modes:
            q = mp.Queue()
            p = mp.Process(target=server, args=(m, q, f"{d}/c.pem", f"{d}/k.pem"))
            p.start()
            port = q.get()
            Path(f"{d}/body.bin").write_bytes(body)
            lua = f'wrk.method="POST"; wrk.headers["Content-Type"]="application/json"; local f=io.open("{d}/body.bin","rb"); wrk.body=f:read("*a"); f:close()'
            Path(f"{d}/post.lua").write_text(lua)
            import re
            import subprocess

            outw = subprocess.run(
                [
                    "taskset",
                    "-c",
                    "1",
                    "wrk",
                    "-t1",
                    "-c8",
                    "-d4s",
                    "-s",
                    f"{d}/post.lua",
                    f"https://127.0.0.1:{port}/validate?timeout=10s",
                ],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            rps = float(re.search(r"Requests/sec:\s+([\d.]+)", outw)[1])
            if "Non-2xx" in outw or "Socket errors" in outw:
                print(outw)
            p.terminate()
            p.join()
            res[m].append(rps)
    for m, v in res.items():
        print(f"{m:7s} " + " ".join(f"{x:7.0f}" for x in v), f"best {max(v):.0f}")
