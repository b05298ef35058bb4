"""Packs belong to their host ([12]): a pack uploaded from a TV is offered only to its owner's rooms unless the owner
shares it, only its owner deletes it (the command line deletes any), a "New room" from the same TV keeps the owner,
and the language chosen on upload is the pack's. Over HTTP and the TV's socket, as the page uses them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from host import cli
from questions.formats import read_pack
from questions.store import list_packs, save_pack
from tests.conftest import ROOT, Harness, control, last_state

EXAMPLES = ROOT / "questions" / "examples"
CSV = (EXAMPLES / "example.csv").read_bytes()
PERSIAN_CSV = "type,prompt,answer\nnumeric,قلهٔ دماوند چند متر است؟,5610\nnumeric,ایران چند استان دارد؟,31\n"


class Host:
    """A TV that created its room over HTTP (as tv.js does) and watches it with the host token."""

    def __init__(self, harness: Harness, came_from: Host | None = None):
        self.harness = harness
        self.http = harness.app.test_client()
        body = {"from": {"code": came_from.code, "host_token": came_from.token}} if came_from else None
        created = self.http.post("/api/rooms", json=body)
        assert created.status_code == 201, created.get_json()
        self.code, self.token = created.get_json()["code"], created.get_json()["host_token"]
        self.headers = {"X-Room-Code": self.code, "X-Host-Token": self.token}
        self.tv = harness.tv()
        answer = self.tv.emit("watch", {"code": self.code, "host_token": self.token}, namespace="/tv", callback=True)
        assert answer["ok"], answer

    def upload(self, data: bytes = CSV, filename: str = "mine.csv", **form: Any) -> dict[str, Any]:
        answer = self.http.post("/api/packs", headers=self.headers,
                                data={"file": (io.BytesIO(data), filename), **form})
        assert answer.status_code == 201, answer.get_json()
        return answer.get_json()["pack"]

    def lobby(self) -> dict[str, Any]:
        """The questions part of the newest lobby state this TV received (asks for one if none came)."""
        assert control(self.tv, "lock", locked=False)["ok"]  # any control brings a fresh state
        return last_state(self.tv, "/tv")["questions"]

    def listed(self) -> dict[str, dict[str, Any]]:
        return {p["id"]: p for p in self.lobby()["packs"]}

    def choose(self, *pack_ids: str) -> dict[str, Any]:
        return control(self.tv, "packs", packs=list(pack_ids))

    def share(self, pack_id: str, shared: Any) -> Any:
        return self.http.patch(f"/api/packs/{pack_id}", headers=self.headers, json={"shared": shared})

    def delete(self, pack_id: str) -> Any:
        return self.http.delete(f"/api/packs/{pack_id}", headers=self.headers)

    def preview(self, pack_id: str) -> Any:
        return self.http.get(f"/api/packs/{pack_id}", headers=self.headers)


def test_an_unshared_pack_is_its_owners_alone_and_a_shared_one_is_offered_but_never_deleted_by_others():
    harness = Harness()
    a, b = Host(harness), Host(harness)
    pack_id = a.upload(name="Office quiz")["id"]
    mine = a.listed()[pack_id]
    assert mine["mine"] is True and mine["shared"] is False and mine["builtin"] is False
    assert a.choose(pack_id)["ok"] and a.preview(pack_id).status_code == 200

    assert pack_id not in b.listed()  # not in B's lobby
    refused = b.choose(pack_id)
    assert refused["ok"] is False and refused["error"]["code"] == "unknown_pack"
    assert b.preview(pack_id).status_code == 404
    denied = b.delete(pack_id)
    assert denied.status_code == 403 and denied.get_json()["error"]["code"] == "not_your_pack"
    assert b.share(pack_id, True).status_code == 403  # nor share it for its owner

    assert a.share(pack_id, "yes").status_code == 400  # shared is true or false
    assert a.share(pack_id, True).get_json() == {"ok": True, "shared": True}
    theirs = b.listed()[pack_id]
    assert theirs["mine"] is False and theirs["shared"] is True  # "shared by another host"
    assert a.listed()[pack_id]["mine"] is True and a.listed()[pack_id]["shared"] is True
    assert b.choose(pack_id)["ok"] and b.lobby()["selected"] == [pack_id]
    assert b.preview(pack_id).status_code == 200
    assert b.delete(pack_id).status_code == 403 and pack_id in b.listed()

    assert a.share(pack_id, False).status_code == 200  # unshared: it drops out of B's choice, as a deleted one does
    assert pack_id not in b.listed() and b.lobby()["selected"] == []
    room_b = harness.service.room(b.code)
    assert harness.service.chosen_packs(room_b) == []  # a game started now never draws from it
    assert a.share(pack_id, True).status_code == 200 and b.lobby()["selected"] == [pack_id]

    assert a.delete(pack_id).get_json()["ok"] is True  # the owner deletes it: gone for everyone
    assert b.lobby()["selected"] == [] and pack_id not in b.listed() and a.lobby()["selected"] == []
    assert a.delete(pack_id).status_code == 404


def test_built_in_packs_cannot_be_deleted_and_legacy_packs_only_from_the_command_line(tmp_path: Path, capsys):
    db = tmp_path / "owners.db"
    harness = Harness(DATABASE_URL=f"sqlite:///{db}")
    a, b = Host(harness), Host(harness)
    builtin = a.delete("builtin:en-numbers")
    assert builtin.status_code == 400 and builtin.get_json()["error"]["code"] == "builtin_pack"
    assert a.listed()["builtin:en-numbers"]["builtin"] is True
    assert a.share("builtin:en-numbers", False).status_code == 400

    old = read_pack((EXAMPLES / "example.json").read_bytes(), "example.json")
    legacy = f"db:{save_pack(harness.service.store.engine, old)}"  # stored as before owners: no owner
    for host in (a, b):
        listed = host.listed()[legacy]
        assert listed["mine"] is False and listed["shared"] is True  # counts as shared, for every room
        assert host.choose(legacy)["ok"] and host.preview(legacy).status_code == 200
        denied = host.delete(legacy)
        assert denied.status_code == 403 and denied.get_json()["error"]["code"] == "not_your_pack"
        assert host.share(legacy, False).status_code == 403
    owned = a.upload()["id"]
    assert owned not in b.listed()
    assert cli.main(["pack", "share", "--db", str(db), owned]) == 0  # the command line shares any pack (an owner
    assert b.listed()[owned]["shared"] is True  # whose rooms all expired can no longer do it from a TV)
    assert cli.main(["pack", "share", "--off", "--db", str(db), owned]) == 0
    assert owned not in b.listed()
    assert cli.main(["pack", "share", "--db", str(db), "db:" + "0" * 32]) == 1
    assert cli.main(["pack", "delete", "--db", str(db), legacy]) == 0  # the command line deletes any pack
    assert cli.main(["pack", "delete", "--db", str(db), owned]) == 0
    capsys.readouterr()
    assert list_packs(harness.service.store.engine) == []
    assert legacy not in a.listed() and a.lobby()["selected"] == []


def test_a_new_room_from_the_same_tv_keeps_its_packs():
    harness = Harness()
    first = Host(harness)
    pack_id = first.upload()["id"]
    second = Host(harness, came_from=first)  # "New room" sends the host token of the room it comes from
    assert second.code != first.code
    assert second.listed()[pack_id]["mine"] is True
    assert second.choose(pack_id)["ok"] and second.preview(pack_id).status_code == 200
    third = Host(harness, came_from=second)  # and so on, room after room
    assert third.share(pack_id, True).status_code == 200
    stranger = Host(harness)
    forged = stranger.http.post("/api/rooms", json={"from": {"code": first.code, "host_token": "not-the-token"}})
    assert forged.status_code == 201  # a wrong token makes a room with an identity of its own
    code, token = forged.get_json()["code"], forged.get_json()["host_token"]
    denied = stranger.http.delete(f"/api/packs/{pack_id}", headers={"X-Room-Code": code, "X-Host-Token": token})
    assert denied.status_code == 403
    for junk in ({"from": "ABCD"}, {"from": {"code": 5, "host_token": None}}, [1, 2], "x"):
        assert stranger.http.post("/api/rooms", json=junk).status_code == 201
    assert third.delete(pack_id).get_json()["ok"] is True


def test_the_owner_survives_a_restart(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'restart.db'}"
    harness = Harness(DATABASE_URL=db)
    first = Host(harness)
    second = Host(harness, came_from=first)
    pack_id = second.upload()["id"]
    again = Harness(DATABASE_URL=db)  # a new process reads the rooms back from the database
    room = again.service.room(second.code)
    assert pack_id in harness.service.library.current([pack_id], room.owner)
    http = again.app.test_client()
    assert http.get(f"/api/packs/{pack_id}", headers={"X-Room-Code": first.code, "X-Host-Token": first.token}) \
        .status_code == 200  # the first room, where the identity started, owns it too


def test_the_language_given_on_upload_is_the_packs_language():
    harness = Harness()
    a = Host(harness)
    persian = a.upload(PERSIAN_CSV.encode(), "persian.csv", language="fa")
    assert persian["language"] == "fa" and a.listed()[persian["id"]]["language"] == "fa"
    assert a.preview(persian["id"]).get_json()["language"] == "fa"
    english = a.upload(CSV, "english.csv", language="en")
    assert english["language"] == "en"
    shared = a.upload(CSV, "shared.csv", language="ro", shared="true")
    assert a.listed()[shared["id"]]["shared"] is True and a.listed()[shared["id"]]["language"] == "ro"
    bad = a.http.post("/api/packs", headers=a.headers,
                      data={"file": (io.BytesIO(CSV), "x.csv"), "language": "de"})
    assert bad.status_code == 422 and bad.get_json()["problems"][0]["code"] == "bad_language"


def test_every_upload_problem_has_a_code_and_a_message_in_every_language():
    import json

    from host.i18n import catalog

    harness = Harness()
    a = Host(harness)
    broken = ("type,prompt,answer,option1,option2,correct,colour\n"
              "numeric,Bad number,12a,,,,\n"
              "choice,No correct,,a,b,,\n")
    answer = a.http.post("/api/packs", headers=a.headers, data={"file": (io.BytesIO(broken.encode()), "bad.csv")})
    problems = answer.get_json()["problems"]
    assert answer.status_code == 422 and {p["code"] for p in problems} >= {"unknown_columns", "answer_not_whole",
                                                                            "no_correct"}
    none = a.http.post("/api/packs", headers=a.headers, data={})
    assert none.get_json()["problems"][0]["code"] == "no_file"
    codes = set()
    for path in (ROOT / "questions").glob("*.py"):
        if path.name == "archive.py":  # the zip reader's problems have their own fragment (packzip.*.json)
            continue
        codes |= set(_codes(path.read_text(encoding="utf-8")))
    codes |= set(_codes((ROOT / "host" / "web.py").read_text(encoding="utf-8")))
    assert len(codes) > 40
    for language in ("en", "fa", "ro"):
        messages = catalog(language)
        missing = sorted(c for c in codes if f"pack.problem.{c}" not in messages
                         and not c.startswith("zip_"))  # the zip reader's, in its own fragment
        assert not missing, (language, missing)
    assert json.loads((ROOT / "host" / "i18n" / "packs.fa.json").read_text(encoding="utf-8"))


def _codes(source: str) -> list[str]:
    """The codes given to Problem(...) in a source file (literal code="..." and the check helpers' third argument)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None)
        for keyword in node.keywords:
            if name == "Problem" and keyword.arg == "code":
                found.extend(c.value for c in ast.walk(keyword.value)
                             if isinstance(c, ast.Constant) and isinstance(c.value, str))
        if name in ("error", "warn") and len(node.args) >= 3 and isinstance(node.args[2], ast.Constant):
            found.append(node.args[2].value)
        if name == "problem" and node.args and isinstance(node.args[0], ast.Constant):  # host/web.py's helper
            found.append(node.args[0].value)
    return found


def test_a_database_from_before_owners_keeps_its_rooms_and_packs(tmp_path: Path):
    import sqlite3

    from host.room import hash_token

    path = tmp_path / "before-owners.db"
    with sqlite3.connect(path) as old:
        old.executescript(f"""
CREATE TABLE room (code VARCHAR(8) NOT NULL PRIMARY KEY, host_token_hash VARCHAR NOT NULL, seed INTEGER NOT NULL,
                   created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL, closed BOOLEAN NOT NULL);
CREATE TABLE pack (id INTEGER NOT NULL PRIMARY KEY, uuid VARCHAR(32) NOT NULL, legacy_id INTEGER,
                   ready BOOLEAN NOT NULL DEFAULT 1, name VARCHAR NOT NULL, language VARCHAR NOT NULL,
                   author VARCHAR NOT NULL, licence VARCHAR NOT NULL, description VARCHAR NOT NULL,
                   created_ms INTEGER NOT NULL);
CREATE TABLE question (id INTEGER NOT NULL PRIMARY KEY, pack_id INTEGER NOT NULL REFERENCES pack (id),
                       position INTEGER NOT NULL, type VARCHAR NOT NULL, prompt VARCHAR NOT NULL, answer INTEGER,
                       unit VARCHAR, options VARCHAR, correct INTEGER, category VARCHAR NOT NULL,
                       difficulty VARCHAR NOT NULL, source VARCHAR);
INSERT INTO room VALUES ('ABCD', '{hash_token("old-host-token")}', 7, 1700000000000, 9999999999999, 0);
INSERT INTO pack VALUES (1, '{"a" * 32}', NULL, 1, 'Old pack', 'en', '', '', '', 1);
INSERT INTO question VALUES (1, 1, 0, 'numeric', 'Legs of a spider?', 8, NULL, NULL, NULL, 'general', 'easy', NULL);
""")
    harness = Harness(DATABASE_URL=f"sqlite:///{path}")  # the upgrade
    http = harness.app.test_client()
    headers = {"X-Room-Code": "ABCD", "X-Host-Token": "old-host-token"}
    legacy = f"db:{'a' * 32}"
    assert http.get(f"/api/packs/{legacy}", headers=headers).status_code == 200  # no owner: shared
    assert http.delete(f"/api/packs/{legacy}", headers=headers).status_code == 403
    uploaded = http.post("/api/packs", headers=headers, data={"file": (io.BytesIO(CSV), "new.csv")})
    pack_id = uploaded.get_json()["pack"]["id"]  # a room from before owners is its own host's
    assert harness.service.library.owner_of(pack_id)[1] == hash_token("old-host-token")
    assert http.delete(f"/api/packs/{pack_id}", headers=headers).get_json()["ok"] is True


def test_a_game_whose_chosen_packs_are_all_gone_is_refused_not_played_with_other_questions():
    # CAMP-D15: questions come from the packs chosen for the room; top-up only tops them up, it never replaces them
    harness = Harness()
    owner, other = Host(harness), Host(harness)
    pack_id = owner.upload(shared="true")["id"]
    for host, game in ((other, "campaign"), (owner, "quiz")):
        assert control(host.tv, "select_game", game=game)["ok"] and host.choose(pack_id)["ok"]
    assert owner.share(pack_id, False).status_code == 200  # the other room's only pack is no longer shared with it
    refused = control(other.tv, "start")
    assert refused["error"]["code"] == "invalid_settings" and refused["error"]["field"] == "packs", refused
    assert "gone" in refused["error"]["message"]
    assert harness.service.room(other.code).phase == "lobby"
    assert owner.delete(pack_id).status_code == 200  # and the owner's own room after a delete
    refused = control(owner.tv, "start")
    assert refused["error"]["field"] == "packs" and "gone" in refused["error"]["message"], refused
