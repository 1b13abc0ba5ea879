"""`?timeout=` bounds the work of a request: judging is cut off and the request denied (504 Timeout)."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Sequence
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW, cloud_profile_dict, review_bytes
from webhook.server import app as app_module
from webhook.server import create_app
from webhook.server.deadline import Deadline, DeadlineExceeded

Client = TestClient[Any, Any]
JSON = {"Content-Type": "application/json"}


class _SlowView:
    """The empty view, except that asking for NamespacedCloudProfiles spins the CPU (a runaway validator)."""

    synced = True

    def __getattr__(self, name: str) -> Any:
        return getattr(EMPTY_VIEW, name)

    def namespaced_profiles_of(self, parent: str) -> Sequence[Any]:
        while True:
            pass


@pytest.fixture
def registry() -> CollectorRegistry:
    return CollectorRegistry()


@pytest.fixture
def app(registry: CollectorRegistry) -> web.Application:
    return create_app(DEFAULT_SETTINGS, _SlowView(), registry=registry)  # type: ignore[arg-type]


async def test_a_runaway_validator_is_cut_off_and_the_request_denied(
    tls_client: Client, registry: CollectorRegistry
) -> None:
    body = review_bytes(None, cloud_profile_dict(), uid="slow", operation="DELETE")
    started = time.monotonic()
    resp = await tls_client.post("/validate?timeout=0.5s", data=body, headers=JSON)
    elapsed = time.monotonic() - started
    assert resp.status == 200
    answer = json.loads(await resp.read())["response"]
    assert answer["uid"] == "slow" and answer["allowed"] is False
    assert answer["status"]["code"] == 504 and answer["status"]["reason"] == "Timeout"
    assert answer["status"]["message"] == (
        "gardener-webhook could not judge CloudProfile within the request's timeout of 0.5s; "
        "details are logged under uid slow"
    )
    assert 0.4 <= elapsed < 2.0  # 90 % of the timeout, then the answer
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    labels = {"kind": "CloudProfile", "operation": "DELETE", "outcome": "timeout"}
    assert registry.get_sample_value("gardener_webhook_requests_total", labels) == 1.0
    # the server goes on answering: a request that needs no view is judged normally
    ok = await tls_client.post(
        "/validate?timeout=0.5s", data=review_bytes(cloud_profile_dict(), uid="ok"), headers=JSON
    )
    assert json.loads(await ok.read())["response"] == {"uid": "ok", "allowed": True}


def timed_out_text(uid: str, kind: str) -> str:
    """The server's 504 answer, byte for byte (aiohttp's json_response: json.dumps with its default separators)."""
    message = (
        f"gardener-webhook could not judge {kind} within the request's timeout of 0.5s; "
        f"details are logged under uid {uid}"
    )
    return (
        '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "' + uid + '", '
        '"allowed": false, "status": {"metadata": {}, "status": "Failure", "message": "' + message + '", '
        '"reason": "Timeout", "code": 504}}}'
    )


async def test_a_cut_off_request_is_answered_from_its_envelope(
    tls_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    peeked: list[bytes] = []
    monkeypatch.setattr(app_module, "_peek", lambda body: peeked.append(body) or ("", "", ""))
    body = review_bytes(None, cloud_profile_dict(), uid="slow", operation="DELETE")
    resp = await tls_client.post("/validate?timeout=0.5s", data=body, headers=JSON)
    assert (resp.status, await resp.text()) == (200, timed_out_text("slow", "CloudProfile"))
    assert peeked == []


async def test_a_request_cut_off_before_its_envelope_was_parsed_is_peeked_at(
    tls_client: Client, registry: CollectorRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cut_off_while_parsing(body: bytes) -> Any:
        raise DeadlineExceeded  # as the alarm does when it fires inside parse_review: no envelope handed over

    peeked: list[bytes] = []
    real_peek = app_module._peek
    monkeypatch.setattr(app_module, "parse_review", cut_off_while_parsing)
    monkeypatch.setattr(app_module, "_peek", lambda body: peeked.append(body) or real_peek(body))
    body = review_bytes(None, cloud_profile_dict(), uid="huge", operation="DELETE")
    resp = await tls_client.post("/validate?timeout=0.5s", data=body, headers=JSON)
    assert (resp.status, await resp.text()) == (200, timed_out_text("huge", "CloudProfile"))
    labels = {"kind": "CloudProfile", "operation": "DELETE", "outcome": "timeout"}
    assert registry.get_sample_value("gardener_webhook_requests_total", labels) == 1.0
    assert peeked == [body]


def test_deadline_raises_in_the_limited_block_only() -> None:
    deadline = Deadline()
    assert deadline.install()
    try:
        with pytest.raises(DeadlineExceeded), deadline.limit(0.05):
            while True:
                pass
        with deadline.limit(0.05):
            pass
        time.sleep(0.1)  # the disarmed timer never fires afterwards
        with pytest.raises(DeadlineExceeded), deadline.limit(0):
            pass  # no budget left at all
    finally:
        deadline.uninstall()
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_deadline_outside_the_main_thread_does_not_cut_off() -> None:
    import threading

    results: list[bool] = []
    deadline = Deadline()

    def run() -> None:
        results.append(deadline.install())
        with deadline.limit(0.01):
            time.sleep(0.05)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert results == [False] and not deadline.enabled
