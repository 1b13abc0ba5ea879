"""AdmissionReview v1 in, AdmissionReview v1 out: the one path from request bytes to a response.

`judge` is called by both the HTTP server and the `review` CLI. It takes the review as `wire.parse_review` parsed it
(the `Envelope` of uid, group/kind, operation, object name and namespace, user and dryRun, plus the raw objects;
the server parses first, so that it can answer by uid whatever happens to judging), or parses the body. Then it picks
the kind's validator from the registry, decodes and defaults the objects (shape errors become findings), runs the
validator, ratchets findings the stored object already had (UPDATE), applies the policy (modes, exemptions)
and answers with a named constructor of `responses`: `uid` echoed, `allowed`, warnings, a Kubernetes `Status` on
denial and audit annotations naming the rules that fired; the text of findings and warnings is composed by
`rendering`. Two error channels, as in kopf: `BadReview` means the call itself is unusable (HTTP 400 / CLI exit 2);
everything about the object goes into `response.status`.
The server parses first and asks `kinds_to_confirm` whether the request removes something whose in-use answer
needs a view confirmed current with the API server (it awaits that confirmation, then hands `judge` the body with
its parsed `Review`); judging itself never waits for anything.
Contract: docs/concepts/request-flow.md "The answer" and docs/getting-started.md "Running the server".
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from types import TracebackType
from typing import Any, Final

from webhook.admission.kinds import (
    CreateRequest,
    DeleteRequest,
    KindValidator,
    Operation,
    UpdateRequest,
    decode_object,
)
from webhook.admission.policy import apply_policy
from webhook.admission.rendering import clean_warnings, compose_denial, limit_warnings, render_line, render_warning
from webhook.admission.responses import AdmissionResponse, AdmissionReview, allowed, denied, errored
from webhook.admission.wire import DecodedPair, Envelope, Review, parse_review
from webhook.caching.caches import PLAIN, Caches, Plain
from webhook.cluster.view import KINDS, ClusterView
from webhook.domain.field import Finding, Verdict, rule_of_frame
from webhook.settings import Settings
from webhook.validators import REGISTRY

logger = logging.getLogger(__name__)

# The audit annotation naming the rules that fired. The API server files it under `<webhook name>/<key>` and drops
# it (with "annotation key has invalid format" in its log) unless that is a qualified name with exactly one "/":
# k8s.io/apiserver pkg/admission/plugin/webhook/validating/dispatcher.go callHook, pkg/admission/attributes.go
# checkKeyFormat. So the key is a bare name: `shoots.gardener-webhook.gardener.cloud/rules` in the audit log.
RULES_ANNOTATION: Final = "rules"
RATCHETED_PREFIX: Final = "unchanged, not enforced: "


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one review, plus what logs and metrics need.

    review: the AdmissionReview to send back (JSON-ready dict). envelope: the request's, as parsed (uid, kind,
    operation, object, user, dryRun for logs, metrics and the CLI). code: HTTP-like status of the decision
    (200 allowed, 422/403 denied, 500 internal error). rule_ids: every rule that fired (denials and warnings);
    denied_rule_ids: those of them whose findings denied (the rest only warned).
    entries: every finding as (rule id, "deny" | "warn" | "ratcheted", rendered text), unsanitised (for audit).
    paths: the field path of each entry, in the same order, as rendered ("" for the whole object), so that `review`
    can place each finding on the line of the manifest that holds the field.
    warnings: exactly `response.warnings`: advisory findings, then ratcheted denials behind RATCHETED_PREFIX, each
    composed to at most MAX_WARNING_CHARS characters (`rendering.compose_warning`: values whole or as a placeholder, a cut
    text ends with "…"), distinct, at most MAX_WARNINGS entries and MAX_WARNINGS_TOTAL_CHARS characters in total,
    the last entry possibly "N more warnings not shown" (`rendering.limit_warnings`).
    full_warnings: the same warnings in the same order, cleaned but never shortened, distinct on the full text,
    never capped and without a "not shown" entry (for the CLI). Neither elisions nor a cap apply, so it can hold
    more entries than `warnings`; two long texts with the same composed form are one warning but two full ones.
    """

    review: AdmissionReview
    envelope: Envelope
    allowed: bool
    code: int
    rule_ids: tuple[str, ...] = ()
    denied_rule_ids: tuple[str, ...] = ()
    entries: tuple[tuple[str, str, str], ...] = ()
    paths: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    full_warnings: tuple[str, ...] = ()
    messages: tuple[str, ...] = field(default=())

    @property
    def response(self) -> AdmissionResponse:
        return self.review["response"]


# ----------------------------------------------------------------------------------------------- judging


@dataclass(frozen=True, slots=True)
class _Judged:
    """A validator's verdict; `previous` lazily judges the stored object (UPDATE) for ratcheting."""

    verdict: Verdict
    previous: Callable[[], Sequence[Finding]] | None = None
    crashed_rule: str | None = None


def _crash_rule(tb: TracebackType | None) -> str:
    """Name the rule behind an exception: innermost `Rule.check` function, else the innermost validator function."""
    frames = [frame for frame, _ in traceback.walk_tb(tb)]
    for frame in reversed(frames):
        rule = rule_of_frame(frame)
        if rule is not None:
            return rule.id
    for frame, _ in reversed(list(traceback.walk_tb(tb))):
        module = frame.f_globals.get("__name__", "")
        if module.startswith("webhook.validators"):
            return f"{module.rsplit('.', 1)[-1]}.{frame.f_code.co_name}"
    return "unknown"


def _seam(caches: Caches | None) -> Plain:
    """The cache layer's seam: the stores of `caches`, or the plain path."""
    return caches if caches is not None else PLAIN


def _objects(entry: KindValidator[Any], review: Review, caches: Caches | None) -> tuple[object, object]:
    """The review's (object, oldObject), parsed through the seam once. Raises BadReview (`Review.objects`)."""
    seam = _seam(caches)
    return review.objects(partial(seam.parse, lists=entry.shared_lists))


def _decode_review(entry: KindValidator[Any], review: Review, caches: Caches | None) -> DecodedPair:
    """The review's objects decoded and defaulted for `entry`: (new, new findings, old, old findings), once per
    review (kept on it). Raises BadReview when the objects are not valid JSON (`Review.objects`)."""
    kept = review._decoded
    if kept is not None and kept[0] is entry:
        return kept[1]
    raw_object, raw_old = _objects(entry, review, caches)
    seam = _seam(caches)
    new, old = seam.decode_pair(
        (entry.group, entry.kind), entry.model, raw_object, raw_old, entry.shared_lists, entry.shared_models,
        partial(decode_object, entry, caches=seam.rules),
    )  # fmt: skip
    decoded = (new[0], new[2], old[0], old[2])
    review._decoded = (entry, decoded)
    return decoded


def _same_spec(new: Any, old: Any) -> bool:
    """The raw objects have equal `spec` (every field, modelled or not)."""
    return isinstance(new, dict) and isinstance(old, dict) and new.get("spec") == old.get("spec")


def _same_metadata(new: Any, old: Any) -> bool:
    """With `_same_spec`, Gardener's no-op UPDATE test on the raw objects: equal `metadata` too."""
    return isinstance(new, dict) and isinstance(old, dict) and new.get("metadata") == old.get("metadata")


def _crashed(envelope: Envelope, exc: BaseException) -> _Judged:
    rule = _crash_rule(exc.__traceback__)
    logger.error(
        "validator crashed",
        exc_info=exc,
        extra={"uid": envelope.uid, "kind": envelope.kind, "rule": rule, "operation": envelope.operation},
    )
    return _Judged(Verdict(), crashed_rule=rule)


def run_validator(
    entry: KindValidator[Any],
    review: Review,
    view: ClusterView,
    settings: Settings,
    now: datetime,
    caches: Caches | None = None,
) -> _Judged:
    """Decode, default and judge one request; the only place that catches a validator's exception.

    A crash becomes `crashed_rule` (logged with the uid); a shape error becomes OBJ-DECODE-001 findings.
    On UPDATE, `previous` judges the old object as if it were created, so that `judge` can ratchet denials
    the stored object already had: re-applying a stored object never fails on what was already there.
    caches: what the server keeps across requests (`Caches`: parsed and decoded objects, decoded list entries), or None.
    Raises BadReview when the request's objects are not valid JSON (`Review.objects`).
    """
    envelope = review.envelope
    operation = Operation(envelope.operation)
    validate = {Operation.CREATE: entry.create, Operation.UPDATE: entry.update, Operation.DELETE: entry.delete}
    if validate.get(operation) is None or review.sub_resource:
        return _Judged(Verdict())
    # In order: the wire (the objects), the seam (decoded, defaulted, the typed requests), the validator.
    raw_object, raw_old = _objects(entry, review, caches)
    # The RequestInfo fields every typed request carries besides its objects.
    info: dict[str, Any] = {
        "uid": envelope.uid,
        "now": now,
        "name": envelope.name,
        "namespace": envelope.namespace,
        "user": envelope.user,
        "dry_run": envelope.dry_run,
        "sub_resource": review.sub_resource,
        "caches": caches.rules if caches is not None else None,
    }
    create = entry.create
    try:
        new, new_errors, old, old_errors = _decode_review(entry, review, caches)  # decoded by kinds_to_confirm, maybe
        if new_errors:
            return _Judged(
                Verdict.of(new_errors), previous=(lambda: old_errors) if operation is Operation.UPDATE else None
            )
        previous = None
        if operation is Operation.UPDATE and create is not None:
            as_created = CreateRequest(**info, object=old)  # the stored object as if created, for ratcheting
            previous = lambda: create(as_created, view, settings).findings  # noqa: E731
        if operation is Operation.DELETE and entry.delete is not None:
            verdict = entry.delete(DeleteRequest(**info, old_object=old), view, settings)
        elif operation is Operation.UPDATE and entry.update is not None and old is not None:
            same_spec = _same_spec(raw_object, raw_old)
            unchanged = same_spec and _same_metadata(raw_object, raw_old)
            update = UpdateRequest(**info, object=new, old_object=old, unchanged=unchanged, spec_unchanged=same_spec)
            verdict = entry.update(update, view, settings)
        elif create is not None:
            # CREATE, or an UPDATE whose stored object no longer decodes: judged as if it were created.
            verdict = create(CreateRequest(**info, object=new), view, settings)
            return _Judged(verdict)
        else:
            return _Judged(Verdict())
    except Exception as exc:  # noqa: BLE001 - the one place that turns a validator crash into a denial
        return _crashed(envelope, exc)
    return _Judged(verdict, previous=previous)


def kinds_to_confirm(review: Review, *, caches: Caches | None = None) -> tuple[str, ...]:
    """The kinds of the cluster view that must be confirmed current before `review` is judged; () for most requests.

    What the kind's in-use rules read when an UPDATE takes something away or a DELETE removes the object
    (`KindValidator.needs_current_view`): the server confirms them with the API server first
    (`cluster.current`), so that a Shoot created a moment ago is in the answer. Any other request costs a look-up:
    a kind without in-use rules, a CREATE, a re-applied object and a subresource decode nothing here; an UPDATE of a
    profile decodes its objects as judging does, once (kept on the review, and in `caches` as judging keeps them).
    Objects that do not decode need no confirmation (they are denied for their shape, or an UPDATE is judged as a
    CREATE). Raises BadReview as `judge` does; a failure in decoding or in `needs_current_view` is left to judging,
    which reports it as the rule's crash.
    """
    envelope = review.envelope
    entry = REGISTRY.get((envelope.group, envelope.kind))
    if entry is None or entry.needs_current_view is None or review.sub_resource:
        return ()
    operation = Operation(envelope.operation)
    if not entry.judges(operation) or operation is Operation.CREATE or review.reapplied is not None:
        return ()  # a re-applied object takes nothing away
    _objects(entry, review, caches)  # BadReview here, as in judging
    try:
        new, new_errors, old, _ = _decode_review(entry, review, caches)
        if new_errors or (operation is Operation.UPDATE and (new is None or old is None)):
            return ()
        return entry.needs_current_view(operation, new, old)
    except Exception:  # noqa: BLE001 - validator code: judging runs it again on the same objects and names the crash
        return ()


def _ratchet(verdict: Verdict, previous: Sequence[Finding]) -> tuple[Verdict, tuple[Finding, ...]]:
    """Split denials into new ones and those the stored object already had.

    Only findings about the object's own fields ratchet: cluster-state findings (403) are judged against the
    cluster as it is now, since the cluster may have changed while the object did not.
    """
    known = {f.key() for f in previous if not f.rule.uses_cluster}
    ratcheted = tuple(f for f in verdict.errors if not f.rule.uses_cluster and f.key() in known)
    kept = tuple(f for f in verdict.errors if f not in ratcheted)
    return Verdict(kept, verdict.warnings), ratcheted


def judge(
    body: bytes,
    *,
    view: ClusterView,
    settings: Settings,
    now: datetime,
    caches: Caches | None = None,
    review: Review | None = None,
) -> Outcome:
    """Judge one AdmissionReview body. now: aware UTC, the request's clock.

    caches: what the server keeps across requests (`caching.caches.Caches`: parsed and decoded entries, recent
    objects, what rules remember, verdicts on re-applied objects); the answer is the same with or without them. The
    same caches must always be used with the same `settings`.
    review: `parse_review(body)`, when the caller made it already (the server: it answers by the envelope's uid when
    judging is cut off or fails, and asks `kinds_to_confirm` first, with the same caches); else the body is parsed
    here.
    Raises BadReview when the body is not a usable AdmissionReview v1; a validator's crash is a 500 denial, so
    nothing else escapes but what the caller raises into it (the server's DeadlineExceeded).
    """
    if review is None:
        review = parse_review(body)
    envelope = review.envelope
    entry = REGISTRY.get((envelope.group, envelope.kind))
    if entry is None:
        logger.info("no validator for kind, allowing", extra={"uid": envelope.uid, "kind": envelope.kind})
        return allowed_unjudged(envelope)
    seam = _seam(caches)
    if entry.reuse_unchanged and review.reapplied is not None and not review.sub_resource:
        # A re-applied object: its verdict may be the one judged before, while nothing it reads has changed.
        key = (envelope.group, envelope.kind, envelope.namespace, envelope.name, review.reapplied)
        state = (view.revision, view.synced, *(view.known(kind) for kind in KINDS))
        judged = seam.recall_reapplied(key, state, now)
        if judged is None:
            judged = run_validator(entry, review, view, settings, now, caches)
            until = seam.reapplied_until(review.objects()[0], now)
            settled = _settled(judged) if until is not None else None
            if settled is not None and until is not None:
                seam.remember_reapplied(key, state, now, until, settled)
                judged = settled
    else:
        judged = run_validator(entry, review, view, settings, now, caches)
    verdict = apply_policy(judged.verdict, settings, envelope.user)
    ratcheted: tuple[Finding, ...] = ()
    if verdict.errors and judged.previous is not None:
        try:
            previous = judged.previous()
        except Exception as exc:  # noqa: BLE001 - judging the stored object is validator code too
            return _outcome(envelope, Verdict(), (), _crashed(envelope, exc).crashed_rule)
        verdict, ratcheted = _ratchet(verdict, previous)
    return _outcome(envelope, verdict, ratcheted, judged.crashed_rule)


# ----------------------------------------------------------------------------------------------- re-applies


def _settled(judged: _Judged) -> _Judged | None:
    """`judged` as a verdict on a re-applied object may be remembered (`Caches.remember_reapplied`): with the stored object's
    judgement (for ratcheting) made now when the verdict has findings the policy could make denials; None when it
    must not be remembered (a crash, here or in judging the stored object, which judge() then reports)."""
    if judged.crashed_rule is not None:
        return None
    if judged.previous is None or not (judged.verdict.errors or judged.verdict.warnings):
        return _Judged(judged.verdict)
    try:
        findings = tuple(judged.previous())
    except Exception:  # noqa: BLE001 - not remembered: judge() reports the crash from the lazy call
        return None
    return _Judged(judged.verdict, lambda: findings)


def allowed_unjudged(envelope: Envelope) -> Outcome:
    """The outcome for a kind no validator judges: `_outcome` with nothing found, built without the rendering."""
    return Outcome(
        review=allowed(envelope.uid, warnings=[], annotations=None), envelope=envelope, allowed=True, code=200
    )


def _outcome(envelope: Envelope, verdict: Verdict, ratcheted: Sequence[Finding], crashed_rule: str | None) -> Outcome:
    # Each finding is rendered once; the response, `messages` and `entries` share the strings.
    error_lines = [render_line(f) for f in verdict.errors]
    warning_texts = [render_warning(f) for f in verdict.warnings]
    ratcheted_lines = [render_line(f) for f in ratcheted]
    full_warnings = clean_warnings(warning_texts + [RATCHETED_PREFIX + line for line in ratcheted_lines])
    warnings = limit_warnings(full_warnings)
    crashed = (crashed_rule,) if crashed_rule is not None else ()
    rule_ids = (*dict.fromkeys(f.rule.id for f in (*verdict.errors, *verdict.warnings, *ratcheted)), *crashed)
    denied_rule_ids = (*dict.fromkeys(f.rule.id for f in verdict.errors), *crashed)
    annotations = {RULES_ANNOTATION: ",".join(rule_ids)} if rule_ids else None
    if crashed_rule is not None:
        message = (
            f"internal error in gardener-webhook rule {crashed_rule} while validating {envelope.kind} "
            f'"{envelope.name}"; details are logged under uid {envelope.uid}'
        )
        messages: tuple[str, ...] = (message,)
        answer = errored(envelope.uid, message, warnings=warnings, annotations=annotations)
    elif verdict.errors:
        messages = tuple(error_lines)
        message, causes = compose_denial(verdict.errors, error_lines)
        answer = denied(
            envelope.uid,
            message,
            name=envelope.name,
            group=envelope.group,
            kind=envelope.kind,
            causes=causes,
            forbidden=any(f.rule.uses_cluster for f in verdict.errors),  # findings about cluster state: 403
            warnings=warnings,
            annotations=annotations,
        )
    else:
        messages = ()
        answer = allowed(envelope.uid, warnings=warnings, annotations=annotations)
    status = answer["response"].get("status")
    return Outcome(
        review=answer,
        envelope=envelope,
        allowed=answer["response"]["allowed"],
        code=status["code"] if status is not None else 200,
        rule_ids=rule_ids,
        denied_rule_ids=denied_rule_ids,
        entries=(
            *((f.rule.id, "deny", line) for f, line in zip(verdict.errors, error_lines, strict=True)),
            *((f.rule.id, "warn", text) for f, text in zip(verdict.warnings, warning_texts, strict=True)),
            *((f.rule.id, "ratcheted", line) for f, line in zip(ratcheted, ratcheted_lines, strict=True)),
            *(((crashed_rule, "deny", messages[0]),) if crashed_rule is not None else ()),
        ),
        paths=(
            *(str(f.path) for f in (*verdict.errors, *verdict.warnings, *ratcheted)),
            *(("",) if crashed_rule is not None else ()),
        ),
        warnings=tuple(warnings),
        full_warnings=tuple(full_warnings),
        messages=messages,
    )
