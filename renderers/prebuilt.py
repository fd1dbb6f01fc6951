"""Drawings kept on disk between runs, so that a restarted bot makes its first pictures
without drawing its sprites and empty boards again (issue 12: the first pictures after a
restart).

What is kept: the piece icons of squares, the strip and the bars, dice faces, value
badges, and each board's empty picture. Each is a pure function of its arguments and of
the renderer's code, and each file is found by a hash of both: the arguments' ``repr``
and the renderer's fingerprint (the source of every module of this package, and the
versions of Pillow and FreeType that draw them). So a changed renderer, theme or Pillow
never reads an old drawing: it finds no file, draws afresh, and writes the new file.

Where: the directory ``CHESSGARDEN_RENDER_CACHE`` names (``off`` turns the cache off),
else ``$XDG_CACHE_HOME/chessgarden/render``, else ``~/.cache/chessgarden/render``. Under
it, one directory per fingerprint, ``render-<16 hex digits>``; directories of other
fingerprints untouched for ``STALE_DAYS`` are removed when this one is first written.

Safety: nothing is ever downloaded. A file that is missing, unreadable, truncated or
corrupt counts as missing: it is checked (the magic, the key's hash, zlib's Adler-32 and
the image sizes) and the drawing is made afresh and written again. A file is written to
a temporary name and then renamed, so a reader never sees half of one, and two processes
writing the same entry both leave a whole file. If the directory cannot be made or
written, this process stops writing to it and draws as if there were no cache. At most
``MAX_ENTRIES`` files are written per fingerprint (sizes other than the bot's add
entries).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import logging
import os
import re
import struct
import threading
import time
import zlib
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TypeVar

import PIL
from PIL import Image, features

log = logging.getLogger(__name__)

ENV = "CHESSGARDEN_RENDER_CACHE"
OFF = "off"
MAGIC = b"CGRC1\n"
MAX_ENTRIES = 4000
STALE_DAYS = 7
_DIR = re.compile(r"render-[0-9a-f]{16}")
_HEAD = struct.Struct(">4sII")  # mode, width, height of one image
_MODES = ("L", "RGB", "RGBA")  # a palette image is kept as its indices ("L")

_lock = threading.Lock()
_unwritable: set[Path] = set()  # directories this process failed to write
_written: dict[Path, int] = {}  # files in each directory (counted once, then kept up)


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """A hash of everything a drawing depends on besides its arguments; '' when the
    renderer's sources cannot be read (then nothing is kept: a stale drawing could not
    be told from a fresh one)."""
    h = hashlib.sha256()
    h.update(f"Pillow {PIL.__version__} FreeType {features.version('freetype2')}".encode())
    try:
        here = Path(__file__).parent
        sources = sorted(here.glob("*.py")) + sorted(here.glob("fonts/*.ttf"))  # and the fonts
        for path in sources:
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    except OSError:
        return ""
    return h.hexdigest() if sources else ""


def directory() -> Path | None:
    """This fingerprint's directory, or None when the cache is off."""
    where = os.environ.get(ENV)
    if where is not None and where.strip().lower() in (OFF, ""):
        return None
    if not fingerprint():
        return None
    if where:
        root = Path(where).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = Path(base) / "chessgarden" / "render"
    return root / f"render-{fingerprint()[:16]}"


def canonical(value: object) -> object:
    """``value`` with every set sorted and every dataclass spelled out as a tuple, so that
    its ``repr`` is the same in every process (a set's order follows the string hashes,
    which change from run to run)."""
    if dataclasses.is_dataclass(value) and isinstance(value, Hashable):
        try:
            return _canonical_value(value)  # a frozen dataclass (a theme): worked out once
        except TypeError:  # not hashable
            pass
    return _canonical(value)


@functools.lru_cache(maxsize=256)
def _canonical_value(value: Hashable) -> object:
    return _canonical(value)


def _canonical(value: object) -> object:
    if isinstance(value, (frozenset, set)):
        return ("set", tuple(sorted((canonical(v) for v in value), key=repr)))
    if isinstance(value, (tuple, list)):
        return tuple(canonical(v) for v in value)
    if isinstance(value, dict):
        return (
            "dict",
            tuple(sorted(((canonical(k), canonical(v)) for k, v in value.items()), key=repr)),
        )
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (
            type(value).__name__,
            tuple((f.name, canonical(getattr(value, f.name))) for f in fields),
        )
    return value


def digest(key: object) -> str:
    """A short stable name for a large key (hex), to use inside other keys."""
    return hashlib.sha256(repr(canonical(key)).encode()).hexdigest()[:32]


def _entry(name: str, key: object) -> tuple[str, bytes]:
    text = f"{fingerprint()}\0{name}\0{canonical(key)!r}"
    digest = hashlib.sha256(text.encode()).digest()
    return f"{name}-{digest[:12].hex()}.bin", digest


def load(name: str, key: object) -> list[Image.Image] | None:
    """The images kept under (``name``, ``key``), or None when there are none (or the
    file is not whole)."""
    body = load_bytes(name, key)
    if body is None:
        return None
    try:
        return _images(body)
    except (ValueError, struct.error) as error:
        log.info("ignoring a damaged render cache entry %s: %s", name, error)
        return None


def save(name: str, key: object, images: Sequence[Image.Image]) -> None:
    """Keep ``images`` under (``name``, ``key``); never raises."""
    try:
        body = _image_bytes(images)
    except ValueError as error:
        log.info("not keeping %s: %s", name, error)
        return
    save_bytes(name, key, body)


def load_bytes(name: str, key: object) -> bytes | None:
    """The bytes kept under (``name``, ``key``), or None."""
    where = directory()
    if where is None:
        return None
    filename, digest = _entry(name, key)
    try:
        blob = (where / filename).read_bytes()
    except OSError:
        return None
    if not blob.startswith(MAGIC) or blob[len(MAGIC) : len(MAGIC) + 32] != digest:
        log.info("ignoring the render cache file %s: not this entry", filename)
        return None
    try:
        return zlib.decompress(blob[len(MAGIC) + 32 :])  # checks the Adler-32
    except zlib.error as error:
        log.info("ignoring the damaged render cache file %s: %s", filename, error)
        return None


def save_bytes(name: str, key: object, body: bytes) -> None:
    """Keep ``body`` under (``name``, ``key``); never raises."""
    where = directory()
    if where is None or where in _unwritable:
        return
    filename, digest = _entry(name, key)
    try:
        with _lock:
            count = _written.get(where)
            if count is None:
                where.mkdir(parents=True, exist_ok=True)
                count = sum(1 for _ in where.glob("*.bin"))
                _prune(where.parent, where.name)
            if count >= MAX_ENTRIES:
                return
            _written[where] = count + 1
        tmp = where / f".{filename}.{os.getpid()}.{threading.get_ident()}.tmp"
        tmp.write_bytes(MAGIC + digest + zlib.compress(body, 1))
        os.replace(tmp, where / filename)
    except OSError as error:
        with _lock:
            _unwritable.add(where)
        log.info("not keeping drawings in %s: %s", where, error)


def _image_bytes(images: Sequence[Image.Image]) -> bytes:
    body = bytearray(struct.pack(">I", len(images)))
    for im in images:
        if im.mode not in _MODES:
            raise ValueError(f"cannot keep a {im.mode} image")
        body += _HEAD.pack(im.mode.encode().ljust(4), im.width, im.height)
        body += im.tobytes()
    return bytes(body)


def _images(body: bytes) -> list[Image.Image]:
    (count,) = struct.unpack_from(">I", body)
    at = 4
    out = []
    for _ in range(count):
        raw_mode, width, height = _HEAD.unpack_from(body, at)
        at += _HEAD.size
        mode = raw_mode.decode().strip()
        if mode not in _MODES:
            raise ValueError(f"unknown mode {mode!r}")
        size = width * height * len(mode)
        if at + size > len(body):
            raise ValueError("truncated")
        out.append(Image.frombytes(mode, (width, height), body[at : at + size]))
        at += size
    if at != len(body):
        raise ValueError("trailing bytes")
    return out


def _prune(root: Path, keep: str) -> None:
    """Remove other fingerprints' directories nobody wrote to for ``STALE_DAYS``."""
    cutoff = time.time() - STALE_DAYS * 86400
    try:
        others = [p for p in root.iterdir() if _DIR.fullmatch(p.name) and p.name != keep]
    except OSError:
        return
    for old in others:
        try:
            if old.stat().st_mtime > cutoff:
                continue
            for f in old.iterdir():
                if f.suffix in (".bin", ".tmp"):
                    f.unlink()
            old.rmdir()
        except OSError:
            continue


def reset() -> None:
    """Forget what this process learnt about the cache directories (for tests)."""
    with _lock:
        _unwritable.clear()
        _written.clear()


F = TypeVar("F", bound=Callable[..., Image.Image])


def kept(name: str) -> Callable[[F], F]:
    """Decorate a pure function that returns one image: its result is read from the
    cache when kept there, else drawn and kept. Place it under ``lru_cache``."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def cached(*args: object) -> Image.Image:
            found = load(name, args)
            if found is not None and len(found) == 1:
                return found[0]
            im = fn(*args)
            save(name, args, [im])
            return im

        return cached  # type: ignore[return-value]

    return wrap
