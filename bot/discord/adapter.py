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

from bot.discord import timestamps
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
        return "the computer"
    if user_id is None:
        return "anyone"
    return f"<@{user_id}>" if is_person(user_id) else f"player {user_id}"


THINKING = "The computer is thinking…"


def computer_words(view: GameView | GameSummary) -> str:
    """``the computer (level 2)`` in a game against it, else ``''``."""
    if view.computer is None:
        return ""
    return f"the computer (level {view.computer_level})"


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
    more = f", … ({len(legal)} in all)" if len(legal) > count else ""
    return f"Legal now: {shown}{more}."


def error_text(error: ServiceError | ValueError, legal: Sequence[str] = ()) -> str:
    """The one-line error, plus what would have been legal when that helps."""
    text = str(error) or "that did not work"
    text = text[0].upper() + text[1:]
    if not text.endswith((".", "!", "?")):
        text += "."
    hint = legal_hint(legal)
    if hint and "legal now" not in text.lower():  # the engine's messages often list them already
        text = f"{text}\n{hint}"
    return clip(text, MAX_CONTENT)


def refusal_text(refusal: Refusal) -> str:
    """An action the engine refused (contract C2): the rule, in one sentence, with what
    was typed, and the closest legal actions. Not the whole legal list: ``/move``
    suggests every legal action as you type."""
    text = refusal.message[:1].upper() + refusal.message[1:]
    typed = refusal.text if len(refusal.text) <= 40 else refusal.text[:37] + "..."
    if typed and refusal.cause != "game-over":
        text += f" (you typed `{typed.replace('`', '')}`)"
    if not text.endswith((".", "!", "?")):
        text += "."
    if refusal.closest:
        text += "\nClosest legal: " + ", ".join(f"`{action}`" for action in refusal.closest) + "."
    return clip(text, MAX_CONTENT)


def error_embed(text: str) -> discord.Embed:
    return discord.Embed(description=clip(text, MAX_EMBED_TEXT), colour=COLOUR_ERROR)


# ----- Discord's refusals, in words ----------------------------------------------------

PERMISSION_NAMES = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "create_public_threads": "Create Public Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
    "manage_threads": "Manage Threads",
    "manage_messages": "Manage Messages",
}


def permission_words(names: Sequence[str]) -> str:
    """``["create_public_threads", "embed_links"]`` -> "Create Public Threads and Embed Links"."""
    words = [PERMISSION_NAMES.get(n, n.replace("_", " ").title()) for n in names]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def missing_permissions(perms: discord.Permissions, needed: Sequence[str]) -> list[str]:
    return [name for name in needed if not getattr(perms, name, False)]


def discord_error_text(
    error: discord.HTTPException, *, doing: str = "do that", missing: Sequence[str] = ()
) -> str:
    """A plain sentence for a request Discord refused; never Discord's own API text.

    ``doing`` completes "I can't ...", e.g. "post in that thread"; ``missing`` names the
    permissions the bot lacks there, when the caller could work them out.
    """
    code = getattr(error, "code", 0)
    status = getattr(error, "status", 0)
    if code == 50001:
        return f"I can't {doing}: I can't see that channel (I need View Channel there)."
    if status == 403 or code == 50013:
        need = permission_words(missing)
        if need:
            return f"I can't {doing}: I need {need}."
        return f"I can't {doing}: Discord says I lack a permission there; check my role."
    if code == 50083:
        return f"I can't {doing}: that thread is archived."
    if code == 10003:
        return f"I can't {doing}: that channel no longer exists."
    if code == 10008:
        return f"I can't {doing}: that message no longer exists."
    if code in (10062, 10015, 50027):
        return f"I can't {doing}: Discord says this interaction has expired; try again."
    if code == 40005 or status == 413:
        return f"I can't {doing}: the file is too large for Discord."
    if status == 429:
        return f"I can't {doing} right now: Discord asked me to slow down. Try again in a minute."
    if status >= 500:
        return (
            f"I can't {doing} right now: Discord had a problem on its side. Try again in a moment."
        )
    return f"I can't {doing}: Discord refused the request."


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
            return "Discord did not answer in time"
        return "the connection to Discord failed"
    code = getattr(error, "code", 0)
    status = getattr(error, "status", 0)
    if code == 50001:
        return "I can't see that channel (I need View Channel there)"
    if status == 403 or code == 50013:
        if missing:
            return f"I need {permission_words(missing)} there"
        return "Discord says I lack a permission there"
    if status == 404 or code in (10003, 10008):
        return "it no longer exists"
    if status == 429:
        return "Discord asked me to slow down"
    if status >= 500:
        return "Discord had a problem on its side"
    return "Discord refused the request"


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
    note: str = "Done: posted below."
    game_id: int | None = None
    is_board: bool = False  # a board (or challenge) whose buttons a newer one replaces
    game_over: bool = False  # the game has ended: its thread may be archived after this
    replace: bool = False  # a button's answer that replaces the message the button was on
    failure: str = "I could not post that."  # said privately if Discord refuses the post
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


def result_line(view: GameView) -> str:
    if view.status != "finished":
        return view.status
    outcome = "draw" if view.winner is None else f"{view.winner} wins"
    return f"{view.result} · {outcome} ({view.result_reason})"


def _add_commitment(embed: discord.Embed, commitment: str | None) -> None:
    if not commitment:  # a challenge: no seed is drawn before acceptance
        return
    embed.add_field(
        name="Dice commitment (SHA-256 of the secret seed)", value=f"`{commitment}`", inline=False
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
    description = "\n".join(messages) or f"Game {view.id}."
    embed = discord.Embed(
        title=f"{view.variant_title} · game {view.id}",
        description=clip(description, MAX_EMBED_TEXT),
        colour=status_colour(view),
    )
    embed.add_field(name="White", value=mention(view.white_id), inline=True)
    embed.add_field(name="Black", value=mention(view.black_id), inline=True)
    if view.status == "active":
        embed.add_field(
            name="To move", value=f"{view.turn} {mention(view.to_move_id)}", inline=True
        )
        if view.dice:
            embed.add_field(name="Dice", value=dice_text(view.dice), inline=True)
        if view.draw_offer:
            embed.add_field(name="Draw offer", value=f"from {view.draw_offer}", inline=True)
        if status is not None and status.lines:
            embed.add_field(name=STATUS_FIELD, value=status_text(status), inline=False)
        add_clock(embed, view)
    else:
        embed.add_field(name="Result", value=result_line(view), inline=True)
    if view.last_move:
        embed.add_field(name="Last move", value=view.last_move, inline=True)
    if view.options:
        embed.add_field(name="Options", value=options_text(view.options), inline=True)
    if show_commitment or view.seed is None:
        _add_commitment(embed, view.commitment)
    if view.seed is not None:
        embed.add_field(name="Dice seed, revealed", value=f"`{view.seed}`", inline=False)
    if image:
        embed.set_image(url=f"attachment://{BOARD_FILE}")
    if dice_image:
        embed.set_thumbnail(url=f"attachment://{DICE_FILE}")
    side = f" · {orientation} at the bottom" if orientation else ""
    hint = " · /move to play, /verify after the end" if view.status == "active" else ""
    embed.set_footer(text=f"ply {view.ply}{chain_tag(view)}{side}{hint}")
    return embed


def chain_tag(view: GameView) -> str:
    """The log's chain head after the latest entry, short (``storage.chain``): whoever
    keeps the posted board can later check that the history up to it was not rewritten
    (``/verify chain:``). Empty for a challenge, which has no chain yet."""
    short = short_head(view.chain_head)
    return f" · chain {short}" if short else ""


STATUS_FIELD = "Now"


def status_text(status: Status, limit: int = MAX_FIELD_TEXT) -> str:
    """The status in words for an embed field: the headline in bold (who acts, the dice
    and what they allow), then what is pending, check, and the other facts, each on its
    own line, as many whole lines as fit in ``limit`` characters."""
    lines = [f"**{status.headline}**", *status.lines[1:]]
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
        return f"{THINKING} (level {view.computer_level})", ()
    if view.status == "active" and view.to_move_id is not None:
        dice = f" Dice: {dice_text(view.dice)}." if view.dice else ""
        line = f"{mention(view.to_move_id)}, your move ({view.turn}).{dice}"
        ping = [view.to_move_id]
        offered_to = view.black_id if view.draw_offer == "white" else view.white_id
        if view.draw_offer is not None and is_person(offered_to):  # the computer answers at once
            offer = (
                f"{mention(offered_to)}, {view.draw_offer} offers a draw: "
                "Accept draw or Decline draw below."
            )
            line = offer if offered_to == view.to_move_id else f"{offer}\n{line}"
            ping.append(offered_to)  # type: ignore[arg-type]
        return line, tuple(u for u in ping if is_person(u))
    if view.status == "challenge":
        if view.opponent_id is None or not is_person(view.opponent_id):
            return None, ()
        return (
            f"{mention(view.opponent_id)}, you are challenged by {mention(view.challenger_id)}.",
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
            f"{' '.join(mention(p) for p in players)}: game {view.id} is over, "
            f"{result_line(view)}.",
            tuple(players),
        )
    return None, ()


def challenge_embed(outcome: Outcome) -> discord.Embed:
    view = outcome.game
    embed = discord.Embed(
        title=f"Challenge · {view.variant_title} · game {view.id}",
        description=clip(outcome.text, MAX_EMBED_TEXT),
        colour=COLOUR_CHALLENGE,
    )
    embed.add_field(name="Challenger", value=mention(view.challenger_id), inline=True)
    embed.add_field(name="Opponent", value=mention(view.opponent_id), inline=True)
    embed.add_field(name="Options", value=options_text(view.options), inline=True)
    add_clock(embed, view)
    _add_commitment(embed, view.commitment)
    embed.set_footer(text="Accept or Decline below; the challenger's Decline cancels it.")
    return embed


def closed_embed(outcome: Outcome) -> discord.Embed:
    """A challenge that was declined, cancelled or aborted, or any plain status change."""
    view = outcome.game
    return discord.Embed(
        title=f"{view.variant_title} · game {view.id}",
        description=clip(outcome.text, MAX_EMBED_TEXT),
        colour=status_colour(view),
    )


# ----- looking ------------------------------------------------------------------


def history_text(history: History) -> str:
    """A readable log: one line per entry, with the rolls."""
    view = history.game
    lines = [
        f"{view.variant_title}, game {view.id}: white {view.white_id}, black {view.black_id}",
        f"status: {result_line(view)}",
        f"dice commitment: {view.commitment or 'none yet (drawn when the challenge is accepted)'}",
    ]
    if view.seed is not None:
        lines.append(f"dice seed: {view.seed}")
    lines += timestamps.history_clock_lines(view)
    if history.start_rolls:
        lines.append("start rolls: " + " ".join(f"d{s}={v}" for s, v in history.start_rolls))
    for entry in history.entries:
        rolls = " ".join(f"d{s}={v}" for s, v in entry.rolls)
        lines.append(
            f"{entry.seq:>4}. {entry.kind:<12} {entry.text}" + (f"  [{rolls}]" if rolls else "")
        )
    return "\n".join(lines)


def history_post(history: History) -> Post:
    view = history.game
    moves = [e.text for e in history.entries if e.kind == "move"]
    shown = " ".join(moves) or "(no moves yet)"
    embed = discord.Embed(
        title=f"History · {view.variant_title} · game {view.id}",
        description=clip(f"```\n{clip(shown, MAX_EMBED_TEXT - 200)}\n```", MAX_EMBED_TEXT),
        colour=status_colour(view),
    )
    embed.add_field(name="Status", value=result_line(view), inline=True)
    embed.add_field(name="Moves", value=str(len(moves)), inline=True)
    add_clock(embed, view)
    embed.set_footer(text="The attached record replays the game exactly (variants.replay).")
    data = history.record.rstrip("\n") + "\n\n" + history_text(history) + "\n"
    file = discord.File(io.BytesIO(data.encode()), filename=f"chessgarden-game-{view.id}.txt")
    watch = watch_button(view.id)
    buttons = None
    if watch is not None:
        buttons = discord.ui.View(timeout=None)
        buttons.add_item(watch)
    return Post(embed=embed, files=[file], view=buttons)


def watch_button(game_id: int) -> discord.ui.Button[Any] | None:
    """A link to the game's web page (issue 28), when this process serves the pages."""
    url = game_page_url(game_id)
    if url is None:
        return None
    return discord.ui.Button(label="Watch", style=discord.ButtonStyle.link, url=url)


def games_embed(
    games: Sequence[GameSummary],
    guild_id: int | None,
    failures: Mapping[int, PostFailure] | None = None,
) -> discord.Embed:
    """A game list; ``failures``: the games the bot cannot post for, and why (issue 24)."""
    title = "Games in progress" if guild_id is not None else "Your games in progress"
    embed = discord.Embed(title=title, colour=COLOUR_ACTIVE)
    if not games:
        embed.description = "No games or open challenges here. Start one with /play."
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
            who = f"{mention(game.challenger_id)} challenges {mention(game.opponent_id)}"
        else:
            who = f"{mention(game.white_id)} (white) vs {mention(game.black_id)} (black)"
        clock = timestamps.summary_clock(game)
        failure = (failures or {}).get(game.id)
        stuck = f"\n  ⚠ {failure.line}; a moderator can /relocate it" if failure else ""
        lines.append(
            f"**{game.id}** · {game.variant} · {game.status} · {who}{clock} · [jump]({where})"
            + stuck
        )
    embed.description = clip("\n".join(lines), MAX_EMBED_TEXT)
    return embed


def verify_embed(report: VerifyReport) -> discord.Embed:
    embed = discord.Embed(
        title=f"Dice check · game {report.game_id}",
        description=clip("\n".join(report.messages), MAX_EMBED_TEXT) or None,
        colour=COLOUR_ACTIVE if report.ok else COLOUR_ERROR,
    )
    embed.add_field(
        name="Verdict", value="all rolls check out" if report.ok else "MISMATCH", inline=True
    )
    embed.add_field(
        name="Seed matches commitment", value="yes" if report.seed_matches else "no", inline=True
    )
    embed.add_field(name="Rolls checked", value=str(report.rolls_checked), inline=True)
    embed.add_field(name="Commitment", value=f"`{report.commitment}`", inline=False)
    embed.add_field(name="Seed", value=f"`{report.seed}`", inline=False)
    if report.mismatches:
        text = "\n".join(
            f"roll {m.index + 1} ({m.where}, d{m.sides}): stored {m.stored}, expected {m.expected}"
            for m in report.mismatches[:10]
        )
        embed.add_field(name="Mismatches", value=clip(text, MAX_FIELD_TEXT), inline=False)
    if report.replay_error:
        embed.add_field(
            name="Replay", value=clip(report.replay_error, MAX_FIELD_TEXT), inline=False
        )
    return embed
