"""User mistakes end in one line on stderr and exit 2, never a traceback, and packaging.

Each case runs the installed console script in a subprocess, as a user would: the line names the option,
the environment variable or the file at fault. `serve` cases must fail before listening, so they are quick.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from webhook.server.tls import default_self_signed_dir

ROOT = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).parent / "gardener-webhook"
TIMEOUT_SECONDS = 60


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """The console script with `args` in `cwd`; its environment is ours without GARDENER_WEBHOOK_* plus `env`."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GARDENER_WEBHOOK_")}
    clean["XDG_STATE_HOME"] = str(cwd / "state")
    return subprocess.run(
        [str(CLI), *args], cwd=cwd, env={**clean, **(env or {})}, input=stdin, capture_output=True, text=True,
        timeout=TIMEOUT_SECONDS, check=False,
    )  # fmt: skip


def assert_one_line(result: subprocess.CompletedProcess[str], command: str, needle: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("{")]  # JSON log lines aside
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"gardener-webhook {command}: "), lines[0]
    assert needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--port", "99999"], "--port 99999: not a port number (0-65535"),
        (["--health-port", "-1"], "--health-port -1: not a port number"),
        (["--port", "70000", "--workers", "2"], "--port 70000: not a port number"),
        (["--health-port", "65536", "--workers", "3"], "--health-port 65536: not a port number"),
        (["--workers", "0"], "--workers 0: must be between 1 and 64"),
        (["--drain-seconds", "-1"], "--drain-seconds -1.0: must be a finite number of seconds, 0 or more"),
        (["--shutdown-timeout-seconds", "nan"], "--shutdown-timeout-seconds nan: must be a finite number"),
        (["--cert-poll-seconds", "0"], "--cert-poll-seconds 0.0: must be a finite number of seconds, more than 0"),
        (["--cert-dir", "missing"], "--cert-dir missing: not a directory"),
        (["--client-ca", "missing.pem"], "--client-ca missing.pem: not found"),
        (["--self-signed-dir", "x", "--cert-dir", "y"], "cannot be combined with --cert-dir"),
    ],
)
def test_serve_refuses_unusable_options_in_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    result = run(["serve", *args], tmp_path)
    assert_one_line(result, "serve", needle)
    assert not (tmp_path / "certs").exists() and not (tmp_path / "state").exists()


def test_serve_refuses_a_cert_dir_whose_pair_cannot_be_loaded(tmp_path: Path) -> None:
    cert_dir = tmp_path / "tls"
    cert_dir.mkdir()
    (cert_dir / "tls.crt").write_text("not a certificate")
    (cert_dir / "tls.key").write_text("not a key")
    assert_one_line(
        run(["serve", "--cert-dir", str(cert_dir)], tmp_path), "serve", f"cannot load certificate {cert_dir}/tls.crt"
    )


def test_serve_refuses_a_self_signed_dir_it_cannot_write(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = run(["serve", "--self-signed-dir", str(tmp_path / "file" / "certs")], tmp_path)
    assert_one_line(result, "serve", f"cannot write certificates under {tmp_path}/file/certs: Not a directory")


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        (
            {"GARDENER_WEBHOOK_EXPIRY_WARNING_DAYS": "soon"},
            "environment variable GARDENER_WEBHOOK_EXPIRY_WARNING_DAYS: expiryWarningDays: ",
        ),
        (
            {"GARDENER_WEBHOOK_CLUSTER__RESYNC_SECONDS": "1"},
            "environment variable GARDENER_WEBHOOK_CLUSTER__RESYNC_SECONDS: cluster.resyncSeconds: ",
        ),
        ({"GARDENER_WEBHOOK_RULES": "SH-VER-001=warn"}, "environment variable GARDENER_WEBHOOK_RULES: not valid JSON"),
        (
            {"GARDENER_WEBHOOK_RULES": '{"NO-SUCH-RULE": "warn"}'},
            "environment variable GARDENER_WEBHOOK_RULES: rules: unknown rule id(s) NO-SUCH-RULE",
        ),
        (
            {"GARDENER_WEBHOOK_FEATURE_GATES": '{"NoSuchGate": true}'},
            "environment variable GARDENER_WEBHOOK_FEATURE_GATES: unknown configuration key",
        ),
    ],
)
def test_a_bad_environment_setting_names_the_variable(tmp_path: Path, env: dict[str, str], needle: str) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    result = run(["review", "a.yaml"], tmp_path, env)
    assert_one_line(result, "review", needle)
    assert "--config" not in result.stderr


def test_a_bad_config_file_value_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    (tmp_path / "config.yaml").write_text("expiryWarningDays: -1\n")
    result = run(["review", "--config", "config.yaml", "a.yaml"], tmp_path)
    assert_one_line(
        result, "review", "--config config.yaml: expiryWarningDays: Input should be greater than or equal to 0"
    )


VIRTUAL_GARDEN_ONLY = (
    "cluster:\n  sources:\n    - {name: virtual-garden, kubeconfig: missing-kubeconfig,\n"
    "       kinds: [CloudProfile, NamespacedCloudProfile, Shoot, Seed, ConfigMap]}\n"
)


@pytest.mark.parametrize(
    ("command", "config", "args", "needle"),
    [
        pytest.param("serve", VIRTUAL_GARDEN_ONLY, [],
                     "--config config.yaml: cluster.sources leave Deployment without a cluster: name it in the kinds of "
                     "a source, or give --kubeconfig FILE or --in-cluster for the kinds no source names",
                     id="serve-uncovered-kinds"),
        pytest.param("audit", VIRTUAL_GARDEN_ONLY, [], "--config config.yaml: cluster.sources leave Deployment without",
                     id="audit-uncovered-kinds"),
        pytest.param("serve", VIRTUAL_GARDEN_ONLY, ["--kubeconfig", "runtime-kubeconfig"],
                     "--config config.yaml: cluster.sources[0] (virtual-garden): missing-kubeconfig: cannot use "
                     "kubeconfig: ", id="serve-unusable-source-kubeconfig"),
        pytest.param("serve", VIRTUAL_GARDEN_ONLY, ["--context", "snapshot.yaml"],
                     "--config config.yaml: cluster.sources cannot be combined with --context", id="serve-and-context"),
        pytest.param("audit", "cluster: {sources: [{name: a, inCluster: true, kinds: [Shot]}]}", [],
                     "--config config.yaml: cluster.sources[0].kinds: unknown kind Shot; the cluster view's kinds are ",
                     id="audit-unknown-kind"),
        pytest.param("serve", "cluster: {sources: [{name: a, kubeconfig: k, inCluster: true, kinds: [Seed]}]}", [],
                     "--config config.yaml: cluster.sources[0]: source 'a': give exactly one of kubeconfig (a file) or "
                     "inCluster: true", id="serve-kubeconfig-and-in-cluster"),
    ],
)  # fmt: skip
def test_unusable_cluster_sources_are_refused_in_one_line(
    tmp_path: Path, command: str, config: str, args: list[str], needle: str
) -> None:
    (tmp_path / "config.yaml").write_text(config)
    result = run([command, "--config", "config.yaml", *args], tmp_path)
    assert_one_line(result, command, needle)
    assert not (tmp_path / "state").exists()  # refused before any certificate was written


def test_a_closed_stdout_ends_review_with_one_line(tmp_path: Path) -> None:
    many = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cm-{i}}}\n" for i in range(3000))
    (tmp_path / "many.yaml").write_text(many)
    # `review many.yaml | head -1`: the reader takes one line and closes the pipe.
    review = subprocess.Popen(
        [str(CLI), "review", "many.yaml"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert review.stdout is not None and review.stderr is not None
    first = review.stdout.readline()
    review.stdout.close()
    err = review.stderr.read()
    assert review.wait(timeout=TIMEOUT_SECONDS) == 2
    assert first == "SKIPPED ConfigMap/cm-0 (no validator for core/ConfigMap)\n"
    assert "Traceback" not in err and "Exception ignored" not in err
    assert err == "gardener-webhook: standard output was closed before all results were written\n"


def test_self_signed_material_defaults_to_a_state_directory_never_the_cwd() -> None:
    assert default_self_signed_dir({"GARDENER_WEBHOOK_STATE_DIR": "/var/lib/gw"}) == Path("/var/lib/gw/certs")
    assert default_self_signed_dir({"XDG_STATE_HOME": "/home/me/.state"}) == Path(
        "/home/me/.state/gardener-webhook/certs"
    )
    home = Path("~").expanduser()
    assert default_self_signed_dir({}) == home / ".local/state/gardener-webhook/certs"


def test_serve_prints_the_absolute_ca_path_it_wrote(tmp_path: Path) -> None:
    # Fails on a busy port after the certificates are written: enough to see where they went, without serving.
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run(["serve", "--port", str(port), "--health-port", "0"], tmp_path)
    expected = tmp_path / "state" / "gardener-webhook" / "certs" / "ca.crt"
    assert result.stdout.startswith(f"CA bundle: {expected} (created; ")
    assert expected.is_file() and not (tmp_path / "certs").exists()
    assert_one_line(result, "serve", f"cannot listen on https://127.0.0.1:{port} (TLS)")


def test_license_matches_the_package_metadata() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert "LICENSE" in project["license-files"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert set(project["urls"]) >= {"Homepage", "Source", "Issues"}
