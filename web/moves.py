"""Moves named in words for the phone buttons, grouped the way a player looks for them.

Pure functions of an action (a plain JSON object from `legal_actions()`), the players'
names and the public table view. Colours are always written out (never a colour alone),
so colour-blind players can follow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

COLOUR_OF = {"Y": "yellow", "R": "red", "B": "blue", "G": "green", "X": "gray"}
COLOUR_WORDS = {  # (fr masculine, fr feminine, en)
    "yellow": ("jaune", "jaune", "yellow"),
    "red": ("rouge", "rouge", "red"),
    "blue": ("bleu", "bleue", "blue"),
    "green": ("vert", "verte", "green"),
    "gray": ("gris", "grise", "grey"),
}
SYMBOL_WORDS = {"square": ("carré", "square"), "triangle": ("triangle", "triangle"),
                "star": ("étoile", "star"), "circle": ("rond", "circle")}
COLOURS = ("yellow", "red", "blue", "green")

Label = dict[str, str]


def t(fr: str, en: str) -> Label:
    return {"fr": fr, "en": en}


# --- names -------------------------------------------------------------------------------


def parse_card(code: Any) -> tuple[str, int] | None:
    """"Y5" -> ("yellow", 5); None for anything else ("J", "45", symbols)."""
    if not isinstance(code, str) or len(code) < 2 or code[0] not in COLOUR_OF or not code[1:].isdigit():
        return None
    return COLOUR_OF[code[0]], int(code[1:])


def colour_word(colour: str, lang: str, feminine: bool = False) -> str:
    fr_m, fr_f, en = COLOUR_WORDS.get(colour, (colour, colour, colour))
    return (fr_f if feminine else fr_m) if lang == "fr" else en


def card_name(code: Any, lang: str) -> str:
    """A card, tile or token as a player says it: "5 jaune" / "yellow 5", "joker", "étoile"."""
    parsed = parse_card(code)
    if parsed is not None:
        colour, value = parsed
        name = f"{value} {colour_word(colour, 'fr')}" if lang == "fr" else f"{colour_word(colour, 'en')} {value}"
        return name + (" (joker)" if colour == "gray" else "")
    if code == "J":
        return "joker"
    if code in SYMBOL_WORDS:
        fr, en = SYMBOL_WORDS[code]
        return fr if lang == "fr" else en
    return str(code)


def the(code: Any, lang: str) -> str:
    """A card with its article: "le 5 jaune", "la tuile étoile" / "the yellow 5", "the star tile"."""
    if code in SYMBOL_WORDS:
        fr, en = SYMBOL_WORDS[code]
        return f"la tuile {fr}" if lang == "fr" else f"the {en} tile"
    return f"le {card_name(code, 'fr')}" if lang == "fr" else f"the {card_name(code, 'en')}"


def square_name(square: Any, lang: str) -> str:
    """"yellow:13" -> "case 13 jaune" / "yellow square 13"; symbol squares by side."""
    if not isinstance(square, str) or ":" not in square:
        return str(square)
    row, _, where = square.partition(":")
    colour = colour_word(row, lang, feminine=True)
    if where in ("left", "right"):
        side = {"left": ("gauche", "left"), "right": ("droite", "right")}[where]
        return f"case symbole {side[0]} de la rangée {colour}" if lang == "fr" else f"{colour} row, {side[1]} symbol"
    return f"case {where} de la rangée {colour}" if lang == "fr" else f"{colour} row, square {where}"


def player_name(players: Sequence[str], seat: Any, lang: str) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return players[seat]
    return f"Joueur {seat}" if lang == "fr" else f"Player {seat}"


def die_face(value: Any, lang: str) -> str:
    if value == "star":
        return "étoile" if lang == "fr" else "star"
    return str(value)


# --- groups ------------------------------------------------------------------------------

TURN = {"key": "turn", **t("Mon tour", "My turn")}
TABLE = {"key": "table", **t("Ce que montre la table", "What the table shows")}
LINKS = {"key": "links", **t("Liens et jokers", "Links and jokers")}
TAKE = {"key": "take", **t("Prendre une pile", "Take a pile")}
TOKENS = {"key": "tokens", **t("Pions", "Tokens")}
CHANCE_KINDS = frozenset({"deal", "drawn", "reveal", "open", "redeal", "choose_start", "flip", "bonus", "roll"})


def colour_group(colour: str) -> dict[str, str]:
    return {"key": f"colour:{colour}", "colour": colour,
            "fr": f"Rangée {colour_word(colour, 'fr', feminine=True)}", "en": f"{colour_word(colour, 'en')} row"}


# --- describing one action ----------------------------------------------------------------


def describe(action: Mapping[str, Any], players: Sequence[str], table: Mapping[str, Any]) -> dict[str, Any]:
    """{"action", "kind", "label": {fr, en}, "group": {key, fr, en}} for one legal action."""
    kind = str(action.get("type"))
    label, group = _describe(kind, action, list(players), table)
    return {"action": dict(action), "kind": kind, "label": label, "group": group}


def _describe(kind: str, a: Mapping[str, Any], players: list[str],
              table: Mapping[str, Any]) -> tuple[Label, dict[str, str]]:
    board = table.get("board") or {}
    if kind == "play":
        return _play(a, board)
    if kind == "place":
        return _place(a)
    if kind == "place_bonus":
        sq = a.get("square")
        return (t(f"Poser la tuile bonus : {square_name(sq, 'fr')}", f"Put the bonus tile: {square_name(sq, 'en')}"),
                TURN)
    if kind == "draw":
        return t("Je ne peux pas jouer : je pioche", "I cannot play: I draw"), TURN
    if kind == "end_turn":
        return t("Finir mon tour", "End my turn"), TURN
    if kind == "pass":
        return t("Je passe (rien ne va, pioche vide)", "I pass (nothing fits, nothing to draw)"), TURN
    if kind == "no_eleven":
        return t("Je n'ai pas de 11", "I have no 11"), TURN
    if kind == "give":
        tile = a.get("tile")
        if tile is None:
            return t("Donner une tuile face cachée au voisin de gauche",
                     "Give a tile face down to the left neighbour"), TURN
        return t(f"Donner {the(tile, 'fr')} au voisin de gauche",
                 f"Give {the(tile, 'en')} to the left neighbour"), TURN
    if kind == "link":
        v = a.get("value")
        src, dst = str(a.get("from")), str(a.get("to"))
        return t(f"Lien : {v} {colour_word(src, 'fr')} → {v} {colour_word(dst, 'fr')}",
                 f"Link: {colour_word(src, 'en')} {v} → {colour_word(dst, 'en')} {v}"), LINKS
    if kind == "exchange":
        card = a.get("card")
        return t(f"Remplacer le joker par {the(card, 'fr')}",
                 f"Swap the joker for {the(card, 'en')}"), LINKS
    if kind == "discard_joker":
        return t("Remettre un joker dans la boîte", "Put a joker back in the box"), LINKS
    if kind == "take":
        return _take(a, board, players)
    if kind == "move":
        return _move(a, board)
    return _chance(kind, a, players)


def _play(a: Mapping[str, Any], board: Mapping[str, Any]) -> tuple[Label, dict[str, str]]:
    card = a.get("card")
    if "pile" in a:  # 11 nimmt!
        pile = a.get("pile")
        top = next((p.get("top") for p in board.get("piles") or [] if p.get("id") == pile), None)
        on = f" (sommet {top})" if top is not None else ""
        on_en = f" (top {top})" if top is not None else ""
        group = {"key": f"pile:{pile}", "fr": f"Pile {pile}{on}", "en": f"Pile {pile}{on_en}"}
        return t(f"Jouer le {card} sur la pile {pile}", f"Play {card} on pile {pile}"), group
    if card == "J" and "row" in a:  # 11 Elevens: a joker standing for a card
        row, value = str(a.get("row")), a.get("value")
        return (t(f"Poser un joker à la place du {value} {colour_word(row, 'fr')}",
                  f"Play a joker as the {colour_word(row, 'en')} {value}"), colour_group(row))
    parsed = parse_card(card)
    group = colour_group(parsed[0]) if parsed else TURN
    return t(f"Poser {the(card, 'fr')}", f"Play {the(card, 'en')}"), group


def _place(a: Mapping[str, Any]) -> tuple[Label, dict[str, str]]:
    tile, square = a.get("tile"), a.get("square")
    parsed = parse_card(tile)
    natural = parsed is not None and parsed[0] != "gray" and square == f"{parsed[0]}:{parsed[1]}"
    row = str(square).partition(":")[0] if isinstance(square, str) else ""
    group = colour_group(row) if row in COLOURS else TURN
    if natural:
        return t(f"Poser {the(tile, 'fr')}", f"Place {the(tile, 'en')}"), group
    return (t(f"Poser {the(tile, 'fr')} : {square_name(square, 'fr')}",
              f"Place {the(tile, 'en')}: {square_name(square, 'en')}"), group)


def _take(a: Mapping[str, Any], board: Mapping[str, Any], players: list[str]) -> tuple[Label, dict[str, str]]:
    pile = a.get("pile")
    found = next((p for p in board.get("piles") or [] if p.get("id") == pile), None)
    size = f", {found.get('size')} cartes" if found else ""
    size_en = f", {found.get('size')} cards" if found else ""
    top = f" (sommet {found.get('top')}{size})" if found else ""
    top_en = f" (top {found.get('top')}{size_en})" if found else ""
    label = t(f"Prendre la pile {pile}{top}", f"Take pile {pile}{top_en}")
    if a.get("from") is not None:
        who_fr = player_name(players, a.get("from"), "fr")
        who_en = player_name(players, a.get("from"), "en")
        label = {"fr": f"{label['fr']} et un taureau de {who_fr}", "en": f"{label['en']} and a bull from {who_en}"}
    return label, TAKE


def _move(a: Mapping[str, Any], board: Mapping[str, Any]) -> tuple[Label, dict[str, str]]:
    token = a.get("token")
    squares = {int(k): v for k, v in (board.get("squares") or {}).items() if str(k).lstrip("-").isdigit()}
    values = ((board.get("track") or {}).get("values")) or []
    where = next((sq for sq, code in squares.items() if code == token), None)
    dest = (where if where is not None else -1) + 1
    while dest in squares:
        dest += 1
    name_fr = f"pion {card_name(token, 'fr')}"
    name_en = f"{card_name(token, 'en')} token"
    tail_fr = tail_en = ""
    if 0 <= dest < len(values):
        tail_fr = f" → case {dest} (valeur {values[dest]})"
        tail_en = f" → square {dest} (value {values[dest]})"
    if where is None:
        return t(f"Entrer le {name_fr}{tail_fr}", f"Bring in the {name_en}{tail_en}"), TOKENS
    return t(f"Avancer le {name_fr}{tail_fr}", f"Move the {name_en}{tail_en}"), TOKENS


def _chance(kind: str, a: Mapping[str, Any], players: list[str]) -> tuple[Label, dict[str, str]]:
    if kind == "deal":
        if a.get("rows"):
            rows = list(a.get("rows") or [])
            fr = ", ".join(colour_word(str(c), "fr", feminine=True) for c in rows)
            en = ", ".join(colour_word(str(c), "en") for c in rows)
            return t(f"Rangées de haut en bas : {fr}", f"Rows from top to bottom: {en}"), TABLE
        if "flip" in a:
            return t(f"Première carte retournée : {a.get('flip')}", f"First card turned up: {a.get('flip')}"), TABLE
        return t("Distribuer les cartes", "Deal the cards"), TABLE
    if kind == "open":
        fr, en = player_name(players, a.get("seat"), "fr"), player_name(players, a.get("seat"), "en")
        return (t(f"{fr} ouvre avec {the(a.get('card'), 'fr')}",
                  f"{en} opens with {the(a.get('card'), 'en')}"), TABLE)
    if kind == "redeal":
        return t("Personne n'a de 11 : on redistribue", "Nobody holds an 11: deal again"), TABLE
    if kind == "choose_start":
        fr, en = player_name(players, a.get("seat"), "fr"), player_name(players, a.get("seat"), "en")
        return t(f"{fr} commence", f"{en} starts"), TABLE
    if kind == "flip":
        shown = ", ".join(str(c) for c in a.get("cards") or [])
        if not shown:
            return t("Rien à retourner (pioche vide)", "Nothing to turn up (draw pile empty)"), TABLE
        return t(f"Cartes retournées : {shown}", f"Cards turned up: {shown}"), TABLE
    if kind == "drawn":
        card = a.get("card", a.get("tile"))
        if card is None:
            return t("Carte piochée (cachée)", "Card drawn (hidden)"), TABLE
        return t(f"Pioché : {card_name(card, 'fr')}", f"Drawn: {card_name(card, 'en')}"), TABLE
    if kind == "bonus":
        tile = a.get("tile")
        return t(f"Tuile bonus : {card_name(tile, 'fr')}", f"Bonus tile: {card_name(tile, 'en')}"), TABLE
    if kind == "reveal":
        fr = ", ".join(card_name(c, "fr") for c in a.get("cards") or []) or "rien"
        en = ", ".join(card_name(c, "en") for c in a.get("cards") or []) or "nothing"
        return (t(f"{player_name(players, a.get('seat'), 'fr')} montre : {fr}",
                  f"{player_name(players, a.get('seat'), 'en')} shows: {en}"), TABLE)
    if kind == "roll":
        return t(f"Dé : {die_face(a.get('value'), 'fr')}", f"Die: {die_face(a.get('value'), 'en')}"), TABLE
    extra = ", ".join(f"{k}={v}" for k, v in a.items() if k != "type")
    return t(f"{kind} {extra}".strip(), f"{kind} {extra}".strip()), TURN


def thing(item: Any, players: Sequence[str], table: Mapping[str, Any]) -> Label:
    """Anything a proposal or problem mentions (an action, a card code, a camera reading), in words."""
    if isinstance(item, Mapping):
        if isinstance(item.get("type"), str):
            return describe(item, players, table)["label"]
        colour, value = item.get("color"), item.get("value")
        if isinstance(value, int) and not isinstance(value, bool):
            if colour in COLOUR_WORDS:
                return t(f"{value} {colour_word(str(colour), 'fr')}", f"{colour_word(str(colour), 'en')} {value}")
            return t(str(value), str(value))
        text = ", ".join(f"{k}: {v}" for k, v in item.items())
        return t(text, text)
    if isinstance(item, list | tuple):
        parts = [thing(x, players, table) for x in item]
        return t(", ".join(p["fr"] for p in parts), ", ".join(p["en"] for p in parts))
    if isinstance(item, str):
        return t(card_name(item, "fr"), card_name(item, "en"))
    return t(str(item), str(item))


def text_of(value: Any) -> Label | None:
    """A {fr, en} text (a list in each language is joined), or a plain string used for both."""
    if isinstance(value, Mapping) and ("fr" in value or "en" in value):
        def one(v: Any, nothing: str) -> str:
            if isinstance(v, list | tuple):
                return ", ".join(str(x) for x in v) or nothing
            return str(v)

        fr = value.get("fr", value.get("en", ""))
        en = value.get("en", value.get("fr", ""))
        return t(one(fr, "rien"), one(en, "nothing"))
    if isinstance(value, str) and value:
        return t(value, value)
    return None


WHY = {  # why a reading needs a yes (companion.perception)
    "several": t("Plusieurs coups correspondent : choisis le bon.", "Several moves match: choose the right one."),
    "turn-change": t("Le tour semble avoir changé sans qu'on le dise.", "The turn seems to have changed unannounced."),
    "unreadable": t("Une partie de la table est illisible.", "Part of the table could not be read."),
    "low-confidence": t("Lecture peu sûre.", "Unsure reading."),
}


def _said(value: Any, players: Sequence[str], table: Mapping[str, Any]) -> Label | None:
    """A text already in both languages, else the thing described."""
    if value is None:
        return None
    if isinstance(value, Mapping) and ("fr" in value or "en" in value) and "type" not in value:
        return text_of(value)
    return thing(value, players, table)


def proposal_view(p: Mapping[str, Any] | None, players: Sequence[str],
                  table: Mapping[str, Any]) -> dict[str, Any] | None:
    """A pending camera reading as the pages show it: each option's moves in words."""
    if not isinstance(p, Mapping):
        return None
    options = p.get("options") or [p.get("actions") or []]
    why = p.get("why")
    return {
        "id": p.get("id"),
        "options": [[thing(a, players, table) for a in (o if isinstance(o, list) else [o])] for o in options],
        "seen": _said(p.get("seen"), players, table),
        "why": WHY.get(why) if isinstance(why, str) and why in WHY else text_of(why),
        "confidence": p.get("confidence") if isinstance(p.get("confidence"), int | float) else None,
    }


def problem_view(p: Mapping[str, Any] | None, players: Sequence[str],
                 table: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the table shows that the rules do not allow: expected vs seen, and the rule in words."""
    if not isinstance(p, Mapping):
        return None
    rule = p.get("rule")
    if isinstance(rule, Mapping):  # the broken rule as the engine words it: {rule, fr, en}
        message, rule_id = text_of(rule), rule.get("rule")
    else:
        message = text_of({k: p[k] for k in ("fr", "en") if isinstance(p.get(k), str)}) or text_of(p.get("why"))
        rule_id = rule
    return {
        "id": p.get("id"),
        "rule": rule_id,
        "message": message,
        "expected": _said(p.get("expected"), players, table),
        "seen": _said(p.get("seen"), players, table),
    }


EVENT_TEXT = {
    "setup": t("Nouvelle partie", "New match"),
    "action": t("Coup joué", "Move played"),
    "undo": t("Coup annulé", "Move undone"),
    "proposal": t("La caméra propose une lecture", "The camera proposes a reading"),
    "problem": t("Problème sur la table", "Problem on the table"),
    "resolved": t("Réglé", "Settled"),
    "round_scores": t("Scores de la manche saisis", "Round scores typed in"),
    "next_round": t("Manche suivante", "Next round"),
    "round_correction": t("Score d'une manche corrigé", "A round's score corrected"),
    "finish": t("Partie terminée", "Match finished"),
    "note": t("Note", "Note"),
}


def event_text(kind: str) -> Label:
    """A committed event in words, for events the referee does not describe itself."""
    return EVENT_TEXT.get(kind, t(kind, kind))


# --- the card picker (laying out a hand at round end) --------------------------------------


def deck(game: str | None, variant: str | None = None) -> list[list[Any]]:
    """The cards a hand may hold, as [code, copies]: what the round-end card picker offers."""
    def row(values: Sequence[int], skip: Sequence[int] = ()) -> list[list[Any]]:
        return [[f"{c[0].upper()}{v}", 1] for c in COLOURS for v in values if v not in skip]

    if game == "elfer-raus-junior":
        return row(range(2, 11))
    if game == "elfer-raus":
        return row(range(1, 21))
    if game == "elevens":
        return [*row(range(1, 22), skip=(11,)), ["J", 4]]
    if game == "start11":
        greys = [[f"X{v}", 4] for v in (3, 7, 13, 17)]
        symbols = [[s, 2] for s in SYMBOL_WORDS] if variant == "symbols" else []
        return [*row(range(1, 21), skip=(3, 7, 13, 17)), *greys, *symbols]
    if game == "11-nimmt":
        return [[str(v), 1] for v in range(1, 101)]
    return []  # numeri: nothing is hidden


__all__ = ["card_name", "colour_word", "deck", "describe", "event_text", "parse_card", "problem_view", "proposal_view",
           "square_name", "thing"]
