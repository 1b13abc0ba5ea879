"""Field paths to source lines: where in a manifest a finding's field is written.

A finding names its field as the API server renders paths (`spec.provider.workers[1].kubernetes.version`,
`metadata.annotations[gardener.cloud/operation]`, `spec.machineImages[0].versions[2]`). `locate` walks that path
down the YAML node tree the loader composed for the object (PyYAML's nodes keep their start marks) and answers the
line and column of the deepest node the path reaches: the key of the field when it is written, else the key of the
closest enclosing field that is (a field a rule requires but the manifest omits is reported on its parent; an
entry an UPDATE removed, on the list that held it).

A bracketed segment is an index into a list (`[1]`), a key of a map (`[gardener.cloud/operation]`), or, on a list
of named entries, the entry of that name (`[gardenlinux]`: the entry whose `name`, or `version`, is it). A plain
segment with dots that is no key of the map (`kubelet.config` as one key) is tried whole first, then part by part.
Source: docs/guides/review-ci.md "Findings on their lines".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import yaml

# A path's segments: a plain name up to the next `.` or `[`, or a bracketed key/index (keys hold no `]`).
_SEGMENT: Final = re.compile(r"\[(?P<item>[^\]]*)\]|(?P<name>[^.\[]+)")
# The keys a list entry is known by, in the order Gardener's lists name their entries.
_ENTRY_KEYS: Final = ("name", "version", "key")


def segments(path: str) -> list[tuple[bool, str]]:
    """`path` split into (is a bracketed segment, text): `a.b[0][x.y]` -> [(False, a), (False, b), (True, 0),
    (True, x.y)]. An empty path (the whole object) has no segments."""
    return [(m["item"] is not None, m["item"] if m["item"] is not None else m["name"]) for m in _SEGMENT.finditer(path)]


def locate(root: yaml.Node, path: str) -> tuple[int, int]:
    """The 1-based (line, column) in the source of the deepest node of `root` (an object's node) that `path`
    reaches: the key node of a map entry, the entry node of a list, `root` itself for an empty path or when
    the first segment is not written. Never raises: a path that leaves the tree stops where it does."""
    node: yaml.Node = root
    mark = root.start_mark
    parts = segments(path)
    i = 0
    while i < len(parts):
        bracketed, text = parts[i]
        if isinstance(node, yaml.MappingNode):
            taken = _key(node, parts, i, bracketed)
            if taken is None:
                break
            key_node, node, i = taken
            mark = key_node.start_mark
            continue
        if isinstance(node, yaml.SequenceNode) and bracketed:
            entry = _entry(node.value, text)
            if entry is None:
                break
            node, mark, i = entry, entry.start_mark, i + 1
            continue
        break
    return mark.line + 1, mark.column + 1


def _key(
    node: yaml.MappingNode, parts: Sequence[tuple[bool, str]], i: int, bracketed: bool
) -> tuple[yaml.Node, yaml.Node, int] | None:
    """(key node, value node, index of the next segment) for the map entry that `parts[i]` names, or None.

    A plain name is tried whole, then joined with the plain names after it (a key with dots rendered as
    segments); the last of equal keys wins, as in the loaded value."""
    keys = {k.value: (k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    text = parts[i][1]
    if text in keys:
        key_node, value = keys[text]
        return key_node, value, i + 1
    if bracketed:
        return None
    joined, j = text, i + 1
    while j < len(parts) and not parts[j][0]:
        joined = f"{joined}.{parts[j][1]}"
        j += 1
        if joined in keys:
            key_node, value = keys[joined]
            return key_node, value, j
    return None


def _entry(items: Sequence[yaml.Node], text: str) -> yaml.Node | None:
    """The list entry `[text]` names: by index when it is a number in range, else the entry whose name (or
    version, or key) is `text`."""
    if text.isdigit():
        index = int(text)
        return items[index] if index < len(items) else None
    for key in _ENTRY_KEYS:
        for item in items:
            if isinstance(item, yaml.MappingNode) and any(
                isinstance(k, yaml.ScalarNode) and k.value == key and isinstance(v, yaml.ScalarNode) and v.value == text
                for k, v in item.value
            ):
                return item
    return None
