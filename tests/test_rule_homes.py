"""Every rule family has one home, and the family -> file table of docs/development/layout.md says which
(tests/rule_homes.py: the family
of an id is everything before its last `-NNN`)."""

from __future__ import annotations

import pytest

from tests.rule_homes import PAGE, SOURCE_URL, family, family_definitions, readme_table, rule_definitions, table
from webhook.validators import ALL_RULES


def test_every_registered_rule_is_defined_in_exactly_one_module() -> None:
    definitions = rule_definitions()
    assert {rule_id: files for rule_id, files in definitions.items() if len(files) > 1} == {}
    assert sorted(set(ALL_RULES) - set(definitions)) == []


def test_every_rule_family_is_defined_in_exactly_one_module() -> None:
    """A family's ids sit in one module (or one sub-package's __init__), never spread over several."""
    families = family_definitions(rule_definitions())
    assert {name: files for name, files in families.items() if len(files) > 1} == {}


@pytest.mark.parametrize(
    ("rule_id", "expected"),
    [
        ("SH-K8S-004", "SH-K8S"),
        ("SH-ADM-ZONE-001", "SH-ADM-ZONE"),
        ("SH-ADM-K8S-003", "SH-ADM-K8S"),
        ("SH-CRI-POL-001", "SH-CRI-POL"),
        ("NCP-001", "NCP"),
        ("NCP-ADM-000", "NCP-ADM"),
        ("VS-GARDENER-002", "VS-GARDENER"),
        ("CLUSTER", "CLUSTER"),
    ],
)
def test_a_family_is_the_id_before_its_last_number(rule_id: str, expected: str) -> None:
    assert family(rule_id) == expected


def test_a_family_split_over_two_files_is_reported() -> None:
    definitions = {"A-001": ["a.py"], "A-002": ["b.py"], "B-001": ["a.py"], "B-X-001": ["c.py"]}
    assert family_definitions(definitions) == {"A": ["a.py", "b.py"], "B": ["a.py"], "B-X": ["c.py"]}


def test_the_readme_table_names_each_rules_file() -> None:
    definitions = rule_definitions()
    expected = table({rule_id: definitions[rule_id][0] for rule_id in ALL_RULES})
    assert readme_table(PAGE.read_text(encoding="utf-8")) == expected, (
        "docs/development/layout.md's rule table is stale: run `.venv/bin/python -m tests.rule_homes --write`"
    )


def test_one_family_in_one_file_shares_a_row_of_runs() -> None:
    homes = {"A-001": "a.py", "A-002": "a.py", "A-004": "a.py", "A-005": "a.py", "A-007": "a.py"}
    homes |= {"B-001": "b.py", "B-X-001": "b.py", "B-X-002": "b.py", "C": "c.py", "D-001": "d.py", "D-002": "e.py"}
    assert table(homes).splitlines()[3:-1] == [
        f"| `A-001`…`002`, `A-004`…`005`, `A-007` | [`a.py`]({SOURCE_URL}/a.py) |",
        f"| `B-001` | [`b.py`]({SOURCE_URL}/b.py) |",
        f"| `B-X-001`…`002` | [`b.py`]({SOURCE_URL}/b.py) |",
        f"| `C` | [`c.py`]({SOURCE_URL}/c.py) |",
        f"| `D-001` | [`d.py`]({SOURCE_URL}/d.py) |",
        f"| `D-002` | [`e.py`]({SOURCE_URL}/e.py) |",
    ]
