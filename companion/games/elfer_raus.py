"""Elfer raus! (`elfer-raus`): the classic 80-card game, four rows grown outward from the 11s.

Rules: RULES.md sections 3.3-3.5 (seed 002, second part). 4 colours x values 1-20; deal
table 20/20/15/12/10 cards for 2-6 players, the rest is the draw pile. The holder of the
red 11 opens with it (else the yellow, green, blue 11; no 11 dealt: deal again) and that
11 is their whole turn. A new row opens only with an 11 of a colour not yet on the table;
a row grows down to 1 and up to 20 without gaps. A player who can play must play at least
one card and may play more or hold cards back; a player who cannot draws up to 3 cards,
playing the first that fits at once (which ends the turn). Pile empty and nothing fits:
pass. The round ends when a hand is empty; the others score the values left in hand
(penalties); lowest match total wins.

Variants (RULES.md 3.4): `extremes` (the 1s and 20s lie out, rows grow inward, the start
player begins), `three-openings` (rows open with a 10, 11 or 12), `free-opening` (a random
start player opens with any value v0; every further row opens with a v0).

Actions:
  chance  {"type": "deal", "hands": [[card, ...], ...] | null}
          {"type": "open", "seat": s, "card": "R11"}      (base game: who lays which 11)
          {"type": "redeal"}                              (base game: nobody holds an 11)
          {"type": "choose_start", "seat": s}             (free-opening: the drawn start player)
          {"type": "drawn", "card": card | null}
          {"type": "reveal", "seat": s, "cards": [card, ...]}        (table mode, round end)
  player  {"type": "play", "card": "R12"}  (the card's colour and value say where it goes)
          {"type": "draw"}, {"type": "end_turn"}, {"type": "pass"}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
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
    id="elfer-raus",
    name=Text("Elfer raus! (Elevens)", "Elfer raus! (Elevens)"),
    min_players=2,
    max_players=6,
    variants=(
        Variant(
            "extremes",
            Text("Les extrêmes", "The extremes"),
            Text(
                "Les 1 et les 20 sont posés dès le départ ; les rangées montent depuis le 1 et descendent "
                "depuis le 20 ; le 11 est une carte ordinaire.",
                "The 1s and 20s lie out from the start; rows grow up from the 1 and down from the 20; "
                "the 11 is an ordinary card.",
            ),
        ),
        Variant(
            "three-openings",
            Text("Les trois ouvertures", "Three openings"),
            Text(
                "Une rangée s'ouvre avec le 10, le 11 ou le 12 de sa couleur ; le premier joueur commence.",
                "A row opens with the 10, 11 or 12 of its colour; the start player begins.",
            ),
        ),
        Variant(
            "free-opening",
            Text("L'ouverture libre", "Free opening"),
            Text(
                "Le premier joueur est tiré au sort et ouvre avec la carte de son choix ; chaque autre rangée "
                "s'ouvre avec une carte de la même valeur.",
                "The start player is drawn by lot and opens with any card; every other row opens with a card "
                "of the same value.",
            ),
        ),
    ),
    options=(
        Option(
            "deadlock_end",
            True,
            Text(
                "Pioche vide et personne ne peut jouer : la manche s'arrête après un tour de table de passes.",
                "Draw pile empty and nobody can play: the round ends after a full circle of passes.",
            ),
            guess=True,
        ),
        Option(
            "opening_card_only",
            False,
            Text(
                "Variantes trois ouvertures et ouverture libre : le premier tour ne comporte que la carte "
                "d'ouverture (le jeu de base garde toujours « seulement le 11 »).",
                "Three-openings and free-opening variants: the first turn is only the opening card (the base "
                "game always keeps 'only the 11').",
            ),
            guess=True,
        ),
        Option(
            "two_player_colours",
            4,
            Text(
                "À 2 joueurs : jouer avec 4 couleurs (80 cartes) ou 3 couleurs (60 cartes).",
                "Two players: play with 4 colours (80 cards) or 3 colours (60 cards).",
            ),
            choices=(4, 3),
        ),
        Option(
            "removed_colour",
            "blue",
            Text(
                "Partie à 60 cartes : la couleur laissée dans la boîte.",
                "60-card game: the colour left in the box.",
            ),
            choices=("blue", "yellow", "red", "green"),
            guess=True,
        ),
        Option(
            "short_deck_hand",
            20,
            Text(
                "Partie à 60 cartes : cartes distribuées à chaque joueur.",
                "60-card game: cards dealt to each player.",
            ),
            choices=(20, 15),
            guess=True,
        ),
        Option(
            "extremes_deal",
            "table",
            Text(
                "Les extrêmes : distribuer selon la table habituelle (« table ») sur les 72 cartes restantes, "
                "ou donner moins de cartes pour garder la pioche du jeu de base (« pile »).",
                "The extremes: deal by the usual table ('table') from the remaining 72 cards, or deal fewer "
                "cards to keep the base game's draw pile ('pile').",
            ),
            choices=("table", "pile"),
            guess=True,
        ),
    ),
    winner="lowest",
    hidden_hands=True,
    start_rule="cards",
)

BASE, EXTREMES, THREE, FREE = None, "extremes", "three-openings", "free-opening"
TOP = 20
DEAL = {2: 20, 3: 20, 4: 15, 5: 12, 6: 10}  # RULES.md 3.3
PRIORITY = ("red", "yellow", "green", "blue")  # who opens: the holder of the red 11, else ...
MAX_DRAWS = 3
ROW_FR = {"yellow": "jaune", "red": "rouge", "blue": "bleue", "green": "verte"}  # "la rangée ..."

# card code tables: CODE[colour][value] and PARSED[code] = (colour, value)
CODE: dict[str, list[str]] = {c: [""] + [cards.code(c, v) for v in range(1, TOP + 1)] for c in cards.COLOURS}
PARSED: dict[str, tuple[str, int]] = {CODE[c][v]: (c, v) for c in cards.COLOURS for v in range(1, TOP + 1)}

CANNOT_PLAY = Text("Je ne peux pas jouer, je pioche.", "I cannot play, I draw.")
CANNOT_PLAY_DRAWN = Text("La carte piochée ne va nulle part.", "The drawn card does not fit.")
CANNOT_PLAY_PASS = Text("Je ne peux pas jouer et la pioche est vide : je passe.",
                        "I cannot play and the draw pile is empty: I pass.")


def fr(card: Card) -> str:
    return f"le {cards.name(card, 'fr')}"


def en(card: Card) -> str:
    return f"the {cards.name(card)}"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def value(card: Card) -> int:
    return PARSED[card][1]


class ElferRausState(State):
    info = INFO

    def __init__(self, players: int, variant: str | None = None, **kwargs: Any) -> None:
        super().__init__(players, variant, **kwargs)
        self.mode = variant
        self.colours = self._colours()
        self.deck = tuple(CODE[c][v] for c in self.colours for v in range(1, TOP + 1))
        # extremes: the 1s and 20s lie on the table before the deal
        self.laid = tuple(CODE[c][v] for c in self.colours for v in (1, TOP)) if variant == EXTREMES else ()
        self.hand_size = self._hand_size()
        # Each row as two numbers. Span variants: the row is low..high (0, 0 = not opened).
        # Extremes: the up-chain is 1..low and the down-chain high..20.
        self.low: dict[str, int] = {}
        self.high: dict[str, int] = {}
        self.start: dict[str, int] = {}  # the value each row was opened with (0: not opened)
        self.v0: int | None = None  # free-opening: the starting value
        self.hands = [Hand() for _ in range(players)]
        self.pool: Counter[Card] = Counter()  # cards whose place nobody has seen
        self.pile = 0
        self._reset_cards()
        self.phase = "deal"  # deal, open, choose_start, play, drawn, redraw, after_draw, reveal, over
        self.player = self.start_player  # whose turn it is (also during chance events)
        self.played = 0  # cards played this turn
        self.draws = 0  # cards drawn this turn
        self.drawn: Card | None = None  # the drawn card that fits and must be played, when known
        self.passes = 0  # consecutive passes (deadlock rule)
        self.winner: int | None = None
        self.revealed: list[bool] = [False] * players

    # -- setup ----------------------------------------------------------------------------

    def _colours(self) -> tuple[str, ...]:
        if self.options["two_player_colours"] == 4:
            return cards.COLOURS
        if self.players != 2:
            raise ValueError("the 60-card game (3 colours) is for two players")
        return tuple(c for c in cards.COLOURS if c != self.options["removed_colour"])

    def _hand_size(self) -> int:
        size = int(self.options["short_deck_hand"]) if len(self.colours) == 3 else DEAL[self.players]
        if self.mode == EXTREMES and self.options["extremes_deal"] == "pile":
            base_pile = len(self.deck) - size * self.players
            size = (len(self.deck) - len(self.laid) - base_pile) // self.players
        return size

    def _reset_cards(self) -> None:
        """Empty hands, the laid-out cards (extremes) on the table, everything else shuffled."""
        edge = self.mode == EXTREMES
        self.low = dict.fromkeys(self.colours, 1 if edge else 0)
        self.high = dict.fromkeys(self.colours, TOP if edge else 0)
        self.start = dict.fromkeys(self.colours, 0)
        self.v0 = None
        self.hands = [Hand() for _ in range(self.players)]
        self.pool = Counter(self.deck) - Counter(self.laid)
        self.pile = sum(self.pool.values())
        self._refresh()

    # -- geometry ---------------------------------------------------------------------------

    def _openers(self) -> tuple[int, ...]:
        """The values that may open a row of a colour not yet on the table."""
        if self.mode == THREE:
            return (10, 11, 12)
        if self.mode == FREE:
            return (self.v0,) if self.v0 else tuple(range(1, TOP + 1))
        return (11,)

    def _refresh(self) -> None:
        """Recompute the card identities that fit now (after every change of the rows)."""
        self._fit = self._compute_fit()
        self._fitset = frozenset(self._fit)

    def _compute_fit(self) -> list[Card]:
        fit: list[Card] = []
        if self.mode == EXTREMES:
            for c in self.colours:
                lo, hi = self.low[c], self.high[c]
                if lo + 1 < hi:
                    fit.append(CODE[c][lo + 1])
                    if hi - 1 > lo + 1:
                        fit.append(CODE[c][hi - 1])
        else:
            openers = self._openers()
            for c in self.colours:
                lo, hi = self.low[c], self.high[c]
                if lo:
                    if lo > 1:
                        fit.append(CODE[c][lo - 1])
                    if hi < TOP:
                        fit.append(CODE[c][hi + 1])
                else:
                    fit.extend(CODE[c][v] for v in openers)
        return fit

    def fitting(self) -> list[Card]:
        """Every card identity that would fit now."""
        return list(self._fit)

    def placed(self) -> list[Card]:
        """The cards on the table."""
        out = []
        for c in self.colours:
            lo, hi = self.low[c], self.high[c]
            if self.mode == EXTREMES:
                out += [CODE[c][v] for v in (*range(1, lo + 1), *range(hi, TOP + 1))]
            elif lo:
                out += [CODE[c][v] for v in range(lo, hi + 1)]
        return out

    def _place(self, card: Card) -> None:
        colour, v = PARSED[card]
        if self.mode != EXTREMES and not self.low[colour]:
            self.low[colour] = self.high[colour] = self.start[colour] = v
            if self.mode == FREE and self.v0 is None:
                self.v0 = v
        elif v == self.low[colour] + (1 if self.mode == EXTREMES else -1):
            self.low[colour] = v
        else:
            self.high[colour] = v
        self._refresh()

    def _playable_in_hand(self, seat: int) -> list[Card]:
        hand = self.hands[seat]
        if not hand.unknown:
            get = hand.known.get
            return [c for c in self._fit if get(c)]
        return [c for c in self._fit if hand.can_hold(c, self.pool)]

    def _surely_playable(self, seat: int) -> list[Card]:
        """Cards the player certainly could play: known fitting cards, or anything if every
        card the hidden part could be fits (the free opening)."""
        hand = self.hands[seat]
        get = hand.known.get
        known = [c for c in self._fit if get(c)]
        if known or not hand.unknown:
            return known
        fitset = self._fitset
        if all(c in fitset for c in self.pool):
            return self._playable_in_hand(seat)
        return []

    def _why_not(self, card: Card) -> IllegalMove:
        """The rule a card that does not fit breaks, in words naming the cards."""
        colour, v = PARSED[card]
        lo, hi = self.low[colour], self.high[colour]
        if self.mode == EXTREMES:
            rule = "no-skip"
            fr_text = (f"{cap(fr(card))} ne va pas encore : la rangée {ROW_FR[colour]} continue avec "
                       f"{fr(CODE[colour][lo + 1])} (après {fr(CODE[colour][lo])}) ou {fr(CODE[colour][hi - 1])} "
                       f"(avant {fr(CODE[colour][hi])}).")
            en_text = (f"{cap(en(card))} does not fit yet: the {colour} row continues with "
                       f"{en(CODE[colour][lo + 1])} (after {en(CODE[colour][lo])}) or {en(CODE[colour][hi - 1])} "
                       f"(before {en(CODE[colour][hi])}).")
        elif not lo:
            rule = "open-row"
            fr_text, en_text = self._opening_rule(card)
        elif v < lo:
            rule = "no-skip"
            fr_text = (f"{cap(fr(card))} ne va pas avant {fr(CODE[colour][lo])} : il faut d'abord "
                       f"{fr(CODE[colour][lo - 1])}.")
            en_text = (f"{cap(en(card))} cannot go below {en(CODE[colour][lo])}: {en(CODE[colour][lo - 1])} "
                       "comes first.")
        elif v > hi:
            rule = "no-skip"
            fr_text = (f"{cap(fr(card))} ne va pas après {fr(CODE[colour][hi])} : il faut d'abord "
                       f"{fr(CODE[colour][hi + 1])}.")
            en_text = (f"{cap(en(card))} cannot follow {en(CODE[colour][hi])}: {en(CODE[colour][hi + 1])} "
                       "comes first.")
        else:
            rule = "already-placed"
            fr_text, en_text = f"{cap(fr(card))} est déjà posé.", f"{cap(en(card))} is already on the table."
        beside = self._other_colour_neighbour(card)
        if beside:
            rule = "one-colour"
            fr_text = (f"{cap(fr(card))} ne va pas à côté du {cards.name(beside, 'fr')} : "
                       f"une rangée n'a qu'une couleur. {fr_text}")
            en_text = f"{cap(en(card))} cannot go beside {en(beside)}: a row holds one colour only. {en_text}"
        return IllegalMove(rule, fr_text, en_text)

    def _opening_rule(self, card: Card) -> tuple[str, str]:
        colour = PARSED[card][0]
        row_fr = f"la rangée {ROW_FR[colour]}"
        if self.mode == THREE:
            return (f"{cap(fr(card))} ne peut pas ouvrir {row_fr} : une rangée ne s'ouvre qu'avec un 10, un 11 ou "
                    "un 12.",
                    f"{cap(en(card))} cannot open the {colour} row: a row opens only with a 10, 11 or 12.")
        if self.mode == FREE:
            return (f"{cap(fr(card))} ne peut pas ouvrir {row_fr} : chaque rangée s'ouvre avec un {self.v0}, "
                    "la valeur de départ.",
                    f"{cap(en(card))} cannot open the {colour} row: every row opens with a {self.v0}, "
                    "the starting value.")
        return (f"{cap(fr(card))} ne peut pas ouvrir {row_fr} : une nouvelle rangée ne s'ouvre qu'avec un 11.",
                f"{cap(en(card))} cannot open the {colour} row: a new row opens only with an 11.")

    def _other_colour_neighbour(self, card: Card) -> Card | None:
        """The end card of another colour's row that this card's value would continue."""
        colour, v = PARSED[card]
        for c in self.colours:
            lo, hi = self.low[c], self.high[c]
            if c == colour or CODE[c][v] not in self._fitset:
                continue
            if self.mode == EXTREMES:
                return CODE[c][lo] if v == lo + 1 else CODE[c][hi]
            if lo:
                return CODE[c][lo] if v == lo - 1 else CODE[c][hi]
        return None

    # -- protocol ---------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        p = self.phase
        if p == "play":
            seat = self.player
            acts: list[Action] = [{"type": "play", "card": c} for c in self._playable_in_hand(seat)]
            if self.played:
                acts.append({"type": "end_turn"})
            elif not self._surely_playable(seat):
                acts.append({"type": "draw"} if self.pile else {"type": "pass"})
            return acts
        if p == "drawn":
            if self.table_mode:
                return [{"type": "drawn", "card": None}]
            return [{"type": "drawn", "card": c} for c in sorted(self.pool)]
        if p == "after_draw":
            if self.drawn is not None:
                return [{"type": "play", "card": self.drawn}]
            acts = [{"type": "play", "card": c} for c in self._playable_in_hand(self.player)]
            return acts + [{"type": "draw"} if self._may_draw_again() else {"type": "end_turn"}]
        if p == "redraw":
            return [{"type": "draw"}]
        if p == "deal":
            return [{"type": "deal", "hands": None}] if self.table_mode else []
        if p == "open":
            return self._open_outcomes()
        if p == "choose_start":
            return [{"type": "choose_start", "seat": s} for s in range(self.players)]
        return []  # reveal (the table says what each hand held), over

    def _open_outcomes(self) -> list[Action]:
        if not self.table_mode:
            return [self._expected_open()]
        out: list[Action] = []
        for card in self._elevens():
            if self._known_higher_eleven(card) is None:
                out += [{"type": "open", "seat": s, "card": card} for s in range(self.players)
                        if self.hands[s].can_hold(card, self.pool)]
        if self._known_eleven() is None:
            out.append({"type": "redeal"})
        return out

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        name = HANDLERS.get(kind)
        if name is None:
            raise MalformedAction(f"Action « {kind} » inconnue.", f"Unknown action '{kind}'.")
        if (kind in CHANCE_KINDS) != (self.current_player == CHANCE):
            raise IllegalMove("not-now", "Cette action n'est pas possible maintenant.",
                              "That action is not possible now.")
        getattr(self, name)(action)

    def card_of(self, action: Mapping[str, Any], key: str = "card") -> Card:
        card = need(action, key, str)
        if card not in PARSED or PARSED[card][0] not in self.colours:
            raise MalformedAction(f"« {card} » n'est pas une carte de ce jeu.",
                                  f"'{card}' is not a card of this game.")
        return card

    def _seat_of(self, action: Mapping[str, Any]) -> int:
        seat = need(action, "seat", int)
        if not 0 <= seat < self.players:
            raise MalformedAction(f"Il n'y a pas de joueur {seat + 1}.", f"There is no player {seat + 1}.")
        return seat

    # chance events

    def _deal(self, action: Action) -> None:
        if self.phase != "deal":
            raise IllegalMove("not-now", "Les cartes sont déjà distribuées.", "The cards have been dealt.")
        hands = action.get("hands")
        n = self.hand_size
        if hands is None:
            if not self.table_mode:
                raise MalformedAction("Il faut les mains distribuées.", "The dealt hands are needed.")
            for hand in self.hands:
                for _ in range(n):
                    hand.add(None)
        else:
            if not isinstance(hands, list) or len(hands) != self.players:
                raise MalformedAction("Une main par joueur.", "One hand per player.")
            wanted: Counter[Card] = Counter()
            for h in hands:
                if not isinstance(h, list) or len(h) != n:
                    raise MalformedAction(f"{n} cartes par main.", f"{n} cards per hand.")
                wanted.update(self.card_of({"card": c}) for c in h)
            if wanted - self.pool:
                raise MalformedAction("Une carte est distribuée deux fois (ou est déjà posée).",
                                      "A card is dealt twice (or lies on the table).")
            self.pool -= wanted
            for hand, h in zip(self.hands, hands, strict=True):
                for c in h:
                    hand.add(c)
        self.pile -= n * self.players
        if self.mode is BASE:
            self.phase = "open"  # the holder of the highest-priority 11 lays it
        elif self.mode == FREE:
            self.phase = "choose_start"
        else:
            self._start_turn(self.start_player)

    def _elevens(self) -> list[Card]:
        return [CODE[c][11] for c in PRIORITY if c in self.colours]

    def _known_higher_eleven(self, card: Card) -> tuple[int, Card] | None:
        """A hand known to hold an 11 that opens before `card`: (seat, that 11)."""
        for eleven in self._elevens():
            if eleven == card:
                return None
            for seat, hand in enumerate(self.hands):
                if hand.known[eleven]:
                    return seat, eleven
        return None

    def _known_eleven(self) -> tuple[int, Card] | None:
        for eleven in self._elevens():
            for seat, hand in enumerate(self.hands):
                if hand.known[eleven]:
                    return seat, eleven
        return None

    def _expected_open(self) -> Action:
        """Simulation: who opens, read from the dealt hands."""
        found = self._known_eleven()
        if found is None:
            return {"type": "redeal"}
        return {"type": "open", "seat": found[0], "card": found[1]}

    def _open(self, action: Action) -> None:
        if self.phase != "open":
            raise IllegalMove("not-now", "La partie est déjà ouverte.", "The game has been opened.")
        seat = self._seat_of(action)
        card = self.card_of(action)
        if value(card) != 11:
            raise IllegalMove("open-with-11", f"On ouvre la partie avec un 11, pas avec {fr(card)}.",
                              f"The game opens with an 11, not with {en(card)}.")
        hand = self.hands[seat]
        if not hand.can_hold(card, self.pool):
            raise IllegalMove("not-in-hand", f"Le joueur {seat + 1} n'a pas {fr(card)}.",
                              f"Player {seat + 1} does not hold {en(card)}.")
        higher = self._known_higher_eleven(card)
        if higher is not None:
            s, eleven = higher
            raise IllegalMove("open-priority", f"Le joueur {s + 1} a {fr(eleven)} : c'est lui qui ouvre.",
                              f"Player {s + 1} holds {en(eleven)}: they open.")
        if self.table_mode:
            self._claim_no_higher_eleven(card)
        hand.remove(card, self.pool)
        self._place(card)
        self.turns += 1  # the opener's turn is only this 11
        self.player = seat
        self._next_turn()

    def _claim_no_higher_eleven(self, card: Card) -> None:
        """Opening with this 11 says nobody held an 11 that comes before it."""
        higher = self._elevens()[: self._elevens().index(card)]
        if not higher:
            return
        names = Text(", ".join(fr(c) for c in higher), ", ".join(en(c) for c in higher))
        text = Text(f"Je n'avais pas {names.fr} quand {fr(card)} a ouvert la partie.",
                    f"I did not hold {names.en} when {en(card)} opened the game.")
        for seat, hand in enumerate(self.hands):
            self.claims.append(Claim(seat, len(hand.log), higher, text))

    def _redeal(self, action: Action) -> None:
        if self.phase != "open":
            raise IllegalMove("not-now", "On ne redistribue qu'après une donne sans 11.",
                              "Cards are dealt again only after a deal without an 11.")
        found = self._known_eleven()
        if found is not None:
            seat, eleven = found
            raise IllegalMove("redeal-has-11", f"Le joueur {seat + 1} a {fr(eleven)} : il ouvre la partie.",
                              f"Player {seat + 1} holds {en(eleven)}: they open the game.")
        self._reset_cards()
        self.phase = "deal"

    def _choose_start(self, action: Action) -> None:
        if self.phase != "choose_start":
            raise IllegalMove("not-now", "Le premier joueur est déjà tiré au sort.",
                              "The start player has been drawn already.")
        self._start_turn(self._seat_of(action))

    def _drawn(self, action: Action) -> None:
        if self.phase != "drawn":
            raise IllegalMove("not-now", "Personne ne pioche.", "Nobody is drawing.")
        card = action.get("card")
        hand = self.hands[self.player]
        if card is None:
            if not self.table_mode:
                raise MalformedAction("Quelle carte a été piochée ?", "Which card was drawn?")
        else:
            card = self.card_of(action)
            if not self.pool[card]:
                raise IllegalMove("not-in-pile", f"{cap(fr(card))} n'est pas dans la pioche.",
                                  f"{cap(en(card))} is not in the draw pile.")
            self.pool[card] -= 1
            if not self.pool[card]:
                del self.pool[card]
        hand.add(card)
        self.pile -= 1
        self.current_player = self.player
        if card is None:
            self.phase = "after_draw"  # the table cannot know whether it fits: the player says
        elif card in self._fitset:
            self.phase = "after_draw"
            self.drawn = card
        elif self._may_draw_again():
            self.phase = "redraw"
        else:
            self._next_turn()

    def _may_draw_again(self) -> bool:
        return self.draws < MAX_DRAWS and self.pile > 0

    def _reveal(self, action: Action) -> None:
        if self.phase != "reveal":
            raise IllegalMove("not-now", "Les mains ne se montrent qu'en fin de manche.",
                              "Hands are shown only at the end of the round.")
        seat = self._seat_of(action)
        shown = need(action, "cards", list)
        if self.revealed[seat]:
            raise IllegalMove("revealed", f"Le joueur {seat + 1} a déjà montré sa main.",
                              f"Player {seat + 1} has shown their hand already.")
        hand = self.hands[seat]
        shown_cards = Counter(self.card_of({"card": c}) for c in shown)
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
        self._settle_claims(seat)
        self.revealed[seat] = True
        self._next_reveal()

    # player actions

    def _play(self, action: Action) -> None:
        card = self.card_of(action)
        if self.phase == "redraw":
            raise IllegalMove("draw-again", "La carte piochée ne va pas : pioche encore (3 cartes au plus).",
                              "The drawn card does not fit: draw again (up to 3 cards).")
        if self.phase not in ("play", "after_draw"):
            raise IllegalMove("not-now", "Cette action n'est pas possible maintenant.",
                              "That action is not possible now.")
        if self.phase == "after_draw" and self.drawn is not None and card != self.drawn:
            raise IllegalMove("play-drawn", f"Il faut poser la carte piochée ({fr(self.drawn)}).",
                              f"The drawn card ({en(self.drawn)}) must be played.")
        seat = self.player
        hand = self.hands[seat]
        if not hand.can_hold(card, self.pool):
            raise IllegalMove("not-in-hand", f"{cap(fr(card))} n'est pas dans cette main.",
                              f"{cap(en(card))} is not in this hand.")
        if card not in self._fitset:
            raise self._why_not(card)
        first_card = not self.placed_any()
        hand.remove(card, self.pool)
        self._place(card)
        self.played += 1
        self.passes = 0
        if not len(hand):
            self.winner = seat
            self._end_round()
        elif self.phase == "after_draw":
            self._next_turn()  # a drawn card that fits is played at once and ends the turn
        elif first_card and self.options["opening_card_only"]:
            self._next_turn()
        elif not self._playable_in_hand(seat):
            self._next_turn()

    def placed_any(self) -> bool:
        return any(self.start.values()) if self.mode != EXTREMES else True

    def _draw(self, action: Action) -> None:
        if self.phase == "redraw":
            self.draws += 1
            self.phase = "drawn"
            self.current_player = CHANCE
            return
        if self.phase == "after_draw":
            if self.drawn is not None:
                raise IllegalMove("play-drawn", f"La carte piochée ({fr(self.drawn)}) va : pose-la.",
                                  f"The drawn card ({en(self.drawn)}) fits: play it.")
            if self.draws >= MAX_DRAWS:
                raise IllegalMove("draw-limit", "Trois cartes piochées : le tour est fini.",
                                  "Three cards drawn: the turn is over.")
            if not self.pile:
                raise IllegalMove("pile-empty", "La pioche est vide : le tour est fini.",
                                  "The draw pile is empty: the turn is over.")
            self._claim(CANNOT_PLAY_DRAWN)
        else:
            if self.played:
                raise IllegalMove("no-draw", "On ne pioche qu'au lieu de jouer.",
                                  "You draw only instead of playing.")
            if not self.pile:
                raise IllegalMove("pile-empty", "La pioche est vide : passe ton tour.",
                                  "The draw pile is empty: pass.")
            self._refuse_if_playable()
            self._claim(CANNOT_PLAY)
        self.draws += 1
        self.passes = 0
        self.phase = "drawn"
        self.current_player = CHANCE

    def _pass(self, action: Action) -> None:
        if self.phase != "play" or self.played:
            raise IllegalMove("no-pass", "On ne passe que sans avoir joué ni pioché.",
                              "You pass only without having played or drawn.")
        if self.pile:
            raise IllegalMove("must-draw", "Tu ne peux pas jouer : pioche une carte.", "You cannot play: draw a card.")
        self._refuse_if_playable()
        self._claim(CANNOT_PLAY_PASS)
        self.passes += 1
        if self.options["deadlock_end"] and self.passes >= self.players:
            self._end_round()
        else:
            self._next_turn()

    def _end_turn(self, action: Action) -> None:
        if self.phase == "redraw":
            raise IllegalMove("draw-again", "La carte piochée ne va pas : pioche encore (3 cartes au plus).",
                              "The drawn card does not fit: draw again (up to 3 cards).")
        if self.phase == "after_draw":
            if self.drawn is not None:
                raise IllegalMove("play-drawn", f"La carte piochée ({fr(self.drawn)}) va : pose-la.",
                                  f"The drawn card ({en(self.drawn)}) fits: play it.")
            if self._may_draw_again():
                raise IllegalMove("draw-again", "Si la carte piochée ne va pas, pioche encore (3 cartes au plus).",
                                  "If the drawn card does not fit, draw again (up to 3 cards).")
            self._claim(CANNOT_PLAY_DRAWN)
            self._next_turn()
            return
        if self.phase != "play" or not self.played:
            raise IllegalMove("must-play", "Il faut d'abord jouer au moins une carte (ou piocher).",
                              "You must play at least one card first (or draw).")
        self._next_turn()

    def _refuse_if_playable(self) -> None:
        playable = self._surely_playable(self.player)
        if playable:
            names_fr = ", ".join(fr(c) for c in playable)
            names_en = ", ".join(en(c) for c in playable)
            raise IllegalMove("must-play", f"Tu peux jouer ({names_fr}) : il faut jouer.",
                              f"You can play ({names_en}): you must play.")

    def _claim(self, text: Text) -> None:
        if self.table_mode:
            hand = self.hands[self.player]
            self.claims.append(Claim(self.player, len(hand.log), self.fitting(), text))

    # turn flow

    def _start_turn(self, seat: int) -> None:
        self.player = seat
        self.current_player = seat
        self.phase = "play"
        self.played = 0
        self.draws = 0
        self.drawn = None
        self.turns += 1

    def _next_turn(self) -> None:
        self._start_turn((self.player + 1) % self.players)

    def _end_round(self) -> None:
        self.drawn = None
        if self.table_mode and any(h.unknown for h in self.hands):
            self.phase = "reveal"
            self.current_player = CHANCE
            self.revealed = [not h.unknown for h in self.hands]
            for seat, done in enumerate(self.revealed):
                if done:
                    self._settle_claims(seat)
        else:
            for seat in range(self.players):
                self._settle_claims(seat)
            self.revealed = [True] * self.players
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
            deck = sorted(self.pool.elements())
            rng.shuffle(deck)
            n = self.hand_size
            return {"type": "deal", "hands": [sorted(deck[i * n:(i + 1) * n]) for i in range(self.players)]}
        if self.phase == "drawn":
            return {"type": "drawn", "card": rng.choice(sorted(self.pool.elements()))}
        if self.phase == "open":
            return self._expected_open()
        if self.phase == "choose_start":
            return {"type": "choose_start", "seat": rng.randrange(self.players)}
        raise ValueError(f"no chance event to sample in phase {self.phase!r}")

    def redact(self, action: Action) -> Action:
        if action["type"] == "deal":
            return {"type": "deal", "hands": None}
        if action["type"] == "drawn":
            return {"type": "drawn", "card": None}
        return action

    # -- scores, views, checks ---------------------------------------------------------------

    def scores(self) -> list[int]:
        """Penalty points: the values left in each hand (the winner's hand is empty)."""
        return [sum(value(c) * n for c, n in h.known.items()) for h in self.hands]

    def board_view(self) -> dict[str, Any]:
        rows: dict[str, Any] = {}
        for c in self.colours:
            lo, hi = self.low[c], self.high[c]
            nxt = [value(x) for x in self._fit if PARSED[x][0] == c]
            if self.mode == EXTREMES:
                rows[c] = {"up": [1, lo], "down": [hi, TOP], "next": nxt}
            else:
                rows[c] = {"span": [lo, hi] if lo else None, "next": nxt, "opened_with": self.start[c] or None}
        return {
            "rows": rows,
            "opening": [] if self.mode == EXTREMES else list(self._openers()),
            "v0": self.v0,
        }

    def view(self, player: int | None) -> dict[str, Any]:
        return {
            "game": INFO.id,
            "variant": self.variant,
            "players": self.players,
            "table_mode": self.table_mode,
            "phase": self.phase,
            "current_player": self.current_player if self.current_player >= 0 else None,
            "turn_player": self.player,
            "is_over": self.is_over,
            # Live scores would tell the sum of the other hands: shown once the round is over.
            "scores": self.scores() if self.is_over else None,
            "winners": self.winners() if self.is_over else [],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": self.hands[player].cards() if player is not None else None,
            "pile": self.pile,
            "board": self.board_view(),
            "turn": {"played": self.played, "draws": self.draws,
                     "must_play_drawn": self.phase == "after_draw" and self.drawn is not None},
            "claims": [c.to_json() for c in self.claims],
        }

    def _to_json(self) -> dict[str, Any]:
        return {
            "low": dict(self.low),
            "high": dict(self.high),
            "start": dict(self.start),
            "v0": self.v0,
            "hands": [h.to_json() for h in self.hands],
            "pool": sorted(self.pool.elements()),
            "pile": self.pile,
            "phase": self.phase,
            "player": self.player,
            "played": self.played,
            "draws": self.draws,
            "drawn": self.drawn,
            "passes": self.passes,
            "winner": self.winner,
            "revealed": list(self.revealed),
        }

    def _load_json(self, obj: Mapping[str, Any]) -> None:
        self.low = {c: int(obj["low"][c]) for c in self.colours}
        self.high = {c: int(obj["high"][c]) for c in self.colours}
        self.start = {c: int(obj["start"][c]) for c in self.colours}
        self.v0 = None if obj["v0"] is None else int(obj["v0"])
        self.hands = [Hand.from_json(h) for h in obj["hands"]]
        if len(self.hands) != self.players:
            raise ValueError("one hand per player")
        self.pool = Counter(obj["pool"])
        self.pile = int(obj["pile"])
        self.phase = str(obj["phase"])
        self.player = int(obj["player"])
        self.played = int(obj["played"])
        self.draws = int(obj["draws"])
        self.drawn = obj["drawn"]
        self.passes = int(obj["passes"])
        self.winner = obj["winner"]
        self.revealed = [bool(r) for r in obj["revealed"]]
        if len(self.revealed) != self.players:
            raise ValueError("one reveal flag per player")
        self._refresh()

    def check_invariants(self) -> list[str]:
        errors = self._check_rows()
        placed = Counter(self.placed())
        held: Counter[Card] = Counter()
        for h in self.hands:
            held.update(h.known)
        everywhere = placed + held + self.pool
        deck = Counter(self.deck)
        if everywhere != deck:
            errors.append(f"cards not in exactly one place: missing {sorted(deck - everywhere)}, "
                          f"extra {sorted(everywhere - deck)}")
        unknown = sum(h.unknown for h in self.hands)
        if sum(self.pool.values()) != self.pile + unknown:
            errors.append(f"pool {sum(self.pool.values())} != pile {self.pile} + unknown {unknown}")
        if not self.table_mode and unknown:
            errors.append("unknown cards in a simulated game")
        if sum(len(h) for h in self.hands) + self.pile + sum(placed.values()) != len(self.deck):
            errors.append("hand sizes, pile and rows do not add up to the deck")
        if self.phase in ("deal", "open", "choose_start") and sum(placed.values()) != len(self.laid):
            errors.append("cards on the table before the game is opened")
        if not 0 <= self.draws <= MAX_DRAWS:
            errors.append(f"{self.draws} cards drawn this turn (at most {MAX_DRAWS})")
        if self.phase in ("drawn", "redraw", "after_draw") and (self.played or not self.draws):
            errors.append(f"phase {self.phase} with {self.played} played and {self.draws} drawn")
        if self.drawn is not None and (self.phase != "after_draw" or self.drawn not in self._fitset
                                       or not self.hands[self.player].known[self.drawn]):
            errors.append(f"the drawn card {self.drawn} is not a fitting card in the hand")
        if self.phase in ("play", "redraw", "after_draw") and self.current_player != self.player:
            errors.append("the player to move is not the turn player")
        if self.phase == "over" and self.winner is not None and len(self.hands[self.winner]):
            errors.append("the winner has cards left")
        if self.is_over and self.winner is not None and self.scores()[self.winner] != 0:
            errors.append("the winner scores penalty points")
        if any(s < 0 for s in self.scores()):
            errors.append("negative penalty")
        return errors

    def _check_rows(self) -> list[str]:
        errors = []
        openers = (10, 11, 12) if self.mode == THREE else (11,)
        for c in self.colours:
            lo, hi, start = self.low[c], self.high[c], self.start[c]
            if self.mode == EXTREMES:
                if not 1 <= lo < hi <= TOP or start:
                    errors.append(f"row {c} is broken: up to {lo}, down to {hi}")
            elif not lo:
                if hi or start:
                    errors.append(f"row {c} is not opened but has cards")
            elif not 1 <= lo <= start <= hi <= TOP:
                errors.append(f"row {c} is broken: {lo}..{hi} opened with {start}")
            elif self.mode == FREE and start != self.v0:
                errors.append(f"row {c} opened with {start}, not the starting value {self.v0}")
            elif self.mode != FREE and start not in openers:
                errors.append(f"row {c} opened with a {start}")
        if self.mode == FREE and (self.v0 is None) != (not any(self.start.values())):
            errors.append("the starting value does not match the rows")
        if self._compute_fit() != self._fit or frozenset(self._fit) != self._fitset:
            errors.append("the cached fitting cards are stale")
        return errors

    def describe(self, action: Action, lang: str = "en") -> str:
        is_fr = lang == "fr"
        kind = action.get("type")
        who = f"{'Joueur' if is_fr else 'Player'} {self.player + 1}"
        card = action.get("card")
        name = (fr(card) if is_fr else en(card)) if isinstance(card, str) and card in PARSED else str(card)
        if kind == "deal":
            return "Distribution des cartes" if is_fr else "The cards are dealt"
        if kind == "open":
            seat = action.get("seat", 0) + 1
            return (f"Joueur {seat} ouvre la partie avec {name}" if is_fr
                    else f"Player {seat} opens the game with {name}")
        if kind == "redeal":
            return ("Personne n'a de 11 : on mélange et on redistribue" if is_fr
                    else "Nobody holds an 11: the cards are shuffled and dealt again")
        if kind == "choose_start":
            seat = action.get("seat", 0) + 1
            return f"Le joueur {seat} est tiré au sort pour commencer" if is_fr else f"Player {seat} is drawn to start"
        if kind == "drawn":
            if card is None:
                return f"{who} pioche une carte" if is_fr else f"{who} draws a card"
            return f"{who} pioche {name}" if is_fr else f"{who} draws {name}"
        if kind == "reveal":
            seat = action.get("seat", 0) + 1
            shown = ", ".join(cards.name(c, lang) for c in action.get("cards", []))
            return (f"Joueur {seat} montre : {shown or 'rien'}" if is_fr
                    else f"Player {seat} shows: {shown or 'nothing'}")
        if kind == "play":
            return self._describe_play(card, name, who, is_fr)
        if kind == "draw":
            if self.phase in ("redraw", "after_draw"):
                return f"{who} pioche encore" if is_fr else f"{who} draws again"
            return f"{who} ne peut pas jouer et pioche" if is_fr else f"{who} cannot play and draws"
        if kind == "pass":
            return f"{who} passe" if is_fr else f"{who} passes"
        if kind == "end_turn":
            return f"{who} termine son tour" if is_fr else f"{who} ends the turn"
        return str(action)

    def _describe_play(self, card: Any, name: str, who: str, is_fr: bool) -> str:
        if card in PARSED and self.mode != EXTREMES and PARSED[card][0] in self.low and not self.low[PARSED[card][0]]:
            colour = PARSED[card][0]
            if is_fr:
                return f"{who} ouvre la rangée {ROW_FR[colour]} avec {name}"
            return f"{who} opens the {colour} row with {name}"
        return f"{who} pose {name}" if is_fr else f"{who} plays {name}"

    def greedy_key(self, action: Action) -> float:
        # Penalties are face values: get rid of the highest cards first, keep playing.
        if action["type"] == "play":
            return 10 + value(action["card"])
        if action["type"] == "end_turn":
            return 1.0
        return 0.0

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        card = cards.from_observation(dict(obs))
        return card if card in PARSED and PARSED[card][0] in self.colours else None


HANDLERS = {
    "deal": "_deal",
    "open": "_open",
    "redeal": "_redeal",
    "choose_start": "_choose_start",
    "drawn": "_drawn",
    "reveal": "_reveal",
    "play": "_play",
    "draw": "_draw",
    "end_turn": "_end_turn",
    "pass": "_pass",
}
CHANCE_KINDS = frozenset({"deal", "open", "redeal", "choose_start", "drawn", "reveal"})

GAME = register(GameDef(INFO, ElferRausState))
