"""Which servers list their live games on the web (issue 28): the server's own setting,
``web_list``, that its moderators turn on with ``/settings web_list:True``
(``bot.service.settings``, stored and logged with the other settings). Nothing is listed
unless a server said so; a game of any other server is reachable by its own link only.
"""

from __future__ import annotations

from bot.service import GameService
from bot.web.app import IsListed


def listed_by_settings(service: GameService) -> IsListed:
    """``is_listed(guild_id)`` for ``bot.web.app.Site``: the server's ``web_list``."""

    async def is_listed(guild_id: int) -> bool:
        return (await service.server_settings.of_guild(guild_id)).web_list

    return is_listed
