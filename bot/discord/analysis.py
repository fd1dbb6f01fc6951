"""/analyse and the Analyse button (issue 29): a finished game's errors and luck.

The analysis runs in a worker process and takes seconds to a minute, or waits behind
others (``bot.service.analysis``), so:

1. the interaction is deferred privately at once ("thinking…", only the asker sees it);
2. that private message is edited with the progress: the place in the queue, then the
   steps analysed, as a bar. Discord allows about five edits of a message in five
   seconds: an edit is made at most every ``EDIT_EVERY_S`` (2 s; the bot's
   ``analysis_edit_every``), the latest news replacing any it had no time to show;
3. when done, the summary is posted in the channel, with the bot's own token (an
   interaction's follow-ups stop working after 15 minutes, and a long queue may take
   longer): an embed with each player's error rate, luck rate and luck-adjusted result,
   the biggest error and the luckiest roll with jump links to their boards, and the
   graph (``renderers.graph``). The private message then says where it is. If the
   channel refuses the post, the summary is shown privately instead, and says so.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import discord

from bot.discord import adapter, answers, threads
from bot.service import GameView, ServiceError
from bot.service.analysis import AnalysisProgress, AnalysisReport

log = logging.getLogger(__name__)

Interaction = discord.Interaction[Any]
EDIT_EVERY_S = 2.0  # at most one edit of the progress message this often
GRAPH_FILE = "analysis.png"
BAR = 12


def edit_every(interaction: Interaction) -> float:
    return float(getattr(interaction.client, "analysis_edit_every", EDIT_EVERY_S))


def jump_link(guild_id: int | None, board: tuple[int, int]) -> str:
    channel_id, message_id = board
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


# ----- the progress, in one private message edited as it goes ----------------------------


def progress_text(game_id: int | None, news: AnalysisProgress | None) -> str:
    game = f"game {game_id}" if game_id is not None else "the game"
    if news is None:
        return f"Looking up {game}…"
    if news.state == "queued":
        ahead = news.position - 1
        others = "1 analysis" if ahead == 1 else f"{ahead} analyses"
        wait = "next to start" if ahead == 0 else f"{others} ahead"
        return f"Analysis of {game}: waiting, place {news.position} in the queue ({wait})."
    if news.state == "running" and news.total:
        filled = BAR * news.done // news.total
        bar = "■" * filled + "□" * (BAR - filled)
        return f"Analysing {game}: {bar} {news.done}/{news.total} steps."
    if news.state == "running":
        return f"Analysing {game}: starting…"
    return f"Analysis of {game} is done; posting it…"


class ProgressEdits:
    """Edits the interaction's private message with the latest progress, at most every
    ``every`` seconds; ``update`` is the service's progress callback."""

    def __init__(self, interaction: Interaction, game_id: int | None, every: float) -> None:
        self.interaction = interaction
        self.game_id = game_id
        self.every = every
        self.latest: AnalysisProgress | None = None
        self.shown: str | None = None
        self.last_edit = float("-inf")
        self.edits = 0
        self.broken = False  # an edit failed: the token ran out, or the message is gone
        self._wake = asyncio.Event()
        self._closing = asyncio.Event()
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    def update(self, news: AnalysisProgress) -> None:
        self.game_id = news.game_id
        if news.state == "done":  # the flow's own last edit says where the summary is
            return
        self.latest = news
        self._wake.set()
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="chessgarden-analysis-progress")

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            if self._closed:
                return
            wait = self.last_edit + self.every - time.monotonic()
            if wait > 0:  # too soon after the last edit: news meanwhile replaces this one
                try:
                    await asyncio.wait_for(self._closing.wait(), wait)
                    return  # closed meanwhile: the flow edits next
                except TimeoutError:
                    pass
            self._wake.clear()
            await self.edit(progress_text(self.game_id, self.latest))

    async def edit(self, text: str | None = None, **kwargs: Any) -> bool:
        """One edit of the private message (not within ``every`` of the last one)."""
        if self.broken:
            return False
        if text is not None and text == self.shown and not kwargs:
            return True
        wait = self.last_edit + self.every - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        try:
            await self.interaction.edit_original_response(content=text, **kwargs)
        except threads.REQUEST_FAILURES as error:
            log.info("could not show the analysis's progress: %s", error)
            self.broken = True
            return False
        finally:
            self.last_edit = time.monotonic()
        self.shown = text
        self.edits += 1
        return True

    async def close(self) -> None:
        """No more progress edits (one under way finishes first)."""
        self._closed = True
        self._closing.set()
        self._wake.set()
        if self._task is not None:
            await self._task


# ----- the flow --------------------------------------------------------------------------


async def analyse(
    interaction: Interaction, game_id: int | None = None, *, from_button: bool = False
) -> None:
    """Analyse the game ``game_id`` (or this channel's last one) for the asker; see the
    module for the steps."""
    answers.stamp(interaction)
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
    except threads.REQUEST_FAILURES as error:
        log.warning("could not defer /analyse %s: %s", interaction.id, error)
        return
    service = answers.service_of(interaction)
    edits = ProgressEdits(interaction, game_id, edit_every(interaction))
    try:
        report = await service.analyse(
            location_id=answers.location_unless(interaction, game_id),
            game_id=game_id,
            viewer=answers.viewer_of(interaction, from_button=from_button),
            progress=edits.update,
        )
    except ServiceError as error:
        await edits.close()
        post = await answers.refusal(interaction, error)
        await edits.edit(None, embed=post.embed)
        return
    await edits.close()
    game = report.game
    sent = await _post_summary(interaction, report)
    if sent is not None:
        where = jump_link(game.guild_id, (sent.channel.id, sent.id))
        await edits.edit(f"Game {game.id} is analysed: the summary is posted here: {where}")
        return
    # The channel refused the post: the asker sees the summary privately.
    files = [adapter.png_file(report.image, GRAPH_FILE)] if report.image else []
    await edits.edit(
        f"Game {game.id} is analysed, but I could not post the summary in this channel; "
        "here it is for you only.",
        embed=summary_embed(report),
        attachments=files,
    )


async def _post_summary(interaction: Interaction, report: AnalysisReport) -> discord.Message | None:
    channel_id = answers.location_of(interaction)
    channel: Any = interaction.client.get_partial_messageable(
        channel_id, guild_id=interaction.guild_id
    )
    await threads.unarchive(interaction.channel)
    files = [adapter.png_file(report.image, GRAPH_FILE)] if report.image else []
    try:
        message: discord.Message = await channel.send(
            embed=summary_embed(report), files=files, allowed_mentions=adapter.NO_PINGS
        )
    except threads.REQUEST_FAILURES as error:
        log.info("could not post the analysis of game %s: %s", report.game.id, error)
        return None
    return message


# ----- the summary -----------------------------------------------------------------------


def _pct(x: float, sign: bool = False) -> str:
    return f"{100 * x:+.1f}%" if sign else f"{100 * x:.1f}%"


def _player(view: GameView, side: str) -> str:
    """The side's player as the embed names them (a mention pings nobody in an embed)."""
    return adapter.mention(view.white_id if side == "white" else view.black_id)


def _result_word(score: float | None) -> str:
    return {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(score if score is not None else -1, "-")


def summary_embed(report: AnalysisReport) -> discord.Embed:
    """Each player's error rate, luck rate and luck-adjusted result; the biggest error
    and the luckiest roll, linked to their boards; the graph."""
    a = report.analysis
    view = report.game
    result = {"white": "White won", "black": "Black won", None: "A draw"}[a.winner]
    if a.reason is None:
        result = "Not finished by the rules"
    embed = discord.Embed(
        title=f"Game {view.id} · {view.variant_title}: errors and luck",
        description=(
            f"{result}{f' ({a.reason})' if a.reason else ''}. "
            f"Searched {a.depth} deep. Equity is a player's expected score, 0 to 100%; "
            "an error is the equity an action gave up, luck what a roll gave or took."
        ),
        colour=adapter.COLOUR_OVER,
    )
    for p in a.players:
        adjusted = (
            "-"
            if p.luck_adjusted is None
            else f"{p.luck_adjusted:.2f} ({_result_word(p.result)} {p.result:g}, "
            f"net luck {_pct(p.net_luck, sign=True)})"
        )
        embed.add_field(
            name=p.side.capitalize(),
            value=adapter.clip(
                f"{_player(view, p.side)}\n"
                f"Error rate: {_pct(p.error_rate)} per decision "
                f"({p.blunders} ??, {p.mistakes} ?, {p.inaccuracies} ?!)\n"
                f"Luck rate: {_pct(p.luck_rate, sign=True)} per roll "
                f"({p.jokers} jokers, {p.anti_jokers} anti-jokers)\n"
                f"Luck-adjusted result: {adjusted}",
                adapter.MAX_FIELD_TEXT,
            ),
            inline=True,
        )
    embed.add_field(name="Biggest error", value=_biggest_error(report), inline=False)
    embed.add_field(name="Luckiest roll", value=_luckiest_roll(report), inline=False)
    if report.image is not None:
        embed.set_image(url=f"attachment://{GRAPH_FILE}")
    embed.set_footer(
        text="Luck-adjusted result: the result minus the net luck of the dice. Graph: White's "
        "expected score; dots mark ?? (red), ? (orange), ?! (yellow); bars are the luck of "
        "each roll, gold ticks the jokers."
    )
    return adapter.fit(embed)


def _md(text: str) -> str:
    """Notation shown as itself, not as Markdown (a ``*`` or ``_`` in a move)."""
    return discord.utils.escape_markdown(text)


def _link(report: AnalysisReport, actions: int) -> str:
    """A jump link to the board posted after ``actions`` actions, else honest words."""
    guild = report.game.guild_id
    board = report.board_after(actions)
    if board is not None:
        return f"[board]({jump_link(guild, board)})"
    if report.last_board is not None:
        return f"(its board is not known; [last board]({jump_link(guild, report.last_board)}))"
    return "(no board of it is known)"


def _biggest_error(report: AnalysisReport) -> str:
    turns = [t for t in report.analysis.turns if t.choice and t.action is not None]
    if not turns:
        return "Nobody had a choice to make."
    worst = max(turns, key=lambda t: t.error)
    if worst.error <= 0:
        return "None: every action was as good as the search's best."
    best = f", best was {_md(worst.best)}" if worst.best else ""
    kind = {"??": "a blunder", "?": "a mistake", "?!": "an inaccuracy"}.get(worst.label, "")
    return (
        f"Ply {worst.ply}, {worst.side}: **{_md(worst.action or '')}{worst.label}** gave up "
        f"{_pct(worst.error)}{f' ({kind})' if kind else ''}{best}. {_link(report, worst.ply)}"
    )


def _luckiest_roll(report: AnalysisReport) -> str:
    rolls = [t for t in report.analysis.turns if t.roller is not None]
    if not rolls:
        return "No roll in this game could go more than one way: its luck is 0."
    best = max(rolls, key=lambda t: t.luck)
    dice = " ".join(str(v) for v in best.rolled) or "-"
    kind = " (a joker)" if best.luck_label == "joker" else ""
    # The roll before decision ``ply`` is shown on the board after ``ply - 1`` actions.
    return (
        f"Ply {best.ply}, {best.roller} rolled {dice}: {_pct(best.luck, sign=True)}{kind}. "
        f"{_link(report, best.ply - 1)}"
    )


__all__ = ["EDIT_EVERY_S", "GRAPH_FILE", "ProgressEdits", "analyse", "summary_embed"]
