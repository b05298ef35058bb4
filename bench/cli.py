"""``throneroom bench``: its arguments, and running the chosen scenarios into tables."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from typing import Any

from bench.report import table
from host.cli import bounded

SCENARIOS = ("party", "big", "fairness", "recovery", "spread", "failover")
ONE_PROCESS_AUDIENCE = 1000  # the big room on one `serve` up to this audience; larger ones only on workers
FULL = {"rooms": [100, 250, 500], "server_workers": [1, 2], "failover_rooms": 50, "failover_times": (10.0, 20.0),
        "audience": [50, 200, 500, 1000, 5000], "jitter": [(0, 20), (0, 100), (0, 300)],
        "duration": 30.0, "recovery_rooms": 100, "recovery_actions": 300, "fairness_phones": 8, "fairness_rounds": 24,
        "spread_rooms": 100_000, "spread_workers": 50}
QUICK = {"rooms": [2], "server_workers": [1, 2], "failover_rooms": 4, "failover_times": (4.0, 18.0),
         "audience": [10], "jitter": [(0, 20)], "duration": 3.0, "recovery_rooms": 3,
         "recovery_actions": 60, "fairness_phones": 4, "fairness_rounds": 3, "spread_rooms": 2000,
         "spread_workers": 5}


def sizes(low: int, high: int, what: str) -> Any:
    """An argparse type: a comma-separated list of whole numbers between low and high."""
    def parse(text: str) -> list[int]:
        try:
            values = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be whole numbers separated by commas, not {text!r}") from None
        if not values or any(not low <= v <= high for v in values):
            raise argparse.ArgumentTypeError(f"each of {what} must be between {low} and {high}, not {text!r}")
        return values

    return parse


def ranges(text: str) -> list[tuple[int, int]]:
    """An argparse type: jitter ranges in ms, ``0-20,0-100``."""
    result = []
    for part in text.split(","):
        try:
            low, high = (int(x) for x in part.split("-"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"a jitter range looks like 0-100, not {part!r}") from None
        if not 0 <= low <= high <= 1000:
            raise argparse.ArgumentTypeError(f"a jitter range must lie within 0-1000 ms, low first, not {part!r}")
        result.append((low, high))
    return result


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``throneroom bench``."""
    parser.add_argument("--scenario", choices=(*SCENARIOS, "all"), default="all", help="which scenario (default all)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks the benchmark works, in seconds")
    parser.add_argument("--rooms", type=sizes(1, 2000, "--rooms"), metavar="R,R",
                        help="party: room counts (default 100,250,500)")
    parser.add_argument("--server-workers", type=sizes(1, 8, "--server-workers"), metavar="N,N",
                        help="party and big room: server processes, one run each: 1 is one `throneroom serve` on SQLite, "
                        "2 or more are `throneroom worker`s behind HAProxy sharing PostgreSQL and Redis (default 1,2; "
                        f"audiences over {ONE_PROCESS_AUDIENCE} only on workers)")
    parser.add_argument("--failover-rooms", type=bounded(int, 2, 1000, "--failover-rooms"), metavar="N",
                        help="failover: rooms playing on the two workers when one is killed (default 50)")
    parser.add_argument("--duration", type=bounded(float, 1, 3600, "--duration"), metavar="S",
                        help="party: seconds of play per room count (default 30)")
    parser.add_argument("--floor", action=argparse.BooleanOptionalAction, default=True,
                        help="party: also run the same load against a bare Flask-SocketIO relay (default on)")
    parser.add_argument("--timer-scale", type=bounded(float, 0.05, 10, "--timer-scale"), default=0.3, metavar="F",
                        help="party: the server's timer scale, so games move faster (default 0.3)")
    parser.add_argument("--audience", type=sizes(1, 5000, "--audience"), metavar="N,N",
                        help="big room: audience sizes (default 50,200,500,1000,5000)")
    parser.add_argument("--jitter", type=ranges, metavar="LO-HI,...",
                        help="fairness: one-way delay ranges in ms (default 0-20,0-100,0-300)")
    parser.add_argument("--fairness-phones", type=bounded(int, 2, 20, "--fairness-phones"), metavar="N",
                        help="fairness: phones in the room (default 8)")
    parser.add_argument("--fairness-rounds", type=bounded(int, 1, 200, "--fairness-rounds"), metavar="N",
                        help="fairness: questions (default 24)")
    parser.add_argument("--recovery-rooms", type=bounded(int, 1, 5000, "--recovery-rooms"), metavar="N",
                        help="recovery: rooms in the database (default 100)")
    parser.add_argument("--recovery-actions", type=bounded(int, 10, 100_000, "--recovery-actions"), metavar="N",
                        help="recovery: events in each room's log (default 300)")
    parser.add_argument("--spread-rooms", type=bounded(int, 1, 200_000, "--spread-rooms"), metavar="N",
                        help="spread: random room codes routed (default 100000)")
    parser.add_argument("--spread-workers", type=bounded(int, 1, 1000, "--spread-workers"), metavar="N",
                        help="spread: workers behind HAProxy (default 50)")
    parser.add_argument("--workers", type=bounded(int, 1, 64, "--workers"), default=3, metavar="N",
                        help="load-generator processes (default 3)")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="seed of every random choice (default 1)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to this JSON file")


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The sizes to run: the defaults (full or quick) with the options given."""
    base = QUICK if args.quick else FULL
    return {
        "rooms": args.rooms or base["rooms"], "server_workers": args.server_workers or base["server_workers"],
        "failover_rooms": args.failover_rooms or base["failover_rooms"], "failover_times": base["failover_times"],
        "audience": args.audience or base["audience"],
        "jitter": args.jitter or base["jitter"], "duration": args.duration or base["duration"],
        "recovery_rooms": args.recovery_rooms or base["recovery_rooms"],
        "recovery_actions": args.recovery_actions or base["recovery_actions"],
        "fairness_phones": args.fairness_phones or base["fairness_phones"],
        "fairness_rounds": args.fairness_rounds or base["fairness_rounds"],
        "spread_rooms": args.spread_rooms or base["spread_rooms"],
        "spread_workers": args.spread_workers or base["spread_workers"],
    }


PARTY_COLUMNS = [("rooms", "rooms"), ("server_workers", "server workers"), ("clients", "clients"),
                 ("sent", "actions sent"), ("acked", "acked"), ("lost", "lost"), ("latency.p50", "p50 ms"),
                 ("latency.p95", "p95 ms"), ("latency.p99", "p99 ms"), ("latency.max", "max ms"),
                 ("worker_cpu_text", "CPU % per worker"), ("server_cpu", "server CPU %"),
                 ("generator_cpu", "load-gen CPU %"), ("postgres_cpu", "PostgreSQL CPU %"),
                 ("redis_cpu", "Redis CPU %"), ("haproxy_cpu", "HAProxy CPU %"), ("rss_mb", "server RSS MB"),
                 ("per_room_kb", "KB/room")]
PARTY_TITLE = ("Party load: action-to-update latency (every other client of the room); one `serve` on SQLite, or N "
               "workers behind HAProxy on PostgreSQL and Redis (CPU: % of one core)")
FAILOVER_COLUMNS = [("rooms", "rooms"), ("killed_rooms", "killed worker's rooms"), ("rejoined", "all sockets back"),
                    ("rejoined_max_s", "kill to all back, max s"), ("recovered", "acted again"),
                    ("back_median_s", "kill to acting again, median s"), ("back_max_s", "max s"),
                    ("sent", "actions sent"), ("acked", "acked"), ("acked_before_kill", "acked before the kill"),
                    ("lost_logged", "lost from the log"), ("lost_updates", "updates never seen"),
                    ("unanswered", "unanswered"), ("generator_cpu", "load-gen CPU %")]
BIG_COLUMNS = [("audience", "audience"), ("server_workers", "server workers"), ("relayed", "relayed"),
               ("accepted", "accepted"), ("stored", "logged"),
               ("accept_all_ms", "accept all ms"), ("ack.p99", "ack p99 ms"), ("reveal.p50", "reveal p50 ms"),
               ("reveal.p99", "reveal p99 ms"), ("reveal.max", "reveal max ms"), ("scored.p99", "own result p99 ms"),
               ("lost", "lost"), ("retries", "asked again"), ("server_cpu", "server CPU %"),
               ("generator_cpu", "load-gen CPU %"), ("rss_mb", "server RSS MB")]
FAIR_COLUMNS = [("jitter", "one-way jitter"), ("pairs", "pairs"), ("effective", "fair-timing order %"),
                ("receipt", "server-receipt order %"), ("taken", "claims believed %")]
FLOOR_COLUMNS = [("rooms", "rooms"), ("actions", "actions"), ("relay_actions", "relay actions"),
                 ("p99", "p99 ms"), ("relay_p99", "relay p99 ms"), ("p99_ratio", "p99 ×"),
                 ("cpu_ms_per_action", "CPU ms/action"), ("relay_cpu_ms_per_action", "relay CPU ms/action"),
                 ("cpu_ratio", "CPU ×"), ("messages_per_action", "messages/action"),
                 ("relay_messages_per_action", "relay messages/action"),
                 ("state_bytes.phone", "phone state B"), ("relay_state_bytes.phone", "relay phone B"),
                 ("state_bytes.tv", "TV state B"), ("relay_state_bytes.tv", "relay TV B"), ("relay_lost", "relay lost")]
RECOVERY_COLUMNS = [("rooms", "rooms"), ("events", "events"), ("restored", "restored"),
                    ("start_to_ready_s", "start to ready s"), ("restore_s", "restore alone s"),
                    ("per_event_us", "µs/event"), ("rss_mb", "server RSS MB")]
SPREAD_COLUMNS = [("weight", "weight"), ("hash", "hash-type"), ("points", "points/worker"),
                  ("max_pct", "busiest, % of mean"), ("min_pct", "idlest, % of mean"),
                  ("leave_moved", "one leaves: rooms moved"), ("leave_ideal", "ideal"),
                  ("leave_others", "of other workers"), ("join_moved", "one joins: rooms moved"),
                  ("join_ideal", "ideal"), ("join_others", "to other workers")]


def spread_title(sizes_: dict[str, Any]) -> str:
    """The spread table's title: what was routed, and how."""
    return (f"Routing spread: {sizes_['spread_rooms']} room codes on {sizes_['spread_workers']} workers by HAProxy "
            "2.6's consistent hashing (balance url_param room); then the last worker leaves, or a new one joins")


def run(args: argparse.Namespace) -> int:
    """Run the chosen scenarios and print their tables; 1 if a scenario failed."""
    from bench import scenarios

    chosen = SCENARIOS if args.scenario == "all" else (args.scenario,)
    sizes_ = settings(args)
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                           "system": platform.platform()}, "settings": sizes_}
    print(f"throneroom bench: {', '.join(chosen)}{' (quick)' if args.quick else ''} on {os.cpu_count()} cores, "
          f"{args.workers} load-generator processes", flush=True)
    failed = False

    def attempt(name: str, job: Any) -> Any:
        nonlocal failed
        started = time.monotonic()
        try:
            row = job()
        except Exception as error:  # noqa: BLE001 - report it and go on with the next size
            failed = True
            print(f"  {name}: FAILED: {error}", file=sys.stderr, flush=True)
            return None
        print(f"  {name}: done in {time.monotonic() - started:.0f} s", flush=True)
        return row

    if "party" in chosen:
        rows = [attempt(f"party, {r} rooms, {n} server worker{'s' if n > 1 else ''}",
                        lambda r=r, n=n: scenarios.party(r, args.workers, sizes_["duration"], args.timer_scale,
                                                         args.seed, server_workers=n))
                for r in sizes_["rooms"] for n in sizes_["server_workers"]]
        results["party"] = [r for r in rows if r]
        if args.floor:  # the relay is one process: next to the runs on one server process
            rows = [attempt(f"floor, {r['rooms']} rooms", lambda r=r: scenarios.floor(r, args.workers,
                                                                                   sizes_["duration"], args.seed))
                    for r in results["party"] if r["server_workers"] == 1]
            results["floor"] = [r for r in rows if r]
    if "failover" in chosen:
        before_s, after_s = sizes_["failover_times"]
        row = attempt("failover", lambda: scenarios.failover(sizes_["failover_rooms"], args.workers, before_s,
                                                             after_s, args.timer_scale, args.seed))
        results["failover"] = [row] if row else []
    if "big" in chosen:
        rows = [attempt(f"big room, {n} audience, {w} server worker(s)",
                        lambda n=n, w=w: scenarios.big(n, args.workers, args.seed, server_workers=w))
                for n in sizes_["audience"] for w in sizes_["server_workers"]
                if w > 1 or n <= ONE_PROCESS_AUDIENCE]
        results["big"] = [r for r in rows if r]
    if "fairness" in chosen:
        rows = attempt("fairness", lambda: scenarios.fairness_runs(sizes_["jitter"], sizes_["fairness_phones"],
                                                                   sizes_["fairness_rounds"], args.seed))
        results["fairness"] = rows or []
    if "recovery" in chosen:
        row = attempt("recovery", lambda: scenarios.recovery(sizes_["recovery_rooms"], sizes_["recovery_actions"],
                                                             args.seed))
        results["recovery"] = [row] if row else []
    if "spread" in chosen:
        from bench import hashring

        rows = attempt("spread", lambda: hashring.spread(sizes_["spread_rooms"], sizes_["spread_workers"], args.seed))
        results["spread"] = rows or []
    print()
    for key, title, columns in (
            ("party", PARTY_TITLE, PARTY_COLUMNS),
            ("floor", "The floor: the same party load on a bare Flask-SocketIO relay (bench/relay.py)", FLOOR_COLUMNS),
            ("big", "Big room: audience answers and the reveal", BIG_COLUMNS),
            ("fairness", "Fairness: pairs ordered as their true reactions (gap ≥ 20 ms)", FAIR_COLUMNS),
            ("recovery", "Recovery: server start to every room restored", RECOVERY_COLUMNS),
            ("spread", spread_title(sizes_), SPREAD_COLUMNS),
            ("failover", "Failover: 2 workers, the one holding the most rooms killed (SIGKILL) in play",
             FAILOVER_COLUMNS)):
        if key in results:
            print(table(title, columns, results[key]))
            print()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=2)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """``python -m bench``."""
    parser = argparse.ArgumentParser(prog="throneroom bench", description="Throneroom's benchmarks (docs/bench.md)")
    add_arguments(parser)
    return run(parser.parse_args(argv))
