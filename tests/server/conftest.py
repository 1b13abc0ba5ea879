"""HTTP fixtures: the admission app over TLS (trustme), the health app over plain HTTP, a shared registry."""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest
import trustme
from aiohttp import web
from aiohttp.test_utils import TestClient
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW
from webhook.server import Readiness, create_app, create_health_app

ClientFactory = Callable[..., Awaitable[TestClient[Any, Any]]]


@pytest.fixture(scope="session")
def server_ssl_context(ca: trustme.CA) -> ssl.SSLContext:
    """Server side: a trustme leaf for 127.0.0.1 and localhost."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


@pytest.fixture(scope="session")
def client_ssl_context(ca: trustme.CA) -> ssl.SSLContext:
    """Client side: verifies the server against the trustme CA only."""
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context


@pytest.fixture
def registry() -> CollectorRegistry:
    return CollectorRegistry()


@pytest.fixture
def readiness() -> Readiness:
    return Readiness(listening=True)


@pytest.fixture
def app(registry: CollectorRegistry) -> web.Application:
    """The admission app with default settings and an empty cluster; override per module for others."""
    return create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=registry)


@pytest.fixture
async def tls_client(
    aiohttp_server: Any,
    aiohttp_client: ClientFactory,
    app: web.Application,
    server_ssl_context: ssl.SSLContext,
    client_ssl_context: ssl.SSLContext,
) -> TestClient[Any, Any]:
    """A client of `app` served over TLS on 127.0.0.1, trusting only the trustme CA."""
    server = await aiohttp_server(app, ssl=server_ssl_context)
    return await aiohttp_client(server, connector=aiohttp.TCPConnector(ssl=client_ssl_context))


@pytest.fixture
async def health_client(
    aiohttp_client: ClientFactory, registry: CollectorRegistry, readiness: Readiness
) -> TestClient[Any, Any]:
    """A client of the health app (plain HTTP by design, docs/design.md §4) sharing `registry` with `app`."""
    return await aiohttp_client(create_health_app(EMPTY_VIEW, registry=registry, readiness=readiness))
