"""/tournament in German (issue 30 with issue 27), through the payload harness: a member
whose Discord speaks German gets every reply of /tournament in German: the service's
sentences (``said``) rendered in the reader's language by the cog, the embeds' own words
(the tiebreaks' names too), and the refusals."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World  # noqa: E402

from bot.service import ManualClock, Scheduler  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
SWISS = {"variant": "kings_guard", "format": "swiss", "rounds": 3, "days": 1, "rated": True}
# English words that none of these replies may keep
ENGLISH = ("Tournament", "tournament", "Round", "round", "Players", "You ", "Points", "Direct")


async def test_tournament_replies_in_german(tmp_path: Path) -> None:
    clock = ManualClock(START)
    world = await World.open(tmp_path, clock=clock)
    try:
        mod = world.user("mod", moderator=True, locale="de")
        anna = world.user("anna", locale="de")
        bert = world.user("bert", locale="de")

        async def says(person, name, *words, private=True, **options):  # type: ignore[no-untyped-def]
            ex = await world.command(person, name, **options)
            # the reply itself (a post to the channel that follows is in the server's language)
            text = ex.only_private().text if private else ex.public[0].text
            for word in words:
                assert word in text, (name, text)
            for word in ENGLISH:
                assert word not in text, (name, word, text)

        await says(anna, "tournament join", "Auf diesem Server gibt es gerade kein Turnier.")
        await says(anna, "tournament create", "Nur Moderatoren", "ein Turnier erstellen",
            starts="1h", **SWISS)  # fmt: skip
        await says(mod, "tournament create", "ist schon vorbei; wähle eine spätere Zeit",
            starts="2029-12-31 09:00", **SWISS)  # fmt: skip
        await says(mod, "tournament create", "Turnier 1 (Winterturnier) ist zur Anmeldung offen",
            "Schweizer System", "Spieler (0)", private=False, starts="1h", title="Winterturnier",
            **SWISS)  # fmt: skip
        await says(anna, "tournament join", "Du bist Turnier 1 (Winterturnier) beigetreten")
        await says(anna, "tournament join", "Du bist Turnier 1 schon beigetreten.")
        await says(bert, "tournament join", "beigetreten")
        await says(bert, "tournament withdraw", "hat nicht begonnen")
        await says(bert, "tournament pairings", "ist noch keine Runde gepaart")
        await says(bert, "tournament info", "Spieler (2)", "Anmeldung offen", private=False)
        await says(bert, "tournament standings", "Tabelle nach Runde 0", "Punkte, dann",
            "Direkter Vergleich", private=False)  # fmt: skip
        await says(bert, "tournament leave", "Du hast Turnier 1 verlassen.")
        await says(bert, "tournament join", "beigetreten")

        clock.advance(hours=2)
        await Scheduler(world.service).run_once()
        await world.deliver()
        await says(bert, "tournament leave", "hat begonnen: Du kannst es nicht mehr verlassen")
        await says(bert, "tournament pairings", "Runde 1 von 3", "läuft", "Rundenschluss",
            private=False)  # fmt: skip
        await says(anna, "tournament withdraw", "Du hast dich aus Turnier 1 zurückgezogen")
        await says(mod, "tournament cancel", "Turnier 1 ist abgesagt: zu wenige.",
            private=False, reason="zu wenige")  # fmt: skip
    finally:
        await world.close()
