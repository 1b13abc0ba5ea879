"""Benchmark: `gardener-webhook review` wall times on landscape-sized input (make bench; issue 23 item A).

Run: `.venv/bin/python bench/review.py [--repeat N] [--keep DIR]`. Not a test: it prints figures and exits 0.

It writes, into a scratch directory, the inputs of a landscape repository's CI job:
- `profiles.yaml`: a `kind: List` of 20 provider CloudProfiles (about 2.7 MB of YAML): each the profile of
  `payloads.cloud_profile` (35 Kubernetes versions, 4 images x 50 versions) with 600 machine types;
- `shoots.yaml`: 1 000 Shoots (5 worker pools each, `payloads.shoot`), spread over the 20 profiles.
Then it times, best of N (wall clock, a fresh `gardener-webhook` process each), `--version`, `--help`,
`review profiles.yaml` (plain, and with `--report sarif=FILE`, which keeps every node's line and places each finding)
and `review shoots.yaml --context profiles.yaml`, all with `--now` fixed and standard error not a terminal (no
progress line). Targets on the 2-core development VM: `--version`/`--help` < 0.3 s, the 20 profiles < 6 s, the SARIF
report within 10 % of the plain review, the 1 000 Shoots < 5 s.
"""

from __future__ import annotations

import argparse
import copy
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import yaml

BENCH: Final = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import payloads  # noqa: E402

CLI: Final = Path(sys.executable).parent / "gardener-webhook"
NOW: Final = "2026-03-01T00:00:00Z"  # payloads' dates are relative to this
PROFILES: Final = 20
SHOOTS: Final = 1000
FAMILIES: Final = 60  # x 10 sizes = 600 machine types per profile


def _machine_types() -> list[dict[str, Any]]:
    """600 machine types: 60 families x 10 sizes (the 6 families of payloads first, so its Shoots fit)."""
    families = ["m5", "m6g", "c5", "c6g", "r5", "r6g"] + [f"x{i}{'g' if i % 3 == 0 else ''}" for i in range(54)]
    out: list[dict[str, Any]] = []
    for family in families[:FAMILIES]:
        arm = family.endswith("g")
        for size in range(10):
            cpu = 2 ** (size % 6 + 1)
            entry: dict[str, Any] = {
                "name": f"{family}.x{size}large",
                "cpu": str(cpu),
                "gpu": "0",
                "memory": f"{cpu * 4}Gi",
                "usable": True,
                "architecture": "arm64" if arm else "amd64",
            }
            if size == 0:
                entry["storage"] = {"class": "standard", "type": "gp3", "minSize": "20Gi"}
            out.append(entry)
    return out


def profile(index: int) -> dict[str, Any]:
    """The i-th landscape CloudProfile (`aws-eu-<i>`)."""
    obj = payloads.cloud_profile()
    obj["metadata"]["name"] = f"{payloads.PROFILE}-{index}"
    obj["spec"]["machineTypes"] = _machine_types()
    return obj


def shoot(index: int) -> dict[str, Any]:
    """The i-th Shoot, on profile i mod 20, in one of 50 project namespaces."""
    obj = copy.deepcopy(payloads.shoot(f"shoot-{index}", namespace=f"garden-p{index % 50}"))
    obj["spec"]["cloudProfile"]["name"] = f"{payloads.PROFILE}-{index % PROFILES}"
    return obj


def write_inputs(folder: Path) -> tuple[Path, Path]:
    """Write profiles.yaml (one `kind: List`) and shoots.yaml (one document per Shoot) into folder."""
    profiles = folder / "profiles.yaml"
    items = [profile(i) for i in range(PROFILES)]
    profiles.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False))
    shoots = folder / "shoots.yaml"
    shoots.write_text(yaml.safe_dump_all([shoot(i) for i in range(SHOOTS)], sort_keys=False))
    return profiles, shoots


def timed(argv: list[str], repeat: int) -> tuple[float, int, str]:
    """Best wall time in seconds of `gardener-webhook argv` over `repeat` runs, its exit status and last line."""
    best = float("inf")
    code, last = 0, ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run([str(CLI), *argv], capture_output=True, text=True, check=False)
        best = min(best, time.perf_counter() - start)
        code = done.returncode
        lines = (done.stdout or done.stderr).strip().splitlines()
        last = lines[-1] if lines else ""
    return best, code, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per command; the best is shown (3)")
    parser.add_argument("--keep", type=Path, help="write the inputs here and keep them (default: a scratch folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        profiles, shoots = write_inputs(folder)
        sizes = (
            f"profiles.yaml {profiles.stat().st_size / 1e6:.1f} MB, shoots.yaml {shoots.stat().st_size / 1e6:.1f} MB"
        )
        print(f"gardener-webhook review bench: {PROFILES} CloudProfiles in one List, {SHOOTS} Shoots ({sizes})")
        runs = [
            ("--version", ["--version"], 0.3),
            ("--help", ["--help"], 0.3),
            (f"review {PROFILES} CloudProfiles", ["review", "--now", NOW, str(profiles)], 6.0),
            (
                f"review {PROFILES} CloudProfiles --report sarif",
                ["review", "--now", NOW, str(profiles), "--report", f"sarif={folder / 'review.sarif'}"],
                6.0,
            ),
            (
                f"review {SHOOTS} Shoots --context profiles",
                ["review", "--now", NOW, str(shoots), "--context", str(profiles)],
                5.0,
            ),
        ]
        print(f"{'command':<48}  {'wall s':>7}  {'target':>6}  exit  last line")
        walls: list[float] = []
        for name, argv, target in runs:
            seconds, code, last = timed(argv, args.repeat)
            walls.append(seconds)
            verdict = "met" if seconds < target else "NOT MET"
            print(f"{name:<48}  {seconds:7.2f}  {target:6.1f}  {code:>4}  {last[:60]}  ({verdict})")
        ratio = walls[3] / walls[2]
        verdict = "met" if ratio <= 1.10 else "NOT MET"
        print(f"--report sarif / plain review of the {PROFILES} CloudProfiles: {ratio:.2f} (target <= 1.10, {verdict})")


if __name__ == "__main__":
    main()
