"""OSC-FILE-001..006: files of `spec.files` and `status.extensionFiles`.

OSC-FILE-001 a non-empty path and exactly one content source; OSC-FILE-002 the fields of a secretRef or imageRef;
OSC-FILE-003 inline encoding (`""` or `b64`) and data; OSC-FILE-004 (warning) `permissions` that is no octal
file mode; OSC-FILE-005 hostName is a DNS subdomain; OSC-FILE-006 a path repeats only for distinct hosts, across
spec.files then status.extensionFiles (every repeat for the same host counts, docs/design.md §5). The CRD's required
keys of files are checked first, in `crd`.
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go (ValidateFiles, validateFileDuplicates),
pkg/apis/extensions/v1alpha1/types_operatingsystemconfig.go (File.Permissions); docs/design.md §5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from webhook.domain.field import FieldPath, Finding, Mode, Rule
from webhook.models.extensions import File
from webhook.validators.meta import dns1123_subdomain_errors
from webhook.validators.operatingsystemconfig._shared import OSC, REQUIRED, TYPES
from webhook.validators.operatingsystemconfig.crd import validate_file_keys

OSC_FILE_001 = Rule("OSC-FILE-001", f"{OSC} ValidateFiles (path, one content source)")
OSC_FILE_002 = Rule("OSC-FILE-002", f"{OSC} ValidateFiles (secretRef, imageRef)")
OSC_FILE_003 = Rule("OSC-FILE-003", f"{OSC} ValidateFiles (inline encoding and data)")
OSC_FILE_004 = Rule("OSC-FILE-004", f"{TYPES} File.Permissions: a file mode (unchecked by Gardener)", Mode.WARN)
OSC_FILE_005 = Rule("OSC-FILE-005", f"{OSC} ValidateFiles (hostName)")
OSC_FILE_006 = Rule("OSC-FILE-006", f"{OSC} validateFileDuplicates; docs/design.md §5 (every repeat for the same host)")

RULES: Final = (OSC_FILE_001, OSC_FILE_002, OSC_FILE_003, OSC_FILE_004, OSC_FILE_005, OSC_FILE_006)

ENCODINGS: Final = ("", "b64")
MAX_FILE_MODE: Final = 0o7777
_SPECIAL_BITS: Final = 0o1000  # setuid, setgid, sticky


def validate_file_list(files: Sequence[File], path: FieldPath) -> list[Finding]:
    """Files of spec.files or status.extensionFiles (path: the list): required keys, webhook rules, modes."""
    return [*validate_file_keys(files, path), *_validate_files(files, path), *_warn_file_modes(files, path)]


@OSC_FILE_001.check
def _validate_files(files: Sequence[File], path: FieldPath) -> list[Finding]:
    """A path, exactly one content source with its fields (OSC-FILE-001..003), a DNS hostName (OSC-FILE-005)."""
    findings: list[Finding] = []
    for i, file in enumerate(files):
        idx = path.index(i)
        if file.path == "":
            findings.append(OSC_FILE_001.required(idx.child("path"), REQUIRED))
        if file.content is not None:  # a missing content is OSC-CRD-004's finding
            findings.extend(_validate_file_content(file, idx.child("content")))
        if file.host_name is not None:
            findings.extend(
                OSC_FILE_005.invalid(idx.child("hostName"), file.host_name, m)
                for m in dns1123_subdomain_errors(file.host_name)
            )
    return findings


def _validate_file_content(file: File, path: FieldPath) -> list[Finding]:
    """Exactly one of secretRef, inline, imageRef and its fields; path: files[i].content."""
    assert file.content is not None
    ref, inline, image = file.content.secret_ref, file.content.inline, file.content.image_ref
    sources = (("secretRef", ref), ("inline", inline), ("imageRef", image))
    given = [name for name, source in sources if source is not None]
    if not given:
        return [OSC_FILE_001.required(path, "either 'secretRef', 'inline' or 'imageRef' must be provided")]
    if len(given) > 1:
        detail = "either 'secretRef', 'inline' or 'imageRef' must be provided, not multiple at the same time"
        return [OSC_FILE_001.invalid(path, given, detail)]
    findings: list[Finding] = []
    if ref is not None:
        if ref.name == "":
            findings.append(OSC_FILE_002.required(path.child("secretRef", "name"), REQUIRED))
        if ref.data_key == "":
            findings.append(OSC_FILE_002.required(path.child("secretRef", "dataKey"), REQUIRED))
    elif inline is not None:
        if inline.encoding is not None and inline.encoding not in ENCODINGS:
            findings.append(OSC_FILE_003.unsupported(path.child("inline", "encoding"), inline.encoding, ENCODINGS))
        if inline.data == "":
            findings.append(OSC_FILE_003.required(path.child("inline", "data"), REQUIRED))
    elif image is not None:
        if image.image == "":
            findings.append(OSC_FILE_002.required(path.child("imageRef", "image"), REQUIRED))
        if image.file_path_in_image == "":
            findings.append(OSC_FILE_002.required(path.child("imageRef", "filePathInImage"), REQUIRED))
    return findings


@dataclass(slots=True)
class _PathScope:
    """Who already receives a file path: every host (a global entry) and/or the listed host names."""

    is_global: bool = False
    host_names: set[str] = field(default_factory=set)


@OSC_FILE_006.check
def validate_file_duplicates(
    spec_files: Sequence[File], status_files: Sequence[File], spec_path: FieldPath, status_path: FieldPath
) -> list[Finding]:
    """A path repeats only with distinct hostNames, across spec.files then status.extensionFiles (docs/design.md §5).

    A global entry (no hostName) reaches every host, so it conflicts with every other entry of its path; a host
    entry conflicts with an earlier entry for the same host or an earlier global one. Gardener remembers only the
    first host name of a path; here every host counts. The later entry is flagged; empty paths are skipped.
    """
    scopes: dict[str, _PathScope] = {}
    findings: list[Finding] = []
    for files, path in ((spec_files, spec_path), (status_files, status_path)):
        for i, file in enumerate(files):
            if not file.path:
                continue
            scope = scopes.get(file.path)
            if scope is None:
                scopes[file.path] = scope = _PathScope()
            elif file.host_name is None or scope.is_global or file.host_name in scope.host_names:
                findings.append(OSC_FILE_006.duplicate(path.index(i).child("path"), file.path))
            if file.host_name is None:
                scope.is_global = True
            else:
                scope.host_names.add(file.host_name)
    return findings


@OSC_FILE_004.check
def _warn_file_modes(files: Sequence[File], path: FieldPath) -> list[Finding]:
    """`permissions` that is no octal file mode: negative, above 0o7777, or a mode's digits written in decimal.

    YAML 1.1 reads `0755` as 493, and every value below 0o1000 (512) is a plain rwx mode, so those are fine. A
    decimal value from 0o1000 on whose digits include 8 or 9 (`888` for "0888") would set the setuid, setgid or
    sticky bit (888 = 0o1570): a mode nobody means. path: the file list.
    """
    findings: list[Finding] = []
    for i, file in enumerate(files):
        mode = file.permissions
        if mode is None:
            continue
        mode_path = path.index(i).child("permissions")
        if mode < 0 or mode > MAX_FILE_MODE:
            detail = f"{mode} is not a file mode (0 to 0o7777): write e.g. 0644 in YAML or 420 in JSON"
            findings.append(OSC_FILE_004.forbidden(mode_path, detail))
        elif mode >= _SPECIAL_BITS and ("8" in str(mode) or "9" in str(mode)):
            detail = f"{mode} (0o{mode:o}) looks like a mode written in decimal, but 8 and 9 are no octal digits"
            findings.append(OSC_FILE_004.forbidden(mode_path, detail))
    return findings
