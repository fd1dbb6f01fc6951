"""The bot's cogs: games (play and act), info (rules, history, games, verify), dice (/roll),
standings (leaderboard, profile), help (/help), settings (/settings, /prefs), analyse
(/analyse), tournament (/tournament, issue 30).

Each module has ``async def setup(bot)`` so ``ChessGardenBot.setup_hook`` loads it with
``load_extension``.
"""

from __future__ import annotations

EXTENSIONS = (
    "bot.discord.cogs.game",
    "bot.discord.cogs.info",
    "bot.discord.cogs.dice",
    "bot.discord.cogs.standings",
    "bot.discord.cogs.help",
    "bot.discord.cogs.settings",
    "bot.discord.cogs.analyse",
    "bot.discord.cogs.tournament",
)
