"""Serving certificates: self-signed material for local runs, `--cert-dir` files, and the server SSLContext.

With no `--cert-dir`, `ensure_self_signed(root, now=…)` keeps a CA and a serving certificate under `root`
(`--self-signed-dir`, default `default_self_signed_dir()`: a user state directory, never the cwd): `ca.crt`, `ca.key`, `tls.crt`, `tls.key`. It creates them on first start and reuses them
afterwards, so the CA bundle an operator registered stays valid across restarts. The serving certificate is
re-issued only when it is missing, unparsable, not issued by `ca.crt`, missing a SAN, or expires within
30 days; the CA is kept for that re-issue when its key is still there and it has 90 days left.
With `--cert-dir`, `cert_dir_files(dir)` names `tls.crt`/`tls.key` (the Kubernetes secret layout).
`server_context` builds the SSLContext: server side, TLS 1.2 minimum (1.3 selectable), ECDHE with AEAD
ciphers only, and, with a client CA, client certificates required (`TLSOptions`).
`issue_certificates` makes the CA and serving pair of `gardener-webhook certs` for any DNS names and IPs.
Keys are ECDSA P-256: fast to make, fast handshakes, accepted by the kube-apiserver.
Source: controller-runtime pkg/webhook/server.go (option defaults, tls.crt/tls.key), docs/design.md §4.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final, TypeAlias

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

logger = logging.getLogger(__name__)

IPAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

CA_CERT: Final = "ca.crt"
CA_KEY: Final = "ca.key"
TLS_CERT: Final = "tls.crt"
TLS_KEY: Final = "tls.key"

SERVING_DNS_NAMES: Final = ("localhost",)
SERVING_IPS: Final[tuple[IPAddress, ...]] = (ipaddress.ip_address("127.0.0.1"),)
SERVING_VALIDITY: Final = timedelta(days=365)
SERVING_RENEW_BEFORE: Final = timedelta(days=30)
CA_VALIDITY: Final = timedelta(days=3650)
CA_RENEW_BEFORE: Final = timedelta(days=90)
BACKDATE: Final = timedelta(minutes=5)  # tolerate clock skew between this host and the API server
KEY_FILE_MODE: Final = 0o600
CERT_FILE_MODE: Final = 0o644

# TLS 1.3 suites are not affected by set_ciphers; for TLS 1.2 allow forward-secret AEAD suites only.
CIPHERS: Final = "ECDHE+AESGCM:ECDHE+CHACHA20"
TLS_VERSIONS: Final = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


@dataclass(frozen=True, slots=True)
class TLSOptions:
    """How the server side of TLS is set up, each with its default.

    min_version: lowest protocol version accepted (TLS 1.2; `--tls-min-version 1.3`).
    client_ca: PEM bundle of the CAs whose client certificates are accepted; when set, every client must
      present one (the kube-apiserver's webhook client certificate); None: no client certificates asked for.
    """

    min_version: ssl.TLSVersion = ssl.TLSVersion.TLSv1_2
    client_ca: Path | None = None


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


def server_context(cert: Path, key: Path, options: TLSOptions = TLSOptions()) -> ssl.SSLContext:
    """Server-side SSLContext serving cert/key (PEM) as options say; ECDHE+AEAD ciphers for TLS 1.2.

    Raises TLSError when a file is missing or the pair cannot be loaded (bad PEM, key does not match), or
    the client CA bundle cannot be loaded.
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = options.min_version
    context.set_ciphers(CIPHERS)
    context.options |= ssl.OP_NO_COMPRESSION | ssl.OP_CIPHER_SERVER_PREFERENCE
    for path in (cert, key):
        if not path.is_file():
            raise TLSError(f"{path}: not found")
    try:
        context.load_cert_chain(cert, key)
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise TLSError(f"cannot load certificate {cert} with key {key}: {_reason(exc)}") from None
    if options.client_ca is not None:
        try:
            context.load_verify_locations(cafile=options.client_ca)
        except (ssl.SSLError, OSError, ValueError) as exc:
            raise TLSError(f"cannot load client CA bundle {options.client_ca}: {_reason(exc)}") from None
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def _reason(exc: BaseException) -> str:
    return str(getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc)


def certificate_not_after(pem: bytes) -> datetime | None:
    """Expiry (aware UTC) of the first certificate in pem; None when pem holds no parsable certificate."""
    try:
        return x509.load_pem_x509_certificate(pem).not_valid_after_utc
    except ValueError:
        return None


# ------------------------------------------------------------------------------------------ self-signed


STATE_DIR_VARIABLE: Final = "GARDENER_WEBHOOK_STATE_DIR"


def default_self_signed_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where `serve` keeps self-signed material without `--self-signed-dir`: never the working directory.

    `$GARDENER_WEBHOOK_STATE_DIR/certs` when that variable is set, else the XDG state directory
    `$XDG_STATE_HOME/gardener-webhook/certs` (`~/.local/state/gardener-webhook/certs` when unset).
    """
    env = os.environ if environ is None else environ
    if env.get(STATE_DIR_VARIABLE):
        return Path(env[STATE_DIR_VARIABLE]).expanduser() / "certs"
    state_home = env.get("XDG_STATE_HOME") or str(Path("~/.local/state").expanduser())
    return Path(state_home).expanduser() / "gardener-webhook" / "certs"


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


@dataclass(frozen=True, slots=True)
class Issued:
    """What `issue_certificates` wrote: paths, whether the CA in the directory was reused, and the expiries."""

    ca_cert: Path
    ca_key: Path
    cert: Path
    key: Path
    ca_reused: bool
    not_after: datetime
    ca_not_after: datetime


def issue_certificates(
    out: Path,
    *,
    dns_names: Sequence[str],
    ips: Sequence[IPAddress] = (),
    validity: timedelta,
    ca_validity: timedelta,
    now: datetime,
) -> Issued:
    """Write a serving pair for dns_names/ips (tls.crt, tls.key) and its CA (ca.crt, ca.key) into out.

    A CA already in out (ca.crt + matching ca.key) is reused while it outlives the new serving certificate,
    so a re-issue keeps the caBundle the API server trusts; otherwise a new CA valid for ca_validity is made.
    validity, ca_validity: positive durations; now: aware UTC. Keys are written 0600, certificates 0644,
    each file atomically. Raises TLSError when out cannot be written; ValueError without any name or IP.
    """
    if not dns_names and not ips:
        raise ValueError("a serving certificate needs at least one DNS name or IP address")
    paths = Issued(out / CA_CERT, out / CA_KEY, out / TLS_CERT, out / TLS_KEY, False, now, now)
    try:
        out.mkdir(parents=True, exist_ok=True)
        ca = _load_ca(out, now, keep_for=validity)
        reused = ca is not None
        if ca is None:
            ca = _new_ca(now, ca_validity, "gardener-webhook CA")
            _write(paths.ca_key, _key_pem(ca[1]), KEY_FILE_MODE)
            _write(paths.ca_cert, ca[0].public_bytes(serialization.Encoding.PEM), CERT_FILE_MODE)
        cert, key = _new_serving(ca[0], ca[1], now, dns_names=dns_names, ips=ips, validity=validity)
        _write(paths.key, _key_pem(key), KEY_FILE_MODE)
        _write(paths.cert, cert.public_bytes(serialization.Encoding.PEM), CERT_FILE_MODE)
    except OSError as exc:
        raise TLSError(f"cannot write certificates under {out}: {exc.strerror or exc}") from None
    return Issued(
        paths.ca_cert, paths.ca_key, paths.cert, paths.key, reused, cert.not_valid_after_utc, ca[0].not_valid_after_utc
    )


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


def _load_ca(
    root: Path, now: datetime, *, keep_for: timedelta = CA_RENEW_BEFORE
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    """The existing CA pair when it parses, matches and is valid for keep_for more (90 days); else None."""
    try:
        cert = x509.load_pem_x509_certificate((root / CA_CERT).read_bytes())
        key = serialization.load_pem_private_key((root / CA_KEY).read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not _same_public_key(cert, key):
        return None
    if cert.not_valid_after_utc - now < keep_for:
        return None
    return cert, key


def _same_public_key(cert: x509.Certificate, key: object) -> bool:
    public = getattr(key, "public_key", None)
    if public is None:
        return False
    spki = serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    return bool(cert.public_key().public_bytes(*spki) == public().public_bytes(*spki))


def _new_ca(
    now: datetime, validity: timedelta = CA_VALIDITY, common_name: str = "gardener-webhook self-signed CA"
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + validity)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    return cert, key


def _new_serving(
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    now: datetime,
    *,
    dns_names: Sequence[str] = SERVING_DNS_NAMES,
    ips: Sequence[IPAddress] = SERVING_IPS,
    validity: timedelta = SERVING_VALIDITY,
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    not_after = min(now + validity, ca_cert.not_valid_after_utc)
    sans: list[x509.GeneralName] = [x509.DNSName(n) for n in dns_names]
    sans += [x509.IPAddress(ip) for ip in ips]
    subject = dns_names[0] if dns_names else str(ips[0])
    ca_ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
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
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
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
