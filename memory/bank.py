"""The memory bank: every record, its vector, and scope-enforced retrieval.

Writes are cheap: a record is stored at once and its text is embedded in a
batch at the next read (``flush``), so the engine never waits on the model per
event. Reads are always for one agent and only ever see that agent's readable
scopes: shared memory, world facts, and its own private memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from game.core.errors import ParleyError
from memory.importance import ImportanceRater
from memory.lexical import LexicalIndex
from memory.linking import Links, linked, names
from memory.records import FACTS, LIVE, SHARED, STATEMENTS, MemoryRecord, readable_scopes
from memory.supersession import correct
from memory.values import template_key, updates, values

_WORD = re.compile(r"[a-z][a-z']{2,}")
_STOP = frozenset(
    "the and you your are was were this that with from have has had not but for into "
    "out over they them their there here what when where which who will would could "
    "should about than then its it's his her she him our ours".split()
)


class ScopeError(ParleyError):
    """An agent tried to read a memory outside its scopes."""


def concepts(text: str) -> set[str]:
    """Content words of a text (for novelty), possessives as their word ("smugglers'", "abbot's")."""
    words = (w[:-2] if w.endswith("'s") else w.rstrip("'") for w in _WORD.findall(text.lower()))
    return {w for w in words if len(w) > 2 and w not in _STOP}


class MemoryBank:
    def __init__(self, embedder: Any, store: Any = None, rater: ImportanceRater | None = None):
        from memory.store import make_store

        self.embedder = embedder
        self.store = store if store is not None else make_store("flat")
        self.rater = rater or ImportanceRater()
        self.records: dict[str, MemoryRecord] = {}
        self._rows: dict[str, int] = {}
        self._mat = np.zeros((0, getattr(embedder, "dim", 384)), dtype=np.float32)
        self._n = 0
        self._pending: list[str] = []
        self._seq = 0
        self._vocab: dict[str, set[str]] = {}  # scope -> concepts seen
        self._claims: dict[tuple[str, str], list[str]] = {}  # (subject, relation) -> claim ids
        self._anchors: list[str] = []
        self._access: dict[str, dict[str, int]] = {}  # agent -> record -> turn last retrieved
        self._groups: dict[tuple, list[str]] = {}  # (scope, speaker, kind, template) -> ids, oldest first
        self._gkeys: dict[str, tuple] = {}  # record -> its group key
        self._newest: dict[tuple, str] = {}  # group key -> its newest memory (the one indexed)
        self._hidden: set[str] = set()  # older group members, kept out of the store
        self._group_cache: dict[tuple, list[MemoryRecord]] = {}
        self._corrections: list[str] = []  # statements to check against older ones at flush
        self._links: dict[str, Links] = {}  # scope -> word/name co-occurrence (memory.linking)
        self._once: dict[str, dict[str, dict[str, None]]] = {}  # scope -> name -> memories naming it said once
        self.lexicon = LexicalIndex()  # BM25 over every memory (memory.lexical); queries keep the indexed ones

    # --- writing -------------------------------------------------------------------
    def add(
        self,
        scope: str,
        kind: str,
        text: str,
        turn: int,
        *,
        speaker: str | None = None,
        topic: str | None = None,
        triple: tuple[str, str, str] | None = None,
        references: Sequence[str] = (),
        anchor: bool = False,
        importance: float | None = None,
        status: str = "active",
        tier: str = "working",
    ) -> MemoryRecord:
        self._seq += 1
        rid = f"m{self._seq}"
        seen = self._vocab.setdefault(scope, set())
        words = concepts(text)
        novelty = (len(words - seen) / len(words)) if words else 0.0
        seen |= words
        self._links.setdefault(scope, Links()).add(words, text)
        rec = MemoryRecord(
            id=rid,
            scope=scope,
            kind=kind,
            text=text,
            turn=turn,
            speaker=speaker,
            importance=self.rater(kind, text) if importance is None else importance,
            topic=topic,
            triple=triple,
            references=list(references),
            novelty=round(novelty, 6),
            last_access=turn,
            status=status,
            tier=tier,
            anchor=anchor,
            seq=self._seq,
        )
        self.records[rid] = rec
        self.lexicon.add(rid, text)
        if triple is not None and kind in ("claim", "fact"):
            self._note_claim(rec)
        self._note_group(rec)
        self._pending.append(rid)
        if anchor:
            self._anchors.append(rid)
        return rec

    # --- templates and supersession ---------------------------------------------------
    def group_key(self, rec: MemoryRecord) -> tuple:
        """(scope, speaker, kind, template): memories that say the same thing, values aside."""
        key = self._gkeys.get(rec.id)
        if key is None or key[2] != rec.kind:
            key = self._gkeys[rec.id] = (rec.scope, rec.speaker, rec.kind, template_key(rec.text))
        return key

    def _note_group(self, rec: MemoryRecord, restoring: bool = False) -> None:
        """Same-template memories form a group (a flood of near-identical offers is one group). A newer
        statement of the same template with other values supersedes the older ones; a statement
        that says it corrects something is checked against older ones once it has a vector."""
        ids = self._groups.setdefault(self.group_key(rec), [])
        if not restoring and rec.kind in STATEMENTS and rec.status == "active":
            self.supersede(
                [i for i in ids if self.records[i].status == "active" and updates(self.records[i].text, rec.text)], rec
            )
            if not ids:  # first of its wording: it may replace an older statement, saying so or not
                # (memory.supersession: a cue, or the same frame with another value)
                self._corrections.append(rec.id)
        if len(ids) == 1:  # said twice now: the first is no longer news
            first = self.records[ids[0]]
            for name in names(first.text):
                self._once.get(first.scope, {}).get(name, {}).pop(first.id, None)
        elif not ids:
            for name in names(rec.text):
                self._once.setdefault(rec.scope, {}).setdefault(name, {})[rec.id] = None
        ids.append(rec.id)

    def said_once(self, rec: MemoryRecord) -> bool:
        """No other memory shares ``rec``'s scope, speaker, kind and template."""
        return len(self._groups.get(self.group_key(rec), ())) == 1

    def group(self, rec: MemoryRecord, statuses: Sequence[str] | None = None) -> list[MemoryRecord]:
        """The memories that share ``rec``'s scope, speaker, kind and template, oldest first (a cached
        list: read it, never change it)."""
        key = self.group_key(rec)
        ids = self._groups.get(key, ())
        memo = (key, len(ids), tuple(statuses) if statuses is not None else None)
        hit = self._group_cache.get(memo)
        if hit is None:
            if len(self._group_cache) > 4096:
                self._group_cache.clear()
            hit = self._group_cache[memo] = [
                self.records[i] for i in ids if statuses is None or self.records[i].status in statuses
            ]
        return hit  # shared: callers must not change it

    def supersede(self, old_ids: Iterable[str], new: MemoryRecord) -> list[str]:
        """Mark older memories as superseded by ``new`` (they leave retrieval; history keeps them)."""
        done = []
        if new.status != "active":  # a quarantined or rejected statement replaces nothing
            return done
        for rid in old_ids:
            old = self.records[rid]
            if old.id == new.id or old.anchor or old.seq > new.seq or old.status not in ("active", "consolidated"):
                continue
            old.status, old.superseded_by = "superseded", new.id
            done.append(rid)
            for twin in self.group(old, ("active",)):  # its older repeats go with it
                if twin.seq < old.seq and values(twin.text) == values(old.text) and not twin.anchor:
                    twin.status, twin.superseded_by = "superseded", new.id
                    done.append(twin.id)
            self._group_cache.clear()  # statuses changed: no cached member list may keep the old ones
        self._reindex(done)
        return done

    def _check_corrections(self) -> None:
        todo, self._corrections = self._corrections, []
        for rid in todo:
            rec = self.records.get(rid)
            if rec is not None and rid in self._rows and rec.status == "active":
                correct(self, rec, concepts)

    def vector_of(self, rid: str) -> np.ndarray:
        """The vector of an embedded memory."""
        return self._mat[self._rows[rid]]

    @staticmethod
    def _sees(scope: str) -> tuple[str, ...]:
        """Scopes whose claims a record in ``scope`` may be contradicted by (never another private scope)."""
        return (scope, SHARED, FACTS) if scope.startswith("private:") else (SHARED, FACTS)

    def _controversy(self, rec: MemoryRecord) -> tuple[float, list[str]]:
        """Distinct (speaker, object) rival claims about the same subject and relation that ``rec``'s
        readers can also see; 0.5 per rival, capped at 1."""
        sees = self._sees(rec.scope)
        rivals: dict[tuple[str | None, str], str] = {}
        for rid in self._claims.get((rec.triple[0], rec.triple[1]), []):  # type: ignore[index]
            other = self.records[rid]
            if (
                other.id != rec.id
                and other.scope in sees
                and other.status != "superseded"
                and other.triple[2] != rec.triple[2]
            ):  # type: ignore[index]
                rivals.setdefault((other.speaker, other.triple[2]), other.id)  # type: ignore[index]
        return min(1.0, 0.5 * len(rivals)), sorted(rivals.values(), key=lambda i: self.records[i].seq)

    def _note_claim(self, rec: MemoryRecord) -> None:
        """Contradicting claims are controversial. Only readers who can see both are affected:
        a private claim touches its own scope; a shared claim or a fact touches every scope."""
        key = (rec.triple[0], rec.triple[1])  # type: ignore[index]
        if rec.status == "active":  # the same source now says otherwise: an update, not a rival
            self.supersede(
                [
                    i
                    for i in self._claims.get(key, [])
                    if self.records[i].scope == rec.scope
                    and self.records[i].speaker == rec.speaker
                    and self.records[i].triple[2] != rec.triple[2]
                ],
                rec,
            )  # type: ignore[index]
        self._claims.setdefault(key, []).append(rec.id)
        rec.controversy, rivals = self._controversy(rec)
        rec.references.extend(r for r in rivals if r not in rec.references)
        for rid in self._claims[key]:
            other = self.records[rid]
            if other.id != rec.id and rec.scope in self._sees(other.scope):
                other.controversy = self._controversy(other)[0]

    def flush(self) -> int:
        """Embed every pending record in one batch and index it. Returns how many."""
        return len(self._index_pending([]))

    def embed_ahead(self) -> int:
        """Embed the texts of the pending writes now, into the embedder's cache only (nothing here
        changes: they are indexed at the next flush as always, which then finds them embedded).
        A front end calls this between turns, so no turn pays for a large batch. Returns how many."""
        texts = [self.records[i].text for i in self._pending if i in self.records]
        if texts and getattr(self.embedder, "cache_size", 0):
            self.embedder(texts)
        return len(texts)

    def prepare(self, queries: Sequence[str]) -> np.ndarray:
        """Embed every pending record *and* ``queries`` in one embedder call, index the records and
        return the query vectors (in order): one batch per round instead of one per read."""
        return self._index_pending(list(queries), with_queries=True)

    def _index_pending(self, queries: list[str], with_queries: bool = False):
        ids = [i for i in self._pending if i in self.records]
        self._pending = []
        if not ids and not queries:
            return np.zeros((0, self._mat.shape[1]), dtype=np.float32) if with_queries else []
        vecs = np.asarray(self.embedder([self.records[i].text for i in ids] + queries), dtype=np.float32)
        qvecs, vecs = vecs[len(ids) :], vecs[: len(ids)]
        if ids:
            need = self._n + len(ids)
            if need > self._mat.shape[0]:
                grown = np.zeros((max(need, 2 * self._mat.shape[0], 256), vecs.shape[1]), dtype=np.float32)
                grown[: self._n] = self._mat[: self._n]
                self._mat = grown
            self._mat[self._n : need] = vecs
            for k, rid in enumerate(ids):
                self._rows[rid] = self._n + k
            self._n = need
            self.store.add(ids, vecs, [self.records[i].metadata() for i in ids])
            self._index_newest(ids)
        if self._corrections:
            self._check_corrections()
        return qvecs if with_queries else ids

    def set_status(self, ids: Iterable[str], status: str) -> None:
        ids = list(ids)
        self._group_cache.clear()
        for rid in ids:
            self.records[rid].status = status
        self._reindex(ids)

    def _index_newest(self, ids: list[str]) -> None:
        """The store indexes the newest memory of each group only (older ones of the same template are
        found through it): three hundred offers are one hit, so they cannot crowd out anything."""
        old = []
        for rid in ids:
            key = self.group_key(self.records[rid])
            prev = self._newest.get(key)
            if prev is not None and prev != rid and self.records[prev].seq < self.records[rid].seq:
                old.append(prev)
                self._hidden.add(prev)
            if prev is None or self.records[prev].seq < self.records[rid].seq:
                self._newest[key] = rid
        if old:
            self.store.delete(old)

    def _reindex(self, ids: list[str]) -> None:
        """Push changed metadata to the store (vectors unchanged). When a group's indexed (newest)
        member leaves the live statuses (quarantined, rejected, superseded), its newest live elder
        is indexed in its place, so a group is never hidden behind a member no one may read."""
        for rid in ids:
            rec = self.records[rid]
            key = self.group_key(rec)
            cur = self._newest.get(key)
            if (
                cur is not None
                and cur != rid
                and rid in self._hidden
                and rec.status in LIVE
                and self.records[cur].seq < rec.seq
                and self.records[cur].status not in LIVE
            ):
                self._hidden.discard(rid)  # back among the readable, and newer: index it again
                self._hidden.add(cur)
                self._newest[key] = rid
                self.store.delete([cur])
                continue
            if cur != rid or rec.status in LIVE:
                continue
            elder = next((r for r in reversed(self.group(rec, LIVE)) if r.id in self._hidden), None)
            if elder is not None:
                self._hidden.discard(elder.id)
                self._hidden.add(rid)
                self._newest[key] = elder.id
                self.store.delete([rid])
                self.store.add([elder.id], self._mat[[self._rows[elder.id]]], [elder.metadata()])
        indexed = [i for i in ids if i in self._rows and i not in self._hidden]
        if indexed:
            self.store.add(
                indexed, self._mat[[self._rows[i] for i in indexed]], [self.records[i].metadata() for i in indexed]
            )

    def touch(self, ids: Iterable[str], turn: int, agent: str | None = None) -> None:
        """Retrieval refreshes recency, for the agent who retrieved (one agent's reading never
        changes another's ranking). ``last_access`` on the record is the latest by anyone."""
        seen = self._access.setdefault(agent, {}) if agent is not None else None
        for rid in ids:
            rec = self.records.get(rid)
            if rec is None:
                continue
            if seen is not None and seen.get(rid, rec.turn) < turn:
                seen[rid] = turn
            if rec.last_access < turn:
                rec.last_access = turn

    def last_access(self, agent: str, rec: MemoryRecord) -> int:
        """When ``agent`` last retrieved ``rec`` (its write turn if never)."""
        return self._access.get(agent, {}).get(rec.id, rec.turn)

    # --- reading -------------------------------------------------------------------
    def get(self, agent: str, rid: str) -> MemoryRecord:
        rec = self.records.get(rid)
        if rec is None:
            raise KeyError(f"no memory {rid!r}")
        if rec.scope not in readable_scopes(agent):
            raise ScopeError(
                f"{agent!r} may not read {rid!r} (scope {rec.scope!r})",
                hint="agents read shared memory, world facts and their own private memory",
            )
        return rec

    def visible(
        self,
        agent: str,
        kinds: Sequence[str] | None = None,
        min_turn: int | None = None,
        statuses: Sequence[str] | None = ("active",),
    ) -> Iterator[MemoryRecord]:
        scopes = readable_scopes(agent)
        for rec in self.records.values():
            if (
                rec.scope in scopes
                and (kinds is None or rec.kind in kinds)
                and (min_turn is None or rec.turn >= min_turn)
                and (statuses is None or rec.status in statuses)
            ):
                yield rec

    def recent(
        self,
        agent: str,
        min_turn: int,
        kinds: Sequence[str] | None = None,
        statuses: Sequence[str] | None = ("active",),
    ) -> list[MemoryRecord]:
        """Readable records written at ``min_turn`` or later, oldest first (scans back from the newest)."""
        scopes = readable_scopes(agent)
        out = []
        for rid in reversed(self.records):
            rec = self.records[rid]
            if rec.turn < min_turn:
                break
            if (
                rec.scope in scopes
                and (kinds is None or rec.kind in kinds)
                and (statuses is None or rec.status in statuses)
            ):
                out.append(rec)
        out.reverse()
        return out

    def anchors(self, agent: str) -> list[MemoryRecord]:
        scopes = readable_scopes(agent)
        return [
            self.records[i]
            for i in self._anchors
            if self.records[i].scope in scopes and self.records[i].status == "active"
        ]

    def search(
        self,
        agent: str,
        vector: np.ndarray,
        k: int,
        kinds: Sequence[str] | None = None,
        min_turn: int | None = None,
        statuses: Sequence[str] | None = ("active",),
    ) -> list[tuple[MemoryRecord, float]]:
        """Top-k by cosine similarity among the agent's readable memories (never anyone else's)."""
        from memory.store import Where

        self.flush()
        where = Where(
            scopes=readable_scopes(agent),
            kinds=tuple(kinds) if kinds else None,
            min_turn=min_turn,
            status=tuple(statuses) if statuses else None,
        )
        hits = self.store.query(np.asarray(vector, dtype=np.float32), k, where)
        scopes = readable_scopes(agent)
        out = []
        for rid, sim in hits:
            rec = self.records.get(rid)
            if rec is not None and rec.scope in scopes:  # defence in depth: the bank enforces scopes itself
                out.append((rec, float(sim)))
        return out

    def search_many(
        self,
        agent: str,
        vectors: Sequence[np.ndarray],
        k: int,
        kinds: Sequence[str] | None = None,
        min_turn: int | None = None,
        statuses: Sequence[str] | None = ("active",),
    ) -> list[list[tuple[MemoryRecord, float]]]:
        """``search`` for several query vectors; one pass over the store when it supports it."""
        from memory.store import Where

        if not hasattr(self.store, "query_many") or len(vectors) < 2:
            return [self.search(agent, v, k, kinds, min_turn, statuses) for v in vectors]
        self.flush()
        scopes = readable_scopes(agent)
        where = Where(
            scopes=scopes,
            kinds=tuple(kinds) if kinds else None,
            min_turn=min_turn,
            status=tuple(statuses) if statuses else None,
        )
        results = self.store.query_many(np.stack([np.asarray(v, dtype=np.float32) for v in vectors]), k, where)
        return [
            [
                (self.records[rid], float(sim))
                for rid, sim in hits
                if rid in self.records and self.records[rid].scope in scopes
            ]
            for hits in results
        ]

    def lexical_search(
        self,
        agent: str,
        text: str,
        k: int,
        kinds: Sequence[str] | None = None,
        min_turn: int | None = None,
        statuses: Sequence[str] | None = ("active",),
    ) -> list[tuple[MemoryRecord, float]]:
        """The ``k`` memories the agent reads that share the most rare words with ``text`` (BM25), as
        ``search`` filters them: the indexed member of each template group, of ``kinds``, statuses and turns."""
        sees = self._sees_filter(agent, kinds, min_turn, statuses)

        def keep(rid: str) -> bool:
            r = self.records.get(rid)
            return r is not None and rid not in self._hidden and sees(r)

        return [(self.records[rid], score) for rid, score in self.lexicon.search(text, k, keep)]

    def neighbours(
        self,
        agent: str,
        recs: Iterable[MemoryRecord],
        kinds: Sequence[str] | None = None,
        min_turn: int | None = None,
        statuses: Sequence[str] | None = ("active",),
    ) -> list[MemoryRecord]:
        """The memories written just before and just after each of ``recs`` that the agent reads, of
        ``kinds``, statuses and turns (hidden template members too: a neighbour is read by position)."""
        sees = self._sees_filter(agent, kinds, min_turn, statuses)
        out = []
        for rec in recs:
            for seq in (rec.seq - 1, rec.seq + 1):
                r = self.records.get(f"m{seq}")
                if r is not None and sees(r):
                    out.append(r)
        return out

    @staticmethod
    def _sees_filter(agent: str, kinds, min_turn: int | None, statuses):
        """Whether a record is one ``agent`` reads, of ``kinds`` and ``statuses``, written at ``min_turn`` or later."""
        scopes = set(readable_scopes(agent))
        kinds_, statuses_ = set(kinds) if kinds else None, set(statuses) if statuses else None

        def sees(r: MemoryRecord) -> bool:
            return (
                r.scope in scopes
                and (statuses_ is None or r.status in statuses_)
                and (kinds_ is None or r.kind in kinds_)
                and (min_turn is None or r.turn >= min_turn)
            )

        return sees

    def said_once_of(
        self, agent: str, names_: Iterable[str], most: int, statuses: Sequence[str] = LIVE, min_turn: int | None = None
    ) -> list[MemoryRecord]:
        """The newest ``most`` memories per name that name it and were said only once (no other of
        their template), from scopes the agent reads."""
        out: list[MemoryRecord] = []
        for name in names_:
            ids = [i for s in readable_scopes(agent) for i in self._once.get(s, {}).get(name, ())]
            recs = (self.records[i] for i in sorted(ids, key=lambda i: -self.records[i].seq))
            out += [r for r in recs if r.status in statuses and (min_turn is None or r.turn >= min_turn)][:most]
        return out

    def linked(self, agent: str, text: str, most: int = 2) -> list[str]:
        """Names the agent's memories tie to ``text``'s words that ``text`` does not say
        (``memory.linking``): the seller of the thing a question asks about."""
        words = concepts(text)
        scopes = [self._links[s] for s in readable_scopes(agent) if s in self._links]
        return linked(scopes, words, names(text), most=most) if scopes else []

    def vectors(self, ids: Sequence[str]) -> np.ndarray:
        """Vectors of ``ids``; pending writes are embedded only when one of them is still pending (so a
        read in the middle of a round leaves the round's other writes to its one batch)."""
        if any(i not in self._rows for i in ids):
            self.flush()
        if not ids:
            return np.zeros((0, self._mat.shape[1]), dtype=np.float32)
        return self._mat[[self._rows[i] for i in ids]]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.embedder(list(texts)), dtype=np.float32)

    def __len__(self) -> int:
        return len(self.records)

    def indexed(self) -> int:
        """How many memories the store indexes: every embedded one but the older members of a group."""
        return len(self._rows) - len(self._hidden)

    # --- persistence -----------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """Records only: vectors are rebuilt from text on load (the embedder caches them)."""
        return {
            "seq": self._seq,
            "records": [r.to_dict() for r in self.records.values()],
            "corrections": list(self._corrections),  # statements still to be checked at the next flush
            "access": {
                a: dict(sorted(v.items(), key=lambda kv: self.records[kv[0]].seq))
                for a, v in sorted(self._access.items())
            },
        }

    def set_state(self, state: dict[str, Any]) -> None:
        self.store.reset()
        self.records = {}
        self._rows, self._n, self._pending = {}, 0, []
        self._mat = np.zeros((0, self._mat.shape[1]), dtype=np.float32)
        self._vocab, self._claims, self._anchors, self._links, self._once = {}, {}, [], {}, {}
        self._groups, self._corrections, self._gkeys = {}, [], {}
        self._newest, self._hidden, self._group_cache = {}, set(), {}
        self.lexicon = LexicalIndex()
        for d in state["records"]:
            rec = MemoryRecord.from_dict(d)
            self.records[rec.id] = rec
            self.lexicon.add(rec.id, rec.text)
            if rec.anchor:
                self._anchors.append(rec.id)
            words = concepts(rec.text)
            self._vocab.setdefault(rec.scope, set()).update(words)
            self._links.setdefault(rec.scope, Links()).add(words, rec.text)
            if rec.triple is not None and rec.kind in ("claim", "fact"):
                self._claims.setdefault((rec.triple[0], rec.triple[1]), []).append(rec.id)
            self._note_group(rec, restoring=True)
            self._pending.append(rec.id)
        self._seq = int(state["seq"])
        self._corrections = [i for i in state.get("corrections", ()) if i in self.records]
        self._access = {
            a: {k: int(t) for k, t in v.items() if k in self.records} for a, v in state.get("access", {}).items()
        }
