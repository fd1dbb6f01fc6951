"""Discord embeds for ratings (issue 15): /leaderboard, /profile and the rating changes on
the final board of a rated game. Formatting only; the numbers come from ``bot.service``.

A rating shows as whole points, with "?" when it is provisional (RD above 110, as on
lichess); a profile shows rating ± 2·RD (about 95% sure the player's strength lies there).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot import i18n
from bot.discord.adapter import MAX_EMBED_TEXT, MAX_FIELD_TEXT, clip, fit, mention
from bot.discord.translate import N_, _, colour_word, ngettext
from bot.service import Leaderboard, Profile, RatingChange, Standing
from bot.service.rating_log import RATING_LINE, shown_rating, signed

COLOUR_RATINGS = discord.Colour.teal()
PROVISIONAL_NOTE = N_("? provisional: rating deviation above 110 (few games, or long ago)")
RATING_FIELD = N_("Rating changes")
SCORE_WORDS = {1.0: N_("won"), 0.5: N_("drew"), 0.0: N_("lost")}


def _said(text: str) -> str:
    """A name the service hands over (a variant's, ``Said``) in the reader's language."""
    return i18n.render(None, text)


def _where(scope: int | None) -> str:
    return _("this server") if scope is not None else _("global")


def _games(count: int) -> str:
    return ngettext("{n} game", "{n} games", count)


def standing_line(s: Standing) -> str:
    return (
        f"**{s.rank}.** {mention(s.player_id)} **{shown_rating(s.rating, s.rd)}** · "
        f"{_games(s.games)} ({s.wins}/{s.draws}/{s.losses})"
    )


def leaderboard_embed(board: Leaderboard) -> discord.Embed:
    embed = discord.Embed(
        title=_("Leaderboard") + f" · {_said(board.variant_title)} · {_where(board.scope)}",
        colour=COLOUR_RATINGS,
    )
    if not board.top:
        embed.description = _(
            "Nobody has finished a rated game of {variant} here yet. Start one with /play "
            "(games are rated unless you choose rated: False).",
            variant=board.variant_title,
        )
        return embed
    lines = [standing_line(s) for s in board.top]
    if board.own is not None:
        lines += ["…", standing_line(board.own)]
    embed.description = clip("\n".join(lines), MAX_EMBED_TEXT)
    embed.set_footer(text="Glicko-2 · " + _("games (won/drawn/lost)") + f" · {_(PROVISIONAL_NOTE)}")
    return fit(embed)


def _jump(guild_id: int | None, board: tuple[int, int] | None, location_id: int) -> str:
    home = str(guild_id) if guild_id is not None else "@me"
    if board is not None:
        return f"https://discord.com/channels/{home}/{board[0]}/{board[1]}"
    return f"https://discord.com/channels/{home}/{location_id}"


def profile_embed(profile: Profile, name: str) -> discord.Embed:
    where = _where(profile.scope)
    embed = discord.Embed(
        title=clip(_("Profile") + f" · {name}", 256),
        description=_("{player}'s ratings ({where})", player=mention(profile.user_id), where=where),
        colour=COLOUR_RATINGS,
    )
    if not profile.records:
        embed.description = _(
            "{player} has no rated games ({where}) yet.",
            player=mention(profile.user_id),
            where=where,
        )
    for record in profile.records[:20]:
        s = record.standing
        lines = [
            _("rank {rank}", rank=s.rank)
            + f" · {_games(s.games)}: "
            + _("{won} won, {drawn} drawn, {lost} lost", won=s.wins, drawn=s.draws, lost=s.losses)
        ]
        for r in record.recent:
            score = _(SCORE_WORDS[r.score]) if r.score in SCORE_WORDS else "?"
            lines.append(
                _(
                    "game {game}: {score} vs {opponent} ({change})",
                    game=r.game_id,
                    score=score,
                    opponent=mention(r.opponent_id),
                    change=signed(r.after - r.before),
                )
            )
        embed.add_field(
            name=clip(
                f"{_said(record.variant_title)}: {shown_rating(s.rating, s.rd)} ± {round(2 * s.rd)}",
                256,
            ),
            value=clip("\n".join(lines), MAX_FIELD_TEXT),
            inline=False,
        )
    if profile.current:
        lines = []
        for game, board in zip(profile.current, profile.boards, strict=True):
            other = game.black_id if game.white_id == profile.user_id else game.white_id
            home = game.guild_id if game.guild_id is not None else profile.scope
            opponent = _("vs {opponent}", opponent=mention(other))
            jump = _("jump")
            lines.append(
                f"**{game.id}** · {game.variant} {opponent} · "
                f"[{jump}]({_jump(home, board, game.location_id)})"
            )
        embed.add_field(
            name=_("Playing now"), value=clip("\n".join(lines), MAX_FIELD_TEXT), inline=False
        )
    embed.set_footer(
        text="Glicko-2 · " + _("rating ± 2·RD · last 5 rated results") + f" · {_(PROVISIONAL_NOTE)}"
    )
    return fit(embed)


def add_rating_changes(embed: discord.Embed, changes: Sequence[RatingChange]) -> None:
    """The final board of a rated game: each player's new rating and change, in the
    game's own scope (the server's ratings; global for a game in a DM)."""
    if not changes:
        return
    scope = changes[0].scope
    lines = [
        f"{colour_word(c.colour)} {mention(c.player_id)}: {shown_rating(c.after, c.rd)} "
        f"({signed(c.delta)})"
        for c in changes
        if c.scope == scope
    ]
    embed.add_field(
        name=f"{_(RATING_FIELD)} ({_where(scope)})", value="\n".join(lines), inline=False
    )


def without_rating_line(messages: Sequence[str], changes: Sequence[RatingChange]) -> list[str]:
    """The messages of a finished game without the rating line, when the changes are
    shown in their own field (``add_rating_changes``)."""
    if not changes:
        return list(messages)
    return [m for m in messages if not m.startswith(RATING_LINE)]
