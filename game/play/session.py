"""A running game: ``Game.submit(text) -> Reply`` for people, ``Game.play_turn()`` for the
player's seat when an agent holds it; save, load and replay.

Every front end (the line console, the TUI, the text adapters, the AEC env, tournaments) plays
through these two calls, so a command is parsed and dispatched in one place. The parts of a game
come from the composition root (``game.play.compose``); this module picks no agent or memory itself.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any, cast

from game.core.errors import InputError, ParleyError, blamed_on
from game.core.protocols import Agent, TextSeat, TypedSeat
from game.core.text import clean, shown
from game.core.types import PLAYER, Action, Decision, Event, TurnResult, Verb
from game.engine.commands import command_text
from game.engine.parser import HELP_TEXT, Clarify, Command, Meta, Parser
from game.engine.quests import quests_text, score_text
from game.play.config import GameConfig
from game.play.meta import META_HELP, MetaCommands, read_meta
from game.play.persistence import load_game, replay, save_game  # noqa: F401  (replay: the public entry point)
from game.play.reply import Journal, JournalEntry, Reply, seen_events
from game.world.loader import World


class Game:
    """Everything a running game needs; see the module docstring."""

    def __init__(
        self,
        world: World | str | Path,
        seed: int = 0,
        transcript_path: str | Path | None = None,
        *,
        config: GameConfig | None = None,
        agents: dict[str, Any] | None = None,
        memory: Any = None,
        insights: Any = None,
        llm: Any = None,
        player_kind: str = "human",
        **options: Any,
    ):
        """``config`` (a ``GameConfig``), or its fields as keyword arguments (``player_kind`` is its
        ``player``; ``llm_npcs``, ``facts``, ``jury``...). Live parts replace what the config would
        build: ``agents`` (NPC agents by id), ``memory`` (a ``memory.runtime.GameMemory`` or a dict
        of its options), ``insights`` (a ``memory.insights.InsightBank``), ``llm`` (an
        ``agents.llm.LLMClient`` or ``LLMConfig``). See ``game.play.compose.compose``."""
        from game.play.compose import compose

        if config is not None and (options or player_kind != "human" or seed != 0):
            raise TypeError("Game() takes a config or its fields (seed, player_kind, ...), not both")
        if config is None:
            where = world.folder if isinstance(world, World) else world
            config = GameConfig(world=str(where), seed=int(seed), player=player_kind, **options)
        parts = compose(world, config, transcript_path, agents=agents, memory=memory, insights=insights, llm=llm)
        self.config = config
        self.world, self.seed, self.player_kind = parts.world, config.seed, config.player
        self.transcript, self.llm, self.agents, self.engine = parts.transcript, parts.llm, parts.agents, parts.engine
        self.memory, self.facts, self.insights = parts.memory, parts.facts, parts.insights
        self.memo_llm = parts.memo_llm
        self.warmup = parts.warmup  # memory calls wait here while the model loads (game.play.warmup)
        self.llm_npcs = (
            (config.llm_npcs if config.llm_npcs == "all" else set(config.llm_npcs)) if self.llm is not None else ()
        )
        self.saved_llm: dict[str, Any] | None = None
        self.loaded_from: Path | None = None
        self.parser = Parser()
        self._seat: Any = None
        self.saves_base: str | Path | None = None  # where saves go (``transcript on`` writes under it)
        self.meta = MetaCommands(self)

    @property
    def spec(self) -> Any:
        return self.world.spec

    def intro(self) -> str:
        return f"{self.spec.title}\n\n{self.spec.intro}\n\n" + self.engine.describe(
            PLAYER, self.engine.state.where[PLAYER]
        )

    def player_inputs(self) -> tuple:
        """The player's observation, plus its memory context when memory is on."""
        return self.engine.turn_inputs(PLAYER)

    # --- the seat -------------------------------------------------------------------
    @property
    def seat(self) -> Any:
        """The agent in the player's seat, made from ``config.player`` (None for ``human``)."""
        if self._seat is None and self.player_kind != "human":
            from agents.seats import make_seat

            trust = self.warmup.settled(self.facts.sigma) if self.facts is not None and self.config.trust else None
            self._seat = make_seat(self.player_kind, self.seed, llm=self.llm, trust=trust)
        return self._seat

    @seat.setter
    def seat(self, agent: Any) -> None:
        self._seat = agent

    # --- playing --------------------------------------------------------------------
    def submit(self, text: str) -> Reply:
        """Play one line typed by a person: a command is a turn; a question, an unknown command or
        a meta command (help, journal, save, load, quit; undo, again, oops, transcript: see
        ``game.play.meta``) is answered without one (``undo`` takes the last turn back). A turn
        that fails through a bug is put back and raised as a ``TurnError`` (see ``failed_turn``)."""
        meta = read_meta(text)
        reply = self.meta.answer(*meta, text) if meta is not None else self.play_line(text)
        self.meta.written(text, reply)
        return reply

    def play_line(self, text: str) -> Reply:
        """``submit`` for a line that is not one of ``game.play.meta``'s commands."""
        parser = copy.copy(self.parser)  # as it was before reading the line, for undo
        parsed = self.parser.parse(text, self.engine.scope())
        if self.engine.done and not isinstance(parsed, Meta):  # help, journal, save... still answer
            return Reply("over", said=text, lines=("The game is over.",), done=True, won=self.engine.state.won)
        if isinstance(parsed, Command):
            self.meta.keep(text, parser)
            reply = self._turn(Decision(parsed.action), text, typed=True)
        elif isinstance(parsed, Clarify):
            reply = Reply(
                "clarify", said=text, lines=(parsed.question,), question=parsed.question, options=tuple(parsed.options)
            )
        elif isinstance(parsed, Meta):
            arg = meta_arg(text, parsed)
            if parsed.name == "help":
                return Reply("meta", said=text, lines=(HELP_TEXT, META_HELP), meta="help")
            if parsed.name in ("score", "quests"):
                said = (score_text if parsed.name == "score" else quests_text)(self.spec, self.engine.state)
                return Reply("meta", said=text, lines=(said,), meta=parsed.name)
            if parsed.name == "journal":
                journal = self.journal()
                return Reply("meta", said=text, lines=(shown(journal.text()),), meta="journal", journal=journal)
            return Reply("meta", said=text, meta=parsed.name, arg=arg)
        else:
            reply = Reply("unknown", said=text, lines=(parsed.message,), message=parsed.message)
        self.meta.heard(text, reply)
        return reply

    def play_turn(self, seat: Any = None) -> Reply:
        """Let the agent in the player's seat (``seat``, else ``self.seat``) play one turn. A seat
        that answers in words (a ``TextSeat``) has its reply parsed here, the same way for every
        seat; a reply with no usable command is asked again (``seat.max_repairs`` times, with the
        reason), then becomes a penalised wait. A seat that types commands (a ``TypedSeat``, such
        as a script) is read like a person (``submit``); when it has no more, the reply is a
        ``quit``. A seat that acts for anyone but the player makes a penalised wait. A seat that
        crashes, or answers with something that is not text or a ``Decision``, is a ``SeatError``."""
        seat = self.seat if seat is None else seat
        if seat is None:
            raise ValueError("the player's seat is human: play with submit(text)")
        if self.engine.done:
            return Reply("over", lines=("The game is over.",), done=True, won=self.engine.state.won)
        if isinstance(seat, TypedSeat):
            line = guarded(seat, seat.next_command)
            return Reply("meta", meta="quit") if line is None else self.submit(str(line))
        inputs = self.seat_inputs(seat, seat.uses_context)
        if isinstance(seat, TextSeat):
            decision, said = self.read_reply(seat, *inputs)
        elif isinstance(seat, Agent):
            decision, said = guarded(seat, seat.act, *inputs), ""
            if not isinstance(decision, Decision):
                raise SeatError(
                    f"player seat {type(seat).__name__}: act() returned {type(decision).__name__}, "
                    "not a game.core.types.Decision",
                    hint="return Decision(action) (or Decision(None))",
                )
        else:
            raise SeatError(
                f"{type(seat).__name__} is neither an Agent (act) nor a TextSeat (respond)",
                hint="see game.core.protocols",
            )
        return self._turn(decision, said)

    def read_reply(self, seat: TextSeat, observation: Any, context: Any = None) -> tuple[Decision, str]:
        """Ask a text seat for its move until a reply holds a command (see ``play_turn``)."""
        problem: str | None = None
        reply = ""
        for _ in range(1 + max(0, seat.max_repairs)):
            reply = guarded(seat, seat.respond, observation, context, problem)
            if reply is None:
                reply = ""
            if not isinstance(reply, str):
                raise SeatError(
                    f"player seat {type(seat).__name__}: its reply is {type(reply).__name__}, not text",
                    hint="a text seat returns the command as a str",
                )
            parsed = self.parser.parse_reply(reply, observation.scope)
            if isinstance(parsed, Command):
                return Decision(parsed.action), reply
            why = getattr(parsed, "message", None) or getattr(parsed, "question", None) or "not a command"
            problem = f"{reply[:200]!r} is not a command you can use now: {why}"
            question = getattr(parsed, "question", None)
            if question and context is not None:  # the parser asked: the retry's memory focuses on its question
                observation, context = cast("tuple[Any, Any]", self.seat_inputs(seat, True, question))
            if self.llm is not None and self.llm.outage is not None:
                return Decision(Action(PLAYER, Verb.WAIT)), reply  # the endpoint is down: no penalty
        return Decision(Action(PLAYER, Verb.WAIT), fallback=shown(f"no usable command ({problem})")), reply

    def act(self, move: Action | Decision) -> TurnResult:
        """Play the player's move (an action, or a seat's ``Decision``) and return the turn's
        result. If the LLM endpoint failed during the turn, the LLM agents finished it with their
        scripted fallbacks (the game stays whole and replayable), then ``LLMUnavailable`` is
        raised, carrying the turn's ``events``. If the turn raises part way (a bug in Parley or
        in code it runs: an agent, a listener), the game is put back as it was before it and a
        ``TurnError`` is raised, naming the turn and the transcript line (see ``failed_turn``)."""
        reply = self._turn(move if isinstance(move, Decision) else Decision(move), "")
        if reply.outage is not None:
            raise reply.outage
        assert reply.result is not None  # a played move always has a result
        return reply.result

    def agent_turn(self, agent: Any) -> tuple[Action | None, TurnResult]:
        """Let ``agent`` play one turn from the player's seat (see ``play_turn``)."""
        reply = self.play_turn(agent)
        if reply.outage is not None:
            raise reply.outage
        assert reply.result is not None  # a played turn always has a result
        return reply.action, reply.result

    def seat_inputs(self, seat: Any, wants_context: bool, question: str | None = None) -> tuple[Any, ...]:
        """What a seat is handed: ``Engine.turn_inputs``, and when the seat declares
        ``wants_commands = True`` the commands open to the player now on its observation
        (``Observation.commands``, ``Engine.legal_commands``); other seats are spared the work."""
        inputs = self.engine.turn_inputs(PLAYER, wants_context, question=question)
        if not getattr(seat, "wants_commands", False):
            return inputs
        observation = dataclasses.replace(inputs[0], commands=self.engine.legal_commands(PLAYER))
        return (observation, *inputs[1:])

    def command_text(self, action: Action | None) -> str:
        """The command line that plays ``action`` now (display names; a lock by its name)."""
        return "" if action is None else command_text(self.engine, action)

    def _turn(self, decision: Decision, said: str, typed: bool = False) -> Reply:
        if decision.action is not None and decision.action.actor != PLAYER:  # a seat plays the player only
            decision = Decision(
                Action(PLAYER, Verb.WAIT),
                fallback=f"a player's move cannot be made for {self.engine.name(decision.action.actor)}",
            )
        st = self.engine.state
        score, done_before, turn = st.score, list(st.quests_done), st.turn
        command = self.command_text(decision.action)
        self.meta.settle()
        before = self.meta.before_turn(typed)
        try:
            result = self.engine.run_round(decision)
        except BaseException as e:
            raise self.failed_turn(before, e) from e
        self.meta.after_turn()
        self.meta.moved()
        events = seen_events(result)
        outage = self.take_outage(result)
        return Reply(
            "turn",
            said=said,
            typed=typed,
            command=command,
            lines=tuple(ev.seen_by(PLAYER) for ev in events),
            action=decision.action,
            fallback=decision.fallback,
            result=result,
            events=events,
            score=st.score,
            score_change=st.score - score,
            quests_done=tuple(q for q in st.quests_done if q not in done_before),
            done=st.done,
            won=st.won,
            turn=st.turn,
            llm=self.llm_usage(turn),
            outage=outage,
        )

    def failed_turn(self, before: Any, error: BaseException) -> BaseException:
        """A turn raised ``error`` part way: the game is put back as it was before it
        (``MetaCommands.roll_back``). Returns what to raise: ``error`` itself for a ParleyError
        (bad input, an outage) or an interruption (Ctrl-C, a signal), else a ``TurnError``."""
        turn, line = self.engine.state.turn, None
        if before is not None:
            turn, line = before.turn, before.mark[0] + 1
        try:
            restored = self.meta.roll_back(before)
        except Exception as e:  # noqa: BLE001 - said in the TurnError, with the first failure
            error.add_note(f"putting the game back failed too: {type(e).__name__}: {e}")
            restored = False
        if isinstance(error, ParleyError | KeyboardInterrupt | SystemExit) and restored:
            return error
        return TurnError(self, error, turn, line, restored)

    def take_outage(self, result: TurnResult | None = None) -> Exception | None:
        """The LLM outage that happened during the last turn, as an error that says so (and clears
        it from the client), carrying the turn's ``events``; None when there was none."""
        outage = getattr(self.llm, "outage", None)
        if outage is None:
            return None
        self.llm.outage = None
        err = type(outage)(
            f"{outage.message} (turn {self.engine.state.turn}; the LLM agents finished "
            "the turn with their scripted fallbacks)",
            hint=outage.hint,
        )
        err.events = list(result.events if result is not None else ())
        return err

    def llm_usage(self, turn: int) -> dict[str, Any]:
        """LLM calls and tokens spent in ``turn`` (empty without an LLM)."""
        if self.llm is None:
            return {}
        u = self.llm.usage_by_turn().get(turn)
        if u is None:
            return {}
        return {
            "calls": u.calls,
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "latency_ms": u.latency_ms,
        }

    # --- what the player knows ------------------------------------------------------
    def journal(self) -> Journal:
        """What the player was told, what is disputed (held by the consistency gate for more
        evidence), what proved true or false, and whom the evidence says to trust."""
        facts = self.facts
        self.warmup.settle()
        if facts is None or not facts.gate.facts:
            return Journal()
        name = self.engine.name
        titles = {
            "verified": "Seen with your own eyes",
            "admitted": "Told, and nothing contradicts it",
            "quarantined": "Disputed: people disagree; find evidence",
            "unconfirmed": "Heard, not yet confirmed: one side only; find evidence",
            "purged": "Proved false",
            "rejected": "Contradicts what you know",
        }
        rows: dict[str, list[JournalEntry]] = {k: [] for k in titles}
        live = ("admitted", "verified", "quarantined")
        standing = [f for f in facts.gate.facts.values() if f.status in live]
        vote = facts.gate.rules.vote

        def opposed(f) -> bool:  # something standing contradicts it, as the gate's rule judge reads them
            return any(g is not f and ((v := vote(f, g)) is not None and v[0] == 0.0) for g in standing)

        for f in facts.gate.facts.values():
            if f.status not in rows or (f.status == "verified" and not f.truth):
                continue
            text = f.text or f"{f.subject} {f.relation.replace('_', ' ')} {f.object}"
            # held with nothing standing against it: one side heard, not people disagreeing
            status = "unconfirmed" if f.status == "quarantined" and not opposed(f) else f.status
            rows[status].append(JournalEntry(text, tuple(name(s) for s in f.sources if s != "observation")))
        refused: dict[str, list[str]] = {}  # claims refused as they were heard (no entry was made for them)
        for d in facts.gate.decisions:
            c = d.candidate
            if d.outcome == "reject" and d.fact is None and c.get("kind") != "observation" and c.get("text"):
                who = refused.setdefault(c["text"], [])
                who += [] if name(c["source"]) in who else [name(c["source"])]
        listed = {e.text for entries in rows.values() for e in entries}
        rows["rejected"] += [JournalEntry(t, tuple(who)) for t, who in refused.items() if t not in listed]
        trust = []
        for npc, row in facts.trust_table().items():
            judged = tuple((t, s) for t, s in row.items() if s)
            if judged:
                trust.append((name(npc), judged))
        return Journal(sections=tuple((titles[k], tuple(v)) for k, v in rows.items() if v), trust=tuple(trust))

    # --- insights ---------------------------------------------------------------------
    def agent_keys(self) -> dict[str, str]:
        """Each agent's configuration key in the insight bank: world / entity / agent kind."""
        from game.play.compose import agent_keys

        return agent_keys(self.spec, self.player_kind)

    def learn(self) -> int:
        """Distil this game's lessons into the insight bank (rule-based, offline; with the memo_llm
        path ``insights``, the LLM adds its own lessons per agent); returns how many."""
        if self.insights is None:
            return 0
        from memory.lessons import distill_with_sources

        events = [json.loads(r) for r in self.transcript.records]
        summarise = self.memo_llm.lessons if self.memo_llm is not None and "insights" in self.config.memo_llm else None
        n = 0
        for agent, key in self.agent_keys().items():
            for topic, text, weight, source in distill_with_sources(
                self.spec, self.engine.state, events, key, agent, summarise
            ):
                self.insights.add(key, text, topic, weight, source)
                n += 1
            self.insights.decay(key=key)
        self.insights.record_game()
        self.insights.save()
        return n

    # --- save / load --------------------------------------------------------------------
    def components(self) -> dict[str, Any]:
        """Each stateful component's ``get_state()``, saved beside the engine state."""
        self.warmup.settle()  # memory as if no turn had waited for the model
        comps: dict[str, Any] = {"agents": {k: a.get_state() for k, a in self.agents.items()}}
        if self.memory is not None:
            comps["memory"] = self.memory.get_state()
        if self.facts is not None:
            comps["facts"] = self.facts.get_state()
        return comps

    def save(self, name: str, base: str | Path | None = None) -> Path:
        """Save to ``saves/<slug of name>/`` as one unit (see ``game.play.persistence.save_game``)."""
        return save_game(self, name, base)

    @classmethod
    def load(
        cls,
        ref: str | Path,
        base: str | Path | None = None,
        world_path: str | Path | None = None,
        llm: Any = None,
        llm_npcs: Any = "all",
        jury: bool = False,
        inside: bool = False,
        memo_llm: Any = (),
    ) -> Game:
        """Load a save by name, folder or save.json path (``inside``: only a save in the saves
        folder, by name, as typed in the game). Finishes an interrupted save's clean-up. ``llm``,
        ``llm_npcs``, ``jury`` and ``memo_llm`` are this session's choices, not the save's."""
        return load_game(cls, ref, base, world_path, llm, llm_npcs, jury, inside, memo_llm)

    def restore(self, engine: dict[str, Any], components: dict[str, Any]) -> None:
        """Put the game in a saved state: the engine's (``Engine.set_state``) and each component's
        (``components``); a council's debate is rebuilt from its log. Loading a save and ``undo``
        both come here."""
        with blamed_on("engine"):
            self.engine.set_state(engine)
        for k, st in components.get("agents", {}).items():
            if k in self.agents:
                with blamed_on(f"components.agents.{k}"):
                    self.agents[k].set_state(st)
        if self.memory is not None and "memory" in components:  # through the queue: never waits for the model
            with blamed_on("components.memory"):
                self.warmup.call(self.memory.set_state, components["memory"])
        if self.facts is not None and "facts" in components:
            with blamed_on("components.facts"):
                self.warmup.call(self.facts.set_state, components["facts"])
        for sid, st in self.engine.state.scenes.items():  # a council's debate replays from its log
            if "debate" in st and getattr(self.spec.scenes[sid], "debate", None) is not None:
                self.engine.council_debate(sid)

    def hand_on(self, loaded: Game) -> None:
        """A game loaded during this session continues it: the insight bank (when the loaded game
        has memory), the saves folder and a transcript being written go on with it."""
        loaded.insights = self.insights if loaded.memory is not None else None
        loaded.saves_base = self.saves_base
        self.meta.hand_on(loaded.meta)

    def rebuild_facts(self) -> None:
        """Feed the transcript's events through world-fact memory (the claims and verifications
        so far), leaving agent memory as it was. What the player saw is not in the transcript,
        so it is not rebuilt (a save from before world-fact memory kept none)."""
        bank, self.facts.bank = self.facts.bank, None
        try:
            for line in self.transcript.records:
                rec = json.loads(line)
                if rec.get("type") == "event" and PLAYER in rec.get("perceivers", ()):
                    self.facts.on_event(Event.from_dict(rec))  # what the player heard (see compose.witnessed_by)
        finally:
            self.facts.bank = bank


def meta_arg(line: str, parsed: Any) -> str | None:
    """The name after ``save`` / ``load`` as typed. The parser drops trailing ``.!?``, so
    ``save ...`` reaches us with no name: keep what was typed, so that it is refused rather
    than silently meaning ``quicksave``."""
    if parsed.arg is not None:
        return parsed.arg
    import re

    m = re.match(r"\s*(?:(?:the|an?)\s+)*\S+\s*(.*)", clean(line, newlines=False), re.I | re.S)
    rest = m.group(1).strip() if m else ""
    return rest or None


class TurnError(ParleyError):
    """A turn failed part way through a bug (an exception that is not bad input), and the game
    was put back as it was before the turn: engine, NPC agents, memory, world facts, the record
    and the undo stack (``restored``; False only when an NPC agent keeps no state). ``turn``: the
    engine's turn counter then; ``line``: the line of the transcript (``transcript.jsonl``) the
    failed turn's first record would have had; ``game``: the game, as it is now; ``error``: the
    exception the turn raised (also chained as ``__cause__``, with its traceback). A file that
    could not be written (an ``OSError``: a full disk) is said as such, not as a bug (``bug``).
    Front ends save the game and write the traceback to a log
    (``game.play.autosave.report_failed_turn``, which sets ``told``: what ``render`` says then)."""

    exit_code = 1

    def __init__(self, game: Game, error: BaseException, turn: int, line: int | None, restored: bool = True):
        self.game, self.error, self.turn, self.line, self.restored = game, error, turn, line, restored
        self.bug = not isinstance(error, OSError)
        self.told: str | None = None
        where = f" (transcript line {line})" if line is not None else ""
        back = (
            "the turn was taken back: the game is as it was before it"
            if restored
            else "the game could not be put back as it was before the turn (an NPC agent keeps no state)"
        )
        if self.bug:
            what = f"a bug in Parley (not your input) stopped turn {turn}{where}: {type(error).__name__}: {error}"
        else:
            what = f"turn {turn}{where} could not be played: {error}"
        super().__init__(
            f"{what}; {back}",
            hint="please report it with the log file" if self.bug else "free disk space or fix the permissions",
        )

    def render(self) -> str:
        return self.told if self.told is not None else super().render()


class SeatError(InputError):
    """The agent in the player's seat failed: it crashed, or answered with the wrong kind of thing."""


def guarded(seat: Any, call: Any, *args: Any) -> Any:
    """``call(*args)`` on a seat, with its failures (an exception, even ``SystemExit``) as a
    ``SeatError`` that names the seat; ``KeyboardInterrupt`` passes."""
    try:
        return call(*args)
    except (ParleyError, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 - user code in the seat: report it, never crash
        raise SeatError(
            f"player seat {getattr(seat, 'name', type(seat).__name__)} failed: {type(e).__name__}: {e}",
            hint="fix the seat's code; the game so far is unchanged",
        ) from None
