"""The TV side of Throneroom and the server around it: app factory, room service, storage, CLI."""

from host.green import maybe_green

maybe_green()  # ``throneroom worker`` under eventlet: the standard library made cooperative before anything else
