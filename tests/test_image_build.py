"""tools/image/build.py without building: what makes an image current, and what its tag is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.image import build
from webhook import __version__


def test_the_image_is_tagged_with_the_package_version() -> None:
    assert build.image_name() == f"localhost/gardener-webhook:{__version__}"


def test_the_context_hash_covers_the_base_and_every_copied_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in build.CONTEXT:
        path = tmp_path / name
        if name == "webhook":
            (path / "sub").mkdir(parents=True)
            (path / "sub" / "module.py").write_text("x = 1\n")
            (path / "__pycache__").mkdir()
            (path / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"\0")
        else:
            path.write_text(name)
    monkeypatch.setattr(build, "ROOT", tmp_path)
    first = build.context_hash("sha256:base")
    assert build.context_hash("sha256:base") == first
    assert build.context_hash("sha256:other-base") != first
    (tmp_path / "webhook" / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"\1")
    assert build.context_hash("sha256:base") == first  # byte code is made in the image, not copied
    (tmp_path / "webhook" / "sub" / "module.py").write_text("x = 2\n")
    changed = build.context_hash("sha256:base")
    assert changed != first
    (tmp_path / "requirements.lock").write_text("other")
    assert build.context_hash("sha256:base") != changed


def test_the_context_is_what_the_dockerfile_copies() -> None:
    copied = set()
    for line in (build.ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            copied |= {source.rstrip("/") for source in line.split()[1:-1]}
    assert copied | {"Dockerfile"} == set(build.CONTEXT)
