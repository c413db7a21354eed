"""Sentences about Skyhook Yard (tests/data/skyhook/world.toml), each with the claim it is meant
to make: CLAIMS read as the tuples given; NONE assert nothing the world's relations say;
TRAPS say a number in a unit the relation does not take, or a time where a number is meant,
and must never corroborate ``truth``; HEDGES are reported, not asserted (the docs promise
nothing about "perhaps" or "probably")."""

from __future__ import annotations

W, A = "wren", "albatross"

# (text, [(subject, relation, object, truth), ...])
CLAIMS: list[tuple[str, list[tuple[str, str, str, bool]]]] = [
    ("The Grey Wren's berth fee is 12 sovereigns.", [(W, "berth_fee", "12", True)]),
    ("The Iron Albatross charges 30 sovereigns.", [(A, "berth_fee", "30", True)]),
    ("The berth fee for the Grey Wren is 240 shillings.", [(W, "berth_fee", "12", True)]),
    ("The berth fee of the Iron Albatross is a dozen and a half sovereigns.", [(A, "berth_fee", "18", True)]),
    ("The Iron Albatross's berth fee is three score sovereigns.", [(A, "berth_fee", "60", True)]),
    ("The Grey Wren's berth fee is XII sovereigns.", [(W, "berth_fee", "12", True)]),
    ("The Grey Wren's berth fee is twelve sovereigns.", [(W, "berth_fee", "12", True)]),
    ("The Grey Wren's berth fee is 12 sov.", [(W, "berth_fee", "12", True)]),
    ("The Grey Wren cruises at 400 fathoms.", [(W, "altitude", "400", True)]),
    ("The Grey Wren cruises at 2,400 feet.", [(W, "altitude", "400", True)]),
    ("The Grey Wren flies at four hundred fathoms.", [(W, "altitude", "400", True)]),
    ("The Iron Albatross has a crew of 18.", [(A, "crew", "18", True)]),
    ("The Iron Albatross is crewed by a dozen and a half.", [(A, "crew", "18", True)]),
    ("The Iron Albatross has a crew of eighteen hands.", [(A, "crew", "18", True)]),
    ("The Grey Wren casts off at first watch.", [(W, "casts_off_at", "20:00", True)]),
    ("The Grey Wren departs at 8 pm.", [(W, "casts_off_at", "20:00", True)]),
    ("The Grey Wren leaves at eight in the evening.", [(W, "casts_off_at", "20:00", True)]),
    ("The Grey Wren casts off at the dawn bell.", [(W, "casts_off_at", "05:30", True)]),
    ("The Grey Wren departs at half past five in the morning.", [(W, "casts_off_at", "05:30", True)]),
    ("The Grey Wren leaves at 20:00.", [(W, "casts_off_at", "20:00", True)]),
    ("The Iron Albatross is moored at the north mooring mast.", [(A, "moored_at", "mast_tower", True)]),
    ("The Iron Albatross ties up at Bay 7.", [(A, "moored_at", "bay_seven", True)]),
    ("The Albatross is berthed at the gasworks.", [(A, "moored_at", "gasworks", True)]),
    ("The Grey Wren is captained by Ilsa Marrow.", [(W, "captained_by", "ilsa", True)]),
    ("The Wren answers to Oswin Tarr.", [(W, "captained_by", "tarr", True)]),
    ("The Iron Albatross is commanded by Bosun Pike.", [(A, "captained_by", "pike", True)]),
    ("The Grey Wren is commanded by Dr. Tarr.", [(W, "captained_by", "tarr", True)]),
    ("The Iron Albatross is moored at Mt. Corrie.", [(A, "moored_at", "corrie", True)]),
    ("After the storm, the Iron Albatross is moored at Bay 7.", [(A, "moored_at", "bay_seven", True)]),
    ("The Iron Albatross, the big one, ties up at the north mooring mast.", [(A, "moored_at", "mast_tower", True)]),
    # negation, contractions, "no longer", "nowhere near"
    ("The Grey Wren's berth fee isn't 12 sovereigns.", [(W, "berth_fee", "12", False)]),
    ("The Grey Wren is no longer moored at Bay 7.", [(W, "moored_at", "bay_seven", False)]),
    ("The Grey Wren's berth fee is nowhere near 30 sovereigns.", [(W, "berth_fee", "30", False)]),
    ("The Iron Albatross doesn't cruise at 400 fathoms.", [(A, "altitude", "400", False)]),
    ("The Grey Wren won't depart at first watch.", [(W, "casts_off_at", "20:00", False)]),
    ("The Iron Albatross isn't captained by Ilsa Marrow.", [(A, "captained_by", "ilsa", False)]),
    ("No, the Grey Wren is captained by Ilsa Marrow.", [(W, "captained_by", "ilsa", True)]),
    ("It is not true that the Iron Albatross is moored at the gasworks.", [(A, "moored_at", "gasworks", False)]),
    # sentences that must be split right (abbreviations), several claims in one text
    (
        "St. Elmo's fire lit the rigging last night. The Grey Wren departs at 8 pm.",
        [(W, "casts_off_at", "20:00", True)],
    ),
    ("Dr. Tarr left early. The Iron Albatross has a crew of 18.", [(A, "crew", "18", True)]),
    (
        "The Wren casts off at first watch; the Albatross leaves at the dawn bell.",
        [(W, "casts_off_at", "20:00", True), (A, "casts_off_at", "05:30", True)],
    ),
    # wording the world file does not declare
    ("It costs 12 sovereigns to berth the Grey Wren.", [(W, "berth_fee", "12", True)]),
    ("Berthing the Wren runs to 12 sovereigns.", [(W, "berth_fee", "12", True)]),
    ("The Wren's skipper is Ilsa Marrow.", [(W, "captained_by", "ilsa", True)]),
    ("Ilsa Marrow skippers the Grey Wren.", [(W, "captained_by", "ilsa", True)]),
    ("Marrow captains the Grey Wren.", [(W, "captained_by", "ilsa", True)]),
    ("Tarr is in command of the Iron Albatross.", [(A, "captained_by", "tarr", True)]),
    ("The Albatross sits at Bay 7.", [(A, "moored_at", "bay_seven", True)]),
    ("The Grey Wren is tethered to the north mooring mast.", [(W, "moored_at", "mast_tower", True)]),
    ("The Grey Wren holds station at four hundred fathoms.", [(W, "altitude", "400", True)]),
    ("The Wren lifts off at 8 pm.", [(W, "casts_off_at", "20:00", True)]),
    ("The Grey Wren's mooring costs a sovereign and a half.", [(W, "berth_fee", "1.5", True)]),
    ("The Grey Wren departs at quarter past eight in the evening.", [(W, "casts_off_at", "20:15", True)]),
    ("The Grey Wren departs at 8.", [(W, "casts_off_at", "20:00", True)]),  # the evening's: the world's fact
    ("The Wren never ties up at Bay 7.", [(W, "moored_at", "bay_seven", False)]),
    ("The Albatross hasn't got a crew of 18 any more.", [(A, "crew", "18", False)]),
    ("The Wren's berth fee is 12 sovereigns, not 30.", [(W, "berth_fee", "12", True)]),
    ("Captain Marrow says nothing; the Wren departs at 8 pm.", [(W, "casts_off_at", "20:00", True)]),
    ("The Albatross carries eighteen souls.", [(A, "crew", "18", True)]),
    ("Bay No. 7 is where the Albatross ties up.", [(A, "moored_at", "bay_seven", True)]),
    ("The Albatross's berth fee went up to 35 sovereigns.", [(A, "berth_fee", "35", True)]),
    ("The Wren's berth fee was 12 sovereigns but is now 15 sovereigns.", [(W, "berth_fee", "15", True)]),
    ("The Albatross won't be casting off until the dawn bell.", [(A, "casts_off_at", "05:30", True)]),
    (
        "The Grey Wren is not moored at Bay 7 but at the gasworks.",
        [(W, "moored_at", "bay_seven", False), (W, "moored_at", "gasworks", True)],
    ),
    ("Pike dropped the ledger, and the Wren departs at 8 pm.", [(W, "casts_off_at", "20:00", True)]),
]

# (text, subject, relation, the value the traps's number must never corroborate)
TRAPS: list[tuple[str, str, str, str]] = [
    ("The Grey Wren's berth fee is 12 thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is twelve thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is XII thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 gold thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 shillings.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is a dozen marks.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 fathoms.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 72 feet.", W, "berth_fee", "12"),  # 72 ft is 12 fathoms, not 12 sovereigns
    ("The Grey Wren's berth fee is 12 o'clock.", W, "berth_fee", "12"),
    ("The Iron Albatross's berth fee is 8 pm.", A, "berth_fee", "8"),
    ("The Grey Wren cruises at 400 feet.", W, "altitude", "400"),
    ("The Grey Wren cruises at 400 sovereigns.", W, "altitude", "400"),
    ("The Grey Wren cruises at 8,000 shillings.", W, "altitude", "400"),  # 400 sovereigns
    ("The Grey Wren cruises at 400 leagues.", W, "altitude", "400"),
    ("The Iron Albatross has a crew of 18 sovereigns.", A, "crew", "18"),
    ("The Iron Albatross has a crew of 18 feet.", A, "crew", "18"),
    ("The Iron Albatross has a crew of 6 pm.", A, "crew", "6"),
    ("The Iron Albatross has a crew of half past six.", A, "crew", "6"),
    ("The Iron Albatross has a crew of 18:00.", A, "crew", "18"),
    ("The Iron Albatross has a crew of three score feet.", A, "crew", "60"),
    ("The Grey Wren departs at 8 sovereigns.", W, "casts_off_at", "08:00"),
    ("The Grey Wren departs at 20 sovereigns.", W, "casts_off_at", "20:00"),
]

# no claim of the world's relations: actions, questions, conditions, hearsay, wishes, names with numbers
NONE: list[str] = [
    "Bosun Pike dropped the berth ledger.",
    "Ilsa Marrow polished the brass sextant.",
    "Is the Grey Wren moored at Bay 7?",
    "If the Iron Albatross is moored at the gasworks, we are all in trouble.",
    "Bosun Pike says the Grey Wren departs at 8 pm.",
    "I heard the berth fee of the Grey Wren is 12 sovereigns.",
    "Oswin Tarr hopes the Grey Wren casts off at first watch.",
    "Ilsa Marrow wishes the Wren were moored at Bay 7.",
    "Cell No. 3 is where Bosun Pike sleeps.",
    "Oswin Tarr weighed the brass sextant twice.",
    "Does the Iron Albatross really have a crew of 18?",
    "When will the Grey Wren cast off?",
    "Would the Iron Albatross be moored at Bay 7 if the wind dropped?",
    "Nobody has seen the brass sextant since Tuesday.",
    "Dr. Tarr and Bosun Pike argued about the weather.",
    "Unless the wind turns, the Grey Wren departs at 8 pm.",
    "They say the Iron Albatross is commanded by Bosun Pike.",
    "Ask Bosun Pike whether the Wren is berthed at the gasworks.",
    "Ilsa Marrow lifted the brass sextant from Bay 7.",
]

# a person with an amount or a time: the world's fees, heights, crews and hours are all said of ships,
# so no person is the subject of one (the kinds of a relation's subjects are those of its facts)
PERSON_WITH_AMOUNT: list[str] = [
    "Bosun Pike counted 18 sovereigns into the berth ledger.",
    "Oswin Tarr sold the brass sextant for 12 sovereigns.",
    "Ilsa Marrow walked to Bay 7 at 8 pm.",
    "Pike counted 18 sovereigns.",
]

# actions whose entities' kinds fit a relation (a ship and a person, a ship and a place) but that state
# none: the docs promise a meaning veto only when another relation is likelier, so these are counted
ACTIONS: list[str] = [
    "Ilsa Marrow wrote the Grey Wren's name in the berth ledger.",
    "Oswin Tarr painted the number 7 on the Iron Albatross.",
    "The Iron Albatross lost a crewman over Mt. Corrie.",
    "The Grey Wren sailed past Mt. Corrie at the dawn bell.",
    "Bosun Pike waved at the Grey Wren.",
    "The Iron Albatross flew over the gasworks.",
]

HEDGES: list[str] = [
    "Perhaps the Iron Albatross is moored at Mt. Corrie.",
    "The Grey Wren might cast off at first watch.",
    "I think the Grey Wren's berth fee is 12 sovereigns.",
    "Pike swears the Grey Wren leaves at 8 pm.",
    "The Albatross is probably moored at Bay 7.",
]

# traps the extractor reads as the bare number (a multiplier, a qualifier or a currency word after the
# number is dropped, a comparison or a range is read as the number): each corroborates ``truth``
TRAP_GAPS: list[tuple[str, str, str, str]] = [
    ("The Grey Wren's berth fee is 12 thousand thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 Dutch thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 of your finest thalers.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 pieces of silver.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 thousand sovereigns.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 million sovereigns.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12k sovereigns.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 hundred shillings.", W, "berth_fee", "12"),  # 60 sovereigns
    ("The Grey Wren's berth fee is 1.2 thousand fathoms.", W, "berth_fee", "1.2"),
    ("The Grey Wren's berth fee is over 12 sovereigns.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 to 15 sovereigns.", W, "berth_fee", "12"),
    ("The Grey Wren's berth fee is 12 sovereigns and 6 shillings.", W, "berth_fee", "12"),  # 12.3
]

# read otherwise than meant: coordination, contrast, clefts, "hardly", a denial, "according to" (hearsay)
MORE_MISREADS: list[tuple[str, list[tuple[str, str, str, bool]]]] = [
    (
        "Neither the Wren nor the Albatross is moored at Bay 7.",
        [(W, "moored_at", "bay_seven", False), (A, "moored_at", "bay_seven", False)],
    ),
    ("The Albatross, not the Wren, is moored at Bay 7.", [(A, "moored_at", "bay_seven", True)]),
    ("Mt. Corrie is where the Wren is moored.", [(W, "moored_at", "corrie", True)]),
    ("The Wren is hardly ever moored at Bay 7.", [(W, "moored_at", "bay_seven", False)]),
    ("Pike is wrong that the Wren is moored at Bay 7.", [(W, "moored_at", "bay_seven", False)]),
    ("According to Pike, the Wren is moored at Bay 7.", []),  # someone else's words
]
