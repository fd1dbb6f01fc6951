"""The bot in the reader's language (issue 27): the command tree's translator and the
marker functions of the adapter's sentences.

- ``GardenTranslator`` is discord.py's ``app_commands.Translator``: when the commands are
  synced, it gives Discord the German (or any catalogued) names, descriptions, option names
  and choice names, from the catalogue entries whose context (``msgctxt``) is where the
  string sits: ``command name``, ``parameter description``, ``choice name`` ...
- ``use(interaction)`` picks the locale of an interaction (the user's Discord language,
  then the server's, then English: ``bot.i18n.negotiate``) and makes it the current one for
  the rest of the task that handles it; ``answers.stamp`` calls it, so every command and
  button has it before it says anything. The outbox's posts (no interaction) use the
  server's language (``use_locale``).
- ``_("...", name=value)`` translates a sentence into the current locale now; ``N_`` marks
  a module constant for the catalogue, translated where it is said (``_(CONSTANT)``);
  ``ngettext`` picks singular or plural. ``tests/bot/test_translations.py`` checks that the
  adapter's sentences go through these, and that the catalogues have every one.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot import i18n
from bot.i18n import N_ as N_
from bot.service.live import variant_title

Interaction = discord.Interaction[Any]


def context_name(location: app_commands.TranslationContextLocation) -> str:
    """The catalogue's ``msgctxt`` for a place in the command tree: ``command name`` ..."""
    return location.name.replace("_", " ")


class GardenTranslator(app_commands.Translator):
    """Command names, descriptions, options and choices from the message catalogues."""

    async def load(self) -> None:
        """Compile every catalogue now (``set_translator`` in ``setup_hook``), not during
        the first interaction in that language (Babel's import and compile: ~80 ms)."""
        for locale in i18n.available():
            i18n.translations(locale)

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = i18n.negotiate(locale.value)
        if language == i18n.DEFAULT:
            return None  # the tree is written in English
        key = string.extras.get(VARIANT_EXTRA)
        if key is not None:  # a variant's name: said as everywhere else (variant_name)
            text = i18n.render(language, variant_title(key))
        else:
            text = i18n.pgettext(language, context_name(context.location), string.message)
        return None if text == string.message else text


# A choice whose name is a variant's carries the variant's key under this name
# (``variant_choice``): the translator says it as ``variant_name`` does, from the
# variant's own catalogue entry rather than a second one for the command tree.
VARIANT_EXTRA = "cg_variant"


def variant_name(key: str) -> str:
    """A variant's name in the current locale: the one way the adapter says it (the
    service's ``variant_title``, the rules' own ``N_`` entry, rendered here)."""
    return i18n.render(None, variant_title(key))


def variant_choice(key: str) -> app_commands.Choice[str]:
    """A command's choice of ``key``: its name is the variant's, translated when the tree
    is synced by the same catalogue entry as ``variant_name``."""
    title = variant_title(key)
    return app_commands.Choice(
        name=app_commands.locale_str(title, **{VARIANT_EXTRA: key}), value=key
    )


def locale_of(interaction: Interaction) -> str:
    """The catalogue for this interaction: the user's language, else the server's, else
    English (``bot.i18n.negotiate``)."""
    user = interaction.locale.value if interaction.locale is not None else None
    guild = interaction.guild_locale.value if interaction.guild_locale is not None else None
    return i18n.negotiate(user, guild)


def use(interaction: Interaction) -> str:
    """Make the interaction's locale the current one for the rest of this task; the
    pictures it posts in a channel speak the server's language (``public_locale``)."""
    locale = locale_of(interaction)
    interaction.extras["cg_locale"] = locale
    i18n.set_current(locale)
    i18n.set_pictures(public_locale(interaction))
    return locale


def public_locale(interaction: Interaction) -> str:
    """The language of what the interaction posts for everyone in a server: the server's
    (``guild_locale``), else (a direct message) the user's, else English."""
    if interaction.guild_locale is not None:
        return i18n.negotiate(interaction.guild_locale.value)
    return locale_of(interaction)


def use_locale(tag: str | discord.Locale | None) -> str:
    """The current locale for work without an interaction (an outbox post): a server's
    preferred locale, negotiated; English without one."""
    value = tag.value if isinstance(tag, discord.Locale) else tag
    locale = i18n.negotiate(value)
    i18n.set_current(locale)
    i18n.set_pictures(locale)
    return locale


def _(msgid: str, /, **params: Any) -> str:
    """``msgid`` in the current locale, with ``params`` filled in."""
    return i18n.gettext(None, msgid, **params)


def ngettext(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The singular or plural sentence for ``n`` in the current locale (``{n}`` is ``n``)."""
    return i18n.ngettext(None, singular, plural, n, **params)


def command_name(name: str) -> str:
    """A command's name as the current locale's users see it (for /help and sentences)."""
    return i18n.pgettext(None, "command name", name)


def command_description(text: str) -> str:
    return i18n.pgettext(None, "command description", text)


def colour_word(side: str | None) -> str:
    """``white``/``black`` in words of the current locale."""
    if side == "white":
        return _("white")
    if side == "black":
        return _("black")
    return side or ""
