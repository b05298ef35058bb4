"""What a phone may type as a numeric answer (CAMP-D14): digits of three scripts, separators, nothing else."""

from __future__ import annotations

import pytest

from engine.core import InvalidAction
from engine.questions import parse_number
from host.room import RoomError
from host.service import FakeClock, RoomService
from host.store import Store


def test_western_persian_and_arabic_indic_digits_with_every_separator():
    # CAMP-D14
    for text in ("1234", "۱۲۳۴", "١٢٣٤", "1,234", "1.234", "1'234", "1’234", "1٬234", "1 234", "1\u00a0234",
                 "۱٬۲۳۴", "١,٢٣٤", " 1234 "):
        assert parse_number(text) == 1234, text
    assert parse_number("999,999,999,999") == 999_999_999_999


@pytest.mark.parametrize("text", [
    "१२३४", "१,२३४",  # Devanagari digits, without and with a separator
    "１２３４", "１,２３４", "1,２３４",  # fullwidth digits
    "১,২৩৪", "๑,๒๓๔", "𝟏,𝟐𝟑𝟒",  # Bengali, Thai, mathematical bold
    "1,23", "12,34,567", "1,,234", ",234", "1,234,",
], ids=ascii)
def test_digits_of_any_other_script_are_refused_with_or_without_separators(text: str):
    # CAMP-D14
    with pytest.raises(InvalidAction) as refused:
        parse_number(text)
    assert refused.value.field == "answer"


@pytest.mark.parametrize("text", ["9" * 4301, "1" + ",000" * 2000, "0" * 41, "1" * 5000 + "x"],
                         ids=["4301 digits", "2000 groups", "41 zeros", "5000 digits and a letter"])
def test_an_absurdly_long_answer_is_refused_as_invalid_not_a_crash(text: str):
    # CAMP-D14: a whole number up to 999,999,999,999 is never longer than this; Python's int() limit is never hit
    with pytest.raises(InvalidAction) as refused:
        parse_number(text)
    assert refused.value.field == "answer"


def test_a_4301_digit_answer_from_a_phone_is_an_invalid_answer():
    # CAMP-D14: through the room service, as a phone sends it: the refusal of any bad answer, not a crash
    store, clock = Store("sqlite://"), FakeClock()
    seeds = iter(range(10, 99))
    service = RoomService(store, clock, include_unlisted=True, seed_source=lambda: next(seeds), timer_scale=0.2)
    room = service.room(service.create_room()[0])
    seat, _ = service.join(room, "Ana", "player")
    service.host_event(room, "select_game", {"game": "campaign"})
    service.host_event(room, "start", {})
    for _ in range(200):  # until the first numeric question is open to answers
        if room.session.game.can_act(room.session.state, 0):
            break
        clock.advance(100)
        service.tick()
    assert room.session.game.can_act(room.session.state, 0)
    for text in ("9" * 4301, "१,२३४"):
        with pytest.raises(RoomError) as refused:
            service.act(room, seat, {"action": {"answer": text}})
        assert refused.value.code == "invalid_action" and refused.value.field == "answer", refused.value.to_json()
    service.act(room, seat, {"action": {"answer": "۱٬۲۳۴"}})  # an allowed answer is still taken
