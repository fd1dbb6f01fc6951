"""Translate service results into Discord messages, and Discord input into service input.

Nothing here decides a rule: legality, turns and results all come from ``bot.service``.
This module only formats (embeds, files, mentions) and parses (the ``options`` string
of ``/play``, the ranking of autocomplete suggestions).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot import i18n
from bot.discord import timestamps
from bot.discord.translate import N_, _, colour_word
from bot.links import game_page_url
from bot.options import OptionsError as OptionsError
from bot.options import options_text
from bot.options import parse_options as parse_options
from bot.service import (
    COMPUTER_ID,
    GameSummary,
    GameView,
    History,
    Outcome,
    PostFailure,
    ServiceError,
    VerifyReport,
    is_person,
)
from bot.service.tournament_life import is_placeholder
from bot.service.words import reason_word
from storage.chain import short_head

if TYPE_CHECKING:
    from variants import Refusal, Status

BOARD_FILE = "board.png"
DICE_FILE = "dice.png"
PIECES_FILE = "pieces.png"
MAX_CHOICES = 25  # Discord's limit for autocomplete suggestions
MAX_CHOICE_TEXT = 100
MAX_EMBED_TEXT = 4000
MAX_FIELD_TEXT = 1024
MAX_CONTENT = 2000
LEGAL_HINT_COUNT = 30

NO_PINGS = discord.AllowedMentions.none()

COLOUR_ACTIVE = discord.Colour.green()
COLOUR_CHALLENGE = discord.Colour.blurple()
COLOUR_OVER = discord.Colour.gold()
COLOUR_CLOSED = discord.Colour.light_grey()
COLOUR_ERROR = discord.Colour.red()


def mention(user_id: int | None) -> str:
    """How the bot names a user in text: a mention (``label=`` for the service). An id
    that names no person (the computer, a console seat: ``bot.service.is_person``) is
    named in words, never as a mention."""
    if user_id == COMPUTER_ID:
        return _("the computer")
    if user_id is None:
        return _("anyone")
    return f"<@{user_id}>" if is_person(user_id) else _("player {id}", id=user_id)


THINKING = N_("The computer is thinking…")


def computer_words(view: GameView | GameSummary) -> str:
    """``the computer (level 2)`` in a game against it, else ``''``."""
    if view.computer is None:
        return ""
    return _("the computer (level {level})", level=view.computer_level)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


MAX_EMBED_TOTAL = 6000  # Discord: title, description, fields, footer and author together


def fit(embed: discord.Embed) -> discord.Embed:
    """Shorten the description, then the longest field values, until the whole embed fits
    Discord's 6,000 characters (``len(embed)`` counts the way Discord does)."""
    excess = len(embed) - MAX_EMBED_TOTAL
    if excess > 0 and embed.description:
        embed.description = clip(embed.description, max(1, len(embed.description) - excess))
        excess = len(embed) - MAX_EMBED_TOTAL
    while excess > 0 and embed.fields:
        index, longest = max(enumerate(embed.fields), key=lambda pair: len(pair[1].value or ""))
        value = longest.value or ""
        embed.set_field_at(
            index,
            name=longest.name,
            value=clip(value, max(1, len(value) - excess)),
            inline=bool(longest.inline),
        )
        excess = len(embed) - MAX_EMBED_TOTAL
    return embed


# ----- options of /play ---------------------------------------------------------

# ``parse_options``/``OptionsError``/``options_text`` live in ``bot.options`` (no discord),
# so that the console's ``--option`` reads options exactly as ``/play`` does.


# ----- autocomplete -------------------------------------------------------------


def _squash(text: str) -> str:
    """Notation without the decorations the parser forgives: capture marks, checks, dashes."""
    return "".join(ch for ch in text if ch not in "x+#!?- ")


def rank_actions(legal: Sequence[str], typed: str, limit: int = MAX_CHOICES) -> list[str]:
    """The legal actions that match what was typed, best first, at most ``limit``.

    Order: an exact match, then actions starting with the text as typed (case matters:
    ``B`` is a Bishop, ``b`` a file), then starting with it in any case, then containing
    it. Within a group the engine's order is kept. Nothing typed: the first ``limit``.
    """
    wanted = _squash(typed.strip())
    if not wanted:
        return list(legal[:limit])
    lowered = wanted.lower()
    groups: list[list[str]] = [[], [], [], []]
    for action in legal:
        squashed = _squash(action)
        if squashed == wanted:
            groups[0].append(action)
        elif squashed.startswith(wanted):
            groups[1].append(action)
        elif squashed.lower().startswith(lowered):
            groups[2].append(action)
        elif lowered in squashed.lower():
            groups[3].append(action)
    ranked = [action for group in groups for action in group]
    return ranked[:limit]


def legal_hint(legal: Sequence[str], count: int = LEGAL_HINT_COUNT) -> str:
    """``Legal now: e4, d4, … (20 in all).`` for error messages."""
    if not legal:
        return ""
    shown = ", ".join(legal[:count])
    if len(legal) > count:
        return _("Legal now: {actions}, … ({n} in all).", actions=shown, n=len(legal))
    return _("Legal now: {actions}.", actions=shown)


def error_text(error: ServiceError | ValueError, legal: Sequence[str] = ()) -> str:
    """The one-line error, plus what would have been legal when that helps."""
    said = getattr(error, "said", None)  # a sentence the service lets us translate
    text = i18n.render(None, said) if said is not None else str(error) or _("that did not work")
    text = text[0].upper() + text[1:]
    if not text.endswith((".", "!", "?")):
        text += "."
    hint = legal_hint(legal)
    if hint and "legal now" not in text.lower():  # the engine's (English) messages list them
        text = f"{text}\n{hint}"
    return clip(text, MAX_CONTENT)


def refusal_text(refusal: Refusal) -> str:
    """An action the engine refused (contract C2): the rule, in one sentence, with what
    was typed, and the closest legal actions. Not the whole legal list: ``/move``
    suggests every legal action as you type."""
    message = i18n.render(None, refusal.message)  # the rules' sentence, in the reader's language
    text = message[:1].upper() + message[1:]
    typed = refusal.text if len(refusal.text) <= 40 else refusal.text[:37] + "..."
    if typed and refusal.cause != "game-over":
        text += " " + _("(you typed `{typed}`)", typed=typed.replace("`", ""))
    if not text.endswith((".", "!", "?")):
        text += "."
    if refusal.closest:
        closest = ", ".join(f"`{action}`" for action in refusal.closest)
        text += "\n" + _("Closest legal: {actions}.", actions=closest)
    return clip(text, MAX_CONTENT)


def error_embed(text: str) -> discord.Embed:
    return discord.Embed(description=clip(text, MAX_EMBED_TEXT), colour=COLOUR_ERROR)


# ----- Discord's refusals, in words ----------------------------------------------------

# Discord's own names of its permissions (as its settings show them in each language)
PERMISSION_NAMES = {
    "view_channel": N_("View Channel"),
    "send_messages": N_("Send Messages"),
    "send_messages_in_threads": N_("Send Messages in Threads"),
    "create_public_threads": N_("Create Public Threads"),
    "embed_links": N_("Embed Links"),
    "attach_files": N_("Attach Files"),
    "read_message_history": N_("Read Message History"),
    "manage_threads": N_("Manage Threads"),
    "manage_messages": N_("Manage Messages"),
    "manage_guild": N_("Manage Server"),
}


def permission_words(names: Sequence[str]) -> str:
    """``["create_public_threads", "embed_links"]`` -> "Create Public Threads and Embed Links"."""
    words = [
        _(PERMISSION_NAMES[n]) if n in PERMISSION_NAMES else n.replace("_", " ").title()
        for n in names
    ]
    if len(words) <= 1:
        return "".join(words)
    return _("{first} and {last}", first=", ".join(words[:-1]), last=words[-1])


def missing_permissions(perms: discord.Permissions, needed: Sequence[str]) -> list[str]:
    return [name for name in needed if not getattr(perms, name, False)]


def discord_error_text(
    error: discord.HTTPException, *, doing: str | None = None, missing: Sequence[str] = ()
) -> str:
    """A plain sentence for a request Discord refused; never Discord's own API text.

    ``doing`` completes "I can't ...", e.g. "post in that thread" (said in the reader's
    language: the caller passes it translated, ``_("post here")``); ``missing`` names the
    permissions the bot lacks there, when the caller could work them out.
    """
    doing = doing or _("do that")
    code = getattr(error, "code", 0)
    status = getattr(error, "status", 0)
    if code == 50001:
        return _(
            "I can't {doing}: I can't see that channel (I need View Channel there).", doing=doing
        )
    if status == 403 or code == 50013:
        need = permission_words(missing)
        if need:
            return _("I can't {doing}: I need {permissions}.", doing=doing, permissions=need)
        return _(
            "I can't {doing}: Discord says I lack a permission there; check my role.", doing=doing
        )
    if code == 50083:
        return _("I can't {doing}: that thread is archived.", doing=doing)
    if code == 10003:
        return _("I can't {doing}: that channel no longer exists.", doing=doing)
    if code == 10008:
        return _("I can't {doing}: that message no longer exists.", doing=doing)
    if code in (10062, 10015, 50027):
        return _(
            "I can't {doing}: Discord says this interaction has expired; try again.", doing=doing
        )
    if code == 40005 or status == 413:
        return _("I can't {doing}: the file is too large for Discord.", doing=doing)
    if status == 429:
        return _(
            "I can't {doing} right now: Discord asked me to slow down. Try again in a minute.",
            doing=doing,
        )
    if status >= 500:
        return _(
            "I can't {doing} right now: Discord had a problem on its side. Try again in a moment.",
            doing=doing,
        )
    return _("I can't {doing}: Discord refused the request.", doing=doing)


# A request that failed: Discord refused it, or no answer came (a timeout, a reset
# connection: discord.py retries neither past its own few tries, and raises them as is).
REQUEST_FAILURES: tuple[type[BaseException], ...] = (
    discord.HTTPException,
    TimeoutError,
    OSError,
    aiohttp.ClientError,
)


def failure_cause(error: BaseException, missing: Sequence[str] = ()) -> str:
    """Why a request failed, as a clause: "Discord had a problem on its side"."""
    if not isinstance(error, discord.HTTPException):
        if isinstance(error, TimeoutError):
            return _("Discord did not answer in time")
        return _("the connection to Discord failed")
    code = getattr(error, "code", 0)
    status = getattr(error, "status", 0)
    if code == 50001:
        return _("I can't see that channel (I need View Channel there)")
    if status == 403 or code == 50013:
        if missing:
            return _("I need {permissions} there", permissions=permission_words(missing))
        return _("Discord says I lack a permission there")
    if status == 404 or code in (10003, 10008):
        return _("it no longer exists")
    if status == 429:
        return _("Discord asked me to slow down")
    if status >= 500:
        return _("Discord had a problem on its side")
    return _("Discord refused the request")


# ----- dice -----------------------------------------------------------------------


def dice_text(dice: Sequence[int] | None) -> str:
    if not dice:
        return ""
    return " ".join(f"**{value}**" for value in dice)


# ----- messages -----------------------------------------------------------------


def pings(user_ids: Iterable[int | None]) -> discord.AllowedMentions:
    """Mentions that notify exactly these users (and never everyone, roles or spectators).
    Ids that name no person (the computer, a console seat) are left out, whoever asks."""
    chosen = sorted({uid for uid in user_ids if uid is not None and is_person(uid)})
    if not chosen:
        return NO_PINGS
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(u) for u in chosen]
    )


@dataclass
class Post:
    """One message to send: content (mentions), an embed, files and buttons.

    ``ping``: the users its mentions may notify (the player who must act); nobody else is
    pinged, whatever the content says. ``note``: the one private line the caller sees
    when the work was slow and the answer had to be deferred (see ``answers.answer``).
    ``game_id``: the game this message shows, so that its buttons can be retired later.
    """

    embed: discord.Embed
    content: str | None = None
    files: list[discord.File] = field(default_factory=list)
    view: discord.ui.View | None = None
    ephemeral: bool = False
    ping: tuple[int, ...] = ()
    # said in the language of whoever the post answers (made while their locale is current)
    note: str = field(default_factory=lambda: _("Done: posted below."))
    game_id: int | None = None
    is_board: bool = False  # a board (or challenge) whose buttons a newer one replaces
    game_over: bool = False  # the game has ended: its thread may be archived after this
    replace: bool = False  # a button's answer that replaces the message the button was on
    # said privately if Discord refuses the post
    failure: str = field(default_factory=lambda: _("I could not post that."))
    owed: int | None = None  # the outbox row this board settles (``Outcome.owed``, issue 24)

    def kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"embed": fit(self.embed), "allowed_mentions": pings(self.ping)}
        if self.content:
            out["content"] = clip(self.content, MAX_CONTENT)
        if self.files:
            out["files"] = self.files
        if self.view is not None:
            out["view"] = self.view
        if self.ephemeral:
            out["ephemeral"] = True
        return out


def png_file(data: bytes, filename: str) -> discord.File:
    return discord.File(io.BytesIO(data), filename=filename)


def status_colour(view: GameView) -> discord.Colour:
    if view.status == "active":
        return COLOUR_ACTIVE
    if view.status == "challenge":
        return COLOUR_CHALLENGE
    if view.status == "finished":
        return COLOUR_OVER
    return COLOUR_CLOSED


STATUS_WORDS = {
    "challenge": N_("challenge"),
    "active": N_("active"),
    "finished": N_("finished"),
    "aborted": N_("aborted"),
    "declined": N_("declined"),
    "cancelled": N_("cancelled"),
    "expired": N_("expired"),
}


def status_word(status: str) -> str:
    """A game's status in the reader's words (a status the table lacks: as stored)."""
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def result_line(view: GameView) -> str:
    if view.status != "finished":
        return status_word(view.status)
    if view.winner is None:
        outcome = _("draw")
    else:
        outcome = _("{colour} wins", colour=colour_word(view.winner))
    # a reason the service chose is translated (bot.service.words); any other is stored as
    # the rules said it, in English, and the catalogue has the rules' reasons (variants mark
    # them)
    reason = i18n.render(None, reason_word(view.result_reason))
    if reason and reason == view.result_reason:
        reason = i18n.gettext(None, reason)
    return f"{view.result} · {outcome} ({reason})"


def _add_commitment(embed: discord.Embed, commitment: str | None) -> None:
    if not commitment:  # a challenge: no seed is drawn before acceptance
        return
    embed.add_field(
        name=_("Dice commitment (SHA-256 of the secret seed)"),
        value=f"`{commitment}`",
        inline=False,
    )


def add_clock(embed: discord.Embed, view: GameView) -> None:
    """The clock (issue 13): when the side to act runs out of time, as a Discord timestamp."""
    field = timestamps.clock_field(view)
    if field is not None:
        embed.add_field(name=field[0], value=field[1], inline=True)


def board_embed(
    view: GameView,
    messages: Iterable[str],
    *,
    image: bool,
    dice_image: bool,
    show_commitment: bool = False,
    orientation: str | None = None,
    status: Status | None = None,
) -> discord.Embed:
    """The embed of a board message: what happened, who plays, whose move, dice, the
    status in words (``variants.describe``: what the dice allow, what is pending), result."""
    description = "\n".join(i18n.render_all(None, messages)) or _("Game {game}.", game=view.id)
    embed = discord.Embed(
        title=game_title(view),
        description=clip(description, MAX_EMBED_TEXT),
        colour=status_colour(view),
    )
    embed.add_field(name=_("White"), value=mention(view.white_id), inline=True)
    embed.add_field(name=_("Black"), value=mention(view.black_id), inline=True)
    if view.status == "active":
        embed.add_field(
            name=_("To move"),
            value=f"{colour_word(view.turn)} {mention(view.to_move_id)}",
            inline=True,
        )
        if view.dice:
            embed.add_field(name=_("Dice"), value=dice_text(view.dice), inline=True)
        if view.draw_offer:
            embed.add_field(
                name=_("Draw offer"),
                value=_("from {colour}", colour=colour_word(view.draw_offer)),
                inline=True,
            )
        if status is not None and status.lines:
            embed.add_field(name=_(STATUS_FIELD), value=status_text(status), inline=False)
        add_clock(embed, view)
    else:
        embed.add_field(name=_("Result"), value=result_line(view), inline=True)
    if view.last_move:
        embed.add_field(name=_("Last move"), value=view.last_move, inline=True)
    if view.options:
        embed.add_field(name=_("Options"), value=options_text(view.options), inline=True)
    if show_commitment or view.seed is None:
        _add_commitment(embed, view.commitment)
    if view.seed is not None:
        embed.add_field(name=_("Dice seed, revealed"), value=f"`{view.seed}`", inline=False)
    if image:
        embed.set_image(url=f"attachment://{BOARD_FILE}")
    if dice_image:
        embed.set_thumbnail(url=f"attachment://{DICE_FILE}")
    parts = [_("ply {ply}", ply=view.ply) + chain_tag(view)]
    if orientation:
        parts.append(_("{colour} at the bottom", colour=colour_word(orientation)))
    if view.status == "active":
        parts.append(_("/move to play, /verify after the end"))
    embed.set_footer(text=" · ".join(parts))
    return embed


def game_title(view: GameView, what: str | None = None) -> str:
    """``Tquarchess · game 12``, or with ``what`` first: ``History · Tquarchess · game 12``."""
    title = _("{variant} · game {game}", variant=view.variant_title, game=view.id)
    return f"{what} · {title}" if what else title


def chain_tag(view: GameView) -> str:
    """The log's chain head after the latest entry, short (``storage.chain``): whoever
    keeps the posted board can later check that the history up to it was not rewritten
    (``/verify chain:``). Empty for a challenge, which has no chain yet."""
    short = short_head(view.chain_head)
    return " · " + _("chain {head}", head=short) if short else ""


STATUS_FIELD = N_("Now")


def status_text(status: Status, limit: int = MAX_FIELD_TEXT) -> str:
    """The status in words for an embed field: the headline in bold (who acts, the dice
    and what they allow), then what is pending, check, and the other facts, each on its
    own line, as many whole lines as fit in ``limit`` characters."""
    lines = [f"**{i18n.render(None, status.headline)}**", *i18n.render_all(None, status.lines[1:])]
    text = ""
    for line in lines:
        joined = f"{text}\n{line}" if text else line
        if len(joined) > limit:
            break
        text = joined
    return text or clip(lines[0], limit)


def turn_prompt(
    view: GameView, *, actor_id: int | None = None
) -> tuple[str | None, tuple[int, ...]]:
    """The line that tells a player to act, and who it may ping.

    - a live game: the side to act ("<@id>, your move (white). Dice: 2 4."); when a draw is
      offered, also the player who must answer it;
    - a challenge: the challenged player (nobody for an open challenge);
    - a game that just ended: the player who did not end it (``actor_id``), so that a
      resignation or a mate reaches them; spectators are never pinged.
    """
    if view.status == "active" and view.computer is not None and view.turn == view.computer:
        # The computer's turn: a short sign that it is thinking; nobody is pinged (its
        # move is posted like a player's, pinging the player, when it comes).
        return f"{_(THINKING)} " + _("(level {level})", level=view.computer_level), ()
    if view.status == "active" and view.to_move_id is not None:
        line = _(
            "{player}, your move ({colour}).",
            player=mention(view.to_move_id),
            colour=colour_word(view.turn),
        )
        if view.dice:
            line += " " + _("Dice: {dice}.", dice=dice_text(view.dice))
        ping = [view.to_move_id]
        offered_to = view.black_id if view.draw_offer == "white" else view.white_id
        if view.draw_offer is not None and is_person(offered_to):  # the computer answers at once
            offer = _(
                "{player}, {colour} offers a draw: Accept draw or Decline draw below.",
                player=mention(offered_to),
                colour=colour_word(view.draw_offer),
            )
            line = offer if offered_to == view.to_move_id else f"{offer}\n{line}"
            ping.append(offered_to)  # type: ignore[arg-type]
        return line, tuple(u for u in ping if is_person(u))
    if view.status == "challenge":
        if view.opponent_id is None or not is_person(view.opponent_id):
            return None, ()
        return (
            _(
                "{player}, you are challenged by {challenger}.",
                player=mention(view.opponent_id),
                challenger=mention(view.challenger_id),
            ),
            (view.opponent_id,),
        )
    if view.status == "finished":
        players = sorted(
            {
                p
                for p in (view.white_id, view.black_id)
                if p is not None and p != actor_id and is_person(p)
            }
        )
        if not players:
            return None, ()
        return (
            _(
                "{players}: game {game} is over, {result}.",
                players=" ".join(mention(p) for p in players),
                game=view.id,
                result=result_line(view),
            ),
            tuple(players),
        )
    return None, ()


def outcome_text(outcome: Outcome) -> str:
    """The service's lines, each in the reader's language where the service says it as
    ``bot.i18n.Said`` (the rest is the service's English: docs/translating.md)."""
    return "\n".join(i18n.render_all(None, outcome.messages))


def challenge_embed(outcome: Outcome) -> discord.Embed:
    view = outcome.game
    embed = discord.Embed(
        title=game_title(view, _("Challenge")),
        description=clip(outcome_text(outcome), MAX_EMBED_TEXT),
        colour=COLOUR_CHALLENGE,
    )
    embed.add_field(name=_("Challenger"), value=mention(view.challenger_id), inline=True)
    embed.add_field(name=_("Opponent"), value=mention(view.opponent_id), inline=True)
    embed.add_field(name=_("Options"), value=options_text(view.options), inline=True)
    add_clock(embed, view)
    _add_commitment(embed, view.commitment)
    embed.set_footer(text=_("Accept or Decline below; the challenger's Decline cancels it."))
    return embed


def closed_embed(outcome: Outcome) -> discord.Embed:
    """A challenge that was declined, cancelled or aborted, or any plain status change."""
    view = outcome.game
    return discord.Embed(
        title=game_title(view),
        description=clip(outcome_text(outcome), MAX_EMBED_TEXT),
        colour=status_colour(view),
    )


# ----- looking ------------------------------------------------------------------


def history_text(history: History) -> str:
    """A readable log: one line per entry, with the rolls."""
    view = history.game
    commitment = view.commitment or _("none yet (drawn when the challenge is accepted)")
    lines = [
        _(
            "{variant}, game {game}: white {white}, black {black}",
            variant=view.variant_title,
            game=view.id,
            white=view.white_id,
            black=view.black_id,
        ),
        _("status: {status}", status=result_line(view)),
        _("dice commitment: {commitment}", commitment=commitment),
    ]
    if view.seed is not None:
        lines.append(_("dice seed: {seed}", seed=view.seed))
    lines += timestamps.history_clock_lines(view)
    if history.start_rolls:
        rolls = " ".join(f"d{s}={v}" for s, v in history.start_rolls)
        lines.append(_("start rolls: {rolls}", rolls=rolls))
    for entry in history.entries:
        rolls = " ".join(f"d{s}={v}" for s, v in entry.rolls)
        lines.append(
            f"{entry.seq:>4}. {entry.kind:<12} {entry.text}" + (f"  [{rolls}]" if rolls else "")
        )
    return "\n".join(lines)


def history_post(history: History) -> Post:
    view = history.game
    moves = [e.text for e in history.entries if e.kind == "move"]
    shown = " ".join(moves) or _("(no moves yet)")
    embed = discord.Embed(
        title=game_title(view, _("History")),
        description=clip(f"```\n{clip(shown, MAX_EMBED_TEXT - 200)}\n```", MAX_EMBED_TEXT),
        colour=status_colour(view),
    )
    embed.add_field(name=_("Status"), value=result_line(view), inline=True)
    embed.add_field(name=_("Moves"), value=str(len(moves)), inline=True)
    add_clock(embed, view)
    embed.set_footer(text=_("The attached record replays the game exactly (variants.replay)."))
    data = history.record.rstrip("\n") + "\n\n" + history_text(history) + "\n"
    file = discord.File(io.BytesIO(data.encode()), filename=f"chessgarden-game-{view.id}.txt")
    return Post(embed=embed, files=[file], view=link_view(watch_button(view.id)))


def watch_button(game_id: int, label: str | None = None) -> discord.ui.Button[Any] | None:
    """A link to the game's web page (issue 28), when this process serves the pages;
    ``label``: other words than "Watch" (already translated)."""
    url = game_page_url(game_id)
    if url is None:
        return None
    text = label if label is not None else _("Watch")
    return discord.ui.Button(label=text, style=discord.ButtonStyle.link, url=url)


def link_view(button: discord.ui.Button[Any] | None) -> discord.ui.View | None:
    """A post's row of one link button, or None without one."""
    if button is None:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(button)
    return view


def games_embed(
    games: Sequence[GameSummary],
    guild_id: int | None,
    failures: Mapping[int, PostFailure] | None = None,
) -> discord.Embed:
    """A game list; ``failures``: the games the bot cannot post for, and why (issue 24)."""
    title = _("Games in progress") if guild_id is not None else _("Your games in progress")
    embed = discord.Embed(title=title, colour=COLOUR_ACTIVE)
    if not games:
        embed.description = _("No games or open challenges here. Start one with /play.")
        return embed
    lines = []
    for game in games:
        home = game.guild_id if game.guild_id is not None else guild_id
        where = (
            f"https://discord.com/channels/{home}/{game.location_id}"
            if home is not None
            else f"<#{game.location_id}>"
        )
        if game.status == "challenge":
            who = _(
                "{challenger} challenges {opponent}",
                challenger=mention(game.challenger_id),
                opponent=mention(game.opponent_id),
            )
        else:
            who = _(
                "{white} (white) vs {black} (black)",
                white=mention(game.white_id),
                black=mention(game.black_id),
            )
        clock = timestamps.summary_clock(game)
        failure = (failures or {}).get(game.id)
        stuck = (
            "\n  ⚠ " + _("{problem}; a moderator can /relocate it", problem=failure.line)
            if failure
            else ""
        )
        # a tournament's game still waiting for its thread has no place to link to
        word = _("jump")
        jump = "" if is_placeholder(game.location_id) else f" · [{word}]({where})"
        lines.append(
            f"**{game.id}** · {game.variant} · {status_word(game.status)} · {who}{clock}"
            + jump
            + stuck
        )
    embed.description = clip("\n".join(lines), MAX_EMBED_TEXT)
    return embed


def verify_embed(report: VerifyReport) -> discord.Embed:
    embed = discord.Embed(
        title=_("Dice check · game {game}", game=report.game_id),
        description=clip("\n".join(i18n.render_all(None, report.messages)), MAX_EMBED_TEXT) or None,
        colour=COLOUR_ACTIVE if report.ok else COLOUR_ERROR,
    )
    embed.add_field(
        name=_("Verdict"),
        value=_("all rolls check out") if report.ok else _("MISMATCH"),
        inline=True,
    )
    embed.add_field(
        name=_("Seed matches commitment"),
        value=_("yes") if report.seed_matches else _("no"),
        inline=True,
    )
    embed.add_field(name=_("Rolls checked"), value=str(report.rolls_checked), inline=True)
    embed.add_field(name=_("Commitment"), value=f"`{report.commitment}`", inline=False)
    embed.add_field(name=_("Seed"), value=f"`{report.seed}`", inline=False)
    if report.mismatches:
        text = "\n".join(
            _(
                "roll {number} ({where}, d{sides}): stored {stored}, expected {expected}",
                number=m.index + 1,
                where=m.where,
                sides=m.sides,
                stored=m.stored,
                expected=m.expected,
            )
            for m in report.mismatches[:10]
        )
        embed.add_field(name=_("Mismatches"), value=clip(text, MAX_FIELD_TEXT), inline=False)
    if report.replay_error:
        embed.add_field(
            name=_("Replay"), value=clip(report.replay_error, MAX_FIELD_TEXT), inline=False
        )
    return embed
