"""The screen checker's harness (issue [9]): a stress room on the real server, its TV and phones in headless
Chromium, and a check of every stage at every TV and phone size in every language.

A scenario (tests/test_screens_*.py) builds a ``StressRoom``: the TV page, a few phone pages whose screens are
judged (``phone()``), and robot phones, python-socketio clients, for the other seats (``robot()``). It drives the
game with the robots' actions and the host's *Skip timer* (the server runs with long timers, so nothing moves by
itself while a stage is checked) and calls ``check(label)`` at each stage. ``check`` switches the room (TV) and the
phones to each language, resizes each page to each size, runs tests/screens/checker.js and keeps one screenshot
per stage, page and language at the smallest size in test-artifacts/screens/ (never committed). ``finish()`` fails the
test with every problem found, grouped, so one run shows them all.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import socketio
from playwright.sync_api import Page

from tests.conftest import LiveServer
from tests.e2e import ARTIFACTS, state_frames
from tests.screens import axe

CHECKER = (Path(__file__).with_name("checker.js")).read_text(encoding="utf-8")
# One call a judged screen: two frames for the layout to settle, every animation finished, then the checker (each
# call to the page is a round trip through Playwright's driver, which a busy machine makes slow).
# On the TV the minimum sizes hold for the stage at its full height (STAGE_SHARE of the page, style.css --tv-u); when
# a notice or the "That's me" line takes part of it, the stage's type shrinks with it, and so do the minimums.
SETTLE_AND_CHECK = """async (opts) => {
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    for (const a of document.getAnimations()) { try { a.finish(); } catch (e) { /* infinite */ } }
    const stage = opts.kind === "tv" && document.querySelector("body.tv .screen");
    if (stage) {
      const box = getComputedStyle(stage);
      const content = stage.clientHeight - parseFloat(box.paddingTop) - parseFloat(box.paddingBottom);
      const k = Math.min(1, content / (opts.stageShare * innerHeight));
      opts.minPx *= k;
      for (const role in opts.roleMin || {}) opts.roleMin[role] *= k;
    }
    return (""" + CHECKER + """)(opts);
}"""
RECHECKS = 3  # how often a check is done again when a state came in the middle of it
LANGUAGES = ("en", "fa", "ro")
TV_SIZES = ((1920, 1080), (1280, 720))
PHONE_SIZES = ((360, 640), (430, 932))  # the smallest and the largest common phone: what fits both fits between
MIN_TV_PX_AT_1080 = 24  # text players read on the TV, at 1080p; scaled with the viewport's height
# The 10-foot rule of issue [18]: what each marked role (data-role) reads at on a 1280x720 projector, scaled with the
# viewport's height (x1.5 at 1080p), and the share of the stage's main panel (data-main-panel) its content must cover.
ROLE_MIN_PX_AT_720 = {"question": 40, "option": 28, "row": 28, "score": 32, "log": 22, "map-label": 20}
MAIN_PANEL_FILL = 2 / 3
STAGE_SHARE = 0.86  # the share of the TV page's height whose stage gets the full type scale (style.css, --tv-u)

# Twelve people with names of twenty characters: wide Latin letters, Persian, Romanian with diacritics.
STRESS_NAMES = (
    "WWWWWWWWWWWWWWWWWWWW",
    "محمدرضا شاهنوازی‌پور",
    "Ștefănuță Brâncoveanu",
    "Maximilian-Alexandru",
    "فرشته‌السادات موسوی",
    "Ecaterina Dumitrescu",
    "MMMMMMMMMMMMMMMMMMMM",
    "کیانوش امیرارجمندی",
    "Țițeica Ăâîșț Gălățe",
    "Bartholomew Wolverine",
    "زهرا سادات حسینی‌نژاد",
    "Ioana-Cătălina Mureș",
)


def stress_names() -> list[str]:
    """The stress names, each cut to the 20 characters a name may have (in NFC, as the server keeps them)."""
    return [unicodedata.normalize("NFC", n)[:20] for n in STRESS_NAMES]


@dataclass
class Problem:
    stage: str
    page: str
    size: str
    lang: str
    kind: str
    where: str
    text: str
    detail: str


class Robot:
    """A phone without a browser: a python-socketio client on /play that remembers the newest state."""

    def __init__(self, url: str, code: str, name: str | None, role: str = "player", token: str | None = None):
        self.client = socketio.Client(reconnection=False)
        self.state: dict[str, Any] | None = None
        self.lock = threading.Lock()
        self.client.on("state", self._on_state, namespace="/play")
        self.client.connect(url, namespaces=["/play"], transports=["websocket"], wait_timeout=10)
        if token is None:
            answer = self.call("join", {"code": code, "name": name, "role": role})
            self.token = answer["token"]
        else:
            answer = self.call("hello", {"code": code, "token": token})
            self.token = token
        assert answer["ok"], answer
        self.seat = answer["seat"]
        self._on_state(answer["state"])

    def _on_state(self, state: dict[str, Any]) -> None:
        with self.lock:
            if self.state is None or state.get("epoch") != self.state.get("epoch") or state["version"] >= self.state["version"]:
                self.state = state

    def call(self, event: str, payload: dict[str, Any]) -> dict[str, Any]:
        return self.client.call(event, payload, namespace="/play", timeout=10)

    @property
    def game(self) -> dict[str, Any] | None:
        return self.state and self.state.get("game")

    def act(self, action: Any, ms: float | None = None) -> dict[str, Any]:
        """Send a game action at the current step (with ``ms``, the reaction time the phone claims). Refused as stale
        (the state that moves the step on is still on its way to this robot), it waits for that state and tries
        again, as a phone would."""
        for _ in range(3):
            seen = self.state["version"] if self.state else None
            game = self.game
            payload: dict[str, Any] = {"action": action}
            if game is not None and game.get("step") is not None:
                payload["step"] = game["step"]
            if ms is not None:
                payload["ms"] = ms
            answer = self.call("action", payload)
            if answer["ok"] or answer["error"]["code"] != "stale":
                return answer
            deadline = time.monotonic() + 5
            while self.state and self.state["version"] == seen and time.monotonic() < deadline:
                time.sleep(0.02)
        return answer

    def close(self) -> None:
        self.client.disconnect()


@dataclass
class StressRoom:
    """A room on a live server with its TV page, judged phone pages and robot phones."""

    browser: Any
    server: LiveServer
    name: str  # the scenario's name: the folder of its screenshots
    languages: tuple[str, ...] = LANGUAGES
    tv_sizes: tuple[tuple[int, int], ...] = TV_SIZES
    phone_sizes: tuple[tuple[int, int], ...] = PHONE_SIZES
    problems: list[Problem] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)  # every page it opened, closed by finish()
    phones: dict[str, Page] = field(default_factory=dict)
    robots: list[Robot] = field(default_factory=list)
    checked: int = 0
    rechecked: int = 0  # checks done again because a state came in the middle (``_judge``)

    def __post_init__(self) -> None:
        self.tv = self._page(1920, 1080)
        self.tv.goto(self.server.url + "/tv")
        self.tv.wait_for_url(re.compile(r"/tv/[A-Z]{4}$"))
        self.code = self.tv.locator("#room-code").inner_text()
        token = self.tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{self.code}'))")
        self.host = socketio.Client(reconnection=False)
        self.host.connect(self.server.url, namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
        self.host_token = token
        answer = self.host.call("watch", {"code": self.code, "host_token": token}, namespace="/tv", timeout=10)
        assert answer["ok"], answer
        self.stage_no = 0
        self.folder = ARTIFACTS / "screens" / self.name

    # ----- pages, phones and the host -----

    def _page(self, width: int, height: int, mobile: bool = False) -> Page:
        options: dict[str, Any] = {"viewport": {"width": width, "height": height}, "reduced_motion": "reduce"}
        if mobile:
            options.update(is_mobile=True, has_touch=True)
        page = self.browser.new_context(**options).new_page()
        page.set_default_timeout(15_000)
        page.on("dialog", lambda dialog: dialog.accept())
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.errors = errors  # type: ignore[attr-defined]
        # the room's states this page received: a check that one came in the middle of is done again
        page.states = state_frames(page)  # type: ignore[attr-defined]
        self.pages.append(page)
        return page

    def phone(self, label: str, name: str, role: str = "player") -> Page:
        """A phone page that joins through the real join form; its screen is judged at every check."""
        page = self._page(*self.phone_sizes[-1], mobile=True)
        page.goto(f"{self.server.url}/join/{self.code}")
        page.fill("#name", name)
        page.click("#join-player" if role == "player" else "#join-watch")
        page.wait_for_selector("#waiting, #game-area")
        self.phones[label] = page
        return page

    def robot(self, name: str, role: str = "player") -> Robot:
        """A robot phone with its own seat."""
        robot = Robot(self.server.url, self.code, name, role)
        self.robots.append(robot)
        return robot

    def robot_of(self, page: Page) -> Robot:
        """A robot on the seat of a phone page (a second connection with its token), to act for it."""
        token = page.evaluate(f"JSON.parse(localStorage.getItem('throneroom.seat.{self.code}'))")
        robot = Robot(self.server.url, self.code, None, token=token)
        self.robots.append(robot)
        return robot

    def control(self, name: str, **extra: Any) -> dict[str, Any]:
        """A host control from the host's own socket; fails the test when the server refuses it."""
        answer = self.host.call("control", {"control": name, **extra}, namespace="/tv", timeout=10)
        assert answer["ok"], (name, extra, answer)
        return answer

    def room_state(self) -> dict[str, Any]:
        """The room as the host's TV sees it now (asked again over the host's socket)."""
        answer = self.host.call("watch", {"code": self.code, "host_token": self.host_token}, namespace="/tv", timeout=10)
        assert answer["ok"], answer
        return answer["state"]

    def settings(self, game: str, **values: Any) -> None:
        self.control("settings", game=game, settings=values)

    def wait(self, page: Page, selector: str) -> None:
        page.wait_for_selector(selector, state="visible")

    def wait_until(self, predicate: Callable[[], bool], what: str, seconds: float = 20) -> None:
        deadline = time.monotonic() + seconds
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.05)

    # ----- the check -----

    def _set_language(self, lang: str, phones: Iterable[Page]) -> None:
        if self.tv.evaluate("document.documentElement.lang") != lang:
            self.control("language", language=lang)
        self.tv.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
        for page in phones:
            page.evaluate("""(lang) => {
                const picker = document.getElementById('phone-language');
                if (picker && picker.value !== lang) { picker.value = lang; picker.dispatchEvent(new Event('change')); }
            }""", lang)
            page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)

    def _judge(self, page: Page, label: str, kind: str, lang: str, size: tuple[int, int], stage: str) -> None:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        tv = kind == "tv"
        min_px = MIN_TV_PX_AT_1080 * size[1] / 1080 if tv else 0
        role_min = {role: px * size[1] / 720 for role, px in ROLE_MIN_PX_AT_720.items()} if tv else None
        options = {"lang": lang, "kind": kind, "minPx": min_px, "width": size[0], "roleMin": role_min,
                   "fill": MAIN_PANEL_FILL if tv else 0, "stageShare": STAGE_SHARE}
        for _ in range(RECHECKS):  # a state drawn during the check (a phone's new language told to the TV, say) left
            # part of the screen for the next frame (the map's labels are fitted in one): what a person sees is the
            # screen once that frame is drawn, so the check is done again
            seen = len(page.states)  # type: ignore[attr-defined]
            found = page.evaluate(SETTLE_AND_CHECK, options)
            if len(page.states) == seen:  # type: ignore[attr-defined]
                break
            self.rechecked += 1
        size_text = f"{size[0]}x{size[1]}"
        for p in found:
            self.problems.append(Problem(stage, label, size_text, lang, p["kind"], p["where"], p["text"], p["detail"]))
        for error in page.errors:  # type: ignore[attr-defined]
            self.problems.append(Problem(stage, label, size_text, lang, "js-error", "page", error[:200], ""))
        page.errors.clear()  # type: ignore[attr-defined]
        if size == min(self.tv_sizes if kind == "tv" else self.phone_sizes):
            # One screenshot at the smallest size of each kind (a 1280x720 TV, a 360x640 phone): where a screen is
            # tightest, and what a person reviews; the larger sizes are judged all the same. JPEG: a third of a PNG's
            # time to encode, and as good for a person looking through them.
            self.folder.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(self.folder / f"{self.stage_no:02d}-{stage}-{label}-{size_text}-{lang}.jpg"),
                            type="jpeg", quality=80)
            for kind_, where, text, detail in axe.judge(page, self.name):  # axe-core: once per stage, page, language
                self.problems.append(Problem(stage, label, size_text, lang, kind_, where, text, detail))
        self.checked += 1

    def _next_stage(self, stage: str) -> str:
        """Count a stage and give its name as it goes into the screenshots' file names."""
        self.stage_no += 1
        return re.sub(r"[^a-z0-9]+", "-", stage.lower()).strip("-")

    def check(self, stage: str, phones: Iterable[str] | None = None, tv: bool = True) -> None:
        """Judge the TV and the named phones (all by default) at every size in every language."""
        stage = self._next_stage(stage)
        pages = {label: self.phones[label] for label in (self.phones if phones is None else phones)}
        for lang in self.languages:
            self._set_language(lang, pages.values())
            if tv:
                for size in self.tv_sizes:
                    self._judge(self.tv, "tv", "tv", lang, size, stage)
                self.tv.set_viewport_size({"width": self.tv_sizes[0][0], "height": self.tv_sizes[0][1]})
            for label, page in pages.items():
                for size in self.phone_sizes:
                    self._judge(page, label, "phone", lang, size, stage)
                page.set_viewport_size({"width": self.phone_sizes[-1][0], "height": self.phone_sizes[-1][1]})

    def check_page(self, stage: str, label: str, page: Page, prepare: Callable[[str], None], kind: str = "phone") -> None:
        """Judge a page that is not one of the room's (the landing page, a join form…): ``prepare(lang)`` shows it in
        a language, then it is judged at every size of its kind."""
        stage = self._next_stage(stage)
        for lang in self.languages:
            prepare(lang)
            page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
            for size in self.tv_sizes if kind == "tv" else self.phone_sizes:
                self._judge(page, label, kind, lang, size, stage)

    def blank_phone(self) -> Page:
        """A phone page of its own that has not joined (for the landing page and the join form)."""
        return self._page(*self.phone_sizes[-1], mobile=True)

    def report(self) -> str:
        """Every problem, grouped by what and where, with the stages, pages, sizes and languages it was seen in."""
        groups: dict[tuple[str, str, str], list[Problem]] = {}
        for p in self.problems:
            groups.setdefault((p.kind, p.where, p.text), []).append(p)
        head = (f"{len(self.problems)} problems in {len(groups)} groups ({self.checked} screens checked, "
                f"{self.rechecked} again after a state came in the middle of the check):")
        lines = [head]
        for (kind, where, text), items in sorted(groups.items()):
            seen = sorted({f"{p.stage}/{p.page}/{p.size}/{p.lang}" for p in items})
            lines.append(f"- {kind:<16} {where}  «{text}»  {items[0].detail}")
            lines.append(f"    in {len(seen)}: {', '.join(seen[:6])}{' …' if len(seen) > 6 else ''}")
        return "\n".join(lines)

    def finish(self) -> None:
        """Close the pages and robots, and fail with the report if anything was found."""
        for page in self.pages:
            page.context.close()
        for robot in self.robots:
            try:
                robot.close()
            except Exception:  # noqa: BLE001, S110 - already gone
                pass
        self.host.disconnect()
        if self.problems:
            raise AssertionError(self.report())
