"""How HAProxy 2.6 routes a room to a worker with ``hash-type consistent`` (issue [14]), re-implemented in Python
from a reading of HAProxy's source (src/lb_chash.c, src/hash.c, src/backend.c), and the ``spread`` scenario.

The ring. Every usable server owns ``weight * BE_WEIGHT_SCALE`` points (BE_WEIGHT_SCALE is 16: weight 1 gives 16
points, weight 256, the largest, 4096). Point ``n`` of the server whose numeric id is ``puid`` sits at
``full_hash(puid * SRV_EWGHT_RANGE + n)`` on a 32-bit circle (SRV_EWGHT_RANGE = 256 * 16 = 4096, so two servers'
inputs never overlap). ``full_hash`` is one of Bob Jenkins' 32-bit integer mixers followed by a multiplication by
3221225473; it is a bijection, so no two points share a position. The puid is the server's ``id`` when the
configuration sets one; otherwise the first free id at or after the line's position (see ``puids``).

A key. The URL parameter's value (or the ``balance hash`` expression's bytes), as sent, goes through the backend's
hash function, sdbm (``h = byte + h * 65599`` over the bytes, modulo 2**32); with the ``avalanche`` modifier the
result then goes through ``full_hash`` too. Careful: a bare ``hash-type consistent`` means ``hash-type consistent
sdbm avalanche`` (src/cfgparse-listen.c); plain sdbm must be asked for, ``hash-type consistent sdbm``.

The lookup. HAProxy finds the first point at or after the key's hash (wrapping round to the first point) and the
point before that one (wrapping round to the last), and takes the nearer of the two, distances measured modulo
2**32; on a tie the one before wins. (With ``hash-balance-factor`` set, an overloaded server is skipped: not
modelled here, Throneroom does not set it.)
"""

from __future__ import annotations

import bisect
import functools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from host.room import CODE_ALPHABET, CODE_LENGTH

MASK = 0xFFFFFFFF
BE_WEIGHT_SCALE = 16  # HAProxy's include/haproxy/backend-t.h
SRV_UWGHT_RANGE = 256  # the largest user weight (include/haproxy/server-t.h)
SRV_EWGHT_RANGE = SRV_UWGHT_RANGE * BE_WEIGHT_SCALE
WEIGHTS = (1, 10, 100, 256)


def full_hash(value: int) -> int:
    """HAProxy's 32-bit integer hash: Bob Jenkins' full-avalanche mixer, then a multiplication by a large prime."""
    a = value & MASK
    a = (a + 0x7ED55D16 + (a << 12)) & MASK
    a = (a ^ 0xC761C23C ^ (a >> 19)) & MASK
    a = (a + 0x165667B1 + (a << 5)) & MASK
    a = ((a + 0xD3A2646C) ^ (a << 9)) & MASK
    a = (a + 0xFD7046C5 + (a << 3)) & MASK
    a = (a ^ 0xB55A4F09 ^ (a >> 16)) & MASK
    return (a * 3221225473) & MASK


def sdbm(data: bytes) -> int:
    """The sdbm string hash, HAProxy's default hash function: h = byte + 65599 * h over the bytes, 32 bits."""
    h = 0
    for byte in data:
        h = (byte + h * 65599) & MASK
    return h


def key_hash(key: str | bytes, avalanche: bool = False) -> int:
    """The hash HAProxy looks up for a key (a URL parameter's value as sent), sdbm with or without ``avalanche``."""
    h = sdbm(key.encode() if isinstance(key, str) else key)
    return full_hash(h) if avalanche else h


@dataclass(frozen=True)
class Server:
    """A ``server`` line of a backend: its name, ``id`` (None: assigned automatically) and ``weight`` (0-256)."""

    name: str
    id: int | None = None
    weight: int = 1


def puids(servers: Sequence[Server]) -> dict[str, int]:
    """Each server's numeric id as HAProxy 2.6 assigns it: its ``id`` if set; otherwise a counter that starts at 1
    and moves on by one at every ``server`` line decides: the server takes the first id at or above the counter that
    no line has taken, and the counter continues from there (``id 2`` on the fourth line makes the second line's
    server 3, not 1)."""
    taken = {s.id for s in servers if s.id is not None}
    result, counter = {}, 1
    for server in servers:
        if server.id is not None:
            result[server.name] = server.id
        else:
            while counter in taken:
                counter += 1
            result[server.name] = counter
            taken.add(counter)
        counter += 1
    return result


@functools.lru_cache(maxsize=4096)
def server_points(puid: int, weight: int) -> tuple[int, ...]:
    """The positions of a server's points on the circle: weight * 16 of them, from its numeric id."""
    base = puid * SRV_EWGHT_RANGE
    return tuple(full_hash(base + n) for n in range(weight * BE_WEIGHT_SCALE))


class Ring:
    """The consistent-hash ring of a backend's usable servers."""

    def __init__(self, servers: Sequence[Server]):
        names = [s.name for s in servers]
        if len(set(names)) != len(names):
            raise ValueError("server names must be distinct")
        ids = puids(servers)
        if len(set(ids.values())) != len(ids):
            raise ValueError("server ids must be distinct")
        owner: dict[int, str] = {}  # full_hash is a bijection: no two points share a position
        for server in servers:
            if not 0 <= server.weight <= SRV_UWGHT_RANGE:
                raise ValueError(f"a weight lies between 0 and {SRV_UWGHT_RANGE}, not {server.weight}")
            owner.update(dict.fromkeys(server_points(ids[server.name], server.weight), server.name))
        self.keys = sorted(owner)
        self.owners = [owner[k] for k in self.keys]

    def pick(self, h: int) -> str | None:
        """The server for a key's hash: the nearer of the first point at or after it and the point before that one
        (both wrapping round the circle); on a tie, the one before. None on an empty ring."""
        if not self.keys:
            return None
        after = bisect.bisect_left(self.keys, h) % len(self.keys)
        before = after - 1  # -1 is the last point: the ring wraps
        if (h - self.keys[before]) & MASK <= (self.keys[after] - h) & MASK:
            return self.owners[before]
        return self.owners[after]

    def server_for(self, key: str, avalanche: bool = False) -> str | None:
        """The server HAProxy sends a key (a URL parameter's value) to."""
        return self.pick(key_hash(key, avalanche))


def workers(count: int, weight: int) -> list[Server]:
    """``count`` workers ``w1``.. with automatic ids (1, 2, ...) and one weight, as deploy/haproxy.cfg lists them."""
    return [Server(f"w{i}", None, weight) for i in range(1, count + 1)]


def room_codes(count: int, seed: int = 1) -> list[str]:
    """``count`` distinct random room codes, as the room service makes them (host/room.py)."""
    space = len(CODE_ALPHABET) ** CODE_LENGTH
    if not 1 <= count <= space:
        raise ValueError(f"between 1 and {space} room codes, not {count}")
    codes = []
    for number in random.Random(seed).sample(range(space), count):
        letters = []
        for _ in range(CODE_LENGTH):
            number, digit = divmod(number, len(CODE_ALPHABET))
            letters.append(CODE_ALPHABET[digit])
        codes.append("".join(letters))
    return codes


def assign(ring: Ring, hashes: Sequence[int]) -> list[str | None]:
    """The server of each hash (looked up in the order of the hashes, which keeps the ring's memory warm)."""
    result: list[str | None] = [None] * len(hashes)
    for i in sorted(range(len(hashes)), key=hashes.__getitem__):
        result[i] = ring.pick(hashes[i])
    return result


def spread_rows(hashes: dict[str, Sequence[int]], count: int, weight: int) -> list[dict[str, Any]]:
    """Rooms per worker on ``count`` workers of one weight, and the rooms that move when the last worker leaves and
    when a new one (the next id) joins, for each hash function (label: the rooms' hashes)."""
    servers = workers(count, weight)
    joining = Server(f"w{count + 1}", None, weight)
    ring, bigger = Ring(servers), Ring([*servers, joining])
    smaller = Ring(servers[:-1]) if count > 1 else None
    rows = []
    for label, values in hashes.items():
        before = assign(ring, values)
        loads = Counter(before)
        per_worker = [loads.get(s.name, 0) for s in servers]
        mean = len(values) / count
        row: dict[str, Any] = {
            "weight": weight, "hash": label, "points": weight * BE_WEIGHT_SCALE, "rooms": len(values),
            "workers": count, "max_pct": round(100 * max(per_worker) / mean, 1),
            "min_pct": round(100 * min(per_worker) / mean, 1),
        }
        if smaller is not None:  # the last worker leaves: its rooms move, and no other room may
            after = assign(smaller, values)
            moved = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
            row["leave_moved"], row["leave_ideal"] = len(moved), round(len(values) / count)
            row["leave_others"] = sum(before[i] != servers[-1].name for i in moved)
        after = assign(bigger, values)  # a new worker joins: rooms may move only to it
        moved = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
        row["join_moved"], row["join_ideal"] = len(moved), round(len(values) / (count + 1))
        row["join_others"] = sum(after[i] != joining.name for i in moved)
        rows.append(row)
    return rows


def spread(rooms: int, count: int, seed: int = 1, weights: Sequence[int] = WEIGHTS) -> list[dict[str, Any]]:
    """The ``spread`` scenario: ``rooms`` random room codes over ``count`` workers at each weight, with the default
    hash function sdbm alone (``hash-type consistent sdbm``) and with ``avalanche`` (``hash-type consistent``, the
    default)."""
    codes = room_codes(rooms, seed)
    plain = [key_hash(code) for code in codes]
    hashes = {"consistent sdbm": plain, "consistent (sdbm avalanche)": [full_hash(h) for h in plain]}
    return [row for weight in weights for row in spread_rows(hashes, count, weight)]
