"""The negotiation screen, shown while the player haggles: one selector per issue to build an
offer, Offer / Accept / Reject / Walk away, the offer history, a plot of both sides' offers by
the player's own utility (and price, against the player's gold) up to the deadline, and the
merchant's lines.

The selectors never take the other side's terms (Ctrl+O would offer them back, which is
accepting in a roundabout way; Ctrl+A accepts what is on the table): they start at the values the
player likes best, and after each of the player's offers they hold that offer, so the next one
starts from the player's own last position.

Every button, key and typed line sends an ordinary command through ``app.send`` (lines typed
while a turn is played wait their turn, in order); the screen only reads the player's
observation (``scene`` of type ``negotiation``) and the replies. When the talks end the outcome
is announced and the app returns to the play screen (``ParleyApp.follow_scene``).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key, Resize
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, RichLog, Select, Static

from game.core.types import PLAYER
from game.engine.parser import MAX_INPUT
from game.play.reply import Reply
from game.tui.app import CommandStarted, ReplyReady
from game.tui.widgets.command_input import OrderedInput, QueuedLine
from game.tui.widgets.offer_plot import OfferPlot, price_measure, utility_measure

CLOSING = ("agreement", "no_agreement")
MOVES = {"offer": "offers", "accept": "accepts", "reject": "rejects", "walk_away": "walks away"}


def offer_command(terms: dict[str, str]) -> str:
    """The command that offers ``terms``: ``offer price=20 grade=fine``."""
    return "offer " + " ".join(f"{issue}={value}" for issue, value in terms.items())


class ReflowLog(RichLog):
    """A wrapping ``RichLog`` that keeps what it was given (the last ``keep`` writes) and writes
    it again at the new width when its width changes, so its lines always fit."""

    keep = 2000

    def __init__(self, **kw: Any) -> None:
        super().__init__(wrap=True, markup=False, min_width=20, **kw)
        self.kept: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []
        self.drawn_width = 0

    def write(self, content: Any, *args: Any, **kw: Any) -> ReflowLog:
        self.kept.append((content.copy() if isinstance(content, Text) else content, args, kw))
        del self.kept[: -self.keep]
        return super().write(content, *args, **kw)

    def on_resize(self, event: Resize) -> None:
        """(Runs before ``RichLog.on_resize``, which then finds nothing deferred left to write.)"""
        width = event.size.width
        if not width or width == self.drawn_width:
            return
        at_end = not self._size_known or self.is_vertical_scroll_end
        self.drawn_width, self._size_known = width, True
        self.clear()
        for content, args, kw in self.kept:
            RichLog.write(self, content, *args, **{**kw, "scroll_end": False})
        if at_end:
            self.scroll_end(animate=False, immediate=False, x_axis=False)


class SceneInput(OrderedInput):
    """A scene screen's command line. The screen's keys (Ctrl+O offer, Ctrl+T the next member's
    memory...) act in the order typed too: a key typed after a line acts after that line is sent,
    and before the line's own keys of the same name (Ctrl+A, Ctrl+W)."""

    def on_mount(self) -> None:
        """The screen's keys replace the line's own keys of the same name (so the footer shows
        them while the line has the focus)."""
        for key in self.screen._bindings.key_to_bindings:
            self._bindings.key_to_bindings.pop(key, None)

    async def _on_key(self, event: Key) -> None:
        for binding in self.screen._bindings.key_to_bindings.get(event.key, ()):
            if await self.app.run_action(binding.action, self.screen):
                event.stop()
                event.prevent_default()  # neither this line's own binding nor the insertion
                return


class SceneScreen(Screen):
    """What the negotiation and council screens share: the scene of type ``scene_type`` read
    from the player's observation, display names, a log, a line for typed commands, and every
    reply passed on to the screen below (the story keeps the whole record)."""

    scene_type = ""
    id_prefix = ""

    def __init__(self) -> None:
        super().__init__()
        self.scene: dict[str, Any] = {}
        self.obs: Any = None
        self.below: Any = None
        self.echoed: deque[str] = deque()  # commands echoed here whose replies have not come

    def attach(self) -> None:
        """On mount: remember the screen below."""
        stack = self.app.screen_stack
        self.below = stack[-2] if len(stack) > 1 else None

    def _read(self) -> None:
        game = self.app.game
        self.obs = game.engine.observe(PLAYER) if game is not None else None
        scene = self.obs.scene if self.obs is not None else None
        if scene and scene.get("type") == self.scene_type and (not self.scene or scene["id"] == self.scene["id"]):
            self.scene = scene

    def who(self, ident: str) -> str:
        return "You" if ident == PLAYER else self.obs.name(ident) if self.obs is not None else ident

    def send(self, text: str) -> None:
        """Play ``text`` (typed, a button, a key): it joins the app's queue and runs after every
        line sent before it; it is echoed in the log when its turn starts (``CommandStarted``)."""
        if self.app.quitting:
            self.notify("Finishing the turn…", severity="warning")
            return
        self.app.send(text)
        self.show_queue()
        self.command_line().focus()  # never left on a button, where Enter would send the move again

    def command_line(self) -> SceneInput:
        return self.query_one(f"#{self.id_prefix}-command", SceneInput)

    def command_input(self) -> ComposeResult:
        """The lines at the foot of the screen: the commands waiting their turn, the command line."""
        yield QueuedLine(id=f"{self.id_prefix}-queued")
        yield SceneInput(
            placeholder="Or type a command (say, ask, look…)",
            id=f"{self.id_prefix}-command",
            max_length=MAX_INPUT,
            select_on_focus=False,
        )

    def show_queue(self) -> None:
        self.query_one(QueuedLine).show(self.app.pending)

    def on_command_started(self, message: CommandStarted) -> None:
        self.query_one(RichLog).write(Text(f"> {message.text}", style="dim"))
        self.echoed.append(message.text)
        self.show_queue()

    def echo(self, said: str) -> None:
        """Before a reply: the command it answers, unless it was echoed when its turn started."""
        if said in self.echoed:
            while self.echoed and self.echoed.popleft() != said:
                pass
        elif said.strip():
            self.query_one(RichLog).write(Text(f"> {said}", style="dim"))
        self.show_queue()

    def on_key(self, event: Key) -> None:
        """A printable key typed while a button, picker or list has the focus goes on to the
        command line, which takes the focus: typed text is never lost (an open picker's list
        still searches as it is typed to). The command line's own printable keys never come
        here (it takes them), so neither do keys of a burst that reach the screen after the
        focus moved to the line."""
        line = self.command_line()
        if not event.is_printable or not event.character:
            return
        if any(select.expanded for select in self.query(Select)):
            return
        event.stop()
        event.prevent_default()
        line.focus()
        line.insert_text_at_cursor(event.character)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()  # the line emptied itself on Enter
        if text:
            self.send(text)

    def pass_on(self, reply: Reply) -> None:
        if self.below is not None:
            self.below.post_message(ReplyReady(reply))


class NegotiationScreen(SceneScreen):
    """A trade in progress, as the player's observation shows it."""

    # the command line (``SceneInput``) runs these before its own Ctrl+A and Ctrl+W
    BINDINGS = [
        Binding(key, action, label)
        for key, action, label in (
            ("ctrl+o", "offer", "Offer"),
            ("ctrl+a", "accept", "Accept"),
            ("ctrl+r", "reject", "Reject"),
            ("ctrl+w", "walk_away", "Walk away"),
        )
    ]
    scene_type = "negotiation"
    id_prefix = "neg"

    def __init__(self) -> None:
        super().__init__()
        self.shown_mine: Any = ()  # the player's own offer the selectors were last filled from

    # --- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self._read()
        issues = self.scene.get("issues", {})
        yield Header()
        with Horizontal(id="neg-body"):
            with VerticalScroll(id="neg-left"):
                yield Static("", id="neg-title")
                yield Static("", id="neg-standing")
                with Horizontal(id="neg-issues"):
                    for k, (issue, values) in enumerate(issues.items()):
                        with Vertical(classes="neg-issue"):
                            yield Label(issue.replace("_", " ").capitalize())
                            yield Select(
                                [(str(v), str(v)) for v in values],
                                allow_blank=False,
                                value=str(values[0]),
                                id=f"issue-{k}",
                            )
                yield Static("", id="neg-preview")
                with Horizontal(id="neg-buttons"):
                    yield Button("Offer", id="neg-offer", variant="primary")
                    yield Button("Accept", id="neg-accept", variant="success")
                    yield Button("Reject", id="neg-reject", variant="warning")
                    yield Button("Walk away", id="neg-walk", variant="error")
                yield DataTable(id="neg-history", cursor_type="row", zebra_stripes=True)
            with Vertical(id="neg-right"):
                yield OfferPlot(id="neg-plot")
                yield ReflowLog(id="neg-log")
        yield from self.command_input()
        yield Footer()

    def on_mount(self) -> None:
        self.attach()
        table = self.query_one(DataTable)
        table.add_columns("Rd", "Who", "Move", *self.issue_names(), "Worth")
        reply = self.app.last_reply
        if reply is not None:
            self.log_lines(reply.lines)
        self.refresh_view()
        self.command_line().focus()  # typing never presses a button by accident

    # --- reading the scene -------------------------------------------------------------------
    def issue_names(self) -> list[str]:
        return list(self.scene.get("issues", {}))

    def other(self) -> str:
        trade = self.scene.get("trade") or {}
        parties = [p for p in self.scene.get("parties", ()) if p != PLAYER]
        return trade.get("seller") or (parties[0] if parties else "")

    def chosen(self) -> dict[str, str]:
        """The offer the selectors make up, issue by issue."""
        return {issue: str(self.query_one(f"#issue-{k}", Select).value) for k, issue in enumerate(self.issue_names())}

    # --- drawing -----------------------------------------------------------------------------
    def refresh_view(self) -> None:
        sc = self.scene
        if not sc:
            return
        them = self.who(self.other())
        turn = "your move" if sc.get("turn") == PLAYER else f"{them}'s move" if sc.get("turn") else "closed"
        self.query_one("#neg-title", Static).update(
            f"Haggling with {them} over {sc.get('title', 'a deal')} · round {sc.get('round')} of "
            f"{sc.get('deadline')} · {turn}"
        )
        standing = sc.get("standing_offer")
        self.query_one("#neg-standing", Static).update(
            "No offer on the table yet: make the first one."
            if not standing
            else f"On the table ({self.standing_party()}): " + self.describe(standing)
        )
        mine = self.own_last_offer()
        if mine and mine != self.shown_mine:
            self.fill(mine)
        elif not mine and self.shown_mine == ():
            self.fill(self.best_terms())
        self.shown_mine = mine
        for bid in ("#neg-accept", "#neg-reject"):
            self.query_one(bid, Button).disabled = not standing or self.standing_party() == "you"
        self.refresh_history()
        self.query_one(OfferPlot).show(sc, self.obs.gold if self.obs is not None else 0, them)
        self.refresh_preview()

    def own_last_offer(self) -> dict[str, str] | None:
        """The player's own latest offer, if it made one."""
        mine = [h for h in self.scene.get("history", ()) if h.get("kind") == "offer" and h.get("party") == PLAYER]
        return dict(mine[-1].get("terms") or {}) if mine else None

    def standing_party(self) -> str:
        """Who made the standing offer: the last offer in the history."""
        offers = [h for h in self.scene.get("history", ()) if h.get("kind") == "offer"]
        return "you" if offers and offers[-1].get("party") == PLAYER else self.who(self.other())

    def describe(self, terms: dict[str, str]) -> str:
        worth = utility_measure(self.scene)
        value = worth(terms) if worth is not None else None
        text = ", ".join(f"{i} {v}" for i, v in terms.items())
        return text + (f"  (worth {value:.2f} to you)" if value is not None else "")

    def best_terms(self) -> dict[str, str]:
        """Before any offer: the values the player likes best, issue by issue."""
        mine = (self.scene.get("you") or {}).get("values", {})
        best = {}
        for issue, values in self.scene.get("issues", {}).items():
            table = mine.get(issue, {})
            best[issue] = str(max(values, key=lambda v: table.get(str(v), 0.0))) if values else ""
        return best

    def fill(self, terms: dict[str, str]) -> None:
        for k, issue in enumerate(self.issue_names()):
            select = self.query_one(f"#issue-{k}", Select)
            if issue in terms and str(terms[issue]) in {str(v) for v in self.scene["issues"][issue]}:
                select.value = str(terms[issue])

    def refresh_preview(self) -> None:
        terms = self.chosen()
        worth, price = utility_measure(self.scene), price_measure(self.scene)
        parts = []
        if worth is not None:
            value = worth(terms)
            res = self.scene["you"].get("reservation", 0.0)
            parts.append(f"This offer is worth {value:.2f} to you (you walk away below {res:.2f})")
        if price is not None and self.obs is not None:
            cost, gold = price(terms), self.obs.gold
            if cost is not None:
                parts.append(
                    f"it costs {cost:g} of your {gold} gold" + (": more than you have!" if cost > gold else "")
                )
        self.query_one("#neg-preview", Static).update("; ".join(parts) + "." if parts else "")

    def refresh_history(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        worth = utility_measure(self.scene)
        for h in self.scene.get("history", ()):
            terms = h.get("terms") or {}
            value = worth(terms) if worth is not None and terms else None
            table.add_row(
                str(h.get("round", "")),
                self.who(h.get("party", "")),
                MOVES.get(h.get("kind", ""), h.get("kind", "")),
                *(str(terms.get(i, "")) for i in self.issue_names()),
                "" if value is None else f"{value:.2f}",
            )
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)

    def log_lines(self, lines: tuple[str, ...] | list[str]) -> None:
        log = self.query_one("#neg-log", RichLog)
        for line in lines:
            log.write(line)

    # --- acting ------------------------------------------------------------------------------
    def on_select_changed(self, _: Select.Changed) -> None:
        if self.scene:
            self.refresh_preview()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        actions = {
            "neg-offer": self.action_offer,
            "neg-accept": self.action_accept,
            "neg-reject": self.action_reject,
            "neg-walk": self.action_walk_away,
        }
        if event.button.id in actions:
            actions[event.button.id]()

    def action_offer(self) -> None:
        self.send(offer_command(self.chosen()))

    def action_accept(self) -> None:
        self.send("accept")

    def action_reject(self) -> None:
        self.send("reject")

    def action_walk_away(self) -> None:
        self.send("walk away")

    # --- replies -----------------------------------------------------------------------------
    def on_reply_ready(self, message: ReplyReady) -> None:
        reply = message.reply
        self.echo(reply.said)
        self.log_lines(reply.lines)
        self.pass_on(reply)
        self._read()
        closed = self.closing(reply)
        if closed is None:
            self.refresh_view()
        else:
            self.announce(closed)
        self.app.follow_scene()

    def closing(self, reply: Reply) -> Any:
        """The event that ended this scene in ``reply``, if it did."""
        for ev in reply.events:
            if ev.kind in CLOSING and (ev.data or {}).get("scene") == self.scene.get("id"):
                return ev
        return None

    def announce(self, event: Any) -> None:
        deal = event.kind == "agreement"
        self.app.notify(
            event.seen_by(PLAYER),
            title="Deal struck" if deal else "No deal",
            severity="information" if deal else "warning",
            timeout=8,
            markup=False,
        )
