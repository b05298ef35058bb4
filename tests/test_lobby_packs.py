"""The lobby's packs ([17] finding 1 and the summary before Start): a pack the host uploads is the next game's pack,
chosen by the server (not only by the page), and the lobby says before Start which packs the next game plays, how
many questions it asks and about how long it takes (host/plan.py). Over HTTP and the TV's socket, as the page uses
them; docs/packs.md, "An upload is the next game's pack"."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from openpyxl import Workbook

from engine.quiz.game import MAX_QUESTIONS, READY_SECONDS
from host.service import FakeClock, RoomService
from host.store import Store
from questions.library import builtin_packs
from tests.conftest import Harness, control, last_state

KAHOOT_HEADER = ["", "Question - max 120 characters", "Answer 1 - max 75 characters", "Answer 2 - max 75 characters",
                 "Answer 3 - max 75 characters", "Answer 4 - max 75 characters", "Time limit (sec)",
                 "Correct answer(s) - choose at least one"]


def kahoot_sheet(prompts: list[str], seconds: int = 30) -> bytes:
    """A Kahoot! quiz template (docs/packs.md, "Kahoot! spreadsheet") with one question per prompt."""
    book = Workbook()
    sheet = book.active
    sheet.append(KAHOOT_HEADER)
    for number, prompt in enumerate(prompts, 1):
        sheet.append([number, prompt, "Red", "Green", "Blue", "Black", seconds, 2])
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


FIVE = [f"Office question {n}?" for n in range(1, 6)]


class Host:
    """A TV that created its room and watches it with the host token, as tv.js does."""

    def __init__(self, harness: Harness):
        self.harness = harness
        self.http = harness.app.test_client()
        self.code, self.token = harness.service.create_room()
        self.headers = {"X-Room-Code": self.code, "X-Host-Token": self.token}
        self.tv = harness.tv()
        assert self.tv.emit("watch", {"code": self.code, "host_token": self.token}, namespace="/tv",
                            callback=True)["ok"]

    def upload(self, prompts: list[str] = FIVE, name: str = "office.xlsx", seconds: int = 30) -> dict[str, Any]:
        answer = self.http.post("/api/packs", headers=self.headers,
                                data={"file": (io.BytesIO(kahoot_sheet(prompts, seconds)), name)})
        assert answer.status_code == 201, answer.get_json()
        return answer.get_json()

    def control(self, name: str, **extra: Any) -> dict[str, Any]:
        answer = control(self.tv, name, **extra)
        assert answer["ok"], answer
        return answer

    def questions(self) -> dict[str, Any]:
        """The questions part of the newest lobby state (a control brings a fresh one)."""
        self.control("lock", locked=False)
        return last_state(self.tv, "/tv")["questions"]

    @property
    def room(self) -> Any:
        return self.harness.service.room(self.code)


def test_start_right_after_an_upload_plays_exactly_that_pack():
    # [17] finding 1: a fresh room, the Quiz, a 5-question Kahoot! sheet uploaded, Start: the game asks those five,
    # not "Question 1 of 200" from the built-in packs that stayed ticked
    harness = Harness()
    host = Host(harness)
    harness.join(host.code, "Ana")
    host.control("select_game", game="quiz")
    answer = host.upload()  # and nothing else: the server chooses it, whatever the page does
    host.control("start")
    asked = [q.prompt for q in host.room.session.state.questions]
    assert sorted(asked) == FIVE, f"{len(asked)} questions asked, the first {asked[:2]}"
    pack_id = answer["pack"]["id"]
    assert answer["selection"] == "replaced" and host.room.packs == [pack_id]


def test_uploads_replace_the_choice_until_the_host_chooses_by_hand_and_a_game_starts_that_over(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'packs.db'}"
    harness = Harness(DATABASE_URL=url)
    host = Host(harness)
    harness.join(host.code, "Ana")
    host.control("select_game", game="quiz")
    first = host.upload(["First?"], "first.xlsx")["pack"]["id"]
    second = host.upload(["Second?"], "second.xlsx")
    assert second["selection"] == "replaced"  # a corrected file replaces the one before
    second_id = second["pack"]["id"]
    assert host.room.packs == [second_id]

    host.control("packs", packs=[second_id, "builtin:en-choice"])  # the host ticks a pack by hand
    third = host.upload(["Third?"], "third.xlsx")
    assert third["selection"] == "added"
    fourth = host.upload(["Fourth?"], "fourth.xlsx")
    assert fourth["selection"] == "added"  # the host's own choice goes on
    chosen = [second_id, "builtin:en-choice", third["pack"]["id"], fourth["pack"]["id"]]
    assert host.room.packs == chosen and first not in host.room.packs

    # the "uploaded" mark is the server's: a control that carries one is still a choice by hand
    assert control(host.tv, "packs", packs=chosen, uploaded=chosen[-1])["ok"]
    assert host.room.packs_by_hand is True

    # a game started (any game): the next upload is the next game's pack again
    host.control("select_game", game="campaign")
    host.control("settings", game="campaign", settings={"bots": True})
    host.control("start")
    host.control("end")
    host.control("lobby")
    fifth = host.upload(["Fifth?"], "fifth.xlsx")
    assert fifth["selection"] == "replaced"
    assert host.room.packs == [fifth["pack"]["id"]]

    # the log replays to the same choice and the same rule for the next upload
    again = RoomService(Store(url), FakeClock(harness.clock.now)).room(host.code)
    assert again.packs == host.room.packs and again.packs_by_hand is False


def test_an_upload_during_a_game_leaves_the_game_and_its_packs_alone():
    harness = Harness()
    host = Host(harness)
    harness.join(host.code, "Ana")
    host.control("select_game", game="campaign")
    host.control("settings", game="campaign", settings={"bots": True})
    host.control("start")
    answer = host.upload(["Later?"], "later.xlsx")
    assert answer["selection"] == "unchanged"  # stored, offered in the lobby, chosen by hand later
    assert host.room.packs is None and host.room.phase == "playing"


def test_the_lobby_says_how_many_questions_the_quiz_asks_and_about_how_long_it_takes():
    harness = Harness()
    host = Host(harness)
    host.control("select_game", game="quiz")
    built_in = sum(len(builtin_packs()[p].questions) for p in ("builtin:en-numbers", "builtin:en-choice"))
    plan = host.questions()["plan"]
    # the built-in packs: 0 ("all") is capped at 200; 20 s a question, 5 s of answers and 5 s of leaderboard
    assert plan["game"] == "quiz" and plan["total"] == built_in and plan["asks"] == MAX_QUESTIONS
    assert plan["why"] == "cap"
    assert plan["seconds"] == MAX_QUESTIONS * (READY_SECONDS + 20 + 5) + (MAX_QUESTIONS - 1) * 5
    assert plan["paced"] is False

    host.upload(seconds=30)  # five questions with their own 30 s (Kahoot!'s time limit)
    plan = host.questions()["plan"]
    assert (plan["total"], plan["asks"], plan["why"]) == (5, 5, "all")
    assert plan["seconds"] == 5 * (READY_SECONDS + 30 + 5) + 4 * 5

    host.control("settings", game="quiz", settings={"count": 3})
    plan = host.questions()["plan"]
    assert (plan["asks"], plan["why"]) == (3, "count") and plan["seconds"] == 3 * (3 + 30 + 5) + 2 * 5
    host.control("settings", game="quiz", settings={"count": 12})
    plan = host.questions()["plan"]
    assert (plan["asks"], plan["why"]) == (5, "short")  # the packs hold fewer than the host set
    host.control("settings", game="quiz", settings={"count": 0, "pack_time": False, "seconds": 10,
                                                    "reveal_seconds": 4, "standings_seconds": 6})
    assert host.questions()["plan"]["seconds"] == 5 * (3 + 10 + 4) + 4 * 6
    host.control("settings", game="quiz", settings={"paced": "host"})  # the reveal and leaderboard wait for Next
    plan = host.questions()["plan"]
    assert plan["seconds"] == 5 * (3 + 10) and plan["paced"] is True


def test_the_estimate_runs_at_the_servers_timer_scale_and_a_campaign_asks_as_it_goes():
    harness = Harness(TIMER_SCALE=0.5)
    host = Host(harness)
    host.control("select_game", game="quiz")
    host.upload(seconds=20)
    plan = host.questions()["plan"]
    assert plan["seconds"] == round(5 * (1.5 + 10 + 2.5) + 4 * 2.5)

    host.control("select_game", game="campaign")
    plan = host.questions()["plan"]
    assert plan["game"] == "campaign" and plan["asks"] is None and plan["seconds"] is None
    assert plan["range"] == [7 + 12, 15 + 14]  # engine/campaign/game.py TYPICAL, both kinds together
    assert plan["total"] == 5


def test_a_phone_learns_only_the_chosen_packs_and_the_plan_holds_no_names_of_others():
    harness = Harness()
    host = Host(harness)
    phone, _ = harness.join(host.code, "Ana")
    host.control("select_game", game="quiz")
    pack_id = host.upload()["pack"]["id"]
    host.control("lock", locked=False)  # a change: every screen gets a fresh state
    state = last_state(phone, "/play")
    assert [p["id"] for p in state["questions"]["packs"]] == [pack_id]
    assert state["questions"]["plan"]["asks"] == 5
