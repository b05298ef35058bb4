"""One room: its seats, lobby, running game and game clock, rebuilt from its event log.

A room changes only through ``plan(kind, data)``: it checks an event completely and returns the effect, a
function that cannot fail. The room service logs the event between the two steps, so an event that is
refused changes nothing and one that is logged is always applied, live and on replay alike.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from engine import registry
from engine.core import Context, Game, GameError, InvalidSettings, Rng, Slot, Timing, check_time_factor
from engine.simulate import room_rng
from host.names import drop_joiners, has_visible, mixed_scripts, name_keys, strip_invisible, unshowable
from host.nicknames import refused

MAX_PLAYERS = 12
NAME_MAX = 20
NAME_RAW_MAX = 200  # a typed name longer than this is refused before any cleaning or logging
LANGUAGES = ("en", "fa", "ro")
ROLES = ("player", "spectator")
CODE_ALPHABET = "ABCDEFGHJKMNPRSTUVWXYZ"  # no I, L, O, Q: nothing to mistake for 1, 0 or each other
CODE_LENGTH = 4
TV_SPECTATORS = 50  # spectators a screen's state lists by name (the first to join; all are counted); the TV shows 12
SEAT_GRACE_S = 60  # a seat whose phone is gone longer than this gets no seat in the next game (a room setting)
SEAT_GRACE_MAX_S = 3600
COLOURS = 8  # Okabe-Ito palette, drawn by the front end
SHAPES = 6  # circle, square, triangle, diamond, star, hexagon
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# ZERO WIDTH NON-JOINER and JOINER are part of Persian spelling ("شاهنوازی‌پور" is not "شاهنوازیپور"). Names were once
# cleaned of those not between two word characters; ``replayed_name`` still does, for old logs (``clean_name`` keeps
# only those a script or an emoji uses: host/names.py ``drop_joiners``).
STRAY_JOINERS = re.compile(r"(?<!\w)[\u200c\u200d]+|[\u200c\u200d]+(?!\w)|(?<=[\u200c\u200d])[\u200c\u200d]+")

Effect = Callable[[], Any]  # applies a planned event; a join's gives the new seat's id


class RoomError(Exception):
    """An event the room refuses: ``code`` is a stable key for the client, ``field`` names the bad part."""

    def __init__(self, code: str, message: str, field: str | None = None, params: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.params = params  # numbers the client's message shows (its own formatting: Intl), e.g. a name's limit

    def to_json(self) -> dict[str, Any]:
        """The error as sent in an acknowledgement."""
        answer = {"code": self.code, "message": self.message, "field": self.field}
        if self.params is not None:
            answer["params"] = self.params
        return answer


def check_text(data: Any) -> None:
    """RoomError ``invalid`` naming the first string of a guest's payload (a value or a key, at any depth: the field
    is its path, ``settings.target``, ``action.answer.1``) that UTF-8 cannot carry: JSON may hold a lone surrogate
    (``"\\ud800"``), which every hash, database write and log line would then fail on. Checked once for every socket
    event (host/sockets.py) and every JSON body (host/web.py), before any handler reads the payload."""
    try:  # the usual payload: one pass in C
        json.dumps(data, ensure_ascii=False).encode("utf-8")
        return
    except (UnicodeEncodeError, TypeError, ValueError, RecursionError):
        pass  # a bad string, or something JSON did not give (binary): look where

    def bad(text: str) -> bool:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False

    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and bad(value):
            raise RoomError("invalid", f"{path or 'the payload'} is not valid text (it holds a lone surrogate)",
                            path or None)
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in reversed(list(items)):
            name = key.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(key, str) else str(key)
            inner = f"{path}.{name}" if path else name
            if isinstance(key, str) and bad(key):
                raise RoomError("invalid", f"the key {inner} is not valid text (it holds a lone surrogate)", inner)
            stack.append((inner, item))


@contextmanager
def game_errors() -> Iterator[None]:
    """Turn an engine's refusal into the room's error, with the same code, message and field."""
    try:
        yield
    except GameError as error:
        raise RoomError(error.code, error.message, error.field) from error


def flag(data: dict[str, Any], field: str) -> bool:
    """A true-or-false field of an event; RoomError ``invalid`` naming the field if it is anything else."""
    value = data.get(field)
    if not isinstance(value, bool):
        raise RoomError("invalid", f"{field} must be true or false", field)
    return value


def hash_token(token: str) -> str:
    """The stored form of a seat or host token (tokens have 192 random bits, so SHA-256 suffices)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def clean_name(raw: Any) -> str:
    """A display name, normalised, or RoomError naming the problem (docs/protocol.md, `join`): NFKC, without
    control, format and invisible characters (a ZWNJ or ZWJ stays only where a script or an emoji uses it:
    host/names.py ``drop_joiners``), one space between words; it must show a letter, digit or emoji, hold nothing
    phones show as nothing or a box (``unshowable``) and not mix Latin, Cyrillic and Greek letters (look-alikes)."""
    if not isinstance(raw, str):
        raise RoomError("invalid_name", "name must be text", "name")
    if len(raw) > NAME_RAW_MAX:
        raise RoomError("invalid_name", f"name must be at most {NAME_MAX} characters", "name")
    name = strip_invisible(unicodedata.normalize("NFKC", CONTROL_CHARS.sub("", raw)))
    bad = unshowable(name)
    if bad is not None:
        raise RoomError("name_bad_character", f"a name must not hold {bad!a}, which phones show as nothing or as a box",
                        "name")
    name = unicodedata.normalize("NFKC", drop_joiners(" ".join(name.split())))
    name = " ".join(name.split())
    if not name:
        raise RoomError("invalid_name", "name must not be empty", "name")
    if len(name) > NAME_MAX:  # refused, never cut: cut, it may be someone else's name (issue [17], finding 8)
        raise RoomError("name_too_long", f"a name has at most {NAME_MAX} characters; this one has {len(name)}",
                        "name", {"max": NAME_MAX, "n": len(name)})
    if not has_visible(name):
        raise RoomError("name_invisible", "a name needs a letter or a digit that can be seen", "name")
    if mixed_scripts(name):
        raise RoomError("name_mixed_scripts", "a name must not mix letters of Latin, Cyrillic or Greek, which look "
                        "alike: write it in one alphabet", "name")
    return name


def replayed_name(raw: Any) -> str:
    """A name from a log written before names were cleaned as ``clean_name`` does: the cleaning of the time, so that
    an old room replays as it was played (new logs hold the cleaned name, which this leaves as it is)."""
    if not isinstance(raw, str):
        raise RoomError("invalid_name", "name must be text", "name")
    name = unicodedata.normalize("NFC", STRAY_JOINERS.sub("", CONTROL_CHARS.sub("", raw)))
    return " ".join(name.split()) or "?"


def is_room_code(code: Any) -> bool:
    """Whether the text has the form of a room code."""
    return (isinstance(code, str) and len(code) == CODE_LENGTH
            and all(c in CODE_ALPHABET for c in code))


def normalise_code(raw: Any) -> str:
    """A room code as typed (any case, spaces allowed), upper-cased and checked."""
    code = "".join(raw.split()).upper() if isinstance(raw, str) else ""
    if not is_room_code(code):
        raise RoomError("invalid_code", f"a room code is {CODE_LENGTH} letters", "code")
    return code


@dataclass
class Seat:
    """A person in the room: a player or a spectator."""

    id: int
    name: str
    role: str
    token_hash: str
    colour: int
    shape: int
    language: str | None = None
    kicked: bool = False
    team: int | None = None  # the team chosen in the lobby, for games played in teams
    sits_out: bool = False  # a player who watches the next game ("I'll watch this one", or the host's swap)
    old_token_hashes: list[str] = field(default_factory=list)  # tokens of phones this seat moved away from
    played: bool = False  # has had a place in a game (a seat that never had one may be freed: ``_plan_free``)
    freed: bool = False  # given up by the room for a newcomer (``kicked`` too: it is no longer in the room)

    @property
    def name_keys(self) -> tuple[str, str, str]:
        """host/names.py ``name_keys`` of the seat's name, kept with the seat: a room of 5,000 spectators checks
        every name at each join, more names than that function's cache holds."""
        kept = self.__dict__.get("_name_keys")
        if kept is None or kept[0] != self.name:
            kept = (self.name, name_keys(self.name))
            self.__dict__["_name_keys"] = kept
        return kept[1]

    def public(self) -> dict[str, Any]:
        """What everyone may see of the seat."""
        return {"id": self.id, "name": self.name, "role": self.role, "colour": self.colour, "shape": self.shape,
                "team": self.team, "sits_out": self.sits_out}


class SeatIndex:
    """What a room looks up among its seats at every join and hello: the seat of a token, the seats of a name's
    look-alike keys, the players, the looks taken and how many seats are active. Kept beside the seats so that in a
    room of thousands of spectators a join or a hello costs what it costs in a party, not a walk over every seat. A
    join adds its seat; the rare other changes of a seat (rename, kick, role, takeover) have the room build it again.
    """

    def __init__(self, seats: dict[int, Seat]):
        self.tokens: dict[str, int] = {}  # token hash -> seat id, kicked seats too
        self.old_tokens: dict[str, int] = {}  # a token hash a seat moved away from -> that seat's id
        self.names: tuple[dict[str, set[int]], ...] = ({}, {}, {})  # each of ``name_keys`` -> active seats with it
        self.players: set[int] = set()  # active seats with the player role
        self.looks: Counter[tuple[int, int]] = Counter()  # (colour, shape) -> active seats with it
        self.active = 0
        for seat in seats.values():
            self.add(seat)

    def add(self, seat: Seat) -> None:
        """Take in a seat (a join's new one)."""
        self.tokens[seat.token_hash] = seat.id
        for old in seat.old_token_hashes:
            self.old_tokens[old] = seat.id
        if seat.kicked:
            return
        self.active += 1
        for table, key in zip(self.names, seat.name_keys, strict=True):
            table.setdefault(key, set()).add(seat.id)
        if seat.role == "player":
            self.players.add(seat.id)
        self.looks[(seat.colour, seat.shape)] += 1

    def named(self, name: str) -> set[int]:
        """The active seats whose name is this one or looks like it (host/names.py)."""
        found: set[int] = set()
        for table, key in zip(self.names, name_keys(name), strict=True):
            found |= table.get(key, set())
        return found


@dataclass
class SlotBinding:
    """A game seat and who plays it: one room seat, a team of room seats, or a bot."""

    index: int
    name: str
    seat_id: int | None
    colour: int
    shape: int
    team: list[int] | None = None  # in a team game, every room seat playing this game seat (seat_id: the first)
    filled: bool = False  # a bot's seat from the start (the bots setting filled it), not a person's

    def bot_plays(self, away: bool, stands_in: bool) -> bool:
        """Whether a bot plays this game seat now: a seat bots filled at the start always; a seat people played
        when no one plays it any more (kicked) or every phone of it is ``away``, if the game ``stands_in`` for
        them (engine.core ``Game.stands_in``: not the Quiz without its bots setting, QUIZ-S15)."""
        return self.filled or (stands_in and (self.is_bot or away))

    @property
    def members(self) -> list[int]:
        """The room seats playing this game seat."""
        if self.team is not None:
            return self.team
        return [] if self.seat_id is None else [self.seat_id]

    @property
    def is_bot(self) -> bool:
        """Whether a bot plays this game seat."""
        return not self.members

    def drop(self, seat_id: int) -> None:
        """A member leaves (kicked): the team plays on; a seat with no one left is a bot's."""
        if self.team is not None:
            if seat_id in self.team:
                self.team.remove(seat_id)
            self.seat_id = self.team[0] if self.team else None
        elif self.seat_id == seat_id:
            self.seat_id = None


@dataclass
class GameSession:
    """The game running (or just finished) in the room."""

    game_id: str
    game: Game[Any, Any]  # any game: its state and actions are opaque to the room
    state: Any
    slots: list[SlotBinding]
    settings: dict[str, Any]
    seed: int
    aborted: bool = False
    actions: int = 0
    # per game seat: the room seat whose action was taken last, and how many of the seat's actions were taken (a
    # team's phone tells "Alin already did this for your house", issue 15); from the logged events, so a replay agrees
    acted: dict[int, tuple[int | None, int]] = field(default_factory=dict)
    # per game seat: how many of its moves a bot made (actions logged with ``by: "bot"``), so that every screen and
    # the results can say a bot played it (QUIZ-S15, docs/seats.md "Bot marks"); from the log, so a replay agrees
    bot_moves: dict[int, int] = field(default_factory=dict)
    number: int = 0  # the room's game number (``Room.games_started`` once it started): the audience's key for it
    # the finished game's report files by format and language (host/report.py ``render``): made once, as an .xlsx
    # of 200 questions and 12 players takes openpyxl about half a second of the server's loop, which a host's
    # repeated downloads must not cost every room again
    reports: dict[str, tuple[bytes, str, str]] = field(default_factory=dict, repr=False)
    # whether ``over_of`` (the state last asked about) is over: the ticker, the clocks and every view ask at each
    # turn, and the Campaign's outcome walks its board each time (2 % of a party's server, docs/bench.md); a state
    # never changes once made (the engine contract, tests/test_engine_contract.py), so identity is its key
    over_of: Any = field(default=None, repr=False, compare=False)
    over: bool = field(default=False, repr=False, compare=False)

    def slot_of(self, seat_id: int) -> int | None:
        """The game seat a room seat plays, if any."""
        for slot in self.slots:
            if seat_id in slot.members:
                return slot.index
        return None

    def bot_marked(self, slot: int) -> bool:
        """Whether a bot played this game seat at any time of the game: a bot's seat, or one for which a bot moved
        (its phones were away, or its last member was kicked)."""
        return self.slots[slot].is_bot or self.bot_moves.get(slot, 0) > 0

    def seats_changed(self, now_ms: int) -> None:
        """Tell the game which of its seats bots play now, after people joined or left one (CROWN-D1)."""
        bots = frozenset(s.index for s in self.slots if s.is_bot)
        self.state = self.game.seats_changed(self.state, bots, now_ms)

    @property
    def is_over(self) -> bool:
        """Whether the game ended, by its rules or by the host."""
        if self.aborted:
            return True
        state = self.state
        if self.over_of is not state:
            self.over, self.over_of = self.game.is_over(state), state
        return self.over


@dataclass
class Room:
    """A room's whole state; see the module docstring for how it changes."""

    code: str
    seed: int
    host_token_hash: str
    timer_scale: float = 1.0
    include_unlisted: bool = False
    owner_hash: str | None = None  # the host's identity across "New room" (``owner``), as recorded at creation
    seats: dict[int, Seat] = field(default_factory=dict)
    next_seat_id: int = 1
    language: str = "en"
    locked: bool = False
    selected_game: str | None = None
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    session: GameSession | None = None
    finished: dict[str, GameSession] = field(default_factory=dict)  # each game's last finished session, kept when
    # the room leaves it (its report, host/report.py: also from the lobby)
    games_started: int = 0
    packs: list[str] | None = None  # question packs chosen in the lobby; None: the built-in ones of the language
    packs_by_hand: bool = False  # the host ticked or unticked packs since the last start: an upload is added to
    # their choice, else it replaces it (docs/packs.md, "An upload is the next game's pack"; RoomService.pack_uploaded)
    seen_questions: set[str] = field(default_factory=set)
    paused: bool = False
    order: list[int] = field(default_factory=list)  # who plays first when there are more players than seats
    seat_grace_s: int = SEAT_GRACE_S
    # extended time the host gave (docs/decisions.md, "Extended time"): room seat id -> 1.5 or 2 (x1 is not kept);
    # shown to the host's screen only (host/service.py ``_view``), never in a phone's or the public view
    time_factors: dict[int, float] = field(default_factory=dict)
    name_filter: bool = True  # rude names are refused at join and rename (host/nicknames.py); the host may turn it off
    remote_seat: int | None = None  # the seat whose phone holds the host remote (docs/remote.md), logged: a restart
    # keeps it
    game_ms: int = 0  # the game clock at the last event
    seq: int = 0  # events applied
    version: int = 0  # changes seen by clients (events, connections)
    replaying: bool = field(default=False, compare=False)  # the log is being replayed: events are taken as logged
    _index: SeatIndex | None = field(default=None, compare=False, repr=False)  # see ``index``

    # ----- queries -----

    @property
    def owner(self) -> str:
        """Whose packs this room's host uploads and sees (docs/packs.md): the hash of the host token of the first room
        of a chain of "New room"s on one TV; a room made without one, or before owners, is its own host's."""
        return self.owner_hash or self.host_token_hash

    @property
    def phase(self) -> str:
        """"lobby", "playing" or "finished"."""
        if self.session is None:
            return "lobby"
        return "finished" if self.session.is_over else "playing"

    @property
    def index(self) -> SeatIndex:
        """The seats' lookups (``SeatIndex``), built on first use and again after a change other than a join."""
        if self._index is None:
            self._index = SeatIndex(self.seats)
        return self._index

    def reindex(self) -> None:
        """A seat's name, role, token or kick changed: the index is built again when next needed."""
        self._index = None

    def active_seats(self) -> list[Seat]:
        """Seats not kicked, in joining order."""
        return [s for s in self.seats.values() if not s.kicked]

    def players(self) -> list[Seat]:
        """Active seats with the player role, in joining order."""
        return [self.seats[i] for i in sorted(self.index.players)]

    def spectator_count(self) -> int:
        """Active seats with the spectator role."""
        return self.index.active - len(self.index.players)

    def seat_by_token_hash(self, token_hash: str) -> Seat | None:
        """The seat (kicked or not) whose token has this hash."""
        seat_id = self.index.tokens.get(token_hash)
        return None if seat_id is None else self.seats[seat_id]

    def seat_replaced_from(self, token_hash: str) -> Seat | None:
        """The seat that moved away from the phone with this token to another phone (a takeover), if any."""
        seat_id = self.index.old_tokens.get(token_hash)
        return None if seat_id is None else self.seats[seat_id]

    def seat_named(self, name: str) -> Seat | None:
        """The active seat with this name or one that looks the same (ignoring case; host/names.py), if any: the
        first to join of those."""
        found = self.index.named(name)
        return self.seats[min(found)] if found else None

    def in_order(self, seats: list[Seat]) -> list[Seat]:
        """Seats in the room's order of who plays first (joining order, changed by the host's swaps)."""
        rank = {seat_id: i for i, seat_id in enumerate(self.order)}
        return sorted(seats, key=lambda s: (rank.get(s.id, len(rank) + s.id), s.id))

    def lineup(self, gone: Callable[[int], bool]) -> list[int]:
        """Who plays the selected game if it starts now (seat ids): players in the room's order, except those who
        sit it out and those whose phone is ``gone`` (longer than the grace); a game for fewer seats takes the first
        ones, a team game all of them. Everyone else watches it."""
        info = registry.info(self.selected_game) if self.selected_game else None
        candidates = [s.id for s in self.in_order(self.players()) if not s.sits_out and not gone(s.id)]
        return candidates if info is None or info.teams else candidates[:info.max_players]

    def is_name_taken(self, name: str, except_seat: int | None = None) -> bool:
        """Whether another active seat already has this name or a look-alike of it (ignoring case)."""
        return bool(self.index.named(name) - {except_seat})

    def game_settings(self, game_id: str) -> dict[str, Any]:
        """The lobby settings chosen for a game so far (defaults where not chosen)."""
        info = registry.info(game_id)
        if info is None:
            return {}
        return {**info.default_settings(), **self.settings.get(game_id, {})}

    def is_game_selectable(self, game_id: Any) -> bool:
        """Whether the lobby may select this game id (listed or, in tests, unlisted)."""
        if not isinstance(game_id, str):
            return False
        info = registry.info(game_id)
        return info is not None and (info.listed or self.include_unlisted)

    # ----- planning events -----

    def plan(self, kind: str, data: dict[str, Any]) -> Effect:
        """Check one event completely and return its effect; RoomError if it is refused."""
        planner = getattr(self, f"_plan_{kind}", None)
        if planner is None:
            raise RoomError("invalid_event", f"unknown event {kind!r}")
        effect: Effect = planner(data)

        def apply() -> Any:
            result = effect()
            if "gt" in data:
                self.game_ms = data["gt"]
            self.seq += 1
            self.version += 1
            return result

        return apply

    def _plan_join(self, data: dict[str, Any]) -> Effect:
        name = self._name(data)
        role = data.get("role")
        if role not in ROLES:
            raise RoomError("invalid_role", "role must be player or spectator", "role")
        if self.locked:
            raise RoomError("room_locked", "the room is locked: ask the host to unlock it")
        if not self.replaying and self.is_name_taken(name):
            raise RoomError("name_taken", f"the name {name!r} is taken in this room", "name")
        language = data.get("language")
        if language is not None and language not in LANGUAGES:
            raise RoomError("invalid_language", f"language must be one of {', '.join(LANGUAGES)}", "language")
        if role == "player" and len(self.players()) >= MAX_PLAYERS:  # checked last: the service may then free a
            raise RoomError("room_full", f"the room has {MAX_PLAYERS} players; join as a spectator")  # seat, try again
        token_hash = data["token_hash"]
        colour, shape = self._free_look()

        def effect() -> int:
            seat_id = self.next_seat_id
            self.seats[seat_id] = seat = Seat(seat_id, name, role, token_hash, colour, shape, language)
            if self._index is not None:
                self._index.add(seat)
            self.order.append(seat_id)
            self.next_seat_id += 1
            return seat_id

        return effect

    def _free_look(self) -> tuple[int, int]:
        """The first colour-and-shape pair no active seat has; pairs repeat only past 24 seats."""
        taken = self.index.looks
        for i in range(COLOURS * SHAPES):
            look = (i % COLOURS, i % SHAPES)
            if not taken[look]:
                return look
        return (0, 0)

    def _seat(self, data: dict[str, Any]) -> Seat:
        """The active seat that ``data["seat"]`` names: a whole number (not 1.0, not true), or ``unknown_seat``."""
        seat_id = data.get("seat")
        seat = self.seats.get(seat_id) if type(seat_id) is int else None
        if seat is None or seat.kicked:
            raise RoomError("unknown_seat", "no such seat in this room", "seat")
        return seat

    def _name(self, data: dict[str, Any]) -> str:
        """The cleaned name of a join or rename, which replaces the typed one in ``data``: the log keeps only it.
        A replayed log is taken as it was written (``replayed_name``)."""
        if self.replaying:
            return replayed_name(data.get("name"))
        name = clean_name(data.get("name"))
        if self.name_filter and refused(name):  # never the word in the message: the phone shows its own text
            raise RoomError("name_not_allowed", "this name is not allowed in this room: choose another one", "name")
        data["name"] = name
        return name

    def _plan_rename(self, data: dict[str, Any]) -> Effect:
        seat = self._seat(data)
        name = self._name(data)
        if not self.replaying and self.is_name_taken(name, except_seat=seat.id):
            raise RoomError("name_taken", f"the name {name!r} is taken in this room", "name")

        def effect() -> None:
            seat.name = name
            self.reindex()
            if self.session is not None:
                for slot in self.session.slots:
                    if slot.team is not None and seat.id in slot.team:
                        slot.name = self.team_name(slot.team)
                    elif slot.seat_id == seat.id:
                        slot.name = name

        return effect

    def _plan_seat_language(self, data: dict[str, Any]) -> Effect:
        seat = self._seat(data)
        language = data.get("language")
        if language not in LANGUAGES:
            raise RoomError("invalid_language", f"language must be one of {', '.join(LANGUAGES)}", "language")

        def effect() -> None:
            seat.language = language

        return effect

    def _plan_kick(self, data: dict[str, Any]) -> Effect:
        seat = self._seat(data)

        def effect() -> None:
            seat.kicked = True
            self.reindex()
            if self.remote_seat == seat.id:  # a kicked seat's phone runs the show no more
                self.remote_seat = None
            session = self.session
            if session is not None and not session.is_over:
                for slot in session.slots:
                    if seat.id in slot.members:
                        slot.drop(seat.id)  # a bot takes over a game seat no one plays any more
                        if slot.team is not None:
                            slot.name = self.team_name(slot.team)
                session.seats_changed(data.get("gt", self.game_ms))

        return effect

    def _plan_free(self, data: dict[str, Any]) -> Effect:
        """The room gives up the seat of a player who never had a place in a game, for a newcomer (the service does
        it only when the room is full and that player's phone has been gone longer than the seat grace: docs/seats.md,
        "Freed"). The seat leaves the room as a kicked one does; its phone, if it comes back, is told ``seat_freed``."""
        seat = self._seat(data)
        if seat.role != "player" or seat.played:
            raise RoomError("invalid", "only the seat of a player who never played is freed", "seat")

        def effect() -> None:
            seat.kicked = seat.freed = True
            self.reindex()
            if self.remote_seat == seat.id:
                self.remote_seat = None

        return effect

    def _plan_sit_out(self, data: dict[str, Any]) -> Effect:
        """A person says whether they play the next game: a player may watch it ("I'll watch this one"); a spectator
        asks to play (becomes a player, if the room has room). The running game, if any, is not changed."""
        seat = self._seat(data)
        out = flag(data, "out")
        if not out and seat.role == "spectator" and len(self.players()) >= MAX_PLAYERS:
            raise RoomError("room_full", f"the room has {MAX_PLAYERS} players; join as a spectator")

        def effect() -> None:
            seat.sits_out = out
            if not out:
                seat.role = "player"
                self.reindex()

        return effect

    def _plan_lineup(self, data: dict[str, Any]) -> Effect:
        """The host's swap: ``seat`` plays the next game (``play`` true) in place of ``instead`` (who watches it and
        takes their place in the order), or watches it (``play`` false)."""
        seat = self._seat(data)
        play = flag(data, "play")
        other = None
        if data.get("instead") is not None:
            other = self._seat({"seat": data.get("instead")})
            if other.id == seat.id or not play:
                raise RoomError("invalid", "instead names another person, only when one comes in to play", "instead")
        full = play and seat.role == "spectator" and len(self.players()) >= MAX_PLAYERS
        if full and other is None:
            raise RoomError("room_full", f"the room has {MAX_PLAYERS} players; join as a spectator")

        def effect() -> None:
            if other is not None:  # the two exchange places: the newcomer plays where the other would have
                a, b = self.order.index(seat.id), self.order.index(other.id)
                self.order[a], self.order[b] = other.id, seat.id
                other.sits_out = True
                if full:  # twelve players already: the one who makes room watches as a spectator
                    other.role, other.sits_out = "spectator", False
            seat.sits_out = not play
            if play:
                seat.role = "player"
            self.reindex()

        return effect

    def _plan_seat_grace(self, data: dict[str, Any]) -> Effect:
        seconds = data.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= SEAT_GRACE_MAX_S:
            raise RoomError("invalid", f"seconds must be a whole number from 0 to {SEAT_GRACE_MAX_S}", "seconds")

        def effect() -> None:
            self.seat_grace_s = seconds

        return effect

    def slot_factor(self, members: Iterable[int], change: tuple[int, float] | None = None) -> float:
        """A game seat's extended time: the largest its people have (a team plays at its slowest member's pace);
        ``change``: one seat's factor as it is about to be set."""
        factors = {**self.time_factors, **dict([change] if change else [])}
        return max((factors.get(m, 1.0) for m in members), default=1.0)

    def _plan_extra_time(self, data: dict[str, Any]) -> Effect:
        """The host gives a seat extended time: ``factor`` 1, 1.5 or 2 of each answer window, in the lobby (from the
        next game) or during a game (from the seat's next window: QUIZ-X1, CAMP-X1, HIER-X1, AVIG-X1, CROWN-X1)."""
        seat = self._seat(data)
        try:
            factor = check_time_factor(data.get("factor"))
        except GameError as error:
            raise RoomError("invalid", error.message, error.field) from error
        session = self.session
        running = session is not None and not session.is_over
        slot = session.slot_of(seat.id) if running and session is not None else None
        state = None
        if session is not None and slot is not None:
            slot_factor = self.slot_factor(session.slots[slot].members, (seat.id, factor))
            with game_errors():
                state = session.game.set_time_factor(session.state, slot, slot_factor, data["gt"])

        def effect() -> None:
            if factor == 1.0:
                self.time_factors.pop(seat.id, None)
            else:
                self.time_factors[seat.id] = factor
            if session is not None and state is not None:
                session.state = state

        return effect

    def _plan_takeover(self, data: dict[str, Any]) -> Effect:
        """A seat moves to another phone (its owner came back on another device, and the host confirmed): the new
        token replaces the old one, which stops working; the seat keeps its name, score and place in the game."""
        seat = self._seat(data)
        token_hash = data.get("token_hash")
        if not isinstance(token_hash, str) or len(token_hash) != 64:
            raise RoomError("invalid", "token_hash must be a SHA-256 digest", "token_hash")

        def effect() -> None:
            seat.old_token_hashes = [*seat.old_token_hashes[-7:], seat.token_hash]
            seat.token_hash = token_hash
            self.reindex()

        return effect

    def _plan_remote(self, data: dict[str, Any]) -> Effect:
        """The host remote (docs/remote.md) goes to a seat's phone (``seat``: its id; a hand-over code it was given
        was used) or back to the TV alone (``seat`` null: the TV took it back, or the phone gave it back). One seat
        holds it at a time: a new one replaces the last."""
        seat = None if data.get("seat") is None else self._seat(data)

        def effect() -> None:
            self.remote_seat = None if seat is None else seat.id

        return effect

    def _plan_name_filter(self, data: dict[str, Any]) -> Effect:
        """The host turns the nickname filter on or off (docs/security.md, "Nicknames"); names already in the room
        stay as they are."""
        on = flag(data, "on")

        def effect() -> None:
            self.name_filter = on

        return effect

    def _plan_lock(self, data: dict[str, Any]) -> Effect:
        locked = flag(data, "locked")

        def effect() -> None:
            self.locked = locked

        return effect

    def _plan_language(self, data: dict[str, Any]) -> Effect:
        language = data.get("language")
        if language not in LANGUAGES:
            raise RoomError("invalid_language", f"language must be one of {', '.join(LANGUAGES)}", "language")

        def effect() -> None:
            self.language = language

        return effect

    def _require_lobby(self) -> None:
        if self.phase == "playing":
            raise RoomError("not_now", "a game is running: end it first")

    def _plan_packs(self, data: dict[str, Any]) -> Effect:
        self._require_lobby()
        packs = data.get("packs")
        if (not isinstance(packs, list) or len(packs) > 50
                or not all(isinstance(p, str) and 0 < len(p) <= 60 for p in packs) or len(set(packs)) != len(packs)):
            raise RoomError("invalid", "packs must be a list of up to 50 different pack ids", "packs")
        uploaded = data.get("uploaded")  # set by the server only (an upload's choice: RoomService.pack_uploaded)
        if uploaded is not None and uploaded not in packs:
            raise RoomError("invalid", "uploaded must be one of the packs", "uploaded")

        def effect() -> None:
            self.packs = list(packs)
            if uploaded is None:
                self.packs_by_hand = True

        return effect

    def _plan_select_game(self, data: dict[str, Any]) -> Effect:
        self._require_lobby()
        game_id = data.get("game")
        if not self.is_game_selectable(game_id):
            raise RoomError("unknown_game", "no such game", "game")

        def effect() -> None:
            self.selected_game = game_id
            self._keep_finished()
            self.session = None  # leaving a finished game's results for the lobby

        return effect

    def _plan_settings(self, data: dict[str, Any]) -> Effect:
        self._require_lobby()
        game_id = data.get("game")
        if not self.is_game_selectable(game_id):
            raise RoomError("unknown_game", "no such game", "game")
        info = registry.info(game_id)
        assert info is not None
        try:
            merged = info.parse_settings(data.get("settings"), self.game_settings(game_id))
        except InvalidSettings as error:
            raise RoomError("invalid_settings", error.message, error.field) from error

        def effect() -> None:
            self.settings[game_id] = merged

        return effect

    def team_name(self, members: list[int]) -> str:
        """How a team's game seat is named: its members' names, or "Bot" when no one plays it."""
        names = [self.seats[m].name for m in members if m in self.seats]
        return ", ".join(names) if names else "Bot"

    def _plan_team(self, data: dict[str, Any]) -> Effect:
        """A player picks a team (or the host moves one): in the lobby of a team game, freely, or, for a player who
        is in no team yet, into a running team game (a latecomer; the team's private view catches them up). A team a
        bot plays takes a latecomer at once; a team with people only with ``by``, the member who let them in
        (CROWN-D2, CROWN-D5: host/houses.py asks the members; a pick or a host's move never carries it)."""
        seat = self._seat(data)
        if seat.role != "player":
            raise RoomError("not_a_player", "spectators do not join a team", "seat")
        if self.session is not None and not self.session.is_over:
            info = self.session.game.info
        elif self.session is None and self.selected_game is not None:
            info = registry.info(self.selected_game)
        else:
            info = None
        if info is None or not info.teams:
            raise RoomError("no_teams", "the game chosen is not played in teams")
        team = data.get("team")
        if self.session is None and team is None:
            def leave() -> None:
                seat.team = None
            return leave
        if not isinstance(team, int) or isinstance(team, bool) or not 0 <= team < len(info.team_keys):
            raise RoomError("invalid_team", f"team must be a number from 0 to {len(info.team_keys) - 1}", "team")
        session = self.session
        if session is None:
            def choose() -> None:
                seat.team = team
            return choose
        if session.slot_of(seat.id) is not None:
            raise RoomError("already_in_team", "you already play in this game; a team is kept until it ends", "team")
        slot = session.slots[team]
        by = data.get("by")
        legacy = getattr(self, "replaying", False) and "by" not in data  # logged before consent existed ([11])
        if (slot.members or by is not None) and not legacy:
            helper = self.seats.get(by) if isinstance(by, int) and not isinstance(by, bool) else None
            if helper is None or helper.kicked or helper.id not in slot.members:
                raise RoomError("house_consent", "a house with people takes a new member only when one of them "
                                "lets them in", "team")

        def enlist() -> None:
            seat.team = team
            seat.played = True
            slot.team = [*(slot.team or []), seat.id]
            slot.seat_id = slot.team[0]
            slot.name = self.team_name(slot.team)
            session.seats_changed(data.get("gt", self.game_ms))  # a bot's seat has people now
            if seat.id in self.time_factors:  # the house plays at its slowest member's pace (CROWN-X1)
                session.state = session.game.set_time_factor(session.state, team, self.slot_factor(slot.team),
                                                             data.get("gt", self.game_ms))

        return enlist

    def _plan_latecomer(self, data: dict[str, Any]) -> Effect:
        """A player who joined while a game runs that takes latecomers (``Game.takes_latecomers``: the Quiz, QUIZ-S14)
        gets a new game seat at the end, through ``Game.add_seat``: the questions before score nothing, the open one
        may still be answered. Logged after the join (host/service.py ``join``), so a replay seats them again; a game
        that is full (its ``max_players``) or takes no latecomers refuses, and the latecomer watches (docs/seats.md)."""
        seat = self._seat(data)
        if seat.role != "player":
            raise RoomError("not_a_player", "a spectator watches: only a player takes a seat in the game", "seat")
        session = self._running()
        if session.slot_of(seat.id) is not None:
            raise RoomError("already_playing", "you already play in this game", "seat")
        game = session.game
        if not game.takes_latecomers(session.state):
            raise RoomError("no_latecomers", "this game takes no one new once it runs: you play from the next game")
        if len(session.slots) >= game.info.max_players:
            raise RoomError("game_full", f"this game has its {game.info.max_players} players: you play from the next "
                            "game", params={"max": game.info.max_players})
        with game_errors():
            state = game.add_seat(session.state, seat.name, data["gt"])
            if seat.id in self.time_factors:  # the latecomer's extended time (QUIZ-X1)
                state = game.set_time_factor(state, len(session.slots), self.time_factors[seat.id], data["gt"])
        slot = SlotBinding(len(session.slots), seat.name, seat.id, seat.colour, seat.shape)

        def effect() -> None:
            seat.played = True
            session.slots.append(slot)
            session.state = state

        return effect

    def _team_slots(self, info: Any, players: list[Seat]) -> tuple[list[SlotBinding], dict[int, int]]:
        """The game seats of a team game: one per team, with its members; players without a team are put in the
        smallest team (the lowest first on a tie). Returns the seats and those assignments."""
        count = len(info.team_keys)
        members: list[list[int]] = [[] for _ in range(count)]
        assigned: dict[int, int] = {}
        for seat in players:
            if seat.team is not None and 0 <= seat.team < count:
                members[seat.team].append(seat.id)
        for seat in players:
            if seat.team is None or not 0 <= seat.team < count:
                team = min(range(count), key=lambda i: (len(members[i]), i))
                members[team].append(seat.id)
                assigned[seat.id] = team
        slots = [SlotBinding(i, self.team_name(m), m[0] if m else None, i % COLOURS, i % SHAPES, team=list(m))
                 for i, m in enumerate(members)]
        return slots, assigned

    def _plan_start(self, data: dict[str, Any]) -> Effect:
        self._require_lobby()
        game_id = self.selected_game
        if game_id is None:
            raise RoomError("no_game", "choose a game first")
        game = registry.get(game_id)
        if game is None or not registry.is_playable(game_id, self.include_unlisted):
            raise RoomError("game_unavailable", "this game is not available yet")
        info = game.info
        settings = self.game_settings(game_id)
        seed = data.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise RoomError("invalid", "seed must be a whole number", "seed")
        assigned: dict[int, int] = {}
        people = self._lineup_of(data.get("seats"))
        if info.teams:  # every team is a game seat; a bot plays a team no one chose
            if len(people) < info.min_players:
                raise RoomError("not_enough_players", f"{info.id} needs at least {info.min_players} players")
            slots, assigned = self._team_slots(info, people)
        else:
            humans = people[: info.max_players]
            use_bots = bool(settings.get("bots", False))
            wanted = max(len(humans), info.bot_fill or info.min_players) if use_bots else len(humans)
            if wanted < info.min_players:
                raise RoomError("not_enough_players",
                                f"{info.id} needs at least {info.min_players} players (or bots for empty seats)")
            slots = [SlotBinding(i, s.name, s.id, s.colour, s.shape) for i, s in enumerate(humans)]
            bot_look = iter(self._bot_looks(humans))
            for i in range(len(humans), wanted):
                colour, shape = next(bot_look)
                slots.append(SlotBinding(i, f"Bot {i + 1 - len(humans)}", None, colour, shape, filled=True))
        scale = data.get("timer_scale", self.timer_scale)  # the game keeps the timers it started with, even if the
        if not isinstance(scale, (int, float)) or isinstance(scale, bool) or not 0 < scale <= 100:  # server restarts
            scale = self.timer_scale  # with another --timer-scale
        factors = tuple(self.slot_factor(s.members) for s in slots)  # extended time per game seat
        ctx = Context(seed, settings, float(scale), data.get("content"), factors)
        with game_errors():
            state = game.setup([Slot(s.index, s.name, s.is_bot) for s in slots], ctx, data["gt"])

        def effect() -> None:
            for seat_id, team in assigned.items():
                self.seats[seat_id].team = team
            for seat in self.seats.values():  # "I'll watch this one" is for one game
                seat.sits_out = False
            for slot in slots:
                for member in slot.members:
                    self.seats[member].played = True
            self._keep_finished()
            self.session = GameSession(game_id, game, state, slots, settings, seed, number=self.games_started + 1)
            self.games_started += 1
            self.packs_by_hand = False  # the next upload is the next game's pack again
            self.paused = False
            self._note_asked(self.session)

        return effect

    def _lineup_of(self, seats: Any) -> list[Seat]:
        """The people who play a game that starts: as the service chose them (``Room.lineup``, logged with the start),
        or, in a log from before lineups, every player in joining order."""
        if seats is None:
            return self.players()
        if not isinstance(seats, list) or len(set(map(str, seats))) != len(seats):
            raise RoomError("invalid", "seats must be a list of different seat ids", "seats")
        people = [self.seats.get(s) if isinstance(s, int) and not isinstance(s, bool) else None for s in seats]
        if any(p is None or p.kicked or p.role != "player" for p in people):
            raise RoomError("invalid", "seats must name players of the room", "seats")
        return [p for p in people if p is not None]

    def _bot_looks(self, humans: list[Seat]) -> list[tuple[int, int]]:
        taken = {(s.colour, s.shape) for s in humans}
        return [(i % COLOURS, i % SHAPES) for i in range(COLOURS * SHAPES)
                if (i % COLOURS, i % SHAPES) not in taken]

    def _running(self) -> GameSession:
        if self.session is None or self.session.is_over:
            raise RoomError("no_game_running", "no game is running")
        return self.session

    def _plan_action(self, data: dict[str, Any]) -> Effect:
        session = self._running()
        if self.paused:
            raise RoomError("paused", "the game is paused")
        slot = data.get("slot")
        if not isinstance(slot, int) or not 0 <= slot < len(session.slots):
            raise RoomError("unknown_seat", "no such game seat", "slot")
        game = session.game
        with game_errors():
            action = game.parse_action(data.get("action"))
        if not game.can_act(session.state, slot):
            raise RoomError("not_your_turn", "you cannot act now")
        # A replayed action passed this check when it came: a log written before the Campaign kept its step at a
        # preview's own end carries the step after it, and must still replay.
        step = data.get("step")
        if step is not None and not self.replaying and step != game.step(session.state):
            raise RoomError("stale", "the game has moved on: look again", "step")
        with game_errors():
            state = game.apply(session.state, slot, action, data["gt"], Timing.from_json(data.get("timing")))
        advance = self._advance(session, state)
        by = data.get("by")

        def effect() -> None:
            advance()
            session.acted[slot] = (by if isinstance(by, int) else None, session.acted.get(slot, (None, 0))[1] + 1)
            if by == "bot":
                session.bot_moves[slot] = session.bot_moves.get(slot, 0) + 1

        return effect

    def _plan_timeout(self, data: dict[str, Any]) -> Effect:
        session = self._running()
        if session.game.deadline(session.state) is None:
            raise RoomError("not_now", "nothing is timed now")
        with game_errors():
            state = session.game.on_timeout(session.state, data["gt"])
        return self._advance(session, state)

    def _plan_next(self, data: dict[str, Any]) -> Effect:
        """The host's Next: a game waiting after a reveal (host-paced) goes on, or an automatic wait is cut short;
        logged and replayed like a timeout."""
        session = self._running()
        if self.paused:
            raise RoomError("paused", "the game is paused: resume it first")
        with game_errors():
            state = session.game.host_next(session.state, data["gt"])
        return self._advance(session, state)

    def _advance(self, session: GameSession, state: Any) -> Effect:
        def effect() -> None:
            session.state = state
            session.actions += 1
            self._note_asked(session)

        return effect

    def _note_asked(self, session: GameSession) -> None:
        """A question counts as seen in this room once it is asked (CAMP-D15): the next game's draw prefers the
        others. A game that starts but never reaches a question uses none up."""
        asked = session.game.asked(session.state)
        if asked is not None:
            self.seen_questions.add(asked)

    def _plan_pause(self, data: dict[str, Any]) -> Effect:
        self._running()
        if self.paused:
            raise RoomError("not_now", "the game is already paused")

        def effect() -> None:
            self.paused = True

        return effect

    def _plan_resume(self, data: dict[str, Any]) -> Effect:
        self._running()
        if not self.paused:
            raise RoomError("not_now", "the game is not paused")

        def effect() -> None:
            self.paused = False

        return effect

    def _plan_end(self, data: dict[str, Any]) -> Effect:
        session = self._running()

        def effect() -> None:
            session.aborted = True
            self.paused = False

        return effect

    def _plan_lobby(self, data: dict[str, Any]) -> Effect:
        if self.phase == "lobby":
            raise RoomError("not_now", "the room is already in the lobby")
        if self.phase != "finished":
            raise RoomError("not_now", "the game is still running: end it first")

        def effect() -> None:
            self._keep_finished()
            self.session = None

        return effect

    def _keep_finished(self) -> None:
        """The room leaves a finished game (for the lobby or the next game): it stays as its game's last one."""
        if self.session is not None and self.session.is_over:
            self.finished[self.session.game_id] = self.session

    # ----- views -----

    def lobby_view(self, connected: Collection[int], spectators: bool = True) -> dict[str, Any]:
        """The room as everyone may see it, without the game view. Spectators are counted; the first TV_SPECTATORS of
        them are listed (the TV shows the first twelve by name): a list of 5,000 made each screen's state half a
        megabyte at every change of a big room. Without ``spectators`` none is listed: a phone never shows them.
        Outside the lobby each game's id and name only: the cards and their settings are drawn in the lobby alone,
        and were two thirds of a TV's state in a game (10 of 14 KB, at every answer)."""
        lobby_games = registry.lobby_games(self.include_unlisted)
        if self.phase != "lobby":
            games = [{"id": info.id, "name_key": info.name_key} for info, _playable in lobby_games]
        else:
            games = [{**game_card(info, playable), "values": self.game_settings(info.id)}
                     for info, playable in lobby_games]
        watching = (s for s in self.seats.values() if s.role == "spectator" and not s.kicked) if spectators else ()

        def listed(seats: Iterable[Seat]) -> list[dict[str, Any]]:
            return [{**s.public(), "connected": s.id in connected} for s in seats]

        return {
            "code": self.code,
            "version": self.version,
            "language": self.language,
            "locked": self.locked,
            "phase": self.phase,
            "paused": self.paused,
            "players": listed(self.players()),
            "spectators": listed(islice(watching, TV_SPECTATORS)),
            "spectator_count": self.spectator_count(),
            "max_players": MAX_PLAYERS,
            "seat_grace_s": self.seat_grace_s,
            "name_filter": self.name_filter,
            "games": games,
            "selected_game": self.selected_game,
            "timer_scale": self.timer_scale,  # a lobby shows timers as they will run (settings stay unscaled)
        }

    def game_slots(self, offline: dict[int, tuple[bool, bool]] | None = None) -> list[dict[str, Any]]:
        """The game's seats as every screen lists them; with ``offline`` (per seat: whether all its phones are gone,
        and whether a bot plays for it meanwhile) their ``offline`` and ``away`` too. The same for every screen of the
        room at a moment: a broadcast builds it once (host/service.py ``_view``), and nothing changes it once built."""
        session = self.session
        if session is None:
            return []
        slots = []
        for s in session.slots:
            slot = {"index": s.index, "name": s.name, "bot": s.is_bot, "seat": s.seat_id, "members": s.members,
                    "colour": s.colour, "shape": s.shape, "bot_moves": session.bot_moves.get(s.index, 0)}
            if offline is not None:
                slot["offline"], slot["away"] = offline[s.index]
            slots.append(slot)
        return slots

    def game_view(self, seat_id: int | None, game_now_ms: int,
                  slots: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
        """The running or finished game as one room seat sees it (``None``: the TV and spectators); ``slots``: the
        seats as ``game_slots`` built them for every screen (built here if not given)."""
        session = self.session
        if session is None:
            return None
        slot = session.slot_of(seat_id) if seat_id is not None else None
        outcome = session.game.outcome(session.state)
        if outcome is None and session.aborted:  # ended by the host: the standings so far
            outcome = session.game.standings(session.state, len(session.slots))
        # the deadline this screen counts down to: the standard one, a seat's own extended one only on its own phone
        deadline = None if session.is_over else session.game.clock(session.state, slot)
        return {
            "id": session.game_id,
            "name_key": session.game.info.name_key,
            "slots": self.game_slots() if slots is None else slots,
            "team_keys": list(session.game.info.team_keys),
            "team_colours": list(session.game.info.team_colours),
            "you": slot,
            "acted": None if slot is None or slot not in session.acted  # who of the team acted last, to its phones
            else {"by": session.acted[slot][0], "count": session.acted[slot][1]},
            "view": session.game.view(session.state, slot),
            "step": session.game.step(session.state),
            "now_ms": game_now_ms,
            "deadline_ms": deadline,
            "aborted": session.aborted,
            "outcome": None if outcome is None else {
                "ranking": list(outcome.ranking), "reason_key": outcome.reason_key,
                "detail": dict(outcome.detail), "places": outcome.place_list(),
                # per ranked seat: a bot played it (all or part of the game): the results say so (QUIZ-S15)
                "bot": [session.bot_marked(s) if 0 <= s < len(session.slots) else False for s in outcome.ranking]},
        }


GAME_CARDS: dict[tuple[str, bool], tuple[Any, dict[str, Any]]] = {}  # game id, playable -> (its info, its card)


def game_card(info: Any, playable: bool) -> dict[str, Any]:
    """What every lobby says of a game but the room's chosen settings: the same for every room and every view, so
    built once (each view built it again: a twentieth of an action's cost, the party benchmark's profile). Kept
    with the game's info, so a game registered again (tests) gets a new card. Never changed once made."""
    kept = GAME_CARDS.get((info.id, playable))
    if kept is not None and kept[0] is info:
        return kept[1]
    game = registry.get(info.id)
    card = {
        "id": info.id,
        "name_key": info.name_key,
        "blurb_key": info.blurb_key,
        "min_players": info.min_players,
        "max_players": info.max_players,
        "teams": info.teams,
        "team_keys": list(info.team_keys),
        "team_colours": list(info.team_colours),
        "playable": playable,
        "settings": [s.describe() for s in info.settings],
        "needs": game.needs() if game else {},
    }
    GAME_CARDS[(info.id, playable)] = (info, card)
    return card


def new_bot_rng(room: Room, slot: int) -> Rng:
    """A generator for a bot's choice; bot moves are logged, so this only needs to vary, not to replay."""
    return room_rng(room.seed, room.seq, slot)
