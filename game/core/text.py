"""Text at the edge: what comes in is made safe to keep, what goes out is made safe to show.

Everything that enters the game as text (stdin, scripts, LLM replies, world
files) passes through ``clean``: bytes that are not UTF-8 become U+FFFD, and
control characters (ANSI escapes, NUL, bell...) and bidirectional overrides
are removed. Cleaned text can always be encoded, hashed, saved and printed.

``shown`` is for the other direction: a value from a file or a flag that is
printed in a message keeps every character, but the invisible and dangerous
ones are written as escapes (``\\x1b``, ``\\u202e``), so a terminal never
interprets them.
"""

from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls except tab and newline; DEL.
_CONTROLS = "".join(chr(c) for c in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0)))
# Bidirectional embeddings, overrides and isolates; marks that reorder text; zero-width tricks.
_BIDI = "\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_UNSAFE = re.compile(f"[{re.escape(_CONTROLS + _BIDI)}]")
_LONE = re.compile("[\ud800-\udfff]")
_SHOWN = re.compile(f"[{re.escape(_CONTROLS + _BIDI)}\r\ud800-\udfff]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def decode(raw: bytes) -> str:
    """Bytes from outside as text: invalid UTF-8 becomes U+FFFD, then ``clean``."""
    return clean(raw.decode("utf-8", errors="replace"))


def clean(text: str, newlines: bool = True) -> str:
    """``text`` safe to keep: lone surrogates (undecodable bytes) become U+FFFD; ANSI escape
    sequences, other control characters and bidi overrides are removed; NFC normalised.
    With ``newlines=False`` line breaks and tabs become spaces (one-line input)."""
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}")
    text = _LONE.sub("\ufffd", text)
    text = _ANSI.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _UNSAFE.sub("", text)
    if not newlines:
        text = text.replace("\n", " ").replace("\t", " ")
    return unicodedata.normalize("NFC", text)


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds lone surrogates (bytes that were not UTF-8, kept by
    ``errors="surrogateescape"``): such text cannot be encoded as UTF-8 as it is."""
    return _LONE.search(text) is not None


def escape_surrogates(text: str) -> str:
    """``text`` with every lone surrogate written as a JSON escape (``\\udcff``): inside a JSON
    string it reads back as the same character, and the result always encodes as UTF-8."""
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def is_clean(text: str) -> bool:
    return clean(text) == text


def shown(text: object) -> str:
    """``text`` for a message: control, bidi and undecodable characters as visible escapes."""
    s = str(text)

    def esc(m: re.Match[str]) -> str:
        c = ord(m.group())
        return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"

    return _SHOWN.sub(esc, s)
