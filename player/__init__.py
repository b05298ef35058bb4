"""The phone side of Throneroom: the join page and the player's Socket.IO namespace."""
