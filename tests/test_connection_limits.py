"""Issue [16]: no guest stops the server with connections. Idle TCP connections used to be kept for ever: at the
process's open-file limit ``accept()`` failed with EMFILE and ``throneroom serve`` exited 1 without its clean stop.
"""

from __future__ import annotations

import contextlib
import errno
import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import socketio

import host.app
import host.cli
from host.cli import build_parser, proxy_trust
from host.edge import LINGER_S
from tests.conftest import Harness, Servers
from tests.test_hostile_uploads_live import client, new_room

FILES = 256  # the server's open-file limit in the flood test (soft and hard: it cannot raise it)


def idle(port: int) -> socket.socket | None:
    """A TCP connection to the server that sends nothing (None: the connection itself failed)."""
    try:
        return socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        return None


def read_until_closed(sock: socket.socket) -> tuple[bytes, bool]:
    """What the server sent on ``sock``, and whether it closed it, reading as the socket's timeout allows."""
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except (TimeoutError, BlockingIOError):  # still open: waited as long as told, or nothing more to read now
        return received, False
    except ConnectionResetError:
        pass
    return received, True


def closed_by_server(sock: socket.socket, wait: float) -> bytes | None:
    """What the server sent before closing ``sock`` within ``wait`` seconds, or None if it is still open."""
    sock.settimeout(wait)
    received, closed = read_until_closed(sock)
    return received if closed else None


def state_of(sock: socket.socket) -> bytes | None:
    """What the server sent on ``sock`` before closing it, b"" if it closed it without a word, or None if it is
    still open and silent (read without waiting)."""
    sock.setblocking(False)
    received, closed = read_until_closed(sock)
    return received if closed else received or None


def test_a_flood_of_idle_connections_under_a_low_file_limit_does_not_stop_the_server(servers: Servers):
    server = servers.start("flood", prefix=["prlimit", f"--nofile={FILES}:{FILES}", "--"],
                           extra=["--idle-timeout", "20"])
    held = [idle(server.port) for _ in range(FILES + 100)]  # more than the process may open at all
    time.sleep(LINGER_S + 1)  # a refused connection is closed within LINGER_S
    assert server.process.poll() is None, f"the server exited with {server.process.returncode}:\n" \
        f"{server.log.read_text()[-3000:]}"
    ends = [state_of(sock) for sock in held if sock is not None]
    refused = [refusal(end) for end in ends if end]  # a 503 saying why, then the close
    open_now = ends.count(None)  # served, waiting for a request (they never send one)
    most = int(re.search(r"at most (\d+) phones and screens can connect at once", server.log.read_text())[1])
    print(f"{len(held)} connections: {open_now} open (at most {most} at a time), {len(refused)} refused, "
          f"{ends.count(b'')} closed by the idle timeout, {held.count(None)} not connected")
    assert refused and set(refused) == {"server_full"} and 0 < open_now <= most < FILES
    assert server.log.read_text().count("WARNING throneroom.edge: refused") == 1  # said once, not once a connection
    for sock in held:
        if sock is not None:
            sock.close()
    room = new_room(server.url)
    host = client(server.url, "/tv")
    assert host.call("watch", {"code": room["code"], "host_token": room["host_token"]}, namespace="/tv",
                     timeout=30)["ok"]
    phones = [client(server.url, "/play") for _ in range(2)]
    for name, phone in zip(("Ana", "Bob"), phones):
        assert phone.call("join", {"code": room["code"], "name": name, "role": "player"}, namespace="/play",
                          timeout=30)["ok"]
    for control, extra in (("select_game", {"game": "tally"}),
                           ("settings", {"game": "tally", "settings": {"bots": False, "turn_seconds": 120}}),
                           ("start", {})):
        assert host.call("control", {"control": control, **extra}, namespace="/tv", timeout=30)["ok"], control
    moved = [phone.call("action", {"action": {"add": 1}}, namespace="/play", timeout=30) for phone in phones]
    assert any(answer["ok"] for answer in moved), moved
    for sio in (host, *phones):
        with contextlib.suppress(socketio.exceptions.SocketIOError):
            sio.disconnect()
    server.process.terminate()
    assert server.process.wait(10) == 0, server.log.read_text()[-3000:]
    assert "stopped:" in server.log.read_text()


def request(sock: socket.socket, path: str = "/healthz", port: int = 0) -> bytes:
    """Send one keep-alive GET on ``sock`` and read its whole answer (headers and the Content-Length body)."""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(4096)
        if not chunk:
            return answer
        answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length and (chunk := sock.recv(4096)):
        body += chunk
    return head + b"\r\n\r\n" + body


def test_idle_and_slow_connections_are_closed_after_the_idle_timeout_but_a_quiet_phone_stays(servers: Servers):
    server = servers.start("idle", extra=["--idle-timeout", "1"])
    silent = idle(server.port)  # connects and never says anything
    kept = idle(server.port)  # one request, then the connection is kept alive and left idle
    assert request(kept, port=server.port).startswith(b"HTTP/1.1 200")
    slow = idle(server.port)  # starts a request and stops in the middle of its headers (slowloris)
    slow.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode())
    phone = client(server.url, "/play")  # a WebSocket that only hears Engine.IO's pings, every 5 s
    assert closed_by_server(silent, 20) == b"", "a connection that never sent a request stayed open"
    assert closed_by_server(kept, 20) == b"", "an idle keep-alive connection stayed open"
    time.sleep(6)  # over a ping: the phone's socket is quiet for longer than the idle timeout between them
    assert phone.call("ping", {"t": 1}, namespace="/play", timeout=10)["ok"]
    assert closed_by_server(slow, 60) is not None, "a request stuck in its headers stayed open"
    phone.disconnect()
    for sock in (silent, kept, slow):
        sock.close()


def refusal(answer: bytes) -> str:
    """The error code of a refused connection's 503 (the JSON body the pages read)."""
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503"), answer[:200]
    assert b"connection: close" in head.lower(), head
    return json.loads(body)["error"]["code"]


def test_one_address_holds_a_bounded_number_of_connections_and_a_closed_one_frees_a_place(servers: Servers):
    server = servers.start("per-address", extra=["--connections-per-address", "3"])
    held = [idle(server.port) for _ in range(3)]
    for sock in held:  # each served, then kept alive: three places taken
        assert request(sock, port=server.port).startswith(b"HTTP/1.1 200")
    extra = idle(server.port)
    answer = request(extra, port=server.port)
    assert refusal(answer) == "too_many_connections"
    assert closed_by_server(extra, 10) is not None  # and closed
    held.pop().close()
    deadline = time.monotonic() + 10  # the server sees the close when it next reads that socket: at once, here
    while True:
        again = idle(server.port)
        answer = request(again, port=server.port)
        if answer.startswith(b"HTTP/1.1 200") or time.monotonic() > deadline:
            break
        again.close()
        time.sleep(0.1)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    for sock in (*held, extra, again):
        sock.close()


def test_behind_a_trusted_proxy_the_per_address_limit_is_left_to_the_proxy(servers: Servers):
    server = servers.start("proxied", extra=["--connections-per-address", "3", "--trust-proxy", "1"])
    held = [idle(server.port) for _ in range(5)]  # the peer is the proxy: every phone's connection comes from it
    for sock in held:
        assert request(sock, port=server.port).startswith(b"HTTP/1.1 200")
        sock.close()


def post_rooms(harness: Harness, base_url: str, **headers: str) -> int:
    return harness.app.test_client().post("/api/rooms", base_url=base_url, headers=headers).status_code


def test_a_page_of_another_port_of_the_same_host_is_another_origin():
    harness = Harness()  # its public URL: http://127.0.0.1:9999
    assert post_rooms(harness, "http://127.0.0.1:9999", Origin="http://127.0.0.1:9999") == 201
    assert post_rooms(harness, "http://127.0.0.1:9999", Origin="http://127.0.0.1:1234") == 403  # another server's page
    assert post_rooms(harness, "http://127.0.0.1:9999", Origin="http://127.0.0.1") == 403
    assert post_rooms(harness, "http://127.0.0.1:9999", Origin="https://127.0.0.1:9999") == 403
    assert post_rooms(harness, "http://localhost:9999", Origin="http://localhost:9999") == 201  # a TV on the server
    assert post_rooms(harness, "http://localhost:9999", Origin="http://localhost:8080") == 403
    assert post_rooms(harness, "http://127.0.0.1:9999", Origin="http://127.0.0.1:99999") == 403  # no such port


def test_the_origin_check_behind_a_proxy_compares_the_public_address():
    proxied = Harness(PUBLIC_URL="https://party.example.org", TRUST_PROXY=1)
    forwarded = {"X-Forwarded-Host": "party.example.org", "X-Forwarded-Proto": "https",
                 "X-Forwarded-For": "192.168.1.20"}
    assert post_rooms(proxied, "http://127.0.0.1:8000", Origin="https://party.example.org", **forwarded) == 201
    assert post_rooms(proxied, "http://127.0.0.1:8000", Origin="https://party.example.org:8443", **forwarded) == 403
    assert post_rooms(proxied, "http://127.0.0.1:8000", Origin="http://party.example.org", **forwarded) == 403
    # a proxy that passes the public name as Host but no X-Forwarded-Proto (nginx's "Host $host" alone)
    plain = Harness(PUBLIC_URL="https://party.example.org")
    assert post_rooms(plain, "http://party.example.org", Origin="https://party.example.org") == 201
    assert post_rooms(plain, "http://party.example.org", Origin="https://party.example.org:8000") == 403


def proxy_note(*argv: str) -> tuple[str | None, int]:
    args = build_parser().parse_args(list(argv))
    return proxy_trust(args), args.trust_proxy


WORKER = ("worker", "--port", "0", "--database-url", "sqlite://", "--message-queue", "redis://127.0.0.1:6379/0",
          "--public-url", "http://quiz.lan:8000")


def test_trusting_a_proxy_on_a_network_address_is_warned_about():
    warning, trusted = proxy_note("serve", "--host", "0.0.0.0", "--trust-proxy", "1")
    assert trusted == 1 and warning is not None and "--trust-proxy" in warning and "only the proxy" in warning
    assert proxy_note("serve", "--host", "127.0.0.1", "--trust-proxy", "1") == (None, 1)
    assert proxy_note("serve") == (None, 0)
    assert proxy_note(*WORKER) == (None, 1)  # on loopback: HAProxy on this machine, the only one that reaches it
    note, trusted = proxy_note(*WORKER, "--host", "10.0.0.11")  # reached from the network: nothing believed
    assert trusted == 0 and note is not None and "--trust-proxy 1" in note
    warning, trusted = proxy_note(*WORKER, "--host", "10.0.0.11", "--trust-proxy", "1")
    assert trusted == 1 and warning is not None and "only the proxy" in warning


def test_a_server_that_fails_after_it_listened_still_stops_cleanly(tmp_path: Path, monkeypatch: Any, caplog: Any):
    stopped: list[Any] = []
    clean_stop = host.app.shutdown
    monkeypatch.setattr(host.app, "shutdown", lambda app: (stopped.append(app), clean_stop(app)))
    monkeypatch.setattr(host.cli, "listen_in_background",  # it listened, then accept() failed
                        lambda *args, **options: (4321, [OSError(errno.EMFILE, "Too many open files")]))
    monkeypatch.setattr(host.cli.signal, "signal", lambda *args: None)  # the test process keeps its own handlers
    code = host.cli.main(["serve", "--host", "127.0.0.1", "--port", "4321", "--db", str(tmp_path / "t.db"), "--quiet",
                          "--async-mode", "threading", "--public-url", "http://127.0.0.1:4321"])
    assert code == 1
    assert len(stopped) == 1, "the clean stop (host.app.shutdown) did not run"
    assert "Too many open files" in caplog.text and "stopping cleanly" in caplog.text
