"""Chess Garden's front ends: the discord.py adapter and the local console.

``bot.service`` is the transport-agnostic core; it never imports discord.
"""
