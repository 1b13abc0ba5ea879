"""webhook/admission/fieldvalidation.py: served versions, unknown and duplicate fields, and the models against the field data."""

from __future__ import annotations

import types
import typing
from typing import Any, Final, Union, get_args, get_origin

import pytest
from pydantic import BaseModel

from webhook.admission.fieldvalidation import (
    Duplicate,
    FieldValidation,
    check_object,
    check_version,
    kind_fields,
    served_versions,
    sources,
    type_fields,
    unknown_fields,
)
from webhook.offline.documents import ManifestReader
from webhook.validators import REGISTRY

# Model fields that are no API field on purpose: modelled only to warn about them (OSC-CRI-006, the seed's
# spelling of spec.criConfig, which the API server refuses or drops).
NOT_API_FIELDS: Final = {("OperatingSystemConfig", "spec.cri")}


def _models_in(annotation: Any) -> list[tuple[type[BaseModel], str]]:
    """(model, how the field data nests it: "" | "[]" | "map[]") for each model an annotation holds."""
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, "")]
    if origin is typing.Annotated:
        return _models_in(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        return [found for arg in get_args(annotation) for found in _models_in(arg)]
    if origin in (list, tuple, typing.Sequence) or origin is getattr(typing, "Sequence", None):
        return [(m, "[]" + nest) for arg in get_args(annotation)[:1] for m, nest in _models_in(arg)]
    if origin is dict:
        return [(m, "map[]" + nest) for m, nest in _models_in(get_args(annotation)[1])]
    return []


def _missing(model: type[BaseModel], entry: str, path: str, kind: str, seen: set[tuple[type, str]]) -> list[str]:
    """Paths of the fields `model` reads that the data's type `entry` does not have."""
    if (model, entry) in seen or entry in ("free", "scalar"):
        return []
    seen.add((model, entry))
    fields = type_fields(entry)
    found: list[str] = []
    for name, info in model.model_fields.items():
        alias = info.alias or name
        where = f"{path}.{alias}" if path else alias
        if (kind, where) in NOT_API_FIELDS:
            continue
        if alias not in fields:
            found.append(where)
            continue
        for sub, nest in _models_in(info.annotation):
            sub_entry = fields[alias]
            for prefix in ("[]", "map[]") * 2:
                if nest.startswith(prefix) and sub_entry.startswith(prefix):
                    nest, sub_entry = nest.removeprefix(prefix), sub_entry.removeprefix(prefix)
            found += _missing(sub, sub_entry, where, kind, seen)
    return found


@pytest.mark.parametrize("group_kind", sorted(REGISTRY), ids=lambda gk: gk[1])
def test_every_field_a_judged_model_reads_is_in_the_field_data(group_kind: tuple[str, str]) -> None:
    group, kind = group_kind
    versions = [v for v, kinds in served_versions(group).items() if kind in kinds]
    assert versions, f"{group} serves no {kind}"
    for version in versions:
        entry = kind_fields(f"{group}/{version}", kind)
        assert entry is not None
        assert _missing(REGISTRY[group_kind].model, entry, "", kind, set()) == []


def test_the_walk_finds_a_field_the_data_lacks() -> None:
    class Spec(BaseModel):
        max_surg: int = 0

    class Shoot(BaseModel):
        spec: Spec

    Spec.model_fields["max_surg"].alias = "maxSurg"
    assert _missing(Shoot, "gardener/core/v1beta1.Shoot", "", "Shoot", set()) == ["spec.maxSurg"]


def test_the_data_names_its_sources() -> None:
    assert sources()["gardener/gardener"] == "b312835d1784c3628983205c05452b2eaa95b645"
    assert sources()["kubernetes/api"].startswith("v0.36.3 ")
    assert sources()["kubernetes/apimachinery"].startswith("v0.36.3 ")


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        pytest.param("core.gardener.cloud/v1beta1", "Shoot", None, id="served"),
        pytest.param(
            "core.gardener.cloud/v2",
            "Shoot",
            (
                'no matches for kind "Shoot" in version "core.gardener.cloud/v2"',
                "Shoot is served in core.gardener.cloud/v1beta1",
            ),
            id="unserved-version",
        ),
        pytest.param(
            "core.gardener.cloud/v1",
            "CloudProfile",
            (
                'no matches for kind "CloudProfile" in version "core.gardener.cloud/v1"',
                "CloudProfile is served in core.gardener.cloud/v1beta1",
            ),
            id="served-version-without-the-kind",
        ),
        pytest.param(
            "seedmanagement.gardener.cloud/v1beta1",
            "Gardenlet",
            (
                'no matches for kind "Gardenlet" in version "seedmanagement.gardener.cloud/v1beta1"',
                "Gardenlet is served in seedmanagement.gardener.cloud/v1alpha1",
            ),
            id="gardenlet-only-v1alpha1",
        ),
        pytest.param(
            "apps/v1beta2",
            "Deployment",
            ('no matches for kind "Deployment" in version "apps/v1beta2"', "Deployment is served in apps/v1"),
            id="apps-beta-removed",
        ),
        pytest.param("example.com/v1", "Shoot", None, id="unknown-group-not-judged-here"),
    ],
)
def test_versions(api_version: str, kind: str, expected: tuple[str, str] | None) -> None:
    found = check_version(api_version, kind)
    assert (None if found is None else (found.message, found.hint)) == expected
    if found is not None:
        assert found.rule.id == "OBJ-VERSION-001"


SHOOT: Final = {
    "apiVersion": "core.gardener.cloud/v1beta1",
    "kind": "Shoot",
    "metadata": {
        "name": "a",
        "lables": {"x": "y"},
        "labels": {"any-key": "v"},
        "managedFields": [{"fieldsV1": {"f:x": {}}}],
    },
    "spec": {
        "provider": {
            "type": "aws",
            "infrastructureConfig": {"anything": {"goes": True}},
            "workers": [
                {"name": "a", "maxSurge": 1, "providerConfig": {"free": [{"form": 1}]}},
                {
                    "name": "b",
                    "maxSurg": 1,
                    "machine": {"type": "m", "imag": {}},
                    "taints": [{"key": "k", "efect": "x"}],
                },
            ],
        },
        "resources": [{"name": "r", "resourceRef": {"kind": "Secret", "name": "s", "apiVersion": "v1"}}],
        "kubernetes": {"kubeAPIServer": {"admissionPlugins": [{"name": "p", "config": {"free": 1}}]}},
    },
    "status": {"conditions": [{"type": "x", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]},
}


def test_unknown_fields_deep_with_maps_lists_and_free_form_values() -> None:
    assert unknown_fields(SHOOT, "gardener/core/v1beta1.Shoot") == [
        "metadata.lables",
        "spec.provider.workers[1].maxSurg",
        "spec.provider.workers[1].machine.imag",
        "spec.provider.workers[1].taints[0].efect",
    ]


def test_values_of_the_wrong_type_are_left_to_decoding() -> None:
    obj = {"spec": {"provider": {"workers": {"a": 1}}, "region": {"x": 1}}, "metadata": ["x"]}
    assert unknown_fields(obj, "gardener/core/v1beta1.Shoot") == []


def test_deployment_fields_come_from_kubernetes_types() -> None:
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "gardener-apiserver"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "x"}},
            "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {
                    "containers": [
                        {"name": "c", "image": "i", "resources": {"limits": {"cpu": "1"}}, "imagePullPolicy": "x"}
                    ],
                    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}],
                    "volumes": [{"name": "v", "secret": {"secretName": "s"}, "configMapp": {}}],
                },
            },
        },
    }
    assert unknown_fields(deployment, "k8s.io/api/apps/v1.Deployment") == ["spec.template.spec.volumes[0].configMapp"]


def test_modes() -> None:
    duplicates = (Duplicate("spec.provider.type", 12, 10),)
    strict = check_object(SHOOT, duplicates, where="s.yaml", mode=FieldValidation.STRICT)
    assert [f.rule.id for f in strict.errors] == ["OBJ-STRICT-001"] * 4 + ["OBJ-STRICT-002"]
    assert strict.errors[1].message == 'strict decoding error: unknown field "spec.provider.workers[1].maxSurg"'
    assert strict.errors[-1].message == 'strict decoding error: duplicate field "spec.provider.type"'
    assert strict.hints == (
        (
            's.yaml line 12: "spec.provider.type" is already defined at line 10 (the last one wins without strict '
            "validation)"
        ),
    )
    warn = check_object(SHOOT, duplicates, where="s.yaml", mode=FieldValidation.WARN)
    assert (warn.errors, warn.warnings) == ((), strict.errors)
    assert check_object(SHOOT, duplicates, where="s.yaml", mode=FieldValidation.IGNORE).warnings == ()
    unserved = check_object(
        {**SHOOT, "apiVersion": "core.gardener.cloud/v2"}, (), where="", mode=FieldValidation.STRICT
    )
    assert [f.rule.id for f in unserved.errors] == ["OBJ-VERSION-001"]  # no field set to check against
    assert not unserved.served


def test_duplicate_keys_are_found_with_their_paths_and_lines() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- apiVersion: core.gardener.cloud/v1beta1\n  kind: Shoot\n  metadata: {name: a}\n"
        "  spec:\n    region: x\n    region: y\n"
        "- apiVersion: core.gardener.cloud/v1beta1\n  kind: Shoot\n  metadata:\n    name: b\n    labels: {k: 1, k: 2}\n"
        "---\n"
        "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata: {name: c}\n"
        "spec:\n  provider:\n    workers:\n    - name: a\n      name: b\n"
    )
    manifests = ManifestReader().read_all([_stdin(text)])
    assert [m.duplicates for m in manifests] == [
        (Duplicate("spec.region", 9, 8),),
        (Duplicate("metadata.labels.k", 14, 14),),
        (Duplicate("spec.provider.workers[0].name", 23, 22),),
    ]
    assert manifests[0].obj["spec"]["region"] == "y"  # the last one wins, as before


def test_pure_python_loader_finds_duplicates_too() -> None:
    from webhook.offline.yamlload import _load_pure

    found: dict[int, list[Duplicate]] = {}
    _load_pure("%YAML 1.1\n---\na: 1\nb: {c: 1, c: 2}\n", "f.yaml", found)
    assert found == {1: [Duplicate("b.c", 4, 4)]}


def _stdin(text: str) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(text)
    return handle.name
