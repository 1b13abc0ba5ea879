"""Shared fixtures: a session CA (trustme) and settings; HTTP fixtures live in tests/server/conftest.py."""

from __future__ import annotations

import pytest
import trustme


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()
