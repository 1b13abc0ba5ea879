"""Reading Kubernetes manifests from YAML or JSON files, as kubectl would send them.

Multi-document files and `kind: List` are flattened into objects. YAML timestamps (unquoted dates) become
RFC 3339 strings, as the API server stores them; YAML 1.1 octal ints (`0755`) stay ints, as kubectl's
decoder reads them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Final, TextIO

import yaml


class DocumentError(ValueError):
    """Raised when a file cannot be read or is not YAML/JSON; the message names the file."""


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


def load_documents(text: str, *, source: str = "<input>") -> list[Any]:
    """Parse YAML/JSON text into plain JSON values, one per non-empty document.

    Raises DocumentError naming `source` when the text is not YAML.
    """
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError as exc:
        raise DocumentError(f"{source}: not valid YAML or JSON: {exc}".replace("\n", " ")) from None
    return [_plain(d) for d in docs if d is not None]


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
    a `kind: List`'s items, else None.
    """

    obj: dict[str, Any]
    source: str
    document: int
    line: int
    item: int | None = None

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


def _load_with_lines(text: str, source: str) -> list[tuple[int, int, Any]]:
    """Parse YAML/JSON text into (document number, start line, plain JSON value) for each non-empty document.

    Raises DocumentError naming the file, the document and the line on one line when the text is not YAML.
    """
    shown = "<stdin>" if source == STDIN else source
    loader = yaml.SafeLoader(text)
    found: list[tuple[int, int, Any]] = []
    number = 0
    try:
        while loader.check_data():  # type: ignore[no-untyped-call]  # unannotated in types-PyYAML
            number += 1
            line = loader.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
            data = loader.get_data()
            if data is not None:
                found.append((number, line, _plain(data)))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "position unknown"
        problem = " ".join(str(exc.problem or exc.context or "not valid YAML").split())
        raise DocumentError(f"{shown}: document {max(number, 1)}: {where}: not valid YAML or JSON: {problem}") from None
    except yaml.YAMLError as exc:
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


class ManifestReader:
    """Reads inputs into Manifests, each file (and standard input) exactly once however often it is named.

    stdin: the text stream behind "-" (read on first use). Objects without `apiVersion` or `kind`, and documents
    that are not objects, raise DocumentError naming the file and document: a manifest that says nothing about
    its kind cannot be judged, and guessing would let a typo pass.
    """

    def __init__(self, stdin: TextIO | None = None) -> None:
        self._stdin = stdin
        self._cache: dict[str, list[Manifest]] = {}

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
            sources = [STDIN] if str(path) in (STDIN, "/dev/stdin") else [str(f) for f in files_of(Path(path))]
            for source in sources:
                key = self._key(source)
                if key not in seen:
                    seen.add(key)
                    manifests.extend(self._read_once(source, key))
        return manifests

    @staticmethod
    def _key(source: str) -> str:
        return source if source == STDIN else str(Path(source).resolve())

    def _read_once(self, source: str, key: str) -> list[Manifest]:
        if key not in self._cache:
            self._cache[key] = self._parse(source, self._text(source))
        return self._cache[key]

    def _text(self, source: str) -> str:
        if source == STDIN:
            stream = self._stdin if self._stdin is not None else sys.stdin
            if stream is None:
                raise DocumentError("<stdin>: cannot read: no standard input")
            try:
                return stream.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise DocumentError(f"<stdin>: cannot read: {exc}") from None
        try:
            return Path(source).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise DocumentError(f"{source}: cannot read: not UTF-8 text") from None
        except OSError as exc:
            raise DocumentError(f"{source}: cannot read: {exc.strerror or exc}") from None

    @staticmethod
    def _parse(source: str, text: str) -> list[Manifest]:
        manifests: list[Manifest] = []
        for number, line, doc in _load_with_lines(text, source):
            is_list = (
                isinstance(doc, dict)
                and str(doc.get("kind", "")).endswith("List")
                and isinstance(doc.get("items"), list)
            )
            items = list(enumerate(doc["items"])) if is_list else [(None, doc)]
            for item, obj in items:
                manifest = Manifest(obj if isinstance(obj, dict) else {}, source, number, line, item)
                if not isinstance(obj, dict):
                    raise DocumentError(
                        f"{manifest.where}: not an object (a manifest is a mapping with apiVersion and kind)"
                    )
                missing = [
                    key for key in ("apiVersion", "kind") if not isinstance(obj.get(key), str) or not obj.get(key)
                ]
                if missing:
                    raise DocumentError(f"{manifest.where}: object has no {' and no '.join(missing)}")
                manifests.append(manifest)
        return manifests
