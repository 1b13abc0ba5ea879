"""Fuzzing the HTTP app over TLS: whatever the body, the answer keeps the contract (docs/design.md §2–3).

For every registered kind, hypothesis (tests/strategies.py) sends AdmissionReviews whose object and oldObject carry
arbitrary JSON. The answer must be 200 with a well-formed AdmissionReview (uid echoed, `allowed` a bool, an int
`status.code` on denial, at most 20 warnings of at most 256 characters, 4096 in all) or one of the documented
4xx (400, 413, 415); never HTTP 500, never `status.code` 500 inside a 200 (a validator crash), never 504 (judging ran
out of time), never a hang. `make test` runs a bounded, derandomized number of examples; `make fuzz`
(HYPOTHESIS_PROFILE=fuzz) many more.
"""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from hypothesis import event, given
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS
from tests.strategies import BASES, CLUSTER, any_value, reviews, to_json
from webhook.admission.rendering import MAX_WARNING_CHARS, MAX_WARNINGS_TOTAL_CHARS
from webhook.server import create_app
from webhook.validators import REGISTRY

Client = TestClient[Any, Any]
KINDS = sorted(BASES)
REQUEST_SECONDS = 20.0  # far above any honest answer; past it the request counts as a hang


@pytest.fixture
def app() -> web.Application:
    return create_app(DEFAULT_SETTINGS, CLUSTER, registry=CollectorRegistry())


def test_every_registered_kind_is_fuzzed() -> None:
    assert sorted(kind for _, kind in REGISTRY) == KINDS


def check_answer(status: int, text: str, uid: str | None) -> None:
    """Assert the contract for one answer; uid: the request's uid when it is known to be usable."""
    assert status in (200, 400, 413, 415), f"HTTP {status}: {text[:500]}"
    if status != 200:
        return
    review = json.loads(text)
    assert (review["apiVersion"], review["kind"]) == ("admission.k8s.io/v1", "AdmissionReview")
    response = review["response"]
    if uid is not None:
        assert response["uid"] == uid
    assert isinstance(response["allowed"], bool)
    assert "patch" not in response and "patchType" not in response
    code = response.get("status", {}).get("code")
    if not response["allowed"]:
        assert isinstance(code, int), response
        assert isinstance(response["status"]["message"], str) and response["status"]["message"]
    assert code not in (500, 504), response["status"]["message"]
    warnings = response.get("warnings", [])
    assert isinstance(warnings, list) and len(warnings) <= 20
    for warning in warnings:
        assert isinstance(warning, str) and 0 < len(warning) <= MAX_WARNING_CHARS, warning
    assert sum(map(len, warnings)) <= MAX_WARNINGS_TOTAL_CHARS


async def post(client: Client, body: bytes, content_type: str = "application/json") -> tuple[int, str]:
    timeout = aiohttp.ClientTimeout(total=REQUEST_SECONDS)
    async with client.post("/validate", data=body, headers={"Content-Type": content_type}, timeout=timeout) as resp:
        return resp.status, await resp.text()


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data())
async def test_any_review_gets_a_well_formed_answer(tls_client: Client, kind: str, data: st.DataObject) -> None:
    body, uid = data.draw(reviews(kind), label="review")
    status, text = await post(tls_client, body)
    check_answer(status, text, uid)
    event(_outcome(status, text))


def _outcome(status: int, text: str) -> str:
    """A label for hypothesis' statistics (--hypothesis-show-statistics): how the example was answered."""
    if status != 200:
        return f"HTTP {status}"
    response = json.loads(text)["response"]
    return "allowed" if response["allowed"] else f"denied {response['status']['code']}"


@given(value=any_value)
async def test_any_json_body_gets_a_well_formed_answer(tls_client: Client, value: Any) -> None:
    status, text = await post(tls_client, to_json(value).encode())
    check_answer(status, text, None)


@given(
    body=st.binary(max_size=200),
    content_type=st.sampled_from(("application/json", "text/plain", "application/json; charset=utf-8", "")),
)
async def test_any_bytes_get_a_documented_answer(tls_client: Client, body: bytes, content_type: str) -> None:
    status, text = await post(tls_client, body, content_type)
    check_answer(status, text, None)
