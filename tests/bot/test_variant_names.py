"""A variant's name in the reader's language (issue 27).

The policy: the proper name stays as it is, and the generic word for chess in it is
translated ("Guardener Chess" -> "Guardener-Schach"); a coined name ("Tquarchess") stays
whole. The variant declares its name (``N_`` in ``variants``), the service hands it over as
``Said`` (``bot.service.live.variant_title``) and the front end says it through the
catalogue: the command tree's choices, the challenge and the board, the graph's title, the
leaderboard all read that one entry.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, game_of  # noqa: E402

import variants  # noqa: E402
from bot import i18n  # noqa: E402
from bot.discord import standings_embeds  # noqa: E402
from bot.discord.translate import variant_name  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.service.live import variant_title  # noqa: E402
from variants.sentence import Said  # noqa: E402

GERMAN = {
    "guardener": "Guardener-Schach",
    "tquarchess": "Tquarchess",
    "kings_guard": "King's-Guard-Schach",
    "stone_garden": "Stone-Garden-Schach",
    "jepps_random": "Jepps-Random-Schach",
}


@pytest.mark.parametrize("key", variants.names())
def test_every_variants_name_follows_the_policy(key: str) -> None:
    title = variants.rules(key).title
    said = variant_title(key)
    assert isinstance(said, Said) and said == title and said.msgid == title
    german = i18n.render("de", said)
    if " Chess" in title:  # the generic word translates; the proper name stays
        assert german == title.replace(" ", "-").replace("-Chess", "-Schach")
    else:
        assert german == title
    assert german == GERMAN.get(key, german)
    with i18n.using("de"):
        assert variant_name(key) == german
    with i18n.using("en"):
        assert variant_name(key) == title


def test_an_unknown_variant_is_said_as_its_key() -> None:
    assert variant_title("no_such_variant") == "no_such_variant"


async def test_a_german_user_sees_the_german_names(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        hans, alice = world.user("hans", locale="de"), world.user("alice")
        # the tree's choices: the variant's own catalogue entry, no second one
        play = world.bot.tree.get_command("play")
        assert play is not None and world.bot.tree.translator is not None
        payload = await play.get_translated_payload(world.bot.tree, world.bot.tree.translator)
        options = {o["name"]: o for o in payload["options"]}
        choices = {c["value"]: c for c in options["variant"]["choices"]}
        for key, german in GERMAN.items():
            assert choices[key]["name"] == variants.rules(key).title
            local = choices[key].get("name_localizations") or {}
            if german != variants.rules(key).title:
                assert local["de"] == german
            else:
                assert "de" not in local
        # the challenge Hans makes, and the board, say the German name
        made = await world.command(
            hans, "play", variant="kings_guard", opponent=alice, colour="white"
        )
        challenge = made.public[0]
        assert "King's-Guard-Schach" in challenge.text
        assert "King's Guard Chess" not in challenge.text
        board = (await world.press(alice, challenge, "Annehmen")).public[0]
        assert "King's Guard Chess" in board.text  # Alice pressed: English for her
        game_id = game_of(board)
        legal = [m for m in await world.service.legal_moves(game_id=game_id) if m != "reroll"]
        moved = (await world.command(hans, "move", notation=legal[0])).public[0]
        assert moved.embeds[0]["title"] == f"King's-Guard-Schach · Partie {game_id}"
    finally:
        await world.close()


async def test_the_graphs_title_and_the_leaderboard_say_the_german_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PIL import ImageDraw

    seen: list[str] = []
    real = ImageDraw.ImageDraw.text

    def record(self, xy, text, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(str(text))
        return real(self, xy, text, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", record)
    service = await GameService.open(str(tmp_path / "names.db"), renderer=None, dice_renderer=None)
    service.analyses.depth = 1
    try:
        await service.challenge(
            location_id=5,
            challenger_id=11,
            opponent_id=12,
            colour="white",
            variant="kings_guard",
            guild_id=900,
            rated=True,
        )
        await service.accept(location_id=5, user_id=12, render=False)
        for user in (11, 12):
            legal = [m for m in await service.legal_moves(location_id=5) if m != "reroll"]
            await service.act(location_id=5, user_id=user, text=legal[0], render=False)
        outcome = await service.resign(location_id=5, user_id=11)
        game_id = outcome.game.id
        await service.analyse(game_id=game_id, locale="de")
        assert f"Partie {game_id} · King's-Guard-Schach" in seen
        seen.clear()
        await service.analyse(game_id=game_id)
        assert f"Game {game_id} · King's Guard Chess" in seen

        board = await service.leaderboard(variant="kings_guard", guild_id=900)
        with i18n.using("de"):
            embed = standings_embeds.leaderboard_embed(board)
        assert embed.title is not None and "King's-Guard-Schach" in embed.title
        profile = await service.profile(user_id=11, guild_id=900)
        with i18n.using("de"):
            shown = standings_embeds.profile_embed(profile, "alice")
        assert any(f.name.startswith("King's-Guard-Schach:") for f in shown.fields)
        with i18n.using("en"):
            english = standings_embeds.leaderboard_embed(board)
        assert english.title is not None and "King's Guard Chess" in english.title
    finally:
        await service.close()
