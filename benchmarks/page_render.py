"""First render of the pages on loopback: how long until a phone shows the table?

Usage: python benchmarks/page_render.py [--runs 10] [--game elfer-raus] [--players 4]

Two figures per page, cold cache each run (a new browser context):
  - HTTP: fetching the HTML and every asset it references (what a phone downloads);
  - browser: Debian's Chromium (Playwright) on a phone-sized viewport, from navigation
    to first contentful paint, and to the moment the page has drawn the state (status
    line and board filled by the script). Skipped if /usr/bin/chromium is absent.
The aim (web brief): first render <= 1 s on loopback.
"""

from __future__ import annotations

import argparse
import http.client
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from random import Random

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import games  # noqa: E402
from companion.referee import Actor, Referee  # noqa: E402
from companion.store import Store  # noqa: E402
from web import create_app  # noqa: E402
from web.server import ServerThread  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PAGES = ["/", "/player", "/setup", "/history", "/rules/numeri"]
READY = {"/": "#board > *", "/player": "#status h1", "/setup": "#newmatch h2", "/history": "#matches table, #matches p",
         "/rules/numeri": "article h1"}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def http_fetch(port: int, path: str, cookie: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    total = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Cookie": cookie})
    html = conn.getresponse().read()
    total += len(html)
    # What the page loads (scripts, style sheet, icon, images), not the links it shows.
    for url in re.findall(rb'<(?:script|img)[^>]* src="(/[^"]+)"|<link[^>]* href="(/[^"]+)"', html):
        url = url[0] or url[1]
        conn.request("GET", url.decode(), headers={"Cookie": cookie})
        total += len(conn.getresponse().read())
    conn.close()
    return (time.perf_counter() - t0) * 1000, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--game", default="elfer-raus", choices=games.ids())
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="render-bench-"))
    store = Store.open(tmp / "companion.sqlite3")
    referee = Referee(store, rng=Random(1))
    referee.start()
    host = Actor("host")
    names = ["Ana", "Ben", "Chloé", "Dan", "Eve", "Fay", "Gus"][:args.players]
    assert referee.submit({"type": "new_match", "game": args.game, "players": names}, host).ok
    rng = Random(3)
    for _ in range(30):  # a match in progress: a filled board and a move list
        legal = referee.state_for(host).get("me", {}).get("legal") or []
        if not legal or referee.snapshot()["round_over"]:
            break
        a = rng.choice(legal)
        cmd = {"type": "roll", "value": a["value"]} if a["type"] == "roll" else {"type": "action", "action": a}
        referee.submit(cmd, host)
    app = create_app({"DATA_DIR": tmp}, referee=referee)
    server = ServerThread(app).start()
    token = app.extensions["companion"].access.get("host").token

    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    conn.request("GET", f"/join/{token}")
    resp = conn.getresponse()
    resp.read()
    cookie = resp.getheader("Set-Cookie", "").split(";")[0]
    conn.close()

    print(f"First render on loopback ({args.game}, {args.players} players, host's view, {args.runs} runs per page)")
    print("  HTTP, HTML + assets (ms):")
    for path in PAGES:
        times, size = zip(*(http_fetch(server.port, path, cookie) for _ in range(args.runs)), strict=True)
        print(f"    {path:14s} p50 {statistics.median(times):6.1f}  p95 {p95(list(times)):6.1f}   "
              f"{size[0] / 1024:.0f} kB")

    worst = 0.0
    if Path(CHROMIUM).exists():
        from playwright.sync_api import sync_playwright

        print("  Chromium, phone viewport 390x844, cold cache (ms): first paint / state drawn")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for path in PAGES:
                fcp, drawn = [], []
                for _ in range(args.runs):
                    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-FR")
                    page = ctx.new_page()
                    page.goto(f"{server.url}/join/{token}")  # the host's cookie, then the page itself, cold
                    page.goto(server.url + path, wait_until="commit")
                    page.locator(READY[path]).first.wait_for()
                    timing = page.evaluate("""() => {
                        const nav = performance.getEntriesByType('navigation')[0];
                        const paint = performance.getEntriesByName('first-contentful-paint')[0];
                        return {fcp: paint ? paint.startTime : null, now: performance.now(), start: nav.startTime};
                    }""")
                    fcp.append(timing["fcp"] or timing["now"])
                    drawn.append(timing["now"] - timing["start"])
                    ctx.close()
                worst = max(worst, p95(drawn))
                print(f"    {path:14s} first paint p50 {statistics.median(fcp):6.1f} p95 {p95(fcp):6.1f}   "
                      f"state drawn p50 {statistics.median(drawn):6.1f} p95 {p95(drawn):6.1f}")
            browser.close()
        print(f"  worst p95 until the state is drawn: {worst:.0f} ms (aim: <= 1000) -> "
              f"{'OK' if worst <= 1000 else 'NOT MET'}")
    else:
        print("  (no /usr/bin/chromium: browser figures skipped)")
    server.stop()
    referee.stop()
    store.close()


if __name__ == "__main__":
    main()
