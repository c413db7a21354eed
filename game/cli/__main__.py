"""``python -m game.cli``: the ``parley`` command."""

from game.cli.main import main

raise SystemExit(main())
