"""The `sim` camera: automatic players really playing, filmed frame by frame.

A `SimWorld` plays the referee's current match; every visible move is laid out on a
rendered table (vision.render) and played as a hand coming in, placing and leaving. The
frames go through the real vision pipeline like a real camera's; buttons and phones are
pressed as people would (see `SimDriver`). So a newcomer's first `companion serve` shows a
live game at once, and the whole chain camera → vision → rules → pages is exercised.
"""

from __future__ import annotations

import logging
import math
import zlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from vision.render import Change, Frame, Item, SequenceRenderer, random_scene
from vision.render.scene import square_centre

from .referee import Actor, Referee
from .simdriver import SimDriver
from .simworld import SimWorld, Step

log = logging.getLogger(__name__)

COLOURS = ("yellow", "red", "blue", "green")
COLOUR = {"Y": "yellow", "R": "red", "B": "blue", "G": "green", "X": "gray"}
VIEW_MM = {"elfer-raus-junior": 780.0, "elfer-raus": 1100.0, "elevens": 1200.0, "11-nimmt": 760.0}


def _seed(tag: Any) -> int:
    """An item's drawing seed from its tag: crc32, as Python's str hash() differs per process
    (the same simulated table would look different at each start)."""
    return zlib.crc32(str(tag).encode()) & 0x7FFFFFFF


class TableLayout:
    """Where each visible thing of the world lies on the pretend table (table millimetres)."""

    def __init__(self, game: str, rng: np.random.Generator, pool: str = "train") -> None:
        self.game = game
        self.rng = rng
        kwargs: dict[str, Any] = {"hand": False, "distractors": False, "angle": 0.0}
        if game in VIEW_MM:
            kwargs["view_w_mm"] = VIEW_MM[game]
        if game in ("elfer-raus", "elfer-raus-junior"):
            kwargs["mode"] = "side"
        base = random_scene(game, rng, pool, **kwargs)
        # Keep the printing, the table, the light, the camera and the board; the pieces come from the world.
        keep = [it for it in base.items if it.obj == "die"] if game == "numeri" else []
        self.scene = replace(base, items=[], hand=None, meta={})
        self.die = keep[0] if keep else None
        self.jitter: dict[str, tuple[float, float, float]] = {}

    def _jit(self, tag: str, mm: float = 1.2, deg: float = 1.5) -> tuple[float, float, float]:
        if tag not in self.jitter:
            self.jitter[tag] = (float(self.rng.normal(0, mm)), float(self.rng.normal(0, mm)),
                                float(self.rng.normal(0, deg)))
        return self.jitter[tag]

    def items(self, world: SimWorld) -> dict[str, Item]:
        """The world's visible table as tagged items."""
        view = world.state.view(None)["board"]
        make = {
            "elevens": self._elevens,
            "elfer-raus-junior": self._rows,
            "elfer-raus": self._rows,
            "11-nimmt": self._piles,
            "start11": self._tiles,
            "numeri": self._track,
        }[self.game]
        return make(world, view)

    def _card(self, tag: str, card: dict[str, Any], x: float, y: float, layer: float = 0.0, z: float = 0.0,
              group: str | None = None) -> Item:
        dx, dy, da = self._jit(tag)
        return Item("card", card, x + dx, y + dy, da, z=z, layer=layer, seed=_seed(tag), group=group,
                    tag=tag)

    def _rows(self, world: SimWorld, view: dict[str, Any]) -> dict[str, Item]:
        adapter = world.adapter
        assert adapter is not None
        d = self.scene.design
        junior = self.game == "elfer-raus-junior"
        pitch = d.card_w + 4.0 if junior else d.card_w * 0.52
        centre = 6.0 if junior else 10.5
        out = {}
        for (code,) in adapter.expected(world.state):
            colour, value = COLOUR[code[0]], int(code[1:])
            row = COLOURS.index(colour)
            y = (row - 1.5) * (d.card_h + 10.0)
            # Overlapping rows: higher values lie on top so the lower ones show their corner index.
            out[code] = self._card(code, {"kind": "number", "value": value, "color": colour},
                                   (value - centre) * pitch, y, layer=value, group=f"row:{colour}")
        return out

    def _elevens(self, world: SimWorld, view: dict[str, Any]) -> dict[str, Item]:
        """Rows in the column's order; link cards turned sideways in the gap between two rows."""
        d = self.scene.design
        pitch, gap = d.card_w * 0.52, d.card_h * 1.55
        order = [r["colour"] for r in view["rows"]]
        out = {}
        for k, row in enumerate(view["rows"]):
            y = (k - 1.5) * gap
            for value, card in row["positions"].items():
                v = int(value)
                if card == "J":
                    tag, face = f"J@{row['colour']}{v}", {"kind": "joker", "value": None, "color": None}
                else:
                    tag, face = card, {"kind": "number", "value": v, "color": row["colour"]}
                out[tag] = self._card(tag, face, (v - 11) * pitch, y, layer=v, group=f"row:{row['colour']}")
        for link in view["links"]:
            a, b, v = link["from"], link["to"], int(link["value"])
            y = ((order.index(a) + order.index(b)) / 2 - 1.5) * gap
            tag = f"L@{min(a, b)}{max(a, b)}{v}"
            item = self._card(tag, {"kind": "link", "value": None, "color": None}, (v - 11) * pitch, y, layer=30)
            out[tag] = replace(item, angle=item.angle + 90.0)
        return out

    def _piles(self, world: SimWorld, view: dict[str, Any]) -> dict[str, Item]:
        d = self.scene.design
        state = world.state
        out = {}
        for k, pile in enumerate(view["piles"]):
            col, row = k % 4, k // 4
            x = (col - 1.5) * (d.card_w + 40.0)
            y = (row - 0.5) * (d.card_h + 40.0)
            cards = state.piles[pile["id"]]  # type: ignore[attr-defined]
            for depth, code in enumerate(cards):
                out[code] = self._card(code, {"kind": "number", "value": int(code), "color": None}, x, y,
                                       layer=depth, z=0.3 * depth, group=f"pile:{pile['id']}")
        return out

    def _tiles(self, world: SimWorld, view: dict[str, Any]) -> dict[str, Item]:
        board = self.scene.board
        assert board is not None
        out = {}
        for engine_square, tile in view["tiles"].items():
            square = engine_square.replace(":", "-")  # the layout file's square names
            x, y = square_centre(board, square)
            if tile[0] in COLOUR and tile[1:].isdigit():
                colour = COLOUR[tile[0]]
                card = {"kind": "joker" if colour == "gray" else "number", "value": int(tile[1:]), "color": colour}
            else:
                card = {"kind": "symbol", "value": tile, "color": None}
            dx, dy, da = self._jit(square, 0.6, 1.0)
            out[square] = Item("tile", card, x + dx, y + dy, board.angle + da, z=2.0, layer=1,
                               seed=_seed(square), square=square, group="board", tag=square)
        return out

    def _track(self, world: SimWorld, view: dict[str, Any]) -> dict[str, Item]:
        board = self.scene.board
        assert board is not None
        out = {}
        for square, code in view["squares"].items():
            x, y = square_centre(board, int(square))
            dx, dy, da = self._jit(f"{code}@{square}", 1.0, 20.0)
            out[code] = Item("token", {"value": int(code[1:]), "color": COLOUR[code[0]]}, x + dx, y + dy, da, z=2.0,
                             layer=1, seed=_seed(code), square=int(square), group="board", tag=code)
        for seat, waiting in enumerate(view["off_board"]):
            px, py = [(0, 230), (0, -230), (-380, 0), (380, 0)][seat]
            for k, code in enumerate(waiting):
                out[code] = Item("token", {"value": int(code[1:]), "color": COLOUR[code[0]]},
                                 px + (k - 2) * 32.0, py, float(self.rng.uniform(0, 360)), layer=2,
                                 seed=_seed(code), group=f"off:{seat}", tag=code)
        return out


def changes_between(current: dict[str, Item], wanted: dict[str, Item]) -> tuple[list[Change], list[str], list[Item]]:
    """Animated changes from the table as it is to the table as it should be.

    Returns (changes to animate, tags to drop silently, items to add silently): cards
    hidden under a pile top come and go without a hand.
    """
    changes: list[Change] = []
    silent_drop: list[str] = []
    silent_add: list[Item] = []
    for tag, item in current.items():
        if tag not in wanted:
            changes.append(Change("remove", tag=tag))
        else:
            new = wanted[tag]
            if math.hypot(new.x - item.x, new.y - item.y) > 3.0 or new.square != item.square:
                changes.append(Change("move", tag=tag, x=new.x, y=new.y, angle=new.angle, square=new.square, z=new.z))
    for tag, item in wanted.items():
        if tag not in current:
            changes.append(Change("add", item=item))
    # Removing a whole 11 nimmt! pile: only its top is carried off by hand.
    pile_tops: dict[str, str] = {}
    for tag, item in current.items():
        if item.group and item.group.startswith("pile:") and tag not in wanted:
            top = pile_tops.get(item.group)
            if top is None or current[top].layer < item.layer:
                pile_tops[item.group] = tag
    keep = set(pile_tops.values())
    animated = []
    for ch in changes:
        item = current.get(ch.tag or "")
        if ch.kind == "remove" and item is not None and item.group and item.group.startswith("pile:") \
                and ch.tag not in keep:
            silent_drop.append(ch.tag or "")
        else:
            animated.append(ch)
    return animated, silent_drop, silent_add


class SimCamera:
    """Frames of the world played live. Iterate `frames()` (endless)."""

    def __init__(self, referee: Referee, *, fps: float = 10.0, seed: int = 0, policy: str = "greedy",
                 pool: str = "train", settle_frames: int = 8, patience_frames: int = 60) -> None:
        self.referee = referee
        self.fps = fps
        self.seed = seed
        self.policy = policy
        self.pool = pool
        self.settle_frames = settle_frames
        self.patience_frames = patience_frames
        self.match_id: str | None = None
        self.world: SimWorld | None = None
        self.driver: SimDriver | None = None
        self.layout: TableLayout | None = None
        self.renderer: SequenceRenderer | None = None
        self.rounds_seen = 0
        self.stats = {"steps": 0, "corrections": 0, "confirmations": 0}

    # -- the world ---------------------------------------------------------------------------

    def _restart(self) -> None:
        session = self.referee.session
        assert session is not None
        self.match_id = self.referee.match_id
        self.seed += 1
        self.world = SimWorld(session.setup, seed=self.seed, policy=self.policy)
        rng = np.random.default_rng(self.seed)
        self.layout = TableLayout(session.match.info.id, rng, self.pool)
        self.driver = SimDriver(self.referee, self.world, camera=self._lay_out)
        self.driver._seen = []
        self._catch_up()
        self._new_renderer()

    def _catch_up(self) -> None:
        """A match already under way (after a restart): the world replays the referee's log."""
        assert self.world is not None and self.driver is not None
        session = self.referee.session
        if session is None or session.round_no or any(s.source != "auto" for s in session.steps):
            log.info("sim: the match was already under way; the simulated players start a new one")
            out = self.referee.submit({"type": "rematch"}, Actor("host", name="sim"))
            if out.ok:
                self.match_id = self.referee.match_id
                self.world = SimWorld(self.referee.session.setup, seed=self.seed, policy=self.policy)  # type: ignore[union-attr]
                self.driver = SimDriver(self.referee, self.world, camera=self._lay_out)
                self.driver._seen = []

    def _new_renderer(self) -> None:
        assert self.layout is not None and self.world is not None
        scene = self.layout.scene
        items = self.layout.items(self.world)
        scene = replace(scene, items=list(items.values()) + ([self.layout.die] if self.layout.die else []))
        self.renderer = SequenceRenderer(scene, fps=self.fps, seed=self.seed, settle_frames=self.settle_frames)
        self._pending: list[Change] = []

    def _lay_out(self, world: SimWorld, step: Step) -> None:
        """The camera callback of the driver: queue what the hands must do for this step."""
        assert self.renderer is not None and self.layout is not None
        scene = self.renderer.scene
        current = {it.tag: it for it in scene.items if it.tag is not None}
        if step.channel == "roll":
            value = step.seen.get("value")
            die_x = float(self.layout.rng.uniform(-300, 300))
            die_y = float(self.layout.rng.choice([-1, 1]) * self.layout.rng.uniform(260, 300))
            self._pending.append(Change("roll", x=die_x, y=die_y, value=value))
            return
        wanted = self.layout.items(world)
        changes, drop, _ = changes_between(current, wanted)
        if drop:
            scene.items = [it for it in scene.items if it.tag not in set(drop)]
            self.renderer._rebuild()
        self._pending.extend(changes)

    # -- frames ------------------------------------------------------------------------------

    def images(self) -> Iterator[np.ndarray]:
        """The camera's pictures (what a `FrameSource` delivers)."""
        for frame in self.frames():
            yield frame.image

    def frames(self) -> Iterator[Frame]:
        """Rendered frames with their ground truth, endlessly."""
        while True:
            if self.referee.session is None:
                yield from self._idle_table()
                continue
            if self.referee.match_id != self.match_id or self.world is None:
                self._restart()
            yield from self._play_one()

    def _idle_table(self) -> Iterator[Frame]:
        if self.renderer is None:
            scene = random_scene("elfer-raus", np.random.default_rng(self.seed), self.pool, hand=False,
                                 distractors=False)
            self.renderer = SequenceRenderer(replace(scene, items=[]), fps=self.fps, seed=self.seed)
        yield from self.renderer.idle(int(self.fps))

    def _play_one(self) -> Iterator[Frame]:
        world, driver, renderer = self.world, self.driver, self.renderer
        assert world is not None and driver is not None and renderer is not None
        session = self.referee.session
        if session is not None and session.round_done:
            yield from self._between_rounds()
            return
        step = driver.play_step()
        if step is None:
            driver._lay_out_hands()
            yield from self._settle_and_sync()
            return
        driver._seen.append({k: v for k, v in step.seen.items() if k != "player"})
        self.stats["steps"] += 1
        pending, self._pending = self._pending, []
        for change in pending:
            yield from renderer.play([change], lead_in=False)
        yield from self._settle_and_sync()

    def _settle_and_sync(self) -> Iterator[Frame]:
        driver, renderer = self.driver, self.renderer
        assert driver is not None and renderer is not None
        waited = 0
        while True:
            yield from renderer.idle(1)
            waited += 1
            if waited < self.settle_frames:
                continue
            try:
                if driver.try_sync(correct=waited >= self.patience_frames):
                    break
            except RuntimeError as exc:
                log.warning("sim: %s; the simulated players start over", exc)
                self.world = None
                return
        self.stats["corrections"] = driver.corrections
        self.stats["confirmations"] = driver.confirmations

    def _between_rounds(self) -> Iterator[Frame]:
        """Scores shown for a while, then the next round (or a new match) by the host."""
        renderer = self.renderer
        assert renderer is not None and self.world is not None
        for frame in renderer.idle(int(self.fps * 4)):
            yield frame
        host = Actor("host", name="sim")
        if self.world.next_round():
            out = self.referee.submit({"type": "next_round"}, host)
            if not out.ok:
                log.warning("sim: next round refused: %s", out.message("en"))
                self.world = None
                return
            assert self.driver is not None
            self.driver._seen = []
            assert self.layout is not None
            self.layout.jitter.clear()
            self._new_renderer()
        else:
            for frame in renderer.idle(int(self.fps * 6)):
                yield frame
            self.referee.submit({"type": "rematch"}, host)
