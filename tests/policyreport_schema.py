"""The wgpolicyk8s.io/v1alpha2 CRD schemas (tests/schemas/, kyverno v1.19.0) as an API server applies them, offline.

An API server validates a custom object against the CRD's openAPIV3Schema and silently prunes fields the schema does
not declare (structural schemas). A field we send that would be pruned is as wrong as an invalid one (the report
would lose it without a word), so the schemas are checked strictly here: every object schema that declares
`properties` gets `additionalProperties: false`. `metadata` (only `type: object` in a CRD: the API server checks it
as ObjectMeta) gets the fields the reports use, with Kubernetes' name rules. Validation is jsonschema's Draft 7
(what OpenAPI v3 schemas map to; `x-kubernetes-*` keys are ignored, as they carry no validation here).
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any, Final

import jsonschema
import yaml

SCHEMAS: Final = Path(__file__).resolve().parent / "schemas"
CRD_FILES: Final = {
    "PolicyReport": SCHEMAS / "wgpolicyk8s.io_policyreports.yaml",
    "ClusterPolicyReport": SCHEMAS / "wgpolicyk8s.io_clusterpolicyreports.yaml",
}
VERSION: Final = "v1alpha2"
_DNS_SUBDOMAIN: Final = r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_DNS_LABEL: Final = r"^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_QUALIFIED_NAME: Final = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
_METADATA: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["name"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": _DNS_SUBDOMAIN},
        "namespace": {"type": "string", "pattern": _DNS_LABEL},
        "labels": {
            "type": "object",
            "propertyNames": {"pattern": _QUALIFIED_NAME},
            "additionalProperties": {"type": "string", "maxLength": 63},
        },
        "annotations": {"type": "object", "propertyNames": {"pattern": _QUALIFIED_NAME}},
        "resourceVersion": {"type": "string"},
    },
}


def crd(kind: str) -> dict[str, Any]:
    """The CustomResourceDefinition of `kind` (PolicyReport or ClusterPolicyReport) as stored."""
    (document,) = [d for d in yaml.safe_load_all(CRD_FILES[kind].read_text(encoding="utf-8")) if d]
    assert document["kind"] == "CustomResourceDefinition" and document["spec"]["names"]["kind"] == kind
    return dict(document)


def _strict(schema: Any) -> Any:
    if isinstance(schema, dict):
        strict = {key: _strict(value) for key, value in schema.items()}
        if "properties" in strict and "additionalProperties" not in strict:
            strict["additionalProperties"] = False
        return strict
    if isinstance(schema, list):
        return [_strict(item) for item in schema]
    return schema


@cache
def _validator(kind: str) -> jsonschema.Draft7Validator:
    (version,) = [v for v in crd(kind)["spec"]["versions"] if v["name"] == VERSION]
    schema = _strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
    metadata = copy.deepcopy(_METADATA)
    if crd(kind)["spec"]["scope"] == "Namespaced":
        metadata["required"] = ["name", "namespace"]
    else:  # the API server would clear it without a word
        del metadata["properties"]["namespace"]
    schema["properties"]["metadata"] = metadata
    schema["properties"]["apiVersion"] = {"const": f"wgpolicyk8s.io/{VERSION}"}
    schema["properties"]["kind"] = {"const": kind}
    schema["required"] = ["apiVersion", "kind", "metadata"]
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def errors(obj: Any) -> list[str]:
    """What the API server would refuse or prune in obj (a PolicyReport or ClusterPolicyReport): `path: message`."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    if kind not in CRD_FILES:
        return [f"kind: {kind!r} is neither PolicyReport nor ClusterPolicyReport"]
    found = sorted(_validator(kind).iter_errors(obj), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in found]
