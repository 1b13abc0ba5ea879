"""`gardener-webhook certs`: CA + serving certificate in the Secret layout, the printed caBundle, the patch."""

from __future__ import annotations

import base64
import io
import ipaddress
import stat
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from webhook.cli import main
from webhook.server.certs import WEBHOOK_NAMES
from webhook.server.tls import server_context

SERVICE = "gardener-webhook.gardener-webhook.svc"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(["certs", *argv], out=out), out.getvalue()


def cert(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def test_writes_the_secret_layout_and_prints_the_ca_bundle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "certs"
    code, printed = run("--dns", SERVICE, "--dns", SERVICE + ".cluster.local", "--ip", "10.0.0.7", "--out", str(out))
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["ca.crt", "ca.key", "tls.crt", "tls.key"]
    assert stat.S_IMODE((out / "tls.key").stat().st_mode) == 0o600
    assert stat.S_IMODE((out / "ca.key").stat().st_mode) == 0o600
    assert printed == base64.b64encode((out / "ca.crt").read_bytes()).decode() + "\n"  # stdout: the bundle only
    assert "tls.crt" in capsys.readouterr().err

    serving, ca = cert(out / "tls.crt"), cert(out / "ca.crt")
    serving.verify_directly_issued_by(ca)
    sans = serving.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == [SERVICE, SERVICE + ".cluster.local"]
    assert sans.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("10.0.0.7")]
    usages = serving.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usages) == [ExtendedKeyUsageOID.SERVER_AUTH]
    assert 364 <= (serving.not_valid_after_utc - serving.not_valid_before_utc).days <= 366
    assert 3649 <= (ca.not_valid_after_utc - ca.not_valid_before_utc).days <= 3651
    server_context(out / "tls.crt", out / "tls.key")  # the server loads the pair


def test_validity_flags(tmp_path: Path) -> None:
    assert run("--dns", SERVICE, "--out", str(tmp_path), "--days", "30", "--ca-days", "60")[0] == 0
    serving, ca = cert(tmp_path / "tls.crt"), cert(tmp_path / "ca.crt")
    assert 29 <= (serving.not_valid_after_utc - serving.not_valid_before_utc).days <= 31
    assert 59 <= (ca.not_valid_after_utc - ca.not_valid_before_utc).days <= 61


def test_rerun_reissues_the_serving_certificate_with_the_same_ca(tmp_path: Path) -> None:
    _, first_bundle = run("--dns", SERVICE, "--out", str(tmp_path))
    first_serving = (tmp_path / "tls.crt").read_bytes()
    code, second_bundle = run("--dns", SERVICE, "--out", str(tmp_path))
    assert code == 0 and second_bundle == first_bundle
    assert (tmp_path / "tls.crt").read_bytes() != first_serving
    cert(tmp_path / "tls.crt").verify_directly_issued_by(cert(tmp_path / "ca.crt"))


def test_a_ca_that_would_expire_before_the_new_certificate_is_replaced(tmp_path: Path) -> None:
    _, first_bundle = run("--dns", SERVICE, "--out", str(tmp_path), "--days", "10", "--ca-days", "20")
    code, second_bundle = run("--dns", SERVICE, "--out", str(tmp_path), "--days", "30")
    assert code == 0 and second_bundle != first_bundle


@pytest.mark.parametrize("cluster", ["garden", "seed", "virtual-garden", "runtime"])
def test_webhook_config_patch_names_every_webhook_of_the_cluster(tmp_path: Path, cluster: str) -> None:
    patch = tmp_path / "patch.yaml"
    code, bundle = run(
        "--dns", SERVICE, "--out", str(tmp_path / "c"), "--webhook-config-patch", str(patch), "--cluster", cluster
    )
    assert code == 0
    document = yaml.safe_load(patch.read_text())
    assert document["kind"] == "ValidatingWebhookConfiguration"
    assert document["metadata"] == {"name": "gardener-webhook"}
    assert [w["name"] for w in document["webhooks"]] == list(WEBHOOK_NAMES[cluster])
    assert {w["clientConfig"]["caBundle"] for w in document["webhooks"]} == {bundle.strip()}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give at least one --dns NAME"),
        (["--dns", SERVICE, "--days", "0"], "--days and --ca-days must be at least 1"),
        (["--dns", SERVICE, "--days", "400", "--ca-days", "300"], "--ca-days must be at least --days"),
    ],
)
def test_unusable_options_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, printed = run(*argv, "--out", str(tmp_path / "c"))
    assert code == 2 and printed == ""
    assert capsys.readouterr().err.startswith(f"gardener-webhook certs: {message}")
    assert not (tmp_path / "c").exists()


def test_bad_ip_and_missing_out_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--dns", SERVICE, "--ip", "not-an-ip", "--out", str(tmp_path))[0] == 2
    assert "'not-an-ip' is not an IP address" in capsys.readouterr().err
    assert run("--dns", SERVICE)[0] == 2


def test_unwritable_out_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert run("--dns", SERVICE, "--out", str(blocker))[0] == 2
    assert "cannot write certificates under" in capsys.readouterr().err
