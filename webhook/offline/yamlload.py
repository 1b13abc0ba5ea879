"""YAML and JSON text into plain JSON values, as kubectl sends them: document numbers and start lines for errors,
libyaml's loader where PyYAML has it, with the pure-Python SafeLoader's values and messages in every case.

YAML timestamps (unquoted dates) become RFC 3339 strings, as the API server stores them; YAML 1.1 octal ints
(`0755`) stay ints, as kubectl's decoder reads them. Keys given twice are reported when asked for (strict decoding),
and a document that an alias makes contain itself, or expand beyond `MAX_EXPANDED_NODES`, is an error.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from typing import Any, Final

import yaml

from webhook.admission.fieldvalidation import Duplicate, duplicate_keys

# Document number -> the keys given twice in it (filled by the loaders when asked for).
Duplicates = dict[int, list[Duplicate]]
STDIN: Final = "-"


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


# Document number -> its composed root node, whose marks give each key's line and column (`positions`).
Nodes = dict[int, yaml.Node]


def load_with_lines(
    text: str, source: str, duplicates: Duplicates | None = None, nodes: Nodes | None = None
) -> list[tuple[int, int, Any]]:
    """Parse YAML/JSON text into (document number, start line, plain JSON value) for each non-empty document.

    Document numbers are 1-based and count empty documents; a start line is the 1-based line of the document's
    `---`, or of its first token when the first document has none. libyaml reads the text when it can
    (`_load_fast`); SafeLoader reads what libyaml refuses or cannot number, so values, numbers and messages are
    SafeLoader's in every case.
    duplicates: when given, filled with the keys given twice in each document (`fieldvalidation.duplicate_keys`),
    by document number.
    nodes: when given, filled with each document's composed root node, by document number: the nodes are built
    anyway, so keeping them costs memory, not time.
    Raises DocumentError naming the file, the document and the line on one line when the text is not YAML.
    """
    with _collector_paused(freeze=nodes is not None):
        found = _load_fast(text, duplicates, nodes) if _FAST_LOADER is not None else None
        if found is None:
            if duplicates:
                duplicates.clear()  # libyaml's partial findings: SafeLoader reads the text again
            if nodes:
                nodes.clear()
        return found if found is not None else _load_pure(text, source, duplicates, nodes)


@contextmanager
def _collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while a text is loaded (and restore it as it was).

    Loading allocates a container per node and value and frees none of them, so the collector's passes find nothing
    and, growing with the heap, cost more than the parse: 2.4 s of 3.2 s for a 2.7 MB CloudProfile List. A load makes
    no reference cycles the collector would be needed for, except from YAML aliases, which it frees later as usual.
    freeze: move what the load left alive into the permanent generation before the collector resumes (when the
    nodes are kept: else the first collection after the load walks the million nodes of such a List, 0.3 s, to free
    nothing); `review` unfreezes everything once it has judged.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
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
    stack: list[tuple[yaml.Node, list[yaml.Node] | None]] = [(root, None)]  # children: set once the node is open
    while stack:
        node, children = stack.pop()
        key = id(node)
        if children is not None:  # every child sized: size the node
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
        children = (
            [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode)
            else list(node.value) if isinstance(node, yaml.SequenceNode)
            else []
        )  # fmt: skip
        stack.append((node, children))
        stack.extend((child, None) for child in children if id(child) not in sizes)
    return False


def _load_fast(
    text: str, duplicates: Duplicates | None = None, nodes: Nodes | None = None
) -> list[tuple[int, int, Any]] | None:
    """`load_with_lines` through libyaml, or None when libyaml refuses the text or its numbering is not sure.

    libyaml gives no document-start events next to its nodes, so a document's line is taken from the text: every
    document after the first starts with a `---` line (`_DOCUMENT_START`), and the first starts either with one
    (found before its root node) or at its root node's first token, as in SafeLoader. When the `---` lines and the
    documents do not pair up, None. duplicates: as for `load_with_lines` (a mapping that came out smaller than its
    keys is looked at again, so a document without repeated keys costs nothing more). nodes: as for
    `load_with_lines`. Never raises on YAML input.
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
            if nodes is not None:
                nodes[len(values)] = node
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


def _load_pure(
    text: str, source: str, duplicates: Duplicates | None = None, nodes: Nodes | None = None
) -> list[tuple[int, int, Any]]:
    """`load_with_lines` through PyYAML's pure-Python SafeLoader, whose values, line numbers and messages are the
    contract. Raises DocumentError as `load_with_lines` does (for a character YAML forbids, with its line only:
    the text is checked before any document is read). duplicates, nodes: as for `load_with_lines`."""
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
                if nodes is not None and node is not None:
                    nodes[number] = node
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
