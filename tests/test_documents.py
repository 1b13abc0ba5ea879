"""The libyaml fast path of `webhook/offline/documents.py` reads exactly what PyYAML's pure-Python SafeLoader reads.

Values (duplicate keys, timestamps, `<<` merges, YAML 1.1 scalars), document numbers, start lines
and error messages are SafeLoader's, whichever parser ran; a table of tricky documents and generated streams.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from webhook.offline import yamlload as documents
from webhook.offline.yamlload import DocumentError, _load_fast, _load_pure, load_documents
from webhook.offline.yamlload import load_with_lines as _load_with_lines

pytestmark = pytest.mark.skipif(documents._FAST_LOADER is None, reason="PyYAML built without libyaml")

# Documents both parsers take: libyaml must read each of them itself (no fallback) and agree with SafeLoader.
TRICKY: dict[str, str] = {
    "duplicate-keys": "a: 1\nb: 2\na: 3\n",
    "duplicate-nested": "m:\n  x: 1\n  x: {y: 2}\n",
    "timestamps": "d: 2026-01-02\nt: 2026-01-02T03:04:05+02:00\ns: 2026-01-02 03:04:05\nf: 2026-01-02T03:04:05.123Z\n",
    "quoted-timestamp": "d: '2026-01-02'\n",
    "merge-key": "base: &b {x: 1, y: 1}\nobj:\n  <<: *b\n  y: 2\n",
    "merge-list": "a: &a {x: 1}\nb: &b {x: 2, z: 3}\nc:\n  <<: [*a, *b]\n  w: 4\n",
    "merge-then-explicit": "a: &a {k: 1}\nc: {k: 0, <<: *a}\n",
    "yaml11-scalars": "o: 0755\np: 0o755\nh: 0x1F\nu: 1_000\ns: 1:30\nb: [yes, no, on, off, y, n, True]\nz: [~, null, '']\n",
    "floats": "a: 1e3\nb: .5\nc: -.inf\nd: 6.8523015e+5\ne: 1.0\n",
    "int-and-bool-keys": "1: one\ntrue: yes\n~: nothing\n2.5: x\n",
    "keys-equal-as-values": "1: a\n'1': b\ntrue: c\n1.0: d\n",
    "timestamp-and-binary-keys": "2026-01-02T03:04:05Z: t\n2026-01-02: d\n!!binary aGk=: b\n.nan: n\n",
    "value-key": "=: v\na: 1\n",
    "merge-in-sequence": "- &a {x: 1}\n- {<<: *a, y: 2}\n- *a\n",
    "tags": "a: !!str 1\nb: !!int '7'\nc: !!binary aGVsbG8=\nd: !!float 3\n",
    "set-omap": "s: !!set {a, b}\no: !!omap [{x: 1}, {y: 2}]\n",
    "anchors": "a: &x [1, 2]\nb: *x\nc: &s text\nd: *s\n",
    "block-scalars": "a: |\n  one\n   two\n\nb: >-\n  folded\n  line\n\n  para\nc: |+\n  keep\n\nd: |2\n    indented\n",
    "quoted-escapes": "a: \"\\x41\\u263A\\N\\t\\\\\"\nb: 'it''s'\nc: \"multi\n  line\n\n  quoted\"\n",
    "plain-multiline": "a: this is\n  a plain\n  scalar\nb: x#y\nc: 'x' # comment\n",
    "flow": "a: {b: [1, 2, {c: d}], e: f,}\ng: [a, b, ]\n",
    "unicode": 'name: grüße ☃\nemoji: "\\U0001F600"\n',
    "bom": "\ufeffa: 1\n",
    "crlf": "a: 1\r\nb:\r\n  - x\r\n---\r\nc: 2\r\n",
    "json": '{"apiVersion": "v1", "kind": "List", "items": [{"a": 1.5, "b": null, "c": [true, false]}]}',
    "leading-comments": "# header\n\n# more\napiVersion: v1\nkind: A\n---\n# c\nkind: B\n",
    "explicit-first": "---\na: 1\n---\nb: 2\n",
    "comments-before-explicit": "# c\n\n---\na: 1\n",
    "inline-after-marker": "--- {a: 1}\n--- [1]\n--- |\n  text\n--- plain\n",
    "empty-documents": "---\n---\na: 1\n---\n---\nb: 2\n---\n",
    "document-end": "a: 1\n...\n---\nb: 2\n...\n",
    "scalar-documents": "just text\n---\n42\n---\n- a\n- b\n",
    "dashes-in-values": "a: '--- x'\nb: |\n  ---\n  inner\nc: ---x\n",
    "indentless-sequence": "a:\n- x\n- y\nb:\n  - z\n",
    "complex-key-str": "? a\n: 1\n? |\n  b\n: 2\n",
    "long-keys": "k" * 200 + ": v\n",
    "tabs-in-values": "a: 'x\ty'\nb: \"\\t\"\n",
    "anchored-root": "&a\nfoo: 1\n",
    "tagged-roots": "\n\n!!map {a: 1}\n---\n!!str x\n",
    "indented-root": "  # c\n  a: 1\n",
    "block-scalar-root": "|\n  lit\n",
    "nothing": "",
    "only-comments": "# nothing here\n\n",
}

# Text one or both parsers refuse: the message must be SafeLoader's, byte for byte.
BROKEN: dict[str, str] = {
    "unclosed-flow": "apiVersion: v1\nkind: ConfigMap\n---\nmetadata:\n  name: [a\n",
    "bad-indent": "a:\n  b: 1\n c: 2\n",
    "tab-indent": "a:\n\tb: 1\n",
    "undefined-alias": "a: *nowhere\n",
    "unknown-tag": "a: !foo 1\n",
    "unhashable-key": "? [a, b]\n: 1\n",
    "merge-of-scalar": "a: {<<: 1}\n",
    "implicit-after-end": "a: 1\n...\nb: 2\n",
    "control-character": "a: \x07\n",
    "unclosed-quote": 'a: "open\n',
    "mapping-in-plain": "a: b: c\n",
    "tag-on-wrong-node": "a: !!str [1, 2]\n",
    "impossible-date-key": "2026-02-30T00:00:00Z: x\n",
}

# Valid, but numbered by SafeLoader itself (other line breaks, directives).
PURE_ONLY: dict[str, str] = {
    "lone-cr": "a: 1\rb: 2\r",
    "line-separator": "a: 'x\u2028y'\n",
    "directive": "%YAML 1.1\n---\na: 1\n",
}


def _same(value: Any) -> str:
    """A comparable form: NaN equals NaN, sets and bytes compare by content."""
    return repr(value)


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_libyaml_reads_what_safeloader_reads(text: str) -> None:
    fast = _load_fast(text)
    assert fast is not None, "libyaml should read this itself"
    assert _same(fast) == _same(_load_pure(text, "f.yaml"))
    assert _same(load_documents(text)) == _same([v for _, _, v in _load_pure(text, "f.yaml")])


@pytest.mark.parametrize("text", BROKEN.values(), ids=BROKEN.keys())
def test_errors_are_safeloaders_byte_for_byte(text: str) -> None:
    with pytest.raises(DocumentError) as pure:
        _load_pure(text, "f.yaml")
    with pytest.raises(DocumentError) as either:
        _load_with_lines(text, "f.yaml")
    assert str(either.value) == str(pure.value)
    with pytest.raises(DocumentError) as safe:
        documents.load_documents(text, source="f.yaml")
    try:
        list(yaml.safe_load_all(text))
    except (yaml.YAMLError, ValueError) as exc:
        assert str(safe.value) == f"f.yaml: not valid YAML or JSON: {exc}".replace("\n", " ")


@pytest.mark.parametrize("text", PURE_ONLY.values(), ids=PURE_ONLY.keys())
def test_text_libyaml_cannot_number_is_left_to_safeloader(text: str) -> None:
    assert _load_fast(text) is None
    assert _load_with_lines(text, "f.yaml") == _load_pure(text, "f.yaml")


def test_start_lines_and_numbers_count_empty_documents() -> None:
    text = "# c\n---\n---\na: 1\n---\n\n\nb: 2\n--- {c: 3}\n"
    assert _load_fast(text) == _load_pure(text, "f.yaml") == [(2, 3, {"a": 1}), (3, 5, {"b": 2}), (4, 9, {"c": 3})]


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x85\u2028\u2029"))
    | st.sampled_from(["2026-01-02", "0755", "yes", "~", "<<", "---", "- a", "a: b", "#x", "1:30", "0x1f"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(
    docs=st.lists(_VALUES, min_size=1, max_size=4),
    flow=st.sampled_from([None, True, False]),
    explicit=st.booleans(),
    json_docs=st.booleans(),
)
def test_generated_streams_read_alike(docs: list[Any], flow: bool | None, explicit: bool, json_docs: bool) -> None:
    if json_docs:
        text = "\n---\n".join(json.dumps(d) for d in docs)
    else:
        text = yaml.safe_dump_all(docs, default_flow_style=flow, explicit_start=explicit, allow_unicode=True)
    fast = _load_fast(text)  # None for what libyaml refuses (JSON's surrogate pairs, say): SafeLoader reads it
    assert fast is None or fast == _load_pure(text, "f.yaml")
    assert _load_with_lines(text, "f.yaml") == _load_pure(text, "f.yaml")


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: &a\n  name: x\n  self: *a\n",  # a mapping inside itself
        "apiVersion: v1\nkind: ConfigMap\ndata: &b [*b]\n",  # a sequence inside itself
        "apiVersion: v1\nkind: ConfigMap\ndata: " + "[" * 5000 + "]" * 5000 + "\n",  # deeper than Python recurses
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"  a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 9)),  # a billion laughs
    ],
)
def test_a_structure_json_cannot_hold_is_an_input_error_naming_the_document(text: str) -> None:
    message = (
        "f.yaml: document 1 (line 1): not valid as JSON: an alias refers to a node that contains it, the aliases "
        "expand it beyond 4 000 000 nodes, or it nests too deeply"
    )
    with pytest.raises(DocumentError) as raised:
        _load_with_lines(text, "f.yaml")
    assert str(raised.value) == message
    with pytest.raises(DocumentError, match="an alias refers to a node that contains it"):
        load_documents(text, source="f.yaml")
