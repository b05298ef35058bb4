"""The Persian catalog reads as a native speaker writes it (issue [20]): the polite plural on every surface, one term
per idea (docs/glossary.md), the zero-width non-joiner (U+200C) in compounds, no known calque, Persian punctuation.

Each rule is a small checker over one text. The self-tests feed every checker a bad sample, so each check is shown to
fail where it should; the catalog tests run the checkers over every form of every Persian message (host/i18n/fa.json
and host/i18n/*.fa.json). Before issue [20] the catalog failed the address, banned-forms, ZWNJ, calque, house-voice
and repetition checks; the punctuation check had nothing to find (the self-test shows that it bites).
"""

from __future__ import annotations

import re

import pytest

from host.i18n import catalog
from tests.test_i18n_and_access import forms

ZWNJ = "\u200c"
WORD = re.compile(r"[\u0600-\u06FF\u200c]+")

# The informal singular, as a command or a pronoun. Persian interface text uses the polite plural everywhere
# (docs/glossary.md, "Address"): "بفرستید", "انتخاب کنید", "شما", never "بفرست", "انتخاب کن", "تو".
INFORMAL_WORDS = {
    "تو", "کن", "نکن", "بکن", "بده", "نده", "بزن", "نزن", "برو", "نرو", "بیا", "نیا", "ببین", "بفرست", "بنویس",
    "بگذار", "نگذار", "بپذیر", "نپذیر", "بخوان", "بگیر", "بمان", "باش", "نباش", "شو", "بشو", "بساز", "بچین", "بکش",
    "بسوزان", "بگو", "بپرس", "بردار", "بخر", "بپرداز", "بکوش", "هستی", "نیستی", "بودی", "داری", "نداری",
    "کردی", "نکردی", "دادی", "ندادی", "شدی", "نشدی", "پاسخت", "رأیت", "نامت", "گوشی‌ات", "جایت",
}
# A present or past verb in the second person singular: "می‌کنی", "نمی‌توانی", "می‌دانستی".
SINGULAR_VERB = re.compile(r"^ن?می\u200c[\u0600-\u06FF\u200c]+ی$")

# Wrong term -> the glossary's term (docs/glossary.md, and /work/issue20/glossary-fa.md for the rows issue [20] adds).
BANNED = {
    "گروه": "تیم (a team is «تیم» everywhere)",
    "تقلید": "کپی (the Impostor's copy)",
    "توانایی": "قابلیت (a card's ability: the card data, engine/hierarchy/cards.json, says «قابلیت»)",
    "رم ۱۳۷۸": "آوینیون ۱۳۷۸ (the game's name)",
    "مسابقه": "کوییز (the Quiz, as game.quiz.name)",
    "انصراف": "لغو (Cancel)",
    "همه‌ی": "همهٔ (the ezafe after ه is written with hamza above: «همهٔ»)",
    "راه بده": "بپذیرید / می‌پذیریم (letting someone into a house)",
    "راه نده": "نمی‌پذیریم",
    "از بازی بیرون": "حذف شد (out of the game)",
    "هم‌رأی": "خاندان‌هایی که رأی برابر دارند («هم‌رأی» means «of the same opinion»)",
}

# Literal calques found in the catalog before issue [20], and their kin.
CALQUES = {
    "پس گرفتنی نیست": "«Once sent, it cannot be taken back» word for word: «دیگر نمی‌توانید آن را پس بگیرید»",
    "پس‌نگرفتنی": "as above",
    "امروزِ خاندان": "«Your house today» word for word: «کارهای امروز خاندان شما»",
    "چگونگی را انتخاب": "«choose how» word for word: «یکی از حالت‌ها را انتخاب کنید»",
    "بیشترین پیاپی": "«Best streak» word for word: «بیشترین پاسخ درست پیاپی»",
    "بهترین رشته": "«Best streak» word for word: «بیشترین پاسخ درست پیاپی»",
    "قاعده‌ها را خم": "«bend the rules» word for word: «استثنایی بر قاعده‌اند»",
    "همراه بازی کنید": "«play along» word for word",
    "همراه بازی شوید": "«play along» word for word",
    "همراه بازی کرد": "«played along» word for word",
    "همراه تماشاگران پاسخ": "error.not_audience said «only spectators answer with the spectators»",
    "پیشنهاد بازی وجود": "«no such open proposal» read as «no such game proposal»",
    "تلاش‌های زیادی از": "«Too many tries from» as a sentence without a verb",
    "بارگذاری‌های زیادی از": "«Too many uploads from» as a sentence without a verb",
    "در حال رفتن به سرور": "«moving to another server»: «در حال انتقال به سرور دیگری»",
}

# Compounds written with U+200C: the joined and the space-separated spellings are both wrong.
COMPOUNDS = [
    "هم‌جبهه", "هیچ‌کس", "هیچ‌کدام", "بی‌پاسخ", "بی‌اثر", "بی‌درنگ", "بی‌امتیاز", "پیش‌نمایش", "حق‌السکوت",
    "نجیب‌زاده", "صفحه‌گسترده", "میلی‌ثانیه", "به‌زودی", "شش‌ضلعی", "وقایع‌نامه", "پیشنهاددهنده", "درخواست‌کننده",
    "چندگزینه‌ای", "رفت‌وبرگشت", "به‌تنهایی", "به‌عنوان", "به‌صورت", "دست‌کم",
]
# Present and past stems of the verbs the catalog uses: "میشود", "نمیتوانید" and the like, written without U+200C.
PRESENT_STEMS = ("شو", "کن", "توان", "ده", "گیر", "بین", "آی", "آور", "رو", "خواه", "دان", "گذار", "زن", "مان", "رس",
                 "کش", "پذیر", "پرداز", "گرد", "گردان", "فرست", "نویس", "خوان", "بر", "گو", "گوی", "سوز", "سوزان",
                 "شمار", "چین", "یاب", "فهم", "ارز", "پیوند", "شناس", "نشین", "افت", "انداز", "پرس", "ساز", "راند")
PAST_STEMS = ("شد", "کرد", "داد", "رفت", "آمد", "توانست", "خواست", "گرفت", "دید", "بود", "ماند")
PRESENT, PAST = "|".join(PRESENT_STEMS), "|".join(PAST_STEMS)
JOINED_VERB = re.compile(rf"^ن?می(?:(?:{PRESENT})(?:م|ی|د|یم|ید|ند)|(?:{PAST})(?:م|ی|یم|ید|ند)?)$")
SPACED_PREFIX = re.compile(r"(?<![\u0600-\u06FF\u200c])ن?می [\u0600-\u06FF]")
# A word ending in ه takes its suffix after U+200C: "تازه‌ای", "بسته‌ها", "ساده‌تر".
SPACED_SUFFIX = re.compile(r"[\u0600-\u06FF]ه (?:ای|ها|های|هایی|تر|ترین)(?![\u0600-\u06FF\u200c])")
JOINED_SUFFIX = re.compile(r"[\u0600-\u06FF]ه(?:ها|های|هایی)(?![\u0600-\u06FF\u200c])")

# Persian text takes the Persian comma, semicolon and question mark. A Latin one is allowed only inside a quoted
# or isolated Latin run («ANSWER: A», a file name) or right after a Latin letter or digit.
LATIN_PUNCT = re.compile(r"(?<![A-Za-z0-9.\"'])[?,;]")

# House answer buttons (Seizing the Crown): the house answers as a whole, in the first person plural ("می‌پذیریم").
HOUSE_ANSWERS = ("crown.label.accept", "crown.label.reject", "crown.label.pay", "crown.label.refuse",
                 "crown.label.defect", "crown.label.stay", "crownui.let_in", "crownui.refuse_in")


def persian_forms() -> list[tuple[str, str]]:
    """(key, text) for every form of every Persian message."""
    return [(key, form) for key, message in catalog("fa").items() for form in forms(message)]


def words(text: str) -> list[str]:
    return [w.strip(ZWNJ) for w in WORD.findall(text)]


def informal(text: str) -> list[str]:
    return [w for w in words(text) if w in INFORMAL_WORDS or SINGULAR_VERB.match(w)]


def banned(text: str) -> list[str]:
    return [f"{wrong} -> {right}" for wrong, right in BANNED.items() if wrong in text]


def calques(text: str) -> list[str]:
    return [f"{wrong}: {why}" for wrong, why in CALQUES.items() if wrong in text]


def missing_zwnj(text: str) -> list[str]:
    hits = []
    for compound in COMPOUNDS:
        for wrong in (compound.replace(ZWNJ, ""), compound.replace(ZWNJ, " ")):
            if wrong != compound and re.search(r"(?<![\u0600-\u06FF\u200c])" + re.escape(wrong), text):
                hits.append(wrong)
    hits += [w for w in words(text) if JOINED_VERB.match(w)]
    hits += [m.group(0) for m in SPACED_PREFIX.finditer(text)]
    hits += [m.group(0) for m in SPACED_SUFFIX.finditer(text)]
    hits += [m.group(0) for m in JOINED_SUFFIX.finditer(text)]
    return hits


def latin_punctuation(text: str) -> list[str]:
    """Latin comma, semicolon or question mark in Persian text; straight or English quotes instead of « »."""
    plain = re.sub(r"«[^»]*»|\u2068[^\u2069]*\u2069|\{[a-z_]+\}", "", text)
    hits = [plain[max(0, m.start() - 10):m.end() + 10] for m in LATIN_PUNCT.finditer(plain)]
    return hits + re.findall(r"[\"“”„]", plain)


def repeated_word(text: str) -> list[str]:
    """A short message (a button, a label, an error of one line) that says the same content word twice."""
    found = [w for w in words(text) if len(w) >= 5]
    if len(text.split()) > 9:
        return []
    return sorted({w for w in found if found.count(w) > 1})


# Short messages whose repetition is meant: "{n} of the {total} questions", a count and its unit.
REPEAT_ALLOWED = {"tv.next_asks_count", "tv.next_asks_cap", "tv.next_asks_short", "duel.eliminated",
                  "duel.eliminated_by_you", "pack.problem.unit_too_long", "pack.problem.zip_too_many_images",
                  "pack.problem.zip_nested"}  # "an archive inside the archive" says what it means


# --- the checkers bite -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("check,bad,good", [
    (informal, "راه بده", "بپذیرید"),
    (informal, "همهٔ گزینه‌های درست را انتخاب کن و بفرست", "همهٔ گزینه‌های درست را انتخاب کنید و بفرستید"),
    (informal, "از پرسش بعدی بازی می‌کنی", "از پرسش بعدی بازی می‌کنید"),
    (informal, "رأی تو ثبت شد", "رأی شما ثبت شد"),
    (banned, "گروه {n}", "تیم {n}"),
    (banned, "نام بازی: رم ۱۳۷۸", "نام بازی: آوینیون ۱۳۷۸"),
    (banned, "تقلید بدل", "کپی بدل"),
    (calques, "پس از فرستادن، پس گرفتنی نیست.", "پس از فرستادن، دیگر نمی‌توانید آن را پس بگیرید."),
    (missing_zwnj, "اگر همجبهه باشید", "اگر هم‌جبهه باشید"),
    (missing_zwnj, "اگر هم جبهه باشید", "اگر هم‌جبهه باشید"),
    (missing_zwnj, "این کار نمیشود", "این کار نمی‌شود"),
    (missing_zwnj, "بازی می کنید", "بازی می‌کنید"),
    (missing_zwnj, "اتاق تازه ای", "اتاق تازه‌ای"),
    (missing_zwnj, "بستههای پرسش", "بسته‌های پرسش"),
    (latin_punctuation, "آماده‌اید?", "آماده‌اید؟"),
    (latin_punctuation, "حمله, جاسوسی; جشن", "حمله، جاسوسی؛ جشن"),
    (latin_punctuation, "دکمهٔ \"شروع\" را بزنید", "دکمهٔ «شروع» را بزنید"),
    (repeated_word, "فقط تماشاگران همراه تماشاگران پاسخ می‌دهند", "فقط تماشاگران پاسخ می‌دهند"),
])
def test_each_check_finds_its_fault_and_passes_the_fix(check, bad, good):
    assert check(bad), (check.__name__, bad)
    assert not check(good), (check.__name__, good, check(good))


def test_the_checks_keep_what_is_right():
    assert not missing_zwnj("میزبان بازی را از میان همهٔ بازی‌ها انتخاب می‌کند؛ میانگین زمان")
    assert not missing_zwnj("گوشی به جای خودش برمی‌گردد")  # "to its place", not the compound "instead"
    assert not informal("نوبت شما؛ تومان نیست؛ تور")
    assert not latin_punctuation("«A. متن» یا «ANSWER: A»؛ پرونده‌های ‎.json، ‎.csv؛ a -> 1, b -> 2")


# --- the catalog -------------------------------------------------------------------------------------------------

def test_the_catalog_is_read_whole():
    assert len(persian_forms()) > 1300


@pytest.mark.parametrize("check", [informal, banned, calques, missing_zwnj, latin_punctuation],
                         ids=["no informal singular", "no banned term", "no known calque",
                              "compounds carry the ZWNJ", "Persian punctuation"])
def test_every_form_passes(check):
    faults = [(key, check(text)) for key, text in persian_forms() if check(text)]
    assert not faults, faults


def test_house_answers_speak_for_the_house():
    messages = catalog("fa")
    for key in HOUSE_ANSWERS:
        assert messages[key].endswith("یم"), (key, messages[key])  # "می‌پذیریم", "رد می‌کنیم", ...


def test_short_messages_do_not_repeat_themselves():
    faults = [(key, repeated_word(text)) for key, text in persian_forms()
              if key not in REPEAT_ALLOWED and repeated_word(text)]
    assert not faults, faults


def test_avignon_is_named_and_explained():
    messages = catalog("fa")
    assert messages["game.avignon.name"] == "آوینیون ۱۳۷۸"
    assert "آوینیون" in messages["game.avignon.blurb"] and "رم" in messages["game.avignon.blurb"]
