"""An OperatingSystemConfig's kubelet configuration files are read once per content (`cgroup`, through the caches):
the answers are those of the plain path, and the store is used only where it may be.

Generated streams of OSC CREATEs and UPDATEs carry kubelet files in both encodings, with and without a
cgroupDriver, as JSON, broken (bad base64, bad YAML, another kind), and larger than the store keeps; each answer
with the caches is compared with the answer without them.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.validators.osc_cases import kubelet_config, kubelet_file, osc_dict, plain_file
from webhook.caching.caches import Caches
from webhook.cluster.static import StaticView
from webhook.judging.judge import Outcome, judge
from webhook.settings import Settings
from webhook.validators.operatingsystemconfig import cgroup

NOW: Final = datetime(2026, 3, 1, tzinfo=UTC)
SETTINGS: Final = Settings()
VIEW: Final = StaticView.from_objects([], source="test")
LARGE: Final = "#" + "x" * (20 << 10) + "\n"  # pushes a file's data over what the store keeps


def _inline(text: str, *, b64: bool) -> dict[str, Any]:
    data = base64.b64encode(text.encode()).decode() if b64 else text
    return {
        "path": "/var/lib/kubelet/config/kubelet",
        "content": {"inline": {"encoding": "b64" if b64 else "", "data": data}},
    }


_FILES: Final = st.one_of(
    st.builds(kubelet_file, st.sampled_from(["systemd", "cgroupfs", None, "bogus"]), b64=st.booleans(),
              as_json=st.booleans()),
    st.builds(lambda driver, b64: _inline(LARGE + kubelet_config(driver), b64=b64),
              st.sampled_from(["systemd", "cgroupfs"]), st.booleans()),
    st.sampled_from([
        _inline("kind: KubeletConfiguration\ncgroupDriver: [systemd\n", b64=True),  # YAML that does not parse
        _inline("kind: KubeletConfigurationList\ncgroupDriver: cgroupfs\n", b64=False),  # another kind
        _inline("KubeletConfiguration", b64=False),  # a scalar, not a mapping
        {"path": "/k", "content": {"inline": {"encoding": "b64", "data": "S3ViZWxldENvbmZpZ3VyYXRpb24=%"}}},
        plain_file("/etc/a"),
    ]),
)  # fmt: skip


def _review(obj: dict[str, Any], old: dict[str, Any] | None, uid: str) -> bytes:
    request = {
        "uid": uid,
        "kind": {"group": "extensions.gardener.cloud", "version": "v1alpha1", "kind": "OperatingSystemConfig"},
        "resource": {"group": "extensions.gardener.cloud", "version": "v1alpha1", "resource": "operatingsystemconfigs"},
        "namespace": "shoot--dev--crazy",
        "operation": "UPDATE" if old is not None else "CREATE",
        "userInfo": {"username": "system:serviceaccount:garden:gardenlet"},
        "object": obj,
        "oldObject": old,
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def _answer(body: bytes, caches: Caches | None) -> tuple[Any, ...]:
    outcome: Outcome = judge(body, view=VIEW, settings=SETTINGS, now=NOW, caches=caches)
    return outcome.review, outcome.entries, outcome.full_warnings, outcome.code


@given(streams=st.lists(st.tuples(st.lists(_FILES, min_size=1, max_size=4), st.booleans()), min_size=1, max_size=6))
def test_a_stream_of_oscs_gets_the_answers_each_gets_alone(streams: list[tuple[list[dict[str, Any]], bool]]) -> None:
    caches = Caches()
    old: dict[str, Any] | None = None
    for step, (files, update) in enumerate(streams):
        obj = osc_dict(files=files)
        body = _review(obj, old if update else None, f"uid-{step}")
        assert _answer(body, caches) == _answer(body, None), step
        old = obj


def test_each_kubelet_configuration_is_read_once_and_a_large_one_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    plain = cgroup._kubelet_config

    def counted(encoding: str, data: str) -> Any:
        read.append(len(data))
        return plain(encoding, data)

    monkeypatch.setattr(cgroup, "_kubelet_config", counted)
    caches = Caches()
    small, large = kubelet_file("cgroupfs"), _inline(LARGE + kubelet_config("cgroupfs"), b64=True)
    for step in range(5):
        body = _review(osc_dict(files=[small, large, plain_file(f"/etc/{step}")]), None, f"uid-{step}")
        assert _answer(body, caches) == _answer(body, None)
    kept = len(small["content"]["inline"]["data"])
    assert read.count(kept) == 1 + 5  # once with the caches, and on each plain judgement
    assert sum(1 for n in read if n > 16 << 10) == 2 * 5  # never kept: read by both paths on every request
