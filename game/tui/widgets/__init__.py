"""Widgets the screens share: the story log, the command input, the side panels, the minimap."""
