"""bench/hashring.py predicts the worker the real HAProxy (Debian's 2.6, /usr/sbin/haproxy) picks for a room code
with ``balance url_param room`` and ``hash-type consistent``, plain sdbm and with ``avalanche`` (issue [14])."""

from __future__ import annotations

import http.server
import shutil
import threading
import urllib.request
from collections import Counter

import pytest

from bench.hashring import Ring, Server, full_hash, key_hash, puids, room_codes, sdbm, spread
from bench.services import HAProxy

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"

# ids set on some lines and not on others: the others take the smallest free ids, in order
PLAIN = [Server("w1"), Server("w2", 3), Server("w3"), Server("w4"), Server("w5", 9)]
MIXED = [Server("w1", 7, 256), Server("w2", None, 16), Server("w3", None, 10), Server("w4", 2, 100),
         Server("w5", None, 64)]


class Named(http.server.ThreadingHTTPServer):
    daemon_threads = True


def tiny_server(name: str) -> Named:
    """An HTTP server on a free loopback port that answers every GET with its own name."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = name.encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = Named(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def backend(name: str, modifier: str, servers: list[Server], ports: dict[str, int]) -> str:
    lines = [f"backend {name}", "    balance url_param room", f"    hash-type consistent{modifier}"]
    for s in servers:
        lines.append(f"    server {s.name} 127.0.0.1:{ports[s.name]} weight {s.weight}"
                     + (f" id {s.id}" if s.id is not None else ""))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def haproxy(tmp_path_factory: pytest.TempPathFactory):
    workers = {f"w{i}": tiny_server(f"w{i}") for i in range(1, 6)}
    ports = {name: server.server_address[1] for name, server in workers.items()}
    config = "\n".join([
        "global", "    maxconn 256",
        "defaults", "    mode http", "    timeout connect 5s", "    timeout client 30s", "    timeout server 30s",
        "frontend front", "    bind {bind}", "    use_backend plain if {{ path_beg /plain }}",
        "    use_backend mixed if {{ path_beg /mixed }}", "    default_backend default",
        # a bare "hash-type consistent" is sdbm with avalanche
        backend("default", "", MIXED, ports), backend("plain", " sdbm", PLAIN, ports),
        backend("mixed", " sdbm avalanche", MIXED, ports), ""])
    proxy = HAProxy(lambda bind: config.format(bind=bind))  # its front held from the start (bench/services.py)
    front = proxy.front_port
    try:
        proxy.start()
        yield f"http://127.0.0.1:{front}"
    finally:
        proxy.stop()
        for server in workers.values():
            server.shutdown()
            server.server_close()


def picked(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


@pytest.mark.parametrize(("path", "servers", "avalanche"),
                         [("/", MIXED, True), ("/plain", PLAIN, False), ("/mixed", MIXED, True)])
def test_haproxy_picks_the_predicted_worker(haproxy: str, path: str, servers: list[Server], avalanche: bool):
    ring = Ring(servers)
    codes = room_codes(500, seed=20261202)
    wrong = []
    for code in codes:
        expected = ring.server_for(code, avalanche)
        got = picked(f"{haproxy}{path}?lang=en&room={code}&x=1")
        if got != expected:
            wrong.append((code, expected, got))
    assert not wrong, f"{len(wrong)} of 500 codes routed elsewhere than predicted, e.g. {wrong[:5]}"
    assert len(Counter(ring.server_for(c, avalanche) for c in codes)) >= 4  # the check covers most workers


def test_the_parts():
    assert sdbm(b"") == 0 and sdbm(b"a") == 97 and sdbm(b"ab") == (97 * 65599 + 98)
    assert key_hash("ABCD") == sdbm(b"ABCD") and key_hash("ABCD", avalanche=True) == full_hash(sdbm(b"ABCD"))
    assert len({full_hash(x) for x in range(100_000)}) == 100_000  # a bijection: points never collide
    assert puids(PLAIN) == {"w1": 1, "w2": 3, "w3": 4, "w4": 5, "w5": 9}  # auto ids start at the line's position
    assert puids(MIXED) == {"w1": 7, "w2": 3, "w3": 4, "w4": 2, "w5": 6}
    codes = room_codes(1000, seed=3)
    assert len(set(codes)) == 1000 and all(len(c) == 4 and c.isupper() for c in codes)
    with pytest.raises(ValueError):
        Ring([Server("a", weight=257)])
    with pytest.raises(ValueError):
        Ring([Server("a", 1), Server("b", 1)])
    assert Ring([]).server_for("ABCD") is None


def test_only_the_leaving_workers_rooms_move_and_only_to_the_new_one():
    for row in spread(2000, 5, weights=(1, 256)):
        assert row["leave_others"] == 0 and row["join_others"] == 0, row
        assert 0 < row["leave_moved"] < 2000 and 0 < row["join_moved"] < 2000, row
        assert row["leave_ideal"] == 400 and row["join_ideal"] == 333, row
        assert row["max_pct"] >= 100 >= row["min_pct"], row
