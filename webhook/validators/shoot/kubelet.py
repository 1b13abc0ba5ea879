"""Kubelet configuration of a Shoot (SH-KUB-*): spec.kubernetes.kubelet and each pool's kubernetes.kubelet, 422.

Gardener checks every pool with a `kubernetes` section (ValidateWorker) with the pool's own kubelet, or else the
Shoot's, against the pool's version, reported at the pool's path (`spec.provider.workers[i].kubernetes.kubelet`), and
later the Shoot's kubelet against the control-plane version (validateKubernetes, only when that version is set; called
from `kubernetes`): a defect of the Shoot's kubelet is reported once per such pool, too. A workerless Shoot's kubelet
is refused by SH-K8S-017 with the other components workerless Shoots must not set. Field paths keep Gardener's spelling
where it differs from the JSON (`podPIDsLimit`, `imagefsAvailable`). Values that do not decode (a quantity or duration
Go cannot parse) are OBJ-DECODE-001's, at the JSON path. Version-dependent checks skip a version that is still unknown
or does not parse.
Source: gardener pkg/api/core/validation/shoot.go ValidateKubeletConfig (and the helpers named per rule),
validateKubernetes, ValidateWorker.
"""

from __future__ import annotations

import re
from typing import Final

from webhook.admission.kinds import DURATION_DETAIL, OBJ_DECODE_001
from webhook.domain.constraints import parse_constraint
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.quantity import InvalidQuantity, parse_quantity
from webhook.domain.versions import find_version
from webhook.goport.goregexp import compile_go
from webhook.goport.gotime import HOUR, SECOND, InvalidTime, format_duration, parse_duration
from webhook.models.shoot_kubernetes import (
    KubeletConfig,
    KubeletConfigEviction,
    KubeletConfigEvictionMinimumReclaim,
    KubeletConfigEvictionSoftGracePeriod,
)
from webhook.validators.shoot.effective import Effective, worker_path
from webhook.validators.shoot.shared import NEGATIVE, nonnegative_duration, quantity_value, validate_feature_gates

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_KUB_002 = Rule("SH-KUB-002", f"{_SHOOT} ValidateKubeletConfig (cpuManagerPolicy)")
SH_KUB_003 = Rule(
    "SH-KUB-003",
    f"{_SHOOT} ValidateKubeletConfig (maxPods, podPIDsLimit, evictionMaxPodGracePeriod, registryPullQPS, "
    "registryBurst, containerLogMaxFiles)",
)
SH_KUB_004 = Rule(
    "SH-KUB-004",
    f"{_SHOOT} ValidateKubeletConfig, ValidatePositiveDuration, validateKubeletConfigEvictionSoftGracePeriod "
    "(durations)",
)
SH_KUB_005 = Rule(
    "SH-KUB-005",
    f"{_SHOOT} validateKubeletConfigEviction, ValidateResourceQuantityOrPercent, "
    "validateKubeletConfigEvictionMinimumReclaim",
)
SH_KUB_006 = Rule("SH-KUB-006", f"{_SHOOT} validateKubeletConfigReserved, ValidateKubeletConfig (containerLogMaxSize)")
SH_KUB_007 = Rule("SH-KUB-007", f"{_SHOOT} ValidateKubeletConfig (imageGCHigh/LowThresholdPercent)")
SH_KUB_008 = Rule("SH-KUB-008", "gardener/gardener pkg/utils/validation/features/featuregates.go ValidateFeatureGates")
SH_KUB_009 = Rule("SH-KUB-009", f"{_SHOOT} ValidateKubeletConfig (memorySwap)")
SH_KUB_010 = Rule("SH-KUB-010", f"{_SHOOT} ValidateKubeletConfig (maxParallelImagePulls)")
SH_KUB_011 = Rule(
    "SH-KUB-011",
    f"{_SHOOT} ValidateKubeletConfig (imagePullCredentialsVerificationPolicy, preloadedImagesVerificationAllowlist), "
    "validatePreloadedImagesVerificationAllowlistPattern",
)

RULES: Final = (
    SH_KUB_002, SH_KUB_003, SH_KUB_004, SH_KUB_005, SH_KUB_006, SH_KUB_007, SH_KUB_008, SH_KUB_009, SH_KUB_010,
    SH_KUB_011,
)  # fmt: skip

CPU_MANAGER_POLICIES: Final = ("none", "static")
POD_PIDS_LIMIT_MINIMUM: Final = 100
SWAP_BEHAVIORS: Final = ("NoSwap", "LimitedSwap")  # Gardener's order, not sorted
NEVER_VERIFY_ALLOWLISTED_IMAGES: Final = "NeverVerifyAllowlistedImages"
IMAGE_PULL_CREDENTIALS_VERIFICATION_POLICIES: Final = (
    "AlwaysVerify",
    "NeverVerify",
    NEVER_VERIFY_ALLOWLISTED_IMAGES,
    "NeverVerifyPreloadedImages",
)  # sorted
_LESS_135: Final = parse_constraint("< 1.35-0")
_PERCENT: Final = compile_go(r"^[0-9]+%$")
_MIN_STREAMING_IDLE: Final = 30 * SECOND
_MAX_STREAMING_IDLE: Final = 4 * HOUR


# ------------------------------------------------------------------------------------------------ entry point


def validate_pool_kubelets(eff: Effective) -> list[Finding]:
    """Every SH-KUB-* rule on each pool's effective kubelet (ValidateWorker): for a pool with a `kubernetes` section its
    own kubelet, or else the Shoot's, against the pool's version, at the pool's path.

    The Shoot's own kubelet is judged with the other components (`kubernetes`, validateKubernetes); a workerless
    Shoot's kubelet is SH-K8S-017's (validateKubernetesForWorkerlessShoot).
    """
    kubelet = eff.shoot.spec.kubernetes.kubelet
    findings: list[Finding] = []
    for i, worker in enumerate(eff.workers):
        if worker.kubernetes is None:
            continue
        own = worker.kubernetes.kubelet
        config = own if own is not None else kubelet
        if config is not None:
            path = worker_path(i).child("kubernetes", "kubelet")
            version = eff.kubelet_version(i)
            findings.extend(_validate_kubelet_config(config, version, path))
    return findings


def _validate_kubelet_config(kubelet: KubeletConfig, version: str | None, path: FieldPath) -> tuple[Finding, ...]:
    """`validate_kubelet_config` as a tuple: a kept result is shared between requests."""
    return tuple(validate_kubelet_config(kubelet, version, path))


def validate_kubelet_config(kubelet: KubeletConfig, version: str | None, path: FieldPath) -> list[Finding]:
    """Every SH-KUB-002…011 rule on one kubelet configuration (ValidateKubeletConfig).

    version: the Kubernetes version the kubelet runs, None while unknown (version-dependent checks skip it);
    path: the kubelet section. Pure; never raises.
    """
    known = version if version is not None and find_version(version) is not None else None
    return [
        *_validate_cpu_manager_policy(kubelet.cpu_manager_policy, path.child("cpuManagerPolicy")),
        *_validate_counts(kubelet, path),
        *_validate_durations(kubelet, path),
        *_validate_eviction(kubelet, path),
        *_validate_reserved(kubelet, path),
        *_validate_image_gc_thresholds(kubelet, path),
        *(
            validate_feature_gates(SH_KUB_008, kubelet.feature_gates, known, path.child("featureGates"))
            if known
            else []
        ),
        *_validate_memory_swap(kubelet, path.child("memorySwap")),
        *_validate_parallel_image_pulls(kubelet, path.child("maxParallelImagePulls")),
        *_validate_image_pull_credentials(kubelet, known, path),
    ]


# ------------------------------------------------------------------------------------------- numbers, policies


@SH_KUB_002.check
def _validate_cpu_manager_policy(policy: str | None, path: FieldPath) -> list[Finding]:
    """cpuManagerPolicy is `none` or `static`; path: kubelet.cpuManagerPolicy."""
    if policy is None or policy in CPU_MANAGER_POLICIES:
        return []
    return [SH_KUB_002.unsupported(path, policy, CPU_MANAGER_POLICIES)]


@SH_KUB_003.check
def _validate_counts(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """Counts that must not be negative, podPIDsLimit at least 100, containerLogMaxFiles at least 2; path: kubelet."""
    findings: list[Finding] = []
    for name, value in (
        ("maxPods", kubelet.max_pods),
        ("evictionMaxPodGracePeriod", kubelet.eviction_max_pod_grace_period),
        ("registryPullQPS", kubelet.registry_pull_qps),
        ("registryBurst", kubelet.registry_burst),
    ):
        if value is not None and value < 0:
            findings.append(SH_KUB_003.invalid(path.child(name), value, NEGATIVE))
    limit = kubelet.pod_pids_limit
    if limit is not None and limit < POD_PIDS_LIMIT_MINIMUM:
        detail = f"podPIDsLimit value must be at least {POD_PIDS_LIMIT_MINIMUM}"
        findings.append(SH_KUB_003.invalid(path.child("podPIDsLimit"), limit, detail))
    files = kubelet.container_log_max_files
    if files is not None and files < 2:
        findings.append(SH_KUB_003.invalid(path.child("containerLogMaxFiles"), files, "value must be >= 2."))
    return findings


# -------------------------------------------------------------------------------------------------- durations


def _duration(value: str, path: FieldPath) -> int | list[Finding]:
    """Nanoseconds of a metav1.Duration given as text, or the decoding finding (path: the field, JSON spelling)."""
    try:
        return parse_duration(value)
    except InvalidTime:
        return [OBJ_DECODE_001.invalid(path, value, DURATION_DETAIL)]


def validate_non_negative_duration(
    rule: Rule, value: str | None, path: FieldPath, json_path: FieldPath, detail: str = "must be non-negative"
) -> list[Finding]:
    """A duration given as Go duration text, when set, decodes and is not negative (ValidatePositiveDuration); shown as
    Go prints it (`-1m0s`).

    path: where Gardener reports it; json_path: where a value that does not decode is reported; detail: Gardener's
    wording for this field.
    """
    if value is None:
        return []
    nanoseconds = _duration(value, json_path)
    if isinstance(nanoseconds, list):
        return nanoseconds
    return nonnegative_duration(rule, nanoseconds, path, detail)


_SOFT_GRACE_PERIODS: Final = (
    ("memoryAvailable", "memoryAvailable", "memory_available"),
    ("imagefsAvailable", "imageFSAvailable", "image_fs_available"),
    ("imagefsInodesFree", "imageFSInodesFree", "image_fs_inodes_free"),
    ("nodefsAvailable", "nodeFSAvailable", "node_fs_available"),
)
"""(Gardener's path segment, JSON name, attribute) of the signals Gardener checks; nodefsInodesFree is not checked."""


@SH_KUB_004.check
def _validate_durations(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """Durations that must not be negative, image GC ages of at least 0 whole seconds, and a streaming connection
    idle timeout between 30s and 4h; path: kubelet.
    """
    findings: list[Finding] = []
    transition = path.child("evictionPressureTransitionPeriod")
    findings.extend(
        validate_non_negative_duration(SH_KUB_004, kubelet.eviction_pressure_transition_period, transition, transition)
    )
    grace: KubeletConfigEvictionSoftGracePeriod | None = kubelet.eviction_soft_grace_period
    if grace is not None:
        grace_path = path.child("evictionSoftGracePeriod")
        for segment, json_name, attribute in _SOFT_GRACE_PERIODS:
            value = getattr(grace, attribute)
            findings.extend(
                validate_non_negative_duration(
                    SH_KUB_004, value, grace_path.child(segment), grace_path.child(json_name)
                )
            )
    for name, value in (
        ("imageMinimumGCAge", kubelet.image_minimum_gc_age),
        ("imageMaximumGCAge", kubelet.image_maximum_gc_age),
    ):
        if value is None:
            continue
        nanoseconds = _duration(value, path.child(name))
        if isinstance(nanoseconds, list):
            findings.extend(nanoseconds)
        elif nanoseconds <= -SECOND:  # Go compares whole seconds, truncated toward zero
            findings.append(SH_KUB_004.invalid(path.child(name), -(-nanoseconds // SECOND), NEGATIVE))
    idle = kubelet.streaming_connection_idle_timeout
    if idle is not None:
        idle_path = path.child("streamingConnectionIdleTimeout")
        nanoseconds = _duration(idle, idle_path)
        if isinstance(nanoseconds, list):
            findings.extend(nanoseconds)
        elif not _MIN_STREAMING_IDLE <= nanoseconds <= _MAX_STREAMING_IDLE:
            shown = format_duration(nanoseconds)
            findings.append(SH_KUB_004.invalid(idle_path, shown, "value must be between 30s and 4h"))
    return findings


# ------------------------------------------------------------------------------------------------- quantities


_SIGNALS: Final = _SOFT_GRACE_PERIODS
"""Eviction signals Gardener checks (imagefsInodesFree is checked twice there, nodefsInodesFree never)."""


@SH_KUB_005.check
def _validate_eviction(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """evictionHard and evictionSoft thresholds are quantities or percentages up to 100%; evictionMinimumReclaim
    amounts are not negative; path: kubelet.
    """
    findings: list[Finding] = []
    for name, thresholds in (("evictionHard", kubelet.eviction_hard), ("evictionSoft", kubelet.eviction_soft)):
        if thresholds is not None:
            findings.extend(_validate_thresholds(thresholds, path.child(name)))
    reclaim: KubeletConfigEvictionMinimumReclaim | None = kubelet.eviction_minimum_reclaim
    if reclaim is not None:
        reclaim_path = path.child("evictionMinimumReclaim")
        for segment, json_name, attribute in _SIGNALS:
            target, json_target = reclaim_path.child(segment), reclaim_path.child(json_name)
            findings.extend(quantity_value(SH_KUB_005, getattr(reclaim, attribute), target, json_target)[1])
    return findings


def _validate_thresholds(thresholds: KubeletConfigEviction, path: FieldPath) -> list[Finding]:
    """Each threshold: a non-negative quantity, or `N%` with N at most 100 (ValidateResourceQuantityOrPercent)."""
    findings: list[Finding] = []
    for segment, _, attribute in _SIGNALS:
        value: str | None = getattr(thresholds, attribute)
        if value is None:
            continue
        try:
            if parse_quantity(value) >= 0:
                continue
        except InvalidQuantity:
            pass
        if _PERCENT.match(value) is None:
            detail = "field must be either a valid resource quantity (e.g 200Mi) or a percentage (e.g '5%')"
            findings.append(SH_KUB_005.invalid(path.child(segment), value, detail))
        elif int(value[:-1]) > 100:
            detail = "must not be greater than 100% and not smaller than 0%"
            findings.append(SH_KUB_005.invalid(path.child(segment), value, detail))
    return findings


@SH_KUB_006.check
def _validate_reserved(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """kubeReserved cpu, memory, ephemeralStorage and pid, and containerLogMaxSize are not negative; path: kubelet."""
    findings: list[Finding] = []
    reserved = kubelet.kube_reserved
    if reserved is not None:
        reserved_path = path.child("kubeReserved")
        for name, value in (
            ("cpu", reserved.cpu),
            ("memory", reserved.memory),
            ("ephemeralStorage", reserved.ephemeral_storage),
            ("pid", reserved.pid),
        ):
            findings.extend(quantity_value(SH_KUB_006, value, reserved_path.child(name))[1])
    log_size = path.child("containerLogMaxSize")
    findings.extend(quantity_value(SH_KUB_006, kubelet.container_log_max_size, log_size)[1])
    return findings


# --------------------------------------------------------------------------------------------------- image GC


@SH_KUB_007.check
def _validate_image_gc_thresholds(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """Image GC thresholds are percentages in [0,100], the low one below the high one; path: kubelet.

    The Shoot's kubelet has Gardener's defaults 50/40 (webhook.models.defaults), so one threshold set alone is
    compared with the other's default.
    """
    high, low = kubelet.image_gc_high_threshold_percent, kubelet.image_gc_low_threshold_percent
    findings: list[Finding] = []
    for name, value in (("imageGCHighThresholdPercent", high), ("imageGCLowThresholdPercent", low)):
        if value is not None and not 0 <= value <= 100:
            findings.append(SH_KUB_007.invalid(path.child(name), value, "value must be in [0,100]"))
    if high is not None and low is not None and low >= high:
        detail = "imageGCLowThresholdPercent must be less than imageGCHighThresholdPercent"
        findings.append(SH_KUB_007.forbidden(path.child("imageGCLowThresholdPercent"), detail))
    return findings


# ------------------------------------------------------------------------------------------- swap, image pulls


@SH_KUB_009.check
def _validate_memory_swap(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """Swap is configured only with failSwapOn false; a swap behaviour needs the NodeSwap gate and is NoSwap or
    LimitedSwap. failSwapOn defaults to true (webhook.models.defaults). path: kubelet.memorySwap.
    """
    swap = kubelet.memory_swap
    if swap is None:
        return []
    findings: list[Finding] = []
    if kubelet.fail_swap_on:
        detail = "configuring swap behaviour is not available when the kubelet is configured with 'FailSwapOn=true'"
        findings.append(SH_KUB_009.forbidden(path, detail))
    behavior = swap.swap_behavior
    if behavior is not None:
        if not kubelet.feature_gates.get("NodeSwap", False):
            detail = "configuring swap behaviour is not available when kubelet's 'NodeSwap' feature gate is not set"
            findings.append(SH_KUB_009.forbidden(path, detail))
        if behavior not in SWAP_BEHAVIORS:
            findings.append(SH_KUB_009.unsupported(path.child("swapBehavior"), behavior, SWAP_BEHAVIORS))
    return findings


@SH_KUB_010.check
def _validate_parallel_image_pulls(kubelet: KubeletConfig, path: FieldPath) -> list[Finding]:
    """maxParallelImagePulls is at least 1, and 1 when serializeImagePulls is true; path: kubelet.maxParallelImagePulls."""
    pulls = kubelet.max_parallel_image_pulls
    if pulls is None:
        return []
    findings: list[Finding] = []
    if pulls < 1:
        findings.append(SH_KUB_010.invalid(path, pulls, "value must be >= 1"))
    if kubelet.serialize_image_pulls and pulls > 1:
        detail = "maxParallelImagePulls cannot be larger than 1 when serializeImagePulls is set to true"
        findings.append(SH_KUB_010.forbidden(path, detail))
    return findings


@SH_KUB_011.check
def _validate_image_pull_credentials(kubelet: KubeletConfig, version: str | None, path: FieldPath) -> list[Finding]:
    """imagePullCredentialsVerificationPolicy: Kubernetes >= 1.35, not with KubeletEnsureSecretPulledImages turned
    off, one of four values; preloadedImagesVerificationAllowlist only with NeverVerifyAllowlistedImages, each entry
    an image name without tag or digest, or a `<prefix>/*` wildcard. version: None while unknown; path: kubelet.
    """
    findings: list[Finding] = []
    policy = kubelet.image_pull_credentials_verification_policy
    if policy is not None:
        policy_path = path.child("imagePullCredentialsVerificationPolicy")
        parsed = find_version(version) if version is not None else None
        if parsed is not None and _LESS_135.allows(parsed):
            detail = "imagePullCredentialsVerificationPolicy is only available for Kubernetes versions >= 1.35"
            findings.append(SH_KUB_011.forbidden(policy_path, detail))
        if kubelet.feature_gates.get("KubeletEnsureSecretPulledImages") is False:
            detail = (
                "imagePullCredentialsVerificationPolicy may not be set when the KubeletEnsureSecretPulledImages "
                "feature gate is disabled"
            )
            findings.append(SH_KUB_011.forbidden(policy_path, detail))
        if policy not in IMAGE_PULL_CREDENTIALS_VERIFICATION_POLICIES:
            findings.append(SH_KUB_011.unsupported(policy_path, policy, IMAGE_PULL_CREDENTIALS_VERIFICATION_POLICIES))
    allowlist = kubelet.preloaded_images_verification_allowlist
    if allowlist is not None:
        allowlist_path = path.child("preloadedImagesVerificationAllowlist")
        if policy != NEVER_VERIFY_ALLOWLISTED_IMAGES:
            detail = (
                "preloadedImagesVerificationAllowlist may only be set when imagePullCredentialsVerificationPolicy is "
                "set to NeverVerifyAllowlistedImages"
            )
            findings.append(SH_KUB_011.forbidden(allowlist_path, detail))
        else:
            for i, pattern in enumerate(allowlist):
                error = _allowlist_pattern_error(pattern)
                if error:
                    findings.append(SH_KUB_011.invalid(allowlist_path.index(i), pattern, error))
    return findings


# Image references as github.com/distribution/reference parses them (regexp.go), ASCII only.
_PATH_COMPONENT: Final = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_DOMAIN_COMPONENT: Final = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST: Final = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[(?:[a-fA-F0-9:]+)\])"
_DOMAIN_AND_PORT: Final = rf"{_HOST}(?::[0-9]+)?"
_REMOTE_NAME: Final = rf"{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_REFERENCE: Final = compile_go(
    rf"^((?:{_DOMAIN_AND_PORT}/)?{_REMOTE_NAME})(?::([\w][\w.-]{{0,127}}))?"
    r"(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}))?$",
    re.ASCII,
)
_ANCHORED_NAME: Final = compile_go(rf"^(?:({_DOMAIN_AND_PORT})/)?({_REMOTE_NAME})$", re.ASCII)
_DIGEST_LENGTHS: Final = {"sha256": 64, "sha384": 96, "sha512": 128}
_LOWER_HEX: Final = compile_go(r"^[a-f0-9]+$")


def _reference_error(text: str) -> str:
    """The error of distribution/reference.Parse for `text` ("" when it parses), with tag or digest noted."""
    m = _REFERENCE.match(text)
    if m is None:
        if not text:
            return "repository name must have at least one component"
        if _REFERENCE.match(text.lower()) is not None:
            return "repository name must be lowercase"
        return "invalid reference format"
    name = _ANCHORED_NAME.match(m.group(1))
    if name is not None and len(name.group(2)) > 255:
        return "repository name must not be more than 255 characters"
    digest = m.group(3)
    if digest:
        algorithm, encoded = digest.split(":", 1)
        expected = _DIGEST_LENGTHS.get(algorithm)
        if expected is None:
            return "unsupported digest algorithm"
        if len(encoded) != expected:
            return "invalid checksum digest length"
        if _LOWER_HEX.match(encoded) is None:
            return "invalid checksum digest format"
    return ""


def _allowlist_pattern_error(pattern: str) -> str:
    """Why a preloadedImagesVerificationAllowlist entry is invalid, in the kubelet's words ("" when valid).

    Source: gardener shoot.go validatePreloadedImagesVerificationAllowlistPattern, trimImageTagDigest.
    """
    if pattern != pattern.strip(" \t\n\r\v\f"):
        return "leading/trailing spaces are not allowed"
    wildcard = pattern.endswith("/*")
    trimmed = pattern[:-1] if wildcard else pattern
    if not trimmed:
        return "the supplied pattern is too short"
    if "*" in trimmed:
        return "not a valid wildcard pattern, only patterns ending with '/*' are allowed"
    if wildcard:
        return "at least registry hostname is required" if len(trimmed) == 1 else ""
    error = _reference_error(trimmed)
    if error:
        return f"failed to parse as an image name: {error}"
    m = _REFERENCE.match(trimmed)
    if m is not None and (m.group(2) or m.group(3)):
        return "neither tag nor digest is accepted in an image reference"
    return ""


__all__ = [
    "RULES",
    "validate_kubelet_config",
    "validate_non_negative_duration",
    "validate_pool_kubelets",
]
