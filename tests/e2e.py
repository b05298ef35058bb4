"""Helpers for the end-to-end tests: Debian's Chromium driven by Playwright, never a downloaded browser."""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else (shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
# A room state's WebSocket frame as a page receives it: 42<namespace>,<ack id>["state",... The ack id (group 2) is there
# when the state carries the server's round-trip probe (host/broadcast.py, docs/protocol.md), else empty.
STATE_FRAME = re.compile(r'^42/(tv|play),(\d*)\["state"')


def state_frames(page: Any) -> list[str]:
    """The room states this page receives from now on, as their WebSocket frames (collected while Playwright waits)."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload) if isinstance(
        payload, str) and STATE_FRAME.match(payload) else None))
    return frames


def launch(playwright: Any) -> Any:
    """Chromium from the system's package."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def decode_qr(png: bytes) -> str:
    """The text of the QR code in a screenshot, read as a phone camera would."""
    import zxingcpp
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    results = zxingcpp.read_barcodes(image)
    assert results, "no QR code found in the screenshot"
    return results[0].text


def shot(page: Any, name: str) -> None:
    """Keep a screenshot for people to look at (test-artifacts/, never committed)."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def open_settings(tv: Any) -> None:
    """Open the lobby's Settings door on the host's TV (issue [18]: the room's settings, the game's settings and the
    packs are behind it); it stays open across the lobby's updates."""
    door = tv.locator("#settings-door")
    tv.locator("#settings-button").wait_for()
    if not door.evaluate("(d) => d.open"):
        tv.click("#settings-button")
    tv.wait_for_function("() => document.getElementById('settings-door').open")


def set_setting(tv: Any, key: str, value: Any) -> None:
    """Change one lobby setting on the TV (behind the Settings door) and wait until the server has taken it."""
    import re

    from playwright.sync_api import expect

    open_settings(tv)
    field = tv.locator(f"#set-{key}")
    if isinstance(value, bool):
        field.set_checked(value)
        shown = "true" if value else "false"
    else:
        field.fill(str(value))
        field.dispatch_event("change")
        shown = str(value)
    expect(tv.locator(".settings")).to_have_attribute("data-values", re.compile(f'"{key}":{shown}'))


WAIT_MS = 15_000  # generous for a loaded CI machine, never a speed claim


def new_page(browser: Any, **options: Any) -> Any:
    """A page in its own browser context (its own localStorage, like a separate device) that accepts dialogs and
    collects the page's JavaScript errors in ``page.errors``."""
    page = browser.new_context(**options).new_page()
    page.set_default_timeout(WAIT_MS)
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    return page


def open_tv(browser: Any, url: str, width: int = 1920, height: int = 1080, settings: bool = True) -> tuple[Any, str]:
    """A TV page that created its room: (page, room code). With ``settings`` (the default) it opens the lobby's
    Settings door, as a host who sets up the room does (the door stays open while the page lives)."""
    import re

    tv = new_page(browser, viewport={"width": width, "height": height})
    tv.goto(url + "/tv")
    tv.wait_for_url(re.compile(r"/tv/[A-Z]{4}$"))
    if settings:
        open_settings(tv)
    return tv, tv.locator("#room-code").inner_text()


def type_join(page: Any, url: str, name: str, button: str = "#join-player") -> None:
    """A phone page opens the join URL, types a name and taps a join button (what follows is the test's to check)."""
    page.goto(url)
    page.fill("#name", name)
    page.click(button)


def join(page: Any, url: str, name: str, button: str = "#join-player") -> None:
    """A phone page joins through the join URL and waits until it is seated."""
    from playwright.sync_api import expect

    type_join(page, url, name, button)
    expect(page.locator("#waiting")).to_be_visible()


SMALL_PHONE = {"viewport": {"width": 360, "height": 640}, "is_mobile": True, "has_touch": True}


def quiz_phones(browser: Any, url: str, code: str) -> dict[str, Any]:
    """The quiz tests' three players, seated through the join form: Ana and Bob on phones in English, and Zahra on
    a 360x640 phone switched to Persian (right to left)."""
    phones = {}
    for name in ("Ana", "Bob"):
        phones[name] = new_page(browser, **PHONE)
        join(phones[name], f"{url}/join/{code}", name)
    zahra = new_page(browser, **SMALL_PHONE)
    join(zahra, f"{url}/join/{code}", "Zahra")
    zahra.select_option("#phone-language", "fa")
    zahra.wait_for_function("() => document.documentElement.dir === 'rtl'")
    phones["Zahra"] = zahra
    return phones


def start_with_phones(browser: Any, url: str, game: str, names: tuple[str, ...] = ("Ana", "Bob")) -> tuple[Any, list]:
    """A TV and one phone per name; the host picks the game, switches bots off and starts: (tv, phones)."""
    tv, code = open_tv(browser, url)
    phones = []
    for name in names:
        phone = new_page(browser, **PHONE)
        join(phone, f"{url}/join/{code}", name)
        phones.append(phone)
    tv.click(f"[data-game={game}]")
    set_setting(tv, "bots", False)
    tv.click("#start")
    return tv, phones


def pack_zip(name: str, questions: list[dict[str, Any]]) -> bytes:
    """A question pack as the host uploads it: a .zip with its pack.json."""
    pack = {"format": "throneroom-pack/1", "name": name, "language": "en", "questions": questions}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pack.json", json.dumps(pack))
    return out.getvalue()
