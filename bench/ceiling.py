"""The ceiling for this stack: a bare aiohttp TLS server that parses the body and always answers allow.

Run: `python bench/ceiling.py --cert-dir DIR [--port 0]`; prints `Listening on https://127.0.0.1:PORT/validate`
and serves until SIGTERM/SIGINT. It is built like `gardener-webhook serve` (same TLS context from
webhook.server.tls, AppRunner + TCPSite, keep-alive 120 s, no access log, 8 MiB body limit, Content-Type check,
the same garbage collector settings) and does per request what any AdmissionReview server must: read the body, parse the JSON, echo the uid, answer.
Everything gardener-webhook does beyond that (models, rules, metrics, its log line) is what `make bench` prices.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import signal
import sys
from pathlib import Path

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from webhook.server.serve import GC_GEN0_THRESHOLD  # noqa: E402 - after the path set-up, to run from a checkout
from webhook.server.tls import server_context  # noqa: E402

MAX_BODY_BYTES = 8 * 1024 * 1024


async def handle(request: web.Request) -> web.Response:
    if request.content_type != "application/json":
        return web.Response(status=415, text="Content-Type must be application/json")
    try:
        review = json.loads(await request.read())
        uid = review["request"]["uid"]
    except (ValueError, KeyError, TypeError):
        return web.Response(status=400, text="not an AdmissionReview")
    answer = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": uid, "allowed": True}}
    return web.Response(body=json.dumps(answer, separators=(",", ":")).encode(), content_type="application/json")


async def serve(port: int, cert_dir: Path) -> None:
    app = web.Application(client_max_size=MAX_BODY_BYTES)
    app.router.add_post("/validate", handle)
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=120.0)
    await runner.setup()
    context = server_context(cert_dir / "tls.crt", cert_dir / "tls.key")
    site = web.TCPSite(runner, "127.0.0.1", port, ssl_context=context)
    await site.start()
    address = runner.addresses[0]
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])  # as `serve` does: the same stack, tuned alike
    print(f"Listening on https://{address[0]}:{address[1]}/validate", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert-dir", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.cert_dir))


if __name__ == "__main__":
    main()
