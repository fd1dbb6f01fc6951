"""10,000+ random strings as notation through ``GameService.act``.

Every string gets a clear one-line ``ServiceError`` or a valid result (it was a legal
action after all). After every error the stored game (row and log) and the dice
showing are exactly as before.
"""

from __future__ import annotations

import random
import sqlite3
import string
from pathlib import Path

import variants
from bot.service import GameService, Outcome, ServiceError

STRINGS = 10_000
WHITE, BLACK = 5, 6
NOTATION = "abcdefghwz0123456789KQRBNGTHOIPxX+-#=/%{}[]^!?@~()NESW .,"


def snapshot(conn: sqlite3.Connection, location: int) -> tuple[object, ...]:
    """The game at ``location`` (row and log) and the size of every table, read in one
    transaction by a connection of its own (the test's, beside the service's)."""
    with conn:
        conn.execute("BEGIN")
        game = conn.execute("SELECT * FROM games WHERE location_id = ?", (location,)).fetchall()
        actions = conn.execute(
            "SELECT * FROM actions WHERE game_id = ? ORDER BY seq", (game[0][0],)
        ).fetchall()
        sizes = [
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            for table in ("games", "actions", "players")
        ]
    return tuple(game), tuple(actions), tuple(sizes)


def mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        where = rng.randint(0, len(chars))
        if op < 0.4:
            chars.insert(where, rng.choice(NOTATION))
        elif op < 0.7 and chars:
            del chars[min(where, len(chars) - 1)]
        elif chars:
            chars[min(where, len(chars) - 1)] = rng.choice(NOTATION)
    return "".join(chars)


ALL_LEGAL: list[str] = []


def random_text(rng: random.Random, legal: list[str]) -> str:
    shape = rng.random()
    if shape < 0.35 and legal:
        return mutate(rng.choice(legal), rng)
    if shape < 0.45 and ALL_LEGAL:
        return rng.choice(ALL_LEGAL)  # legal in some variant, some position
    if shape < 0.75:
        return "".join(rng.choice(NOTATION) for _ in range(rng.randint(0, 12)))
    if shape < 0.9:
        return "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 40)))
    if shape < 0.97:
        return "".join(chr(rng.randint(0, 0x30FF)) for _ in range(rng.randint(1, 10)))
    return rng.choice(["reroll", "pass", "roll", "Roll", "0-0", "O-O-O", "resign", "x" * 300, ""])


async def test_random_notation_is_refused_cleanly_or_played(tmp_path: Path) -> None:
    db = tmp_path / "fuzz.sqlite3"
    service = await GameService.open(str(db), renderer=None)
    reader = sqlite3.connect(db, isolation_level=None)  # transactions as the test says
    rng = random.Random(77)
    names = variants.names()
    for name in names:
        game = variants.new_game(name, seed=3)
        for _ in range(30):
            if game.result is not None:
                break
            legal = game.legal_moves()
            ALL_LEGAL.extend(legal)
            game.play(rng.choice(legal))
    location = 0
    errors = played = 0
    outcome: Outcome | None = None
    try:
        for index in range(STRINGS):
            if outcome is None or outcome.game_over or outcome.game.ply > 80:
                if outcome is not None and not outcome.game_over:
                    await service.resign(location_id=location, user_id=WHITE)
                location += 1
                await service.challenge(
                    location_id=location,
                    challenger_id=WHITE,
                    opponent_id=BLACK,
                    colour="white",
                    variant=names[location % len(names)],
                )
                outcome = await service.accept(location_id=location, user_id=BLACK)
                before = snapshot(reader, location)
            legal = list(await service.legal_moves(location_id=location))
            text = random_text(rng, legal)
            mover = outcome.next_user_id
            assert mover is not None
            try:
                outcome = await service.act(
                    location_id=location, user_id=mover, text=text, request_id=f"f{index}"
                )
            except ServiceError as error:
                errors += 1
                message = str(error)
                assert message and "\n" not in message, repr(message)
                after = snapshot(reader, location)
                assert after == before, f"state changed on error for {text!r}"
                view = await service.view(location_id=location)
                assert view == outcome.game, f"view changed on error for {text!r}"
            else:
                played += 1
                assert outcome.recorded in legal or outcome.recorded is not None
                before = snapshot(reader, location)
        assert errors + played == STRINGS
        assert played > 200 and errors > 5000  # both paths were exercised
    finally:
        reader.close()
        await service.close()
