"""webhook/server/certwatch.py: certificate hot reload, incl. Kubernetes Secret symlink swaps, under load."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import ssl
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW, cloud_profile_dict, review_bytes
from webhook.server import create_app
from webhook.server.certwatch import DEFAULT_POLL_SECONDS, CertificateWatcher
from webhook.server.metrics import CertificateMetrics
from webhook.server.tls import TLSError, server_context

POLL_SECONDS = 0.05
RELOADS = "gardener_webhook_certificate_reloads_total"
JSON = {"Content-Type": "application/json"}


class SecretVolume:
    """A directory laid out as the kubelet lays out a Secret volume: tls.crt -> ..data/tls.crt, ..data -> ..<ts>.

    `swap` replaces the content atomically, as the kubelet's AtomicWriter does: a new timestamped directory,
    a new ..data symlink renamed over the old one, then the old directory removed.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.generation = 0
        root.mkdir(parents=True, exist_ok=True)
        for name in ("tls.crt", "tls.key"):
            (root / name).symlink_to(f"..data/{name}")

    @property
    def cert(self) -> Path:
        return self.root / "tls.crt"

    @property
    def key(self) -> Path:
        return self.root / "tls.key"

    def swap(self, cert_pem: bytes, key_pem: bytes) -> None:
        self.generation += 1
        target = self.root / f"..2026_11_21_12_00_{self.generation:02d}"
        target.mkdir()
        (target / "tls.crt").write_bytes(cert_pem)
        (target / "tls.key").write_bytes(key_pem)
        data, staged = self.root / "..data", self.root / "..data_tmp"
        old = os.readlink(data) if data.is_symlink() else None
        staged.symlink_to(target.name)
        os.replace(staged, data)
        if old is not None:
            for child in (self.root / old).iterdir():
                child.unlink()
            (self.root / old).rmdir()


def pair(ca: trustme.CA, name: str) -> tuple[bytes, bytes]:
    leaf = ca.issue_cert("127.0.0.1", "localhost", common_name=name)
    return leaf.cert_chain_pems[0].bytes(), leaf.private_key_pem.bytes()


def watcher_for(volume: SecretVolume, registry: CollectorRegistry | None = None) -> CertificateWatcher:
    metrics = CertificateMetrics.create(registry) if registry is not None else None
    return CertificateWatcher(volume.cert, volume.key, build=server_context, poll_seconds=POLL_SECONDS, metrics=metrics)


def served_name(port: int, context: ssl.SSLContext) -> str:
    """Common name of the certificate a fresh handshake with 127.0.0.1:port is served."""
    import socket

    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        subject = dict(item for rdn in tls.getpeercert()["subject"] for item in rdn)
    return str(subject["commonName"])


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float | None:
    return registry.get_sample_value(name, labels)


@pytest.fixture
def volume(tmp_path: Path, ca: trustme.CA) -> SecretVolume:
    secret = SecretVolume(tmp_path / "tls")
    secret.swap(*pair(ca, "first"))
    return secret


# ------------------------------------------------------------------------------------------------- unit


def test_unchanged_files_are_not_reloaded(volume: SecretVolume) -> None:
    watcher = watcher_for(volume)
    first = watcher.current
    assert watcher.reload() is None
    assert watcher.current is first is watcher.context


def test_symlink_swap_is_picked_up_and_new_contexts_carry_no_callback(volume: SecretVolume, ca: trustme.CA) -> None:
    registry = CollectorRegistry()
    watcher = watcher_for(volume, registry)
    volume.swap(*pair(ca, "second"))
    assert watcher.reload() is True
    assert watcher.current is not watcher.context
    assert watcher.current.sni_callback is None and watcher.context.sni_callback is not None
    assert sample(registry, RELOADS, certificate="serving", result="success") == 1.0
    assert watcher.reload() is None  # same bytes again: no swap, nothing counted
    assert sample(registry, RELOADS, certificate="serving", result="success") == 1.0


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda v, ca, other: v.swap(pair(ca, "x")[0], other[1]), id="key-of-another-certificate"),
        pytest.param(lambda v, ca, other: v.swap(b"not a certificate", other[1]), id="unparsable-certificate"),
        pytest.param(lambda v, ca, other: v.swap(other[0], b""), id="empty-key"),
        pytest.param(lambda v, ca, other: (v.root / "..data").unlink(), id="files-gone"),
    ],
)
def test_broken_pair_is_refused_once_and_the_last_good_one_stays(
    volume: SecretVolume, ca: trustme.CA, damage: Any, caplog: pytest.LogCaptureFixture
) -> None:
    registry = CollectorRegistry()
    watcher = watcher_for(volume, registry)
    good = watcher.current
    damage(volume, ca, pair(ca, "other"))
    assert watcher.reload() is False
    assert watcher.reload() is None  # the same broken content: logged and counted once
    assert watcher.current is good
    assert sample(registry, RELOADS, certificate="serving", result="failure") == 1.0
    refused = [r for r in caplog.records if r.getMessage().startswith("new serving certificate refused")]
    assert len(refused) == 1 and refused[0].levelname == "ERROR"
    volume.swap(*pair(ca, "repaired"))
    assert watcher.reload() is True
    assert sample(registry, RELOADS, certificate="serving", result="success") == 1.0


def test_an_unusable_pair_at_start_fails_fast(tmp_path: Path, ca: trustme.CA) -> None:
    volume = SecretVolume(tmp_path / "tls")
    volume.swap(pair(ca, "a")[0], pair(ca, "b")[1])
    with pytest.raises(TLSError, match="cannot load certificate"):
        watcher_for(volume)


def test_expiry_gauge_follows_the_certificate_in_use(volume: SecretVolume, ca: trustme.CA) -> None:
    registry = CollectorRegistry()
    watcher = watcher_for(volume, registry)
    assert watcher.not_after is not None
    left = sample(registry, "gardener_webhook_certificate_expiry_seconds")
    assert left is not None and abs(left - (watcher.not_after.timestamp() - time.time())) < 5


def test_default_poll_reaches_new_handshakes_well_within_ten_seconds() -> None:
    assert DEFAULT_POLL_SECONDS <= 5.0  # one poll, plus a few hundred microseconds to build the context


# ------------------------------------------------------------------------------------------ under load


async def test_rotation_under_load_fails_no_request(aiohttp_server: Any, volume: SecretVolume, tmp_path: Path) -> None:
    """Three rotations (one of them to a broken pair) while clients send over new and kept-alive connections."""
    first_ca, second_ca = trustme.CA(), trustme.CA()  # the rotation also changes the CA: trust both
    volume.swap(*pair(first_ca, "first"))
    registry = CollectorRegistry()
    watcher = watcher_for(volume, registry)
    app = create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=registry)
    app.cleanup_ctx.append(watcher.cleanup_ctx())
    server = await aiohttp_server(app, ssl=watcher.context)
    client_context = ssl.create_default_context()
    first_ca.configure_trust(client_context)
    second_ca.configure_trust(client_context)
    url = f"https://127.0.0.1:{server.port}/validate?timeout=10s"
    body = review_bytes(cloud_profile_dict(), uid="reload")
    failures: list[str] = []
    counts = {"fresh": 0, "kept": 0}
    stop = asyncio.Event()

    async def client(kind: str) -> None:
        connector = aiohttp.TCPConnector(ssl=client_context, force_close=kind == "fresh")
        async with aiohttp.ClientSession(connector=connector) as session:
            while not stop.is_set():
                try:
                    async with session.post(url, data=body, headers=JSON) as resp:
                        answer = await resp.json()
                        if resp.status != 200 or answer["response"]["allowed"] is not True:
                            failures.append(f"{resp.status} {answer}")
                except (aiohttp.ClientError, ssl.SSLError) as exc:
                    failures.append(repr(exc))
                counts[kind] += 1

    async def name_eventually(expected: str) -> None:
        deadline = time.monotonic() + 5
        while (name := await asyncio.to_thread(served_name, server.port, client_context)) != expected:
            assert time.monotonic() < deadline, f"still serving {name!r}, expected {expected!r}"
            await asyncio.sleep(POLL_SECONDS)

    clients = [asyncio.create_task(client(kind)) for kind in ("fresh", "fresh", "kept", "kept")]
    try:
        await name_eventually("first")
        volume.swap(*pair(second_ca, "second"))
        await name_eventually("second")
        volume.swap(pair(second_ca, "broken")[0], pair(second_ca, "unrelated")[1])  # key of another cert
        await asyncio.sleep(5 * POLL_SECONDS)
        assert await asyncio.to_thread(served_name, server.port, client_context) == "second"
        volume.swap(*pair(first_ca, "third"))
        await name_eventually("third")
        await asyncio.sleep(5 * POLL_SECONDS)
    finally:
        stop.set()
        await asyncio.gather(*clients)
    assert failures == []
    assert counts["fresh"] > 10 and counts["kept"] > 10
    assert sample(registry, RELOADS, certificate="serving", result="success") == 2.0
    assert sample(registry, RELOADS, certificate="serving", result="failure") == 1.0


async def test_the_guarded_listener_serves_the_reloaded_pair(volume: SecretVolume, ca: trustme.CA) -> None:
    """The listener of `serve` does its handshakes with start_tls: new handshakes still get the watcher's newest pair."""
    from aiohttp import web

    from webhook.server.limits import ConnectionGuard, GuardedTLSSite

    watcher = watcher_for(volume)
    runner = web.AppRunner(create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=CollectorRegistry()))
    await runner.setup()
    site = GuardedTLSSite(
        runner,
        "127.0.0.1",
        0,
        guard=ConnectionGuard(runner.server),
        ssl_context=watcher.context,  # type: ignore[arg-type]
    )
    await site.start()
    try:
        port = runner.addresses[0][1]
        client_context = ssl.create_default_context()
        ca.configure_trust(client_context)
        assert await asyncio.to_thread(served_name, port, client_context) == "first"
        volume.swap(*pair(ca, "second"))
        assert watcher.reload() is True
        assert await asyncio.to_thread(served_name, port, client_context) == "second"
    finally:
        await runner.cleanup()


def client_ca_watcher(volume: SecretVolume, bundle: Path, registry: CollectorRegistry) -> CertificateWatcher:
    from webhook.server.tls import TLSOptions

    return CertificateWatcher(
        volume.cert,
        volume.key,
        build=functools.partial(server_context, options=TLSOptions(client_ca=bundle)),
        client_ca=bundle,
        poll_seconds=POLL_SECONDS,
        metrics=CertificateMetrics.create(registry),
    )


def test_a_client_ca_change_rebuilds_the_context_and_names_the_bundle(
    tmp_path: Path, volume: SecretVolume, ca: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="webhook.server.certwatch")
    bundle = tmp_path / "client-ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    registry = CollectorRegistry()
    watcher = client_ca_watcher(volume, bundle, registry)
    trustme.CA().cert_pem.write_to_path(str(bundle))
    assert watcher.reload() is True
    assert watcher.current.verify_mode is ssl.CERT_REQUIRED
    (line,) = [r for r in caplog.records if r.name == "webhook.server.certwatch"]
    assert (line.getMessage(), line.client_ca) == ("client CA bundle reloaded", str(bundle))  # type: ignore[attr-defined]
    assert not hasattr(line, "cert")  # the serving pair did not change
    assert sample(registry, RELOADS, certificate="client-ca", result="success") == 1.0
    assert sample(registry, RELOADS, certificate="serving", result="success") == 0.0


def test_a_broken_client_ca_bundle_is_refused_naming_the_bundle(
    tmp_path: Path, volume: SecretVolume, ca: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="webhook.server.certwatch")
    bundle = tmp_path / "client-ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    registry = CollectorRegistry()
    watcher = client_ca_watcher(volume, bundle, registry)
    good = watcher.current
    bundle.write_text("not a certificate")
    assert watcher.reload() is False
    assert watcher.current is good
    (line,) = [r for r in caplog.records if r.name == "webhook.server.certwatch"]
    assert line.getMessage() == "new client CA bundle refused; the last good one stays in use"
    assert line.client_ca == str(bundle) and str(bundle) in line.reason  # type: ignore[attr-defined]
    assert sample(registry, RELOADS, certificate="client-ca", result="failure") == 1.0
    assert sample(registry, RELOADS, certificate="serving", result="failure") == 0.0


def test_a_serving_pair_and_client_ca_changed_together_are_both_named(
    tmp_path: Path, volume: SecretVolume, ca: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="webhook.server.certwatch")
    bundle = tmp_path / "client-ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    registry = CollectorRegistry()
    watcher = client_ca_watcher(volume, bundle, registry)
    volume.swap(*pair(ca, "second"))
    trustme.CA().cert_pem.write_to_path(str(bundle))
    assert watcher.reload() is True
    lines = [(r.getMessage(), getattr(r, "cert", None), getattr(r, "client_ca", None)) for r in caplog.records]
    assert lines == [
        ("serving certificate reloaded", str(volume.cert), None),
        ("client CA bundle reloaded", None, str(bundle)),
    ]
    assert sample(registry, RELOADS, certificate="serving", result="success") == 1.0
    assert sample(registry, RELOADS, certificate="client-ca", result="success") == 1.0
