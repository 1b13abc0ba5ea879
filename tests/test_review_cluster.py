"""`review --kubeconfig`: "will `kubectl apply -f dir/` be accepted right now?", against the fake API server.

The cluster holds the example landscape (CloudProfile `aws`, NamespacedCloudProfile `garden-team/aws-team`, Shoots
`garden-team/dev` and `garden-team/prod`) as the API server stores it: with uid, resourceVersion and status, prod's
partial version resolved. The reviewed directory changes some of it and adds objects the cluster does not hold.
"""

from __future__ import annotations

import asyncio
import copy
import io
import json
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.cluster.fake_apiserver import FakeApiServer, write_kubeconfig
from webhook.cli import main
from webhook.offline.change import LAST_APPLIED, applied, last_applied_configuration

ROOT: Final = Path(__file__).resolve().parents[1]
LANDSCAPE: Final = ROOT / "examples" / "landscape"
OSC: Final = ROOT / "examples" / "seed" / "operatingsystemconfig.yaml"
NOW: Final = "2026-11-21T00:00:00Z"


def _objects(path: Path) -> list[dict[str, Any]]:
    return [o for o in yaml.safe_load_all(path.read_text()) if o]


def _stored(obj: dict[str, Any], uid: str) -> dict[str, Any]:
    """obj as the API server stores it after `kubectl apply`: server-set metadata, the last-applied configuration,
    a status."""
    stored = copy.deepcopy(obj)
    stored["metadata"].update(uid=uid, creationTimestamp="2026-01-01T00:00:00Z", generation=3)
    stored["metadata"].setdefault("annotations", {})[LAST_APPLIED] = last_applied_configuration(obj)
    stored["status"] = {"observedGeneration": 3}
    return stored


@pytest.fixture
def fake() -> FakeApiServer:
    fake = FakeApiServer()
    for i, path in enumerate(sorted(LANDSCAPE.glob("*.yaml"))):
        for obj in _objects(path):
            stored = _stored(obj, f"uid-{i}")
            if stored["metadata"]["name"] == "prod":
                stored["spec"]["kubernetes"]["version"] = "1.33.5"  # gardener-apiserver resolved "1.33"
            fake.put(stored)
    return fake


async def _serve(fake: FakeApiServer, aiohttp_server: Any, tmp_path: Path) -> Path:
    server = await fake.serve(aiohttp_server)
    return write_kubeconfig(tmp_path, str(server.make_url("")).rstrip("/"))


async def _review(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = await asyncio.to_thread(main, ["review", "--strict", "--now", NOW, *argv], out)
    return code, out.getvalue()


def _headers(output: str) -> list[str]:
    return [line for line in output.splitlines() if not line.startswith(" ")]


def _write(directory: Path, name: str, obj: dict[str, Any]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(yaml.safe_dump(obj))


def _change(tmp_path: Path) -> Path:
    """The reviewed directory: the landscape with 1.33.4 removed from aws (prod's pool-b runs it, in the cluster
    only), prod's labels edited, dev untouched, a new Shoot on a version no profile offers."""
    change = tmp_path / "change"
    for path in LANDSCAPE.glob("*.yaml"):
        if path.name != "shoot-prod.yaml":
            _write(change, path.name, _objects(path)[0])
    profile = _objects(LANDSCAPE / "cloudprofile.yaml")[0]
    profile["spec"]["kubernetes"]["versions"] = [
        v for v in profile["spec"]["kubernetes"]["versions"] if v["version"] != "1.33.4"
    ]
    _write(change, "cloudprofile.yaml", profile)
    prod = _objects(LANDSCAPE / "shoot-prod.yaml")[0]
    prod["metadata"]["labels"] = {"team": "platform"}
    prod["spec"]["kubernetes"]["version"] = "1.33.5"
    _write(change / "prod", "shoot-prod.yaml", prod)  # the Shoot the removed version is in use by is elsewhere
    newcomer = _objects(LANDSCAPE / "shoot-dev.yaml")[0]
    newcomer["metadata"]["name"] = "newcomer"
    newcomer["spec"]["kubernetes"]["version"] = "1.31.0"
    _write(change, "shoot-newcomer.yaml", newcomer)
    return change


async def test_each_object_is_paired_with_its_stored_version(
    aiohttp_server: Any, tmp_path: Path, fake: FakeApiServer
) -> None:
    kubeconfig = await _serve(fake, aiohttp_server, tmp_path)
    change = _change(tmp_path)
    code, output = await _review(str(change / "cloudprofile.yaml"), str(change / "shoot-newcomer.yaml"),
                                 str(change / "shoot-dev.yaml"), str(change / "prod"),
                                 "--kubeconfig", str(kubeconfig))  # fmt: skip
    assert code == 1, output
    assert _headers(output) == [
        "DENIED CloudProfile/aws as UPDATE",
        "DENIED Shoot/garden-team/newcomer as CREATE",
        "ALLOWED Shoot/garden-team/prod as UPDATE",
        "1 unchanged object not judged (--all judges them as re-applies)",
    ]
    # The version in use is found in the cluster's Shoot prod, whose stored spec holds 1.33.4 on pool-b.
    assert 'unable to delete Kubernetes version "1.33.4"' in output and "'garden-team/prod'" in output
    assert "1.31.0" in output
    assert fake.writes == []  # nothing was written


async def test_the_cluster_state_is_the_cluster_with_the_applied_objects_in_place(
    aiohttp_server: Any, tmp_path: Path, fake: FakeApiServer
) -> None:
    """Removing 1.33.4 is allowed when the same apply moves prod's pool-b off it and drops the
    NamespacedCloudProfile's override of it; the cluster's other objects stay as stored."""
    kubeconfig = await _serve(fake, aiohttp_server, tmp_path)
    change = _change(tmp_path)
    prod = yaml.safe_load((change / "prod" / "shoot-prod.yaml").read_text())
    for worker in prod["spec"]["provider"]["workers"]:
        worker.get("kubernetes", {}).pop("version", None)
    _write(change / "prod", "shoot-prod.yaml", prod)
    team = yaml.safe_load((change / "namespacedcloudprofile.yaml").read_text())
    team["spec"].pop("kubernetes")
    _write(change, "namespacedcloudprofile.yaml", team)
    code, output = await _review(str(change / "cloudprofile.yaml"), str(change / "namespacedcloudprofile.yaml"),
                                 str(change / "prod"), "--kubeconfig", str(kubeconfig), "--output", "json")  # fmt: skip
    results = json.loads(output)
    assert [(r["request"]["name"], r["request"]["operation"], r["response"]["allowed"]) for r in results] == [
        ("aws", "UPDATE", True),
        ("aws-team", "UPDATE", True),
        ("prod", "UPDATE", True),
    ], output
    assert code == 0
    old = results[2]["request"]["oldObject"]
    assert old["metadata"]["uid"] == "uid-3" and old["spec"]["kubernetes"]["version"] == "1.33.5"
    assert results[2]["request"]["object"]["status"] == {"observedGeneration": 3}  # the apply keeps the status


async def test_all_judges_unchanged_objects_as_re_applies(
    aiohttp_server: Any, tmp_path: Path, fake: FakeApiServer
) -> None:
    kubeconfig = await _serve(fake, aiohttp_server, tmp_path)
    code, output = await _review(str(LANDSCAPE / "shoot-dev.yaml"), "--kubeconfig", str(kubeconfig), "--all")
    assert code == 0, output
    assert _headers(output) == ["ALLOWED Shoot/garden-team/dev as UPDATE"]


async def test_kinds_the_view_does_not_track_are_read_one_by_one_and_unnamespaced_objects_go_to_the_context_namespace(
    aiohttp_server: Any, tmp_path: Path, fake: FakeApiServer
) -> None:
    osc = _objects(OSC)[0]
    fake.put(_stored(osc, "uid-osc"))
    unnamespaced = copy.deepcopy(osc)
    del unnamespaced["metadata"]["namespace"]
    _write(tmp_path / "in", "osc.yaml", unnamespaced)
    kubeconfig = await _serve(fake, aiohttp_server, tmp_path)
    code, output = await _review(str(OSC), str(tmp_path / "in"), "--kubeconfig", str(kubeconfig), "--all")
    # The example's `spec.cri` is no API field: kubectl's strict field validation refuses the apply itself.
    assert 'strict decoding error: unknown field "spec.cri"' in output
    code, output = await _review(
        str(OSC), str(tmp_path / "in"), "--kubeconfig", str(kubeconfig), "--all", "--field-validation", "Ignore"
    )
    assert _headers(output)[:2] == [
        "ALLOWED OperatingSystemConfig/shoot--dev--crazy/pool-a-original as UPDATE",  # stored so: ratcheted
        "DENIED OperatingSystemConfig/default/pool-a-original as CREATE",
    ], output
    assert "Warning: unchanged, not enforced: spec.files[3].path: Duplicate value" in output
    assert code == 1
    assert ("operatingsystemconfigs", "shoot--dev--crazy", "pool-a-original") in fake.gets
    assert ("operatingsystemconfigs", "default", "pool-a-original") in fake.gets


async def test_a_kind_the_cluster_does_not_serve_exits_3(
    aiohttp_server: Any, tmp_path: Path, fake: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.unserved.add("operatingsystemconfigs")
    kubeconfig = await _serve(fake, aiohttp_server, tmp_path)
    code, output = await _review(str(OSC), "--kubeconfig", str(kubeconfig), "--output", "junit")
    assert code == 3
    message = capsys.readouterr().err.strip()
    assert message == (
        "gardener-webhook review: --kubeconfig: get operatingsystemconfigs.extensions.gardener.cloud "
        'shoot--dev--crazy/pool-a-original from --kubeconfig: no matches for kind "OperatingSystemConfig" in version '
        '"extensions.gardener.cloud/v1alpha1" (the cluster does not serve it)'
    )
    assert "<error" in output and "no matches for kind" in output  # the CI report shows it too


async def test_a_cluster_that_refuses_exits_3(
    aiohttp_server: Any, tmp_path: Path, fake: FakeApiServer, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.bearer_tokens = frozenset({"the-right-one"})
    kubeconfig = await _serve(fake, aiohttp_server, tmp_path)
    code, _ = await _review(str(LANDSCAPE), "--kubeconfig", str(kubeconfig))
    assert code == 3
    assert capsys.readouterr().err.strip() == (
        "gardener-webhook review: --kubeconfig: list cloudprofiles.core.gardener.cloud from --kubeconfig: "
        "HTTP 401 Unauthorized: Unauthorized"
    )


def test_an_unreachable_cluster_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    kubeconfig = write_kubeconfig(tmp_path, f"http://127.0.0.1:{port}")
    code = main(["review", str(LANDSCAPE), "--kubeconfig", str(kubeconfig)], out=io.StringIO())
    assert code == 3
    err = capsys.readouterr().err
    assert "list cloudprofiles.core.gardener.cloud from --kubeconfig:" in err and "Connection refused" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--base", "HEAD"], "drop --base, --base-dir and --context"),
        (["--context", str(LANDSCAPE)], "drop --base, --base-dir and --context"),
        (["--operation", "UPDATE"], "find each object's operation themselves"),
        (["--in-cluster"], "cannot be combined"),
    ],
)
def test_usage_errors(tmp_path: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = write_kubeconfig(tmp_path, "http://127.0.0.1:1")
    code = main(["review", str(LANDSCAPE), "--kubeconfig", str(kubeconfig), *argv], out=io.StringIO())
    assert code == 2
    assert message in capsys.readouterr().err


def _with_last_applied(stored: dict[str, Any], last: dict[str, Any]) -> dict[str, Any]:
    return {**stored, "metadata": {**stored["metadata"], "annotations": {LAST_APPLIED: json.dumps(last)}}}


def test_applied_is_kubectls_three_way_merge() -> None:
    last = {"metadata": {"name": "a"}, "spec": {"purpose": "evaluation", "region": "eu-1", "workers": [
        {"name": "p1", "maximum": 2}, {"name": "p2", "maximum": 1}]}}  # fmt: skip
    stored = _with_last_applied(
        {
            "metadata": {"name": "a", "uid": "u"},
            "spec": {
                "purpose": "evaluation",
                "region": "eu-1",
                "networking": {"type": "calico"},  # defaulted by the API server
                "workers": [{"name": "p1", "maximum": 2, "maxSurge": 1}, {"name": "p2", "maximum": 1}],
                "zones": ["a", "b"],
            },
            "status": {"observedGeneration": 1},
        },
        last,
    )
    manifest = {"metadata": {"name": "a"}, "spec": {"region": "eu-2", "zones": ["c"], "workers": [
        {"name": "p3"}, {"name": "p1", "maximum": 3}]}}  # fmt: skip
    result = applied(stored, manifest)
    assert result["spec"] == {
        "region": "eu-2",  # set by the manifest
        "networking": {"type": "calico"},  # never applied: kept
        "workers": [{"name": "p3"}, {"name": "p1", "maximum": 3, "maxSurge": 1}],  # merged by name, p2 dropped
        "zones": ["c"],  # other lists are replaced
    }  # purpose: applied before, dropped now: removed
    assert result["status"] == {"observedGeneration": 1} and result["metadata"]["uid"] == "u"
    assert stored["spec"]["region"] == "eu-1"  # the inputs are not changed


def test_re_applying_the_last_applied_manifest_changes_nothing() -> None:
    """kubectl rewrites its annotation on every apply: the same manifest again leaves the stored object as it is
    (`kubectl apply` answers "unchanged"), an edited one carries the annotation of the edit."""
    manifest = {"apiVersion": "v1", "kind": "X", "metadata": {"name": "a", "labels": {"l": "1"}}, "spec": {"n": 1}}
    stored = copy.deepcopy(manifest)
    stored["metadata"].update(uid="u", resourceVersion="7", creationTimestamp="2026-01-01T00:00:00Z")
    stored["metadata"]["annotations"] = {"other": "kept", LAST_APPLIED: last_applied_configuration(manifest)}
    assert applied(stored, manifest) == stored
    edited = {**manifest, "spec": {"n": 2}}
    result = applied(stored, edited)
    assert result["metadata"]["annotations"] == {"other": "kept", LAST_APPLIED: last_applied_configuration(edited)}
    assert json.loads(result["metadata"]["annotations"][LAST_APPLIED])["spec"] == {"n": 2}


def test_the_last_applied_configuration_is_written_as_kubectl_writes_it() -> None:
    """Go's encoding/json of the unstructured manifest: keys sorted, no spaces, HTML characters escaped, an empty
    annotations map added, the old annotation left out (tests/e2e compares it with a real kubectl's)."""
    manifest = {"kind": "X", "metadata": {"name": "a", "annotations": {LAST_APPLIED: "{}"}}, "b": "<&>", "a": 2.0}
    assert last_applied_configuration(manifest) == (
        '{"a":2,"b":"\\u003c\\u0026\\u003e","kind":"X","metadata":{"annotations":{},"name":"a"}}\n'
    )


def test_without_a_last_applied_configuration_nothing_is_removed() -> None:
    stored = {"metadata": {"name": "a"}, "spec": {"purpose": "evaluation", "region": "eu-1"}}
    manifest = {"metadata": {"name": "a"}, "spec": {"region": "eu-1"}}
    result = applied(stored, manifest)
    assert result["spec"] == stored["spec"]  # purpose stays: nothing says the manifest ever set it
    assert result["metadata"] == {"name": "a", "annotations": {LAST_APPLIED: last_applied_configuration(manifest)}}
    broken = _with_last_applied(stored, {})
    broken["metadata"]["annotations"][LAST_APPLIED] = "{not json"
    assert applied(broken, {"spec": {}})["spec"] == stored["spec"]
