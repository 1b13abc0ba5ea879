"""The differential against Gardener itself (tests/e2e/gardener_differential.py), at least 5 000 requests a run."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.e2e import gardener_differential as differential
from tests.e2e import landscape
from tests.e2e.conftest import Webhook
from tests.e2e.environment import Environment

COUNT: Final = 5000
SEED: Final = 2026


def _stored(env: Environment, kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    args = ["get", kind, name, "-o", "json", *(["-n", namespace] if namespace else [])]
    return json.loads(env.kubectl(*args).stdout)


@pytest.fixture(scope="module")
def cluster_objects(e2e_env: Environment) -> Iterator[list[dict[str, Any]]]:
    """The landscape the cases meet: extensions registered, the Project, profile aws and NamespacedCloudProfile
    aws-team as stored. The NamespacedCloudProfile and the fixtures' profile are removed afterwards: the session's
    other tests meet a landscape where no NamespacedCloudProfile holds a version of aws (gardener-apiserver would
    refuse removing it for that itself)."""
    env = e2e_env
    env.kubectl("create", "namespace", landscape.PROJECT_NAMESPACE, check=False)
    env.kubectl("create", "namespace", differential.OSC_NAMESPACE, check=False)
    docs = [*landscape.project_objects(), landscape.objects("cloudprofile.yaml")[0], differential.fixture_profile()]
    env.kubectl("apply", "-f", "-", input=yaml.safe_dump_all(docs))
    env.kubectl("apply", "-f", "-", input=yaml.safe_dump(landscape.objects("namespacedcloudprofile.yaml")[0]))
    yield [
        _stored(env, "cloudprofile", "aws"),
        _stored(env, "namespacedcloudprofile", "aws-team", landscape.PROJECT_NAMESPACE),
        _stored(env, "cloudprofile", differential.FIXTURE_PROFILE),
    ]
    env.kubectl("delete", "namespacedcloudprofile", "aws-team", "-n", landscape.PROJECT_NAMESPACE, "--wait=true")
    env.kubectl("delete", "cloudprofile", differential.FIXTURE_PROFILE, "--wait=true")


def test_the_product_agrees_with_gardener_on_generated_requests(
    e2e_env: Environment, webhook: Webhook, cluster_objects: list[dict[str, Any]], tmp_path: Path
) -> None:
    env = e2e_env
    gardener = differential.Client(env.gardener_url, env.gardener_ca_file, env.admin_cert)
    kube = differential.Client(env.kube_url, env.ca_file, env.admin_cert)
    judged_before = len(webhook.judged())
    started = time.monotonic()
    report = differential.run(gardener, kube, cluster_objects, COUNT, SEED)
    print(f"\n{len(report.results)} requests in {differential.elapsed(started)}\n{report.table()}")
    # The break-glass group kept the webhook out of every request: the answers are Gardener's alone.
    assert len(webhook.judged()) == judged_before
    assert len(report.results) >= COUNT
    written = differential.write_unexplained(report, tmp_path / "unexplained")
    assert not written, f"{len(written)} unexplained disagreements, requests in {tmp_path / 'unexplained'}"
