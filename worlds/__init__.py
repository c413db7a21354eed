"""The worlds shipped with Parley, as package data (``pip install parley-engine`` includes them).

Each folder with a ``world.toml`` is one world (``harbor``: id ``harbor-v1``, ...);
``game.world.shipped`` finds them by id or folder name, from the repository or an installed
wheel, and ``game.world.loader.load_world("harbor-v1")`` loads one. ``worlds/broken`` holds
deliberately broken worlds for the tests and is not shipped.
"""

PARLEY_WORLDS = True
"""Marks this package as Parley's worlds (and not another ``worlds`` on the path)."""
