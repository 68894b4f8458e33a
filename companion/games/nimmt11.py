"""11 nimmt! (`11-nimmt`): Wolfgang Kramer's shedding game with cards 1-100 and bull cards.

Rules: RULES.md section 4 (seed 003). Ten cards each; the first card of the draw pile is
turned up as the first discard pile. On a turn a player either plays or takes a pile.
A card goes on a pile when it is 1 to 10 above the pile's top card, counting on from 100
to 1. Without a bull card a play is one card; with k bull cards a player may lay several
cards onto each of up to k piles, every card within 10 of that pile's top at the start
of the turn; they are stacked by distance, so the farthest one becomes the new top.
Taking a pile (always allowed, compulsory when nothing fits) puts its cards in the hand,
turns up 2 new piles from the draw pile and, for 3 cards or more, earns a bull card. The
round ends when a hand is empty (or, GUESS, when no pile and no draw pile is left); every
other player scores minus the bull heads on the cards in hand (head table: data file
`11-nimmt_heads.toml`). As many rounds as players; the highest total (fewest minus
points) wins.

Card codes are the numbers as text, "1" ... "100". Bull cards are counts, not cards.
Piles have stable ids (0, 1, 2, ... in creation order; a taken pile's id is not reused).

Actions:
  chance  {"type": "deal", "hands": [[card, ...], ...] | null, "flip": card}
          {"type": "flip", "cards": [card, ...]}                 (after a take: 0 to 2 new piles)
          {"type": "reveal", "seat": s, "cards": [card, ...]}    (table mode, round end)
  player  {"type": "play", "card": "45", "pile": 2}
          {"type": "take", "pile": 2}
          {"type": "take", "pile": 2, "from": seat}               (bull supply empty: steal a bull)
          {"type": "end_turn"}                                    (after playing, with bull cards)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from random import Random
from typing import Any

from . import register
from .base import (
    CHANCE,
    TERMINAL,
    Action,
    Card,
    GameDef,
    GameInfo,
    Hand,
    IllegalMove,
    MalformedAction,
    Option,
    State,
    Text,
    need,
    verify_claim,
)
from .data import Reader, read_toml

INFO = GameInfo(
    id="11-nimmt",
    name=Text("11 nimmt!", "11 nimmt!"),
    min_players=2,
    max_players=7,
    variants=(),
    options=(
        Option(
            "bull_threshold",
            3,
            Text(
                "Taille de pile qui rapporte une carte Buffle : 3 = au moins 3 cartes (la plupart des règles), "
                "4 = plus de 3 cartes (résumé Wikipedia).",
                "Pile size that earns a bull card: 3 = at least 3 cards (most sources), "
                "4 = more than 3 cards (Wikipedia summary).",
            ),
            choices=(3, 4),
        ),
        Option(
            "bull_steal",
            True,
            Text(
                "Réserve de Buffles vide : celui qui prend une pile qui rapporte un Buffle le prend à un autre "
                "joueur (permis seulement si l'un des deux en a le plus). Sinon : pas de Buffle.",
                "Bull supply empty: whoever takes a pile that earns a bull card takes one from another player "
                "(allowed only if one of the two holds the most). Otherwise: no bull card.",
            ),
            guess=True,
        ),
        Option(
            "empty_table_scored",
            True,
            Text(
                "Plus aucune pile et pioche vide : la manche s'arrête et se compte normalement "
                "(sinon elle s'arrête sans points).",
                "No pile left and the draw pile empty: the round ends and is scored as usual "
                "(otherwise it ends without points).",
            ),
            guess=True,
        ),
        Option(
            "bulls_back_each_round",
            True,
            Text(
                "Les cartes Buffle restent jusqu'à la fin de la manche et reviennent à la réserve à chaque "
                "nouvelle donne (seul choix possible).",
                "Bull cards are kept until the end of the round and go back to the supply at each new deal "
                "(the only choice).",
            ),
            choices=(True,),
            guess=True,
        ),
    ),
    winner="highest",
    hidden_hands=True,
)

HAND_SIZE = 10
BULL_CARDS = 10
REACH = 10  # a card goes up to 10 above the top
CARDS: tuple[Card, ...] = tuple(str(v) for v in range(1, 101))
VALUE: dict[Card, int] = {c: v for v, c in enumerate(CARDS, 1)}
FULL_DECK: Counter[Card] = Counter(CARDS)
# The ten cards that fit on each top value, nearest first (index 0 unused).
IN_REACH: tuple[tuple[Card, ...], ...] = ((),) + tuple(
    tuple(CARDS[(top + i - 1) % 100] for i in range(1, REACH + 1)) for top in range(1, 101)
)
BIT: dict[Card, int] = {c: 1 << v for c, v in VALUE.items()}
REACH_MASK: tuple[int, ...] = tuple(sum(BIT[c] for c in cards) for cards in IN_REACH)
DATA_FILE = "11-nimmt_heads.toml"
HANDLERS = {"deal": "_deal", "flip": "_flip", "reveal": "_reveal", "play": "_play", "take": "_take",
            "end_turn": "_end_turn"}
CHANCE_ACTIONS = frozenset({"deal", "flip", "reveal"})


def distance(top: int, card: int) -> int:
    """How far `card` lies above `top`, counting on from 100 to 1: 1 ... 99 (0 for the same card)."""
    return (card - top - 1) % 100 + 1 if card != top else 0


def reach(top: int) -> tuple[int, int]:
    """The first and last value that fit on `top` (e.g. 96 -> 97, 6)."""
    return top % 100 + 1, (top + REACH - 1) % 100 + 1


def reach_text(top: int, lang: str) -> str:
    low, high = reach(top)
    if low < high:
        return f"{low} à {high}" if lang == "fr" else f"{low} to {high}"
    return f"{low} à {high} (après 100 vient 1)" if lang == "fr" else f"{low} to {high} (1 follows 100)"


def card_code(value: Any, field: str = "card") -> Card:
    """A card code from an action field, or `MalformedAction`."""
    if not isinstance(value, str):
        raise MalformedAction(f"Champ « {field} » invalide.", f"Field '{field}' is invalid.")
    if value not in VALUE:
        raise MalformedAction(f"« {value} » n'est pas une carte de ce jeu (1 à 100).",
                              f"'{value}' is not a card of this game (1 to 100).")
    return value


def _plural(n: int, fr: str, en: str, lang: str) -> str:
    word = fr if lang == "fr" else en
    return f"{n} {word}{'s' if n != 1 else ''}"


# --- the head table (data file) -------------------------------------------------------------


class HeadTable:
    """Bull heads printed on each card (1 to 7), from the data file; `guess` while unconfirmed."""

    __slots__ = ("heads", "guess", "origin")

    def __init__(self, heads: Mapping[Card, int], guess: bool, origin: str = "") -> None:
        self.heads: dict[Card, int] = {c: int(heads[c]) for c in CARDS}
        self.guess = guess
        self.origin = origin

    def to_json(self) -> dict[str, Any]:
        return {"heads": dict(self.heads), "guess": self.guess, "origin": self.origin}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> HeadTable:
        heads = obj["heads"]
        if not isinstance(heads, Mapping) or set(heads) != set(CARDS):
            raise ValueError("the head table must give every card from 1 to 100")
        for card, n in heads.items():
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 7:
                raise ValueError(f"card {card} must have 1 to 7 heads")
        return cls(heads, bool(obj["guess"]), str(obj.get("origin", "")))


def parse_heads(content: Mapping[str, Any], source: str) -> HeadTable:
    """Check a head-table file's content; `DataError` naming the file and the entry."""
    top = Reader(dict(content), source, "")
    top.check_known({"guess", "origin", "total", "heads"})
    guess = top.get("guess", bool, False)
    origin = top.get("origin", str, "")
    table = top.sub("heads")
    heads: dict[Card, int] = {}
    for key in table.table:
        number = int(key) if key.isdigit() else 0
        if not 1 <= number <= 100:
            raise table.fail(key, "not a card: the cards are numbered 1 to 100")
        card = str(number)
        if card in heads:
            raise table.fail(key, f"card {card} is listed twice")
        value = table.get(key, int)
        if not 1 <= value <= 7:
            raise table.fail(key, f"must be 1 to 7, not {value}")
        heads[card] = value
    missing = [c for c in CARDS if c not in heads]
    if missing:
        raise table.fail(missing[0], "missing (every card from 1 to 100 needs its number of heads)")
    if "total" in top.table:
        total = top.get("total", int)
        if total != sum(heads.values()):
            raise top.fail("total", f"is {total} but the heads listed add up to {sum(heads.values())}")
    return HeadTable(heads, guess, origin)


def load_data(path: str | None = None) -> HeadTable:
    """The shipped head table, or the user's own file (which replaces it entirely)."""
    content, source = read_toml(DATA_FILE, path)
    return parse_heads(content, source)


_SHIPPED: list[HeadTable] = []


def shipped_heads() -> HeadTable:
    """The shipped table, read once (every new round would otherwise parse the file)."""
    if not _SHIPPED:
        _SHIPPED.append(load_data(None))
    return _SHIPPED[0]


# --- hands ------------------------------------------------------------------------------------


class NumberHand(Hand):
    """A hand shown in number order (1, 2, ..., 100) rather than text order."""

    __slots__ = ()

    def cards(self) -> list[Card]:
        return sorted(self.known.elements(), key=VALUE.__getitem__)


def _sorted(cards: Any) -> list[Card]:
    return sorted(cards, key=VALUE.__getitem__)


# --- the state ---------------------------------------------------------------------------------


class NimmtState(State):
    info = INFO

    def __init__(self, players: int, variant: str | None = None, **kwargs: Any) -> None:
        super().__init__(players, variant, **kwargs)
        self.heads: dict[Card, int] = self.data.heads
        self.piles: dict[int, list[Card]] = {}  # id -> cards, top last
        self.next_pile = 0
        self.hands: list[Hand] = [NumberHand() for _ in range(players)]
        self.pool: Counter[Card] = Counter(CARDS)  # cards whose place nobody has seen
        self.pile = len(CARDS)  # draw pile size
        self.bulls = [0] * players
        self.supply = BULL_CARDS
        self.phase = "deal"  # deal, play, flip, reveal, over
        self.player = self.start_player  # whose turn it is (also during chance events)
        self.played = 0  # cards played this turn
        # Piles played on this turn: id -> [top value at the start of the turn, cards laid this turn].
        self.turn_piles: dict[int, list[int]] = {}
        self.winner: int | None = None
        self.end: str | None = None  # "out" (a hand is empty) or "empty" (no pile, no draw pile)
        self.revealed: list[bool] = [False] * players

    @classmethod
    def default_data(cls) -> HeadTable:
        return shipped_heads()

    @classmethod
    def data_from_json(cls, obj: Any) -> HeadTable:
        return HeadTable.from_json(obj)

    # -- geometry ---------------------------------------------------------------------------------

    def base_top(self, pid: int) -> int:
        """The top value that counts for plays on pile `pid` this turn (its top at the start)."""
        entry = self.turn_piles.get(pid)
        return entry[0] if entry is not None else VALUE[self.piles[pid][-1]]

    def pile_limit(self, seat: int) -> int:
        """Piles a player may play on in one turn: one per bull card, at least one."""
        return max(1, self.bulls[seat])

    def _open_piles(self, seat: int) -> list[tuple[int, int]]:
        """(pile id, top value that counts) for the piles the player may still play on this turn."""
        tp = self.turn_piles
        if not tp:
            return [(pid, VALUE[cards[-1]]) for pid, cards in self.piles.items()]
        if len(tp) < self.pile_limit(seat):
            return [(pid, tp[pid][0] if pid in tp else VALUE[cards[-1]]) for pid, cards in self.piles.items()]
        return [(pid, entry[0]) for pid, entry in tp.items()]

    def _holdable(self, seat: int) -> int:
        """Bit mask of the card values the player may hold: known cards, plus the pool if some are hidden."""
        hand = self.hands[seat]
        mask = 0
        for c in hand.known:
            mask |= BIT[c]
        if hand.unknown:
            for c in self.pool:
                mask |= BIT[c]
        return mask

    def _plays(self, seat: int) -> list[Action]:
        # Bit masks keep this lean: one AND per pile instead of ten look-ups.
        mask = self._holdable(seat)
        acts: list[Action] = []
        append = acts.append
        for pid, top in self._open_piles(seat):
            fit = mask & REACH_MASK[top]
            while fit:
                low = fit & -fit
                fit ^= low
                append({"type": "play", "card": CARDS[low.bit_length() - 2], "pile": pid})
        return acts

    def _can_play_more(self, seat: int) -> bool:
        mask = self._holdable(seat)
        return any(mask & REACH_MASK[top] for _, top in self._open_piles(seat))

    def victims(self, seat: int, size: int) -> list[int]:
        """Seats the taker of a pile of `size` cards may steal a bull card from ([]: no steal).

        GUESS (RULES.md 4.6 #3, waterv/board-game): only when the supply is empty, and only
        from a seat with a bull card when the taker or that seat holds the most bull cards.
        """
        if size < self.options["bull_threshold"] or self.supply or not self.options["bull_steal"]:
            return []
        most = max(self.bulls)
        mine = self.bulls[seat] == most
        return [v for v in range(self.players) if v != seat and self.bulls[v] and (mine or self.bulls[v] == most)]

    # -- protocol ---------------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        p = self.phase
        if p == "play":
            seat = self.player
            acts = self._plays(seat)
            if self.played:
                acts.append({"type": "end_turn"})
                return acts
            steal = not self.supply and self.options["bull_steal"]
            for pid, cards in self.piles.items():
                victims = self.victims(seat, len(cards)) if steal else None
                if victims:
                    acts.extend({"type": "take", "pile": pid, "from": v} for v in victims)
                else:
                    acts.append({"type": "take", "pile": pid})
            return acts
        if p == "deal":
            # At the table the hands stay hidden and only the turned-up card is seen.
            return [{"type": "deal", "hands": None, "flip": c} for c in _sorted(self.pool)] if self.table_mode else []
        if p == "flip" and self.pile == 1:
            return [{"type": "flip", "cards": [c]} for c in _sorted(self.pool)]
        return []  # two cards turned up (too many pairs), or the table lays out the hands

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        name = HANDLERS.get(kind)
        if name is None:
            raise MalformedAction(f"Action « {kind} » inconnue.", f"Unknown action '{kind}'.")
        if (kind in CHANCE_ACTIONS) != (self.current_player == CHANCE):
            raise IllegalMove("not-now", "Cette action n'est pas possible maintenant.",
                              "That action is not possible now.")
        getattr(self, name)(action)

    # chance events

    def _deal(self, action: Action) -> None:
        if self.phase != "deal":
            raise IllegalMove("not-now", "Les cartes sont déjà distribuées.", "The cards have been dealt.")
        hands = need(action, "hands", (list, type(None)))
        flip = card_code(need(action, "flip", str), "flip")
        wanted: Counter[Card] = Counter([flip])
        if hands is None:
            if not self.table_mode:
                raise MalformedAction("Il faut les mains distribuées.", "The dealt hands are needed.")
        else:
            if len(hands) != self.players:
                raise MalformedAction("Une main par joueur.", "One hand per player.")
            for h in hands:
                if not isinstance(h, list) or len(h) != HAND_SIZE:
                    raise MalformedAction(f"{HAND_SIZE} cartes par main.", f"{HAND_SIZE} cards per hand.")
                wanted.update(card_code(c) for c in h)
        if wanted - self.pool:
            raise MalformedAction("Une carte est distribuée deux fois.", "A card is dealt twice.")
        self.pool -= wanted
        for seat, hand in enumerate(self.hands):
            for c in hands[seat] if hands is not None else [None] * HAND_SIZE:
                hand.add(c)
        self.pile -= HAND_SIZE * self.players + 1
        self._new_pile(flip)
        self._start_turn(self.start_player)

    def _flip(self, action: Action) -> None:
        if self.phase != "flip":
            raise IllegalMove("not-now", "On ne retourne de nouvelles piles qu'après une prise.",
                              "New piles are turned up only after a pile is taken.")
        shown = [card_code(c) for c in need(action, "cards", list)]
        count = min(2, self.pile)
        if len(shown) != count:
            raise IllegalMove("flip-count", f"Il faut retourner {count} carte(s) de la pioche.",
                              f"{count} card(s) of the draw pile must be turned up.")
        for i, c in enumerate(shown):
            if not self.pool[c] or c in shown[:i]:
                raise IllegalMove("not-in-pile", f"Le {c} n'est pas dans la pioche.",
                                  f"The {c} is not in the draw pile.")
        for c in shown:
            self.pool[c] -= 1
            if not self.pool[c]:
                del self.pool[c]
            self._new_pile(c)
        self.pile -= count
        self._next_turn()

    def _reveal(self, action: Action) -> None:
        if self.phase != "reveal":
            raise IllegalMove("not-now", "Les mains ne se montrent qu'en fin de manche.",
                              "Hands are shown only at the end of the round.")
        seat = need(action, "seat", int)
        shown = Counter(card_code(c) for c in need(action, "cards", list))
        if not 0 <= seat < self.players or self.revealed[seat]:
            raise MalformedAction("Ce joueur n'a rien à montrer.", "That player has nothing to show.")
        hand = self.hands[seat]
        if sum(shown.values()) != len(hand):
            raise IllegalMove("reveal-count", f"Le joueur {seat + 1} devait avoir {len(hand)} cartes.",
                              f"Player {seat + 1} should hold {len(hand)} cards.")
        missing = hand.known - shown
        if missing:
            c = _sorted(missing)[0]
            raise IllegalMove("reveal-missing",
                              f"Le {c} est dans cette main (pris dans une pile) : il doit être montré.",
                              f"The {c} is in this hand (taken with a pile): it must be shown.")
        extra = shown - hand.known
        if extra - self.pool:
            raise IllegalMove("reveal-impossible", "Une de ces cartes est déjà ailleurs sur la table.",
                              "One of these cards is already elsewhere on the table.")
        self.pool -= extra
        hand.known = shown
        hand.unknown = 0
        self._settle_claims(seat)
        self.revealed[seat] = True
        self._next_reveal()

    # player actions

    def _pile_id(self, action: Action) -> int:
        pid = need(action, "pile", int)
        if pid not in self.piles:
            raise IllegalMove("no-pile", "Cette pile n'est pas (ou plus) sur la table.",
                              "That pile is not on the table (any more).")
        return pid

    def _play(self, action: Action) -> None:
        card = card_code(need(action, "card", str))
        pid = self._pile_id(action)
        seat = self.player
        hand = self.hands[seat]
        if not hand.can_hold(card, self.pool):
            raise IllegalMove("not-in-hand", f"Le {card} n'est pas dans cette main.",
                              f"The {card} is not in this hand.")
        top = self.base_top(pid)
        if pid not in self.turn_piles and len(self.turn_piles) >= self.pile_limit(seat):
            k = self.bulls[seat]
            raise IllegalMove(
                "pile-limit",
                f"Avec {_plural(k, 'carte', 'card', 'fr')} Buffle, on ne pose que sur {max(1, k)} pile(s) par tour.",
                f"With {k} bull card(s) you may play on only {max(1, k)} pile(s) per turn.",
            )
        d = distance(top, VALUE[card])
        if not 1 <= d <= REACH:
            raise IllegalMove(
                "too-far",
                f"Le {card} ne va pas sur la pile du {top} : il faut une carte de {reach_text(top, 'fr')}.",
                f"The {card} does not go on the {top} pile: it takes a card from {reach_text(top, 'en')}.",
            )
        hand.remove(card, self.pool)
        self._stack(pid, top, card, d)
        self.played += 1
        if not hand.known and not hand.unknown:  # (Hand.remove drops emptied entries)
            self.winner = seat
            self._end_round("out")
        elif not self.bulls[seat] or not self._can_play_more(seat):
            self._next_turn()

    def _stack(self, pid: int, top: int, card: Card, d: int) -> None:
        """Lay `card` on the pile among this turn's cards, in ascending order of distance."""
        entry = self.turn_piles.setdefault(pid, [top, 0])
        pile = self.piles[pid]
        pos = len(pile)
        first = pos - entry[1]
        while pos > first and distance(top, VALUE[pile[pos - 1]]) > d:
            pos -= 1
        pile.insert(pos, card)
        entry[1] += 1

    def _take(self, action: Action) -> None:
        pid = self._pile_id(action)
        seat = self.player
        if self.played:
            raise IllegalMove("play-or-take", "Tu as déjà posé des cartes : on ne prend pas aussi une pile.",
                              "You have played cards: you cannot also take a pile.")
        cards = self.piles[pid]
        victims = self.victims(seat, len(cards))
        source = self._bull_source(action, victims)
        del self.piles[pid]
        hand = self.hands[seat]
        for c in cards:
            hand.add(c)  # every card of a pile was seen when it was laid: known
        if len(cards) >= self.options["bull_threshold"]:
            if self.supply:
                self.supply -= 1
                self.bulls[seat] += 1
            elif source is not None:
                self.bulls[source] -= 1
                self.bulls[seat] += 1
        if self.pile:
            self.phase = "flip"
            self.current_player = CHANCE
        elif not self.piles:
            self._end_round("empty")  # GUESS (RULES.md 4.6 #7)
        else:
            self._next_turn()

    def _bull_source(self, action: Action, victims: list[int]) -> int | None:
        """The seat a bull card is stolen from (validated), or None when no steal happens."""
        if not victims:
            if "from" in action:
                raise IllegalMove("no-steal", "Cette prise ne prend de carte Buffle à personne.",
                                  "This take does not take a bull card from anybody.")
            return None
        if "from" not in action:
            raise IllegalMove(
                "name-victim",
                "La réserve de Buffles est vide : dis à quel joueur tu prends une carte Buffle.",
                "The bull supply is empty: say which player you take a bull card from.",
            )
        source = need(action, "from", int)
        if source not in victims:
            names = ", ".join(str(v + 1) for v in victims)
            raise IllegalMove(
                "steal-not-allowed",
                f"On prend un Buffle à un joueur qui en a, et seulement si l'un de vous deux en a le plus "
                f"(ici : joueur {names}).",
                f"You take a bull card from a player who has one, and only if one of you two holds the most "
                f"(here: player {names}).",
            )
        return source

    def _end_turn(self, action: Action) -> None:
        if not self.played:
            raise IllegalMove("must-act", "Pose au moins une carte ou prends une pile.",
                              "Play at least one card or take a pile.")
        self._next_turn()

    # turn flow

    def _new_pile(self, card: Card) -> None:
        self.piles[self.next_pile] = [card]
        self.next_pile += 1

    def _start_turn(self, seat: int) -> None:
        self.player = seat
        self.current_player = seat
        self.phase = "play"
        self.played = 0
        self.turn_piles = {}
        self.turns += 1

    def _next_turn(self) -> None:
        self._start_turn((self.player + 1) % self.players)

    def _end_round(self, how: str) -> None:
        self.end = how
        if self.table_mode and any(h.unknown for h in self.hands):
            self.phase = "reveal"
            self.current_player = CHANCE
            self.revealed = [not h.unknown for h in self.hands]
            for seat, done in enumerate(self.revealed):
                if done:
                    self._settle_claims(seat)
        else:
            self.phase = "over"
            self.current_player = TERMINAL

    def _settle_claims(self, seat: int) -> None:
        # Taking is always allowed, so this game logs no claims; kept for the protocol's sake.
        hand = self.hands[seat]
        for claim in self.claims:
            if claim.player == seat and claim.status == "open":
                claim.status = verify_claim(claim, hand, hand.cards())

    def _next_reveal(self) -> None:
        if all(self.revealed):
            self.phase = "over"
            self.current_player = TERMINAL

    def sample_chance(self, rng: Random) -> Action:
        if self.phase == "deal":
            deck = _sorted(self.pool.elements())
            rng.shuffle(deck)
            hands = [_sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(self.players)]
            return {"type": "deal", "hands": hands, "flip": deck[HAND_SIZE * self.players]}
        if self.phase == "flip":
            # Lowest card first: the camera cannot tell in which order two piles were turned up,
            # so the table and the simulation number new piles the same way.
            return {"type": "flip", "cards": _sorted(rng.sample(_sorted(self.pool), min(2, self.pile)))}
        raise ValueError(f"no chance event to sample in phase {self.phase!r}")

    def redact(self, action: Action) -> Action:
        if action["type"] == "deal":
            return {"type": "deal", "hands": None, "flip": action["flip"]}
        return action  # turned-up pile cards are public

    # -- scores, views, checks -------------------------------------------------------------------

    def hand_heads(self, seat: int) -> int:
        heads = self.heads
        return sum(heads[c] * n for c, n in self.hands[seat].known.items())

    def scores(self) -> list[int]:
        if self.end == "empty" and not self.options["empty_table_scored"]:
            return [0] * self.players
        return [-self.hand_heads(s) for s in range(self.players)]

    def view(self, player: int | None) -> dict[str, Any]:
        seat = self.player
        return {
            "game": INFO.id,
            "variant": self.variant,
            "players": self.players,
            "table_mode": self.table_mode,
            "phase": self.phase,
            "current_player": self.current_player if self.current_player >= 0 else None,
            "turn_player": seat,
            "is_over": self.is_over,
            # Live scores would tell the heads in the other hands: shown once the round is over.
            "scores": self.scores() if self.is_over else None,
            "winners": self.winners() if self.is_over else [],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": self.hands[player].cards() if player is not None else None,
            "pile": self.pile,
            "board": {
                # Only each pile's top card and size: the rules forbid looking into a pile.
                "piles": [
                    {"id": pid, "top": cards[-1], "size": len(cards),
                     "playable": [str(v) for v in reach(self.base_top(pid))]}
                    for pid, cards in self.piles.items()
                ],
                "bull_supply": self.supply,
                "bulls": list(self.bulls),
            },
            "turn": {
                "played": self.played,
                "piles_used": list(self.turn_piles),
                "pile_limit": self.pile_limit(seat),
                "several_cards": self.bulls[seat] > 0,
            },
            "claims": [c.to_json() for c in self.claims],
            # The head table is still unconfirmed (RULES.md 4.6 #1): the pages say so beside the scores.
            "heads_guess": self.data.guess,
        }

    def _to_json(self) -> dict[str, Any]:
        return {
            "piles": [[pid, list(cards)] for pid, cards in self.piles.items()],
            "next_pile": self.next_pile,
            "hands": [h.to_json() for h in self.hands],
            "pool": _sorted(self.pool.elements()),
            "pile": self.pile,
            "bulls": list(self.bulls),
            "supply": self.supply,
            "phase": self.phase,
            "player": self.player,
            "played": self.played,
            "turn_piles": [[pid, top, n] for pid, (top, n) in self.turn_piles.items()],
            "winner": self.winner,
            "end": self.end,
            "revealed": list(self.revealed),
        }

    def _load_json(self, obj: Mapping[str, Any]) -> None:
        self.piles = {int(pid): [card_code(c) for c in cards] for pid, cards in obj["piles"]}
        self.next_pile = int(obj["next_pile"])
        self.hands = [NumberHand.from_json(h) for h in obj["hands"]]
        if len(self.hands) != self.players:
            raise ValueError("one hand per player")
        self.pool = Counter(card_code(c) for c in obj["pool"])
        self.pile = int(obj["pile"])
        self.bulls = [int(b) for b in obj["bulls"]]
        if len(self.bulls) != self.players:
            raise ValueError("one bull count per player")
        self.supply = int(obj["supply"])
        self.phase = str(obj["phase"])
        self.player = int(obj["player"])
        self.played = int(obj["played"])
        self.turn_piles = {int(pid): [int(top), int(n)] for pid, top, n in obj["turn_piles"]}
        self.winner = None if obj["winner"] is None else int(obj["winner"])
        self.end = None if obj["end"] is None else str(obj["end"])
        self.revealed = [bool(r) for r in obj["revealed"]]

    def check_invariants(self) -> list[str]:
        errors = self._check_cards() + self._check_bulls() + self._check_turn() + self._check_phase()
        return errors

    def _check_cards(self) -> list[str]:
        errors = []
        placed: Counter[Card] = Counter()
        for pid, cards in self.piles.items():
            if not cards:
                errors.append(f"pile {pid} is empty but still on the table")
            if not 0 <= pid < self.next_pile:
                errors.append(f"pile id {pid} was never handed out (next {self.next_pile})")
            placed.update(cards)
        held: Counter[Card] = Counter()
        for h in self.hands:
            held.update(h.known)
        everywhere = placed + held + self.pool
        if everywhere != FULL_DECK:
            missing = FULL_DECK - everywhere
            twice = everywhere - FULL_DECK
            errors.append(f"cards not in exactly one place: missing {_sorted(missing)}, extra {_sorted(twice)}")
        unknown = sum(h.unknown for h in self.hands)
        if sum(self.pool.values()) != self.pile + unknown:
            errors.append(f"pool {sum(self.pool.values())} != draw pile {self.pile} + unknown {unknown}")
        if not self.table_mode and unknown:
            errors.append("unknown cards in a simulated game")
        if sum(len(h) for h in self.hands) + self.pile + sum(placed.values()) != len(CARDS):
            errors.append("hands, draw pile and discard piles do not add up to 100 cards")
        if self.phase != "deal" and self.next_pile < 1:
            errors.append("no pile was ever turned up")
        return errors

    def _check_bulls(self) -> list[str]:
        errors = []
        if min(self.bulls) < 0 or self.supply < 0:
            errors.append(f"negative bull count: supply {self.supply}, players {self.bulls}")
        if self.supply + sum(self.bulls) != BULL_CARDS:
            errors.append(f"bull cards: supply {self.supply} + players {self.bulls} != {BULL_CARDS}")
        return errors

    def _check_turn(self) -> list[str]:
        errors = []
        seat = self.player
        if len(self.turn_piles) > self.pile_limit(seat):
            errors.append(f"played on {len(self.turn_piles)} piles with {self.bulls[seat]} bull card(s)")
        if not self.bulls[seat] and self.played > 1:
            errors.append(f"{self.played} cards played in one turn without a bull card")
        if sum(n for _, n in self.turn_piles.values()) != self.played:
            errors.append("cards played this turn do not match the piles played on")
        for pid, (top, n) in self.turn_piles.items():
            cards = self.piles.get(pid)
            if cards is None or len(cards) <= n:
                errors.append(f"pile {pid} lost the cards played on it this turn")
                continue
            dists = [distance(top, VALUE[c]) for c in cards[-n:]]
            if VALUE[cards[-n - 1]] != top:
                errors.append(f"pile {pid}: the card under this turn's cards is not the start top {top}")
            if dists != sorted(dists) or not all(1 <= d <= REACH for d in dists):
                errors.append(f"pile {pid}: this turn's cards {cards[-n:]} are not stacked by distance from {top}")
        return errors

    def _check_phase(self) -> list[str]:
        errors = []
        expected = {"deal": CHANCE, "flip": CHANCE, "reveal": CHANCE, "over": TERMINAL}.get(self.phase, self.player)
        if self.current_player != expected:
            errors.append(f"phase {self.phase} but current player {self.current_player}")
        if self.phase == "play" and (not self.piles or not all(len(h) for h in self.hands)):
            errors.append("the round goes on with no pile or an empty hand")
        if self.phase == "flip" and not self.pile:
            errors.append("turning up new piles from an empty draw pile")
        if self.phase in ("reveal", "over"):
            if self.end == "out":
                if self.winner is None or len(self.hands[self.winner]) or self.scores()[self.winner] != 0:
                    errors.append("the round ended on an empty hand, but the winner has cards or points")
            elif self.end == "empty":
                if self.piles or self.pile:
                    errors.append("the round ended for lack of piles, but piles or draw cards remain")
            else:
                errors.append(f"the round ended without a reason ({self.end!r})")
            if self.phase == "over" and self.table_mode and any(h.unknown for h in self.hands):
                errors.append("the round is over with hidden cards never laid out")
        if self.phase == "over":
            if self.end == "empty" and not self.options["empty_table_scored"]:
                expected_scores = [0] * self.players
            else:
                expected_scores = [-sum(self.heads[c] for c in h.known.elements()) for h in self.hands]
            if self.scores() != expected_scores:
                errors.append(f"scores {self.scores()} do not match the heads in hand {expected_scores}")
        return errors

    # -- words -----------------------------------------------------------------------------------

    def describe(self, action: Action, lang: str = "en") -> str:
        fr = lang == "fr"
        kind = action.get("type")
        who = f"{'Joueur' if fr else 'Player'} {self.player + 1}"
        if kind == "deal":
            flip = action.get("flip")
            return (f"Distribution des cartes ; le {flip} est retourné : première pile" if fr
                    else f"The cards are dealt; the {flip} is turned up as the first pile")
        if kind == "flip":
            shown = [str(c) for c in action.get("cards", [])]
            if fr:
                what = "Deux nouvelles piles sont retournées" if len(shown) > 1 else "Une nouvelle pile est retournée"
                return f"{what} : " + " et ".join(f"le {c}" for c in shown)
            what = "Two new piles are turned up" if len(shown) > 1 else "A new pile is turned up"
            return f"{what}: " + " and ".join(f"the {c}" for c in shown)
        if kind == "reveal":
            seat = action.get("seat", 0) + 1
            shown = ", ".join(str(c) for c in action.get("cards", []))
            return f"Joueur {seat} montre : {shown or 'rien'}" if fr else f"Player {seat} shows: {shown or 'nothing'}"
        if kind == "play":
            card, pid = action.get("card"), action.get("pile")
            top = self.base_top(pid) if pid in self.piles else "?"
            return f"{who} pose le {card} sur la pile du {top}" if fr else f"{who} plays the {card} on the {top} pile"
        if kind == "take":
            return self._describe_take(action, who, lang)
        if kind == "end_turn":
            return f"{who} termine son tour" if fr else f"{who} ends the turn"
        return str(action)

    def _describe_take(self, action: Action, who: str, lang: str) -> str:
        fr = lang == "fr"
        pid = action.get("pile")
        cards = self.piles.get(pid, []) if isinstance(pid, int) else []
        top = cards[-1] if cards else "?"
        size = _plural(len(cards), "carte", "card", lang)
        text = f"{who} prend la pile du {top} ({size})" if fr else f"{who} takes the {top} pile ({size})"
        if len(cards) >= self.options["bull_threshold"]:
            source = action.get("from")
            if self.supply:
                text += " et une carte Buffle" if fr else " and a bull card"
            elif isinstance(source, int):
                text += (f" et une carte Buffle du joueur {source + 1}" if fr
                         else f" and a bull card from player {source + 1}")
        return text

    def greedy_key(self, action: Action) -> float:
        kind = action["type"]
        if kind == "play":
            # Shed the cards with the most heads first; any play beats taking.
            return 10.0 + self.heads[action["card"]]
        if kind == "end_turn":
            return 1.0
        if kind == "take":
            # Only the size of a pile is public: take small piles, or one that earns a bull card.
            size = len(self.piles[action["pile"]])
            bull = size >= self.options["bull_threshold"] and (self.supply or "from" in action)
            return -size + (4.0 if bull else 0.0)
        return 0.0

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        value = obs.get("value")
        if obs.get("kind") != "number" or not isinstance(value, int) or isinstance(value, bool):
            return None
        return CARDS[value - 1] if 1 <= value <= 100 else None


GAME = register(GameDef(INFO, NimmtState, load_data))
