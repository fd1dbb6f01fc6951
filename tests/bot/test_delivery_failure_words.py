"""The delivery worker's refusals in the reader's language (issue 27).

A refusal no retry changes is stored with its outbox row as a code and its values
(``bot.service.failure_words``), Discord's own message kept as data; /games and /board say
it in the reader's language. A row stored before codes (English text) is shown as stored.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, reminder_refused  # noqa: E402

from bot import i18n  # noqa: E402
from bot.discord.refusals import Permanent  # noqa: E402
from bot.service import ManualClock  # noqa: E402
from bot.service.failure_words import FAILURE_WORDS, failure_record, failure_words  # noqa: E402
from bot.service.outbox import PostFailure  # noqa: E402

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
OLD_TEXT = "the bot lacks a permission there (Missing Permissions)"


def test_a_stored_refusal_is_said_in_each_language_and_old_text_as_stored() -> None:
    stored = failure_record("refused_here", discord="404 Not Found", error=10008)
    assert json.loads(stored) == {
        "code": "refused_here",
        "discord": "404 Not Found",
        "error": 10008,
    }
    said = failure_words(stored)
    assert said == "Discord refused it: 404 Not Found (code 10008)"  # the English as before
    assert i18n.render("de", said) == "Discord hat es abgelehnt: 404 Not Found (Code 10008)"
    # every code has German words
    for code in FAILURE_WORDS:
        values = {
            "discord": "x",
            "error": 1,
            "kind": "k",
            "game": 3,
            "refused": "it no longer exists",
        }
        english = FAILURE_WORDS[code](values)
        assert i18n.render("de", english) != english, code
    # text stored before codes, and a record this version cannot read: as stored
    assert failure_words(OLD_TEXT) == OLD_TEXT
    assert failure_words('{"code": "no_such_code"}') == '{"code": "no_such_code"}'
    assert failure_words('{"code": "refused"}') == '{"code": "refused"}'  # values missing
    line = PostFailure(7, 55, failure_record("missing_permissions")).line
    assert line == "cannot post in <#55>: " + OLD_TEXT
    assert i18n.render("de", line) == (
        "kann nicht in <#55> posten: dem Bot fehlt dort eine Berechtigung (Missing Permissions)"
    )
    # the adapter's refusal keeps its code, and its English for the log
    error = Permanent("no_thread_no_channel", refused="it no longer exists")
    assert json.loads(error.stored)["code"] == "no_thread_no_channel"
    assert str(error) == (
        "cannot make the game's thread (it no longer exists), and the tournament's channel "
        "already has a game"
    )
    assert i18n.render("de", failure_words(error.stored)) == (
        "der Thread der Partie kann nicht angelegt werden (das gibt es nicht mehr), und im "
        "Kanal des Turniers läuft schon eine Partie"
    )


async def test_games_and_board_say_the_refusal_in_the_readers_language(tmp_path: Path) -> None:
    world = await World.open(tmp_path, clock=ManualClock(START))
    try:
        alice, bob = world.user("alice"), world.user("bob")
        hans = world.user("hans", locale="de")
        view = await reminder_refused(world, alice, bob)
        chess = world.chess
        # stored as a code, not as English text
        (failed,) = [r for r in await world.service.outbox_of_game(game_id=view.id) if r.error]
        assert json.loads(failed.error or "") == {"code": "missing_permissions"}
        english = (await world.command(bob, "games")).only_private().text
        assert f"cannot post in <#{chess}>: {OLD_TEXT}" in english
        german = (await world.command(hans, "games")).only_private().text
        assert f"kann nicht in <#{chess}> posten: dem Bot fehlt dort eine Berechtigung" in german
        assert OLD_TEXT not in german
        board = await world.command(hans, "board", private=True)
        assert "dem Bot fehlt dort eine Berechtigung" in board.only_private().text

        # a row kept from before the codes: its English text, as stored
        async with world.service.repo.write() as tx:
            await tx.outbox_reowe(view.id, chess, 0)
            await tx.outbox_failed(failed.id, "the bot was told off (old text)", 1)
        german = (await world.command(hans, "games")).only_private().text
        assert f"kann nicht in <#{chess}> posten: the bot was told off (old text)" in german
    finally:
        await world.close()
