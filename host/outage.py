"""Whether a service this process depends on (PostgreSQL for host/store.py, Redis for host/relay.py) answers: the
first failure marks it down, logged once per outage, until it answers again (docs/scaling.md, "When PostgreSQL or
Redis stops")."""

from __future__ import annotations

import logging
import time


class Outage:
    """A service's state as this process last found it: ``down_since`` (time.monotonic()) while it does not answer."""

    def __init__(self, log: logging.Logger, name: str, consequence: str):
        self.log = log
        self.name = name
        self.consequence = consequence  # what the log says happens meanwhile
        self.down_since: float | None = None

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def went_down(self) -> bool:
        """The service did not answer; whether that began an outage (logged once)."""
        if self.down_since is not None:
            return False
        self.down_since = time.monotonic()
        self.log.warning("%s is not answering: %s", self.name, self.consequence)
        return True

    def came_back(self) -> None:
        """The service answered again."""
        if self.down_since is not None:
            self.log.warning("%s answers again after %.1f s", self.name, time.monotonic() - self.down_since)
        self.down_since = None
