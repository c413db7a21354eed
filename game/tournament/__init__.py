"""Headless agent-vs-agent tournaments: a config (``game.tournament.config``) becomes matches with
stable ids (``matches``), run by a backend (``runner``: in-process, a process pool or Ray) into
``results.jsonl``; ``stats`` rates and compares the competitors, ``report`` writes ``report.html``
and ``summary.md``; ``importers`` turn public negotiation datasets into scenario sets. What is
played is the config's kind, a plug-in (``kinds``: the protocol and registry; ``kind_negotiation``,
``kind_adventure``, ``kind_council``, ``kind_debate``)."""

from __future__ import annotations

import os

DEFAULT_MAX_MATCHES = 100_000
"""The most matches a tournament may have unless ``--max-matches`` raises it: counted from the
config before any scenario is made or any match is built."""
MAX_MATCHES_CEILING = 1_000_000_000
"""The highest ``--max-matches``."""


def max_workers() -> int:
    """The most workers a tournament runs (``--workers``): four per CPU core of this machine."""
    return max(1, 4 * (os.cpu_count() or 1))
