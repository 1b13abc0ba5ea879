"""OSC-CGR-001..002: containerd and the kubelet agree on the cgroup driver, and use systemd from Kubernetes 1.31.

OSC-CGR-001: `spec.criConfig.cgroupDriver` equals the `cgroupDriver` of every KubeletConfiguration found among
the inline files. OSC-CGR-002 (warning): `cgroupfs`, in either place, when the node runs Kubernetes ≥ 1.31
(a version read from `inPlaceUpdates.kubelet` or the tag of the kubelet binary's image). Gardener checks neither;
the values themselves are OSC-CRI-001's business (`cri`).
Source: docs/requirements.md "OperatingSystemConfig contract", cgroup driver; docs/design.md §5.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

import yaml
from pydantic import ValidationError

from webhook.caching.rules import RuleCaches, judged_once
from webhook.domain.field import FieldPath, Finding, Mode, Rule
from webhook.domain.versions import Version, find_version
from webhook.models.extensions import CRIConfig, File, KubeletConfiguration, OperatingSystemConfigSpec
from webhook.validators.operatingsystemconfig._shared import SEED
from webhook.validators.operatingsystemconfig.cri import CGROUP_DRIVERS

OSC_CGR_001 = Rule(
    "OSC-CGR-001", f'{SEED} "cgroup driver": kubelet and containerd use the same driver; docs/design.md §5'
)
OSC_CGR_002 = Rule("OSC-CGR-002", f'{SEED} "cgroup driver": systemd for Kubernetes 1.31+; docs/design.md §5', Mode.WARN)

RULES: Final = (OSC_CGR_001, OSC_CGR_002)

SYSTEMD_FROM: Final = (1, 31)
KUBELET_IN_IMAGE: Final = "/kubelet"
_YAML_LOADER: Final[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def validate_cgroup_driver(
    spec: OperatingSystemConfigSpec, path: FieldPath, caches: RuleCaches | None = None
) -> list[Finding]:
    """OSC-CGR-001 then OSC-CGR-002 on a present spec; path: spec. Never raises.

    The kubelet files are found once for both. Findings sit on criConfig.cgroupDriver, except a kubelet file's
    warning, which sits on its inline data. caches: the request's; what an inline file holds is read once per
    content (`judged_once`), for files of at most `_KEPT_BYTES` of data.
    """
    kubelet_files = list(_kubelet_files(spec.files, path.child("files"), caches))
    driver_path = path.child("criConfig", "cgroupDriver")
    return [
        *_validate_cgroup_drivers(spec.cri_config, kubelet_files, driver_path),
        *_warn_cgroupfs(spec, kubelet_files, driver_path),
    ]


@dataclass(frozen=True, slots=True)
class _KubeletFile:
    """A spec.files entry carrying a KubeletConfiguration; data_path points at its inline data."""

    data_path: FieldPath
    cgroup_driver: str | None


def _kubelet_files(files: Sequence[File], path: FieldPath, caches: RuleCaches | None) -> Iterator[_KubeletFile]:
    """Inline files (plain or b64) whose content is a KubeletConfiguration (YAML or JSON); path: spec.files.

    Found by content, not by path (Gardener writes /var/lib/kubelet/config/kubelet, OS extensions may differ).
    Content that does not decode or parse is no kubelet configuration; secretRef and imageRef content is unknown.
    """
    for i, file in enumerate(files):
        inline = file.content.inline if file.content is not None else None
        if inline is None or not inline.data:
            continue
        encoding, data = inline.encoding or "", inline.data
        if len(data) > _KEPT_BYTES:
            found = _kubelet_config(encoding, data)
        else:  # a landscape's OSCs carry the same few kubelet configurations: each is read once
            found = judged_once(
                caches, "kubelet file", (), (encoding, data), None, partial(_kubelet_config, encoding, data)
            )
        if found.is_kubelet:
            yield _KubeletFile(path.index(i).child("content", "inline", "data"), found.cgroup_driver)


@dataclass(frozen=True, slots=True)
class _Content:
    """What an inline file holds, for these rules: a KubeletConfiguration (and its cgroupDriver) or not."""

    is_kubelet: bool
    cgroup_driver: str | None = None


_NO_KUBELET: Final = _Content(is_kubelet=False)
_KEPT_BYTES: Final = 16 << 10  # larger file data is read on every request, never kept


def _kubelet_config(encoding: str, data: str) -> _Content:
    """The KubeletConfiguration in inline file data (`encoding`: "" or "b64"), else `_NO_KUBELET`."""
    text = _inline_text(encoding, data)
    if text is None or "KubeletConfiguration" not in text:
        return _NO_KUBELET
    try:
        loaded = yaml.load(text, Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
        config = KubeletConfiguration.model_validate(loaded, by_alias=True)
    except (yaml.YAMLError, ValidationError, RecursionError):
        return _NO_KUBELET
    if config.kind != "KubeletConfiguration":
        return _NO_KUBELET
    return _Content(is_kubelet=True, cgroup_driver=config.cgroup_driver)


def _inline_text(encoding: str, data: str) -> str | None:
    """The text of inline file data: plain, or base64 (`b64`, line breaks ignored as Go's decoder does)."""
    if encoding == "":
        return data
    if encoding != "b64":
        return None
    try:
        return base64.b64decode(data.replace("\n", "").replace("\r", ""), validate=True).decode("utf-8")
    except ValueError:  # binascii.Error, UnicodeDecodeError, and non-ASCII data (which b64decode refuses up front)
        return None


@OSC_CGR_001.check
def _validate_cgroup_drivers(
    cri: CRIConfig | None, kubelet_files: Sequence[_KubeletFile], path: FieldPath
) -> list[Finding]:
    """containerd's `criConfig.cgroupDriver` equals the `cgroupDriver` of every kubelet configuration file.

    Compared only when both are written down (docs/design.md §5); an unsupported CRI value is OSC-CRI-001's finding.
    path: spec.criConfig.cgroupDriver, where the finding sits; its detail names the kubelet file's path.
    """
    driver = cri.cgroup_driver if cri is not None else None
    if driver not in CGROUP_DRIVERS:
        return []
    findings: list[Finding] = []
    for kubelet in kubelet_files:
        if kubelet.cgroup_driver is not None and kubelet.cgroup_driver != driver:
            detail = f'must equal the kubelet\'s cgroupDriver "{kubelet.cgroup_driver}" in {kubelet.data_path}'
            findings.append(OSC_CGR_001.invalid(path, driver, detail))
    return findings


def _find_kubernetes_version(spec: OperatingSystemConfigSpec) -> Version | None:
    """The node's Kubernetes version, when the OSC records one; None otherwise.

    A KubeletConfiguration carries no version. Sources, first that parses wins: `spec.inPlaceUpdates.kubelet`,
    then the tag of the image the kubelet binary comes from (a file with `imageRef.filePathInImage: /kubelet`,
    e.g. `.../hyperkube:v1.33.2`, as Gardener's kubelet component writes it).
    """
    if spec.in_place_updates is not None and spec.in_place_updates.kubelet:
        version = find_version(spec.in_place_updates.kubelet)
        if version is not None:
            return version
    for file in spec.files:
        image = file.content.image_ref if file.content is not None else None
        if image is not None and image.file_path_in_image == KUBELET_IN_IMAGE and image.image:
            tag = _image_tag(image.image)
            version = find_version(tag) if tag else None
            if version is not None:
                return version
    return None


def _image_tag(image: str) -> str | None:
    """The tag of an image reference (`repo/name:tag[@digest]`), or None."""
    name = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return name.split(":", 1)[1] if ":" in name else None


@OSC_CGR_002.check
def _warn_cgroupfs(
    spec: OperatingSystemConfigSpec, kubelet_files: Sequence[_KubeletFile], path: FieldPath
) -> list[Finding]:
    """`cgroupfs` (containerd or kubelet) with Kubernetes ≥ 1.31, when the version is known (docs/requirements.md "OperatingSystemConfig contract").

    path: spec.criConfig.cgroupDriver; a kubelet file's warning sits on its inline data. systemd is fine on any version.
    """
    version = _find_kubernetes_version(spec)
    if version is None or version.minor_key < SYSTEMD_FROM:
        return []
    advice = f"with Kubernetes {version.major}.{version.minor}: use systemd from 1.31 on"
    findings: list[Finding] = []
    if spec.cri_config is not None and spec.cri_config.cgroup_driver == "cgroupfs":
        findings.append(OSC_CGR_002.forbidden(path, f"cgroupfs {advice}"))
    findings.extend(
        OSC_CGR_002.forbidden(kubelet.data_path, f"kubelet cgroupDriver cgroupfs {advice}")
        for kubelet in kubelet_files
        if kubelet.cgroup_driver == "cgroupfs"
    )
    return findings
