"""What the views give the phones and the TV to teach the game (issue 15, [13]): each council's votes told apart so
they read in their own words, a house's "today" list (only what it may know), the ruler's aid marked mandatory, a
Banquet that an attack has already voided, and the council after a veto (the final house, not the vetoed one)."""

from __future__ import annotations

from engine.crown.game import CrownGame
from tests.crown.fixtures import act, close, day, start, votes

GAME = CrownGame()


def vote_councils(view: dict) -> list[tuple[str, str | None]]:
    return [(e["key"].removeprefix("crown.log."), e["params"].get("council")) for e in view["feed"]
            if e["key"].startswith(("crown.log.vote", "crown.log.debt_vote"))]


def test_every_vote_in_the_feed_names_its_council() -> None:
    # CROWN-A1 (the initial council), CROWN-R16 (judgment: votes condemn), CROWN-R24 (transfer: votes elect)
    state = start()
    state = votes(state, {0: 1, 1: 2, 2: 1, 3: 1, 4: None})
    assert state.ruler == 1 and state.phase == "day"
    state = close(state)  # day 1 ends: the Council of Judgment
    assert state.phase == "judgment"
    state = act(state, 0, "vote", choice=1)
    state = act(state, 2, "vote", choice=None)
    for audience in (None, 3):
        assert vote_councils(GAME.view(state, audience)) == [
            ("vote", "initial"), ("vote", "initial"), ("vote", "initial"), ("vote", "initial"),
            ("vote_abstain", "initial"), ("vote", "judgment"), ("vote_abstain", "judgment")]


def test_debt_votes_name_their_council_too() -> None:
    # CROWN-R70: a creditor changes a debtor's vote; it reads as a condemnation in the Council of Judgment
    state = close(day("R L L L L", debts={(2, 3): 1}))
    assert state.phase == "judgment"
    state = act(state, 3, "debt_vote", debtor=2, choice=4)
    assert vote_councils(GAME.view(state, None)) == [("debt_vote", "judgment")]


def test_a_house_today_holds_its_public_acts_and_its_own_secrets_only() -> None:
    # CROWN-D4, D5: house 1's list holds its attack and the alliance proposed to it; house 3's spying on house 1
    # is in house 3's list only (CROWN-R47: secret); house 4, not named, sees none of it
    state = day("R L L L L")
    state = act(state, 1, "attack", target=2)
    state = act(state, 3, "spy", target=1)
    state = act(state, 2, "propose_alliance", target=1)
    one = GAME.view(state, 1)["today_log"]
    assert [e["key"] for e in one["public"]] == ["crown.log.attack", "crown.log.alliance_proposed"]
    assert one["secret"] == []
    three = GAME.view(state, 3)["today_log"]
    assert [e["key"] for e in three["secret"]] == ["crown.log.spy_sent"]
    assert three["public"] == []
    assert GAME.view(state, 4)["today_log"] == {"public": [], "secret": []}
    assert "today_log" not in GAME.view(state, None)  # the TV has no house


def test_yesterday_is_not_today() -> None:
    state = day("R L L L L")
    state = act(state, 1, "attack", target=2)
    state = close(state)
    state = votes(state, {x: None for x in range(5)})  # no one condemned; the POST step and day 4 begins
    assert state.day == 4 and state.phase == "day"
    assert [e["key"] for e in GAME.view(state, 1)["today_log"]["public"]] == []


def test_the_aid_is_marked_mandatory() -> None:
    # CROWN-R59: the ruler must aid a house each day, or it loses 10 prestige
    aid = [a for a in GAME.view(day("R L L L L"), 0)["actions"] if a["kind"] == "aid"]
    assert aid and aid[0]["mandatory"] is True


def test_a_banquet_after_an_attack_on_the_ruler_is_marked_void() -> None:
    # CROWN-R45, A16: any attack by or on the ruler that day voids the banquet, and attacks cannot be taken back
    state = day("R L L L L")
    banquet = [a for a in GAME.view(state, 0)["actions"] if a["kind"] == "banquet"]
    assert banquet[0]["void"] is False
    state = act(state, 3, "attack", target=0)
    banquet = [a for a in GAME.view(state, 0)["actions"] if a["kind"] == "banquet"]
    assert banquet[0]["void"] is True


def test_the_council_after_a_veto_names_the_final_house() -> None:
    # CROWN-R60, A33: the ruler vetoes the condemnation of house 2 and condemns house 3 instead
    state = close(day("R L L L L", prestige=[60, 50, 50, 50, 50]))
    state = votes(state, {0: 2, 1: 2, 3: 2})
    assert state.phase == "veto"
    state = act(state, 0, "veto", replacement=3)
    council = GAME.view(state, None)["council"]
    assert council["condemned"] == 2 and council["vetoed"] is True and council["final"] == 3


def test_a_vote_names_its_council_when_the_council_opened_before_the_feed_shown() -> None:
    # the view shows the newest FEED_SHOWN entries; a council opened before them still names its votes (CROWN-A29)
    from engine.core import evolve
    from engine.crown.game import FEED_SHOWN, entry

    base = close(day("R L L L L"))
    feed = (entry("transfer_opened", 3, former=0),) + tuple(entry("vote", 3, voter=1, choice=2)
                                                             for _ in range(FEED_SHOWN + 5))
    shown = GAME.view(evolve(base, feed=feed), None)["feed"]
    assert len(shown) == FEED_SHOWN
    assert {e["params"]["council"] for e in shown} == {"transfer"}


def test_a_house_overnight_holds_the_night_it_may_know_only() -> None:
    # Issue [18]: after a night a phone says what happened overnight: the night's public outcomes and the public
    # entries that name the house, and its own chronicle of the night (CROWN-D4, D5). House 1 spied on house 2 and
    # house 3 on house 4 in the day (each told its report at PRE, CROWN-M8); house 4 votes to condemn house 1, the
    # others house 4, who is condemned; the ruler uses no veto; day 4 starts with the ruler's crowns (CROWN-R73).
    state = day("R L L L L")
    state = act(state, 1, "spy", target=2)
    state = act(state, 3, "spy", target=4)
    state = act(state, 0, "aid", target=1)
    assert GAME.view(state, 1)["overnight"] is None  # day 3 of a game built in its day: no night seen yet
    state = close(state)
    assert GAME.view(state, 1)["overnight"] is None  # the council sits: the night is not over
    state = votes(state, {0: 4, 1: 4, 2: 4, 3: 4, 4: 1})
    state = act(state, 0, "pass")
    assert state.day == 4 and state.phase == "day"
    one = GAME.view(state, 1)["overnight"]
    assert one["day"] == 4
    public = [e["key"] for e in one["public"]]
    assert "crown.log.condemned" in public and "crown.log.no_veto" in public
    assert [e["params"]["voter"] for e in one["public"] if e["key"] == "crown.log.vote"] == [1, 4]  # its own, against it
    assert not {"crown.log.aid", "crown.log.spy_sent", "crown.log.day_started", "crown.log.judgment_opened"} & set(public)
    # its report and the refund of a first spy (CROWN-A12), not spy_sent: that was in the day
    assert {e["key"] for e in one["secret"]} == {"crown.log.spy_result", "crown.log.spy_refund"}
    assert all(e["params"]["target"] == 2 for e in one["secret"])
    three = GAME.view(state, 3)["overnight"]
    assert [e["params"]["target"] for e in three["secret"] if e["key"] == "crown.log.spy_result"] == [4]
    ruler = GAME.view(state, 0)["overnight"]
    assert "crown.log.crown_reign" in [e["key"] for e in ruler["secret"]]  # its crowns at dawn
    assert all(e["key"] != "crown.log.crown_reign" for h in (1, 2, 3, 4) for e in GAME.view(state, h)["overnight"]["secret"])
    assert "overnight" not in GAME.view(state, None)  # the TV has no house
    before = GAME.view(state, 2)["overnight"]
    state = act(state, 2, "attack", target=3)
    state = act(state, 2, "spy", target=3)
    assert GAME.view(state, 2)["overnight"] == before  # the new day adds nothing to the night
