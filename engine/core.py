"""The contract every Throneroom game implements, and the pieces all games share.

Pure Python: no Flask, no Socket.IO, no database, no clock and no global ``random``. Everything from
outside (the seed, the current game time in ms) comes in as arguments.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NotRequired, TypedDict, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

MASK64 = (1 << 64) - 1

T = TypeVar("T")
D = TypeVar("D", bound="DataclassInstance")
S = TypeVar("S")  # a game's state type
A = TypeVar("A")  # a game's action type (what ``parse_action`` returns and ``apply`` takes)

# JSON-ready data (dicts, lists, str, int, float, bool, None): what crosses the wire and the event log. An alias of
# Any, for the reader: the engines build and read these shapes by hand.
Json = Any
Payload = Json  # an action as a phone sends it (and a bot proposes it): parse_action reads it


class GameError(Exception):
    """Base of the errors an engine raises for an action it refuses; ``code`` is a stable key."""

    code = "game_error"

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidAction(GameError):
    """The payload does not parse: wrong shape, unknown kind, bad field."""

    code = "invalid_action"


class IllegalAction(GameError):
    """The payload parses but the rules do not allow it now."""

    code = "illegal_action"


class TooLate(IllegalAction):
    """An answer that arrived after its question closed (deadline and grace passed)."""

    code = "too_late"


class InvalidSettings(GameError):
    """A game setting is missing, of the wrong type or out of range."""

    code = "invalid_settings"


def evolve(state: D, **changes: Any) -> D:
    """``dataclasses.replace`` for frozen state classes, without re-running their __init__: several times faster,
    and engines call it on every step. Only fields declared on the class may change (their types are not checked:
    the engines' own annotations and tests do that)."""
    unknown = set(changes) - state.__dataclass_fields__.keys()
    if unknown:
        raise TypeError(f"unknown fields {sorted(unknown)}")
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


class Rng:
    """A seeded splitmix64 generator whose whole state is one integer, so it can live in a game state."""

    __slots__ = ("state",)

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next_u64(self) -> int:
        """Advance and return 64 random bits."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """A uniform integer in [0, n) without modulo bias."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def randint(self, a: int, b: int) -> int:
        """A uniform integer in [a, b]."""
        return a + self.randbelow(b - a + 1)

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence."""
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Fisher-Yates shuffle in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Rng:
        """An independent generator in the same state."""
        return Rng(self.state)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.state == self.state

    def __repr__(self) -> str:
        return f"Rng({self.state:#x})"


@dataclass(frozen=True)
class SettingSpec:
    """One per-game setting shown in the lobby: an integer range, a choice or a yes/no."""

    key: str
    kind: str  # "int", "choice" or "bool"
    default: Any
    label_key: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    group: str = ""  # "timers": shown folded away in the lobby
    unit: str = ""  # "s" or "min" for a duration the room's timer scale stretches (Context.timer_ms); "" otherwise

    def parse(self, value: Any) -> Any:
        """The validated value, or InvalidSettings naming this setting."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise InvalidSettings(f"{self.key} must be true or false", self.key)
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidSettings(f"{self.key} must be a whole number", self.key)
            if self.minimum is not None and value < self.minimum:
                raise InvalidSettings(f"{self.key} must be at least {self.minimum}", self.key)
            if self.maximum is not None and value > self.maximum:
                raise InvalidSettings(f"{self.key} must be at most {self.maximum}", self.key)
            return value
        if self.kind == "choice":
            if value not in self.choices:
                raise InvalidSettings(f"{self.key} must be one of {', '.join(self.choices)}", self.key)
            return value
        raise InvalidSettings(f"{self.key} has an unknown kind {self.kind}", self.key)

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for the lobby."""
        return {
            "key": self.key,
            "kind": self.kind,
            "default": self.default,
            "label_key": self.label_key,
            "min": self.minimum,
            "max": self.maximum,
            "choices": list(self.choices),
            "group": self.group,
            "unit": self.unit,
        }


BOTS_SETTING = SettingSpec("bots", "bool", True, "setting.bots")


@dataclass(frozen=True)
class GameInfo:
    """What the lobby shows of a game and how many seats it has."""

    id: str
    name_key: str
    blurb_key: str
    min_players: int
    max_players: int
    settings: tuple[SettingSpec, ...] = ()
    teams: bool = False  # people pick a team in the lobby; every team is one game seat (a bot plays an empty one)
    team_keys: tuple[str, ...] = ()  # the teams' names as catalog keys, one per game seat, when ``teams``
    team_colours: tuple[str, ...] = ()  # the teams' colours (CSS hex), drawn with their names
    listed: bool = True
    ready: bool = True  # False while the game's TV and phone screens are still to come: the lobby says "soon"
    bot_fill: int = 0  # with the bots setting on, bots fill the game up to this many seats (0: up to min_players)

    def default_settings(self) -> dict[str, Any]:
        """Every setting at its default."""
        return {s.key: s.default for s in self.settings}

    def parse_settings(self, values: Mapping[str, Any], base: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Validated settings: ``base`` (or the defaults) updated by ``values``; unknown keys are refused."""
        if not isinstance(values, Mapping):
            raise InvalidSettings("settings must be an object", "settings")
        specs = {s.key: s for s in self.settings}
        result = dict(base) if base is not None else self.default_settings()
        for key, value in values.items():
            if key not in specs:
                raise InvalidSettings(f"unknown setting {key!r}", str(key))
            result[key] = specs[key].parse(value)
        return result


@dataclass(frozen=True)
class Slot:
    """A seat in a game: its index, the name shown, and whether a bot plays it."""

    index: int
    name: str
    is_bot: bool = False


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the seats in final order (best first) and a short reason key. ``places`` gives each
    ranked seat its place (1 = first), equal for seats the game cannot tell apart; empty: 1, 2, 3... in order."""

    ranking: tuple[int, ...]
    reason_key: str = "outcome.finished"
    detail: Mapping[str, Any] = field(default_factory=dict)
    places: tuple[int, ...] = ()

    def place_list(self) -> list[int]:
        """The place of each ranked seat, in ranking order."""
        return list(self.places) if self.places else list(range(1, len(self.ranking) + 1))


ENDED_BY_HOST = "outcome.ended_by_host"


def shared_places(ranking: Sequence[T], key: Callable[[T], object]) -> tuple[int, ...]:
    """Places for a ranking sorted by ``key(seat)``: seats (or teams) with equal keys share the better place
    (1, 1, 3)."""
    places: list[int] = []
    for i, seat in enumerate(ranking):
        places.append(places[-1] if i and key(seat) == key(ranking[i - 1]) else i + 1)
    return tuple(places)


@dataclass(frozen=True)
class Timing:
    """How long an answer took, as the room measured it (docs/decisions.md, "Fair timing"); all in ms.

    ``effective`` is what ranks: the phone's own measure when it lies within what the server saw, else the
    server's. ``flag`` says why the phone's claim was not taken ("" when it was)."""

    effective: int
    receipt: int  # game ms when the server received the answer
    unlock: int  # game ms when the question unlocked
    claimed: int | None = None  # the phone's own measure
    rtt: int | None = None  # the socket's recent round trip bound used
    flag: str = ""

    def to_json(self) -> dict[str, Any]:
        """The logged form."""
        return {"effective": self.effective, "receipt": self.receipt, "unlock": self.unlock,
                "claimed": self.claimed, "rtt": self.rtt, "flag": self.flag}

    @classmethod
    def from_json(cls, data: Any) -> Timing | None:
        """Read back a logged timing (None if absent or malformed)."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(int(data["effective"]), int(data["receipt"]), int(data["unlock"]),
                       None if data.get("claimed") is None else int(data["claimed"]),
                       None if data.get("rtt") is None else int(data["rtt"]), str(data.get("flag", "")))
        except (KeyError, TypeError, ValueError):
            return None


# ----- extended time (docs/decisions.md, "Extended time"; QUIZ-X1, CAMP-X1, HIER-X1, AVIG-X1, CROWN-X1) -----

TIME_FACTORS = (1.0, 1.5, 2.0)  # what a host may give a seat: each of its answer windows x1, x1.5 or x2


def check_time_factor(value: Any) -> float:
    """A seat's time factor as the host sent it (1, 1.5 or 2), else InvalidAction naming ``factor``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) not in TIME_FACTORS:
        raise InvalidAction("factor must be 1, 1.5 or 2", "factor")
    return float(value)


def factor_of(factors: Sequence[float], seat: int | None) -> float:
    """A seat's time factor in a game state's ``factors`` (a seat beyond it, or none: 1)."""
    return factors[seat] if seat is not None and 0 <= seat < len(factors) else 1.0


def stretched(ms: int, factor: float) -> int:
    """A window of ``ms`` for a seat with this factor: ms x factor, rounded half up (exact for 1, 1.5 and 2)."""
    return int(ms * factor + 0.5)


def scaled_back(ms: int, factor: float) -> int:
    """A time taken in a stretched window brought back to the standard window: ms / factor, rounded half up. What
    ranks and scores is this reaction, never the window (docs/decisions.md, "Extended time")."""
    return int(ms / factor + 0.5)


def with_factor(factors: Sequence[float], seat: int, factor: float, seats: int) -> tuple[float, ...]:
    """``factors`` (one per seat, padded with 1) with one seat's factor set; IllegalAction naming ``seat`` if the
    game has no such seat."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise IllegalAction("no such seat in this game", "seat")
    padded = list(factors) + [1.0] * (seats - len(factors))
    padded[seat] = check_time_factor(factor)
    return tuple(padded[:seats])


@dataclass(frozen=True)
class Context:
    """What the room gives a game at setup: the seed, the settings, the timer scale and the content (questions,
    drawn once by ``Game.prepare`` and logged with the start so a replay uses exactly the same)."""

    seed: int
    settings: Mapping[str, Any]
    timer_scale: float = 1.0
    content: Any = None
    time_factors: tuple[float, ...] = ()  # per game seat: extended time given by the host (``TIME_FACTORS``); () all 1

    def factors(self, seats: int) -> tuple[float, ...]:
        """One time factor per game seat (1 where the host gave none)."""
        return tuple(factor_of(self.time_factors, s) for s in range(seats))

    def timer_ms(self, seconds: float) -> int:
        """A timer in ms after the room's scale factor, never below 50 ms."""
        return max(50, round(seconds * 1000 * self.timer_scale))


Needs = dict[str, int | list[int]]  # Game.needs: per question type a count, or a typical [lowest, highest]
MAX_DRAW = 200  # the most questions of each kind a game takes from a room's packs unless it says (Game.draw)


@dataclass(frozen=True)
class Draw:
    """How many of a room's questions a game's ``prepare`` takes at most, and how (``Game.draw``): the room reads
    only such a sample from its packs, never whole packs (a pack may hold 20,000 questions, a room may choose 50).

    The sample holds up to ``most`` questions the room has not seen (per kind, numeric and multiple choice, with
    ``by_kind``; else in all), then, if they are fewer, seen ones up to ``most``: the first ones in the packs' order
    (``in_order``), else drawn at random from the start's seed, with ``categories`` as many of each category as a
    deck whose categories take turns holds. The sample comes in the packs' order; a pool no larger than ``most`` is
    given whole, so the game draws from it exactly as from all the questions. ``kinds``: only questions of these
    kinds ("numeric", "choice", "multi", "poll", "order", "text"; docs/packs.md) are counted and drawn; None: every
    kind (the Short Campaign asks only numeric and choice questions, the Quiz every kind)."""

    most: int
    by_kind: bool = False
    in_order: bool = False
    categories: bool = False
    kinds: tuple[str, ...] | None = None


class AudienceQuestion(TypedDict):
    """The question in play as the audience play-along sees it (``Game.audience_question``, host/audience.py)."""

    key: int  # the question's identity within the game: a new key is a new question
    kind: str  # "numeric", "choice", "poll" (answered by the audience), "multi", "order", "text" (watched on the TV)
    opens_ms: int  # the game ms it unlocks for answers
    closes_ms: int  # the game ms it closes
    open: bool  # open for answers now
    revealed: bool  # the answer is public now
    options: int  # a multiple-choice question's number of options (0 for a numeric one)
    correct: NotRequired[int]  # the right option or number, only once revealed
    margin: NotRequired[int]  # a numeric question's margin (QUIZ-S2), only once revealed; none: closest wins


class Game(ABC, Generic[S, A]):
    """A game's rules over its state type ``S`` and action type ``A``. States are opaque to the room (it holds
    ``Game[Any, Any]``); ``apply`` must not mutate the state it is given. Actions come from payloads through
    ``parse_action`` and go back to JSON through ``action_to_json``; the room logs the payload form."""

    info: GameInfo
    # Whether spectators answer this game's questions too (the audience play-along, host/audience.py): a game that
    # sets it offers ``audience_question``; the room then follows its questions and scores the audience's answers.
    audience_play_along: ClassVar[bool] = False

    def prepare(self, settings: Mapping[str, Any], seed: int, supply: Mapping[str, Any] | None = None) -> Json:
        """JSON-ready content the game needs from outside, fixed when the game starts. ``supply`` is what the room
        offers: for quiz games ``{"questions": [entries with .id, .question], "seen": set of ids}``, the entries a
        sample of the chosen packs' questions as ``draw`` asks."""
        return None

    def needs(self) -> Needs:
        """How many questions of each type one game may ask (empty: the game asks none): a count, or a typical
        [lowest, highest] the lobby shows."""
        return {}

    def draw(self, settings: Mapping[str, Any]) -> Draw:
        """What ``prepare`` takes of the room's questions with these settings (``Draw``): by default at most
        MAX_DRAW of each kind, at random."""
        return Draw(MAX_DRAW, by_kind=True)

    @abstractmethod
    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> S:
        """The initial state for these seats."""

    @abstractmethod
    def parse_action(self, payload: Payload) -> A:
        """The action a client payload describes, or InvalidAction."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[A]:
        """Every action the seat may take now (empty when it may not act)."""

    @abstractmethod
    def apply(self, state: S, seat: int, action: A, now_ms: int, timing: Timing | None = None) -> S:
        """The state after the seat's action, or IllegalAction; the given state is left unchanged. ``timing``
        carries the room's fair measure of an answer's time (see ``answer_window``)."""

    def host_next(self, state: S, now_ms: int) -> S:
        """The state after the host's Next (a host-paced game waiting after a reveal goes on); a logged room event,
        so it must be deterministic like ``on_timeout``. Default: the game has nothing to advance."""
        raise IllegalAction("nothing to advance")

    def set_time_factor(self, state: S, seat: int, factor: float, now_ms: int) -> S:
        """The state with one seat's extended time (``TIME_FACTORS``) set by the host: a logged room event, so it must
        be deterministic. It counts from the seat's next window (a window already open keeps its length). Default:
        the game has no timed windows, nothing changes."""
        return state

    def clock(self, state: S, seat: int | None) -> int | None:
        """The deadline this seat's screen counts down to (``None``: the TV's and the room's public clock, which
        shows the standard window only: a seat's extended time is shown to nobody but that seat and the host).
        Default: the game's ``deadline``."""
        return self.deadline(state)

    def answer_window(self, state: S, seat: int) -> tuple[int, int] | None:
        """(unlock, deadline) in game ms when the seat's next action is a timed answer whose speed counts, else
        None. The room then measures the answer fairly and accepts it for a short grace after the deadline."""
        return None

    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, Json]:
        """What one seat may know (``None``: the public TV view), JSON-ready."""

    @abstractmethod
    def deadline(self, state: S) -> int | None:
        """The game time in ms at which the current timed step expires, if any."""

    @abstractmethod
    def on_timeout(self, state: S, now_ms: int) -> S:
        """The state after the current deadline passed: the timeout is an action of its own, and any random
        choice it makes (a pick for a seat that did not answer) comes from the state's RNG."""

    @abstractmethod
    def bot_action(self, state: S, seat: int, rng: Rng) -> tuple[Payload, int] | None:
        """A bot's (payload, thinking delay in ms) for this seat now, or None when it has nothing to do. The
        payload is what a phone would send: the room logs it and reads it with ``parse_action`` like a person's."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result once the game is over, else None."""

    def standings(self, state: S, seats: int) -> Outcome:
        """The seats ranked as things stand, for a game the host ends before its rules do (reason
        ``outcome.ended_by_host``); a game already over gives its outcome. It may rank only by what is public.
        Default: the seats in order, all sharing first place (a game that counts nothing tells no one apart)."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        return Outcome(tuple(range(seats)), ENDED_BY_HOST, {}, (1,) * seats)

    def action_to_json(self, action: A) -> Json:
        """The JSON form of an action for the event log; ``parse_action`` must read it back. Default: the action
        is its own JSON form."""
        return action

    def seats_changed(self, state: S, bots: frozenset[int], now_ms: int) -> S:
        """The state after the people playing the seats changed during the game (a latecomer took a bot's team
        seat, the last member of a team was kicked): ``bots`` are now the seats a bot plays. Called by the room
        inside the event's effect, so it must not fail, and a replay of the log gives the same state. Default: the
        game does not care who plays a seat."""
        return state

    def stands_in(self, state: S) -> bool:
        """Whether a bot plays a seat whose phones are all gone (past the room's bot grace) until one is back, and a
        seat no one plays any more (its last member kicked). Default: yes, a seat must move for the game to go on
        (CAMP-D13). A game where a silent seat only scores nothing may say no (the Quiz, QUIZ-S15, without its
        ``bots`` setting): the seat then answers nothing."""
        return True

    def takes_latecomers(self, state: S) -> bool:
        """Whether a player who joins the room while this game runs gets a new seat in it (``add_seat``); no: the
        latecomer watches and plays from the next game. Default: no."""
        return False

    def add_seat(self, state: S, name: str, now_ms: int) -> S:
        """The state with one more seat at the end, for a latecomer (QUIZ-S14): only asked when ``takes_latecomers``;
        a logged room event, so it must be deterministic. Default: IllegalAction."""
        raise IllegalAction("this game takes no latecomers")

    def asked(self, state: S) -> str | None:
        """The id of the question shown now (open or revealed), if the game asks questions from packs: the room counts
        a question as seen when it is asked, not when a game that might ask it starts. Default: none."""
        return None

    def audience_question(self, state: S) -> AudienceQuestion | None:
        """The question in play for the audience play-along, if the game has one now (None between questions). Only
        called when ``audience_play_along`` is set; the correct answer must be in it only once it is revealed.
        Default: none (a game without audience play-along)."""
        return None

    def host_notes(self, state: S) -> dict[str, Any] | None:
        """What only the host may know now, for the host remote's quizmaster view (docs/remote.md): the Quiz's right
        answer before its reveal. It is sent to the phone holding the host remote alone, never in a room's state.
        Default: nothing."""
        return None

    def step(self, state: S) -> int | None:
        """A number that changes whenever what a seat may do changes in a way its screen could not foresee; a client
        that sends an older one is refused as stale. A change the screens make by the clock (``foreseen``) keeps it:
        a phone that unlocked a question at its shown time answers with the step it saw. ``None``: the game does not
        check."""
        return None

    def foreseen(self, before: S, after: S) -> bool:
        """Whether a timeout that made ``after`` from ``before`` is one every screen makes by itself, at the time the
        state before it showed (a question's preview that unlocks at its shown instant): the room then sends no
        state for it, and ``step`` must not change. The pages draw such a state as the later one once its time has
        come (host/static/games/campaign.js ``current``, quiz.js ``locked``). Default: no (every change is sent)."""
        return False

    def is_over(self, state: S) -> bool:
        """Whether the game has ended."""
        return self.outcome(state) is not None

    def can_act(self, state: S, seat: int) -> bool:
        """Whether the seat has at least one legal action now."""
        return bool(self.legal_actions(state, seat))
