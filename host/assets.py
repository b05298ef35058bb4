"""How the pages' files travel (issue [19], docs/decisions.md "Light pages"): every script, style sheet and catalog
is served with a strong ETag (its content's hash) and answers 304 to a browser that has it; a URL that names the
file's hash (``?v=<hash>``, which ``url_for`` adds by itself, and the catalogs' ``/i18n/<lang>.<hash>.js``) is
cached for a year, anything else is ``no-cache`` (asked again, answered 304). Responses are compressed by
Flask-Compress when the browser asks (brotli, else gzip); the compressed body of a file is kept per path and hash
(``StaticBodies``), so a thousand phones joining cost one compression of each file, not a thousand.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, g, request
from werkzeug.security import safe_join

LONG_CACHE = "public, max-age=31536000, immutable"  # a fingerprinted URL never changes content
HASH_CHARS = 12  # of a SHA-256, hex: enough that two versions of one file never share one
COMPRESSED_BODIES = 512  # compressed files kept (each at most a few tens of KB): every file in every encoding


@lru_cache(maxsize=1024)
def _read(path: str, mtime_ns: int, size: int) -> tuple[bytes, str]:
    """A file's bytes and hash, read once per version of the file (its modification time and size)."""
    data = Path(path).read_bytes()
    return data, hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def file_version(path: Path) -> tuple[bytes, str] | None:
    """The bytes and hash of a file as it is now, or None when there is no such file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if not Path(path).is_file():
        return None
    return _read(str(path), stat.st_mtime_ns, stat.st_size)


def version_of(folder: str | Path | None, filename: str) -> str | None:
    """The hash of ``folder/filename`` (for its URL's ``?v=``), or None for a file that is not there."""
    if folder is None:
        return None
    path = safe_join(str(folder), filename)
    found = file_version(Path(path)) if path else None
    return found[1] if found else None


def respond(data: bytes, digest: str, mimetype: str, fingerprinted: bool) -> Response:
    """The answer for one version of a file: 304 when the browser names its ETag (as sent, or with the encoding
    Flask-Compress adds to it, ``"<hash>:br"``), else the bytes; cached for a year when the URL names the hash."""
    cache = LONG_CACHE if fingerprinted else "no-cache"
    g.asset_key = f"{request.path}@{digest}"  # the compressed body may be kept (StaticBodies)
    asked = request.if_none_match
    matched = next((tag for tag in asked.as_set() if tag == digest or tag.startswith(digest + ":")), None) \
        if asked else None
    if matched is not None:
        response = Response(status=304)
        response.set_etag(matched)
    else:
        response = Response(data, mimetype=mimetype)
        response.set_etag(digest)
    response.headers["Cache-Control"] = cache
    return response


def serve_file(folder: str | Path | None, filename: str) -> Response:
    """A file of a static folder (404 for anything outside it or missing)."""
    path = safe_join(str(folder), filename) if folder is not None else None
    found = file_version(Path(path)) if path else None
    if found is None:
        abort(404)
    data, digest = found
    mimetype = mimetypes.guess_type(filename)[0] or "application/octet-stream"  # werkzeug adds text's charset
    return respond(data, digest, mimetype, request.args.get("v") == digest)


@lru_cache(maxsize=16)
def _catalog_script(language: str, generation: int) -> tuple[bytes, str]:
    """A language's catalog as a script that defines it (``TR_CATALOGS[lang]``), and its hash."""
    from host.i18n import catalog

    messages = json.dumps(catalog(language), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    body = f'(self.TR_CATALOGS = self.TR_CATALOGS || {{}})["{language}"] = {messages};\n'.encode()
    return body, hashlib.sha256(body).hexdigest()[:HASH_CHARS]


def catalog_script(language: str) -> tuple[bytes, str]:
    """The script of a language's catalog as the catalogs are now (a games module may add fragments)."""
    from host.i18n import generation

    return _catalog_script(language, generation())


def catalog_url(language: str) -> str:
    """The fingerprinted URL of a language's catalog."""
    return f"/i18n/{language}.{catalog_script(language)[1]}.js"


class StaticBodies:
    """Flask-Compress's cache of compressed bodies, for files only: a key names the encoding, the path and the
    file's hash (``asset_key``); pages and API answers, which change, have an empty key and are never kept."""

    def __init__(self) -> None:
        self.data: OrderedDict[str, bytes] = OrderedDict()

    def get(self, key: str) -> bytes | None:
        found = self.data.get(key)
        if found is not None:
            self.data.move_to_end(key)
        return found

    def set(self, key: str, value: bytes) -> None:
        if key.endswith(";"):
            return
        self.data[key] = value
        self.data.move_to_end(key)
        while len(self.data) > COMPRESSED_BODIES:
            self.data.popitem(last=False)


def asset_key(_: Any) -> str:
    """Flask-Compress's cache key of this request: the file's path and hash, or empty (nothing kept)."""
    return str(g.get("asset_key", ""))


def setup(app: Flask) -> None:
    """Serve the static folders, the games modules' files and the catalogs as above, add ``?v=<hash>`` to the URLs
    of static files, and compress what the browser accepts compressed."""
    from flask_compress import Compress

    from host.room import LANGUAGES

    extra_folders: dict[str, Path] = app.extensions.get("throneroom.extra", {})  # host/app.py serve_games_modules
    folders = {"static": app.static_folder}
    for name, blueprint in app.blueprints.items():
        if blueprint.static_folder is not None:
            folders[f"{name}.static"] = blueprint.static_folder
    for endpoint, folder in folders.items():
        app.view_functions[endpoint] = lambda filename, folder=folder: serve_file(folder, filename)

    @app.url_defaults
    def fingerprint(endpoint: str, values: dict[str, Any]) -> None:
        filename = values.get("filename")
        if not isinstance(filename, str) or "v" in values:
            return
        folder = folders.get(endpoint) if endpoint != "extra_file" else extra_folders.get(values.get("module", ""))
        digest = version_of(folder, filename)
        if digest:
            values["v"] = digest

    def i18n_file(language: str, digest: str) -> Response:
        if language not in LANGUAGES:
            abort(404)
        body, current = catalog_script(language)
        return respond(body, current, "application/javascript", digest == current)

    app.add_url_rule("/i18n/<language>.<digest>.js", "i18n_file", i18n_file)

    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])  # every browser has both; br is the smaller
    app.config.setdefault("COMPRESS_BR_LEVEL", 5)
    app.config.setdefault("COMPRESS_STREAMS", False)  # nothing here streams; a file is kept compressed instead
    app.config.setdefault("COMPRESS_CACHE_BACKEND", StaticBodies)
    app.config.setdefault("COMPRESS_CACHE_KEY", asset_key)
    Compress(app)
