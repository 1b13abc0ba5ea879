"""`gardener-webhook review` on OperatingSystemConfigs: the real manifests and the documentation's denial."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.builders import real_fixtures_of, real_path, requires_real_fixtures
from tests.validators.osc_cases import REAL_OSCS, kubelet_binary, kubelet_file, osc_dict, plain_file
from webhook.cli import main


def run(*argv: str | Path) -> tuple[int, str]:
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def write(tmp_path: Path, name: str, obj: Any) -> Path:
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else yaml.safe_dump(obj))
    return path


@requires_real_fixtures
def test_every_real_osc_is_covered() -> None:
    assert [p.name for p in real_fixtures_of("OperatingSystemConfig")] == sorted(REAL_OSCS)


@pytest.mark.parametrize("name", REAL_OSCS, ids=lambda n: n.split("__")[1])
def test_real_oscs_reapplied_unchanged_are_allowed(name: str) -> None:
    """The extensions' examples set `encoding` on the file instead of in `content.inline`: the CRD has no such field,
    so an apply with strict field validation (kubectl's default) is refused before any webhook; the rules allow it."""
    path = real_path(name)
    code, out = run("review", "--operation", "UPDATE", "--old", path, path)
    if "extension" not in name:  # Gardener's own test data
        assert code == 0, out
        return
    assert code == 1, out
    assert [line for line in out.splitlines() if not line.startswith("  Warning: ")][1:] == [
        '  strict decoding error: unknown field "spec.files[0].encoding"'
    ]
    code, out = run("review", "--field-validation=Ignore", "--operation", "UPDATE", "--old", path, path)
    assert code == 0, out
    assert out.startswith("ALLOWED OperatingSystemConfig/")


def test_real_gardenlinux_example_is_denied_on_create() -> None:
    """Gardener rejects it too: the CRD requires spec.purpose and the inline file's encoding key."""
    code, out = run("review", real_path(REAL_OSCS[3]))
    assert code == 1
    assert out == (
        "DENIED OperatingSystemConfig/default/pool-01-original\n"
        '  strict decoding error: unknown field "spec.files[0].encoding"\n'
        "  spec.purpose: Required value\n"
        "  spec.files[1].content.inline.encoding: Required value\n"
    )


def _readme_osc() -> dict[str, Any]:
    """The documentation's example: a provision OSC with containerd settings, drifting cgroup drivers and seed
    spellings."""
    raw = osc_dict(
        purpose="provision",
        cri={"name": "containerd"},
        criConfig={
            "name": "containerd",
            "cgroupDriver": "systemd",
            "containerd": {"sandboxImage": "registry.k8s.io/pause:3.10"},
        },
        units=[{"name": "kubelet.service", "command": "start", "filePaths": ["/var/lib/kubelet/config/kubelet"]}],
        files=[kubelet_file("cgroupfs"), kubelet_binary("v1.33.2"), plain_file("/etc/a", permissions=888)],
    )
    raw["metadata"] = {"name": "pool-a-provision", "namespace": "shoot--dev--crazy"}
    return raw


def test_denial_with_warnings_text_output(tmp_path: Path) -> None:
    code, out = run("review", write(tmp_path, "osc.yaml", _readme_osc()))
    assert code == 1
    assert out.splitlines() == [
        "DENIED OperatingSystemConfig/shoot--dev--crazy/pool-a-provision",
        '  strict decoding error: unknown field "spec.cri"',
        "  spec.criConfig.containerd: Forbidden: containerd config is not allowed for OperatingSystemConfig with purpose 'provision'",
        (
            '  spec.criConfig.cgroupDriver: Invalid value: "systemd": must equal the kubelet\'s cgroupDriver "cgroupfs" in '
            "spec.files[0].content.inline.data"
        ),
        "  Warning: spec.files[2].permissions: 888 (0o1570) looks like a mode written in decimal, but 8 and 9 are no octal digits",
        "  Warning: spec.files[0].content.inline.data: kubelet cgroupDriver cgroupfs with Kubernetes 1.33: use systemd from 1.31 on",
        "  Warning: spec.cri: not an API field, the API server drops it: CRI settings belong in spec.criConfig",
    ]


def test_json_output_and_delete(tmp_path: Path) -> None:
    path = write(tmp_path, "osc.yaml", _readme_osc())
    code, out = run("review", path, "--output", "json")
    assert code == 1
    [reviewed] = json.loads(out)
    assert reviewed["response"]["status"]["code"] == 422
    assert reviewed["response"]["auditAnnotations"]["rules"] == (
        "OSC-CRI-002,OSC-CGR-001,OSC-FILE-004,OSC-CGR-002,OSC-CRI-006"
    )
    assert run("review", "--operation", "DELETE", path) == (
        0,
        "ALLOWED OperatingSystemConfig/shoot--dev--crazy/pool-a-provision\n",
    )


def test_yaml_octal_permissions_are_read_as_modes(tmp_path: Path) -> None:
    text = yaml.safe_dump(osc_dict(files=[kubelet_file("systemd"), plain_file("/opt/run.sh")]))
    text = text.replace("    path: /opt/run.sh", "    path: /opt/run.sh\n    permissions: 0755")
    path = write(tmp_path, "osc.yaml", text)
    assert "permissions: 0755" in path.read_text()
    assert run("review", path) == (0, "ALLOWED OperatingSystemConfig/shoot--dev--crazy/pool-a-original\n")
    assert (
        run("review", write(tmp_path, "bad.yaml", text.replace("0755", "888")))[1].count(
            "Warning: spec.files[1].permissions"
        )
        == 1
    )


# The example of docs/guides/operatingsystemconfigs.md and the output printed there.
README_POOL_A: Final = Path(__file__).resolve().parents[1] / "examples" / "seed" / "operatingsystemconfig.yaml"
README_OUTPUT = [
    "DENIED OperatingSystemConfig/shoot--dev--crazy/pool-a-original",
    '  strict decoding error: unknown field "spec.cri"',
    (
        '  spec.criConfig.containerd.registries[0].upstream: Invalid value: "https://docker.io": upstream is host[:port]: '
        'drop "https://"; a lowercase RFC 1123 subdomain '
        "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ),
    (
        '  spec.criConfig.cgroupDriver: Invalid value: "systemd": must equal the kubelet\'s cgroupDriver "cgroupfs" in '
        "spec.files[0].content.inline.data"
    ),
    '  spec.files[3].path: Duplicate value: "/etc/sysctl.d/99-k8s.conf"',
    "  Warning: spec.files[2].permissions: 888 (0o1570) looks like a mode written in decimal, but 8 and 9 are no octal digits",
    "  Warning: spec.files[0].content.inline.data: kubelet cgroupDriver cgroupfs with Kubernetes 1.33: use systemd from 1.31 on",
    "  Warning: spec.cri: not an API field, the API server drops it: CRI settings belong in spec.criConfig",
]


def test_readme_example(tmp_path: Path) -> None:
    code, out = run("review", README_POOL_A)
    assert (code, out.splitlines()) == (1, README_OUTPUT)
