"""webhook/server/tls.py: self-signed material (create, reuse, renew), --cert-dir files, the SSLContext."""

from __future__ import annotations

import ipaddress
import ssl
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme
from aiohttp import web
from cryptography import x509

from webhook.server.tls import (
    CA_KEY,
    SelfSigned,
    TLSError,
    cert_dir_files,
    ensure_self_signed,
    server_context,
)

NOW = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _cert(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def _snapshot(material: SelfSigned) -> tuple[bytes, bytes, bytes]:
    return material.ca_cert.read_bytes(), material.cert.read_bytes(), material.key.read_bytes()


@pytest.fixture
def made(tmp_path: Path) -> SelfSigned:
    return ensure_self_signed(tmp_path / "certs", now=NOW)


def test_first_start_creates_ca_and_serving_certificate(made: SelfSigned, tmp_path: Path) -> None:
    root = tmp_path / "certs"
    assert made == SelfSigned(root / "ca.crt", root / "tls.crt", root / "tls.key", created=True)
    assert sorted(p.name for p in root.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    assert (_mode(root / "tls.key"), _mode(root / CA_KEY)) == (0o600, 0o600)
    ca, cert = _cert(made.ca_cert), _cert(made.cert)
    cert.verify_directly_issued_by(ca)
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == ["localhost"]
    assert sans.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("127.0.0.1")]
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert cert.not_valid_before_utc <= NOW < cert.not_valid_after_utc
    assert cert.not_valid_after_utc - NOW >= timedelta(days=364)


def test_later_start_reuses_everything(made: SelfSigned, tmp_path: Path) -> None:
    before = _snapshot(made)
    again = ensure_self_signed(tmp_path / "certs", now=NOW + timedelta(days=300))
    assert again.created is False
    assert _snapshot(again) == before


def test_serving_certificate_expiring_within_30_days_is_reissued_by_the_same_ca(
    made: SelfSigned, tmp_path: Path
) -> None:
    ca_before, cert_before, _ = _snapshot(made)
    later = NOW + timedelta(days=340)  # 25 days before the serving certificate expires
    renewed = ensure_self_signed(tmp_path / "certs", now=later)
    assert renewed.created is True
    assert renewed.ca_cert.read_bytes() == ca_before  # the registered caBundle stays valid
    assert renewed.cert.read_bytes() != cert_before
    cert = _cert(renewed.cert)
    cert.verify_directly_issued_by(_cert(renewed.ca_cert))
    assert cert.not_valid_after_utc - later >= timedelta(days=364)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda root: (root / "tls.crt").write_text("not a certificate"), id="unparsable-cert"),
        pytest.param(lambda root: (root / "tls.key").unlink(), id="missing-key"),
        pytest.param(lambda root: (root / "tls.crt").unlink(), id="missing-cert"),
    ],
)
def test_broken_serving_material_is_reissued_by_the_same_ca(made: SelfSigned, tmp_path: Path, damage: Any) -> None:
    root = tmp_path / "certs"
    ca_before = made.ca_cert.read_bytes()
    damage(root)
    fixed = ensure_self_signed(root, now=NOW)
    assert fixed.created is True
    assert fixed.ca_cert.read_bytes() == ca_before
    _cert(fixed.cert).verify_directly_issued_by(_cert(fixed.ca_cert))
    assert _mode(fixed.key) == 0o600


def test_serving_key_from_another_pair_is_reissued(made: SelfSigned, tmp_path: Path) -> None:
    other = ensure_self_signed(tmp_path / "other", now=NOW)
    made.key.write_bytes(other.key.read_bytes())
    fixed = ensure_self_signed(tmp_path / "certs", now=NOW)
    assert fixed.created is True
    server_context(fixed.cert, fixed.key)  # cert and key match again


@pytest.mark.parametrize("missing", ["ca.crt", "ca.key"])
def test_missing_ca_material_with_expiring_serving_certificate_makes_a_new_ca(
    made: SelfSigned, tmp_path: Path, missing: str
) -> None:
    root = tmp_path / "certs"
    ca_before = made.ca_cert.read_bytes()
    (root / missing).unlink()
    fixed = ensure_self_signed(root, now=NOW + timedelta(days=340))
    assert fixed.created is True
    assert fixed.ca_cert.read_bytes() != ca_before
    _cert(fixed.cert).verify_directly_issued_by(_cert(fixed.ca_cert))


def test_missing_ca_key_alone_keeps_a_valid_serving_certificate(made: SelfSigned, tmp_path: Path) -> None:
    before = _snapshot(made)
    (tmp_path / "certs" / CA_KEY).unlink()
    assert ensure_self_signed(tmp_path / "certs", now=NOW).created is False
    assert _snapshot(made) == before


def test_unwritable_root_is_a_tls_error(tmp_path: Path) -> None:
    blocker = tmp_path / "certs"
    blocker.write_text("a file, not a directory")
    with pytest.raises(TLSError, match=r"cannot write certificates under .*certs"):
        ensure_self_signed(blocker, now=NOW)


def test_server_context_settings(made: SelfSigned) -> None:
    context = server_context(made.cert, made.key)
    assert context.minimum_version is ssl.TLSVersion.TLSv1_2
    assert context.protocol is ssl.PROTOCOL_TLS_SERVER
    tls12 = [c for c in context.get_ciphers() if c["protocol"] == "TLSv1.2"]
    assert tls12
    assert all(c["kea"] == "kx-ecdhe" and c["aead"] for c in tls12)


def test_server_context_refuses_a_key_of_another_certificate(made: SelfSigned, tmp_path: Path) -> None:
    other = ensure_self_signed(tmp_path / "other", now=NOW)
    with pytest.raises(TLSError, match="cannot load certificate .*tls.crt with key .*tls.key"):
        server_context(made.cert, other.key)


def test_server_context_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TLSError, match=r"tls.crt: not found"):
        server_context(tmp_path / "tls.crt", tmp_path / "tls.key")


@pytest.mark.parametrize(
    ("present", "message"),
    [
        ((), "tls.crt not found"),
        (("tls.crt",), "tls.key not found"),
        (("tls.key",), "tls.crt not found"),
    ],
)
def test_cert_dir_names_the_missing_file(tmp_path: Path, present: tuple[str, ...], message: str) -> None:
    for name in present:
        (tmp_path / name).write_text("x")
    with pytest.raises(TLSError, match=message):
        cert_dir_files(tmp_path)


def test_cert_dir_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(TLSError, match="not a directory"):
        cert_dir_files(tmp_path / "nope")


async def test_cert_dir_material_serves_tls(aiohttp_server: Any, tmp_path: Path, ca: trustme.CA) -> None:
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    leaf.cert_chain_pems[0].write_to_path(str(tmp_path / "tls.crt"))
    leaf.private_key_pem.write_to_path(str(tmp_path / "tls.key"))

    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    app = web.Application()
    app.router.add_get("/", hello)
    server = await aiohttp_server(app, ssl=server_context(*cert_dir_files(tmp_path)))
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    async with aiohttp.ClientSession() as session, session.get(server.make_url("/"), ssl=client_ctx) as resp:
        assert (resp.status, await resp.text()) == (200, "hello")
