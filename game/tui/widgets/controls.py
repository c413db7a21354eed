"""The watch controls: whether a watched game plays or waits, how fast, and the keys for it
(space pause, s or → one step, + and - speed, Esc stop)."""

from __future__ import annotations

import math

from rich.text import Text
from textual.widgets import Static

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, math.inf)  # turns per second; inf: as fast as turns play
DEFAULT_SPEED = 2.0
KEYS = "space pause · s/→ step · +/- speed · Esc stop"


def speed_label(speed: float) -> str:
    return "max" if math.isinf(speed) else f"{speed:g} turn{'' if speed == 1 else 's'}/s"


def delay(speed: float) -> float:
    """Seconds to wait between two turns at ``speed``."""
    return 0.0 if math.isinf(speed) else 1.0 / speed


def faster(speed: float) -> float:
    return next((s for s in SPEEDS if s > speed), SPEEDS[-1])


def slower(speed: float) -> float:
    return next((s for s in reversed(SPEEDS) if s < speed), SPEEDS[0])


class WatchControls(Static):
    """One panel: playing or paused, the speed, what is going on, and the keys."""

    def show(self, paused: bool, speed: float, state: str = "") -> None:
        text = Text()
        text.append("⏸ paused" if paused else "▶ playing", style="bold yellow" if paused else "bold green")
        text.append(f"   {speed_label(speed)}\n")
        if state:
            text.append(state + "\n", style="italic")
        text.append(KEYS, style="dim")
        self.update(text)
