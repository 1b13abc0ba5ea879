"""TLS and client authentication: --client-ca, --client-cn, --tls-min-version, no weak ciphers.

A refused client never reaches a validator: `judge` is replaced by a recorder in every test here.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW, cloud_profile_dict, review_bytes
from webhook.server import app as app_module
from webhook.server import create_app
from webhook.server.tls import TLSOptions, server_context

JSON = {"Content-Type": "application/json"}
BODY = review_bytes(cloud_profile_dict(), uid="mtls")
REFUSED = (aiohttp.ClientError, ssl.SSLError, ConnectionError)


@pytest.fixture
def judged(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Bodies that reached `judge` (which still judges them)."""
    calls: list[bytes] = []
    real = app_module.judge

    def recording(body: bytes, **kwargs: Any) -> Any:
        calls.append(body)
        return real(body, **kwargs)

    monkeypatch.setattr(app_module, "judge", recording)
    return calls


@pytest.fixture(scope="module")
def client_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def serving(tmp_path: Path, ca: trustme.CA) -> tuple[Path, Path]:
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    return cert, key


@pytest.fixture
def client_ca_file(tmp_path: Path, client_ca: trustme.CA) -> Path:
    path = tmp_path / "client-ca.pem"
    client_ca.cert_pem.write_to_path(str(path))
    return path


async def start(aiohttp_server: Any, serving: tuple[Path, Path], options: TLSOptions, **app_options: Any) -> Any:
    app = create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=CollectorRegistry(), **app_options)
    return await aiohttp_server(app, ssl=server_context(*serving, options))


def client_context(ca: trustme.CA, cert: trustme.LeafCert | None = None, **settings: Any) -> ssl.SSLContext:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    if cert is not None:
        cert.configure_cert(context)
    for name, value in settings.items():
        setattr(context, name, value)
    return context


async def post(server: Any, context: ssl.SSLContext) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context)) as session,
        session.post(f"https://127.0.0.1:{server.port}/validate", data=BODY, headers=JSON) as resp,
    ):
        return resp.status, await resp.text()


# ---------------------------------------------------------------------------------------- client CA


async def test_client_with_certificate_from_the_client_ca_is_served(
    aiohttp_server: Any, serving: tuple[Path, Path], client_ca_file: Path, ca: trustme.CA, client_ca: trustme.CA,
    judged: list[bytes],
) -> None:  # fmt: skip
    server = await start(aiohttp_server, serving, TLSOptions(client_ca=client_ca_file))
    status, text = await post(server, client_context(ca, client_ca.issue_cert(common_name="kube-apiserver")))
    assert status == 200 and '"allowed":true' in text
    assert judged == [BODY]


@pytest.mark.parametrize("who", ["no-certificate", "certificate-of-another-ca"])
async def test_client_without_an_accepted_certificate_is_refused_in_the_handshake(
    aiohttp_server: Any, serving: tuple[Path, Path], client_ca_file: Path, ca: trustme.CA, who: str,
    judged: list[bytes],
) -> None:  # fmt: skip
    server = await start(aiohttp_server, serving, TLSOptions(client_ca=client_ca_file))
    cert = None if who == "no-certificate" else trustme.CA().issue_cert(common_name="kube-apiserver")
    with pytest.raises(REFUSED):
        await post(server, client_context(ca, cert))
    assert judged == []


# --------------------------------------------------------------------------------- common name list


@pytest.mark.parametrize(("name", "status"), [("kube-apiserver", 200), ("gardener-apiserver", 200), ("intruder", 403)])
async def test_client_common_name_allow_list(
    aiohttp_server: Any, serving: tuple[Path, Path], client_ca_file: Path, ca: trustme.CA, client_ca: trustme.CA,
    judged: list[bytes], name: str, status: int,
) -> None:  # fmt: skip
    registry = CollectorRegistry()
    app = create_app(
        DEFAULT_SETTINGS, EMPTY_VIEW, registry=registry, client_cns=["kube-apiserver", "gardener-apiserver"]
    )
    server = await aiohttp_server(app, ssl=server_context(*serving, TLSOptions(client_ca=client_ca_file)))
    answer = await post(server, client_context(ca, client_ca.issue_cert(common_name=name)))
    assert answer[0] == status
    assert registry.get_sample_value("gardener_webhook_http_requests_total", {"code": str(status)}) == 1.0
    if status == 403:
        assert answer[1] == "client certificate common name is not allowed"
        assert judged == []
    else:
        assert judged == [BODY]


# ------------------------------------------------------------------------------- versions, ciphers


async def test_tls_min_version_13_refuses_a_tls_12_client(
    aiohttp_server: Any, serving: tuple[Path, Path], ca: trustme.CA, judged: list[bytes]
) -> None:
    server = await start(aiohttp_server, serving, TLSOptions(min_version=ssl.TLSVersion.TLSv1_3))
    with pytest.raises(REFUSED):
        await post(server, client_context(ca, maximum_version=ssl.TLSVersion.TLSv1_2))
    assert (await post(server, client_context(ca)))[0] == 200
    assert len(judged) == 1


@pytest.mark.parametrize(
    ("ciphers", "served"),
    [
        ("ECDHE-ECDSA-AES128-GCM-SHA256", True),
        ("ECDHE-ECDSA-CHACHA20-POLY1305", True),
        ("ECDHE-ECDSA-AES128-SHA", False),  # CBC with SHA-1
        ("AES128-GCM-SHA256", False),  # no forward secrecy
    ],
)
async def test_tls_12_accepts_only_forward_secret_aead_ciphers(
    aiohttp_server: Any, serving: tuple[Path, Path], ca: trustme.CA, ciphers: str, served: bool
) -> None:
    server = await start(aiohttp_server, serving, TLSOptions())
    context = client_context(ca, maximum_version=ssl.TLSVersion.TLSv1_2)
    context.set_ciphers(ciphers + ":@SECLEVEL=0")
    if served:
        assert (await post(server, context))[0] == 200
    else:
        with pytest.raises(REFUSED):
            await post(server, context)


def test_client_ca_that_cannot_be_loaded_is_a_tls_error(serving: tuple[Path, Path], tmp_path: Path) -> None:
    from webhook.server.tls import TLSError

    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate")
    with pytest.raises(TLSError, match="cannot load client CA bundle"):
        server_context(*serving, TLSOptions(client_ca=bad))
