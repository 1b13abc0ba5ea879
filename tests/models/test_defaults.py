"""Gardener's v1beta1 Shoot defaults (webhook/models/defaults.py default_shoot) that the Shoot rules read."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import shoot, shoot_dict, worker_dict
from webhook.models.defaults import default_shoot
from webhook.models.shoot import WorkerSystemComponents
from webhook.models.shoot_kubernetes import KubeletConfig


@pytest.mark.parametrize(
    ("fields", "surge", "unavailable"),
    [
        pytest.param({}, 1, 0, id="rolling"),
        pytest.param({"updateStrategy": "AutoInPlaceUpdate"}, 0, 1, id="auto-in-place"),
        pytest.param({"updateStrategy": "ManualInPlaceUpdate"}, None, None, id="manual-in-place-gets-none"),
        pytest.param({"maxSurge": "50%", "maxUnavailable": 2}, "50%", 2, id="given-values-kept"),
    ],
)
def test_rolling_update_budget(fields: dict[str, Any], surge: object, unavailable: object) -> None:
    (worker,) = shoot(shoot_dict(worker_dict(**fields))).spec.provider.workers
    assert (worker.max_surge, worker.max_unavailable) == (surge, unavailable)
    assert worker.system_components == WorkerSystemComponents(allow=True)


def test_system_components_given_are_kept() -> None:
    (worker,) = shoot(shoot_dict(worker_dict(systemComponents={"allow": False}))).spec.provider.workers
    assert not worker.system_components_allowed


def test_shoot_kubelet_is_created_for_shoots_with_workers() -> None:
    kubelet = shoot(shoot_dict()).spec.kubernetes.kubelet
    assert kubelet == KubeletConfig(
        fail_swap_on=True, image_gc_high_threshold_percent=50, image_gc_low_threshold_percent=40
    )
    raw = shoot_dict(
        kubernetes={"version": "1.33.2", "kubelet": {"failSwapOn": False, "imageGCLowThresholdPercent": 10}}
    )
    given = shoot(raw).spec.kubernetes.kubelet
    assert given is not None
    assert (given.fail_swap_on, given.image_gc_high_threshold_percent, given.image_gc_low_threshold_percent) == (
        False,
        50,
        10,
    )


def test_workerless_shoots_get_no_kubelet() -> None:
    raw = shoot_dict(provider={"type": "local", "workers": []})
    assert shoot(raw).spec.kubernetes.kubelet is None


def test_pool_kubelet_gets_only_fail_swap_on() -> None:
    raw = shoot_dict(worker_dict(kubernetes={"kubelet": {"maxPods": 64}}))
    (worker,) = shoot(raw).spec.provider.workers
    assert worker.kubernetes is not None
    assert worker.kubernetes.kubelet == KubeletConfig(max_pods=64, fail_swap_on=True)


def test_defaulting_is_idempotent() -> None:
    once = shoot(shoot_dict(worker_dict(kubernetes={"kubelet": {}})))
    assert default_shoot(once) is once
