"""Bounds on what one client can hold: connections, TLS handshakes, time to send a request, bodies in memory.

aiohttp bounds a request's size but not the time a client may take to send it, nor the number of connections;
the kube-apiserver needs neither (it sends a whole review at once over a few keep-alive connections), so a client
that does is stalled or hostile. The bounds, each a constant below:
- TLS handshakes end within TLS_HANDSHAKE_TIMEOUT_SECONDS (asyncio's `ssl_handshake_timeout`; its default is 60 s).
- At most MAX_CONNECTIONS connections (handshaking or open); one more is closed at once, never queued.
- A request's head (request line and headers) arrives within REQUEST_READ_TIMEOUT_SECONDS of its first byte, or
  the connection is closed (slowloris; checked every SWEEP_SECONDS). The body must arrive within the request's
  own judging budget (90 % of its `?timeout`, at most 27 s; `read_body`). An idle keep-alive connection between
  requests is not affected: it is closed by aiohttp's keep-alive timer.
- At most MAX_BODIES_IN_MEMORY requests read and judge their body at a time (`BodyGate`); the others wait, their
  bodies held back by TCP flow control, until a slot frees or their budget is spent. Peak memory is then about that
  many decoded reviews, whatever the number of concurrent requests (docs/operations/reliability.md: the measured
  figure).
Who is to blame when a body is not read within the budget decides the answer (`app.py` sends it):
- the server (503 with `Retry-After: RETRY_AFTER_SECONDS`; aiohttp reads and drops the rest of the body and keeps
  the connection): no slot freed in time, or bytes the client had sent were still waiting to be read when the
  budget ran out (the loop was busy judging others, or the slot came too late to read them all). Without the body
  there is no uid to deny, so the API server applies the webhook's failurePolicy, as for an overloaded webhook.
- the client (408, connection closed): everything it sent had been read and it owed the rest (`client_stalled`).
  A request that waited for its slot had less than its budget left, so it is blamed only when it also sent
  nothing during the last BODY_STALL_SECONDS of the read.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
import weakref
from collections.abc import Callable
from typing import Any, Final, cast

from aiohttp import StreamReader, web

logger = logging.getLogger(__name__)

TLS_HANDSHAKE_TIMEOUT_SECONDS: Final = 10.0
MAX_CONNECTIONS: Final = 1024
REQUEST_READ_TIMEOUT_SECONDS: Final = 10.0
SWEEP_SECONDS: Final = 1.0  # how often connections are checked for a stalled request head
MAX_BODIES_IN_MEMORY: Final = 2  # judging runs on one loop anyway; two keeps reading overlapped with judging
# A sender whose body is ready (the kube-apiserver marshals the whole review first) never pauses this long mid-body.
BODY_STALL_SECONDS: Final = 1.0
RETRY_AFTER_SECONDS: Final = 1  # after a 503: a slot frees as soon as one review has been judged


class _Refused(asyncio.Protocol):
    """The protocol of a connection over MAX_CONNECTIONS: closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class GuardedProtocol(asyncio.Protocol):
    """Wraps aiohttp's RequestHandler of one connection: does its TLS handshake and notes when a request head
    started arriving.

    With `tls`, the connection arrives as plain TCP and is upgraded with `loop.start_tls` (asyncio's own SSL
    protocol, as `create_server(ssl=…)` would use), so that a failed handshake reaches `guard.handshake_failed` with
    its exception: with `create_server(ssl=…)` asyncio only drops the connection (it reports the error in debug
    mode alone). The handler sees the connection once the handshake is done; bytes that arrive before this
    protocol resumes from the handshake are handed on after `connection_made`.
    `started` is the loop time of the first byte received since the handler last parsed a request (None when
    nothing is pending); `parsed` is the handler's request count at that moment. The sweeper closes the
    connection when the head is still incomplete REQUEST_READ_TIMEOUT_SECONDS later.
    """

    def __init__(
        self, inner: Any, loop: asyncio.AbstractEventLoop, guard: ConnectionGuard, tls: ssl.SSLContext | None = None
    ) -> None:
        self.inner = inner
        self._guard = guard
        self._loop = loop
        self._tls = tls
        self.transport: asyncio.Transport | None = None  # the one the handler uses, once the handshake is done
        self.handshake: asyncio.Task[None] | None = None
        self._early: list[Callable[[], object]] = []  # events between the handshake and `_attach`
        self.started: float | None = None
        self.parsed = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        raw = cast(asyncio.Transport, transport)  # a stream server's connection: it can be aborted
        if self._tls is None:
            self._attach(raw)
        else:
            self.handshake = self._loop.create_task(self._upgrade(raw, self._tls))

    async def _upgrade(self, raw: asyncio.Transport, tls: ssl.SSLContext) -> None:
        peer = _host(raw.get_extra_info("peername"))
        try:
            secure = await self._loop.start_tls(
                raw, self, tls, server_side=True, ssl_handshake_timeout=self._guard.handshake_timeout_seconds
            )
        except OSError as exc:  # what a failed handshake raises: ssl.SSLError, a reset, the handshake timeout
            self._guard.handshake_failed(self, exc, peer)
            return
        except BaseException:
            self._guard.discard(self)  # cancelled with the loop: start_tls has closed the connection
            raise
        # None (despite the annotation): lost right after the handshake, before this resumed; the handler never
        # saw it, and connection_lost has forgotten it.
        if secure is None:
            return
        self._attach(secure)

    def _attach(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.inner.connection_made(transport)
        early, self._early = self._early, []
        for event in early:
            event()

    def data_received(self, data: bytes) -> None:
        if self.transport is None:
            self._early.append(functools.partial(self.data_received, data))
            return
        if self.started is None:
            self.started, self.parsed = self._loop.time(), _requests_parsed(self.inner)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        if self.transport is None:
            self._early.append(self.inner.eof_received)
            return None
        return self.inner.eof_received()  # type: ignore[no-any-return]

    def connection_lost(self, exc: Exception | None) -> None:
        self._guard.discard(self)
        if self.transport is None:
            self._early.append(functools.partial(self.inner.connection_lost, exc))
            return
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def stalled(self, now: float, limit: float) -> bool:
        """True when a request head has been arriving for more than `limit` seconds without being complete."""
        if self.started is None:
            return False
        if _requests_parsed(self.inner) > self.parsed or _in_progress(self.inner):
            self.started = None  # a request was parsed since: its body is the handler's to time
            return False
        return now - self.started > limit


def _host(peername: Any) -> str:
    """The address of a socket's peer ((host, port, …) for IPv4 and IPv6); "" when unknown."""
    return str(peername[0]) if isinstance(peername, tuple) and peername else ""


def _requests_parsed(handler: Any) -> int:
    # aiohttp counts parsed request heads per connection; 0 if a future version renames it (then only
    # connections that never complete a head are closed, which still ends slowloris).
    return int(getattr(handler, "_request_count", 0))


def _in_progress(handler: Any) -> bool:
    return bool(getattr(handler, "_request_in_progress", False))


class ConnectionGuard:
    """The protocol factory of the TLS listener: caps connections, closes stalled request heads, reports failed
    TLS handshakes.

    factory: aiohttp's `runner.server` (one RequestHandler per call). Use `protocol(tls)` as the `create_server`
    factory of a plain TCP listener (GuardedTLSSite does) and run `sweep()` as a task while serving.
    on_handshake_failure(exception, peer address) hears of every failed handshake (`handshakes.HandshakeFailures`).
    """

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        max_connections: int = MAX_CONNECTIONS,
        read_timeout_seconds: float = REQUEST_READ_TIMEOUT_SECONDS,
        handshake_timeout_seconds: float = TLS_HANDSHAKE_TIMEOUT_SECONDS,
        on_refused: Callable[[str], None] | None = None,
        on_handshake_failure: Callable[[BaseException, str], object] | None = None,
    ) -> None:
        self._factory = factory
        self.max_connections = max_connections
        self.read_timeout_seconds = read_timeout_seconds
        self.handshake_timeout_seconds = handshake_timeout_seconds
        self._live: weakref.WeakSet[GuardedProtocol] = weakref.WeakSet()
        self._on_refused = on_refused or (lambda reason: None)
        self._on_handshake_failure = on_handshake_failure or (lambda exc, peer: None)

    def connections(self) -> int:
        """Connections open or handshaking."""
        return len(self._live)

    def protocol(self, tls: ssl.SSLContext | None = None) -> asyncio.Protocol:
        """The protocol of one new connection, upgraded to TLS with tls (None: plain); one over the cap is closed."""
        if self.connections() >= self.max_connections:
            self._on_refused("connection limit")
            return _Refused()
        protocol = GuardedProtocol(self._factory(), asyncio.get_running_loop(), self, tls)
        self._live.add(protocol)
        return protocol

    def discard(self, protocol: GuardedProtocol) -> None:
        """Forget a connection that has ended."""
        self._live.discard(protocol)

    def handshake_failed(self, protocol: GuardedProtocol, exc: BaseException, peer: str) -> None:
        """A connection whose TLS handshake failed (asyncio has closed it): forgotten and reported."""
        self.discard(protocol)
        self._on_handshake_failure(exc, peer)

    def close_stalled(self, now: float) -> int:
        """Close every connection whose request head is overdue; returns how many were closed."""
        closed = 0
        for protocol in list(self._live):
            transport = protocol.transport
            if (
                transport is not None
                and not transport.is_closing()
                and protocol.stalled(now, self.read_timeout_seconds)
            ):
                transport.abort()
                closed += 1
        if closed:
            self._on_refused("request head timeout")
            logger.warning(
                "closed connections whose request did not arrive in time",
                extra={"connections": closed, "timeout_s": self.read_timeout_seconds},
            )
        return closed

    async def sweep(self, every_seconds: float = SWEEP_SECONDS) -> None:
        """Check for stalled request heads every `every_seconds` until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every_seconds)
            self.close_stalled(loop.time())


class GuardedTLSSite(web.TCPSite):
    """A TCPSite whose listener uses a ConnectionGuard, which does the TLS handshakes with `ssl_context` and bounds
    them by its `handshake_timeout_seconds` (TCPSite offers neither; its `start` is aiohttp's, plus those two)."""

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        guard: ConnectionGuard,
        **kwargs: Any,
    ) -> None:
        super().__init__(runner, host, port, **kwargs)
        self.guard = guard

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner
        loop = asyncio.get_running_loop()
        # A plain TCP listener: each GuardedProtocol does its own handshake, so that it hears when one fails.
        self._server = await loop.create_server(
            functools.partial(self.guard.protocol, self._ssl_context),
            self._host,
            self._port,
            backlog=self._backlog,
            reuse_address=self._reuse_address,
            reuse_port=self._reuse_port,
        )
        self._bound_port = self._server.sockets[0].getsockname()[1] if self._server.sockets else self._port


class BodyGate:
    """At most `slots` requests read and judge their body at once; the others wait in arrival order.

    `acquire(timeout)` returns the seconds the caller waited for its slot (0.0: one was free at once), or None when
    no slot freed within `timeout` seconds (the caller answers 503); `release()` frees the slot. `waiting`: how many
    callers wait for a slot right now.
    """

    def __init__(self, slots: int = MAX_BODIES_IN_MEMORY) -> None:
        self.slots = slots
        self.waiting = 0
        self._semaphore = asyncio.Semaphore(slots)

    async def acquire(self, timeout: float) -> float | None:
        if timeout <= 0:
            return None
        if not self._semaphore.locked():
            await self._semaphore.acquire()  # a free slot: returns without suspending
            return 0.0
        loop = asyncio.get_running_loop()
        started = loop.time()
        deadline = started + timeout
        self.waiting += 1
        try:
            async with asyncio.timeout_at(deadline):
                await self._semaphore.acquire()
        except TimeoutError:
            return None
        finally:
            self.waiting -= 1
        now = loop.time()
        if now >= deadline:
            # The slot was handed over after a judge held the loop past the deadline: no budget is left to use it.
            self._semaphore.release()
            return None
        return now - started

    def release(self) -> None:
        self._semaphore.release()


class BodyTooLarge(Exception):
    """The body exceeds `max_bytes` (HTTP 413)."""


class BodyTimeout(Exception):
    """The body was not read within the budget. client_stalled: the client's fault (`client_stalled`); received:
    body bytes read before the budget ran out."""

    def __init__(self, *, client_stalled: bool, received: int) -> None:
        super().__init__("request body not read within the budget")
        self.client_stalled = client_stalled
        self.received = received


async def read_body(content: StreamReader, *, timeout: float, max_bytes: int, waited: bool) -> bytes:
    """The whole body of a request, read within `timeout` seconds (the budget left after the gate).

    content: the request's payload stream. waited: whether the request waited for its `BodyGate` slot.
    Raises BodyTooLarge past `max_bytes` bytes, BodyTimeout when the budget runs out (saying whose fault that is),
    and what the stream raises when the client breaks off.
    """
    if content.is_eof():
        # The whole body is in the stream already (a small review arrives with its head): nothing to wait for, so
        # no timer either. A timer would not fire before it is read anyway: reading buffered bytes never suspends.
        body = content.read_nowait()
        if len(body) > max_bytes:
            raise BodyTooLarge(f"request body exceeds {max_bytes} bytes")
        return body
    loop = asyncio.get_running_loop()
    chunks: list[bytes] = []
    size = 0
    last = loop.time()  # of the last bytes read; the quiet stretch of a stalled client starts here at the latest
    try:
        async with asyncio.timeout_at(last + max(timeout, 0.0)):
            while chunk := await content.readany():
                size += len(chunk)
                if size > max_bytes:
                    raise BodyTooLarge(f"request body exceeds {max_bytes} bytes")
                chunks.append(chunk)
                last = loop.time()
    except TimeoutError:
        # Bytes fed to the stream but not read yet arrived while this loop was busy: the server's delay.
        unread = content.total_bytes > size
        stalled = client_stalled(unread=unread, waited=waited, quiet_seconds=loop.time() - last)
        raise BodyTimeout(client_stalled=stalled, received=size) from None
    return b"".join(chunks)


def client_stalled(*, unread: bool, waited: bool, quiet_seconds: float) -> bool:
    """Whether a body read that ran out of budget is the client's fault (HTTP 408) rather than the server's (503).

    unread: the stream held bytes the server had not read yet. waited: the request waited for its body slot, so
    the gate took part of its budget. quiet_seconds: time since the read last got bytes (or started). Pure.
    """
    if unread:
        return False
    return not waited or quiet_seconds >= BODY_STALL_SECONDS
