"""Reading Kubernetes manifests from YAML or JSON files, as kubectl would send them.

Multi-document files and `kind: List` are flattened into objects. YAML timestamps (unquoted dates) become
RFC 3339 strings, as the API server stores them; YAML 1.1 octal ints (`0755`) stay ints, as kubectl's
decoder reads them.
"""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Final, TextIO

import pathspec
import yaml

from webhook.admission.fieldvalidation import Duplicate, duplicate_keys

# Document number -> the keys given twice in it (filled by the loaders when asked for).
Duplicates = dict[int, list[Duplicate]]


class DocumentError(ValueError):
    """Raised when a file cannot be read or is not YAML/JSON; the message names the file.

    source: the file as shown ("<stdin>" for standard input) when the reader knows it, else "" (a JUnit report
    files the error under it).
    """

    def __init__(self, message: str, *, source: str = "") -> None:
        super().__init__(message)
        self.source = source


def _plain(value: Any) -> Any:
    """Convert YAML-native values to their JSON form (timestamps -> RFC 3339 strings)."""
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        text = aware.astimezone(UTC).isoformat().replace("+00:00", "Z")
        return text
    if isinstance(value, date):
        return value.isoformat()
    return value


# libyaml's parser (PyYAML's C extension) under the same Python constructor and resolver as SafeLoader: the same
# values (duplicate keys: the last wins; timestamps; `<<` merges) about six times faster. None when PyYAML was built
# without libyaml. Its error messages differ from the pure-Python parser's, which are the contract: text it refuses
# is read again by SafeLoader (tests/test_documents.py compares both on tricky documents).
_FAST_LOADER: Final[Any] = getattr(yaml, "CSafeLoader", None)


def load_documents(text: str, *, source: str = "<input>") -> list[Any]:
    """Parse YAML/JSON text into plain JSON values, one per non-empty document.

    Raises DocumentError naming `source` when the text is not YAML.
    """
    with _collector_paused():
        found = _load_fast(text) if _FAST_LOADER is not None else None
    if found is not None:
        return [value for _, _, value in found]
    try:
        if "*" in text and any(_expands_too_far(node) for node in yaml.compose_all(text, Loader=yaml.SafeLoader)):
            raise RecursionError
        return [_plain(d) for d in yaml.safe_load_all(text) if d is not None]
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a timestamp that is no date (2026-02-30)
        raise DocumentError(f"{source}: not valid YAML or JSON: {exc}".replace("\n", " ")) from None
    except RecursionError:
        raise DocumentError(
            f"{source}: not valid as JSON: an alias refers to a node that contains it, the aliases expand a document "
            "beyond 4 000 000 nodes, or it nests too deeply"
        ) from None


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
STDIN: Final = "-"


@dataclass(frozen=True, slots=True)
class Manifest:
    """One object read from an input, with where it came from.

    obj: the raw object (parsed JSON). source: the file as given ("-" for standard input, which is shown as
    "<stdin>"). document: 1-based number of the YAML document in the file (empty documents count, so the number
    matches the file's `---` separators). line: 1-based line where that document starts. item: 0-based index in
    a `kind: List`'s items, else None. duplicates: the keys given twice in the object (paths relative to it).
    """

    obj: dict[str, Any]
    source: str
    document: int
    line: int
    item: int | None = None
    duplicates: tuple[Duplicate, ...] = ()

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


def _load_with_lines(text: str, source: str, duplicates: Duplicates | None = None) -> list[tuple[int, int, Any]]:
    """Parse YAML/JSON text into (document number, start line, plain JSON value) for each non-empty document.

    Document numbers are 1-based and count empty documents; a start line is the 1-based line of the document's
    `---`, or of its first token when the first document has none. libyaml reads the text when it can
    (`_load_fast`); SafeLoader reads what libyaml refuses or cannot number, so values, numbers and messages are
    SafeLoader's in every case.
    duplicates: when given, filled with the keys given twice in each document (`fieldvalidation.duplicate_keys`),
    by document number.
    Raises DocumentError naming the file, the document and the line on one line when the text is not YAML.
    """
    with _collector_paused():
        found = _load_fast(text, duplicates) if _FAST_LOADER is not None else None
        if found is None and duplicates:
            duplicates.clear()  # libyaml's partial findings: SafeLoader reads the text again
        return found if found is not None else _load_pure(text, source, duplicates)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a text is loaded (and restore it as it was).

    Loading allocates a container per node and value and frees none of them, so the collector's passes find nothing
    and, growing with the heap, cost more than the parse: 2.4 s of 3.2 s for a 2.7 MB CloudProfile List. A load makes
    no reference cycles the collector would be needed for, except from YAML aliases, which it frees later as usual.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Column-0 `---` followed by a blank or the line's end: a document start. In YAML that SafeLoader accepts, such a line
# can be nothing else (it ends any scalar, and inside a quoted one it is an error).
_DOCUMENT_START: Final = re.compile(r"^---(?=[ \t\r\n]|\Z)", re.MULTILINE)
# What makes counting `\n` give other line numbers than PyYAML's marks (lone CR, NEL, LS, PS are line breaks in
# YAML 1.1), and directives, which move a document's start mark to the `%` line: left to SafeLoader.
_UNCOUNTED: Final = re.compile("\r(?!\n)|[\x85\u2028\u2029]|^%", re.MULTILINE)


# Nodes a document may expand to through its aliases: far above any manifest (a 2.7 MB CloudProfile List has about
# 300 000), far below what would take minutes to build. kubectl's YAML reader refuses such documents too
# ("document contains excessive aliasing").
MAX_EXPANDED_NODES: Final = 4_000_000


def _expands_too_far(root: yaml.Node, limit: int = MAX_EXPANDED_NODES) -> bool:
    """Whether `root`, with every alias replaced by the node it names, has more than `limit` nodes, or an alias
    inside the node it names (a cycle). Each node is sized once (aliases share nodes), so the cost is the number of
    distinct nodes."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        children = (
            [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode)
            else node.value if isinstance(node, yaml.SequenceNode)
            else []
        )  # fmt: skip
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            if sizes[key] > limit:
                return True
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            return True  # reached again before it was sized: it contains itself
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return False


def _load_fast(text: str, duplicates: Duplicates | None = None) -> list[tuple[int, int, Any]] | None:
    """`_load_with_lines` through libyaml, or None when libyaml refuses the text or its numbering is not sure.

    libyaml gives no document-start events next to its nodes, so a document's line is taken from the text: every
    document after the first starts with a `---` line (`_DOCUMENT_START`), and the first starts either with one
    (found before its root node) or at its root node's first token, as in SafeLoader. When the `---` lines and the
    documents do not pair up, None. duplicates: as for `_load_with_lines` (a mapping that came out smaller than its
    keys is looked at again, so a document without repeated keys costs nothing more). Never raises on YAML input.
    """
    if _UNCOUNTED.search(text):
        return None
    loader = _FAST_LOADER(text)
    values: list[Any] = []
    first_line = 0
    shrunk: list[yaml.MappingNode] = []
    aliased = "*" in text  # else no document holds an alias
    try:
        while loader.check_node():
            node = loader.get_node()
            if not values:
                first_line = node.start_mark.line
            if aliased and _expands_too_far(node):
                return None  # SafeLoader's reading names the document
            values.append(_construct_plain(node, loader, shrunk))
            if shrunk:
                if duplicates is not None:
                    duplicates[len(values)] = duplicate_keys(node)
                shrunk.clear()
            loader.constructed_objects, loader.recursive_objects = {}, {}  # as construct_document leaves them
    except (yaml.YAMLError, ValueError, RecursionError):
        return None  # SafeLoader gives the message (and is the judge of what is YAML)
    finally:
        loader.dispose()
    starts: list[int] = []
    line, position = 0, 0
    for match in _DOCUMENT_START.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        starts.append(line)
    explicit = bool(starts) and starts[0] <= first_line
    if values and not explicit:
        starts.insert(0, first_line)
    if len(starts) != len(values):
        return None
    return [(number, line + 1, data) for number, (line, data) in enumerate(zip(starts, values), 1) if data is not None]


_STR: Final = "tag:yaml.org,2002:str"
_MAP: Final = "tag:yaml.org,2002:map"
_SEQ: Final = "tag:yaml.org,2002:seq"
_MERGE_OR_VALUE: Final = frozenset({"tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})
# Scalar tags whose SafeConstructor functions build a value from the node alone (no generator, no recursion).
_SCALAR_TAGS: Final = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float", "timestamp", "binary")
)


def _construct_plain(node: yaml.Node, constructor: Any, shrunk: list[yaml.MappingNode]) -> Any:
    """`_plain(constructor.construct_document(node))` in one pass, for a SafeConstructor `constructor`.

    Strings, mappings and sequences, nearly all of a manifest, are built here directly, as SafeConstructor builds
    them (keys constructed, the last of equal keys wins in the first one's place, then made strings by `_plain`);
    the scalars of `_SCALAR_TAGS` by SafeConstructor's own functions; anything else (`<<` merges, `=` keys,
    keys of other tags or not scalars, other tags, a tag on the wrong kind of node) by `constructor.construct_object`, then `_plain`.
    A mapping of fewer entries than keys (a key given twice) is appended to `shrunk`.
    Raises what SafeConstructor raises (yaml.constructor.ConstructorError, ValueError for impossible dates).
    Source: PyYAML yaml/constructor.py SafeConstructor.construct_mapping, construct_yaml_seq, construct_yaml_str.
    """
    tag = node.tag
    if tag == _STR and isinstance(node, yaml.ScalarNode):
        return node.value
    if tag in _SCALAR_TAGS and isinstance(node, yaml.ScalarNode):
        return _plain(constructor.yaml_constructors[tag](constructor, node))
    if tag == _SEQ and isinstance(node, yaml.SequenceNode):
        return [_construct_plain(item, constructor, shrunk) for item in node.value]
    if tag == _MAP and isinstance(node, yaml.MappingNode):
        pairs = node.value
        if all(isinstance(k, yaml.ScalarNode) and (k.tag == _STR or k.tag in _SCALAR_TAGS) for k, _ in pairs):
            mapping: dict[Any, Any] = {}
            plain_keys = True
            for key_node, value_node in pairs:
                # A key as SafeConstructor builds it (True and 1 are one key there too), made a string afterwards
                # as `_plain` makes it (str(), not RFC 3339, for a timestamp key).
                key = (
                    key_node.value
                    if key_node.tag == _STR
                    else constructor.yaml_constructors[key_node.tag](constructor, key_node)
                )
                plain_keys = plain_keys and isinstance(key, str)
                mapping[key] = _construct_plain(value_node, constructor, shrunk)
            if len(mapping) != len(pairs):
                shrunk.append(node)
            return mapping if plain_keys else {k if isinstance(k, str) else str(k): v for k, v in mapping.items()}
    return _plain(constructor.construct_object(node, deep=True))


def _load_pure(text: str, source: str, duplicates: Duplicates | None = None) -> list[tuple[int, int, Any]]:
    """`_load_with_lines` through PyYAML's pure-Python SafeLoader, whose values, line numbers and messages are the
    contract. Raises DocumentError as `_load_with_lines` does (for a character YAML forbids, with its line only:
    the text is checked before any document is read). duplicates: as for `_load_with_lines`."""
    shown = "<stdin>" if source == STDIN else source
    try:
        loader = yaml.SafeLoader(text)
    except yaml.reader.ReaderError as exc:  # checked before any document is read: a control character, say
        line = text.count("\n", 0, exc.position) + 1
        what = f"{exc.reason} (character #x{exc.character:04x})"
        raise DocumentError(f"{shown}: line {line}: not valid YAML or JSON: {what}") from None
    found: list[tuple[int, int, Any]] = []
    number = 0
    try:
        while loader.check_data():  # type: ignore[no-untyped-call]  # unannotated in types-PyYAML
            number += 1
            line = loader.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
            try:
                node = loader.get_node()
                if node is not None and "*" in text and _expands_too_far(node):
                    raise RecursionError  # reported below, as for a structure Python cannot walk
                data = loader.construct_document(node) if node is not None else None
                if duplicates is not None and node is not None and (repeated := duplicate_keys(node)):
                    duplicates[number] = repeated
                value = None if data is None else _plain(data)
            except RecursionError:  # an alias inside the node it names: JSON cannot hold it, nor can the API server
                raise DocumentError(
                    f"{shown}: document {number} (line {line}): not valid as JSON: an alias refers to a node that "
                    "contains it, the aliases expand it beyond 4 000 000 nodes, or it nests too deeply"
                ) from None
            if value is not None:
                found.append((number, line, value))
    except DocumentError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "position unknown"
        problem = " ".join(str(exc.problem or exc.context or "not valid YAML").split())
        raise DocumentError(f"{shown}: document {max(number, 1)}: {where}: not valid YAML or JSON: {problem}") from None
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a timestamp that is no date (2026-02-30)
        raise DocumentError(
            f"{shown}: document {max(number, 1)}: not valid YAML or JSON: {' '.join(str(exc).split())}"
        ) from None
    finally:
        loader.dispose()
    return found


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


# Files of a repository that sit beside manifests without being objects (README "Reviewing manifests in CI"). kustomize reads a folder's
# kustomization from one of these names (sigs.k8s.io/kustomize api/konfig/builtinpluginconsts.go
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
    """

    def __init__(
        self, stdin: TextIO | None = None, *, exclude: Excludes | None = None, skip_named: bool = False
    ) -> None:
        self._stdin = stdin
        self._exclude = exclude or Excludes()
        self.skip_named = skip_named
        self._texts: dict[str, str] = {}
        self._docs: dict[str, list[tuple[int, int, Any]]] = {}
        self._duplicates: dict[str, Duplicates] = {}
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
                manifests.extend(self._manifests(source, docs, self._duplicates.get(key, {})))
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
                self._docs[key] = _load_with_lines(self._read_text(source, key), source, repeated)
                if repeated:
                    self._duplicates[key] = repeated
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
    def _manifests(source: str, docs: Sequence[tuple[int, int, Any]], repeated: Duplicates) -> list[Manifest]:
        """The Manifests of a file's documents, each with the keys given twice in it (`repeated`: by document);
        raises DocumentError (naming file, document, line) for a document without apiVersion or kind, or that is
        no object."""
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
                manifest = Manifest(obj if isinstance(obj, dict) else {}, source, number, line, item, tuple(found))
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
