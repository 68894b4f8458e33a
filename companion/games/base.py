"""The protocol every game follows, and the small pieces the games share.

A game is a `GameDef` (metadata plus its `State` class). A `State` is one round:

- `current_player` is a seat number, `CHANCE` when the table (shuffle, deal, draw, roll,
  round-end reveal) must say what happened next, or `TERMINAL` once the round is over.
- `legal_actions()` lists the actions the rules allow now; `apply(action)` checks one and
  plays it, or raises `IllegalMove` and leaves the state untouched.
- Chance is explicit: in simulation `sample_chance(rng)` picks the outcome, at the table
  the camera or a button supplies it. Nothing in a state is random on its own.
- Actions are plain JSON objects with a `"type"`; player actions may carry `"player"`,
  which must then be the player to move.

Table mode (`table_mode=True`) runs the same rules with hidden hands: hands are a count
of unknown cards plus the cards known to be in them, the cards nobody has seen yet form
one pool, and claims that cannot be checked now ("I cannot play, I draw") are logged and
verified when the hands are laid out at the end of the round.

Only the standard library is imported here and in every game module.
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any, ClassVar

Action = dict[str, Any]
Card = str

CHANCE = -1
TERMINAL = -2

LANGS = ("fr", "en")


# --- errors ---------------------------------------------------------------------------


class IllegalMove(Exception):
    """A move the rules forbid, with the broken rule in words a player understands."""

    def __init__(self, rule: str, fr: str, en: str) -> None:
        super().__init__(en)
        self.rule = rule
        self.fr = fr
        self.en = en

    def message(self, lang: str = "fr") -> str:
        return self.fr if lang == "fr" else self.en

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "fr": self.fr, "en": self.en}


class MalformedAction(IllegalMove):
    """An action that is not even well formed (unknown type, missing or bad field)."""

    def __init__(self, fr: str, en: str) -> None:
        super().__init__("malformed", fr, en)


class DataError(ValueError):
    """A game data file is missing, unreadable or inconsistent; names the file and entry."""


class StateError(ValueError):
    """A serialised state that cannot be loaded."""


# --- metadata -------------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """A short text in both languages of the product."""

    fr: str
    en: str

    def __call__(self, lang: str = "fr") -> str:
        return self.fr if lang == "fr" else self.en

    def to_json(self) -> dict[str, str]:
        return {"fr": self.fr, "en": self.en}


@dataclass(frozen=True)
class Variant:
    id: str
    name: Text
    description: Text


@dataclass(frozen=True)
class Option:
    """A rule switch. `guess=True` marks a default chosen where the rule books are silent."""

    id: str
    default: Any
    description: Text
    choices: tuple[Any, ...] = (True, False)
    guess: bool = False


@dataclass(frozen=True)
class GameInfo:
    id: str
    name: Text
    min_players: int
    max_players: int
    variants: tuple[Variant, ...]
    options: tuple[Option, ...]
    winner: str  # "highest" or "lowest": which match total wins
    hidden_hands: bool
    rounds: str = "players"  # default match length: "players" or a fixed number as text
    start_rule: str = "rotate"  # "rotate" (GUESS in most games) or "cards" (decided by a deal)

    def default_rounds(self, players: int) -> int:
        return players if self.rounds == "players" else int(self.rounds)

    def variant(self, vid: str | None) -> Variant | None:
        if vid is None:
            return None
        for v in self.variants:
            if v.id == vid:
                return v
        known = ", ".join(v.id for v in self.variants) or "none"
        raise ValueError(f"unknown variant {vid!r} for {self.id} (variants: {known})")

    def resolve_options(self, given: Mapping[str, Any] | None) -> dict[str, Any]:
        out = {o.id: o.default for o in self.options}
        for key, value in (given or {}).items():
            opt = next((o for o in self.options if o.id == key), None)
            if opt is None:
                raise ValueError(f"unknown option {key!r} for {self.id}")
            if opt.choices and value not in opt.choices:
                raise ValueError(f"option {key!r} of {self.id} must be one of {list(opt.choices)}")
            out[key] = value
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name.to_json(),
            "min_players": self.min_players,
            "max_players": self.max_players,
            "variants": [
                {"id": v.id, "name": v.name.to_json(), "description": v.description.to_json()}
                for v in self.variants
            ],
            "options": [
                {
                    "id": o.id,
                    "default": o.default,
                    "choices": list(o.choices),
                    "guess": o.guess,
                    "description": o.description.to_json(),
                }
                for o in self.options
            ],
            "winner": self.winner,
            "hidden_hands": self.hidden_hands,
        }


# --- hands, pools and claims ----------------------------------------------------------


class Hand:
    """A player's hand: the cards known to be in it plus a count of unknown cards.

    In simulation every card is known (`unknown == 0`). At a real table a dealt or drawn
    card is unknown until the player shows it. `log` records what went in and out, in
    order, so that claims can be checked once the hand is laid out.
    """

    __slots__ = ("known", "unknown", "log")

    def __init__(self, known: Iterable[Card] = (), unknown: int = 0) -> None:
        self.known: Counter[Card] = Counter(known)
        self.unknown = unknown
        self.log: list[tuple[str, Card | None]] = []

    def __len__(self) -> int:
        return sum(self.known.values()) + self.unknown

    def cards(self) -> list[Card]:
        return sorted(self.known.elements())

    def add(self, card: Card | None) -> None:
        """A card arrives: known (`card`) or hidden (`None`)."""
        if card is None:
            self.unknown += 1
        else:
            self.known[card] += 1
        self.log.append(("in", card))

    def can_hold(self, card: Card, pool: Counter[Card]) -> bool:
        """Could `card` be in this hand? Known, or possibly one of the unknown cards."""
        return self.known[card] > 0 or (self.unknown > 0 and pool[card] > 0)

    def remove(self, card: Card, pool: Counter[Card]) -> None:
        """Take `card` out (it is played). An unknown card is resolved from `pool`."""
        if self.known[card] > 0:
            self.known[card] -= 1
            if not self.known[card]:
                del self.known[card]
        elif self.unknown > 0 and pool[card] > 0:
            self.unknown -= 1
            pool[card] -= 1
            if not pool[card]:
                del pool[card]
        else:
            raise AssertionError(f"{card} is not in this hand")
        self.log.append(("out", card))

    def remove_hidden(self) -> None:
        """An unknown card leaves face down (given to a neighbour at the table)."""
        assert self.unknown > 0
        self.unknown -= 1
        self.log.append(("out", None))

    def to_json(self) -> dict[str, Any]:
        return {"known": self.cards(), "unknown": self.unknown, "log": [list(e) for e in self.log]}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Hand:
        hand = cls(obj["known"], int(obj["unknown"]))
        hand.log = [(str(k), c) for k, c in obj.get("log", [])]
        return hand


@dataclass
class Claim:
    """Something a player said that the table could not see ("I cannot play")."""

    player: int
    at: int  # position in the player's hand log when the claim was made
    playable: list[Card]  # the card identities that were legal to play then
    text: Text
    status: str = "open"  # open, confirmed, refuted, unverifiable

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "at": self.at,
            "playable": list(self.playable),
            "text": self.text.to_json(),
            "status": self.status,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Claim:
        t = obj["text"]
        return cls(int(obj["player"]), int(obj["at"]), list(obj["playable"]), Text(t["fr"], t["en"]),
                   str(obj["status"]))


def verify_claim(claim: Claim, hand: Hand, final: Iterable[Card]) -> str:
    """Check a "nothing was playable" claim once the hand is laid out.

    What went out after the claim plus the final hand, minus the known cards that came in
    after it, is what the hand held then -- plus up to `d` cards that arrived hidden since.
    So more than `d` playable cards among them prove the claim false, and none at all
    (with nothing given away face down) proves it true.
    """
    later = hand.log[claim.at:]
    seen = Counter(final)
    for kind, card in later:
        if kind == "out" and card is not None:
            seen[card] += 1
    for kind, card in later:
        if kind == "in" and card is not None and seen[card] > 0:
            seen[card] -= 1
    hidden_in = sum(1 for kind, card in later if kind == "in" and card is None)
    hidden_out = any(kind == "out" and card is None for kind, card in later)
    playable = set(claim.playable)
    n_playable = sum(n for card, n in seen.items() if card in playable)
    if n_playable > hidden_in:
        return "refuted"
    if n_playable == 0 and not hidden_out:
        # Everything the hand held then is among what was seen since: none of it was playable.
        return "confirmed"
    return "unverifiable"


# --- the state ------------------------------------------------------------------------


def need(action: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """Read a required field of an action, or raise `MalformedAction`."""
    if key not in action:
        raise MalformedAction(f"Champ « {key} » manquant.", f"Missing field '{key}'.")
    value = action[key]
    if isinstance(value, bool) and kind is not bool and bool not in (kind if isinstance(kind, tuple) else ()):
        raise MalformedAction(f"Champ « {key} » invalide.", f"Field '{key}' is invalid.")
    if not isinstance(value, kind):
        raise MalformedAction(f"Champ « {key} » invalide.", f"Field '{key}' is invalid.")
    return value


class State(ABC):
    """One round of a game. Subclasses implement the rules; see the module docstring."""

    info: ClassVar[GameInfo]

    def __init__(
        self,
        players: int,
        variant: str | None = None,
        *,
        options: Mapping[str, Any] | None = None,
        start_player: int = 0,
        table_mode: bool = False,
        data: Any = None,
    ) -> None:
        info = self.info
        if not info.min_players <= players <= info.max_players:
            raise ValueError(
                f"{info.id} is for {info.min_players} to {info.max_players} players, not {players}"
            )
        info.variant(variant)
        if not 0 <= start_player < players:
            raise ValueError(f"start player must be a seat from 0 to {players - 1}")
        self.players = players
        self.variant = variant
        self.options = info.resolve_options(options)
        self.start_player = start_player
        self.table_mode = table_mode
        self.data = data if data is not None else self.default_data()
        self.claims: list[Claim] = []
        self.turns = 0  # player turns started so far
        self.current_player = CHANCE

    # -- to implement --------------------------------------------------------------------

    @classmethod
    def default_data(cls) -> Any:
        """The game's data (board, track, head table) when none is given."""
        return None

    @classmethod
    def data_from_json(cls, obj: Any) -> Any:
        """Rebuild the data object saved with a state (its `to_json()`)."""
        return None

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every action the rules allow now (for `CHANCE`: the known public outcomes, if few)."""

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Check `action` and play it; must raise before changing anything."""

    @abstractmethod
    def sample_chance(self, rng: Random) -> Action:
        """Pick the outcome of the pending chance event (simulation only)."""

    @abstractmethod
    def scores(self) -> list[int]:
        """Each seat's points for this round so far (final once the round is over)."""

    @abstractmethod
    def view(self, player: int | None) -> dict[str, Any]:
        """What `player` may see (`None`: the table/spectators): no other hand's cards."""

    @abstractmethod
    def _to_json(self) -> dict[str, Any]:
        """The game-specific part of the state."""

    @abstractmethod
    def _load_json(self, obj: Mapping[str, Any]) -> None:
        """Restore the game-specific part written by `_to_json`."""

    @abstractmethod
    def check_invariants(self) -> list[str]:
        """Internal consistency checks (every card in one place, counts, scores)."""

    @abstractmethod
    def describe(self, action: Action, lang: str = "en") -> str:
        """One sentence saying what `action` does, for logs, transcripts and the pages."""

    def redact(self, action: Action) -> Action:
        """The same chance outcome as the table sees it (hidden cards removed)."""
        return action

    def greedy_key(self, action: Action) -> float:
        """How attractive `action` is for the simple greedy player (higher is better)."""
        return 0.0

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        """The card code for a vision observation (`kind`, `value`, `color`), if any."""
        return None

    # -- provided --------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.current_player == TERMINAL

    @property
    def is_chance(self) -> bool:
        return self.current_player == CHANCE

    def apply(self, action: Action) -> None:
        """Play `action`; on `IllegalMove` nothing has changed."""
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise MalformedAction("Une action est un objet avec un « type ».",
                                  "An action is an object with a 'type'.")
        if self.is_over:
            raise IllegalMove("round-over", "La manche est terminée.", "The round is over.")
        who = action.get("player")
        if who is not None:
            if not isinstance(who, int) or isinstance(who, bool):
                raise MalformedAction("Champ « player » invalide.", "Field 'player' is invalid.")
            if who != self.current_player:
                raise IllegalMove(
                    "wrong-player",
                    f"Ce n'est pas le tour du joueur {who + 1}.",
                    f"It is not player {who + 1}'s turn.",
                )
        self._apply(action)

    def winners(self) -> list[int]:
        """Seats with the best score of this round (ties shared)."""
        s = self.scores()
        best = max(s) if self.info.winner == "highest" else min(s)
        return [i for i, v in enumerate(s) if v == best]

    def clone(self) -> State:
        return copy.deepcopy(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.info.id,
            "variant": self.variant,
            "players": self.players,
            "options": dict(self.options),
            "start_player": self.start_player,
            "table_mode": self.table_mode,
            "current_player": self.current_player,
            "turns": self.turns,
            "claims": [c.to_json() for c in self.claims],
            "data": self.data.to_json() if self.data is not None else None,
            "state": self._to_json(),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> State:
        """Rebuild a state written by `to_json` (with its data); `StateError` if it is not one."""
        try:
            if obj["game"] != cls.info.id:
                raise StateError(f"state is for {obj['game']!r}, not {cls.info.id!r}")
            data = cls.data_from_json(obj["data"]) if obj.get("data") is not None else None
            state = cls(
                int(obj["players"]),
                obj["variant"],
                options=obj["options"],
                start_player=int(obj["start_player"]),
                table_mode=bool(obj["table_mode"]),
                data=data,
            )
            state.current_player = int(obj["current_player"])
            state.turns = int(obj["turns"])
            state.claims = [Claim.from_json(c) for c in obj["claims"]]
            state._load_json(obj["state"])
        except StateError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise StateError(f"not a saved {cls.info.id} state: {exc}") from exc
        return state

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


# --- registry of games ----------------------------------------------------------------


@dataclass(frozen=True)
class GameDef:
    """A registered game: its metadata, its state class and how to load its data file."""

    info: GameInfo
    state_class: type[State]
    load_data: Callable[[str | None], Any] = field(default=lambda path: None)

    def new_state(self, players: int, variant: str | None = None, **kwargs: Any) -> State:
        return self.state_class(players, variant, **kwargs)

    def from_json(self, obj: Mapping[str, Any]) -> State:
        return self.state_class.from_json(obj)
