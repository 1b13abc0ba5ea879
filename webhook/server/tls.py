"""Serving certificates: self-signed material for local runs, `--cert-dir` files, and the server SSLContext.

With no `--cert-dir`, `ensure_self_signed(root, now=…)` keeps a CA and a serving certificate under `root`
(default `certs/`): `ca.crt`, `ca.key`, `tls.crt`, `tls.key`. It creates them on first start and reuses them
afterwards, so the CA bundle an operator registered stays valid across restarts. The serving certificate is
re-issued only when it is missing, unparsable, not issued by `ca.crt`, missing a SAN, or expires within
30 days; the CA is kept for that re-issue when its key is still there and it has 90 days left.
With `--cert-dir`, `cert_dir_files(dir)` names `tls.crt`/`tls.key` (the Kubernetes secret layout).
`server_context` builds the SSLContext: server side, TLS 1.2 minimum, ECDHE with AEAD ciphers only.
Keys are ECDSA P-256: fast to make, fast handshakes, accepted by the kube-apiserver.
Source: controller-runtime pkg/webhook/server.go (option defaults, tls.crt/tls.key), DESIGN.md §4.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import ssl
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

logger = logging.getLogger(__name__)

CA_CERT: Final = "ca.crt"
CA_KEY: Final = "ca.key"
TLS_CERT: Final = "tls.crt"
TLS_KEY: Final = "tls.key"

SERVING_DNS_NAMES: Final = ("localhost",)
SERVING_IPS: Final = (ipaddress.ip_address("127.0.0.1"),)
SERVING_VALIDITY: Final = timedelta(days=365)
SERVING_RENEW_BEFORE: Final = timedelta(days=30)
CA_VALIDITY: Final = timedelta(days=3650)
CA_RENEW_BEFORE: Final = timedelta(days=90)
BACKDATE: Final = timedelta(minutes=5)  # tolerate clock skew between this host and the API server
KEY_FILE_MODE: Final = 0o600
CERT_FILE_MODE: Final = 0o644

# TLS 1.3 suites are not affected by set_ciphers; for TLS 1.2 allow forward-secret AEAD suites only.
CIPHERS: Final = "ECDHE+AESGCM:ECDHE+CHACHA20"


class TLSError(Exception):
    """Certificate material is missing, unreadable or unusable; the message names the file (exit 2)."""


@dataclass(frozen=True, slots=True)
class SelfSigned:
    """Paths of the self-signed material under the certs root; created: False when everything was reused."""

    ca_cert: Path
    cert: Path
    key: Path
    created: bool


# ------------------------------------------------------------------------------------------------ --cert-dir


def cert_dir_files(cert_dir: Path) -> tuple[Path, Path]:
    """(tls.crt, tls.key) inside cert_dir; raises TLSError naming the first file that is missing."""
    cert, key = cert_dir / TLS_CERT, cert_dir / TLS_KEY
    if not cert_dir.is_dir():
        raise TLSError(f"--cert-dir {cert_dir}: not a directory (expected tls.crt and tls.key in it)")
    for path in (cert, key):
        if not path.is_file():
            raise TLSError(f"--cert-dir {cert_dir}: {path.name} not found (expected tls.crt and tls.key)")
    return cert, key


# ------------------------------------------------------------------------------------------------ SSLContext


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """Server-side SSLContext serving cert/key (PEM); TLS 1.2 minimum, ECDHE+AEAD ciphers.

    Raises TLSError when a file is missing or the pair cannot be loaded (bad PEM, key does not match).
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_ciphers(CIPHERS)
    context.options |= ssl.OP_NO_COMPRESSION | ssl.OP_CIPHER_SERVER_PREFERENCE
    for path in (cert, key):
        if not path.is_file():
            raise TLSError(f"{path}: not found")
    try:
        context.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
        raise TLSError(f"cannot load certificate {cert} with key {key}: {reason}") from None
    return context


# ------------------------------------------------------------------------------------------ self-signed


def ensure_self_signed(root: Path, *, now: datetime) -> SelfSigned:
    """Reuse or create the CA and serving certificate under root (created if absent); now: aware UTC.

    Files: ca.crt, ca.key (0600), tls.crt, tls.key (0600); each is written atomically (temp file, rename).
    Raises TLSError when the directory or a file cannot be written.
    """
    paths = SelfSigned(root / CA_CERT, root / TLS_CERT, root / TLS_KEY, created=False)
    if _serving_is_usable(paths, now):
        logger.info("reusing serving certificate", extra={"cert": str(paths.cert), "ca": str(paths.ca_cert)})
        return paths
    try:
        root.mkdir(parents=True, exist_ok=True)
        ca = _load_ca(root, now)
        if ca is None:
            ca = _new_ca(now)
            _write(root / CA_KEY, _key_pem(ca[1]), KEY_FILE_MODE)
            _write(root / CA_CERT, ca[0].public_bytes(serialization.Encoding.PEM), CERT_FILE_MODE)
            logger.info("created a self-signed CA", extra={"ca": str(root / CA_CERT)})
        cert, key = _new_serving(ca[0], ca[1], now)
        _write(paths.key, _key_pem(key), KEY_FILE_MODE)
        _write(paths.cert, cert.public_bytes(serialization.Encoding.PEM), CERT_FILE_MODE)
    except OSError as exc:
        raise TLSError(f"cannot write certificates under {root}: {exc.strerror or exc}") from None
    not_after = cert.not_valid_after_utc.isoformat()
    logger.info("issued a serving certificate", extra={"cert": str(paths.cert), "not_after": not_after})
    return SelfSigned(paths.ca_cert, paths.cert, paths.key, created=True)


def _serving_is_usable(paths: SelfSigned, now: datetime) -> bool:
    """True when tls.crt/tls.key parse, match, are issued by ca.crt, carry our SANs and last 30 more days."""
    try:
        ca = x509.load_pem_x509_certificate(paths.ca_cert.read_bytes())
        cert = x509.load_pem_x509_certificate(paths.cert.read_bytes())
        key = serialization.load_pem_private_key(paths.key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return False
    if not _same_public_key(cert, key):
        return False
    if cert.not_valid_before_utc > now or cert.not_valid_after_utc - now < SERVING_RENEW_BEFORE:
        return False
    if ca.not_valid_after_utc - now < SERVING_RENEW_BEFORE:
        return False
    try:
        cert.verify_directly_issued_by(ca)
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, TypeError, InvalidSignature, x509.ExtensionNotFound):
        return False
    return set(SERVING_DNS_NAMES) <= set(sans.get_values_for_type(x509.DNSName)) and set(SERVING_IPS) <= set(
        sans.get_values_for_type(x509.IPAddress)
    )


def _load_ca(root: Path, now: datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    """The existing CA pair when it parses, matches and has 90 days left; else None (make a new one)."""
    try:
        cert = x509.load_pem_x509_certificate((root / CA_CERT).read_bytes())
        key = serialization.load_pem_private_key((root / CA_KEY).read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not _same_public_key(cert, key):
        return None
    if cert.not_valid_after_utc - now < CA_RENEW_BEFORE:
        return None
    return cert, key


def _same_public_key(cert: x509.Certificate, key: object) -> bool:
    public = getattr(key, "public_key", None)
    if public is None:
        return False
    spki = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    return bool(cert.public_key().public_bytes(*spki) == public().public_bytes(*spki))


def _new_ca(now: datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gardener-webhook self-signed CA")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + CA_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )  # fmt: skip
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def _new_serving(
    ca_cert: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey, now: datetime
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    not_after = min(now + SERVING_VALIDITY, ca_cert.not_valid_after_utc)
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in SERVING_DNS_NAMES]
    sans += [x509.IPAddress(ip) for ip in SERVING_IPS]
    ca_ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, SERVING_DNS_NAMES[0])]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )  # fmt: skip
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return cert, key


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write(path: Path, data: bytes, mode: int) -> None:
    """Write data to path atomically with the given mode (the temp file is created with it, never wider)."""
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)  # O_CREAT honours the umask and an existing temp file keeps its old mode
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
