"""`review --base REV` / `--base-dir DIR`: judge a change the way the API server will meet it when it is applied.

The objects of the given paths in the working tree (the new state) are paired with the objects of the same paths in
the base (a Git revision, read from the repository's objects with `git archive`, or a directory the pipeline checked
out itself) by group, kind, namespace and name:
- added: CREATE;
- changed: UPDATE with the base object as `oldObject` (ratcheting: what the stored object would be denied for as
  well is reported, not refused);
- removed: DELETE of the base object (a profile still used by a Shoot of the new state is refused);
- unchanged: not judged, so an untouched repository does not turn red the day a version expires; with `--all`,
  judged as a re-apply (UPDATE with itself as `oldObject`: warnings, never a denial for what was there).
The cluster state every object is judged against is the new state (plus `--context`): a Shoot meets the profile of
the same change, and versions in use are what the Shoots of the new state use.

Against a cluster (`review --kubeconfig`), each object is paired with its stored version instead: absent, CREATE;
present, UPDATE of the stored object by `applied` (what `kubectl apply` of the manifest leaves stored); an apply
that would change nothing (the result equals the stored object) is not judged, or, with `--all`, judged as a
re-apply. Nothing is deleted: `kubectl apply -f dir/` deletes nothing either.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from webhook.offline.documents import Manifest


class BaseError(ValueError):
    """The base cannot be read (not a Git repository, unknown revision, unreadable directory); CLI exit 2."""


def pair(new: Sequence[Manifest], base: Sequence[Manifest]) -> list[tuple[str, Manifest, Manifest | None]]:
    """(operation, manifest, base manifest or None) for every object of `new` and every removed one of `base`.

    operation: CREATE (only in new), UPDATE (in both, changed), UNCHANGED (in both, equal), DELETE (only in base;
    the manifest is the base one). Objects without a name (AdmissionReviews) are CREATE-as-given. New objects come
    first in input order, then the removed ones in base order.
    """
    by_identity = {m.identity: m for m in base if m.name}
    seen: set[tuple[str, str, str, str]] = set()
    paired: list[tuple[str, Manifest, Manifest | None]] = []
    for manifest in new:
        old = by_identity.get(manifest.identity) if manifest.name else None
        if old is None:
            paired.append(("CREATE", manifest, None))
            continue
        seen.add(manifest.identity)
        paired.append(("UNCHANGED" if old.obj == manifest.obj else "UPDATE", manifest, old))
    paired.extend(("DELETE", m, m) for m in base if m.name and m.identity not in seen)
    return paired


LAST_APPLIED: Final = "kubectl.kubernetes.io/last-applied-configuration"


def applied(stored: dict[str, Any], manifest: dict[str, Any]) -> dict[str, Any]:
    """What `kubectl apply` of `manifest` leaves stored over `stored`: kubectl's three-way merge, with the stored
    object's last-applied configuration (annotation `kubectl.kubernetes.io/last-applied-configuration`) as the third.

    - every field the manifest sets takes its value: maps are merged key by key; lists whose entries all have a
      `name` (worker pools, versions of an image, zones) entry by entry, in the manifest's order (an entry the
      manifest drops is gone); any other value, other lists included, is replaced;
    - a field the last apply set and the manifest no longer sets is removed;
    - any other field keeps its stored value: status, the metadata the API server keeps, defaults, other writers';
    - the annotation itself becomes `last_applied_configuration(manifest)`, as kubectl rewrites it on every apply.
    Without a (readable) last-applied configuration nothing is removed: the object was created otherwise, and only
    the fields the manifest sets are known to be its. New dicts; the inputs are not changed. The merge of lists of
    named entries stands for the strategic merge of the API's `patchMergeKey: name` lists.
    """
    meta = stored.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    text = annotations.get(LAST_APPLIED) if isinstance(annotations, dict) else None
    try:
        last = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        last = None
    return _merged(stored, _modified(manifest), last if isinstance(last, dict) else None)


def _modified(manifest: dict[str, Any]) -> dict[str, Any]:
    """What kubectl patches with: the manifest carrying its own last-applied configuration as an annotation."""
    meta = manifest.get("metadata")
    if not isinstance(meta, dict):
        return manifest
    annotations = meta.get("annotations")
    own = annotations if isinstance(annotations, dict) else {}
    annotated = {**own, LAST_APPLIED: last_applied_configuration(manifest)}
    return {**manifest, "metadata": {**meta, "annotations": annotated}}


def last_applied_configuration(manifest: dict[str, Any]) -> str:
    """The annotation `kubectl.kubernetes.io/last-applied-configuration` that `kubectl apply` (client-side) writes
    for `manifest` (with its namespace already set as kubectl sends it): the manifest without that annotation, with
    `metadata.annotations` present (`{}` when it had none), as Go's encoding/json writes a map (keys sorted, no
    spaces, `<`, `>`, `&`, U+2028 and U+2029 escaped, integral floats without a fraction), ending in a newline.
    Source: k8s.io/kubectl pkg/util/apply.go GetModifiedConfiguration, which encodes the unstructured object.
    """
    meta = manifest.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    annotations = meta.get("annotations")
    own = {k: v for k, v in annotations.items() if k != LAST_APPLIED} if isinstance(annotations, dict) else {}
    return _go_json({**manifest, "metadata": {**meta, "annotations": own}}) + "\n"


_GO_ESCAPES: Final = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _go_json(value: Any) -> str:
    """`value` (parsed JSON) as Go's json.Marshal of an unstructured map writes it."""
    text = json.dumps(_go_numbers(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # These characters can only stand inside strings here, so replacing them in the whole text is exact.
    for char, escaped in _GO_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def _go_numbers(value: Any) -> Any:
    """Floats as Go writes a float64 that JSON decoding gave: an integral one below 1e21 has no fraction."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {k: _go_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_numbers(v) for v in value]
    return value


def _merged(stored: dict[str, Any], manifest: dict[str, Any], last: dict[str, Any] | None) -> dict[str, Any]:
    merged = {k: v for k, v in stored.items() if k in manifest or last is None or k not in last}
    for key, value in manifest.items():
        merged[key] = _merged_value(stored.get(key), value, last.get(key) if last is not None else None)
    return merged


def _merged_value(old: Any, new: Any, last: Any) -> Any:
    if isinstance(old, dict) and isinstance(new, dict):
        return _merged(old, new, last if isinstance(last, dict) else None)
    if isinstance(old, list) and isinstance(new, list) and _named(old) and _named(new):
        olds = {entry["name"]: entry for entry in old}
        lasts = {entry["name"]: entry for entry in last} if isinstance(last, list) and _named(last) else {}
        return [
            _merged(olds[e["name"]], e, lasts.get(e["name"])) if e["name"] in olds else e for e in new
        ]  # fmt: skip
    return new


def _named(entries: list[Any]) -> bool:
    """Whether every entry is a map with a string `name` (the list merges by it)."""
    return all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in entries)


def base_paths(paths: Sequence[Path | str], base_dir: Path) -> list[Path]:
    """The paths under `base_dir` that stand for `paths` (relative to the working directory) in the base; paths
    that do not exist there are left out (everything under them was added). "-" has no base."""
    found: list[Path] = []
    for path in paths:
        if str(path) in ("-", "/dev/stdin"):
            continue
        relative = Path(os.path.relpath(Path(path).resolve(), Path.cwd().resolve()))
        if relative.parts and relative.parts[0] == "..":
            raise BaseError(f"{path}: outside the working directory, so it has no place in the base")
        candidate = base_dir / relative
        if candidate.exists():
            found.append(candidate)
    return found


@contextmanager
def git_base(revision: str, paths: Sequence[Path | str]) -> Iterator[Path]:
    """A temporary folder holding the files of `paths` as they are at `revision` of the Git repository of the
    working directory, at the same relative places; removed on exit. Read from the repository's objects
    (`git archive`), not from a second checkout. `HEAD` of a repository without commits (a pre-commit hook on the
    first commit) is an empty base. Raises BaseError when git, the repository or the revision is missing."""
    top = _git(["rev-parse", "--show-toplevel"]).decode().strip()
    cwd = Path.cwd().resolve()
    prefix = os.path.relpath(cwd, top)
    wanted = []
    for path in paths:
        if str(path) in ("-", "/dev/stdin"):
            continue
        relative = os.path.normpath(os.path.join(prefix, os.path.relpath(Path(path).resolve(), cwd)))
        wanted.append("." if relative == "." else relative)
    if revision == "HEAD" and not _has_commits():
        wanted = []  # the first commit of a repository: its base is nothing (everything in it is added)
    else:
        _git(
            ["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], what=f"--base {revision}: no such revision"
        )
    listed = _git(["ls-tree", "-r", "-z", "--name-only", revision, "--", *wanted], cwd=Path(top)) if wanted else b""
    files = [name for name in listed.decode().split("\0") if name]
    with tempfile.TemporaryDirectory(prefix="gardener-webhook-base-") as scratch:
        root = Path(scratch)
        if files:
            archive = _git(["archive", "--format=tar", revision, "--", *files], cwd=Path(top))
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(root, filter="data")
        yield root / prefix if prefix != "." else root


def _has_commits() -> bool:
    try:
        _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
    except BaseError:
        return False
    return True


def _git(args: list[str], *, cwd: Path | None = None, what: str = "") -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=120, check=False)
    except FileNotFoundError:
        raise BaseError("--base needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise BaseError(f"git {args[0]} did not finish in 120 s") from None
    if done.returncode != 0:
        message = what or f"--base: git {args[0]}: {done.stderr.decode(errors='replace').strip()}"
        raise BaseError(message)
    return done.stdout
