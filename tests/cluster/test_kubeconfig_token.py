"""A kubeconfig's bearer token rotated in place is used without a restart (virtual-garden token kubeconfigs).

In a gardener-operator landscape the view reads the virtual garden through a kubeconfig whose token Gardener's
token-requestor renews in place (a Secret volume, or a `tokenFile` on it), as a virtual garden's view needs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cluster.fake_apiserver import FakeApiServer, cloud_profile_obj, shoot_obj
from tests.cluster.test_live import FAST, eventually, names
from webhook.cluster.live import LiveView, Source, client_from_kubeconfig


def _kubeconfig(directory: Path, server: str, user: dict[str, Any]) -> Path:
    path = directory / "kubeconfig"
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "garden", "cluster": {"server": server}}],
        "users": [{"name": "webhook", "user": user}],
        "contexts": [{"name": "garden", "context": {"cluster": "garden", "user": "webhook"}}],
        "current-context": "garden",
    }
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def _bearer(client: Any) -> str | None:
    return client.configuration.get_api_key_with_prefix("BearerToken")  # type: ignore[no-any-return]


@pytest.mark.parametrize("style", ["token", "tokenFile"])
def test_a_rotated_token_is_read_again(tmp_path: Path, style: str) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("first", encoding="utf-8")
    user = {"token": "first"} if style == "token" else {"tokenFile": str(token_file)}
    path = _kubeconfig(tmp_path, "https://127.0.0.1:1", user)
    client = client_from_kubeconfig(path, reload_seconds=0)
    assert _bearer(client) == "Bearer first"
    if style == "token":
        _kubeconfig(tmp_path, "https://127.0.0.1:1", {"token": "second"})
    else:
        token_file.write_text("second", encoding="utf-8")
    assert _bearer(client) == "Bearer second"


def test_the_token_in_use_is_kept_while_the_kubeconfig_cannot_be_read(tmp_path: Path) -> None:
    path = _kubeconfig(tmp_path, "https://127.0.0.1:1", {"token": "first"})
    client = client_from_kubeconfig(path, reload_seconds=0)
    path.write_text("{not yaml: [", encoding="utf-8")
    assert _bearer(client) == "Bearer first"
    path.unlink()
    assert _bearer(client) == "Bearer first"


def test_the_token_is_not_read_again_within_the_reload_period(tmp_path: Path) -> None:
    path = _kubeconfig(tmp_path, "https://127.0.0.1:1", {"token": "first"})
    client = client_from_kubeconfig(path, reload_seconds=3600)
    _kubeconfig(tmp_path, "https://127.0.0.1:1", {"token": "second"})
    assert _bearer(client) == "Bearer first"


async def test_the_view_keeps_reading_after_the_token_is_rotated(tmp_path: Path, aiohttp_server: Any) -> None:
    cluster = FakeApiServer(bearer_tokens=frozenset({"first"}))
    cluster.put(cloud_profile_obj("local"))
    await cluster.serve(aiohttp_server)
    token_file = tmp_path / "token"
    token_file.write_text("first", encoding="utf-8")
    client = client_from_kubeconfig(
        _kubeconfig(tmp_path, cluster.url, {"tokenFile": str(token_file)}), reload_seconds=0
    )
    view = LiveView([Source("virtual-garden", client)], backoff=FAST)
    await view.start()
    try:
        await eventually(lambda: view.synced, "the first list with the first token")
        cluster.bearer_tokens = frozenset({"second"})  # the old token is revoked …
        token_file.write_text("second", encoding="utf-8")  # … and its successor written in place
        cluster.break_watches("Shoot")
        cluster.put(shoot_obj("garden-a", "new", profile="local"))
        await eventually(
            lambda: names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-a/new"],
            "the Shoot created after the rotation",
        )
    finally:
        await view.stop()
