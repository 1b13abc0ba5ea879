"""`gardener-webhook audit`: every stored object judged re-applied and created today, grouped by rule."""

from __future__ import annotations

import asyncio
import copy
import io
import json
import re
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.builders import NOW, PAST, SOON, cloud_profile_dict, versions
from tests.cluster.fake_apiserver import (
    FakeApiServer,
    cloud_profile_obj,
    gardener_deployment_obj,
    seed_obj,
    write_kubeconfig,
)
from webhook.cli import main
from webhook.cluster.static import StaticView
from webhook.offline.audit import audit_objects
from webhook.settings import Settings

NOW_TEXT = "2026-11-21T12:00:00Z"
ROOT: Final = Path(__file__).resolve().parents[1]


def landscape() -> list[dict[str, Any]]:
    """A CloudProfile with an expired older version, one expiring soon and a minor gap; a Shoot on it."""
    profile = cloud_profile_dict(
        kubernetes=versions(
            "1.33.2", {"version": "1.32.5", "expirationDate": SOON}, {"version": "1.30.1", "expirationDate": PAST}
        )
    )
    return [profile]


def test_report_groups_findings_by_rule_and_situation() -> None:
    objects = landscape()
    report = audit_objects(objects, view=StaticView.from_objects(objects), settings=Settings(), now=NOW)
    assert report.counts == {"CloudProfile": 1}
    assert report.denied
    rules = report.by_rule()
    assert list(rules) == ["CP-EXP-001", "CP-WARN-002", "CP-WARN-003"]
    assert [(e.mode, e.when, e.object_ref) for e in rules["CP-EXP-001"]] == [
        ("deny", "created today", "CloudProfile/local")
    ]
    assert [(e.mode, e.when) for e in rules["CP-WARN-002"]] == [("warn", "re-applied")]
    assert rules["CP-WARN-003"][0].message.endswith("clusters on 1.30 cannot be force-updated to 1.32")


def test_clean_landscape_is_not_denied() -> None:
    objects = [cloud_profile_dict()]
    report = audit_objects(objects, view=StaticView.from_objects(objects), settings=Settings(), now=NOW)
    assert (report.denied, report.entries, report.counts) == (False, (), {"CloudProfile": 1})


def test_gardenlets_out_of_skew_are_reported_as_landscape_findings() -> None:
    objects = [
        gardener_deployment_obj("apiserver", "v1.40.2"),
        seed_obj("aws-eu1", "v1.37.5"),
        seed_obj("gcp-us1", "v1.39.0"),
    ]
    report = audit_objects(objects, view=StaticView.from_objects(objects), settings=Settings(), now=NOW)
    [entry] = report.entries
    assert (entry.rule, entry.mode, entry.when, entry.object_ref) == ("VS-GL-001", "deny", "landscape", "Seed/aws-eu1")
    assert "1.37" in entry.message and "1.40" in entry.message


def _write(tmp_path: Path, objects: list[dict[str, Any]]) -> Path:
    path = tmp_path / "landscape.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    return path


def test_cli_text_and_json(tmp_path: Path) -> None:
    path = _write(tmp_path, landscape())
    out = io.StringIO()
    assert main(["audit", "--context", str(path), "--now", NOW_TEXT], out=out) == 1
    text = out.getvalue().splitlines()
    assert text[0] == f"audit at {NOW_TEXT}: 1 CloudProfile; 1 denials, 2 warnings"
    assert text[1] == "CP-EXP-001 (1 object)"
    assert text[2].startswith(
        "  DENY CloudProfile/local (created today): spec.kubernetes.versions[2].expirationDate: Forbidden:"
    )
    out = io.StringIO()
    assert main(["audit", "--context", str(path), "--now", NOW_TEXT, "--output", "json"], out=out) == 1
    data = json.loads(out.getvalue())
    assert (data["now"], data["objects"], data["denied"]) == (NOW_TEXT, {"CloudProfile": 1}, True)
    assert [g["rule"] for g in data["rules"]] == ["CP-EXP-001", "CP-WARN-002", "CP-WARN-003"]
    assert set(data["rules"][0]["entries"][0]) == {"rule", "mode", "when", "kind", "namespace", "name", "message"}


def test_cli_clean_landscape_exits_0_and_missing_source_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            ["audit", "--context", str(_write(tmp_path, [cloud_profile_dict()])), "--now", NOW_TEXT], out=io.StringIO()
        )
        == 0
    )
    assert main(["audit"], out=io.StringIO()) == 2
    assert "--context" in capsys.readouterr().err


async def test_cli_audits_a_live_cluster(aiohttp_server: Any, tmp_path: Path) -> None:
    fake = FakeApiServer()
    fake.put(cloud_profile_obj("local"))
    fake.put(gardener_deployment_obj("apiserver", "v1.40.0"))
    fake.put(seed_obj("old-seed", "v1.36.1"))
    server = await aiohttp_server(fake.app())
    kubeconfig = write_kubeconfig(tmp_path, str(server.make_url("")).rstrip("/"))
    out = io.StringIO()
    argv = ["audit", "--kubeconfig", str(kubeconfig), "--now", NOW_TEXT, "--output", "json", "--sync-timeout", "10"]
    code = await asyncio.to_thread(main, argv, out)
    data = json.loads(out.getvalue())
    assert code == 1
    assert data["objects"] == {"CloudProfile": 1}
    assert [(g["rule"], [e["name"] for e in g["entries"]]) for g in data["rules"]] == [("VS-GL-001", ["old-seed"])]


# ------------------------------------------------------------------------------- a cluster that cannot be read

RETRYING: Final = re.compile(
    r"^gardener-webhook audit: warning: cluster list/watch failed; retrying: kind=(\w+) source=--kubeconfig "
    r'error=("(?:[^"\\]|\\.)*") retry_in_s=[0-9.]+ failures=(\d+)$'
)  # the error is a JSON string
ALL_KINDS: Final = "CloudProfile, NamespacedCloudProfile, Shoot, Seed, Deployment, ConfigMap"


def _closed_port() -> int:
    """A 127.0.0.1 port nothing listens on (the kernel picked it free; it is closed again at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_cluster_is_named_by_kind_source_and_cause_once_per_retry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = write_kubeconfig(tmp_path, f"http://127.0.0.1:{_closed_port()}")
    argv = ["audit", "--kubeconfig", str(kubeconfig), "--now", NOW_TEXT, "--sync-timeout", "1"]
    assert main(argv, out=io.StringIO()) == 3
    *retries, last = capsys.readouterr().err.splitlines()
    steps: dict[str, list[int]] = {}
    for line in retries:
        match = RETRYING.match(line)
        assert match, line
        assert "Connection refused" in json.loads(match[2])
        steps.setdefault(match[1], []).append(int(match[3]))
    assert set(steps) <= set(ALL_KINDS.split(", ")) and steps
    assert all(numbers == list(range(1, len(numbers) + 1)) for numbers in steps.values())  # one line per backoff step
    assert last.startswith(
        f"gardener-webhook audit: the cluster view did not sync within 1 s; not listed: {ALL_KINDS} from --kubeconfig "
        "(last error: NewConnectionError: "
    )
    assert last.endswith("Connection refused)")


def _cronjob_command(kubeconfig: Path, sync_timeout: str) -> list[str]:
    """The audit CronJob's container command and args, with what differs outside a Pod: --kubeconfig for --in-cluster
    (the in-cluster configuration reads the service account's files at fixed paths) and a shorter --sync-timeout."""
    cronjob = yaml.safe_load((ROOT / "manifests/components/audit-cronjob/cronjob.yaml").read_text())
    (container,) = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    args = list(container["args"])
    assert "--in-cluster" in args and "--apply" in args and "--sync-timeout=120" in args
    args[args.index("--in-cluster")] = f"--kubeconfig={kubeconfig}"
    args[args.index("--sync-timeout=120")] = f"--sync-timeout={sync_timeout}"
    [program] = container["command"]
    installed = Path(sys.executable).parent / program  # the console script of the environment running the tests
    return [str(installed) if installed.exists() else program, *args]


async def _run_cronjob_command(kubeconfig: Path) -> tuple[int, str, list[str]]:
    """(exit status, stdout, stderr lines) of the CronJob's command against kubeconfig's cluster."""
    process = await asyncio.create_subprocess_exec(
        *_cronjob_command(kubeconfig, "2"), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)  # a bound only a hang reaches
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode().splitlines()


async def test_the_cronjob_command_exits_3_when_the_api_server_is_unreachable(tmp_path: Path) -> None:
    """Exit 3 is what the CronJob's podFailurePolicy retries; before, this ended the Job with exit 2."""
    kubeconfig = write_kubeconfig(tmp_path, f"http://127.0.0.1:{_closed_port()}")
    code, out, err = await _run_cronjob_command(kubeconfig)
    assert (code, out) == (3, "")  # no report: nothing was judged
    assert err[-1].startswith(
        f"gardener-webhook audit: the cluster view did not sync within 2 s; not listed: {ALL_KINDS} from "
        "--kubeconfig (last error: NewConnectionError: "
    )
    assert err[-1].endswith("Connection refused)")


@pytest.mark.parametrize(
    ("refuse", "expected"),
    [
        pytest.param(
            lambda fake: setattr(fake, "bearer_tokens", frozenset({"another-token"})),
            f"{ALL_KINDS} from --kubeconfig (last error: HTTP 401 Unauthorized: Unauthorized)",
            id="401-every-kind",
        ),
        pytest.param(
            lambda fake: fake.fail_lists("Shoot", 1_000_000, status=403),
            'Shoot from --kubeconfig (last error: HTTP 403 Forbidden: shoots is forbidden: cannot list resource "shoots")',
            id="403-shoots",
        ),
        pytest.param(
            lambda fake: fake.fail_lists("Seed", 1_000_000, status=503),
            "Seed from --kubeconfig (last error: HTTP 503 Service Unavailable: the server is currently unable to "
            "handle the request)",
            id="503-seeds",
        ),
    ],
)
async def test_the_cronjob_command_exits_3_when_the_api_server_refuses(
    aiohttp_server: Any, tmp_path: Path, refuse: Any, expected: str
) -> None:
    fake = FakeApiServer()
    fake.put(cloud_profile_obj("local"))
    await fake.serve(aiohttp_server)
    refuse(fake)
    code, out, err = await _run_cronjob_command(write_kubeconfig(tmp_path, fake.url))
    assert (code, out) == (3, "")
    assert err[-1] == f"gardener-webhook audit: the cluster view did not sync within 2 s; not listed: {expected}"
    errors = {json.loads(m[2]) for m in map(RETRYING.match, err[:-1]) if m}
    assert len(errors) == 1 and len(err) > 1 and all(map(RETRYING.match, err[:-1])), err
    assert expected.endswith(f"{errors.pop()})")  # each retry named the cause the last line gives
    assert fake.writes == []  # --apply writes nothing about a cluster it could not read


# ------------------------------------------------------------------------------------------------- AUD-CLS-001


def profile_with_status(status: dict[str, Any]) -> dict[str, Any]:
    """Kubernetes 1.33.2 (supported), 1.32.5 (deprecated until SOON), 1.32.4 (expired); gardenlinux 1592.1.0 and
    1443.1.0 (expired), with the given status."""
    profile = cloud_profile_dict(
        kubernetes=versions(
            "1.33.2",
            {"version": "1.32.5", "classification": "deprecated", "expirationDate": SOON},
            {"version": "1.32.4", "expirationDate": PAST},
        ),
        machineImages=[
            {
                "name": "gardenlinux",
                "versions": [{"version": "1592.1.0"}, {"version": "1443.1.0", "expirationDate": PAST}],
            }
        ],
    )
    profile["status"] = status
    return profile


CURRENT_STATUS: Final = {
    "kubernetes": {
        "versions": [
            {"version": "1.33.2", "classification": "supported"},
            {"version": "1.32.5", "classification": "deprecated"},
            {"version": "1.32.4", "classification": "expired"},
        ]
    },
    "machineImages": [
        {
            "name": "gardenlinux",
            "versions": [
                {"version": "1592.1.0", "classification": "supported"},
                {"version": "1443.1.0", "classification": "expired"},
            ],
        }
    ],
}


def _audit_rules(objects: list[dict[str, Any]], now: Any = NOW) -> dict[str, list[Any]]:
    return audit_objects(objects, view=StaticView.from_objects(objects), settings=Settings(), now=now).by_rule()


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        pytest.param(CURRENT_STATUS, [], id="AUD-CLS-001-status-up-to-date"),
        pytest.param({}, [], id="AUD-CLS-001-no-status-written"),
        pytest.param(
            {"kubernetes": {"versions": [{"version": "1.31.0", "classification": "supported"}]}},
            [],
            id="AUD-CLS-001-version-not-in-spec",
        ),
        pytest.param(
            {
                "kubernetes": {
                    "versions": [
                        {"version": "1.33.2", "classification": "supported"},
                        {"version": "1.32.5", "classification": "supported"},
                        {"version": "1.32.4", "classification": "deprecated"},
                    ]
                },
                "machineImages": [
                    {"name": "gardenlinux", "versions": [{"version": "1443.1.0", "classification": "supported"}]}
                ],
            },
            [
                (
                    'status.kubernetes.versions[1].classification: "supported" is written for Kubernetes version "1.32.5", '
                    'which is "deprecated" now'
                ),
                (
                    'status.kubernetes.versions[2].classification: "deprecated" is written for Kubernetes version "1.32.4", '
                    'which is "expired" now'
                ),
                (
                    'status.machineImages[0].versions[0].classification: "supported" is written for machine image '
                    '"gardenlinux" version "1443.1.0", which is "expired" now'
                ),
            ],
            id="AUD-CLS-001-status-lags",
        ),
    ],
)
def test_aud_cls_001(status: dict[str, Any], expected: list[str]) -> None:
    entries = _audit_rules([profile_with_status(status)]).get("AUD-CLS-001", [])
    assert [e.message for e in entries] == expected
    assert {(e.mode, e.when, e.object_ref) for e in entries} <= {("warn", "status", "CloudProfile/local")}


def test_aud_cls_001_judges_by_the_audit_clock() -> None:
    """The status written before 1.32.5 expired (SOON) is current at NOW and lags once SOON has passed."""
    profile = profile_with_status(CURRENT_STATUS)
    assert "AUD-CLS-001" not in _audit_rules([profile])
    later = datetime(2026, 12, 2, tzinfo=UTC)
    [entry] = _audit_rules([profile], now=later)["AUD-CLS-001"]
    assert entry.message.endswith('"1.32.5", which is "expired" now')


def test_aud_cls_001_in_text_and_json(tmp_path: Path) -> None:
    lagging = copy.deepcopy(CURRENT_STATUS)
    lagging["kubernetes"]["versions"][2]["classification"] = "supported"
    path = _write(tmp_path, [profile_with_status(lagging)])
    out = io.StringIO()
    main(["audit", "--context", str(path), "--now", NOW_TEXT], out=out)
    text = out.getvalue().splitlines()
    assert text[text.index("AUD-CLS-001 (1 object)") + 1] == (
        '  WARN CloudProfile/local (status): status.kubernetes.versions[2].classification: "supported" is written for '
        'Kubernetes version "1.32.4", which is "expired" now'
    )
    out = io.StringIO()
    main(["audit", "--context", str(path), "--now", NOW_TEXT, "--output", "json"], out=out)
    [group] = [g for g in json.loads(out.getvalue())["rules"] if g["rule"] == "AUD-CLS-001"]
    assert [(e["mode"], e["when"], e["kind"], e["name"]) for e in group["entries"]] == [
        ("warn", "status", "CloudProfile", "local")
    ]


async def test_aud_cls_001_from_a_live_cluster(aiohttp_server: Any, tmp_path: Path) -> None:
    """The live view keeps a CloudProfile's status, so auditing a cluster compares it too."""
    fake = FakeApiServer()
    profile = cloud_profile_dict()  # 1.33.2 and 1.32.5, both supported
    profile["status"] = {"kubernetes": {"versions": [{"version": "1.32.5", "classification": "deprecated"}]}}
    fake.put(profile)
    server = await aiohttp_server(fake.app())
    kubeconfig = write_kubeconfig(tmp_path, str(server.make_url("")).rstrip("/"))
    out = io.StringIO()
    argv = ["audit", "--kubeconfig", str(kubeconfig), "--now", NOW_TEXT, "--output", "json", "--sync-timeout", "10"]
    await asyncio.to_thread(main, argv, out)
    [group] = [g for g in json.loads(out.getvalue())["rules"] if g["rule"] == "AUD-CLS-001"]
    assert [e["message"] for e in group["entries"]] == [
        (
            'status.kubernetes.versions[0].classification: "deprecated" is written for Kubernetes version "1.32.5", '
            'which is "supported" now'
        )
    ]
