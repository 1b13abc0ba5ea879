"""`review` and `audit` as a CI gate: skipped kinds, objects as each other's context, inputs read once, JUnit.

Everything goes through the CLI (`main`, or the console script in a subprocess where a pipe
matters) on manifests written here.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pytest
import yaml
from lxml import etree

from tests.builders import cloud_profile_dict, namespaced_cloud_profile_dict
from webhook.cli import main
from webhook.offline import junit

SCHEMA: Final = etree.XMLSchema(etree.parse(str(Path(__file__).parent / "schemas" / "junit.xsd")))
NOW: Final = "2026-11-21T12:00:00Z"
NOW_DT: Final = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def run(*argv: str | Path, stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def write(path: Path, *objects: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(objects) if objects else "")
    return path


def shoot(
    name: str = "prod", profile: str = "local", kind: str = "CloudProfile", version: str = "1.33.2"
) -> dict[str, Any]:
    """A workerless Shoot on `profile` (region eu-1, as in cloud_profile_dict)."""
    return {
        "apiVersion": "core.gardener.cloud/v1beta1",
        "kind": "Shoot",
        "metadata": {"name": name, "namespace": "garden-local"},
        "spec": {
            "cloudProfile": {"kind": kind, "name": profile},
            "region": "eu-1",
            "provider": {"type": "local"},
            "kubernetes": {"version": version},
        },
    }


CONFIG_MAP: Final = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default"}}
SEED: Final = {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Seed", "metadata": {"name": "seed-1"}}


# ----------------------------------------------------------------------------------------------- skipped kinds


@pytest.mark.parametrize(
    ("obj", "line"),
    [
        pytest.param(CONFIG_MAP, "SKIPPED ConfigMap/default/cm (no validator for core/ConfigMap)", id="configmap"),
        pytest.param(SEED, "SKIPPED Seed/seed-1 (no validator for core.gardener.cloud/Seed)", id="seed"),
        pytest.param(
            {**cloud_profile_dict(), "kind": "Cloudprofile"},
            "SKIPPED Cloudprofile/local (no validator for core.gardener.cloud/Cloudprofile; "
            "did you mean core.gardener.cloud CloudProfile?)",
            id="kind-case",
        ),
        pytest.param(
            {**cloud_profile_dict(), "apiVersion": "garden.sapcloud.io/v1beta1"},
            "SKIPPED CloudProfile/local (no validator for garden.sapcloud.io/CloudProfile; "
            "did you mean core.gardener.cloud CloudProfile?)",
            id="legacy-group",
        ),
        pytest.param(
            {**shoot(), "kind": "Shot"},
            "SKIPPED Shot/garden-local/prod (no validator for core.gardener.cloud/Shot; "
            "did you mean core.gardener.cloud Shoot?)",
            id="spelling",
        ),
    ],
)
def test_unjudged_kinds_are_skipped_never_allowed(tmp_path: Path, obj: dict[str, Any], line: str) -> None:
    path = write(tmp_path / "x.yaml", obj)
    assert run("review", path) == (0, line + "\n")
    assert run("review", "--strict", path) == (1, line + "\n")


def test_strict_passes_when_everything_was_judged(tmp_path: Path) -> None:
    path = write(tmp_path / "cp.yaml", cloud_profile_dict())
    assert run("review", "--strict", path) == (0, "ALLOWED CloudProfile/local\n")


def test_skipped_objects_in_json_have_no_response(tmp_path: Path) -> None:
    code, out = run("review", "--output", "json", write(tmp_path / "x.yaml", cloud_profile_dict(), CONFIG_MAP))
    first, second = json.loads(out)
    assert code == 0
    assert first["response"]["allowed"] is True
    assert "response" not in second and second["skipped"] == "no validator for core/ConfigMap"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "kind: CloudProfile\nmetadata: {name: a}\n",
            "x.yaml, document 1 (line 1): object has no apiVersion",
            id="no-apiVersion",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# nothing\n---\napiVersion: v1\nmetadata: {name: b}\n",
            "x.yaml, document 3 (line 6): object has no kind",
            id="no-kind-third-document",
        ),
        pytest.param("- a\n- b\n", "x.yaml, document 1 (line 1): not an object", id="not-an-object"),
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap}\n- {metadata: {name: x}}\n",
            "x.yaml, document 1, item 1 (line 1): object has no apiVersion and no kind",
            id="list-item",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\n---\nmetadata:\n  name: [a\n  labels: {}\n",
            "x.yaml: document 2: line 6, column 9: not valid YAML or JSON",
            id="yaml-error-names-document-and-line",
        ),
    ],
)
def test_unusable_documents_exit_2_naming_file_and_document(
    tmp_path: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    assert run("review", path) == (2, "")
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("gardener-webhook review: ") and f"{tmp_path}/{message}" in err


# ------------------------------------------------------------------------------------ objects as context


def test_a_shoot_is_judged_against_the_profile_in_the_same_directory(tmp_path: Path) -> None:
    write(tmp_path / "repo" / "profiles" / "local.yaml", cloud_profile_dict())
    write(tmp_path / "repo" / "shoots" / "prod.yml", shoot())
    code, out = run("review", "--strict", tmp_path / "repo", "--now", NOW)
    assert (code, out) == (0, "ALLOWED CloudProfile/local\nALLOWED Shoot/garden-local/prod\n")


def test_a_shoot_and_its_profile_in_one_file(tmp_path: Path) -> None:
    path = write(tmp_path / "all.yaml", shoot(version="1.30.9"), cloud_profile_dict())
    code, out = run("review", path, "--now", NOW)
    assert code == 1
    assert out.splitlines()[0] == "DENIED Shoot/garden-local/prod"
    assert 'spec.kubernetes.version: Unsupported value: "1.30.9"' in out


def test_a_shoot_whose_profile_is_nowhere_says_so_and_hints_at_context(tmp_path: Path) -> None:
    code, out = run("review", write(tmp_path / "shoot.yaml", shoot()), "--now", NOW)
    assert code == 1
    assert out.splitlines() == [
        "DENIED Shoot/garden-local/prod",
        '  spec.cloudProfile.name: Forbidden: could not find referenced cloud profile: CloudProfile "local" not found',
        (
            "  hint: the referenced profile is in none of the given files: review it together with this object (same file "
            "or directory) or pass it with --context FILE (e.g. kubectl get cloudprofiles,namespacedcloudprofiles -A -o yaml)"
        ),
    ]
    write(tmp_path / "ctx" / "cp.yaml", cloud_profile_dict())
    assert run("review", tmp_path / "shoot.yaml", "--context", tmp_path / "ctx", "--now", NOW)[0] == 0


@pytest.mark.parametrize(
    ("profile", "shoot_kind", "named"),
    [
        pytest.param({**cloud_profile_dict(), "kind": "Cloudprofile"}, "CloudProfile", "kind Cloudprofile; did you mean CloudProfile?", id="case"),
        pytest.param({**cloud_profile_dict(), "kind": "CloudProfil"}, "CloudProfile", "kind CloudProfil; did you mean CloudProfile?", id="spelling"),
        pytest.param(
            {**cloud_profile_dict(), "apiVersion": "garden.sapcloud.io/v1beta1"},
            "CloudProfile",
            "kind garden.sapcloud.io CloudProfile; did you mean core.gardener.cloud CloudProfile?",
            id="group",
        ),
        pytest.param(
            {**namespaced_cloud_profile_dict(), "kind": "NamespacedCloudprofile", "metadata": {"name": "local", "namespace": "garden-local"}},
            "NamespacedCloudProfile",
            "kind NamespacedCloudprofile; did you mean NamespacedCloudProfile?",
            id="namespaced",
        ),
    ],
)  # fmt: skip
def test_a_misspelt_profile_is_named_instead_of_a_missing_one(
    tmp_path: Path, profile: dict[str, Any], shoot_kind: str, named: str
) -> None:
    """A kind typo in the profile does not send the user looking for a profile that is there."""
    write(tmp_path / "landscape" / "aws.yaml", profile)
    write(tmp_path / "landscape" / "shoot.yaml", shoot(kind=shoot_kind))
    code, out = run("review", tmp_path / "landscape", "--now", NOW)
    assert code == 1
    hints = [line for line in out.splitlines() if line.startswith("  hint: ")]
    assert hints == [f"  hint: the referenced profile is in {tmp_path / 'landscape' / 'aws.yaml'} as {named}"]


def test_a_misspelt_profile_of_another_name_or_namespace_is_not_named(tmp_path: Path) -> None:
    other_name = {**cloud_profile_dict(), "kind": "Cloudprofile", "metadata": {"name": "other"}}
    other_namespace = {
        **namespaced_cloud_profile_dict(),
        "kind": "NamespacedCloudprofile",
        "metadata": {"name": "local", "namespace": "garden-other"},
    }
    path = write(
        tmp_path / "all.yaml", other_name, other_namespace, shoot(), shoot("dev", kind="NamespacedCloudProfile")
    )
    code, out = run("review", path, "--now", NOW)
    assert code == 1
    assert out.count("hint: the referenced profile is in none of the given files") == 2
    assert "did you mean CloudProfile?" not in out and "did you mean NamespacedCloudProfile?" not in out


def test_a_misspelt_parent_of_a_namespaced_profile_is_named(tmp_path: Path) -> None:
    path = write(
        tmp_path / "all.yaml", {**cloud_profile_dict(), "kind": "Cloudprofile"}, namespaced_cloud_profile_dict()
    )
    code, out = run("review", path, "--now", NOW)
    assert code == 1
    assert (
        f"  hint: the referenced profile is in {path} as kind Cloudprofile; did you mean CloudProfile?"
        in out.splitlines()
    )


def test_a_namespaced_profile_finds_its_parent_among_the_reviewed_objects(tmp_path: Path) -> None:
    ncp = namespaced_cloud_profile_dict(
        kubernetes={"versions": [{"version": "1.32.5", "expirationDate": "2027-06-01T00:00:00Z"}]}
    )
    alone = write(tmp_path / "ncp.yaml", ncp)
    code, out = run("review", alone, "--now", NOW)
    assert code == 1 and "NCP-ADM" not in out and 'parent CloudProfile "local" not found' in out
    both = write(tmp_path / "both.yaml", ncp, cloud_profile_dict())
    assert run("review", both, "--now", NOW)[0] == 0


def test_the_reviewed_object_replaces_the_stored_one_from_context(tmp_path: Path) -> None:
    stored = write(tmp_path / "stored.yaml", cloud_profile_dict())
    changed = cloud_profile_dict(kubernetes={"versions": [{"version": "1.34.1"}]})
    together = write(tmp_path / "new.yaml", changed, shoot(version="1.34.1"))
    assert run("review", together, "--context", stored, "--now", NOW)[0] == 0


def test_duplicate_objects_in_the_context_name_both_places(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path / "a.yaml", cloud_profile_dict())
    b = write(tmp_path / "b.yaml", CONFIG_MAP, cloud_profile_dict())
    shoot_file = write(tmp_path / "shoot.yaml", shoot())
    assert run("review", shoot_file, "--context", a, "--context", b) == (2, "")
    err = capsys.readouterr().err
    assert (
        f"CloudProfile/local (core.gardener.cloud) is given twice: {a}, document 1 (line 1) and {b}, document 2" in err
    )
    assert run("review", a, b) == (2, "")
    assert "reviewed objects: CloudProfile/local" in capsys.readouterr().err


def test_the_same_file_named_twice_counts_once(tmp_path: Path) -> None:
    path = write(tmp_path / "cp.yaml", cloud_profile_dict())
    assert run("review", path, path, tmp_path) == (0, "ALLOWED CloudProfile/local\n")


def test_in_use_hint_when_no_shoots_were_given(tmp_path: Path) -> None:
    old = write(tmp_path / "old.yaml", cloud_profile_dict())
    new = write(tmp_path / "new.yaml", cloud_profile_dict(kubernetes={"versions": [{"version": "1.33.2"}]}))
    code, out = run("review", "--operation", "UPDATE", "--old", old, new, "--now", NOW)
    assert code == 0
    assert "  hint: no Shoots were given, so versions in use were not checked" in out
    users = write(tmp_path / "shoots.yaml", shoot(version="1.32.5"))
    code, out = run("review", "--operation", "UPDATE", "--old", old, new, "--context", users, "--now", NOW)
    assert code == 1 and "hint" not in out
    assert "version is still in use by shoot 'garden-local/prod'" in out


# ----------------------------------------------------------------------------------------------- --old


def test_old_without_update_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "cp.yaml", cloud_profile_dict())
    assert run("review", "--old", path, path) == (2, "")
    assert "--old is only used with --operation UPDATE (the operation is CREATE)" in capsys.readouterr().err


def test_old_of_another_object_is_a_usage_error_naming_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = write(tmp_path / "old.yaml", {**cloud_profile_dict(), "metadata": {"name": "aws"}})
    new = write(tmp_path / "new.yaml", cloud_profile_dict())
    assert run("review", "--operation", "UPDATE", "--old", old, new) == (2, "")
    err = capsys.readouterr().err
    assert f"--old holds CloudProfile/aws (core.gardener.cloud, {old}, document 1 (line 1))" in err
    assert f"the object under review is CloudProfile/local (core.gardener.cloud, {new}, document 1 (line 1))" in err


def test_old_is_matched_by_identity_among_many(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    olds = write(tmp_path / "old.yaml", {**cloud_profile_dict(), "metadata": {"name": "aws"}}, cloud_profile_dict())
    new = write(tmp_path / "new.yaml", cloud_profile_dict(), CONFIG_MAP)
    code, out = run("review", "--operation", "UPDATE", "--old", olds, new)
    assert code == 0
    assert [line for line in out.splitlines() if not line.startswith("  hint: ")] == [
        "ALLOWED CloudProfile/local",
        "SKIPPED ConfigMap/default/cm (no validator for core/ConfigMap)",
    ]
    missing = write(tmp_path / "other.yaml", {**cloud_profile_dict(), "metadata": {"name": "gcp"}}, CONFIG_MAP)
    assert run("review", "--operation", "UPDATE", "--old", olds, missing)[0] == 2
    assert "--old has no stored CloudProfile/gcp" in capsys.readouterr().err


# ------------------------------------------------------------------------------------- paths and stdin


def test_directories_are_read_recursively_hidden_and_other_files_skipped(tmp_path: Path) -> None:
    write(tmp_path / "d" / "a" / "cp.json", cloud_profile_dict())
    (tmp_path / "d" / "a" / "cp.json").write_text(json.dumps(cloud_profile_dict()))
    write(tmp_path / "d" / "b" / "c" / "cm.yml", CONFIG_MAP)
    write(tmp_path / "d" / ".git" / "x.yaml", SEED)
    (tmp_path / "d" / "README.md").write_text("# not a manifest\n")
    code, out = run("review", tmp_path / "d")
    assert (code, out) == (
        0,
        "ALLOWED CloudProfile/local\nSKIPPED ConfigMap/default/cm (no validator for core/ConfigMap)\n",
    )


def test_an_empty_directory_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert run("review", tmp_path / "empty") == (2, "")
    assert "no objects found" in capsys.readouterr().err


def test_stdin_is_read_once_for_files_and_context(monkeypatch: pytest.MonkeyPatch) -> None:
    text = yaml.safe_dump_all([cloud_profile_dict(), shoot()])
    code, out = run("review", "-", "--context", "-", "--now", NOW, stdin=text, monkeypatch=monkeypatch)
    assert (code, out) == (0, "ALLOWED CloudProfile/local\nALLOWED Shoot/garden-local/prod\n")


def _console(*argv: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "webhook", *argv], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def test_audit_context_from_a_pipe() -> None:
    text = yaml.safe_dump_all([cloud_profile_dict(), shoot(), CONFIG_MAP])
    proc = _console("audit", "--context", "-", "--now", NOW, stdin=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == f"audit at {NOW}: 1 CloudProfile, 1 Shoot, 1 skipped; 0 denials, 0 warnings"
    assert "SKIPPED ConfigMap/default/cm (no validator for core/ConfigMap)" in proc.stdout
    strict = _console("audit", "--strict", "--context", "/dev/stdin", "--now", NOW, stdin=text)
    assert strict.returncode == 1 and strict.stdout == proc.stdout


def test_review_from_a_pipe() -> None:
    proc = _console("review", "-", stdin=yaml.safe_dump(cloud_profile_dict()))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "ALLOWED CloudProfile/local\n", "")


# ----------------------------------------------------------------------------------------------- JUnit


def _junit(out: str) -> etree._Element:
    doc = etree.fromstring(out.encode("utf-8"))
    SCHEMA.assertValid(doc)
    return doc


def test_review_junit_validates_and_counts(tmp_path: Path) -> None:
    bad = {**cloud_profile_dict(type=""), "metadata": {"name": "bad"}}
    path = write(tmp_path / "all.yaml", cloud_profile_dict(), bad, CONFIG_MAP)
    code, out = run("review", "--output", "junit", path, "--now", NOW)
    assert code == 1
    doc = _junit(out)
    (suite,) = doc.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures"), suite.get("skipped")) == (
        str(path),
        "3",
        "1",
        "1",
    )
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert list(cases) == ["CloudProfile/local", "CloudProfile/bad", "ConfigMap/default/cm"]
    assert cases["CloudProfile/local"].find("failure") is None
    failure = cases["CloudProfile/bad"].find("failure")
    assert failure is not None and failure.get("type") == "DENIED"
    # The empty type's label key (provider.extensions.gardener.cloud/) is refused first, as gardener-apiserver does.
    assert failure.text.splitlines()[-1] == "spec.type: Required value: must provide a provider type"
    skipped = cases["ConfigMap/default/cm"].find("skipped")
    assert skipped is not None and skipped.get("message") == "no validator for core/ConfigMap"


def test_review_junit_strict_makes_skips_failures(tmp_path: Path) -> None:
    code, out = run("review", "--output", "junit", "--strict", write(tmp_path / "cm.yaml", CONFIG_MAP))
    assert code == 1
    case = _junit(out).find("testsuite/testcase")
    assert case is not None and case.find("skipped") is None
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "SKIPPED"


def test_review_junit_escapes_what_xml_cannot_carry(tmp_path: Path) -> None:
    obj = cloud_profile_dict()
    obj["spec"]["regions"][0]["labels"] = {"note": 'bell\x07 and <tags> & "quotes"'}
    code, out = run("review", "--output", "junit", write(tmp_path / "cp.yaml", obj))
    assert code == 1
    failure = _junit(out).find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None
    assert failure.text.startswith('spec.regions[0].labels: Invalid value: "bell\\u0007 and <tags> & \\"quotes\\""')
    raw = junit.render(
        "x",
        [junit.Suite("s\x00", (junit.Case("a\x07b", "c", ("m\x1b", "DENIED", "body\x0c"), None, ("w\x01",)),))],
        now=NOW_DT,
    )
    case = _junit(raw).find("testsuite/testcase")
    assert case is not None and case.get("name") == "a\ufffdb"


def test_audit_junit_validates(tmp_path: Path) -> None:
    bad = {**cloud_profile_dict(type=""), "metadata": {"name": "bad"}}
    path = write(tmp_path / "landscape.yaml", cloud_profile_dict(), bad, CONFIG_MAP)
    code, out = run("audit", "--output", "junit", "--context", path, "--now", NOW)
    assert code == 1
    doc = _junit(out)
    suites = {s.get("name"): s for s in doc.findall("testsuite")}
    assert set(suites) == {"CloudProfile", "skipped"}
    assert (suites["CloudProfile"].get("tests"), suites["CloudProfile"].get("failures")) == ("2", "1")
    assert suites["skipped"].get("skipped") == "1"


# ------------------------------------------------------------------------------------- output as judged, progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_text_is_printed_as_each_object_is_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import webhook.offline.review

    path = write(tmp_path / "all.yaml", cloud_profile_dict(), shoot(), shoot("dev"))
    out = io.StringIO()
    printed_before: list[int] = []
    judge = webhook.offline.review.judge

    def judge_and_note(*args: Any, **kwargs: Any) -> Any:
        printed_before.append(len(out.getvalue().splitlines()))
        return judge(*args, **kwargs)

    monkeypatch.setattr(webhook.offline.review, "judge", judge_and_note)
    assert main(["review", str(path), "--now", NOW], out=out) == 0
    assert printed_before == [0, 1, 2]


@pytest.mark.parametrize(("output", "shown"), [("text", True), ("json", False), ("junit", False)])
def test_progress_on_a_terminal_for_text_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str, shown: bool
) -> None:
    import webhook.offline.progress

    monkeypatch.setattr(webhook.offline.progress, "DELAY_SECONDS", 0.0)  # as if the run had lasted over a second
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    path = write(tmp_path / "all.yaml", cloud_profile_dict(), shoot())
    code, out = run("review", path, "--now", NOW, "--output", output)
    assert code == 0
    if shown:
        assert terminal.getvalue().endswith("gardener-webhook review: 2/2 objects judged\r\x1b[K")
        assert "\x1b" not in out
    else:
        assert terminal.getvalue() == ""


def test_no_progress_when_stderr_is_no_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import webhook.offline.progress

    monkeypatch.setattr(webhook.offline.progress, "DELAY_SECONDS", 0.0)
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert run("review", write(tmp_path / "cp.yaml", cloud_profile_dict()), "--now", NOW)[0] == 0
    assert stderr.getvalue() == ""
