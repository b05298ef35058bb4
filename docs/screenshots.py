"""Regenerate the README's screenshots: ``python docs/screenshots.py`` (needs the test extras and Chromium).

Starts a real server on loopback with a throwaway database, plays a Short Campaign (one phone, two bots) and
saves docs/images/tv.png (the battle map) and docs/images/phone.png (the keypad), reduced to a small palette.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image
from playwright.sync_api import sync_playwright

from tests.conftest import LiveServer
from tests.e2e import PHONE, launch

OUT = ROOT / "docs" / "images"


def save(png: Path, target: Path, width: int) -> None:
    image = Image.open(png).convert("RGB")
    image = image.resize((width, round(image.height * width / image.width)), Image.LANCZOS)
    image.quantize(colors=96, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp) / "shots.db", timer_scale=0.4, extra=["--seed", "7"])
        server.start()
        try:
            with sync_playwright() as playwright:
                browser = launch(playwright)
                tv = browser.new_page(viewport={"width": 1920, "height": 1080})
                tv.goto(server.url + "/tv")
                tv.wait_for_url(re.compile(r"/tv/[A-Z]{4}$"))
                code = tv.locator("#room-code").inner_text()
                phone = browser.new_context(**PHONE).new_page()
                phone.goto(f"{server.url}/join/{code}")
                phone.fill("#name", "Ana")
                phone.click("#join-player")
                phone.wait_for_selector("#waiting")
                tv.click("[data-game=campaign]")
                tv.click("#start")
                phone.wait_for_selector("[data-key='ok']:not([disabled])", timeout=60_000)
                for digit in "2025":
                    phone.click(f"[data-key='{digit}']")
                phone.screenshot(path=f"{tmp}/phone.png")
                phone.click("[data-key='ok']")
                for _ in range(600):  # the battle: the map coloured by owners, a player choosing a target
                    if tv.locator(".banner").count() and "BATTLE" in tv.locator(".stage-line").inner_text().upper():
                        break
                    if phone.locator(".territory-button").count():
                        phone.click(".territory-button")
                        phone.click("#confirm")
                    tv.wait_for_timeout(200)
                tv.wait_for_timeout(600)
                tv.screenshot(path=f"{tmp}/tv.png")
                browser.close()
        finally:
            server.stop()
        save(Path(tmp) / "tv.png", OUT / "tv.png", 1280)
        save(Path(tmp) / "phone.png", OUT / "phone.png", 390)
    print(f"wrote {OUT / 'tv.png'} and {OUT / 'phone.png'}")


if __name__ == "__main__":
    main()
