"""`webhook/offline/progress.py`: the progress line shows only on a terminal, after a second, throttled, and steps aside."""

from __future__ import annotations

import io

from webhook.offline.progress import ProgressLine


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_within_the_first_second_then_the_line() -> None:
    terminal, clock = Terminal(), Clock()
    line = ProgressLine(terminal, "review", clock=clock)
    line.update(1, 10)
    clock.now += 0.99
    line.update(2, 10)
    assert terminal.getvalue() == ""
    clock.now += 0.02
    line.update(3, 10)
    assert terminal.getvalue() == "\r\x1b[Kreview: 3/10 objects judged"


def test_redraws_are_throttled_but_the_last_object_is_always_shown() -> None:
    terminal, clock = Terminal(), Clock()
    line = ProgressLine(terminal, "review", delay_seconds=0, clock=clock)
    line.update(1, 3)
    line.update(2, 3)  # within 0.1 s of the last redraw
    line.update(3, 3)
    assert terminal.getvalue() == "\r\x1b[Kreview: 1/3 objects judged\r\x1b[Kreview: 3/3 objects judged"


def test_clear_erases_only_a_shown_line() -> None:
    terminal, clock = Terminal(), Clock()
    line = ProgressLine(terminal, "review", delay_seconds=0, clock=clock)
    line.clear()
    assert terminal.getvalue() == ""
    line.update(1, 2)
    line.clear()
    line.clear()
    assert terminal.getvalue() == "\r\x1b[Kreview: 1/2 objects judged\r\x1b[K"


def test_silent_when_not_a_terminal() -> None:
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, "review", delay_seconds=0, clock=clock)
    line.update(1, 1)
    line.clear()
    assert stream.getvalue() == ""


def test_a_closed_terminal_is_no_error() -> None:
    terminal = Terminal()
    line = ProgressLine(terminal, "review", delay_seconds=0)
    terminal.close()
    line.update(1, 1)
    line.clear()
