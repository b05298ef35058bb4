"""Reading question packs from files: Throneroom JSON, CSV, Open Trivia DB JSON, Moodle GIFT and Aiken.

``read_pack(data, filename)`` detects the format from the content and the extension and returns a checked ``Pack``
or raises ``PackError`` with every problem named by its line, row or place and field. The formats are documented
in docs/packs.md, each with an example file in questions/examples/.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path
from typing import Any

from questions.model import (
    MAX_FILE_BYTES,
    MAX_OPTIONS,
    Pack,
    PackError,
    Problem,
    RawQuestion,
    build_pack,
)

OWN_FORMAT = "throneroom-pack/1"
CSV_COLUMNS = ("type", "prompt", "answer", "unit", "option1", "option2", "option3", "option4", "option5", "option6",
               "correct", "category", "difficulty", "source")
KAHOOT_TIMES = (5, 10, 20, 30, 60, 90, 120, 240)


def decode(data: bytes, filename: str) -> str:
    """The file's text: UTF-8, with or without a byte order mark; PackError naming the first bad byte otherwise."""
    if len(data) > MAX_FILE_BYTES:
        raise PackError([Problem(filename, "", f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PackError([Problem(f"line {line}", "", f"wrong encoding: not UTF-8 (byte {error.start + 1}); "
                                                     "save the file as UTF-8")]) from None
    if "\x00" in text:
        raise PackError([Problem(filename, "", "this is not a text file")])
    return text


def detect(text: str, filename: str) -> str:
    """Which format a file is in, from its content first and its extension second."""
    suffix = Path(filename).suffix.lower()
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return "throneroom"  # reported as bad JSON by the reader
        if isinstance(parsed, dict) and "results" in parsed and "format" not in parsed:
            return "opentdb"
        return "throneroom"
    if suffix == ".csv" or (suffix not in (".gift", ".txt") and "," in text.split("\n", 1)[0]
                            and "prompt" in text.split("\n", 1)[0].lower()):
        return "csv"
    if suffix == ".gift" or re.search(r"\{[^}]*[=~#][^}]*\}", text):
        return "gift"
    if re.search(r"^ANSWER:\s*[A-Z]\s*$", text, re.MULTILINE):
        return "aiken"
    return "csv" if suffix == ".csv" else "unknown"


def read_pack(data: bytes, filename: str, name: str | None = None, language: str | None = None) -> Pack:
    """A checked pack from a file's bytes; ``name`` and ``language`` override or supply the pack's own."""
    default_name = name or Path(filename).stem.replace("_", " ").replace("-", " ").strip() or "Pack"
    if data[:4] == b"PK\x03\x04" or Path(filename).suffix.lower() == ".xlsx":
        if len(data) > MAX_FILE_BYTES:
            raise PackError([Problem(filename, "", f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")])
        raws, problems = read_kahoot(data)
        return build_pack(raws, name=default_name, language=language or "en", problems=problems)
    text = decode(data, filename)
    if Path(filename).suffix.lower() in (".yaml", ".yml"):
        return read_own(text, name, language, parse=_yaml)
    kind = detect(text, filename)
    if kind == "throneroom":
        return read_own(text, name, language)
    if kind == "opentdb":
        return build_pack(read_opentdb(text), name=default_name, language=language or "en")
    if kind == "csv":
        raws, problems = read_csv(text)
        return build_pack(raws, name=default_name, language=language or "en", problems=problems)
    if kind == "gift":
        raws, problems = read_gift(text)
        return build_pack(raws, name=default_name, language=language or "en", problems=problems)
    if kind == "aiken":
        raws, problems = read_aiken(text)
        return build_pack(raws, name=default_name, language=language or "en", problems=problems)
    raise PackError([Problem(filename, "", "unknown format: use Throneroom JSON, CSV, Open Trivia DB JSON, "
                                          "Moodle GIFT or Aiken (see docs/packs.md)")])


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise PackError([Problem(f"line {error.lineno}", "", f"not valid JSON: {error.msg} (column {error.colno})")]) \
            from None


def _yaml(text: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "file"
        raise PackError([Problem(where, "", f"not valid YAML: {getattr(error, 'problem', None) or error}")]) from None


def read_own(text: str, name: str | None = None, language: str | None = None, parse: Any = None) -> Pack:
    """Throneroom's own format, in JSON (schema: questions/pack.schema.json) or the same structure in YAML."""
    data = (parse or _json)(text)
    if not isinstance(data, dict):
        raise PackError([Problem("file", "", "a Throneroom pack is a JSON object")])
    problems = []
    if data.get("format") != OWN_FORMAT:
        problems.append(Problem("pack", "format", f"must be {OWN_FORMAT!r}"))
    items = data.get("questions")
    if not isinstance(items, list):
        raise PackError([*problems, Problem("pack", "questions", "must be a list of questions")])
    raws = []
    for i, item in enumerate(items):
        where = f"questions[{i + 1}]"
        if not isinstance(item, dict):
            problems.append(Problem(where, "", "a question is an object"))
            continue
        raws.append(RawQuestion(where, item.get("type"), item.get("prompt"), item.get("answer"), item.get("options"),
                                item.get("correct"), item.get("unit"), item.get("category"), item.get("difficulty"),
                                item.get("source")))
    return build_pack(raws, name=name or data.get("name"), language=language or data.get("language"),
                      author=data.get("author", ""), licence=data.get("licence", ""),
                      description=data.get("description", ""), problems=problems)


def read_csv(text: str) -> tuple[list[RawQuestion], list[Problem]]:
    """CSV with the documented header; comma or semicolon separated; a multiple-choice row names its correct
    option by number (1-6)."""
    first = text.split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows = list(reader)
    if not rows:
        return [], [Problem("row 1", "", "the file is empty")]
    header = [h.strip().lower() for h in rows[0]]
    problems = []
    missing = [c for c in ("type", "prompt") if c not in header]
    unknown = [h for h in header if h and h not in CSV_COLUMNS]
    if missing:
        problems.append(Problem("row 1", "header", f"missing column(s): {', '.join(missing)}"))
    if unknown:
        problems.append(Problem("row 1", "header", f"unknown column(s): {', '.join(unknown)}"))
    if missing:
        return [], problems
    raws = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            problems.append(Problem(f"row {number}", "", f"{len(row)} cells but the header has {len(header)}"))
            continue
        cells = dict(zip(header, row))
        options = [cells.get(f"option{k}", "") for k in range(1, MAX_OPTIONS + 1)]
        while options and not options[-1].strip():
            options.pop()
        correct_text = (cells.get("correct") or "").strip()
        correct: Any = None
        if correct_text:
            if "," in correct_text or "+" in correct_text:
                problems.append(Problem(f"row {number}", "correct", "several correct answers; a question has one"))
                continue
            correct = int(correct_text) - 1 if correct_text.isdigit() else correct_text
        kind = (cells.get("type") or "").strip().lower()
        raws.append(RawQuestion(f"row {number}", kind, cells.get("prompt"), cells.get("answer"),
                                options if kind != "numeric" else None, correct, cells.get("unit") or None,
                                cells.get("category"), cells.get("difficulty"), cells.get("source") or None))
    return raws, problems


CATEGORY_WORDS = (("geograph", "geography"), ("history", "history"), ("politic", "history"), ("science", "science"),
                  ("mathemat", "science"), ("nature", "science"), ("animal", "science"), ("computer", "science"),
                  ("sport", "sport"), ("entertain", "culture"), ("art", "culture"), ("mytholog", "culture"),
                  ("celebrit", "culture"), ("general", "general"), ("vehicle", "everyday"))


def read_opentdb(text: str) -> list[RawQuestion]:
    """Open Trivia DB API JSON: ``results`` with type, difficulty, category, question, correct_answer and
    incorrect_answers; HTML entities decoded; boolean questions become two-option questions."""
    data = _json(text)
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise PackError([Problem("file", "results", "an Open Trivia DB file has a results list")])
    raws = []
    for i, item in enumerate(results):
        where = f"results[{i + 1}]"
        if not isinstance(item, dict):
            raws.append(RawQuestion(where, None, None))
            continue
        kind = item.get("type")
        right = item.get("correct_answer")
        wrong = item.get("incorrect_answers")
        decode_text = (lambda v: html.unescape(v) if isinstance(v, str) else v)
        category = str(item.get("category", "")).lower()
        ours = next((c for word, c in CATEGORY_WORDS if word in category), "general")
        if kind == "boolean":
            options = ["True", "False"]
            correct = 0 if str(right).lower() == "true" else 1
        elif kind == "multiple" and isinstance(wrong, list):
            options = [decode_text(w) for w in wrong]
            correct = sum(map(ord, str(item.get("question", "")))) % (len(options) + 1)  # a varied, fixed place
            options.insert(correct, decode_text(right))
        else:
            raws.append(RawQuestion(where, kind, item.get("question")))
            continue
        raws.append(RawQuestion(where, "choice", decode_text(item.get("question")), None, options, correct, None,
                                ours, item.get("difficulty"), "Open Trivia Database (CC BY-SA 4.0)"))
    return raws


GIFT_ESCAPES = {"\\~": "~", "\\=": "=", "\\#": "#", "\\{": "{", "\\}": "}", "\\:": ":", "\\n": "\n"}


def _unescape_gift(text: str) -> str:
    for escaped, plain in GIFT_ESCAPES.items():
        text = text.replace(escaped, plain)
    return text.strip()


def read_gift(text: str) -> tuple[list[RawQuestion], list[Problem]]:
    """Moodle GIFT: ``Question {=right ~wrong ~wrong}`` and ``Question {#42}``; ``$CATEGORY:`` lines set the category,
    ``//`` lines are comments. Weighted answers and several right answers are reported, not guessed."""
    raws: list[RawQuestion] = []
    problems: list[Problem] = []
    category = None
    block: list[str] = []
    start = 1

    def flush(line_no: int) -> None:
        nonlocal block
        body = "\n".join(block).strip()
        block = []
        if not body:
            return
        where = f"line {line_no}"
        body = re.sub(r"^::(.*?)::", "", body, flags=re.DOTALL).strip()
        match = re.search(r"(?<!\\)\{(.*?)(?<!\\)\}", body, re.DOTALL)
        if match is None:
            problems.append(Problem(where, "answer", "no answer in braces {…}"))
            return
        prompt = _unescape_gift(body[: match.start()] + " " + body[match.end():])
        prompt = re.sub(r"^\[(html|moodle|plain|markdown)\]", "", prompt).strip()
        inside = match.group(1).strip()
        if inside.startswith("#"):
            value = inside[1:].strip()
            if ":" in value or ".." in value:
                problems.append(Problem(where, "answer", "numeric answers with a tolerance or range are not "
                                                         "supported: give one whole number"))
                return
            raws.append(RawQuestion(where, "numeric", prompt, _unescape_gift(value), category=category))
            return
        parts = re.findall(r"(?<!\\)([=~])((?:\\.|[^=~\\])*)", inside)
        if not parts:
            problems.append(Problem(where, "type", "unsupported question type (true/false, matching, essay or "
                                                   "short answer); use multiple choice {=…~…} or numeric {#…}"))
            return
        options, correct = [], []
        for mark, option in parts:
            option = option.split("#", 1)[0]  # feedback after # is dropped
            if re.match(r"\s*%-?\d+%", option):
                problems.append(Problem(where, "options", "weighted answers (%…%) are not supported"))
                return
            if mark == "=":
                correct.append(len(options))
            options.append(_unescape_gift(option))
        if len(correct) != 1:
            problems.append(Problem(where, "correct", "several correct answers; a question has exactly one"
                                    if correct else "no correct answer (mark it with =)"))
            return
        raws.append(RawQuestion(where, "choice", prompt, None, options, correct[0], category=category))

    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        if stripped.upper().startswith("$CATEGORY:"):
            flush(start)
            category = stripped.split(":", 1)[1].strip().split("/")[-1].lower() or None
            continue
        if not stripped:
            flush(start)
            continue
        if not block:
            start = number
        block.append(line)
    flush(start)
    return raws, problems


def read_aiken(text: str) -> tuple[list[RawQuestion], list[Problem]]:
    """Aiken: a question line, options ``A.`` or ``A)``, then ``ANSWER: B``; a blank line between questions."""
    raws: list[RawQuestion] = []
    problems: list[Problem] = []
    prompt, options, start = None, [], 0
    for number, line in enumerate(text.splitlines() + [""], start=1):
        stripped = line.strip()
        if not stripped:
            if prompt is not None:
                problems.append(Problem(f"line {start}", "correct", "no ANSWER: line after the options"))
            prompt, options = None, []
            continue
        answer = re.match(r"^ANSWER:\s*([A-Z])\s*$", stripped)
        option = re.match(r"^([A-Z])[.)]\s+(.*)$", stripped)
        if prompt is None:
            prompt, options, start = stripped, [], number
        elif answer:
            letters = [o[0] for o in options]
            letter = answer.group(1)
            correct = letters.index(letter) if letter in letters else len(options)
            raws.append(RawQuestion(f"line {start}", "choice", prompt, None, [o[1] for o in options], correct))
            prompt, options = None, []
        elif option:
            options.append((option.group(1), option.group(2)))
        else:
            problems.append(Problem(f"line {number}", "options", f"expected an option like 'A. text' or "
                                                                f"'ANSWER: A', not {stripped[:30]!r}"))
    return raws, problems


def read_kahoot(data: bytes) -> tuple[list[RawQuestion], list[Problem]]:
    """The Kahoot! spreadsheet template (.xlsx): a header row with "Question", "Answer 1" to "Answer 4",
    "Time limit" and "Correct answer(s)", then one question per row. Rows with several correct answers are
    reported, not changed."""
    import zipfile

    from openpyxl import load_workbook

    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise PackError([Problem("file", "", f"not a readable .xlsx spreadsheet ({type(error).__name__})")]) from None
    sheet = book.worksheets[0]
    columns: dict[str, int] = {}
    raws: list[RawQuestion] = []
    problems: list[Problem] = []
    for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
        cells = ["" if c is None else str(c).strip() for c in row]
        if not columns:
            lowered = [c.lower() for c in cells]
            if any(c.startswith("question") for c in lowered) and any(c.startswith("answer 1") for c in lowered):
                for index, text in enumerate(lowered):
                    for key in ("question", "answer 1", "answer 2", "answer 3", "answer 4", "time limit", "correct"):
                        if text.startswith(key) and key not in columns:
                            columns[key] = index
            continue
        def get(key: str, cells: list[str] = cells) -> str:
            return cells[columns[key]] if key in columns and columns[key] < len(cells) else ""
        if not get("question") and not any(get(f"answer {k}") for k in range(1, 5)):
            continue
        where = f"row {number}"
        options = [get(f"answer {k}") for k in range(1, 5)]
        while options and not options[-1]:
            options.pop()
        marks = [m.strip() for m in re.split(r"[,;\s]+", get("correct")) if m.strip()]
        if len(marks) > 1:
            problems.append(Problem(where, "correct", f"several correct answers ({', '.join(marks)}); Throneroom "
                                                      "questions have exactly one: keep one and import again"))
            continue
        correct: Any = int(float(marks[0])) - 1 if marks and re.fullmatch(r"\d+(\.0)?", marks[0]) else None
        limit = get("time limit")
        if limit and limit.replace(".0", "").isdigit() and int(float(limit)) not in KAHOOT_TIMES:
            problems.append(Problem(where, "time limit", f"{limit} s is not a Kahoot! time; ignored (Throneroom "
                                                         "uses its own timers)", warning=True))
        raws.append(RawQuestion(where, "choice", get("question"), None, options, correct))
    if not columns:
        problems.append(Problem("file", "header", "no header row with Question and Answer 1 columns: use the "
                                                  "Kahoot! quiz template"))
    return raws, problems
