"""Entities named by one word of their name: "the Heron" for "Grey Heron", "Dunn" for "Tam Dunn".

People are called by a first name or a surname alone, often after a title ("Mr. Dunn",
"Skipper Vell"); things and places by the head of their name, its last word ("the chart" for
"sea chart", "the Heron"). Such a word names an entity only when it is *distinctive*: no other
entity's name has it, it is no full name of another entity, and it is no common word (a stop
word, a title, a number or a designator such as "No." or "Room", a relation or unit word).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# words that never name anything alone: function words, titles, designators
COMMON = frozenset(
    """a an the of and or but in on at to for from by with into onto over under near off out up down
    is are was were be been being it its this that these those there here he she they we you i me him
    her them his hers their our my your who whom whose which what where when why how not no yes
    all any some many much more most few one two three four five six seven eight nine ten first last
    new old young big small little great good bad long short high low left right north south east west
    upper lower front back inner outer mr mrs ms miss mister madam dr doctor sir dame lady lord master
    mistress captain capt skipper sergeant sgt st saint father mother brother sister uncle aunt king
    queen prince princess no number room lock gate door pier dock row table seat box cell level floor
    page chapter wave crate house street road lane way will can may must shall might could would should
    did does have has had get got""".split()
)


def name_words(
    entities: Mapping[str, Iterable[str]], kinds: Mapping[str, str], full: Iterable[str], reserved: Iterable[str] = ()
) -> dict[str, str]:
    """Distinctive word -> the one entity it names (see the module's doc). ``entities``: id -> names
    as word tuples; ``full``: every whole name (as one string) already known; ``reserved``: words
    that mean something else to a reader (relation and unit words)."""
    taken = set(full) | set(reserved)
    appears: dict[str, set[str]] = {}  # word -> every entity with a name that has it
    heads: dict[str, str] = {}  # word -> an entity it may name alone
    for eid, names in entities.items():
        for toks in names:
            alpha = [t for t in toks if t.isalpha()]
            for w in alpha:
                appears.setdefault(w, set()).add(eid)
            if len(alpha) >= 2:  # a one-word name is a full name already
                for w in alpha if kinds.get(eid) == "person" else alpha[-1:]:
                    heads[w] = eid
    return {
        w: eid
        for w, eid in heads.items()
        if appears.get(w) == {eid} and len(w) > 2 and w not in COMMON and w not in taken
    }
