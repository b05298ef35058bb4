"""HTTP pages and endpoints."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import qrcode
import qrcode.image.svg

from tests.conftest import Harness


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
                  "/player/static/phone.js", "/static/games/tally.js", "/static/games/campaign.css",
                  "/static/socket.io.LICENSE"):
        assert client.get(asset).status_code == 200, asset


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
