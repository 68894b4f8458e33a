"""The referee: one thread owns the match; everything else sends it commands.

Camera snapshots, button presses and web requests are queued. The referee checks each
command against the rules, appends the resulting events to the store (durable before
anything else happens), folds them into the session, and only then tells the pages (hub)
and the table (LEDs, buzzer). Reads go through immutable snapshots.
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from random import Random
from typing import Any, Protocol

from . import games
from .games.base import CHANCE, Action, IllegalMove
from .hub import Hub, Message
from .session import Session, SessionError, is_revealing
from .store import MatchClosed, StoreError

log = logging.getLogger(__name__)

HOST_ONLY = {"new_match", "rematch", "round_scores", "round_correction", "finish", "next_round"}
ROLES = ("host", "player", "spectator", "button", "camera", "system")


class EventStore(Protocol):
    """What the referee needs from `companion.store.Store`."""

    def create_match(self, game: str, variant: str | None, players: list[str], settings: dict[str, Any]) -> str: ...
    def append(self, match_id: str, kind: str, payload: dict[str, Any], actor: str) -> int: ...
    def events(self, match_id: str, after: int = 0) -> list[Any]: ...
    def current_match(self) -> Any: ...
    def list_matches(self) -> list[Any]: ...
    def finish_match(self, match_id: str) -> None: ...


@dataclass(frozen=True)
class Actor:
    role: str  # host, player, spectator, button, camera, system
    seat: int | None = None
    name: str = ""

    def label(self) -> str:
        return f"{self.role}:{self.seat}" if self.seat is not None else self.role


@dataclass
class Outcome:
    """The answer to one command: ok with the new version, or an HTTP-style refusal."""

    ok: bool
    version: int
    status: int = 200
    error: dict[str, str] = field(default_factory=dict)  # {"fr", "en", "rule"}
    data: dict[str, Any] = field(default_factory=dict)

    def message(self, lang: str) -> str:
        return self.error.get(lang) or self.error.get("en", "")


class Refusal(Exception):
    def __init__(self, status: int, fr: str, en: str, rule: str = "refused") -> None:
        super().__init__(en)
        self.status = status
        self.fr, self.en, self.rule = fr, en, rule


Perceive = Callable[[Session, Mapping[str, Any]], dict[str, Any]]


class Referee:
    def __init__(
        self,
        store: EventStore,
        hub: Hub | None = None,
        *,
        rng: Random | None = None,
        perceive: Perceive | None = None,
        signal: Callable[[str, Any], None] | None = None,
        data_files: Mapping[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.hub = hub or Hub()
        self.rng = rng or Random(secrets.randbits(64))
        self.perceive = perceive
        self.signal = signal or (lambda what, arg=None: None)
        self.data_files = dict(data_files or {})
        self.commands: queue.Queue[tuple[dict[str, Any], Actor, Future[Outcome] | None] | None] = queue.Queue()
        self.session: Session | None = None
        self.match_id: str | None = None
        self.version = 0  # global number of committed events (only grows)
        self.status: dict[str, Any] = {"camera": "none"}
        self._thread: threading.Thread | None = None
        self._snapshot_lock = threading.Lock()
        self._snapshot: dict[str, Any] = {}
        self._private: dict[int | None, dict[str, Any]] = {}
        self.last_activity = time.monotonic()
        self._resume()

    # -- life cycle -------------------------------------------------------------------------

    def _resume(self) -> None:
        """Pick up the current match from the store (after a restart or a power cut)."""
        matches = self.store.list_matches()
        self.version = sum(int(getattr(m, "version", 0)) for m in matches)
        current = self.store.current_match() or (matches[0] if matches else None)
        if current is not None:
            rows = self.store.events(current.id)
            if rows:
                self.session = Session.replay([(r.seq, r.kind, dict(r.payload)) for r in rows])
                self.match_id = current.id
                if getattr(current, "status", "active") != "active":
                    self.session.finished = True
        self._publish_snapshot()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="referee", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self.commands.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def run(self) -> None:
        while True:
            item = self.commands.get()
            if item is None:
                return
            command, actor, future = item
            try:
                outcome = self.handle(command, actor)
            except Exception:  # noqa: BLE001 - one bad command must not stop the referee
                log.exception("command %r failed", command)
                outcome = Outcome(False, self.version, 422, {
                    "fr": "Erreur interne : rien n'a été changé.", "en": "Internal error: nothing was changed.",
                    "rule": "internal"})
            if future is not None:
                future.set_result(outcome)

    def submit(self, command: dict[str, Any], actor: Actor, timeout: float = 10.0) -> Outcome:
        """Queue a command and wait for its outcome (web requests, tests)."""
        if self._thread is None:
            return self.handle(command, actor)
        future: Future[Outcome] = Future()
        self.commands.put((command, actor, future))
        return future.result(timeout)

    def post(self, command: dict[str, Any], actor: Actor) -> None:
        """Queue a command without waiting (camera, buttons)."""
        if self._thread is None:
            self.handle(command, actor)
        else:
            self.commands.put((command, actor, None))

    # -- handling ---------------------------------------------------------------------------

    def handle(self, command: Mapping[str, Any], actor: Actor) -> Outcome:
        self.last_activity = time.monotonic()
        try:
            kind = command.get("type") if isinstance(command, Mapping) else None
            if not isinstance(kind, str):
                raise Refusal(400, "Commande sans « type ».", "A command needs a 'type'.", "malformed")
            handler = getattr(self, f"_cmd_{kind}", None)
            if handler is None:
                raise Refusal(400, f"Commande « {kind} » inconnue.", f"Unknown command '{kind}'.", "malformed")
            self._authorise(kind, command, actor)
            expected = command.get("version")
            if expected is not None and actor.role not in ("button", "camera", "system"):
                if not isinstance(expected, int) or isinstance(expected, bool):
                    raise Refusal(400, "Version invalide.", "Invalid version.", "malformed")
                if expected != self.version:
                    raise Refusal(409, "L'état a changé entre-temps : recharge.",
                                  "The state changed in the meantime: reload.", "stale")
            data = handler(command, actor) or {}
            return Outcome(True, self.version, data=data)
        except Refusal as exc:
            return Outcome(False, self.version, exc.status, {"fr": exc.fr, "en": exc.en, "rule": exc.rule})
        except IllegalMove as exc:
            status = 400 if exc.rule == "malformed" else 422
            if actor.role == "button":
                self.signal("error", exc)
            return Outcome(False, self.version, status, {"fr": exc.fr, "en": exc.en, "rule": exc.rule})
        except SessionError as exc:
            status = 400 if exc.rule == "malformed" else 422
            return Outcome(False, self.version, status, {"fr": exc.fr, "en": exc.en, "rule": exc.rule})
        except MatchClosed:
            return Outcome(False, self.version, 409, {"fr": "Cette partie est terminée.", "en": "This match is over.",
                                                      "rule": "match-closed"})
        except StoreError as exc:
            log.error("store failure: %s", exc)
            return Outcome(False, self.version, 503, {"fr": "Enregistrement impossible : rien n'a été changé.",
                                                      "en": "Could not save: nothing was changed.", "rule": "store"})

    def _authorise(self, kind: str, command: Mapping[str, Any], actor: Actor) -> None:
        if actor.role not in ROLES or actor.role == "spectator":
            raise Refusal(403, "Les spectateurs ne peuvent que regarder.", "Spectators can only watch.", "forbidden")
        if kind in HOST_ONLY and actor.role not in ("host", "system") and not (
            kind == "next_round" and actor.role == "button"
        ):
            raise Refusal(403, "Réservé à l'hôte de la partie.", "Only the host may do that.", "forbidden")
        if kind == "observation" and actor.role not in ("camera", "system"):
            raise Refusal(403, "Seule la caméra envoie des lectures.", "Only the camera sends readings.", "forbidden")
        if actor.role == "player" and kind not in ("observation",):
            session = self._need_session()
            state = session.match.state
            if kind == "reveal":
                if command.get("seat") != actor.seat:
                    raise Refusal(403, "Tu ne peux montrer que ta propre main.", "You can only show your own hand.",
                                  "forbidden")
                return
            if kind in ("confirm", "reject"):
                return
            turn = state.current_player if state.current_player >= 0 else getattr(state, "player", None)
            if turn != actor.seat:
                raise Refusal(403, "Ce n'est pas ton tour.", "It is not your turn.", "forbidden")
            if kind == "undo" and command.get("force"):
                raise Refusal(403, "Réservé à l'hôte de la partie.", "Only the host may do that.", "forbidden")

    def _need_session(self) -> Session:
        if self.session is None or self.match_id is None:
            raise Refusal(409, "Aucune partie en cours : choisis un jeu.", "No match yet: choose a game.", "no-match")
        return self.session

    def _commit(self, kind: str, payload: dict[str, Any], actor: Actor) -> int:
        """Check, store (durably), fold, then tell everyone. The only place events are written."""
        session = self._need_session()
        session.check(kind, payload)
        assert self.match_id is not None
        text = None
        if kind == "action":  # described before it is applied: the sentence names the mover
            shown = _shown(session, payload["action"])
            text = {lang: _describe(session, shown, lang) for lang in ("fr", "en")}
        seq = self.store.append(self.match_id, kind, payload, actor.label())
        session.apply(seq, kind, payload)
        self.version += 1
        self._publish_snapshot()
        self.hub.publish(Message(self.version, "change", self._change_message(kind, text)))
        return seq

    # -- commands ---------------------------------------------------------------------------

    def _cmd_new_match(self, command: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
        setup = self._setup_from(command)
        session = Session.start(setup)  # validates before anything is stored
        if self.match_id is not None and self.session is not None and not self.session.finished:
            self.store.finish_match(self.match_id)
        # The match and its setup in one transaction: a power cut between them would leave a match
        # with no events, which a restart cannot resume.
        self.match_id = self.store.create_match(setup["game"], setup.get("variant"), setup["players"], setup,
                                                first=("setup", setup), actor=actor.label())
        seq = 1
        session.version = seq
        self.session = session
        self.version += 1
        self._publish_snapshot()
        self.hub.publish(Message(self.version, "change", self._change_message("setup", None)))
        self._auto_advance()
        return {"match_id": self.match_id}

    def _cmd_rematch(self, command: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
        session = self._need_session()
        setup = dict(session.setup)
        setup["first_player"] = (int(setup.get("first_player", 0)) + 1) % len(setup["players"])
        return self._cmd_new_match({**setup, "type": "new_match"}, actor)

    def _setup_from(self, command: Mapping[str, Any]) -> dict[str, Any]:
        game_id = command.get("game")
        try:
            game = games.get(str(game_id))
        except KeyError:
            raise Refusal(422, f"Jeu inconnu « {game_id} ».", f"Unknown game '{game_id}'.", "bad-game") from None
        players = command.get("players")
        if isinstance(players, int) and not isinstance(players, bool):
            players = [f"Joueur {i + 1}" for i in range(players)]
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise Refusal(400, "Donne le nom de chaque joueur.", "Give each player's name.", "malformed")
        players = [p.strip()[:24] for p in players]
        info = game.info
        if not info.min_players <= len(players) <= info.max_players:
            raise Refusal(422, f"{info.name.fr} se joue de {info.min_players} à {info.max_players} joueurs.",
                          f"{info.name.en} is for {info.min_players} to {info.max_players} players.", "players")
        rounds = command.get("rounds")
        if rounds is not None and (not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 20):
            raise Refusal(400, "Nombre de manches entre 1 et 20.", "Rounds must be 1 to 20.", "malformed")
        first = command.get("first_player", 0)
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(players):
            raise Refusal(400, "Premier joueur invalide.", "Invalid first player.", "malformed")
        options = command.get("options") or {}
        if not isinstance(options, Mapping):
            raise Refusal(400, "Options invalides.", "Invalid options.", "malformed")
        try:
            info.variant(command.get("variant"))
            info.resolve_options(options)
        except ValueError as exc:
            raise Refusal(422, f"Réglage refusé : {exc}", f"Setting refused: {exc}", "bad-setting") from None
        return {
            "game": info.id,
            "variant": command.get("variant"),
            "players": players,
            "rounds": rounds if rounds is not None else info.default_rounds(len(players)),
            "first_player": first,
            "options": dict(options),
            "table_mode": bool(command.get("table_mode", True)),
        }

    def _cmd_action(self, command: Mapping[str, Any], actor: Actor) -> None:
        action = command.get("action")
        if not isinstance(action, Mapping):
            raise Refusal(400, "Il manque l'action.", "The action is missing.", "malformed")
        self._play(dict(action), actor, command.get("source", actor.role))

    def _play(self, action: Action, actor: Actor, source: Any = None) -> None:
        session = self._need_session()
        if session.round_done:
            raise Refusal(409, "La manche est finie.", "The round is over.", "round-over")
        self._commit("action", {"action": action, "source": str(source or actor.role)}, actor)
        self.signal("ok", None)
        self._auto_advance()

    def _auto_advance(self) -> None:
        """Apply what nobody needs to show: hidden deals and hidden draws at the table."""
        session = self.session
        system = Actor("system")
        for _ in range(50):
            if session is None or session.round_done:
                break
            state = session.match.state
            if state.current_player != CHANCE:
                break
            legal = state.legal_actions()
            if len(legal) == 1 and not is_revealing(legal[0]):
                self._commit("action", {"action": legal[0], "source": "auto"}, system)
                continue
            break
        if session is not None and not session.round_done:
            state = session.match.state
            self.signal("turn", state.current_player if state.current_player >= 0 else None)

    def _cmd_roll(self, command: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
        state = self._need_session().match.state
        faces = [a for a in state.legal_actions() if a.get("type") == "roll"]
        if state.current_player != CHANCE or not faces:
            raise Refusal(409, "Pas de dé à lancer maintenant.", "No die to roll now.", "no-roll")
        value = command.get("value")
        if value is None:
            action = state.sample_chance(self.rng)  # a fair virtual die
        else:
            action = {"type": "roll", "value": value}
        self._play(action, actor, "button" if actor.role == "button" else "web")
        return {"value": action.get("value")}

    def _cmd_draw(self, command: Mapping[str, Any], actor: Actor) -> None:
        state = self._need_session().match.state
        if not any(a.get("type") == "draw" for a in state.legal_actions()):
            raise IllegalMove("no-draw", "Piocher n'est pas possible maintenant.", "Drawing is not possible now.")
        self._play({"type": "draw"}, actor)

    def _cmd_end_turn(self, command: Mapping[str, Any], actor: Actor) -> None:
        session = self._need_session()
        if session.round_done and actor.role == "button":
            self._cmd_next_round(command, actor)
            return
        legal = session.legal()
        for kind in ("end_turn", "pass", "no_eleven"):
            match = [a for a in legal if a.get("type") == kind]
            if match:
                self._play(match[0], actor)
                return
        raise IllegalMove("cannot-end", "Le tour ne peut pas finir maintenant : il faut d'abord jouer.",
                          "The turn cannot end now: you must play first.")

    _cmd_next = _cmd_end_turn

    def _cmd_undo(self, command: Mapping[str, Any], actor: Actor) -> None:
        session = self._need_session()
        force = bool(command.get("force")) and actor.role in ("host", "system")
        count = 1
        if command.get("turn"):
            count = max(1, session.turn_start_count())
        self._commit("undo", {"count": count, "force": force}, actor)
        self.signal("ok", None)
        self._auto_advance()

    def _cmd_confirm(self, command: Mapping[str, Any], actor: Actor) -> None:
        session = self._need_session()
        proposal = session.proposal
        if proposal is None or proposal.get("id") != command.get("id"):
            raise Refusal(409, "Cette lecture n'est plus en attente.", "That reading is no longer pending.", "stale")
        choice = command.get("choice", 0)
        options = proposal.get("options") or [proposal.get("actions", [])]
        if not isinstance(choice, int) or isinstance(choice, bool) or not 0 <= choice < len(options):
            raise Refusal(400, "Choix invalide.", "Invalid choice.", "malformed")
        for action in options[choice]:
            self._play(dict(action), actor, "camera")

    def _cmd_reject(self, command: Mapping[str, Any], actor: Actor) -> None:
        session = self._need_session()
        pending = session.proposal or session.problem
        if pending is None or pending.get("id") != command.get("id"):
            raise Refusal(409, "Rien de tel en attente.", "Nothing like that is pending.", "stale")
        self._commit("resolved", {"id": pending["id"], "outcome": "rejected"}, actor)

    def _cmd_reveal(self, command: Mapping[str, Any], actor: Actor) -> None:
        self._play({"type": "reveal", "seat": command.get("seat"), "cards": command.get("cards")}, actor)

    def _cmd_round_scores(self, command: Mapping[str, Any], actor: Actor) -> None:
        self._commit("round_scores", {"scores": command.get("scores")}, actor)

    def _cmd_next_round(self, command: Mapping[str, Any], actor: Actor) -> None:
        session = self._need_session()
        if session.match.is_over and session.round_done:
            raise Refusal(409, "La partie est terminée.", "The match is over.", "match-over")
        self._commit("next_round", {}, actor)
        self._auto_advance()

    def _cmd_round_correction(self, command: Mapping[str, Any], actor: Actor) -> None:
        reason = command.get("reason", "")
        self._commit("round_correction", {"round": command.get("round"), "scores": command.get("scores"),
                                          "reason": str(reason)[:200]}, actor)

    def _cmd_finish(self, command: Mapping[str, Any], actor: Actor) -> None:
        self._commit("finish", {}, actor)
        assert self.match_id is not None
        self.store.finish_match(self.match_id)

    def _cmd_observation(self, command: Mapping[str, Any], actor: Actor) -> dict[str, Any]:
        session = self.session
        if session is None or self.perceive is None or session.round_done:
            return {"verdict": "ignored"}
        verdict = self.perceive(session, command.get("observation") or {})
        kind = verdict.get("kind")
        if kind == "commit":
            for action in verdict["actions"]:
                self._play(dict(action), Actor("camera"), "camera")
        elif kind in ("proposal", "problem"):
            pending = session.proposal if kind == "proposal" else session.problem
            same = pending is not None and pending.get("key") == verdict.get("key")
            if not same:
                payload = {k: v for k, v in verdict.items() if k != "kind"}
                payload["id"] = secrets.token_hex(4)
                self._commit(kind, payload, Actor("camera"))
                if kind == "problem":
                    self.signal("error", None)
        elif kind == "settled" and (session.problem is not None):
            self._commit("resolved", {"id": session.problem["id"], "outcome": "fixed"}, Actor("camera"))
        return {"verdict": kind}

    def _cmd_note(self, command: Mapping[str, Any], actor: Actor) -> None:
        if actor.role not in ("system", "camera"):
            raise Refusal(403, "Réservé au boîtier.", "Only the box itself writes notes.", "forbidden")
        if self.session is not None:
            text = str(command.get("text", ""))[:200]
            self._commit("note", {"text": text, "text_fr": str(command.get("text_fr", text))[:200]}, actor)

    # -- reading ----------------------------------------------------------------------------

    def _change_message(self, kind: str, text: dict[str, str] | None) -> dict[str, Any]:
        msg: dict[str, Any] = {"version": self.version, "kind": kind, "match_id": self.match_id}
        if text:
            msg["text"] = text
        return msg

    def _publish_snapshot(self) -> None:
        """Build every view once per commit, on the referee's thread; readers only copy them."""
        snap = self._build_public()
        private: dict[int | None, dict[str, Any]] = {}
        session = self.session
        if session is not None:
            state = session.match.state
            for seat in range(state.players):
                private[seat] = {"seat": seat, "view": state.view(seat), "legal": _legal_for(state, seat)}
            private[None] = {"seat": None, "legal": _legal_for(state, None)}
        with self._snapshot_lock:
            self._snapshot = snap
            self._private = private

    def snapshot(self) -> dict[str, Any]:
        """The public state (what a spectator may see), as of the last committed event."""
        with self._snapshot_lock:
            return self._snapshot

    def _build_public(self) -> dict[str, Any]:
        base: dict[str, Any] = {"match_id": self.match_id, "version": self.version, "status": dict(self.status)}
        session = self.session
        if session is None:
            return {**base, "game": None, "players": [], "scores": []}
        m = session.match
        state = m.state
        info = m.info
        return {
            **base,
            "game": info.id,
            "game_name": info.name.to_json(),
            "variant": m.variant,
            "players": list(session.setup["players"]),
            "scores": session.totals(),
            "winner_rule": info.winner,
            "rounds": {"current": session.round_no + 1, "of": m.rounds, "scores": session.round_scores(),
                       "corrected": sorted(session.corrections), "typed": sorted(session.typed)},
            "round_over": session.round_done,
            "match_over": m.is_over and session.round_done,
            "winners": session.winners() if m.is_over else [],
            "finished": session.finished,
            "table": state.view(None),
            "waiting_for": _waiting_for(state) if not session.round_done else None,
            "proposal": session.proposal,
            "problem": session.problem,
            "last": _public_last(session),
            "options": m.options,
            "guesses": [o.id for o in info.options if o.guess],
        }

    def state_for(self, actor: Actor) -> dict[str, Any]:
        """The state as `actor` may see it: public plus their own seat's private part."""
        with self._snapshot_lock:
            snap = dict(self._snapshot)
            private = self._private
        if actor.role == "player" and actor.seat in private:
            snap["me"] = private[actor.seat]
        elif actor.role == "host" and None in private:
            snap["me"] = private[None]
        return snap

    @property
    def started(self) -> bool:
        return self.alive()


def _legal_for(state: games.State, seat: int | None) -> list[Action]:
    if state.is_over:
        return []
    if seat is not None and state.current_player != seat:
        return []
    try:
        return state.legal_actions()[:200]
    except Exception:  # noqa: BLE001 - a view must never fail because of one game's listing
        log.exception("legal_actions failed")
        return []


def _shown(session: Session, action: Mapping[str, Any]) -> dict[str, Any]:
    """A chance outcome as the table saw it (a simulated deal or draw names hidden cards)."""
    state = session.match.state
    if state.current_player == CHANCE:
        return dict(state.redact(dict(action)))
    return dict(action)


def _public_last(session: Session) -> dict[str, Any] | None:
    last = session.last
    if last is None or last.get("kind") != "action" or session.match.table_mode:
        return last
    action = last["payload"].get("action", {})
    if action.get("type") in ("deal", "drawn", "opening_draw"):
        hidden = {k: None for k in ("hands", "card", "tile") if k in action}
        return {**last, "payload": {**last["payload"], "action": {**action, **hidden}}}
    return last


def _waiting_for(state: games.State) -> str | None:
    if state.current_player != CHANCE:
        return None
    legal = state.legal_actions()
    kinds = {a.get("type") for a in legal}
    if len(kinds) == 1:
        return str(next(iter(kinds)))
    phase = getattr(state, "phase", None)
    return str(phase) if phase else "table"


def _describe(session: Session, action: Mapping[str, Any], lang: str) -> str:
    try:
        return session.match.state.describe(dict(action), lang)
    except Exception:  # noqa: BLE001 - the sentence is decoration; never fail a commit for it
        return str(action.get("type"))
