"""Who may run a tournament (issue 30), through the payload harness: the role set with
``/settings tournament_role`` lets a member without Manage Messages create, remove a
player from and cancel a tournament; a member without it is refused with one plain
private sentence, and nothing changes; a moderator always can."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World  # noqa: E402

from bot.service import ManualClock  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
CREATE = {
    "variant": "kings_guard",
    "format": "swiss",
    "rounds": 3,
    "days": 1,
    "rated": False,
    "starts": "1d",
}


def refused(ex: object, doing: str) -> None:
    """One private sentence, the organisers' refusal."""
    text = ex.only_private().text  # type: ignore[attr-defined]
    assert text.startswith("Only moderators") and text.endswith(f"can {doing}.")
    assert text.count(".") == 1 and "Manage Messages" in text


async def test_the_tournament_role_may_run_tournaments(tmp_path: Path) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        admin = world.user("admin", admin=True)
        mod = world.user("mod", moderator=True)
        organisers = world.add_role("Organisers")
        other_role = world.add_role("Chess club")
        org = world.user("org", roles=(organisers,))
        member = world.user("member", roles=(other_role,))
        player = world.user("player")
        tours = world.service.tournaments

        # No role set yet: the would-be organiser is refused like anyone.
        refused(await world.command(org, "tournament create", **CREATE), "create a tournament")
        ex = await world.command(admin, "settings", tournament_role=organisers)
        assert f"<@&{organisers}>" in ex.text
        settings = await world.service.server_settings.of_guild(world.guild_id)
        assert settings.tournament_role == organisers

        # A member without the role: refused, nothing made.
        refused(await world.command(member, "tournament create", **CREATE), "create a tournament")
        with_role = await world.command(org, "tournament create", **CREATE, title="Club Swiss")
        assert "Tournament 1 (Club Swiss) is open" in with_role.text
        assert not with_role.private
        await world.command(player, "tournament join")
        await world.command(member, "tournament join")
        refused(await world.command(member, "tournament remove", player=player), "remove a player")
        refused(await world.command(member, "tournament cancel"), "cancel a tournament")
        refused(await world.command(member, "tournament start"), "start a tournament")
        info = await tours.info(guild_id=world.guild_id, tournament_id=1)
        assert {p.player_id for p in info.joined} == {player.id, member.id}
        assert info.tournament.status == "registration"

        # The role's member removes a player and cancels.
        ex = await world.command(org, "tournament remove", player=member, reason="no-show")
        assert "removed" in ex.text.lower()
        info = await tours.info(guild_id=world.guild_id, tournament_id=1)
        assert {p.player_id for p in info.joined} == {player.id}
        ex = await world.command(org, "tournament cancel", reason="too few players")
        assert "cancelled" in ex.text.lower()
        assert (await tours.tournament(tournament_id=1)).status == "cancelled"

        # A moderator (Manage Messages, without the role) always can.
        ex = await world.command(mod, "tournament create", **CREATE, title="Mods' Swiss")
        assert "Tournament 2 (Mods' Swiss) is open" in ex.text
        ex = await world.command(mod, "tournament cancel")
        assert "cancelled" in ex.text.lower()

        # The role taken away again: its members are refused once more.
        await world.command(admin, "settings", reset="tournament_role")
        settings = await world.service.server_settings.of_guild(world.guild_id)
        assert settings.tournament_role is None
        refused(await world.command(org, "tournament create", **CREATE), "create a tournament")
        assert (await tours.tournament(tournament_id=2)).status == "cancelled"
    finally:
        await world.close()
