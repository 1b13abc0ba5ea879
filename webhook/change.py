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
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from webhook.documents import Manifest


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
    (`git archive`), not from a second checkout. Raises BaseError when git, the repository or the revision is
    missing."""
    top = _git(["rev-parse", "--show-toplevel"]).decode().strip()
    cwd = Path.cwd().resolve()
    prefix = os.path.relpath(cwd, top)
    wanted = []
    for path in paths:
        if str(path) in ("-", "/dev/stdin"):
            continue
        relative = os.path.normpath(os.path.join(prefix, os.path.relpath(Path(path).resolve(), cwd)))
        wanted.append("." if relative == "." else relative)
    _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], what=f"--base {revision}: no such revision")
    listed = _git(["ls-tree", "-r", "-z", "--name-only", revision, "--", *wanted], cwd=Path(top)) if wanted else b""
    files = [name for name in listed.decode().split("\0") if name]
    with tempfile.TemporaryDirectory(prefix="gardener-webhook-base-") as scratch:
        root = Path(scratch)
        if files:
            archive = _git(["archive", "--format=tar", revision, "--", *files], cwd=Path(top))
            with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
                tar.extractall(root, filter="data")
        yield root / prefix if prefix != "." else root


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
