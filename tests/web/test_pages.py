"""The pages: language, roles, offline (nothing external), weight, strings in both languages."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from random import Random

import pytest
from flask import Flask

from companion import games
from companion.referee import Referee

from .conftest import HOST, Phone

WEB = Path(__file__).resolve().parents[2] / "web"
PAGES = ["/", "/player", "/setup", "/camera", "/history", "/rules", "/rules/numeri", "/join"]
LIMIT = 150 * 1024


class Refs(HTMLParser):
    """The resources a page loads: scripts, style sheets, icons, images."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.lang: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        for key in ("src", "href"):
            url = a.get(key)
            if url and (tag in ("script", "img") or (tag == "link" and key == "href")):
                self.urls.append(url)


def refs(html: str) -> Refs:
    parser = Refs()
    parser.feed(html)
    return parser


@pytest.mark.parametrize(("accept", "lang"), [
    (None, "fr"), ("fr-FR,fr;q=0.9", "fr"), ("en-GB,en;q=0.8", "en"), ("de-DE,de;q=0.9", "fr"),
    ("de-DE,de;q=0.9,en;q=0.5", "en"), ("*", "fr"),
])
def test_page_language_follows_accept_language_french_by_default(app: Flask, accept: str | None, lang: str) -> None:
    headers = {"Accept-Language": accept} if accept else {}
    for path in ("/", "/player", "/history", "/join"):
        html = app.test_client().get(path, headers=headers).get_data(as_text=True)
        assert refs(html).lang == lang, path


def test_the_language_switch_wins_and_stays(app: Flask) -> None:
    client = app.test_client()
    resp = client.get("/lang/en?next=/history", headers={"Accept-Language": "fr"})
    assert resp.status_code == 303 and resp.headers["Location"] == "/history"
    html = client.get("/history", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert refs(html).lang == "en" and "Match history" in html
    assert client.post("/api/actions", json={}, headers={"Accept-Language": "fr"}).json["error"].startswith("Join")
    client.get("/lang/fr")
    assert refs(client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)).lang == "fr"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)", "x"])
def test_the_language_switch_never_redirects_elsewhere(app: Flask, target: str) -> None:
    resp = app.test_client().get("/lang/en", query_string={"next": target})
    assert resp.headers["Location"] == "/"


def test_pages_per_role(app: Flask, junior: Referee) -> None:
    host, ana, watcher = Phone(app).join("host"), Phone(app).join("player:0"), Phone(app)
    for path in PAGES:
        assert host.client.get(path).status_code == 200, path
    for phone in (ana, watcher):
        for path in ("/", "/player", "/history", "/rules", "/rules/start11", "/join"):
            assert phone.client.get(path).status_code == 200, path
        for path in ("/setup", "/camera"):  # host pages answer with the join form
            resp = phone.client.get(path)
            assert resp.status_code == 403 and 'name="code"' in resp.get_data(as_text=True)
    assert watcher.client.get("/rules/chess").status_code == 404
    nav = ana.client.get("/").get_data(as_text=True)
    assert 'href="/setup"' not in nav and 'href="/setup"' in host.client.get("/").get_data(as_text=True)


def test_pages_embed_the_callers_state_for_the_first_render(app: Flask, junior: Referee) -> None:
    ana = Phone(app).join("player:0")
    html = ana.client.get("/player").get_data(as_text=True)
    boot = json.loads(re.search(r'<script id="boot" type="application/json">(.*?)</script>', html, re.S).group(1))
    assert boot["state"]["you"]["seat"] == 0 and boot["state"]["version"] == junior.version
    assert boot["lang"] == "fr" and boot["csrf"] == ana.csrf and boot["strings"]["your_turn"] == "C'est ton tour !"


def test_embedded_json_cannot_break_out_of_its_script_tag(app: Flask, host: Phone) -> None:
    host.post({"type": "new_match", "game": "numeri", "players": ["</script><script>x()", "B"]})
    html = app.test_client().get("/").get_data(as_text=True)
    assert "</script><script>x()" not in html


@pytest.mark.parametrize("game", games.ids())
def test_every_page_weighs_at_most_150_kb_and_loads_nothing_external(app: Flask, referee: Referee,
                                                                      game: str) -> None:
    info = games.get(game).info
    players = ["Ana", "Ben", "Chloé", "Dan", "Eve", "Fay", "Gus"][:info.max_players]
    assert referee.handle({"type": "new_match", "game": game, "players": players}, HOST).ok
    rng = Random(3)
    for _ in range(8):  # a few moves so boards and move lists are not empty
        legal = referee.state_for(HOST)["me"]["legal"]
        if not legal or referee.snapshot()["round_over"]:
            break
        referee.handle({"type": "action", "action": rng.choice(legal)}, HOST)
    host = Phone(app).join("host")
    for path in PAGES:
        resp = host.client.get(path)
        html = resp.get_data(as_text=True)
        total = len(resp.data)
        for url in refs(html).urls:
            assert url.startswith("/") and not url.startswith("//"), (path, url)  # no CDN, no web font
            with host.client.get(url) as asset:
                assert asset.status_code == 200, url
                total += len(asset.data)
        assert total <= LIMIT, (game, path, total)
        assert "http://" not in html and "https://" not in html, path  # nothing from the Internet, ever


def test_static_assets_are_cached_by_content_hash(app: Flask) -> None:
    html = app.test_client().get("/").get_data(as_text=True)
    script = next(u for u in refs(html).urls if u.startswith("/static/app.js"))
    assert re.fullmatch(r"/static/app\.js\?v=[0-9a-f]{10}", script)
    with app.test_client().get(script) as resp:
        assert "max-age" in resp.headers.get("Cache-Control", "")
    assert "http" not in (WEB / "static" / "style.css").read_text().replace("http://www.w3.org", "")


# --- strings ---------------------------------------------------------------------------------


def load(lang: str) -> dict[str, str]:
    return json.loads((WEB / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_french_and_english_have_the_same_strings_and_placeholders() -> None:
    fr, en = load("fr"), load("en")
    assert fr.keys() == en.keys()
    for key in fr:
        assert fr[key].strip() and en[key].strip(), key
        assert set(re.findall(r"\{(\w+)\}", fr[key])) == set(re.findall(r"\{(\w+)\}", en[key])), key


def test_every_string_the_code_uses_exists() -> None:
    keys = set(load("fr"))
    script = (WEB / "static" / "app.js").read_text(encoding="utf-8")
    used = set(re.findall(r"""\btt\(\s*"([\w.]+)"\s*[,)]""", script))
    missing = {k for k in used if f"js.{k}" not in keys}
    assert not missing, missing
    py = "".join(p.read_text(encoding="utf-8") for p in WEB.glob("*.py"))
    templates = "".join(p.read_text(encoding="utf-8") for p in (WEB / "templates").glob("*.html"))
    used = set(re.findall(r"""\b(?:tr|error)\(\s*(?:\d+,\s*)?"([a-z_]+\.[\w.]+)"\s*[,)]""", py))
    used |= set(re.findall(r"""\bt\(\s*["']([a-z_]+\.[\w.]+)["']""", templates))
    missing = used - keys
    assert not missing, missing


def test_colours_are_always_named_or_lettered() -> None:
    for lang in ("fr", "en"):
        s = load(lang)
        marks = [s[f"js.c.{c}.mark"] for c in ("yellow", "red", "blue", "green")]
        assert len(set(marks)) == 4, (lang, marks)  # one distinct letter per colour
        for c in ("yellow", "red", "blue", "green", "gray"):
            assert s[f"js.c.{c}"] and s[f"js.c.{c}.row"]


@pytest.mark.parametrize("game", games.ids())
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_rules_help_for_every_game_in_both_languages(app: Flask, game: str, lang: str) -> None:
    html = app.test_client().get(f"/rules/{game}", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert refs(html).lang == lang
    text = re.sub(r"<[^>]+>", " ", html.split('<article class="rules">')[1])
    assert len(text.split()) > 120
    marker = {"fr": ("Fin et points", "Ton tour"), "en": ("End and points", "Your turn")}[lang]
    assert any(m in text for m in marker)


def test_rules_index_lists_every_game(app: Flask) -> None:
    html = app.test_client().get("/rules").get_data(as_text=True)
    for game in games.ids():
        assert f'href="/rules/{game}"' in html


def test_setup_page_offers_every_game_with_its_guess_options(app: Flask, host: Phone) -> None:
    html = host.client.get("/setup").get_data(as_text=True)
    boot = json.loads(re.search(r'<script id="boot" type="application/json">(.*?)</script>', html, re.S).group(1))
    offered = {g["id"]: g for g in boot["games"]}
    assert set(offered) == set(games.ids())
    for g in games.all_games():
        guesses = {o["id"] for o in offered[g.info.id]["options"] if o["guess"]}
        assert guesses == {o.id for o in g.info.options if o.guess}
