"""Game pages on the web (issue 28): watch, replay and verify any game in a browser.

``bot.links`` (stdlib only) makes and checks the capability links;
``game_page_url(game_id)`` is the address a "Watch" button points at (``None`` when this
process serves no pages). ``bot.web.app`` is the aiohttp server (``WebServer``, ``Site``),
``bot.web.state`` reads games through ``GameService``, ``bot.web.live`` fans live
events out, ``bot.web.listing`` keeps which servers list their live games, and
``bot.web.cli`` adds ``chessgarden web``, ``link`` and ``verify-record``.

Importing this package loads neither aiohttp nor Jinja2: ``start_from_env`` imports them
when the pages are wanted.
"""

from __future__ import annotations

from bot.links import game_page_url, guild_list_url

__all__ = ["game_page_url", "guild_list_url"]
