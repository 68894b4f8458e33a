"""Elfer raus! Junior (`elfer-raus-junior`): four rows of 1 to 11, grown from both ends.

Rules: RULES.md section 3.2 (seed 002). The four 1s and 11s lie on the table; 5 cards
each from the 36 cards 2-10. On a turn a player who can play must play at least one card
and may play as many as they like; a card fits next to a card of its colour and the next
value. A player who cannot play draws one card and plays it at once if it fits; either way
the turn ends. Pile empty and nothing fits: pass. The round ends when a hand is empty;
the others score the sum of their cards; lowest match total wins.

Actions:
  chance  {"type": "deal", "hands": [[card, ...], ...] | null}
          {"type": "drawn", "card": card | null}
          {"type": "reveal", "seat": s, "cards": [card, ...]}        (table mode, round end)
  player  {"type": "play", "card": "Y5"}, {"type": "draw"}, {"type": "end_turn"},
          {"type": "pass"}
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
    need,
    verify_claim,
)

INFO = GameInfo(
    id="elfer-raus-junior",
    name=Text("Elfer raus! Junior", "Elfer raus! Junior"),
    min_players=2,
    max_players=6,
    variants=(),
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
    ),
    winner="lowest",
    hidden_hands=True,
)

HAND_SIZE = 5
DECK = tuple(cards.code(c, v) for c in cards.COLOURS for v in range(2, 11))
FULL_DECK = tuple(cards.code(c, v) for c in cards.COLOURS for v in range(1, 12))

CANNOT_PLAY = Text("Je ne peux pas jouer, je pioche.", "I cannot play, I draw.")
CANNOT_PLAY_DRAWN = Text("La carte piochée ne va nulle part.", "The drawn card does not fit.")
CANNOT_PLAY_PASS = Text("Je ne peux pas jouer et la pioche est vide : je passe.",
                        "I cannot play and the draw pile is empty: I pass.")


def card_of(action: Mapping[str, Any]) -> Card:
    card = need(action, "card", str)
    if card not in DECK:
        raise MalformedAction(f"« {card} » n'est pas une carte de ce jeu.", f"'{card}' is not a card of this game.")
    return card


class JuniorState(State):
    info = INFO

    def __init__(self, players: int, variant: str | None = None, **kwargs: Any) -> None:
        super().__init__(players, variant, **kwargs)
        # Each row as the end values of its two grown parts: 1..low and high..11.
        self.low = dict.fromkeys(cards.COLOURS, 1)
        self.high = dict.fromkeys(cards.COLOURS, 11)
        self.hands = [Hand() for _ in range(players)]
        self.pool: Counter[Card] = Counter(DECK)  # cards whose place nobody has seen
        self.pile = len(DECK)
        self.phase = "deal"  # deal, play, drawn, after_draw, reveal, over
        self.player = self.start_player  # whose turn it is (also during chance events)
        self.played = 0  # cards played this turn
        self.drawn: Card | None = None  # the card drawn this turn, when known
        self.passes = 0  # consecutive passes (deadlock rule)
        self.winner: int | None = None
        self.revealed: list[bool] = [False] * players

    # -- geometry ---------------------------------------------------------------------------

    def fits(self, card: Card) -> bool:
        colour, value = cards.parse(card) or ("", 0)
        low, high = self.low[colour], self.high[colour]
        return low < value < high and value in (low + 1, high - 1)

    def fitting(self) -> list[Card]:
        """Every card identity that would fit now."""
        out = []
        for c in cards.COLOURS:
            low, high = self.low[c], self.high[c]
            for v in sorted({low + 1, high - 1}):
                if low < v < high:
                    out.append(cards.code(c, v))
        return out

    def _playable_in_hand(self, seat: int) -> list[Card]:
        hand = self.hands[seat]
        return [c for c in self.fitting() if hand.can_hold(c, self.pool)]

    def _known_playable(self, seat: int) -> bool:
        hand = self.hands[seat]
        return any(hand.known[c] for c in self.fitting())

    # -- protocol ---------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        p = self.phase
        if p == "deal":
            return [{"type": "deal", "hands": None}] if self.table_mode else []
        if p == "drawn":
            if self.table_mode:
                return [{"type": "drawn", "card": None}]
            return [{"type": "drawn", "card": c} for c in sorted(self.pool)]
        if p == "reveal":
            return []  # the table says what each hand held
        if p == "over":
            return []
        seat = self.player
        if p == "after_draw":
            if self.drawn is not None:
                return [{"type": "play", "card": self.drawn}]
            acts: list[Action] = [{"type": "play", "card": c} for c in self._playable_in_hand(seat)]
            return acts + [{"type": "end_turn"}]
        acts = [{"type": "play", "card": c} for c in self._playable_in_hand(seat)]
        if self.played:
            return acts + [{"type": "end_turn"}]
        if not self._known_playable(seat):
            acts.append({"type": "draw"} if self.pile else {"type": "pass"})
        return acts

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        handler = {
            "deal": self._deal,
            "drawn": self._drawn,
            "reveal": self._reveal,
            "play": self._play,
            "draw": self._draw,
            "end_turn": self._end_turn,
            "pass": self._pass,
        }.get(kind)
        if handler is None:
            raise MalformedAction(f"Action « {kind} » inconnue.", f"Unknown action '{kind}'.")
        chance = kind in ("deal", "drawn", "reveal")
        if chance != (self.current_player == CHANCE):
            raise IllegalMove(
                "not-now",
                "Cette action n'est pas possible maintenant.",
                "That action is not possible now.",
            )
        handler(action)

    # chance events

    def _deal(self, action: Action) -> None:
        if self.phase != "deal":
            raise IllegalMove("not-now", "Les cartes sont déjà distribuées.", "The cards have been dealt.")
        hands = action.get("hands")
        if hands is None:
            if not self.table_mode:
                raise MalformedAction("Il faut les mains distribuées.", "The dealt hands are needed.")
            for hand in self.hands:
                for _ in range(HAND_SIZE):
                    hand.add(None)
        else:
            if not isinstance(hands, list) or len(hands) != self.players:
                raise MalformedAction("Une main par joueur.", "One hand per player.")
            wanted: Counter[Card] = Counter()
            for h in hands:
                if not isinstance(h, list) or len(h) != HAND_SIZE:
                    raise MalformedAction(f"{HAND_SIZE} cartes par main.", f"{HAND_SIZE} cards per hand.")
                wanted.update(card_of({"card": c}) for c in h)
            if wanted - self.pool:
                raise MalformedAction("Une carte est distribuée deux fois.", "A card is dealt twice.")
            self.pool -= wanted
            for hand, h in zip(self.hands, hands, strict=True):
                for c in h:
                    hand.add(c)
        self.pile -= HAND_SIZE * self.players
        self._start_turn(self.start_player)

    def _drawn(self, action: Action) -> None:
        if self.phase != "drawn":
            raise IllegalMove("not-now", "Personne ne pioche.", "Nobody is drawing.")
        card = action.get("card")
        hand = self.hands[self.player]
        if card is None:
            if not self.table_mode:
                raise MalformedAction("Quelle carte a été piochée ?", "Which card was drawn?")
            hand.add(None)
            self.drawn = None
        else:
            card = card_of(action)
            if not self.pool[card]:
                raise IllegalMove("not-in-pile", f"Le {cards.name(card, 'fr')} n'est pas dans la pioche.",
                                  f"The {cards.name(card)} is not in the draw pile.")
            self.pool[card] -= 1
            if not self.pool[card]:
                del self.pool[card]
            hand.add(card)
            self.drawn = card
        self.pile -= 1
        if self.drawn is not None and not self.fits(self.drawn):
            self._next_turn()
        else:
            self.phase = "after_draw"
            self.current_player = self.player

    def _reveal(self, action: Action) -> None:
        if self.phase != "reveal":
            raise IllegalMove("not-now", "Les mains ne se montrent qu'en fin de manche.",
                              "Hands are shown only at the end of the round.")
        seat = need(action, "seat", int)
        shown = need(action, "cards", list)
        if not 0 <= seat < self.players or self.revealed[seat]:
            raise MalformedAction("Ce joueur n'a rien à montrer.", "That player has nothing to show.")
        hand = self.hands[seat]
        shown_cards = Counter(card_of({"card": c}) for c in shown)
        if sum(shown_cards.values()) != len(hand):
            raise IllegalMove("reveal-count", f"Le joueur {seat + 1} devait avoir {len(hand)} cartes.",
                              f"Player {seat + 1} should hold {len(hand)} cards.")
        if hand.known - shown_cards:
            missing = ", ".join(cards.name(c, "fr") for c in sorted(hand.known - shown_cards))
            missing_en = ", ".join(cards.name(c) for c in sorted(hand.known - shown_cards))
            raise IllegalMove("reveal-missing", f"Il manque des cartes connues de cette main : {missing}.",
                              f"Cards known to be in this hand are missing: {missing_en}.")
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
        card = card_of(action)
        seat = self.player
        hand = self.hands[seat]
        if self.phase == "after_draw" and self.drawn is not None and card != self.drawn:
            raise IllegalMove("play-drawn", f"Il faut poser la carte piochée ({cards.name(self.drawn, 'fr')}).",
                              f"The drawn card ({cards.name(self.drawn)}) must be played.")
        if not hand.can_hold(card, self.pool):
            raise IllegalMove("not-in-hand", f"Le {cards.name(card, 'fr')} n'est pas dans cette main.",
                              f"The {cards.name(card)} is not in this hand.")
        if not self.fits(card):
            raise self._why_not(card)
        hand.remove(card, self.pool)
        colour, value = cards.parse(card) or ("", 0)
        if value == self.low[colour] + 1:
            self.low[colour] = value
        else:
            self.high[colour] = value
        self.played += 1
        self.passes = 0
        if not len(hand):
            self.winner = seat
            self._end_round()
        elif self.phase == "after_draw" or not self._may_play_more(seat):
            self._next_turn()

    def _why_not(self, card: Card) -> IllegalMove:
        """The card does not fit: say which cards of its row come next (no number is skipped)."""
        colour, value = cards.parse(card) or ("", 0)
        low, high = self.low[colour], self.high[colour]
        if not low < value < high:
            return IllegalMove("does-not-fit", f"Le {cards.name(card, 'fr')} est déjà posé.",
                               f"The {cards.name(card)} is already on the table.")
        # (next card, the card it goes beside, before/after) for each open end of the row
        ends = [(low + 1, low, "après", "after")]
        if high - 1 != low + 1:
            ends.append((high - 1, high, "avant", "before"))
        fr = " ou ".join(f"le {cards.name(cards.code(colour, v), 'fr')} ({w_fr} le "
                         f"{cards.name(cards.code(colour, b), 'fr')})" for v, b, w_fr, _ in ends)
        en = " or ".join(f"the {cards.name(cards.code(colour, v))} ({w_en} the "
                         f"{cards.name(cards.code(colour, b))})" for v, b, _, w_en in ends)
        return IllegalMove(
            "does-not-fit",
            f"Le {cards.name(card, 'fr')} ne va pas encore : sans sauter de nombre, la rangée continue avec {fr}.",
            f"The {cards.name(card)} does not fit yet: without skipping a number, the row continues with {en}.",
        )

    def _may_play_more(self, seat: int) -> bool:
        return bool(self._playable_in_hand(seat))

    def _draw(self, action: Action) -> None:
        if self.phase != "play" or self.played:
            raise IllegalMove("no-draw", "On ne pioche qu'au lieu de jouer.", "You draw only instead of playing.")
        if not self.pile:
            raise IllegalMove("pile-empty", "La pioche est vide.", "The draw pile is empty.")
        self._refuse_if_playable()
        self._claim(CANNOT_PLAY)
        self.passes = 0
        self.phase = "drawn"
        self.current_player = CHANCE

    def _pass(self, action: Action) -> None:
        if self.phase != "play" or self.played:
            raise IllegalMove("no-pass", "Tu as déjà joué : termine ton tour.", "You have played: end your turn.")
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
        if self.phase == "after_draw":
            if self.drawn is not None:
                raise IllegalMove("play-drawn", f"La carte piochée ({cards.name(self.drawn, 'fr')}) va : pose-la.",
                                  f"The drawn card ({cards.name(self.drawn)}) fits: play it.")
            self._claim(CANNOT_PLAY_DRAWN)
            self._next_turn()
            return
        if self.phase != "play" or not self.played:
            raise IllegalMove("must-play", "Il faut d'abord jouer au moins une carte (ou piocher).",
                              "You must play at least one card first (or draw).")
        self._next_turn()

    def _refuse_if_playable(self) -> None:
        seat = self.player
        playable = [c for c in self.fitting() if self.hands[seat].known[c]]
        if playable:
            names_fr = ", ".join(cards.name(c, "fr") for c in playable)
            names_en = ", ".join(cards.name(c) for c in playable)
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
        self.drawn = None
        self.turns += 1

    def _next_turn(self) -> None:
        self._start_turn((self.player + 1) % self.players)

    def _end_round(self) -> None:
        self.drawn = None
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
            deck = sorted(self.pool.elements())
            rng.shuffle(deck)
            return {"type": "deal",
                    "hands": [sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(self.players)]}
        if self.phase == "drawn":
            return {"type": "drawn", "card": rng.choice(sorted(self.pool.elements()))}
        raise ValueError(f"no chance event to sample in phase {self.phase!r}")

    def redact(self, action: Action) -> Action:
        if action["type"] == "deal":
            return {"type": "deal", "hands": None}
        if action["type"] == "drawn":
            return {"type": "drawn", "card": None}
        return action

    # -- scores, views, checks ---------------------------------------------------------------

    def scores(self) -> list[int]:
        return [sum((cards.parse(c) or ("", 0))[1] for c in h.cards()) for h in self.hands]

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
            "board": {
                "rows": {c: list(range(1, self.low[c] + 1)) + list(range(self.high[c], 12)) for c in cards.COLOURS},
                "fitting": self.fitting(),
            },
            "turn": {"played": self.played, "drawn": self.phase == "after_draw"},
            "claims": [c.to_json() for c in self.claims],
        }

    def _to_json(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "hands": [h.to_json() for h in self.hands],
            "pool": sorted(self.pool.elements()),
            "pile": self.pile,
            "phase": self.phase,
            "player": self.player,
            "played": self.played,
            "drawn": self.drawn,
            "passes": self.passes,
            "winner": self.winner,
            "revealed": self.revealed,
        }

    def _load_json(self, obj: Mapping[str, Any]) -> None:
        self.low = {c: int(obj["low"][c]) for c in cards.COLOURS}
        self.high = {c: int(obj["high"][c]) for c in cards.COLOURS}
        self.hands = [Hand.from_json(h) for h in obj["hands"]]
        if len(self.hands) != self.players:
            raise ValueError("one hand per player")
        self.pool = Counter(obj["pool"])
        self.pile = int(obj["pile"])
        self.phase = str(obj["phase"])
        self.player = int(obj["player"])
        self.played = int(obj["played"])
        self.drawn = obj["drawn"]
        self.passes = int(obj["passes"])
        self.winner = obj["winner"]
        self.revealed = [bool(r) for r in obj["revealed"]]

    def check_invariants(self) -> list[str]:
        errors = []
        placed = Counter(
            cards.code(c, v) for c in cards.COLOURS for v in [*range(2, self.low[c] + 1), *range(self.high[c], 11)]
        )
        held: Counter[Card] = Counter()
        for h in self.hands:
            held.update(h.known)
        everywhere = placed + held + self.pool
        if everywhere != Counter(DECK):
            missing = Counter(DECK) - everywhere
            twice = everywhere - Counter(DECK)
            errors.append(f"cards not in exactly one place: missing {sorted(missing)}, extra {sorted(twice)}")
        unknown = sum(h.unknown for h in self.hands)
        if sum(self.pool.values()) != self.pile + unknown:
            errors.append(f"pool {sum(self.pool.values())} != pile {self.pile} + unknown {unknown}")
        if not self.table_mode and unknown:
            errors.append("unknown cards in a simulated game")
        if self.phase != "deal" and sum(len(h) for h in self.hands) + self.pile + sum(placed.values()) != len(DECK):
            errors.append("hand sizes, pile and rows do not add up to the deck")
        if self.phase == "over" and self.winner is not None and self.scores()[self.winner] != 0:
            errors.append("the winner has cards left")
        for c in cards.COLOURS:
            if not 1 <= self.low[c] < self.high[c] <= 11:
                errors.append(f"row {c} is broken: low {self.low[c]}, high {self.high[c]}")
        return errors

    def describe(self, action: Action, lang: str = "en") -> str:
        fr = lang == "fr"
        kind = action.get("type")
        who = f"{'Joueur' if fr else 'Player'} {self.player + 1}"
        if kind == "deal":
            return "Distribution des cartes" if fr else "The cards are dealt"
        if kind == "drawn":
            card = action.get("card")
            if card is None:
                return f"{who} pioche une carte" if fr else f"{who} draws a card"
            return f"{who} pioche le {cards.name(card, 'fr')}" if fr else f"{who} draws the {cards.name(card)}"
        if kind == "reveal":
            seat = action.get("seat", 0) + 1
            shown = ", ".join(cards.name(c, lang) for c in action.get("cards", []))
            return f"Joueur {seat} montre : {shown or 'rien'}" if fr else f"Player {seat} shows: {shown or 'nothing'}"
        if kind == "play":
            card = action.get("card", "")
            return f"{who} pose le {cards.name(card, 'fr')}" if fr else f"{who} plays the {cards.name(card)}"
        if kind == "draw":
            return f"{who} ne peut pas jouer et pioche" if fr else f"{who} cannot play and draws"
        if kind == "pass":
            return f"{who} passe" if fr else f"{who} passes"
        if kind == "end_turn":
            return f"{who} termine son tour" if fr else f"{who} ends the turn"
        return str(action)

    def greedy_key(self, action: Action) -> float:
        # Dump the highest cards first: they are the penalty points.
        if action["type"] == "play":
            return 10 + (cards.parse(action["card"]) or ("", 0))[1]
        if action["type"] == "end_turn":
            return 1.0
        return 0.0

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        card = cards.from_observation(dict(obs))
        return card if card in FULL_DECK else None


GAME = register(GameDef(INFO, JuniorState))
