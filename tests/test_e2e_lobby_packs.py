"""The lobby in a browser ([17]): a Quiz started right after an upload plays that pack, the lobby says before Start
which packs, how many questions and about how long (in en and fa, readable on a 1280x720 TV), and the "Bob is back"
prompt never covers the host's Start or End game (finding 8)."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from openpyxl import Workbook
from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_tv, shot, type_join
from tests.screens.harness import CHECKER

HEADER = ["", "Question - max 120 characters", "Answer 1 - max 75 characters", "Answer 2 - max 75 characters",
          "Answer 3 - max 75 characters", "Answer 4 - max 75 characters", "Time limit (sec)",
          "Correct answer(s) - choose at least one"]


def kahoot_file(folder: Path, name: str, count: int, seconds: int) -> Path:
    """A Kahoot! quiz template with ``count`` questions of ``seconds`` each (docs/packs.md)."""
    book = Workbook()
    sheet = book.active
    sheet.append(HEADER)
    for number in range(1, count + 1):
        sheet.append([number, f"Office question {number}: which colour is the door?", "Red", "Green", "Blue",
                      "Black", seconds, 2])
    buffer = io.BytesIO()
    book.save(buffer)
    path = folder / name
    path.write_bytes(buffer.getvalue())
    return path


def problems_near(tv: Any, lang: str, selector: str) -> list[dict[str, Any]]:
    """The screen checker's problems (tests/screens/checker.js) of the elements inside ``selector``: overlaps, text
    cut or too small for three metres at 1280x720, Latin digits on a Persian screen."""
    found = tv.evaluate(CHECKER, {"lang": lang, "kind": "tv", "minPx": 24 * 720 / 1080, "width": 1280})
    ids = tv.eval_on_selector_all(selector + ", " + selector + " *",
                                  "els => els.map((el) => el.id || el.className || el.tagName)")
    return [p for p in found if any(str(i) and str(i) in p["where"] for i in ids) or selector in p["where"]]


def test_a_quiz_started_right_after_an_upload_plays_that_pack_as_the_lobby_said(browser: Any, server: LiveServer,
                                                                               tmp_path: Path) -> None:
    # [17] finding 1: pick Quiz, upload a 5-question Kahoot! sheet, press Start: "Question 1 of 5", its questions
    sheet = kahoot_file(tmp_path, "office-quiz.xlsx", 5, 20)
    tv, code = open_tv(browser, server.url, 1280, 720)
    ana = new_page(browser, **PHONE)
    join(ana, f"{server.url}/join/{code}", "Ana")
    tv.click("[data-game=quiz]")
    summary = tv.locator("#next-game")
    expect(summary).to_contain_text("200 of the")  # the built-in packs: "all" is capped at 200 a game
    tv.set_input_files("#pack-file", str(sheet))
    tv.click("#pack-upload-button")
    expect(tv.locator("#pack-report")).to_contain_text("office quiz")
    expect(tv.locator("#pack-report")).to_contain_text("the only pack")
    row = tv.locator("#pack-list li").filter(has_text="office quiz")
    expect(row.locator("input[type=checkbox]")).to_be_checked()
    for built_in in ("builtin:en-numbers", "builtin:en-choice"):  # unticked: the host may tick them again
        expect(tv.locator(f"#pack-list li[data-pack='{built_in}'] input")).not_to_be_checked()

    # before Start: which pack, how many questions, about how long (5 x (3 + 20 + 5) + 4 x 5 s = 2 min 40 s)
    expect(summary).to_contain_text("office quiz")
    expect(summary.locator("#next-count")).to_have_text(re.compile(r"\b5 questions\b"))
    expect(summary.locator("#next-time")).to_contain_text("3 minutes")
    shot(tv, "lobby-packs-en")
    assert problems_near(tv, "en", "#next-game") == []
    expect(tv.locator("#start")).to_be_in_viewport()

    tv.select_option("#room-language", "fa")
    expect(summary.locator("#next-count")).to_contain_text("۵")
    expect(summary.locator("#next-time")).to_contain_text("۳ دقیقه")
    expect(summary).to_contain_text("office quiz")
    shot(tv, "lobby-packs-fa")
    assert problems_near(tv, "fa", "#next-game") == []
    tv.select_option("#room-language", "en")

    tv.click("#start")
    expect(tv.locator("#game-area")).to_contain_text("Question 1 of 5")
    expect(tv.locator("#game-area")).to_contain_text("Office question")
    assert not tv.errors and not ana.errors, (tv.errors, ana.errors)  # type: ignore[attr-defined]


def covered(page: Any, selector: str) -> list[str]:
    """What the host would tap instead of ``selector`` at its centre and just above its bottom edge (empty: the
    button itself)."""
    return page.eval_on_selector(selector, """(button) => {
      const box = button.getBoundingClientRect();
      const points = [[box.left + box.width / 2, box.top + box.height / 2], [box.left + box.width / 2, box.bottom - 3],
                      [box.left + 16, box.bottom - 3], [box.right - 16, box.bottom - 3]];  // within the corners
      return points.map(([x, y]) => document.elementFromPoint(x, y))
        .filter((el) => !el || !button.contains(el))
        .map((el) => el ? el.tagName + "#" + el.id + "." + el.className : "nothing");
    }""")


def test_the_is_back_prompt_never_covers_start_or_end_game(browser: Any, server: LiveServer) -> None:
    # [17] finding 8: "Bob is back" covered End game; the claims bar once covered the foot of Start
    for lang in ("en", "fa"):
        tv, code = open_tv(browser, server.url, 1280, 720)
        if lang == "fa":
            tv.select_option("#room-language", "fa")
        ana = new_page(browser, **PHONE)
        join(ana, f"{server.url}/join/{code}", "Ana")
        bob = new_page(browser, **PHONE)
        join(bob, f"{server.url}/join/{code}", "Bob")
        tv.click("[data-game=quiz]")
        bob.context.close()  # Bob's battery dies; he types his name on a borrowed phone
        borrowed = new_page(browser, **PHONE)
        type_join(borrowed, f"{server.url}/join/{code}", "Bob")
        borrowed.click("#its-me")
        expect(tv.locator("#claims")).to_contain_text("Bob")
        shot(tv, f"lobby-claims-{lang}")
        assert covered(tv, "#start") == []
        tv.locator("#start").click()  # no force: Playwright checks that the click lands on the button

        expect(tv.locator("#end")).to_be_visible()
        expect(tv.locator("#claims")).to_contain_text("Bob")
        shot(tv, f"game-claims-{lang}")
        assert covered(tv, "#end") == []
        tv.locator("#end").click()  # the confirmation is accepted (tests/e2e.py new_page)
        expect(tv.locator(".finished-head")).to_be_visible()
        expect(tv.locator("#claims")).to_contain_text("Bob")  # still waiting for the host's answer
        tv.click("[data-claim-yes]")
        expect(borrowed.locator("#me")).to_contain_text("Bob")
        assert not tv.errors, tv.errors  # type: ignore[attr-defined]
        tv.context.close()


def test_the_tvs_preview_names_each_questions_kind_and_worth_without_its_answer(browser: Any, server: LiveServer):
    """Issue [17]: the new kinds in the pack preview. The host previews the every-kind example on the TV: each
    question says its kind (and double or no points), its options are listed without the right one marked; in
    Persian the separator is the language's, not "·" (which reads as a zero there)."""
    import json

    import requests

    from tests.e2e import new_page as page_of
    from tests.e2e import open_settings

    tv = page_of(browser, viewport={"width": 1280, "height": 720})
    tv.goto(server.url + "/tv")
    tv.wait_for_url(re.compile(r"/tv/[A-Z]{4}$"))
    open_settings(tv)  # the packs are behind the lobby's Settings door
    code = tv.locator("#room-code").inner_text()
    token = tv.evaluate(f"JSON.parse(localStorage.getItem('throneroom.host.{code}'))")
    every = Path(__file__).resolve().parent.parent / "questions" / "examples" / "every-kind.json"
    answer = requests.post(server.url + "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
                           files={"file": ("every-kind.json", every.read_bytes())}, timeout=60)
    assert answer.status_code == 201, answer.text
    pack = answer.json()["pack"]["id"]
    kinds = [q["type"] for q in json.loads(every.read_text(encoding="utf-8"))["questions"]]
    tv.click("[data-game='quiz']")
    tv.click(f"[data-pack='{pack}'] button.small >> nth=0")  # Preview
    items = tv.locator("#pack-preview li")
    expect(items).to_have_count(len(kinds))
    assert [items.nth(i).get_attribute("data-kind") for i in range(len(kinds))] == \
        ["choice" if k in ("truefalse", "true_false") else k for k in kinds]
    expect(tv.locator("#pack-preview li[data-kind='multi'] .pack-kind")).to_have_text("Several right options")
    expect(tv.locator("#pack-preview .pack-worth")).to_have_count(2)  # the double and the no points questions
    expect(tv.locator("#pack-preview")).not_to_contain_text("Paris")  # a typed answer's accepted answers stay hidden
    tv.locator("#pack-preview").scroll_into_view_if_needed()
    shot(tv, "lobby-preview-every-kind-en")
    tv.select_option("#room-language", "fa")
    expect(tv.locator("#pack-preview li[data-kind='multi'] .pack-kind")).to_have_text("چند گزینهٔ درست")
    assert "·" not in tv.locator("#pack-preview").inner_text()
    assert tv.evaluate("getComputedStyle(document.querySelector('#pack-preview ol')).listStyleType") == "persian"
    tv.locator("#pack-preview").scroll_into_view_if_needed()
    shot(tv, "lobby-preview-every-kind-fa")
