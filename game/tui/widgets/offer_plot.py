"""``OfferPlot``: both sides' offers over the rounds of a negotiation, drawn in text.

The upper chart measures every offer by the player's own utility (from the ``you`` party of the
scene the player observes) against the player's reservation; when the scene trades a priced
item, a lower chart shows the price asked against the player's gold. The deadline is marked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.widget import Widget

from game.core.types import PLAYER

YOU, THEM, BOTH = "●", "◆", "◉"
STYLE = {YOU: "bold green", THEM: "bold magenta", BOTH: "bold yellow"}
Measure = Callable[[dict[str, str]], float | None]


def utility_measure(scene: dict[str, Any]) -> Measure | None:
    """The player's utility of a complete offer, from the scene's ``you`` party (None without one)."""
    you = scene.get("you")
    if not you:
        return None
    from game.negotiation.utility import UtilityFunction

    fn = UtilityFunction(PLAYER, scene["issues"], you["weights"], you["values"], you.get("reservation", 0.0))

    def measure(terms: dict[str, str]) -> float | None:
        try:
            return fn(terms)
        except (KeyError, ValueError):
            return None

    return measure


def price_measure(scene: dict[str, Any]) -> Measure | None:
    """The price of an offer, when the scene has a numeric price issue."""
    issue = (scene.get("trade") or {}).get("price_issue")
    if not issue or issue not in scene.get("issues", {}):
        return None
    try:
        [float(v) for v in scene["issues"][issue]]
    except ValueError:
        return None

    def measure(terms: dict[str, str]) -> float | None:
        return float(terms[issue]) if issue in terms else None

    return measure


def points(scene: dict[str, Any], measure: Measure) -> list[tuple[int, str, float]]:
    """(round, marker, value) for each offer (and acceptance) in the scene's history."""
    out = []
    for h in scene.get("history", ()):
        terms = h.get("terms")
        value = measure(terms) if terms else None
        if value is not None:
            out.append((int(h.get("round", 1)), YOU if h.get("party") == PLAYER else THEM, value))
    return out


def chart(
    pts: list[tuple[int, str, float]],
    *,
    deadline: int,
    now: int,
    lo: float,
    hi: float,
    width: int,
    height: int,
    guide: float | None,
    fmt: str,
) -> list[Text]:
    """A ``height``-row chart, ``width`` cells wide, of ``pts`` with a dashed guide line at
    ``guide``, the deadline as a red column and an x axis of rounds."""
    label_w = max(len(format(lo, fmt)), len(format(hi, fmt))) + 1
    inner = max(8, width - label_w - 1)
    deadline = max(1, deadline)
    step = (inner - 2) / max(1, deadline - 1)

    def col(rnd: int) -> int:
        return round((min(max(rnd, 1), deadline) - 1) * step)

    def row(v: float) -> int:
        span = (hi - lo) or 1.0
        return round((hi - min(max(v, lo), hi)) / span * (height - 1))

    grid: list[list[tuple[str, str]]] = [[(" ", "")] * inner for _ in range(height)]
    if guide is not None:
        gr = row(guide)
        grid[gr] = [("┄", "yellow")] * inner
    dc = min(inner - 1, col(deadline) + 1)
    for r in range(height):
        grid[r][dc] = ("┃", "red")
    _trace(grid, [(col(r) + (1 if m == THEM and step >= 2 else 0), row(v), m) for r, m, v in pts])
    lines = []
    for r in range(height):
        tick = format(hi - (hi - lo) * r / max(1, height - 1), fmt) if r in (0, height - 1, height // 2) else ""
        line = Text(tick.rjust(label_w) + "┤", style="dim")
        for ch, style in grid[r]:
            line.append(ch, style)
        lines.append(line)
    axis = Text(" " * label_w + "└" + "─" * inner, style="dim")
    marks = [" "] * inner
    for rnd in range(1, deadline + 1):
        s = str(rnd)
        c = col(rnd)
        if rnd in (1, deadline, now) or step >= 3:
            for i, ch in enumerate(s):
                if c + i < len(marks):
                    marks[c + i] = ch
    ticks = Text(" " * (label_w + 1) + "".join(marks), style="dim")
    if 0 < now <= deadline:
        ticks.stylize("bold", label_w + 1 + col(now), label_w + 1 + col(now) + len(str(now)))
    return lines + [axis, ticks]


def _trace(grid: list[list[tuple[str, str]]], pts: list[tuple[int, int, str]]) -> None:
    """Dots between each side's successive points, then the points (one marker where both meet)."""
    for marker in (YOU, THEM):
        series = [(c, r) for c, r, m in pts if m == marker]
        for (c0, r0), (c1, r1) in zip(series, series[1:]):
            for c in range(c0 + 1, c1):
                r = round(r0 + (r1 - r0) * (c - c0) / (c1 - c0))
                if grid[r][c][0] in (" ", "┄"):
                    grid[r][c] = ("·", STYLE[marker])
    for c, r, marker in pts:
        if not 0 <= c < len(grid[0]):
            continue
        here = grid[r][c][0]
        mark = BOTH if here in (YOU, THEM, BOTH) and here != marker else marker
        grid[r][c] = (mark, STYLE[mark])


def legend(them: str, width: int, guide: str) -> Text:
    """The markers' key, shortened to fit ``width``."""
    for who, tail in ((them, " deadline"), (them.split()[0] if them.strip() else "them", "")):
        text = Text.assemble(
            (YOU, STYLE[YOU]),
            " you  ",
            (THEM, STYLE[THEM]),
            f" {who}  ",
            ("┄", "yellow"),
            f" {guide}  ",
            ("┃", "red"),
            tail,
        )
        if text.cell_len <= width:
            break
    return text


def render_offer_plot(scene: dict[str, Any] | None, gold: int, width: int, height: int, them: str = "them") -> Text:
    """The whole plot for ``scene`` in ``width`` x ``height`` cells: the key, then the chart by
    the player's utility and (when there is room and a price issue) the chart by price."""
    if not scene:
        return Text("No negotiation.", style="dim")
    deadline, now = int(scene.get("deadline") or 1), int(scene.get("round") or 1)
    util, price = utility_measure(scene), price_measure(scene)
    both = price is not None and util is not None and height >= 16
    out = [legend(them, width, "your limit")]
    if util is not None:
        res = float((scene.get("you") or {}).get("reservation") or 0.0)
        rows = (height - 7) // 2 + (height - 7) % 2 if both else height - 4
        out.append(Text.assemble(("Worth to you", "bold"), f" (you walk away below {res:.2f})"))
        out += chart(
            points(scene, util),
            deadline=deadline,
            now=now,
            lo=0.0,
            hi=1.0,
            width=width,
            height=max(3, rows),
            guide=res,
            fmt=".1f",
        )
    if price is not None and (both or util is None):
        values = [float(v) for v in scene["issues"][scene["trade"]["price_issue"]]]
        lo, hi = min(values), max(values)
        afford = ", enough for any price" if gold >= hi else ", less than any price" if gold < lo else ""
        out.append(Text.assemble(("Price", "bold"), f" (you have {gold} gold{afford})"))
        rows = height - len(out) - 2
        out += chart(
            points(scene, price),
            deadline=deadline,
            now=now,
            lo=lo,
            hi=hi,
            width=width,
            height=max(3, rows),
            guide=gold if lo <= gold <= hi else None,
            fmt=".0f",
        )
    return Text("\n").join(out)


class OfferPlot(Widget):
    """Draws ``render_offer_plot`` for the scene it was last shown, at its current size."""

    DEFAULT_CSS = "OfferPlot { height: 1fr; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.scene: dict[str, Any] | None = None
        self.gold = 0
        self.them = "them"

    def show(self, scene: dict[str, Any] | None, gold: int, them: str = "them") -> None:
        self.scene, self.gold, self.them = scene, gold, them
        self.refresh()

    def render(self) -> Text:
        size = self.content_size
        return render_offer_plot(self.scene, self.gold, max(20, size.width), max(6, size.height), self.them)
