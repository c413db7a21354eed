"""Headless agent-vs-agent tournaments: a config (``game.tournament.config``) becomes matches with
stable ids (``matches``), run by a backend (``runner``: in-process, a process pool or Ray) into
``results.jsonl``; ``stats`` rates and compares the competitors, ``report`` writes ``report.html``
and ``summary.md``; ``importers`` turn public negotiation datasets into scenario sets. What is
played is the config's kind, a plug-in (``kinds``: the protocol and registry; ``kind_negotiation``,
``kind_adventure``, ``kind_council``, ``kind_debate``)."""
