"""The journal and trust screen (F2, or type ``journal``), in three tabs:

* Journal: ``Game.journal()``: what the player was told, what is disputed, what proved true or
  false, and who said each;
* Trust: Σ-Mem's score per NPC and topic (``game.facts.trust_table()``, -1 liar .. +1 reliable)
  as a heat table;
* Gate audit: every decision of the consistency gate (``game.facts.gate.audit``), filtered by
  source and by outcome, as ``parley trust --audit`` lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Select, Static, TabbedContent, TabPane

from game.tui.app import ReplyReady

if TYPE_CHECKING:
    from game.play.session import Game

OUTCOMES = ("admit", "quarantine", "reject")
OUTCOME_STYLES = {"admit": "green", "quarantine": "yellow", "reject": "red"}
NO_FACTS = (
    "World-fact memory is off in this game: nobody's claims were weighed, so there is "
    "no journal, no trust score and no gate audit."
)
TRUST_NOTE = (
    "Σ-Mem trust per NPC and topic, from what was verified: -1 caught lying .. +1 reliable; "
    "0 (·) = nothing verified yet."
)


def heat(score: float) -> Text:
    """A trust cell: red for a liar, green for the reliable, stronger the surer; plain at 0."""
    if abs(score) < 1e-9:
        return Text("    ·", style="dim")
    t = 0.35 + 0.65 * min(1.0, abs(score))  # small scores must still show a colour
    base, full = (70, 70, 70), ((20, 150, 60) if score > 0 else (190, 35, 35))
    r, g, b = (round(a + (z - a) * t) for a, z in zip(base, full))
    return Text(f"{score:+.2f}".rjust(5), style=f"bold white on rgb({r},{g},{b})")


def source_label(game: Game, source: str) -> str:
    return "your own eyes" if source == "observation" else f"{game.engine.name(source)} ({source})"


class JournalScreen(Screen):
    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("r", "reload", "Refresh"),
        Binding("j", "tab('journal-tab')", "Journal"),
        Binding("t", "tab('trust-tab')", "Trust"),
        Binding("a", "tab('audit-tab')", "Audit"),
    ]

    def __init__(self, tab: str = "journal-tab") -> None:
        super().__init__()
        self.first_tab = tab

    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial=self.first_tab, id="journal-tabs"):
            with TabPane("Journal", id="journal-tab"):
                with VerticalScroll():
                    yield Static("", id="journal-text")
            with TabPane("Trust", id="trust-tab"):
                yield Static(TRUST_NOTE, id="trust-note")
                yield DataTable(id="trust-table", cursor_type="cell")
            with TabPane("Gate audit", id="audit-tab"):
                with Horizontal(id="audit-filters"):
                    yield Select(self.source_options(), prompt="any source", id="audit-source")
                    yield Select([(o, o) for o in OUTCOMES], prompt="any outcome", id="audit-outcome")
                    yield Static("", id="audit-count")
                yield DataTable(id="audit-table", zebra_stripes=True, cursor_type="row")
        yield Footer()

    def source_options(self) -> list[tuple[str, str]]:
        """Every NPC, your own observations, and any other source the gate heard from."""
        game = self.app.game
        if game is None or game.facts is None:
            return []
        seen = {d.candidate["source"] for d in game.facts.gate.audit()}
        sources = [*game.spec.npcs, "observation", *sorted(seen - set(game.spec.npcs) - {"observation"})]
        return [(source_label(game, s), s) for s in sources]

    def on_mount(self) -> None:
        self.query_one("#audit-table", DataTable).add_columns(
            "#", "turn", "source", "outcome", "score", "cred", "claim", "reason"
        )

    # --- events --------------------------------------------------------------------------------
    def on_screen_resume(self) -> None:
        self.reload()

    def on_reply_ready(self, _: ReplyReady) -> None:
        self.reload()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id in ("audit-source", "audit-outcome"):
            self.draw_audit()

    def action_reload(self) -> None:
        self.reload()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_close(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit(0)

    # --- drawing -------------------------------------------------------------------------------
    def reload(self) -> None:
        game = self.app.game
        if game is None or self.app.busy:  # a turn is writing the facts; ReplyReady redraws
            return
        if game.facts is None:
            self.query_one("#journal-text", Static).update(NO_FACTS)
            self.query_one("#trust-note", Static).update(NO_FACTS)
            self.query_one("#audit-count", Static).update(NO_FACTS)
            return
        self.draw_journal()
        self.draw_trust()
        self.draw_audit()

    def draw_journal(self) -> None:
        journal = self.app.game.journal()
        if journal.empty:
            self.query_one("#journal-text", Static).update(Text(journal.text(), style="dim"))
            return
        out = Text()
        for title, entries in journal.sections:
            out.append(("\n" if out else "") + title + "\n", style="bold")
            for e in entries:
                out.append(f"  • {e.text}")
                if e.sources:
                    out.append(f"  — {', '.join(e.sources)}", style="italic cyan")
                out.append("\n")
        if journal.trust:
            out.append(("\n" if out else "") + "Whom to trust, by what was verified\n", style="bold")
            for who, row in journal.trust:
                out.append(f"  • {who}: ")
                for k, (topic, score) in enumerate(row):
                    out.append(", " if k else "")
                    out.append(
                        f"{topic.replace('_', ' ')} {'reliable' if score > 0 else 'caught lying'} ({score:+.2f})",
                        style="green" if score > 0 else "red",
                    )
                out.append("\n")
        self.query_one("#journal-text", Static).update(out)

    def draw_trust(self) -> None:
        game = self.app.game
        table = self.query_one("#trust-table", DataTable)
        trust = game.facts.trust_table()
        topics = sorted({t for row in trust.values() for t in row})
        table.clear(columns=True)
        table.add_column("NPC", key="npc")
        for t in topics:
            table.add_column(t.replace("_", " "), key=t)
        for npc, row in trust.items():
            table.add_row(game.engine.name(npc), *(heat(row.get(t, 0.0)) for t in topics), key=npc)

    def audit_rows(self) -> list[Any]:
        """The gate's decisions the two filters let through, oldest first."""
        gate = self.app.game.facts.gate
        source = self.query_one("#audit-source", Select).value
        outcome = self.query_one("#audit-outcome", Select).value
        return gate.audit(
            source=None if source == Select.NULL else str(source),
            outcome=None if outcome == Select.NULL else str(outcome),
        )

    def draw_audit(self) -> None:
        game = self.app.game
        if game is None or game.facts is None:
            return
        rows = self.audit_rows()
        table = self.query_one("#audit-table", DataTable)
        table.clear()
        for d in rows:
            c = d.candidate
            table.add_row(
                str(d.seq),
                str(d.turn),
                source_label(game, c["source"]),
                Text(d.outcome, style=OUTCOME_STYLES.get(d.outcome, "")),
                f"{d.score:.2f}",
                f"{d.credibility:.2f}",
                f"{c['subject']} {c['relation']} {c['object']}",
                d.reason,
                key=str(d.seq),
            )
        total = len(game.facts.gate.audit())
        counts = ", ".join(f"{sum(d.outcome == o for d in rows)} {o}" for o in OUTCOMES)
        self.query_one("#audit-count", Static).update(f"{len(rows)} of {total} decisions: {counts}")
