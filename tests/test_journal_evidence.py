"""The journal counts what the player sees, typed in the line console (harbor, seed 0): a story the
player's own eyes refute is "Proved false" whichever came first, the examination or the story,
and the true story is "Seen with your own eyes" once the player stands beside the strongbox; a
trade the player closed confirms who sells the thing; what an opened box shows is filed as seen."""

from __future__ import annotations

from tests.conftest import parley

TOLD = "Told, and nothing contradicts it"
CRYPT = "hid it in the crypt"
CAVE = "It's in the sea cave"
TO_THE_CAVE = [  # from the harbormaster's office: a lantern bought from Mara, down the cleft
    "west", "west", "take key", "east", "north", "east", "trade with mara", "offer 18", "accept", "west",
    "south", "south", "south", "unlock cleft with lantern", "down",
]  # fmt: skip


def console(*lines: str) -> list[str]:
    """Play ``lines`` in the line console; the text of each `journal` answer, in order."""
    r = parley("play", "worlds/harbor", "--plain", "--seed", "0", "--no-memory", input="\n".join(lines) + "\n")
    assert r.returncode == 0, r.stderr
    return [
        part.split("\n> ")[0]
        for part in r.stdout.split("\n> ")[1:]
        if part.startswith(("Seen", "Told", "Dis", "Heard", "Proved", "Contra", "Your journal"))
    ]


def section(journal: str, text: str) -> str:
    """The heading of the journal section that lists ``text``."""
    heading = ""
    for line in journal.splitlines():
        if not line.startswith(" "):
            heading = line.rstrip(":")
        elif text in line:
            return heading
    return ""


def test_the_coffin_refutes_the_crypt_story_heard_before_or_after():
    before, after = console(
        "ask jory about strongbox", "north", "west", "ask hobb about strongbox", "east", "north", "down",
        "examine coffin", "journal",
    ), console("north", "north", "down", "examine coffin", "up", "south", "south", "ask jory about strongbox", "journal")  # fmt: skip
    assert section(before[-1], CRYPT) == "Proved false"
    assert section(after[-1], CRYPT) in ("Contradicts what you know", "Proved false", "")
    assert TOLD not in before[-1] + after[-1]


def test_beside_the_strongbox_the_cave_story_is_seen_not_disputed():
    journals = console(
        "ask jory about strongbox", "north", "west", "ask hobb about strongbox", "east", "south", "east",
        "ask ilse about strongbox", *TO_THE_CAVE, "journal",
    )  # fmt: skip
    assert section(journals[-1], CAVE) == "Seen with your own eyes"
    assert section(journals[-1], CRYPT) == "Proved false"


SELLS = "Mara Voss sells storm lanterns"
SEEN = "Seen with your own eyes"
BUY = ["trade with mara", "offer 18", "accept"]


def test_a_trade_the_player_closed_confirms_who_sells_it_heard_before_or_after():
    before, after = console(
        "north", "east", "ask mara about supplies", *BUY, "journal",
    ), console("ask jory about strongbox", "north", "east", *BUY, "ask mara about supplies", "journal")  # fmt: skip
    assert section(before[-1], SELLS) == SEEN  # her words, confirmed by the deal
    assert section(after[-1], "sold by Mara Voss") == SEEN  # the deal came first: filed as what was seen
    assert "Heard, not yet confirmed" not in before[-1] and SELLS not in after[-1]


def test_what_an_opened_box_shows_is_filed_as_seen_not_as_a_line_never_heard():
    journals = console(
        "ask jory about strongbox", *TO_THE_CAVE, "up", "unlock door with key", "up", "take brass key", "down", "down",
        "unlock strongbox with brass key", "open strongbox", "journal",
    )  # fmt: skip
    assert section(journals[-1], "Widow's Pearl is in the strongbox.") == SEEN
    assert "My husband locked my pearl" not in journals[-1]  # Orla's words: the player never heard them
    assert section(journals[-1], CRYPT) == "Proved false"
