"""Packs with images: a ``.zip`` holding one pack file (any format of questions/formats.py) and the images its
questions name by file name (PNG, JPEG, GIF, WebP).

Everything about the archive is checked from its directory before a byte is unpacked: the number of files and of
images, every size, the compression ratio (a zip bomb), paths that leave the archive, links, encryption, archives
inside it. Then the images are unpacked and checked to BE images: the magic bytes and the dimensions read from the
header (``image_size``, by hand: no image library is needed to read four headers), at most MAX_SIDE pixels a side.
A question naming an image the archive lacks is an error at its line or row; an image no question names is a
warning and is left out. The limits are documented in docs/packs.md ("Limits"). ``write_archive`` writes the same
archive back (``throneroom pack export ID FILE.zip``).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from questions.model import MAX_FILE_BYTES, Pack, PackError, Problem, clipped, limited, shown

MAX_ZIP_BYTES = MAX_FILE_BYTES  # the archive itself: what an upload may be (5 MB)
MAX_ENTRIES = 500  # files and folders listed in the archive
MAX_IMAGES = 200
MAX_IMAGE_BYTES = 2 * 1024 * 1024  # one image, unpacked
MAX_TOTAL_BYTES = 50 * 1024 * 1024  # everything, unpacked
MAX_RATIO = 100  # unpacked / packed size of a file above RATIO_FLOOR (as for spreadsheets)
RATIO_FLOOR = 1024 * 1024
MAX_SIDE = 4096  # pixels, width and height
MAX_NAME_CHARS = 120  # an image's file name
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}
PACK_SUFFIXES = (".json", ".yaml", ".yml", ".csv", ".xlsx", ".gift", ".txt")
ARCHIVE_SUFFIXES = (".zip", ".7z", ".rar", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".zst", ".jar", ".apk", ".cab")
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError, KeyError,
              NotImplementedError, RuntimeError)
MB = 1024 * 1024


@dataclass(frozen=True)
class PackImage:
    """An image of a pack: its file name (as questions name it), media type and bytes."""

    name: str
    media_type: str
    data: bytes


@dataclass
class ArchivePack(Pack):
    """A pack read from a .zip, with the images its questions name."""

    images: list[PackImage] = field(default_factory=list)


def is_archive(data: bytes, filename: str) -> bool:
    """Whether a file is a pack archive (a .zip) rather than a Kahoot! spreadsheet (an .xlsx is a zip too)."""
    suffix = PurePosixPath(filename).suffix.lower()
    if suffix == ".zip":
        return True
    if suffix == ".xlsx" or data[:4] != b"PK\x03\x04":
        return False
    return b"[Content_Types].xml" not in data  # every spreadsheet has this part; a pack archive need not


def plain_name(value: object) -> bool:
    """Whether a question's ``image`` is a plain file name: no folder, no path, no control characters."""
    return (isinstance(value, str) and 0 < len(value) <= MAX_NAME_CHARS and value.strip() == value
            and value not in (".", "..") and not any(c in value for c in "/\\:")
            and all(c.isprintable() for c in value))


def _error(code: str, message: str, where: str = "file", warning: bool = False, **args: object) -> Problem:
    return Problem(where, "", message, warning=warning, code=code, args=dict(args))


def _unsafe(info: zipfile.ZipInfo) -> bool:
    """A name that would leave the archive (absolute, ``..``, a drive, backslashes), or a symbolic link."""
    name = info.orig_filename
    parts = name.replace("\\", "/").split("/")
    return (name.startswith(("/", "\\")) or "\\" in name or "\x00" in name or (len(name) > 1 and name[1] == ":")
            or ".." in parts or not all(c.isprintable() for c in name)
            or (info.external_attr >> 16) & 0o170000 == 0o120000)


def read_archive(data: bytes, filename: str, name: str | None = None, language: str | None = None) -> ArchivePack:
    """The pack in a .zip with its images, or PackError naming every problem (codes ``zip_*``)."""
    from questions.formats import read_member

    if len(data) > MAX_ZIP_BYTES:
        raise PackError([_error("zip_too_large", f"the archive is larger than {MAX_ZIP_BYTES // MB} MB",
                                mb=MAX_ZIP_BYTES // MB)])
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except ZIP_ERRORS as error:
        raise PackError([_error("zip_unreadable", f"not a readable .zip archive ({type(error).__name__})")]) \
            from None
    with archive:
        if len(infos) > MAX_ENTRIES:
            raise PackError([_error("zip_too_many_files", f"{len(infos):,} files in the archive: at most "
                                                          f"{MAX_ENTRIES}", n=len(infos), max=MAX_ENTRIES)])
        problems: list[Problem] = []
        packs, images = _sort(infos, problems)
        if len(images) > MAX_IMAGES:
            problems.append(_error("zip_too_many_images", f"{len(images)} images: a pack has at most {MAX_IMAGES}",
                                   n=len(images), max=MAX_IMAGES))
        if not packs and not [p for p in problems if not p.warning]:  # not when the pack file was refused
            problems.append(_error("zip_no_pack", "no pack file in the archive (.json, .yaml, .csv, .xlsx, .gift "
                                                  "or .txt)"))
        elif len(packs) > 1:
            names = ", ".join(clipped(i.filename) for i in packs[:3])
            problems.append(_error("zip_several_packs", f"several pack files in the archive ({names}): keep one",
                                   names=names))
        if [p for p in problems if not p.warning]:
            raise PackError(problems)
        found = _unpack_images(archive, images, problems)
        member = packs[0]
        pack_data = _unpack(archive, member, MAX_FILE_BYTES, problems)
    if [p for p in problems if not p.warning] or pack_data is None:
        raise PackError(problems)
    stem = PurePosixPath(filename).stem.replace("_", " ").replace("-", " ").strip() or "Pack"
    try:
        pack = read_member(pack_data, PurePosixPath(member.filename).name, name, language, frozenset(found), stem)
    except PackError as error:
        raise PackError([*problems, *error.problems]) from None
    used = {q.image for q in pack.questions if q.image}
    for image in found.values():
        if image.name not in used:
            problems.append(_error("zip_image_unused", f"no question shows {shown(image.name)}: left out",
                                   where=image.name, warning=True, name=clipped(image.name)))
    return ArchivePack(pack.name, pack.language, pack.questions, pack.author, pack.licence, pack.description,
                       limited([*problems, *pack.warnings]), [i for i in found.values() if i.name in used])


def _sort(infos: list[zipfile.ZipInfo], problems: list[Problem]) -> tuple[list[zipfile.ZipInfo],
                                                                           list[zipfile.ZipInfo]]:
    """The pack files and the images of the archive, every size and name checked from its directory alone."""
    packs, images, total, seen = [], [], 0, set()
    for info in infos:
        where = shown(info.orig_filename)
        if _unsafe(info):
            problems.append(_error("zip_path", f"{where} points outside the archive: refused", name=clipped(info.orig_filename)))
            continue
        if info.is_dir():
            continue
        base = PurePosixPath(info.filename).name
        if info.filename.startswith("__MACOSX/") or base.startswith(".") or base in ("Thumbs.db", "desktop.ini"):
            continue  # what file managers add to a folder they zip
        if info.flag_bits & 0x1:
            problems.append(_error("zip_encrypted", f"{where} is encrypted: refused", name=clipped(info.orig_filename)))
            continue
        total += info.file_size
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            problems.append(_error("zip_ratio", f"{where} is compressed more than {MAX_RATIO} times: refused as a "
                                                "zip bomb", name=clipped(info.orig_filename), max=MAX_RATIO))
            continue
        suffix = PurePosixPath(base).suffix.lower()
        if suffix in ARCHIVE_SUFFIXES:
            problems.append(_error("zip_nested", f"{where} is an archive inside the archive: not allowed",
                                   name=clipped(info.orig_filename)))
        elif suffix in IMAGE_TYPES:
            if base in seen:
                problems.append(_error("zip_duplicate", f"two images are called {shown(base)}", name=clipped(base)))
            elif not plain_name(base):
                problems.append(_error("zip_image_name", f"{where}: not a usable image file name", name=clipped(info.orig_filename)))
            elif info.file_size > MAX_IMAGE_BYTES:
                problems.append(_error("zip_image_size", f"{where} is larger than {MAX_IMAGE_BYTES // MB} MB",
                                       name=clipped(info.orig_filename), mb=MAX_IMAGE_BYTES // MB))
            seen.add(base)
            images.append(info)
        elif suffix in PACK_SUFFIXES:
            if info.file_size > MAX_FILE_BYTES:
                problems.append(_error("zip_pack_size", f"{where} is larger than {MAX_FILE_BYTES // MB} MB",
                                       name=clipped(info.orig_filename), mb=MAX_FILE_BYTES // MB))
            packs.append(info)
        else:
            problems.append(_error("zip_unknown_file", f"{where} is neither a pack file nor an image: ignored",
                                   warning=True, name=clipped(info.orig_filename)))
    if total > MAX_TOTAL_BYTES:
        problems.append(_error("zip_total_size", f"the archive unpacks to more than {MAX_TOTAL_BYTES // MB} MB",
                               mb=MAX_TOTAL_BYTES // MB))
    return packs, images


def _unpack(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, problems: list[Problem]) -> bytes | None:
    """One file's bytes, never more than ``limit`` whatever its entry claims (the CRC check catches a lie)."""
    try:
        with archive.open(info) as member:
            data = member.read(limit + 1)
    except ZIP_ERRORS as error:
        where = shown(info.orig_filename)
        problems.append(_error("zip_unreadable_file", f"{where} cannot be unpacked ({type(error).__name__})",
                               name=clipped(info.orig_filename)))
        return None
    if len(data) > limit:  # pragma: no cover - the entry's size was checked; zipfile stops at it
        problems.append(_error("zip_ratio", f"{shown(info.orig_filename)} is larger than its entry says",
                               name=clipped(info.orig_filename), max=MAX_RATIO))
        return None
    return data


def _unpack_images(archive: zipfile.ZipFile, infos: list[zipfile.ZipInfo],
                   problems: list[Problem]) -> dict[str, PackImage]:
    """The images by file name, each checked to be an image of at most MAX_SIDE pixels a side."""
    found: dict[str, PackImage] = {}
    for info in infos:
        data = _unpack(archive, info, MAX_IMAGE_BYTES, problems)
        if data is None:
            continue
        name = PurePosixPath(info.filename).name
        size = image_size(data)
        if size is None:
            problems.append(_error("zip_not_image", f"{shown(name)} is not a PNG, JPEG, GIF or WebP image",
                                   name=clipped(name)))
            continue
        media_type, width, height = size
        if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
            problems.append(_error("zip_image_dimensions", f"{shown(name)} is {width}×{height} pixels: at most "
                                                           f"{MAX_SIDE}×{MAX_SIDE}", name=clipped(name),
                                   width=width, height=height, max=MAX_SIDE))
            continue
        found[name] = PackImage(name, media_type, data)
    return found


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(media type, width, height) of a PNG, JPEG, GIF or WebP image, read from its header; None if the bytes are
    not one of those."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) >= 33 and data[12:16] == b"IHDR":
            width, height = struct.unpack(">II", data[16:24])
            return "image/png", width, height
        return None
    if data[:6] in (b"GIF87a", b"GIF89a"):
        if len(data) >= 13:
            width, height = struct.unpack("<HH", data[6:10])
            return "image/gif", width, height
        return None
    if data[:3] == b"\xff\xd8\xff":
        size = _jpeg_size(data)
        return None if size is None else ("image/jpeg", *size)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        size = _webp_size(data)
        return None if size is None else ("image/webp", *size)
    return None


JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Walk the JPEG's segments to its frame header (SOFn), which holds the size; every step moves forward."""
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header came first
            return None
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if length < 2:
            return None
        if marker in JPEG_FRAMES:
            if at + 9 > len(data) or length < 7:
                return None
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if kind == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = struct.unpack("<I", data[21:25])[0]
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def write_archive(pack: Pack, images: list[PackImage]) -> bytes:
    """A .zip with ``pack.json`` (Throneroom's format) and the images, which imports back to the same pack; the
    same pack always gives the same bytes (fixed dates, images in name order, stored as they are)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        entry = zipfile.ZipInfo("pack.json", date_time=(2020, 1, 1, 0, 0, 0))
        entry.compress_type = zipfile.ZIP_DEFLATED
        out.writestr(entry, json.dumps(pack.to_json(), ensure_ascii=False, indent=2) + "\n")
        for image in sorted(images, key=lambda i: i.name):
            entry = zipfile.ZipInfo(image.name, date_time=(2020, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_STORED  # images are compressed already
            out.writestr(entry, image.data)
    return buffer.getvalue()
