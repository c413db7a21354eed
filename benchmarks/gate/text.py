"""Vocabulary and written text for the gate benchmark's world (see ``gate_stream``).

Everything here is plain data and string formatting: the names and aliases of
the world's things, the relations' phrasings the game's lexicon knows, number
words, and hand-written sentence templates. The paraphrase templates were
written as an NPC might say a thing; they were not derived from any rule the
gate uses to normalise claims.
"""

from __future__ import annotations

ITEMS = [
    ("gem", ["red gem", "ruby"]),
    ("sword", ["old sword", "blade"]),
    ("map", ["sea map", "chart"]),
    ("key", ["iron key"]),
    ("lamp", ["brass lamp", "lantern"]),
    ("ring", ["silver ring"]),
    ("tome", ["spell book", "grimoire"]),
    ("cloak", ["grey cloak", "mantle"]),
    ("flute", ["bone flute"]),
    ("crown", ["golden crown", "circlet"]),
    ("dagger", ["black dagger", "dirk"]),
    ("compass", ["brass compass"]),
    ("amulet", ["jade amulet", "charm"]),
    ("goblet", ["silver goblet", "chalice"]),
    ("scroll", ["sealed scroll"]),
    ("shield", ["oak shield", "buckler"]),
    ("helm", ["steel helm", "helmet"]),
    ("bow", ["yew bow", "longbow"]),
    ("harp", ["little harp", "lyre"]),
    ("mirror", ["hand mirror", "looking glass"]),
    ("idol", ["stone idol", "statuette"]),
    ("locket", ["golden locket"]),
    ("spyglass", ["telescope"]),
    ("hourglass", ["sand glass"]),
    ("anchor", ["ship anchor"]),
    ("saddle", ["leather saddle"]),
    ("drum", ["war drum"]),
    ("mask", ["white mask"]),
    ("lute", ["cedar lute"]),
    ("candlestick", ["candelabra"]),
    ("tiara", ["diamond tiara"]),
    ("staff", ["walking stick"]),
    ("pendant", ["moon pendant"]),
    ("urn", ["funeral urn"]),
    ("bell", ["brass bell"]),
    ("quill", ["silver quill"]),
    ("orb", ["crystal orb", "seeing stone"]),
    ("whistle", ["tin whistle"]),
    ("banner", ["war banner", "flag"]),
    ("brooch", ["emerald brooch"]),
]
PLACES = [
    ("chest", ["oak chest"]),
    ("well", ["old well"]),
    ("mill", ["old mill", "watermill"]),
    ("cellar", ["wine cellar"]),
    ("tower", ["north tower"]),
    ("docks", ["harbour", "wharf"]),
    ("chapel", ["stone chapel"]),
    ("stable", ["stables"]),
    ("vault", ["bank vault"]),
    ("forge", ["smithy"]),
    ("library", ["reading room"]),
    ("attic", ["loft"]),
    ("cave", ["sea cave"]),
    ("tavern", ["inn", "alehouse"]),
    ("garden", ["herb garden"]),
    ("crypt", ["family crypt"]),
    ("barn", ["hay barn"]),
    ("lighthouse", ["beacon"]),
    ("bridge", ["stone bridge"]),
    ("kitchen", ["scullery"]),
]
PEOPLE = [
    ("ada", ["Ada Finch"]),
    ("bram", ["Bram Hollow"]),
    ("cora", ["Cora Vance"]),
    ("dov", ["Dov Reed"]),
    ("elin", ["Elin Marsh"]),
    ("fenn", ["Fenn Stroud"]),
    ("gwen", ["Gwen Ashby"]),
    ("hale", ["Hale Dunmore"]),
    ("ivo", ["Ivo Crane"]),
    ("juno", ["Juno Pike"]),
    ("kell", ["Kell Brant"]),
    ("lark", ["Lark Sutton"]),
    ("mira", ["Mira Holt"]),
    ("nils", ["Nils Barrow"]),
    ("odo", ["Odo Penn"]),
    ("pia", ["Pia Wren"]),
    ("quin", ["Quin Darrow"]),
    ("rhea", ["Rhea Cobb"]),
    ("sten", ["Sten Fairweather"]),
    ("tova", ["Tova Lind"]),
]
SOURCE_NAMES = [
    "mara",
    "tobin",
    "oswin",
    "greta",
    "pell",
    "wyn",
    "harl",
    "sabine",
    "rook",
    "ysolde",
    "bertil",
    "nadia",
    "corwin",
    "edda",
    "falk",
    "linnea",
    "marek",
    "sorrel",
    "agna",
    "brisk",
]
PRICES = [
    5,
    8,
    10,
    12,
    15,
    20,
    25,
    30,
    35,
    40,
    45,
    50,
    60,
    70,
    75,
    80,
    90,
    100,
    120,
    150,
    175,
    200,
    250,
    300,
    350,
    400,
    450,
]

# relation id -> what the game's lexicon knows about it (fields of memory.lexicon.RelationInfo)
RELATIONS = {
    "located_in": {
        "aliases": ("is in", "lies in", "is hidden in", "is kept in"),
        "functional": True,
        "changes": True,
        "half_life": 30,
    },
    "price": {
        "aliases": ("costs", "sells for", "is priced at"),
        "functional": True,
        "changes": True,
        "half_life": 40,
        "range": (1, 500),
        "unit": "gold",
    },
    "owned_by": {
        "aliases": ("belongs to", "is owned by", "is the property of"),
        "functional": True,
        "changes": True,
        "half_life": 80,
    },
    "knows": {"aliases": ("is acquainted with", "has met")},
    "arrives_before": {"aliases": ("comes before", "gets in ahead of"), "temporal": "before"},
    "arrives_after": {"aliases": ("comes after",), "temporal": "after"},
}
FUNCTIONAL = ("located_in", "price", "owned_by")
TOPIC = {
    "located_in": "whereabouts",
    "price": "trade",
    "owned_by": "ownership",
    "knows": "people",
    "arrives_before": "arrivals",
    "arrives_after": "arrivals",
}
TOPICS = ("whereabouts", "trade", "ownership", "people", "arrivals")
PERSON_RELATIONS = ("knows", "arrives_before", "arrives_after")

# plain sentences: the first phrasing of each relation, positive and negated
PLAIN = {
    "located_in": ("The {s} is in the {o}.", "The {s} is not in the {o}."),
    "price": ("The {s} costs {o}.", "The {s} does not cost {o}."),
    "owned_by": ("The {s} belongs to {o}.", "The {s} does not belong to {o}."),
    "knows": ("{s} knows {o}.", "{s} does not know {o}."),
    "arrives_before": ("{s} arrives before {o}.", "{s} does not arrive before {o}."),
    "arrives_after": ("{s} arrives after {o}.", "{s} does not arrive after {o}."),
}
PLAIN_REL = {
    "located_in": "is in",
    "price": "costs",
    "owned_by": "belongs to",
    "knows": "knows",
    "arrives_before": "arrives before",
    "arrives_after": "arrives after",
}
# relation synonyms the lexicon lists, used with a sentence frame: (frame, the phrase as written)
SYNONYM_FRAMES = {
    "located_in": [
        ("The {s} lies in the {o}.", "lies in"),
        ("The {s} is hidden in the {o}.", "is hidden in"),
        ("The {s} is kept in the {o}.", "is kept in"),
    ],
    "price": [("The {s} sells for {o}.", "sells for"), ("The {s} is priced at {o}.", "is priced at")],
    "owned_by": [
        ("The {s} is owned by {o}.", "is owned by"),
        ("The {s} is the property of {o}.", "is the property of"),
    ],
    "knows": [("{s} is acquainted with {o}.", "is acquainted with"), ("{s} has met {o}.", "has met")],
    "arrives_before": [("{s} comes before {o}.", "comes before"), ("{s} gets in ahead of {o}.", "gets in ahead of")],
    "arrives_after": [("{s} comes after {o}.", "comes after")],
}

# Written paraphrases: (relation, truth, template, the relational phrase as written). {s} subject,
# {o} object (a thing, a place or a person), {n} a price in digits, {w} a price in words.
# "swap" templates name the object first: the claim is still (s, relation, o).
PARAPHRASES = [
    ("located_in", True, "Word around town is the {s}'s down in the {o} now.", "'s down in"),
    ("located_in", True, "If you're after the {s}, try the {o}.", "try"),
    ("located_in", True, "Last I saw, the {s} was sitting in the {o}.", "was sitting in"),
    ("located_in", True, "Someone stashed the {s} in the {o}.", "stashed in"),
    ("located_in", True, "You'll find the {s} in the {o}, I'd bet my boots on it.", "find in"),
    ("located_in", True, "They moved the {s} to the {o} this morning.", "moved to"),
    ("located_in", True, "The {o} is where the {s} ended up.", "is where ended up"),
    ("located_in", True, "Check the {o}; the {s} is there.", "is there"),
    ("located_in", True, "The {s} has been in the {o} since the storm.", "has been in"),
    ("located_in", True, "I hid the {s} in the {o} myself.", "hid in"),
    ("located_in", False, "The {s} isn't in the {o} anymore.", "isn't in"),
    ("located_in", False, "Don't bother with the {o}, the {s} is long gone from there.", "is gone from"),
    ("located_in", False, "Whatever they told you, the {s} is not in the {o}.", "is not in"),
    ("located_in", False, "You won't find the {s} in the {o}.", "won't find in"),
    ("price", True, "You'll pay {n} gold for the {s}, no less.", "pay for"),
    ("price", True, "The {s}? {W} gold, and that's a bargain.", "?"),
    ("price", True, "The merchant wants {n} gold for the {s}.", "wants for"),
    ("price", True, "{W} gold coins buys you the {s}.", "buys you"),
    ("price", True, "The {s} will set you back {n} gold.", "will set you back"),
    ("price", True, "Price on the {s} is {n} gold these days.", "price on is"),
    ("price", True, "They're asking {w} gold for the {s}.", "asking for"),
    ("price", False, "The {s} doesn't go for {n} gold, whatever the sign says.", "doesn't go for"),
    ("price", False, "Nobody sells the {s} for {n} gold anymore.", "nobody sells for"),
    ("owned_by", True, "The {s} is {o}'s now.", "is 's"),
    ("owned_by", True, "{o} bought the {s} last week.", "bought"),
    ("owned_by", True, "That {s} belongs to {o}, hands off.", "belongs to"),
    ("owned_by", True, "The {s}? {o} owns it.", "owns it"),
    ("owned_by", True, "{o} is the one with the {s} these days.", "is the one with"),
    ("owned_by", False, "{o} doesn't own the {s} anymore.", "doesn't own"),
    ("owned_by", False, "The {s} isn't {o}'s.", "isn't 's"),
    ("knows", True, "{s} and {o} go way back.", "go way back"),
    ("knows", True, "{s} has met {o} before.", "has met"),
    ("knows", True, "{s} knows {o} well.", "knows well"),
    ("knows", True, "{s} can vouch for {o}, they're old friends.", "can vouch for"),
    ("knows", False, "{s} has never met {o}.", "has never met"),
    ("knows", False, "{s} wouldn't know {o} if they walked past.", "wouldn't know"),
    ("knows", False, "{s} and {o} are strangers to each other.", "are strangers to"),
    ("arrives_before", True, "{s} turned up before {o} did.", "turned up before"),
    ("arrives_before", True, "{s} was already here when {o} arrived.", "was already here when arrived"),
    ("arrives_before", True, "{s} got in ahead of {o}.", "got in ahead of"),
    ("arrives_after", True, "{s} showed up after {o}.", "showed up after"),
    ("arrives_after", True, "{o} was here first, {s} came later.", "came later than"),
    ("arrives_before", False, "{s} did not get here before {o}.", "did not get here before"),
]
UNIT_FORMS = ["{n} gold", "{n} gold coins", "{n} gold pieces", "{n} coins", "{n}gp"]
WORD_FORMS = ["{w}", "{w} gold", "{w} gold coins"]

_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def number_words(n: int, rng_pick: int = 0) -> str:
    """English words for 0..999: 25 -> 'twenty-five', 120 -> 'a hundred and twenty' or 'one hundred twenty'
    (rng_pick chooses between the spoken variants of the hundreds)."""
    if not 0 <= n < 1000:
        raise ValueError(n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    hundreds, rest = divmod(n, 100)
    head = "a hundred" if hundreds == 1 and rng_pick % 2 == 0 else f"{_ONES[hundreds]} hundred"
    if not rest:
        return head
    return f"{head} and {number_words(rest)}" if rng_pick % 2 == 0 else f"{head} {number_words(rest)}"


def display(entity: str, kind: str) -> str:
    """How a canonical id is written in text: people capitalised, things as they are."""
    name = entity.replace("_", " ")
    return name.title() if kind == "person" else name


def fill(template: str, **names: str) -> str:
    """Format a template ({s}, {o}, {n}, {w}, {W}) and capitalise the sentence's first letter."""
    out = template.format(**names)
    return out[0].upper() + out[1:]
