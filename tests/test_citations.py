"""Every document the code cites is in the repository, and every citation of docs/ resolves.

Scanned: the text files under webhook/, tests/ and docs/, and README.md (the code's comments, docstrings, Rule
sources and the tests' expectations), plus the rule sources as the program prints them (Rule.source, the skew
policies' sources). Two kinds of check:

Citations of documents the repository does not have fail (`FORBIDDEN`; case-insensitive except `DESIGN`):
- `DESIGN.md` and `DESIGN §N` (upper case; `docs/design.md` is this repository's): the design is docs/design.md;
- `gardener-rules.md`: the rules catalogue is docs/rules.md;
- `STYLE.md`, `STYLE R<n>`: the style guide is not part of the product;
- `../shared`, `/work/shared`: a folder outside the repository;
- `seed 00N`, `seeds 00N`: the requirements are docs/requirements.md;
- `issue N`, `issues N`, `issue #N` (a tracker this repository does not have), except upstream references, which
  name Gardener's tracker: `gardener issue #N`, `gardener issues N and M` (preceded by "gardener "), and
  `gardener/gardener#N` (which the pattern does not match at all).

Citations of docs/ must resolve (`CITATION`), also of pages in its folders (`docs/guides/review.md`; a cited page in a
folder that does not exist is taken to be another project's, as Gardener's `docs/concepts/operator.md`):
- `docs/<name>.md`: the file exists;
- `docs/<name>.md §X` (and `, §Y` right after it): a heading of that file starts with `X.` or `X ` (`## 5. …`,
  `### A.8 …`); `§2 step 4` cites section 2;
- `docs/<name>.md "Heading"` (and `, "Other"` / `and "Other"` right after it): a heading of that file has exactly
  that text (Markdown emphasis and backticks removed);
- `docs/<name>.md#anchor`, and relative links `(<name>.md#anchor)` in the top folder of docs/: GitHub's anchor of
  a heading of that file (lower case, punctuation dropped, spaces to hyphens, `-1`, `-2` … for repeats). The links
  of the site's pages are checked, anchors included, by its build with `--strict` (tests/test_site.py).

Last, docs/rules.md lists every rule id with the mode, 422/403 and source the code gives it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Final

import pytest

from webhook.domain import skew
from webhook.validators import ALL_RULES

ROOT: Final = Path(__file__).resolve().parents[1]
DOCS: Final = ROOT / "docs"
SUFFIXES: Final = frozenset({".py", ".md", ".yaml", ".yml", ".txt", ".json", ".toml", ".cfg", ".ini"})

FORBIDDEN: Final = {
    "DESIGN.md (docs/design.md)": re.compile(r"\bDESIGN\.md\b"),
    "DESIGN § (docs/design.md §)": re.compile(r"\bDESIGN\s*§"),
    "gardener-rules.md (docs/rules.md)": re.compile(r"gardener-rules\.md", re.IGNORECASE),
    "STYLE.md": re.compile(r"\bSTYLE\.md\b|\bSTYLE R\d", re.IGNORECASE),
    "../shared": re.compile(r"(?:\.\./|/work/)shared\b"),
    "seed document number (docs/requirements.md)": re.compile(r"\bseeds?\s+0\d\d\b", re.IGNORECASE),
    "issue number": re.compile(r"(?<!gardener )\bissues?\s*#?\s*\d+", re.IGNORECASE),
}

_FILE: Final = r"docs/(?P<file>(?:[\w-]+/)*[\w.-]+?\.md)"
SECTION: Final = re.compile(
    _FILE + r"\s*§\s*(?P<first>[0-9A-Z](?:\.\d+)*)(?P<more>(?:\s*(?:,|and)\s*§\s*[0-9A-Z](?:\.\d+)*)*)"
)
QUOTED: Final = re.compile(_FILE + r'\s+"(?P<first>[^"\n]+)"(?P<more>(?:\s*(?:,|and)\s*"[^"\n]+")*)')
ANCHOR: Final = re.compile(_FILE + r"#(?P<anchor>[\w-]+)")
ANY_FILE: Final = re.compile(r"docs/(?P<file>(?:[\w-]+/)*[\w.-]+?\.md)\b")
RELATIVE_LINK: Final = re.compile(r"\]\((?P<file>[\w.-]+\.md)(?:#(?P<anchor>[\w-]+))?\)")


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for top in ("webhook", "tests", "docs"):
        files += sorted(
            p
            for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts and p != Path(__file__)
        )
    return files


@cache
def headings(name: str) -> tuple[str, ...]:
    """The heading texts of docs/<name>, outside code fences, without Markdown emphasis or backticks."""
    found: list[str] = []
    fenced = False
    for line in (DOCS / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
            found.append(re.sub(r"[*_`]", "", m[1]))
    return tuple(found)


def github_anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


@cache
def anchors(name: str) -> frozenset[str]:
    seen: dict[str, int] = {}
    result: set[str] = set()
    for heading in headings(name):
        base = github_anchor(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return frozenset(result)


def _upstream(name: str) -> bool:
    """Whether a cited docs/ path that this repository does not have is another project's: a page in a folder
    (`docs/concepts/operator.md`, `docs/extensions/registration.md` are gardener/gardener's). This site's own pages
    in folders are cited as they exist, and its build with --strict checks the links between them."""
    return "/" in name


def _sections(first: str, more: str) -> list[str]:
    return [first, *re.findall(r"§\s*([0-9A-Z](?:\.\d+)*)", more)]


def _quoted(first: str, more: str) -> list[str]:
    return [first, *re.findall(r'"([^"\n]+)"', more)]


def broken_citations(text: str, *, relative_to_docs: bool = False) -> Iterator[str]:
    """Each citation of docs/ in `text` that does not resolve, described."""
    for m in ANY_FILE.finditer(text):
        if not (DOCS / m["file"]).is_file() and not _upstream(m["file"]):
            yield f"{m[0]}: no such file"
    for m in SECTION.finditer(text):
        if (DOCS / m["file"]).is_file():
            for number in _sections(m["first"], m["more"]):
                if not any(h.startswith((f"{number}.", f"{number} ")) for h in headings(m["file"])):
                    yield f"docs/{m['file']} §{number}: no such section"
    for m in QUOTED.finditer(text):
        if (DOCS / m["file"]).is_file():
            for heading in _quoted(m["first"], m["more"]):
                if heading not in headings(m["file"]):
                    yield f'docs/{m["file"]} "{heading}": no such heading'
    for m in ANCHOR.finditer(text):
        if (DOCS / m["file"]).is_file() and m["anchor"] not in anchors(m["file"]):
            yield f"{m[0]}: no such anchor"
    if relative_to_docs:
        for m in RELATIVE_LINK.finditer(text):
            if not (DOCS / m["file"]).is_file():
                if not (DOCS / m["file"]).resolve().is_file():
                    yield f"({m['file']}): no such file"
            elif m["anchor"] and m["anchor"] not in anchors(m["file"]):
                yield f"({m['file']}#{m['anchor']}): no such anchor"


def test_the_docs_exist() -> None:
    assert {p.name for p in DOCS.glob("*.md")} >= {"design.md", "rules.md", "requirements.md"}


@pytest.mark.parametrize("path", scanned_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_citation_of_a_document_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = [
        f"line {text.count(chr(10), 0, m.start()) + 1}: {m[0]!r} ({what})"
        for what, pattern in FORBIDDEN.items()
        for m in pattern.finditer(text)
    ]
    assert not found


@pytest.mark.parametrize("path", scanned_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_citations_of_docs_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert not list(broken_citations(text, relative_to_docs=path.parent == DOCS))


def test_rule_and_policy_sources_resolve() -> None:
    """Sources are composed at import time (f-strings), so they are checked as the program prints them."""
    sources = {**{i: r.source for i, r in ALL_RULES.items()}, **skew.SOURCES}
    broken = {i: list(broken_citations(s)) for i, s in sources.items()}
    assert {i: b for i, b in broken.items() if b} == {}
    assert not [i for i, s in sources.items() for p in FORBIDDEN.values() if p.search(s)]


def _rows() -> dict[str, list[list[str]]]:
    """Rule id -> the cells after the id of each row that lists it (a VS-* id is in two tables)."""
    rows: dict[str, list[list[str]]] = {}
    for line in (DOCS / "rules.md").read_text(encoding="utf-8").splitlines():
        if m := re.match(r"\| `(?P<id>[A-Z][A-Z0-9-]*-\d+)` \|(?P<rest>.*)\|$", line):
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", m["rest"])]
            rows.setdefault(m["id"], []).append(cells)
    return rows


def test_rules_catalogue_lists_every_rule_as_the_code_defines_it() -> None:
    rows = _rows()
    expected = {
        rule_id: [str(rule.mode), "cluster (403)" if rule.uses_cluster else "object (422)", rule.source]
        for rule_id, rule in ALL_RULES.items()
    }
    assert {i: rows.get(i) for i in expected if expected[i] not in rows.get(i, [])} == {}
    assert {i: rows.get(i) for i in skew.SOURCES if [skew.SOURCES[i]] not in rows.get(i, [])} == {}
    assert set(rows) - set(expected) - set(skew.SOURCES) == set()


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("DESIGN.md §5", True),
        ("see DESIGN §4", True),
        ("(design.md#5-where)", False),
        ("STYLE R7", True),
        ("docs/design.md §5", False),
        ("gardener-rules.md §A", True),
        ("seed 000 'Version Requirements'", True),
        ("Seeds 001/002", True),
        ("issue 15", True),
        ("Issue 10 item 2", True),
        ("issue #12", True),
        ("(gardener issue #14328)", False),
        ("gardener issues 4797 and 8229", False),
        ("gardener/gardener#8297", False),
        ("../shared/fixtures", True),
        ("the issuer 1", False),
    ],
)
def test_forbidden_patterns(text: str, flagged: bool) -> None:
    assert any(p.search(text) for p in FORBIDDEN.values()) is flagged


@pytest.mark.parametrize(
    ("text", "broken"),
    [
        ("docs/design.md §5", False),
        ("docs/design.md §2 step 4", False),
        ("docs/design.md §9", True),
        ("docs/rules.md §C.2, §C.3", False),
        ("docs/rules.md §C.2, §C.99", True),
        ('docs/requirements.md "Version Requirements"', False),
        ('docs/requirements.md "Versioning", "Kubernetes version skew" and "OperatingSystemConfig contract"', False),
        ('docs/requirements.md "Version requirement"', True),
        ("docs/requirements.md#update-path-for-kubernetes-versions", False),
        ("docs/requirements.md#update-paths", True),
        ("docs/missing.md", True),
    ],
)
def test_citation_resolution(text: str, broken: bool) -> None:
    assert bool(list(broken_citations(text))) is broken
