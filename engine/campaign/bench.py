"""Benchmark of the Short Campaign engine (run by hand, never in the test suite): ``python -m engine.campaign.bench``.

Prints complete all-bot games per second on one core and the median time to apply one action, per map.
"""

from __future__ import annotations

import argparse
import statistics
import time

from engine.campaign.game import CampaignGame, CampaignState
from engine.campaign.maps import builtin_map_ids
from engine.core import Rng
from engine.simulate import Played, play, setup

GAME = CampaignGame()


def all_bot_game(seed: int, map_id: str) -> Played[CampaignState]:
    """One all-bot game, played as ``throneroom simulate campaign`` plays it."""
    return play(setup(GAME, 3, seed, {"map": map_id}), rng=Rng(seed ^ 0xB07), max_events=20_000)


def games_per_second(map_id: str, games: int) -> tuple[float, float]:
    """Whole games per second, and mean actions per game."""
    started = time.perf_counter()
    actions = 0
    for seed in range(games):
        actions += len(all_bot_game(seed, map_id).log)
    elapsed = time.perf_counter() - started
    return games / elapsed, actions / games


def apply_times(map_id: str, games: int) -> list[float]:
    """The time of every apply/on_timeout call of replayed games, in microseconds."""
    samples = []
    for seed in range(games):
        played = all_bot_game(seed, map_id)
        state = played.table.state
        for kind, seat, payload, at in played.log:
            action = None if seat is None else GAME.parse_action(payload)  # parsing is not part of the measure
            started = time.perf_counter_ns()
            state = GAME.on_timeout(state, at) if action is None or seat is None else GAME.apply(state, seat, action, at)
            samples.append((time.perf_counter_ns() - started) / 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    print(f"{'map':<14}{'games/s':>10}{'actions/game':>14}{'median apply µs':>17}{'p99 apply µs':>14}")
    for map_id in builtin_map_ids():
        rate, actions = games_per_second(map_id, args.games)
        samples = sorted(apply_times(map_id, max(20, args.games // 10)))
        p99 = samples[int(len(samples) * 0.99)]
        print(f"{map_id:<14}{rate:>10.0f}{actions:>14.0f}{statistics.median(samples):>17.1f}{p99:>14.1f}")


if __name__ == "__main__":
    main()
