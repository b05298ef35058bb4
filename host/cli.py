"""The ``throneroom`` command line."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import qrcode

if TYPE_CHECKING:
    from engine.simulate import Played, Policy

ASYNC_MODES = ("eventlet", "threading")


def data_dir() -> Path:
    """Where Throneroom keeps its database: $XDG_DATA_HOME/throneroom (or the platform's equivalent)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "throneroom"


def lan_address() -> str | None:
    """This machine's address on the local network, as phones see it (None if it has none).

    Connecting a UDP socket sends nothing; it only asks the kernel which interface would be used.
    """
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, never contacted
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def bounded(cast: type, low: float, high: float, what: str) -> Any:
    """An argparse type: a number of the given kind between low and high, with an error naming the option."""
    kind = "a whole number" if cast is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be {kind}, not {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be between {low} and {high}, not {value}")
        return value

    return parse


port_number = bounded(int, 0, 65535, "port")  # 0: any free port, printed and written to --port-file
timer_scale = bounded(float, 0.01, 10, "timer scale")
count = bounded(int, 1, 100_000, "the number of games")


def rate(text: str) -> str:
    """An argparse type: rate limits like 5/minute;30/hour, or off."""
    from host.guard import parse_rate

    try:
        parse_rate(text, "rate")
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("rate: ")) from None
    return text


def per_address(text: str) -> int | None:
    """An argparse type: a number of connections (1 to 100,000), or off (None)."""
    if text.strip().lower() == "off":
        return None
    parsed: int = bounded(int, 1, 100_000, "--connections-per-address")(text)
    return parsed


def pack_key(text: str) -> str:
    """An argparse type: a stored pack's id as ``pack list`` prints it (its uuid, with or without ``db:``), or the
    number of a pack stored before uuids; the store's key."""
    from questions.store import is_key

    key = text.removeprefix("db:")
    if not is_key(key):
        raise argparse.ArgumentTypeError(f"a pack id is the id `throneroom pack list` prints, not {text!r}")
    return key


def public_url(text: str) -> str:
    """An argparse type: an http(s) base URL without a path (its port 0: the port listened on, see ``--port 0``)."""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"public URL must look like http://host:port, not {text!r}")
    if parts.query or parts.fragment:
        raise argparse.ArgumentTypeError("public URL must not have a query or fragment")
    return text.rstrip("/")


def server_options(parser: argparse.ArgumentParser, behind_proxy: bool = False) -> None:
    """The options ``serve`` and ``worker`` share (a worker sits behind HAProxy: its defaults say so)."""
    from host.guard import RATE_KINDS, rate_option  # (the engines it brings are loaded by every command that serves)

    parser.add_argument("--timer-scale", type=timer_scale, default=1.0, metavar="F",
                       help="multiply every game timer by F (e.g. 0.1 for a quick demo)")
    parser.add_argument("--public-url", type=public_url, metavar="URL", required=behind_proxy,
                        help="the address phones use, e.g. behind a reverse proxy" +
                        (": HAProxy's" if behind_proxy else " (default: this machine's LAN address)"))
    parser.add_argument("--async-mode", choices=ASYNC_MODES, default=os.environ.get("THRONEROOM_ASYNC_MODE", "eventlet"),
                       help="Flask-SocketIO async mode (default eventlet)")
    parser.add_argument("--seed", type=int, metavar="N", help="make every random draw reproducible from N "
                       "(room codes excepted): for tests and demos")
    parser.add_argument("--games-module", action="append", default=[], metavar="MODULE", help=argparse.SUPPRESS)
    # hidden, for tests: also offer the games of MODULE (host/app.py load_games_module), e.g. tests.games
    parser.add_argument("--quiet", action="store_true", help="do not print the QR code")
    parser.add_argument("--port-file", metavar="FILE", type=Path,
                        help="once listening, write the port to FILE (with --port 0: for scripts and tests)")
    limits = parser.add_argument_group("limits (docs/security.md)")
    for kind, rule in RATE_KINDS.items():
        limits.add_argument(rate_option(kind), type=rate, metavar="RATE",
                            help=f"{rule.counted} (default {rule.default}; 'off': no limit)")
    limits.add_argument("--rate-storage", default=None if behind_proxy else "memory://", metavar="URI",
                        help="where rate counts are kept: memory:// or a redis:// URI (default: " +
                        ("the message queue's Redis, shared by the workers)" if behind_proxy else "memory://)"))
    limits.add_argument("--max-spectators", type=bounded(int, 0, 100_000, "--max-spectators"), default=500,
                        metavar="N", help="spectators per room (default 500)")
    limits.add_argument("--max-watchers", type=bounded(int, 0, 1000, "--max-watchers"), default=8, metavar="N",
                        help="TV screens per room besides the host's (default 8)")
    limits.add_argument("--room-ttl-hours", type=bounded(float, 1, 8760, "--room-ttl-hours"), default=48.0,
                        metavar="H", help="a room without activity for H hours is deleted (default 48)")
    limits.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="another name this server answers to besides the public URL's (repeatable)")
    limits.add_argument("--trust-proxy", type=bounded(int, 0, 5, "--trust-proxy"), default=None if behind_proxy else 0,
                        metavar="N", help="N reverse proxies in front set X-Forwarded-For/-Proto/-Host (default "
                        + ("1 when listening on loopback: HAProxy on this machine; else 0)" if behind_proxy
                           else "0: none)"))
    limits.add_argument("--connections-per-address", type=per_address, default=64, metavar="N",
                        help="connections one address may hold open at once (default 64; 'off': no limit; not "
                        "applied with --trust-proxy, where the proxy limits each source)")
    limits.add_argument("--idle-timeout", type=bounded(float, 1, 3600, "--idle-timeout"), default=30.0,
                        metavar="S", help="close a connection that sends no request for S seconds, or stalls in one "
                        "(default 30)")


def redis_url(text: str) -> str:
    """An argparse type: a Redis URL (the message queue)."""
    if urlsplit(text).scheme not in ("redis", "rediss", "unix"):
        raise argparse.ArgumentTypeError(f"the message queue must be a redis:// URL, not {text!r}")
    return text


def worker_name(text: str) -> str:
    """An argparse type: a worker's name, as the lease table keeps it."""
    if not 1 <= len(text) <= 64 or not all(c.isalnum() or c in "-_." for c in text):
        raise argparse.ArgumentTypeError("a worker id is 1 to 64 letters, digits, '-', '_' or '.'")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(prog="throneroom", description="Quiz battles and board games on the TV.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="start the server")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: all)")
    serve.add_argument("--port", type=port_number, default=8000, help="port (default 8000; 0: any free port, printed "
                       "once listening)")
    serve.add_argument("--db", metavar="PATH", help=f"SQLite file (default {data_dir() / 'throneroom.db'})")
    serve.add_argument("--database-url", metavar="URL", help="any SQLAlchemy database URL (instead of --db)")
    server_options(serve)
    serve.add_argument("--demo", choices=["campaign"], help="open a room where bots play the game on the TV by "
                       "themselves, again and again (attract mode)")
    serve.set_defaults(message_queue=None, worker_id=None)
    worker = sub.add_parser("worker", help="one of several server processes behind HAProxy (docs/scaling.md)")
    worker.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: HAProxy on "
                        "this machine; 0.0.0.0 when HAProxy runs on another)")
    worker.add_argument("--port", type=port_number, required=True, help="port of this worker (0: any free port)")
    worker.add_argument("--database-url", metavar="URL", required=True,
                        help="the database all workers share, e.g. postgresql+psycopg://user@host/throneroom")
    worker.add_argument("--message-queue", metavar="URL", required=True, type=redis_url,
                        help="the Redis all workers share, e.g. redis://127.0.0.1:6379/0")
    worker.add_argument("--worker-id", metavar="NAME", type=worker_name,
                        help="this worker's name in the logs and the lease table (default: a new random one)")
    server_options(worker, behind_proxy=True)
    worker.set_defaults(db=None, demo=None)
    from host.cluster_cli import add_parser as add_cluster  # throneroom cluster ... (docs/operating.md)

    add_cluster(sub)

    packs = sub.add_parser("pack", help="question packs").add_subparsers(dest="pack_command", required=True)
    for command, text in (("import", "check a pack file and store it"), ("validate", "check a pack file only"),
                          ("list", "list the stored packs"), ("export", "write a stored pack to a file"),
                          ("delete", "remove a stored pack (any pack, whoever uploaded it)"),
                          ("share", "offer a stored pack to every room (--off: to its owner's rooms only)")):
        one = packs.add_parser(command, help=text)
        if command in ("export", "delete", "share"):
            one.add_argument("id", type=pack_key, help="the pack's id (see pack list)")
        if command == "share":
            one.add_argument("--off", action="store_true", help="offer it to its owner's rooms only again")
        if command in ("import", "validate", "export"):
            one.add_argument("file", help="the pack file" + (" to write (Throneroom JSON; .zip: with its images)"
                                                              if command == "export" else
                                                              " (JSON, YAML, CSV, Kahoot! .xlsx, Open Trivia DB, GIFT, "
                                                              "Aiken, or a .zip with images)"))
        if command in ("import", "validate"):
            one.add_argument("--name", help="the pack's name (default: from the file)")
            one.add_argument("--language", choices=["en", "fa", "ro"], help="the pack's language")
        if command != "validate":
            one.add_argument("--db", metavar="PATH", help="SQLite file (default: as for serve)")
            one.add_argument("--database-url", metavar="URL", help="any SQLAlchemy database URL instead of --db")

    backup = sub.add_parser("backup", help="write a consistent copy of the database, also while the server runs")
    backup.add_argument("file", help="the copy to write (a SQLite file)")
    backup.add_argument("--db", metavar="PATH", help="SQLite file (default: as for serve)")
    backup.add_argument("--database-url", metavar="URL", help="a sqlite:/// URL instead of --db")
    backup.add_argument("--force", action="store_true", help="replace FILE if it exists")

    report = sub.add_parser("report", help="write the report of a room's last finished Quiz (CSV or Excel)")
    report.add_argument("room", type=room_code, help="the room's code (4 letters)")
    report.add_argument("--format", choices=["csv", "xlsx"], help="csv (UTF-8, opens in Excel) or xlsx (default: "
                        "from --output's extension, else csv)")
    report.add_argument("--output", "-o", metavar="FILE", help="the file to write (default: throneroom-ROOM-quiz-N."
                        "FORMAT in the current folder; '-': standard output)")
    report.add_argument("--force", action="store_true", help="replace FILE if it exists")
    report.add_argument("--db", metavar="PATH", help="SQLite file or database URL (default: as for serve)")
    report.add_argument("--database-url", metavar="URL", help="any SQLAlchemy database URL instead of --db")

    maps = sub.add_parser("map", help="Short Campaign maps").add_subparsers(dest="map_command", required=True)
    validate = maps.add_parser("validate", help="check a map file and list every problem")
    validate.add_argument("file", help="a map file (JSON, format throneroom-map/1; see docs/maps.md)")

    simulate = sub.add_parser("simulate", help="play all-bot games headless and print one JSON line per game")
    simulate.add_argument("game", choices=["campaign", "crown", "hierarchy", "avignon"], help="which game")
    simulate.add_argument("--games", type=count, default=10, metavar="N", help="how many games (default 10)")
    simulate.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the first game (default 1)")
    simulate.add_argument("--map", metavar="M", help="a built-in map id or a map file (default: the game's default)")
    simulate.add_argument("--level", choices=["easy", "normal", "hard"], default="normal", help="campaign bot level")
    simulate.add_argument("--bots", default="strong,random", metavar="A,B",
                          help="card games: the two bots' strengths (random, greedy, strong)")
    simulate.add_argument("--last-day", type=int, default=0, metavar="D",
                          help="Seizing the Crown: end each game after day D (0: no last day)")
    simulate.add_argument("--max-days", type=bounded(int, 1, 1000, "--max-days"), default=CROWN_MAX_DAYS, metavar="N",
                          help="Seizing the Crown: stop a game still running after day N as unfinished (default 60)")
    simulate.add_argument("--crown-bots", default="strong", metavar="LEVEL",
                          help="Seizing the Crown bot levels: strong (default), simple, mix (one strong house against "
                               "four simple ones, its seat rotating game by game) or five levels, one per house, "
                               "e.g. simple,strong,simple,simple,simple")
    bench = sub.add_parser("bench", help="latency, capacity, fairness and recovery benchmarks (docs/bench.md)")
    from bench.cli import add_arguments as bench_arguments

    bench_arguments(bench)
    return parser


def seed_sequence(first: int) -> Any:
    """Seeds first, first + 1, ...: the same run of games for the same --seed."""
    counter = iter(range(first, first + 10**12))
    return lambda: next(counter)


def room_code(text: str) -> str:
    """An argparse type: a room code as typed (any case), upper-cased and checked."""
    from host.room import RoomError, normalise_code

    try:
        return normalise_code(text)
    except RoomError:
        raise argparse.ArgumentTypeError(f"a room code is 4 letters, like ABCD, not {text!r}") from None


def report_command(args: argparse.Namespace) -> int:
    """``throneroom report ROOM``: the room's last finished Quiz, replayed from the database as the server loads a
    room (host/report.py), written as CSV or Excel; the same file as the TV's download."""
    fmt = args.format
    suffix = Path(args.output).suffix.lower().lstrip(".") if args.output and args.output != "-" else ""
    if suffix in ("csv", "xlsx"):
        if fmt is not None and fmt != suffix:
            print(f"throneroom: --format {fmt} does not match the output file {args.output}", file=sys.stderr)
            return 2
        fmt = suffix
    fmt = fmt or "csv"
    if args.output == "-" and fmt == "xlsx" and sys.stdout.isatty():
        print("throneroom: an .xlsx file is not for a terminal: give --output FILE", file=sys.stderr)
        return 2
    if args.db and "://" in args.db:  # --db takes a URL too
        args.database_url, args.db = args.db, None
    url = args.database_url or ""
    if not url or url.startswith("sqlite:///"):  # a SQLite file that is not there is not made here
        local = url.removeprefix("sqlite:///").split("?", 1)[0]
        path = Path(local) if url else Path(args.db).expanduser() if args.db else data_dir() / "throneroom.db"
        if not path.is_file():
            print(f"throneroom: there is no database at {path}", file=sys.stderr)
            return 1
    from host.report import NoReport, render, replay_room, source_of
    from host.store import Store

    try:
        store = Store(database_url(args)[0])
    except Exception as error:  # noqa: BLE001 - a database that cannot be opened: say it in one line
        print(f"throneroom: cannot open the database: {error}", file=sys.stderr)
        return 1
    try:
        room, audience = replay_room(store, args.room)
        data, name, _ = render(source_of(room, audience), fmt)
    except NoReport as error:
        print(f"throneroom: {error.message}", file=sys.stderr)
        return 1
    finally:
        store.close()
    if args.output == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    target = Path(args.output).expanduser() if args.output else Path(name)
    if target.is_dir():
        print(f"throneroom: {target} is a folder; give the path of the file to write", file=sys.stderr)
        return 1
    if target.exists() and not args.force:
        print(f"throneroom: {target} exists; give --force to replace it", file=sys.stderr)
        return 1
    try:
        target.write_bytes(data)
    except OSError as error:
        print(f"throneroom: cannot write {target}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"wrote the report of room {room.code} to {target}")
    return 0


KIND_WORDS = (("choice", "multiple choice", "multiple choice"), ("numeric", "number", "numbers"),
              ("multi", "several right", "several right"), ("poll", "poll", "polls"), ("order", "ordering", "orderings"),
              ("text", "typed answer", "typed answers"))


def kinds_line(counts: Mapping[str, int]) -> str:
    """A pack's questions counted by kind, for the command line: "12 questions: 7 multiple choice, 5 numbers"."""
    total = sum(counts.values())
    parts = [f"{counts[kind]} {one if counts[kind] == 1 else many}" for kind, one, many in KIND_WORDS if counts.get(kind)]
    return f"{total} question{'s' * (total != 1)}: " + ", ".join(parts) if parts else f"{total} questions"


def pack_command(args: argparse.Namespace) -> int:
    """pack import / validate / list / export / delete / share."""
    import json

    from questions.formats import read_pack
    from questions.model import PackError

    if args.pack_command in ("import", "validate"):
        try:
            data = Path(args.file).read_bytes()
        except OSError as error:
            print(f"throneroom: {args.file}: cannot read ({error.strerror})", file=sys.stderr)
            return 1
        try:
            pack = read_pack(data, Path(args.file).name, args.name, args.language)
        except PackError as error:
            errors = [p for p in error.problems if not p.warning]
            print(f"{args.file}: rejected, nothing imported ({len(errors)} problem{'s' * (len(errors) != 1)}):",
                  file=sys.stderr)
            for problem in error.problems:
                print(f"  - {problem}", file=sys.stderr)
            return 1
        for warning in pack.warnings:
            print(f"  - {warning}")
        summary = f"{pack.name!r} ({pack.language}): {kinds_line(pack.kinds())}"
        if args.pack_command == "validate":
            print(f"{args.file}: valid: {summary}")
            return 0
    from host.store import Store
    from questions.store import delete_pack, list_packs, load_pack, save_pack

    store = Store(database_url(args)[0])
    if args.pack_command == "import":
        pack_id = save_pack(store.engine, pack)
        print(f"imported pack db:{pack_id}: {summary}")
    elif args.pack_command == "list":
        rows = list_packs(store.engine)
        for row in rows:  # whose: every room's (no owner), or a host's, shared with every room or not
            whose = "all rooms" if row["owner"] is None else "shared" if row["shared"] else "one host"
            print(f"db:{row['id']}  {row['language']}  {row['total']:>6}  {whose:<9}  {row['name']}  "
                  f"({kinds_line(row['kinds'])})")
        if not rows:
            print("no packs yet: throneroom pack import FILE")
    elif args.pack_command == "export":
        stored = load_pack(store.engine, args.id)
        if stored is None:
            print(f"throneroom: there is no pack {args.id}", file=sys.stderr)
            return 1
        from questions.archive import write_archive
        from questions.store import load_images

        images = load_images(store.engine, args.id)
        if args.file.lower().endswith(".zip"):  # the pack JSON and its images: imports back to the same pack
            Path(args.file).write_bytes(write_archive(stored, list(images.values())))
        elif images:
            print(f"throneroom: pack {args.id} has {len(images)} image(s): export it to a FILE ending in .zip",
                  file=sys.stderr)
            return 1
        else:
            Path(args.file).write_text(json.dumps(stored.to_json(), ensure_ascii=False, indent=2) + "\n",
                                       encoding="utf-8")
        print(f"wrote pack {args.id} to {args.file}")
    elif args.pack_command == "share":  # e.g. a host's pack whose rooms have all expired: offer it to every room
        from questions.store import set_shared

        if not set_shared(store.engine, args.id, not args.off):
            print(f"throneroom: there is no pack {args.id}", file=sys.stderr)
            return 1
        print(f"pack {args.id}: " + ("offered to its owner's rooms only" if args.off else "shared with every room"))
    elif args.pack_command == "delete":
        if not delete_pack(store.engine, args.id):
            print(f"throneroom: there is no pack {args.id}", file=sys.stderr)
            return 1
        print(f"deleted pack {args.id}")
    return 0


def map_validate(args: argparse.Namespace) -> int:
    """Check a map file: exit 0 and a summary if it is valid, else 1 and every problem."""
    from engine.campaign.maps import MapError, load_map_file

    try:
        game_map = load_map_file(args.file)
    except MapError as error:
        print(f"{args.file}: not a valid map ({len(error.problems)} problem{'s' * (len(error.problems) != 1)}):",
              file=sys.stderr)
        for problem in error.problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    degrees = [len(n) for n in game_map.neighbours]
    print(f"{args.file}: valid map {game_map.id!r} ({game_map.name['en']}): {game_map.size} territories, "
          f"{sum(degrees) // 2} borders, {min(degrees)}-{max(degrees)} neighbours each, "
          f"{len(game_map.castle_triples())} ways to place the castles")
    return 0


# ----- throneroom simulate: the game-specific parts; engine/simulate.py drives every game -----

CARD_BOT_LEVELS = ("random", "greedy", "strong")
CROWN_MAX_DAYS = 60  # with no last day, a game still running after this day stops as "unfinished"
AVIGNON_MAX_ACTIONS = 2000  # two bots in a stand-off (AVIG-D9 bounds every game, but astronomically far)


def dump(line: dict[str, Any], compact: bool = False) -> None:
    """Print one JSON line (flushed: a long run shows its games as they end)."""
    import json

    print(json.dumps(line, separators=(",", ":")) if compact else json.dumps(line), flush=True)


def campaign_game(seed: int, settings: dict[str, Any]) -> Played[Any]:
    """One all-bot Short Campaign; its three bots draw from one generator seeded by the game's seed."""
    from engine.campaign.game import CampaignGame
    from engine.core import Rng
    from engine.simulate import play, setup

    return play(setup(CampaignGame(), 3, seed, settings), rng=Rng(seed ^ 0xB07), max_events=20_000)


def campaign_line(seed: int, played: Played[Any]) -> dict[str, Any]:
    """One finished Short Campaign's JSON line."""
    state = played.state
    return {
        "seed": seed,
        "map": state.map_id,
        "winner": state.final_ranking[0],
        "ranking": list(state.final_ranking),
        "scores": list(state.score),
        "expansion_rounds": sum(1 for h in state.history if h["kind"] == "question" and h["purpose"] == "expansion"),
        "battle_rounds": state.round,
        "eliminations": len(state.eliminated),
        "actions": played.actions,
        "timeouts": played.timeouts,
        "game_ms": played.game_ms,
    }


def simulate_campaign(args: argparse.Namespace) -> int:
    """All-bot Short Campaigns at one bot level, on a built-in map or a map file (CAMP-R2, D12)."""
    from engine.campaign.maps import MapError, builtin_map_ids, load_map_file, register_map

    settings = {"bot_level": args.level}
    if args.map:
        if args.map in builtin_map_ids():
            settings["map"] = args.map
        elif Path(args.map).is_file():
            try:
                game_map = load_map_file(args.map)
            except MapError as error:
                print(f"throneroom: {args.map}: not a valid map: {error}", file=sys.stderr)
                return 1
            register_map(game_map)
            settings["map"] = game_map.id
        else:
            print(f"throneroom: --map {args.map}: neither a built-in map ({', '.join(builtin_map_ids())}) nor a file",
                  file=sys.stderr)
            return 2
    wins = [0, 0, 0]
    totals = {"actions": 0, "eliminations": 0, "game_ms": 0}
    for i in range(args.games):
        line = campaign_line(args.seed + i, campaign_game(args.seed + i, settings))
        dump(line, compact=True)
        wins[line["winner"]] += 1
        for key in totals:
            totals[key] += line[key]
    dump({"summary": True, "games": args.games, "wins_by_seat": wins,
          "mean_actions": round(totals["actions"] / args.games, 1), "eliminations": totals["eliminations"],
          "mean_game_minutes": round(totals["game_ms"] / args.games / 60000, 1)}, compact=True)
    return 0


def card_bots(choose: Any, levels: tuple[str, ...], timed: tuple[str, ...], timings: list[float] | None
              ) -> dict[int, Policy]:
    """Per-seat policies for a card game: seat i plays ``choose(state, levels[i], rng)`` after 600-1800 ms, the
    wall time of each decision at a level in ``timed`` going into ``timings``."""
    import time

    def policy(level: str) -> Policy:
        def decide(state: Any, seat: int, rng: Any) -> tuple[Any, int]:
            started = time.perf_counter()
            action = choose(state, level, rng)
            if timings is not None and level in timed:
                timings.append(time.perf_counter() - started)
            return action, 600 + rng.randbelow(1201)
        return decide

    return {seat: policy(level) for seat, level in enumerate(levels)}


def hierarchy_game(seed: int, levels: tuple[str, ...] = ("strong", "random"), timings: list[float] | None = None
                   ) -> Played[Any]:
    """One Hierarchy game, seat i played at level ``levels[i]``; ``timings`` collects each strong decision's wall
    time. The bots share one generator seeded by the game's seed."""
    from engine.core import Rng
    from engine.hierarchy import bots
    from engine.hierarchy.game import HierarchyGame
    from engine.simulate import play, setup

    game = HierarchyGame()
    policies = card_bots(lambda state, level, rng: game.action_to_json(bots.choose(state, level, rng)), levels,
                         ("strong",), timings)
    return play(setup(game, 2, seed), policies, rng=Rng(seed ^ 0xB07), max_events=200)


def avignon_game(seed: int, levels: tuple[str, ...] = ("strong", "random"), timings: list[float] | None = None
                 ) -> Played[Any]:
    """One game of Avignon 1378, seat i played at level ``levels[i]`` (the roles are drawn per game); ``timings``
    collects each decision's wall time. Unfinished after AVIGNON_MAX_ACTIONS actions: stopped."""
    from engine.avignon.bots import decide
    from engine.avignon.game import AvignonGame
    from engine.core import Rng
    from engine.simulate import play, setup

    game = AvignonGame()
    policies = card_bots(lambda state, level, rng: game.action_to_json(decide(game, state, level, rng)), levels,
                         CARD_BOT_LEVELS, timings)
    return play(setup(game, 2, seed), policies, rng=Rng(seed ^ 0xA716),
                stop=lambda _state, played: played.actions >= AVIGNON_MAX_ACTIONS)


def simulate_cards(args: argparse.Namespace) -> int:
    """All-bot Hierarchy or Avignon games, each seat at its own bot level."""
    levels = tuple(args.bots.split(","))
    if len(levels) != 2 or any(level not in CARD_BOT_LEVELS for level in levels):
        print("throneroom: --bots takes two of random, greedy, strong, e.g. strong,random", file=sys.stderr)
        return 2
    if args.game == "hierarchy":
        return simulate_hierarchy(args, levels)
    return simulate_avignon(args, levels)


def simulate_hierarchy(args: argparse.Namespace, levels: tuple[str, ...]) -> int:
    """Hierarchy lines: the winner (seat and level), who started, turns, events, burned cards; the summary adds
    wins per seat and level, seat 0's win rate, turns, and the strong bot's decision times."""
    wins = {f"seat{i}:{level}": 0 for i, level in enumerate(levels)}
    timings: list[float] = []
    turns = []
    for n in range(args.games):
        seed = args.seed + n
        played = hierarchy_game(seed, levels, timings)
        state = played.state
        wins[f"seat{state.winner}:{levels[state.winner]}"] += 1
        turns.append(state.plays)  # the move log is bounded (LOG_CAP); the count is not
        dump({"seed": seed, "bots": list(levels), "winner": state.winner, "winner_bot": levels[state.winner],
              "first": state.first, "turns": state.plays, "actions": len(played.log), "burned": len(state.burned)})
    dump({"summary": True, "games": args.games, "seed": args.seed, "bots": list(levels), "wins": wins,
          "win_rate_seat0": round(wins[f"seat0:{levels[0]}"] / max(1, args.games), 3),
          "mean_turns": round(sum(turns) / max(1, len(turns)), 2), "max_turns": max(turns, default=0),
          "strong_decisions": len(timings), "slowest_strong_ms": round(max(timings, default=0.0) * 1000, 1),
          "mean_strong_ms": round(sum(timings) / max(1, len(timings)) * 1000, 2)})
    return 0


def simulate_avignon(args: argparse.Namespace, levels: tuple[str, ...]) -> int:
    """Avignon lines: the winner (seat, level and role), how the game ended, turns, actions and the slowest
    decision; a game stopped unfinished has no winner. The summary adds wins per seat, reasons and turns."""
    from engine.avignon.game import ROLE_NAMES

    wins = [0, 0]
    reasons: dict[str, int] = {}
    turns = 0
    slowest = 0.0
    for i in range(args.games):
        seed = args.seed + i
        timings: list[float] = []
        played = avignon_game(seed, levels, timings)
        state = played.state
        if played.finished:
            winner = played.table.game.standings(state, 2).ranking[0]  # a finished game's: its outcome
            wins[winner] += 1
            line = {"seed": seed, "winner": winner, "winner_bot": levels[winner],
                    "winner_role": ROLE_NAMES[state.winner], "reason": state.reason}
        else:
            line = {"seed": seed, "winner": None, "winner_bot": None, "winner_role": None, "reason": "unfinished"}
        line.update(turns=state.turn_no, actions=played.actions, slowest_ms=round(max(timings, default=0.0) * 1000, 1))
        reasons[line["reason"]] = reasons.get(line["reason"], 0) + 1
        turns += state.turn_no
        slowest = max(slowest, max(timings, default=0.0))
        dump(line)
    games = max(1, args.games)
    dump({"summary": True, "games": args.games, "bots": list(levels), "wins": wins,
          "win_rate": [round(w / games, 3) for w in wins], "reasons": reasons, "mean_turns": round(turns / games, 1),
          "slowest_decision_ms": round(slowest * 1000, 1)})
    return 0


def crown_levels(spec: str, game: int) -> tuple[str, ...]:
    """The five houses' bot levels for one game of a ``--crown-bots`` spec (CROWN-D7): ``strong`` or ``simple`` for
    all five, ``mix`` (one strong house against four simple ones, the strong seat at game mod 5, so that seat
    advantages cancel over a run), or five comma-separated levels."""
    from engine.crown.game import BOT_LEVELS

    if spec in BOT_LEVELS:
        return (spec,) * 5
    if spec == "mix":
        return tuple("strong" if h == game % 5 else "simple" for h in range(5))
    levels = tuple(x.strip() for x in spec.split(","))
    if len(levels) != 5 or any(x not in BOT_LEVELS for x in levels):
        raise ValueError(f"bots must be strong, simple, mix or five levels like strong,simple,simple,simple,simple "
                         f"(got {spec[:60]!r})")
    return levels


def crown_game(seed: int, settings: dict[str, Any] | None = None, levels: tuple[str, ...] | None = None,
               max_days: int = CROWN_MAX_DAYS, timings: list[float] | None = None,
               cpu_timings: list[float] | None = None) -> Played[Any]:
    """One all-bot game of Seizing the Crown, each house at its level in ``levels`` (else the bot_level setting);
    each decision gets a generator as a room draws it, and its wall and CPU time go into ``timings`` and
    ``cpu_timings``. Stopped unfinished once a day past ``max_days`` begins."""
    import time
    from dataclasses import replace

    from engine.core import evolve
    from engine.crown.game import CrownGame
    from engine.simulate import play, setup

    game = CrownGame()

    def decide(state: Any, house: int, rng: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        decision = game.bot_action(state, house, rng)
        if timings is not None:
            timings.append(time.perf_counter() - started)
        if cpu_timings is not None:
            cpu_timings.append(time.thread_time() - cpu)
        return decision

    table = setup(game, 5, seed, settings)
    if levels is not None:
        table = replace(table, state=evolve(table.state, bot_levels=tuple(levels)))
    return play(table, dict.fromkeys(range(5), decide), stop=lambda state, _played: state.day > max_days)


def crown_line(seed: int, played: Played[Any], levels: tuple[str, ...]) -> dict[str, Any]:
    """One game's JSON line: the winner, days, rulers in order, crowns, how it ended, events and refused moves."""
    state = played.state
    line: dict[str, Any] = {"seed": seed, "winner": None, "days": state.day, "reason": "unfinished",
                            "rulers": [h for h, _ in state.rulers]}
    if played.finished:
        line.update(winner=played.table.game.standings(state, 5).ranking[0], reason=state.reason,  # its outcome
                    crowns=[h["crowns"] for h in state.houses])
    return {**line, "events": played.attempts, "refused": played.refused, "levels": list(levels)}


def crown_summary(results: list[dict[str, Any]], slowest: float, last_day: int, slowest_cpu: float = 0.0,
                  decisions: int = 0) -> dict[str, Any]:
    """The summary line: how games ended, wins by starting house (seat) and by the first ruler, counts and largest
    shares; for tables with strong and simple houses, the strong houses' win rate; the slowest decision (wall
    clock, which includes waiting for a busy CPU, and the CPU time of this thread alone), each building the house's
    view and deciding, as a room does."""
    games = len(results)
    per = max(1, games)
    reasons: dict[str, int] = {}
    wins = [0] * 5
    first_ruler = [0] * 5  # wins of the house that first held the throne, by that house
    strong_games = strong_wins = 0
    for r in results:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
        winner = r["winner"]
        if winner is not None:
            wins[winner] += 1
            if r["rulers"] and winner == r["rulers"][0]:
                first_ruler[winner] += 1
        levels = r["levels"]
        if "strong" in levels and "simple" in levels:
            strong_games += 1
            strong_wins += winner is not None and levels[winner] == "strong"
    summary: dict[str, Any] = {
        "summary": True, "games": games, "last_day": last_day, "reasons": reasons,
        "throne_rate": round(reasons.get("throne", 0) / per, 3),
        "wins_by_house": wins, "max_house_share": round(max(wins) / per, 3),
        "first_ruler_wins": sum(first_ruler), "first_ruler_share": round(sum(first_ruler) / per, 3),
        "first_ruler_wins_by_house": first_ruler,
        "mean_days": round(sum(r["days"] for r in results) / per, 1),
        "decisions": decisions,
        "slowest_decision_ms": round(slowest * 1000, 2),
        "slowest_decision_cpu_ms": round(slowest_cpu * 1000, 2),
    }
    if strong_games:
        summary.update({"mixed_games": strong_games, "strong_wins": strong_wins,
                        "strong_share": round(strong_wins / strong_games, 3)})
    return summary


def simulate_crown(args: argparse.Namespace) -> int:
    """All-bot games of Seizing the Crown (docs/crown-engine.md): one line per game and the summary."""
    if not 0 <= args.last_day <= 50:
        print("throneroom: --last-day must be between 0 (none) and 50", file=sys.stderr)
        return 2
    try:
        crown_levels(args.crown_bots, 0)
    except ValueError as error:
        print(f"throneroom: --crown-{error}", file=sys.stderr)
        return 2
    settings = {"last_day": args.last_day}
    results = []
    slowest = slowest_cpu = 0.0
    decisions = 0
    for i in range(args.games):
        timings: list[float] = []
        cpu_timings: list[float] = []
        seed = args.seed + i
        levels = crown_levels(args.crown_bots, seed)
        played = crown_game(seed, settings, levels, args.max_days, timings, cpu_timings)
        slowest = max(slowest, max(timings, default=0.0))
        slowest_cpu = max(slowest_cpu, max(cpu_timings, default=0.0))
        decisions += len(timings)
        results.append(crown_line(seed, played, levels))
        dump(results[-1])
    dump(crown_summary(results, slowest, args.last_day, slowest_cpu, decisions))
    return 0


def simulate(args: argparse.Namespace) -> int:
    """Play all-bot games and print one JSON line each, then a summary line."""
    if args.game == "campaign":
        return simulate_campaign(args)
    if args.game == "crown":
        return simulate_crown(args)
    return simulate_cards(args)


def database_url(args: argparse.Namespace) -> tuple[str, str]:
    """The database URL and how to describe it; creates the default folder on first run."""
    if args.database_url and args.db:
        raise SystemExit("throneroom: give --db or --database-url, not both")
    if args.database_url:
        from sqlalchemy.engine import make_url

        try:  # said at the start, into the worker's log: never its password
            return args.database_url, make_url(args.database_url).render_as_string(hide_password=True)
        except Exception:  # noqa: BLE001 - a malformed URL is refused when the database is opened
            return args.database_url, "(the --database-url given)"
    path = Path(args.db).expanduser() if args.db else data_dir() / "throneroom.db"
    if path.exists() and path.is_dir():
        raise SystemExit(f"throneroom: --db {path} is a folder; give a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SystemExit(f"throneroom: cannot create the folder for the database {path}: {error.strerror}") from None
    return f"sqlite:///{path.resolve()}", str(path.resolve())


def backup(args: argparse.Namespace) -> int:
    """``throneroom backup FILE``: copy the SQLite database with SQLite's backup API, page by page in one read
    transaction, so the copy is consistent even while the server writes (it does not stop the server's writes for
    long: a write-ahead-log database lets them go on). The copy is one self-contained file (no -wal), written beside
    FILE first and then renamed, so a failed backup never leaves half a file under FILE's name."""
    import sqlite3
    import tempfile
    from urllib.parse import quote

    if args.database_url and args.db:
        print("throneroom: give --db or --database-url, not both", file=sys.stderr)
        return 2
    if args.database_url:
        url = args.database_url
        if not url.startswith("sqlite:///") or url == "sqlite:///:memory:":
            scheme = url.split(":", 1)[0] or url
            print(f"throneroom: backup copies a SQLite database file; {scheme!r} is not one (use that database's own "
                  "tools, e.g. pg_dump for PostgreSQL)", file=sys.stderr)
            return 1
        source = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
    else:
        source = Path(args.db).expanduser() if args.db else data_dir() / "throneroom.db"
    if not source.is_file():
        print(f"throneroom: there is no database at {source}", file=sys.stderr)
        return 1
    target = Path(args.file).expanduser()
    if target.is_dir():
        print(f"throneroom: {target} is a folder; give the path of the file to write", file=sys.stderr)
        return 1
    if not target.parent.is_dir():
        print(f"throneroom: the folder {target.parent} does not exist", file=sys.stderr)
        return 1
    if target.exists() and not args.force:
        print(f"throneroom: {target} exists; give --force to replace it", file=sys.stderr)
        return 1
    if target.resolve() == source.resolve():
        print("throneroom: the copy must not be the database itself", file=sys.stderr)
        return 1
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        os.close(handle)
    except OSError as error:
        print(f"throneroom: cannot write in {target.parent}: {error.strerror}", file=sys.stderr)
        return 1
    try:  # mode=rw: never create a database where there was none
        database = sqlite3.connect(f"file:{quote(str(source.resolve()))}?mode=rw", uri=True, timeout=10)
        try:
            copy = sqlite3.connect(temporary)
            try:
                database.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one file, whatever the source's journal
                copy.commit()
                (check,) = copy.execute("PRAGMA quick_check").fetchone()
            finally:
                copy.close()
        finally:
            database.close()
        if check != "ok":
            raise sqlite3.DatabaseError(f"the copy does not check out: {check}")
        os.replace(temporary, target)
    except (sqlite3.Error, OSError) as error:
        Path(temporary).unlink(missing_ok=True)
        print(f"throneroom: backup of {source} failed: {error}", file=sys.stderr)
        return 1
    print(f"wrote a copy of {source} to {target} ({target.stat().st_size} bytes)")
    return 0


STOP_POLL_S = 0.05  # how often the serving process looks for a stop request
MAX_CONNECTIONS = 20_000  # connections one process serves at once (eventlet's own default, 1,024, held 250 rooms)


def open_files_limit() -> int:
    """Raise this process's limit of open files to the most the system allows (every connection is one, and the
    usual soft limit of 1,024 would refuse phones long before the server is busy); returns the limit in force."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return MAX_CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard == resource.RLIM_INFINITY else min(hard, MAX_CONNECTIONS + 1024)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def listening_port(host: str, port: int) -> int | None:
    """The TCP port this process listens on at ``host`` (the one asked for, or the one the system gave for port 0),
    or None while it does not listen yet."""
    import psutil

    wanted = {host, "0.0.0.0", "::"} if host in ("0.0.0.0", "::") else {host}
    for connection in psutil.Process().net_connections(kind="tcp"):
        if connection.status == psutil.CONN_LISTEN and connection.laddr and connection.laddr.ip in wanted \
                and port in (0, connection.laddr.port):
            return int(connection.laddr.port)
    return None


def listen_in_background(socketio: Any, app: Any, host: str, port: int, waiting: Any = lambda: True,
                         **options: Any) -> tuple[int | None, list[BaseException | None]]:
    """Run ``socketio.run(app, ...)`` in a background task and wait until it listens: (the port it got, ``ended``).
    ``ended`` gets the server's end once it returns (the error it raised, or None). The port is None if the server
    ended first (a port already taken) or ``waiting()`` turned false (a stop request)."""
    ended: list[BaseException | None] = []

    def run_server() -> None:
        try:
            socketio.run(app, host=host, port=port, log_output=False, **options)
        except BaseException as error:  # noqa: BLE001 - handed to the waiting task, which reports it
            ended.append(error)
        else:
            ended.append(None)

    socketio.start_background_task(run_server)
    got = None
    while waiting() and not ended and got is None:
        got = listening_port(host, port)
        if got is None:
            socketio.sleep(STOP_POLL_S)
    return got, ended


def write_port_file(path: Path, port: int) -> None:
    """Write the port to ``path`` whole (a reader polling for it never sees half of it)."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        temporary.write_text(f"{port}\n")
        temporary.replace(path)
    except OSError as error:
        print(f"throneroom: cannot write the port to {path}: {error.strerror}", file=sys.stderr)


class StopRequest:
    """A signal handler that only records the request (the first signal's number) and returns: it runs between two
    bytecodes of whatever code is running, so it must neither raise nor take a lock."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, _frame: Any) -> None:
        if self.signum is None:  # a second Ctrl-C or SIGTERM while stopping changes nothing: the stop is under way
            self.signum = signum


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` lets only this machine connect."""
    return host == "localhost" or host == "::1" or host.startswith("127.")


def proxy_trust(args: argparse.Namespace) -> str | None:
    """Settle ``--trust-proxy`` and say what to watch out for. A worker trusts one proxy by default only when it
    listens on loopback (HAProxy on the same machine is then the only one that reaches it); reached from the network
    it believes no forwarded header unless told. Whoever can reach a port that trusts a proxy can claim any address
    in X-Forwarded-For and so escape every per-address limit: on a network address that deserves a warning."""
    if args.trust_proxy is None:
        args.trust_proxy = 1 if is_loopback(args.host) else 0
        if not args.trust_proxy:
            return (f"throneroom: listening on {args.host}, this worker believes no X-Forwarded-For: every phone seems "
                    "to come from HAProxy's address and shares its limits. Give --trust-proxy 1, and let only the "
                    "proxy reach this port (docs/scaling.md).")
    if args.trust_proxy and not is_loopback(args.host):
        return (f"throneroom: warning: --trust-proxy {args.trust_proxy} on {args.host}: anyone who reaches port "
                f"{args.port} can claim any address in X-Forwarded-For and escape the per-address limits. Let only the "
                "proxy reach this port (a firewall), or listen on 127.0.0.1 (docs/security.md).")
    return None


def serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted."""
    url, described = database_url(args)
    if args.public_url:
        public = args.public_url
    else:
        address = "127.0.0.1" if args.host.startswith("127.") else lan_address()
        if address is None:
            address = "127.0.0.1"
            print("throneroom: no network address found: phones cannot reach this machine. "
                  "Connect to the Wi-Fi or give --public-url.", file=sys.stderr)
        elif args.host not in ("0.0.0.0", "::", address):
            address = args.host
        public = f"http://{address}:{args.port}"

    worker_id = None
    # eventlet announces its maintenance mode on import; the async mode is a setting, so say it once, quietly
    warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
    if args.command == "worker":
        from host.green import green_process

        green_process(args.async_mode)
        from host.lease import new_worker_id

        worker_id = args.worker_id or new_worker_id()
        if args.rate_storage is None:  # the workers count one address's joins and rooms together
            args.rate_storage = args.message_queue
    note = proxy_trust(args)
    if note:
        print(note, file=sys.stderr)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
                        if worker_id is None else f"%(asctime)s %(levelname)s [{worker_id}] %(name)s: %(message)s")
    for noisy in ("socketio.server", "werkzeug"):
        logging.getLogger(noisy).setLevel(logging.WARNING)

    from host.app import create_app, runtime_of, shutdown, start_ticker
    from host.guard import RATE_KINDS

    try:
        app = create_app({
            "DATABASE_URL": url,
            "PUBLIC_URL": public,
            "ASYNC_MODE": args.async_mode,
            "TIMER_SCALE": args.timer_scale,
            "GAMES_MODULES": tuple(args.games_module),
            "INCLUDE_UNLISTED_GAMES": bool(args.games_module),  # a module's games are there to be played
            "SEED_SOURCE": None if args.seed is None else seed_sequence(args.seed),
            **{rule.setting: getattr(args, f"{kind.replace('-', '_')}_rate") for kind, rule in RATE_KINDS.items()},
            "RATE_STORAGE": args.rate_storage, "MAX_SPECTATORS": args.max_spectators,
            "MAX_WATCHERS": args.max_watchers, "ROOM_TTL_HOURS": args.room_ttl_hours,
            "ALLOWED_HOSTS": tuple(args.allowed_host), "TRUST_PROXY": args.trust_proxy,
            "MESSAGE_QUEUE": args.message_queue, "WORKER_ID": worker_id,
        })
    except Exception as error:  # noqa: BLE001 - a database that cannot be opened, most often: say it in one line
        print(f"throneroom: cannot start: {error}", file=sys.stderr)
        return 1
    runtime = runtime_of(app)
    from host.edge import capacity, open_files, serving_options

    files = open_files_limit()
    edge: dict[str, Any] = {}
    if args.async_mode == "eventlet":  # Werkzeug's server (threading, for development) takes none of these
        # behind a proxy every connection comes from the proxy: it limits each source itself (docs/security.md)
        edge = serving_options(runtime.socketio, files, MAX_CONNECTIONS,
                               None if args.trust_proxy else args.connections_per_address, args.idle_timeout)
    if files < MAX_CONNECTIONS:
        most = edge["custom_pool"].limit if edge else capacity(files, open_files(), MAX_CONNECTIONS)
        print(f"throneroom: this process may open {files} files: at most {most} phones and screens can connect at "
              "once (raise the limit: ulimit -n, or LimitNOFILE= in a systemd unit)", file=sys.stderr)
    # A stop (a service manager's SIGTERM, Ctrl-C) is only recorded by the signal handler: raising there would raise
    # inside whatever code runs at that moment (under eventlet, any green thread: a disconnect handler, whose caller
    # logged the SystemExit and went on serving). The server runs in a background task; this one waits for the
    # request and stops it (docs/decisions.md).
    stop = StopRequest()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    port, ended = listen_in_background(runtime.socketio, app, args.host, args.port, lambda: stop.signum is None,
                                       allow_unsafe_werkzeug=args.async_mode == "threading", **edge)
    if port is not None:  # "running" is said once it listens
        if urlsplit(public).port == 0:  # --port 0: the address phones use has the port the server got
            public = public.rsplit(":", 1)[0] + f":{port}"
            runtime.public_url = public
        print("Throneroom is running.")
        print(f"  On the TV or laptop, open:  {public}/tv")
        print(f"  Phones join at:             {public}   (or scan the QR code on the TV)")
        print(f"  Database:                   {described}")
        if not args.quiet:
            qr = qrcode.QRCode(border=1)
            qr.add_data(public + "/")
            qr.print_ascii(tty=False, invert=True)
        if args.demo:
            from host.app import start_demo

            code = start_demo(app, args.demo)
            print(f"  Demo ({args.demo}, bots only):  {public}/tv/{code}")
        sys.stdout.flush()
        start_ticker(app)
        if args.port_file is not None:  # last: whoever waits for it finds the rooms' clocks running
            write_port_file(args.port_file, port)
    while stop.signum is None and not ended:
        runtime.socketio.sleep(STOP_POLL_S)
    failure = ended[0] if ended else None
    if port is None and isinstance(failure, OSError):  # it never listened: nothing to stop
        print(f"throneroom: cannot listen on {args.host}:{args.port}: {failure.strerror}", file=sys.stderr)
        return 1
    if stop.signum is not None:
        logging.getLogger("throneroom").info("stopping (%s)", signal.Signals(stop.signum).name)
    elif ended and port is not None:  # it ended by itself after it listened: the phones' answers and clocks matter
        reason = "it returned" if failure is None else getattr(failure, "strerror", None) or repr(failure)
        logging.getLogger("throneroom").error("the server stopped accepting connections on %s:%s (%s): stopping "
                                              "cleanly", args.host, port, reason)
    shutdown(app)
    if failure is not None and not isinstance(failure, OSError):
        raise failure
    if ended and stop.signum is None:
        return 1  # a service manager restarts it
    for signum in (signal.SIGTERM, signal.SIGINT):  # stopped: a late repeat must not turn the exit into a kill
        signal.signal(signum, signal.SIG_IGN)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``throneroom`` console script."""
    args = build_parser().parse_args(argv)
    if args.command in ("serve", "worker"):
        return serve(args)
    if args.command == "map":
        return map_validate(args)
    if args.command == "backup":
        return backup(args)
    if args.command == "pack":
        return pack_command(args)
    if args.command == "report":
        return report_command(args)
    if args.command == "simulate":
        return simulate(args)
    if args.command == "cluster":
        from host.cluster_cli import run as cluster

        return cluster(args)
    if args.command == "bench":
        from bench.cli import run

        return run(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
