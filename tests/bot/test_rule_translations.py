"""The rules' sentences in the catalogue (issue 27): every refusal the rules give, the
status headline and a game's result are ``Said`` sentences (``variants/sentence.py``)
whose message ids, and those of every word inside them, the German catalogue translates;
and a German player's refused ``/move`` is answered in German through the payload
harness.

The refusals are sampled: positions along seeded random games of every variant, with
texts of every kind (junk, squares off the board, unknown letters, each of the moves
a single rule takes away, castling, the variants' own words), so that most causes of
``variants.refusal.CAUSES`` are met (the test counts them)."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, latest_board, start_game  # noqa: E402

import variants  # noqa: E402
from bot import i18n  # noqa: E402
from bot.discord import catalogue  # noqa: E402
from variants.explain import blocked_moves  # noqa: E402
from variants.sentence import Said, sentences  # noqa: E402

JUNK = ("", "zz", "hello there", "a9", "z1", "Xe4", "e9=Q", "Ke5", "Qh5", "O-O", "O-O-O")
JUNK += ("exd5", "d8=Q", "b1c3", "Nc3=Q", "reroll", "pass", "roll", "mirror", "Re4^E")
JUNK += ("Txx", "Te4%", "G@z4 {T3}", "Nf3/T%5", "x" * 80, "a1b2c3", "Kxe2", "e4e5")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


@pytest.fixture(scope="module")
def german() -> dict[str, str]:
    """The German catalogue's sentences (no context), translated and not fuzzy."""
    out: dict[str, str] = {}
    for message in catalogue.read_catalog("de"):
        if message.id and message.context is None and isinstance(message.id, str):
            if message.string and not message.fuzzy:
                out[message.id] = message.string
    return out


def untranslated(text: str, german: dict[str, str]) -> list[str]:
    """The message ids in ``text`` (itself and every ``Said`` inside) German lacks."""
    return [s.msgid for s in sentences(text) if s.msgid not in german]


def sample_refusals(key: str, seed: int, plies: int = 24) -> list[variants.Refusal]:
    """Refusals along one seeded random game of ``key``: junk texts and every move a
    single rule takes away, at every fourth position."""
    rng = random.Random(seed)
    game = variants.new_game(key, seed=seed)
    found: list[variants.Refusal] = []
    for ply in range(plies):
        if ply % 4 == 0 or game.result is not None:
            rules, pos = game.rules, game.pos
            texts = list(JUNK)
            if game.result is None:
                legal = game.legal_move_list()
                blocked = blocked_moves(rules, pos, legal)
                every = [*legal, *(b.move for b in blocked)]
                texts += [
                    rules.san(pos, b.move, every) for b in blocked[:: max(1, len(blocked) // 40)]
                ]
            for text in texts:
                refusal = variants.explain(game, text)
                if refusal is not None:
                    found.append(refusal)
        if game.result is not None:
            break
        game.play(rng.choice(game.legal_moves()))
    return found


@pytest.mark.parametrize("key", variants.names())
def test_every_refusal_is_said_and_german(key: str, german: dict[str, str]) -> None:
    refusals = [r for seed in (1, 2, 3) for r in sample_refusals(key, seed)]
    causes = {r.cause for r in refusals}
    assert len(refusals) > 100 and len(causes) >= 6, causes
    plain = [(r.cause, str(r.message)) for r in refusals if not isinstance(r.message, Said)]
    assert plain == []
    missing = sorted({m for r in refusals for m in untranslated(r.message, german)})
    assert missing == []
    for refusal in refusals[:: max(1, len(refusals) // 50)]:
        said_de = i18n.render("de", refusal.message)
        assert said_de and not PLACEHOLDER.search(said_de.replace("{T", "")), said_de
        # the English is the sentence itself: rendering it in English changes nothing
        assert i18n.render("en", refusal.message) == str(refusal.message)


def test_the_sentences_really_are_german() -> None:
    game = variants.new_game("kings_guard", seed=1)
    refusal = variants.explain(game, "Qh5")
    assert refusal is not None
    assert str(refusal.message) == "the Queen on d1 is blocked by the pawn on e2"
    assert i18n.render("de", refusal.message) == "Dame auf d1 wird von Bauer auf e2 blockiert"
    stone = variants.new_game("stone_garden", seed=1)
    refused = variants.explain(stone, "Nf6")
    assert refused is not None
    assert i18n.render("de", refused.message) == (
        "Stone-Garden-Schach hat keine Figur mit dem Buchstaben N: seine Figuren sind H O I P R K"
    )
    # a word inside a list is translated too
    guardener = variants.new_game("guardener", rolls=[2, 3])
    why = variants.explain(guardener, "Qc0")
    assert why is not None and why.cause == "dice"
    assert str(why.message).endswith("allow a Knight or a Bishop")
    assert i18n.render("de", why.message).endswith("erlauben einen Springer oder einen Läufer")


def test_a_sentence_missing_from_the_catalogue_is_found(german: dict[str, str]) -> None:
    """The check above can fail: a sentence, or a word inside one, the catalogue lacks."""
    from variants.sentence import said, word

    inner = said("a {piece} on {square}", piece=word("Knight"), square="e4")
    assert untranslated(said("{first} or {last}", first=inner, last=word("Wyvern")), german) == [
        "a {piece} on {square}",
        "Wyvern",
    ]


@pytest.mark.parametrize("key", variants.names())
def test_the_notations_errors_are_german(key: str, german: dict[str, str]) -> None:
    """The parser's own errors (what the console shows with its hint of legal actions)."""
    game = variants.new_game(key, seed=3)
    actions = game.legal_actions()
    legal, texts = [m for m, _ in actions], [t for _, t in actions]
    causes = set()
    for text in JUNK:
        try:
            game.rules.parse(game.pos, text, legal, texts)
        except variants.IllegalMove as error:
            message = error.args[0]
            causes.add(type(error).__name__)
            assert isinstance(message, Said) and untranslated(message, german) == [], message
            assert i18n.render("de", message) != str(message)
    assert "BadNotation" in causes


@pytest.mark.parametrize("key", variants.names())
def test_every_piece_title_and_example_is_german(key: str, german: dict[str, str]) -> None:
    rules = variants.new_game(key, seed=1).rules
    words = [rules.title, rules.notation_examples]
    for piece in rules.piece_types:
        words += [piece.name, *([piece.words] if piece.words else [])]
    assert [w for w in words if w not in german] == []


@pytest.mark.parametrize("key", variants.names())
def test_the_status_and_results_are_german(key: str, german: dict[str, str]) -> None:
    """Every line of the status (headline, what the dice allow, what is pending, the
    variant's facts) along seeded random games, and the result when one ends."""
    seen: set[str] = set()
    ended = 0
    for seed in (5, 6, 7):
        rng = random.Random(seed)
        game = variants.new_game(key, seed=seed)
        for _ in range(1200):  # random games end, by the fifty-move rule at the latest
            status = variants.describe(game)
            assert isinstance(status.headline, Said)
            plain = [line for line in status.lines if not isinstance(line, Said)]
            assert plain == []
            for line in status.lines:
                assert untranslated(line, german) == [], line
                seen.update(s.msgid for s in sentences(line))
            if game.result is not None:
                over = variants.explain(game, "e4")
                assert over is not None and over.cause == "game-over"
                assert untranslated(over.message, german) == []
                assert game.result.reason in german
                ended += 1
                break
            game.play(rng.choice(game.legal_moves()))
    assert len(seen) >= 8 and ended >= 1, (len(seen), ended)


# ----- a German player through the payload harness -------------------------------------------


async def test_a_german_players_refused_move_is_german(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        alice = world.user("alice")  # en-GB, white
        hans = world.user("hans", locale="de")  # black
        view, _accepted = await start_game(world, alice, hans)
        await world.command(alice, "move", notation="e3")
        refused = (await world.command(hans, "move", notation="Qd5")).only_private()
        assert refused.text.startswith(
            "Dame auf d8 wird von Bauer auf d7 blockiert (du hast `Qd5` eingegeben)."
        ), refused.text
        assert "blocked" not in refused.text
        # a move out of the board, and castling where there is none
        nowhere = (await world.command(hans, "move", notation="a9")).only_private()
        assert nowhere.text.startswith(
            "Auf dem Brett von King's-Guard-Schach gibt es kein Feld a9"
        ), nowhere.text
        # Hans's own board says the status in German
        legal = [m for m in await world.service.legal_moves(game_id=view.id) if m != "reroll"]
        await world.command(hans, "move", notation=legal[0])
        board = latest_board(world, view.id)
        fields = {f["name"]: f["value"] for f in board.embeds[0]["fields"]}
        assert fields["Jetzt"].startswith("**Weiß zieht"), fields
        assert "Nur Bauern schlagen" in fields["Jetzt"], fields
        # Alice, beside him, is refused in English
        english = (await world.command(alice, "move", notation="Qd3")).only_private()
        assert english.text.startswith(
            "The Queen on d1 is blocked by the pawn on d2 (you typed `Qd3`)."
        ), english.text
    finally:
        await world.close()


def finished_view(**changes: object) -> Any:
    """A King's Guard game's view, ended as ``changes`` say (status, result, reason...)."""
    from bot.service.results import GameView

    fields: dict[str, Any] = dict(
        id=1,
        variant="kings_guard",
        variant_title="King's Guard Chess",
        options={},
        status="finished",
        location_id=1,
        guild_id=None,
        challenger_id=1,
        opponent_id=2,
        white_id=1,
        black_id=2,
        turn=None,
        to_move_id=None,
        dice=None,
        ply=0,
        last_move=None,
        result=None,
        winner=None,
        result_reason=None,
        draw_offer=None,
        commitment=None,
        seed=None,
    )
    fields.update(changes)
    return GameView(**fields)


def test_a_finished_games_reason_is_said_in_german() -> None:
    """The result's reason is stored in English (the rules' words); the adapter says the
    rules' reasons in the reader's language, and any other as it was stored."""
    import dataclasses

    from bot.discord import adapter

    view = finished_view(
        status="finished", ply=10, result="1-0", winner="white", result_reason="king captured"
    )
    with i18n.using("de"):
        assert adapter.result_line(view) == "1-0 · Weiß gewinnt (König geschlagen)"
        unknown = dataclasses.replace(view, result_reason="a reason nobody wrote down")
        assert adapter.result_line(unknown).endswith("(a reason nobody wrote down)")
    assert adapter.result_line(view) == "1-0 · white wins (king captured)"


def test_stored_reasons_with_facts_are_said_in_german() -> None:
    """An expired challenge's and a withdrawn game's reasons are stored as English text
    (old records too); where they are shown they are read back into sentences, and German
    says them (what the player typed stays as typed)."""

    from bot.service.words import reason_word

    expired = reason_word("expired: not accepted within 48 hours")
    assert expired == "expired: not accepted within 48 hours"  # the English, unchanged
    assert i18n.render("de", expired) == "verfallen: nicht innerhalb von 48 Stunden angenommen"
    one = reason_word("expired: not accepted within 1 hour")
    assert i18n.render("de", one) == "verfallen: nicht innerhalb von 1 Stunde angenommen"
    withdrawn = reason_word("withdrawn: wrong opponent")
    assert i18n.render("de", withdrawn) == "zurückgezogen: wrong opponent"
    assert reason_word("expired: sometime") == "expired: sometime"  # unknown: as stored
    # a game aborted by its withdrawal, posted by the outbox (deadline_posts)
    from bot.discord import deadline_posts

    view = finished_view(status="aborted", result_reason="withdrawn: wrong opponent")
    with i18n.using("de"):
        line = deadline_posts._outcome_words(view)
    assert "zurückgezogen: wrong opponent" in line, line
    assert "withdrawn: wrong opponent" in deadline_posts._outcome_words(view)


def test_a_count_says_its_singular_and_plural_and_survives_a_worker() -> None:
    """``said_n``: English picks its form by ``n``, another language by its own rule, and
    the sentence crosses a process boundary (a worker's pickle) whole."""
    import pickle

    from bot import i18n
    from variants.sentence import said_n

    for n, english, german in ((1, "lost 1 game on time", "1 Partie auf Zeit verloren"),
                               (3, "lost 3 games on time", "3 Partien auf Zeit verloren")):  # fmt: skip
        sentence = said_n("lost {n} game on time", "lost {n} games on time", n)
        assert sentence == english
        again = pickle.loads(pickle.dumps(sentence))
        assert again == english and again.plural == sentence.plural
        assert i18n.render("de", again) == german
