"""The game page in a real browser: Debian's Chromium, driven by Selenium through
Debian's chromedriver (``Service(executable_path=...)``: nothing is downloaded).

Without /usr/bin/chromium these tests are skipped with one line; in CI
(``CHESSGARDEN_REQUIRE_BROWSER=1``, set by .ci/run) they fail instead. Screenshots go to
``$CHESSGARDEN_ARTIFACTS/web`` (default ``test-artifacts/web`` under the repository).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import variants
from bot.service import render_board

sys.path.insert(0, str(Path(__file__).parent))  # the helpers live beside this file
from webgames import BLACK, WHITE, ServerThread, play_moves, start_game  # noqa: E402

CHROMIUM = os.environ.get("CHESSGARDEN_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHESSGARDEN_CHROMEDRIVER", "/usr/bin/chromedriver")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("CHESSGARDEN_ARTIFACTS", ROOT / "test-artifacts")) / "web"
LIVE_WAIT_S = float(os.environ.get("CHESSGARDEN_LIVE_WAIT_S", "1.0"))
SEED = "a-fixed-seed-for-the-browser-tests"
PHONE = {"width": 390, "height": 844, "pixelRatio": 3.0}


def _need_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    if not missing:
        return
    reason = (
        "browser tests skipped: missing "
        + ", ".join(missing)
        + " (apt-get install chromium chromium-driver)"
    )
    if os.environ.get("CHESSGARDEN_REQUIRE_BROWSER") == "1":
        pytest.fail(reason.replace("skipped", "cannot run"), pytrace=False)
    pytest.skip(reason)


def _driver(*, phone: bool = False, script: bool = True) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=1200,900",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    if phone:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": PHONE})
    if not script:
        options.add_experimental_option(
            "prefs", {"profile.managed_default_content_settings.javascript": 2}
        )
    os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never download
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    _need_browser()
    running = ServerThread(tmp_path_factory.mktemp("web") / "games.sqlite3")
    yield running
    running.close()


@pytest.fixture(scope="module")
def browser(server: ServerThread) -> Iterator[Any]:
    driver = _driver()
    yield driver
    driver.quit()


def shot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def errors(driver: Any) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def wait_for(condition: Callable[[], Any], timeout: float) -> Any:
    """Poll ``condition`` until it is truthy, up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(0.02)


def steps_of(server: ServerThread, game_id: int) -> tuple[list[str], str]:
    record = server.run(server.service.history(game_id=game_id)).record
    return variants.parse_record(record)[1], record


def image_loaded(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "var i = document.getElementById('board'); return i.complete && i.naturalWidth > 0;"
        )
    )


def test_the_page_opens_without_console_errors(server: ServerThread, browser: Any) -> None:
    game_id = server.run(start_game(server.service, "guardener", location_id=1, seed=SEED))
    server.run(play_moves(server.service, game_id, 9))
    browser.get(server.url(game_id))
    assert wait_for(lambda: image_loaded(browser), 10)
    assert browser.title.startswith(f"Game {game_id}: Guardener Chess")
    assert wait_for(lambda: browser.find_element("id", "live").is_displayed(), 5)  # SSE open
    assert errors(browser) == []
    shot(browser, "game-desktop")


def test_arrow_keys_step_through_every_ply(server: ServerThread, browser: Any) -> None:
    from selenium.webdriver.common.keys import Keys

    game_id = server.run(start_game(server.service, "guardener", location_id=2, seed=SEED))
    server.run(play_moves(server.service, game_id, 12))
    actions, record = steps_of(server, game_id)
    browser.get(server.url(game_id, 0))
    body = browser.find_element("tag name", "body")
    headers, _, rolls = variants.parse_record(record)
    game = variants.new_game(headers["Variant"], rolls=rolls)
    for step in range(len(actions) + 1):
        if step:
            body.send_keys(Keys.ARROW_RIGHT)
            game.play(actions[step - 1])
        src = browser.find_element("id", "board").get_attribute("src")
        assert f"/board/{step}.png?v=" in src, (step, src)
        current = browser.find_elements("css selector", "#moves a.mv.cur")
        assert len(current) == 1 and current[0].get_attribute("data-i") == str(step)
        if step:
            assert current[0].text.endswith(actions[step - 1])
        if step in (0, 5, len(actions)):  # the image shown is that position's board
            assert wait_for(lambda: image_loaded(browser), 10)
            with urllib.request.urlopen(src) as response:
                assert response.read() == render_board(game, "white")
            shot(browser, f"step-{step}")
    assert browser.current_url == server.url(game_id)  # the last step is the page itself
    body.send_keys(Keys.ARROW_LEFT)
    assert browser.current_url == server.url(game_id, len(actions) - 1)
    body.send_keys(Keys.HOME)
    cur = browser.find_element("css selector", "#moves a.mv.cur")
    assert cur.get_attribute("data-i") == "0"
    assert errors(browser) == []


def test_a_move_through_the_service_appears_on_the_open_page(
    server: ServerThread, browser: Any
) -> None:
    game_id = server.run(start_game(server.service, "tquarchess", location_id=3, seed=SEED))
    server.run(play_moves(server.service, game_id, 4))
    browser.get(server.url(game_id))
    assert wait_for(lambda: browser.find_element("id", "live").is_displayed(), 10)
    outcome = server.run(play_moves(server.service, game_id, 1))
    assert outcome is not None and outcome.recorded
    committed = time.monotonic()

    def shown() -> Any:  # read in one script: the list is rebuilt when an event comes
        return browser.execute_script(
            "var c = document.querySelectorAll('#moves a.mv.cur');"
            "return c.length === 1 && c[0].getAttribute('data-i') === '5' ? c[0].textContent : null;"
        )

    text = wait_for(shown, LIVE_WAIT_S)
    seen_after = time.monotonic() - committed
    assert text, f"the move was not shown within {LIVE_WAIT_S} s"
    assert text.endswith(outcome.recorded)
    assert "/board/5.png?v=" in browser.find_element("id", "board").get_attribute("src")
    status = browser.find_element("id", "headline").text
    assert status == variants.describe(variants.replay(steps_of(server, game_id)[1])).headline
    shot(browser, "live-move")
    print(f"live move shown {seen_after * 1000:.0f} ms after its commit")
    # The end of the game reloads the page with its proof.
    server.run(server.service.resign(user_id=12, game_id=game_id))
    assert wait_for(lambda: "Verified by this server." in browser.page_source, 10)
    assert errors(browser) == []
    shot(browser, "finished-proof")


def shown_step(browser: Any, index: int) -> Any:
    """The text of the current step when it is step ``index`` and the last one (read in
    one script, while events may change the list)."""
    return browser.execute_script(
        "var c = document.querySelectorAll('#moves a.mv.cur'), all = document.querySelectorAll('#moves a.mv');"
        "return c.length === 1 && c[0].getAttribute('data-i') === arguments[0]"
        " && all[all.length - 1] === c[0] ? c[0].textContent : null;",
        str(index),
    )


def board_loaded(browser: Any, step: int) -> bool:
    """The board image shows ``step`` and has loaded."""
    return bool(
        browser.execute_script(
            "var b = document.getElementById('board');"
            "return b.src.indexOf('/board/' + arguments[0] + '.png') >= 0"
            " && b.complete && b.naturalWidth > 0;",
            step,
        )
    )


def move_rows(browser: Any) -> list[list[str]]:
    """The move list as rows of (number, each step's text and image)."""
    rows: list[list[str]] = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#moves li'), function (li) {"
        "  var n = li.querySelector('span.n');"
        "  return [n ? n.textContent : ''].concat(Array.prototype.map.call("
        "    li.querySelectorAll('a.mv'), function (a) {"
        "      return a.getAttribute('data-i') + ' ' + a.textContent.trim() + ' '"
        "        + a.getAttribute('data-img'); }));"
        "});"
    )
    return rows


def test_moves_and_a_take_back_appear_on_the_open_page(server: ServerThread, browser: Any) -> None:
    """Several moves, each shown within the wait of its commit (the events carry only
    the new step, which the page appends), then a take-back (the whole list again) and
    a move in its place; the list the script built is the one the server renders."""
    game_id = server.run(start_game(server.service, "kings_guard", location_id=6, seed=SEED))
    server.run(play_moves(server.service, game_id, 2))
    browser.get(server.url(game_id))
    assert wait_for(lambda: browser.find_element("id", "live").is_displayed(), 10)
    seen: list[float] = []
    for index in (3, 4, 5, 6):
        outcome = server.run(play_moves(server.service, game_id, 1))
        assert outcome is not None and outcome.recorded
        committed = time.monotonic()
        text = wait_for(lambda i=index: shown_step(browser, i), LIVE_WAIT_S)  # type: ignore[misc]
        seen.append(time.monotonic() - committed)
        assert text, f"move {index} was not shown within {LIVE_WAIT_S} s"
        assert text.endswith(outcome.recorded)
    # The page has its step-6 image before the take-back removes that step (a take-back
    # in the very moment of the move would leave the image's request to a 404).
    assert wait_for(lambda: board_loaded(browser, 6), 10), "the step-6 image did not load"
    taken = server.run(server.service.undo(user_id=WHITE, game_id=game_id))
    assert taken.game.ply == 5
    committed = time.monotonic()
    gone = wait_for(
        lambda: (
            shown_step(browser, 5)
            and not browser.find_elements("css selector", '#moves a.mv[data-i="6"]')
        ),
        LIVE_WAIT_S,
    )
    seen.append(time.monotonic() - committed)
    assert gone, f"the take-back was not shown within {LIVE_WAIT_S} s"
    legal = server.run(server.service.legal_moves(game_id=game_id))
    outcome = server.run(server.service.act(user_id=BLACK, text=legal[-1], game_id=game_id))
    committed = time.monotonic()
    text = wait_for(lambda: shown_step(browser, 6), LIVE_WAIT_S)
    seen.append(time.monotonic() - committed)
    assert text and outcome.recorded and text.endswith(outcome.recorded)
    assert "/board/6.png?v=" in browser.find_element("id", "board").get_attribute("src")
    built = move_rows(browser)
    assert errors(browser) == []
    shot(browser, "live-moves-and-take-back")
    browser.get(server.url(game_id))  # the same list, as the server renders it
    assert move_rows(browser) == built
    print("live updates shown " + ", ".join(f"{s * 1000:.0f}" for s in seen) + " ms after")


def test_a_phone_sized_viewport(server: ServerThread) -> None:
    game_id = server.run(start_game(server.service, "guardener", location_id=4, seed=SEED))
    server.run(play_moves(server.service, game_id, 20))
    driver = _driver(phone=True)
    try:
        driver.get(server.url(game_id))
        assert wait_for(lambda: image_loaded(driver), 10)
        width = driver.execute_script("return window.innerWidth")
        assert width == PHONE["width"]
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0  # nothing runs off the side
        board = driver.find_element("id", "board").rect
        assert board["x"] >= 0 and board["x"] + board["width"] <= width
        assert board["width"] >= width * 0.85  # the board fills the phone's width
        for link in driver.find_elements("css selector", ".stepper a"):
            assert link.rect["height"] >= 44 and link.rect["width"] >= 44  # thumb-sized
        assert errors(driver) == []
        shot(driver, "game-phone")
    finally:
        driver.quit()


def test_a_finished_games_errors_and_luck_on_desktop_and_phone(
    server: ServerThread, browser: Any
) -> None:
    game_id = server.run(start_game(server.service, "guardener", location_id=7, seed=SEED))
    server.run(play_moves(server.service, game_id, 14))
    server.run(server.service.resign(user_id=BLACK, game_id=game_id))
    report = server.run(server.service.analyse(game_id=game_id, render=False))
    graph_loaded = (
        "var i = document.getElementById('graph'); return i && i.complete ? i.naturalWidth : 0;"
    )
    browser.get(server.url(game_id))
    assert wait_for(lambda: browser.execute_script(graph_loaded), 10) == 800
    assert "Skill and luck" in browser.page_source
    cards = browser.find_elements("css selector", ".player-figures h3")
    assert [c.text.split(":")[0] for c in cards] == ["White", "Black"]
    desktop = [c.rect for c in cards]
    assert desktop[0]["y"] == desktop[1]["y"]  # side by side on a desktop
    # the first "See the board": the biggest error's if one gave up anything, else the
    # luckiest roll's (the board it was rolled on: after the action before)
    turns = report.analysis.turns
    worst = max((t for t in turns if t.choice and t.action), key=lambda t: t.error)
    luckiest = max((t for t in turns if t.roller is not None), key=lambda t: t.luck)
    target = worst.ply if worst.error > 0 else luckiest.ply - 1
    graph = browser.find_element("id", "graph")
    browser.execute_script("arguments[0].scrollIntoView()", graph)
    assert errors(browser) == []
    shot(browser, "analysis-desktop")
    browser.find_element("link text", "See the board").click()
    assert browser.current_url == server.url(game_id, target)
    assert wait_for(lambda: image_loaded(browser), 10)
    driver = _driver(phone=True)
    try:
        driver.get(server.url(game_id))
        assert wait_for(lambda: driver.execute_script(graph_loaded), 10) == 800
        width = driver.execute_script("return window.innerWidth")
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 0  # the graph and the figures fit the phone
        rect = driver.find_element("id", "graph").rect
        assert rect["x"] >= 0 and rect["x"] + rect["width"] <= width
        phone = [c.rect for c in driver.find_elements("css selector", ".player-figures h3")]
        assert phone[1]["y"] > phone[0]["y"]  # one above the other on a phone
        driver.execute_script("arguments[0].scrollIntoView()", driver.find_element("id", "graph"))
        assert errors(driver) == []
        shot(driver, "analysis-phone")
    finally:
        driver.quit()


def test_the_page_works_with_javascript_off(server: ServerThread) -> None:
    game_id = server.run(start_game(server.service, "guardener", location_id=5, seed=SEED))
    server.run(play_moves(server.service, game_id, 6))
    actions, _ = steps_of(server, game_id)
    driver = _driver(script=False)
    try:
        driver.get(server.url(game_id, 0))
        assert driver.execute_script("return 1") is None or True  # scripts may be refused
        assert not driver.find_element("id", "live").is_displayed()  # no script ran
        driver.find_element("id", "next").click()
        assert driver.current_url == server.url(game_id, 1)
        cur = driver.find_element("css selector", "#moves a.mv.cur")
        assert cur.get_attribute("data-i") == "1" and cur.text.endswith(actions[0])
        driver.find_element("css selector", '#moves a.mv[data-i="4"]').click()
        assert driver.current_url == server.url(game_id, 4)
        assert "/board/4.png?v=" in driver.find_element("id", "board").get_attribute("src")
        assert image_loaded_without_script(driver)
        driver.find_element("id", "final").click()
        assert driver.current_url == server.url(game_id)
        cur = driver.find_element("css selector", "#moves a.mv.cur")
        assert cur.get_attribute("data-i") == str(len(actions))
        shot(driver, "no-javascript")
    finally:
        driver.quit()


def image_loaded_without_script(driver: Any) -> bool:
    """With script off the page cannot be asked; the image's size shows it loaded."""
    return driver.find_element("id", "board").size["height"] > 100
