"""Real browser: Debian's Chromium driven by Playwright against the app served by waitress.

A host and two players on phone-sized screens, and the table on a big screen, play a whole
2-player Elfer raus! Junior match through the pages: moves chosen as "correct a reading"
buttons, round 1 counted with the card picker, round 2 typed in by the host, to the final
scores. Screenshots go to artifacts/screenshots/ (git-ignored) for a human to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any

import pytest

from companion import games
from companion.referee import Referee
from companion.store import Store
from web.server import ServerThread

from .conftest import HOST, make_app
from .test_readings import CAMERA, scripted

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
BIG = {"viewport": {"width": 1600, "height": 900}}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason="Debian's Chromium is not installed (/usr/bin/chromium): apt-get install -y chromium"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Site:
    """The app with its referee thread, served by waitress on a free port."""

    def __init__(self, tmp: Path, perceive: Any = None) -> None:
        self.store = Store.open(tmp / "companion.sqlite3")
        self.referee: Referee = Referee(self.store, rng=Random(3), perceive=perceive)
        self.referee.start()
        self.app = make_app(self.referee, tmp, SSE_KEEPALIVE=15.0)
        self.server = ServerThread(self.app).start()
        self.url = self.server.url
        self.errors: list[str] = []
        self.contexts: list[Any] = []

    def token(self, key: str) -> str:
        return self.app.extensions["companion"].access.get(key).token

    def page(self, browser: Any, lang: str, **context: Any) -> Any:
        ctx = browser.new_context(locale=lang, **context)
        self.contexts.append(ctx)
        ctx.set_default_timeout(10_000)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("dialog", lambda dialog: dialog.accept())
        return page

    def close(self) -> None:
        for ctx in self.contexts:  # pages first: their event streams end, the server stops at once
            ctx.close()
        self.server.stop()
        self.referee.stop()
        self.store.close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    s = Site(tmp_path)
    yield s
    s.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def scores_row(page: Any, name: str) -> list[str]:
    row = page.locator("#scores tbody tr", has=page.locator(f"th:text-is('{name}')"))
    if row.count() == 0:
        row = page.locator("#scores tbody tr").filter(has_text=name)
    return [c.strip() for c in row.first.locator("td").all_inner_texts()]


@pytest.mark.xdist_group("browser-match")
def test_a_whole_match_through_the_pages(browser: Any, site: Site) -> None:
    # The host scans the box's code and sets the match up.
    host = site.page(browser, "fr-FR", **PHONE)
    host.goto(f"{site.url}/join/{site.token('host')}")
    assert host.url.endswith("/setup")
    host.select_option("#newmatch select[name=game]", "elfer-raus-junior")
    names = host.locator("#newmatch .names input")
    names.nth(0).fill("Ana")
    names.nth(1).fill("Ben")
    shot(host, "01-host-setup-phone")
    host.get_by_role("button", name="Commencer la partie").click()
    host.locator("#running h2").filter(has_text="Elfer raus! Junior").wait_for()
    host.locator("#codes .joincode").first.wait_for()

    # Ana types her seat's code on the join page; Ben (in English) follows the QR code's link.
    codes = host.request.get(f"{site.url}/api/codes").json()["codes"]
    ana_code = next(c["code"] for c in codes if c["key"] == "player:0")
    ben_url = next(c["url"] for c in codes if c["key"] == "player:1")
    assert re.search(r"/join/[\w-]{30,}$", ben_url)
    ana = site.page(browser, "fr-FR", **PHONE)
    ana.goto(f"{site.url}/join")
    ana.fill("input[name=code]", ana_code.lower())
    ana.get_by_role("button", name="Rejoindre").click()
    ana.wait_for_url(f"{site.url}/player")
    ben = site.page(browser, "en-GB", **PHONE)
    ben.goto(site.url + "/join/" + ben_url.rsplit("/join/", 1)[1])
    ben.wait_for_url(f"{site.url}/player")

    # The big screen on the wall, as a spectator.
    table = site.page(browser, "fr-FR", **BIG)
    table.goto(site.url + "/")
    table.locator("#presence").filter(has_text="Ana").wait_for()
    assert "Ben" in table.inner_text("#presence") and "Hôte" in table.inner_text("#presence")
    assert ana.inner_text("#status").count("C'est ton tour") == 1
    assert "Ana to play" in ben.inner_text("#status")
    shot(ana, "02-ana-her-turn-phone")

    # Round 1: Ana lays her five cards (the camera is off: she picks each move herself).
    for card in ("2", "3", "4", "5", "6"):
        ana.get_by_role("button", name=f"Poser le {card} jaune", exact=True).click()
        table.locator(".r-yellow td.on", has_text=card).first.wait_for()
    shot(table, "03-table-round1-over-big")
    # An undo is refused once the round is over for the cards: nothing left to check here.
    # Ben lays out his hand with the card picker: blue 5 and 6, green 7 and 8, red 9 = 35.
    ben.get_by_role("heading", name="Count the hand").wait_for()
    for title in ("blue 5", "blue 6", "green 7", "green 8", "red 9"):
        ben.locator(f"#controls button.pick[title='{title}']").click()
    shot(ben, "04-ben-card-picker-phone")
    ben.get_by_role("button", name="Show these 5 cards").click()
    table.locator("#status").filter(has_text="Manche terminée").wait_for()
    assert scores_row(table, "Ben")[-1] == "35" and scores_row(table, "Ana")[-1] == "0"

    # Round 2: Ben starts; he plays, undoes, plays again; then the host types the scores.
    host.get_by_role("button", name="Manche suivante").click()
    ben.locator("#status").filter(has_text="Your turn!").wait_for()
    ben.get_by_role("button", name="Play the red 2", exact=True).click()
    table.locator(".r-red td.on", has_text="2").first.wait_for()
    ben.get_by_role("button", name="Undo the last move").click()
    table.locator(".r-red td.next", has_text="2").first.wait_for()
    ben.get_by_role("button", name="Play the green 10", exact=True).click()
    table.locator(".r-green td.on", has_text="10").first.wait_for()
    assert "Ben" in table.inner_text("#journal")
    shot(ben, "05-ben-round2-phone")
    form = host.locator("form.card-form").filter(has_text="Saisir les scores")
    form.locator("input[name=s0]").fill("12")
    form.locator("input[name=s1]").fill("0")
    form.get_by_role("button", name="Enregistrer les scores").click()

    # Final scores everywhere: Ana 0 + 12 = 12, Ben 35 + 0 = 35; lowest total wins.
    table.locator("#status").filter(has_text="gagnant : Ana").wait_for()
    assert scores_row(table, "Ana")[-1] == "12" and scores_row(table, "Ben")[-1] == "35"
    ben.locator("#status").filter(has_text="Match over — winner: Ana").wait_for()
    ana.locator("#status").filter(has_text="Partie terminée").wait_for()
    shot(table, "06-table-final-scores-big")
    shot(ben, "07-ben-final-scores-phone")
    shot(host, "08-host-after-match-phone")
    state = site.referee.snapshot()
    assert state["match_over"] and state["scores"] == [12, 35] and state["winners"] == [0]

    # The history page shows it; a phone that slept keeps its seat.
    table.goto(site.url + "/history")
    table.locator("#matches td").filter(has_text="Elfer raus! Junior").wait_for()
    shot(table, "09-history-big")
    again = browser.new_context(locale="fr-FR", storage_state=ana.context.storage_state(), **PHONE)
    page = again.new_page()
    page.goto(site.url + "/player")
    assert "Joueur, place 1" in page.inner_text("#who")
    again.close()
    assert site.errors == []


@pytest.mark.xdist_group("browser-match")
def test_camera_readings_are_confirmed_and_problems_explained(browser: Any, tmp_path: Path) -> None:
    site = Site(tmp_path, perceive=scripted)
    try:
        assert site.referee.submit({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"]},
                                   HOST).ok
        table = site.page(browser, "fr-FR", **BIG)
        table.goto(site.url + "/")
        site.referee.post({"type": "observation", "observation": {"verdict": {
            "kind": "problem", "key": "p", "rule": "does-not-fit", "expected": [{"type": "play", "card": "Y2"}],
            "seen": [{"kind": "number", "value": 5, "color": "yellow"}],
            "fr": "Le 5 jaune ne va pas à côté du 1 : il faut d'abord le 2 jaune.",
            "en": "The yellow 5 does not fit next to the 1: the yellow 2 comes first."}}}, CAMERA)
        problem = table.locator(".alert.problem")
        problem.filter(has_text="il faut d'abord le 2 jaune").wait_for()
        assert "Attendu : Poser le 2 jaune" in problem.inner_text() and "Vu : 5 jaune" in problem.inner_text()
        shot(table, "11-table-problem-big")
        site.referee.post({"type": "observation", "observation": {"verdict": {
            "kind": "proposal", "key": "q", "confidence": 0.6, "seen": {"kind": "number", "value": 2, "color": "red"},
            "options": [[{"type": "play", "card": "R2"}], [{"type": "play", "card": "B2"}]]}}}, CAMERA)
        ana = site.page(browser, "fr-FR", **PHONE)
        ana.goto(f"{site.url}/join/{site.token('player:0')}")
        proposal = ana.locator(".alert.proposal")
        proposal.filter(has_text="Poser le 2 bleu").wait_for()
        shot(ana, "12-ana-confirms-a-reading-phone")
        proposal.locator("li").filter(has_text="Poser le 2 bleu").get_by_role("button", name="C'est ça").click()
        table.locator(".r-blue td.on", has_text="2").first.wait_for()
        assert table.locator(".alert").count() == 0
        assert site.errors == []
    finally:
        site.close()


@pytest.mark.xdist_group("browser-boards")
def test_calibration_by_tapping_four_corners(browser: Any, site: Site) -> None:
    host = site.page(browser, "en-GB", **PHONE)
    host.goto(f"{site.url}/join/{site.token('host')}")
    host.goto(site.url + "/camera")
    host.get_by_role("button", name="Take a picture and calibrate").click()
    shot_img = host.locator("#shot")
    host.wait_for_function("() => document.getElementById('shot').naturalWidth > 0")
    shot_img.scroll_into_view_if_needed()
    box = shot_img.bounding_box()
    for fx, fy in ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)):
        host.mouse.click(box["x"] + box["width"] * fx, box["y"] + box["height"] * fy)
    host.locator("#calib-msg").filter(has_text="Calibration saved").wait_for()
    corners = site.app.extensions["companion"].camera.corners
    assert [(round(x), round(y)) for x, y in corners] == [(6, 5), (58, 5), (58, 43), (6, 43)]  # 64x48 picture
    shot(host, "13-camera-calibrated-phone")
    assert site.errors == []


@pytest.mark.xdist_group("browser-boards")
def test_teach_this_deck_read_corrected_and_confirmed(browser: Any, site: Site) -> None:
    host = site.page(browser, "fr-FR", **PHONE)
    host.goto(f"{site.url}/join/{site.token('host')}")
    host.goto(site.url + "/camera")
    host.get_by_role("button", name="Lire et apprendre les cartes").click()
    card = host.locator("li.teach-card")
    card.wait_for()
    assert card.locator("[name=value]").input_value() == "7"  # as the (fake) camera read it
    card.locator("[name=value]").fill("8")  # the player corrects the number
    card.locator("[name=color]").select_option("green")
    shot(host, "14-camera-teach-phone")
    host.get_by_role("button", name="Confirmer et apprendre ce jeu").click()
    host.locator("#teach-msg").filter(has_text="Jeu appris").wait_for()
    assert site.app.extensions["companion"].camera.confirmed == [{"kind": "number", "value": 8, "color": "green"}]
    assert site.errors == []


@pytest.mark.xdist_group("browser-match")
def test_numeri_die_buttons_and_tokens(browser: Any, site: Site) -> None:
    assert site.referee.submit({"type": "new_match", "game": "numeri", "players": ["Ana", "Ben"]}, HOST).ok
    ana = site.page(browser, "fr-FR", **PHONE)
    ana.goto(f"{site.url}/join/{site.token('player:0')}")
    ana.get_by_role("button", name="Le dé a donné 3").click()
    ana.locator(".die").filter(has_text="3").wait_for()
    ana.get_by_role("button", name=re.compile(r"Entrer le pion 3 jaune")).click()
    ana.locator(".track .sq .chip", has_text="3").wait_for()
    ben = site.page(browser, "en-GB", **PHONE)
    ben.goto(f"{site.url}/join/{site.token('player:1')}")
    ben.get_by_role("button", name="Roll the die").click()  # the virtual die
    ben.locator("#controls .moves button.move").first.wait_for()
    shot(ben, "10-numeri-after-roll-phone")
    ben.locator("#controls .moves button.move").first.click()
    ana.locator("#status").filter(has_text=re.compile("C'est ton tour|La table doit")).wait_for()
    assert site.errors == []


@pytest.mark.xdist_group("browser-boards")
@pytest.mark.parametrize("game", games.ids())
def test_every_board_is_drawn_with_named_colours(browser: Any, site: Site, game: str) -> None:
    info = games.get(game).info
    players = ["Ana", "Ben", "Chloé", "Dan"][:max(info.min_players, min(info.max_players, 3))]
    assert site.referee.submit({"type": "new_match", "game": game, "players": players}, HOST).ok
    rng = Random(4)
    for _ in range(25):  # enough moves to fill part of the board
        legal = site.referee.state_for(HOST).get("me", {}).get("legal") or []
        snap = site.referee.snapshot()
        if not legal or snap["round_over"]:
            break
        playing = [a for a in legal if a["type"] not in ("draw", "pass", "end_turn", "no_eleven", "take")] or legal
        action = rng.choice(playing)
        cmd = {"type": "roll", "value": action["value"]} if action["type"] == "roll" else {"type": "action",
                                                                                            "action": action}
        site.referee.submit(cmd, HOST)
    for name, context in (("big", BIG), ("phone", PHONE)):
        page = site.page(browser, "fr-FR" if name == "phone" else "en-GB", **context)
        page.goto(site.url + "/")
        page.locator("#board > *").first.wait_for()
        assert "No drawing" not in page.inner_text("#board") and "Pas de dessin" not in page.inner_text("#board")
        # Never a colour alone: every coloured card, cell or row label carries a letter or a name.
        unlabeled = page.evaluate("""() => [...document.querySelectorAll(
            '#board .c-yellow, #board .c-red, #board .c-blue, #board .c-green')]
            .filter(e => !/[A-Za-zÀ-ÿ]/.test(e.textContent)).length""")
        assert unlabeled == 0
        # Nothing sticks out sideways on a phone.
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
        shot(page, f"board-{game}-{name}")
    host = site.page(browser, "fr-FR", **PHONE)
    host.goto(f"{site.url}/join/{site.token('host')}")
    host.goto(site.url + "/player")
    host.locator("#status h1").wait_for()
    shot(host, f"player-{game}-host-phone")
    assert site.errors == []


@pytest.mark.xdist_group("browser-boards")
def test_the_empty_11_board_is_learnt_from_the_camera_page(browser: Any, site: Site) -> None:
    host = site.page(browser, "fr-FR", **PHONE)
    host.goto(f"{site.url}/join/{site.token('host')}")
    host.goto(site.url + "/camera")
    host.get_by_role("button", name="Le plateau est vide : l'apprendre").click()
    host.locator("#empty-msg").filter(has_text="Plateau vide appris").wait_for()
    assert site.app.extensions["companion"].camera.empty_boards == 1
    shot(host, "15-camera-empty-board-phone")
    assert site.errors == []
