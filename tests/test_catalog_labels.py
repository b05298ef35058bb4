"""Labels that name something: a setting or a choice that names a button quotes that button's own label, in every
language (issue [20] finding 4: the Quiz's pace said "The host presses Next", and no button said Next)."""

from __future__ import annotations

import re

import pytest

from host.i18n import catalog
from tests.test_i18n_and_access import forms

QUOTED = re.compile(r"[“„«\"]([^”»\"]{1,60})[”»\"]")  # English “…”, Romanian „…”, Persian «…»


@pytest.mark.parametrize("language", ["en", "fa", "ro"])
def test_the_quiz_pace_names_the_buttons_the_host_presses(language):
    messages = catalog(language)
    quoted = QUOTED.findall(messages["choice.host"])
    assert quoted == [messages["quiz.next_board"], messages["quiz.next_question"]], messages["choice.host"]


@pytest.mark.parametrize("language", ["en", "fa", "ro"])
def test_a_label_quoted_in_a_setting_is_one_the_interface_shows(language):
    messages = catalog(language)
    labels = {text.strip() for message in messages.values() for text in forms(message)}
    wrong = [f"{key}: {label!r}" for key, message in messages.items() if key.startswith(("setting.", "choice."))
             for text in forms(message) for label in QUOTED.findall(text) if label.strip() not in labels]
    assert not wrong, "\n".join(wrong)
