"""The adventure command parser: player text + what is in scope -> a parsed result.

``Parser.parse`` never raises. It returns a ``Command`` (a resolved ``Action``),
a ``Meta`` command (save/load/help/quit), a ``Clarify`` question when a noun is
ambiguous (the parser remembers it, so the next input can answer it), or an
``Unknown`` carrying a helpful message.

What may be referred to and how a phrase names it live in ``game.engine.nouns``, the reading of an
offer's terms in ``game.engine.parser_offers``, where a command sits in a machine's reply in
``game.engine.parser_replies``; the names tests and agents use stay importable from here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from game.core.errors import did_you_mean
from game.core.phrasing import HELP_TEXT  # noqa: F401  (the command language; front ends import it from here)
from game.core.text import clean
from game.core.types import DIRECTIONS, Action, Verb
from game.engine import nouns
from game.engine.nouns import Noun, Scope
from game.engine.parser_offers import offer_terms
from game.engine.parser_replies import reply_candidates

__all__ = [
    "EMPTY",
    "HELP_TEXT",
    "MAX_INPUT",
    "NO_COMMAND",
    "NOT_NEGOTIATING",
    "SENTENCE",
    "Clarify",
    "Command",
    "Meta",
    "Noun",
    "Parsed",
    "Parser",
    "Scope",
    "Unknown",
    "reply_candidates",
]


@dataclass(frozen=True)
class Command:
    action: Action


@dataclass(frozen=True)
class Meta:
    name: str  # "save" | "load" | "help" | "quit" | "journal" | "score" | "quests"
    arg: str | None = None


@dataclass(frozen=True)
class Clarify:
    question: str
    options: tuple[str, ...]  # noun ids


@dataclass(frozen=True)
class Unknown:
    message: str
    question: str | None = None  # the clarifying question a machine's reply left open (parse_reply)


Parsed = Command | Meta | Clarify | Unknown

EMPTY = "Say something — type 'help' for commands."
SENTENCE = (
    "That reads like a sentence, not a command. Type a command such as 'go north' ('i' alone lists what you carry)."
)
NO_COMMAND = "The reply holds no command"
MAX_INPUT = 2000  # characters in one command: a longer line is refused, so no line can swell a save
NOT_NEGOTIATING = "You are not negotiating with anyone. Try 'trade with <merchant>'."

_YES = frozenset({"yes", "y", "aye", "yea", "for", "ok", "okay", "sure"})
_NO = frozenset({"no", "n", "nay", "against"})
_PRONOUNS = frozenset({"it", "them", "him", "her"})
_DIRS: dict[str, str] = {d: d for d in DIRECTIONS}
_DIRS.update(
    {
        "n": "north",
        "s": "south",
        "e": "east",
        "w": "west",
        "u": "up",
        "d": "down",
        "upstairs": "up",
        "downstairs": "down",
        "inside": "in",
        "outside": "out",
        "descend": "down",
        "ascend": "up",
    }
)
for _ns in ("north", "south"):
    for _ew in ("east", "west"):
        for _alias in (_ns[0] + _ew[0], f"{_ns} {_ew}", f"{_ns}-{_ew}"):
            _DIRS[_alias] = _ns + _ew

_VERBS: dict[tuple[str, ...], str] = {}
for _name, _phrases in {
    "go": "go|walk|run|head|move|travel|climb|go to|walk to|head to|go through",
    "look": "look|l|look around",
    "examine": "examine|x|look at|inspect|read|look in|search",
    "take": "take|get|grab|pick up|pick|collect",
    "drop": "drop|discard|put down|put",
    "give": "give|hand",
    "open": "open",
    "unlock": "unlock",
    "light": "light|light up|ignite|kindle|turn on|switch on",
    "talk": "talk|talk to|talk with|speak|speak to|speak with|greet|chat|chat with|hail",
    "ask": "ask",
    "say": "say|shout",
    "inventory": "inventory|inv|i",
    "wait": "wait|z",
    "trade": "trade|trade with|haggle|haggle with|buy|buy from|barter|barter with",
    "offer": "offer|counter|counter offer|counteroffer|propose|bid",
    "accept": "accept|deal|agree",
    "reject": "reject|no deal|decline|refuse",
    "walk_away": "walk away|leave table|leave negotiation",
    "leave": "leave",
    "vote": "vote",
    "save": "save",
    "load": "load|restore",
    "help": "help|commands",
    "journal": "journal|notes|rumours|rumors",
    "score": "score|points",
    "quests": "quests|quest|quest log|tasks|objectives",
    "use": "use|use up",
    "quit": "quit|q|exit",
}.items():
    for _p in _phrases.split("|"):
        _VERBS[tuple(_p.split())] = _name
# commands answered without a turn (``Meta``); save, load and quit act on the whole game, so an
# unknown word is never guessed to be one of them ('quests' is no 'quit', 'score' no 'restore')
_META = ("save", "load", "help", "quit", "journal", "score", "quests")
_NEVER_GUESSED = frozenset({"save", "load", "quit"})
_VOCAB = sorted({p[0] for p, n in _VERBS.items() if len(p[0]) > 1 and n not in _NEVER_GUESSED})


def _cmd(scope: Scope, verb: Verb, **kw: object) -> Command:
    return Command(Action(actor=scope.actor, verb=verb, **kw))  # type: ignore[arg-type]


@dataclass
class _Ctx:
    scope: Scope
    raw: str  # stripped original text (case preserved)
    tokens: list[str]  # lowercase tokens after the verb, articles kept


Then = Callable[[Noun], Parsed]


class Parser:
    """Turns one line of player text into a ``Parsed`` result; remembers pending questions."""

    def __init__(self) -> None:
        self._pending: tuple[tuple[Noun, ...], Then] | None = None
        self._last: str | None = None  # id of the last noun referred to, for "it"

    def parse(self, text: str, scope: Scope) -> Parsed:
        if len(text) <= 4 * MAX_INPUT:  # never spend time cleaning a megabyte line
            text = clean(text, newlines=False)  # one line, no control or bidi characters
        if len(text) > MAX_INPUT:
            return Unknown(f"That line is {len(text):,} characters long; a command is at most {MAX_INPUT:,}.")
        pending, self._pending = self._pending, None
        if pending is not None:
            chosen = self._pick(text, pending[0])
            if chosen is not None:
                return pending[1](chosen)
        return self._parse(text.strip(), scope)

    def parse_reply(self, reply: str, scope: Scope) -> Parsed:
        """A command from a machine's reply (an LLM or a text agent), which may wrap it in
        prose: the candidates of ``reply_candidates`` are tried in order and the first that is
        a ``Command`` wins. Otherwise an ``Unknown`` says why (the best candidate's message).
        Never asks a clarifying question that a later reply would answer."""
        first: Parsed | None = None
        for cand in reply_candidates(reply):
            self._pending = None
            got = self.parse(cand, scope)
            if isinstance(got, Command):
                self._pending = None
                return got
            first = first or got
        self._pending = None
        why = getattr(first, "message", None) or getattr(first, "question", None) or "it is empty"
        if isinstance(first, Meta):
            why = f"'{first.name}' is not a move in the game"
        return Unknown(f"{NO_COMMAND}: {why}", question=getattr(first, "question", None))

    # ------------------------------------------------------------------ dispatch

    def _parse(self, raw: str, scope: Scope) -> Parsed:
        if raw[:1] in ('"', "'", "“", "‘"):
            return self._say(raw[1:], scope)
        tokens = nouns.TOKEN.findall(raw.lower())
        words = [t for t in tokens if t not in nouns.ARTICLES]
        if not words:
            return Meta("help") if "?" in raw else Unknown(EMPTY)
        if " ".join(words) in _DIRS or " ".join(words) in scope.exits:
            return self._go(words, scope)
        for size in (2, 1):
            name = _VERBS.get(tuple(words[:size])) if len(words) >= size else None
            if name == "inventory" and words[0] == "i" and len(tokens) > 1:
                return Unknown(SENTENCE)  # "I will go north." is a sentence, never `inventory`
            if name in ("inventory", "wait"):
                return _cmd(scope, Verb(name))
            if name in ("accept", "reject", "walk_away"):
                if scope.negotiation is None:
                    return Unknown(NOT_NEGOTIATING)
                return _cmd(scope, Verb(name))
            if name in _META:
                m = re.match(r"(?:(?:the|an?)\s+)*\S+\s*(.*)", raw, re.I | re.S)
                arg = (m.group(1) if m else "").strip().rstrip(".!?").strip()
                return Meta(name, None if name not in ("save", "load", "help") or not arg else arg)
            if name is not None:
                # the tokens after the size-th non-article token (articles kept for offers)
                seen = [i for i, t in enumerate(tokens) if t not in nouns.ARTICLES]
                ctx = _Ctx(scope, raw, tokens[seen[size - 1] + 1 :])
                return getattr(self, "_v_" + name)(words[size:], ctx)
        found = nouns.match(nouns.phrase(words), scope, nouns.KINDS_ALL, ())
        if found:
            what = nouns.the(found[0]) if len(found) == 1 else "the " + " ".join(words)
            return Unknown(f"What do you want to do with {what}? Type 'help' for commands.")
        close = difflib.get_close_matches(words[0], _VOCAB, n=1, cutoff=0.6)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        return Unknown(f"I don't know the verb '{words[0]}'.{hint} Type 'help' for commands.")

    # ------------------------------------------------------------------ nouns

    def _resolve(
        self, words: list[str], scope: Scope, kinds: Iterable[str], prefer: tuple[str, ...], verb: str, then: Then
    ) -> Parsed:
        phrase = nouns.phrase(words)
        if not phrase:
            return Unknown(f"{verb.capitalize()} what?")
        if len(phrase) == 1 and phrase[0] in _PRONOUNS:
            for n in scope.nouns:
                if n.id == self._last and n.kind in kinds:
                    return then(n)
            return Unknown(f"I'm not sure what '{phrase[0]}' means here; name the thing.")
        found = nouns.match(phrase, scope, kinds, prefer)
        if len(found) == 1:
            self._last = found[0].id
            return then(found[0])
        if found:
            names = [nouns.the(n) for n in found]
            return self._ask(f"Which {' '.join(phrase)}: {nouns.or_list(names)}?", found, then)
        other = nouns.match(phrase, scope, nouns.KINDS_ALL, ())
        if other:
            return Unknown(f"You can't {verb} {nouns.the(other[0])}.")
        return Unknown(f"You see no {' '.join(phrase)} here.")

    def _ask(self, question: str, nouns: list[Noun], then: Then) -> Clarify:
        def done(n: Noun) -> Parsed:
            self._last = n.id
            return then(n)

        self._pending = (tuple(nouns), done)
        return Clarify(question, tuple(n.id for n in nouns))

    def _pick(self, text: str, options: tuple[Noun, ...]) -> Noun | None:
        phrase = nouns.phrase(nouns.TOKEN.findall(text.lower()))
        if len(phrase) == 1 and re.fullmatch(r"[0-9]{1,3}", phrase[0]):
            i = int(phrase[0])
            return options[i - 1] if 1 <= i <= len(options) else None
        if len(options) == 1 and len(phrase) == 1 and phrase[0] in _YES:
            return options[0]
        scored = [(nouns.score(phrase, n), n) for n in options] if phrase else []
        best = max((s for s, _ in scored), default=0)
        top = [n for s, n in scored if s == best]
        return top[0] if best > 0 and len(top) == 1 else None

    def _someone(self, scope: Scope, then: Then) -> Parsed:
        npcs = nouns.unique(n for n in scope.nouns if n.kind == "npc")
        if not npcs:
            return Unknown("There is no one here to talk to.")
        if len(npcs) == 1:
            return then(npcs[0])
        return self._ask(f"Who do you mean: {nouns.or_list([n.name for n in npcs])}?", npcs, then)

    # ------------------------------------------------------------------ movement & looking

    def _go(self, words: list[str], scope: Scope) -> Parsed:
        exits = list(scope.exits)
        exits += [
            n.id.split(":", 1)[1]
            for n in scope.nouns
            if n.kind == "exit" and n.id.startswith("exit:") and n.id[5:] not in exits
        ]
        listing = f"Exits: {', '.join(exits)}." if exits else "There are no obvious exits."
        words = [w for w in words if w not in ("through", "towards", "toward", "to")]
        if not words:
            return Unknown(f"Go where? {listing}")
        said = " ".join(words)
        where = _DIRS.get(said, said)
        if where in exits:
            return _cmd(scope, Verb.GO, obj=where)
        doors = nouns.match(nouns.phrase(words), scope, ("exit",), ())
        if len(doors) == 1 and doors[0].id.startswith("exit:"):
            return _cmd(scope, Verb.GO, obj=doors[0].id[5:])
        if where in DIRECTIONS:
            return Unknown(f"You can't go {where} from here. {listing}")
        hint = did_you_mean(said, [*DIRECTIONS, *exits])
        return Unknown(f"'{said}' is not a way you can go{f' ({hint})' if hint else ''}. {listing}")

    def _v_go(self, rest: list[str], c: _Ctx) -> Parsed:
        return self._go(rest, c.scope)

    def _one(
        self, rest: list[str], c: _Ctx, verb: Verb, kinds: Iterable[str], prefer: tuple[str, ...] = (), word: str = ""
    ) -> Parsed:
        """A verb with one noun: resolve it and build the action."""
        return self._resolve(rest, c.scope, kinds, prefer, word or verb.value, lambda n: _cmd(c.scope, verb, obj=n.id))

    def _v_look(self, rest: list[str], c: _Ctx) -> Parsed:
        if not rest or rest == ["around"]:
            return _cmd(c.scope, Verb.LOOK)
        return self._v_examine(rest, c)

    def _v_examine(self, rest: list[str], c: _Ctx) -> Parsed:
        if nouns.phrase(rest)[:1] and set(nouns.phrase(rest)) <= nouns.SELF:
            return _cmd(c.scope, Verb.EXAMINE, obj=c.scope.actor)
        return self._one(rest, c, Verb.EXAMINE, nouns.KINDS_ALL)

    # ------------------------------------------------------------------ things

    def _v_take(self, rest: list[str], c: _Ctx) -> Parsed:
        if "from" in rest:
            rest = rest[: rest.index("from")]
        if rest[-1:] == ["up"]:
            rest = rest[:-1]
        if nouns.phrase(rest) and set(nouns.phrase(rest)) <= nouns.EVERY:
            if not any(n.kind == "item" and n.portable and n.where != "inventory" for n in c.scope.nouns):
                return Unknown("There is nothing here you can take.")
            return _cmd(c.scope, Verb.TAKE, obj=nouns.ALL)

        def take(n: Noun) -> Parsed:
            if not n.portable:  # refused before it costs a turn
                return Unknown(f"{nouns.the(n)[:1].upper()}{nouns.the(n)[1:]} won't budge.")
            return _cmd(c.scope, Verb.TAKE, obj=n.id)

        return self._resolve(rest, c.scope, ("item", "scenery"), ("room", "container"), "take", take)

    def _v_drop(self, rest: list[str], c: _Ctx) -> Parsed:
        if rest[-1:] == ["down"]:
            rest = rest[:-1]
        if nouns.phrase(rest) and set(nouns.phrase(rest)) <= nouns.EVERY:
            if not any(n.kind == "item" and n.where == "inventory" for n in c.scope.nouns):
                return Unknown("You carry nothing to drop.")
            return _cmd(c.scope, Verb.DROP, obj=nouns.ALL)
        return self._one(rest, c, Verb.DROP, ("item",), ("inventory",))

    def _v_light(self, rest: list[str], c: _Ctx) -> Parsed:
        return self._one(rest, c, Verb.LIGHT, ("item",), ("inventory",))

    def _v_use(self, rest: list[str], c: _Ctx) -> Parsed:
        """'use X': the one verb that fits X (light a light source, open a container), else what
        can be done with it."""

        def use(n: Noun) -> Parsed:
            if n.light:
                return _cmd(c.scope, Verb.LIGHT, obj=n.id)
            if n.container:
                return _cmd(c.scope, Verb.OPEN, obj=n.id)
            it, name = nouns.the(n), n.name
            if n.kind == "npc":
                ways = f"talk to {name}, ask {name} about something, give something to {name}"
            elif n.kind == "exit":
                ways = f"examine {name}, open {name}, unlock {name} with something"
            elif n.kind == "scenery" or not n.portable:
                ways = f"examine {name}"
            elif n.where == "inventory":
                ways = f"examine {name}, drop {name}, give {name} to someone, unlock something with {name}"
            else:
                ways = f"examine {name}, take {name}"
            return Unknown(f"Say how to use {it}. You can: {ways}.")

        return self._resolve(rest, c.scope, nouns.KINDS_ALL, ("inventory",), "use", use)

    def _v_give(self, rest: list[str], c: _Ctx) -> Parsed:
        scope = c.scope
        item, who = rest, []
        if "to" in rest:
            i = rest.index("to")
            item, who = rest[:i], rest[i + 1 :]
        else:  # "give tom the key"
            for k in range(1, len(rest)):
                npcs = nouns.match(nouns.phrase(rest[:k]), scope, ("npc",), ())
                if len(npcs) == 1 and nouns.score(nouns.phrase(rest[:k]), npcs[0]) >= 2:
                    item, who = rest[k:], rest[:k]
                    break

        def to_whom(thing: Noun) -> Parsed:
            if not who:
                return Unknown(f"Give {nouns.the(thing)} to whom?")
            return self._resolve(
                who,
                scope,
                ("npc",),
                (),
                "give things to",
                lambda npc: _cmd(scope, Verb.GIVE, obj=thing.id, target=npc.id),
            )

        return self._resolve(item, scope, ("item",), ("inventory",), "give", to_whom)

    def _v_open(self, rest: list[str], c: _Ctx) -> Parsed:
        return self._one(rest, c, Verb.OPEN, ("item", "exit"))

    def _v_unlock(self, rest: list[str], c: _Ctx) -> Parsed:
        scope = c.scope
        thing, key = rest, []
        if "with" in rest:
            i = rest.index("with")
            thing, key = rest[:i], rest[i + 1 :]

        def with_what(obj: Noun) -> Parsed:
            def done(k: Noun) -> Parsed:
                return _cmd(scope, Verb.UNLOCK, obj=obj.id, target=k.id)

            if key:
                return self._resolve(key, scope, ("item",), ("inventory",), "unlock with", done)
            keys = nouns.unique(
                n
                for n in scope.nouns
                if n.kind == "item"
                and n.where == "inventory"
                and ("key" in n.id.lower() or any("key" in ws for ws in nouns.names(n)))
            )
            if not keys:
                return Unknown("Unlock it with what?")
            if len(keys) == 1:
                return self._ask(f"Unlock {nouns.the(obj)} with {nouns.the(keys[0])}?", keys, done)
            names = nouns.or_list([nouns.the(k) for k in keys])
            return self._ask(f"Unlock {nouns.the(obj)} with which: {names}?", keys, done)

        return self._resolve(thing, scope, ("item", "exit"), (), "unlock", with_what)

    # ------------------------------------------------------------------ people

    def _v_talk(self, rest: list[str], c: _Ctx) -> Parsed:
        if not nouns.phrase(rest):
            return self._someone(c.scope, lambda n: _cmd(c.scope, Verb.TALK, obj=n.id))
        return self._one(rest, c, Verb.TALK, ("npc",), word="talk to")

    def _v_ask(self, rest: list[str], c: _Ctx) -> Parsed:
        who, about = rest, None
        if "about" in rest:
            i = rest.index("about")
            who, about = rest[:i], nouns.phrase(rest[i + 1 :])

        def ask(npc: Noun) -> Parsed:
            if not about:
                return Unknown(f"Ask {npc.name} about what?")
            return self._topic(npc, about, c.scope)

        if not nouns.phrase(who):
            if about is None:
                return Unknown("Ask whom about what? Try 'ask <someone> about <topic>'.")
            return self._someone(c.scope, ask)
        return self._resolve(who, c.scope, ("npc",), (), "ask", ask)

    def _topic(self, npc: Noun, about: list[str], scope: Scope) -> Parsed:
        def ask(topic: str) -> Command:
            return _cmd(scope, Verb.ASK, obj=npc.id, target=topic)

        topics = {nouns.key(t): t for t in scope.topics}
        said = " ".join(about)
        if said in topics:
            return ask(topics[said])
        words = set(about)  # "master" -> harbor_master, then "old amulet" -> amulet
        for fits in (lambda k: words <= k, lambda k: k <= words):
            hits = [t for k, t in topics.items() if k and fits(set(k.split()))]
            if len(hits) == 1:
                return ask(hits[0])
        close = difflib.get_close_matches(said, list(topics), n=1, cutoff=0.75)
        if close:
            return ask(topics[close[0]])
        found = nouns.match(about, scope, nouns.KINDS_ALL, ())
        if len(found) == 1:
            return ask(nouns.topic(found[0]))
        if found:
            names = nouns.or_list([nouns.the(n) for n in found])
            return self._ask(f"Which {said}: {names}?", found, lambda n: ask(nouns.topic(n)))
        return ask("_".join(about))

    def _say(self, text: str, scope: Scope) -> Parsed:
        message = text.strip().strip("\"'“”‘’").strip()
        if not message:
            return Unknown("Say what?")
        return _cmd(scope, Verb.SAY, text=message)

    def _v_say(self, rest: list[str], c: _Ctx) -> Parsed:
        m = re.match(r"(?:(?:the|an?)\s+)*(?:say|shout)\b[\s:,]*(.*)", c.raw, re.I | re.S)
        return self._say(m.group(1) if m else " ".join(rest), c.scope)

    # ------------------------------------------------------------------ trading & council

    def _v_trade(self, rest: list[str], c: _Ctx) -> Parsed:
        for sep in ("from", "with"):
            if sep in rest:
                rest = rest[rest.index(sep) + 1 :]

        if not nouns.phrase(rest):
            return self._someone(c.scope, lambda n: _cmd(c.scope, Verb.TRADE, obj=n.id))
        return self._one(rest, c, Verb.TRADE, ("npc",), word="trade with")

    def _v_offer(self, rest: list[str], c: _Ctx) -> Parsed:
        neg = c.scope.negotiation
        if neg is None:
            return Unknown(NOT_NEGOTIATING)
        terms = offer_terms(neg, c.tokens)
        if isinstance(terms, str):
            return Unknown(terms)
        return _cmd(c.scope, Verb.OFFER, terms=terms)

    def _v_leave(self, rest: list[str], c: _Ctx) -> Parsed:
        if c.scope.negotiation is not None:
            return _cmd(c.scope, Verb.WALK_AWAY)
        if not rest and "out" in c.scope.exits:
            return _cmd(c.scope, Verb.GO, obj="out")  # plain "leave" outside a negotiation
        return Unknown(NOT_NEGOTIATING)

    def _v_vote(self, rest: list[str], c: _Ctx) -> Parsed:
        if not c.scope.council:
            return Unknown("There is no vote to cast here.")
        choice = rest[0] if rest else ""
        if choice in _YES:
            return _cmd(c.scope, Verb.VOTE, text="yes")
        if choice in _NO:
            return _cmd(c.scope, Verb.VOTE, text="no")
        return Unknown("Vote how? Try 'vote yes' or 'vote no'.")
