"""Slash commands through raw payloads: challenges, turns, draws, abort, autocomplete,
looking, dice, DMs. Each asserts on what Discord receives: who sees a message, who is
pinged, which buttons stay."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, latest_board, start_game  # noqa: E402

import variants  # noqa: E402


@pytest.fixture
async def world(tmp_path: Path) -> Any:
    world = await World.open(tmp_path)
    yield world
    await world.close()


# ----- /play and /accept -------------------------------------------------------------------


async def test_play_posts_a_challenge_that_pings_only_the_opponent(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    made = await world.command(alice, "play", variant="tquarchess", opponent=bob, colour="black")
    (challenge,) = made.public
    assert challenge.how == "response" and challenge.pings == {bob.id}
    assert bob.mention in challenge.content
    view = await world.game()
    assert view.status == "challenge"
    assert set(challenge.buttons().values()) == {f"cg:accept:{view.id}", f"cg:decline:{view.id}"}
    assert made.bot_requests == []


async def test_accept_starts_the_game_and_pings_the_side_to_move(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, accepted = await start_game(world, alice, bob)
    (board,) = accepted.public
    assert board.how == "response" and board.pings == {alice.id}  # white to move
    assert "board.png" in board.files and "commitment" in board.text.lower()
    ids = set(board.buttons().values())
    assert {f"cg:draw:{view.id}", f"cg:resign:{view.id}", f"cg:flip:{view.id}:w"} <= ids
    # the challenge message lost its buttons (one bot-token edit) and says what happened
    (edit,) = accepted.bot_requests
    assert edit.method == "PATCH" and edit.body and edit.body["components"] == []
    challenge = next(m for m in world.messages_in(world.chess) if m.id != board.id)
    assert not challenge.buttons() and "Accepted by" in challenge.text


async def test_accept_command_for_an_open_challenge(world: World) -> None:
    alice, carol = world.user("alice"), world.user("carol")
    made = await world.command(alice, "play", variant="kings_guard", colour="white")
    assert made.pings == set()  # an open challenge pings nobody
    accepted = await world.command(carol, "accept")
    (board,) = accepted.public
    assert board.pings == {alice.id}
    view = await world.game()
    assert view.status == "active" and view.black_id == carol.id
    assert not world.discord.messages[made.public[0].id].buttons()
    again = await world.command(carol, "accept")
    again.only_private()


async def test_accept_refuses_the_challenger_and_strangers_privately(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    made = await world.command(alice, "play", variant="kings_guard", opponent=bob)
    for who in (alice, eve):
        refused = await world.press(who, made.public[0], "Accept")
        refused.only_private()
    assert (await world.game()).status == "challenge"
    assert made.public[0].buttons()  # still open for bob


async def test_play_rejects_bad_options_naming_the_allowed_ones(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    bad = await world.command(
        alice, "play", variant="jepps_random", opponent=bob, options="colour=blue"
    )
    assert "free_play" in bad.only_private().text
    assert await world.service.list_games(location_id=world.chess) == ()
    await world.command(alice, "play", variant="jepps_random", opponent=bob, options="free_play")
    assert (await world.game()).options == {"free_play": True}


async def test_play_refuses_yourself(world: World) -> None:
    alice = world.user("alice")
    refused = await world.command(alice, "play", variant="kings_guard", opponent=alice)
    assert "yourself" in refused.only_private().text


async def test_decline_and_cancel_replace_the_challenge_message(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    made = await world.command(alice, "play", variant="kings_guard", opponent=bob)
    (challenge,) = made.public
    (await world.press(eve, challenge, "Decline")).only_private()  # not eve's challenge
    declined = await world.press(bob, challenge, "Decline")
    assert declined.created == [] and declined.requests[0].callback_type == 7  # edited in place
    assert "declined" in world.discord.messages[challenge.id].text
    assert not world.discord.messages[challenge.id].buttons()
    made = await world.command(alice, "play", variant="kings_guard", opponent=bob)
    cancelled = await world.press(alice, made.public[0], "Decline")  # the challenger cancels
    assert "cancelled" in world.discord.messages[made.public[0].id].text
    assert cancelled.pings == set()


# ----- turns ------------------------------------------------------------------------------


async def test_only_the_mover_may_move_and_errors_are_private(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    refused = await world.command(bob, "move", notation=legal[0])
    assert "turn" in refused.only_private().text.lower()
    refused = await world.command(eve, "move", notation=legal[0])
    assert "not playing" in refused.only_private().text
    assert refused.bot_requests == []
    played = await world.command(alice, "move", notation=legal[0])
    (board,) = played.public
    assert board.pings == {bob.id} and (await world.game()).ply == 1


async def test_an_illegal_move_is_private_and_says_what_is_legal(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    await start_game(world, alice, bob)
    refused = await world.command(alice, "move", notation="Ke8")
    text = refused.only_private().text
    assert "cannot reach e8" in text and "\nClosest legal: `" in text  # the rule, the nearest
    assert refused.requests[0].callback_type == 4  # answered at once, not deferred
    assert (await world.game()).ply == 0


async def test_commands_without_a_game_answer_privately(world: World) -> None:
    alice = world.user("alice")
    for name, options in (
        ("move", {"notation": "e4"}),
        ("resign", {}),
        ("draw", {}),
        ("pass", {}),
        ("reroll", {}),
        ("board", {}),
        ("accept", {}),
        ("history", {}),
        ("verify", {}),
    ):
        refused = await world.command(alice, name, **options)
        refused.only_private()
        assert [r.callback_type for r in refused.requests] == [4], name


async def test_resign_and_draw_by_players_only(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    (await world.command(eve, "resign")).only_private()
    offered = await world.command(alice, "draw", action="offer")
    (offer,) = offered.public
    assert offer.pings == {alice.id, bob.id}  # bob answers the offer; alice is still to move
    assert "Accept draw" in offer.buttons()
    await world.command(bob, "draw", action="decline")
    assert (await world.game()).draw_offer is None
    resigned = await world.command(bob, "resign")
    (final,) = resigned.public
    view = await world.service.view(game_id=view.id)
    assert view.status == "finished" and view.winner == "white"
    assert view.seed is not None and view.seed in final.text  # the seed is revealed at the end
    assert final.pings == {alice.id}  # the player who did not resign hears of it
    assert set(final.buttons()) == {"Rematch", "Analyse", "Flip"}  # a rated game
    assert "all rolls check out" in (await world.command(eve, "verify")).text


async def test_a_slow_answer_is_deferred_privately_and_the_prompt_still_pings(
    tmp_path: Path,
) -> None:
    world = await World.open(tmp_path, defer_after=0.05)
    try:
        alice, bob = world.user("alice"), world.user("bob")
        view, _ = await start_game(world, alice, bob)
        world.render_delay = 0.2
        legal = await world.service.legal_moves(game_id=view.id)
        played = await world.command(alice, "move", notation=legal[0])
        callback, *rest = played.requests
        assert callback.callback_type == 5 and callback.flags == 64  # a private "thinking…"
        note, board = played.created
        assert note.ephemeral and note.how == "deferred-filled" and note.pings == set()
        assert not board.ephemeral and board.how == "followup" and board.pings == {bob.id}
        # an error after a slow defer fills the private "thinking…": nobody else sees it
        act = world.service.act

        async def slow_act(**kwargs: Any) -> Any:
            await asyncio.sleep(0.2)  # a busy database, say
            return await act(**kwargs)

        world.service.act = slow_act  # type: ignore[method-assign]
        refused = await world.command(bob, "move", notation="Ke1")
        assert refused.only_private().how == "deferred-filled"
    finally:
        await world.close()


async def test_board_pings_only_when_a_player_asks_and_flip_is_private(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    shown = await world.command(eve, "board")
    (board,) = shown.public
    assert board.pings == set() and "board.png" in board.files
    assert latest_board(world, view.id).id == board.id  # the newest board carries the buttons
    shown = await world.command(bob, "board")
    assert shown.public[0].pings == {alice.id}
    flipped = await world.press(eve, shown.public[0], "Flip")
    private = flipped.only_private()
    assert "board.png" in private.files and private.pings == set()
    assert "white at the bottom" in private.text  # bob's board showed black's side


# ----- autocomplete -------------------------------------------------------------------------


async def test_autocomplete_lists_the_movers_legal_actions_ranked(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    assert len(legal) > 25
    every = await world.autocomplete(alice, "move", "notation", notation="")
    assert [c["value"] for c in every] == list(legal[:25])
    knights = await world.autocomplete(alice, "move", "notation", notation="N")
    assert {c["value"] for c in knights} == {m for m in legal if m.startswith("N")}
    values = [c["value"] for c in await world.autocomplete(alice, "move", "notation", notation="e")]
    prefixed = [v for v in values if v.startswith("e")]
    assert prefixed and values[: len(prefixed)] == prefixed
    assert await world.autocomplete(bob, "move", "notation", notation="") == []
    assert await world.autocomplete(eve, "move", "notation", notation="") == []
    assert await world.autocomplete(alice, "move", "notation", notation="zz9") == []


# ----- moderators -----------------------------------------------------------------------------


async def test_abort_needs_manage_messages_and_retires_the_board(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    mod = world.user("mod", moderator=True)
    view, _ = await start_game(world, alice, bob)
    refused = await world.command(alice, "abort", reason="boring")
    assert "Manage Messages" in refused.only_private().text
    aborted = await world.command(mod, "abort", reason="boring")
    (notice,) = aborted.public
    assert "aborted" in notice.text and "seed" in notice.text.lower()
    assert (await world.service.view(game_id=view.id)).status == "aborted"
    assert world.with_buttons() == []
    command = world.bot.tree.get_command("abort")
    assert command is not None and command.default_permissions.manage_messages  # type: ignore[union-attr]


# ----- looking, dice --------------------------------------------------------------------------


async def test_history_gives_text_and_a_file(world: World) -> None:
    alice, bob, eve = world.user("alice"), world.user("bob"), world.user("eve")
    view, _ = await start_game(world, alice, bob)
    legal = await world.service.legal_moves(game_id=view.id)
    await world.command(alice, "move", notation=legal[0])
    shown = await world.command(eve, "history")
    (record,) = shown.public
    assert legal[0] in record.text and record.files == [f"chessgarden-game-{view.id}.txt"]


async def test_games_lists_live_games_with_jump_links_privately(world: World) -> None:
    alice, bob, carol, eve = (world.user(n) for n in ("alice", "bob", "carol", "eve"))
    await start_game(world, alice, bob)
    await world.command(carol, "play", variant="guardener")  # busy channel: a thread
    (thread,) = world.threads()
    listed = (await world.command(eve, "games")).only_private()
    for place in (world.chess, int(thread["id"])):
        assert f"https://discord.com/channels/{world.guild_id}/{place}" in listed.text
    assert "challenge" in listed.text and "active" in listed.text


@pytest.mark.parametrize("variant", variants.names())
async def test_rules_fit_discords_limits(world: World, variant: str) -> None:
    shown = await world.command(world.user("eve"), "rules", variant=variant)
    message = shown.public[0]  # more pages follow as messages of their own
    rules = variants.rules(variant)
    assert rules.summary[:40] in message.text
    everything = " ".join(" ".join(m.text for m in shown.public).split())
    assert all(" ".join(r.split()) in everything for r in rules.readings)  # nothing cut off
    assert "pieces.png" in message.files


async def test_roll(world: World) -> None:
    world.bot.get_cog("Dice").rng = lambda sides: sides  # type: ignore[union-attr]
    rolled = await world.command(world.user("eve"), "roll", expression="4d6kh3+2")
    assert "= 20" in rolled.public[0].text
    (await world.command(world.user("eve"), "roll", expression="4x6")).only_private()


# ----- direct messages --------------------------------------------------------------------------


async def test_info_commands_in_a_dm(world: World) -> None:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    rules = await world.command(alice, "rules", channel=None, variant="kings_guard")
    assert rules.public
    mine = (await world.command(alice, "games", channel=None)).only_private()
    assert f"https://discord.com/channels/{world.guild_id}/{world.chess}" in mine.text
    theirs = (await world.command(world.user("eve"), "games", channel=None)).only_private()
    assert "No games" in theirs.text
    asked = (await world.command(alice, "history", channel=None)).only_private()
    assert "game:" in asked.text
    shown = await world.command(alice, "history", channel=None, game=view.id)
    assert shown.public
    with pytest.raises(AssertionError, match="only in servers"):  # Discord would not send it
        await world.command(alice, "play", channel=None, variant="kings_guard")
