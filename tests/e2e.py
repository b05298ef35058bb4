"""Helpers for the end-to-end tests: Debian's Chromium driven by Playwright, never a downloaded browser."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


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


def set_setting(tv: Any, key: str, value: Any) -> None:
    """Change one lobby setting on the TV and wait until the server has taken it."""
    import re

    from playwright.sync_api import expect

    field = tv.locator(f"#set-{key}")
    if isinstance(value, bool):
        field.set_checked(value)
        shown = "true" if value else "false"
    else:
        field.fill(str(value))
        field.dispatch_event("change")
        shown = str(value)
    expect(tv.locator(".settings")).to_have_attribute("data-values", re.compile(f'"{key}":{shown}'))
