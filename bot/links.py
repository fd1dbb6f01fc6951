"""Capability links: a game's page address is its id and an HMAC of the id under the
server's secret, so nobody can reach a game by counting ids (issue 28).

Stdlib only: the Discord layer may ask for a game's address (``game_page_url``) without
loading aiohttp. The secret comes from ``CHESSGARDEN_WEB_SECRET`` or, failing that, from
a file made once beside the store (``<db>.web-secret``, mode 0600). It is never logged
and never shown: ``Links.__repr__`` hides it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path

SECRET_VAR = "CHESSGARDEN_WEB_SECRET"
PUBLIC_URL_VAR = "CHESSGARDEN_PUBLIC_URL"
DB_VAR = "CHESSGARDEN_DB"
DEFAULT_DB = "chessgarden.sqlite3"
SECRET_SUFFIX = ".web-secret"
MIN_SECRET = 16  # characters of a secret given in the environment

MAC_CHARS = 26  # base32 characters of the HMAC kept in a link: 130 bits
_TOKEN = re.compile(r"([1-9][0-9]{0,17})-([a-z2-7]{" + str(MAC_CHARS) + "})")


class LinkError(ValueError):
    """The secret cannot be read or made; one line saying why."""


@dataclass(frozen=True)
class Links:
    """Makes and checks the capability tokens of games (``g``) and of servers' live
    game lists (``s``). ``public_url``: the address users reach, without a final slash."""

    secret: bytes = field(repr=False)
    public_url: str = ""

    def _mac(self, kind: str, number: int) -> str:
        digest = hmac.new(self.secret, f"chessgarden:{kind}:{number}".encode(), hashlib.sha256)
        return base64.b32encode(digest.digest()).decode().lower()[:MAC_CHARS]

    def game_token(self, game_id: int) -> str:
        return f"{game_id}-{self._mac('game', game_id)}"

    def guild_token(self, guild_id: int) -> str:
        return f"{guild_id}-{self._mac('guild', guild_id)}"

    def game_of(self, token: str) -> int | None:
        """The game id a token names, or ``None`` for a token this server did not make."""
        return self._check("game", token)

    def guild_of(self, token: str) -> int | None:
        return self._check("guild", token)

    def _check(self, kind: str, token: str) -> int | None:
        match = _TOKEN.fullmatch(token)
        if match is None:
            return None
        number = int(match.group(1))
        if not hmac.compare_digest(self._mac(kind, number), match.group(2)):
            return None
        return number

    def game_path(self, game_id: int) -> str:
        return f"/g/{self.game_token(game_id)}"

    def guild_path(self, guild_id: int) -> str:
        return f"/s/{self.guild_token(guild_id)}"

    def game_url(self, game_id: int) -> str:
        return self.public_url + self.game_path(game_id)

    def guild_url(self, guild_id: int) -> str:
        return self.public_url + self.guild_path(guild_id)


def secret_path(db: str | os.PathLike[str] | None) -> Path:
    """Where the secret file lives: beside a SQLite store; for a PostgreSQL URL, in the
    working directory."""
    name = str(db) if db is not None else os.environ.get(DB_VAR) or DEFAULT_DB
    if "://" in name:
        return Path("chessgarden" + SECRET_SUFFIX)
    return Path(name + SECRET_SUFFIX)


def load_secret(
    db: str | os.PathLike[str] | None = None, *, env: dict[str, str] | None = None
) -> bytes:
    """The server secret: ``$CHESSGARDEN_WEB_SECRET``, else the file beside the store,
    made with 32 random bytes (mode 0600) the first time."""
    environ = os.environ if env is None else env
    given = environ.get(SECRET_VAR, "").strip()
    if given:
        if len(given) < MIN_SECRET:
            raise LinkError(f"{SECRET_VAR} is too short: use at least {MIN_SECRET} characters")
        return given.encode()
    path = secret_path(db)
    try:
        if not path.exists():
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32) + "\n")
        text = path.read_text().strip()
    except FileExistsError:  # another process made it a moment ago
        text = path.read_text().strip()
    except OSError as error:
        raise LinkError(f"cannot read or make the web secret {path}: {error.strerror}") from None
    if len(text) < MIN_SECRET:
        raise LinkError(f"the web secret {path} is too short; delete it to make a new one")
    return text.encode()


def public_url(env: dict[str, str] | None = None, default: str = "") -> str:
    """``$CHESSGARDEN_PUBLIC_URL`` without its final slash (``default`` when unset)."""
    environ = os.environ if env is None else env
    return (environ.get(PUBLIC_URL_VAR, "").strip() or default).rstrip("/")


# The links of this process, set when its web server starts (``configure``).
_current: Links | None = None


def configure(links: Links | None) -> None:
    global _current
    _current = links


def current_links() -> Links | None:
    return _current


def game_page_url(game_id: int) -> str | None:
    """The address of a game's web page, for a "Watch" button; ``None`` when this
    process serves no web pages (``CHESSGARDEN_WEB`` unset) or knows no public address."""
    links = _current
    if links is None or not links.public_url:
        return None
    return links.game_url(game_id)


def guild_list_url(guild_id: int) -> str | None:
    """The address of a server's live games page (``/settings web_list``), or ``None``."""
    links = _current
    if links is None or not links.public_url:
        return None
    return links.guild_url(guild_id)
