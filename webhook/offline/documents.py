"""Reading Kubernetes manifests from files, directories and standard input, as kubectl would send them.

Multi-document files and `kind: List` are flattened into objects (the text is read by `yamlload`); each object
keeps where it came from (`Manifest`: file, document, line, List item). A directory is read as a repository holds
it: files that are no manifests (kustomize, Helm charts, CI files) are skipped, and `--exclude` patterns apply.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, TextIO

import pathspec
import yaml

from webhook.admission.fieldvalidation import Duplicate
from webhook.offline.yamlload import STDIN, DocumentError, Duplicates, Nodes, load_documents, load_with_lines


def iter_objects(doc: Any) -> Iterator[Any]:
    """Yield the objects of one document: the document itself, or the items of a `kind: List`."""
    if (
        isinstance(doc, dict)
        and doc.get("kind") == "List"
        and isinstance(doc.get("items"), list)
        or isinstance(doc, dict)
        and str(doc.get("kind", "")).endswith("List")
        and isinstance(doc.get("items"), list)
    ):
        yield from doc["items"]
    else:
        yield doc


def read_objects(path: Path) -> list[Any]:
    """All objects of the file at `path` (documents flattened, Lists expanded).

    Raises DocumentError when the file cannot be read or parsed.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(f"{path}: cannot read: {exc}") from None
    objects: list[Any] = []
    for doc in load_documents(text, source=str(path)):
        objects.extend(iter_objects(doc))
    return objects


# ------------------------------------------------------------------------------------ manifests with sources

_SUFFIXES: Final = (".yaml", ".yml", ".json")


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object read from an input, with where it came from.

    obj: the raw object (parsed JSON). source: the file as given ("-" for standard input, which is shown as
    "<stdin>"). document: 1-based number of the YAML document in the file (empty documents count, so the number
    matches the file's `---` separators). line: 1-based line where that document starts. item: 0-based index in
    a `kind: List`'s items, else None. duplicates: the keys given twice in the object (paths relative to it).
    node: the object's composed YAML node (its marks give each field's line), when the reader was asked to keep
    them (`ManifestReader(positions=True)`), else None. file: the file a finding's place names ("" for standard
    input): the source, or for a base object of `review --base` its path in the repository.
    """

    obj: dict[str, Any]
    source: str
    document: int
    line: int
    item: int | None = None
    duplicates: tuple[Duplicate, ...] = ()
    node: Any = field(default=None, compare=False, repr=False)
    file: str = field(default="", compare=False)

    @property
    def where(self) -> str:
        """`file.yaml, document 2 (line 14)`, with `, item 3` for an object inside a List."""
        shown = "<stdin>" if self.source == STDIN else self.source
        item = f", item {self.item}" if self.item is not None else ""
        return f"{shown}, document {self.document}{item} (line {self.line})"

    @property
    def group(self) -> str:
        """The API group of `apiVersion` ("" for the core group, as in `v1`)."""
        return str(self.obj.get("apiVersion", "")).rpartition("/")[0]

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind", ""))

    @property
    def namespace(self) -> str:
        meta = self.obj.get("metadata")
        return str(meta.get("namespace") or "") if isinstance(meta, dict) else ""

    @property
    def name(self) -> str:
        meta = self.obj.get("metadata")
        return str(meta.get("name") or "") if isinstance(meta, dict) else ""

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """(group, kind, namespace, name): what makes two manifests the same object in a cluster."""
        return self.group, self.kind, self.namespace, self.name

    @property
    def ref(self) -> str:
        """`Kind/namespace/name` (or `Kind/name` for cluster-scoped objects)."""
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"


def files_of(path: Path) -> list[Path]:
    """The manifest files a path stands for: the file itself, or every `*.yaml`, `*.yml` and `*.json` below a
    directory (recursively, sorted, hidden files and directories skipped).

    Raises DocumentError when the path does not exist.
    """
    if path.is_dir():
        return sorted(
            p
            for p in path.rglob("*")
            if p.suffix in _SUFFIXES
            and p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(path).parts)
        )
    if not path.exists():
        raise DocumentError(f"{path}: cannot read: no such file or directory")
    return [path]


# Files of a repository that sit beside manifests without being objects (docs/guides/review-ci.md). kustomize reads a
# folder's kustomization from one of these names (sigs.k8s.io/kustomize api/konfig/builtinpluginconsts.go
# RecognizedKustomizationFileNames); its files' own kinds live in one API group.
_KUSTOMIZATION_NAMES: Final = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})
_KUSTOMIZE_GROUP: Final = "kustomize.config.k8s.io"
_KUSTOMIZE_KINDS: Final = frozenset({"Kustomization", "Component"})
# Go templates (Helm, gomplate, ...): the file is the template, not the manifest it renders to.
_TEMPLATE_BRACES: Final = "{{"


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file found in a directory that was not read as manifests. source: the path as found; reason: why, in
    words for a `-v` line (`a kustomize file (kustomization.yaml)`, `excluded by --exclude 'charts/'`)."""

    source: str
    reason: str


class Excludes:
    """`--exclude` patterns with gitignore semantics (`dir/`, `**`, a leading `/`, `!` re-includes), via pathspec.

    A file found below a directory given on the command line is matched twice: by its path below that directory
    (as a .gitignore there would see it) and by its path as shown (as given, e.g. `landscape/charts/x.yaml`), so
    both `charts/` and `landscape/charts/` exclude it. Pure; never raises.
    """

    def __init__(self, patterns: Sequence[str] = ()) -> None:
        self.patterns = tuple(patterns)
        self._spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)

    def match(self, path: Path, root: Path) -> str | None:
        """The last pattern that decides `path` (a file found below directory `root`) is excluded, or None."""
        for candidate in (path.relative_to(root).as_posix(), path.as_posix()):
            result = self._spec.check_file(candidate)
            if result.include and result.index is not None:
                return self.patterns[result.index]
        return None


def _chart_role(path: Path) -> str | None:
    """Why `path` is part of a Helm chart (Chart.yaml, its values files, its templates/), or None."""
    if path.name == "Chart.yaml":
        return "a Helm chart's Chart.yaml"
    if path.name.startswith("values") and (path.parent / "Chart.yaml").is_file():
        return "a Helm chart's values file (beside Chart.yaml)"
    # Subfolders of templates/ are templates too (templates/_helpers/, templates/crds/).
    for folder in path.parents:
        if folder.name == "templates" and (folder.parent / "Chart.yaml").is_file():
            return f"a Helm chart template (below {folder})"
    return None


def _skip_by_name(path: Path) -> str | None:
    """Why a found file is no manifest, judged from its path alone, or None."""
    if path.name in _KUSTOMIZATION_NAMES:
        return f"a kustomize file ({path.name})"
    return _chart_role(path)


def _skip_by_content(docs: Sequence[tuple[int, int, Any]]) -> str | None:
    """Why a found file is no manifest, judged from its documents, or None.

    A file with at least one object that has apiVersion and kind is a manifest file, so a document of it without
    them stays an error (a broken manifest, not a stray file).
    """
    for _, _, doc in docs:
        # Only kustomize's own group: Flux's kustomize.toolkit.fluxcd.io Kustomization is a cluster object.
        if (
            isinstance(doc, dict)
            and doc.get("kind") in _KUSTOMIZE_KINDS
            and str(doc.get("apiVersion", "")).startswith(f"{_KUSTOMIZE_GROUP}/")
        ):
            return f"a kustomize file (kind {doc['kind']})"
    if not docs:
        return "empty (no documents)"
    if not any(_has_type(doc) for _, _, doc in docs):
        return "no Kubernetes object (no document has apiVersion and kind)"
    return None


def _has_type(doc: Any) -> bool:
    """Whether a document is an object with apiVersion and kind (a `kind: List` counts by itself)."""
    return isinstance(doc, dict) and all(isinstance(doc.get(k), str) and doc.get(k) for k in ("apiVersion", "kind"))


class ManifestReader:
    """Reads inputs into Manifests, each file (and standard input) exactly once however often it is named.

    stdin: the text stream behind "-" (read on first use). A file named by itself must hold objects: objects
    without `apiVersion` or `kind`, and documents that are not objects, raise DocumentError naming the file and
    document (a manifest that says nothing about its kind cannot be judged, and guessing would let a typo pass).
    A file found in a directory may instead be no manifest at all, as repositories hold kustomize files, Helm
    charts, CI files and other YAML beside their manifests: such a file is skipped and recorded in `skipped`
    (see `_skip_by_name`, `_skip_by_content`), and so is a file matched by `exclude`. skip_named: treat named
    files like found ones (for tools that pass a repository's changed files one by one, e.g. pre-commit).
    positions: keep each object's YAML node in `Manifest.node` (for findings placed on their lines; costs the node
    trees' memory).
    """

    def __init__(
        self,
        stdin: TextIO | None = None,
        *,
        exclude: Excludes | None = None,
        skip_named: bool = False,
        positions: bool = False,
    ) -> None:
        self._stdin = stdin
        self._exclude = exclude or Excludes()
        self.skip_named = skip_named
        self._positions = positions  # keep each object's YAML node (Manifest.node) for findings on their lines
        self._texts: dict[str, str] = {}
        self._docs: dict[str, list[tuple[int, int, Any]]] = {}
        self._duplicates: dict[str, Duplicates] = {}
        self._nodes: dict[str, Nodes] = {}
        self._skipped: dict[str, SkippedFile] = {}

    @property
    def skipped(self) -> list[SkippedFile]:
        """Every file skipped so far, once each, in the order met."""
        return list(self._skipped.values())

    def read(self, path: Path | str) -> list[Manifest]:
        """Every object of a file, a directory (recursively) or "-" (standard input), Lists expanded.

        Raises DocumentError naming the file (and document) when something cannot be read or is no object.
        """
        return self.read_all([path])

    def read_all(self, paths: Sequence[Path | str]) -> list[Manifest]:
        """`read` for each path in order, concatenated; a file reached twice (named twice, or inside two named
        directories) contributes its objects once."""
        manifests: list[Manifest] = []
        seen: set[str] = set()
        for path in paths:
            for source, found in self._sources(path):
                key = self._key(source)
                lenient = source != STDIN and (found or self.skip_named)  # a pipe is what the user sent
                if key in seen or (lenient and key in self._skipped):
                    continue
                seen.add(key)
                reason = self._skip_reason(source, key, Path(path)) if lenient else None
                if reason is not None:
                    self._skipped[key] = SkippedFile(source, reason)
                    continue
                docs = self._documents(source, key)
                manifests.extend(self._manifests(source, docs, self._duplicates.get(key, {}), self._nodes.get(key, {})))
        return manifests

    def _skip_reason(self, source: str, key: str, given: Path) -> str | None:
        """Why the file `source` (reached through the path `given`) is no manifest, or None to read it.

        Path first (exclusion, kustomize and chart names), then the text before parsing it (a template need not
        be YAML), then its documents. Raises DocumentError when the file cannot be read or parsed.
        """
        path = Path(source)
        if given.is_dir() and (pattern := self._exclude.match(path, given)) is not None:
            return f"excluded by --exclude {pattern!r}"
        if (reason := _skip_by_name(path)) is not None:
            return reason
        if _TEMPLATE_BRACES in self._read_text(source, key):
            return "holds template braces {{ }} (a template, not a manifest)"
        return _skip_by_content(self._documents(source, key))

    def _sources(self, path: Path | str) -> list[tuple[str, bool]]:
        """(source, found in a directory) for each file `path` stands for."""
        if str(path) in (STDIN, "/dev/stdin"):
            return [(STDIN, False)]
        found = Path(path).is_dir()
        return [(str(f), found) for f in files_of(Path(path))]

    @staticmethod
    def _key(source: str) -> str:
        return source if source == STDIN else str(Path(source).resolve())

    def _read_text(self, source: str, key: str) -> str:
        if key not in self._texts:
            self._texts[key] = self._text(source)
        return self._texts[key]

    def _documents(self, source: str, key: str) -> list[tuple[int, int, Any]]:
        if key not in self._docs:
            try:
                repeated: Duplicates = {}
                nodes: Nodes | None = {} if self._positions else None
                self._docs[key] = load_with_lines(self._read_text(source, key), source, repeated, nodes)
                if repeated:
                    self._duplicates[key] = repeated
                if nodes:
                    self._nodes[key] = nodes
            except DocumentError as exc:
                exc.source = "<stdin>" if source == STDIN else source
                raise
        return self._docs[key]

    def _text(self, source: str) -> str:
        shown = "<stdin>" if source == STDIN else source
        if source == STDIN:
            stream = self._stdin if self._stdin is not None else sys.stdin
            if stream is None:
                raise DocumentError("<stdin>: cannot read: no standard input", source=shown)
            try:
                return stream.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise DocumentError(f"<stdin>: cannot read: {exc}", source=shown) from None
        try:
            return Path(source).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise DocumentError(f"{source}: cannot read: not UTF-8 text", source=shown) from None
        except OSError as exc:
            raise DocumentError(f"{source}: cannot read: {exc.strerror or exc}", source=shown) from None

    @staticmethod
    def _manifests(
        source: str, docs: Sequence[tuple[int, int, Any]], repeated: Duplicates, nodes: Nodes
    ) -> list[Manifest]:
        """The Manifests of a file's documents, each with the keys given twice in it (`repeated`: by document) and
        its YAML node (`nodes`: by document, when kept); raises DocumentError (naming file, document, line) for a
        document without apiVersion or kind, or that is no object."""
        shown = "<stdin>" if source == STDIN else source
        manifests: list[Manifest] = []
        for number, line, doc in docs:
            is_list = (
                isinstance(doc, dict)
                and str(doc.get("kind", "")).endswith("List")
                and isinstance(doc.get("items"), list)
            )
            items = list(enumerate(doc["items"])) if is_list else [(None, doc)]
            for item, obj in items:
                found = repeated.get(number, ())
                if item is not None:
                    prefix = f"items[{item}]."
                    found = [replace(d, path=d.path.removeprefix(prefix)) for d in found if d.path.startswith(prefix)]
                node = _item_node(nodes.get(number), item)
                manifest = Manifest(
                    obj if isinstance(obj, dict) else {},
                    source,
                    number,
                    line,
                    item,
                    tuple(found),
                    node,
                    "" if source == STDIN else source,
                )
                if not isinstance(obj, dict):
                    raise DocumentError(
                        f"{manifest.where}: not an object (a manifest is a mapping with apiVersion and kind)",
                        source=shown,
                    )
                missing = [
                    key for key in ("apiVersion", "kind") if not isinstance(obj.get(key), str) or not obj.get(key)
                ]
                if missing:
                    raise DocumentError(f"{manifest.where}: object has no {' and no '.join(missing)}", source=shown)
                manifests.append(manifest)
        return manifests


def _item_node(root: Any, item: int | None) -> Any:
    """The node of a document's object: the document's root, or for an entry of a `kind: List` the node of
    `items[item]` (None when the nodes were not kept or the List's items are not written as a plain list)."""
    if root is None or item is None:
        return root
    if not isinstance(root, yaml.MappingNode):
        return None
    for key, value in root.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "items" and isinstance(value, yaml.SequenceNode):
            return value.value[item] if item < len(value.value) else None
    return None
