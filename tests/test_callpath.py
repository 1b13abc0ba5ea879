"""A request passes the floors once, in order, and nothing calls back into judging (tests/callpath.py)."""

from __future__ import annotations

import pytest

from tests.callpath import callbacks, examples, path, trace


@pytest.mark.parametrize("name", list(examples()))
def test_a_request_passes_wire_judge_kinds_validator_policy_outcome_once(name: str) -> None:
    entries = trace(examples()[name])
    # The body's envelope is parsed by the caller, its objects on demand by judging, with the kind's list paths.
    assert path(entries) == ["wire", "judge", "wire", "kinds", "validator", "policy", "outcome"]
    assert callbacks(entries) == []
