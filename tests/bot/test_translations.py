"""Translations (issue 27): the catalogues are complete, the adapter's sentences go through
them, and a German user gets German commands and German answers.

- completeness: every sentence marked in the code (Babel's extractor, the same keywords
  as ``python -m bot.discord.catalogue``) and every string the command tree gives the
  translator (recorded through discord.py's own ``get_translated_payload``) is in the
  English and the German catalogue, translated, not fuzzy, with the same ``{names}``;
  nothing in a catalogue is left over from code that is gone;
- the German tree is one Discord accepts: lower-case names of at most 32 letters, digits,
  ``-`` or ``_``, unique among their siblings, descriptions and choices of 1 to 100
  characters; and a ``/command`` or an ``option:`` a German sentence names is one the
  German user sees;
- the sentence check (``sentence_check``): no unmarked English in what reaches a Discord
  message, and no sentence outside the catalogue, in ``bot/discord`` (with its
  exceptions, each with its reason); the check itself can fail;
- through the payload harness: the bot's tree gives Discord the German names (its real
  translator, set in ``setup_hook``), and interactions whose payload says ``"locale":
  "de"`` get German answers: the challenge, the buttons, refusals, /help, /settings; a
  user whose language has no catalogue gets the server's; an English user beside them
  still gets English.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import discord
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the harness lives beside this file
from harness import World, game_of, latest_board, start_game  # noqa: E402
from sentence_check import (  # noqa: E402
    adapter_files,
    check_service_source,
    check_service_tree,
    check_source,
    check_tree,
    service_error_names,
    service_files,
)

from bot import i18n  # noqa: E402
from bot.discord import catalogue  # noqa: E402
from bot.discord.translate import GardenTranslator  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
LANGUAGES = ("en", "de")
PLACEHOLDER = re.compile(r"\{(\w*)\}")
DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")


@pytest.fixture(scope="module")
def tree_entries() -> list[catalogue.Entry]:
    import asyncio

    return asyncio.run(catalogue.collect_tree())


# ----- completeness ----------------------------------------------------------------------


def test_the_code_marks_the_adapters_sentences() -> None:
    entries = catalogue.code_entries()
    where = {e.where.split(":")[0] for e in entries}
    # the extraction really reads the adapter: sentences from each of its main modules
    for module in ("adapter.py", "challenges.py", "flows.py", "views.py", "cogs/settings.py"):
        assert f"bot/discord/{module}" in where, module
    assert len(entries) > 250


@pytest.mark.parametrize("locale", LANGUAGES)
def test_every_marked_sentence_is_translated(locale: str) -> None:
    entries = catalogue.all_entries([])
    assert catalogue.missing(entries, locale) == []


@pytest.mark.parametrize("locale", LANGUAGES)
def test_every_string_of_the_command_tree_is_translated(
    locale: str, tree_entries: list[catalogue.Entry]
) -> None:
    contexts = {e.context for e in tree_entries}
    assert contexts >= {"command name", "command description", "parameter name"}
    assert contexts >= {"parameter description", "choice name"}
    assert sum(e.context == "command name" for e in tree_entries) >= 20
    assert catalogue.missing(tree_entries, locale) == []


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_catalogue_holds_nothing_stale_and_keeps_its_placeholders(
    locale: str, tree_entries: list[catalogue.Entry]
) -> None:
    wanted = {(e.msgid, e.context) for e in catalogue.all_entries(tree_entries)}
    stale, broken = [], []
    for message in catalogue.read_catalog(locale):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if (ids[0], message.context) not in wanted:
            stale.append(ids[0])
        names = set(PLACEHOLDER.findall(" ".join(ids)))
        for text in strings:
            # the singular may say "one" instead of {n}; every other name must be there
            if set(PLACEHOLDER.findall(text)) != names and set(PLACEHOLDER.findall(text)) | {
                "n"
            } != names | {"n"}:
                broken.append((ids[0], text))
    assert stale == [] and broken == []


def test_every_marked_literal_is_extracted() -> None:
    """Babel's extractor can miss a marker call (a nested one, in some layouts): every
    ``said("...")``, ``_("...")`` and ``N_("...")`` with a literal in ``bot`` is in the
    template, so that the completeness test sees it."""
    import ast

    extracted = {e.msgid for e in catalogue.code_entries()}
    lost = []
    for path in catalogue.source_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ("said", "_", "N_") or not node.args:
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                if first.value not in extracted:
                    lost.append(f"{path.name}:{node.lineno}: {first.value!r}")
    assert lost == []


def test_a_missing_translation_is_reported(tmp_path: Path) -> None:
    """``missing`` can fail: an entry the catalogue lacks, one left empty, one fuzzy."""
    from babel.messages.catalog import Catalog

    root = tmp_path / "locale"
    made = Catalog(locale="de", domain=i18n.DOMAIN)
    made.add("Done.", "Erledigt.")
    made.add("Empty.", "")
    made.add("Guessed.", "Geraten.", flags=["fuzzy"])
    catalogue.write_catalog(made, i18n.po_path("de", root))
    entries = [catalogue.Entry(t, where="x.py:1") for t in ("Done.", "Empty.", "Guessed.", "New.")]
    gaps = catalogue.missing(entries, "de", root)
    assert [g.split(" (")[0] for g in gaps] == ["|Empty.", "|Guessed.", "|New."]


# ----- the German command tree ------------------------------------------------------------


async def _translated_tree(locale: discord.Locale) -> list[dict[str, Any]]:
    tree = await catalogue.bot_tree()
    translator = GardenTranslator()
    await tree.set_translator(translator)
    return [await c.get_translated_payload(tree, translator) for c in tree.get_commands()]


def _local(item: dict[str, Any], key: str, locale: str = "de") -> str:
    return str((item.get(f"{key}_localizations") or {}).get(locale) or item[key])


async def test_the_german_tree_is_one_discord_accepts() -> None:
    payloads = await _translated_tree(discord.Locale.german)
    names = [_local(p, "name") for p in payloads]
    assert len(set(names)) == len(names)
    problems = []
    for payload in payloads:
        items = [payload, *payload.get("options", [])]
        option_names = [_local(o, "name") for o in payload.get("options", [])]
        if len(set(option_names)) != len(option_names):
            problems.append(f"/{payload['name']}: option names repeat: {option_names}")
        for item in items:
            name, text = _local(item, "name"), _local(item, "description")
            if not DISCORD_NAME.match(name) or name != name.lower():
                problems.append(f"name {name!r}")
            if not 1 <= len(text) <= 100:
                problems.append(f"description of {name}: {len(text)} characters")
            for choice in item.get("choices", []) if item is not payload else []:
                if not 1 <= len(_local(choice, "name")) <= 100:
                    problems.append(f"choice {choice['name']!r} of {name}")
    assert problems == []
    play = next(p for p in payloads if p["name"] == "play")
    assert play["name_localizations"]["de"] == "spielen"
    assert play["description_localizations"]["de"].startswith("Fordere")
    # English speakers get the names as written: no English localization is sent
    assert "en-US" not in play["name_localizations"] and "en-GB" not in play["name_localizations"]


def test_german_sentences_name_the_german_commands_and_options(
    tree_entries: list[catalogue.Entry],
) -> None:
    """A German reader is told ``/spielen``, never ``/play`` (which they do not see), and
    ``gegner:``, never ``opponent:``."""
    command_names = {  # a group's name is typed after the slash too: /turnier beitreten
        i18n.pgettext("de", e.context, e.msgid)
        for e in tree_entries
        if e.context in ("command name", "group name")
    }
    option_names = {
        i18n.pgettext("de", "parameter name", e.msgid)
        for e in tree_entries
        if e.context == "parameter name"
    }
    wrong = []
    for message in catalogue.read_catalog("de"):
        if not message.id or message.context is not None:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            for name in re.findall(r"(?<![\w:/])/([\w-]+)", text):
                if name not in command_names and name != "{command}":
                    wrong.append((text[:60], f"/{name}"))
            for name in re.findall(r"`/?[\w ]*?(\b\w+):`", text):
                if name not in option_names:
                    wrong.append((text[:60], f"{name}:"))
    assert len(command_names) >= 20 and "spielen" in command_names and "gegner" in option_names
    assert wrong == []


# ----- the sentence check -------------------------------------------------------------------


def test_the_adapters_sentences_go_through_the_catalogue() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in adapter_files(ROOT)}
    assert len(files) >= 20 and "bot/discord/adapter.py" in files
    assert "bot/discord/cogs/game.py" in files and "bot/discord/doctor.py" not in files
    problems = check_tree(ROOT)
    assert [str(p) for p in problems] == []


def test_the_sentence_check_can_fail() -> None:
    source = """
from bot.discord.translate import N_, _
LABEL = N_("Accept")
def f(embed, interaction, answers, view):
    embed.add_field(name="Result", value=f"{view.result} · draw")
    embed.add_field(name=_("Result"), value=f"**{view.result}** · {_('draw')}")
    embed.set_footer(text=f"ply {view.ply} · https://example.org/x")
    answers.refuse(interaction, f"Game {view.id} is over.")
    answers.refuse(interaction, _("Game {game} is over.", game=view.id))
    text = "nobody will see this twice"
    log.info("a log line is for the operator")
    raise ValueError("an error for the code")
    _, b = (1, 2)
"""
    found = [(p.line, p.rule, p.text) for p in check_source(source, "x.py")]
    assert found == [
        (5, "add_field() text", " · draw"),
        (5, "add_field() text", "Result"),
        (7, "set_footer() text", "ply "),
        (8, "refuse() text", " is over."),
        (8, "refuse() text", "Game "),
        (10, "sentence outside the catalogue", "nobody will see this twice"),
        (13, "assigns the marker's name", "_"),
    ]


def test_the_sentence_check_sees_a_stored_refusal() -> None:
    """The delivery worker's ``Permanent`` refusals are stored and shown on /games and
    /board: raised or built, their words are the reader's (a code, said by
    ``bot.service.failure_words``); a ``Transient`` try's note is the log's."""
    source = """
def f(error):
    raise Permanent("the bot cannot post here")
def g():
    raise Permanent("missing_permissions", error=50013)
def h():
    raise Transient("no answer from Discord in time")
def k(x, y):
    return Permanent(f"Discord refused it: {x} (code {y})")
PERMANENT = {1: "the channel no longer exists"}
"""
    found = [(p.line, p.rule, p.text) for p in check_source(source, "x.py")]
    rule = "sentence outside the catalogue"
    assert found == [
        (3, rule, "the bot cannot post here"),
        (9, rule, "Discord refused it: "),
        (10, rule, "the channel no longer exists"),
    ]


def test_the_sentence_check_sees_runtime_choices_selects_and_modals() -> None:
    """Strings the translator never sees: an autocomplete's choices (made while the bot
    runs), a select's options and a modal's words; the tree's own choices (module
    constants) stay the translator's."""
    source = """
COLOURS = [Choice(name="white", value="white")]
async def complete(interaction, current):
    return [Choice(name="no legal moves", value="")]
def menu():
    return Select(placeholder="Pick a game", options=[SelectOption(label="Game one")])
def ask():
    return Modal(title="Your reason"), TextInput(label=_("Reason"))
"""
    found = [(p.line, p.rule, p.text) for p in check_source(source, "x.py")]
    assert found == [
        (4, "RuntimeChoice() text", "no legal moves"),
        (6, "SelectOption() text", "Game one"),
        (6, "Select() text", "Pick a game"),
        (8, "Modal() text", "Your reason"),
    ]


def test_the_services_errors_are_said() -> None:
    """Every message a ``ServiceError`` of ``bot/service`` is built with is ``said(...)``."""
    files = {p.relative_to(ROOT).as_posix() for p in service_files(ROOT)}
    assert {"bot/service/service.py", "bot/service/tournaments.py"} <= files
    errors = service_error_names(*(p.read_text(encoding="utf-8") for p in service_files(ROOT)))
    # the classes of errors.py and those defined beside their use (computer.ComputerBusy)
    assert {"InvalidInput", "NotAllowed", "StoreBusy", "TimeUp", "ComputerBusy"} <= errors
    assert "DiceExpressionError" in errors  # /roll's refusals (a ValueError)
    assert [str(p) for p in check_service_tree(ROOT)] == []
    # and the service says a good part of its sentences through the catalogue
    said = [e for e in catalogue.code_entries() if e.where.startswith("bot/service/")]
    assert len(said) > 200


def test_the_service_sentence_check_can_fail() -> None:
    errors_source = """
class ServiceError(Exception): ...
class InvalidState(ServiceError): ...
class Busy(InvalidState):
    def __init__(self, message: str = "the store is busy", kind: str = "x") -> None: ...
class Quiet(InvalidState):
    def __init__(self, message: str = said("all is well")) -> None: ...
"""
    source = """
def f(row, error, why):
    raise InvalidState(f"game {row.id} is over")
    raise InvalidState(said("game {game} is over", game=row.id))
    raise Busy("you have " + str(row.n) + " challenges", 3)
    return NotFound(message=f"there is no game {row.id}")
    raise InvalidState(str(error))
    raise InvalidState(why)
    raise ValueError("an error for the code")
    raise InvalidState(str(error) or "that is not legal here")
"""
    errors = service_error_names(errors_source) | {"NotFound"}
    assert errors == {
        "ServiceError", "DiceExpressionError", "InvalidState", "Busy", "Quiet", "NotFound"
    }  # fmt: skip
    found = [(p.line, p.rule, p.text) for p in check_service_source(source, "x.py", errors)]
    assert found == [
        (3, "InvalidState() message not said()", " is over"),
        (3, "InvalidState() message not said()", "game "),
        (5, "Busy() message not said()", " challenges"),
        (5, "Busy() message not said()", "you have "),
        (6, "NotFound() message not said()", "there is no game "),
        (10, "InvalidState() message not said()", "that is not legal here"),
    ]
    defaults = check_service_source(errors_source, "errors.py", errors)
    assert [(p.line, p.text) for p in defaults] == [(5, "the store is busy")]


# ----- a German user through the payload harness -----------------------------------------------


async def test_a_german_user_gets_german_commands_and_answers(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        hans = world.user("hans", locale="de")
        alice = world.user("alice")  # en-GB
        # the bot's own tree, with the translator setup_hook set, gives Discord the German
        play = world.bot.tree.get_command("play")
        assert play is not None and world.bot.tree.translator is not None
        payload = await play.get_translated_payload(world.bot.tree, world.bot.tree.translator)
        assert payload["name_localizations"]["de"] == "spielen"
        options = {o["name"]: o for o in payload["options"]}
        assert options["opponent"]["name_localizations"]["de"] == "gegner"
        colours = {c["value"]: c for c in options["colour"]["choices"]}
        assert colours["white"]["name_localizations"]["de"] == "Weiß"

        # a refusal, in German
        refused = await world.command(hans, "play", variant="kings_guard", opponent=hans)
        assert refused.only_private().text == "Du kannst dich nicht selbst herausfordern."

        # Hans challenges Alice: the challenge speaks German (Hans made it) ...
        made = await world.command(
            hans, "play", variant="kings_guard", opponent=alice, colour="white"
        )
        challenge = made.public[0]
        assert set(challenge.buttons()) == {"Annehmen", "Ablehnen"}
        assert f"{alice.mention}, {hans.mention} fordert dich heraus." in challenge.content
        assert "Herausforderer" in challenge.text and "Challenger" not in challenge.text
        # ... and Alice's answer speaks English (she pressed)
        accepted = await world.press(alice, challenge, "Annehmen")
        board = accepted.public[0]
        assert f"{hans.mention}, your move (white)." in board.content
        assert {"Offer draw", "Resign", "Flip"} <= set(board.buttons())

        # Hans moves: his board, the prompt for Alice and every label are German
        game_id = game_of(board)
        legal = [m for m in await world.service.legal_moves(game_id=game_id) if m != "reroll"]
        moved = await world.command(hans, "move", notation=legal[0])
        german = moved.public[0]
        assert f"{alice.mention}, du bist am Zug (Schwarz)." in german.content
        assert {"Remis anbieten", "Aufgeben", "Umdrehen"} <= set(german.buttons())
        fields = {f["name"] for f in german.embeds[0]["fields"]}
        assert {"Weiß", "Schwarz", "Am Zug", "Letzter Zug"} <= fields
        assert "Halbzug" in german.embeds[0]["footer"]["text"]
        assert "/zug zum Spielen" in german.embeds[0]["footer"]["text"]
        # the service's headline is said in German too (bot.i18n.Said)
        assert german.embeds[0]["description"].startswith(f"Weiß hat {legal[0]}")
        # and so is its refusal of a move out of turn
        early = (await world.command(hans, "move", notation=legal[0])).only_private()
        assert early.text.startswith(f"Schwarz ist am Zug ({alice.mention}), nicht du.")

        # a button Hans presses answers in German, privately
        asked = await world.press(hans, latest_board(world, game_id), "Aufgeben")
        question = asked.only_private()
        assert (
            question.text == f"Partie {game_id} aufgeben? Das lässt sich nicht rückgängig machen."
        )
        assert set(question.buttons()) == {"Ja, aufgeben"}

        # /help in German: the guide and the commands under their German names
        helped = (await world.command(hans, "help")).only_private()
        assert helped.embeds[0]["title"] == "Chess-Garden-Hilfe: Eine Partie spielen"
        assert "`/spielen variante:`" in helped.text and "/play" not in helped.text
        assert set(helped.buttons()) == {"Weiter"}
        last = (await world.command(hans, "help", page=4)).only_private()
        assert "/spielen — Fordere jemanden oder alle zu einer Partie heraus" in last.text

        # Alice's /help beside him stays English
        english = (await world.command(alice, "help")).only_private()
        assert english.embeds[0]["title"] == "Chess Garden help: Playing a game"
    finally:
        await world.close()


async def test_the_servers_language_when_the_users_has_no_catalogue(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        world.guild_locale = "de"
        pierre = world.user("pierre", locale="fr")  # no French catalogue: the server's German
        refused = await world.command(pierre, "play", variant="kings_guard", opponent=pierre)
        assert refused.only_private().text == "Du kannst dich nicht selbst herausfordern."
        world.guild_locale = "en-US"
        again = await world.command(pierre, "play", variant="kings_guard", opponent=pierre)
        assert again.only_private().text == "You cannot challenge yourself."
    finally:
        await world.close()


async def test_german_settings_and_prefs(tmp_path: Path) -> None:
    world = await World.open(tmp_path)
    try:
        admin = world.user("greta", admin=True, locale="de")
        shown = (await world.command(admin, "settings", days=7, rated=False)).only_private()
        assert "Die Einstellungen dieses Servers" in shown.text
        assert "Tage pro Zug (Standard): 3 Tage (Standard) → 7 Tage" in shown.text
        assert "Gewertet (Standard): aus" in shown.text
        member = world.user("karl", locale="de")
        refused = (await world.command(member, "settings")).only_private()
        assert refused.text.startswith("Nur Mitglieder mit „Server verwalten“")
        prefs = (await world.command(member, "prefs", theme="high-contrast")).only_private()
        assert prefs.text.startswith("Gespeichert.\nDesign: hoher Kontrast.")
    finally:
        await world.close()


async def test_a_board_the_outbox_posts_speaks_the_servers_language(tmp_path: Path) -> None:
    """The computer's move has no interaction: its post uses the server's language."""
    world = await World.open(tmp_path)
    try:
        guild = world.bot.get_guild(world.guild_id)
        assert guild is not None
        guild.preferred_locale = discord.Locale.german
        alice = world.user("alice")  # English: her own answers stay English
        made = await world.command(alice, "play", variant="kings_guard", computer=1, colour="black")
        assert "Accept" not in made.text and made.public  # the first board, in English
        await world.bot.computer_runner.idle()
        await world.deliver()
        (game,) = await world.service.list_games(location_id=world.chess, limit=1)
        posted = latest_board(world, game.id)
        assert (await world.service.view(game_id=game.id)).ply == 1  # the computer moved
        assert f"{alice.mention}, du bist am Zug (Schwarz)." in posted.content
    finally:
        await world.close()


async def test_start_game_helper_still_speaks_english(tmp_path: Path) -> None:
    """The harness's default people speak English: the other tests' words are unchanged."""
    world = await World.open(tmp_path)
    try:
        view, accepted = await start_game(world, world.user("a"), world.user("b"))
        assert "your move (white)" in accepted.public[0].content
    finally:
        await world.close()


async def test_a_german_user_gets_the_services_sentences_in_german(tmp_path: Path) -> None:
    """The service's own sentences (``said``), through the adapter: a refusal, the
    takeback's lines and the status after it, and a tournament's news, in German; the
    same service says them in English to an English user."""
    world = await World.open(tmp_path)
    try:
        hans, bruno = world.user("hans", locale="de"), world.user("bruno", locale="de")
        made = await world.command(
            hans, "play", variant="kings_guard", opponent=bruno, colour="white"
        )
        challenge = made.public[0]
        assert "Partie" in challenge.text and "Herausforderer spielt Weiß" in challenge.text
        accepted = await world.press(bruno, challenge, "Annehmen")
        game_id = game_of(accepted.public[0])
        assert "Würfel-Zusage:" in accepted.public[0].text
        await world.command(hans, "move", notation="e3")
        asked = await world.press(hans, latest_board(world, game_id), "Zug zurücknehmen")
        (request,) = asked.public
        assert "Weiß bittet darum, e3 zurückzunehmen." in request.text
        assert "nimm die Rücknahme an oder lehne sie ab." in request.text
        assert "asks to take back" not in request.text
        # a refusal the service says: Hans cannot answer his own request
        mine = await world.press(hans, request, "Rücknahme annehmen")
        assert mine.only_private().text == (
            "Du hast um diese Rücknahme gebeten; dein Gegner beantwortet sie."
        )
        accepted = await world.press(bruno, request, "Rücknahme annehmen")
        (board,) = accepted.public
        assert "Weiß nimmt e3 zurück; Schwarz hat zugestimmt." in board.text
        # the status line is the service's; the "Now" field is the rules' (not this test's)
        description = board.embeds[0]["description"]
        assert "Weiß am Zug (" in description and "to move" not in description

        # /roll's refusal, with a sentence inside a sentence (both translated)
        rolled = await world.command(hans, "roll", expression="2d")
        assert rolled.only_private().text == (
            "Der Ausdruck endet zu früh: nach 'd' wird die Zahl der Seiten erwartet, wie d6 oder d%."
        )

        # a tournament: the news and the info lines, in German; the same in English
        greta = world.user("greta", moderator=True, locale="de")
        created = await world.command(
            greta, "tournament create", variant="kings_guard", format="swiss",
            rounds=3, days=1, rated=True, starts="1h", title="Winterturnier",
        )  # fmt: skip
        text = created.text
        assert "Turnier 1 (Winterturnier) ist zur Anmeldung offen bis" in text
        assert "Tritt mit /turnier beitreten bei." in text
        assert "Schweizer System in King's-Guard-Schach, 3 Runden, 1 Tag pro Zug, gewertet." in text
        joined = await world.command(hans, "tournament join")
        assert joined.only_private().text.startswith(
            "Du bist Turnier 1 (Winterturnier) beigetreten"
        )
        twice = await world.command(hans, "tournament join")
        assert twice.only_private().text == "Du bist Turnier 1 schon beigetreten."
        alice = world.user("alice")
        english = await world.command(alice, "tournament withdraw")
        assert english.only_private().text == ("You are not playing in tournament 1.")
        german = await world.command(bruno, "tournament withdraw")
        assert german.only_private().text == "Du spielst nicht in Turnier 1 mit."
    finally:
        await world.close()
