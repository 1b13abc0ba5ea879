"""The documentation site (mkdocs.yml, docs/) checked like code: it builds with --strict, and in headless Chromium
(tests/site_browser.py) every page is reached from the navigation, loads without a console error, and the search
finds a rule id.

The site is built once for the module, with this interpreter's mkdocs, from the repository root, into a temporary
directory. Without Chromium the browser tests skip saying so, except under CI (`CI=true`), where .ci/run installs
it and its absence fails them. Every wait is for an event with a generous deadline (site_browser.DEADLINE_SECONDS).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

from tests.site_browser import SiteCheck, check_site, find_chromium

ROOT: Final = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT_SECONDS: Final = 600.0  # a few seconds here; only a hang reaches it


@dataclass(frozen=True)
class Build:
    """`mkdocs build --strict`'s exit code and output (stdout and stderr, interleaved), and the site directory it wrote."""

    returncode: int
    output: str
    site: Path


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
        timeout=BUILD_TIMEOUT_SECONDS,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # mkdocs-material's banner about MkDocs 2, not about the site
    )  # fmt: skip
    return Build(done.returncode, done.stdout, site)


def test_the_site_builds_with_strict(build: Build) -> None:
    """--strict turns the warnings mkdocs.yml's `validation:` asks for (broken links and anchors, pages left out
    of the navigation) into a failed build."""
    assert build.returncode == 0, f"mkdocs build --strict exited {build.returncode}:\n{build.output}"


@pytest.fixture(scope="module")
def checked(build: Build) -> SiteCheck:
    """The browser check of the built site, run once for the module's tests."""
    if build.returncode != 0:
        pytest.skip("the site did not build: test_the_site_builds_with_strict says why")
    chromium = find_chromium()
    if chromium is None:
        reason = "Chromium is not installed (Debian's `chromium`, which .ci/run installs): the site is not opened"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    result = asyncio.run(check_site(build.site, chromium=chromium))
    print(result.report())
    return result


def test_every_page_is_reached_from_the_navigation(checked: SiteCheck) -> None:
    assert not checked.unreached, f"pages the navigation does not reach: {checked.unreached}\n{checked.report()}"
    assert not checked.not_built, f"navigation links to pages not built: {checked.not_built}\n{checked.report()}"


def test_no_page_logs_a_console_error(checked: SiteCheck) -> None:
    """No exception, console.error/assert or failed load (a missing asset, anything from off the machine)."""
    assert not checked.errors, "\n".join(["console errors:", *(str(e) for e in checked.errors)])


def test_the_search_finds_a_rule_id(checked: SiteCheck) -> None:
    assert checked.search_match is not None, checked.report()
