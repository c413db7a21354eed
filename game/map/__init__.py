"""The optional pygame map: the map state a save or a running game draws (``render``) and the
window that follows a game (``window``)."""
