"""Discord's faults, in turn, for the flows of issue 24's second round: a takeback request,
its acceptance and its decline, /analyse's summary, /settings, and a tournament's round opening (its
announcement, a game's thread and first board). The machinery is
``test_discord_faults``'s: every request of the flow fails once in each of the ways
Discord fails, the outbox worker then runs until nothing is due, and the owed posts lost
or doubled are counted (all must be 0; a refusal of the owed post itself is kept with its
reason). Below them, a kill between the commit and the post: the action commits, the
process dies before its front end posts anything, and a new process on the same store
delivers the owed post once.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from discord_fake import StoredMessage  # noqa: E402
from harness import World, latest_board, start_game  # noqa: E402
from test_discord_faults import (  # noqa: E402
    REFUSALS,
    START,
    Flow,
    clock,
    every_request_fails_in_turn,
    game_of_or_none,
    pinging,
    to_act_has_a_board,
)

from bot.service import ManualClock, Scheduler  # noqa: E402

POST = "POST /channels/{channel_id}/messages"
DEPTH = 1  # the analysis's search depth here: quick

# ----- takebacks ----------------------------------------------------------------------------


async def takeback_prepare(world: World) -> dict[str, Any]:
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    await world.command(alice, "move", notation="e3")
    return {"alice": alice, "bob": bob, "game_id": view.id}


async def ask_run(world: World, ctx: dict[str, Any]) -> None:
    await world.press(ctx["alice"], latest_board(world, ctx["game_id"]), "Takeback")


def request_owed(
    world: World, ctx: dict[str, Any], new: list[StoredMessage]
) -> list[StoredMessage]:
    """The public request pinging Bob, with its Accept button."""
    bob = ctx["bob"]
    return [m for m in new if not m.ephemeral and bob.id in m.pings and "takeback" in m.text]


async def request_stuck(world: World, ctx: dict[str, Any]) -> str | None:
    row = await world.service.repo.get_game(ctx["game_id"])
    if row is None or row.takeback_offer != "white":
        return "the request was not recorded"
    answerable = [m for m in world.with_buttons() if "Accept takeback" in m.buttons()]
    if len(answerable) != 1:
        return f"{len(answerable)} requests with buttons"
    return None


async def accept_prepare(world: World) -> dict[str, Any]:
    ctx = await takeback_prepare(world)
    await ask_run(world, ctx)
    (request,) = [m for m in world.with_buttons() if "Accept takeback" in m.buttons()]
    return {**ctx, "message": request.id, "ply": 0}


async def accept_tb_run(world: World, ctx: dict[str, Any]) -> None:
    await world.press(ctx["bob"], world.discord.messages[ctx["message"]], "Accept takeback")


async def accepted_stuck(world: World, ctx: dict[str, Any]) -> str | None:
    problem = await to_act_has_a_board(world, ctx)
    if problem is None and world.discord.messages[ctx["message"]].buttons():
        # a refused or failed edit leaves them; they then answer "no request"
        row = await world.service.repo.get_game(ctx["game_id"])
        if row is not None and row.takeback_offer is not None:
            return "the request still stands"
    return problem


async def decline_run(world: World, ctx: dict[str, Any]) -> None:
    await world.press(ctx["bob"], world.discord.messages[ctx["message"]], "Decline takeback")


def declined_owed(
    world: World, ctx: dict[str, Any], new: list[StoredMessage]
) -> list[StoredMessage]:
    """The request's message, turned into the notice (an edit: nothing new is posted)."""
    message = world.discord.messages[ctx["message"]]
    notices = [m for m in new if "declines the takeback" in m.text]
    return [message, *notices] if "declines the takeback" in message.text else notices


async def declined_stuck(world: World, ctx: dict[str, Any]) -> str | None:
    row = await world.service.repo.get_game(ctx["game_id"])
    if row is None or row.takeback_offer is not None:
        return "the request still stands"
    if world.discord.messages[ctx["message"]].buttons() and ctx.get("fault") not in REFUSALS:
        return "the answered request still has its buttons"
    return await to_act_has_a_board(world, {**ctx, "ply": 1})


# ----- /analyse -----------------------------------------------------------------------------


async def analyse_prepare(world: World) -> dict[str, Any]:
    """A finished game, its analysis kept already: the flow's requests are the same in
    every run (a fresh analysis's progress edits depend on the worker's timing; the post
    owed with a fresh analysis is tested by the kill below)."""
    world.bot.analysis_edit_every = 0.0  # type: ignore[attr-defined]
    ctx = await analyse_prepare_fresh(world)
    await world.service.analyse(game_id=ctx["game_id"], render=False)
    return ctx


async def analyse_run(world: World, ctx: dict[str, Any]) -> None:
    await world.command(ctx["bob"], "analyse", game=ctx["game_id"])


def summary_owed(
    world: World, ctx: dict[str, Any], new: list[StoredMessage]
) -> list[StoredMessage]:
    return [m for m in new if not m.ephemeral and "errors and luck" in m.text]


async def analyse_stuck(world: World, ctx: dict[str, Any]) -> str | None:
    rows = [r for r in await world.service.outbox_of_game(game_id=ctx["game_id"])]
    owed = [r for r in rows if r.kind == "analysis"]
    if len(owed) != 1:
        return f"{len(owed)} analysis rows"
    if owed[0].state == "pending":
        return "the summary is still owed"
    return None


# ----- /settings ----------------------------------------------------------------------------


async def settings_prepare(world: World) -> dict[str, Any]:
    return {"mod": world.user("admin", admin=True), "game_id": 0}


async def settings_run(world: World, ctx: dict[str, Any]) -> None:
    await world.command(ctx["mod"], "settings", days=7)


async def settings_changes(world: World) -> list[Any]:
    return [c for c in await world.service.server_settings.log(world.guild_id) if c.name == "days"]


def settings_owed(
    world: World, ctx: dict[str, Any], new: list[StoredMessage]
) -> list[StoredMessage]:
    """Nothing is owed to a channel: the answer is private. What must be there once is
    the moderator's answer (the settings, or a sentence saying Discord failed)."""
    return [m for m in new if m.ephemeral and ("7" in m.text or "Discord" in m.text)]


async def settings_stuck(world: World, ctx: dict[str, Any]) -> str | None:
    changes = await settings_changes(world)
    if len(changes) != 1 or changes[0].new != 7:
        return f"{len(changes)} changes of days logged"
    current = await world.service.server_settings.of_guild(world.guild_id)
    return None if current.days == 7 else f"days is {current.days}"


# ----- a tournament's round opening -------------------------------------------------------


async def tournament_prepare(world: World) -> dict[str, Any]:
    mod, p1, p2 = world.user("mod", moderator=True), world.user("p1"), world.user("p2")
    await world.command(
        mod, "tournament create", variant="kings_guard", format="swiss",
        rounds=1, days=1, rated=False, starts="1h",
    )  # fmt: skip
    for person in (p1, p2):
        await world.command(person, "tournament join")
    return {"p1": p1, "p2": p2, "game_id": 0, "scheduler": Scheduler(world.service)}


async def tournament_run(world: World, ctx: dict[str, Any]) -> None:
    clock(world).set(START + timedelta(hours=1, minutes=1))
    await ctx["scheduler"].run_once()
    await world.deliver()
    pairs = await world.service.tournaments.pairings(guild_id=world.guild_id, round_no=1)
    ctx["game_id"] = pairs.boards[0].game_id if pairs.boards else 0


def first_board_owed(
    world: World, ctx: dict[str, Any], new: list[StoredMessage]
) -> list[StoredMessage]:
    """The round's game: its first board, pinging both players, in a thread of its own
    or (a thread refused) in the channel."""
    both = {ctx["p1"].id, ctx["p2"].id}
    return [
        m for m in new if both <= m.pings and m.buttons() and game_of_or_none(m) == ctx["game_id"]
    ]


async def round_stuck(world: World, ctx: dict[str, Any]) -> str | None:
    announced = [m for m in world.messages_in(world.chess) if "Round 1 is paired" in m.text]
    if len(announced) != 1:
        return f"the round was announced {len(announced)} times"
    if not ctx["game_id"]:
        return "round 1 has no game"
    view = await world.service.view(game_id=ctx["game_id"])
    return None if view.status == "active" else f"the game is {view.status}"


FLOWS = [
    Flow("the Takeback button", takeback_prepare, ask_run, request_owed, request_stuck, None),
    Flow(
        "the Accept takeback button",
        accept_prepare,
        accept_tb_run,
        pinging("alice"),
        accepted_stuck,
        None,
    ),
    Flow(
        "the Decline takeback button",
        accept_prepare,
        decline_run,
        declined_owed,
        declined_stuck,
        None,
    ),
    Flow("/analyse", analyse_prepare, analyse_run, summary_owed, analyse_stuck, POST),
    Flow("/settings", settings_prepare, settings_run, settings_owed, settings_stuck, None),
    Flow(
        "a tournament's round opening",
        tournament_prepare,
        tournament_run,
        first_board_owed,
        round_stuck,
        POST,
        several=True,
    ),
]


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.name)
async def test_every_request_of_the_flow_fails_in_turn(tmp_path: Path, flow: Flow) -> None:
    await every_request_fails_in_turn(tmp_path, flow)


# ----- a kill between the commit and the post ----------------------------------------------
# The action commits (the service's call, as the flow makes it), and the process dies before
# its front end posts anything: a new bot and service on the same store deliver the owed post
# once the hold runs out, and only once.


async def deliver_after_the_hold(world: World) -> None:
    clock(world).set(clock(world).now() + timedelta(minutes=2))  # past HOLD_BOARDS_MS
    await world.deliver()
    await world.deliver()  # a second pass owes nothing more


async def test_killed_between_the_takeback_request_and_its_post(
    tmp_path: Path, store_target: str
) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START), target=store_target)
    try:
        ctx = await takeback_prepare(world)
        before = set(world.discord.messages)
        outcome = await world.service.request_takeback(
            user_id=ctx["alice"].id, game_id=ctx["game_id"], request_id="kill-1"
        )
        assert outcome.owed is not None  # held for the interaction that never answers
        await world.restart(service=True)
        await world.deliver()
        assert set(world.discord.messages) == before  # held: the answer might still post it
        await deliver_after_the_hold(world)
        new = [m for m in world.discord.messages.values() if m.id not in before]
        owed = request_owed(world, ctx, new)
        print(f"\ntakeback request, killed: lost {int(not owed)}, doubled {max(0, len(owed) - 1)}")
        assert len(owed) == 1 and len(new) == 1, [m.text for m in new]
        assert "Accept takeback" in owed[0].buttons()
        assert "asks to take back e3" in owed[0].text
        rows = await world.service.outbox_of_game(game_id=ctx["game_id"])
        assert [(r.kind, r.state) for r in rows if r.kind == "takeback"] == [("takeback", "sent")]
    finally:
        await world.close()


async def test_a_takeback_request_answered_before_its_post_is_not_posted(tmp_path: Path) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        ctx = await takeback_prepare(world)
        before = set(world.discord.messages)
        await world.service.request_takeback(user_id=ctx["alice"].id, game_id=ctx["game_id"])
        await world.restart(service=True)
        await world.service.decline_takeback(user_id=ctx["bob"].id, game_id=ctx["game_id"])
        await deliver_after_the_hold(world)
        new = [m for m in world.discord.messages.values() if m.id not in before]
        assert new == []  # nothing to answer any more: settled unsent
        rows = await world.service.outbox_of_game(game_id=ctx["game_id"])
        assert [(r.kind, r.state, r.message_id) for r in rows if r.kind == "takeback"] == [
            ("takeback", "sent", None)
        ]
    finally:
        await world.close()


async def test_killed_between_the_analysis_and_its_summary(
    tmp_path: Path, store_target: str
) -> None:
    """A fresh analysis: its summary is owed in the transaction that stores it."""
    world = await World.open(tmp_path, clock=ManualClock(START), target=store_target)
    try:
        ctx = await analyse_prepare_fresh(world)
        game_id = ctx["game_id"]
        report = await world.service.analyse(
            game_id=game_id, post_in=world.chess, request_id="kill-2", render=False
        )
        assert world.service.analyses.runs == 1 and not report.cached
        rows = [r for r in await world.service.outbox_of_game(game_id=game_id)]
        (row,) = [r for r in rows if r.kind == "analysis"]
        assert row.id == report.owed and row.nonce == report.nonce
        assert row.payload["digest"] == report.digest and row.state == "pending"
        before = set(world.discord.messages)
        await world.restart(service=True)
        await deliver_after_the_hold(world)
        new = [m for m in world.discord.messages.values() if m.id not in before]
        owed = summary_owed(world, ctx, new)
        print(f"\n/analyse, killed: lost {int(not owed)}, doubled {max(0, len(owed) - 1)}")
        assert len(owed) == 1 and len(new) == 1, [m.text for m in new]
        assert owed[0].files == ["analysis.png"]  # the graph, drawn at delivery
        # the same request again (a retried interaction) owes nothing new
        again = await world.service.analyse(
            game_id=game_id, post_in=world.chess, request_id="kill-2", render=False
        )
        assert again.owed == report.owed
        await deliver_after_the_hold(world)
        assert [m.id for m in world.discord.messages.values() if m.id not in before] == [owed[0].id]
        kinds = [r.kind for r in await world.service.outbox_of_game(game_id=game_id)]
        assert kinds.count("analysis") == 1
    finally:
        await world.close()


async def analyse_prepare_fresh(world: World) -> dict[str, Any]:
    """A finished game, not analysed yet."""
    world.service.analyses.depth = DEPTH
    alice, bob = world.user("alice"), world.user("bob")
    view, _ = await start_game(world, alice, bob)
    await world.command(alice, "move", notation="e3")
    await world.command(bob, "move", notation="e6")
    await world.command(alice, "resign")
    return {"alice": alice, "bob": bob, "game_id": view.id}


async def test_killed_between_a_takeback_decline_and_its_notice(tmp_path: Path) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        ctx = await accept_prepare(world)  # the request is posted, with its buttons
        before = set(world.discord.messages)
        outcome = await world.service.decline_takeback(
            user_id=ctx["bob"].id, game_id=ctx["game_id"]
        )
        assert outcome.owed is not None
        await world.restart(service=True)
        await deliver_after_the_hold(world)
        request = world.discord.messages[ctx["message"]]
        assert "Black declines the takeback; the game goes on." in request.text
        assert request.buttons() == {}
        assert [m for m in world.discord.messages if m not in before] == []  # an edit only
        rows = await world.service.outbox_of_game(game_id=ctx["game_id"])
        answers = [(r.kind, r.state, r.message_id) for r in rows if r.kind == "takeback_answer"]
        assert answers == [("takeback_answer", "sent", ctx["message"])]
    finally:
        await world.close()
