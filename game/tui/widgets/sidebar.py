"""The side panel: the place (exits, people, things), what the player carries, gold, score,
turn, and the quest log. Clicking an exit, a person or a thing fills the command line; a thing
that can be carried also has **take**."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from game.core.types import PLAYER

if TYPE_CHECKING:
    from game.play.session import Game


class Pick(Static):
    """A clickable word that proposes a command."""

    class Chosen(Message):
        def __init__(self, command: str) -> None:
            super().__init__()
            self.command = command

    def __init__(self, label: str, command: str, **kw: Any) -> None:
        super().__init__(label, markup=False, **kw)
        self.command = command
        self.tooltip = command

    def on_click(self) -> None:
        self.post_message(self.Chosen(self.command))


def heading(text: str) -> Static:
    return Static(Text(text, style="bold underline"), classes="side-heading")


def portable(noun: Any, items: Any) -> bool:
    """Whether a thing can be carried (a mooring post or a bell cannot), so the panel offers
    **take** only where taking can work: the noun's own ``portable`` where the scope gives one,
    else the world's item spec."""
    flag = getattr(noun, "portable", None)
    if flag is not None:
        return bool(flag)
    item = items.get(noun.id)
    return item is None or bool(item.portable)


def panel(game: Game) -> list[Any]:
    """The widgets of the side panel for the player's current observation."""
    obs = game.engine.observe(PLAYER)
    scope = obs.scope
    nouns = tuple(getattr(scope, "nouns", ()))
    people = [n for n in nouns if n.kind == "npc"]
    things = [n for n in nouns if n.kind == "item" and n.where != "inventory"]
    carried = [n for n in nouns if n.kind == "item" and n.where == "inventory"]
    out: list[Any] = [Static(Text(obs.name(obs.location), style="bold"), id="place-name"), heading("Exits")]
    out.append(
        Horizontal(*[Pick(d, f"go {d}", classes="pick exit") for d in obs.exits], classes="pick-row")
        if obs.exits
        else Static("none", classes="dim")
    )
    out.append(heading("People"))
    out += [Pick(n.name, f"talk to {n.name}", classes="pick person") for n in people] or [
        Static("nobody", classes="dim")
    ]
    out.append(heading("Things"))
    items = game.engine.spec.items
    out += [
        Horizontal(
            Pick(n.name, f"examine {n.name}", classes="pick thing"),
            *([Pick("take", f"take {n.name}", classes="pick verb")] if portable(n, items) else []),
            classes="pick-row",
        )
        for n in things
    ] or [Static("nothing", classes="dim")]
    out.append(heading("Carrying"))
    out += [
        Horizontal(
            Pick(n.name, f"examine {n.name}", classes="pick thing"),
            Pick("drop", f"drop {n.name}", classes="pick verb"),
            classes="pick-row",
        )
        for n in carried
    ] or [Static("nothing", classes="dim")]
    out.append(Static(f"Gold {obs.gold}   Score {obs.score}   Turn {obs.turn}/{obs.max_turns}", id="status-line"))
    out.append(heading("Quests"))
    out.append(Static(quest_text(obs.quests), id="quest-log"))
    return out


def quest_text(quests: Any) -> Text:
    text = Text()
    for i, q in enumerate(quests):
        if i:
            text.append("\n")
        text.append(("✓ " if q.done else "• ") + q.title, style="green" if q.done else "bold")
        if q.done:
            continue
        for o in q.objectives:
            text.append("\n  ")
            text.append(("✓ " if o.done else "○ ") + o.text, style="dim green" if o.done else "")
    return text or Text("none", style="dim")


class Sidebar(VerticalScroll):
    """Holds the panel; ``show(game)`` redraws it."""

    def compose(self) -> ComposeResult:
        yield Static("Loading…", classes="dim")

    async def show(self, game: Game) -> None:
        with self.app.batch_update():
            await self.remove_children()
            await self.mount_all(panel(game))
