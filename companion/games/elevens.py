"""11 Elevens (`elevens`, DE "Elfer raus! Master"): four rows of 1 to 21 with links, jokers and bonuses.

Rules: RULES.md section 2 (seed 001). The four 11s lie in a vertical column (its order
decides which rows are neighbours for link cards). The 80 other number cards and 4 jokers
are dealt (deal table 2.2); each player also gets public link cards. On a turn a player
either plays 1 to 4 hand cards (number cards beside an occupied position of their own
row, jokers standing for a number card, jokers thrown back in the box) plus any number of
links, or draws one card. A link joins an occupied position to the same empty number of a
neighbouring row and must be completed at once with that number card or a joker. Filling
the last gap of a half row (1-10, 12-21) earns a bonus card (+11) while the 7 last. Once
the draw pile is empty a player who can play a number card must play. The round ends at
once when a hand is empty: +11 per bonus card, minus the cards left in hand (jokers 11).
Highest total wins. Variant `beginner`: no links, jokers nor bonuses.

Actions:
  chance  {"type": "deal", "rows": [colour, colour, colour, colour], "hands": [[card, ...], ...] | null}
          {"type": "drawn", "card": card | null}
          {"type": "reveal", "seat": s, "cards": [card, ...]}        (table mode, round end)
  player  {"type": "play", "card": "Y5"}                     a number card to its own place
          {"type": "play", "card": "J", "row": "red", "value": 6}   a joker standing for the red 6
          {"type": "link", "from": "yellow", "to": "blue", "value": 9}
          {"type": "exchange", "card": "B9"}                 the blue 9 replaces the joker standing for it
          {"type": "discard_joker"}, {"type": "draw"}, {"type": "end_turn"}, {"type": "pass"}
Cards: "Y1".."G21" (cards.code; the 11s start on the table), "J" for the 4 identical jokers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from itertools import permutations
from random import Random
from typing import Any

from . import cards, register
from .base import (
    CHANCE,
    TERMINAL,
    Action,
    Card,
    Claim,
    GameDef,
    GameInfo,
    Hand,
    IllegalMove,
    MalformedAction,
    Option,
    State,
    Text,
    Variant,
    need,
    verify_claim,
)

INFO = GameInfo(
    id="elevens",
    name=Text("11 Elevens", "11 Elevens"),
    min_players=2,
    max_players=6,
    variants=(
        Variant(
            "beginner",
            Text("Débutants", "Beginners"),
            Text(
                "Sans cartes Liaison, sans Jokers et sans Bonus ; le premier qui pose sa dernière carte gagne.",
                "No link cards, no jokers and no bonus cards; the first to play their last card wins.",
            ),
        ),
    ),
    options=(
        Option(
            "bonus_cards",
            7,
            Text(
                "7 cartes Bonus pour 8 moitiés de rangée : elles sont données tant qu'il en reste (la huitième "
                "moitié ne rapporte rien) ; 8 : chaque moitié complétée rapporte 11 points.",
                "7 bonus cards for 8 half rows: they are handed out while they last (the eighth half gives "
                "nothing); 8: every completed half scores 11 points.",
            ),
            choices=(7, 8),
            guess=True,
        ),
        Option(
            "exchange_counts",
            True,
            Text(
                "La carte Nombre posée à la place d'un Joker compte dans la limite de 4 cartes.",
                "The number card put in place of a joker counts toward the limit of 4 cards.",
            ),
            guess=True,
        ),
        Option(
            "exchange_other_any",
            True,
            Text(
                "Pour échanger un Joker il faut poser une autre carte dans le tour : n'importe laquelle, même le "
                "Joker récupéré (sinon : une autre carte Nombre).",
                "Exchanging a joker needs another card played in the turn: any card, even the recovered joker "
                "(otherwise: another number card).",
            ),
            guess=True,
        ),
        Option(
            "discard_only_turn",
            True,
            Text(
                "Un tour peut se limiter à remettre un Joker dans la boîte (la défausse compte comme une carte "
                "jouée).",
                "A turn may consist only of putting a joker back in the box (the discard counts as a card "
                "played).",
            ),
            guess=True,
        ),
        Option(
            "discard_last_ends",
            True,
            Text(
                "Défausser sa dernière carte (un Joker) vide la main et termine la manche (sinon : interdit).",
                "Discarding one's last card (a joker) empties the hand and ends the round (otherwise: not "
                "allowed).",
            ),
            guess=True,
        ),
        Option(
            "deadlock_scores",
            True,
            Text(
                "Pioche vide et personne ne joue : la manche s'arrête après un tour de table de passes et se "
                "compte normalement (sinon : elle est annulée, 0 point pour tous).",
                "Draw pile empty and nobody plays: the round ends after a full circle of passes and is scored "
                "normally (otherwise: it is void, 0 points for everyone).",
            ),
            guess=True,
        ),
        Option(
            "beginner_scores",
            True,
            Text(
                "Variante débutants : les perdants comptent moins la valeur de leurs cartes (sinon : 1 point pour "
                "le gagnant, 0 pour les autres).",
                "Beginner variant: the losers score minus the value of their cards (otherwise: 1 point for the "
                "winner, 0 for the others).",
            ),
            guess=True,
        ),
    ),
    winner="highest",
    hidden_hands=True,
)

JOKER = "J"
LINK = "LINK"  # vision codes of the cards that never go in a hand
BONUS = "BONUS"
LIMIT = 4  # hand cards per turn
VALUES = range(1, 22)
COLOURS = cards.COLOURS
CODE = {c: [""] + [cards.code(c, v) for v in VALUES] + [""] for c in COLOURS}  # CODE[colour][value]
NUMBERS = tuple(CODE[c][v] for c in COLOURS for v in VALUES if v != 11)
PARSED = {CODE[c][v]: (c, v) for c in COLOURS for v in VALUES}
VALUE = {code: v for code, (_, v) in PARSED.items()} | {JOKER: 11}
DECK = NUMBERS + (JOKER,) * 4
DEAL = {2: (4, 20), 3: (4, 20), 4: (3, 15), 5: (3, 12), 6: (2, 12)}  # players: (links, hand cards)
ROW_FR = {"yellow": "jaune", "red": "rouge", "blue": "bleue", "green": "verte"}
EMPTY, NUMBER, JOKER_HERE = 0, 1, 2
HALVES = (range(1, 11), range(12, 22))

CANNOT_PLAY_PASS = Text("Je ne peux poser aucune carte Nombre et la pioche est vide : je passe.",
                        "I cannot play any number card and the draw pile is empty: I pass.")


def _name(card: Card, lang: str = "en") -> str:
    if card == JOKER:
        return "Joker" if lang == "fr" else "joker"
    return cards.name(card, lang)


def _row_name(colour: str, lang: str = "en") -> str:
    return f"la rangée {ROW_FR[colour]}" if lang == "fr" else f"the {colour} row"


def _the(card: Card) -> tuple[str, str]:
    """'le 9 bleu' / 'the blue 9' (or the joker)."""
    if card == JOKER:
        return "le Joker", "the joker"
    return f"le {cards.name(card, 'fr')}", f"the {cards.name(card)}"


def _colour_fr(colour: str) -> str:
    return cards.COLOUR_NAME.get(colour, (colour, colour))[0]


def _colour(action: Mapping[str, Any], key: str) -> str:
    colour = need(action, key, str)
    if colour not in COLOURS:
        raise MalformedAction(f"« {colour} » n'est pas une couleur de rangée.", f"'{colour}' is not a row colour.")
    return colour


def _value(action: Mapping[str, Any]) -> int:
    value = need(action, "value", int)
    if value not in VALUES:
        raise MalformedAction("Une position va de 1 à 21.", "A position is a number from 1 to 21.")
    return value


ALLOWED_KEYS = {
    "deal": {"rows", "hands"},
    "drawn": {"card"},
    "reveal": {"seat", "cards"},
    "play": {"card", "row", "value"},
    "link": {"from", "to", "value"},
    "exchange": {"card"},
    "discard_joker": set(),
    "draw": set(),
    "end_turn": set(),
    "pass": set(),
}


class ElevensState(State):
    info = INFO

    def __init__(self, players: int, variant: str | None = None, **kwargs: Any) -> None:
        super().__init__(players, variant, **kwargs)
        self.beginner = variant == "beginner"
        self.deck = NUMBERS if self.beginner else DECK
        self.deck_count = Counter(self.deck)
        links, self.hand_size = DEAL[players]
        self.links_dealt = 0 if self.beginner else links
        self.bonus_total = 0 if self.beginner else int(self.options["bonus_cards"])
        self.rows: list[str] = list(COLOURS)  # the column of 11s, top to bottom (set by the deal)
        # board[colour][value]: EMPTY, NUMBER or JOKER_HERE; indices 0 and 22 stay empty (sentinels).
        self.board: dict[str, list[int]] = {c: [EMPTY] * 23 for c in COLOURS}
        for c in COLOURS:
            self.board[c][11] = NUMBER
        self.links: list[tuple[str, str, int]] = []  # (from, to, value) in the order laid
        self.links_left = [self.links_dealt] * players
        self.bonus = [0] * players
        self.bonus_supply = self.bonus_total
        self.box = 0  # jokers discarded into the box
        self._board_jokers = 0  # jokers standing on the board (derived, kept for speed)
        self.hands = [Hand() for _ in range(players)]
        self.pool: Counter[Card] = Counter(self.deck)  # cards whose place nobody has seen
        self.pile = len(self.deck)
        self.phase = "deal"  # deal, play, drawn, reveal, over
        self.player = self.start_player
        self._reset_turn()
        self.passes = 0  # consecutive passes (deadlock rule)
        self.winner: int | None = None
        self.revealed: list[bool] = [False] * players

    def _reset_turn(self) -> None:
        self.numbers = 0  # number cards placed this turn
        self.jokers = 0  # jokers placed this turn
        self.discards = 0  # jokers put back in the box this turn
        self.exchanges = 0  # jokers replaced by their number card this turn
        self.pending: tuple[str, int] | None = None  # a link laid this turn that awaits its card

    # -- turn counters ----------------------------------------------------------------------

    @property
    def played(self) -> int:
        """Hand cards used this turn, against the limit of 4."""
        return self.numbers + self.jokers + self.discards + (self.exchanges if self.options["exchange_counts"] else 0)

    def _counted(self) -> int:
        """Cards that make this turn a "play" turn (at least one is needed)."""
        return self.numbers + self.jokers + (self.discards if self.options["discard_only_turn"] else 0)

    def _others(self) -> int:
        """Cards played this turn that allow a joker exchange."""
        return self._counted() if self.options["exchange_other_any"] else self.numbers

    def _fresh(self) -> bool:
        return not (self.numbers or self.jokers or self.discards or self.exchanges or self.pending)

    def _may_end(self) -> bool:
        return (self.pending is None and self._counted() >= 1
                and (not self.exchanges or self._others() >= 1))

    # -- geometry ---------------------------------------------------------------------------

    def _neighbours(self, colour: str) -> list[str]:
        i = self.rows.index(colour)
        return [self.rows[j] for j in (i - 1, i + 1) if 0 <= j < 4]

    def _frontier(self) -> list[tuple[str, int]]:
        """Empty positions beside an occupied one of the same row (where a card may go)."""
        out = []
        board = self.board
        for c in self.rows:
            b = board[c]
            if EMPTY not in b[1:22]:
                continue
            for v in VALUES:
                if not b[v] and (b[v - 1] or b[v + 1]):
                    out.append((c, v))
        return out

    def _has_gap(self) -> bool:
        """Is any position still empty? (Then some empty position lies beside an occupied one.)"""
        return any(EMPTY in b[1:22] for b in self.board.values())

    def _link_gaps(self) -> list[tuple[str, str, int]]:
        """(from, to, value): an occupied position facing the same empty number in a neighbouring row."""
        out = []
        board, rows = self.board, self.rows
        for i in range(3):
            upper, lower = board[rows[i]], board[rows[i + 1]]
            for v in VALUES:
                if upper[v]:
                    if not lower[v]:
                        out.append((rows[i], rows[i + 1], v))
                elif lower[v]:
                    out.append((rows[i + 1], rows[i], v))
        return out

    def _reachable(self, seat: int) -> list[Card]:
        """Every number card identity the player could place now (beside its row or through a link)."""
        out = [CODE[c][v] for c, v in self._frontier()]
        if self.links_left[seat]:
            seen = set(out)
            for _, to, v in self._link_gaps():
                code = CODE[to][v]
                if code not in seen:
                    seen.add(code)
                    out.append(code)
        return out

    def _fits(self, colour: str, value: int) -> bool:
        b = self.board[colour]
        if b[value]:
            return False
        if self.pending is not None:
            return self.pending == (colour, value)
        return bool(b[value - 1] or b[value + 1])

    def _jokers_held(self, seat: int) -> int:
        """How many jokers this hand could hold (known ones plus unknown cards that could be jokers)."""
        hand = self.hands[seat]
        return hand.known[JOKER] + min(hand.unknown, self.pool[JOKER])

    def _joker_positions(self) -> list[tuple[str, int]]:
        board = self.board
        return [(c, v) for c in self.rows if JOKER_HERE in board[c] for v in VALUES if board[c][v] == JOKER_HERE]

    # -- what may be done -------------------------------------------------------------------

    def _promise_open(self) -> bool:
        """A joker exchanged this turn still waits for its other card, a number card (GUESS 2.8 #3 off)."""
        return bool(self.exchanges) and not self.numbers and not self.options["exchange_other_any"]

    def _promise_kept_after(self, seat: int, fill: tuple[str, int] | None = None, link: bool = False) -> bool:
        """After one more hand card (a joker on `fill`, or a discard), and maybe a link card used, could a
        number card still follow this turn?"""
        if LIMIT - self.played - 1 < 1:
            return False
        pending, self.pending = self.pending, None
        if fill is not None:
            self.board[fill[0]][fill[1]] = JOKER_HERE
        self.links_left[seat] -= link
        hand, pool = self.hands[seat], self.pool
        ok = any(hand.can_hold(c, pool) for c in self._reachable(seat))
        self.links_left[seat] += link
        if fill is not None:
            self.board[fill[0]][fill[1]] = EMPTY
        self.pending = pending
        return ok

    def _joker_ok(self, seat: int, colour: str, value: int) -> bool:
        return not self._promise_open() or self._promise_kept_after(seat, (colour, value))

    def _link_ok(self, seat: int, to: str, value: int, joker: bool) -> bool:
        """Can the link be completed (by its number card, or by a joker that breaks no promise)?"""
        if self.hands[seat].can_hold(CODE[to][value], self.pool):
            return True
        return joker and (not self._promise_open() or self._promise_kept_after(seat, (to, value), link=True))

    def _discard_ok(self, seat: int) -> bool:
        if self.pending is not None or self.played >= LIMIT or self._jokers_held(seat) < 1:
            return False
        if self._promise_open() and not self._promise_kept_after(seat):
            return False
        if len(self.hands[seat]) == 1 and not self.options["discard_last_ends"]:
            return False
        if self.options["discard_only_turn"] or self.numbers or self.jokers:
            return True
        # A discard does not make a turn: a card must still be placed afterwards.
        return self.played + 1 < LIMIT and self._could_place(seat, jokers_needed=2)

    def _could_place(self, seat: int, jokers_needed: int) -> bool:
        """Could the player still place a card on the board (a number card, or one of `jokers_needed` jokers)?"""
        hand, pool = self.hands[seat], self.pool
        if any(hand.can_hold(code, pool) for code in self._reachable(seat)):
            return True
        return self._jokers_held(seat) >= jokers_needed and self._has_gap()

    def _exchange_ok(self, seat: int, code: Card) -> bool:
        """May `code` replace the joker standing for it now (GUESS 2.8 #2, #3)?"""
        cost = 1 if self.options["exchange_counts"] else 0
        room = LIMIT - self.played - cost
        if self.pending is not None or room < 0:
            return False
        if self._others() >= 1:
            return True
        if room < 1:
            return False
        if self.options["exchange_other_any"]:
            # The recovered joker itself can be the other card: thrown away or placed.
            if self.options["discard_only_turn"] and (len(self.hands[seat]) > 1 or self.options["discard_last_ends"]):
                return True
            return self._has_gap()
        return any(self.hands[seat].can_hold(c, self.pool) for c in self._reachable(seat) if c != code)

    def _moves(self, seat: int) -> Iterator[Action]:
        """Every move of a "play" turn (not draw, pass or end_turn)."""
        hand, pool = self.hands[seat], self.pool
        if self.pending is not None:
            c, v = self.pending
            if hand.can_hold(CODE[c][v], pool):
                yield {"type": "play", "card": CODE[c][v]}
            if hand.can_hold(JOKER, pool) and self._joker_ok(seat, c, v):
                yield {"type": "play", "card": JOKER, "row": c, "value": v}
            return
        if self.played < LIMIT:
            frontier = self._frontier()
            for c, v in frontier:
                if hand.can_hold(CODE[c][v], pool):
                    yield {"type": "play", "card": CODE[c][v]}
            joker = hand.can_hold(JOKER, pool)
            if joker:
                for c, v in frontier:
                    if self._joker_ok(seat, c, v):
                        yield {"type": "play", "card": JOKER, "row": c, "value": v}
            if self.links_left[seat]:
                for a, b, v in self._link_gaps():
                    if self._link_ok(seat, b, v, joker):
                        yield {"type": "link", "from": a, "to": b, "value": v}
            if joker and self._discard_ok(seat):
                yield {"type": "discard_joker"}
        if self._board_jokers:
            for c, v in self._joker_positions():
                if hand.can_hold(CODE[c][v], pool) and self._exchange_ok(seat, CODE[c][v]):
                    yield {"type": "exchange", "card": CODE[c][v]}

    # -- protocol ---------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        p = self.phase
        if p == "deal":
            if self.table_mode:
                return [{"type": "deal", "rows": list(rows), "hands": None} for rows in permutations(COLOURS)]
            return []
        if p == "drawn":
            if self.table_mode:
                return [{"type": "drawn", "card": None}]
            return [{"type": "drawn", "card": c} for c in sorted(self.pool)]
        if p in ("reveal", "over"):
            return []
        seat = self.player
        acts = list(self._moves(seat))
        if self._fresh():
            if self.pile:
                acts.append({"type": "draw"})
            elif not self._known_playable(seat):
                acts.append({"type": "pass"})
        elif self._may_end():
            acts.append({"type": "end_turn"})
        return acts

    def _known_playable(self, seat: int) -> list[Card]:
        known = self.hands[seat].known
        return [c for c in self._reachable(seat) if known[c]]

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        handler = {
            "deal": self._deal,
            "drawn": self._drawn,
            "reveal": self._reveal,
            "play": self._play,
            "link": self._link,
            "exchange": self._exchange,
            "discard_joker": self._discard,
            "draw": self._draw,
            "end_turn": self._end_turn,
            "pass": self._pass,
        }.get(kind)
        if handler is None:
            raise MalformedAction(f"Action « {kind} » inconnue.", f"Unknown action '{kind}'.")
        extra = set(action) - ALLOWED_KEYS[kind] - {"type", "player"}
        if extra:
            field = sorted(extra)[0]
            raise MalformedAction(f"Champ « {field} » inattendu.", f"Unexpected field '{field}'.")
        chance = kind in ("deal", "drawn", "reveal")
        if chance != (self.current_player == CHANCE):
            raise IllegalMove("not-now", "Cette action n'est pas possible maintenant.",
                              "That action is not possible now.")
        handler(action)

    def _card(self, action: Mapping[str, Any], key: str = "card") -> Card:
        card = need(action, key, str)
        if card not in self.deck_count:
            if card == JOKER:
                raise IllegalMove("beginner", "Pas de Joker dans la variante débutants.",
                                  "There are no jokers in the beginner variant.")
            raise MalformedAction(f"« {card} » n'est pas une carte de ce jeu.", f"'{card}' is not a card of this game.")
        return card

    # chance events

    def _deal(self, action: Action) -> None:
        if self.phase != "deal":
            raise IllegalMove("not-now", "Les cartes sont déjà distribuées.", "The cards have been dealt.")
        rows = need(action, "rows", list)
        if sorted(r for r in rows if isinstance(r, str)) != sorted(COLOURS) or len(rows) != 4:
            raise MalformedAction("L'ordre des 11 : les quatre couleurs, chacune une fois.",
                                  "The order of the 11s: the four colours, each once.")
        if "hands" not in action:
            need(action, "hands", list)
        hands = action["hands"]
        if hands is None:
            if not self.table_mode:
                raise MalformedAction("Il faut les mains distribuées.", "The dealt hands are needed.")
        else:
            if not isinstance(hands, list) or len(hands) != self.players:
                raise MalformedAction("Une main par joueur.", "One hand per player.")
            wanted: Counter[Card] = Counter()
            for h in hands:
                if not isinstance(h, list) or len(h) != self.hand_size:
                    raise MalformedAction(f"{self.hand_size} cartes par main.", f"{self.hand_size} cards per hand.")
                wanted.update(self._card({"card": c}) for c in h)
            if wanted - self.pool:
                raise MalformedAction("Une carte est distribuée deux fois.", "A card is dealt twice.")
        self.rows = list(rows)
        for seat, hand in enumerate(self.hands):
            if hands is None:
                for _ in range(self.hand_size):
                    hand.add(None)
            else:
                for c in hands[seat]:
                    hand.add(c)
                    self.pool[c] -= 1
        self.pool = +self.pool
        self.pile -= self.hand_size * self.players
        self._start_turn(self.start_player)

    def _drawn(self, action: Action) -> None:
        if self.phase != "drawn":
            raise IllegalMove("not-now", "Personne ne pioche.", "Nobody is drawing.")
        if "card" not in action:
            need(action, "card", str)
        hand = self.hands[self.player]
        if action["card"] is None:
            if not self.table_mode:
                raise MalformedAction("Quelle carte a été piochée ?", "Which card was drawn?")
            hand.add(None)
        else:
            card = self._card(action)
            if not self.pool[card]:
                fr, en = _the(card)
                raise IllegalMove("not-in-pile", f"{fr.capitalize()} n'est pas dans la pioche.",
                                  f"{en.capitalize()} is not in the draw pile.")
            self._take_from_pool(card)
            hand.add(card)
        self.pile -= 1
        self._next_turn()

    def _take_from_pool(self, card: Card) -> None:
        self.pool[card] -= 1
        if not self.pool[card]:
            del self.pool[card]

    def _reveal(self, action: Action) -> None:
        if self.phase != "reveal":
            raise IllegalMove("not-now", "Les mains ne se montrent qu'en fin de manche.",
                              "Hands are shown only at the end of the round.")
        seat = need(action, "seat", int)
        shown = need(action, "cards", list)
        if not 0 <= seat < self.players or self.revealed[seat]:
            raise MalformedAction("Ce joueur n'a rien à montrer.", "That player has nothing to show.")
        hand = self.hands[seat]
        shown_cards = Counter(self._card({"card": c}) for c in shown)
        if sum(shown_cards.values()) != len(hand):
            raise IllegalMove("reveal-count", f"Le joueur {seat + 1} devait avoir {len(hand)} cartes.",
                              f"Player {seat + 1} should hold {len(hand)} cards.")
        if hand.known - shown_cards:
            raise IllegalMove("reveal-known", "Une carte connue de cette main manque.",
                              "A card known to be in this hand is missing.")
        extra = shown_cards - hand.known
        if extra - self.pool:
            raise IllegalMove("reveal-impossible", "Une de ces cartes est déjà ailleurs sur la table.",
                              "One of these cards is already elsewhere on the table.")
        self.pool -= extra
        hand.known = shown_cards
        hand.unknown = 0
        for claim in self.claims:
            if claim.player == seat:
                claim.status = verify_claim(claim, hand, shown_cards.elements())
        self.revealed[seat] = True
        self._next_reveal()

    # player actions

    def _play(self, action: Action) -> None:
        card = self._card(action)
        if card == JOKER:
            colour, value = _colour(action, "row"), _value(action)
        else:
            colour, value = PARSED[card]
            self._check_own_place(action, card)
        self._check_turn_open()
        seat = self.player
        self._check_in_hand(seat, card)
        self._check_fits(colour, value, card)
        if card == JOKER and not self._joker_ok(seat, colour, value):
            raise self._promise_broken()
        self.hands[seat].remove(card, self.pool)
        if card == JOKER:
            self.jokers += 1
            self._board_jokers += 1
            self.board[colour][value] = JOKER_HERE
        else:
            self.numbers += 1
            self.board[colour][value] = NUMBER
        self.pending = None
        self.passes = 0
        self._maybe_bonus(seat, colour, value)
        self._after_card(seat)

    def _check_own_place(self, action: Action, card: Card) -> None:
        """A number card goes to its own place: `row`/`value` are only for a joker."""
        colour, value = PARSED[card]
        if "row" in action:
            row = _colour(action, "row")
            if row != colour:
                raise IllegalMove(
                    "wrong-colour",
                    f"Le {cards.name(card, 'fr')} ne va pas dans {_row_name(row, 'fr')} : une rangée ne prend que "
                    "des cartes de la couleur de son 11.",
                    f"The {cards.name(card)} cannot go into {_row_name(row)}: a row takes only cards of the "
                    "colour of its 11.",
                )
        if "value" in action:
            if _value(action) != value:
                raise IllegalMove("wrong-place", f"Le {cards.name(card, 'fr')} va à la place du {value}.",
                                  f"The {cards.name(card)} goes in the place of the {value}.")
        if "row" in action or "value" in action:
            raise MalformedAction("La rangée et la position ne se donnent que pour un Joker.",
                                  "Row and value are given only for a joker.")

    def _check_turn_open(self) -> None:
        if self.played >= LIMIT:
            raise IllegalMove("limit", "Quatre cartes sont déjà jouées ce tour-ci.",
                              "Four cards have already been played this turn.")

    def _check_in_hand(self, seat: int, card: Card) -> None:
        if not self.hands[seat].can_hold(card, self.pool):
            if card == JOKER:
                raise IllegalMove("not-in-hand", "Il n'y a pas de Joker dans cette main.",
                                  "There is no joker in this hand.")
            fr, en = _the(card)
            raise IllegalMove("not-in-hand", f"{fr.capitalize()} n'est pas dans cette main.",
                              f"{en.capitalize()} is not in this hand.")

    def _check_fits(self, colour: str, value: int, card: Card) -> None:
        if self._fits(colour, value):
            return
        target = CODE[colour][value]
        if card == JOKER:
            what_fr, what_en = f"Un Joker pour le {cards.name(target, 'fr')}", f"A joker for the {cards.name(target)}"
        else:
            what_fr, what_en = f"Le {cards.name(card, 'fr')}", f"The {cards.name(card)}"
        if self.pending is not None:
            pc, pv = self.pending
            p = CODE[pc][pv]
            raise IllegalMove(
                "complete-link",
                f"Il faut d'abord compléter la carte Liaison : poser le {cards.name(p, 'fr')} ou un Joker à sa place.",
                f"The link must be completed first: play the {cards.name(p)} or a joker in its place.",
            )
        if self.board[colour][value]:
            raise IllegalMove("occupied", f"La place du {cards.name(target, 'fr')} est déjà prise.",
                              f"The place of the {cards.name(target)} is already taken.")
        lower = CODE[colour][value - 1] if value > 1 else ""
        upper = CODE[colour][value + 1] if value < 21 else ""
        nfr = " ou le ".join(cards.name(c, "fr") for c in (lower, upper) if c)
        nen = " or the ".join(cards.name(c) for c in (lower, upper) if c)
        raise IllegalMove(
            "no-neighbour",
            f"{what_fr} ne va pas : il manque le {nfr} à côté (une carte Liaison ne remplace pas un nombre "
            "dans une rangée).",
            f"{what_en} does not fit: the {nen} is missing beside it (a link card never fills a gap in a row).",
        )

    def _maybe_bonus(self, seat: int, colour: str, value: int) -> None:
        """Filling the last gap of a half row earns a bonus card while the supply lasts."""
        if not self.bonus_supply:
            return
        b = self.board[colour]
        half = HALVES[0] if value < 11 else HALVES[1]
        if all(b[v] for v in half):
            self.bonus_supply -= 1
            self.bonus[seat] += 1

    def _link(self, action: Action) -> None:
        a, b, value = _colour(action, "from"), _colour(action, "to"), _value(action)
        if self.beginner:
            raise IllegalMove("beginner", "Pas de cartes Liaison dans la variante débutants.",
                              "There are no link cards in the beginner variant.")
        self._check_link(a, b, value)
        seat = self.player
        self.links_left[seat] -= 1
        self.links.append((a, b, value))
        self.pending = (b, value)
        self.passes = 0

    def _check_link(self, a: str, b: str, value: int) -> None:
        seat = self.player
        here, there = CODE[a][value], CODE[b][value]
        if not self.links_left[seat]:
            raise IllegalMove("no-link-card", "Tu n'as plus de carte Liaison.", "You have no link card left.")
        if self.pending is not None:
            raise IllegalMove("complete-link", "Il faut d'abord compléter la carte Liaison déjà posée.",
                              "The link already laid must be completed first.")
        if b not in self._neighbours(a):
            raise IllegalMove(
                "not-neighbours",
                f"Une carte Liaison relie seulement deux rangées voisines : {_row_name(a, 'fr')} et "
                f"{_row_name(b, 'fr')} ne se touchent pas.",
                f"A link card joins only neighbouring rows: {_row_name(a)} and {_row_name(b)} are not next "
                "to each other.",
            )
        if not self.board[a][value]:
            raise IllegalMove("link-from-empty",
                              f"Une carte Liaison part d'une carte posée : la place du {cards.name(here, 'fr')} "
                              "est vide.",
                              f"A link starts from a card on the table: the place of the {cards.name(here)} "
                              "is empty.")
        if self.board[b][value]:
            raise IllegalMove("link-to-occupied", f"La place du {cards.name(there, 'fr')} est déjà prise.",
                              f"The place of the {cards.name(there)} is already taken.")
        if self.played >= LIMIT:
            raise IllegalMove("limit", f"La carte Liaison doit être complétée par le {cards.name(there, 'fr')}, "
                              "mais quatre cartes sont déjà jouées.",
                              f"The link must be completed with the {cards.name(there)}, but four cards have "
                              "already been played.")
        hand = self.hands[seat]
        joker = hand.can_hold(JOKER, self.pool)
        if (hand.can_hold(there, self.pool) or joker) and not self._link_ok(seat, b, value, joker):
            raise self._promise_broken()
        if not (hand.can_hold(there, self.pool) or joker):
            raise IllegalMove("link-incomplete",
                              f"Il faut poser aussitôt le {cards.name(there, 'fr')} ou un Joker au bout de la "
                              "carte Liaison : sans eux, pas de liaison.",
                              f"The {cards.name(there)} or a joker must be played at once at the end of the link: "
                              "without one, no link.")

    @staticmethod
    def _promise_broken() -> IllegalMove:
        return IllegalMove(
            "exchange-needs-card",
            "Le Joker échangé oblige à poser une autre carte Nombre ce tour-ci : garde-lui une place.",
            "The exchanged joker requires another number card this turn: keep room for it.",
        )

    def _exchange(self, action: Action) -> None:
        card = self._card(action)
        if card == JOKER:
            raise IllegalMove("exchange-joker", "On échange un Joker contre la carte Nombre qu'il remplace.",
                              "A joker is exchanged for the number card it stands for.")
        colour, value = PARSED[card]
        seat = self.player
        if self.board[colour][value] != JOKER_HERE:
            raise IllegalMove("no-joker-there", f"Aucun Joker ne tient la place du {cards.name(card, 'fr')}.",
                              f"No joker stands for the {cards.name(card)}.")
        self._check_in_hand(seat, card)
        if not self._exchange_ok(seat, card):
            if self.pending is not None:
                raise IllegalMove("complete-link", "Il faut d'abord compléter la carte Liaison.",
                                  "The link must be completed first.")
            raise IllegalMove(
                "exchange-needs-card",
                "Un Joker ne s'échange qu'en posant au moins une autre carte dans le même tour, dans la limite "
                "de 4 cartes.",
                "A joker can be exchanged only by playing at least one other card in the same turn, within "
                "the limit of 4 cards.",
            )
        hand = self.hands[seat]
        hand.remove(card, self.pool)
        hand.add(JOKER)
        self.board[colour][value] = NUMBER
        self._board_jokers -= 1
        self.exchanges += 1
        self.passes = 0
        self._after_card(seat)

    def _discard(self, action: Action) -> None:
        seat = self.player
        if self.beginner:
            raise IllegalMove("beginner", "Pas de Joker dans la variante débutants.",
                              "There are no jokers in the beginner variant.")
        self._check_in_hand(seat, JOKER)
        if not self._discard_ok(seat):
            if self.pending is not None:
                raise IllegalMove("complete-link", "Il faut d'abord compléter la carte Liaison.",
                                  "The link must be completed first.")
            self._check_turn_open()
            if self._promise_open():
                raise self._promise_broken()
            if len(self.hands[seat]) == 1 and not self.options["discard_last_ends"]:
                raise IllegalMove("discard-last", "On ne termine pas la manche en défaussant son dernier Joker.",
                                  "The round cannot be ended by discarding one's last joker.")
            raise IllegalMove("discard-only", "Un tour ne peut pas se limiter à défausser un Joker.",
                              "A turn cannot consist only of discarding a joker.")
        self.hands[seat].remove(JOKER, self.pool)
        self.box += 1
        self.discards += 1
        self.passes = 0
        self._after_card(seat)

    def _draw(self, action: Action) -> None:
        if self.phase != "play" or not self._fresh():
            raise IllegalMove("no-draw", "On pioche seulement au lieu de jouer.", "You draw only instead of playing.")
        if not self.pile:
            raise IllegalMove("pile-empty", "La pioche est vide.", "The draw pile is empty.")
        self.passes = 0
        self.phase = "drawn"
        self.current_player = CHANCE

    def _pass(self, action: Action) -> None:
        if not self._fresh():
            raise IllegalMove("no-pass", "Tu as déjà joué : termine ton tour.", "You have played: end your turn.")
        if self.pile:
            raise IllegalMove("must-draw", "La pioche n'est pas vide : pose des cartes ou pioche.",
                              "The draw pile is not empty: play cards or draw.")
        playable = self._known_playable(self.player)
        if playable:
            names_fr = ", ".join(cards.name(c, "fr") for c in playable)
            names_en = ", ".join(cards.name(c) for c in playable)
            raise IllegalMove("must-play", f"La pioche est vide et tu peux poser ({names_fr}) : il faut jouer.",
                              f"The draw pile is empty and you can play ({names_en}): you must play.")
        if self.table_mode:
            hand = self.hands[self.player]
            self.claims.append(Claim(self.player, len(hand.log), sorted(self._reachable(self.player)),
                                     CANNOT_PLAY_PASS))
        self.passes += 1
        if self.passes >= self.players:
            self._end_round()  # GUESS 2.8 #6: a full circle of passes
        else:
            self._next_turn()

    def _end_turn(self, action: Action) -> None:
        if self.pending is not None:
            raise IllegalMove("complete-link", "Il faut d'abord compléter la carte Liaison.",
                              "The link must be completed first.")
        if self.exchanges and self._others() < 1:
            raise IllegalMove("exchange-needs-card",
                              "Le Joker échangé oblige à poser une autre carte avant de finir le tour.",
                              "After exchanging a joker another card must be played before the turn ends.")
        if self._counted() < 1:
            raise IllegalMove("must-play", "Il faut d'abord jouer au moins une carte (ou piocher).",
                              "You must play at least one card first (or draw).")
        self._next_turn()

    # turn flow

    def _after_card(self, seat: int) -> None:
        """A hand card left the hand: the round or the turn may be over."""
        if not len(self.hands[seat]):
            self.winner = seat
            self._end_round()
        elif self._may_end() and next(self._moves(seat), None) is None:
            self._next_turn()  # nothing more can be done this turn

    def _start_turn(self, seat: int) -> None:
        self.player = seat
        self.current_player = seat
        self.phase = "play"
        self._reset_turn()
        self.turns += 1

    def _next_turn(self) -> None:
        self._start_turn((self.player + 1) % self.players)

    def _end_round(self) -> None:
        if self.table_mode and any(len(h) for h in self.hands):
            self.phase = "reveal"
            self.current_player = CHANCE
            self.revealed = [not len(h) or not h.unknown for h in self.hands]
            for seat, done in enumerate(self.revealed):
                if done:
                    self._settle_claims(seat)
            self._next_reveal()
        else:
            self.phase = "over"
            self.current_player = TERMINAL

    def _settle_claims(self, seat: int) -> None:
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
            rows = list(COLOURS)
            rng.shuffle(rows)
            deck = sorted(self.pool.elements())
            rng.shuffle(deck)
            n = self.hand_size
            return {"type": "deal", "rows": rows,
                    "hands": [sorted(deck[i * n:(i + 1) * n]) for i in range(self.players)]}
        if self.phase == "drawn":
            return {"type": "drawn", "card": rng.choice(sorted(self.pool.elements()))}
        raise ValueError(f"no chance event to sample in phase {self.phase!r}")

    def redact(self, action: Action) -> Action:
        if action["type"] == "deal":
            return {"type": "deal", "rows": list(action["rows"]), "hands": None}
        if action["type"] == "drawn":
            return {"type": "drawn", "card": None}
        return action

    # -- scores, views, checks ---------------------------------------------------------------

    def scores(self) -> list[int]:
        if self.is_over and self.passes >= self.players and not self.options["deadlock_scores"]:
            return [0] * self.players  # a void round
        if self.beginner and not self.options["beginner_scores"]:
            return [1 if self.is_over and seat == self.winner else 0 for seat in range(self.players)]
        return [11 * self.bonus[seat] - sum(VALUE[c] * n for c, n in h.known.items())
                for seat, h in enumerate(self.hands)]

    def _board_view(self) -> dict[str, Any]:
        rows = []
        for c in self.rows:
            b = self.board[c]
            rows.append({"colour": c, "positions": {
                str(v): (CODE[c][v] if b[v] == NUMBER else JOKER) for v in VALUES if b[v]}})
        return {
            "rows": rows,
            "links": [{"from": a, "to": b, "value": v} for a, b, v in self.links],
            "jokers": [{"row": c, "value": v, "stands_for": CODE[c][v]} for c, v in self._joker_positions()],
            "bonus_supply": self.bonus_supply,
            "links_left": list(self.links_left),
            "bonus": list(self.bonus),
            "box": self.box,
        }

    def view(self, player: int | None) -> dict[str, Any]:
        pending = None if self.pending is None else {"row": self.pending[0], "value": self.pending[1]}
        return {
            "game": INFO.id,
            "variant": self.variant,
            "players": self.players,
            "table_mode": self.table_mode,
            "phase": self.phase,
            "current_player": self.current_player if self.current_player >= 0 else None,
            "turn_player": self.player,
            "is_over": self.is_over,
            # Live scores would tell what the other hands hold: shown once the round is over.
            "scores": self.scores() if self.is_over else None,
            "bonus_points": [11 * b for b in self.bonus],
            "winners": self.winners() if self.is_over else [],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": self.hands[player].cards() if player is not None else None,
            "pile": self.pile,
            "board": self._board_view(),
            "turn": {"played": self.played, "limit": LIMIT, "numbers": self.numbers, "jokers": self.jokers,
                     "discards": self.discards, "exchanges": self.exchanges, "pending_link": pending,
                     "may_end": self.phase == "play" and self._may_end()},
            "claims": [c.to_json() for c in self.claims],
        }

    def _to_json(self) -> dict[str, Any]:
        return {
            "rows": list(self.rows),
            "board": {c: list(self.board[c]) for c in COLOURS},
            "links": [list(x) for x in self.links],
            "links_left": list(self.links_left),
            "bonus": list(self.bonus),
            "bonus_supply": self.bonus_supply,
            "box": self.box,
            "hands": [h.to_json() for h in self.hands],
            "pool": sorted(self.pool.elements()),
            "pile": self.pile,
            "phase": self.phase,
            "player": self.player,
            "numbers": self.numbers,
            "jokers": self.jokers,
            "discards": self.discards,
            "exchanges": self.exchanges,
            "pending": list(self.pending) if self.pending is not None else None,
            "passes": self.passes,
            "winner": self.winner,
            "revealed": list(self.revealed),
        }

    def _load_json(self, obj: Mapping[str, Any]) -> None:
        self.rows = [str(c) for c in obj["rows"]]
        if sorted(self.rows) != sorted(COLOURS):
            raise ValueError("rows must be the four colours")
        self.board = {c: [int(x) for x in obj["board"][c]] for c in COLOURS}
        if any(len(b) != 23 for b in self.board.values()):
            raise ValueError("a row has 21 positions and two sentinels")
        self.links = [(str(a), str(b), int(v)) for a, b, v in obj["links"]]
        self.links_left = [int(x) for x in obj["links_left"]]
        self.bonus = [int(x) for x in obj["bonus"]]
        self.bonus_supply = int(obj["bonus_supply"])
        self.box = int(obj["box"])
        self.hands = [Hand.from_json(h) for h in obj["hands"]]
        if not len(self.hands) == len(self.links_left) == len(self.bonus) == self.players:
            raise ValueError("one hand, link count and bonus count per player")
        self.pool = Counter(obj["pool"])
        self.pile = int(obj["pile"])
        self.phase = str(obj["phase"])
        self.player = int(obj["player"])
        self.numbers = int(obj["numbers"])
        self.jokers = int(obj["jokers"])
        self.discards = int(obj["discards"])
        self.exchanges = int(obj["exchanges"])
        pending = obj["pending"]
        self.pending = None if pending is None else (str(pending[0]), int(pending[1]))
        self.passes = int(obj["passes"])
        self.winner = obj["winner"]
        self.revealed = [bool(r) for r in obj["revealed"]]
        self._board_jokers = sum(b.count(JOKER_HERE) for b in self.board.values())

    def check_invariants(self) -> list[str]:
        errors: list[str] = []
        placed: Counter[Card] = Counter()
        for c in COLOURS:
            b = self.board[c]
            if b[0] or b[22] or b[11] != NUMBER or any(x not in (EMPTY, NUMBER, JOKER_HERE) for x in b):
                errors.append(f"row {c} is broken: {b}")
            for v in VALUES:
                if v != 11 and b[v]:
                    placed[CODE[c][v] if b[v] == NUMBER else JOKER] += 1
        if self._board_jokers != placed[JOKER]:
            errors.append(f"joker count {self._board_jokers} != jokers on the board {placed[JOKER]}")
        placed[JOKER] += self.box
        held: Counter[Card] = Counter()
        for h in self.hands:
            held.update(h.known)
        everywhere = placed + held + self.pool
        if everywhere != self.deck_count:
            missing = self.deck_count - everywhere
            twice = everywhere - self.deck_count
            errors.append(f"cards not in exactly one place: missing {sorted(missing)}, extra {sorted(twice)}")
        unknown = sum(h.unknown for h in self.hands)
        if sum(self.pool.values()) != self.pile + unknown:
            errors.append(f"pool {sum(self.pool.values())} != pile {self.pile} + unknown {unknown}")
        if not self.table_mode and unknown:
            errors.append("unknown cards in a simulated game")
        if self.phase != "deal":
            total = sum(len(h) for h in self.hands) + self.pile + sum(placed.values())
            if total != len(self.deck):
                errors.append(f"hands, pile, board and box hold {total} cards, not {len(self.deck)}")
        errors += self._check_turn()
        errors += self._check_links()
        errors += self._check_bonus()
        if self.phase == "over" and self.winner is not None and len(self.hands[self.winner]):
            errors.append("the winner has cards left")
        return errors

    def _check_turn(self) -> list[str]:
        errors = []
        if self.played > LIMIT:
            errors.append(f"{self.played} hand cards played this turn (limit {LIMIT})")
        if self.pending is not None and self.phase != "play":
            errors.append("a link awaits its card outside a turn")
        if self.pending is not None and (not self.links or self.links[-1][1:] != self.pending):
            errors.append("the pending link is not the last link laid")
        if self.beginner and (self.jokers or self.discards or self.exchanges or self.links or self.box):
            errors.append("jokers or links used in the beginner variant")
        return errors

    def _check_links(self) -> list[str]:
        errors = []
        if len(self.links) + sum(self.links_left) != self.links_dealt * self.players:
            errors.append("link cards laid and in front of the players do not add up")
        if any(n < 0 for n in self.links_left):
            errors.append("a negative link count")
        gaps = set()
        for a, b, v in self.links:
            if b not in self._neighbours(a):
                errors.append(f"link {a}->{b} at {v} joins rows that are not neighbours")
            if not self.board[a][v] or (not self.board[b][v] and self.pending != (b, v)):
                errors.append(f"link {a}->{b} at {v} does not join two occupied positions")
            gap = (frozenset((a, b)), v)
            if gap in gaps:
                errors.append(f"two links at the same gap {a}/{b} {v}")
            gaps.add(gap)
        return errors

    def _check_bonus(self) -> list[str]:
        errors = []
        if sum(self.bonus) + self.bonus_supply != self.bonus_total or self.bonus_supply < 0:
            errors.append("bonus cards won and in the supply do not add up")
        complete = sum(all(self.board[c][v] for v in half) for c in COLOURS for half in HALVES)
        if not self.beginner and sum(self.bonus) != min(self.bonus_total, complete):
            errors.append(f"{sum(self.bonus)} bonus cards handed out for {complete} complete halves")
        return errors

    def describe(self, action: Action, lang: str = "en") -> str:
        fr = lang == "fr"
        kind = action.get("type")
        who = f"{'Joueur' if fr else 'Player'} {self.player + 1}"
        if kind == "deal":
            rows = action.get("rows") or self.rows
            if fr:
                return "Les 11 sont posés (de haut en bas : " + ", ".join(_colour_fr(r) for r in rows) \
                    + ") et les cartes distribuées"
            return "The 11s are laid out (top to bottom: " + ", ".join(rows) + ") and the cards dealt"
        if kind == "drawn":
            card = action.get("card")
            if card is None:
                return f"{who} pioche une carte" if fr else f"{who} draws a card"
            return f"{who} pioche {_the(card)[0]}" if fr else f"{who} draws {_the(card)[1]}"
        if kind == "reveal":
            seat = action.get("seat", 0) + 1
            shown = ", ".join(_name(c, lang) for c in action.get("cards", []))
            return f"Joueur {seat} montre : {shown or 'rien'}" if fr else f"Player {seat} shows: {shown or 'nothing'}"
        if kind == "play":
            return self._describe_play(action, who, fr)
        if kind == "link":
            a, b, v = action.get("from", ""), action.get("to", ""), action.get("value", 0)
            if fr:
                return f"{who} pose une carte Liaison du {v} {_colour_fr(a)} vers {_row_name(b, 'fr')}"
            return f"{who} lays a link from the {a} {v} to the {b} row"
        if kind == "exchange":
            card = action.get("card", "")
            if fr:
                return f"{who} pose le {cards.name(card, 'fr')} à la place du Joker et reprend le Joker"
            return f"{who} puts the {cards.name(card)} in place of the joker and takes the joker back"
        if kind == "discard_joker":
            return f"{who} remet un Joker dans la boîte" if fr else f"{who} puts a joker back in the box"
        if kind == "draw":
            return f"{who} pioche" if fr else f"{who} draws"
        if kind == "pass":
            return f"{who} ne peut pas jouer et passe" if fr else f"{who} cannot play and passes"
        if kind == "end_turn":
            return f"{who} termine son tour" if fr else f"{who} ends the turn"
        return str(action)

    def _describe_play(self, action: Action, who: str, fr: bool) -> str:
        card = action.get("card", "")
        if card == JOKER:
            row, value = action.get("row"), action.get("value")
            target = CODE[row][value] if row in CODE and value in VALUES else "?"
            if fr:
                return f"{who} pose un Joker à la place du {cards.name(target, 'fr')}"
            return f"{who} plays a joker as the {cards.name(target)}"
        return f"{who} pose le {cards.name(card, 'fr')}" if fr else f"{who} plays the {cards.name(card)}"

    def greedy_key(self, action: Action) -> float:
        kind = action["type"]
        if kind == "play":
            card = action["card"]
            colour, value = (action["row"], action["value"]) if card == JOKER else PARSED[card]
            bonus = 40 if self.bonus_supply and self._completes_half(colour, value) else 0
            # Dump the costliest number cards first; keep jokers for the gaps nobody can fill.
            return bonus + (5 if card == JOKER else 20 + VALUE[card])
        if kind == "exchange":
            return 18.0
        if kind == "link":
            there = CODE[action["to"]][action["value"]]
            return 15.0 if self.hands[self.player].known[there] else 3.0
        if kind == "discard_joker":
            return 2.0
        if kind == "end_turn":
            return 1.0
        return 0.0

    def _completes_half(self, colour: str, value: int) -> bool:
        b = self.board[colour]
        half = HALVES[0] if value < 11 else HALVES[1]
        return all(b[v] or v == value for v in half)

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        kind = obs.get("kind")
        if kind == "number":
            card = cards.from_observation(dict(obs))
            return card if card in PARSED else None
        if self.beginner:
            return None
        return {"joker": JOKER, "link": LINK, "bonus": BONUS}.get(str(kind))


GAME = register(GameDef(INFO, ElevensState))
