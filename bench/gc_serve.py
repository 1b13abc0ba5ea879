"""`gardener-webhook serve` with the garbage collector's pauses counted (bench/run.py's webhook server).

Run as `python bench/gc_serve.py PAUSES_FILE serve ARGS…`: the server runs as `python -m webhook serve ARGS…` would,
and on SIGUSR1 it writes the pauses since the last SIGUSR1 (`gcpauses.Pauses.figures`, JSON) to PAUSES_FILE and
starts counting again; bench/run.py sends it after each row. Not part of the product: nothing in webhook/ counts
pauses (prometheus-client's `python_gc_collections_total` counts collections).
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from types import FrameType

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import gcpauses  # noqa: E402


def main() -> int:
    target = Path(sys.argv[1])
    pauses = [gcpauses.Pauses()]

    def dump(signum: int, frame: FrameType | None) -> None:
        # A signal handler runs between bytecodes of the main thread: the file is written whole, then counting restarts.
        done, pauses[0] = pauses[0], gcpauses.Pauses()
        done.stop()
        target.write_text(json.dumps(done.figures()) + "\n")

    signal.signal(signal.SIGUSR1, dump)
    from webhook.cli import main as cli

    return cli(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
