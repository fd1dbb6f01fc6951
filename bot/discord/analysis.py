"""/analyse and the Analyse button (issue 29): a finished game's errors and luck.

The analysis runs in a worker process and takes seconds to a minute, or waits behind
others (``bot.service.analysis``), so:

1. the interaction is deferred privately at once ("thinking…", only the asker sees it;
   if Discord fails that, the work goes on: the summary is owed in the channel anyway);
2. that private message is edited with the progress: the place in the queue, then the
   steps analysed, as a bar. Discord allows about five edits of a message in five
   seconds: an edit is made at most every ``EDIT_EVERY_S`` (2 s; the bot's
   ``analysis_edit_every``), the latest news replacing any it had no time to show;
3. when done, the summary is posted in the channel, with the bot's own token (an
   interaction's follow-ups stop working after 15 minutes, and a long queue may take
   longer): an embed with each player's error rate, luck rate and luck-adjusted result,
   the biggest error and the luckiest roll with jump links to their boards, and the
   graph (``renderers.graph``). The private message then says where it is.

The summary is owed (issue 24): the service writes an ``analysis`` outbox row with the
stored analysis (``AnalysisReport.owed``), and this flow posts it with the row's nonce
and settles the row. If the post fails (Discord fails, refuses, or the process dies
first), the outbox worker delivers the row, built from the store (``summary_post``);
the nonce turns a second post of a message Discord made into the first. Meanwhile the
asker sees the summary privately, told that it will be posted in the channel.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import discord

from bot.discord import adapter, answers, threads, translate
from bot.discord.refusals import Permanent, classify
from bot.discord.translate import N_, _, colour_word, ngettext
from bot.service import GameService, GameView, ServiceError
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
    game = _("game {id}", id=game_id) if game_id is not None else _("the game")
    if news is None:
        return _("Looking up {game}…", game=game)
    if news.state == "queued":
        ahead = news.position - 1
        if ahead == 0:
            wait = _("next to start")
        else:
            wait = ngettext("{n} analysis ahead", "{n} analyses ahead", ahead)
        return _(
            "Analysis of {game}: waiting, place {place} in the queue ({wait}).",
            game=game,
            place=news.position,
            wait=wait,
        )
    if news.state == "running" and news.total:
        filled = BAR * news.done // news.total
        bar = "■" * filled + "□" * (BAR - filled)
        return _(
            "Analysing {game}: {bar} {done}/{total} steps.",
            game=game,
            bar=bar,
            done=news.done,
            total=news.total,
        )
    if news.state == "running":
        return _("Analysing {game}: starting…", game=game)
    return _("Analysis of {game} is done; posting it…", game=game)


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
        # The asker may see nothing (or "thinking…", if Discord made it after all); the
        # analysis goes on, and its summary is owed in the channel all the same.
        log.warning("could not defer /analyse %s: %s", interaction.id, error)
    service = answers.service_of(interaction)
    edits = ProgressEdits(interaction, game_id, edit_every(interaction))
    try:
        report = await service.analyse(
            location_id=answers.location_unless(interaction, game_id),
            game_id=game_id,
            viewer=answers.viewer_of(interaction, from_button=from_button),
            progress=edits.update,
            locale=translate.public_locale(interaction),  # the graph is posted for everyone
            post_in=answers.location_of(interaction),  # the summary is owed there
            request_id=answers.request_id(interaction),
        )
    except ServiceError as error:
        await edits.close()
        post = await answers.refusal(interaction, error)
        await edits.edit(None, embed=post.embed)
        return
    await edits.close()
    game = report.game
    sent, refused = await _post_summary(interaction, report)
    if sent is not None:
        where = jump_link(game.guild_id, (sent.channel.id, sent.id))
        await edits.edit(
            _("Game {id} is analysed: the summary is posted here: {where}", id=game.id, where=where)
        )
        return
    # The post failed: the asker sees the summary privately; an owed one is posted later.
    files = [adapter.png_file(report.image, GRAPH_FILE)] if report.image else []
    if report.owed is not None and not refused:
        text = _(
            "Game {id} is analysed, but I could not post the summary in this channel yet; "
            "I will keep trying. Here it is for you meanwhile.",
            id=game.id,
        )
    else:
        text = _(
            "Game {id} is analysed, but I could not post the summary in this channel; here it "
            "is for you only.",
            id=game.id,
        )
    await edits.edit(text, embed=summary_embed(report), attachments=files)


async def _post_summary(
    interaction: Interaction, report: AnalysisReport
) -> tuple[discord.Message | None, bool]:
    """Post the summary in the asker's channel (with its outbox row's nonce, settling the
    row); the message, ``None`` when that failed (the outbox worker then posts an owed
    one), and whether Discord refused it for good."""
    channel_id = answers.location_of(interaction)
    channel: Any = interaction.client.get_partial_messageable(
        channel_id, guild_id=interaction.guild_id
    )
    service = answers.service_of(interaction)
    await threads.unarchive(interaction.channel)
    post = summary_post(report)
    extra: dict[str, Any] = {} if report.nonce is None else {"nonce": report.nonce}
    try:
        message: discord.Message = await channel.send(**post.kwargs(), **extra)
    except threads.REQUEST_FAILURES as error:
        log.info("could not post the analysis of game %s: %s", report.game.id, error)
        refused = await _settle_failure(service, report.owed, error)
        return None, refused
    if report.owed is not None:
        try:
            await service.owed_posted(
                report.owed, channel_id=message.channel.id, message_id=message.id
            )
        except ServiceError as error:  # the worker posts it again: the nonce returns this one
            log.info("could not record the analysis post of game %s: %s", report.game.id, error)
    return message, False


async def _settle_failure(service: GameService, owed: int | None, error: BaseException) -> bool:
    """A refusal no retry changes is kept with its reason (``/games`` shows it); any other
    failure leaves the post to the outbox worker at once (with the same nonce). Whether
    it was such a refusal."""
    verdict = classify(error)
    if owed is None:
        return isinstance(verdict, Permanent)
    try:
        if isinstance(verdict, Permanent):
            await service.owed_refused(owed, verdict.stored)
        else:
            await service.owe_now(owed, f"the interaction could not post it: {verdict}")
    except ServiceError as failed:  # the hold runs out and the worker tries it then
        log.info("could not record the failed analysis post (outbox %s): %s", owed, failed)
    return isinstance(verdict, Permanent)


def summary_post(report: AnalysisReport) -> adapter.Post:
    """The summary as a channel post: the embed and the graph, pinging nobody."""
    files = [adapter.png_file(report.image, GRAPH_FILE)] if report.image else []
    # the game's page shows the same figures beside its boards, when pages are served
    page = adapter.link_view(adapter.watch_button(report.game.id, _("Step through it on the web")))
    return adapter.Post(embed=summary_embed(report), files=files, game_id=report.game.id, view=page)


# ----- the summary -----------------------------------------------------------------------


def _pct(x: float, sign: bool = False) -> str:
    return f"{100 * x:+.1f}%" if sign else f"{100 * x:.1f}%"


def _player(view: GameView, side: str) -> str:
    """The side's player as the embed names them (a mention pings nobody in an embed)."""
    return adapter.mention(view.white_id if side == "white" else view.black_id)


def _result_word(score: float | None) -> str:
    words = {1.0: N_("won"), 0.5: N_("drew"), 0.0: N_("lost")}
    word = words.get(score if score is not None else -1)
    return _(word) if word is not None else "-"


def summary_embed(report: AnalysisReport) -> discord.Embed:
    """Each player's error rate, luck rate and luck-adjusted result; the biggest error
    and the luckiest roll, linked to their boards; the graph."""
    a = report.analysis
    view = report.game
    result = {"white": _("White won"), "black": _("Black won"), None: _("A draw")}[a.winner]
    if a.reason is None:
        result = _("Not finished by the rules")
    embed = discord.Embed(
        title=_("Game {id} · {title}: errors and luck", id=view.id, title=view.variant_title),
        description=_(
            "{result}{reason}. Searched {depth} deep. Equity is a player's expected score, "
            "0 to 100%; an error is the equity an action gave up, luck what a roll gave or "
            "took.",
            result=result,
            reason=f" ({a.reason})" if a.reason else "",
            depth=a.depth,
        ),
        colour=adapter.COLOUR_OVER,
    )
    for p in a.players:
        adjusted = (
            "-"
            if p.luck_adjusted is None
            else _(
                "{adjusted} ({word} {result}, net luck {luck})",
                adjusted=f"{p.luck_adjusted:.2f}",
                word=_result_word(p.result),
                result=f"{p.result:g}",
                luck=_pct(p.net_luck, sign=True),
            )
        )
        embed.add_field(
            name=colour_word(p.side).capitalize(),
            value=adapter.clip(
                _player(view, p.side)
                + "\n"
                + _(
                    "Error rate: {rate} per decision ({blunders} ??, {mistakes} ?, "
                    "{inaccuracies} ?!)",
                    rate=_pct(p.error_rate),
                    blunders=p.blunders,
                    mistakes=p.mistakes,
                    inaccuracies=p.inaccuracies,
                )
                + "\n"
                + _(
                    "Luck rate: {rate} per roll ({jokers} jokers, {anti} anti-jokers)",
                    rate=_pct(p.luck_rate, sign=True),
                    jokers=p.jokers,
                    anti=p.anti_jokers,
                )
                + "\n"
                + _("Luck-adjusted result: {adjusted}", adjusted=adjusted),
                adapter.MAX_FIELD_TEXT,
            ),
            inline=True,
        )
    embed.add_field(name=_("Biggest error"), value=_biggest_error(report), inline=False)
    embed.add_field(name=_("Luckiest roll"), value=_luckiest_roll(report), inline=False)
    if report.image is not None:
        embed.set_image(url=f"attachment://{GRAPH_FILE}")
    embed.set_footer(
        text=_(
            "Luck-adjusted result: the result minus the net luck of the dice. Graph: White's "
            "expected score; dots mark ?? (red), ? (orange), ?! (yellow); bars are the luck "
            "of each roll, gold ticks the jokers."
        )
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
        return _("[board]({link})", link=jump_link(guild, board))
    if report.last_board is not None:
        return _(
            "(its board is not known; [last board]({link}))",
            link=jump_link(guild, report.last_board),
        )
    return _("(no board of it is known)")


def _biggest_error(report: AnalysisReport) -> str:
    worst = report.analysis.biggest_error()
    if worst is None:
        return _("Nobody had a choice to make.")
    if worst.error <= 0:
        return _("None: every action was as good as the search's best.")
    best = _(", best was {action}", action=_md(worst.best)) if worst.best else ""
    kinds = {"??": N_("a blunder"), "?": N_("a mistake"), "?!": N_("an inaccuracy")}
    kind = kinds.get(worst.label)
    return _(
        "Ply {ply}, {side}: **{action}** gave up {lost}{kind}{best}. {link}",
        ply=worst.ply,
        side=colour_word(worst.side),
        action=_md(worst.action or "") + worst.label,
        lost=_pct(worst.error),
        kind=f" ({_(kind)})" if kind else "",
        best=best,
        link=_link(report, worst.ply),
    )


def _luckiest_roll(report: AnalysisReport) -> str:
    best = report.analysis.luckiest_roll()
    if best is None:
        return _("No roll in this game could go more than one way: its luck is 0.")
    dice = " ".join(str(v) for v in best.rolled) or "-"
    kind = _(" (a joker)") if best.luck_label == "joker" else ""
    # The roll before decision ``ply`` is shown on the board after ``ply - 1`` actions.
    return _(
        "Ply {ply}, {side} rolled {dice}: {luck}{kind}. {link}",
        ply=best.ply,
        side=colour_word(best.roller),
        dice=dice,
        luck=_pct(best.luck, sign=True),
        kind=kind,
        link=_link(report, best.ply - 1),
    )


__all__ = [
    "EDIT_EVERY_S",
    "GRAPH_FILE",
    "ProgressEdits",
    "analyse",
    "summary_embed",
    "summary_post",
]
