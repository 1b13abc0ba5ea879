"""The garbage collector's pauses in this process, by generation, from `gc.callbacks` (for bench/judging.py).

`Pauses()` starts counting when created and `stop()` ends it; `summary()` gives, per generation, the collections,
the longest pause and their sum (ms of wall time), e.g. "gen2 3 x, max 212.4 ms, sum 480.2 ms". A full pass
(generation 2) walks every tracked object that is not frozen, so its pause grows with the long-lived objects.
"""

from __future__ import annotations

import gc
import time
from typing import Any


class Pauses:
    """Collections and their pauses (seconds) per generation, while registered."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._started)

    def stop(self) -> None:
        """Stop counting (idempotent)."""
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def figures(self) -> dict[str, list[float]]:
        """{"gen0": [collections, longest ms, total ms], …} for the generations with collections."""
        return {
            f"gen{generation}": [len(pauses), max(pauses) * 1000, sum(pauses) * 1000]
            for generation, pauses in self.pauses.items()
            if pauses
        }

    def summary(self) -> str:
        """Per generation with collections: "genN K x, max M ms, sum S ms", joined by "; "."""
        parts = []
        for generation, pauses in self.pauses.items():
            if pauses:
                parts.append(
                    f"gen{generation} {len(pauses)} x, max {max(pauses) * 1000:.1f} ms, sum {sum(pauses) * 1000:.1f} ms"
                )
        return "; ".join(parts) or "no collection"
