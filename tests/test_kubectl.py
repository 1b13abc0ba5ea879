"""What a kubectl user reads when the webhook answers: every message class on kubectl's own rendering.

Our answer travels through the API server and kubectl before anyone reads it. `kubectl_stderr` mirrors that path:
- the API server turns a denial into an error, prefixing status.message and keeping code, reason and details
  (k8s.io/apiserver pkg/admission/plugin/webhook/errors/statuserror.go ToStatusErr), and passes the warnings on;
- `kubectl apply -f FILE` names the file in the message (k8s.io/kubectl pkg/cmd/util/helpers.go AddSourceToErr,
  verb "creating" for a new object), prints each warning as `Warning: <text>` (k8s.io/client-go rest/warnings.go
  warningWriter.HandleWarningHeader, de-duplicated), and prints the error with checkErr (helpers.go): reason Invalid
  with details → `The <Kind> "<name>" is invalid: ` and the causes (statusCausesToAggrError, MultilineError: inline
  when there is one, else a line break and one `* <field>: <message>` line each); any other reason →
  StandardErrorMessage, `Error from server (<Reason>): <message>`; several failed objects (an Aggregate) →
  MultipleErrors, one StandardErrorMessage each, whatever their reasons. fatal ends the text with a line break.
So a 422 for one object shows the causes, and a 403, or any denial among several objects, shows status.message.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path
from typing import Any, Final

import pytest

from tests.builders import EMPTY_VIEW, NOW, review_bytes
from tests.validators.osc_cases import osc_dict
from tests.validators.shoot.cases import PROFILE, VIEW, image_of, pool, shoot_dict
from webhook.cli import main
from webhook.cluster.static import StaticView
from webhook.judging.judge import judge
from webhook.server.certs import WEBHOOK_NAMES
from webhook.settings import Settings

Status = dict[str, Any]

WEBHOOK: Final = {name.split(".")[0]: name for names in WEBHOOK_NAMES.values() for name in names}
W0: Final = "spec.provider.workers[0]"
DENIED: Final = f'admission webhook "{WEBHOOK["shoots"]}" denied the request: '


# ------------------------------------------------------------------------------------- the kubectl mirror


def to_status_error(webhook: str, status: Status) -> Status:
    """k8s.io/apiserver ToStatusErr: the webhook's Status as the API server returns it to the client."""
    result = copy.deepcopy(status)
    result["code"] = max(result.get("code", 0), 400)
    denied_by = f"admission webhook {json.dumps(webhook)} denied the request"
    if result.get("message"):
        result["message"] = f"{denied_by}: {result['message']}"
    elif result.get("reason"):
        result["message"] = f"{denied_by}: {result['reason']}"
    else:
        result["message"] = f"{denied_by} without explanation"
    return result


def add_source_to_err(verb: str, source: str, status: Status) -> Status:
    """k8s.io/kubectl cmdutil.AddSourceToErr for an API status error."""
    return {**status, "message": f"error when {verb} {json.dumps(source)}: {status['message']}"}


def standard_error_message(status: Status) -> str:
    """kubectl cmdutil.StandardErrorMessage for an API status error."""
    if status.get("reason") == "Unauthorized":
        return f"error: You must be logged in to the server ({status['message']})"
    if status.get("reason"):
        return f"Error from server ({status['reason']}): {status['message']}"
    return f"Error from server: {status['message']}"


def multiline_error(prefix: str, errors: list[str]) -> str:
    """kubectl cmdutil.MultilineError for an aggregate of `errors`."""
    if len(errors) == 1:
        return f"{prefix}{errors[0]}\n"
    return prefix + "\n" + "".join(f"* {e}\n" for e in errors)


def check_err(statuses: list[Status]) -> str:
    """kubectl cmdutil.checkErr for the errors of the objects that failed (an Aggregate when several), then fatal's
    final line break."""
    if len(statuses) > 1:
        return "".join(f"{standard_error_message(s)}\n" for s in statuses)
    status = statuses[0]
    message = status.get("message", "")
    if status.get("reason") != "Invalid":
        text = standard_error_message(status)
    elif (details := status.get("details")) is None:
        text = "The request is invalid" + (f": {message}" if message else "")
    else:
        text = "The request is invalid"
        causes = details.get("causes") or []
        if details.get("kind") or details.get("name"):
            text = f"The {details.get('kind', '')} {json.dumps(details.get('name', ''))} is invalid"
        elif message and not causes:
            text += f": {message}"
        if causes:
            # statusCausesToAggrError: "<field>: <message>", repeats dropped
            lines = list(dict.fromkeys(f"{c.get('field', '')}: {c.get('message', '')}" for c in causes))
            text = multiline_error(text + ": ", lines)
    return text if text.endswith("\n") else text + "\n"


def kubectl_stderr(*files: tuple[str, bytes, StaticView]) -> str:
    """What `kubectl apply -f` prints to stderr for new objects, one (file name, AdmissionReview body, cluster view)
    each, all sent to the webhook of their kind: every warning as it arrives, then the errors."""
    warnings: list[str] = []
    errors: list[Status] = []
    for source, body, view in files:
        outcome = judge(body, view=view, settings=Settings(), now=NOW)
        warnings += [w for w in outcome.response.get("warnings", []) if w not in warnings]
        status = outcome.response.get("status")
        if status is not None:
            webhook = WEBHOOK[outcome.envelope.kind.lower() + "s"]
            errors.append(add_source_to_err("creating", source, to_status_error(webhook, dict(status))))
    return "".join(f"Warning: {w}\n" for w in warnings) + (check_err(errors) if errors else "")


def shoot_file(raw: dict[str, Any]) -> str:
    return kubectl_stderr(("shoot.yaml", review_bytes(raw), VIEW))


def test_the_mirror_prints_kubectls_own_example() -> None:
    """A 422 of the kube-apiserver's own shape (NewInvalid: kind, name, two causes) as kubectl prints it."""
    status = {"message": 'Deployment.apps "web" is invalid: [...]', "reason": "Invalid", "code": 422,
              "details": {"name": "web", "group": "apps", "kind": "Deployment", "causes": [
                  {"field": "spec.replicas", "message": "Invalid value: -1: must be >= 0"},
                  {"field": "spec.replicas", "message": "Invalid value: -1: must be >= 0"},
                  {"field": "spec.selector", "message": "Required value"}]}}  # fmt: skip
    assert check_err([status]) == (
        'The Deployment "web" is invalid: \n* spec.replicas: Invalid value: -1: must be >= 0\n* spec.selector: Required value\n'
    )


# ------------------------------------------------------------------------- several findings, one per line


def test_a_403_with_several_findings_reads_one_per_line() -> None:
    """Static (422) and profile (403) findings together: a 403, which kubectl prints by its message."""
    raw = shoot_dict(pool(kubernetes={"version": "1.28.15"}), version="1.32.5")
    assert shoot_file(raw) == (
        f'Error from server (Forbidden): error when creating "shoot.yaml": {DENIED}\n'
        f"* {W0}.kubernetes.version: Forbidden: worker group kubernetes version must be at most three minor versions "
        'behind control plane version (Kubernetes version skew policy): worker "1.28.15", control plane "1.32.5"\n'
        '* spec.kubernetes.version: Unsupported value: "1.32.5": supported values: "1.35.0 (preview)", "1.34.2", '
        '"1.34.1", "1.33.2", "1.33.1", "1.32.9", "1.31.9", "1.30.14", "1.29.14", "1.28.15", "1.27.16", "1.26.15", '
        '"1.25.16", "1.24.17", "1.23.17", "1.22.17"\n'
    )


def test_a_422_with_several_findings_reads_one_per_line() -> None:
    """kubectl prints a 422's causes, one per line, and not its message."""
    raw = shoot_dict(pool(kubernetes={"version": "1.34.2"}), pool("pool-b", kubernetes={"version": "1.28.15"}))
    assert shoot_file(raw) == (
        'The Shoot "crazy-botany" is invalid: \n'
        f"* {W0}.kubernetes.version: Forbidden: worker group kubernetes version must not be higher than control plane "
        'version: worker "1.34.2", control plane "1.33.2"\n'
        "* spec.provider.workers[1].kubernetes.version: Forbidden: worker group kubernetes version must be at most "
        'three minor versions behind control plane version (Kubernetes version skew policy): worker "1.28.15", '
        'control plane "1.33.2"\n'
    )


def test_several_denied_objects_read_one_finding_per_line_whatever_the_code() -> None:
    """`kubectl apply -f dir/` with two denied objects prints each by its message: the 422 reads like the 403."""
    forbidden = review_bytes(shoot_dict(pool(kubernetes={"version": "1.28.15"}), version="1.32.5"))
    invalid = review_bytes(osc_dict(purpose="provision", files=[]))
    stderr = kubectl_stderr(("a/shoot.yaml", forbidden, VIEW), ("a/osc.yaml", invalid, EMPTY_VIEW))
    lines = stderr.splitlines()
    assert lines[0] == f'Error from server (Forbidden): error when creating "a/shoot.yaml": {DENIED}'
    assert [line.split(":")[0] for line in lines[1:3]] == [f"* {W0}.kubernetes.version", "* spec.kubernetes.version"]
    osc_webhook = WEBHOOK["operatingsystemconfigs"]
    assert lines[3:] == [
        (
            f'Error from server (Invalid): error when creating "a/osc.yaml": admission webhook "{osc_webhook}" '
            "denied the request: "
        ),
        (
            "* spec.criConfig.containerd: Forbidden: containerd config is not allowed for OperatingSystemConfig "
            "with purpose 'provision'"
        ),
        (
            "* spec.units[0].filePaths[0]: Invalid value: \"/var/lib/kubelet/config/kubelet\": 'filePath' requires "
            "a matching 'path' in 'spec.files'"
        ),
    ]


# ------------------------------------------------------------------------------------- the message classes


NO_REGIONS: Final = StaticView.from_objects([{**PROFILE, "spec": {**PROFILE["spec"], "regions": []}}])


@pytest.mark.parametrize(
    ("raw", "old", "view", "expected"),
    [
        pytest.param(
            shoot_dict(region="europe-west1"), None, NO_REGIONS,
            f'Error from server (Forbidden): error when creating "shoot.yaml": {DENIED}spec.region: Unsupported value: '
            '"europe-west1": the cloud profile offers no regions\n',
            id="nothing-supported-says-what-the-profile-lacks",
        ),
        pytest.param(
            shoot_dict(region="us-east-1"), None, VIEW,
            f'Error from server (Forbidden): error when creating "shoot.yaml": {DENIED}spec.region: Unsupported value: '
            '"us-east-1": supported values: "eu-1", "eu-2"\n',
            id="no-knock-on-zone-finding-after-an-unknown-region",
        ),
        pytest.param(
            shoot_dict(pool(zones=["eu-1a"]), region="eu-2"), None, VIEW,
            f'Error from server (Forbidden): error when creating "shoot.yaml": {DENIED}{W0}.zones[0]: Invalid value: '
            '"eu-1a": this region does not support availability zones, please do not configure them\n',
            id="the-value-is-the-value-at-the-path",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("ubuntu", "22.4.0"))), None, VIEW,
            f'Error from server (Forbidden): error when creating "shoot.yaml": {DENIED}{W0}.machine.image.name: '
            'Invalid value: "ubuntu": image is not supported, supported images for architecture "amd64": '
            '"gardenlinux", "local", "suse-chost"\n',
            id="unknown-image-at-its-name-with-the-offered-images",
        ),
        pytest.param(
            shoot_dict(pool(kubernetes={"version": "1.34.2"})), None, VIEW,
            f'The Shoot "crazy-botany" is invalid: {W0}.kubernetes.version: Forbidden: worker group kubernetes version '
            'must not be higher than control plane version: worker "1.34.2", control plane "1.33.2"\n',
            id="worker-version-names-both-versions",
        ),
        pytest.param(
            shoot_dict(pool(kubernetes={"version": "1.32.5"}), version="1.31.9"),
            shoot_dict(pool(kubernetes={"version": "1.32.5"}), version="1.33.2"),
            VIEW,
            f'Warning: {W0}.kubernetes.version: "1.32.5" is expired and has no force-update target\n'
            'The Shoot "crazy-botany" is invalid: \n'
            f"* {W0}.kubernetes.version: Forbidden: worker group kubernetes version must not be higher than control "
            'plane version: worker "1.32.5", control plane "1.31.9"\n'
            '* spec.kubernetes.version: Forbidden: kubernetes version downgrade is not supported: from "1.33.2" to '
            '"1.31.9"\n',
            id="no-downgrade-advised-in-a-denied-downgrade",
        ),
        pytest.param(
            osc_dict(criConfig={"name": "containerd"}), osc_dict(criConfig={"name": "docker"}), EMPTY_VIEW,
            'The OperatingSystemConfig "pool-a-original" is invalid: spec.criConfig.name: Invalid value: "containerd": '
            'Value is immutable (was "docker")\n',
            id="osc-immutable-once-with-both-values",
        ),
        pytest.param(
            osc_dict(criConfig={"name": "containerd", "containerd": {
                "sandboxImage": "registry.k8s.io/pause:3.10", "registries": [{"upstream": "https://docker.io/v2"}]}}),
            None, EMPTY_VIEW,
            'The OperatingSystemConfig "pool-a-original" is invalid: spec.criConfig.containerd.registries[0].upstream: '
            'Invalid value: "https://docker.io/v2": upstream is host[:port]: drop "https://" and "/v2"; a lowercase '
            "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n",
            id="osc-upstream-says-what-to-drop",
        ),
    ],
)  # fmt: skip
def test_message_class(raw: dict[str, Any], old: dict[str, Any] | None, view: StaticView, expected: str) -> None:
    assert kubectl_stderr(("shoot.yaml", review_bytes(raw, old), view)) == expected


# ------------------------------------------------------------------------------------ the documentation

ROOT: Final = Path(__file__).resolve().parents[1]


def _replaced(*argv: str) -> str:
    """`kubectl replace -f <last argument>` in a garden with this webhook, for the edit `review` judges with argv."""
    out = io.StringIO()
    assert main([*argv, "--output", "json"], out=out) == 1
    status = json.loads(out.getvalue())[0]["response"]["status"]
    denial = to_status_error(WEBHOOK["cloudprofiles"], status)
    return check_err([add_source_to_err("replacing", argv[-1], denial)])


def test_the_documentation_shows_what_kubectl_prints() -> None:
    """docs/concepts/request-flow.md "The answer" shows kubectl's output for the two broken CloudProfile edits of the
    examples."""
    with contextlib.chdir(ROOT):
        removed = _replaced(
            "review", "--operation", "UPDATE", "--old", "examples/landscape/cloudprofile.yaml", "--context",
            "examples/landscape/", "examples/changes/cloudprofile-removed.yaml",
        )  # fmt: skip
        invalid = _replaced("review", "examples/changes/cloudprofile-invalid.yaml")
    readme = (ROOT / "docs" / "concepts" / "request-flow.md").read_text(encoding="utf-8")
    for printed in (removed, invalid):
        block = "  ```\n" + "".join(f"  {line}\n" for line in printed.splitlines()) + "  ```\n"
        assert block in readme, printed
