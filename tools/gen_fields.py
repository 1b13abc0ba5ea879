"""Generate webhook/data/fields.json: the served versions and the complete JSON field set of every judged kind.

Reads the Go API types of gardener/gardener, kubernetes/api and kubernetes/apimachinery at named commits from git
mirrors (no work tree, no Go toolchain: `git show COMMIT:PATH`) and parses their struct definitions and json tags in
Python, as far as API types need: named structs, embedded structs (`json:",inline"` or untagged), pointers, slices,
maps, named scalar/slice/map types, and types with their own UnmarshalJSON, which decode themselves (free-form:
runtime.RawExtension, apiextensions JSON, FieldsV1, MachineImageFlavor; scalars: Time, Duration, Quantity,
IntOrString). A type of a package outside the three repositories is free-form.

    python tools/gen_fields.py --gardener DIR --api DIR --apimachinery DIR > webhook/data/fields.json

Each DIR is a git directory (a bare mirror is enough); the commits default to the ones the rules are taken from.
The output is deterministic (sorted keys), so a re-run at the same commits changes nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

# The Gardener commit the project's rules are taken from (v1.150.0-dev) and the k8s.io/api and k8s.io/apimachinery
# versions its go.mod requires.
GARDENER_COMMIT = "b312835d1784c3628983205c05452b2eaa95b645"
K8S_TAG = "v0.36.3"

# Judged kinds: (group, version directory of the package, repository, package path, kinds).
GARDENER_GROUPS = {
    "core.gardener.cloud": ("pkg/apis/core", ("v1beta1", "v1")),
    "extensions.gardener.cloud": ("pkg/apis/extensions", ("v1alpha1",)),
    "seedmanagement.gardener.cloud": ("pkg/apis/seedmanagement", ("v1alpha1",)),
}
JUDGED = {
    "core.gardener.cloud": ("CloudProfile", "NamespacedCloudProfile", "Shoot"),
    "extensions.gardener.cloud": ("OperatingSystemConfig",),
    "seedmanagement.gardener.cloud": ("Gardenlet", "ManagedSeed"),
    "apps": ("Deployment",),
}
# kube-apiserver serves only apps/v1 since Kubernetes 1.16 (apps/v1beta1 and v1beta2 were removed then); the
# packages stay in k8s.io/api for clients, so the served version is stated, not read from a register.go.
APPS_SERVED = {"v1": ("ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet")}

SCALAR_TYPES = {"Time", "MicroTime", "Duration", "Quantity", "IntOrString"}
BUILTIN = {
    "string", "bool", "byte", "rune", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
    "uint32", "uint64", "float32", "float64", "uintptr",
}  # fmt: skip


@dataclass
class Repo:
    """A git directory and the commit to read."""

    git_dir: str
    commit: str

    def resolved(self) -> str:
        return self.git(["rev-parse", f"{self.commit}^{{commit}}"]).strip()

    def git(self, args: list[str]) -> str:
        return subprocess.run(
            ["git", "--git-dir", self.git_dir, *args], check=True, capture_output=True, text=True
        ).stdout

    def go_files(self, directory: str) -> dict[str, str]:
        names = self.git(["ls-tree", "--name-only", f"{self.commit}:{directory}"]).split()
        return {
            n: self.git(["show", f"{self.commit}:{directory}/{n}"])
            for n in names
            if n.endswith(".go")
            and not n.endswith("_test.go")
            and not n.startswith("zz_generated")
            and not n.startswith("generated.")
        }


@dataclass
class Package:
    """One Go package: its type declarations (name -> type expression or struct body), each file's imports, and
    the types with their own UnmarshalJSON."""

    key: str
    decls: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (file, expression)
    imports: dict[str, dict[str, str]] = field(default_factory=dict)  # file -> alias -> import path
    custom: set[str] = field(default_factory=set)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)\)", re.DOTALL | re.MULTILINE)
_IMPORT_ONE = re.compile(r'^import\s+(\w+\s+)?"([^"]+)"', re.MULTILINE)
_TYPE_START = re.compile(r"^type\s+(\w+)\s+", re.MULTILINE)
_TYPE_GROUP = re.compile(r"^type\s*\(", re.MULTILINE)
_UNMARSHAL = re.compile(r"^func\s*\(\s*\w+\s+\*?(\w+)\s*\)\s*UnmarshalJSON\(", re.MULTILINE)


def _strip_comments(text: str) -> str:
    # Tags and strings in API types hold no `//`; comments do.
    return _COMMENT.sub("", text)


def _block(text: str, start: int) -> int:
    """Index just past the brace that closes the one opening at or after `start`."""
    depth = 0
    for i in range(text.index("{", start), len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced braces")


def parse_package(key: str, files: dict[str, str]) -> Package:
    """The declarations of a package's files (comments stripped)."""
    package = Package(key)
    for name, raw in files.items():
        text = _strip_comments(raw)
        imports: dict[str, str] = {}
        for block in _IMPORT_BLOCK.findall(text):
            for line in block.splitlines():
                found = re.match(r'\s*(\w+|\.)?\s*"([^"]+)"', line)
                if found:
                    imports[found.group(1) or found.group(2).rsplit("/", 1)[-1]] = found.group(2)
        for alias, path in _IMPORT_ONE.findall(text):
            imports[alias.strip() or path.rsplit("/", 1)[-1]] = path
        package.imports[name] = imports
        package.custom.update(_UNMARSHAL.findall(text))
        for match in _TYPE_START.finditer(text):
            rest = text[match.end() :]
            if rest.startswith("struct") or rest.startswith("interface"):
                end = _block(text, match.end())
                package.decls[match.group(1)] = (name, text[match.end() : end])
            else:
                package.decls[match.group(1)] = (name, rest.split("\n", 1)[0].strip().lstrip("= ").strip())
        for match in _TYPE_GROUP.finditer(text):
            end = text.index("\n)", match.end())
            for line in text[match.end() : end].splitlines():
                parts = line.strip().split(None, 1)
                if len(parts) == 2 and not parts[1].startswith("struct"):
                    package.decls[parts[0]] = (name, parts[1].lstrip("= ").strip())
    return package


class Generator:
    """Resolves type expressions to field-set entries, walking only what the judged kinds reach."""

    def __init__(self, gardener: Repo, api: Repo, machinery: Repo) -> None:
        self.repos = {"gardener": gardener, "k8s-api": api, "k8s-apimachinery": machinery}
        self.packages: dict[str, Package | None] = {}
        self.types: dict[str, dict[str, str]] = {}

    def locate(self, import_path: str) -> tuple[str, str, str] | None:
        """(repo key, directory, short name) of an import path, or None outside the three repositories."""
        prefixes = (
            ("github.com/gardener/gardener/", "gardener", "gardener/"),
            ("k8s.io/api/", "k8s-api", "k8s.io/api/"),
            ("k8s.io/apimachinery/", "k8s-apimachinery", "k8s.io/apimachinery/"),
        )
        for prefix, repo, short in prefixes:
            if import_path.startswith(prefix):
                directory = import_path.removeprefix(prefix)
                name = short + directory.removeprefix("pkg/apis/").removeprefix("pkg/")
                return repo, directory, name
        return None

    def package(self, import_path: str) -> Package | None:
        if import_path not in self.packages:
            where = self.locate(import_path)
            if where is None:
                self.packages[import_path] = None
            else:
                repo, directory, name = where
                self.packages[import_path] = parse_package(name, self.repos[repo].go_files(directory))
        return self.packages[import_path]

    def resolve(self, expr: str, pkg_path: str, file: str) -> str:
        """The entry for a type expression: "scalar", "free", "[]<entry>", "map[]<entry>" or a struct's name."""
        expr = expr.strip()
        if expr.startswith("*"):
            return self.resolve(expr[1:], pkg_path, file)
        if expr == "[]byte":
            return "scalar"  # base64 text
        if expr.startswith("[]"):
            return "[]" + self.resolve(expr[2:], pkg_path, file)
        if re.match(r"\[\d+\]", expr):
            return "[]" + self.resolve(expr[expr.index("]") + 1 :], pkg_path, file)
        if expr.startswith("map["):
            depth, i = 0, 3
            for i in range(3, len(expr)):
                depth += {"[": 1, "]": -1}.get(expr[i], 0)
                if depth == 0:
                    break
            return "map[]" + self.resolve(expr[i + 1 :], pkg_path, file)
        if expr in BUILTIN:
            return "scalar"
        if expr in ("any", "interface{}") or expr.startswith("interface") or expr.startswith("struct"):
            return "free"
        if "." in expr:
            alias, name = expr.split(".", 1)
            package = self.package(pkg_path)
            imports = package.imports.get(file, {}) if package else {}
            if alias not in imports:
                raise ValueError(f"{pkg_path} {file}: unknown import {alias!r} in {expr!r}")
            return self.named(imports[alias], name)
        return self.named(pkg_path, expr)

    def named(self, pkg_path: str, name: str) -> str:
        package = self.package(pkg_path)
        if package is None:
            return "free"  # a package outside the three repositories (apiextensions JSON, say)
        if name in package.custom:
            return "scalar" if name in SCALAR_TYPES else "free"
        if name not in package.decls:
            raise ValueError(f"{pkg_path}: no type {name}")
        file, expr = package.decls[name]
        if not expr.startswith("struct"):
            return self.resolve(expr, pkg_path, file)
        key = f"{package.key}.{name}"
        if key not in self.types:
            self.types[key] = {}  # placeholder: recursive types
            self.types[key] = self.struct_fields(expr, pkg_path, file)
        return key

    def struct_fields(self, body: str, pkg_path: str, file: str) -> dict[str, str]:
        """JSON name -> entry for a struct body, embedded structs inlined."""
        fields: dict[str, str] = {}
        inner = body[body.index("{") + 1 : body.rindex("}")]
        for raw in inner.splitlines():
            line = raw.strip()
            if not line:
                continue
            tag_match = re.search(r"`([^`]*)`", line)
            tag = tag_match.group(1) if tag_match else ""
            decl = line[: tag_match.start()].strip() if tag_match else line
            json_tag = re.search(r'json:"([^"]*)"', tag)
            json_name = json_tag.group(1).split(",")[0] if json_tag else None
            options = json_tag.group(1).split(",")[1:] if json_tag else []
            if json_name == "-" and not options:
                continue
            parts = decl.split(None, 1)
            embedded = len(parts) == 1
            type_expr = parts[0] if embedded else parts[1]
            go_name = type_expr.lstrip("*").rsplit(".", 1)[-1] if embedded else parts[0]
            if not go_name[:1].isupper():
                continue  # unexported fields are not decoded
            if embedded and not json_name:
                entry = self.resolve(type_expr, pkg_path, file)
                if entry in self.types:
                    fields.update(self.types[entry])
                    continue
            for name in [n.strip() for n in go_name.split(",")] if not embedded else [go_name]:
                fields[json_name or name] = self.resolve(type_expr, pkg_path, file)
        return fields


def served_versions(gardener: Repo) -> dict[str, dict[str, list[str]]]:
    """Group -> version -> kinds, from each Gardener group's register.go (AddKnownTypes without the Lists)."""
    served: dict[str, dict[str, list[str]]] = {}
    for group, (directory, versions) in GARDENER_GROUPS.items():
        for version in versions:
            text = _strip_comments(gardener.git(["show", f"{gardener.commit}:{directory}/{version}/register.go"]))
            found = re.search(r'Version:\s*"(\w+)"', text)
            assert found and found.group(1) == version, (directory, version)
            kinds = sorted(k for k in re.findall(r"&(\w+)\{\}", text) if not k.endswith("List"))
            served.setdefault(group, {})[version] = kinds
    served["apps"] = {v: list(k) for v, k in APPS_SERVED.items()}
    return served


def generate(gardener: Repo, api: Repo, machinery: Repo) -> dict[str, Any]:
    gen = Generator(gardener, api, machinery)
    served = served_versions(gardener)
    kinds: dict[str, dict[str, str]] = {}
    for group, judged in JUDGED.items():
        for version, offered in served[group].items():
            for kind in judged:
                if kind not in offered:
                    continue
                if group == "apps":
                    import_path = f"k8s.io/api/apps/{version}"
                else:
                    import_path = f"github.com/gardener/gardener/{GARDENER_GROUPS[group][0]}/{version}"
                kinds.setdefault(f"{group}/{version}", {})[kind] = gen.named(import_path, kind)
    return {
        "about": "generated by tools/gen_fields.py from the Go API types; do not edit",
        "sources": {
            "gardener/gardener": gardener.resolved(),
            "kubernetes/api": f"{api.commit} ({api.resolved()})",
            "kubernetes/apimachinery": f"{machinery.commit} ({machinery.resolved()})",
        },
        "served": served,
        "kinds": kinds,
        "types": gen.types,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--gardener", required=True, help="git directory of gardener/gardener")
    parser.add_argument("--gardener-commit", default=GARDENER_COMMIT)
    parser.add_argument("--api", required=True, help="git directory of kubernetes/api")
    parser.add_argument("--apimachinery", required=True, help="git directory of kubernetes/apimachinery")
    parser.add_argument("--k8s-ref", default=K8S_TAG, help="tag or commit of both Kubernetes repositories")
    args = parser.parse_args()
    data = generate(
        Repo(args.gardener, args.gardener_commit), Repo(args.api, args.k8s_ref), Repo(args.apimachinery, args.k8s_ref)
    )
    json.dump(data, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
