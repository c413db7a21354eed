"""The seed tree: every random stream in Parley is a named child of one seed.

A game's seed is the root of a tree; each component that draws random numbers takes the
child named for it and nothing else, so adding a draw to one component never shifts another's
stream, and a component renamed or reordered in a world keeps its neighbours' streams::

    seed_tree(seed).child("engine").rng()          # a numpy Generator
    seed_tree(seed).child("npc", "jory", "body")   # a SeedTree; .sequence() is its SeedSequence
    rng(seed, "council", "session")                # shorthand for seed_tree(seed).child(...).rng()
    derive(seed, "aec", "episode", 3)              # a plain 32-bit seed, for an API that wants an int

A child is ``numpy.random.SeedSequence`` of the seed's 32-bit words (little-endian, padded to
four) followed by ``K``, four 32-bit words of a BLAKE2b digest of its name path: for a seed below
2**128 the stream of ``SeedSequence(seed, spawn_key=K)``, built faster. Each name (a ``str``, or
an ``int`` such as a turn number) is hashed with its type and length, so ``("ab", "c")``, ``("a",
"bc")`` and ``("abc",)`` are three different children, ``"3"`` and ``3`` are different names, and
``child("a").child("b")`` is ``child("a", "b")``. The digest does not depend on the platform, the
Python version or ``PYTHONHASHSEED``. The root itself (no name) is never drawn from.

Seeds and names in use (one place to look; ``tests/test_seeds.py`` checks that every name used
in ``game``, ``agents`` and ``memory`` is listed here). ``<seed>`` is the game seed unless said.

* ``engine``: ``game.engine.loop.Engine.rng``, the world's own stream (saved with the game).
* ``npc, <id>, body``: the body of NPC ``<id>`` (``agents.registry.npc_agents``; a wanderer's steps).
* ``npc, <id>, voice, <turn>, <seq>``: the scripted voice of NPC ``<id>`` (``agents.npc.Voice``),
  one stateless stream per reply, so a loaded game speaks as the original would have.
* ``llm, client``: retry jitter of the game's LLM client (``game.play.compose.new_client``; a
  client made without a generator seeds this child from its ``LLMConfig.seed``).
* ``autopilot``: the autopilot's tie-breaks (``agents.autopilot.seeded_rng``).
* ``brute``: ``agents.brute_player.BrutePlayer``.
* ``council, session``: a council debate's speaker order and stochastic votes
  (``game.council.session``; ``<seed>`` is ``CouncilConfig.seed``, the game seed in a world).
* ``council, scene, <scene>, debater, <member>, <round>``: the scripted member ``<member>`` of a
  world's council scene ``<scene>`` (``game.play.council_debate``), stateless per round.
* ``council, debater, <member>``: a scripted member of a standalone debate
  (``game.council.runner.scripted_council``; ``<seed>``: the debate's seed).
* ``council, debater``: a ``game.council.debaters.ScriptedDebater`` given a plain seed.
* ``council, task``: ``game.council.tasks.hidden_profile_task`` (``<seed>``: the task's seed).
* ``council, hidden-profile, <attempt>, <part>``: ``game.council.hidden_profile.hidden_profile``
  (``<seed>``: the task's seed; ``<attempt>`` counts draws that failed the hidden-profile check;
  ``<part>``: setting, items, holders, words or members).
* ``negotiator, random``: ``agents.negotiators.RandomNegotiator`` (``<seed>``: its ``seed``
  parameter): the counter-based draws (``counter_draws``) of each move, counted by moves made.
* ``negotiation, scenes``: ``game.negotiation.generate.random_scenes`` (``<seed>``: the set's seed).
* ``aec, episode, <n>``: the engine seed of the ``<n>``-th unseeded reset of
  ``game.envs.aec.ParleyAEC`` (``<seed>``: the last explicit reset seed).
* ``gym, random-play``: ``game.envs.gym_env.random_masked_episodes`` (``<seed>``: its argument).
* ``textarena, random``: ``game.envs.textarena.baselines.RandomValid`` and ``AlwaysAccept``
  (``<seed>``: their argument).
* ``steering, projection``: ``memory.steering.projection_matrix`` (``<seed>``: its argument).
* ``stats, bootstrap, <competitor>, <metric>``: a tournament summary's bootstrap CIs
  (``game.tournament.stats.summarise``; ``<seed>``: the summary's seed).
* ``stats, bootstrap``: ``game.tournament.stats.bootstrap_mean`` given a plain seed.

One stream is deliberately *not* a child: Σ-Mem's projection of topic embeddings
(``memory.sigma`` and ``memory.sigma_topics``, seeded by ``SigmaConfig.seed``). It is a fixed
basis rather than a stream, and a saved Σ-Mem state (in every save file) holds its trust in
that basis's coordinates, so it stays the plain-seeded :func:`basis_rng` until the Σ-Mem state
format says which basis it was written in.

In ``game``, ``agents`` and ``memory`` no Generator is made any other way, except Gymnasium's own
``np_random`` (seeded by Gymnasium; ``game.envs.gym_env`` only picks a first game seed from it).
Tests and benchmarks seed their own data as they like.
"""

from __future__ import annotations

import hashlib
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported when a stream is made, so importing this module stays light
    import numpy as np

__all__ = ["Name", "SeedTree", "basis_rng", "derive", "rng", "seed_tree", "sequence"]

Name = str | int
_DIGEST = 16  # bytes of BLAKE2b digest: four 32-bit words of spawn key
_PERSON = b"parley.seeds"


def _encode(name: Name) -> bytes:
    """A name as bytes that no other name, nor any run of names, can also produce."""
    if isinstance(name, str):
        tag, data = b"s", name.encode("utf-8", "surrogatepass")
    elif isinstance(name, bool):
        raise TypeError(f"a seed-tree name is a str or an int, not {name!r}")
    else:
        try:
            tag, data = b"i", str(operator.index(name)).encode("ascii")
        except TypeError:
            raise TypeError(f"a seed-tree name is a str or an int, not {type(name).__name__} {name!r}") from None
    return tag + len(data).to_bytes(8, "little") + data


def _root_seed(seed: int) -> int:
    if isinstance(seed, bool):
        raise TypeError(f"a seed is a non-negative integer, not {seed!r}")
    try:
        value = operator.index(seed)
    except TypeError:
        raise TypeError(f"a seed is a non-negative integer, not {type(seed).__name__} {seed!r}") from None
    if value < 0:
        raise ValueError(f"a seed is a non-negative integer, got {value}")
    return value


class SeedTree:
    """The node of a seed tree at ``path`` below ``seed`` (see the module docstring)."""

    __slots__ = ("_hash", "_words", "path", "seed")

    def __init__(self, seed: int, path: tuple[Name, ...] = ()):
        self.seed = _root_seed(seed)
        self._words = self.seed.to_bytes(max(16, -(-self.seed.bit_length() // 32) * 4), "little")
        self.path: tuple[Name, ...] = ()
        self._hash = hashlib.blake2b(digest_size=_DIGEST, person=_PERSON)
        self._extend(tuple(path))

    def _extend(self, names: tuple[Name, ...]) -> None:
        for name in names:
            self._hash.update(_encode(name))
        self.path += names

    def child(self, *names: Name) -> SeedTree:
        """The node ``names`` below this one (``child("a", "b")`` is ``child("a").child("b")``)."""
        out = SeedTree.__new__(SeedTree)
        out.seed, out._words, out.path, out._hash = self.seed, self._words, self.path, self._hash.copy()
        out._extend(names)
        return out

    @property
    def key(self) -> tuple[int, ...]:
        """The spawn key: four 32-bit words of the path's digest (empty at the root)."""
        if not self.path:
            return ()
        d = self._hash.digest()
        return tuple(int.from_bytes(d[i : i + 4], "little") for i in range(0, _DIGEST, 4))

    def sequence(self) -> np.random.SeedSequence:
        import numpy as np

        if not self.path:
            return np.random.SeedSequence(self.seed)
        words = np.frombuffer(self._words + self._hash.digest(), dtype="<u4")
        return np.random.SeedSequence(words.astype(np.uint32, copy=False))

    def rng(self) -> np.random.Generator:
        """A fresh ``numpy.random.Generator`` (PCG64) at the start of this node's stream."""
        import numpy as np

        return np.random.Generator(np.random.PCG64(self.sequence()))

    def integer(self, bits: int = 32) -> int:
        """A plain seed of ``bits`` bits (32 or 64) from this node, for APIs that take an int."""
        import numpy as np

        if bits not in (32, 64):
            raise ValueError(f"bits must be 32 or 64, got {bits!r}")
        return int(self.sequence().generate_state(1, np.uint32 if bits == 32 else np.uint64)[0])

    def draws(self, counter: int, n: int = 2) -> tuple[float, ...]:
        """``n`` uniform floats in [0, 1) for ``counter`` (a move number, a turn): a counter-based
        stream, stateless and cheap (under a microsecond), for code that needs a few draws at each
        of many steps and must give the same draws when resumed at any step. The node's
        ``counter_key`` and the counter are mixed with SplitMix64 (Steele, Lea and Flood 2014);
        each float takes the top 53 bits of one output."""
        return counter_draws(self.counter_key(), counter, n)

    def counter_key(self) -> int:
        """The node's 64-bit key for ``counter_draws``: the path's BLAKE2b digest folded with the root
        seed's 64-bit limbs by SplitMix64 (``counter_keyer`` does the same with the path hashed once)."""
        return _fold(_path_key(self._hash.digest()), self.seed)

    def __reduce__(self) -> tuple[type, tuple[int, tuple[Name, ...]]]:  # copy and pickle by seed and path
        return SeedTree, (self.seed, self.path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeedTree) and (self.seed, self.key) == (other.seed, other.key)

    def __hash__(self) -> int:
        return hash((self.seed, self.key))

    def __repr__(self) -> str:
        return (
            f"seed_tree({self.seed}).child({', '.join(map(repr, self.path))})"
            if self.path
            else f"seed_tree({self.seed})"
        )


def seed_tree(seed: int | SeedTree) -> SeedTree:
    """The root of ``seed``'s tree (a ``SeedTree`` is returned as it is)."""
    return seed if isinstance(seed, SeedTree) else SeedTree(seed)


def sequence(seed: int | SeedTree, *names: Name) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the child ``names`` of ``seed`` (a seed or a node)."""
    return seed_tree(seed).child(*names).sequence()


def rng(seed: int | SeedTree, *names: Name) -> np.random.Generator:
    """A ``Generator`` on the child ``names`` of ``seed`` (a seed or a node)."""
    return seed_tree(seed).child(*names).rng()


def derive(seed: int | SeedTree, *names: Name, bits: int = 32) -> int:
    """A plain ``bits``-bit seed from the child ``names`` of ``seed`` (a seed or a node)."""
    return seed_tree(seed).child(*names).integer(bits)


def basis_rng(seed: int) -> np.random.Generator:
    """``numpy.random.default_rng(seed)``: only for Σ-Mem's projection basis (see the module
    docstring), whose saved states are coordinates in it."""
    import numpy as np

    return np.random.default_rng(_root_seed(seed))


_MASK64 = (1 << 64) - 1


def _splitmix64(x: int) -> int:
    z = (x + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _path_key(digest: bytes) -> int:
    """A path's 64-bit key: the first 8 bytes of its BLAKE2b digest."""
    return int.from_bytes(digest[:8], "little")


def _fold(path_key: int, seed: int) -> int:
    """``path_key`` with the root seed's 64-bit limbs folded in by SplitMix64."""
    root = _root_seed(seed)
    x = _splitmix64(path_key ^ (root & _MASK64))
    root >>= 64
    while root:
        x = _splitmix64(x ^ (root & _MASK64))
        root >>= 64
    return x


def counter_keyer(*names: Name) -> Callable[[int], int]:
    """A function ``seed -> seed_tree(seed).child(*names).counter_key()`` with the path hashed once,
    each seed folded in with SplitMix64, well under a microsecond: for code that makes many
    short-lived keyed streams (a negotiator per game)."""
    path = _path_key(SeedTree(0, tuple(names))._hash.digest())
    return lambda seed: _fold(path, seed)


def counter_draws(key: int, counter: int, n: int = 2) -> tuple[float, ...]:
    """``n`` uniform floats in [0, 1) for (``key``, ``counter``); see ``SeedTree.draws``. Pass a
    node's ``counter_key()`` once and call this per step."""
    if counter < 0:
        raise ValueError(f"a counter is a non-negative integer, got {counter}")
    x = _splitmix64(key ^ ((counter * 0xD1B54A32D192ED03) & _MASK64))
    out = []
    for _ in range(n):
        out.append((x >> 11) * 2.0**-53)
        x = _splitmix64(x)
    return tuple(out)
