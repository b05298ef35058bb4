"""The TV side of Throneroom and the server around it: app factory, room service, storage, CLI."""
