"""The CI renderings of a review (webhook/offline/reports.py): SARIF, GitHub workflow commands, GitLab Code Quality
and a Markdown table, from ObjectReports built by hand.

SARIF is checked against the published SARIF 2.1.0 JSON Schema, tests/schemas/sarif-2.1.0.json: `package/sarif-2.1.0.json`
of the npm package @microsoft/sarif-multitool-linux 5.7.0 (npm registry), copied unchanged, sha256
1c49a0f2b60444c71bb14878e21e0d882198eff4c539861b133093ad89ed798c (tests/schemas/sarif-2.1.0.json.source). It is a
draft 2020-12 schema, checked with jsonschema's Draft202012Validator and a FormatChecker whose `uri` and
`uri-reference` are RFC 3986's grammar (jsonschema checks them only with an optional package installed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from functools import cache
from pathlib import Path
from typing import Any, Final

import jsonschema
import pytest

from webhook.domain.field import Mode, Rule
from webhook.offline import reports
from webhook.offline.located import Level, Located, Location, ObjectReport
from webhook.validators import ALL_RULES

SCHEMA_FILE: Final = Path(__file__).resolve().parent / "schemas" / "sarif-2.1.0.json"
SCHEMA_SHA256: Final = "1c49a0f2b60444c71bb14878e21e0d882198eff4c539861b133093ad89ed798c"

# RFC 3986 §3 and §4.1: URI and relative-ref (IPv6 literals loosely: no result names a host).
_PCT: Final = r"%[0-9A-Fa-f]{2}"
_UNRESERVED: Final = r"A-Za-z0-9\-._~"
_SUB_DELIMS: Final = r"!$&'()*+,;="
_PCHAR: Final = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_AUTHORITY: Final = (
    rf"(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?"
    rf"(?:\[[0-9A-Fa-f:.vV]+\]|(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*)(?::[0-9]*)?"
)
_ABEMPTY: Final = rf"(?:/{_PCHAR}*)*"
_ABSOLUTE: Final = rf"/(?:{_PCHAR}+{_ABEMPTY})?"
_ROOTLESS: Final = rf"{_PCHAR}+{_ABEMPTY}"
_NOSCHEME: Final = rf"(?:[{_UNRESERVED}{_SUB_DELIMS}@]|{_PCT})+{_ABEMPTY}"
_TAIL: Final = rf"(?:\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
URI: Final = re.compile(rf"[A-Za-z][A-Za-z0-9+\-.]*:(?://{_AUTHORITY}{_ABEMPTY}|{_ABSOLUTE}|{_ROOTLESS}|){_TAIL}")
RELATIVE_REF: Final = re.compile(rf"(?://{_AUTHORITY}{_ABEMPTY}|{_ABSOLUTE}|{_NOSCHEME}|){_TAIL}")

PROFILE_FILE: Final = "landscape/cloudprofiles/aws.yaml"
DUPLICATE: Final = 'spec.kubernetes.versions[2].version: Duplicate value: "1.34.2"'
NO_VERSIONS: Final = 'spec.kubernetes.versions[3].version: Invalid value: "1.35": must be a semantic version'
EXPIRY: Final = 'spec.kubernetes.versions[1]: deprecated version "1.33.4" should have an expiration date'
SHOOT_NAME: Final = 'metadata.name: Invalid value: "dev--x": must not contain two consecutive hyphens'


def is_uri(value: object) -> bool:
    return not isinstance(value, str) or URI.fullmatch(value) is not None


def is_uri_reference(value: object) -> bool:
    return not isinstance(value, str) or URI.fullmatch(value) is not None or RELATIVE_REF.fullmatch(value) is not None


@cache
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    formats = jsonschema.FormatChecker()
    formats.checks("uri")(is_uri)
    formats.checks("uri-reference")(is_uri_reference)
    return jsonschema.Draft202012Validator(schema, format_checker=formats)


def schema_errors(log: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator().iter_errors(log)]


def finding(
    rule: str,
    message: str,
    *,
    ref: str = "CloudProfile/aws",
    level: Level = Level.ERROR,
    at: Location | None = None,
    unplaced: str = "",
    operation: str = "CREATE",
) -> Located:
    field = message.split(": ", 1)[0]
    return Located(rule, level, message, field, ref, operation, at, unplaced)


def landscape() -> list[ObjectReport]:
    """An allowed Shoot; a denied CloudProfile with two located errors and an unplaced warning; a denied Shoot read
    from standard input (no location); a skipped ConfigMap."""
    profile = ObjectReport(
        "CloudProfile/aws",
        "CREATE",
        "DENIED",
        (
            finding("CP-K8S-003", DUPLICATE, at=Location(PROFILE_FILE, 12, 11)),
            finding("CP-K8S-001", NO_VERSIONS, at=Location(PROFILE_FILE, 14, 11)),
            finding("CP-WARN-001", EXPIRY, level=Level.WARNING, unplaced="a default: not written in the file"),
        ),
        source=PROFILE_FILE,
    )
    stdin_shoot = ObjectReport(
        "Shoot/garden-dev/dev--x",
        "UPDATE",
        "DENIED",
        (
            finding(
                "SH-META-001",
                SHOOT_NAME,
                ref="Shoot/garden-dev/dev--x",
                unplaced="read from standard input",
                operation="UPDATE",
            ),
        ),
        source="<stdin>",
    )
    allowed = ObjectReport("Shoot/garden-dev/fine", "CREATE", "ALLOWED", (), source="landscape/shoots/fine.yaml")
    skipped = ObjectReport(
        "ConfigMap/garden/settings",
        "CREATE",
        "SKIPPED",
        (),
        source="landscape/settings.yaml",
        reason="no validator for core/ConfigMap",
    )
    return [allowed, profile, stdin_shoot, skipped]


def sarif_log(objects: list[ObjectReport], rules: Any = ALL_RULES) -> dict[str, Any]:
    text = reports.sarif(objects, rules, version="0.13.0")
    assert text.endswith("}\n")
    log: dict[str, Any] = json.loads(text)
    assert schema_errors(log) == []
    return log


# --- the schema --------------------------------------------------------------------------------------------------


def test_the_schema_is_the_published_one() -> None:
    assert hashlib.sha256(SCHEMA_FILE.read_bytes()).hexdigest() == SCHEMA_SHA256


def test_the_format_checks_refuse_what_rfc_3986_refuses() -> None:
    """The uri checks are not vacuous: an unencoded space, a bare `%` and a colon in a relative path's first
    segment (which would read as a scheme) fail."""
    assert is_uri_reference("landscape/a%20b%3Ac.yaml")
    assert is_uri_reference("file:///work/landscape/aws.yaml")
    assert is_uri("https://gardener-community.github.io/gardener-webhook/reference/rules/#cp-k8s-003")
    for bad in ("landscape/a b.yaml", "land%scape.yaml", "a,b:c.yaml"):
        assert not is_uri_reference(bad), bad
    assert not is_uri("landscape/aws.yaml")
    log = json.loads(reports.sarif(landscape(), ALL_RULES, version="0.13.0"))
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b.yaml"
    assert any("uri-reference" in error for error in schema_errors(log))


# --- SARIF -------------------------------------------------------------------------------------------------------


def test_sarif_results() -> None:
    log = sarif_log(landscape())
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("gardener-webhook", "0.13.0")
    assert driver["informationUri"] == "https://gardener-community.github.io/gardener-webhook/"
    results = run["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("CP-K8S-003", "error"),
        ("CP-K8S-001", "error"),
        ("CP-WARN-001", "warning"),
        ("SH-META-001", "error"),
    ]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    duplicate, invalid, warning, shoot = results
    assert duplicate["message"]["text"] == DUPLICATE
    assert duplicate["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": PROFILE_FILE},
                "region": {"startLine": 12, "startColumn": 11},
            },
            "logicalLocations": [{"fullyQualifiedName": "CloudProfile/aws", "kind": "object"}],
        }
    ]
    assert invalid["locations"][0]["physicalLocation"]["region"] == {"startLine": 14, "startColumn": 11}
    assert duplicate["properties"] == {"operation": "CREATE", "field": "spec.kubernetes.versions[2].version"}
    # Unplaced in a file: on the file as a whole (no region), the object named in the text.
    assert warning["message"]["text"] == f"CloudProfile/aws: {EXPIRY}"
    assert warning["locations"] == [
        {
            "physicalLocation": {"artifactLocation": {"uri": PROFILE_FILE}},
            "logicalLocations": [{"fullyQualifiedName": "CloudProfile/aws", "kind": "object"}],
        }
    ]
    assert warning["properties"]["unplaced"] == "a default: not written in the file"
    # From standard input: the object only.
    assert shoot["message"]["text"] == f"Shoot/garden-dev/dev--x: {SHOOT_NAME}"
    assert shoot["locations"] == [
        {"logicalLocations": [{"fullyQualifiedName": "Shoot/garden-dev/dev--x", "kind": "object"}]}
    ]
    assert shoot["properties"] == {
        "operation": "UPDATE",
        "field": "metadata.name",
        "unplaced": "read from standard input",
    }
    assert [r["partialFingerprints"] for r in results] == [
        {"gardenerWebhookFinding/v1": fp} for fp in reports.fingerprints(landscape())
    ]
    assert run["columnKind"] == "unicodeCodePoints"


def test_sarif_rules_are_those_of_the_results() -> None:
    driver = sarif_log(landscape())["runs"][0]["tool"]["driver"]
    assert [rule["id"] for rule in driver["rules"]] == ["CP-K8S-001", "CP-K8S-003", "CP-WARN-001", "SH-META-001"]
    for entry in driver["rules"]:
        rule = ALL_RULES[entry["id"]]
        assert entry["name"] == rule.id
        assert entry["shortDescription"] == {"text": rule.source}
        assert entry["properties"] == {"source": rule.source}
        assert entry["helpUri"] == (
            f"https://gardener-community.github.io/gardener-webhook/reference/rules/#{rule.id.lower()}"
        )
        assert entry["helpUri"] in entry["help"]["text"]
    levels = {entry["id"]: entry["defaultConfiguration"]["level"] for entry in driver["rules"]}
    assert levels == {"CP-K8S-001": "error", "CP-K8S-003": "error", "CP-WARN-001": "warning", "SH-META-001": "error"}


def test_sarif_rule_modes_and_ids_missing_from_the_table() -> None:
    """An off rule's default level is none; an id the table lacks gets a minimal entry."""
    rules = {
        "X-OFF-001": Rule("X-OFF-001", "docs/requirements.md a switched-off requirement", Mode.OFF),
        **{k: v for k, v in ALL_RULES.items() if k != "OBJ-VERSION-001"},
    }
    objects = [
        ObjectReport(
            "CloudProfile/aws",
            "CREATE",
            "DENIED",
            (
                finding("X-OFF-001", "spec: off", at=Location("a.yaml", 1, 1)),
                finding("OBJ-VERSION-001", "apiVersion: Unsupported value: core.gardener.cloud/v2", at=None),
                finding("ZZ-UNKNOWN-009", "spec: from the future", at=None),
            ),
            source="a.yaml",
        )
    ]
    driver = sarif_log(objects, rules)["runs"][0]["tool"]["driver"]
    entries = {entry["id"]: entry for entry in driver["rules"]}
    assert list(entries) == ["OBJ-VERSION-001", "X-OFF-001", "ZZ-UNKNOWN-009"]
    assert entries["X-OFF-001"]["defaultConfiguration"] == {"level": "none"}
    assert entries["OBJ-VERSION-001"] == {
        "id": "OBJ-VERSION-001",
        "name": "OBJ-VERSION-001",
        "shortDescription": {"text": "OBJ-VERSION-001"},
    }
    assert "helpUri" not in entries["ZZ-UNKNOWN-009"]


def test_sarif_skipped_objects_are_notifications() -> None:
    (invocation,) = sarif_log(landscape())["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    assert invocation["toolExecutionNotifications"] == [
        {
            "level": "warning",
            "message": {"text": "ConfigMap/garden/settings: skipped: no validator for core/ConfigMap"},
            "locations": [
                {
                    "physicalLocation": {"artifactLocation": {"uri": "landscape/settings.yaml"}},
                    "logicalLocations": [{"fullyQualifiedName": "ConfigMap/garden/settings", "kind": "object"}],
                }
            ],
            "properties": {"operation": "CREATE"},
        }
    ]
    # Nothing skipped, nothing found: an empty, valid run.
    run = sarif_log([])["runs"][0]
    assert (run["results"], run["tool"]["driver"]["rules"], run["invocations"]) == (
        [],
        [],
        [{"executionSuccessful": True}],
    )


def test_sarif_file_names_are_uri_references() -> None:
    objects = [
        ObjectReport(
            "CloudProfile/aws",
            "CREATE",
            "DENIED",
            (
                finding("CP-K8S-003", DUPLICATE, at=Location("land%scape/a,b:c d.yaml", 3, 5)),
                finding("CP-K8S-003", DUPLICATE, at=Location("/work/landscape/ä.yaml", 3, 5)),
            ),
        )
    ]
    results = sarif_log(objects)["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert uris == ["land%25scape/a%2Cb%3Ac%20d.yaml", "file:///work/landscape/%C3%A4.yaml"]


# --- GitHub ------------------------------------------------------------------------------------------------------


def test_github_lines() -> None:
    assert reports.github(landscape()).splitlines() == [
        f"::error file={PROFILE_FILE},line=12,col=11,title=CP-K8S-003::{DUPLICATE}",
        f"::error file={PROFILE_FILE},line=14,col=11,title=CP-K8S-001::{NO_VERSIONS}",
        f"::warning file={PROFILE_FILE},title=CP-WARN-001::CloudProfile/aws: {EXPIRY}",
        f"::error title=SH-META-001::Shoot/garden-dev/dev--x: {SHOOT_NAME}",
    ]
    assert reports.github(landscape()).endswith("\n")
    assert reports.github([]) == ""


def test_github_escaping() -> None:
    """As @actions/core: `%`, CR and LF in the message; also `:` and `,` in property values."""
    objects = [
        ObjectReport(
            "CloudProfile/a",
            "CREATE",
            "DENIED",
            (
                finding(
                    "CP-K8S-003",
                    "spec: 100% wrong: a, b\nsecond line\r",
                    ref="CloudProfile/a",
                    at=Location("land%scape/a,b:c.yaml", 3, 1),
                ),
            ),
        )
    ]
    assert reports.github(objects) == (
        "::error file=land%25scape/a%2Cb%3Ac.yaml,line=3,col=1,title=CP-K8S-003"
        "::spec: 100%25 wrong: a, b%0Asecond line%0D\n"
    )


def test_github_summary_is_the_markdown() -> None:
    assert reports.github_summary(landscape()) == reports.markdown(landscape())


def test_github_summary_is_bounded_in_bytes() -> None:
    """The step summary's limit is 1 MiB of UTF-8: a report of 3-byte characters is cut by bytes, not characters."""
    objects = [
        ObjectReport(
            f"CloudProfile/p{i}",
            "CREATE",
            "DENIED",
            (finding("CP-K8S-003", "spec: " + "€" * 300, ref=f"CloudProfile/p{i}", at=Location("p.yaml", i + 1, 1)),),
        )
        for i in range(1500)
    ]
    summary = reports.github_summary(objects)
    assert reports.STEP_SUMMARY_LIMIT - 2_000 < len(summary.encode()) <= reports.STEP_SUMMARY_LIMIT
    assert summary.endswith("more objects (the report's size limit)\n")
    # Counted in characters, the same limit would have let more rows through.
    assert len(reports.markdown(objects, limit=reports.STEP_SUMMARY_LIMIT)) > len(summary)


# --- GitLab ------------------------------------------------------------------------------------------------------


def test_gitlab_report() -> None:
    text = reports.gitlab(landscape())
    assert text.endswith("]\n")
    issues = json.loads(text)
    fingerprints = reports.fingerprints(landscape())
    # The finding of the object from standard input has no file of the repository: it is left out.
    assert issues == [
        {
            "description": DUPLICATE,
            "check_name": "CP-K8S-003",
            "fingerprint": fingerprints[0],
            "severity": "major",
            "location": {"path": PROFILE_FILE, "lines": {"begin": 12}},
        },
        {
            "description": NO_VERSIONS,
            "check_name": "CP-K8S-001",
            "fingerprint": fingerprints[1],
            "severity": "major",
            "location": {"path": PROFILE_FILE, "lines": {"begin": 14}},
        },
        {
            "description": f"CloudProfile/aws: {EXPIRY}",
            "check_name": "CP-WARN-001",
            "fingerprint": fingerprints[2],
            "severity": "minor",
            "location": {"path": PROFILE_FILE, "lines": {"begin": 1}},
        },
    ]
    assert all(re.fullmatch("[0-9a-f]{64}", fp) for fp in fingerprints)
    assert reports.gitlab([]) == "[]\n"


def test_fingerprints_are_stable_and_distinct() -> None:
    assert reports.fingerprints(landscape()) == reports.fingerprints(landscape())
    assert len(set(reports.fingerprints(landscape()))) == 4
    # An edit above the findings moves their lines, not their fingerprints.
    moved = [
        dataclasses.replace(
            obj,
            findings=tuple(
                dataclasses.replace(f, location=dataclasses.replace(f.location, line=f.location.line + 7))
                if f.location is not None
                else f
                for f in obj.findings
            ),
        )
        for obj in landscape()
    ]
    assert reports.fingerprints(moved) == reports.fingerprints(landscape())
    assert json.loads(reports.gitlab(moved))[0]["location"]["lines"] == {"begin": 19}
    # Two identical findings of one object differ by their occurrence; each stays what it was across runs.
    twice = ObjectReport(
        "CloudProfile/aws",
        "CREATE",
        "DENIED",
        (
            finding("CP-K8S-003", DUPLICATE, at=Location(PROFILE_FILE, 12, 11)),
            finding("CP-K8S-003", DUPLICATE, at=Location(PROFILE_FILE, 13, 11)),
        ),
        source=PROFILE_FILE,
    )
    first, second = (issue["fingerprint"] for issue in json.loads(reports.gitlab([twice])))
    assert first != second
    assert first == reports.fingerprints(landscape())[0]
    assert reports.fingerprints([twice]) == [first, second]
    # The same finding in another file, of another object or with another message is another finding.
    other_file = dataclasses.replace(
        twice, findings=(finding("CP-K8S-003", DUPLICATE, at=Location("landscape/other.yaml", 12, 11)),)
    )
    assert reports.fingerprints([other_file])[0] != first


# --- Markdown ----------------------------------------------------------------------------------------------------


def test_markdown_table() -> None:
    lines = reports.markdown(landscape()).splitlines()
    assert lines[:3] == [
        "### gardener-webhook review",
        "",
        "4 objects: 2 denied, 1 allowed, 1 skipped; 3 errors, 1 warning",
    ]
    duplicate = r'spec.kubernetes.versions\[2\].version: Duplicate value: "1.34.2"'
    invalid = r'spec.kubernetes.versions\[3\].version: Invalid value: "1.35": must be a semantic version'
    expiry = r'spec.kubernetes.versions\[1\]: deprecated version "1.33.4" should have an expiration date'
    cells = [
        f"`{PROFILE_FILE}:12` **error** `CP-K8S-003` {duplicate}",
        f"`{PROFILE_FILE}:14` **error** `CP-K8S-001` {invalid}",
        f"`{PROFILE_FILE}` (a default: not written in the file) **warning** `CP-WARN-001` {expiry}",
    ]
    assert lines[3:] == [
        "",
        "| object | operation | verdict | findings |",
        "| --- | --- | --- | --- |",
        "| `CloudProfile/aws` | CREATE | DENIED | " + "<br>".join(cells) + " |",
        f"| `Shoot/garden-dev/dev--x` | UPDATE | DENIED | (read from standard input) **error** `SH-META-001` {SHOOT_NAME} |",
        "| `Shoot/garden-dev/fine` | CREATE | ALLOWED |  |",
        "| `ConfigMap/garden/settings` | CREATE | SKIPPED | no validator for core/ConfigMap |",
    ]


def test_markdown_escaping() -> None:
    """`|` cannot end a cell, a line break cannot end a row, `<stdin>` is no HTML tag, and a ref with a backtick
    keeps its code span."""
    objects = [
        ObjectReport(
            "CloudProfile/a|b`c",
            "CREATE",
            "DENIED",
            (
                finding(
                    "CP-K8S-003",
                    "spec.x: must be one of a|b\nor *c* from <stdin>",
                    ref="CloudProfile/a|b`c",
                    at=Location("dir|x/a.yaml", 2, 3),
                ),
            ),
        )
    ]
    row = reports.markdown(objects).splitlines()[-1]
    assert row == (
        r"| ``CloudProfile/a\|b`c`` | CREATE | DENIED | `dir\|x/a.yaml:2` **error** `CP-K8S-003` "
        r"spec.x: must be one of a\|b<br>or \*c\* from \<stdin\> |"
    )
    # Every unescaped pipe is a cell border: five of them, four cells.
    assert len(re.findall(r"(?<!\\)\|", row)) == 5


def test_markdown_of_nothing() -> None:
    assert reports.markdown([]) == (
        "### gardener-webhook review\n\n0 objects: 0 denied, 0 allowed, 0 skipped; 0 errors, 0 warnings\n"
    )


@pytest.mark.parametrize("limit", [2_000, 5_000, 65_536])
def test_markdown_cap(limit: int) -> None:
    """Whole rows while they fit, then one line for the rest; never over the limit."""
    objects = [
        ObjectReport(
            f"CloudProfile/p{i}",
            "CREATE",
            "DENIED",
            (finding("CP-K8S-003", f"spec: {'x' * 200}", ref=f"CloudProfile/p{i}", at=Location("p.yaml", i + 1, 1)),),
        )
        for i in range(500)
    ]
    text = reports.markdown(objects, limit=limit)
    assert len(text) <= limit
    rows = [line for line in text.splitlines() if line.startswith("| `CloudProfile/")]
    match = re.search(r"\n… and (\d+) more objects \(the report's size limit\)\n\Z", text)
    assert match is not None
    assert len(rows) + int(match.group(1)) == 500
    assert rows[0].startswith("| `CloudProfile/p0` |")
    # The default is a GitHub comment's limit.
    assert len(reports.markdown(objects)) <= 65_536 < len(reports.markdown(objects, limit=10**7))


def test_markdown_cap_keeps_denied_objects_first() -> None:
    allowed = [ObjectReport(f"Shoot/garden-dev/s{i}", "CREATE", "ALLOWED", ()) for i in range(100)]
    denied = ObjectReport(
        "CloudProfile/aws",
        "CREATE",
        "DENIED",
        (finding("CP-K8S-003", DUPLICATE, at=Location(PROFILE_FILE, 12, 11)),),
    )
    text = reports.markdown([*allowed, denied], limit=1_000)
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert rows[0].startswith("| `CloudProfile/aws` | CREATE | DENIED |")
    assert text.endswith(f"… and {101 - len(rows)} more objects (the report's size limit)\n")
    # Below the head's own size only the head and the closing line are written.
    tiny = reports.markdown([denied], limit=10)
    assert tiny.endswith("| --- | --- | --- | --- |\n\n… and 1 more object (the report's size limit)\n")
