"""Packs with images: a ``.zip`` holding one pack file (any format of questions/formats.py) and the images its
questions name by file name (PNG, JPEG, GIF, WebP).

Everything about the archive is checked from its directory before a byte is unpacked: the number of files and of
images, every size, the compression ratio (a zip bomb), paths that leave the archive, links, encryption, archives
inside it. Then the images are unpacked and checked to BE images, each by one function (``inspect_image``) that walks
the whole of its structure by hand, without decoding a pixel: PNG chunks to IEND, GIF blocks to the trailer, JPEG
segments and scans to EOI, WebP chunks to the RIFF size. Every frame counts, not only the header's screen or canvas
(a GIF that says 1x1 may hold a 16000x16000 frame, which a TV makes room for): the canvas and every frame at most
MAX_SIDE pixels a side, at most MAX_FRAMES frames. What follows the image's own end is left out (a warning), an
image may hold only IMAGE_BYTES_FLOOR plus IMAGE_BYTES_PER_PIXEL bytes a pixel of its frames (more is padding), and
the images a pack keeps MAX_STORED_IMAGE_BYTES in all: padding that the zip compresses to nothing cannot make a small
upload a large database.
A question naming an image the archive lacks is an error at its line or row; an image no question names is a
warning and is left out. The limits are documented in docs/packs.md ("Limits"). ``write_archive`` writes the same
archive back (``throneroom pack export ID FILE.zip``).
"""

from __future__ import annotations

import io
import json
import math
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
MAX_SIDE = 4096  # pixels, width and height, of the canvas and of every frame
MAX_FRAMES = 300  # frames of an animated GIF, PNG or WebP: the TV decodes each one, every time the animation loops
IMAGE_BYTES_FLOOR = 128 * 1024  # what an image may hold besides its pixels (metadata, a colour profile)...
IMAGE_BYTES_PER_PIXEL = 8  # ...and per pixel of its frames: a 16-bit RGBA PNG of noise, uncompressed, takes 8
MAX_STORED_IMAGE_BYTES = 8 * 1024 * 1024  # the images a pack keeps, in all: a 5 MB archive of images holds less
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
    kept = [i for i in found.values() if i.name in used]
    if sum(len(i.data) for i in kept) > MAX_STORED_IMAGE_BYTES:  # what the database would keep of this upload
        raise PackError([_error("zip_images_total", f"the images together take more than "
                                                    f"{MAX_STORED_IMAGE_BYTES // MB} MB: keep fewer or smaller ones",
                                mb=MAX_STORED_IMAGE_BYTES // MB)])
    return ArchivePack(pack.name, pack.language, pack.questions, pack.author, pack.licence, pack.description,
                       limited([*problems, *pack.warnings]), kept)


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
    """The images by file name, each checked by ``_checked_image``."""
    found: dict[str, PackImage] = {}
    for info in infos:
        data = _unpack(archive, info, MAX_IMAGE_BYTES, problems)
        if data is None:
            continue
        image = _checked_image(PurePosixPath(info.filename).name, data, problems)
        if image is not None:
            found[image.name] = image
    return found


def _checked_image(name: str, data: bytes, problems: list[Problem]) -> PackImage | None:
    """The image a file of the archive holds, cut at its own end; or None and the problem that names it: not an
    image, a canvas or a frame over MAX_SIDE, too many frames, more bytes than its pixels need."""
    facts = inspect_image(data)
    if facts is None:
        problems.append(_error("zip_not_image", f"{shown(name)} is not a PNG, JPEG, GIF or WebP image",
                               name=clipped(name)))
        return None
    if not (0 < facts.width <= MAX_SIDE and 0 < facts.height <= MAX_SIDE):
        problems.append(_error("zip_image_dimensions", f"{shown(name)} is {facts.width}×{facts.height} pixels: at "
                                                       f"most {MAX_SIDE}×{MAX_SIDE}", name=clipped(name),
                               width=facts.width, height=facts.height, max=MAX_SIDE))
        return None
    if facts.frames > MAX_FRAMES:
        problems.append(_error("zip_image_frames", f"{shown(name)} has {facts.frames:,} frames: at most {MAX_FRAMES}",
                               name=clipped(name), n=facts.frames, max=MAX_FRAMES))
        return None
    if facts.end < len(data):  # padding, or another file appended: never stored, never sent to a TV
        extra = len(data) - facts.end
        problems.append(_error("zip_image_trailing", f"{shown(name)}: {math.ceil(extra / 1024):,} KB after the end "
                                                     "of the image, left out", warning=True, name=clipped(name),
                               n=extra, kb=math.ceil(extra / 1024)))
        data = data[:facts.end]
    budget = IMAGE_BYTES_FLOOR + IMAGE_BYTES_PER_PIXEL * facts.pixels
    if len(data) > budget:
        problems.append(_error("zip_image_padded", f"{shown(name)} holds {math.ceil(len(data) / 1024):,} KB, more "
                                                   f"than an image of its pixels needs (at most {budget // 1024:,} "
                                                   "KB): refused as padded", name=clipped(name),
                               kb=math.ceil(len(data) / 1024), max_kb=budget // 1024))
        return None
    return PackImage(name, facts.media_type, data)


@dataclass(frozen=True)
class ImageFacts:
    """What ``inspect_image`` read of an image: its media type; the width and height a decoder must make room for
    (the canvas and every frame, wherever a frame reaches); its number of frames (1 for a still image) and their
    pixels summed; and ``end``, where the image's own bytes end (anything after it is not part of the image)."""

    media_type: str
    width: int
    height: int
    frames: int
    pixels: int
    end: int


def image_size(data: bytes) -> tuple[str, int, int] | None:
    """(media type, width, height) of a PNG, JPEG, GIF or WebP image (``inspect_image``); None if the bytes are
    not a whole one of those."""
    facts = inspect_image(data)
    return None if facts is None else (facts.media_type, facts.width, facts.height)


def inspect_image(data: bytes) -> ImageFacts | None:
    """The facts of a PNG (or APNG), JPEG, GIF or WebP image, from a walk over all of its structure that reads every
    frame's header and decodes no pixel; None if the bytes are not a whole image of those types. Every step of a walk
    moves forward: linear time, whatever the bytes."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png(data)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return _gif(data)
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data)
    return None


class _Frames:
    """The canvas and the frames met so far, as ``ImageFacts`` counts them."""

    def __init__(self, width: int, height: int):
        self.canvas = (width, height)
        self.width, self.height, self.count, self.pixels = width, height, 0, 0

    def add(self, left: int, top: int, width: int, height: int) -> None:
        self.count += 1
        self.pixels += width * height
        self.reach(left + width, top + height)

    def reach(self, width: int, height: int) -> None:
        self.width, self.height = max(self.width, width), max(self.height, height)

    def facts(self, media_type: str, end: int) -> ImageFacts:
        return ImageFacts(media_type, self.width, self.height, max(self.count, 1),
                          max(self.pixels, self.canvas[0] * self.canvas[1]), end)


def _png(data: bytes) -> ImageFacts | None:
    """A PNG's chunks up to IEND; an APNG's frames are its fcTL chunks (offset and size of each)."""
    if len(data) < 33 or data[12:16] != b"IHDR":
        return None
    frames = _Frames(*struct.unpack(">II", data[16:24]))
    at = 8
    while at + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        if at + 12 + length > len(data):
            return None
        if kind == b"fcTL":
            if length < 26:
                return None
            width, height, left, top = struct.unpack(">IIII", data[at + 12:at + 28])
            frames.add(left, top, width, height)
        at += 12 + length
        if kind == b"IEND":
            return frames.facts("image/png", at)
    return None


def _gif(data: bytes) -> ImageFacts | None:
    """A GIF's blocks up to its trailer (or to the end of the bytes, as browsers show one without it); its frames
    are its image descriptors."""
    if len(data) < 13:
        return None
    width, height, flags = struct.unpack("<HHB", data[6:11])
    frames = _Frames(width, height)
    at: int | None = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while at is not None and at < len(data):
        block = data[at]
        if block == 0x3B:  # the trailer
            return frames.facts("image/gif", at + 1)
        if block == 0x21:  # an extension: its label, then sub-blocks
            at = _sub_blocks(data, at + 2)
        elif block == 0x2C:  # an image descriptor, its colour table, the LZW code size, then sub-blocks
            if at + 10 > len(data):
                return None
            left, top, width, height, flags = struct.unpack("<HHHHB", data[at + 1:at + 10])
            frames.add(left, top, width, height)
            at = _sub_blocks(data, at + 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0) + 1)
        else:
            return None
    return None if at is None or at > len(data) else frames.facts("image/gif", len(data))


def _sub_blocks(data: bytes, at: int) -> int | None:
    """Where a GIF's run of sub-blocks (each its size, then that many bytes; a size 0 ends it) ends; None if the
    bytes end first."""
    while at < len(data):
        size = data[at]
        at += 1 + size
        if size == 0:
            return at
    return None


JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(data: bytes) -> ImageFacts | None:
    """A JPEG's segments and scans up to EOI; its size is in its frame header (SOFn), which comes before the first
    scan."""
    frames: _Frames | None = None
    at = 2
    while at + 2 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == 0xD9:  # end of image
            return None if frames is None else frames.facts("image/jpeg", at + 2)
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        if marker == 0xD8 or at + 4 > len(data):
            return None
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if length < 2 or at + 2 + length > len(data):
            return None
        if marker in JPEG_FRAMES:
            if length < 7:
                return None
            height, width = struct.unpack(">HH", data[at + 5:at + 9])
            if frames is None:
                frames = _Frames(width, height)
            frames.reach(width, height)
        at += 2 + length
        if marker == 0xDA:  # start of scan: its coded data runs to the next marker
            if frames is None:
                return None
            found = _next_marker(data, at)
            if found is None:
                return None
            at = found
    return None


def _next_marker(data: bytes, at: int) -> int | None:
    """The next marker after a JPEG scan's coded data, in which 0xFF is followed by 0 (a stuffed byte), a restart
    marker or another 0xFF (fill)."""
    while True:
        at = data.find(b"\xff", at)
        if at < 0 or at + 1 >= len(data):
            return None
        following = data[at + 1]
        if following == 0 or 0xD0 <= following <= 0xD7:
            at += 2
        elif following == 0xFF:
            at += 1
        else:
            return at


def _webp(data: bytes) -> ImageFacts | None:
    """A WebP's chunks, as many bytes as its RIFF header says: the canvas (VP8X), every frame (ANMF: offset and
    size) and every bitstream's own size (VP8, VP8L), in a frame or not."""
    end = 8 + struct.unpack("<I", data[4:8])[0]
    chunks = _riff_chunks(data, 12, end)
    if chunks is None:
        return None
    frames: _Frames | None = None
    bitstreams: list[tuple[int, int]] = []
    for kind, at, length in chunks:
        if kind == b"VP8X" and length >= 10:
            frames = _Frames(int.from_bytes(data[at + 4:at + 7], "little") + 1,
                             int.from_bytes(data[at + 7:at + 10], "little") + 1)
        elif kind in (b"VP8 ", b"VP8L"):
            bitstreams.append(_bitstream(kind, data[at:at + length]) or (0, 0))
        elif kind == b"ANMF":
            inner = _riff_chunks(data, at + 16, at + length) if length >= 16 else None
            if frames is None or inner is None:
                return None
            left, top, width, height = (int.from_bytes(data[at + i:at + i + 3], "little") for i in (0, 3, 6, 9))
            frames.add(2 * left, 2 * top, width + 1, height + 1)
            bitstreams += [_bitstream(k, data[a:a + n]) or (0, 0) for k, a, n in inner if k in (b"VP8 ", b"VP8L")]
    if not bitstreams or (0, 0) in bitstreams:
        return None
    if frames is None:
        frames = _Frames(*bitstreams[0])
    for width, height in bitstreams:
        frames.reach(width, height)
    return frames.facts("image/webp", end)


def _riff_chunks(data: bytes, at: int, end: int) -> list[tuple[bytes, int, int]] | None:
    """(kind, offset of its bytes, length) of each RIFF chunk from ``at`` to ``end``; None if one runs past it."""
    if end > len(data):
        return None
    chunks = []
    while at + 8 <= end:
        kind, length = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        if at + 8 + length > end:
            return None
        chunks.append((kind, at + 8, length))
        at += 8 + length + (length & 1)
    return chunks


def _bitstream(kind: bytes, body: bytes) -> tuple[int, int] | None:
    """The width and height a VP8 (lossy) or VP8L (lossless) bitstream says it has."""
    if kind == b"VP8 " and len(body) >= 10 and body[3:6] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", body[6:10])
        return width & 0x3FFF, height & 0x3FFF
    if kind == b"VP8L" and len(body) >= 5 and body[0] == 0x2F:
        bits = struct.unpack("<I", body[1:5])[0]
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
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
