"""`gardener-webhook review`: judge manifests offline, exactly as the server would, in a way CI can trust.

The command a landscape team puts into the CI of the Git repository that holds its CloudProfiles and Shoots.
Three promises make it safe as a gate:

- Nothing is reported ALLOWED that was not judged. An object of a kind no validator judges is SKIPPED, with a
  "did you mean" when its kind differs from a judged one only by case, spelling or API group (`Cloudprofile`,
  `garden.sapcloud.io/v1beta1 CloudProfile`); `--strict` turns any skip into a failure. A document without
  `apiVersion` or `kind` is an input error (exit 2), naming the file and document. In a directory, files that
  are no manifests (kustomize files, Helm charts, CI files) are skipped and counted, never judged.
- Objects given together are each other's cluster state, as with `kubectl apply -f dir/`: a Shoot and its
  CloudProfile in one file or directory are judged together. `--context` adds stored objects; an object under
  review replaces a context object with the same group, kind, namespace and name (it is what will be stored).
  Two objects with the same identity among the context, or among the reviewed objects, are an input error
  naming both places.
- Every input is read exactly once (`-` is standard input, also when named twice).

The judging itself is `admission.judge`, the server's one path from bytes to a response.
Source: docs/guides/review.md and docs/guides/review-ci.md.
"""

from __future__ import annotations

import dataclasses
import difflib
import gc
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Protocol

from webhook.admission.fieldvalidation import Checked, FieldValidation, check_object
from webhook.admission.wire import BadReview, make_review
from webhook.caching.caches import Caches
from webhook.cluster.resources import STORED_AS
from webhook.cluster.static import ContextError, StaticView
from webhook.judging.judge import Outcome, judge
from webhook.offline.change import BaseError, applied, base_paths, pair
from webhook.offline.documents import Manifest, ManifestReader
from webhook.offline.yamlload import DocumentError
from webhook.settings import Settings
from webhook.validators import REGISTRY

ADMISSION_GROUP: Final = "admission.k8s.io"

# Findings that mean "the object this one refers to is in none of the inputs": worth a hint about --context.
_MISSING_REFERENCE_RULES: Final = frozenset({"SH-ADM-REF-001", "NCP-ADM-000"})
# Kinds whose UPDATE/DELETE is judged against the Shoots that use them (section B).
_PROFILE_KINDS: Final = frozenset(
    {("core.gardener.cloud", "CloudProfile"), ("core.gardener.cloud", "NamespacedCloudProfile")}
)


class ReviewInputError(ValueError):
    """The inputs cannot be reviewed as given (CLI exit 2); the message names the file, document or flag.

    source: the file the error is in ("<stdin>" for standard input) when it is one file's, else "".
    """

    def __init__(self, message: str, *, source: str = "") -> None:
        super().__init__(message)
        self.source = source


class Result(StrEnum):
    """What happened to one object: judged and allowed, judged and denied, or not judged at all."""

    ALLOWED = "ALLOWED"
    DENIED = "DENIED"
    SKIPPED = "SKIPPED"


@dataclass(frozen=True, slots=True)
class Reviewed:
    """One object's review. request: the AdmissionReview sent to `judge` (JSON-ready). outcome: the judgement,
    None when skipped. reason: why it was skipped. hints: advice for the user that is not a finding.
    fields: what the API server's decoding refuses before any webhook (`fieldvalidation`): its errors deny the
    object however the judgement went."""

    manifest: Manifest
    request: dict[str, Any]
    result: Result
    outcome: Outcome | None = None
    reason: str = ""
    hints: tuple[str, ...] = field(default=())
    fields: Checked = field(default=Checked())

    @property
    def messages(self) -> tuple[str, ...]:
        """The denial lines: the API server's decoding errors, then the judgement's."""
        judged = self.outcome.messages if self.outcome is not None else ()
        return (*(f.message for f in self.fields.errors), *judged)

    @property
    def warnings(self) -> tuple[str, ...]:
        """The warnings in full: the decoding's (under --field-validation=Warn), then the judgement's."""
        judged = self.outcome.full_warnings if self.outcome is not None else ()
        return (*(f.message for f in self.fields.warnings), *judged)

    @property
    def ref(self) -> str:
        """`Kind/namespace/name` of the judged object (for an AdmissionReview input: of its request)."""
        if self.outcome is not None:
            judged = self.outcome.envelope
            name = f"{judged.namespace}/{judged.name}" if judged.namespace else judged.name
            return f"{judged.kind}/{name}"
        request = self.request.get("request") or {}
        kind = (request.get("kind") or {}).get("kind", self.manifest.kind)
        namespace, name = request.get("namespace") or "", request.get("name") or ""
        return f"{kind}/{namespace}/{name}" if namespace else f"{kind}/{name}"

    @property
    def operation(self) -> str:
        """The operation the object was judged as (CREATE, UPDATE, DELETE)."""
        request = self.request.get("request") or {}
        return str(request.get("operation", ""))

    @property
    def group_kind(self) -> tuple[str, str]:
        request = self.request.get("request") or {}
        kind = request.get("kind") or {}
        return str(kind.get("group", "")), str(kind.get("kind", ""))

    def to_json(self) -> dict[str, Any]:
        """The `--output json` element: the AdmissionReview with its `response`; a skipped object has no response
        (nothing judged it) and says why in `skipped`."""
        if self.outcome is None:
            return {**self.request, "skipped": self.reason}
        found: dict[str, Any] = {**self.request, "response": self.outcome.response}
        if self.fields.errors or self.fields.warnings:
            found["fieldValidation"] = {
                "errors": [{"rule": f.rule.id, "message": f.message} for f in self.fields.errors],
                "warnings": [{"rule": f.rule.id, "message": f.message} for f in self.fields.warnings],
            }
        return found


def display_group(group: str) -> str:
    """An API group for messages: the core group ("" in `apiVersion: v1`) is shown as `core`."""
    return group or "core"


def suggestion(group: str, kind: str) -> tuple[str, str] | None:
    """The judged (group, kind) a user probably meant by an unjudged `group`/`kind`, or None.

    Matches the same kind in another group (`garden.sapcloud.io` CloudProfile), the same kind in another case
    (`Cloudprofile`), or a close spelling (`CloudProfil`); the same group is preferred.
    """
    judged = sorted(REGISTRY, key=lambda gk: (gk[0] != group, gk))
    for wanted in (kind, kind.lower()):
        for candidate in judged:
            if candidate[1] == wanted or candidate[1].lower() == wanted:
                return candidate
    by_lower = {gk[1].lower(): gk for gk in judged}
    close = difflib.get_close_matches(kind.lower(), list(by_lower), n=1, cutoff=0.8)
    return by_lower[close[0]] if close else None


def skip_reason(group: str, kind: str) -> str:
    """`no validator for <group>/<kind>`, with a "did you mean" when a judged kind is close."""
    reason = f"no validator for {display_group(group)}/{kind}"
    meant = suggestion(group, kind)
    if meant is not None:
        reason += f"; did you mean {meant[0]} {meant[1]}?"
    return reason


def _duplicates(manifests: Sequence[Manifest], what: str) -> None:
    """Raise ReviewInputError when two named manifests have the same identity; the message names both places."""
    seen: dict[tuple[str, str, str, str], Manifest] = {}
    for manifest in manifests:
        if not manifest.name or manifest.kind == "AdmissionReview":
            continue
        first = seen.setdefault(manifest.identity, manifest)
        if first is not manifest:
            raise ReviewInputError(
                f"{what}: {manifest.ref} ({display_group(manifest.group)}) is given twice: {first.where} and {manifest.where}"
            )


def build_view(targets: Sequence[Manifest], context: Sequence[Manifest]) -> StaticView:
    """The cluster state for an offline review: the context objects, then the reviewed objects over them.

    Context objects that cannot be decoded are an input error (ContextError -> ReviewInputError); reviewed
    objects that cannot be decoded stay out of the view (their own review denies them, naming the field).
    """
    _duplicates(context, "--context")
    _duplicates(targets, "reviewed objects")
    reviewed = {m.identity for m in targets}
    view = StaticView()
    try:
        for manifest in context:
            if manifest.identity not in reviewed:
                view.add(manifest.obj, where=manifest.where)
    except ContextError as exc:
        raise ReviewInputError(f"--context: {exc}") from None
    for manifest in targets:
        view.add(manifest.obj, where=manifest.where, strict=False)
    return view


def _stored(manifest: Manifest, olds: Sequence[Manifest], targets: Sequence[Manifest]) -> dict[str, Any]:
    """The stored object (--old) for `manifest`: same group, kind, namespace and name, else an input error."""
    for old in olds:
        if old.identity == manifest.identity:
            return old.obj
    if len(olds) == 1 and len(targets) == 1:
        raise ReviewInputError(
            f"--old holds {olds[0].ref} ({display_group(olds[0].group)}, {olds[0].where}) but the object under review "
            f"is {manifest.ref} ({display_group(manifest.group)}, {manifest.where}): an UPDATE compares an object "
            "with its own stored version"
        )
    if not olds:
        raise ReviewInputError(
            f"{manifest.where}: --operation UPDATE needs --old FILE holding the stored {manifest.ref}"
        )
    raise ReviewInputError(f"{manifest.where}: --old has no stored {manifest.ref} ({display_group(manifest.group)})")


# A misspelt profile among the inputs: (the profile kind it was meant as, namespace, name) -> (manifest, (group, kind)).
Misspelt = dict[tuple[str, str, str], tuple[Manifest, tuple[str, str]]]


def misspelt_profiles(manifests: Sequence[Manifest]) -> Misspelt:
    """The objects of kinds no validator judges that are near misses of CloudProfile or NamespacedCloudProfile
    (`Cloudprofile`, `garden.sapcloud.io` CloudProfile), by the kind meant, namespace and name; the first one wins."""
    found: Misspelt = {}
    for manifest in manifests:
        if (manifest.group, manifest.kind) in REGISTRY or not manifest.name:
            continue
        meant = suggestion(manifest.group, manifest.kind)
        if meant in _PROFILE_KINDS:
            found.setdefault((meant[1], manifest.namespace, manifest.name), (manifest, meant))
    return found


def _referenced_profile(obj: dict[str, Any], kind: str) -> tuple[str, str, str]:
    """(kind, namespace, name) of the profile a Shoot (spec.cloudProfile, else spec.cloudProfileName) or a
    NamespacedCloudProfile (spec.parent) refers to, from the raw object; kind defaults to CloudProfile."""
    spec = found if isinstance(found := obj.get("spec"), dict) else {}
    meta = found if isinstance(found := obj.get("metadata"), dict) else {}
    ref = spec.get("parent") if kind == "NamespacedCloudProfile" else spec.get("cloudProfile")
    ref = ref if isinstance(ref, dict) else {}
    name = str(ref.get("name") or ("" if kind == "NamespacedCloudProfile" else spec.get("cloudProfileName") or ""))
    ref_kind = str(ref.get("kind") or "CloudProfile")
    namespace = str(meta.get("namespace") or "") if ref_kind == "NamespacedCloudProfile" else ""
    return ref_kind, namespace, name


def _hints(
    outcome: Outcome, view: StaticView, group_kind: tuple[str, str], obj: dict[str, Any], misspelt: Misspelt
) -> tuple[str, ...]:
    hints: list[str] = []
    near_miss = misspelt.get(_referenced_profile(obj, group_kind[1])) if misspelt else None
    if _MISSING_REFERENCE_RULES.intersection(outcome.rule_ids) and near_miss is not None:
        # The profile is there, under a kind nobody judges: name the typo rather than send the user looking.
        manifest, (group, kind) = near_miss
        shown = "<stdin>" if manifest.source == "-" else manifest.source
        given, meant = (manifest.kind, kind) if manifest.group == group else (
            f"{display_group(manifest.group)} {manifest.kind}", f"{group} {kind}"
        )  # fmt: skip
        hints.append(f"the referenced profile is in {shown} as kind {given}; did you mean {meant}?")
    elif _MISSING_REFERENCE_RULES.intersection(outcome.rule_ids):
        hints.append(
            "the referenced profile is in none of the given files: review it together with this object "
            "(same file or directory) or pass it with --context FILE "
            "(e.g. kubectl get cloudprofiles,namespacedcloudprofiles -A -o yaml)"
        )
    if (
        group_kind in _PROFILE_KINDS
        and outcome.envelope.operation in ("UPDATE", "DELETE")
        and not view.counts()["Shoot"]
    ):
        hints.append(
            "no Shoots were given, so versions in use were not checked: pass them with --context FILE "
            "(e.g. kubectl get shoots -A -o yaml)"
        )
    return tuple(hints)


def review_files(
    files: Sequence[Path | str],
    *,
    operation: str,
    old: Path | str | None,
    context: Sequence[Path | str],
    settings: Settings,
    now: datetime,
    reader: ManifestReader,
    on_result: Callable[[Reviewed, int, int], None] | None = None,
    field_validation: FieldValidation = FieldValidation.STRICT,
) -> list[Reviewed]:
    """Review every object of `files` (files, directories, "-") as `operation`; now: aware UTC.

    field_validation: what the API server's strict decoding finds (unserved version, unknown or duplicate fields,
    `fieldvalidation.check_object`) does to each judged object: deny it, warn, or nothing; not for DELETE.

    Returns one Reviewed per object, in input order; on_result(reviewed, done, total), when given, is called as each
    object is judged (the CLI prints it then). Files found in directories that are no manifests (kustomize, Helm,
    CI files, YAML without apiVersion/kind) are skipped into `reader.skipped`. Input errors of the objects
    themselves (--old) are found before the first object is judged; an AdmissionReview input that is no usable
    review stops the run where it stands. Raises ReviewInputError for inputs that cannot be reviewed as given:
    unreadable or non-YAML files, named files or manifest files with documents without apiVersion/kind, --old
    without UPDATE or not matching, duplicate identities, undecodable context objects, no objects at all.
    """
    if old is not None and operation != "UPDATE":
        raise ReviewInputError(f"--old is only used with --operation UPDATE (the operation is {operation})")
    targets = _read(reader, files, "")
    skipped = len(reader.skipped)
    olds = _read(reader, [old], "--old: ") if old is not None else []
    stored = _read(reader, context, "--context: ")
    # A hook handed only a commit's non-manifests (a changed kustomization.yaml) has nothing to judge: that passes.
    if not targets and not (reader.skip_named and skipped):
        why = f" ({skipped} file{'s' if skipped != 1 else ''} skipped; -v lists them and why)" if skipped else ""
        raise ReviewInputError(f"no objects found in {', '.join(str(f) for f in files)}{why}")
    # The inputs (and, for the formats that place findings, their YAML nodes) live until the end: frozen, they are
    # not walked by every full pass of the collector that building the view and judging set off (about a tenth of
    # the time for 1 000 Shoots, more than a third with the nodes kept); unfrozen at the end, collected as usual.
    gc.freeze()
    try:
        plain = [m for m in targets if not _is_admission_review(m)]
        view = build_view(plain, stored)
        judged = [m for m in plain if _judged(m)]
        misspelt = misspelt_profiles([*plain, *stored])
        requests: list[dict[str, Any]] = []
        for manifest in targets:
            if _is_admission_review(manifest):
                requests.append(manifest.obj)
            else:
                previous = _stored(manifest, olds, judged) if operation == "UPDATE" and _judged(manifest) else None
                requests.append(make_review(manifest.obj, operation, previous))
        results: list[Reviewed] = []
        caches = Caches()
        for manifest, request in zip(targets, requests, strict=True):
            results.append(
                _review_one(manifest, request, view, settings, now, misspelt, field_validation, caches=caches)
            )
            if on_result is not None:
                on_result(results[-1], len(results), len(targets))
    finally:
        gc.unfreeze()
    return results


def _read(reader: ManifestReader, paths: Sequence[Path | str], flag: str) -> list[Manifest]:
    try:
        return reader.read_all(paths)
    except DocumentError as exc:
        raise ReviewInputError(f"{flag}{exc}", source=exc.source) from None


def _is_admission_review(manifest: Manifest) -> bool:
    return manifest.kind == "AdmissionReview" and manifest.group == ADMISSION_GROUP


def _judged(manifest: Manifest) -> bool:
    return (manifest.group, manifest.kind) in REGISTRY


def _review_one(
    manifest: Manifest,
    request: dict[str, Any],
    view: StaticView,
    settings: Settings,
    now: datetime,
    misspelt: Misspelt,
    field_validation: FieldValidation,
    sent: dict[str, Any] | None = None,
    caches: Caches | None = None,
) -> Reviewed:
    """Judge one review; sent: what the client sends the API server for it, whose decoding is checked (default: the
    request's object; `kubectl apply` of an UPDATE sends the manifest, not the merged object judged). caches: the
    run's (`caching.caches.Caches`), which make a long run cheaper and never change an answer."""
    inner = found if isinstance(found := request.get("request"), dict) else {}
    gvk = raw_kind if isinstance(raw_kind := inner.get("kind"), dict) else {}
    group_kind = (str(gvk.get("group", "")), str(gvk.get("kind", "")))
    if group_kind not in REGISTRY:
        return Reviewed(manifest, request, Result.SKIPPED, reason=skip_reason(*group_kind))
    try:
        outcome = judge(json.dumps(request).encode("utf-8"), view=view, settings=settings, now=now, caches=caches)
    except BadReview as exc:
        raise ReviewInputError(f"{manifest.where}: not a usable AdmissionReview: {exc}") from None
    fields = _decoding(manifest, inner if sent is None else {**inner, "object": sent}, field_validation)
    result = Result.ALLOWED if outcome.allowed and not fields.errors else Result.DENIED
    judged_obj = found if isinstance(found := inner.get("object") or inner.get("oldObject"), dict) else {}
    hints = (*fields.hints, *_hints(outcome, view, group_kind, judged_obj, misspelt))
    return Reviewed(manifest, request, result, outcome, hints=hints, fields=fields)


def _decoding(manifest: Manifest, inner: dict[str, Any], mode: FieldValidation) -> Checked:
    """What the API server's decoding finds in the object sent as `inner` (a review's `request`): for a plain
    manifest the manifest itself, for an AdmissionReview input its `request.object` (a hand-written or edited review
    can hold what no API server would have sent; keys given twice count anywhere in the review's document).
    Nothing for DELETE, whose body the API server does not decode as the object."""
    obj = inner.get("object")
    if inner.get("operation") == "DELETE" or not isinstance(obj, dict):
        return Checked()
    shown = "<stdin>" if manifest.source == "-" else manifest.source
    return check_object(obj, manifest.duplicates, where=shown, mode=mode)


@dataclass(frozen=True, slots=True)
class ChangeReview:
    """The review of a change: one Reviewed per judged object (its operation in its request) and how many objects
    were unchanged and not judged."""

    results: list[Reviewed]
    unchanged: int


def review_change(
    files: Sequence[Path | str],
    *,
    base_dir: Path,
    base_label: str,
    context: Sequence[Path | str],
    settings: Settings,
    now: datetime,
    reader: ManifestReader,
    base_reader: ManifestReader,
    judge_unchanged: bool = False,
    on_result: Callable[[Reviewed, int, int], None] | None = None,
    field_validation: FieldValidation = FieldValidation.STRICT,
) -> ChangeReview:
    """Review the change from the base (the same paths under `base_dir`) to `files`, as `change` describes:
    added objects as CREATE, changed ones as UPDATE of the base object, removed ones as DELETE, unchanged ones not
    at all (`judge_unchanged`: as a re-apply). The cluster state is the new state plus `context`.

    base_label names the base in messages (`HEAD~1`, a directory): a base object's place reads
    `<label>:<path>`; base_reader reads it (the same exclusions as `reader`, no standard input). on_result as for
    review_files; field_validation as for review_files. Raises ReviewInputError as review_files does, and BaseError's
    message as one.
    """
    targets = _read(reader, files, "")
    try:
        in_base = base_paths(files, base_dir)
    except BaseError as exc:
        raise ReviewInputError(str(exc)) from None
    base = [_relabel(m, base_dir, base_label) for m in _read(base_reader, in_base, f"{base_label}: ")]
    stored = _read(reader, context, "--context: ")
    gc.freeze()  # the inputs live until the end, as in review_files
    try:
        return _review_pairs(
            targets, base, stored, settings, now, judge_unchanged, on_result, field_validation, base_label
        )
    finally:
        gc.unfreeze()


def _review_pairs(
    targets: list[Manifest],
    base: list[Manifest],
    stored: list[Manifest],
    settings: Settings,
    now: datetime,
    judge_unchanged: bool,
    on_result: Callable[[Reviewed, int, int], None] | None,
    field_validation: FieldValidation,
    base_label: str,
) -> ChangeReview:
    """`review_change` once its inputs are read: pair, judge, report."""
    plain = [m for m in targets if not _is_admission_review(m)]
    view = build_view(plain, stored)
    _duplicates(base, base_label)
    misspelt = misspelt_profiles([*plain, *stored])
    requests: list[tuple[Manifest, dict[str, Any]]] = []
    unchanged = 0
    for operation, manifest, old in pair(targets, [m for m in base if not _is_admission_review(m)]):
        if _is_admission_review(manifest):
            requests.append((manifest, manifest.obj))
        elif operation == "UNCHANGED":
            if judge_unchanged:
                requests.append((manifest, make_review(manifest.obj, "UPDATE", manifest.obj)))
            else:
                unchanged += 1
        else:
            requests.append((manifest, make_review(manifest.obj, operation, old.obj if old is not None else None)))
    results: list[Reviewed] = []
    caches = Caches()
    for manifest, request in requests:
        results.append(_review_one(manifest, request, view, settings, now, misspelt, field_validation, caches=caches))
        if on_result is not None:
            on_result(results[-1], len(results), len(requests))
    return ChangeReview(results, unchanged)


def _relabel(manifest: Manifest, base_dir: Path, label: str) -> Manifest:
    """A base manifest whose place names the base (`HEAD~1:landscape/aws.yaml`), not the temporary folder."""
    relative = os.path.relpath(manifest.source, base_dir)
    return dataclasses.replace(manifest, source=f"{label}:{relative}", file=relative)


class StoredObjects(Protocol):
    """A cluster as `review_against_cluster` reads it (`cluster.stored.ClusterReader`)."""

    namespace: str  # where an unnamespaced object of a namespaced kind is applied

    def snapshot(self) -> list[dict[str, Any]]:
        """Every stored object of the kinds the cluster view tracks (raw JSON objects)."""
        ...

    def stored(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The stored object, or None when absent (call `snapshot` first)."""
        ...


def review_against_cluster(
    files: Sequence[Path | str],
    *,
    cluster: StoredObjects,
    label: str,
    settings: Settings,
    now: datetime,
    reader: ManifestReader,
    judge_unchanged: bool = False,
    on_result: Callable[[Reviewed, int, int], None] | None = None,
    field_validation: FieldValidation = FieldValidation.STRICT,
) -> ChangeReview:
    """Review `files` as `kubectl apply -f` of them into `cluster` would meet the API server right now.

    Each object of a judged kind is paired with its stored version (an object without a namespace of a namespaced
    kind goes to `cluster.namespace`, as kubectl sends it): none, CREATE; one, UPDATE of it by `change.applied`
    (kubectl's three-way merge), or not judged when the apply changes nothing (`judge_unchanged`: judged as a
    re-apply). The cluster state is the
    cluster's objects with the applied ones in their place, so the cluster's Shoots are the versions in use.
    Stored objects the view cannot decode are left out of it, as the live view leaves them. label names the cluster
    in places (`cluster (--kubeconfig)`). field_validation as for review_files, applied to each manifest as sent.
    Raises ReviewInputError as review_files does; what `cluster` raises (ClusterReadError) passes through.
    """
    targets = [_defaulted_namespace(m, cluster.namespace) for m in _read(reader, files, "")]
    if not targets and not reader.skipped:
        raise ReviewInputError(f"no objects found in {', '.join(str(f) for f in files)}")
    plain = [m for m in targets if not _is_admission_review(m)]
    _duplicates(plain, "reviewed objects")
    stored_objects = cluster.snapshot()
    requests: list[tuple[Manifest, dict[str, Any]]] = []
    state: list[Manifest] = []  # the reviewed objects as the apply leaves them
    unchanged = 0
    for manifest in targets:
        if _is_admission_review(manifest) or not _judged(manifest) or not manifest.name:
            request = manifest.obj if _is_admission_review(manifest) else make_review(manifest.obj, "CREATE", None)
            requests.append((manifest, request))
            state.append(manifest)
            continue
        old = cluster.stored(str(manifest.obj.get("apiVersion", "")), manifest.kind, manifest.namespace, manifest.name)
        if old is None:
            requests.append((manifest, make_review(manifest.obj, "CREATE", None)))
            state.append(manifest)
            continue
        new = applied(old, manifest.obj)
        state.append(dataclasses.replace(manifest, obj=new))
        if judge_unchanged or new != old:
            requests.append((manifest, make_review(new, "UPDATE", old)))
        else:
            unchanged += 1
    view = StaticView()
    replaced = {m.identity for m in state}
    for i, raw in enumerate(stored_objects):
        if Manifest(raw, label, i + 1, 0).identity not in replaced:
            view.add(raw, where=f"{label}, object {i + 1}", strict=False)
    for manifest in state:
        if not _is_admission_review(manifest):
            view.add(manifest.obj, where=manifest.where, strict=False)
    misspelt = misspelt_profiles(plain)
    results: list[Reviewed] = []
    caches = Caches()
    for manifest, request in requests:
        sent = None if _is_admission_review(manifest) else manifest.obj
        results.append(_review_one(manifest, request, view, settings, now, misspelt, field_validation, sent, caches))
        if on_result is not None:
            on_result(results[-1], len(results), len(requests))
    return ChangeReview(results, unchanged)


def _defaulted_namespace(manifest: Manifest, namespace: str) -> Manifest:
    """`manifest` with `metadata.namespace` set to `namespace` when its judged kind is namespaced and it has none."""
    where = STORED_AS.get((manifest.group, manifest.kind))
    meta = manifest.obj.get("metadata")
    if where is None or not where[1] or manifest.namespace or not isinstance(meta, dict):
        return manifest
    return dataclasses.replace(manifest, obj={**manifest.obj, "metadata": {**meta, "namespace": namespace}})
