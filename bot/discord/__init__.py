"""The Discord front end: the bot, its cogs, views and flows, and the delivery of the
outbox (ARCHITECTURE.md: imports ``bot.service`` and below, never another front end)."""
