"""Hostile pack files (issue [11]): the small ones are committed next to this script, the big ones are made here
from a few bytes when a test needs them (``python -m tests.data.hostile.generate DIR`` writes them all to DIR).

Each file is something a guest could upload to freeze, exhaust or crash the server; tests/test_hostile_packs.py
says what each must produce instead."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

KAHOOT_HEADER = ["Question - max 120 characters", "Answer 1 - max 75 characters", "Answer 2 - max 75 characters",
                 "Answer 3 - max 75 characters", "Answer 4 - max 75 characters", "Time limit (sec)",
                 "Correct answer(s) - choose at least one"]


def _column(index: int) -> str:
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def _cell(row: int, col: int, value: object) -> str:
    ref = f"{_column(col)}{row}"
    if isinstance(value, str):
        text = value.replace("&", "&amp;").replace("<", "&lt;")
        return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'
    return f'<c r="{ref}"><v>{value}</v></c>'


def sheet_xml(rows: list[list[object]], *, dimension: str | None = None, doctype: str = "", tail: str = "") -> str:
    """A worksheet's XML: rows of cells (strings inline, anything else as a raw number), optionally a declared
    dimension, a DOCTYPE before the root and more XML after the last row."""
    body = "".join(f'<row r="{r}">' + "".join(_cell(r, c, v) for c, v in enumerate(row)) + "</row>"
                   for r, row in enumerate(rows, start=1))
    dim = f'<dimension ref="{dimension}"/>' if dimension else ""
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>{doctype}'
            f'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{dim}'
            f"<sheetData>{body}{tail}</sheetData></worksheet>")


def xlsx(sheet: str, shared_strings: str | None = None) -> bytes:
    """A minimal .xlsx (one sheet) around a worksheet's XML, compressed as hard as zip can."""
    overrides = ('<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                 'spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType='
                 '"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>')
    rels = ('<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
            'worksheet" Target="worksheets/sheet1.xml"/>')
    if shared_strings is not None:
        overrides += ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
                      'officedocument.spreadsheetml.sharedStrings+xml"/>')
        rels += ('<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                 'sharedStrings" Target="sharedStrings.xml"/>')
    parts = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org'
                               '/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.'
                               'openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
                               f'"application/xml"/>{overrides}</Types>',
        "_rels/.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
                       'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
                       'officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/'
                           'spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
                           'relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
                                      f'openxmlformats.org/package/2006/relationships">{rels}</Relationships>',
        "xl/worksheets/sheet1.xml": sheet,
    }
    if shared_strings is not None:
        parts["xl/sharedStrings.xml"] = shared_strings
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, text in parts.items():  # a fixed date: the same bytes every time
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), text,
                             compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    return buffer.getvalue()


def kahoot(*rows: list[object], **options: object) -> bytes:
    """A Kahoot! sheet: the template's header, then these rows (question, four answers, time limit, correct)."""
    return xlsx(sheet_xml([KAHOOT_HEADER, *[list(r) for r in rows]], **options))  # type: ignore[arg-type]


def own(questions: object, **fields: object) -> dict[str, object]:
    return {"format": "throneroom-pack/1", "name": "Hostile", "language": "en", **fields, "questions": questions}


GOOD = [{"type": "numeric", "prompt": "How many legs has a spider?", "answer": 8}]
LAUGHS = """\
format: throneroom-pack/1
name: Laughs
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
language: *i
questions:
  - {type: numeric, prompt: "How many legs has a spider?", answer: 8}
"""
ENTITIES = """<!DOCTYPE worksheet [<!ENTITY a "lollollollollollollollollollol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">\
<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">\
<!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]>"""
CSV_HEADER = "type,prompt,answer,option1,option2,correct\n"


def _long_number_cell() -> bytes:
    sheet = sheet_xml([KAHOOT_HEADER, ["Closest planet?", "Venus", "Mercury", "", "", 20, 2]])
    return xlsx(sheet.replace("<v>2</v>", "<v>" + "9" * 5000 + "</v>"))


def small() -> dict[str, bytes]:
    """The committed files (each a few KB at most)."""
    return {
        "laughs.yaml": LAUGHS.encode(),
        "big_int.json": json.dumps(own([{**GOOD[0], "answer": 0}])).replace('"answer": 0', '"answer": ' + "9" * 4301)
                        .encode(),
        "big_int.yaml": f"format: throneroom-pack/1\nname: Big\nlanguage: en\nquestions:\n  - type: numeric\n    "
                        f"prompt: Spider legs?\n    answer: {'9' * 4301}\n".encode(),
        "nan.json": b'{"format": "throneroom-pack/1", "name": "NaN", "language": "en", "questions": '
                    b'[{"type": "numeric", "prompt": "Spider legs?", "answer": NaN},'
                    b' {"type": "numeric", "prompt": "Ant legs?", "answer": -Infinity}]}',
        "numeric_4301_digits.csv": (CSV_HEADER + "numeric,Spider legs?," + "9" * 4301 + ",,,\n").encode(),
        "correct_superscript.csv": (CSV_HEADER + "choice,Closest planet?,,Venus,Mercury,\u00b2\n").encode(),
        "correct_4301_digits.csv": (CSV_HEADER + "choice,Closest planet?,,Venus,Mercury," + "9" * 4301 + "\n").encode(),
        "kahoot_time_1.0.0.xlsx": kahoot(["Closest planet?", "Venus", "Mercury", "", "", "1.0.0", "2"]),
        "kahoot_correct_400_digits.xlsx": kahoot(["Closest planet?", "Venus", "Mercury", "", "", "20", "9" * 400]),
        "kahoot_number_cell_5000_digits.xlsx": _long_number_cell(),
        "kahoot_entities.xlsx": kahoot(["&h;", "Venus", "Mercury", "", "", 20, 2], doctype=ENTITIES),
        "kahoot_wide_dimension.xlsx": kahoot(["Closest planet?", "Venus", "Mercury", "", "", 20, 2],
                                             dimension="A1:XFD1048576",
                                             tail='<row r="1048576"><c r="A1048576"><v>1</v></c></row>'),
        "kahoot_million_rows.xlsx": kahoot(["Closest planet?", "Venus", "Mercury", "", "", 20, 2],
                                           tail='<row r="1048576"><c r="A1048576"><v>1</v></c></row>'),
    }




def big() -> dict[str, bytes]:
    """The files made at test time (up to 5 MB each, from a few bytes)."""
    padding = "<!--" + " " * (30 * 1024 * 1024) + "-->"
    return {
        "braces.gift": b"Q " + b"{" * 40_000,
        "brace_equals.txt": b"Q {" + b"=" * 80_000,
        "deep.json": b"[" * 100_000,
        "deep_inside.json": json.dumps(own(GOOD)).replace('"questions": ', '"questions": ' + "[" * 100_000)
                            .encode(),
        "deep.yaml": b"[" * 100_000,
        "deep_block.yaml": "".join(" " * i + "- \n" for i in range(3000)).encode(),
        "long_language.json": json.dumps(own(GOOD, language="x" * 4_000_000)).encode(),
        "questions_of_ones.json": json.dumps(own([1] * 1_600_000)).encode(),
        "many_columns.csv": ("type,prompt," + ",".join(f"column{i}" for i in range(200_000)) + "\n").encode()[:5_000_000],
        "giant_field.csv": (CSV_HEADER + 'numeric,"' + "x" * 1_000_000 + '",8,,,\n').encode(),
        "aiken_lines.txt": b"Which?\n" + b"x\n" * 2_400_000 + b"ANSWER: A\n",
        "blank_lines.gift": b"\n" * 5_000_000,
        "kahoot_zip_bomb.xlsx": kahoot(["Closest planet?", "Venus", "Mercury", "", "", 20, 2], tail=padding),
        "kahoot_shared_strings.xlsx": xlsx(sheet_xml([KAHOOT_HEADER]),
                                           '<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/'
                                           'spreadsheetml/2006/main">' + "<si><t>a</t></si>" * 3_000_000 + "</sst>"),
    }


def all_files() -> dict[str, bytes]:
    return {**small(), **big()}


def write_small() -> None:
    """Write the committed files again (run after changing ``small``)."""
    for name, data in small().items():
        (HERE / name).write_bytes(data)


if __name__ == "__main__":
    if sys.argv[1:] == ["--small"]:
        write_small()
    else:
        out = Path(sys.argv[1])
        out.mkdir(parents=True, exist_ok=True)
        for name, data in all_files().items():
            (out / name).write_bytes(data)
            print(f"{name}: {len(data):,} bytes")
