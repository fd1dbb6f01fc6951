"""A tournament's log details in the reader's language (issue 27).

The service stores its own details as a code and values (``bot.service.tournament_log``),
not English text; /tournament info shows the latest entries said in the reader's language,
and the console's ``tournament show`` in English. What a moderator typed, and the English
text of rows stored before the codes, are shown as stored.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World  # noqa: E402

from bot import i18n  # noqa: E402
from bot.console.tournament_store import show_text  # noqa: E402
from bot.service import ManualClock, Scheduler  # noqa: E402
from bot.service.tournament_log import DETAIL_WORDS, detail_record, detail_words  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
SWISS = {"variant": "kings_guard", "format": "swiss", "rounds": 3, "days": 1, "rated": True}
OLD = "kings_guard swiss, 3 rounds, 1 day per move, rated, starts 2030-01-01T13:00:00Z"


def test_each_detail_is_said_in_english_and_german() -> None:
    made = detail_record(
        "create", variant="kings_guard", format="swiss", rounds=3, days=1, rated=True,
        start="2030-01-01T13:00:00Z",
    )  # fmt: skip
    assert json.loads(made)["code"] == "create"
    assert detail_words(made) == (
        "Swiss of King's Guard Chess, 3 rounds, 1 day per move, rated, starts 2030-01-01T13:00:00Z"
    )
    assert i18n.render("de", detail_words(made)) == (
        "Schweizer System in King's-Guard-Schach, 3 Runden, 1 Tag pro Zug, gewertet, "
        "Beginn 2030-01-01T13:00:00Z"
    )
    pair = detail_record("pair", round=2, boards=3, bye=77, gave_way=["repeat", "colour"])
    assert detail_words(pair) == (
        "round 2: 3 boards, bye <@77>; gave way on a repeated pairing, the colours"
    )
    assert i18n.render("de", detail_words(pair)) == (
        "Runde 2: 3 Bretter, Freilos <@77>; Zugeständnisse: eine wiederholte Paarung, die Farben"
    )
    one = detail_record("pair", round=1, boards=1)  # a count says its own singular
    assert detail_words(one) == "round 1: 1 board"
    assert i18n.render("de", detail_words(one)) == "Runde 1: 1 Brett"
    timeouts = detail_record("timeouts", n=1)
    assert detail_words(timeouts) == "lost 1 game on time"
    assert i18n.render("de", detail_words(timeouts)) == "1 Partie auf Zeit verloren"
    finish = detail_record("finish", player="anna", points=2.5)
    assert detail_words(finish) == "won by anna (2.5)"
    assert i18n.render("de", detail_words(finish)) == "gewonnen von anna (2.5)"
    samples = {
        "start": {"players": 4, "rounds": 3},
        "timeouts": {"n": 2},
        "finish": {"player": None, "points": 0.0},
        "too_few": {},
        "moderator": {},
    }
    for code, values in samples.items():
        said = detail_words(detail_record(code, **values))
        assert i18n.render("de", said) != said, code
    assert set(samples) | {"create", "pair", "finish"} == set(DETAIL_WORDS)
    # typed text, an older row's English, and a record this version cannot read: as stored
    assert detail_words("left the server") == "left the server"
    assert detail_words(OLD) == OLD
    assert detail_words('{"code": "pair"}') == '{"code": "pair"}'


async def test_tournament_info_shows_the_log_in_the_readers_language(tmp_path: Path) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    try:
        mod = world.user("mod", moderator=True)
        anna, bert = world.user("anna", locale="de"), world.user("bert")
        await world.command(mod, "tournament create", starts="1h", title="Winter", **SWISS)
        await world.command(anna, "tournament join")
        await world.command(bert, "tournament join")
        clock.advance(hours=2)
        await Scheduler(world.service).run_once()
        await world.deliver()
        tid = (await world.service.tournaments.info(guild_id=world.guild_id)).tournament.id
        log = await world.service.repo.tournament_log(tid)
        stored = {e.action: e.detail for e in log}
        assert json.loads(stored["create"])["code"] == "create"
        assert json.loads(stored["start"]) == {"code": "start", "players": 2, "rounds": 3}
        assert json.loads(stored["pair"])["code"] == "pair"
        # a row kept from before the codes: its English, as stored
        async with world.service.repo.write() as tx:
            await tx.log_tournament(tid, "remove", actor_id=mod.id, detail="old English words")

        german = (await world.command(anna, "tournament info")).public[0]
        fields = {f["name"]: f["value"] for f in german.embeds[0]["fields"]}
        latest = fields["Letzte Änderungen"]
        assert "beigetreten" in latest and "begonnen: 2 Spieler, 3 Runden" in latest
        assert "gepaart: Runde 1: 1 Brett" in latest and "1 Bretter" not in latest
        assert "entfernt: old English words" in latest  # as stored
        assert "players" not in latest and "round 1" not in latest

        english = (await world.command(bert, "tournament info")).public[0]
        fields = {f["name"]: f["value"] for f in english.embeds[0]["fields"]}
        assert "started: 2 players, 3 rounds" in fields["Latest changes"]

        # the console's show: English, the same words
        shown = await show_text(world.service, tid)
        assert "start: 2 players, 3 rounds" in shown
        assert "create: Swiss of King's Guard Chess, 3 rounds, 1 day per move, rated" in shown
        assert "remove: old English words" in shown
    finally:
        await world.close()


async def test_a_tournament_without_a_title_is_named_in_the_servers_language(
    tmp_path: Path,
) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        mod = world.user("mod", moderator=True, locale="de")
        world.guild_locale = "de"
        await world.command(mod, "tournament create", starts="1h", **SWISS)
        made = await world.service.tournaments.info(guild_id=world.guild_id)
        assert made.tournament.name == "King's-Guard-Schach, Schweizer System"
        await world.command(mod, "tournament cancel")
        world.guild_locale = "en-US"  # the moderator's German does not name a public thing
        await world.command(mod, "tournament create", starts="1h", **SWISS)
        made = await world.service.tournaments.info(guild_id=world.guild_id)
        assert made.tournament.name == "King's Guard Chess Swiss"
    finally:
        await world.close()
