"""The console front end and the command-line tools (ARCHITECTURE.md: imports
``bot.service`` and below, never another front end)."""
