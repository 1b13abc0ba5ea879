"""Every rule id has one home, and the README's id -> file table says which."""

from __future__ import annotations

from tests.rule_homes import README, readme_table, rule_definitions, table
from webhook.validators import ALL_RULES


def test_every_registered_rule_is_defined_in_exactly_one_module() -> None:
    definitions = rule_definitions()
    assert {rule_id: files for rule_id, files in definitions.items() if len(files) > 1} == {}
    assert sorted(set(ALL_RULES) - set(definitions)) == []


def test_the_readme_table_names_each_rules_file() -> None:
    definitions = rule_definitions()
    expected = table({rule_id: definitions[rule_id][0] for rule_id in ALL_RULES})
    assert readme_table(README.read_text(encoding="utf-8")) == expected, (
        "README.md's rule table is stale: run `.venv/bin/python -m tests.rule_homes --write`"
    )


def test_runs_of_one_family_in_one_file_share_a_row() -> None:
    homes = {"A-001": "a.py", "A-002": "a.py", "A-003": "b.py", "A-005": "b.py", "B-001": "a.py", "C": "c.py"}
    assert table(homes).splitlines()[3:-1] == [
        "| `A-001`…`002` | [`a.py`](a.py) |",
        "| `A-003` | [`b.py`](b.py) |",
        "| `A-005` | [`b.py`](b.py) |",
        "| `B-001` | [`a.py`](a.py) |",
        "| `C` | [`c.py`](c.py) |",
    ]
