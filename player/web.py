"""HTTP pages of the phone side: the join page."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for

from host.room import RoomError, normalise_code
from host.web import page_context

bp = Blueprint("player", __name__, static_folder="static", static_url_path="/player/static")


@bp.get("/join")
def join_form() -> Any:
    """The landing page's form posts the typed code here; send the phone to its room's page."""
    try:
        code = normalise_code(request.args.get("code", ""))
    except RoomError:
        return redirect(url_for("host.index", error="invalid_code"))
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
    return render_template("phone.html", **page_context("phone", code=code))
