"""Reading Kubernetes manifests from YAML or JSON files, as kubectl would send them.

Multi-document files and `kind: List` are flattened into objects. YAML timestamps (unquoted dates) become
RFC 3339 strings, as the API server stores them; YAML 1.1 octal ints (`0755`) stay ints, as kubectl's
decoder reads them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

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
    if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
        yield from doc["items"]
    elif isinstance(doc, dict) and str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
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
