"""``chessgarden web``, ``chessgarden link`` and ``chessgarden verify-record``, and the
web server's start inside ``chessgarden run`` (``start_from_env``: ``CHESSGARDEN_WEB``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.links import PUBLIC_URL_VAR, LinkError, Links, configure, load_secret, public_url

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.web.app import WebServer

WEB_VAR = "CHESSGARDEN_WEB"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
POLL_S = 2.0  # `chessgarden web`: how often watched games are read for moves made elsewhere


class WebSettingsError(ValueError):
    """``CHESSGARDEN_WEB`` or the secret is wrong; one line."""


def add_subcommands(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "web",
        help="serve the games' web pages (watch, replay, verify), without Discord",
        description=(
            "Serve every stored game's page at its capability link (see `chessgarden link`). "
            f"{PUBLIC_URL_VAR} is the address users reach (default: http://HOST:PORT). "
            "Moves made by another process appear within a few seconds."
        ),
    )
    _add_db(p)
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on ({DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port ({DEFAULT_PORT})")
    p.set_defaults(func=main_web)

    p = subparsers.add_parser("link", help="print a game's web page address")
    p.add_argument("id", type=int, help="the game id")
    _add_db(p)
    p.set_defaults(func=main_link)

    p = subparsers.add_parser(
        "verify-record",
        help="check a downloaded game record's dice against its seed, offline",
        description=(
            "Offline: check that the record's [Seed] hashes to its [Commitment], and that "
            "its actions, played on that seed's dice, draw exactly the rolls it shows."
        ),
    )
    p.add_argument("file", help="the record downloaded from the game's page ('-': stdin)")
    p.set_defaults(func=main_verify_record)


def _add_db(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=None,
        metavar="PATH",
        help="SQLite file or postgresql:// URL (default: $CHESSGARDEN_DB or ./chessgarden.sqlite3)",
    )


def _links(db: str | os.PathLike[str] | None, default_url: str) -> Links:
    return Links(load_secret(db), public_url(default=default_url))


# ----- link ---------------------------------------------------------------------------


def main_link(args: argparse.Namespace) -> int:
    return asyncio.run(_link(args))


async def _link(args: argparse.Namespace) -> int:
    from bot.service import GameService, ServiceError
    from storage import StoreOpenError

    try:
        links = _links(args.db, f"http://{DEFAULT_HOST}:{DEFAULT_PORT}")
        service = await GameService.open(args.db, cpu_workers=1)
    except (LinkError, StoreOpenError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        await service.view(game_id=args.id)
    except ServiceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        await service.close()
    print(links.game_url(args.id))
    return 0


# ----- verify-record ----------------------------------------------------------------


def main_verify_record(args: argparse.Namespace) -> int:
    from bot.web.proof import check_record

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(
            f"error: cannot read {args.file}: {getattr(error, 'strerror', None) or error}",
            file=sys.stderr,
        )
        return 2
    check = check_record(text)
    for line in check.lines:
        print(line)
    return 0 if check.ok else 1


# ----- web ------------------------------------------------------------------------------


def main_web(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        print("error: --port must be between 0 and 65535", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_web(args))
    except KeyboardInterrupt:
        return 0


async def _web(args: argparse.Namespace) -> int:
    from bot.service import GameService
    from storage import StoreOpenError

    try:
        service = await GameService.open(args.db)
    except StoreOpenError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    try:
        server = await start_server(service, args.db, args.host, args.port, poll_s=POLL_S)
    except WebSettingsError as error:
        await service.close()
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"serving game pages on http://{args.host}:{server.port} (Ctrl-C stops)", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await server.stop()
        await service.close()
    return 0


def parse_address(text: str) -> tuple[str, int]:
    """``host:port`` (``CHESSGARDEN_WEB``); a bare port listens on 127.0.0.1."""
    host, _, port = text.strip().rpartition(":")
    host = host.strip("[]") or DEFAULT_HOST
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise WebSettingsError(f"{WEB_VAR} must be host:port, such as 127.0.0.1:8080")
    return host, int(port)


async def start_server(
    service: GameService,
    db: str | os.PathLike[str] | None,
    host: str,
    port: int,
    *,
    poll_s: float | None = None,
) -> WebServer:
    """Serve ``service``'s games on ``host:port``; the links are this process's from now
    on (``bot.web.game_page_url``)."""
    from bot.web.app import Site, WebServer
    from bot.web.listing import listed_by_settings

    try:
        links = _links(db, f"http://{host}:{port}")
    except LinkError as error:
        raise WebSettingsError(str(error)) from None
    site = Site(service, links, is_listed=listed_by_settings(service), poll_s=poll_s)
    server = WebServer(site, host, port)
    try:
        await server.start()
    except OSError as error:
        raise WebSettingsError(
            f"cannot serve web pages on {host}:{port}: {error.strerror or error}"
        ) from None
    if not os.environ.get(PUBLIC_URL_VAR) and port == 0:
        links = Links(links.secret, f"http://{host}:{server.port}")
        site.links = links
    configure(links)
    return server


async def start_from_env(
    service: GameService, db: str | os.PathLike[str] | None
) -> WebServer | None:
    """The web server of ``chessgarden run``: started when ``CHESSGARDEN_WEB`` is set,
    else ``None``. Raises ``WebSettingsError`` (a bad address, the port is taken)."""
    address = os.environ.get(WEB_VAR, "").strip()
    if not address:
        return None
    host, port = parse_address(address)
    return await start_server(service, db, host, port)
