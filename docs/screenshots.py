"""Export the terminal app's screens as SVG (for the README): ``.venv/bin/python docs/screenshots.py``.

Each screen is reached by playing real commands under Textual's Pilot at 120x40."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "screens"


async def wait(pilot) -> None:
    app = pilot.app
    for _ in range(500):
        if app.game is not None and not app.busy:
            break
        await pilot.pause(0.02)
    for _ in range(5):
        await pilot.pause()


async def shoot(world: str, commands: list[str], name: str, keys: tuple[str, ...] = ()) -> None:
    from game.play.session import Game
    from game.tui.app import ParleyApp

    app = ParleyApp(lambda: Game(ROOT / "worlds" / world, seed=0))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot)
        for line in commands:
            app.send(line)
            await wait(pilot)
        for key in keys:
            await pilot.press(key)
            await wait(pilot)
        app.save_screenshot(filename=f"{name}.svg", path=str(OUT))


async def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    await shoot("harbor", ["ask jory about strongbox", "go east", "talk to ilse", "ask ilse about strongbox"], "play")
    await shoot("harbor", ["go north", "go east", "trade with mara", "offer 14"], "negotiation")
    await shoot("council", ["go north"], "council")
    await shoot("harbor", ["ask jory about strongbox", "go east", "ask ilse about strongbox"], "journal", ("f2",))
    print(f"screenshots in {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
