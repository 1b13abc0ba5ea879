"""The commands of the README and of the documentation site, run as a new user would paste them into a fresh clone,
give the output they show.

Every ```console block of README.md and of every page under docs/ is a transcript: `$ command` lines (a trailing
backslash continues a command) followed by the output they print (stdout and stderr). Each block runs in one bash
session (so `F=…` and `$?` carry over) in a scratch directory that holds what a fresh clone has after `make test`:
`.venv` and `examples/`. Output is compared line by line after replacing what differs from run to run (uids, times,
durations); a line `...` in a transcript stands for any number of lines. Blocks that talk to `https://localhost:9443`
get a `gardener-webhook serve` started for them, as `make run` would, on free ports substituted into the commands.
So neither the README nor the site can drift from the product.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
README: Final = ROOT / "README.md"
# The README and the site's pages, each block named by its file (relative to the repository) and line.
DOCUMENTS: Final = [README, *sorted((ROOT / "docs").rglob("*.md"))]
# The virtual environment running the tests (not resolved: its python is a symlink out of it), else the clone's.
VENV: Final = (
    Path(sys.executable).parents[1] if (Path(sys.executable).parent / "gardener-webhook").exists() else ROOT / ".venv"
)
END: Final = "@@gardener-webhook-readme-end@@"
VARIABLE: Final = [
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<uid>"),
    (re.compile(r'"time": ?"[^"]*"'), '"time": "<time>"'),
    (re.compile(r'"duration_ms": ?[0-9.]+'), '"duration_ms": <ms>'),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?"), "<timestamp>"),
]


@dataclass(frozen=True)
class Step:
    command: str
    expected: list[str]


@dataclass(frozen=True)
class Block:
    source: str  # the document, relative to the repository: "README.md", "docs/guides/review.md"
    line: int
    steps: list[Step]

    @property
    def needs_server(self) -> bool:
        return any("localhost:9443" in s.command for s in self.steps)


def console_blocks(text: str, source: str = "README.md") -> list[Block]:
    """Every ```console block of `text` (the document `source`), split into commands and their expected output."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, i = i + 1, i + 1
        steps: list[Step] = []
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            if line.startswith("$ "):
                command = line[2:]
                while command.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    command += "\n" + lines[i]
                steps.append(Step(command, []))
            else:
                assert steps, f"{source}:{i + 1}: output before the first command"
                steps[-1].expected.append(line)
            i += 1
        blocks.append(Block(source, start, steps))
        i += 1
    return blocks


BLOCKS: Final = [
    block
    for document in DOCUMENTS
    for block in console_blocks(document.read_text(encoding="utf-8"), document.relative_to(ROOT).as_posix())
]


def normalize(line: str) -> str:
    for pattern, replacement in VARIABLE:
        line = pattern.sub(replacement, line)
    return line.rstrip()


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether `actual` lines are `expected`, where an expected `...` line stands for any number of lines."""
    parts = [re.escape(normalize(line)) if line.strip() != "..." else "(?:[^\n]*\n)*?" for line in expected]
    pattern = "".join(p if p.startswith("(?:") else p + "\n" for p in parts)
    return re.fullmatch(pattern, "".join(normalize(line) + "\n" for line in actual)) is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A scratch directory that looks like a fresh clone after `make test`: .venv and examples/."""
    (tmp_path / ".venv").symlink_to(VENV)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


@pytest.fixture
def server(sandbox: Path) -> Iterator[tuple[int, int]]:
    """`gardener-webhook serve` in the sandbox, as `make run` starts it; yields (TLS port, health port)."""
    port, health = _free_port(), _free_port()
    proc = subprocess.Popen(
        [str(sandbox / ".venv" / "bin" / "gardener-webhook"), "serve", "--port", str(port), "--health-port", str(health),
         "--self-signed-dir", "certs"],
        cwd=sandbox, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            probe = subprocess.run(
                ["curl", "-sf", f"http://127.0.0.1:{health}/readyz"], capture_output=True, check=False
            )
            if probe.returncode == 0:
                break
            assert proc.poll() is None, "gardener-webhook serve exited"
            time.sleep(0.1)
        yield port, health
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_block(block: Block, cwd: Path, substitutions: dict[str, str]) -> list[list[str]]:
    """Run the block's commands in one bash session; returns each command's output lines."""
    script = ["set +e"]
    for step in block.steps:
        command = step.command
        for old, new in substitutions.items():
            command = command.replace(old, new)
        script.append(f"{command}\n__rc=$?; printf '\\n{END}\\n'; (exit $__rc)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GARDENER_WEBHOOK_")}
    env["PATH"] = f"{cwd / '.venv' / 'bin'}:{env.get('PATH', '')}"
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script) + "\n"], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300, check=False,
    )  # fmt: skip
    chunks = proc.stdout.split(f"\n{END}\n")
    assert len(chunks) == len(block.steps) + 1, proc.stdout
    outputs = []
    for chunk in chunks[:-1]:
        lines = chunk.split("\n")
        outputs.append(lines[:-1] if lines and lines[-1] == "" else lines)
    return outputs


def test_the_readme_is_a_front_door_of_one_page() -> None:
    """What it is, what it judges, the commands, a first look and where to go next: the manual is the site."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_the_readme_and_the_site_have_transcripts() -> None:
    assert len([b for b in BLOCKS if b.source == "README.md"]) >= 2
    assert len(BLOCKS) >= 20
    assert sum(len(b.steps) for b in BLOCKS) >= 40


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b.source}:{b.line}" for b in BLOCKS])
def test_readme_transcript(block: Block, sandbox: Path, request: pytest.FixtureRequest) -> None:
    for tool in ("jq", "curl"):
        if any(re.search(rf"(^|[|;&\s]){tool}\s", s.command) for s in block.steps) and shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    substitutions: dict[str, str] = {}
    if block.needs_server:
        port, health = request.getfixturevalue("server")
        substitutions = {"localhost:9443": f"localhost:{port}", "127.0.0.1:8080": f"127.0.0.1:{health}"}
    outputs = run_block(block, sandbox, substitutions)
    for step, actual in zip(block.steps, outputs, strict=True):
        assert matches(step.expected, actual), (
            f"{block.source}:{block.line}: $ {step.command}\n--- the document shows:\n"
            + "\n".join(step.expected)
            + "\n--- the command printed:\n"
            + "\n".join(actual)
        )


@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        (["a", "b"], ["a", "b"], True),
        (["a", "b"], ["a", "c"], False),
        (["a", "...", "z"], ["a", "b", "c", "z"], True),
        (["a", "...", "z"], ["a", "z"], True),
        (["a", "..."], ["a"], True),
        (["uid 705ab4f5-6393-11e8-b7cc-42010a800002"], ["uid 9ce363d2-8aaf-4f52-a624-f19970df3af3"], True),
        (["a"], ["a", "b"], False),
    ],
)
def test_matching(expected: list[str], actual: list[str], ok: bool) -> None:
    assert matches(expected, actual) is ok
