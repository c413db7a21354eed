"""``BudgetBar``: how much of an agent's token budget each section of its MEMO context uses."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

# section -> colour of its share of the bar (the sections of memory.optimizer.SECTIONS)
SECTION_COLOURS = {"anchors": "magenta", "priors": "blue", "shared": "cyan", "private": "yellow", "recent": "green"}


class BudgetBar(Widget):
    """One line of bar (a coloured run per section, the unused budget dim) and one of legend."""

    DEFAULT_CSS = """
    BudgetBar {
        height: 2;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.parts: list[tuple[str, int]] = []
        self.used = 0
        self.budget = 0

    def show(self, parts: list[tuple[str, int]], used: int, budget: int) -> None:
        """``parts``: (section, tokens) in order; ``used``: the context's exact token count."""
        self.parts, self.used, self.budget = list(parts), used, budget
        self.refresh()

    def runs(self, width: int) -> list[tuple[str, int]]:
        """(section, cells) for a bar ``width`` cells wide; the remainder is the unused budget."""
        if width <= 0 or self.budget <= 0:
            return []
        total = sum(n for _, n in self.parts)
        scale = min(1.0, self.used / total) if total else 0.0  # section estimates scaled to the exact count
        full = max(self.budget, self.used)  # anchors may run past the budget
        out, done, cum = [], 0, 0.0
        for name, n in self.parts:
            cum += n * scale
            end = round(width * cum / full)
            if end > done:
                out.append((name, end - done))
                done = end
        return out

    def render(self) -> Text:
        if self.budget <= 0:
            return Text("")
        label = f" {self.used}/{self.budget} tokens ({100 * self.used // self.budget}%)"
        width = max(10, self.size.width - len(label) - 2)
        bar = Text()
        runs = self.runs(width)
        for name, cells in runs:
            bar.append("█" * cells, style=SECTION_COLOURS.get(name, "white"))
        bar.append("░" * max(0, width - sum(c for _, c in runs)), style="dim")
        over = self.used > self.budget
        bar.append(label, style="bold red" if over else "bold")
        bar.append("\n")
        for name, n in self.parts:
            bar.append("■ ", style=SECTION_COLOURS.get(name, "white"))
            bar.append(f"{name} {n}   ")
        if over:
            bar.append("over budget: anchors are never dropped", style="red")
        return bar
