"""webhook/server/serve.py: `serve` end to end in a subprocess, and run_server's refusals in-process."""

from __future__ import annotations

import dataclasses
import io
import json
import platform
import re
import signal
import socket
import ssl
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW, cloud_profile_dict, review_bytes
from tests.server.processes import STOP_SECONDS, ServeProcess, get, wait_for
from webhook import __version__
from webhook.server import ServeOptions, run_server

CA_BUNDLE = re.compile(r"^CA bundle: (\S+) \((created|reusing);", re.MULTILINE)


class Served(ServeProcess):
    """`serve` plus the CA bundle line it printed: where the CA is and whether it was created or reused."""

    def __init__(self, cwd: Path) -> None:
        super().__init__(cwd, ["--drain-seconds", "0"])
        bundle = CA_BUNDLE.search(self.stdout_path.read_text())  # printed before the listening lines
        if bundle is None:
            self.stop()
            pytest.fail(f"serve printed no CA bundle line:\n{self.stdout_path.read_text()}")
        self.ca_bundle, self.ca_state = Path(bundle[1]), bundle[2]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[type[Served]]:
    started: list[Served] = []

    def start(cwd: Path = tmp_path) -> Served:
        served = Served(cwd)
        started.append(served)
        return served

    yield start  # type: ignore[misc]
    for served in started:
        served.stop()


def _wait_healthy(health_url: str) -> None:
    wait_for(health_url + "/healthz", (200, "ok"))


def test_serve_end_to_end_and_reuse_of_certificates(serve: type[Served], tmp_path: Path) -> None:
    first = serve()
    assert first.ca_bundle == (tmp_path / "certs" / "ca.crt").resolve()
    assert first.ca_bundle.is_file() and first.ca_state == "created"
    _wait_healthy(first.health_url)
    assert get(first.health_url + "/readyz") == (200, "ok")

    context = ssl.create_default_context(cafile=str(first.ca_bundle))
    for host_url in (first.url, first.url.replace("127.0.0.1", "localhost")):
        request = urllib.request.Request(
            host_url + "/validate?timeout=10s",
            data=review_bytes(cloud_profile_dict(), uid="e2e-uid"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, context=context, timeout=5) as resp:
            assert resp.status == 200
            answer = json.loads(resp.read())
        assert answer["response"] == {"uid": "e2e-uid", "allowed": True}

    status, metrics = get(first.health_url + "/metrics")
    assert status == 200
    assert 'gardener_webhook_requests_total{kind="CloudProfile",operation="CREATE",outcome="allowed"} 2.0' in metrics
    build_info = f'gardener_webhook_build_info{{python="{platform.python_version()}",version="{__version__}"}} 1.0'
    assert build_info in metrics.splitlines()

    ca_bytes = first.ca_bundle.read_bytes()
    tls_bytes = (tmp_path / "certs" / "tls.crt").read_bytes()
    assert first.stop() == 0

    log_lines = [json.loads(line) for line in first.stderr_path.read_text().splitlines()]
    started = {"version": __version__, "python": platform.python_version(), "pid": first.process.pid, "workers": 1}
    assert log_lines[0]["message"] == "starting" and log_lines[0] | started == log_lines[0]  # before anything else
    judged = [line for line in log_lines if line["message"] == "admission review judged"]
    assert [(j["uid"], j["decision"], j["kind"], j["object"]) for j in judged] == [
        ("e2e-uid", "allowed", "CloudProfile", "local")
    ] * 2
    assert log_lines[-1]["message"] == "stopped"

    second = serve()
    assert second.ca_state == "reusing"
    assert second.ca_bundle.read_bytes() == ca_bytes
    assert (tmp_path / "certs" / "tls.crt").read_bytes() == tls_bytes
    assert second.stop() == 0


def test_sigint_also_stops_cleanly(serve: type[Served]) -> None:
    served = serve()
    _wait_healthy(served.health_url)
    served.process.send_signal(signal.SIGINT)
    assert served.process.wait(timeout=STOP_SECONDS) == 0


# ------------------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (ServeOptions(workers=0), "--workers 0: must be between 1 and 64"),
        (ServeOptions(client_cns=("kube-apiserver",)), "--client-cn needs --client-ca"),
        (ServeOptions(tls_min_version="1.1"), "--tls-min-version must be one of 1.2, 1.3"),
    ],
)
def test_unusable_options_are_refused(tmp_path: Path, options: ServeOptions, message: str) -> None:
    out, err = io.StringIO(), io.StringIO()
    options = dataclasses.replace(options, certs_root=tmp_path / "certs")
    assert run_server(options, settings=DEFAULT_SETTINGS, view=EMPTY_VIEW, out=out, err=err) == 2
    assert err.getvalue().startswith(f"gardener-webhook serve: {message}")
    assert out.getvalue() == ""
    assert not (tmp_path / "certs").exists()


def test_cert_dir_without_files_is_refused(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    options = ServeOptions(cert_dir=tmp_path)
    assert run_server(options, settings=DEFAULT_SETTINGS, view=EMPTY_VIEW, out=out, err=err) == 2
    expected = f"gardener-webhook serve: --cert-dir {tmp_path}: tls.crt not found (expected tls.crt and tls.key)\n"
    assert err.getvalue() == expected


def test_port_in_use_is_refused(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out, err = io.StringIO(), io.StringIO()
        options = ServeOptions(port=port, health_port=0, certs_root=tmp_path / "certs")
        assert run_server(options, settings=DEFAULT_SETTINGS, view=EMPTY_VIEW, out=out, err=err) == 2
    assert err.getvalue().startswith(f"gardener-webhook serve: cannot listen on https://127.0.0.1:{port} (TLS): ")
    assert out.getvalue().startswith("CA bundle: ")
