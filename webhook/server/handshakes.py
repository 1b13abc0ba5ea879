"""TLS handshakes that fail: why, in a closed set of reasons, counted and logged at a bounded rate.

With `--client-ca` a client without a certificate from that CA is refused in the handshake, before any request
is read, so the request log never sees it. The listener (`limits.GuardedProtocol`) hands every failed handshake
to `HandshakeFailures`, which
- counts it in `gardener_webhook_tls_handshake_failures_total{reason}` (`metrics.HandshakeFailure`, from `classify`);
- logs `TLS handshake failed` (warning) with the peer address, the reason and OpenSSL's error, at most one line per
  reason per LOG_WINDOW_SECONDS: the next line of that reason carries `suppressed`, the number left out. How often a
  handshake fails is the client's to choose, as with malformed requests (`logs.ClientErrorFilter`).
Reason `closed` (the client closed the connection before the handshake completed: a load balancer's or a port
check's TCP probe, a client that gave up) is counted and logged at debug level only.
Source: OpenSSL's verify codes (`X509_V_ERR_*`, include/openssl/x509_vfy.h) and SSL reason names
(include/openssl/sslerr.h), as Python's ssl module reports them in `verify_code` and `reason`.
"""

from __future__ import annotations

import logging
import re
import ssl
import time
from collections.abc import Callable
from typing import Final

from prometheus_client import Counter

from webhook.server.metrics import HandshakeFailure

logger = logging.getLogger(__name__)

LOG_WINDOW_SECONDS: Final = 10.0  # at most one log line per reason in this many seconds
MAX_ERROR_CHARACTERS: Final = 200

# The client's certificate names an issuer none of the client CAs is (or is self-signed).
_UNKNOWN_ISSUER: Final = frozenset(
    {
        2,  # X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT
        18,  # X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
        19,  # X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
        20,  # X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
        21,  # X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE
    }
)
_NO_CERTIFICATE: Final = frozenset({"PEER_DID_NOT_RETURN_A_CERTIFICATE", "NO_CERTIFICATE_RETURNED"})
# Alerts the client sends when it does not accept the serving certificate (a caBundle that is not its CA, a name
# the certificate lacks, an expired one).
_SERVING_REJECTED: Final = frozenset(
    {
        "TLSV1_ALERT_UNKNOWN_CA",
        "SSLV3_ALERT_BAD_CERTIFICATE",
        "SSLV3_ALERT_CERTIFICATE_EXPIRED",
        "SSLV3_ALERT_CERTIFICATE_REVOKED",
        "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
        "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE",
        "TLSV1_ALERT_ACCESS_DENIED",
    }
)
# No common protocol version, cipher, group or signature algorithm, or not TLS at all (plain HTTP, garbage).
_PROTOCOL: Final = frozenset(
    {
        "UNSUPPORTED_PROTOCOL",
        "NO_PROTOCOLS_AVAILABLE",
        "VERSION_TOO_LOW",
        "VERSION_TOO_HIGH",
        "WRONG_VERSION_NUMBER",
        "WRONG_SSL_VERSION",
        "UNKNOWN_PROTOCOL",
        "INAPPROPRIATE_FALLBACK",
        "NO_SHARED_CIPHER",
        "NO_CIPHERS_AVAILABLE",
        "NO_SHARED_GROUPS",
        "NO_SUITABLE_KEY_SHARE",
        "NO_SHARED_SIGNATURE_ALGORITHMS",
        "NO_SUITABLE_SIGNATURE_ALGORITHM",
        "HTTP_REQUEST",
        "HTTPS_PROXY_REQUEST",
        "UNEXPECTED_MESSAGE",
        "UNEXPECTED_RECORD",
        "RECORD_LENGTH_MISMATCH",
        "PACKET_LENGTH_TOO_LONG",
        "BAD_PACKET_LENGTH",
        "LENGTH_MISMATCH",
        "UNSAFE_LEGACY_RENEGOTIATION_DISABLED",
        "TLSV1_ALERT_PROTOCOL_VERSION",
        "TLSV1_ALERT_INSUFFICIENT_SECURITY",
        "TLSV1_ALERT_NO_APPLICATION_PROTOCOL",
        "SSLV3_ALERT_HANDSHAKE_FAILURE",
        "SSLV3_ALERT_ILLEGAL_PARAMETER",
        "SSLV3_ALERT_UNEXPECTED_MESSAGE",
        "TLSV1_ALERT_DECODE_ERROR",
    }
)
_CLOSED: Final = frozenset({"UNEXPECTED_EOF_WHILE_READING"})
_SOURCE_LINE: Final = re.compile(r"\s*\(_ssl\.c:\d+\)")


def classify(exc: BaseException) -> HandshakeFailure:
    """The reason a TLS handshake failed, from what asyncio's `start_tls` raised for it. Pure; never raises.

    no_certificate: the client sent none. unknown_ca: its certificate is not issued by a client CA.
    bad_certificate: it is, but is unusable (expired, not yet valid, wrong key usage, bad signature, …).
    serving_certificate_rejected: the client refused the serving certificate. protocol: no common version,
    cipher or algorithm, or not TLS. timeout: not done within the handshake timeout. closed: the client closed the
    connection first. other: anything else.
    """
    if isinstance(exc, ssl.SSLCertVerificationError):
        return HandshakeFailure.UNKNOWN_CA if exc.verify_code in _UNKNOWN_ISSUER else HandshakeFailure.BAD_CERTIFICATE
    if isinstance(exc, ssl.SSLError):
        reason = exc.reason or ""
        if reason in _NO_CERTIFICATE:
            return HandshakeFailure.NO_CERTIFICATE
        if reason in _SERVING_REJECTED:
            return HandshakeFailure.SERVING_CERTIFICATE_REJECTED
        if reason in _PROTOCOL:
            return HandshakeFailure.PROTOCOL
        if reason in _CLOSED or isinstance(exc, ssl.SSLEOFError | ssl.SSLZeroReturnError):
            return HandshakeFailure.CLOSED
        if "CERTIFICATE" in reason or "SIGNATURE" in reason:  # the client's certificate or its proof of the key
            return HandshakeFailure.BAD_CERTIFICATE
        return HandshakeFailure.OTHER
    if isinstance(exc, ConnectionAbortedError | TimeoutError):  # asyncio aborts a handshake past its timeout
        return HandshakeFailure.TIMEOUT
    if isinstance(exc, ConnectionResetError | BrokenPipeError):  # an EOF during the handshake is a reset too
        return HandshakeFailure.CLOSED
    return HandshakeFailure.OTHER


def describe(exc: BaseException) -> str:
    """One bounded line naming the error: OpenSSL's reason and text, or the exception's type and message."""
    if isinstance(exc, ssl.SSLError):
        text = _SOURCE_LINE.sub("", str(exc))  # "[SSL: <reason>] <text> (_ssl.c:<line>)", without the line
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return " ".join(text.split())[:MAX_ERROR_CHARACTERS]


class HandshakeFailures:
    """Counts and logs failed TLS handshakes; called with (exception, peer address) by the listener.

    counter: `gardener_webhook_tls_handshake_failures_total` (None: not counted). window_seconds: at most one log
    line per reason in this many seconds. clock: monotonic seconds (tests pass their own).
    """

    def __init__(
        self,
        counter: Counter | None = None,
        *,
        window_seconds: float = LOG_WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._counter = counter
        self.window_seconds = window_seconds
        self._clock = clock
        self._logged_at: dict[HandshakeFailure, float] = {}
        self._suppressed: dict[HandshakeFailure, int] = {}

    def __call__(self, exc: BaseException, peer: str) -> HandshakeFailure:
        """Count and maybe log one failed handshake; returns its reason."""
        reason = classify(exc)
        if self._counter is not None:
            self._counter.labels(reason.value).inc()
        fields: dict[str, str | int] = {"peer": peer, "reason": reason.value, "error": describe(exc)}
        if reason is HandshakeFailure.CLOSED:
            logger.debug("TLS handshake failed", extra=fields)
            return reason
        now = self._clock()
        last = self._logged_at.get(reason)
        if last is not None and now - last < self.window_seconds:
            self._suppressed[reason] = self._suppressed.get(reason, 0) + 1
            return reason
        self._logged_at[reason] = now
        suppressed = self._suppressed.pop(reason, 0)
        if suppressed:
            fields["suppressed"] = suppressed
        logger.warning("TLS handshake failed", extra=fields)
        return reason
