"""webhook/validators/seedmanagement_metadata.py: GL-META-*, MS-META-* on Gardenlets and ManagedSeeds.

Cases after Gardener's pkg/api/seedmanagement/validation gardenlet_test.go and managedseed_test.go; each `*-message`
case holds the line the Go code prints for the same input (field.Error.Error()). The base objects and the landscape
come from test_gardener_components.py, where the VS-* rules of the same kinds are tested.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.builders import review_bytes
from tests.validators.test_gardener_components import LANDSCAPE, NOW, gardenlet, managed_seed
from webhook.domain.field import ErrorType
from webhook.judging.judge import judge
from webhook.settings import Settings

INV, REQ, FOR, UNS = ErrorType.INVALID, ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.UNSUPPORTED
OPERATION = "metadata.annotations[gardener.cloud/operation]"


def with_meta(obj: dict[str, Any], **meta: Any) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    obj["metadata"].update(meta)
    return {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if v is not None}}


def denials(obj: dict[str, Any], old: dict[str, Any] | None = None) -> list[str]:
    """The denial lines (`status.message` lines after the first) of the AdmissionReview answer."""
    response = judge(review_bytes(obj, old), view=LANDSCAPE, settings=Settings(), now=NOW).response
    if response["allowed"]:
        return []
    causes = response["status"]["details"]["causes"]
    return [f"{c['field']}: {c['message']}" for c in causes]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(gardenlet(tag="v1.37.0"), [], id="GL-META-001-valid"),
        pytest.param(with_meta(gardenlet(tag="v1.37.0"), namespace=None), [], id="GL-META-001-namespace-from-context"),
        pytest.param(
            with_meta(gardenlet(tag="v1.37.0"), name="aws.eu1"),
            ['metadata.name: Invalid value: "aws.eu1": must not contain dots'],
            id="GL-META-001-name-message",
        ),
        pytest.param(
            with_meta(gardenlet(tag="v1.37.0"), namespace="default"),
            ["metadata.namespace: Forbidden: namespace must be garden"],
            id="GL-META-001-namespace-message",
        ),
        pytest.param(
            with_meta(gardenlet(tag="v1.37.0"), name=None),
            ["metadata.name: Required value: name or generateName is required"],
            id="GL-META-001-no-name-message",
        ),
        pytest.param(
            with_meta(gardenlet(tag="v1.37.0"), annotations={"gardener.cloud/operation": "force-redeploy"}),
            [],
            id="GL-META-002-force-redeploy",
        ),
        pytest.param(
            with_meta(gardenlet(tag="v1.37.0"), annotations={"gardener.cloud/operation": "foo"}),
            [
                f'{OPERATION}: Unsupported value: "foo": supported values: "force-redeploy", "reconcile", "renew-kubeconfig"'
            ],
            id="GL-META-002-message",
        ),
        pytest.param(managed_seed(), [], id="MS-META-001-valid"),
        pytest.param(
            with_meta(managed_seed(), name="NAMEPLACEHOLDER"),
            [
                (
                    'metadata.name: Invalid value: "NAMEPLACEHOLDER": a lowercase RFC 1123 label must consist of lower '
                    "case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
                    "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
                )
            ],
            id="MS-META-001-name-message",
        ),
        pytest.param(with_meta(managed_seed(), name=None, generateName="ms-"), [], id="MS-META-001-generate-name"),
        pytest.param(
            with_meta(managed_seed(), labels={"app": "-x"}),
            [
                (
                    'metadata.labels: Invalid value: "-x": a valid label must be an empty string or consist of '
                    "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
                    "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
                )
            ],
            id="MS-META-001-label-value-message",
        ),
        pytest.param(
            with_meta(managed_seed(), annotations={"gardener.cloud/operation": "force-redeploy"}),
            [f'{OPERATION}: Unsupported value: "force-redeploy": supported values: "reconcile", "renew-kubeconfig"'],
            id="MS-META-002-message",
        ),
    ],
)
def test_metadata_on_create(obj: dict[str, Any], expected: list[str]) -> None:
    assert denials(obj) == expected


def test_name_and_namespace_are_judged_on_create_only() -> None:
    """They never change (ValidateObjectMetaUpdate): a stored object keeps them; labels are judged again."""
    old = with_meta(managed_seed(), name="NAMEPLACEHOLDER")
    new = with_meta(old, labels={"role": "seed"})
    assert denials(new, old) == []
    bad = with_meta(old, labels={"-role": "seed"})
    assert [line.split(":")[0] for line in denials(bad, old)] == ["metadata.labels"]
