"""The council screen, shown while a council sits where the player is: the motion, each member's
stance and the tally as bars, the speeches, the evidence presented, a helper to hand evidence
to a member (``give X to Y``), and the vote buttons (``vote yes`` / ``vote no``).

It reads the player's observation (``scene`` of type ``council``) and the replies, and sends
ordinary commands through ``app.send``. When the vote is taken the result is announced and the
app returns to the play screen (``ParleyApp.follow_scene``).

In a debating council (a scene with ``debate``) each member's line also shows the stance it last
declared, as a short bar from no (0) to yes (1) and the number, and the "Memory" panel under the
speeches (always in view; ctrl+t shows the next member) shows what the chosen member's masked
working memory of the debate holds now: the anchors and settled points it always keeps, the
statements the mask kept, and how many it let go and why (``game.play.council_debate``).

Whatever has the focus, a printable key goes to the command line (``SceneScreen.on_key``); lines
typed ahead wait their turn in the app's queue and each is echoed above its reply (``SceneScreen``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Header, Label, RichLog, Select, Static

from game.core.types import PLAYER
from game.tui.app import ReplyReady
from game.tui.screens.negotiation import ReflowLog, SceneScreen

STANCES = (("for", "green"), ("undecided", "yellow"), ("against", "red"))
BAR = 24
MINI = 5  # width of a member's declared-stance bar (no at the left, yes at the right)


def needed(members: int, majority: float) -> int:
    """The fewest yes votes that carry the motion: more than ``majority`` of the votes."""
    return next((k for k in range(members + 1) if k / max(1, members) > majority), members + 1)


class CouncilScreen(SceneScreen):
    """A council in session, as the player's observation shows it."""

    BINDINGS = [
        Binding("ctrl+y", "vote('yes')", "Vote yes"),
        Binding("ctrl+n", "vote('no')", "Vote no"),
        Binding("ctrl+t", "next_memory", "Next memory"),
    ]
    scene_type = "council"
    id_prefix = "council"

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[int, int]] = set()  # (turn, seq) of the persuasions already noted
        self.evidence: list[str] = []
        self.watched: list[tuple[str, str]] = []  # the members the Memory picker offers now

    # --- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        self._read()
        yield Header()
        yield Static("", id="council-motion")
        with Horizontal(id="council-body"):
            with VerticalScroll(id="council-left"):
                yield Static("", id="council-stances")
                yield Static("", id="council-evidence")
                yield Label("Give evidence", classes="council-heading")
                with Horizontal(id="council-give"):
                    yield Select([], prompt="Item", id="council-item")
                    yield Select([], prompt="Member", id="council-member")
                    yield Button("Give", id="council-give-button")
                with Horizontal(id="council-vote"):
                    yield Button("Vote yes", id="council-yes", variant="success")
                    yield Button("Vote no", id="council-no", variant="error")
                yield Static("", id="council-result")
            with Vertical(id="council-right"):
                yield ReflowLog(id="council-speeches")
                with Vertical(id="council-memory-panel", classes="council-memory"):
                    with Horizontal(id="council-memory-head"):
                        yield Label("Memory of ", classes="council-heading")
                        yield Select(
                            self.members_to_watch(), allow_blank=False, id="council-memory-member", compact=True
                        )
                    with VerticalScroll(id="council-memory-scroll"):
                        yield Static("", id="council-memory")
        yield from self.command_input()
        yield Footer()

    def on_mount(self) -> None:
        self.attach()
        self.query_one("#council-memory-panel").border_title = "Memory · ctrl+t: next member"
        if self.app.last_reply is not None:
            self.take_reply(self.app.last_reply)
        self.refresh_view()
        self.command_line().focus()  # typing never presses a vote by accident

    # --- reading -----------------------------------------------------------------------------
    def take_reply(self, reply: Any) -> Any:
        """Show ``reply``'s lines, speeches in their speaker's colour; note the evidence presented.
        Returns the vote's result event, if the reply holds one."""
        log = self.query_one("#council-speeches", RichLog)
        ours = {ev.seen_by(PLAYER): ev for ev in reply.events if (ev.data or {}).get("scene") == self.scene.get("id")}
        result = None
        for line in reply.lines:
            ev = ours.get(line)
            if ev is None:
                log.write(Text(line, style="dim"))
            elif ev.kind == "speech":
                log.write(self.speech(ev))
            else:
                log.write(Text(line, style="bold" if ev.kind == "council_result" else "italic"))
        for ev in ours.values():
            if ev.kind == "persuaded" and (ev.turn, ev.seq) not in self.seen:
                self.seen.add((ev.turn, ev.seq))
                self.evidence.append(ev.seen_by(PLAYER))
            elif ev.kind == "council_result":
                result = ev
        return result

    def speech(self, ev: Any) -> Text:
        stance = (ev.data or {}).get("stance", "")
        colour = dict(STANCES).get(stance, "white")
        text = ev.seen_by(PLAYER)
        head, sep, said = text.partition(": ")
        return Text.assemble((head + sep, f"bold {colour}"), said) if sep else Text(text)

    # --- drawing -----------------------------------------------------------------------------
    def refresh_view(self) -> None:
        sc = self.scene
        if not sc:
            return
        members = sc.get("members", [])
        need = needed(len(members), float(sc.get("majority", 0.5)))
        self.query_one("#council-motion", Static).update(
            Text.assemble(
                (f"{sc.get('title', 'The council')}  ", "bold"),
                f"round {sc.get('round')} of {sc.get('max_rounds')}"
                f" · carried by more than {float(sc.get('majority', 0.5)):.0%} of the votes ({need} of {len(members)})\n",
                ("Motion: ", "bold"),
                str(sc.get("motion", "")),
            )
        )
        self.query_one("#council-stances", Static).update(self.stances(members, need))
        self.query_one("#council-evidence", Static).update(
            "Evidence presented:\n" + ("\n".join(f" • {e}" for e in self.evidence) or " none yet")
        )
        self.fill_give(members)
        for w in self.query(".council-memory"):
            w.display = bool(sc.get("debate"))
        if sc.get("debate"):
            self.fill_memory(members)

    def stances(self, members: list[dict[str, Any]], need: int) -> Text:
        out = Text()
        count = {s: sum(m.get("stance") == s for m in members) for s, _ in STANCES}
        total = max(1, len(members))
        for stance, colour in STANCES:
            n = count[stance]
            width = round(BAR * n / total)
            out.append(f"{stance.capitalize():<10}")
            out.append("█" * width, colour)
            out.append("░" * (BAR - width), "dim")
            out.append(f" {n}\n")
        mark = round(BAR * need / total)
        out.append(" " * 10 + " " * min(mark, BAR - 1) + "▲", "bold")
        out.append(f" {need} yes votes carry it\n\n")
        for m in members:
            stance = m.get("stance", "")
            colour = dict(STANCES).get(stance, "white")
            who = "You" if m.get("id") == PLAYER else self.who(m.get("id", ""))
            out.append("■ ", colour)
            out.append(f"{who} ", "bold" if m.get("id") == PLAYER else "")
            out.append(f"({m.get('role', 'member')}) ", "dim")
            out.append(stance, colour)
            if "declared" in m:
                p = float(m["declared"])
                width = round(MINI * p)
                out.append(" ")
                out.append("━" * width, colour)
                out.append("─" * (MINI - width), "dim")
                out.append(f"{p:.2f}", "dim")
            out.append("\n")
        return out

    def members_to_watch(self) -> list[tuple[str, str]]:
        """The members whose memory of the debate the panel can show (never the player: a
        player's own memory is the Memory screen's); a placeholder when there are none yet."""
        people = [(self.who(m["id"]), m["id"]) for m in self.scene.get("members", ()) if m.get("id") != PLAYER]
        return people or [("nobody yet", "")]

    def fill_memory(self, members: list[dict[str, Any]]) -> None:
        """The member picker and the chosen member's masked memory of the debate."""
        select = self.query_one("#council-memory-member", Select)
        people = self.members_to_watch()
        if people != self.watched:
            self.watched, keep = people, select.value
            select.set_options(people)
            select.value = keep if keep in {v for _, v in people} else people[0][1]
        self.query_one("#council-memory", Static).update(self.memory(select.value))

    def action_next_memory(self) -> None:
        """Show the next member's memory of the debate (the command line keeps the focus)."""
        select = self.query_one("#council-memory-member", Select)
        values = [v for _, v in self.members_to_watch()]
        at = values.index(select.value) if select.value in values else -1
        select.value = values[(at + 1) % len(values)]

    def memory(self, member: Any) -> Text:
        game = self.app.game
        if game is None or member in (Select.BLANK, "") or not self.scene.get("id"):
            return Text("")
        debate = game.engine.council_debate(self.scene["id"])
        if member not in debate.session.members:
            return Text("")
        ctx = debate.context(member)
        out = Text()
        out.append(f"{ctx.tokens} of {debate.masking.budget} tokens · mask: {debate.masking.mode}\n", "dim")
        for line in (*ctx.anchors, *ctx.summary):
            out.append(f"⚓ {line}\n", "italic")
        for st in ctx.statements:
            who = "The chair" if st.speaker == "coordinator" else self.who(st.speaker)
            out.append(f"#{st.id} ", "dim")
            out.append(f"{who}: ", "bold")
            out.append(f"{st.text}\n")
        if ctx.masked:
            why: dict[str, int] = {}
            for reason in ctx.masked.values():
                why[reason] = why.get(reason, 0) + 1
            out.append(f"let go: {len(ctx.masked)} (" + "; ".join(f"{n} {r}" for r, n in why.items()) + ")", "dim")
        elif not ctx.statements:
            out.append("nothing said yet", "dim")
        return out

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "council-memory-member":
            self.query_one("#council-memory", Static).update(self.memory(event.value))

    def fill_give(self, members: list[dict[str, Any]]) -> None:
        """The items the player carries and the members to give them to."""
        items = [(self.who(i), i) for i in (self.obs.inventory if self.obs is not None else ())]
        people = [(self.who(m["id"]), m["id"]) for m in members if m.get("id") != PLAYER]
        for sid, options in (("#council-item", items), ("#council-member", people)):
            select = self.query_one(sid, Select)
            keep = select.value
            select.set_options(options)
            if keep in {v for _, v in options}:
                select.value = keep

    # --- acting ------------------------------------------------------------------------------
    def action_vote(self, choice: str) -> None:
        self.send(f"vote {choice}")

    def action_give(self) -> None:
        item = self.query_one("#council-item", Select).value
        member = self.query_one("#council-member", Select).value
        if item == Select.BLANK or member == Select.BLANK:
            self.notify("Pick an item you carry and a member to give it to.", timeout=3)
            return
        self.send(f"give {item} to {member}")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "council-yes":
            self.action_vote("yes")
        elif event.button.id == "council-no":
            self.action_vote("no")
        elif event.button.id == "council-give-button":
            self.action_give()

    # --- replies -----------------------------------------------------------------------------
    def on_reply_ready(self, message: ReplyReady) -> None:
        reply = message.reply
        self.pass_on(reply)
        self._read()
        self.echo(reply.said)
        result = self.take_reply(reply)
        if result is not None:
            self.query_one("#council-result", Static).update(result.seen_by(PLAYER))
            passed = (result.data or {}).get("outcome") == "passed"
            self.app.notify(
                result.seen_by(PLAYER),
                title="The council has voted",
                severity="information" if passed else "warning",
                timeout=8,
                markup=False,
            )
        self.refresh_view()
        self.app.follow_scene()
