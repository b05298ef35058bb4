"""The weight of a page's first load (issue [19], "Light pages"): a real server, asked as a browser asks (``Accept-Encoding:
gzip, br``) for a page and every file it names for its first screen, sends a phone less than 100 KB, compressed; a
page carries only its own language; files carry ETags and answer 304; fingerprinted ones are cached a year. The
figures in the README ("Page weight") are what ``first_load`` prints here (``pytest -s tests/test_page_weight.py``).
One browser test counts what Chromium itself received for the phone's page."""

from __future__ import annotations

import gzip
import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import brotli

from host.i18n import catalog
from tests.conftest import LiveServer
from tests.e2e import PHONE, new_page

BROWSER = {"Accept-Encoding": "gzip, deflate, br", "Accept-Language": "en-GB,en;q=0.9"}
PHONE_BUDGET = 100 * 1024  # bytes over the wire for a phone's first load
LONG_CACHE = "public, max-age=31536000, immutable"
FILES = re.compile(r'<(?:script src|link rel="stylesheet" href|link rel="icon" href)="([^"]+)"')


@dataclass
class Fetched:
    status: int
    headers: dict[str, str]
    wire: bytes  # as sent

    @property
    def body(self) -> bytes:
        """The body decoded as the browser would."""
        encoding = self.headers.get("content-encoding", "")
        if encoding == "br":
            return brotli.decompress(self.wire)
        if encoding == "gzip":
            return gzip.decompress(self.wire)
        assert encoding == "", encoding
        return self.wire


def get(url: str, headers: dict[str, str] | None = None) -> Fetched:
    """One GET, nothing decoded (urllib neither asks for nor undoes compression by itself)."""
    request = urllib.request.Request(url, headers={**BROWSER, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Fetched(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read())
    except urllib.error.HTTPError as error:
        return Fetched(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())


@dataclass
class FirstLoad:
    page: str
    files: dict[str, int] = field(default_factory=dict)  # path: bytes on the wire (the page's own included)

    @property
    def total(self) -> int:
        return sum(self.files.values())

    def line(self) -> str:
        return f"{self.page}: {self.total / 1024:.1f} KB compressed over {len(self.files)} files"


def first_load(base: str, path: str, headers: dict[str, str] | None = None, also: tuple[str, ...] = ()) -> FirstLoad:
    """A browser's first visit: the page, then every script, style sheet and icon it names, and ``also`` (what its
    first screen fetches by itself, e.g. the TV's QR code); bytes as transferred, compressed as negotiated."""
    page = get(base + path, headers)
    assert page.status == 200, (path, page.status)
    load = FirstLoad(path, {path: len(page.wire)})
    for url in [*FILES.findall(page.body.decode()), *also]:
        fetched = get(base + url, headers)
        assert fetched.status == 200, (url, fetched.status)
        load.files[url] = len(fetched.wire)
    return load


def new_room(base: str) -> str:
    request = urllib.request.Request(base + "/api/rooms", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return str(json.load(response)["code"])


def assets_of(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="assets">(.*?)</script>', html)
    assert found, "the page names no assets"
    return dict(json.loads(found.group(1)))


def test_a_phone_first_load_is_under_100_kb_in_every_language(server: LiveServer) -> None:
    code = new_room(server.url)
    loads = [first_load(server.url, f"/join/{code}", {"Accept-Language": lang}) for lang in ("en", "fa", "ro")]
    tv = first_load(server.url, f"/tv/{code}", also=(f"/qr/{code}.svg",))
    for load, lang in zip(loads, ("en", "fa", "ro"), strict=True):
        print(f"[{lang}] {load.line()}")
        assert load.total < PHONE_BUDGET, load.files
        assert f"/i18n/{lang}." in " ".join(load.files)  # its own catalog, and only it
        assert sum(1 for url in load.files if url.startswith("/i18n/")) == 1
        assert not [url for url in load.files if "/games/" in url or "/extra/" in url]  # no game until one is shown
    print(f"[en] {tv.line()}")
    assert tv.total < 2 * PHONE_BUDGET, tv.files
    # nothing big goes uncompressed: every file over 1 KB came with brotli
    for url in loads[0].files:
        if url != f"/join/{code}":
            fetched = get(server.url + url)
            assert len(fetched.body) < 1024 or fetched.headers.get("content-encoding") == "br", url


def test_a_page_carries_only_its_own_language(server: LiveServer) -> None:
    code = new_room(server.url)
    key = "phone.youre_in"  # said on every phone that joined
    said = {lang: catalog(lang)[key] for lang in ("en", "fa", "ro")}
    assert len(set(said.values())) == 3
    for lang, headers in (("fa", {}), ("ro", {"Accept-Language": "ro-RO,ro;q=0.9"})):
        page = get(f"{server.url}/join/{code}" + ("?lang=fa" if lang == "fa" else ""), headers)
        html = page.body.decode()
        assert f'lang="{lang}"' in html
        assert len(page.body) < 8 * 1024  # no catalog inlined (the three were 264 KB)
        for text in said.values():
            assert text not in html
        urls = assets_of(html)["catalogs"]
        assert set(urls) == {"en", "fa", "ro"}
        own = get(server.url + urls[lang])
        script = own.body.decode()
        assert f'src="{urls[lang]}"' in html  # loaded by the page, before its scripts
        assert said[lang] in script
        assert not [text for other, text in said.items() if other != lang and text in script]
    english = get(server.url + "/join/" + code, {"Accept-Language": "de"}).body.decode()
    assert 'lang="en"' in english and f'src="{assets_of(english)["catalogs"]["en"]}"' in english


def test_files_carry_etags_and_fingerprinted_ones_are_cached_a_year(server: LiveServer) -> None:
    html = get(server.url + "/").body.decode()
    catalog_url = assets_of(html)["catalogs"]["fa"]
    assert re.fullmatch(r"/i18n/fa\.[0-9a-f]{12}\.js", catalog_url)
    script_url = next(url for url in FILES.findall(html) if url.startswith("/static/common.js?v="))
    game_url = assets_of(html)["games"]["quiz"]["scripts"][0]
    for url in (catalog_url, script_url, game_url):
        first = get(server.url + url)
        assert first.status == 200 and first.headers["cache-control"] == LONG_CACHE, (url, first.headers)
        assert first.headers["content-encoding"] == "br" and "accept-encoding" in first.headers["vary"].lower()
        etag = first.headers["etag"]
        again = get(server.url + url, {"If-None-Match": etag})
        assert again.status == 304 and again.wire == b"", url
        plain = get(server.url + url, {"Accept-Encoding": "identity"})  # a client that takes no compression
        assert "content-encoding" not in plain.headers and plain.body == first.body
        assert get(server.url + url, {"Accept-Encoding": "identity", "If-None-Match": plain.headers["etag"]}).status == 304
        zipped = get(server.url + url, {"Accept-Encoding": "gzip"})
        assert zipped.headers["content-encoding"] == "gzip" and zipped.body == first.body
    # the same file without its hash, or with another's: asked again every time, answered 304 when unchanged
    for url in ("/static/common.js", "/static/common.js?v=000000000000", catalog_url.replace("/fa.", "/fa.0")):
        fetched = get(server.url + url)
        assert fetched.status == 200 and fetched.headers["cache-control"] == "no-cache", url
        assert get(server.url + url, {"If-None-Match": fetched.headers["etag"]}).status == 304, url
    for url in ("/i18n/de.0123456789ab.js", "/static/nothing.js", "/static/../host/app.py", "/player/static/x.js"):
        assert get(server.url + url).status == 404, url


def test_socket_io_is_served_as_before(server: LiveServer) -> None:
    """Engine.IO's polling answers come from its own middleware, not Flask: compression of the pages leaves them be."""
    handshake = get(server.url + "/socket.io/?EIO=4&transport=polling")
    assert handshake.status == 200
    assert handshake.headers.get("content-encoding") in (None, "gzip", "deflate")  # engine.io's own, if any
    assert handshake.body.startswith(b"0{") and b'"sid"' in handshake.body


def test_chromium_receives_less_than_100_kb_for_a_phone_page(browser: Any, server: LiveServer) -> None:
    """What the browser itself counts on the wire (CDP's encodedDataLength: headers and compressed bodies) for the
    phone's join page until its name form is drawn."""
    code = new_room(server.url)
    page = new_page(browser, **PHONE)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    received: dict[str, float] = {}
    urls: dict[str, str] = {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: received.__setitem__(e["requestId"], e["encodedDataLength"]))
    page.goto(f"{server.url}/join/{code}")
    page.locator("#name").wait_for()
    page.wait_for_load_state("networkidle")
    files = {urls.get(rid, rid): size for rid, size in received.items() if "/socket.io/" not in urls.get(rid, "")}
    total = sum(files.values())
    print(f"[chromium] phone /join: {total / 1024:.1f} KB over {len(files)} files")
    assert total < PHONE_BUDGET, files
    assert any("/i18n/en." in url for url in files) and not any("/games/" in url for url in files)
