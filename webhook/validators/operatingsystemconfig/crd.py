"""OSC-CRD-001..004: what the OperatingSystemConfig CRD's schema requires, checked before Gardener's webhook runs.

kube-apiserver checks the CRD first: required keys (OSC-CRD-001 spec, spec.type, spec.purpose; OSC-CRD-004 the
keys of files, units, containerd and inPlaceUpdates), the `criConfig.name` enum and its CEL immutability
(OSC-CRD-002), and CEL immutability of `class` (OSC-CRD-003). Objects read by `review` never met a CRD, and older
CRDs lack some of these checks, so they are rules here. A missing key is this module's finding; an empty value is
the webhook rule's (the other modules of this package), so a defect is reported once. The other modules call the
key checks of their part of the object from here.
Source: gardener pkg/component/extensions/crds/assets/crd-extensions.gardener.cloud_operatingsystemconfigs.yaml.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule, render_value
from webhook.models.extensions import ContainerdConfig, CRIConfig, File, InPlaceUpdates, OperatingSystemConfigSpec, Unit

_CRD: Final = (
    "gardener/gardener pkg/component/extensions/crds/assets/crd-extensions.gardener.cloud_operatingsystemconfigs.yaml"
)

OSC_CRD_001 = Rule("OSC-CRD-001", f"{_CRD} (required: spec; spec.type, spec.purpose)")
OSC_CRD_002 = Rule("OSC-CRD-002", f"{_CRD} spec.criConfig.name (required, enum containerd, CEL self == oldSelf)")
OSC_CRD_003 = Rule("OSC-CRD-003", f"{_CRD} spec.class (CEL self == oldSelf)")
OSC_CRD_004 = Rule("OSC-CRD-004", f"{_CRD} (required keys of files, units, containerd, inPlaceUpdates)")

RULES: Final = (OSC_CRD_001, OSC_CRD_002, OSC_CRD_003, OSC_CRD_004)

CRI_NAMES: Final = ("containerd",)
_CEL_IMMUTABLE: Final = "Value is immutable"


@OSC_CRD_001.check
def validate_spec_keys(spec: OperatingSystemConfigSpec | None, path: FieldPath) -> list[Finding]:
    """`spec`, and in it `purpose` and `type`, must be present (empty strings pass the schema); path: spec.

    Also the keys `inPlaceUpdates` requires (OSC-CRD-004), which sit directly in the spec.
    """
    if spec is None:
        return [OSC_CRD_001.required(path, "")]
    findings: list[Finding] = []
    if spec.purpose is None:
        findings.append(OSC_CRD_001.required(path.child("purpose"), ""))
    if spec.type is None:
        findings.append(OSC_CRD_001.required(path.child("type"), ""))
    findings.extend(_validate_in_place_update_keys(spec.in_place_updates, path.child("inPlaceUpdates")))
    return findings


@OSC_CRD_002.check
def validate_cri_name(cri: CRIConfig, path: FieldPath, *, stored: str | None = None) -> list[Finding]:
    """`criConfig.name` is required and must be `containerd` (CRD enum); path: spec.criConfig.

    stored: the stored object's name (UPDATE). A name outside the enum is that one defect, changed or not: the API
    server evaluates a field's CEL rules only once its schema holds, so it reports the enum and not the change
    (kube-apiserver v1.36, seen in tests/e2e). A name in the enum that differs from the stored one is the change,
    which `validate_immutable_keys` reports with both values.
    """
    if cri.name is None:
        return [OSC_CRD_002.required(path.child("name"), "")]
    if stored is not None and cri.name != stored and cri.name in CRI_NAMES:
        return []
    if cri.name not in CRI_NAMES:
        return [OSC_CRD_002.unsupported(path.child("name"), cri.name, CRI_NAMES)]
    return []


@OSC_CRD_004.check
def _validate_in_place_update_keys(updates: InPlaceUpdates | None, path: FieldPath) -> list[Finding]:
    """`inPlaceUpdates` needs `kubelet` and `operatingSystemVersion`; path: spec.inPlaceUpdates."""
    if updates is None:
        return []
    findings: list[Finding] = []
    if updates.kubelet is None:
        findings.append(OSC_CRD_004.required(path.child("kubelet"), ""))
    if updates.operating_system_version is None:
        findings.append(OSC_CRD_004.required(path.child("operatingSystemVersion"), ""))
    return findings


@OSC_CRD_004.check
def validate_unit_keys(units: Sequence[Unit], path: FieldPath) -> list[Finding]:
    """Units need `name`, drop-ins `content` and `name`; path: the unit list."""
    findings: list[Finding] = []
    for i, unit in enumerate(units):
        if unit.name is None:
            findings.append(OSC_CRD_004.required(path.index(i).child("name"), ""))
        for j, drop_in in enumerate(unit.drop_ins):
            if drop_in.content is None:
                findings.append(OSC_CRD_004.required(path.index(i).child("dropIns").index(j).child("content"), ""))
            if drop_in.name is None:
                findings.append(OSC_CRD_004.required(path.index(i).child("dropIns").index(j).child("name"), ""))
    return findings


@OSC_CRD_004.check
def validate_file_keys(files: Sequence[File], path: FieldPath) -> list[Finding]:
    """Files need `content` and `path`; each content source its keys (CRD `required` lists); path: the file list."""
    findings: list[Finding] = []
    for i, file in enumerate(files):
        idx = path.index(i)
        if file.content is None:
            findings.append(OSC_CRD_004.required(idx.child("content"), ""))
        if file.path is None:
            findings.append(OSC_CRD_004.required(idx.child("path"), ""))
        if file.content is None:
            continue
        ref, inline, image = file.content.secret_ref, file.content.inline, file.content.image_ref
        keys: list[tuple[tuple[str, str], str | None]] = []  # (names below content, value); paths only for findings
        if image is not None:
            keys += [(("imageRef", "filePathInImage"), image.file_path_in_image), (("imageRef", "image"), image.image)]
        if inline is not None:
            keys += [(("inline", "data"), inline.data), (("inline", "encoding"), inline.encoding)]
        if ref is not None:
            keys += [(("secretRef", "dataKey"), ref.data_key), (("secretRef", "name"), ref.name)]
        findings.extend(
            OSC_CRD_004.required(idx.child("content", *names), "") for names, value in keys if value is None
        )
    return findings


@OSC_CRD_004.check
def validate_containerd_keys(containerd: ContainerdConfig, path: FieldPath) -> list[Finding]:
    """containerd needs `sandboxImage`, registries `upstream`, hosts `url`, plugins `path`; path: ...containerd."""
    findings: list[Finding] = []
    for i, plugin in enumerate(containerd.plugins):
        if plugin.path is None:
            findings.append(OSC_CRD_004.required(path.child("plugins").index(i).child("path"), ""))
    for i, registry in enumerate(containerd.registries):
        reg_path = path.child("registries").index(i)
        for k, host in enumerate(registry.hosts):
            if host.url is None:
                findings.append(OSC_CRD_004.required(reg_path.child("hosts").index(k).child("url"), ""))
        if registry.upstream is None:
            findings.append(OSC_CRD_004.required(reg_path.child("upstream"), ""))
    if containerd.sandbox_image is None:
        findings.append(OSC_CRD_004.required(path.child("sandboxImage"), ""))
    return findings


def validate_immutable_keys(
    new: OperatingSystemConfigSpec, old: OperatingSystemConfigSpec, path: FieldPath
) -> list[Finding]:
    """`criConfig.name` and `class` keep their value once set (CRD CEL `self == oldSelf`); path: spec.

    CEL transition rules run only when the old and the new object both have the field, and only when the new value
    passes the field's schema (a name outside the enum is `validate_cri_name`'s). The API server shows the schema type
    ("string") as the value; the finding shows the new value and, after the CEL message, the stored one.
    """
    findings: list[Finding] = []
    new_name = new.cri_config.name if new.cri_config is not None else None
    old_name = old.cri_config.name if old.cri_config is not None else None
    if new_name is not None and old_name is not None and new_name != old_name and new_name in CRI_NAMES:
        findings.append(OSC_CRD_002.invalid(path.child("criConfig", "name"), new_name, _immutable(old_name)))
    if new.class_ is not None and old.class_ is not None and new.class_ != old.class_:
        findings.append(OSC_CRD_003.invalid(path.child("class"), new.class_, _immutable(old.class_)))
    return findings


def _immutable(stored: str) -> str:
    return f"{_CEL_IMMUTABLE} (was {render_value(stored)})"
