"""Loading a kubeconfig without writing to the filesystem.

The kubernetes client hands certificates to urllib3 as file names. For a kubeconfig with inline data
(`certificate-authority-data`, `client-certificate-data`, `client-key-data`, as `kubectl config view --raw
--flatten` or `kubectl config set-cluster --embed-certs` make them) its loader writes each to a temporary file with
`tempfile.mkstemp`, which fails in a Pod whose root filesystem is read-only and that has no writable `/tmp`
(`No usable temporary directory found`). Here the inline data is put into anonymous memory files instead
(`os.memfd_create`) and the kubeconfig points at them by `/proc/self/fd/N`: nothing is written to any filesystem,
the key never touches a disk, and no volume has to be declared for it. urllib3 opens the certificate files again
for every new connection, so the memory files stay open as long as the client that uses them (`InMemoryFiles`,
closed with it).

Where memory files are not available (not Linux, `/proc` not mounted) the inline data is left in place and the
client's loader writes its temporary files as before. Relative file paths (`certificate-authority: ca.crt`,
`tokenFile`) and an exec plugin's working directory stay relative to the kubeconfig's folder, as kubectl reads them.
Certificates an exec plugin returns (`clientCertificateData`) still go through the client's temporary files.
"""

from __future__ import annotations

import base64
import binascii
import os
import threading
from pathlib import Path
from typing import Any, Final

import yaml
from kubernetes.client import Configuration
from kubernetes.config import ConfigException
from kubernetes.config.kube_config import KubeConfigLoader

# (list key, entry key, file field): the inline fields the client's loader would write to temporary files.
INLINE_FIELDS: Final = (
    ("clusters", "cluster", "certificate-authority"),
    ("users", "user", "client-certificate"),
    ("users", "user", "client-key"),
)


class KubeconfigError(Exception):
    """The kubeconfig cannot be read or used; the message names the cause (not the file)."""


class InMemoryFiles:
    """Memory files (memfd) holding a kubeconfig's inline certificate data, each readable as `/proc/self/fd/N`.

    `close()` releases them (idempotent); the client that reads them must not be used afterwards.
    """

    def __init__(self) -> None:
        self._fds: list[int] = []
        self._lock = threading.Lock()

    def add(self, content: bytes, name: str) -> str | None:
        """A path whose content is `content` (bytes), or None where memory files are not available."""
        create = getattr(os, "memfd_create", None)
        if create is None:
            return None
        try:
            fd = create(name)  # close-on-exec by default: no child process inherits the key
        except OSError:
            return None
        path = f"/proc/self/fd/{fd}"
        try:
            written = 0
            while written < len(content):
                written += os.write(fd, content[written:])
            if not os.path.exists(path):  # /proc not mounted
                os.close(fd)
                return None
        except OSError:
            os.close(fd)
            return None
        with self._lock:
            self._fds.append(fd)
        return path

    def __len__(self) -> int:
        return len(self._fds)

    def close(self) -> None:
        with self._lock:
            fds, self._fds = self._fds, []
        for fd in fds:
            os.close(fd)


def load_kubeconfig(path: Path, context: str | None, configuration: Configuration) -> InMemoryFiles:
    """Fill `configuration` from the kubeconfig file `path` (its current context, or `context`).

    Returns the memory files that now hold its inline certificate data (the caller closes them once the client is
    closed). Raises KubeconfigError when the file cannot be read, is not a kubeconfig, or names a missing context,
    file or field.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise KubeconfigError(str(exc)) from None
    if not isinstance(raw, dict):
        raise KubeconfigError("Invalid kube-config file. No configuration found.")
    files = InMemoryFiles()
    try:
        loader = KubeConfigLoader(
            config_dict=_inline_data_in_memory(raw, files),
            active_context=context,
            config_base_path=str(path.absolute().parent),
        )
        loader.load_and_set(configuration)
    except KubeconfigError:
        files.close()
        raise
    except (ConfigException, OSError, ValueError, KeyError, TypeError, AttributeError, binascii.Error) as exc:
        files.close()
        raise KubeconfigError(str(exc)) from None
    return files


def _inline_data_in_memory(raw: dict[str, Any], files: InMemoryFiles) -> dict[str, Any]:
    """A copy of the kubeconfig `raw` whose inline certificate data is moved into `files` (the entries point at
    them); entries that are not of the kubeconfig's shape are copied unchanged for the loader to refuse."""
    config = dict(raw)
    for list_key, entry_key, field in INLINE_FIELDS:
        entries = config.get(list_key)
        if not isinstance(entries, list):
            continue
        config[list_key] = [_in_memory(item, entry_key, field, files) for item in entries]
    return config


def _in_memory(item: object, entry_key: str, field: str, files: InMemoryFiles) -> object:
    """`item` (a named cluster or user) with its `<field>-data` moved into `files`, or `item` itself."""
    inner = item.get(entry_key) if isinstance(item, dict) else None
    data = inner.get(f"{field}-data") if isinstance(inner, dict) else None
    if not isinstance(item, dict) or not isinstance(inner, dict) or not isinstance(data, str) or not data:
        return item
    try:
        content = base64.standard_b64decode(data)
    except (binascii.Error, ValueError) as exc:
        raise KubeconfigError(f"{entry_key} {item.get('name')!r}: {field}-data is not base64: {exc}") from None
    where = files.add(content, field)
    if where is None:
        return item
    return {**item, entry_key: {k: v for k, v in inner.items() if k != f"{field}-data"} | {field: where}}
