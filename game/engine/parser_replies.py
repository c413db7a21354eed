"""Where a command sits in a machine's reply (an LLM or a text agent that wraps it in prose).

``Parser.parse_reply`` tries the candidates of ``reply_candidates`` in order.
"""

from __future__ import annotations

import re

from game.core.text import clean

_BRACKET = re.compile(r"\[([^\[\]\n]{1,200})\]")
_LABEL = re.compile(
    r"^\s*(?:[*_#>-]+\s*)?(?:final\s+)?(?:action|command|move|answer)\s*[*_]*\s*[:=]\s*[*_]*\s*(.+?)\s*$", re.I | re.M
)
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.S)


_CLAUSE = re.compile(r"\.\.\.|…|[.!?;]\s|\s[—–]\s")  # where a sentence or a thought ends inside a line


def reply_candidates(reply: str) -> list[str]:
    """Where a command may sit in a machine's reply, most explicit first: the last
    ``[bracketed command]``, the last ``Action: ...`` (or Command/Move/Answer) line, the last
    line of a fenced block, the last non-empty line, then that line's last clause (after an
    ellipsis, a dash or the end of a sentence). A one-line reply is its own candidate.
    Surrounding quotes, backticks and a final full stop are dropped."""
    text = clean(str(reply or ""))
    found: list[str] = []
    found += [m.group(1) for m in reversed(list(_BRACKET.finditer(text)))]
    found += [m.group(1) for m in reversed(list(_LABEL.finditer(text)))]
    for m in reversed(list(_FENCE.finditer(text))):
        lines = [ln for ln in m.group(1).splitlines() if ln.strip()]
        if lines:
            found.append(lines[-1])
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if lines:
        found.append(lines[-1])
        # reasoning, then the move on the same line: "I should look around… take lamp"
        clauses = [c for c in _CLAUSE.split(lines[-1].strip().rstrip(".!")) if c.strip()]
        if len(clauses) > 1:
            found.append(clauses[-1])
    out: list[str] = []
    for c in found:
        c = c.strip().strip("`*").strip()
        if len(c) >= 2 and c[0] == c[-1] and c[0] in "\"'" and c.count(c[0]) == 2:
            c = c[1:-1].strip()  # a quoted command; `say "hi"` keeps its quotes
        c = c.rstrip(".").strip()
        if c and c not in out:
            out.append(c)
    return out
