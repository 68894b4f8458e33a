"""Numeri (`numeri`): Rudi Hoffmann's dice-and-track game, 2-4 players.

Rules: RULES.md section 5 (seed 004). One snaking track of numbered squares, five tokens
numbered 1-5 per colour (seat 0 yellow, 1 red, 2 blue, 3 green), a die 1-5 and a star.
The roll names the token that moves (the star: any own token); a token always goes to the
next free square ahead of it, skipping occupied squares; off-board tokens enter on the
first free square from the start square. Once any token has passed the barrier of this
player count, a 3, 4 or 5 may be split over two tokens (3 = 1+2, 4 = 1+3, 5 = 1+4 or
2+3), in either order, if both can move. Moving is compulsory; nothing movable: pass. A
new or rearranged chain of three or more own tokens on consecutive squares earns another
roll. The game ends when the three yellow squares are occupied; each token scores its
number times its square's value, a token never placed its number times -5. Highest wins.

Nothing is hidden: table mode is simulation with the die read by the camera or a button.
The track (square values, yellow squares, barriers) is a data file, `data/numeri_track.toml`.

Actions:
  chance  {"type": "roll", "value": 1..5 | "star"}        (every roll, extra rolls too)
  player  {"type": "move", "token": "Y3"}   the rolled token (whole roll), a token of the
              player's on a star, or the first half of a split: a token smaller than the
              rolled 3/4/5, whose partner (roll - token) must then move next
          {"type": "pass"}                   only when nothing can move as required
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from random import Random
from typing import Any

from . import cards, register
from .base import (
    CHANCE,
    TERMINAL,
    Action,
    Card,
    DataError,
    GameDef,
    GameInfo,
    IllegalMove,
    MalformedAction,
    Option,
    State,
    Text,
    need,
)
from .data import Reader, read_toml

INFO = GameInfo(
    id="numeri",
    name=Text("Numeri", "Numeri"),
    min_players=2,
    max_players=4,
    variants=(),
    options=(
        Option(
            "end_mid_split",
            True,
            Text(
                "Si le premier jeton d'un partage occupe la dernière case jaune libre, la partie s'arrête "
                "tout de suite : le second jeton ne bouge pas.",
                "If the first token of a split fills the last free yellow square, the game stops at once: "
                "the second token does not move.",
            ),
            guess=True,
        ),
        Option(
            "shared_ties",
            True,
            Text(
                "En cas d'égalité au plus haut total, les joueurs à égalité gagnent ensemble.",
                "Players tied on the highest total share the win.",
            ),
            choices=(True,),
            guess=True,
        ),
    ),
    winner="highest",
    hidden_hands=False,
    rounds="1",
)

TOKENS = 5  # tokens per colour, numbered 1..5
STAR = "star"
FACES: tuple[int | str, ...] = (1, 2, 3, 4, 5, STAR)
UNPLACED = -5  # a token never placed scores its number times -5
SPLITS = {3: (1, 2), 4: (1, 3), 5: (1, 2, 3, 4)}  # first halves allowed per roll (4 is never 2 + 2)
DATA_FILE = "numeri_track.toml"

COLOURS = cards.COLOURS  # seat order: yellow, red, blue, green
CODES = tuple(tuple(cards.code(c, n) for n in range(1, TOKENS + 1)) for c in COLOURS)
TOKEN_OF = {CODES[s][n - 1]: (s, n) for s in range(len(COLOURS)) for n in range(1, TOKENS + 1)}


def colour_name(seat: int, lang: str) -> str:
    fr, en = cards.COLOUR_NAME[COLOURS[seat]]
    return fr if lang == "fr" else en


def token_name(seat: int, n: int, lang: str = "en") -> str:
    """ "le 3 jaune" / "the yellow 3"."""
    return f"le {cards.name(CODES[seat][n - 1], 'fr')}" if lang == "fr" else f"the {cards.name(CODES[seat][n - 1])}"


def face_name(die: int | str | None, lang: str) -> str:
    if die == STAR:
        return "l'étoile" if lang == "fr" else "the star"
    return f"un {die}" if lang == "fr" else f"a {die}"


# --- the track (data file) -------------------------------------------------------------


@dataclass(frozen=True)
class Track:
    """The board: printed value per square, the yellow end squares, a barrier per player count."""

    values: tuple[int, ...]
    value_guess: tuple[bool, ...]
    yellow: tuple[int, ...]
    yellow_guess: bool
    barriers: tuple[tuple[int, int, bool], ...]  # (players, b, guess): between squares b and b+1
    source: str

    def barrier(self, players: int) -> int:
        return next(b for n, b, _ in self.barriers if n == players)

    def barrier_guess(self, players: int) -> bool:
        return next(g for n, _, g in self.barriers if n == players)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "squares": [{"value": v, "guess": g} for v, g in zip(self.values, self.value_guess, strict=True)],
            "yellow": {"squares": list(self.yellow), "guess": self.yellow_guess},
            "barriers": {str(n): {"between": [b, b + 1], "guess": g} for n, b, g in self.barriers},
        }


def parse_track(content: Mapping[str, Any], source: str) -> Track:
    """Check a track table (a data file or a saved state's copy); `DataError` names the entry."""
    top = Reader(dict(content), source, "")
    top.check_known({"squares", "yellow", "barriers"})
    squares = top.get("squares", list)
    if len(squares) < 4:
        raise top.fail("squares", f"a track needs at least 4 squares (start + 3 yellow), not {len(squares)}")
    values, guesses = [], []
    for sq in top.tables("squares"):
        sq.check_known({"value", "guess"})
        values.append(sq.get("value", int))
        guesses.append(sq.get("guess", bool, False))
    last = len(values)
    yellow_r = top.sub("yellow")
    yellow_r.check_known({"squares", "guess"})
    yellow = yellow_r.int_list("squares")
    if sorted(yellow) != [last - 3, last - 2, last - 1]:
        raise yellow_r.fail("squares", f"the yellow squares are the last three, {last - 3}, {last - 2} and "
                                       f"{last - 1} on this {last}-square track, not {yellow}")
    barriers_r = top.sub("barriers")
    barriers_r.check_known({"2", "3", "4"})
    barriers = []
    for players in (2, 3, 4):
        br = barriers_r.sub(str(players))
        br.check_known({"between", "guess"})
        between = br.int_list("between")
        if len(between) != 2 or between[1] != between[0] + 1:
            raise br.fail("between", f"two neighbouring squares [b, b+1], not {between}")
        if not 0 <= between[0] < last - 1:
            raise br.fail("between", f"the barrier must lie inside the track (squares 0 to {last - 1}), "
                                     f"not between {between[0]} and {between[1]}")
        barriers.append((players, between[0], br.get("guess", bool, False)))
    return Track(tuple(values), tuple(guesses), tuple(sorted(yellow)), yellow_r.get("guess", bool, False),
                 tuple(barriers), source)


def load_data(path: str | Path | None = None) -> Track:
    """The shipped track, or the user's own file (which replaces it)."""
    if path is None:
        return _shipped_track()
    content, source = read_toml(DATA_FILE, path)
    return parse_track(content, source)


@lru_cache(maxsize=1)
def _shipped_track() -> Track:
    content, source = read_toml(DATA_FILE)
    return parse_track(content, source)


# --- the game ---------------------------------------------------------------------------


class NumeriState(State):
    info = INFO
    data: Track

    def __init__(self, players: int, variant: str | None = None, **kwargs: Any) -> None:
        super().__init__(players, variant, **kwargs)
        track = self.data
        self.values = track.values
        self.length = len(track.values)
        self.yellow = track.yellow
        self.bar = track.barrier(players)  # the active barrier lies between bar and bar + 1
        # pos[seat][n - 1]: square of token n, -1 while off the board.
        self.pos = [[-1] * TOKENS for _ in range(players)]
        self.occ = [-1] * self.length  # per square: seat * 5 + n - 1 of its token, or -1
        self.crossed = False  # a token has passed the active barrier: splitting allowed
        self.phase = "roll"  # roll (chance), move, split (the partner must move), over
        self.player = self.start_player  # whose turn it is (also while the die rolls)
        self.die: int | str | None = None
        self.partner = 0  # token number still to move in a split, 0 if none
        self.moved: list[int] = []  # token numbers moved during this roll
        self.extra = 0  # extra rolls earned in this turn
        self.current_player = CHANCE
        self.turns = 1

    # -- data ---------------------------------------------------------------------------

    @classmethod
    def default_data(cls) -> Track:
        return load_data(None)

    @classmethod
    def data_from_json(cls, obj: Any) -> Track:
        if not isinstance(obj, Mapping):
            raise DataError("saved state: the track must be a table")
        content = {k: v for k, v in obj.items() if k != "source"}
        return parse_track(content, str(obj.get("source", "saved state")))

    # -- geometry -----------------------------------------------------------------------

    def next_free(self, square: int) -> int:
        """The first empty square after `square` (-1: off the board), or -1 if there is none."""
        occ, j, end = self.occ, square + 1, self.length
        while j < end and occ[j] >= 0:
            j += 1
        return j if j < end else -1

    def can_move(self, seat: int, n: int) -> bool:
        return self.next_free(self.pos[seat][n - 1]) >= 0

    def _split_ok(self, seat: int, first: int, second: int) -> bool:
        """Can `first` move and then `second`? (Tried on the board, then undone.)"""
        start = self.pos[seat][first - 1]
        dest = self.next_free(start)
        if dest < 0:
            return False
        occ = self.occ
        if start >= 0:
            occ[start] = -1
        occ[dest] = 0
        ok = self.next_free(self.pos[seat][second - 1]) >= 0
        occ[dest] = -1
        if start >= 0:
            occ[start] = seat * TOKENS + first - 1
        return ok

    def may_split(self) -> bool:
        return self.crossed and self.die in SPLITS

    def movable(self) -> list[int]:
        """Token numbers the player may move now (as a whole roll, a star, a split half)."""
        seat, die = self.player, self.die
        if self.phase == "split":
            return [self.partner]
        if die == STAR:
            return [n for n in range(1, TOKENS + 1) if self.can_move(seat, n)]
        assert isinstance(die, int)
        out = []
        if self.crossed and die in SPLITS:
            out = [a for a in SPLITS[die] if self._split_ok(seat, a, die - a)]
        if self.can_move(seat, die):
            out.append(die)
        return out

    def yellow_full(self) -> bool:
        occ = self.occ
        return all(occ[y] >= 0 for y in self.yellow)

    def chain_len(self, square: int) -> int:
        """Length of the run of consecutive squares held by the owner of `square`'s token."""
        occ, owner = self.occ, self.occ[square] // TOKENS
        lo = square
        while lo > 0 and occ[lo - 1] >= 0 and occ[lo - 1] // TOKENS == owner:
            lo -= 1
        hi = square
        while hi + 1 < self.length and occ[hi + 1] >= 0 and occ[hi + 1] // TOKENS == owner:
            hi += 1
        return hi - lo + 1

    # -- protocol -----------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase == "roll":
            return [{"type": "roll", "value": v} for v in FACES]
        if phase == "over":
            return []
        codes = CODES[self.player]
        acts: list[Action] = [{"type": "move", "token": codes[n - 1]} for n in self.movable()]
        return acts or [{"type": "pass"}]

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        handler = {"roll": self._roll, "move": self._move, "pass": self._pass}.get(kind)
        if handler is None:
            raise MalformedAction(f"Action « {kind} » inconnue.", f"Unknown action '{kind}'.")
        if (kind == "roll") != (self.current_player == CHANCE):
            raise IllegalMove("not-now", "Cette action n'est pas possible maintenant.",
                              "That action is not possible now.")
        handler(action)

    def _roll(self, action: Action) -> None:
        value = need(action, "value", (int, str))
        if value not in FACES:
            raise MalformedAction("Le dé montre 1, 2, 3, 4, 5 ou l'étoile.", "The die shows 1, 2, 3, 4, 5 or the star.")
        self.die = value
        self.partner = 0
        self.moved = []
        self.phase = "move"
        self.current_player = self.player

    def _move(self, action: Action) -> None:
        seat, n = self._token_of(action)
        self._check_move(seat, n)
        if self.phase == "split":
            self.partner = 0
            self.phase = "move"
        elif self.die != n and self.die != STAR:
            assert isinstance(self.die, int)
            self.partner = self.die - n
            self.phase = "split"
        self._step(seat, n)
        if self.yellow_full() and (self.options["end_mid_split"] or not self.partner):
            self._end()
        elif not self.partner:
            self._roll_done()

    def _pass(self, action: Action) -> None:
        movable = self.movable()
        if movable:
            names_fr = " ou ".join(token_name(self.player, n, "fr") for n in movable)
            names_en = " or ".join(token_name(self.player, n) for n in movable)
            raise IllegalMove("must-move", f"Tu peux avancer {names_fr} : avancer est obligatoire.",
                              f"You can move {names_en}: moving is compulsory.")
        self._next_player()

    # move checks, from the plain to the subtle; nothing changes before they all pass

    def _token_of(self, action: Action) -> tuple[int, int]:
        code = need(action, "token", str)
        found = TOKEN_OF.get(code)
        if found is None:
            raise MalformedAction(f"« {code} » n'est pas un jeton de Numeri.", f"'{code}' is not a Numeri token.")
        seat, n = found
        if seat >= self.players:
            raise IllegalMove("not-in-game", f"Les jetons {cards.COLOUR_NAME[COLOURS[seat]][0]}s ne jouent pas.",
                              f"The {cards.COLOUR_NAME[COLOURS[seat]][1]} tokens are not in this game.")
        if seat != self.player:
            raise IllegalMove(
                "not-yours",
                f"{token_name(seat, n, 'fr').capitalize()} n'est pas à toi : tu joues les "
                f"{colour_name(self.player, 'fr')}s.",
                f"{token_name(seat, n).capitalize()} is not yours: you play {colour_name(self.player, 'en')}.",
            )
        return seat, n

    def _check_move(self, seat: int, n: int) -> None:
        die, tok_fr, tok_en = self.die, token_name(seat, n, "fr"), token_name(seat, n)
        if self.phase == "split":
            if n != self.partner:
                p_fr, p_en = token_name(seat, self.partner, "fr"), token_name(seat, self.partner)
                raise IllegalMove("split-partner", f"Il faut maintenant avancer {p_fr}, l'autre moitié du {die}.",
                                  f"Now {p_en} must move, the other half of the {die}.")
            return  # checked with the first half
        if die != STAR and n != die:
            self._check_split(seat, n)
        elif not self.can_move(seat, n):
            last = self.pos[seat][n - 1] == self.length - 1
            why_fr = "est sur la dernière case" if last else "n'a aucune case libre devant lui"
            why_en = "is on the last square" if last else "has no free square ahead"
            raise IllegalMove("cannot-move", f"{tok_fr.capitalize()} {why_fr} : il ne peut pas avancer.",
                              f"{tok_en.capitalize()} {why_en}: it cannot move.")

    def _check_split(self, seat: int, n: int) -> None:
        die, tok_fr, tok_en = self.die, token_name(seat, n, "fr"), token_name(seat, n)
        assert isinstance(die, int)
        whole_fr, whole_en = token_name(seat, die, "fr"), token_name(seat, die)
        if n < die and die not in SPLITS:
            raise IllegalMove("split-never", f"Un {die} ne se partage jamais : c'est {whole_fr} qui avance.",
                              f"A {die} is never split: {whole_en} moves.")
        if n > die:
            raise IllegalMove("wrong-token", f"Le dé montre {die} : c'est {whole_fr} qui avance.",
                              f"The die shows {die}: {whole_en} moves.")
        if not self.crossed:
            raise IllegalMove(
                "split-barrier",
                f"Aucun jeton n'a encore passé la barrière : un {die} ne se partage pas, {whole_fr} avance.",
                f"No token has passed the barrier yet: a {die} cannot be split, {whole_en} moves.",
            )
        if n not in SPLITS[die]:
            raise IllegalMove("split-pairs", "Un 4 se partage seulement en 1 + 3, jamais en 2 + 2.",
                              "A 4 splits only into 1 + 3, never 2 + 2.")
        other = die - n
        o_fr, o_en = token_name(seat, other, "fr"), token_name(seat, other)
        if not self.can_move(seat, n):
            raise IllegalMove("cannot-move",
                              f"{tok_fr.capitalize()} ne peut pas avancer : pas de partage {n} + {other}.",
                              f"{tok_en.capitalize()} cannot move: no {n} + {other} split.")
        if not self._split_ok(seat, n, other):
            raise IllegalMove(
                "split-both",
                f"Partage impossible : après {tok_fr}, {o_fr} ne pourrait plus avancer. Les deux jetons doivent "
                "pouvoir avancer.",
                f"No split: after {tok_en}, {o_en} could not move. Both tokens must be able to move.",
            )

    # board changes and turn flow

    def _step(self, seat: int, n: int) -> None:
        start = self.pos[seat][n - 1]
        dest = self.next_free(start)
        if start >= 0:
            self.occ[start] = -1
        self.occ[dest] = seat * TOKENS + n - 1
        self.pos[seat][n - 1] = dest
        self.moved.append(n)
        if start <= self.bar < dest:
            self.crossed = True

    def _roll_done(self) -> None:
        """After the roll's moves: a new or rearranged chain of 3+ own tokens rolls again."""
        pos = self.pos[self.player]
        if any(self.chain_len(pos[n - 1]) >= 3 for n in self.moved):
            self.extra += 1
            self._await_roll()
        else:
            self._next_player()

    def _await_roll(self) -> None:
        self.phase = "roll"
        self.current_player = CHANCE
        self.die = None
        self.partner = 0
        self.moved = []

    def _next_player(self) -> None:
        self.player = (self.player + 1) % self.players
        self.extra = 0
        self.turns += 1
        self._await_roll()

    def _end(self) -> None:
        self.phase = "over"
        self.partner = 0
        self.current_player = TERMINAL

    def sample_chance(self, rng: Random) -> Action:
        if self.phase != "roll":
            raise ValueError(f"no chance event to sample in phase {self.phase!r}")
        return {"type": "roll", "value": rng.choice(FACES)}

    # -- scores, views, checks ------------------------------------------------------------

    def scores(self) -> list[int]:
        values = self.values
        return [sum(n * (values[p] if p >= 0 else UNPLACED) for n, p in enumerate(pos, 1)) for pos in self.pos]

    def view(self, player: int | None) -> dict[str, Any]:
        off = [[CODES[s][n - 1] for n in range(1, TOKENS + 1) if self.pos[s][n - 1] < 0] for s in range(self.players)]
        track = self.data
        return {
            "game": INFO.id,
            "variant": self.variant,
            "players": self.players,
            "table_mode": self.table_mode,
            "phase": self.phase,
            "current_player": self.current_player if self.current_player >= 0 else None,
            "turn_player": self.player,
            "is_over": self.is_over,
            "scores": self.scores(),  # nothing is hidden: live scores
            "winners": self.winners() if self.is_over else [],
            "hand_sizes": [len(o) for o in off],  # tokens still in front of each player
            "hand": off[player] if player is not None else None,
            "pile": None,  # no draw pile in this game
            "board": {
                "colours": list(COLOURS[:self.players]),
                "track": {
                    "values": list(self.values),
                    "yellow": list(self.yellow),
                    "barrier": [self.bar, self.bar + 1],
                    "crossed": self.crossed,
                    "values_guessed": any(track.value_guess),
                    "barrier_guessed": track.barrier_guess(self.players),
                },
                "squares": {str(i): self._code(t) for i, t in enumerate(self.occ) if t >= 0},
                "off_board": off,
                "die": self.die,
                "partner": CODES[self.player][self.partner - 1] if self.partner else None,
                "split_allowed": self.crossed,
            },
            "turn": {"number": self.turns, "extra_rolls": self.extra,
                     "moved": [CODES[self.player][n - 1] for n in self.moved]},
            "claims": [],
        }

    @staticmethod
    def _code(token: int) -> Card:
        return CODES[token // TOKENS][token % TOKENS]

    def _to_json(self) -> dict[str, Any]:
        return {
            "pos": [list(p) for p in self.pos],
            "crossed": self.crossed,
            "phase": self.phase,
            "player": self.player,
            "die": self.die,
            "partner": self.partner,
            "moved": list(self.moved),
            "extra": self.extra,
        }

    def _load_json(self, obj: Mapping[str, Any]) -> None:
        pos = [[int(p) for p in seat] for seat in obj["pos"]]
        if len(pos) != self.players or any(len(p) != TOKENS for p in pos):
            raise ValueError("five token positions per player")
        occ = [-1] * self.length
        for seat, squares in enumerate(pos):
            for n, p in enumerate(squares, 1):
                if p < -1 or p >= self.length:
                    raise ValueError(f"{CODES[seat][n - 1]} is off the track")
                if p >= 0:
                    if occ[p] >= 0:
                        raise ValueError(f"two tokens on square {p}")
                    occ[p] = seat * TOKENS + n - 1
        self.pos, self.occ = pos, occ
        self.crossed = bool(obj["crossed"])
        self.phase = str(obj["phase"])
        if self.phase not in ("roll", "move", "split", "over"):
            raise ValueError(f"unknown phase {self.phase!r}")
        self.player = int(obj["player"])
        if not 0 <= self.player < self.players:
            raise ValueError(f"turn player {self.player} is not a seat")
        die = obj["die"]
        if die is not None and (isinstance(die, bool) or die not in FACES):
            raise ValueError(f"bad die {die!r}")
        self.die = die
        self.partner = int(obj["partner"])
        self.moved = [int(n) for n in obj["moved"]]
        self.extra = int(obj["extra"])

    def check_invariants(self) -> list[str]:
        errors: list[str] = []
        errors += self._check_places()
        errors += self._check_phase()
        if self.crossed != any(p > self.bar for seat in self.pos for p in seat):
            # Tokens only move forward: the barrier is crossed iff a token lies beyond it.
            errors.append(f"barrier flag {self.crossed} disagrees with the tokens beyond square {self.bar}")
        from_squares = sum(((t % TOKENS) + 1) * self.values[i] for i, t in enumerate(self.occ) if t >= 0)
        off = sum(n * UNPLACED for seat in self.pos for n, p in enumerate(seat, 1) if p < 0)
        if sum(self.scores()) != from_squares + off:
            errors.append("scores do not add up to the tokens on the track and in front of the players")
        return errors

    def _check_places(self) -> list[str]:
        """Every token in exactly one place: one square (the board agrees) or off the board."""
        errors = []
        seen: dict[int, int] = {}
        for seat, squares in enumerate(self.pos):
            for n, p in enumerate(squares, 1):
                t = seat * TOKENS + n - 1
                if not -1 <= p < self.length:
                    errors.append(f"{CODES[seat][n - 1]} is off the track at {p}")
                elif p >= 0:
                    if self.occ[p] != t:
                        errors.append(f"{CODES[seat][n - 1]} is at {p} but the board holds {self.occ[p]} there")
                    seen[t] = p
        for i, t in enumerate(self.occ):
            if t >= 0 and seen.get(t) != i:
                errors.append(f"square {i} holds token {t} that is not there")
            if t >= self.players * TOKENS:
                errors.append(f"square {i} holds a token of a colour not in play")
        return errors

    def _check_phase(self) -> list[str]:
        errors = []
        phase, die, full = self.phase, self.die, self.yellow_full()
        expected = {"roll": CHANCE, "over": TERMINAL}.get(phase, self.player)
        if self.current_player != expected:
            errors.append(f"phase {phase} but current player {self.current_player}")
        if not 0 <= self.player < self.players:
            errors.append(f"turn player {self.player} is not a seat")
        if phase == "over" and not full:
            errors.append("the game is over but a yellow square is free")
        if phase in ("roll", "move") and full:
            errors.append("all yellow squares are occupied but the game goes on")
        if phase == "split" and full and self.options["end_mid_split"]:
            errors.append("the game should have ended in the middle of the split")
        if phase == "roll" and (die is not None or self.partner or self.moved):
            errors.append("a roll is awaited but a die, partner or moved token is left over")
        if phase == "move" and (die is None or self.partner or self.moved):
            errors.append("a move is awaited but the die is missing or a split is half done")
        if phase == "split":
            if not isinstance(die, int) or len(self.moved) != 1 or self.moved[0] + self.partner != die \
                    or self.partner == self.moved[0]:
                errors.append(f"split of {die} is inconsistent: moved {self.moved}, partner {self.partner}")
            elif not self.can_move(self.player, self.partner):
                errors.append("the split partner cannot move")
        if len(self.moved) > 2 or len(set(self.moved)) != len(self.moved):
            errors.append(f"moved tokens {self.moved}: at most two different tokens move per roll")
        if any(self.pos[self.player][n - 1] < 0 for n in self.moved if 1 <= n <= TOKENS):
            errors.append("a token moved this roll is off the board")
        return errors

    def describe(self, action: Action, lang: str = "en") -> str:
        fr = lang == "fr"
        kind = action.get("type")
        seat = self.player
        who = f"{'Joueur' if fr else 'Player'} {seat + 1} ({colour_name(seat, lang)})"
        if kind == "roll":
            again = (" relance et" if fr else " rolls again and") if self.extra else ""
            verb = "obtient" if fr else "gets"
            if not again:
                verb = "lance le dé et obtient" if fr else "rolls"
            return f"{who}{again} {verb} {face_name(action.get('value'), lang)}"
        if kind == "pass":
            return f"{who} ne peut rien avancer et passe" if fr else f"{who} cannot move anything and passes"
        if kind == "move":
            return self._describe_move(who, action, lang)
        return str(action)

    def _describe_move(self, who: str, action: Action, lang: str) -> str:
        fr = lang == "fr"
        code = action.get("token")
        found = TOKEN_OF.get(code) if isinstance(code, str) else None
        if found is None or found[0] >= self.players:
            return f"{who} {'avance' if fr else 'moves'} {action.get('token')}"
        seat, n = found
        start = self.pos[seat][n - 1]
        dest = self.next_free(start)
        tok = token_name(seat, n, lang)
        where = f"{'la case' if fr else 'square'} {dest} ({'valeur' if fr else 'value'} {self.values[dest]})" \
            if dest >= 0 else "?"
        if start < 0:
            text = f"{who} {'pose' if fr else 'places'} {tok} {'sur' if fr else 'on'} {where}"
        else:
            text = f"{who} {'avance' if fr else 'moves'} {tok} {'de la case' if fr else 'from square'} {start} " \
                   f"{'à' if fr else 'to'} {where}"
        if self.phase == "split":
            return text + (f" (fin du partage du {self.die})" if fr else f" (second half of the {self.die})")
        if isinstance(self.die, int) and n != self.die:
            other = self.die - n
            return text + (f" (partage du {self.die} : {n} puis {other})" if fr
                           else f" (splitting the {self.die}: {n} then {other})")
        return text

    def greedy_key(self, action: Action) -> float:
        # Points gained by the roll's moves, plus a bonus for a chain that rolls again.
        if action["type"] != "move":
            return 0.0
        seat, n = TOKEN_OF[action["token"]]
        moves = [n]
        if self.phase == "move" and self.die != STAR and n != self.die:
            assert isinstance(self.die, int)
            moves.append(self.die - n)
        saved = ([list(p) for p in self.pos], list(self.occ))
        gain = 0.0
        for m in moves:
            start = self.pos[seat][m - 1]
            dest = self.next_free(start)
            if dest < 0:
                break
            gain += m * (self.values[dest] - (self.values[start] if start >= 0 else UNPLACED))
            self.occ[dest], self.pos[seat][m - 1] = seat * TOKENS + m - 1, dest
            if start >= 0:
                self.occ[start] = -1
        chain = any(self.chain_len(self.pos[seat][m - 1]) >= 3 for m in moves if self.pos[seat][m - 1] >= 0)
        self.pos, self.occ = saved
        return gain + (8.0 if chain else 0.0)

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        if obs.get("kind") not in (None, "number", "token"):
            return None
        code = cards.from_observation(dict(obs))
        found = TOKEN_OF.get(code) if code else None
        return code if found is not None and found[0] < self.players else None


GAME = register(GameDef(INFO, NumeriState, load_data))
