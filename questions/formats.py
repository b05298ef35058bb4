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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from questions.model import (
    MAX_COLUMNS,
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_EMPTY_ROWS,
    MAX_FILE_BYTES,
    MAX_LINES,
    MAX_OPTIONS,
    MAX_QUESTIONS,
    MAX_ROWS,
    MAX_XLSX_BYTES,
    MAX_XLSX_RATIO,
    Pack,
    PackError,
    Problem,
    RawQuestion,
    build_pack,
    canonical_kind,
    clipped,
    shown,
)

OWN_FORMAT = "throneroom-pack/1"
CSV_COLUMNS = ("type", "prompt", "answer", "unit", "option1", "option2", "option3", "option4", "option5", "option6",
               "correct", "category", "difficulty", "source", "time", "image", "margin", "low", "high", "accepted",
               "rights", "points")
NUMBER_LIST = re.compile(r"\s*[|,;+/]\s*|\s+")  # "1|3", "1, 3", "1 3": several options by their numbers
KAHOOT_TIMES = (5, 10, 20, 30, 60, 90, 120, 240)
MIN_TIME, MAX_TIME = 5, 240  # a question's own time, in seconds (Kahoot!'s shortest and longest)
# a GIFT answer in braces: a run without braces that holds one of = ~ # (linear: no run is scanned twice)
GIFT_ANSWER = re.compile(r"\{[^{}=~#]*[=~#][^{}]*\}|\{\s*(?:T|F|TRUE|FALSE)\s*\}")
GIFT_TRUE_FALSE = re.compile(r"(T|F|TRUE|FALSE)\s*(?:#.*)?", re.IGNORECASE | re.DOTALL)
GIFT_WEIGHT = re.compile(r"\s*%(-?\d{1,3}(?:\.\d+)?)%")
GIFT_FEEDBACK = re.compile(r"(?<!\\)#")
SMALL_NUMBER = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}(?:\.0+)?")
ANY_NUMBER = re.compile(r"[0-9]+(?:\.0+)?")


def decode(data: bytes, filename: str) -> str:
    """The file's text: UTF-8, with or without a byte order mark; PackError naming the first bad byte otherwise."""
    if len(data) > MAX_FILE_BYTES:
        raise PackError([Problem(filename, "", f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB",
                                      code="file_too_large", args={"mb": MAX_FILE_BYTES // (1024 * 1024)})])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PackError([Problem(f"line {line}", "", f"wrong encoding: not UTF-8 (byte {error.start + 1}); "
                                                     "save the file as UTF-8", code="not_utf8",
                                    args={"byte": error.start + 1})]) from None
    if "\x00" in text:
        raise PackError([Problem(filename, "", "this is not a text file", code="not_text")])
    return text


def detect(text: str, filename: str) -> str:
    """Which format a file is in, from its content first and its extension second (``json`` is told apart into
    Throneroom and Open Trivia DB once it is parsed)."""
    suffix = Path(filename).suffix.lower()
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return "json"
    if suffix == ".csv" or (suffix not in (".gift", ".txt") and "," in text.split("\n", 1)[0]
                            and "prompt" in text.split("\n", 1)[0].lower()):
        return "csv"
    if suffix == ".gift" or GIFT_ANSWER.search(text):
        return "gift"
    if re.search(r"^ANSWER:\s*[A-Z]\s*$", text, re.MULTILINE):
        return "aiken"
    return "csv" if suffix == ".csv" else "unknown"


def read_pack(data: bytes, filename: str, name: str | None = None, language: str | None = None) -> Pack:
    """A checked pack from a file's bytes; ``name`` and ``language`` override or supply the pack's own. Whatever the
    bytes, the answer is a Pack or a PackError: the known hostile cases have their own messages, and anything
    unforeseen is reported too, as the last line of defence."""
    try:
        return _read_pack(data, filename, name, language)
    except PackError:
        raise
    except MemoryError:
        raise PackError([Problem("file", "", "the file needs too much memory to read", code="too_much_memory")]) \
            from None
    except RecursionError:
        raise PackError([Problem("file", "", f"nested more than {MAX_DEPTH} levels deep", code="too_deep",
                                 args={"n": MAX_DEPTH})]) from None
    except Exception as error:  # noqa: BLE001 - any reader's failure becomes a report, never a server error
        raise PackError([Problem("file", "", f"could not read the file: {type(error).__name__} "
                                             f"{clipped(str(error))}", code="unreadable",
                                 args={"detail": type(error).__name__})]) from None


def _too_many_lines(text: str) -> None:
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        raise PackError([Problem("file", "", f"{lines:,} lines: a pack file has at most {MAX_LINES:,}",
                                 code="too_many_lines", args={"n": lines, "max": MAX_LINES})])


def read_member(data: bytes, filename: str, name: str | None, language: str | None, images: frozenset[str],
                stem: str) -> Pack:
    """The pack file of a .zip (questions/archive.py): its questions may name the archive's ``images``; ``stem``
    (the archive's name) is the pack's name when the file has none. An archive inside is refused."""
    return _read_pack(data, filename, name, language, images, stem)


def _read_pack(data: bytes, filename: str, name: str | None, language: str | None,
               images: frozenset[str] | None = None, stem: str | None = None) -> Pack:
    default_name = name or stem or Path(filename).stem.replace("_", " ").replace("-", " ").strip() or "Pack"
    from questions.archive import is_archive, read_archive

    if is_archive(data, filename):  # a pack with images (images is None: this is not a file inside one)
        if images is not None:
            raise PackError([Problem("file", "", "an archive inside the archive: not allowed", code="zip_nested",
                                     args={"name": clipped(filename)})])
        return read_archive(data, filename, name, language)
    if data[:4] == b"PK\x03\x04" or Path(filename).suffix.lower() == ".xlsx":
        if len(data) > MAX_FILE_BYTES:
            raise PackError([Problem(filename, "", f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB",
                                      code="file_too_large", args={"mb": MAX_FILE_BYTES // (1024 * 1024)})])
        raws, problems = read_kahoot(data)
        return _with_extras(raws, images, name=default_name, language=language or "en", problems=problems)
    text = decode(data, filename)
    if Path(filename).suffix.lower() in (".yaml", ".yml"):
        return read_own(text, name, language, parse=_yaml, images=images)
    kind = detect(text, filename)
    if kind == "json":
        parsed = _json(text)
        if isinstance(parsed, dict) and "results" in parsed and "format" not in parsed:
            return build_pack(read_opentdb(parsed), name=default_name, language=language or "en")
        return read_own(parsed, name, language, images=images)
    if kind in ("csv", "gift", "aiken"):
        _too_many_lines(text)
    if kind == "csv":
        raws, problems = read_csv(text)
        return _with_extras(raws, images, name=default_name, language=language or "en", problems=problems)
    if kind == "gift":
        raws, problems = read_gift(text)
        return build_pack(raws, name=default_name, language=language or "en", problems=problems)
    if kind == "aiken":
        raws, problems = read_aiken(text)
        return build_pack(raws, name=default_name, language=language or "en", problems=problems)
    raise PackError([Problem(filename, "", "unknown format: use Throneroom JSON, CSV, Open Trivia DB JSON, "
                                          "Moodle GIFT or Aiken (see docs/packs.md)", code="unknown_format")])


def _number_text(text: str) -> int | str:
    """A JSON or YAML integer; one of more than MAX_DIGITS digits stays text (refused by the checks, quoted short)
    instead of being converted, which costs time and fails past 4,300 digits."""
    return int(text) if len(text.lstrip("+-")) <= MAX_DIGITS else text


def _no_constant(constant: str) -> Any:
    raise PackError([Problem("file", "", f"not valid JSON: {constant} is not a JSON number", code="json_constant",
                             args={"value": constant})])


def _too_deep(where: str = "file") -> PackError:
    return PackError([Problem(where, "", f"nested more than {MAX_DEPTH} levels deep: a pack is not that deep",
                              code="too_deep", args={"n": MAX_DEPTH})])


def check_depth(data: Any) -> None:
    """PackError if lists and objects nest deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep()
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))


def _json(text: str) -> Any:
    try:
        data = json.loads(text, parse_int=_number_text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise PackError([Problem(f"line {error.lineno}", "", f"not valid JSON: {error.msg} (column {error.colno})",
                                 code="invalid_json", args={"column": error.colno})]) from None
    except RecursionError:  # the C parser stops at its own depth limit
        raise _too_deep() from None
    if isinstance(data, (list, dict)):
        check_depth(data)
    return data


def _yaml_loader(fast: bool = True) -> Any:
    """The YAML loader for packs: safe (plain data only), libyaml's when installed and ``fast``; integers too long to
    convert stay text. Anchors, aliases and deep nesting are refused by ``_yaml`` before it loads."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader) if fast else yaml.SafeLoader

    class PackLoader(base):  # type: ignore[misc,valid-type]  # a base chosen at run time
        def construct_yaml_int(self, node: Any) -> Any:
            value = self.construct_scalar(node)
            return value if len(value) > MAX_DIGITS + 2 else super().construct_yaml_int(node)

    PackLoader.add_constructor("tag:yaml.org,2002:int", PackLoader.construct_yaml_int)
    return PackLoader


def _check_yaml_events(text: str, loader: Any) -> None:
    """One linear pass over the parser's events, before anything is built: PackError for an anchor, an alias or
    nesting deeper than MAX_DEPTH; a YAMLError for text that is not YAML."""
    import yaml

    depth = 0
    for event in yaml.parse(text, Loader=loader):
        line = f"line {event.start_mark.line + 1}"
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise PackError([Problem(line, "", "YAML anchors and aliases are not supported", code="yaml_alias")])
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep(line)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _yaml(text: str) -> Any:
    """A YAML pack's data. The report of a file that does not load is the project's own, whatever libyaml says: its
    scanner reads ahead and refuses some files with messages of its own (PyYAML 6.0.4's libyaml refuses 1,000 nested
    brackets as "exceeded maximum nesting depth" before a single event reaches the depth check), so a file libyaml
    refuses is read again, once, by PyYAML's pure-Python parser, whose events and messages the project controls."""
    import yaml

    try:
        _check_yaml_events(text, _yaml_loader())
        return yaml.load(text, Loader=_yaml_loader())  # a safe loader: plain data only
    except yaml.YAMLError as error:
        first = error
    try:  # only for a file that failed: the pure parser is slower, and an upload's size is bounded
        _check_yaml_events(text, _yaml_loader(fast=False))
    except yaml.YAMLError as error:
        first = error
    mark = getattr(first, "problem_mark", None)
    where = f"line {mark.line + 1}" if mark is not None else "file"
    problem = getattr(first, "problem", None) or str(first)
    raise PackError([Problem(where, "", f"not valid YAML: {clipped(problem)}", code="invalid_yaml")]) from None


@dataclass
class TimedQuestion(RawQuestion):
    """A question as read from a format that may give it its own time (seconds) and an image (a file name in the
    pack's .zip)."""

    time: Any = None
    image: Any = None


def _extras(raw: RawQuestion, images: frozenset[str] | None, problems: list[Problem]) -> tuple[int | None,
                                                                                               str | None]:
    """A question's checked time and image: a time is a whole number of seconds from MIN_TIME to MAX_TIME; an image
    is a plain file name that the pack's archive holds (a pack file alone holds none)."""
    from questions.archive import plain_name

    time, image = getattr(raw, "time", None), getattr(raw, "image", None)
    seconds = None
    if time is not None and time != "":
        seconds = time if isinstance(time, int) and not isinstance(time, bool) else None
        if isinstance(time, float) and time.is_integer():
            seconds = int(time)
        if isinstance(time, str) and SMALL_NUMBER.fullmatch(time.strip()):
            seconds = int(time.strip().split(".")[0])
        if seconds is None or not MIN_TIME <= seconds <= MAX_TIME:
            problems.append(Problem(raw.where, "time", f"the time must be a whole number of seconds from {MIN_TIME} "
                                                       f"to {MAX_TIME}, not {shown(time)}", code="question_time",
                                    args={"value": shown(time), "min": MIN_TIME, "max": MAX_TIME}))
            seconds = None
    name = None
    if image is not None and image != "":
        if isinstance(image, str):
            image = image.strip()
        if not plain_name(image):
            problems.append(Problem(raw.where, "image", f"{shown(image)} is not an image's file name (a name like "
                                                        "flag.png, without folders)", code="question_image",
                                    args={"value": shown(image)}))
        elif images is None or image not in images:
            problems.append(Problem(raw.where, "image", f"the image {shown(image)} is not in the .zip with the pack",
                                    code="zip_image_missing", args={"name": clipped(image)}))
        else:
            name = image
    return seconds, name


def _with_extras(raws: list[RawQuestion], images: frozenset[str] | None, **pack: Any) -> Pack:
    """``build_pack`` for questions that may have a time and an image: those are checked with the rest, in the same
    report, and given to the checked questions (one for each raw question: build_pack stops at any error)."""
    problems = list(pack.pop("problems", None) or [])
    extras = [_extras(raw, images, problems) for raw in raws[:MAX_QUESTIONS]]
    built = build_pack(raws, problems=problems, **pack)
    built.questions = [replace(q, time=time, image=image) if time or image else q
                       for q, (time, image) in zip(built.questions, extras)]
    return built


def read_own(text: str | Any, name: str | None = None, language: str | None = None, parse: Any = None,
             images: frozenset[str] | None = None) -> Pack:
    """Throneroom's own format, in JSON (schema: questions/pack.schema.json) or the same structure in YAML; ``text``
    may be the data already parsed. ``images``: the files of the pack's .zip a question may name."""
    data = (parse or _json)(text) if isinstance(text, str) else text
    if not isinstance(data, dict):
        raise PackError([Problem("file", "", "a Throneroom pack is a JSON object", code="not_an_object")])
    problems = []
    if data.get("format") != OWN_FORMAT:
        problems.append(Problem("pack", "format", f"must be {OWN_FORMAT!r}", code="wrong_format",
                                args={"format": OWN_FORMAT}))
    items = data.get("questions")
    if not isinstance(items, list):
        raise PackError([*problems, Problem("pack", "questions", "must be a list of questions",
                                            code="questions_not_list")])
    if len(items) > MAX_QUESTIONS:
        problems.append(Problem("pack", "questions", f"{len(items):,} questions: a pack holds at most "
                                                     f"{MAX_QUESTIONS} questions", code="too_many_questions",
                                args={"n": len(items), "max": MAX_QUESTIONS}))
    raws: list[RawQuestion] = []
    for i, item in enumerate(items[:MAX_QUESTIONS]):
        where = f"questions[{i + 1}]"
        if not isinstance(item, dict):
            problems.append(Problem(where, "", "a question is an object", code="question_not_object"))
            continue
        raws.append(TimedQuestion(where, item.get("type"), item.get("prompt"), item.get("answer"),
                                  item.get("options"), item.get("correct"), item.get("unit"), item.get("category"),
                                  item.get("difficulty"), item.get("source"), item.get("time"), item.get("image"),
                                  margin=item.get("margin"), low=item.get("low"), high=item.get("high"),
                                  rights=item.get("rights"), accepted=item.get("accepted"),
                                  points=item.get("points")))
    return _with_extras(raws, images, name=name or data.get("name"), language=language or data.get("language"),
                      author=data.get("author", ""), licence=data.get("licence", ""),
                      description=data.get("description", ""), problems=problems)


def read_csv(text: str) -> tuple[list[RawQuestion], list[Problem]]:
    """CSV with the documented header; comma or semicolon separated; a multiple-choice row names its correct
    option by number (1-6), a multi row its right ones ("1|3"); the newer kinds' columns (margin, low, high, accepted,
    rights, points) are optional (docs/packs.md)."""
    first = text.split("\n", 1)[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    problems: list[Problem] = []
    try:
        first_row = next(reader, None)
    except csv.Error as error:
        return [], [_csv_problem(1, error)]
    if not first_row:
        return [], [Problem("row 1", "", "the file is empty", code="empty_file")]
    if len(first_row) > MAX_COLUMNS:
        return [], [Problem("row 1", "header", f"{len(first_row):,} columns: a pack file has at most {MAX_COLUMNS}",
                            code="too_many_columns", args={"n": len(first_row), "max": MAX_COLUMNS})]
    header = [h.strip().lower() for h in first_row]
    missing = [c for c in ("type", "prompt") if c not in header]
    unknown = [clipped(h) for h in header if h and h not in CSV_COLUMNS]
    if missing:
        problems.append(Problem("row 1", "header", f"missing column(s): {', '.join(missing)}", code="missing_columns",
                                args={"n": len(missing), "columns": ", ".join(missing)}))
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        problems.append(Problem("row 1", "header", f"unknown column(s): {', '.join(unknown[:5])}{more}",
                                code="unknown_columns", args={"n": len(unknown), "columns": ", ".join(unknown[:5])
                                                              + (", …" if len(unknown) > 5 else "")}))
    if missing:
        return [], problems
    raws: list[RawQuestion] = []
    rows = enumerate(reader, start=2)
    filled = 0
    while True:
        try:
            number, row = next(rows)
        except StopIteration:
            break
        except csv.Error as error:
            problems.append(_csv_problem(reader.line_num, error))
            break
        if not any(cell.strip() for cell in row):
            continue
        filled += 1
        if filled > MAX_ROWS:
            problems.append(_too_many_rows(number))
            break
        if len(row) > len(header):
            problems.append(Problem(f"row {number}", "", f"{len(row)} cells but the header has {len(header)}",
                                    code="too_many_cells", args={"n": len(row), "header": len(header)}))
            continue
        cells = dict(zip(header, row))
        options = [cells.get(f"option{k}", "") for k in range(1, MAX_OPTIONS + 1)]
        while options and not options[-1].strip():
            options.pop()
        kind = canonical_kind(cells.get("type"))
        correct_text = (cells.get("correct") or "").strip()
        rights_text = (cells.get("rights") or "").strip()
        correct: Any = None
        rights: Any = _option_numbers(rights_text) if rights_text else None
        if correct_text:
            marks = [m for m in NUMBER_LIST.split(correct_text) if m]
            if kind == "multi":
                rights = rights if rights is not None else _option_numbers(correct_text)
            elif len(marks) > 1:
                problems.append(Problem(f"row {number}", "correct", "several correct answers; a choice question "
                                                                    "has one (type multi has several right options)",
                                        code="several_correct"))
                continue
            else:
                correct = _option_number(correct_text, correct_text)
        raws.append(TimedQuestion(f"row {number}", cells.get("type", "").strip(), cells.get("prompt"),
                                  cells.get("answer"), options if kind not in ("numeric", "text") else None, correct,
                                  cells.get("unit") or None, cells.get("category"), cells.get("difficulty"),
                                  cells.get("source") or None, cells.get("time"), cells.get("image"),
                                  margin=cells.get("margin"), low=cells.get("low"), high=cells.get("high"),
                                  rights=rights, accepted=cells.get("accepted"), points=cells.get("points")))
    return raws, problems


def _too_many_rows(number: int) -> Problem:
    """A spreadsheet (CSV or Kahoot!) with more rows than any pack may hold."""
    return Problem(f"row {number}", "", f"more than {MAX_ROWS:,} rows: a pack holds at most {MAX_QUESTIONS:,} questions",
                   code="too_many_rows", args={"n": MAX_ROWS, "max": MAX_QUESTIONS})


def _csv_problem(line: int, error: csv.Error) -> Problem:
    """A CSV file the csv module cannot read at a line (a cell too long, a stray quote...)."""
    if "field larger than field limit" in str(error):
        return Problem(f"line {line}", "", f"a cell longer than {csv.field_size_limit():,} characters",
                       code="cell_too_long", args={"n": csv.field_size_limit()})
    return Problem(f"line {line}", "", f"not valid CSV: {clipped(str(error))}", code="invalid_csv")


def _option_numbers(text: str) -> list[Any]:
    """Several options by their numbers from 1 ("1|3", "1,3", "1 3") as places from 0; what is not a number stays
    text (refused by the checks)."""
    return [_option_number(mark, mark) for mark in NUMBER_LIST.split(text.strip()) if mark][:MAX_OPTIONS + 1]


def _option_number(text: str, otherwise: Any) -> Any:
    """The place (from 0) of an option given by its number from 1 (``2``, ``2.0``), or ``otherwise``; a number of
    more digits than any option has is out of range without being converted."""
    if SMALL_NUMBER.fullmatch(text):
        return int(text.split(".")[0]) - 1
    if ANY_NUMBER.fullmatch(text):
        return MAX_OPTIONS  # not among the options
    return otherwise


CATEGORY_WORDS = (("geograph", "geography"), ("history", "history"), ("politic", "history"), ("science", "science"),
                  ("mathemat", "science"), ("nature", "science"), ("animal", "science"), ("computer", "science"),
                  ("sport", "sport"), ("entertain", "culture"), ("art", "culture"), ("mytholog", "culture"),
                  ("celebrit", "culture"), ("general", "general"), ("vehicle", "everyday"))


def read_opentdb(text: str | Any) -> list[RawQuestion]:
    """Open Trivia DB API JSON (its text, or already parsed): ``results`` with type, difficulty, category, question,
    correct_answer and incorrect_answers; HTML entities decoded; boolean questions become two-option questions."""
    data = _json(text) if isinstance(text, str) else text
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise PackError([Problem("file", "results", "an Open Trivia DB file has a results list", code="no_results")])
    raws = []
    for i, item in enumerate(results[: MAX_QUESTIONS + 1]):
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
    """Moodle GIFT: multiple choice ``{=right ~wrong}`` (several right or weighted answers ``{~%50%A ~%50%B ~%-100%C}``:
    a multi question), true/false ``{T}`` ``{FALSE}``, short answer ``{=Paris =paris}`` (a text question), numeric
    ``{#42}``, with a tolerance ``{#1440:60}`` or a range ``{#1400..1500}``, and matching ``{=a -> 1 =b -> 2}`` as an
    ordering question when its right-hand sides number the places; ``$CATEGORY:`` lines set the category, ``//``
    lines are comments. What cannot be carried (essay, other matching) is reported, not guessed."""
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
        braces = _gift_braces(body)
        if braces is None:
            problems.append(Problem(where, "answer", "no answer in braces {…}", code="gift_no_answer"))
            return
        opening, closing = braces
        prompt = _unescape_gift(body[:opening] + " " + body[closing + 1:])
        prompt = re.sub(r"^\[(html|moodle|plain|markdown)\]", "", prompt).strip()
        inside = body[opening + 1: closing].strip()
        raw = _gift_answer(where, prompt, inside, problems)
        if raw is not None:
            raw.category = category
            raws.append(raw)

    for number, line in enumerate(text.splitlines(), start=1):
        if len(raws) > MAX_QUESTIONS:  # one more than a pack holds: build_pack says so
            break
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


def _gift_answer(where: str, prompt: str, inside: str, problems: list[Problem]) -> RawQuestion | None:
    """The question a GIFT answer in braces makes (its prompt given), or None after adding a problem."""
    if inside.startswith("#"):
        return _gift_numeric(where, prompt, inside[1:].strip(), problems)
    if GIFT_TRUE_FALSE.fullmatch(inside):
        return RawQuestion(where, "truefalse", prompt, inside.split("#", 1)[0].strip().upper().startswith("T"))
    parts = re.findall(r"(?<!\\)([=~])((?:\\.|[^=~\\])*)", inside)
    if not parts:
        problems.append(Problem(where, "type", "unsupported question type (an essay, or no answers): use multiple "
                                               "choice {=…~…}, true/false {T}, short answer {=…}, numeric {#…} or "
                                               "matching {=… -> 1}", code="gift_type"))
        return None
    answers: list[tuple[str, float]] = []  # (text, weight in percent) of each answer, feedback dropped
    for mark, option in parts:
        option = GIFT_FEEDBACK.split(option, 1)[0]
        weight = GIFT_WEIGHT.match(option)
        if weight:
            option = option[weight.end():]
        answers.append((_unescape_gift(option), float(weight.group(1)) if weight else 100.0 if mark == "=" else 0.0))
    if any(re.search(r"(?<!\\)->", option) for _, option in parts):
        return _gift_matching(where, prompt, [text for text, _ in answers], problems)
    if all(mark == "=" for mark, _ in parts):  # short answer: every answer is an accepted one
        accepted = [text for text, weight in answers if weight >= 100]
        if len(accepted) < len(answers):
            problems.append(Problem(where, "accepted", f"{len(answers) - len(accepted)} answer(s) with partial "
                                                       "credit (%…% below 100) left out: a typed answer is right or "
                                                       "not", warning=True, code="gift_partial",
                                    args={"n": len(answers) - len(accepted)}))
        return RawQuestion(where, "text", prompt, accepted=accepted)
    options = [text for text, _ in answers]
    full = [i for i, (_, weight) in enumerate(answers) if weight >= 100]
    positive = [i for i, (_, weight) in enumerate(answers) if weight > 0]
    if len(full) == 1:  # one right answer (others may give partial credit in Moodle: not here)
        if len(positive) > 1:
            problems.append(Problem(where, "options", f"{len(positive) - 1} answer(s) with partial credit (%…%) "
                                                      "count as wrong: a choice question has one right answer",
                                    warning=True, code="gift_partial", args={"n": len(positive) - 1}))
        return RawQuestion(where, "choice", prompt, None, options, full[0])
    if not positive:
        problems.append(Problem(where, "correct", "no correct answer (mark it with = or a positive weight %…%)",
                                code="gift_no_correct"))
        return None
    return RawQuestion(where, "multi", prompt, None, options, rights=positive)  # several right: choose all


def _gift_numeric(where: str, prompt: str, value: str, problems: list[Problem]) -> RawQuestion | None:
    """A numeric answer: ``42``, ``1440:60`` (a margin of 60) or ``1400..1500`` (the middle, rounded half up, and
    half the range, rounded up, as the margin); one answer only (``=`` and a weight of 100 % may lead it)."""
    value = GIFT_FEEDBACK.split(value, 1)[0].strip()
    value = re.sub(r"^=\s*(?:%100%)?", "", value).strip()
    if re.search(r"[=~]", value):
        problems.append(Problem(where, "answer", "several numeric answers: give one (with a margin n:m or a range "
                                                 "a..b)", code="gift_numeric_several"))
        return None
    if ".." in value:
        ends = [end.strip() for end in value.split("..", 1)]
        if not all(SMALL_NUMBER.fullmatch(end) for end in ends):
            problems.append(Problem(where, "answer", f"a range's ends must be whole numbers, not {shown(value)}",
                                    code="gift_range", args={"value": shown(value)}))
            return None
        low, high = (int(end.split(".")[0]) for end in ends)
        if low > high:
            problems.append(Problem(where, "answer", f"the range {low}..{high} goes down: write the smaller number "
                                                     "first", code="gift_range_order", args={"low": low, "high": high}))
            return None
        return RawQuestion(where, "numeric", prompt, (low + high + 1) // 2, margin=(high - low + 1) // 2)
    if ":" in value:
        answer, margin = (part.strip() for part in value.split(":", 1))
        return RawQuestion(where, "numeric", prompt, _unescape_gift(answer), margin=_unescape_gift(margin))
    return RawQuestion(where, "numeric", prompt, _unescape_gift(value))


def _gift_matching(where: str, prompt: str, pairs: list[str], problems: list[Problem]) -> RawQuestion | None:
    """A matching question ``{=Mercury -> 1 =Venus -> 2}`` as an ordering question, when its right-hand sides are
    the places 1 to n; any other matching is refused."""
    items: dict[int, str] = {}
    for pair in pairs:
        left, _, right = pair.partition("->")
        place = right.strip()
        if not SMALL_NUMBER.fullmatch(place) or len(place) > 2:
            items = {}
            break
        items[int(place.split(".")[0])] = left.strip()
    if sorted(items) != list(range(1, len(pairs) + 1)):
        problems.append(Problem(where, "type", "matching questions are read as ordering questions only when the "
                                               "right-hand sides number the places (a -> 1, b -> 2, …)",
                                code="gift_matching"))
        return None
    return RawQuestion(where, "order", prompt, None, [items[place] for place in sorted(items)])


def _gift_braces(body: str) -> tuple[int, int] | None:
    """Where the first unescaped ``{`` and the first unescaped ``}`` after it are, in one pass."""
    opening = None
    for token in GIFT_TOKEN.finditer(body):
        mark = token.group()
        if mark == "{" and opening is None:
            opening = token.start()
        elif mark == "}" and opening is not None:
            return opening, token.start()
    return None


GIFT_TOKEN = re.compile(r"\\.|[{}]", re.DOTALL)


def read_aiken(text: str) -> tuple[list[RawQuestion], list[Problem]]:
    """Aiken: a question line, options ``A.`` or ``A)``, then ``ANSWER: B``; a blank line between questions."""
    raws: list[RawQuestion] = []
    problems: list[Problem] = []
    prompt, start = None, 0
    options: list[tuple[str, str]] = []  # (letter, text)
    for number, line in enumerate(text.splitlines() + [""], start=1):
        if len(raws) > MAX_QUESTIONS:  # one more than a pack holds: build_pack says so
            break
        stripped = line.strip()
        if not stripped:
            if prompt is not None:
                problems.append(Problem(f"line {start}", "correct", "no ANSWER: line after the options",
                                        code="aiken_no_answer"))
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
                                                                f"'ANSWER: A', not {stripped[:30]!r}",
                                    code="aiken_line", args={"text": stripped[:30]}))
    return raws, problems


def check_xlsx(data: bytes) -> None:
    """Refuse a spreadsheet whose parts unpack to something absurd (a zip bomb: a huge sheet or huge shared strings
    from a few KB) before any of it is unpacked."""
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as error:
        raise PackError([Problem("file", "", f"not a readable .xlsx spreadsheet ({type(error).__name__})",
                                 code="not_xlsx")]) from None
    if len(parts) > 1000:
        raise PackError([Problem("file", "", f"{len(parts):,} parts in the .xlsx file: not a Kahoot! spreadsheet",
                                 code="xlsx_parts", args={"n": len(parts)})])
    total = sum(part.file_size for part in parts)
    if total > MAX_XLSX_BYTES:
        raise PackError([Problem("file", "", f"the spreadsheet unpacks to more than "
                                             f"{MAX_XLSX_BYTES // (1024 * 1024)} MB: not a Kahoot! spreadsheet",
                                 code="xlsx_too_big", args={"mb": MAX_XLSX_BYTES // (1024 * 1024)})])
    for part in parts:
        if part.file_size > 1024 * 1024 and part.file_size > MAX_XLSX_RATIO * max(part.compress_size, 1):
            raise PackError([Problem("file", "", f"a part of the spreadsheet is compressed more than "
                                                 f"{MAX_XLSX_RATIO} times ({shown(part.filename)}): refused as a "
                                                 "zip bomb", code="xlsx_bomb", args={"n": MAX_XLSX_RATIO})])


def read_kahoot(data: bytes) -> tuple[list[RawQuestion], list[Problem]]:
    """The Kahoot! spreadsheet template (.xlsx): a header row with "Question", "Answer 1" to "Answer 4",
    "Time limit" and "Correct answer(s)", then one question per row. A row with several correct answers is a
    multi question (choose all that apply). The file is checked as a zip first (check_xlsx); its XML is read through defusedxml
    (openpyxl uses it when it is installed), so entity tricks are refused; declared dimensions are ignored, at most
    MAX_COLUMNS columns and MAX_ROWS rows are read, and reading stops after MAX_EMPTY_ROWS empty rows in a row."""
    import zipfile

    from openpyxl import load_workbook

    check_xlsx(data)
    entities = _entity_errors()
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except entities:
        raise PackError([_entities_problem("file")]) from None
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError, AttributeError, IndexError) as error:
        if entities and isinstance(error.__cause__, entities):  # openpyxl wraps what defusedxml refused
            raise PackError([_entities_problem("file")]) from None
        raise PackError([Problem("file", "", f"not a readable .xlsx spreadsheet ({type(error).__name__})",
                                 code="not_xlsx")]) from None
    try:
        if not book.worksheets:
            raise PackError([Problem("file", "", "the spreadsheet has no sheet", code="xlsx_no_sheet")])
        return _kahoot_rows(book.worksheets[0], entities)
    finally:
        book.close()


def _entity_errors() -> tuple[type[Exception], ...]:
    try:
        from defusedxml import DefusedXmlException
    except ImportError:  # pragma: no cover - defusedxml is a dependency; without it openpyxl's own parser is used
        return ()
    return (DefusedXmlException,)


def _entities_problem(where: str) -> Problem:
    return Problem(where, "", "the spreadsheet declares XML entities (a DTD), which are not allowed",
                   code="xlsx_entities")


def _kahoot_rows(sheet: Any, entities: tuple[type[Exception], ...]) -> tuple[list[RawQuestion], list[Problem]]:
    columns: dict[str, int] = {}
    raws: list[RawQuestion] = []
    problems: list[Problem] = []
    if hasattr(sheet, "reset_dimensions"):
        sheet.reset_dimensions()  # the declared size can claim a million rows of 16,384 columns: read what is there
    rows = enumerate(sheet.iter_rows(max_col=MAX_COLUMNS, values_only=True), start=1)
    number, empty, filled = 0, 0, 0
    while True:
        try:
            number, row = next(rows)
        except StopIteration:
            break
        except entities:
            problems.append(_entities_problem(f"row {number + 1}"))
            break
        except (ValueError, TypeError, OverflowError, KeyError, IndexError) as error:
            problems.append(Problem(f"row {number + 1}", "", f"a cell cannot be read ({type(error).__name__} "
                                                             f"{clipped(str(error))})", code="xlsx_cell"))
            break
        cells = ["" if c is None else str(c).strip() for c in row]
        if not any(cells):
            empty += 1
            if empty > MAX_EMPTY_ROWS:
                problems.append(Problem(f"row {number}", "", f"more than {MAX_EMPTY_ROWS:,} empty rows in a row: "
                                                             "delete them and import again", code="too_many_empty_rows",
                                        args={"n": MAX_EMPTY_ROWS}))
                break
            continue
        empty = 0
        filled += 1
        if filled > MAX_ROWS:
            problems.append(_too_many_rows(number))
            break
        if not columns:
            lowered = [c.lower() for c in cells]
            if any(c.startswith("question") for c in lowered) and any(c.startswith("answer 1") for c in lowered):
                for index, text in enumerate(lowered):
                    for key in ("question", "answer 1", "answer 2", "answer 3", "answer 4", "time limit", "correct",
                                "image"):
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
        kind = "multi" if len(marks) > 1 else "choice"  # several correct answers: choose all that apply
        correct: Any = _option_number(marks[0], None) if len(marks) == 1 else None
        rights: Any = [_option_number(m, m) for m in marks[:MAX_OPTIONS + 1]] if len(marks) > 1 else None
        limit = get("time limit")
        seconds = None
        if limit and SMALL_NUMBER.fullmatch(limit):
            seconds = int(limit.split(".")[0])
            if seconds not in KAHOOT_TIMES:
                seconds = None
                problems.append(Problem(where, "time limit", f"{limit} s is not a Kahoot! time; ignored (the game's "
                                                             "own time is used)", warning=True,
                                        code="kahoot_time", args={"n": int(limit.split(".")[0])}))
        elif limit:
            problems.append(Problem(where, "time limit", f"{shown(limit)} is not a number of seconds; ignored "
                                                         "(the game's own time is used)", warning=True,
                                    code="kahoot_time_text", args={"value": clipped(limit)}))
        image: str | None = get("image") or None
        if image and ("://" in image or image.lower().startswith("www.")):
            problems.append(Problem(where, "image", f"{shown(image)}: image links are not fetched; ignored (put the "
                                                    "image in a .zip with the spreadsheet and name its file)",
                                    warning=True, code="zip_image_link", args={"value": shown(image)}))
            image = None
        raws.append(TimedQuestion(where, kind, get("question"), None, options, correct, time=seconds,
                                  image=image, rights=rights))
    if not columns:
        problems.append(Problem("file", "header", "no header row with Question and Answer 1 columns: use the "
                                                  "Kahoot! quiz template", code="kahoot_header"))
    return raws, problems
