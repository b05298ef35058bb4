"""The TV's pack panel in a browser ([12]): upload errors in the page's language, the language chosen on upload, packs
that belong to their host (shared or not) and that follow it into a new room."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import new_page, open_settings, open_tv, shot

PERSIAN_CSV = ("type,prompt,answer,unit\n"
               "numeric,قلهٔ دماوند چند متر ارتفاع دارد؟,5610,متر\n"
               "numeric,ایران چند استان دارد؟,31,\n")
BROKEN_CSV = ("type,prompt,answer,colour\n"
              "numeric,خوب است؟,1,\n"
              "numeric,خراب است؟,زیاد,\n"
              "choice,بدون گزینه؟,,\n")


def pack_row(tv: Any, name: str) -> Any:
    return tv.locator("#pack-list li").filter(has_text=name)


def test_a_persian_tv_reads_upload_errors_in_persian_and_labels_a_persian_pack(browser: Any, server: LiveServer,
                                                                              tmp_path: Path) -> None:
    broken = tmp_path / "broken.csv"
    broken.write_text(BROKEN_CSV, encoding="utf-8")
    good = tmp_path / "iran-quiz.csv"
    good.write_text(PERSIAN_CSV, encoding="utf-8")
    tv, _ = open_tv(browser, server.url)
    tv.click("[data-game=campaign]")
    tv.select_option("#room-language", "fa")
    expect(tv.locator("#packs h2")).to_have_text("بسته‌های پرسش")
    expect(tv.locator("#pack-language")).to_have_value("fa")  # the room's language is the default

    tv.set_input_files("#pack-file", str(broken))
    tv.click("#pack-upload-button")
    report = tv.locator("#pack-report")
    expect(report).to_contain_text("چیزی وارد نشد")
    expect(report).to_contain_text("ردیف ۳، پاسخ: پاسخ عددی باید یک عدد صحیح باشد")
    expect(report).to_contain_text("ردیف ۱، سرستون: ۱ ستون ناشناخته: \u2068colour\u2069")  # the name isolated
    expect(report).to_contain_text("ردیف ۴، گزینه‌ها: این نوع پرسش ۲ تا ۶ گزینه دارد، نه ۰")
    expect(report).not_to_contain_text(re.compile(r"[0-9]|row|must"))  # nothing left in English, Persian digits
    shot(tv, "packs-errors-persian")

    tv.set_input_files("#pack-file", str(good))
    tv.click("#pack-upload-button")
    expect(report).to_contain_text("iran quiz")
    row = pack_row(tv, "iran quiz")
    expect(row.locator(".pack-lang")).to_have_text("فارسی")  # stored as Persian, not English
    expect(row.locator(".pack-owner")).to_have_text("مال شما")
    expect(row.locator(".pack-count")).to_contain_text("۲")
    expect(row.locator("input[type=checkbox]")).to_be_checked()
    assert not tv.errors, tv.errors  # type: ignore[attr-defined]


def test_a_pack_is_its_hosts_until_shared_and_follows_it_into_a_new_room(browser: Any, server: LiveServer,
                                                                        tmp_path: Path) -> None:
    good = tmp_path / "office-quiz.csv"
    good.write_text("type,prompt,answer\nnumeric,How many floors has the office?,7\n", encoding="utf-8")
    first, _ = open_tv(browser, server.url)
    first.click("[data-game=campaign]")
    first.select_option("#pack-language", "ro")
    first.set_input_files("#pack-file", str(good))
    first.click("#pack-upload-button")
    mine = pack_row(first, "office quiz")
    expect(mine.locator(".pack-owner")).to_have_text("yours")
    expect(mine.locator(".pack-lang")).to_have_text("Română")
    expect(mine.locator("button.danger")).to_have_count(1)

    other = new_page(browser, viewport={"width": 1920, "height": 1080})  # another TV: another host
    other.goto(server.url + "/tv")
    other.wait_for_url(re.compile(r"/tv/[A-Z]{4}$"))
    open_settings(other)  # the packs are behind the lobby's Settings door
    other.click("[data-game=campaign]")
    expect(other.locator("#pack-list li").first).to_be_visible()
    expect(pack_row(other, "office quiz")).to_have_count(0)

    mine.locator("button.pack-share").click()
    expect(mine.locator(".pack-owner")).to_have_text("yours, shared")
    theirs = pack_row(other, "office quiz")
    expect(theirs.locator(".pack-owner")).to_have_text("shared by another host")
    expect(theirs.locator("button.danger")).to_have_count(0)  # only its owner deletes it
    expect(theirs.locator("button.pack-share")).to_have_count(0)
    mine.locator("button.pack-share").click()
    expect(pack_row(other, "office quiz")).to_have_count(0)

    old_code = first.locator("#room-code").inner_text()
    first.click("#new-room")  # the confirmation is accepted
    first.wait_for_url(re.compile(r"/tv/(?!" + old_code + r")[A-Z]{4}$"))
    open_settings(first)  # a new room's page: its Settings door closed again
    first.click("[data-game=campaign]")
    expect(pack_row(first, "office quiz").locator(".pack-owner")).to_have_text("yours")
    pack_row(first, "office quiz").locator("button.danger").click()
    expect(pack_row(first, "office quiz")).to_have_count(0)
    assert not first.errors and not other.errors, (first.errors, other.errors)  # type: ignore[attr-defined]


def test_the_file_language_and_share_box_the_host_chose_survive_a_redrawn_pack_panel(browser: Any, server: LiveServer,
                                                                                    tmp_path: Path) -> None:
    # the pack panel is drawn again whenever the packs or the room's language change (another host shares a pack,
    # the host switches the TV to Persian): what the host was in the middle of choosing stays chosen
    good = tmp_path / "team-quiz.csv"
    good.write_text("type,prompt,answer\nnumeric,How many people are in the team?,9\n", encoding="utf-8")
    tv, _ = open_tv(browser, server.url)
    tv.click("[data-game=quiz]")
    tv.set_input_files("#pack-file", str(good))
    tv.select_option("#pack-language", "ro")
    tv.check("#pack-shared")
    tv.select_option("#room-language", "fa")  # the panel is drawn again, in Persian
    expect(tv.locator("#packs h2")).to_have_text("بسته‌های پرسش")
    expect(tv.locator("#pack-language")).to_have_value("ro")
    expect(tv.locator("#pack-shared")).to_be_checked()
    tv.click("#pack-upload-button")
    row = pack_row(tv, "team quiz")
    expect(row.locator(".pack-lang")).to_have_text("Română")
    expect(row.locator(".pack-owner")).to_have_text(re.compile("اشتراک"))  # yours, shared
    assert tv.locator("#pack-file").input_value() == ""  # uploaded: the form is empty again
    expect(tv.locator("#pack-shared")).not_to_be_checked()
    assert not tv.errors, tv.errors  # type: ignore[attr-defined]
