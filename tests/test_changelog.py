"""CHANGELOG.md follows Keep a Changelog 1.1.0 and agrees with pyproject.toml (docs/development/versioning.md).

- The first heading is `# Changelog`, and the introduction names Keep a Changelog and Semantic Versioning.
- The first `##` is `## [Unreleased]`. Every other `##` is a release `## [X.Y.Z] - YYYY-MM-DD`, with a valid date,
  in strictly descending version order and non-increasing date order.
- The `###` headings are the six of the format (Added, Changed, Deprecated, Removed, Fixed, Security), each at most
  once per release. None is empty, and every release has at least one.
- Every bracketed `##` heading has a link reference at the bottom, and every link reference names a heading.
- The newest release is pyproject.toml's `version`.
- The text cites no tracker numbers (the word issue and a number, or `#` and a number): the product has no
  such tracker.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parent.parent
CHANGELOG: Final = ROOT / "CHANGELOG.md"
PYPROJECT: Final = ROOT / "pyproject.toml"

SECTIONS: Final = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
UNRELEASED: Final = "Unreleased"
RELEASE: Final = re.compile(r"\[(?P<version>\d+\.\d+\.\d+)\] - (?P<date>\d{4}-\d{2}-\d{2})")
LINK_REFERENCE: Final = re.compile(r"^\[(?P<label>[^\]]+)\]: (?P<url>\S+)$")
TRACKER_NUMBER: Final = re.compile(r"\bissues? #?\d+|(?<![\w/&])#\d+\b", re.IGNORECASE)


@dataclass
class Section:
    name: str
    line: int
    entries: list[str] = field(default_factory=list)


@dataclass
class Release:
    heading: str
    line: int
    sections: list[Section] = field(default_factory=list)

    @property
    def label(self) -> str:
        match = re.match(r"\[([^\]]+)\]", self.heading)
        return match.group(1) if match else self.heading


@dataclass
class Changelog:
    title: str | None
    intro: list[str]
    releases: list[Release]
    references: dict[str, str]


def _prose(text: str) -> list[tuple[int, str]]:
    """The numbered lines outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def parse(text: str) -> Changelog:
    title: str | None = None
    intro: list[str] = []
    releases: list[Release] = []
    references: dict[str, str] = {}
    for number, line in _prose(text):
        if reference := LINK_REFERENCE.match(line):
            references[reference.group("label")] = reference.group("url")
        elif line.startswith("# "):
            title = title or line[2:].strip()
        elif line.startswith("## "):
            releases.append(Release(line[3:].strip(), number))
        elif line.startswith("### "):
            assert releases, f"line {number}: {line!r} comes before the first ## heading"
            releases[-1].sections.append(Section(line[4:].strip(), number))
        elif line.startswith("#"):
            pytest.fail(f"line {number}: {line!r}: only #, ## and ### headings belong in a changelog")
        elif not releases:
            intro.append(line)
        elif line.strip() and releases[-1].sections:
            releases[-1].sections[-1].entries.append(line)
        elif line.strip():
            pytest.fail(f"line {number}: {line!r} is outside any ### section of {releases[-1].heading!r}")
    return Changelog(title, intro, releases, references)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


@pytest.fixture(scope="module")
def changelog() -> Changelog:
    return parse(CHANGELOG.read_text(encoding="utf-8"))


def test_the_title_and_introduction(changelog: Changelog) -> None:
    assert changelog.title == "Changelog"
    intro = " ".join(changelog.intro)
    assert "Keep a Changelog" in intro and "keepachangelog.com/en/1.1.0" in intro
    assert "Semantic Versioning" in intro and "semver.org" in intro


def test_unreleased_comes_first_then_releases(changelog: Changelog) -> None:
    assert changelog.releases, "no ## heading"
    assert changelog.releases[0].heading == f"[{UNRELEASED}]"
    for release in changelog.releases[1:]:
        match = RELEASE.fullmatch(release.heading)
        assert match, f"line {release.line}: {release.heading!r} is not '[X.Y.Z] - YYYY-MM-DD'"
        date.fromisoformat(match.group("date"))


def test_releases_descend_in_version_and_date(changelog: Changelog) -> None:
    released = [RELEASE.fullmatch(release.heading) for release in changelog.releases[1:]]
    versions = [_version(match.group("version")) for match in released if match]
    dates = [date.fromisoformat(match.group("date")) for match in released if match]
    assert versions, "no release"
    for newer, older in pairwise(versions):
        assert newer > older, f"{newer} is listed above {older}: versions must strictly descend"
    for newer_date, older_date in pairwise(dates):
        assert newer_date >= older_date, f"{newer_date} is listed above {older_date}: dates must not increase"


def test_sections_are_the_six_of_the_format_and_none_is_empty(changelog: Changelog) -> None:
    for release in changelog.releases:
        names = [section.name for section in release.sections]
        if release.label != UNRELEASED:
            assert names, f"line {release.line}: release {release.heading!r} has no section"
        assert len(names) == len(set(names)), f"line {release.line}: {release.heading!r} repeats a section"
        for section in release.sections:
            assert section.name in SECTIONS, f"line {section.line}: ### {section.name} is not one of {SECTIONS}"
            items = [entry for entry in section.entries if entry.startswith("- ")]
            assert items, f"line {section.line}: ### {section.name} of {release.heading!r} has no entry"


def test_every_heading_has_a_link_reference_and_every_reference_a_heading(changelog: Changelog) -> None:
    labels = [release.label for release in changelog.releases]
    missing = [label for label in labels if label not in changelog.references]
    assert not missing, f"no link reference for {missing}"
    for label in labels:
        assert changelog.references[label].startswith("https://"), f"[{label}]: {changelog.references[label]}"
    unused = sorted(set(changelog.references) - set(labels))
    assert not unused, f"link references without a heading: {unused}"


def test_the_newest_release_is_pyprojects_version(changelog: Changelog) -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    newest = RELEASE.fullmatch(changelog.releases[1].heading) if len(changelog.releases) > 1 else None
    assert newest, "no release below [Unreleased]"
    assert newest.group("version") == project["version"], (
        f"the newest release in CHANGELOG.md is {newest.group('version')}, pyproject.toml says {project['version']}"
    )


def test_no_tracker_numbers_are_cited() -> None:
    cited = [
        f"line {number}: {line.strip()}"
        for number, line in _prose(CHANGELOG.read_text(encoding="utf-8"))
        if not LINK_REFERENCE.match(line) and TRACKER_NUMBER.search(line)
    ]
    assert not cited, "\n".join(cited)


def test_the_parser_sees_what_the_checks_rely_on() -> None:
    sample = parse(
        "# Changelog\n\nintro\n\n## [Unreleased]\n\n## [1.0.0] - 2026-01-02\n\n### Added\n\n- one\n  continued\n\n"
        "### Fixed\n\n```text\n## not a heading\n```\n- two\n\n[Unreleased]: https://x/compare\n"
        "[1.0.0]: https://x/commit/1\n"
    )
    assert sample.title == "Changelog"
    assert [release.label for release in sample.releases] == ["Unreleased", "1.0.0"]
    assert [(section.name, section.entries) for section in sample.releases[1].sections] == [
        ("Added", ["- one", "  continued"]),
        ("Fixed", ["- two"]),
    ]
    assert sample.references == {"Unreleased": "https://x/compare", "1.0.0": "https://x/commit/1"}
    word = "issue"
    assert TRACKER_NUMBER.search(f"see {word} 12") and TRACKER_NUMBER.search("fixes #12")
    assert not TRACKER_NUMBER.search("gardener/gardener#12 and &#12; and 1 024 characters")
