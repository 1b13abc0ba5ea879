"""The Makefile as an operator and a developer meet it: `make run` and the .venv build.

- `make run` execs the server: it is make's one child, and SIGTERM to the PID that `make run` started stops it
  (GNU make passes SIGTERM on to its children and waits for them); nothing is left listening.
- Two targets started together in a fresh clone build .venv once: the second waits for the first's lock and then
  finds it built. The build is simulated by a stub PYTHON whose `-m venv` fails like the real one when the directory
  appeared meanwhile, and waits for the test's signal, so both makes are known to have decided to build.
Every wait is for an event, with a generous bound (BOUND_SECONDS) that only a hang reaches.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
BOUND_SECONDS: Final = 60.0
LISTENING: Final = re.compile(r"^Listening on https://127\.0\.0\.1:(\d+)/validate$", re.MULTILINE)
HEALTH: Final = re.compile(r"^Health and metrics on http://127\.0\.0\.1:(\d+) ", re.MULTILINE)

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _environment() -> dict[str, str]:
    """This process's environment without what an enclosing make passes on (`make test ARGS=...` exports its
    command-line variables, and MAKEFLAGS hands them to every sub-make)."""
    enclosing = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "ARGS", "PYTHON")
    return {k: v for k, v in os.environ.items() if k not in enclosing}


def _wait_for(what: str, condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + BOUND_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {BOUND_SECONDS:g} s")
        time.sleep(0.05)


def _children(pid: int) -> list[int]:
    """The PIDs whose parent is pid (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # exited meanwhile
        if int(text.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _descendants(pid: int) -> Iterator[int]:
    for child in _children(pid):
        yield child
        yield from _descendants(child)


def _command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    """Whether pid exists and is not a zombie."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _refused(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_make_run_execs_the_server_and_sigterm_to_make_stops_it(tmp_path: Path) -> None:
    dry = subprocess.run(
        ["make", "--no-print-directory", "-n", "run"], cwd=ROOT, env=_environment(), capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    if len(dry.stdout.splitlines()) != 1:  # .venv would be (re)built first: not in a unit test
        pytest.skip(".venv of the checkout is not up to date (run make first)")
    args = f"--port 0 --health-port 0 --drain-seconds 0 --self-signed-dir {tmp_path / 'certs'}"
    out = tmp_path / "stdout.txt"
    started: list[int] = []
    with out.open("wb") as stdout:
        make = subprocess.Popen(
            ["make", "--no-print-directory", "run", f"ARGS={args}"], cwd=ROOT, stdout=stdout,
            stderr=subprocess.STDOUT, env={**_environment(), "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
    try:
        _wait_for("the server listens", lambda: bool(HEALTH.search(out.read_text())) or make.poll() is not None)
        text = out.read_text()
        listening, health = LISTENING.search(text), HEALTH.search(text)
        assert listening and health, text
        ports = [int(listening[1]), int(health[1])]
        started = list(_descendants(make.pid))
        [server] = _children(make.pid)  # the server itself, no shell in between
        assert started == [server]
        assert "python" in os.readlink(f"/proc/{server}/exe")
        assert "gardener-webhook serve" in _command_line(server)
        make.send_signal(signal.SIGTERM)
        make.wait(timeout=BOUND_SECONDS)
        assert not _alive(server), "the server outlived make"
        assert all(_refused(port) for port in ports)
        assert '"message":"stopped"' in out.read_text()  # it drained and stopped, it was not killed
    finally:
        if make.poll() is None:
            make.kill()
            make.wait()
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


STUB_PYTHON: Final = """#!/bin/sh
# `$PYTHON -m venv DIR`, as slow as the test wants: fails like the real one when DIR appeared meanwhile.
[ "$1 $2" = "-m venv" ] || exit 64
echo venv >> "$LOG"
mkdir "$3" || { echo "[Errno 17] File exists: '$3'" >&2; exit 1; }
touch "$3.creating"
while [ ! -e "$GATE" ]; do sleep 0.05; done
mkdir "$3/bin"
for tool in python ruff mypy lint-imports gardener-webhook; do
    printf '#!/bin/sh\\necho "%s $*" >> "$LOG"\\n' "$tool" > "$3/bin/$tool"
    chmod +x "$3/bin/$tool"
done
"""


def _building(make: subprocess.Popen[str] | None) -> bool:
    """Whether make runs the recipe that builds .venv (a shell whose script names it), or has exited."""
    assert make is not None
    return make.poll() is not None or any(".venv" in _command_line(p) for p in _descendants(make.pid))


def test_two_targets_started_together_build_the_venv_once(tmp_path: Path) -> None:
    if shutil.which("flock") is None:
        pytest.skip("flock (util-linux) is not installed")
    for name in ("Makefile", "requirements-dev.lock", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    stub = tmp_path / "stub-python"
    stub.write_text(STUB_PYTHON)
    stub.chmod(0o755)
    log, gate = tmp_path / "log", tmp_path / "gate"
    env = {**_environment(), "LOG": str(log), "GATE": str(gate)}
    command = ["make", "--no-print-directory", f"PYTHON={stub}"]

    def start(target: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [*command, target], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )

    first = start("run")
    second = None
    try:
        _wait_for("the first make creates .venv", (tmp_path / ".venv.creating").exists)
        second = start("test")
        # The second has decided to build too: its stamp recipe runs (and waits for the lock), or it failed already.
        _wait_for("the second make runs the build recipe", lambda: _building(second))
        gate.touch()
        outputs = [first.communicate(timeout=BOUND_SECONDS)[0], second.communicate(timeout=BOUND_SECONDS)[0]]
    finally:
        gate.touch()
        for make in (first, second):
            if make is not None and make.poll() is None:
                make.kill()
                make.wait()
    assert (first.returncode, second.returncode) == (0, 0), "\n".join(outputs)
    assert ".venv: built meanwhile by another make" in outputs[1]
    steps = log.read_text().splitlines()
    assert steps.count("venv") == 1
    assert [s for s in steps if s.startswith("python -m pip install")] == [
        "python -m pip install --quiet --require-hashes --no-deps -r requirements-dev.lock",
        "python -m pip install --quiet --no-deps --no-build-isolation -e .",
    ]
    assert "gardener-webhook serve" in steps and "python -m pytest --ignore=tests/e2e" in steps
