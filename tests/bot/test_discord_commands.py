"""Slash-command callbacks with fake interactions: turns, permissions, autocomplete,
deferral order, ephemeral errors, one game per location, threads."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import discord
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the fakes toolkit lives beside this file
from fakes import FakeMember, Table  # noqa: E402

from bot.cogs.dice import DiceCog  # noqa: E402
from bot.cogs.game import GameCog  # noqa: E402
from bot.cogs.info import InfoCog  # noqa: E402


@pytest.fixture
async def table(tmp_path: Path) -> Any:
    table = await Table.open(tmp_path)
    yield table
    await table.close()


def cogs(table: Table) -> tuple[GameCog, InfoCog, DiceCog]:
    return GameCog(table.client), InfoCog(table.client), DiceCog(table.client)  # type: ignore[arg-type]


async def start_game(
    table: Table, variant: str = "kings_guard", *, channel: Any = None
) -> tuple[FakeMember, FakeMember, int]:
    """alice challenges bob (alice white), bob accepts; returns (white, black, game id)."""
    game, _, _ = cogs(table)
    alice, bob = table.member("alice"), table.member("bob")
    await game.play.callback(game, table.interaction(alice, channel), variant, bob, "white")
    challenge = table.last_sent(with_view=True)
    press = table.interaction(bob, channel, message=table.message_of(challenge))
    await table.press(challenge.button("Accept"), press)
    view = await table.service.view(location_id=(channel or table.channel).id)
    assert view.status == "active"
    return alice, bob, view.id


# ----- /play ------------------------------------------------------------------------


async def test_play_posts_a_challenge_with_buttons(table: Table) -> None:
    game, _, _ = cogs(table)
    alice, bob = table.member("alice"), table.member("bob")
    await game.play.callback(game, table.interaction(alice), "tquarchess", bob, "black")
    sent = table.last_sent()
    assert sent.how == "send_message" and not sent.ephemeral
    assert bob.mention in (sent.content or "")
    view = await table.service.view(location_id=table.channel.id)
    # No seed before acceptance (contract C4): the commitment is posted with the first board.
    assert view.status == "challenge" and view.commitment is None
    assert sent.custom_ids() == [f"cg:accept:{view.id}", f"cg:decline:{view.id}"]


async def test_accept_starts_the_game_mentions_the_mover_and_shows_the_board(table: Table) -> None:
    alice, bob, game_id = await start_game(table)
    board = table.last_sent()
    assert board.how == "followup" and not board.ephemeral
    assert alice.mention in (board.content or "")  # white to move
    assert board.embed is not None and board.embed.image.url == "attachment://board.png"
    assert "board.png" in board.filenames()
    assert "commitment" in board.text.lower()
    ids = board.custom_ids()
    assert f"cg:draw:{game_id}" in ids and f"cg:resign:{game_id}" in ids
    assert any(i.startswith(f"cg:flip:{game_id}:") for i in ids)
    # the challenge message lost its buttons
    challenge = table.messages[0]
    assert challenge.edits and challenge.edits[-1]["view"] is None
    assert challenge.sent.view is None


async def test_play_rejects_bad_options_ephemerally_naming_the_allowed_ones(table: Table) -> None:
    game, _, _ = cogs(table)
    alice, bob = table.member("alice"), table.member("bob")
    await game.play.callback(
        game, table.interaction(alice), "jepps_random", bob, "white", False, "colour=blue"
    )
    sent = table.last_sent()
    assert sent.ephemeral and "free_play" in sent.text
    assert await table.service.list_games(location_id=table.channel.id) == ()
    await game.play.callback(
        game, table.interaction(alice), "jepps_random", bob, "white", False, "free_play"
    )
    view = await table.service.view(location_id=table.channel.id)
    assert view.options == {"free_play": True}


async def test_play_refuses_bots_and_yourself(table: Table) -> None:
    game, _, _ = cogs(table)
    alice = table.member("alice")
    await game.play.callback(
        game, table.interaction(alice), "kings_guard", table.member("robo", bot=True)
    )
    assert table.last_sent().ephemeral
    await game.play.callback(game, table.interaction(alice), "kings_guard", alice)
    assert table.last_sent().ephemeral and "yourself" in table.last_sent().text


async def test_open_challenge_anyone_may_accept(table: Table) -> None:
    game, _, _ = cogs(table)
    alice, carol = table.member("alice"), table.member("carol")
    await game.play.callback(game, table.interaction(alice), "kings_guard", None, "white")
    challenge = table.last_sent(with_view=True)
    await table.press(challenge.button("Accept"), table.interaction(carol))
    view = await table.service.view(location_id=table.channel.id)
    assert view.status == "active" and view.black_id == carol.id


# ----- one game per location, threads ----------------------------------------------------


async def test_second_game_in_a_busy_channel_gets_a_thread(table: Table) -> None:
    await start_game(table)
    game, _, _ = cogs(table)
    carol, dave = table.member("carol"), table.member("dave")
    await game.play.callback(game, table.interaction(carol), "guardener", dave)
    names = table.log.names()
    assert names.index("defer") < names.index("create_thread")  # defer before the round trip
    assert len(table.threads) == 1
    thread = table.threads[0]
    assert "Carol vs Dave" in thread.name
    in_thread = [s for s in table.sent if s.where == thread.id]
    assert in_thread and in_thread[-1].custom_ids()[0].startswith("cg:accept:")
    assert dave.mention in (in_thread[-1].content or "")
    note = table.last_sent()
    assert thread.mention in note.text and not note.ephemeral
    view = await table.service.view(location_id=thread.id)
    assert view.status == "challenge" and view.guild_id == table.guild.id


async def test_thread_on_request(table: Table) -> None:
    game, _, _ = cogs(table)
    alice, bob = table.member("alice"), table.member("bob")
    await game.play.callback(game, table.interaction(alice), "kings_guard", bob, "white", True)
    assert len(table.threads) == 1
    assert await table.service.list_games(location_id=table.channel.id) == ()
    assert (await table.service.view(location_id=table.threads[0].id)).status == "challenge"


async def test_a_busy_thread_refuses_a_second_game(table: Table) -> None:
    game, _, _ = cogs(table)
    alice, bob = table.member("alice"), table.member("bob")
    await game.play.callback(game, table.interaction(alice), "kings_guard", bob, "white", True)
    thread = table.threads[0]
    carol = table.member("carol")
    await game.play.callback(game, table.interaction(carol, thread), "kings_guard", alice)
    sent = table.last_sent()
    assert sent.ephemeral and "already has game" in sent.text
    assert len(table.threads) == 1
    assert "defer" not in table.log.names()[-2:]


async def test_thread_creation_failure_is_explained(table: Table) -> None:
    game, _, _ = cogs(table)
    table.thread_error = discord.Forbidden(_Response(403), "Missing Permissions")
    alice, bob = table.member("alice"), table.member("bob")
    await game.play.callback(game, table.interaction(alice), "kings_guard", bob, "white", True)
    assert "Create Public Threads" in table.last_sent().text
    assert await table.service.list_games(location_id=table.channel.id) == ()


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "Forbidden"


# ----- turns and permissions --------------------------------------------------------------


async def test_only_the_mover_may_move(table: Table) -> None:
    white, black, _ = await start_game(table)
    game, _, _ = cogs(table)
    legal = await table.service.legal_moves(location_id=table.channel.id)
    inter = table.interaction(black)
    await game.move.callback(game, inter, legal[0])
    sent = table.last_sent()
    assert sent.ephemeral and "turn" in sent.text.lower()
    assert "defer" not in [e[0] for e in table.log[-2:]]
    spectator = table.member("eve")
    await game.move.callback(game, table.interaction(spectator), legal[0])
    assert table.last_sent().ephemeral and "not playing" in table.last_sent().text
    await game.move.callback(game, table.interaction(white), legal[0])
    board = table.last_sent()
    assert not board.ephemeral and black.mention in (board.content or "")
    assert (await table.service.view(location_id=table.channel.id)).ply == 1


async def test_illegal_move_is_ephemeral_and_says_what_is_legal(table: Table) -> None:
    white, _, _ = await start_game(table)
    game, _, _ = cogs(table)
    await game.move.callback(game, table.interaction(white), "Ke8")
    sent = table.last_sent()
    assert sent.ephemeral and sent.how == "send_message"
    assert "legal now" in sent.text.lower()
    assert (await table.service.view(location_id=table.channel.id)).ply == 0


async def test_commands_without_a_game_are_ephemeral_errors(table: Table) -> None:
    game, info, _ = cogs(table)
    alice = table.member("alice")
    for call in (
        game.move.callback(game, table.interaction(alice), "e4"),
        game.resign.callback(game, table.interaction(alice)),
        game.draw.callback(game, table.interaction(alice)),
        game.pass_.callback(game, table.interaction(alice)),
        game.reroll.callback(game, table.interaction(alice)),
        game.board.callback(game, table.interaction(alice)),
        info.history.callback(info, table.interaction(alice)),
        info.verify.callback(info, table.interaction(alice)),
    ):
        before = len(table.sent)
        await call
        assert len(table.sent) == before + 1
        assert table.last_sent().ephemeral, table.last_sent().text
    assert "defer" not in table.log.names()


async def test_abort_needs_manage_messages(table: Table) -> None:
    white, _, game_id = await start_game(table)
    game, _, _ = cogs(table)
    await game.abort.callback(game, table.interaction(white), "boring")
    assert table.last_sent().ephemeral and "Manage Messages" in table.last_sent().text
    assert (await table.service.view(game_id=game_id)).status == "active"
    mod = table.member("mod")
    await game.abort.callback(game, table.interaction(mod, moderator=True), "boring")
    sent = table.last_sent()
    assert not sent.ephemeral and "aborted" in sent.text and "seed" in sent.text.lower()
    assert (await table.service.view(game_id=game_id)).status == "aborted"
    # the decorators say the same to Discord
    assert (
        game.abort.default_permissions is not None
        and game.abort.default_permissions.manage_messages
    )
    assert game.abort.checks


async def test_resign_and_draw_by_players_only(table: Table) -> None:
    white, black, game_id = await start_game(table)
    game, info, _ = cogs(table)
    eve = table.member("eve")
    await game.resign.callback(game, table.interaction(eve))
    assert table.last_sent().ephemeral
    await game.draw.callback(game, table.interaction(white), "offer")
    offer = table.last_sent()
    assert black.mention in (offer.content or "") and f"cg:draw-yes:{game_id}" in offer.custom_ids()
    await game.draw.callback(game, table.interaction(black), "decline")
    assert (await table.service.view(game_id=game_id)).draw_offer is None
    await game.resign.callback(game, table.interaction(black))
    final = table.last_sent()
    view = await table.service.view(game_id=game_id)
    assert view.status == "finished" and view.winner == "white"
    assert view.seed is not None and view.seed in final.text  # the seed is revealed at the end
    assert final.custom_ids() == [f"cg:flip:{game_id}:w"]
    await info.verify.callback(info, table.interaction(eve))
    assert "all rolls check out" in table.last_sent().text


# ----- deferral -------------------------------------------------------------------------


async def test_a_slow_render_is_deferred_first(table: Table) -> None:
    white, _, _ = await start_game(table)
    game, _, _ = cogs(table)
    table.render_delay = 0.2
    mark = len(table.log)
    legal = await table.service.legal_moves(location_id=table.channel.id)
    await game.move.callback(game, table.interaction(white), legal[0])
    names = table.log.names()[mark:]
    assert names.index("defer") < names.index("render_start") < names.index("followup")
    assert "send_message" not in names
    assert table.last_sent().how == "followup" and "board.png" in table.last_sent().filenames()


async def test_board_for_spectators_and_flip(table: Table) -> None:
    white, black, game_id = await start_game(table)
    game, _, _ = cogs(table)
    eve = table.member("eve")
    mark = len(table.log)
    await game.board.callback(game, table.interaction(eve))
    names = table.log.names()[mark:]
    assert names.index("defer") < names.index("render")
    assert ("render", "white") in table.log[mark:]  # white to move: spectators see that side
    assert not table.last_sent().ephemeral
    mark = len(table.log)
    await game.board.callback(game, table.interaction(black), True)  # black flips to white's view
    assert ("render", "white") in table.log[mark:]
    mark = len(table.log)
    await game.board.callback(game, table.interaction(black))
    assert ("render", "black") in table.log[mark:]


# ----- autocomplete -------------------------------------------------------------------------


async def test_autocomplete_lists_the_movers_legal_actions_ranked(table: Table) -> None:
    white, black, _ = await start_game(table)
    game, _, _ = cogs(table)
    legal = await table.service.legal_moves(location_id=table.channel.id)
    assert len(legal) > 25
    every = await game.move_autocomplete(table.interaction(white), "")
    assert len(every) == 25
    assert [c.value for c in every] == list(legal[:25])
    assert all(isinstance(c, discord.app_commands.Choice) and len(c.name) <= 100 for c in every)
    knights = await game.move_autocomplete(table.interaction(white), "N")
    assert knights and all(c.value.startswith("N") for c in knights)
    assert {c.value for c in knights} == {m for m in legal if m.startswith("N")}
    e_moves = await game.move_autocomplete(table.interaction(white), "e")
    values = [c.value for c in e_moves]
    prefixed = [v for v in values if v.startswith("e")]
    assert prefixed and values[: len(prefixed)] == prefixed  # prefix matches first
    assert all("e" in v.lower() for v in values)
    assert await game.move_autocomplete(table.interaction(black), "") == []  # not black's turn
    assert await game.move_autocomplete(table.interaction(table.member("eve")), "") == []
    assert await game.move_autocomplete(table.interaction(white), "zz9") == []


async def test_autocomplete_without_a_game_is_empty(table: Table) -> None:
    game, _, _ = cogs(table)
    assert await game.move_autocomplete(table.interaction(table.member("alice")), "e4") == []


# ----- looking, dice --------------------------------------------------------------------------


async def test_history_gives_text_and_a_file(table: Table) -> None:
    white, _, game_id = await start_game(table)
    game, info, _ = cogs(table)
    legal = await table.service.legal_moves(location_id=table.channel.id)
    await game.move.callback(game, table.interaction(white), legal[0])
    await info.history.callback(info, table.interaction(table.member("eve")))
    sent = table.last_sent()
    assert not sent.ephemeral and legal[0] in sent.text
    assert sent.filenames() == [f"chessgarden-game-{game_id}.txt"]
    data = sent.files[0].fp.read().decode()
    assert legal[0] in data
    history = await table.service.history(game_id=game_id)
    assert history.record.strip() in data


async def test_games_lists_live_games_with_jump_links(table: Table) -> None:
    await start_game(table)
    game, info, _ = cogs(table)
    await game.play.callback(game, table.interaction(table.member("carol")), "guardener", None)
    await info.games.callback(info, table.interaction(table.member("eve")))
    sent = table.last_sent()
    links = [
        f"https://discord.com/channels/{table.guild.id}/{table.channel.id}",
        f"https://discord.com/channels/{table.guild.id}/{table.threads[0].id}",
    ]
    assert all(link in sent.text for link in links)
    assert "challenge" in sent.text and "active" in sent.text


async def test_rules_has_summary_readings_and_a_piece_diagram(table: Table) -> None:
    _, info, _ = cogs(table)
    import variants

    inter = table.interaction(table.member("eve"))
    await info.rules.callback(info, inter, "stone_garden")
    sent = table.last_sent()
    rules = variants.rules("stone_garden")
    assert rules.summary[:40] in sent.text
    assert all(reading[:30] in sent.text for reading in rules.readings[:3])
    assert sent.filenames() == ["pieces.png"]
    assert sent.embed is not None and sent.embed.image.url == "attachment://pieces.png"
    names = table.log.names()
    assert names.index("defer") < names.index("followup")


async def test_roll(table: Table) -> None:
    _, _, dice = cogs(table)
    dice.rng = lambda sides: sides  # every die shows its top face
    await dice.roll.callback(dice, table.interaction(table.member("eve")), "4d6kh3+2")
    sent = table.last_sent()
    assert not sent.ephemeral and "= 20" in sent.text
    await dice.roll.callback(dice, table.interaction(table.member("eve")), "4x6")
    assert table.last_sent().ephemeral
