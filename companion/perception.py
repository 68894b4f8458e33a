"""From what the camera sees to proposed moves.

Vision reports readings (cards, tiles, tokens, the die). Each game's adapter turns them
into a multiset of *items* (e.g. "R12" on the table, "Y3" on square 7) and says which
items a state shows. The difference between the two is explained by searching short
sequences of legal actions that produce exactly the new items. One clear explanation
from confident readings is committed; a turn change nobody signalled, several
explanations or doubtful readings become a proposal to confirm; no explanation is a
problem shown as "expected vs seen" with the rule the table breaks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .games.base import CHANCE, Action, IllegalMove, State
from .session import Session, is_revealing

Item = tuple[Any, ...]

# Readings below this confidence are never committed without a player's yes.
CONFIDENT = 0.9


@dataclass
class Seen:
    items: Counter[Item]
    confidence: float = 1.0  # the lowest confidence among the readings used
    doubtful: list[str] = field(default_factory=list)  # readings not used (unknown, unsure)
    die: Any = None
    die_moved: bool = False  # the die shows a new face or lies elsewhere: it was rolled


class Adapter:
    """How one game's table looks to the camera. Subclasses fill in `expected` and `seen`."""

    exact = False  # True: everything on the table is visible (no stacks, no covered cards)

    def expected(self, state: State) -> Counter[Item]:
        raise NotImplementedError

    def seen(self, state: State, obs: Mapping[str, Any]) -> Seen:
        raise NotImplementedError

    def chance(self, state: State, seen: Seen, new: Counter[Item]) -> list[Action]:
        """Chance outcomes the table shows (a die face, flipped cards)."""
        return []

    def label(self, item: Item, lang: str) -> str:
        return " ".join(str(p) for p in item)

    def action_for(self, state: State, item: Item) -> Action | None:
        """The move that would put `item` on the table (to explain why it is not allowed)."""
        return None


def _cards_seen(state: State, obs: Mapping[str, Any], kinds: tuple[str, ...] = ("number",)) -> Seen:
    items: Counter[Item] = Counter()
    low = 1.0
    doubtful = []
    for reading in obs.get("cards", []) or []:
        if reading.get("kind") not in kinds:
            continue
        code = state.observed_card(reading)
        conf = float(reading.get("confidence", 0.0))
        if code is None:
            doubtful.append(f"{reading.get('color')} {reading.get('value')}")
            continue
        items[(code,)] += 1
        low = min(low, conf)
    return Seen(items, low, doubtful)


class RowsAdapter(Adapter):
    """Elfer raus! games: the set of cards lying in the rows (stacks may hide inner cards)."""

    def expected(self, state: State) -> Counter[Item]:
        rows = state.view(None)["board"]["rows"]
        out: Counter[Item] = Counter()
        for colour, row in rows.items():
            letter = colour[0].upper()
            for v in _row_values(row):
                out[(f"{letter}{v}",)] += 1
        return out

    def seen(self, state: State, obs: Mapping[str, Any]) -> Seen:
        return _cards_seen(state, obs)

    def label(self, item: Item, lang: str) -> str:
        from .games import cards

        return cards.name(str(item[0]), lang)

    def action_for(self, state: State, item: Item) -> Action | None:
        return {"type": "play", "card": item[0]}


def _row_values(row: Any) -> list[int]:
    """The values lying in one row, whatever the game's view calls them."""
    if row is None:
        return []
    if isinstance(row, list):  # junior: the values themselves
        return [int(v) for v in row]
    if "span" in row:  # classic: one run low..high, or not opened
        span = row["span"]
        return list(range(int(span[0]), int(span[1]) + 1)) if span else []
    if "up" in row:  # extremes: a run up from 1 and a run down from 20
        up, down = row["up"], row["down"]
        return sorted(set(range(int(up[0]), int(up[1]) + 1)) | set(range(int(down[0]), int(down[1]) + 1)))
    raise ValueError(f"unknown row view {row!r}")


class ElevensAdapter(Adapter):
    """11 Elevens: number cards in the rows, jokers where they stand, link cards between rows.

    Rows are parallel and evenly spaced by value, so the number cards give each row's line
    (an origin per colour and one step per value); a joker is the nearest row position, a
    link card the position between the two nearest rows. When the picture cannot say
    (a row with a single card, no geometry), a joker or a link is only counted, and the
    referee asks the player when several places fit.
    """

    def expected(self, state: State) -> Counter[Item]:
        board = state.view(None)["board"]
        out: Counter[Item] = Counter()
        for row in board["rows"]:
            for value, card in row["positions"].items():
                out[("J", row["colour"], int(value)) if card == "J" else (card,)] += 1
        for link in board["links"]:
            a, b = sorted((link["from"], link["to"]))
            out[("L", a, b, int(link["value"]))] += 1
        return out

    def seen(self, state: State, obs: Mapping[str, Any]) -> Seen:
        base = _cards_seen(state, obs, kinds=("number",))
        items = Counter(base.items)
        low, doubtful = base.confidence, list(base.doubtful)
        rows = [r["colour"] for r in state.view(None)["board"]["rows"]]
        grid = _row_grid(state, obs)
        for reading in obs.get("cards", []) or []:
            kind = reading.get("kind")
            if kind not in ("joker", "link"):
                continue
            low = min(low, float(reading.get("confidence", 0.0)))
            place = grid.locate(_centre(reading), rows, between=kind == "link") if grid else None
            if place is None:
                doubtful.append(kind)
                continue
            items[("J", *place) if kind == "joker" else ("L", *place)] += 1
        return Seen(items, low, doubtful)

    def label(self, item: Item, lang: str) -> str:
        from .games import cards

        if item[0] == "J":
            return f"joker ({cards.name(cards.code(item[1], item[2]), lang)})"
        if item[0] == "L":
            what = "liaison" if lang == "fr" else "link"
            return f"{what} {item[1]}/{item[2]} {item[3]}"
        return cards.name(str(item[0]), lang)

    def action_for(self, state: State, item: Item) -> Action | None:
        if item[0] == "J":
            return {"type": "play", "card": "J", "row": item[1], "value": item[2]}
        if item[0] == "L":
            return None
        return {"type": "play", "card": item[0]}


def _centre(reading: Mapping[str, Any]) -> tuple[float, float]:
    pts = reading.get("corners") or [[0.0, 0.0]]
    return sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)


class _RowGrid:
    """Row lines of the number-card rows: centre(colour, value) = origin[colour] + value * step."""

    def __init__(self, step: tuple[float, float], origin: dict[str, tuple[float, float]]) -> None:
        self.step = step
        self.origin = origin

    def at(self, colour: str, value: float) -> tuple[float, float]:
        ox, oy = self.origin[colour]
        return ox + value * self.step[0], oy + value * self.step[1]

    def locate(self, p: tuple[float, float], order: list[str], between: bool) -> tuple[Any, ...] | None:
        sx, sy = self.step
        norm = sx * sx + sy * sy
        if norm < 1e-6:
            return None
        best = None
        pairs = list(zip(order, order[1:], strict=False)) if between else [(c, c) for c in order]
        for a, b in pairs:
            if a not in self.origin or b not in self.origin:
                continue
            ox = (self.origin[a][0] + self.origin[b][0]) / 2
            oy = (self.origin[a][1] + self.origin[b][1]) / 2
            value = round(((p[0] - ox) * sx + (p[1] - oy) * sy) / norm)
            if not 1 <= value <= 21:
                continue
            ex, ey = ox + value * sx, oy + value * sy
            miss = ((p[0] - ex) ** 2 + (p[1] - ey) ** 2) ** 0.5
            if best is None or miss < best[0]:
                best = (miss, a, b, value)
        if best is None or best[0] > 0.45 * norm ** 0.5 * 3:
            return None
        _, a, b, value = best
        return (a, value) if not between else (*sorted((a, b)), value)


def _row_grid(state: State, obs: Mapping[str, Any]) -> _RowGrid | None:
    """Fit the rows from the number cards read (None when there is too little to go on)."""
    from .games import cards

    points: dict[str, list[tuple[int, tuple[float, float]]]] = {}
    for reading in obs.get("cards", []) or []:
        if reading.get("kind") != "number":
            continue
        code = state.observed_card(reading)
        parsed = cards.parse(code) if code else None
        if parsed is None:
            continue
        points.setdefault(parsed[0], []).append((parsed[1], _centre(reading)))
    # One step per value, shared by all rows: least squares over pairs within each row.
    num_x = num_y = den = 0.0
    for pts in points.values():
        for i, (va, pa) in enumerate(pts):
            for vb, pb in pts[i + 1:]:
                dv = vb - va
                if dv:
                    num_x += (pb[0] - pa[0]) * dv
                    num_y += (pb[1] - pa[1]) * dv
                    den += dv * dv
    if den == 0:
        return None
    step = (num_x / den, num_y / den)
    origin = {}
    for colour, pts in points.items():
        origin[colour] = (sum(p[0] - v * step[0] for v, p in pts) / len(pts),
                          sum(p[1] - v * step[1] for v, p in pts) / len(pts))
    return _RowGrid(step, origin)


class PilesAdapter(Adapter):
    """11 nimmt!: the top card of every pile (what lies under a top is never visible)."""

    exact = True

    def expected(self, state: State) -> Counter[Item]:
        return Counter(("top", p["top"]) for p in state.view(None)["board"]["piles"])

    def seen(self, state: State, obs: Mapping[str, Any]) -> Seen:
        base = _cards_seen(state, obs)
        return Seen(Counter(("top", code) for (code,) in base.items.elements()), base.confidence, base.doubtful)

    def chance(self, state: State, seen: Seen, new: Counter[Item]) -> list[Action]:
        """New piles turned face up after a take: the new tops, in a fixed order."""
        legal = state.legal_actions()
        if not any(a.get("type") == "flip" for a in legal) and not getattr(state, "phase", "") == "flip":
            return []
        pile = int(state.view(None).get("pile") or 0)
        want = min(2, pile)
        tops = sorted((str(code) for _, code in new.elements()), key=int)
        if len(tops) < want:
            return []
        if want == 0:
            return [{"type": "flip", "cards": []}]
        from itertools import combinations

        return [{"type": "flip", "cards": list(c)} for c in combinations(tops, want)]

    def label(self, item: Item, lang: str) -> str:
        return f"{item[1]}"

    def action_for(self, state: State, item: Item) -> Action | None:
        return None


class BoardAdapter(Adapter):
    """11!: which tile lies on which square of the board."""

    exact = True

    def expected(self, state: State) -> Counter[Item]:
        tiles = state.view(None)["board"]["tiles"]
        return Counter(dict.fromkeys(tiles.items(), 1))

    def seen(self, state: State, obs: Mapping[str, Any]) -> Seen:
        items: Counter[Item] = Counter()
        low, doubtful = 1.0, []
        for reading in obs.get("cards", []) or []:
            code = state.observed_card(reading)
            square = reading.get("square")
            if code is None or square is None:
                if square is not None or code is None:
                    doubtful.append(f"{reading.get('color')} {reading.get('value')}")
                continue
            items[(_square_id(square), code)] += 1
            low = min(low, float(reading.get("confidence", 0.0)))
        return Seen(items, low, doubtful)

    def label(self, item: Item, lang: str) -> str:
        from .games import cards

        square, tile = item
        return f"{cards.name(str(tile), lang)} ({square})"

    def action_for(self, state: State, item: Item) -> Action | None:
        return {"type": "place", "tile": item[1], "square": item[0]}


def _square_id(square: Any) -> str:
    """The engine's square name ("yellow:13", "red:left") from a reading ("yellow-13" also accepted)."""
    text = str(square)
    return text.replace("-", ":", 1) if ":" not in text else text


class TrackAdapter(Adapter):
    """Numeri: which token stands on which square, and the die."""

    exact = True

    def expected(self, state: State) -> Counter[Item]:
        squares = state.view(None)["board"]["squares"]
        return Counter({(int(sq), code): 1 for sq, code in squares.items()})

    def seen(self, state: State, obs: Mapping[str, Any]) -> Seen:
        items: Counter[Item] = Counter()
        low, doubtful = 1.0, []
        for t in obs.get("tokens", []) or []:
            if t.get("square") is None:
                continue  # waiting beside the board, in front of its player
            code = state.observed_card({"kind": "number", "value": t.get("value"), "color": t.get("color")})
            if code is None:
                doubtful.append(f"{t.get('color')} {t.get('value')}")
                continue
            items[(int(t["square"]), code)] += 1
            low = min(low, float(t.get("confidence", 0.0)))
        die = None
        for d in obs.get("dice", []) or []:
            die = d.get("value")
            low = min(low, float(d.get("confidence", 0.0)))
        return Seen(items, low, doubtful, die)

    def chance(self, state: State, seen: Seen, new: Counter[Item]) -> list[Action]:
        if seen.die is None or not seen.die_moved:
            return []  # the die still shows the last roll: nobody has rolled yet
        roll = {"type": "roll", "value": seen.die}
        return [roll] if roll in state.legal_actions() else []

    def label(self, item: Item, lang: str) -> str:
        from .games import cards

        square, code = item
        name = cards.name(str(code), lang)
        return f"{name} case {square}" if lang == "fr" else f"{name} on square {square}"


ADAPTERS: dict[str, Callable[[], Adapter]] = {
    "elevens": ElevensAdapter,
    "elfer-raus-junior": RowsAdapter,
    "elfer-raus": RowsAdapter,
    "11-nimmt": PilesAdapter,
    "start11": BoardAdapter,
    "numeri": TrackAdapter,
}


@dataclass
class Explanation:
    actions: list[Action]
    silent: int  # player actions the camera cannot see (end of turn, a draw)


def explain(state: State, adapter: Adapter, seen: Seen, limit: int = 4, max_nodes: int = 4000) -> list[Explanation]:
    """Shortest action sequences from `state` whose new table items are exactly the seen new ones."""
    start = adapter.expected(state)
    target_new = seen.items - start
    frontier: list[tuple[State, list[Action], int, Counter[Item]]] = [(state, [], 0, target_new)]
    found: list[Explanation] = []
    nodes = 0
    depth_limit = 2 * sum(target_new.values()) + 3
    for _depth in range(depth_limit):
        nxt = []
        for node, path, silent, remaining in frontier:
            if not remaining and path and _settled(adapter, node, seen):
                found.append(Explanation(path, silent))
                continue
            for action, child, added in _moves(node, adapter, seen, remaining):
                nodes += 1
                if nodes > max_nodes:
                    return found
                is_silent = not added and child.current_player != CHANCE and action.get("type") != "roll" \
                    and node.current_player != CHANCE
                nxt.append((child, [*path, action], silent + int(is_silent), remaining - added))
        if found:
            return found[:limit]
        if not nxt:
            break
        frontier = nxt
    return found[:limit]


def _settled(adapter: Adapter, state: State, seen: Seen) -> bool:
    exp = adapter.expected(state)
    if adapter.exact:
        return exp == seen.items
    return not (seen.items - exp)


def _moves(state: State, adapter: Adapter, seen: Seen, remaining: Counter[Item]):
    """Children worth exploring: actions adding only still-unexplained seen items."""
    before = adapter.expected(state)
    shown = False  # chance outcomes must be backed by what the table shows
    if state.current_player == CHANCE:
        legal = state.legal_actions()
        candidates = adapter.chance(state, seen, remaining)
        if not candidates:
            if len(legal) == 1 and not is_revealing(legal[0]):
                candidates = legal  # a hidden draw or deal: nothing to see
            elif len(legal) <= 400:
                candidates = [a for a in legal if is_revealing(a) and a.get("type") != "roll"]
                shown = True
    else:
        candidates = state.legal_actions()
    for action in candidates:
        child = state.clone()
        try:
            child.apply(dict(action))
        except IllegalMove:
            continue
        after = adapter.expected(child)
        added = after - before
        removed = before - after
        if added - remaining:
            continue  # it would put something on the table that is not there
        if shown and not added:
            continue  # an outcome nobody can see is not guessed
        if adapter.exact and any(seen.items[i] >= after[i] + 1 for i in removed):
            continue  # it takes away something still seen
        if not added and not removed and state.current_player != CHANCE:
            if action.get("type") not in ("end_turn", "pass", "no_eleven"):
                continue  # silent moves other than ending a turn explain nothing
        yield action, child, added


class Perceiver:
    """The referee's `perceive` hook; remembers the die between snapshots to see rolls."""

    def __init__(self, moved_px: float = 12.0, confident: float = CONFIDENT) -> None:
        self.moved_px = moved_px
        self.confident = confident
        self._die: tuple[Any, tuple[float, float]] | None = None

    def __call__(self, session: Session, obs: Mapping[str, Any]) -> dict[str, Any]:
        die = _die_of(obs)
        if die is not None and self._die is None:
            self._die = die  # the first sighting is where the die lies, not a roll
        moved = die is not None and self._die is not None and (
            die[0] != self._die[0]
            or abs(die[1][0] - self._die[1][0]) + abs(die[1][1] - self._die[1][1]) > self.moved_px
        )
        verdict = perceive(session, obs, die_moved=moved, confident=self.confident)
        if die is not None and verdict.get("kind") in ("commit", "settled"):
            self._die = die
        return verdict


def _die_of(obs: Mapping[str, Any]) -> tuple[Any, tuple[float, float]] | None:
    for d in obs.get("dice", []) or []:
        corners = d.get("corners") or [[0, 0]]
        cx = sum(p[0] for p in corners) / len(corners)
        cy = sum(p[1] for p in corners) / len(corners)
        return d.get("value"), (cx, cy)
    return None


def perceive(session: Session, obs: Mapping[str, Any], die_moved: bool = False,
             confident: float = CONFIDENT) -> dict[str, Any]:
    """The verdict on one stable snapshot (see `Referee._cmd_observation`)."""
    state = session.match.state
    factory = ADAPTERS.get(state.info.id)
    if factory is None:
        return {"kind": "ignored"}
    adapter = factory()
    seen = adapter.seen(state, obs)
    seen.die_moved = die_moved
    start = adapter.expected(state)
    new = seen.items - start
    gone = start - seen.items if adapter.exact else Counter()  # a taken pile, a moved token
    chance_pending = state.current_player == CHANCE and adapter.chance(state, seen, new)
    if not new and not gone and not chance_pending:
        return {"kind": "settled"}
    found = explain(state, adapter, seen)
    key = "|".join([*sorted(repr(i) for i in new.elements()), "-", *sorted(repr(i) for i in gone.elements()),
                    f"die={seen.die}"])
    if found:
        options = [e.actions for e in found]
        sure = len(found) == 1 and found[0].silent == 0 and seen.confidence >= confident and not seen.doubtful
        if sure:
            return {"kind": "commit", "actions": found[0].actions}
        return {
            "kind": "proposal",
            "key": key,
            "options": options,
            "actions": options[0],
            "confidence": round(seen.confidence, 3),
            "text": {lang: [[state.describe(a, lang) for a in opt] for opt in options] for lang in ("fr", "en")},
            "why": _why(found, seen),
        }
    return _problem(state, adapter, seen, new, key)


def _why(found: list[Explanation], seen: Seen) -> str:
    if len(found) > 1:
        return "several"
    if found[0].silent:
        return "turn-change"
    if seen.doubtful:
        return "unreadable"
    return "low-confidence"


def _problem(state: State, adapter: Adapter, seen: Seen, new: Counter[Item], key: str) -> dict[str, Any]:
    """Expected vs seen, with the first broken rule found for a new item."""
    rule = None
    for item in sorted(new, key=repr):
        action = adapter.action_for(state, item)
        if action is None or state.current_player == CHANCE:
            continue
        try:
            state.clone().apply(action)
        except IllegalMove as exc:
            rule = exc.to_json()
            break
    possible = _next_items(state, adapter)
    return {
        "kind": "problem",
        "key": key,
        "seen": {lang: [adapter.label(i, lang) for i in sorted(new.elements(), key=repr)] for lang in ("fr", "en")},
        "expected": {lang: sorted({adapter.label(i, lang) for i in possible}) for lang in ("fr", "en")},
        "rule": rule,
    }


def _next_items(state: State, adapter: Adapter) -> Counter[Item]:
    """What a single legal move could add now (shown as "expected")."""
    out: Counter[Item] = Counter()
    if state.current_player == CHANCE:
        return out
    before = adapter.expected(state)
    for action in state.legal_actions()[:200]:
        child = state.clone()
        try:
            child.apply(dict(action))
        except IllegalMove:
            continue
        out |= adapter.expected(child) - before
    return out
