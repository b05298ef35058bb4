"""HTTP pages of the phone side: the join page."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

from host.room import RoomError, normalise_code
from host.web import page_context

bp = Blueprint("player", __name__, static_folder="static", static_url_path="/player/static")


def room_exists(code: str) -> bool:
    """Whether a room with this (well-formed) code exists."""
    try:
        current_app.extensions["throneroom"].service.room(code)
    except RoomError:
        return False
    return True


@bp.get("/join")
def join_form() -> Any:
    """The landing page's form posts the typed code here (when its script did not check it first); send the phone
    to its room's page, or back to the form with the error beside the code."""
    try:
        code = normalise_code(request.args.get("code", ""))
    except RoomError:
        return redirect(url_for("host.index", error="invalid_code"))
    if not room_exists(code):
        return redirect(url_for("host.index", error="unknown_room", code=code))
    return redirect(url_for("player.join", code=code))


@bp.get("/join/<code>")
def join(code: str) -> str:
    """The phone page of a room: name form, then the player's controller."""
    try:
        normalised = normalise_code(code)
    except RoomError:
        abort(404)
    if normalised != code:
        return redirect(url_for("player.join", code=normalised))  # type: ignore[return-value]
    if not room_exists(code):  # told at once, before any name form
        return render_template("phone.html", **page_context("phone", code=code, missing=True)), 404
    return render_template("phone.html", **page_context("phone", code=code))
