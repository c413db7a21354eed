"""The meta commands players of interactive fiction expect, answered by ``Game.submit`` for every
front end: ``undo``, ``again`` (``g``), ``oops WORD`` and ``transcript on [FILE]`` / ``off``.

None of them is a move. ``undo`` takes the last move back: before each move the game keeps a
snapshot of everything a save holds (engine state with its RNG, NPC agents, agent memory, the
consistency gate and Σ-Mem), where the game's record stood and the parser's state; undoing
restores the last one the way a load restores a save, and cuts the record back. The undone move
leaves no trace in the record, so a save made afterwards, and its replay, are those of a game that
never played it. ``UNDO_DEPTH`` moves can be taken back in a row. Moves at a trading table, and
the move that ends a trade, are refused: what was offered was heard.

Capturing the state costs milliseconds that grow with the game (the memory bank's records), so
once a person has typed a move the state after each move is captured in a thread of its own while
the player reads and types; the next typed move finds it ready.

The same snapshot makes every turn whole (``before_turn``, ``roll_back``): a turn that raises
anywhere (the engine, an NPC, a scene, memory, a listener, the transcript, the LLM seam) is put
back the way ``undo`` puts a move back, so the game, its record and this undo stack are as they
were before it. A typed move uses the snapshot ``undo`` keeps; a move an agent makes is
captured just before it (``capture``: the states, pickled, a copy no later change can reach).
While the embedding model still loads, memory and world facts are not read: their calls wait in
the game's queue (``game.play.warmup``), and a failed turn drops the calls it queued.
"""

from __future__ import annotations

import copy
import pickle
import re
import threading
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.core.errors import InputError
from game.core.text import clean, shown
from game.core.types import PLAYER
from game.play.reply import Reply
from game.play.transcript import ReadableTranscript

if TYPE_CHECKING:
    from game.play.session import Game

UNDO_DEPTH = 20  # moves that can be taken back in a row

META_HELP = """\
Game      undo  (take back your last move; up to 20 in a row)
          again, g  (repeat your last command)
          oops WORD  (fix the unknown word of your last command and try it again)
          transcript on [FILE];  transcript off  (keep a text file of the game)
None of these takes a turn."""

WORDS = {
    "undo": "undo",
    "again": "again",
    "g": "again",
    "oops": "oops",
    "transcript": "transcript",
    "script": "transcript",
}

# where the parser's refusals name the word it did not know (``game.engine.parser``)
UNKNOWN_WORD = (
    re.compile(r"I don't know the verb '([^']+)'"),
    re.compile(r"You see no (.+?) here"),
    re.compile(r"^'([^']+)' is not a way you can go"),
)


def read_meta(text: str) -> tuple[str, str] | None:
    """``(command, the rest)`` when ``text`` is a meta command of this module, else None."""
    words = clean(text, newlines=False).strip().rstrip(".!").split(maxsplit=1)
    if not words or words[0].lower() not in WORDS:
        return None
    name, rest = WORDS[words[0].lower()], words[1].strip() if len(words) > 1 else ""
    if name in ("undo", "again") and rest:
        return None  # "undo the knot" is no meta command: the parser answers it
    return name, rest


@dataclass(frozen=True)
class Captured:
    """States pickled (``MetaCommands.capture``), with read-only arrays kept out of band: shared
    with the live game, not copied (Σ-Mem's P × P matrix; the memory copies an array before it
    changes it, so what is shared never changes)."""

    data: bytes
    shared: tuple[Any, ...] = ()  # the out-of-band buffers (``pickle.PickleBuffer``)

    @classmethod
    def of(cls, state: Any) -> Captured:
        shared: list[Any] = []

        def share(buf: pickle.PickleBuffer) -> bool:  # False: out of band; True: copied in
            if memoryview(buf).readonly:
                shared.append(buf)
                return False
            return True

        return cls(pickle.dumps(state, protocol=5, buffer_callback=share), tuple(shared))

    def load(self) -> Any:
        return pickle.loads(self.data, buffers=self.shared)


@dataclass(frozen=True)
class Snapshot:
    """The game as it stood before a move (see the module docstring)."""

    state: Captured  # engine state, components, reward totals
    mark: tuple[int, int | None]  # ``Transcript.mark``
    parser: Any  # a copy of the parser (its pending question, what "it" is)
    said: str  # the line that played the move
    turn: int
    trade: str | None  # the player's open negotiation then
    queue: Any = None  # memory still warmed: ``MemoryQueue.mark`` (the state holds no memory then)


class Capture(threading.Thread):
    """``make()`` in a thread of its own; ``result()`` waits for it (None if it failed: the game
    changed while it read, and the caller captures again)."""

    def __init__(self, make: Any, seen: Any = None):
        super().__init__(daemon=True, name="undo-snapshot")
        self.make, self.state, self.seen = make, None, seen  # ``seen``: MetaCommands.stir() then
        self.start()

    def run(self) -> None:
        try:
            self.state = self.make()
        except Exception:  # noqa: BLE001 - read while the game changed: taken again when needed
            self.state = None

    def result(self) -> Captured | None:
        self.join()
        return self.state


class MetaCommands:
    """The meta commands' memory for one game: the snapshots to undo, the last command, the
    last line that failed on an unknown word, the readable transcript being written."""

    def __init__(self, game: Game):
        self.game = game
        self.snapshots: deque[Snapshot] = deque(maxlen=UNDO_DEPTH)
        self.last: str | None = None  # the last command played, for ``again``
        self.failed: tuple[str, str] | None = None  # (line, the word it did not know), for ``oops``
        self.script: ReadableTranscript | None = None
        self.asked = False  # the last reply was a question (the next line may answer it)
        self.typing = False  # a person has typed a move: keep snapshots ready (``moved``)
        self.ahead: Capture | Captured | None = None  # the state now, captured after the last move
        self.cold = False  # a move was made while memory warmed up (none kept: see ``keep``)
        self.kept: Snapshot | None = None  # the snapshot ``keep`` took for the move about to be played
        self.dropped: Snapshot | None = None  # the oldest snapshot ``kept`` pushed off a full stack

    # --- around every line ----------------------------------------------------------------
    def keep(self, said: str, parser: Any) -> None:
        """Before a typed move: keep the game as it stands (``parser``: the parser before it read
        ``said``). The state was captured while the player read and typed (``moved``)."""
        game, st = self.game, self.game.engine.state
        if self.stateless():
            return  # an agent that keeps no state cannot be put back: no undo in this game
        if self.warming():  # its memory is not there to keep yet, and no move waits for it
            self.snapshots.clear()  # an older snapshot would undo this move and the one before
            self.ahead, self.cold = None, True
            return
        ahead, self.ahead = self.ahead, None
        state = ahead if isinstance(ahead, Captured) else ahead.result() if ahead is not None else None
        if isinstance(ahead, Capture) and ahead.seen != self.stir():
            state = None  # memory was read (and indexed) since: capture what stands now
        mark = game.transcript.mark()
        self.kept = Snapshot(state or self.capture(), mark, parser, said, st.turn, st.active_scene)
        full = len(self.snapshots) == self.snapshots.maxlen
        self.dropped = self.snapshots[0] if full else None  # a failed move gives it back (``roll_back``)
        self.snapshots.append(self.kept)
        self.typing = True

    def warming(self) -> bool:
        """The embedding model still loads in the background (``game.play.warmup``): memory calls
        wait in its queue, and keeping the game would mean waiting for the model."""
        warmup = getattr(self.game, "warmup", None)
        return bool(warmup is not None and warmup.warming)

    def stateless(self) -> str | None:
        """The first agent that cannot give its state (no ``get_state``), if any."""
        return next((k for k, a in self.game.agents.items() if not callable(getattr(a, "get_state", None))), None)

    def capture(self, memory: bool = True) -> Captured:
        """Everything a save holds, and the reward totals, pickled (a copy that stays in this
        process; pickling the states costs a fifth of writing them as JSON). ``memory=False``:
        the NPC agents' states only, agent memory and world facts left out (read them and the
        game would wait for the model: see ``before_turn``)."""
        from memory.sigma_state import native_arrays

        game = self.game
        with native_arrays():  # Σ-Mem's P × P matrix shared read-only, not turned into P² floats
            comps = game.components() if memory else {"agents": {k: a.get_state() for k, a in game.agents.items()}}
        state = {"engine": game.engine.get_state(), "components": comps, "totals": dict(game.engine.totals)}
        return Captured.of(state)

    # --- a turn is whole or not played at all ------------------------------------------------
    def before_turn(self, typed: bool) -> Snapshot | None:
        """The game as it stands before a turn (see the module docstring): a typed move's undo
        snapshot (``keep``), else one taken now. None when an NPC agent keeps no state (such a
        game cannot be put back, nor saved)."""
        kept, self.kept = self.kept, None
        if typed and kept is not None:
            return kept
        if self.stateless():
            return None
        game, st = self.game, self.game.engine.state
        queue = None
        if self.warming():  # memory and facts are not touched until the model is in: keep the queue's place
            memory, facts = game.memory, game.facts
            queue = game.warmup.mark(
                lambda: {
                    **({"memory": memory.get_state()} if memory is not None else {}),
                    **({"facts": facts.get_state()} if facts is not None else {}),
                }
            )
        state = self.capture(memory=queue is None)
        return Snapshot(state, game.transcript.mark(), copy.copy(game.parser), "", st.turn, st.active_scene, queue)

    def after_turn(self) -> None:
        """The turn was played to its end: its snapshot is no longer needed to put it back."""
        warmup = getattr(self.game, "warmup", None)
        if warmup is not None:
            warmup.unmark()

    def roll_back(self, snap: Snapshot | None) -> bool:
        """A turn failed: put the game back as ``snap`` holds it (``before_turn``), and take its
        move off the undo stack. False when there was nothing to put it back to."""
        if snap is None:
            return False
        if self.snapshots and self.snapshots[-1] is snap:
            self.snapshots.pop()
            if self.dropped is not None:  # the stack is as it was before the move, its oldest step too
                self.snapshots.appendleft(self.dropped)
        self.dropped = None
        self.put_back(snap)
        return True

    def put_back(self, snap: Snapshot) -> None:
        """Put the game back as ``snap`` holds it, the way a load restores a save, and cut the
        record back to where it stood (``undo`` and a failed turn)."""
        game = self.game
        self.settle()
        data = snap.state.load()
        if snap.queue is not None:  # memory and world facts: as they were, and the turn's calls dropped
            data["components"].update(game.warmup.cut(snap.queue) or {})
        game.restore(data["engine"], data["components"])
        game.engine.totals = dict(data["totals"])
        game.transcript.cut(snap.mark)
        game.parser = copy.copy(snap.parser)
        self.ahead = snap.state if snap.queue is None else None  # the state now

    def settle(self) -> None:
        """Before the game changes: let a capture still reading it finish."""
        if isinstance(self.ahead, Capture):
            self.ahead.join()

    def moved(self) -> None:
        """After any move: once a person has typed a move, capture the new state in a thread of its
        own, so the next move's snapshot is ready when it is typed (an agent's game never pays)."""
        self.ahead = Capture(self.capture, self.stir()) if self.typing and not self.warming() else None

    def stir(self) -> tuple[int, int]:
        """What reading agent memory between moves can change (a screen that reads it indexes the
        writes still pending): a capture taken before such a read is not the state any more."""
        bank = getattr(self.game.memory, "bank", None)
        return len(getattr(bank, "_pending", ())), len(getattr(bank, "_corrections", ()))

    def heard(self, text: str, reply: Reply) -> None:
        """After a line was played (not a meta command): what ``again`` and ``oops`` work from."""
        if reply.kind == "meta":
            return
        self.last = reply.command if reply.kind == "turn" and self.asked and reply.command else text
        self.asked = reply.kind == "clarify"
        self.failed = None
        if reply.kind == "unknown" and reply.message:
            word = unknown_word(text, reply.message, known_words(self.game.engine.scope()))
            self.failed = (text, word) if word else None

    def written(self, text: str, reply: Reply) -> None:
        """The readable transcript's entry for a line and its answer."""
        if self.script is not None:
            self.script.command(text, reply.lines)

    # --- the commands ------------------------------------------------------------------------
    def answer(self, name: str, rest: str, said: str) -> Reply:
        if name == "undo":
            return self.undo(said)
        if name == "transcript":
            return self.transcript(rest, said)
        if name == "again":
            if self.last is None:
                return note(said, "again", "There is no command to repeat yet.")
            return replace(self.game.play_line(self.last), said=said)
        if self.failed is None:  # oops
            return note(
                said, "oops", "There is nothing to correct: 'oops' fixes the unknown word of your last command."
            )
        if not rest:
            return note(said, "oops", "Oops what? Type 'oops' and the right word.")
        line, word = self.failed
        fixed = re.sub(rf"(?i)(?<!\w){re.escape(word)}(?!\w)", lambda _: rest, line, count=1)
        return replace(self.game.play_line(fixed), said=said)

    def undo(self, said: str) -> Reply:
        game = self.game
        if not self.snapshots and (who := self.stateless()):
            return note(said, "undo", f"Undo is not available in this game: the agent for {who} keeps no state.")
        if not self.snapshots and self.cold:
            return note(said, "undo", "Moves made while memory was still warming up cannot be taken back.")
        if not self.snapshots:
            return note(
                said, "undo", "There is nothing to undo." if game.engine.state.turn else "You haven't moved yet."
            )
        snap = self.snapshots[-1]
        now = game.engine.state.active_scene
        if now is not None or snap.trade is not None:
            return note(
                said,
                "undo",
                "A move at the trading table can't be taken back: what was offered was heard. "
                "(Undo works again once the trade is over.)"
                if now is not None
                else "That move ended a trade, and a trade's end can't be taken back.",
            )
        self.snapshots.pop()
        self.put_back(snap)
        self.failed, self.asked = None, False  # ``again`` may play the undone command once more
        more = len(self.snapshots)
        left = f"{more} more move{'s' if more != 1 else ''} can be undone" if more else "nothing more to undo"
        return note(
            said,
            "undo",
            f"[Undone: {shown(snap.said)!r}; back to turn {snap.turn}, {left}.]",
            game.engine.describe(PLAYER, game.engine.state.where[PLAYER]),
        )

    def transcript(self, rest: str, said: str) -> Reply:
        game = self.game
        words = rest.split(maxsplit=1)
        switch = words[0].lower() if words else ""
        if switch == "off":
            if self.script is None:
                return note(said, "transcript", "No transcript is being written.")
            path = self.script.path
            reply = note(said, "transcript", f"Transcript ended: {path}")
            self.written(said, reply)
            self.end()
            return reply
        if switch != "on":
            where = f"A transcript is being written to {self.script.path}." if self.script else "No transcript is on."
            return note(said, "transcript", f"{where} Type 'transcript on [FILE]' or 'transcript off'.")
        if self.script is not None:
            return note(said, "transcript", f"A transcript is already being written to {self.script.path}.")
        try:
            path = transcript_path(game, words[1] if len(words) > 1 else "")
        except InputError as e:
            return note(said, "transcript", f"Could not start a transcript: {e.render()}")
        spec = game.spec
        heading = (
            f"=== {spec.title} (world {spec.id}, seed {game.seed}), transcript from turn {game.engine.state.turn} ===\n"
            + game.engine.describe(PLAYER, game.engine.state.where[PLAYER])
        )
        try:
            self.script = ReadableTranscript(path, heading)
        except OSError as e:
            return note(said, "transcript", f"Could not write a transcript to {path}: {e.strerror or e}")
        return note(said, "transcript", f"Writing a transcript to {self.script.path} ('transcript off' stops it).")

    def hand_on(self, other: MetaCommands) -> None:
        """A loaded game continues this session: its transcript goes on in the same file."""
        other.script, self.script = self.script, None

    def end(self) -> None:
        """The session is over: close the transcript."""
        if self.script is not None:
            self.script.close()
            self.script = None


def note(said: str, name: str, *lines: str) -> Reply:
    return Reply("meta", said=said, lines=lines, meta=name)


def transcript_path(game: Game, name: str) -> Path:
    """Where ``transcript on [name]`` writes: ``<saves>/transcripts/<name>.txt`` (no name: the
    world's id). A path is refused (an InputError): as with ``save`` and ``load`` typed in the
    game, what is typed never reaches a file outside the saves folder."""
    from game.play.save_files import saves_dir, slugify

    if "/" in name or "\\" in name or name.startswith("~"):
        raise InputError(
            f"{shown(repr(name))} is a path; a transcript goes in {saves_dir(game.saves_base) / 'transcripts'}",
            hint="give it a name: transcript on harbor-notes",
        )
    stem = slugify((name[:-4] if name.lower().endswith(".txt") else name) or game.spec.id)
    return saves_dir(game.saves_base) / "transcripts" / f"{stem}.txt"


def unknown_word(line: str, message: str, known: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The word of ``line`` the parser did not know, as its refusal ``message`` names it: of the
    phrase it names, the first word that is not in ``known`` (the words of what is in sight),
    else its last word."""
    for pattern in UNKNOWN_WORD:
        m = pattern.search(message)
        if m is None:
            continue
        typed = [w for w in m.group(1).split() if re.search(rf"(?i)(?<!\w){re.escape(w)}(?!\w)", line)]
        strange = [w for w in typed if w.lower() not in known]
        return strange[0] if strange else (typed[-1] if typed else None)
    return None


def known_words(scope: Any) -> set[str]:
    """The words of the names of what is in ``scope`` (things, people, doors), lower case."""
    names = [n.name for n in getattr(scope, "nouns", ())] + [a for n in getattr(scope, "nouns", ()) for a in n.aliases]
    return {w for name in names for w in re.findall(r"\w+", name.lower())}
