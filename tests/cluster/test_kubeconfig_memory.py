"""A kubeconfig with inline certificate data is used without writing a file (a Pod's root filesystem is read-only).

The kubernetes client's own loader writes `certificate-authority-data`, `client-certificate-data` and
`client-key-data` to temporary files; a Pod with `readOnlyRootFilesystem: true` and no writable `/tmp` then cannot
start (`No usable temporary directory found`). These tests make every temporary file fail and still read a
TLS API server that requires a client certificate.
"""

from __future__ import annotations

import base64
import json
import ssl
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import trustme

from tests.cluster.fake_apiserver import FakeApiServer, cloud_profile_obj
from tests.cluster.test_live import FAST, eventually
from webhook.cluster.live import LiveView, LiveViewError, Source, client_from_kubeconfig

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="SKIPPED: memory files (memfd) are Linux-only")


def _b64(data: bytes) -> str:
    return base64.standard_b64encode(data).decode()


def _inline_kubeconfig(directory: Path, server: str, ca: trustme.CA, client: trustme.LeafCert) -> Path:
    path = directory / "kubeconfig"
    user = {
        "client-certificate-data": _b64(client.cert_chain_pems[0].bytes()),
        "client-key-data": _b64(client.private_key_pem.bytes()),
    }
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "garden", "cluster": {"server": server, "certificate-authority-data": _b64(ca.cert_pem.bytes())}}
        ],
        "users": [{"name": "webhook", "user": user}],
        "contexts": [{"name": "garden", "context": {"cluster": "garden", "user": "webhook"}}],
        "current-context": "garden",
    }
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@pytest.fixture
def no_temporary_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every tempfile.mkstemp fails as on a read-only root filesystem; returns the attempts."""
    attempts: list[str] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(repr((args, kwargs)))
        raise FileNotFoundError("No usable temporary directory found in ['/tmp', '/var/tmp', '/usr/tmp', '/']")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    return attempts


async def test_inline_certificates_are_used_from_memory(
    tmp_path: Path, aiohttp_server: Any, no_temporary_files: list[str]
) -> None:
    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_context)
    ca.configure_trust(server_context)
    server_context.verify_mode = ssl.CERT_REQUIRED  # the API server insists on the client certificate
    cluster = FakeApiServer()
    cluster.put(cloud_profile_obj("local", "1.33.4"))
    await cluster.serve(aiohttp_server, ssl=server_context)
    client = client_from_kubeconfig(_inline_kubeconfig(tmp_path, cluster.url, ca, ca.issue_cert("webhook")))
    for path in (client.configuration.ssl_ca_cert, client.configuration.cert_file, client.configuration.key_file):
        assert path.startswith("/proc/self/fd/")
    view = LiveView([Source("virtual-garden", client)], backoff=FAST)
    await view.start()
    try:
        await eventually(lambda: view.synced, "the first list over TLS with the client certificate")
        assert view.cloud_profile("local") is not None
    finally:
        await view.stop()
    assert no_temporary_files == []


def test_the_memory_files_are_released_with_the_client(tmp_path: Path, no_temporary_files: list[str]) -> None:
    ca = trustme.CA()
    client = client_from_kubeconfig(_inline_kubeconfig(tmp_path, "https://127.0.0.1:1", ca, ca.issue_cert("w")))
    ca_file = client.configuration.ssl_ca_cert
    assert Path(ca_file).read_bytes() == ca.cert_pem.bytes()
    client.close()
    assert not Path(ca_file).exists()


def test_relative_files_stay_relative_to_the_kubeconfig(tmp_path: Path, no_temporary_files: list[str]) -> None:
    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(tmp_path / "ca.crt"))
    path = tmp_path / "kubeconfig"
    config = {
        "clusters": [{"name": "g", "cluster": {"server": "https://127.0.0.1:1", "certificate-authority": "ca.crt"}}],
        "users": [{"name": "u", "user": {"tokenFile": "token"}}],
        "contexts": [{"name": "g", "context": {"cluster": "g", "user": "u"}}],
        "current-context": "g",
    }
    path.write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "token").write_text("secret", encoding="utf-8")
    client = client_from_kubeconfig(path)
    assert client.configuration.ssl_ca_cert == str(tmp_path / "ca.crt")
    assert client.configuration.get_api_key_with_prefix("BearerToken") == "Bearer secret"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not yaml: [", "cannot use kubeconfig"),
        ("[]", "No configuration found"),
        (json.dumps({"clusters": [{"name": "g", "cluster": {"server": "https://x", "certificate-authority-data": "abc"}}],
                     "users": [{"name": "u", "user": {}}], "contexts": [{"name": "g", "context": {"cluster": "g", "user": "u"}}],
                     "current-context": "g"}), "not base64"),
        (json.dumps({"clusters": [], "users": [], "contexts": [], "current-context": "missing"}), "missing"),
    ],
)  # fmt: skip
def test_a_broken_kubeconfig_names_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LiveViewError, match=message) as caught:
        client_from_kubeconfig(path)
    assert str(path) in str(caught.value)
