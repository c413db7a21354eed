"""Watching: ``parley watch WORLD --player SEAT`` plays an agent's game in the app, and
``parley replay NAME --tui`` steps through a save's transcript, both on ``WatchScreen``.

Keys: space play/pause, s or → one step, + and - speed, Esc pause (dropping an LLM move not yet
played). The story shows each turn with the command played; F3 (the memory inspector) can be
opened while the game plays (not in a replay, which has no live game). The
screen plays turns through ``ParleyApp.run_turn`` (a worker): a watched seat's turn is
``Game.play_turn``, a replay's is the next round of its transcript (``ReplayRun``).

Esc while the LLM player is thinking discards its answer before its move is played (safe: the
LLM player keeps no state between asks, and the memory context it was given is rebuilt the same
in the same turn); once the move is being played, or for any other seat, Esc stops after the
current turn.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.padding import Padding
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, RichLog, Static

from game.core.errors import ParleyError, SaveError
from game.core.text import shown
from game.core.types import PLAYER, Action, Event
from game.play.reply import Reply
from game.tui.app import GameReady, ParleyApp, ReplyReady, TurnFailed
from game.tui.widgets.controls import DEFAULT_SPEED, WatchControls, delay, faster, slower

if TYPE_CHECKING:
    from game.play.session import Game


class TurnCancelled(ParleyError):
    """Esc while the model was thinking: its answer was discarded and nothing was played."""


class StoppableSeat:
    """The LLM player's seat (a ``TextSeat``), wrapped so that Esc can discard its answer
    before the move is played: ``stop`` set while it thinks makes its reply a ``TurnCancelled``
    (``Game.play_turn`` lets a ParleyError through before the turn is played)."""

    def __init__(self, seat: Any) -> None:
        self.seat, self.name = seat, getattr(seat, "name", type(seat).__name__)
        self.uses_context, self.max_repairs = seat.uses_context, seat.max_repairs
        self.stop = threading.Event()

    def respond(self, observation: Any, context: Any = None, problem: str | None = None) -> str:
        answer = self.seat.respond(observation, context, problem)
        if self.stop.is_set():
            raise TurnCancelled("the model's answer was discarded; nothing was played")
        return answer


def watched_seat(game: Game) -> Any:
    """The seat to watch (the game's, made from ``config.player``); the LLM player can be stopped."""
    seat = game.seat
    if seat is None:
        raise ParleyError("nobody to watch: the player's seat is human", hint="--player autopilot, llm or script:FILE")
    from agents.llm.player import LLMPlayer

    return StoppableSeat(seat) if isinstance(seat, LLMPlayer) else seat


def summary(state: Any, spec: Any, moves: int) -> str:
    """The end line: the moves shown (as the story numbers them) and the game's turn counter
    (which the final move of a game does not advance)."""
    head = "Won" if state.won else "The game is over"
    return (
        f"{head} in {moves} move{'s' if moves != 1 else ''} (turn {state.turn}): score {state.score}, "
        f"quests {len(state.quests_done)}/{len(spec.quests)}."
    )


class ReplayRun:
    """A save's transcript re-applied on a fresh engine, one round per ``step()``, the way
    ``game.play.persistence.replay`` does it (its checks and world lookup are reused): no agent or LLM
    is asked. When the records run out (or the story diverges), ``verdict`` is
    (match, replayed hash, saved hash)."""

    def __init__(self, ref: str | Path, base: str | Path | None = None) -> None:
        from game.engine.loop import Engine
        from game.play.persistence import checked_save
        from game.play.save_files import TRANSCRIPT_FILE, resolve
        from game.play.transcript import Transcript
        from game.play.wiring import engine_defaults

        folder = resolve(ref, base)
        data, text, world = checked_save(folder)
        self.name, self.data, self.spec, self.tpath = folder.name, data, world.spec, folder / TRANSCRIPT_FILE
        self.engine = Engine(world, seed=data["seed"], transcript=Transcript(), **engine_defaults())
        self.records: list[tuple[int, dict[str, Any]]] = []
        lines = text.split("\n")  # records end with "\n" only (\x85 or \u2028 inside text is no line break)
        for n, line in enumerate(lines[:-1] if lines[-1] == "" else lines, 1):
            try:
                rec = json.loads(line)
                rec["type"]
            except Exception as e:
                raise SaveError(f"{self.tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
            self.records.append((n, rec))
        self.engine.replay_decisions = deque(r for _, r in self.records if r["type"] == "decision")
        if "facts" in data.get("components", {}):  # the gate's recorded verdicts are asked for again
            from game.play.persistence import replay_world_facts

            replay_world_facts(self.engine)
        self.pos = 0
        self.verdict: tuple[bool, str, str] | None = None

    def step(self) -> Reply:
        """Apply the records of the next round; the Reply a watched turn would give."""
        from game.engine.loop import ReplayDivergence

        eng, command, start = self.engine, "", len(self.engine.transcript.records)
        while self.pos < len(self.records) and self.verdict is None:
            n, rec = self.records[self.pos]
            self.pos += 1
            try:
                if rec["type"] == "action":
                    action = Action.from_dict(rec)
                    command = command or (self.command_text(action) if action.actor == PLAYER else "")
                    eng.apply(action)
                elif rec["type"] == "penalty":
                    eng.penalise(rec["who"], rec["reason"])
                elif rec["type"] == "round":
                    eng.end_round()
                    break
            except ReplayDivergence as e:  # the recorded story no longer fits: the states differ
                self.verdict = (False, f"(diverged at {self.tpath.name}:{n}: {e})", self.saved_hash())
            except Exception as e:  # a damaged record is reported with its line
                raise SaveError(f"{self.tpath}:{n}: bad record ({type(e).__name__}: {e})") from None
        if self.pos >= len(self.records) and self.verdict is None:
            self.verdict = self.finish()
        events = [
            Event.from_dict(r)
            for r in map(json.loads, eng.transcript.records[start:])
            if r.get("type") == "event" and PLAYER in r.get("perceivers", ())
        ]
        st = eng.state
        return Reply(
            "turn",
            command=command,
            lines=tuple(ev.seen_by(PLAYER) for ev in events),
            events=tuple(events),
            score=st.score,
            done=st.done,
            won=st.won,
            turn=st.turn,
        )

    def command_text(self, action: Action) -> str:
        from game.engine.commands import command_text  # the same phrasing a played turn shows

        return command_text(self.engine, action)

    def saved_hash(self) -> str:
        from game.engine.state import state_hash

        return state_hash(self.data["engine"])

    def finish(self) -> tuple[bool, str, str]:
        from game.engine.state import state_hash

        left = self.engine.replay_decisions
        if left:
            return (
                False,
                f"(diverged: recorded {left[0].get('kind')} by {left[0].get('who')!r} was never asked for)",
                self.saved_hash(),
            )
        got = state_hash(self.engine.get_state())
        return got == self.saved_hash(), got, self.saved_hash()


class WatchScreen(Screen):
    """The story of a watched game (or a replay), its status, and the watch controls."""

    BINDINGS = [
        Binding("space", "pause", "Play/pause"),
        Binding("s,right", "step", "Step"),
        Binding("plus,equals_sign", "faster", "Faster"),
        Binding("minus", "slower", "Slower"),
        Binding("escape", "stop", "Pause"),
    ]

    start_speed = DEFAULT_SPEED  # turns per second when the app has no ``speed`` (``parley watch --speed``)

    def __init__(self) -> None:
        super().__init__()
        # turns: the moves shown so far (the story labels them Move 1, 2, …)
        self.paused, self.ended, self.turns, self.state = False, False, 0, "loading the world…"
        self.seat: Any = None
        self.speed = DEFAULT_SPEED
        self._timer: Any = None

    @property
    def replay(self) -> ReplayRun | None:
        return getattr(self.app, "replay", None)

    def compose(self) -> ComposeResult:
        yield Header()
        yield RichLog(id="watch-story", wrap=True, markup=False, min_width=20)
        with Vertical(id="watch-side"):
            yield Static("", id="watch-status")
            yield WatchControls(id="watch-controls")
        yield Footer()

    def on_mount(self) -> None:
        self.speed = getattr(self.app, "speed", None) or self.start_speed
        self.show_controls()
        if self.replay is not None:
            self.start()

    def on_game_ready(self, _: GameReady) -> None:
        self.start()

    def start(self) -> None:
        log = self.query_one(RichLog)
        if self.replay is not None:
            run = self.replay
            log.write(
                Text(
                    f"Replaying save {shown(run.name)}: {run.spec.title}, seed {run.data['seed']}, "
                    f"{run.data['turn']} turns recorded.",
                    style="bold",
                )
            )
        else:
            game = self.app.game
            log.write(game.intro())
            try:
                self.seat = watched_seat(game)
            except ParleyError as e:
                self.end(f"Cannot watch: {e.render()}", style="bold red")
                return
            for note in getattr(self.seat, "notes", ()):
                log.write(Text(note, style="yellow"))
            log.write(Text(f"Watching {shown(game.player_kind)} play.", style="bold"))
        self.state = ""
        self.refresh_status()
        self.schedule()

    # --- the loop --------------------------------------------------------------------------
    def step_function(self) -> Callable[[], Reply]:
        if self.replay is not None:
            return self.replay.step
        game, seat = self.app.game, self.seat
        return lambda: game.play_turn(seat)

    def play_one(self) -> bool:
        """Start one turn (False while one is played, or when the game has ended)."""
        if self.ended or (self.replay is None and self.seat is None):
            return False
        if isinstance(self.seat, StoppableSeat):
            self.seat.stop.clear()
        started = self.app.run_turn(self.step_function(), origin=self)
        if started:
            self.state = "playing a turn…"
            self.show_controls()
        return started

    def schedule(self) -> None:
        """Play the next turn after the speed's delay, unless paused or ended."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.paused or self.ended:
            return
        wait = max(delay(self.speed), 0.001)  # a timer needs a delay above 0
        if self.app.screen is not self:  # a screen on top (the memory inspector) reads the game between turns
            wait = max(wait, 0.2)
        self._timer = self.set_timer(wait, self._tick)

    def _tick(self) -> None:
        self._timer = None
        if not self.paused and not self.ended:
            self.play_one()  # when a turn is still being played, its reply schedules the next

    def on_reply_ready(self, message: ReplyReady) -> None:
        reply = message.reply
        self.state = ""
        self.show_reply(reply)
        self.refresh_status()
        if self.replay is not None and self.replay.verdict is not None:
            self.end_replay()
        elif reply.kind == "over" or reply.done:
            self.end(summary(self.app.game.engine.state, self.app.game.spec, self.turns))
        elif reply.kind == "meta" and reply.meta == "quit":
            line = getattr(self.seat, "position", (0, ""))[0]
            self.end(f"The script stops here (line {line})." if reply.said else "The script has no more commands.")
        elif reply.outage is not None:  # the app said so and autosaved; the watcher decides when to go on
            self.paused, self.state = True, "paused: the LLM endpoint failed (space goes on)"
        else:
            self.schedule()
        self.show_controls()

    def on_turn_failed(self, message: TurnFailed) -> None:
        self.paused = True
        if isinstance(message.error, TurnCancelled):
            self.state = "stopped"
            self.query_one(RichLog).write(
                Text("Stopped: the model's answer was discarded; nothing was played.", style="yellow")
            )
        else:
            self.state = "stopped by an error"
            text = message.error.render() if isinstance(message.error, ParleyError) else str(message.error)
            self.query_one(RichLog).write(Text(text, style="bold red"))
            self.notify(text, title="The turn failed", severity="error", markup=False)
        self.show_controls()

    def end(self, text: str, style: str = "bold") -> None:
        self.ended = self.paused = True
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.state = "the end"
        self.query_one(RichLog).write(Text(text, style=style))
        self.notify(text, title="The end", markup=False)
        self.show_controls()

    def end_replay(self) -> None:
        ok, got, want = self.replay.verdict
        if ok:
            self.end(f"Replay complete: the replayed state matches the save ({got}).", style="bold green")
        else:
            self.end(f"Replay MISMATCH: replayed state {got}, the save says {want}.", style="bold red")

    # --- drawing ---------------------------------------------------------------------------
    def show_reply(self, reply: Reply) -> None:
        log = self.query_one(RichLog)
        if reply.kind == "meta" and reply.meta in ("quit", "save", "load"):
            if reply.meta != "quit":
                log.write(Text(f"(the line {shown(reply.said)!r} is skipped while watching)", style="yellow"))
            return
        if reply.kind == "turn":
            self.turns += 1
            head = Text(f"Move {self.turns:>3}  ", style="dim")
            head.append(f"▸ {reply.command or 'wait'}", style="bold")
            if reply.said and not reply.typed and reply.said.strip() != reply.command:
                head.append(f"   (said: {shown(reply.said[:120])})", style="italic dim")
            log.write(head)
        else:  # a line the seat typed that played no turn: a question back, an unknown command, help
            log.write(Text(f"▸ {shown(reply.said)}", style="bold yellow"))
        if reply.fallback:
            log.write(Padding(Text(f"(no usable move: {reply.fallback})", style="yellow"), (0, 0, 0, 2)))
        for line in reply.lines:
            log.write(Padding(Text(line), (0, 0, 0, 2)))
        if reply.score_change:
            log.write(
                Padding(Text(f"{reply.score_change:+} points (score {reply.score})", style="green"), (0, 0, 0, 2))
            )

    def engine(self) -> Any:
        return self.replay.engine if self.replay is not None else getattr(self.app.game, "engine", None)

    def observation(self) -> Any:
        engine = self.engine()
        return None if engine is None else engine.observe(PLAYER)

    def refresh_status(self) -> None:
        obs = self.observation()
        if obs is None:
            return
        text = Text()
        text.append(f"{obs.name(obs.location)}\n", style="bold")
        for label, names in (
            ("exits", obs.exits),
            ("here", [obs.name(v) for v in obs.visible]),
            ("carrying", [obs.name(i) for i in obs.inventory]),
        ):
            text.append(f"{label:>9} ", style="dim")
            text.append((", ".join(names) or "—") + "\n")
        text.append(f"\nmove {self.turns} · turn {obs.turn}/{obs.max_turns}\nscore {obs.score} · gold {obs.gold}\n\n")
        for q in obs.quests:
            text.append(("✓ " if q.done else "• ") + q.title + "\n", style="green" if q.done else "")
        self.query_one("#watch-status", Static).update(text)

    def show_controls(self) -> None:
        state = self.state or ("stopping…" if self.app.busy and self.paused else "")
        watched = f"{self.turns} turn{'s' if self.turns != 1 else ''} shown"
        self.query_one(WatchControls).show(self.paused, self.speed, f"{watched}. {state}".strip())

    # --- keys ------------------------------------------------------------------------------
    def action_pause(self) -> None:
        if self.ended:
            return
        self.paused = not self.paused
        self.state = ""
        if not self.paused and not self.app.busy:
            self.schedule()
        elif self.paused:
            self.schedule()  # stops the pending timer
        self.show_controls()

    def action_step(self) -> None:
        """Pause, and play exactly one turn."""
        if self.ended:
            self.notify("The game has ended.")
            return
        self.paused = True
        self.schedule()
        if self.app.busy:
            self.state = "a turn is being played; paused after it"
        elif not self.play_one():
            self.state = "nothing to play yet"
        self.show_controls()

    def action_faster(self) -> None:
        self.speed = faster(self.speed)
        self._speed_changed()

    def action_slower(self) -> None:
        self.speed = slower(self.speed)
        self._speed_changed()

    def _speed_changed(self) -> None:
        if self._timer is not None:
            self.schedule()
        self.show_controls()

    def action_stop(self) -> None:
        """Esc: pause; the LLM player's pending answer is discarded if its move is not played yet."""
        if self.ended:
            return
        self.paused = True
        self.schedule()
        if not self.app.busy:
            self.state = "stopped"
        elif isinstance(self.seat, StoppableSeat):
            self.seat.stop.set()
            self.state = "stopping: the model's answer will be discarded unless its move is already played"
        else:
            self.state = "stopping after this turn"
        self.show_controls()


class ReplayApp(ParleyApp):
    """``parley replay NAME --tui``: steps through a save's transcript (``ReplayRun``) on the
    watch screen, and says at the end whether the replayed state matches the save."""

    CSS_PATH = Path(__file__).resolve().parents[1] / "parley.tcss"  # the app's stylesheet, not one beside this file

    def __init__(self, run: ReplayRun, speed: float = DEFAULT_SPEED) -> None:
        super().__init__(lambda: None, spectate="replay")
        self.replay, self.speed = run, speed

    def on_mount(self, event: Any) -> None:
        event.prevent_default()  # no game to build: the replay is ready
        self.sub_title = self.world_title()
        self.set_interval(0.1, self._spin)
        self.push_screen(WatchScreen())

    def world_title(self) -> str:
        return f"{self.replay.spec.title}: replay of {self.replay.name}"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """F2-F4 (journal, memory, saves) are not offered: a replay has no live game to open them on."""
        if action == "open_screen" and parameters and parameters[0] != "help":
            return False
        return super().check_action(action, parameters)

    def action_open_screen(self, name: str) -> None:
        if name == "help":
            super().action_open_screen(name)
        else:
            self.notify("A replay re-applies a transcript: there is no live game to open that on.")


def run_watch(
    make_game: Callable[[], Any],
    seat: str,
    speed: float = DEFAULT_SPEED,
    saves_base: str | Path | None = None,
    notes: Any = None,
) -> int:
    """``parley watch``: the app plays ``seat``'s game at ``speed``; on leaving, the score, and the
    autosave of an unfinished game, as after play (``game.tui.run_tui``). ``notes``: start-up
    notes, shown in the app's notification area."""
    from game.tui import run_tui

    WatchScreen.start_speed = speed
    return run_tui(make_game, saves_base=saves_base, spectate=seat, notes=notes)


def run_replay(ref: str | Path, saves_base: str | Path | None = None, speed: float = DEFAULT_SPEED) -> int:
    """``parley replay NAME --tui``: 0 when the replay reached the end and matched (or was left
    before the end), 1 on a mismatch, as ``parley replay``."""
    run = ReplayRun(ref, saves_base)
    ReplayApp(run, speed).run()
    if run.verdict is None:
        print(f"replay left at turn {run.engine.state.turn} of {run.data['turn']}")
        return 0
    ok, got, want = run.verdict
    print(
        f"replay ok: state {got} matches the save" if ok else f"replay MISMATCH: replayed state {got}, save says {want}"
    )
    return 0 if ok else 1
