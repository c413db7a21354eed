"""The app's screens: play, negotiation, council, memory, journal and trust, saves, help."""
