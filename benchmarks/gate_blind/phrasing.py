"""How the towpath talks: sentence templates per relation, names as people write them, and
numbers and times in many forms.

Templates are clauses without the final stop, with ``{s}`` for the subject and ``{o}`` for the
object (a place, a person, a quantity with its unit, or a time). Each is marked ``True`` when it
uses one of the relation's aliases as the world declares them, ``False`` for wording the world
does not declare. The declared aliases are a small part of the wording on purpose.
"""

from __future__ import annotations

POSITIVE = {
    "moored_at": [
        ("{s} is moored at {o}", True),
        ("{s} is tied up at {o}", True),
        ("{s} berths at {o}", True),
        ("{s} lies at {o}", False),
        ("you'll find {s} alongside {o}", False),
        ("{s} is sitting at {o} with her hatches shut", False),
        ("{s} put in at {o} and hasn't stirred", False),
        ("{s} has made fast at {o}", False),
        ("{s} is lying over at {o}", False),
    ],
    "skippered_by": [
        ("{s} is skippered by {o}", True),
        ("{s} is captained by {o}", True),
        ("{o} skippers {s}", False),
        ("{o} has the tiller of {s} now", False),
        ("{o} is master of {s}", False),
        ("the skipper of {s} is {o}", True),
        ("{o} runs {s} these days", False),
        ("{s} is worked by {o}", False),
    ],
    "stored_in": [
        ("{s} is kept in {o}", True),
        ("{s} is stored in {o}", True),
        ("{s} is kept at {o}", True),
        ("they keep {s} in {o} now", False),
        ("{s} sits in {o}", False),
        ("you'll find {s} in {o}", False),
        ("{s} has gone to {o}", False),
        ("{s} ended up in {o}", False),
        ("{s} is locked away in {o}", False),
    ],
    "toll": [
        ("{s} charges {o}", True),
        ("the toll at {s} is {o}", True),
        ("the toll for {s} is {o}", True),
        ("it costs {o} to take a boat through {s}", False),
        ("{s} wants {o} a boat these days", False),
        ("they're asking {o} at {s}", False),
        ("passage through {s} comes to {o}", False),
        ("{s} takes {o} off every boat", False),
        ("you pay {o} at {s}", False),
    ],
    "sill_depth": [
        ("there's {o} of water over the sill at {s}", True),
        ("the depth at {s} is {o}", True),
        ("the depth over the sill at {s} is {o}", True),
        ("{s} has {o} over the sill", False),
        ("{s} is {o} deep at the sill", False),
        ("you'll get {o} of water at {s}", False),
        ("the gauge at {s} reads {o}", False),
        ("{s} is holding {o} of water", False),
    ],
    "opens_at": [
        ("{s} opens at {o}", True),
        ("first passage at {s} is at {o}", True),
        ("the keeper at {s} draws the first paddles at {o}", False),
        ("{s} starts working boats at {o}", False),
        ("{s} lets the first boat through at {o}", False),
        ("{s} opens its gates at {o}", True),
        ("the gates at {s} swing open at {o}", False),
        ("{s} is working from {o}", False),
    ],
}

NEGATIVE = {
    "moored_at": [
        ("{s} isn't moored at {o}", True),
        ("{s} is nowhere near {o}", False),
        ("{s} is no longer at {o}", False),
        ("{s} hasn't been at {o} for days", False),
        ("{s} doesn't berth at {o} any more", True),
        ("{s} is not tied up at {o}", True),
        ("{s} has left {o}", False),
    ],
    "skippered_by": [
        ("{s} isn't skippered by {o}", True),
        ("{o} doesn't skipper {s}", False),
        ("{o} no longer runs {s}", False),
        ("{o} hasn't had the tiller of {s} since the spring", False),
        ("{s} is not captained by {o}", True),
        ("{o} isn't master of {s} any more", False),
    ],
    "stored_in": [
        ("{s} isn't in {o}", False),
        ("{s} is no longer kept in {o}", True),
        ("{s} hasn't been in {o} since the flood", False),
        ("{s} is nowhere near {o}", False),
        ("they don't keep {s} in {o}", False),
        ("{s} is not stored in {o}", True),
    ],
    "toll": [
        ("{s} doesn't charge {o}", True),
        ("the toll at {s} isn't {o}", True),
        ("{s} no longer charges {o}", True),
        ("it isn't {o} at {s}, whatever you've heard", False),
        ("{s} hasn't charged {o} since the spring", True),
        ("the toll at {s} is not {o}", True),
    ],
    "sill_depth": [
        ("there isn't {o} of water at {s}", False),
        ("the depth at {s} isn't {o}", True),
        ("{s} no longer holds {o} over the sill", False),
        ("{s} hasn't had {o} over the sill all week", False),
        ("the gauge at {s} doesn't read {o}", False),
    ],
    "opens_at": [
        ("{s} doesn't open at {o}", True),
        ("{s} no longer opens at {o}", True),
        ("first passage at {s} isn't at {o}", True),
        ("{s} hasn't opened at {o} since the new keeper came", False),
        ("the gates at {s} don't open at {o}", False),
    ],
}

# ways of writing names that the world does not declare
VARIANTS = {
    "heron_lock": ["the Heron lock", "Heron", "heron lock"],
    "lock_no_4": ["Lock Number Four", "the No. 4 lock", "Number 4 Lock", "the fourth lock"],
    "gallows_lock": ["the Gallows lock", "Gallows", "gallows lock"],
    "kingsford_lock": ["the Kingsford lock", "Kingsford"],
    "mill_lock": ["the Mill lock", "the bottom lock", "mill lock"],
    "marigold": ["the marigold", "Marigold's boat", "the old Marigold"],
    "patient_griselda": ["Patient Griselda", "the Grizzle", "the griselda"],
    "tern": ["the fly-boat Tern", "the tern"],
    "old_cob": ["Old Cob", "the Cob barge"],
    "brass_kettle": ["Brass Kettle", "the tar boat Kettle"],
    "sally_bright": ["Sally Bright", "the sally bright"],
    "lock_ledger": ["the company ledger", "the Ledger", "the big ledger"],
    "winch_handles": ["the spare windlass handles", "the windlass bundle"],
    "tar_barrels": ["the barrels of tar", "the Stockholm tar"],
    "sailcloth": ["the sailcloth bolt", "the canvas"],
    "keepers_bell": ["the keepers bell", "the handbell"],
    "stop_planks": ["the stop boards", "the stoplogs"],
    "saint_aldrics_wharf": ["Saint Aldric's Wharf", "St Aldric's wharf", "the church wharf"],
    "coal_staithe": ["the coal staithe", "the Staithe"],
    "tanners_cut": ["Tanners Cut", "the tanners' cut"],
    "chandlers_quay": ["Chandlers Quay", "the chandler's quay"],
    "upper_pound": ["the upper pound", "the top pound"],
    "lower_pound": ["the lower pound", "the bottom pound"],
    "millrace_basin": ["the Millrace basin", "the mill basin"],
    "pellows_landing": ["Doctor Pellow's Landing", "Dr Pellow's landing", "Pellow's Landing"],
    "toll_house": ["the toll-house", "the Tollhouse"],
    "saint_aldrics_vestry": ["Saint Aldric's Vestry", "the vestry", "St Aldric's vestry"],
    "boathouse": ["the boat house", "the company boathouse"],
    "weir_house": ["the weir-house", "the weir keeper's store"],
    "ropewalk": ["the rope walk", "Tamsin's ropewalk"],
    "chandlery": ["the chandlery", "Fairweather's"],
    "ambrose_thorne": ["Mr Thorne", "Thorne", "Ambrose"],
    "hesper_quayle": ["Doctor Quayle", "Dr Quayle", "Hesper"],
    "nell_marrable": ["Mrs. Marrable", "Nell", "the widow"],
    "jory_penhallow": ["young Penhallow", "Penhallow"],
    "sal_fenwick": ["Sally Fenwick", "Fenwick"],
    "idris_vane": ["Capt. Vane", "Vane", "Idris"],
    "tamsin_reed": ["Mrs. Reed", "Reed"],
    "obed_crane": ["Obed", "old Crane"],
    "morwen_ashby": ["Ashby", "Morwen the pie-woman"],
    "piers_gully": ["Piers", "Mr. Gully"],
    "ketta_frome": ["Miss Frome", "Frome"],
    "lem_harrow": ["Lem", "Mr. Harrow"],
}
PLURAL = {"tar_barrels", "stop_planks", "winch_handles"}
AGREEMENT = (("{s} is ", "{s} are "), ("{s} has ", "{s} have "), ("{s} isn't", "{s} aren't"))
AGREEMENT += (("{s} hasn't", "{s} haven't"), ("{s} sits", "{s} sit"), ("{s} doesn't", "{s} don't"))
SHE = {"marigold", "patient_griselda", "tern", "old_cob", "brass_kettle", "sally_bright"}
SHE |= {"hesper_quayle", "nell_marrable", "sal_fenwick", "tamsin_reed", "morwen_ashby", "ketta_frome"}

HEDGES = [
    "I think {c}",
    "as far as I know, {c}",
    "if memory serves, {c}",
    "unless I'm much mistaken, {c}",
    "I'm fairly sure {c}",
    "{c}, I reckon",
    "{c}, or I'm a Dutchman",
    "I'd say {c}",
]
CORRECTIONS = [
    "no, that's wrong: {c}",
    "whoever told you otherwise is mistaken; {c}",
    "let me put that right: {c}",
    "forget what you heard, {c}",
    "that's not so. {C}",
]
UPDATES = ["things have changed: {c}", "as of this morning, {c}", "{c} now", "it's new since yesterday: {c}", "{c}"]
RESTATE = ["as I said, {c}", "still the same: {c}", "{c}, same as ever", "{c}"]
LEAD_INS = {  # a first sentence that makes no claim, for pronoun claims
    "boat": ["I walked past {S} this morning.", "You asked about {S}.", "Don't talk to me about {S}."],
    "store": ["You were asking after {S}.", "I went looking for {S} yesterday."],
    "lock": ["I came down through {S} at first light.", "You'll want to know about {S}."],
}
ABBREVIATED = [  # first sentences with an abbreviation inside
    "I came up from Dr. Pellow's Landing at dawn.",
    "Mr. Thorne was in a temper at the Toll House again.",
    "The boats below Lock No. 4 were queueing past St. Aldric's Wharf.",
    "Dr. Quayle's punt is still on the bank by the church.",
    "Capt. Vane bought the rounds at the Ship, No. 9 Wharf Row.",
]
QUESTIONS = [
    "is {s} still at {o}?",
    "does anyone know whether {s} is at {o}?",
    "has anyone seen {s} lately?",
    "who can tell me about {s}?",
    "is it true {c}?",
    "do you know if {c}?",
]
CONDITIONALS = [
    "if {c}, we'd have heard by now.",
    "should it turn out {c}, send word to the Toll House.",
    "if {c}, I'll eat my hat.",
    "suppose {c}: what then?",
]
HEARSAY = [
    "someone at the Ropewalk was saying {c}, but I wouldn't know.",
    "there's a rumour going round that {c}.",
    "{X} reckons {c}, but {X} will say anything.",
    "a drover told my cousin {c}; make of that what you will.",
]
WISHES = ["I wish {c}.", "they ought to make it so {c}.", "it would suit me fine if {c}."]
NUMBER_TRAPS = {
    "toll": [
        "after {d} weeks shut for repairs, {c}",
        "I've been through {s} {d} times this month, and {c}",
        "{d} boats queued at {s} this morning; {c}",
    ],
    "sill_depth": [
        "after {d} days of rain, {c}",
        "{d} boats went down through {s} today; {c}",
        "the keeper has worked {s} for {d} years, and {c}",
    ],
}
TIME_TRAPS = {
    "toll": ["{s} opens for tolls at {t}", "the toll-house at {s} opens at {t}", "{s} takes its first toll at {t}"],
    "sill_depth": [
        "{s} opens at {t}, once there's water over the sill",
        "the sill gauge at {s} is first read at {t}, when it opens",
    ],
}

WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()
TENS = {20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy", 80: "eighty", 90: "ninety"}
FRACTION_WORDS = {0.25: "a quarter", 0.5: "a half", 0.75: "three quarters"}
FRACTION_SIGNS = {0.25: ("¼", "1/4"), 0.5: ("½", "1/2"), 0.75: ("¾", "3/4")}
DOZENS = {6: "half a dozen", 12: "a dozen", 18: "a dozen and a half", 24: "two dozen", 36: "three dozen"}
ROMAN = ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


def number_word(n: int) -> str:
    if n < len(WORDS):
        return WORDS[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens * 10] + (f"-{WORDS[ones]}" if ones else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{WORDS[hundreds]} hundred" + (f" and {number_word(rest)}" if rest else "")
    raise ValueError(f"no word for {n}")


def in_words(v: float) -> str:
    v = round(v, 6)
    whole, frac = int(v), round(v - int(v), 2)
    if not frac:
        return number_word(whole)
    return f"{number_word(whole)} and {FRACTION_WORDS[frac]}" if whole else FRACTION_WORDS[frac]


def roman(n: int) -> str:
    out = []
    for value, letters in ROMAN * 3:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def digits(v: float) -> str:
    """A value as its shortest digits: 6, 4.5, 0.75 (the stream's object form for numbers)."""
    r = round(float(v), 6)
    return str(int(r)) if r.is_integer() else f"{r:g}"


def with_fraction_sign(v: float, ascii_: bool) -> str:
    whole, frac = int(v), round(v - int(v), 2)
    sign = FRACTION_SIGNS[frac][1 if ascii_ else 0]
    return (f"{whole} {sign}" if ascii_ else f"{whole}{sign}") if whole else sign


def clock(hhmm: str, style: str, named: dict[str, str]) -> str:
    """A time of day written one way: digits24 06:30, ampm 6:30 am, words six in the morning,
    past half past six, oclock seven o'clock in the morning, named noon / dusk / dawn."""
    h, m = (int(x) for x in hhmm.split(":"))
    h12 = h % 12 or 12
    part = "in the morning" if h < 12 else "in the afternoon" if h < 17 else "in the evening"
    if style == "named":
        names = [k for k, v in named.items() if v == hhmm]
        if not names:
            return clock(hhmm, "past", named)
        return names[0]
    if style == "digits24":
        return hhmm
    if hhmm == "12:00" and style != "ampm":
        return "midday" if style == "words" else "twelve noon" if style == "oclock" else "noon"
    if style == "ampm":
        return f"{h12}{':%02d' % m if m else ''} {'am' if h < 12 else 'pm'}"
    if style == "past" and m in (15, 30, 45):
        if m == 45:
            return f"a quarter to {number_word((h12 % 12) + 1)}"
        return f"{'half' if m == 30 else 'a quarter'} past {number_word(h12)}"
    if style == "oclock" and not m:
        return f"{number_word(h12)} o'clock {part}"
    if m == 30 and style == "words":
        return f"{number_word(h12)} thirty {part}"
    if not m:
        return f"{number_word(h12)} {part}"
    return f"{h12}:{m:02d} {'am' if h < 12 else 'pm'}"
