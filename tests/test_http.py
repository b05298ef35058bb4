"""HTTP pages and endpoints."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import flask
import qrcode
import qrcode.image.svg
from werkzeug.test import EnvironBuilder

from tests.conftest import Harness

ROOT = Path(__file__).resolve().parent.parent


def test_pages_render_in_the_browser_language(harness: Harness):
    client = harness.app.test_client()
    home = client.get("/", headers={"Accept-Language": "ro-RO,ro;q=0.9"})
    assert home.status_code == 200 and 'lang="ro"' in home.get_data(as_text=True)
    persian = client.get("/?lang=fa").get_data(as_text=True)
    assert 'dir="rtl"' in persian and 'lang="fa"' in persian
    assert 'lang="en"' in client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert client.get("/tv").status_code == 200


def test_everything_is_served_from_the_app_itself(harness: Harness):
    client = harness.app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert "http://" not in page.replace("http://127.0.0.1:9999", "") and "https://" not in page
    response = client.get("/")
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]
    for asset in ("/static/socket.io.min.js", "/static/common.js", "/static/tv.js", "/static/style.css",
                  "/player/static/phone.js", "/static/games/campaign.js", "/static/games/campaign.css",
                  "/static/socket.io.LICENSE"):
        assert client.get(asset).status_code == 200, asset
    named = re.findall(r'<(?:script src|link rel="stylesheet" href)="([^"]+)"', page)
    assets = json.loads(re.search(r'<script type="application/json" id="assets">(.*?)</script>', page).group(1))
    later = [*assets["catalogs"].values(), *assets["extra"]["scripts"], *assets["extra"]["styles"],
             *(url for files in assets["games"].values() for url in files["scripts"] + files["styles"])]
    assert any(url.startswith("/extra/tests.games/tally.js?v=") for url in later)  # the games module's, when shown
    assert len(named) >= 5 and len(later) >= 15
    for asset in named + later:  # every script and style sheet a page names or may load is there
        assert client.get(asset).status_code == 200, asset
    assert client.get("/extra/tests.games/nothing.js").status_code == 404
    assert client.get("/extra/other.module/tally.js").status_code == 404


def test_the_shipped_app_knows_no_test_game():
    """Tally, TeamTally and Buzz live in tests/games: an app started without a games module (a fresh process, unlike
    this one, where tests/conftest.py loaded them) registers none of them, and its pages load nothing of them."""
    script = (
        "import json\n"
        "from engine import registry\n"
        "from host.app import create_app\n"
        "app = create_app({'ASYNC_MODE': 'threading'})\n"
        "client = app.test_client()\n"
        "pages = ''.join(client.get(p).get_data(as_text=True) for p in ('/', '/tv', '/join/ABCD')).lower()\n"
        "print(json.dumps({'games': sorted(registry.GAMES), 'lobby': [i.id for i, _ in registry.lobby_games(True)],\n"
        "                  'words': [w for w in ('tally', 'buzz') if w in pages],\n"
        "                  'extra': client.get('/extra/tests.games/tally.js').status_code}))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    shipped = json.loads(done.stdout.splitlines()[-1])
    assert shipped["games"] == ["avignon", "campaign", "crown", "hierarchy", "quiz"]
    assert shipped["lobby"] == ["campaign", "crown", "hierarchy", "avignon", "quiz"]
    assert shipped["words"] == [] and shipped["extra"] == 404
    for folder in ("engine", "host/static", "host/i18n", "templates"):
        assert not [p for p in (ROOT / folder).rglob("*") if re.search("tally|buzz", p.name)], folder


def test_rooms_are_created_and_looked_up(harness: Harness):
    client = harness.app.test_client()
    created = client.post("/api/rooms")
    assert created.status_code == 201
    code = created.get_json()["code"]
    assert client.get(f"/api/rooms/{code}").get_json()["ok"] is True
    assert client.get("/api/rooms/ZZZZ").status_code == 404
    assert client.get("/api/rooms/zz").get_json()["error"]["code"] == "invalid_code"
    assert client.get(f"/tv/{code}").status_code == 200
    assert client.get("/tv/not-a-code").status_code == 404


def test_the_join_form_normalises_the_typed_code(harness: Harness):
    client = harness.app.test_client()
    code, _ = harness.service.create_room()
    typed = f" {code[:2].lower()} {code[2:].lower()}"
    assert client.get("/join", query_string={"code": typed}).headers["Location"].endswith(f"/join/{code}")
    missing = "ABCD" if code != "ABCD" else "ABCE"  # [10] a code without a room goes back to the form, told
    assert client.get(f"/join?code={missing.lower()}").headers["Location"].endswith(f"/?error=unknown_room&code={missing}")
    assert "error=invalid_code" in client.get("/join?code=12").headers["Location"]
    assert client.get("/join/abcd").headers["Location"].endswith("/join/ABCD")
    assert client.get("/join/ABC1").status_code == 404
    page = client.get("/join/ABCD").get_data(as_text=True)
    assert 'data-code="ABCD"' in page


def test_the_qr_code_is_an_svg_of_the_join_url(harness: Harness):
    client = harness.app.test_client()
    response = client.get("/qr/ABCD.svg")
    assert response.mimetype == "image/svg+xml"
    root = ET.fromstring(response.data)
    assert root.tag.endswith("svg")
    expected = qrcode.make("http://127.0.0.1:9999/join/ABCD", image_factory=qrcode.image.svg.SvgPathFillImage,
                           border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    assert response.data.endswith(expected.to_string())  # the same modules as the join URL's code
    assert client.get("/qr/AB.svg").status_code == 404


def test_a_socket_events_request_context_finds_a_route_without_raising(harness: Harness):
    """Flask-SocketIO handles every Socket.IO event inside a Flask request context made from the socket's first
    request (``GET /socket.io/?EIO=4&transport=...``). No route matched that path, so at every event Werkzeug raised
    NoMatch and then NotFound, and each exception's traceback held a dozen frames and the request context in a
    reference cycle that only the cyclic collector frees: most of what a young collection walked in the party
    benchmark (10 ms, once a second, docs/decisions.md). The path now has routes of its own (never reached: the
    Engine.IO middleware answers it first), for both transports."""
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade"}
    for method, transport, headers in (("GET", "polling", {}), ("POST", "polling", {}), ("GET", "websocket", upgrade)):
        environ = EnvironBuilder(path="/socket.io/", method=method, query_string=f"EIO=4&transport={transport}",
                                 headers=headers).get_environ()
        with harness.app.request_context(environ):
            assert flask.request.routing_exception is None, (method, transport, flask.request.routing_exception)
    assert harness.app.test_client().get("/socket.io/").status_code == 400  # Engine.IO's own answer, as before
