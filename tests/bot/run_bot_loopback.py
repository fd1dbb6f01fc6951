"""Start the real ``chessgarden run`` against the loopback fake Discord (``loopback_discord``).

Product code has no test hook; this launcher points discord.py at the fake before the
bot starts, then calls the entry point exactly as the ``chessgarden`` script does:

- ``discord.http.Route.BASE`` (every REST request, interaction callbacks included) is
  ``$LOOPBACK_DISCORD_URL/api/v10``;
- ``DiscordWebSocket.DEFAULT_GATEWAY`` is the fake's ``ws://`` URL: an unsharded client
  never asks ``GET /gateway/bot`` and connects to that constant (a sharded one asks, and
  the fake answers with the same URL);
- any name other than the loopback addresses is refused by ``socket.getaddrinfo``, and
  said so on stderr, so nothing but 127.0.0.1 can be contacted;
- discord.py's wait for more servers after the last GUILD_CREATE (``guild_ready_timeout``,
  2 s, for Discord streaming thousands of them) is 0.5 s: the fake sends its one server
  right after READY, so the 2 s were idle at every start of every test's bot.

The rest of the settings come from the environment as usual: ``DISCORD_TOKEN``,
``CHESSGARDEN_DB``, ``CHESSGARDEN_METRICS_PORT``, ... Arguments go to ``chessgarden run``.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _guard_network() -> None:
    real = socket.getaddrinfo

    def loopback_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and name not in LOOPBACK:
            print(f"loopback: refused to resolve {name!r}", file=sys.stderr, flush=True)
            raise socket.gaierror(socket.EAI_NONAME, f"{name} is not reachable in this test")
        return real(host, *args, **kwargs)

    socket.getaddrinfo = loopback_only


GUILD_READY_S = 0.5


def _shorten_guild_wait(state: Any) -> None:
    real = state.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        real(self, *args, **kwargs)
        self.guild_ready_timeout = min(self.guild_ready_timeout, GUILD_READY_S)

    state.__init__ = init


def main() -> int:
    base = os.environ["LOOPBACK_DISCORD_URL"].rstrip("/")
    _guard_network()
    import discord.gateway
    import discord.http
    import discord.state
    import yarl

    discord.http.Route.BASE = base + "/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        base.replace("http://", "ws://", 1) + "/gateway"
    )
    _shorten_guild_wait(discord.state.ConnectionState)
    from bot.cli import main as chessgarden

    return chessgarden(["run", *sys.argv[1:]])


if __name__ == "__main__":  # worker processes import this module: guard, as the CLI does
    raise SystemExit(main())
