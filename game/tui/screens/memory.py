"""The memory inspector (F3): the MEMO context an agent gets this turn, section by section, with
every candidate memory's scores and fate (selected, masked and why, merged, summarised, dropped
by the token budget) and a bar of the budget. It shows what ``parley inspect`` prints: the context
is rebuilt without touching recency (``GameMemory.context(..., touch=False)``) and the candidates
are ``ContextOptimizer.explain`` for that agent and turn.

A person playing sees their own memory; a spectator (and ``parley inspect SAVE --tui``) picks any
agent in a Select. ``InspectApp`` is the app ``parley inspect --tui`` runs: this screen (and the
journal) over a loaded save, with nothing played or saved.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Select, Static

from game.core.types import PLAYER
from game.tui.app import ParleyApp, ReplyReady
from game.tui.widgets.budget_bar import SECTION_COLOURS, BudgetBar

if TYPE_CHECKING:
    from game.play.session import Game

FATE_STYLES = {
    "selected": "bold green",
    "masked": "yellow",
    "merged": "cyan",
    "summarised": "blue",
    "dropped": "red",
    "candidate": "dim",
}
COLUMNS = (
    ("id", "id"),
    ("fate", "fate"),
    ("section", "section"),
    ("score", "score"),
    ("rel", "relevance"),
    ("rec", "recency"),
    ("imp", "importance"),
    ("memory", "text"),
    ("why", "why"),
)
MEMORY_OFF = (
    "Memory is off in this game (it was started with --no-memory, or saved that way): "
    "no agent has a MEMO context to inspect.\n\nPlay with memory on (the default) to see "
    "what each agent remembers and why."
)


def why(row: dict[str, Any]) -> str:
    """A candidate's fate explained: the reason, what it went into, and score adjustments."""
    text = row["reason"] + (f" → {row['into']}" if row["into"] else "")
    if row.get("stands_for", 1) > 1:  # near-duplicates collapsed into this one before the cut
        text += f" (stands for {row['stands_for']})"
    if row["adjustments"]:
        text += f" [{'; '.join(row['adjustments'])}]"
    return text


def clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def section_tokens(optimizer: Any, sections: dict[str, list[str]]) -> list[tuple[str, int]]:
    """Each section's share of the context's tokens (its header and lines, counted alone)."""
    from memory.optimizer import SECTIONS, TITLES

    return [
        (name, optimizer.count(f"## {TITLES[name]}\n" + "\n".join(f"- {ln}" for ln in sections[name])))
        for name in SECTIONS
        if sections.get(name)
    ]


def context_text(sections: dict[str, list[str]]) -> Text:
    """The context as the agent reads it, a coloured heading per section."""
    from memory.optimizer import SECTIONS, TITLES

    out = Text()
    for name in SECTIONS:
        lines = sections.get(name)
        if not lines:
            continue
        if out:
            out.append("\n")
        out.append(f"{TITLES[name]} ({name})\n", style=f"bold {SECTION_COLOURS.get(name, '')}")
        for line in lines:
            out.append(f"  • {line}\n")
    return out if out else Text("(the context is empty)", style="dim")


class MemoryScreen(Screen):
    """``agent``: whose memory to show first (default the player)."""

    BINDINGS = [Binding("escape", "close", "Back"), Binding("r", "reload", "Refresh")]

    def __init__(self, agent: str | None = None) -> None:
        super().__init__()
        self.agent = agent or PLAYER
        self.context: Any = None  # the memory.optimizer.Context shown
        self.rows: list[dict[str, Any]] = []  # its explain() rows, as listed

    @property
    def any_agent(self) -> bool:
        """Spectators and inspectors may look inside every agent; a player only inside themself."""
        return bool(getattr(self.app, "spectate", None) or getattr(self.app, "inspecting", False))

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="memory-top"):
            yield Static("", id="memory-who")
            if self.any_agent and self.app.game is not None:
                eng = self.app.game.engine
                options = [(f"{eng.name(a)} ({a})", a) for a in eng.order]
                agent = self.agent if self.agent in eng.order else eng.order[0]
                self.agent = agent
                yield Select(options, value=agent, allow_blank=False, id="memory-agent")
        yield BudgetBar(id="memory-budget")
        with VerticalScroll(id="memory-context-box"):
            yield Static("", id="memory-context")
        yield Static("", id="memory-fates")
        yield DataTable(id="memory-candidates", zebra_stripes=True, cursor_type="row")
        yield Static("", id="memory-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#memory-candidates", DataTable)
        for label, key in COLUMNS:
            table.add_column(label, key=key)
        self.query_one("#memory-context-box").border_title = "Context"

    # --- events --------------------------------------------------------------------------------
    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "memory-agent" and event.value != Select.NULL and event.value != self.agent:
            self.agent = str(event.value)
            self.reload()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail(event.cursor_row)

    def on_reply_ready(self, _: ReplyReady) -> None:
        self.reload()  # a turn was played (a spectated game goes on under this screen)

    def on_screen_resume(self) -> None:
        self.reload()

    def action_reload(self) -> None:
        self.reload()

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:  # the first screen (parley inspect --tui): leave
            self.app.exit(0)

    # --- drawing -------------------------------------------------------------------------------
    def memory_warm(self) -> None:
        """The model is ready and memory caught up (``ParleyApp._warm_memory``): draw it if the
        warming note stood in for it."""
        if self.context is None:
            self.reload()

    def reload(self) -> None:
        """Rebuild the agent's context (recency untouched) and list its candidates."""
        game = self.app.game
        who = self.query_one("#memory-who", Static)
        if game is None:
            who.update("The world is still loading.")
            return
        if game.memory is None:
            who.update("Memory inspector")
            self.query_one("#memory-context", Static).update(MEMORY_OFF)
            for wid in ("#memory-budget", "#memory-fates", "#memory-candidates"):
                self.query_one(wid).display = False
            return
        if self.app.busy:  # never read the memory while a turn is writing it; ReplyReady redraws
            who.update(Text(f"Memory of {game.engine.name(self.agent)}: waiting for the turn being played…"))
            return
        if game.warmup.warming or game.warmup.pending:  # the model is loading: never load it here
            who.update(Text(f"Memory of {game.engine.name(self.agent)}: warming memory… (shown once it is ready)"))
            return
        eng = game.engine
        self.context = game.memory.context(self.agent, eng.observe(self.agent), touch=False)
        self.rows = list(game.memory.optimizer.explain(self.agent, self.context.turn))
        self.draw(game)

    def draw(self, game: Game) -> None:
        ctx, rows = self.context, self.rows
        name = game.engine.name(self.agent)
        self.query_one("#memory-who", Static).update(
            Text.assemble(
                ("Memory of ", ""),
                (name, "bold"),
                (f" at turn {ctx.turn}: ", ""),
                (f"{len(ctx)} lines from {len(rows)} candidates", ""),
            )
        )
        self.query_one(BudgetBar).show(section_tokens(game.memory.optimizer, ctx.sections), ctx.tokens, ctx.budget)
        self.query_one("#memory-context", Static).update(context_text(ctx.sections))
        fates: dict[str, int] = {}
        for r in rows:
            fates[r["fate"]] = fates.get(r["fate"], 0) + 1
        summary = Text("Candidates: ")
        for k, (fate, n) in enumerate(sorted(fates.items())):
            summary.append(", " if k else "")
            summary.append(f"{n} {fate}", style=FATE_STYLES.get(fate, ""))
        self.query_one("#memory-fates", Static).update(summary if rows else Text("No candidates.", style="dim"))
        table = self.query_one("#memory-candidates", DataTable)
        table.clear()
        for r in rows:
            table.add_row(
                r["id"],
                Text(r["fate"], style=FATE_STYLES.get(r["fate"], "")),
                r["section"] or "",
                f"{r['score']:.3f}",
                f"{r['relevance']:.2f}",
                f"{r['recency']:.2f}",
                f"{r['importance']:.2f}",
                clip(r["text"], 36),
                clip(why(r), 60),
                key=r["id"],
            )
        self.show_detail(0)

    def show_detail(self, row: int) -> None:
        """The highlighted candidate in full: its kind, scope, turn, text and fate."""
        detail = self.query_one("#memory-detail", Static)
        if not 0 <= row < len(self.rows):
            detail.update("")
            return
        r = self.rows[row]
        head = Text.assemble(
            (f"{r['id']} ", "bold"),
            (f"{r['kind']} in {r['scope']}, turn {r['turn']}{', anchor' if r['anchor'] else ''}: ", "dim"),
            (r["fate"], FATE_STYLES.get(r["fate"], "")),
            f" — {why(r)}\n",
        )
        detail.update(head + Text(r["text"]))

    def listed(self) -> list[tuple[str, str]]:
        """(id, fate) of each row in the table, in order (what the screen shows)."""
        table = self.query_one("#memory-candidates", DataTable)
        return [(str(table.get_cell_at((k, 0))), str(table.get_cell_at((k, 1)))) for k in range(table.row_count)]


class InspectApp(ParleyApp):
    """``parley inspect SAVE --tui``: the memory inspector over a loaded ``game`` (any agent in a
    Select, ``agent`` first); F2 shows its journal. Nothing is played, and quitting saves nothing."""

    inspecting = True
    CSS_PATH = str(Path(sys.modules[ParleyApp.__module__].__file__).with_name("parley.tcss"))

    def __init__(self, game: Game, agent: str | None = None) -> None:
        super().__init__(lambda: game)
        self.game = game
        self.start_agent = agent

    def on_mount(self, event: Any) -> None:
        event.prevent_default()  # not the play screen, and the game is already built
        self.sub_title = f"{self.game.spec.title}: memory at turn {self.game.engine.state.turn}"
        self.push_screen(MemoryScreen(self.start_agent))

    def send(self, text: str) -> None:
        self.notify("Inspecting a save: nothing is played here.")
