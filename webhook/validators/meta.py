"""Kubernetes name, label and label-selector checks, with apimachinery's own wording.

Each `*_errors` function returns the list of messages apimachinery's `Is*` function would return (empty
when valid); callers wrap them into findings of their own rule.
Source: k8s.io/apimachinery/pkg/util/validation/validation.go, pkg/api/validation/objectmeta.go,
pkg/apis/meta/v1/validation/validation.go.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Final

from cryptography import x509

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.goport.goregexp import compile_go
from webhook.models.base import ObjectMeta
from webhook.models.shared import LabelSelector

_DNS1123_LABEL: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN: Final = _DNS1123_LABEL + r"(\." + _DNS1123_LABEL + ")*"
_DNS1123_SUBDOMAIN_RE: Final = compile_go(f"^{_DNS1123_SUBDOMAIN}$")
_DNS1123_LABEL_RE: Final = compile_go(f"^{_DNS1123_LABEL}$")
_QUALIFIED_NAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_RE: Final = compile_go(f"^{_QUALIFIED_NAME_FMT}$")
_LABEL_VALUE_FMT: Final = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_LABEL_VALUE_RE: Final = compile_go(f"^{_LABEL_VALUE_FMT}$")

# apimachinery ValidateNameFunc: (name, is a generateName prefix) -> messages.
NameFn = Callable[[str, bool], list[str]]

LABEL_MESSAGE: Final = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    f"with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '{_DNS1123_LABEL}')"
)
SUBDOMAIN_MESSAGE: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    f"'{_DNS1123_SUBDOMAIN}')"
)
_NAME_PART_MESSAGE: Final = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    f"'{_QUALIFIED_NAME_FMT}')"
)
_QUALIFIED_MESSAGE: Final = (
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    f"'{_QUALIFIED_NAME_FMT}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
)
_LABEL_VALUE_MESSAGE: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    f"for validation is '{_LABEL_VALUE_FMT}')"
)


def dns1123_subdomain_errors(value: str) -> list[str]:
    """Messages of apimachinery IsDNS1123Subdomain (≤ 253 characters, lower-case RFC 1123)."""
    errors: list[str] = []
    if len(value) > 253:
        errors.append("must be no more than 253 characters")
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errors.append(SUBDOMAIN_MESSAGE)
    return errors


def dns1123_label_errors(value: str) -> list[str]:
    """Messages of apimachinery IsDNS1123Label (≤ 63 characters, lower-case RFC 1123, no dots)."""
    errors: list[str] = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if not _DNS1123_LABEL_RE.match(value):
        errors.append("must not contain dots" if _DNS1123_SUBDOMAIN_RE.match(value) else LABEL_MESSAGE)
    return errors


def qualified_name_errors(value: str) -> list[str]:
    """Messages of apimachinery IsQualifiedName: `[prefix/]name`, name ≤ 63 characters."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        errors: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        errors = []
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + m for m in dns1123_subdomain_errors(prefix))
    else:
        return [_QUALIFIED_MESSAGE]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 characters")
    if name and not _QUALIFIED_NAME_RE.match(name):
        errors.append(_NAME_PART_MESSAGE)
    return errors


def unprefixed_qualified_name_errors(value: str) -> list[str]:
    """Qualified-name messages, plus a prefix is not allowed (gardener utils.go validateUnprefixedQualifiedName)."""
    return list(_unprefixed_qualified_name_errors(value))


# A pure function of one string, asked for every machine type, volume type and container runtime of every image
# version on every request, mostly for the same few names: remembered (bounded), as versions.parse_version is.
@lru_cache(maxsize=4096)
def _unprefixed_qualified_name_errors(value: str) -> tuple[str, ...]:
    errors = qualified_name_errors(value)
    if errors:
        return tuple(errors)
    if "/" in value:
        return (f"name '{value}' must not contain a prefix",)
    return ()


def go_list(messages: Sequence[str]) -> str:
    """Render messages as Go's %v of a []string: [a b]."""
    return "[" + " ".join(messages) + "]"


def validate_qualified_name(rule: Rule, value: str, what: str, path: FieldPath) -> list[Finding]:
    """`value` must be an unprefixed qualified name (finding of `rule`); `what` names it in the detail ("machine type
    name"). Source: gardener pkg/api/core/validation/utils.go (validation.IsQualifiedName on names)."""
    errors = unprefixed_qualified_name_errors(value)
    return [rule.invalid(path, value, f"{what} must be a qualified name: {go_list(errors)}")] if errors else []


def label_value_errors(value: str) -> list[str]:
    """Messages of apimachinery IsValidLabelValue (≤ 63 characters)."""
    errors: list[str] = []
    if len(value) > 63:
        errors.append("must be no more than 63 characters")
    if not _LABEL_VALUE_RE.match(value):
        errors.append(_LABEL_VALUE_MESSAGE)
    return errors


def validate_labels(rule: Rule, labels: Mapping[str, str], path: FieldPath) -> list[Finding]:
    """Label keys must be qualified names, values valid label values (ValidateLabels); path: the map."""
    findings: list[Finding] = []
    for key, value in labels.items():
        findings.extend(rule.invalid(path, key, m) for m in qualified_name_errors(key))
        findings.extend(rule.invalid(path, value, m) for m in label_value_errors(value))
    return findings


# The label key prefixes of gardener-apiserver's ExtensionLabels admission plugin (v1beta1constants LabelExtension*).
PROVIDER_LABEL: Final = "provider.extensions.gardener.cloud/"
EXTENSION_LABEL: Final = "extensions.extensions.gardener.cloud/"
DNS_RECORD_LABEL: Final = "dnsrecord.extensions.gardener.cloud/"
NETWORKING_LABEL: Final = "networking.extensions.gardener.cloud/"
OPERATING_SYSTEM_LABEL: Final = "operatingsystemconfig.extensions.gardener.cloud/"
CONTAINER_RUNTIME_LABEL: Final = "containerruntime.extensions.gardener.cloud/"
EXPOSURE_LABEL: Final = "selfhostedshootexposure.extensions.gardener.cloud/"


def validate_extension_labels(rule: Rule, types: Iterable[tuple[str, str]], path: FieldPath) -> list[Finding]:
    """The labels gardener-apiserver's ExtensionLabels plugin sets before the object is validated, one
    `<prefix><type>: "true"` per (prefix, type) the object names, judged as ValidateLabels judges every label;
    path: metadata.labels. An empty or malformed type makes a key that is no qualified name: gardener-apiserver then
    refuses the object for its labels, besides whatever the type's own field says. Each key is judged once.
    Source: gardener/gardener plugin/pkg/global/extensionlabels/admission.go Admit; k8s.io/apimachinery
    ValidateLabels.
    """
    keys = dict.fromkeys(prefix + type_ for prefix, type_ in types)
    return validate_labels(rule, dict.fromkeys(keys, "true"), path)


TOTAL_ANNOTATION_SIZE_LIMIT_BYTES: Final = 256 * 1024


def validate_annotations(rule: Rule, annotations: Mapping[str, str], path: FieldPath) -> list[Finding]:
    """Annotation keys must be qualified names (any case), keys and values together at most 256 KiB
    (apimachinery ValidateAnnotations, ValidateAnnotationsSize); path: the map.
    """
    findings: list[Finding] = []
    for key in annotations:
        findings.extend(rule.invalid(path, key, m) for m in qualified_name_errors(key.lower()))
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES:
        findings.append(rule.too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES))
    return findings


def validate_label_selector(rule: Rule, selector: LabelSelector, path: FieldPath) -> list[Finding]:
    """A metav1.LabelSelector: requirements' operators and values, label keys and values (ValidateLabelSelector)."""
    findings: list[Finding] = []
    for i, req in enumerate(selector.match_expressions):
        req_path = path.child("matchExpressions").index(i)
        if req.operator in ("In", "NotIn"):
            if not req.values:
                findings.append(
                    rule.required(req_path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'")
                )
        elif req.operator in ("Exists", "DoesNotExist"):
            if req.values:
                findings.append(
                    rule.forbidden(
                        req_path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    )
                )
        else:
            findings.append(rule.invalid(req_path.child("operator"), req.operator, "not a valid selector operator"))
        findings.extend(rule.invalid(req_path.child("key"), req.key, m) for m in qualified_name_errors(req.key))
        for j, value in enumerate(req.values):
            findings.extend(
                rule.invalid(req_path.child("values").index(j), value, m) for m in label_value_errors(value)
            )
    findings.extend(validate_labels(rule, selector.match_labels, path.child("matchLabels")))
    return findings


def validate_pem_certificate(rule: Rule, ca_bundle: str | None, path: FieldPath) -> list[Finding]:
    """caBundle, when set, must start with a PEM certificate (gardener utils.DecodeCertificate); path: caBundle.

    Long bundles are shown cut to 64 characters.
    """
    if ca_bundle is None:
        return []
    try:
        x509.load_pem_x509_certificate(ca_bundle.encode("utf-8"))
    except ValueError:
        shown = ca_bundle if len(ca_bundle) <= 64 else ca_bundle[:61] + "..."
        return [rule.invalid(path, shown, "caBundle is not a valid PEM-encoded certificate")]
    return []


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    """apimachinery NameIsDNSLabel: `name` (a generateName prefix when `prefix`) must be a DNS-1123 label."""
    return dns1123_label_errors(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    """apimachinery NameIsDNSSubdomain (Gardener's ValidateName): a DNS-1123 subdomain, or a prefix of one."""
    return dns1123_subdomain_errors(_mask_trailing_dash(name) if prefix else name)


def _mask_trailing_dash(name: str) -> str:
    """apimachinery maskTrailingDash, verbatim: a prefix ending in '-' loses its last two characters for an 'a'."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def validate_object_meta(
    rule: Rule,
    meta: ObjectMeta,
    path: FieldPath,
    *,
    namespaced: bool,
    name_fn: NameFn = name_is_dns_subdomain,
    namespace_from_context: bool = False,
) -> list[Finding]:
    """apimachinery ValidateObjectMeta: generateName, name, namespace, labels, annotations; path: metadata.

    name_fn: the kind's name validation (`name_is_dns_label`, `name_is_dns_subdomain`). A name may be absent when
    generateName is set: the API server generates it (generateName + 5 random characters) before validating, so
    here generateName alone is judged, as a prefix. namespace_from_context: an absent namespace of a namespaced
    object is no finding (kubectl apply takes it from the context). Never raises.
    Source: k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateObjectMetaAccessor.
    """
    return [
        *validate_object_name(rule, meta, path, namespaced=namespaced, name_fn=name_fn,
                              namespace_from_context=namespace_from_context),
        *validate_labels(rule, meta.labels, path.child("labels")),
        *validate_annotations(rule, meta.annotations, path.child("annotations")),
    ]  # fmt: skip


def validate_object_name(
    rule: Rule,
    meta: ObjectMeta,
    path: FieldPath,
    *,
    namespaced: bool,
    name_fn: NameFn,
    namespace_from_context: bool = False,
) -> list[Finding]:
    """generateName, name and namespace of ValidateObjectMeta (see `validate_object_meta`); path: metadata."""
    findings: list[Finding] = []
    if meta.generate_name:
        generate_path = path.child("generateName")
        findings.extend(rule.invalid(generate_path, meta.generate_name, m) for m in name_fn(meta.generate_name, True))
    if meta.name:
        findings.extend(rule.invalid(path.child("name"), meta.name, m) for m in name_fn(meta.name, False))
    elif not meta.generate_name:
        findings.append(rule.required(path.child("name"), "name or generateName is required"))
    if namespaced and meta.namespace:
        namespace_path = path.child("namespace")
        findings.extend(
            rule.invalid(namespace_path, meta.namespace, m) for m in name_is_dns_label(meta.namespace, False)
        )
    elif namespaced and not namespace_from_context:
        findings.append(rule.required(path.child("namespace"), ""))
    elif not namespaced and meta.namespace:
        findings.append(rule.forbidden(path.child("namespace"), "not allowed on this type"))
    return findings
