"""The built-in packs' content: across a language's packs no fact is asked twice, no multiple-choice question gives
away the answer of a numeric one, and no figure fills a pack.

Two questions ask the same fact when they have the same answer (a numeric answer, or the text or number of the
correct option) and mostly the same key words (the prompts' and correct answers' content words, stop words of the
language dropped, each word cut to its first letters so that "penicillin" meets "penicilina"). A multiple-choice
question gives a numeric question away when its prompt or one of its options states that question's answer and the
two share key words ("Who discovered penicillin in 1928?" beside "In which year did Fleming discover penicillin?").
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections import defaultdict
from itertools import combinations

import pytest

from questions.library import builtin_packs
from questions.model import Question

# Letters kept of each word: a crude stemmer ("penicillin" and "penicilina" meet); Romanian inflects more
# ("unire", "uniri", "unirea").
STEM = {"en": 5, "fa": 5, "ro": 4}

STOP = {
    "en": """a about after all along also an and any are around as at be been before being between both but by
        called can could did do does each ever first for from had has have how in into is it its known last least
        less like made make makes many more most much name named not of on once one only or other over per
        roughly rounded same since so some standard such than that the their them there these they this three
        through to traditionally two under up usual usually was were what when where which while who whom whose
        why will with without would year years approximately average typical normal normally nearest full
        total whole exactly exact done""",
    "ro": """a ai al ale alei au avea avut ce cea cel cele cei câte câți câtor cât care cărei cărui cine cu cum
        de din după este fi fost în într-o într-un la le lui mai mult nu o pe pentru prin sau se să și sub un una
        unei unui ani an anul anului fără prima primul întâi aproximativ obișnuit obișnuită standard total
        ca are face numește numit numită numesc de-a lungul ăsta aceasta acest acestea dintre""",
    "fa": """از با به بر برای تا در را که و یا این آن است هست بود شد شده می هم چه چند چندم کدام کیست چیست
        کی کجا چگونه سال سالی میلادی خورشیدی هجری پیش پس طبق رایج حدود تقریباً معمولاً نام چه‌کسی کسی
        دارد دارند داشت داشتند کرد کردند کند یک یکی نخستین اول بار جز جدا کدامیک ها های ای ی تر ترین""",
}

# Romanian, Persian and English figures who must not fill a pack: at most this many questions of a pack name one
# (in the prompt or the correct answer).
MOST_MENTIONS = 3
FIGURES = {
    "ro": ["Brâncuși", "Eminescu", "Enescu", "Caragiale", "Comăneci", "Creangă", "Rebreanu", "Sadoveanu",
           "Ștefan cel Mare", "Mihai Viteazul", "Cuza", "Decebal", "Ceaușescu", "Hagi", "Năstase", "Halep",
           "Patzaichin", "Vlaicu", "Vuia", "Coandă", "Iorga", "Grigorescu", "Palade", "Oberth", "Vlad Țepeș",
           "Blaga", "Arghezi", "Alecsandri", "Lipă", "Szabo", "Ionesco", "Cioran"],
    "fa": ["فردوسی", "سعدی", "حافظ", "مولوی", "خیام", "عطار", "نظامی", "کوروش", "داریوش", "تختی", "ابن‌سینا",
           "رازی", "بیرونی", "شاه عباس", "نادرشاه", "امیرکبیر", "مصدق"],
    "en": ["Shakespeare", "Einstein", "Newton", "Napoleon", "Beethoven", "Mozart", "Darwin", "Columbus",
           "Michelangelo", "Leonardo", "Picasso", "Churchill", "Lincoln"],
}

PERSIAN_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def fold(text: str) -> str:
    """Lower case, Persian and Arabic digits as ASCII, Arabic letter forms as Persian, no accents, no joiners."""
    text = unicodedata.normalize("NFKC", text).translate(PERSIAN_DIGITS).lower()
    text = text.replace("ي", "ی").replace("ك", "ک").replace("\u200c", " ").replace("\u200d", "")
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return text.replace("ş", "s").replace("ţ", "t")


STOP_FOLDED = {language: {fold(word) for word in words.split()} for language, words in STOP.items()}
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers(text: str) -> set[float]:
    """The numbers a text states: "1,440" and Romanian "8.000" are thousands, "42.195" and "3.05" decimals."""
    found = set()
    for token in NUMBER.findall(fold(text)):
        parts = re.split(r"[.,]", token)
        if len(parts) > 1 and all(len(p) == 3 for p in parts[1:]):
            found.add(float("".join(parts)))
        elif len(parts) == 2:
            found.add(float(f"{parts[0]}.{parts[1]}"))
        else:
            found.update(float(p) for p in parts)
    return found


def key_words(text: str, language: str) -> set[str]:
    """The content words of a text, cut to their first STEM letters; numbers are left out."""
    words = re.findall(r"[^\W\d_]+", fold(text))
    return {w[:STEM[language]] for w in words if w not in STOP_FOLDED[language] and len(w) > 1}


def same_amount(a: float, b: float) -> bool:
    """The same number, or a decimal that is the same amount in a metric unit 10, 100 or 1000 times smaller (3.05 m
    and 305 cm, 42.195 km and 42195 m)."""
    if a.is_integer() and b.is_integer():
        return a == b
    return any(abs(a * 10 ** k - b) < 1e-6 or abs(b * 10 ** k - a) < 1e-6 for k in range(4))


def answer_text(q: Question) -> str:
    return str(q.answer) if q.type == "numeric" else q.options[q.correct]


def same_answer(a: Question, b: Question) -> bool:
    """Equal answers: the same number (in any unit step), or the same correct option's text."""
    na, nb = numbers(answer_text(a)), numbers(answer_text(b))
    if na and nb:
        return any(same_amount(x, y) for x in na for y in nb)
    return not na and not nb and fold(answer_text(a)).strip() == fold(answer_text(b)).strip()


def fact_words(q: Question, language: str) -> set[str]:
    """The key words of a question: those of its prompt and, for a multiple-choice one, of its correct option."""
    words = key_words(q.prompt, language)
    if q.type == "choice":
        words |= key_words(q.options[q.correct], language)
    return words


Numbered = list[tuple[str, Question]]  # questions with their ids ("builtin:en-numbers:17")


def of_language(language: str) -> Numbered:
    """Every question of the built-in packs in a language, across its packs."""
    return [(f"{pack_id}:{index}", q) for pack_id, pack in builtin_packs().items() if pack.language == language
            for index, q in enumerate(pack.questions)]


def overlap(a: set[str], b: set[str]) -> float:
    """How much of the smaller set of words the other holds."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def telling(q: Question) -> bool:
    """An answer that alone says much: a text, a decimal, or a number of 100 or more (a year, a height), unlike the
    5 or 6 that many questions share."""
    found = numbers(answer_text(q))
    return not found or any(not n.is_integer() or n >= 100 for n in found)


LANGUAGES = ("en", "fa", "ro")
SAME_FACT = 0.6  # share of the smaller set of prompt key words that two questions with the same answer share
SAME_FACT_TELLING = 0.4  # the same, when that answer is telling
GIVES_AWAY = 0.5  # share of key words a multiple-choice question stating a numeric answer shares with its prompt

# Pairs with the same answer and alike prompts that ask different facts (looked at, not duplicates).
DIFFERENT_FACTS = [
    ("How many US states have a coastline on the Pacific Ocean?",
     "How many US states have a coastline on the Gulf of Mexico?"),
    ("How many degrees are there in a right angle?",
     "What angle, in degrees, do a clock's hands make at exactly 3 o'clock?"),
    ("Câți jucători are o echipă de volei pe teren?",
     "Câți jucători ai unei echipe de hochei pe gheață sunt pe teren, cu portarul?"),
    ("În ce zi a lunii decembrie se sărbătorește Ziua Națională a României?",
     "În ce zi se sărbătorește Ziua Copilului în România?"),
]


def duplicates(questions: Numbered, language: str) -> list[str]:
    """Pairs of questions with the same answer and mostly the same prompt words (the answers are compared already,
    so their words do not count twice)."""
    words = {qid: key_words(q.prompt, language) for qid, q in questions}
    different = {frozenset(pair) for pair in DIFFERENT_FACTS}
    found = []
    for (ida, a), (idb, b) in combinations(questions, 2):
        shared = words[ida] & words[idb]
        if len(shared) < 2 or not same_answer(a, b) or frozenset((a.prompt, b.prompt)) in different:
            continue
        if overlap(words[ida], words[idb]) >= (SAME_FACT_TELLING if telling(a) else SAME_FACT):
            found.append(f"{ida} {a.prompt!r} = {idb} {b.prompt!r} (answer {answer_text(a)!r}, {sorted(shared)})")
    return found


def leaks(questions: Numbered, language: str) -> list[str]:
    """Multiple-choice questions whose prompt states a numeric question's answer ("Who discovered penicillin in
    1928?"), or whose options do when they are not numbers to choose from, about the same thing: the key words of
    the prompt and the correct option against those of the numeric prompt."""
    numeric = [(qid, q, key_words(q.prompt, language)) for qid, q in questions if q.type == "numeric"]
    found = []
    for idc, c in questions:
        if c.type != "choice":
            continue
        stated = numbers(c.prompt)
        if not numbers(answer_text(c)):
            stated |= {n for option in c.options for n in numbers(option)}
        words = fact_words(c, language)
        for idn, n, asked in numeric:
            shared = words & asked
            if n.answer in stated and shared and (len(shared) >= 2 or overlap(words, asked) >= GIVES_AWAY):
                found.append(f"{idc} {c.prompt!r} states {n.answer}, the answer of {idn} {n.prompt!r} "
                             f"({sorted(shared)})")
    return found


def mentions(questions: Numbered, language: str) -> dict[str, list[str]]:
    """The figures named (in the prompt or the correct answer) in more than MOST_MENTIONS questions of one pack."""
    found: dict[str, list[str]] = {}
    for name in FIGURES[language]:
        pattern = re.compile(rf"(?<!\w){re.escape(fold(name))}(?!\w)")
        by_pack: dict[str, list[str]] = defaultdict(list)
        for qid, q in questions:
            if pattern.search(fold(f"{q.prompt} | {answer_text(q)}")):
                by_pack[qid.rsplit(":", 1)[0]].append(qid)
        found.update({f"{name} in {pack}": named for pack, named in by_pack.items() if len(named) > MOST_MENTIONS})
    return found


def numeric(prompt: str, answer: int) -> Question:
    return Question(type="numeric", prompt=prompt, category="history", difficulty="easy", answer=answer)


def choice(prompt: str, options: tuple[str, ...], correct: int = 0) -> Question:
    return Question(type="choice", prompt=prompt, category="history", difficulty="easy", options=options,
                    correct=correct)


def test_the_checks_find_what_they_look_for():
    fleming = ("x:0", numeric("In which year did Alexander Fleming discover penicillin?", 1928))
    asked = [fleming, ("x:1", choice("Who discovered penicillin in 1928?", ("Alexander Fleming", "Louis Pasteur")))]
    assert len(leaks(asked, "en")) == 1
    reworded = [fleming, ("x:1", choice("Who discovered penicillin?", ("Alexander Fleming", "Louis Pasteur")))]
    assert leaks(reworded, "en") == [] and duplicates(reworded, "en") == []
    twice = [fleming, ("x:1", choice("In which year did Fleming discover penicillin?", ("1928", "1931")))]
    assert len(duplicates(twice, "en")) == 1
    other = [fleming, ("x:1", choice("In which year did Röntgen discover X-rays?", ("1895", "1928"), 0))]
    assert duplicates(other, "en") == [] and leaks(other, "en") == []
    romanian = [("y:0", numeric("În ce an a descoperit Alexander Fleming penicilina?", 1928)),
                ("y:1", choice("Cine a descoperit penicilina în 1928?", ("Alexander Fleming", "Louis Pasteur")))]
    assert len(leaks(romanian, "ro")) == 1
    persian = [("z:0", numeric("الکساندر فلمینگ پنی‌سیلین را در چه سالی میلادی کشف کرد؟", 1928)),
               ("z:1", choice("پنی‌سیلین را در سال ۱۹۲۸ چه کسی کشف کرد؟", ("الکساندر فلمینگ", "لویی پاستور")))]
    assert len(leaks(persian, "fa")) == 1
    sculptor = [(f"p:{i}", numeric(f"În ce an a sculptat Brâncuși opera nr. {i}?", 1900 + i)) for i in range(4)]
    assert list(mentions(sculptor, "ro")) == ["Brâncuși in p"] and mentions(sculptor[:3], "ro") == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_fact_is_asked_twice_in_a_language(language):
    found = duplicates(of_language(language), language)
    assert not found, f"{len(found)} facts asked twice:\n" + "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_multiple_choice_question_states_a_numeric_answer(language):
    found = leaks(of_language(language), language)
    assert not found, f"{len(found)} multiple-choice questions give a numeric answer away:\n" + "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_figure_is_named_in_more_than_three_questions_of_a_pack(language):
    found = mentions(of_language(language), language)
    assert not found, f"named in more than {MOST_MENTIONS} questions of a pack: {found}"


def test_damavand_is_given_the_height_iranians_learn_with_its_source():
    heights = [(pack_id, q) for pack_id, pack in builtin_packs().items() for q in pack.questions
               if q.type == "numeric" and re.search(r"damavand|دماوند", q.prompt, re.IGNORECASE)
               and re.search(r"metre|meter|metri|متر", f"{q.prompt} {q.unit}")]
    assert heights, "no pack asks Damavand's height"
    for pack_id, q in heights:
        assert q.answer == 5610, (pack_id, q.prompt, q.answer)
        assert q.source and "5,610" in q.source, (pack_id, q.source)


# --- Give-aways (issue [20], finding 3): a question whose wording, numbers or options' form point at its answer ---
#
# (a) ``echoes``: the correct option is the only option that shares a key word with the prompt ("Iron Mike" / Mike
#     Tyson, Athens / Athena, "Finlandia" / Finland, "masă" / tenis de masă). Key words as above (stop words dropped,
#     each word cut to its first STEM letters), words of three letters or more.
# (b) ``numbers_in_prompt``: the answer's number written in the prompt ("rugby în 15" → 15, Loto 6/49 → 49): a
#     numeric question's answer, or the number of a choice question's correct option when no other option's number
#     is in the prompt too.
# (c) ``odd_forms``: the correct option is the only one whose form differs from the others': the only one with a
#     qualifier in parentheses, the only one with a title ("King John" among "Richard I", "Henry III"), the only one
#     in another script or case, or the only one much longer (ODD_LENGTH times the longest other and ODD_LENGTH_CHARS
#     characters more).
# (d) ``below_zero_units``: a question that asks how many degrees below zero something is and gives a count of
#     degrees with the unit °C (or Celsius): the reveal would read "273 °C". Answers are never negative (a phone's
#     keypad types 0 up to MAX_NUMBER), so the unit says "degrees below zero" instead.
#
# Each list below is a checked exception: the question was read and its flag is not a give-away, for the reason given.

TITLES = {
    "en": {"king", "queen", "saint", "st", "sir", "lord", "lady", "emperor", "empress", "pope", "president",
           "prince", "princess", "general", "captain", "doctor", "dr", "mr", "mrs", "tsar", "sultan", "shah"},
    "ro": {"regele", "regina", "rege", "sfântul", "sfânta", "sf", "împăratul", "papa", "președintele", "prințul",
           "domnitorul", "voievodul", "generalul", "țarul", "sultanul", "șahul"},
    "fa": {"شاه", "ملکه", "امپراتور", "سلطان", "پادشاه", "حضرت", "شیخ", "امیر", "ژنرال", "دکتر", "پاپ"},
}
ODD_LENGTH, ODD_LENGTH_CHARS = 2.0, 10
BELOW_ZERO = re.compile(r"below (?:zero|0)|sub (?:zero|0)|زیر (?:صفر|0)|below freezing", re.IGNORECASE)
CELSIUS = re.compile(r"°\s*c|celsius|سانتی ?گراد|سلسیوس", re.IGNORECASE)

ECHO_ALLOWED: dict[str, str] = {}
NUMBER_IN_PROMPT_ALLOWED: dict[str, str] = {}
ODD_FORM_ALLOWED: dict[str, str] = {
    "builtin:en-choice:414": "'Saint' is part of the city's name (Saint Petersburg), not a title: the prompt names a "
                             "museum, nothing in it points at a saint, and the other options are Russian cities too",
}


def giveaway_words(text: str, language: str) -> set[str]:
    """Key words of three letters or more (a prompt's "of", "de" and single letters say nothing)."""
    return {w for w in key_words(text, language) if len(w) >= 3}


def echoes(questions: Numbered, language: str) -> list[str]:
    """(a) Choice questions whose correct option alone shares a key word with the prompt."""
    found = []
    for qid, q in questions:
        if q.type != "choice" or q.correct is None:
            continue
        asked = giveaway_words(q.prompt, language)
        shared = [giveaway_words(option, language) & asked for option in q.options]
        others = [s for i, s in enumerate(shared) if i != q.correct]
        if shared[q.correct] and not any(others):
            found.append(f"{qid} {q.prompt!r} → {q.options[q.correct]!r} ({sorted(shared[q.correct])})")
    return found


def number_in_prompt(questions: Numbered, language: str) -> list[str]:
    """(b) Questions whose prompt writes the answer's number."""
    found = []
    for qid, q in questions:
        stated = numbers(q.prompt)
        if q.type == "numeric" and q.answer is not None:
            if any(same_amount(float(q.answer), n) for n in stated):
                found.append(f"{qid} {q.prompt!r} → {q.answer}")
        elif q.type == "choice" and q.correct is not None:
            right = numbers(q.options[q.correct])
            others = set().union(*(numbers(o) for i, o in enumerate(q.options) if i != q.correct))
            if right & stated and not others & stated:
                found.append(f"{qid} {q.prompt!r} → {q.options[q.correct]!r}")
    return found


def script_of(text: str) -> str:
    """The script of a text's letters: "latin", "arabic" (Persian too), "other", or "" without letters."""
    scripts = set()
    for c in text:
        if c.isalpha():
            name = unicodedata.name(c, "")
            scripts.add("latin" if name.startswith("LATIN") else "arabic" if name.startswith("ARABIC") else "other")
    return "+".join(sorted(scripts))


def case_of(text: str) -> str:
    """"upper" (all capitals, of more than one letter), "lower" (no capital at all) or "mixed"; "" for a text
    without cased letters or one that starts with a digit ("0 negativ" among "A negativ")."""
    letters = [c for c in text if c.isalpha() and c.lower() != c.upper()]
    if not letters or not text[:1].isalpha():
        return ""
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return "upper"
    return "lower" if not any(c.isupper() for c in letters) else "mixed"


def forms(option: str, language: str) -> dict[str, object]:
    words = re.findall(r"[^\W\d_]+", option.lower())
    return {"parentheses": "(" in option,
            "title": bool(words) and words[0] in TITLES[language] and len(words) > 1,
            "script": script_of(option),
            "case": case_of(option)}


def odd_forms(questions: Numbered, language: str) -> list[str]:
    """(c) Choice questions whose correct option alone differs in form from the others."""
    found = []
    for qid, q in questions:
        if q.type != "choice" or q.correct is None or len(q.options) < 3:
            continue
        right = forms(q.options[q.correct], language)
        others = [forms(o, language) for i, o in enumerate(q.options) if i != q.correct]
        odd = [name for name, value in right.items()
               if value and all(o[name] != value for o in others) and len({str(o[name]) for o in others}) == 1]
        longest = max(len(o) for i, o in enumerate(q.options) if i != q.correct)
        length = len(q.options[q.correct])
        if length >= ODD_LENGTH * longest and length - longest >= ODD_LENGTH_CHARS:
            odd.append("length")
        if odd:
            found.append(f"{qid} {q.prompt!r} → {q.options[q.correct]!r} among {list(q.options)} ({odd})")
    return found


def below_zero_units(questions: Numbered, language: str) -> list[str]:
    """(d) Questions asking how many degrees below zero, whose answer's unit is °C."""
    found = []
    for qid, q in questions:
        if BELOW_ZERO.search(fold(q.prompt)) or BELOW_ZERO.search(q.prompt):
            unit = q.unit or "" if q.type == "numeric" else q.options[q.correct] if q.correct is not None else ""
            if CELSIUS.search(unit):
                found.append(f"{qid} {q.prompt!r} → {q.answer} {unit!r}")
    return found


GIVEAWAY_CHECKS = {"echoes": (echoes, ECHO_ALLOWED), "numbers_in_prompt": (number_in_prompt, NUMBER_IN_PROMPT_ALLOWED),
                   "odd_forms": (odd_forms, ODD_FORM_ALLOWED), "below_zero_units": (below_zero_units, {})}


def giveaways(check: str, language: str) -> list[str]:
    """What a check flags in a language's built-in packs, without its allowed exceptions."""
    find, allowed = GIVEAWAY_CHECKS[check]
    return [line for line in find(of_language(language), language) if line.split(" ", 1)[0] not in allowed]


def test_the_giveaway_checks_find_what_they_look_for():
    boxer = choice("Which heavyweight boxer was nicknamed 'Iron Mike'?",
                   ("Evander Holyfield", "Lennox Lewis", "George Foreman", "Mike Tyson"), 3)
    assert len(echoes([("x:0", boxer)], "en")) == 1
    assert echoes([("x:0", choice("Which boxer was nicknamed 'Iron Mike'?", ("Mike Tyson", "Mike Tyler")))], "en") \
        == []
    goddess = choice("Which goddess is associated with the city of Athens?", ("Athena", "Hera", "Artemis"))
    assert len(echoes([("x:0", goddess)], "en")) == 1
    table = choice("Ce sport se joacă pe o masă?", ("Badminton", "Squash", "Tenis de masă", "Tenis"), 2)
    assert len(echoes([("x:0", table)], "ro")) == 1
    assert len(number_in_prompt([("x:0", numeric("Câți jucători are o echipă de rugby în 15?", 15))], "ro")) == 1
    assert len(number_in_prompt([("x:0", numeric("Câte numere sunt în urna jocului Loto 6/49?", 49))], "ro")) == 1
    assert number_in_prompt([("x:0", numeric("Câți jucători are o echipă de rugby?", 15))], "ro") == []
    assert len(number_in_prompt([("x:0", choice("How many in a 5-a-side team?", ("5", "6", "7")))], "en")) == 1
    assert number_in_prompt([("x:0", choice("What is 5 + 6?", ("11", "5", "7")))], "en") == []
    king = choice("Which English king sealed the Magna Carta?", ("King John", "Richard I", "Henry III", "Edward I"))
    assert len(odd_forms([("x:0", king)], "en")) == 1
    archery = choice("What colour is the centre?", ("Red", "Blue", "Gold (yellow)", "Black"), 2)
    assert len(odd_forms([("x:0", archery)], "en")) == 1
    assert odd_forms([("x:0", choice("Which colour?", ("Red (1)", "Blue (2)", "Gold (3)")))], "en") == []
    long = choice("Which?", ("The United Kingdom of Great Britain", "Chad", "Peru", "Oman"))
    assert len(odd_forms([("x:0", long)], "en")) == 1
    latin = choice("کدام؟", ("NATO", "ملل", "اکو"))
    assert len(odd_forms([("x:0", latin)], "fa")) == 1
    zero = Question(type="numeric", prompt="Absolute zero is how many degrees below 0 °C?", category="science",
                    difficulty="easy", answer=273, unit="°C")
    assert len(below_zero_units([("x:0", zero)], "en")) == 1
    fixed = dataclasses.replace(zero, unit="degrees below zero")
    assert below_zero_units([("x:0", fixed)], "en") == []


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("check", list(GIVEAWAY_CHECKS))
def test_no_question_gives_its_answer_away(check, language):
    found = giveaways(check, language)
    assert not found, f"{len(found)} questions flagged by {check}:\n" + "\n".join(found)


def test_every_allowed_giveaway_is_still_flagged():
    """An exception that no longer matches (the question was edited or renumbered) is dropped, not kept stale."""
    for check, (find, allowed) in GIVEAWAY_CHECKS.items():
        flagged = {line.split(" ", 1)[0] for language in LANGUAGES for line in find(of_language(language), language)}
        assert set(allowed) <= flagged, (check, sorted(set(allowed) - flagged))
