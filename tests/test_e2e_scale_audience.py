"""End to end, past one machine (issue [14], docs/scaling.md): a spectator's phone page, behind HAProxy, spreads to a
worker other than its room's own and plays along from there, relayed: it answers, and sees its own result at the
reveal. Real workers, HAProxy, PostgreSQL and Redis on loopback; headless Chromium."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from bench.hashring import Ring, Server
from bench.services import PostgresServer, RedisServer
from tests.cluster import Cluster, wait_for
from tests.e2e import PHONE, WAIT_MS, join, new_page, open_tv, set_setting, shot


def relayed(port: int) -> int:
    """How many phones a worker relays to other workers (its /healthz figures)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
        lines = dict(line.split(" ", 1) for line in response.read().decode().splitlines()[1:])
    return int(lines["relayed"])


@pytest.mark.live
def test_a_spectator_page_spreads_to_another_worker_and_plays_along_relayed(
        browser: Any, postgres: PostgresServer, redis_server: RedisServer, tmp_path: Path) -> None:
    with Cluster(postgres.new_database(), redis_server.url, tmp_path, count=2, timer_scale=0.5, seed=7) as cluster:
        url = cluster.url
        tv, code = open_tv(browser, url)
        owner = wait_for(lambda: cluster.holder(code), "the TV's worker holding the room")
        other = next(name for name in cluster.workers if name != owner)
        # The phone's own id decides its worker (HAProxy's audience backend): choose one the ring sends to the other
        # worker (bench/hashring.py, HAProxy's own algorithm; a wrong model would land it on the owner and fail).
        ring = Ring([Server(name, number, 256) for number, name in enumerate(cluster.workers, 1)])
        peer = next(p for p in (f"peer{i}" for i in range(1000)) if ring.server_for(p, avalanche=True) == other)
        ana = new_page(browser, **PHONE)
        join(ana, f"{url}/join/{code}", "Ana")
        viewer = new_page(browser, **PHONE)
        viewer.add_init_script(f"localStorage.setItem('throneroom.peer', JSON.stringify('{peer}'))")
        join(viewer, f"{url}/join/{code}", "Vera", "#join-watch")
        wait_for(lambda: relayed(cluster.workers[other].port) == 1, "the spectator relayed by the other worker")
        assert relayed(cluster.workers[owner].port) == 0 and cluster.holder(code) == owner
        expect(viewer.locator("#waiting")).to_be_visible()  # seated, from the other worker
        tv.click("[data-game=campaign]")
        set_setting(tv, "bots", True)
        tv.click("#timers summary")
        set_setting(tv, "reveal_seconds", 20)  # x 0.5: ten seconds to look at the reveal
        tv.click("#start")

        expect(viewer.locator("#aud-banner")).to_be_visible(timeout=WAIT_MS)
        enabled_ok = viewer.locator("[data-key='ok']:not([disabled])")
        expect(enabled_ok).to_be_visible(timeout=WAIT_MS)
        for digit in "42":
            viewer.click(f"[data-key='{digit}']")
        enabled_ok.click()
        expect(viewer.locator("#sent")).to_be_visible()  # acknowledged by the room's worker, through the relay
        expect(ana.locator("[data-key='ok']:not([disabled])")).to_be_visible(timeout=WAIT_MS)
        ana.click("[data-key='7']")
        ana.click("[data-key='ok']")  # the bots answer too; the last answer brings the reveal
        expect(viewer.locator("#aud-result")).to_be_visible(timeout=WAIT_MS)
        expect(viewer.locator("#aud-points")).to_contain_text("+")
        shot(viewer, "scale-relayed-spectator-reveal")
        assert relayed(cluster.workers[other].port) == 1 and cluster.holder(code) == owner
        expect(tv.locator("#offline")).to_be_hidden()
