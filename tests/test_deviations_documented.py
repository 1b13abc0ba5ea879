"""Every row of the differential's deviations table (tests/e2e/gardener_differential.py) names a section of
docs/design.md that exists: a deliberate difference from Gardener is written down where the design says so."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from tests.e2e.gardener_differential import DEVIATIONS

DOCS: Final = Path(__file__).resolve().parents[1] / "docs"
DESIGN: Final = (DOCS / "design.md").read_text()
E2E: Final = (DOCS / "e2e.md").read_text()


def _section(number: str) -> str:
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", DESIGN, flags=re.MULTILINE | re.DOTALL)
    assert match is not None, f"docs/design.md has no section {number}"
    return match[0]


DELIBERATE: Final = [d for d in DEVIATIONS if not d.defect]
DEFECTS: Final = [d for d in DEVIATIONS if d.defect]


def test_each_known_defect_is_listed_in_the_e2e_document() -> None:
    """A difference that is no decision is a defect to fix, listed in docs/e2e.md "Known defects" while it lasts."""
    known = E2E.split("### Known defects", 1)
    assert len(known) == 2, "docs/e2e.md has no section Known defects"
    for deviation in DEFECTS:
        assert f"**{deviation.name}**" in known[1], deviation.name


@pytest.mark.parametrize("deviation", DELIBERATE, ids=[d.name for d in DELIBERATE])
def test_each_deviation_names_a_section_of_the_design(deviation: object) -> None:
    section = getattr(deviation, "section")
    match = re.fullmatch(r"§(\d+)(?: (.+))?", section)
    assert match is not None, section
    text = _section(match[1])
    for title in (match[2] or "").split("; "):
        if title and match[1] == "5":
            assert f"**{title}" in text, f"docs/design.md §5 has no bullet {title!r}"
        elif title:
            assert title in text.splitlines()[0], f"docs/design.md §{match[1]} is not {title!r}"
    assert getattr(deviation, "reason")
