"""Shared fixtures: a session CA (trustme) and settings; HTTP fixtures live in tests/server/conftest.py.

Hypothesis profiles: `ci` (the default: a bounded, derandomized number of examples, so `make test` stays quick and
repeatable) and `fuzz` (`make fuzz`, HYPOTHESIS_PROFILE=fuzz: many random examples).
"""

from __future__ import annotations

import os

import pytest
import trustme
from hypothesis import HealthCheck, settings

_SLOW_IS_FINE = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=100, derandomize=True, deadline=None, database=None, print_blob=True,
                          suppress_health_check=_SLOW_IS_FINE)  # fmt: skip
settings.register_profile(
    "fuzz", max_examples=2000, deadline=None, print_blob=True, suppress_health_check=_SLOW_IS_FINE
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()
