/* Table Companion pages: one small script, no framework, no build step, nothing from the Internet.
 * The server embeds the caller's state in #boot; this script draws it, follows the SSE stream
 * (/api/events) and sends commands (POST /api/actions) with the state version they were issued against.
 * Colours are never shown alone: every card carries its number and a colour letter, rows their name. */
"use strict";
(function () {
  const boot = JSON.parse(document.getElementById("boot").textContent);
  const S = boot.strings || {};
  const LANG = boot.lang;
  const PAGE = boot.page;
  let state = boot.state || {};
  const COLOURS = ["yellow", "red", "blue", "green"];

  // --- small helpers -------------------------------------------------------------------------
  const tt = (key, vars) => {
    let s = S[key] !== undefined ? S[key] : key;
    if (vars) for (const k of Object.keys(vars)) s = s.split("{" + k + "}").join(String(vars[k]));
    return s;
  };
  const loc = (o) => (o ? o[LANG] || o.en || o.fr || "" : "");
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : v);
      }
    }
    for (const kid of kids.flat(3)) {
      if (kid === null || kid === undefined || kid === false) continue;
      e.append(kid.nodeType ? kid : String(kid));
    }
    return e;
  }
  function fill(id, ...kids) {
    const target = document.getElementById(id);
    if (target) target.replaceChildren(...kids.flat(3).filter((k) => k !== null && k !== undefined && k !== false));
    return target;
  }
  const you = () => state.you || { role: "spectator", seat: null };
  const table = () => state.table || {};
  const board = () => table().board || {};
  const players = () => state.players || [];
  const nameOf = (seat) => players()[seat] || tt("seat", { n: seat + 1 });
  const turnSeat = () => {
    const t = table();
    return t.current_player !== null && t.current_player !== undefined ? t.current_player : t.turn_player;
  };
  const isHost = () => you().role === "host";
  const mySeat = () => (you().role === "player" ? you().seat : null);

  // --- network ---------------------------------------------------------------------------------
  let refreshing = null;
  let again = false;
  async function refresh() {
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      try {
        const r = await fetch("/api/state", { cache: "no-store", headers: { Accept: "application/json" } });
        if (r.ok) {
          const next = await r.json();
          if (!state.version || next.version >= state.version || next.match_id !== state.match_id) {
            state = next;
            render();
          }
        }
      } catch (_) { net(false); }
      refreshing = null;
      if (again) { again = false; refresh(); }
    })();
    return refreshing;
  }
  let timer = null;
  function soon() { if (!timer) timer = setTimeout(() => { timer = null; refresh(); }, 40); }

  function net(live) {
    const n = document.getElementById("net");
    if (!n) return;
    n.textContent = live ? tt("live") : tt("offline");
    n.className = "net " + (live ? "on" : "off");
  }
  function connect() {
    if (!window.EventSource) return;
    const es = new EventSource("/api/events?last=" + (state.version || 0));
    es.addEventListener("change", soon);
    es.addEventListener("reset", soon);
    es.addEventListener("presence", (e) => {
      try { state.connected = JSON.parse(e.data).connected; renderPresence(); } catch (_) { /* ignore */ }
    });
    es.onopen = () => { net(true); soon(); };
    es.onerror = () => net(false);
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden) soon(); });
  let wasNarrow = null;
  window.addEventListener("resize", () => { if (narrow() !== wasNarrow) { wasNarrow = narrow(); render(); } });

  function toast(text, bad) {
    const t = document.getElementById("toast");
    if (!t) return;
    t.textContent = text;
    t.className = bad ? "bad" : "good";
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, bad ? 6000 : 2500);
  }
  async function post(url, body) {
    try {
      const r = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": boot.csrf },
        body: JSON.stringify(body),
      });
      const data = await r.json().catch(() => ({}));
      if (!r.ok) {
        toast(data.error || tt("failed"), true);
        if (r.status === 409 || r.status === 401) soon();
        return null;
      }
      return data;
    } catch (_) {
      toast(tt("offline"), true);
      return null;
    }
  }
  async function send(cmd, busyButton) {
    if (busyButton) busyButton.disabled = true;
    const out = await post("/api/actions", Object.assign({}, cmd, { version: state.version || 0 }));
    if (busyButton) busyButton.disabled = false;
    if (out) soon();
    return out;
  }

  // --- cards, tokens, colours ---------------------------------------------------------------------
  const LETTERS = { Y: "yellow", R: "red", B: "blue", G: "green", X: "gray" };
  function parseCard(code) {
    if (typeof code !== "string" || code.length < 2 || !LETTERS[code[0]] || !/^\d+$/.test(code.slice(1))) return null;
    return { colour: LETTERS[code[0]], value: Number(code.slice(1)) };
  }
  const colourName = (c) => tt("c." + c);
  const mark = (c) => tt("c." + c + ".mark");
  function cardName(code) {
    const p = parseCard(code);
    if (p) return tt("cardname", { value: p.value, colour: colourName(p.colour) });
    if (code === "J") return tt("joker");
    return tt("sym." + code) !== "sym." + code ? tt("sym." + code) : String(code);
  }
  function chip(code, cls) {
    const p = parseCard(code);
    if (!p) {
      const glyph = { J: "J", square: "■", triangle: "▲", star: "★", circle: "●" }[code];
      return el("span", { class: "chip plain " + (cls || ""), title: cardName(code) }, glyph || String(code));
    }
    return el("span", { class: "chip c-" + p.colour + " " + (cls || ""), title: cardName(code) },
      el("b", null, p.value), el("i", null, mark(p.colour)));
  }
  function rowHead(colour, extra) {
    return el("th", { class: "rowhead c-" + colour, scope: "row" }, el("span", null, mark(colour)), " ",
      tt("c." + colour + ".row"), extra || null);
  }

  // A row of numbered cells: `look(v)` gives [class, content] for value v. On a narrow phone a
  // long row (1-20, 1-21) is drawn as two lines, so that two-digit numbers stay readable.
  const narrow = () => window.innerWidth < 700;
  function strip(colour, from, to, look, extra) {
    const cells = [];
    for (let v = from; v <= to; v++) {
      const [cls, content, title] = look(v);
      cells.push(el("td", { class: "cell " + (cls || ""), title: title || null }, content === undefined ? v : content));
    }
    return splitRow(colour, cells, extra);
  }
  function splitRow(colour, cells, extra) {
    if (cells.length <= 12 || !narrow()) return el("tr", { class: "row r-" + colour }, rowHead(colour, extra), cells);
    const half = Math.ceil(cells.length / 2);
    const head = rowHead(colour, extra);
    head.setAttribute("rowspan", "2");
    const second = cells.slice(half);
    if (second.length < half) second.push(el("td", { class: "cell blank" }));
    return [el("tr", { class: "row r-" + colour }, head, cells.slice(0, half)),
      el("tr", { class: "row r-" + colour + " second" }, second)];
  }
  function grid(rows, caption, wide) {
    return el("table", { class: "grid" + (wide && !narrow() ? " wide" : "") }, caption ? el("caption", null, caption) : null,
      el("tbody", null, rows));
  }
  const placed = (colour, v) => ["on c-" + colour, el("span", null, el("b", null, v), el("i", null, mark(colour)))];

  // --- boards, one per game, from view()["board"] ---------------------------------------------------
  const BOARDS = {
    "elfer-raus-junior": (b) => {
      const fit = new Set(b.fitting || []);
      return grid(COLOURS.map((c) => strip(c, 1, 11, (v) => {
        if ((b.rows[c] || []).includes(v)) return placed(c, v);
        if (fit.has(c[0].toUpperCase() + v)) return ["next", v, tt("fits")];
        return ["", v];
      })));
    },
    "elfer-raus": (b) => {
      const rows = COLOURS.filter((c) => b.rows && b.rows[c]).map((c) => {
        const r = b.rows[c];
        const on = (v) => (r.span ? v >= r.span[0] && v <= r.span[1]
          : r.up ? (v >= r.up[0] && v <= r.up[1]) || (v >= r.down[0] && v <= r.down[1]) : false);
        const span = r.span ? r.span[0] + "–" + r.span[1] : r.up ? "1–" + r.up[1] + " · " + r.down[0] + "–20" : tt("not_open");
        return strip(c, 1, 20, (v) => {
          if (on(v)) return placed(c, v);
          if ((r.next || []).includes(v)) return ["next", v, tt("fits")];
          return ["", v];
        }, el("small", { class: "span" }, span));
      });
      const opening = (b.opening || []).length ? el("p", { class: "hint" }, tt("opens_with", { v: b.opening.join(", ") })) : null;
      return [grid(rows, null, true), opening];
    },
    "elevens": (b) => {
      const linked = new Set();
      for (const l of b.links || []) { linked.add(l.from + ":" + l.value); linked.add(l.to + ":" + l.value); }
      const rows = (b.rows || []).map((r) => strip(r.colour, 1, 21, (v) => {
        const code = r.positions[String(v)];
        const link = linked.has(r.colour + ":" + v) ? el("i", { class: "link", title: tt("link") }, "⇅") : null;
        if (code === "J") return ["on joker", el("span", null, el("b", null, "J"), link), tt("joker_for", { card: cardName(r.colour[0].toUpperCase() + v) })];
        if (code) return ["on c-" + r.colour, el("span", null, el("b", null, v), el("i", null, mark(r.colour)), link)];
        return [v === 11 ? "eleven" : "", v];
      }));
      const info = el("p", { class: "hint" }, tt("bonus_left", { n: b.bonus_supply }), " · ",
        tt("links_left", { list: (b.links_left || []).map((n, i) => nameOf(i) + " " + n).join(", ") }));
      return [grid(rows, null, true), info];
    },
    "start11": (b) => {
      const L = b.layout || { rows: COLOURS, jokers: [], bridges: [], symbols: {} };
      const tiles = b.tiles || {};
      const bridge = {};
      for (const br of L.bridges || []) for (const sq of br.squares) bridge[sq] = br;
      const used = new Set(b.bonus_used || []);
      const sym = { square: "■", triangle: "▲", star: "★", circle: "●" };
      const rows = L.rows.map((c) => {
        const cells = [];
        for (const pos of ["left", ...Array.from({ length: 20 }, (_, i) => String(i + 1)), "right"]) {
          const sq = c + ":" + pos;
          const tile = tiles[sq];
          const br = bridge[sq];
          let cls = "cell";
          if (L.jokers.includes(Number(pos))) cls += " jk";
          if ((L.links || []).includes(Number(pos))) cls += " lk";
          if (br) cls += br.bonus && !used.has(br.squares[0]) ? " br bonus" : " br";
          let content = pos === "left" || pos === "right" ? el("span", { class: "sym" }, sym[L.symbols[sq]] || "·") : pos;
          let title = null;
          if (tile) {
            cls += " on";
            content = chip(tile);
            title = cardName(tile);
          } else if (pos === "left" || pos === "right") {
            title = tt("sym." + L.symbols[sq]);
          }
          if (br) content = el("span", null, content, el("i", { class: "bridge", title: tt(br.bonus ? "bonus_bridge" : "bridge") }, br.bonus ? "+" : "⇅"));
          cells.push(el("td", { class: cls, title }, content));
        }
        return splitRow(c, cells);
      });
      const legend = el("p", { class: "hint" }, tt("start11_legend"), L.guess ? " " + tt("board_guess") : "");
      return [grid(rows, null, true), legend];
    },
    "11-nimmt": (b) => {
      const piles = (b.piles || []).map((p) => el("div", { class: "pile" },
        el("span", { class: "pile-id" }, tt("pile", { n: p.id })),
        el("b", { class: "pile-top" }, p.top),
        el("span", null, tt("pile_size", { n: p.size })),
        (p.playable || []).length ? el("small", { class: "pile-range" }, "→ " + p.playable[0] + "–" + p.playable[p.playable.length - 1]) : null));
      return [el("div", { class: "piles" }, piles.length ? piles : el("p", null, tt("no_piles"))),
        el("p", { class: "hint" }, tt("bulls_left", { n: b.bull_supply }),
          table().heads_guess ? " " + tt("heads_guess") : "")];
    },
    "numeri": (b) => {
      const tr = b.track || { values: [], yellow: [] };
      const cells = tr.values.map((v, i) => {
        const tok = (b.squares || {})[String(i)];
        let cls = "sq";
        if ((tr.yellow || []).includes(i)) cls += " goal";
        if (tr.barrier && i === tr.barrier[1]) cls += " after-bar";
        return el("li", { class: cls, title: tt("square", { n: i, v }) },
          el("small", null, "#" + i), el("span", { class: "val" }, v),
          (tr.yellow || []).includes(i) ? el("em", null, "★") : null,
          tok ? chip(tok, "token") : null);
      });
      const off = (b.off_board || []).map((list, seat) => el("p", { class: "off" },
        el("span", { class: "who c-" + (b.colours || COLOURS)[seat] }, mark((b.colours || COLOURS)[seat])), " ",
        nameOf(seat), " : ", list.length ? list.map((c) => chip(c, "token")) : tt("none_left")));
      const notes = [];
      if (tr.barrier) notes.push(tt(tr.crossed ? "barrier_crossed" : "barrier", { a: tr.barrier[0], b: tr.barrier[1] }));
      if (b.partner) notes.push(tt("partner", { token: cardName(b.partner) }));
      if (tr.values_guessed || tr.barrier_guessed) notes.push(tt("track_guess"));
      return [el("ol", { class: "track", start: 0 }, cells), off, el("p", { class: "hint" }, notes.join(" · "))];
    },
  };
  function renderBoard(id) {
    const target = document.getElementById(id);
    if (!target) return;
    const draw = BOARDS[state.game];
    if (!state.game) return fill(id, null);
    if (!draw) return fill(id, el("p", null, tt("no_drawing")));
    try {
      fill(id, draw(board(), state));
    } catch (err) {
      fill(id, el("p", { class: "warn" }, tt("no_drawing")));
    }
  }

  // --- status, scores, journal, proposals ------------------------------------------------------------
  function statusLine() {
    if (!state.game) {
      return el("div", { class: "status" }, el("h1", null, tt("no_match")),
        isHost() ? el("a", { class: "btn", href: "/setup" }, tt("choose_game")) : el("p", null, tt("wait_host")));
    }
    const t = table();
    const head = el("h1", null, loc(state.game_name), state.variant ? el("small", null, " · " + state.variant) : null);
    const round = el("p", { class: "round" }, tt("round", { n: state.rounds.current, of: state.rounds.of }));
    let line;
    if (state.match_over || state.finished) {
      const w = (state.winners || []).map(nameOf).join(", ");
      line = el("p", { class: "big win" }, w ? tt("match_won", { names: w }) : tt("match_over"));
    } else if (state.round_over) {
      line = el("p", { class: "big" }, tt("round_over"), isHost() ? null : " " + tt("wait_next_round"));
    } else if (state.waiting_for) {
      const key = "wait." + state.waiting_for;
      const who = state.waiting_for !== "reveal" && t.turn_player !== undefined && t.turn_player !== null;
      line = el("p", { class: "big" }, tt("table_says"), " ", S[key] ? tt(key) : state.waiting_for,
        who ? " (" + nameOf(t.turn_player) + ")" : null);
    } else {
      const seat = turnSeat();
      const mine = mySeat() === seat;
      line = el("p", { class: "big turn" + (mine ? " mine" : "") }, mine ? tt("your_turn") : tt("turn_of", { name: nameOf(seat) }));
    }
    const die = board().die;
    const dieBox = die !== undefined && die !== null ? el("div", { class: "die", title: tt("die") }, die === "star" ? "★" : die) : null;
    return el("div", { class: "status" }, el("div", { class: "status-text" }, head, round, line), dieBox);
  }

  function scoresTable() {
    if (!state.game) return null;
    const t = table();
    const rounds = (state.rounds && state.rounds.scores) || [];
    const corrected = new Set((state.rounds && state.rounds.corrected) || []);
    const live = t.scores && !state.round_over ? t.scores : null;
    const winners = new Set(state.match_over ? state.winners || [] : []);
    const turn = state.waiting_for === "reveal" ? -1 : turnSeat();
    const numeri = state.game === "numeri";
    const head = el("tr", null, el("th", null, tt("player")), el("th", null, tt(numeri ? "tokens_off" : "in_hand")),
      rounds.map((_, i) => el("th", null, tt("round_short", { n: i + 1 }), corrected.has(i) ? el("sup", { title: tt("corrected") }, "✎") : null)),
      live ? el("th", null, tt("this_round")) : null,
      el("th", null, tt("total")));
    const rows = players().map((name, seat) => el("tr", { class: (seat === turn && !state.round_over ? "turn " : "") + (winners.has(seat) ? "winner" : "") },
      el("th", { scope: "row" },
        numeri ? el("span", { class: "who c-" + COLOURS[seat] }, mark(COLOURS[seat])) : null, " ", name,
        seat === turn && !state.round_over ? el("span", { class: "tag" }, " ◀ " + tt("turn_tag")) : null,
        winners.has(seat) ? el("span", { class: "tag" }, " ★ " + tt("winner")) : null,
        (board().bulls || [])[seat] ? el("span", { class: "tag" }, " " + tt("bulls", { n: board().bulls[seat] })) : null),
      el("td", null, (t.hand_sizes || [])[seat] ?? "–"),
      rounds.map((r) => el("td", null, r[seat])),
      live ? el("td", null, live[seat]) : null,
      el("td", { class: "total" }, (state.scores || [])[seat])));
    const rule = el("caption", null, tt(state.winner_rule === "lowest" ? "lowest_wins" : "highest_wins"));
    return el("table", { class: "scores" }, rule, el("thead", null, head), el("tbody", null, rows));
  }

  function journal() {
    const list = (state.journal || []).slice(-6).reverse();
    if (!list.length) return null;
    return el("div", { class: "journal" }, el("h2", null, tt("just_now")),
      el("ul", null, list.map((e, i) => el("li", { class: i === 0 ? "latest" : "" }, loc(e.text)))));
  }

  function alertBox() {
    const out = [];
    const canAnswer = you().role !== "spectator";
    const p = state.proposal_view;
    if (p) {
      const options = p.options.map((opt, i) => el("li", null,
        opt.map(loc).join(" · ") || tt("nothing"),
        canAnswer ? el("button", { class: "btn ok", onclick: (e) => send({ type: "confirm", id: p.id, choice: i }, e.target) }, tt("confirm")) : null));
      out.push(el("div", { class: "alert proposal", role: "alert" },
        el("h2", null, tt("camera_read")),
        p.seen ? el("p", null, tt("seen"), " ", loc(p.seen)) : null,
        p.why ? el("p", null, loc(p.why)) : null,
        el("ul", null, options),
        canAnswer ? el("button", { class: "btn", onclick: (e) => send({ type: "reject", id: p.id }, e.target) }, tt("reject")) : null,
        canAnswer ? el("p", { class: "hint" }, tt("correct_hint")) : null));
    }
    const q = state.problem_view;
    if (q) {
      out.push(el("div", { class: "alert problem", role: "alert" },
        el("h2", null, tt("problem")),
        q.expected ? el("p", null, el("b", null, tt("expected")), " ", loc(q.expected)) : null,
        q.seen ? el("p", null, el("b", null, tt("seen")), " ", loc(q.seen)) : null,
        q.message ? el("p", { class: "rule" }, loc(q.message)) : null,
        el("p", { class: "hint" }, tt("problem_hint")),
        canAnswer ? el("button", { class: "btn", onclick: (e) => send({ type: "reject", id: q.id }, e.target) }, tt("dismiss")) : null));
    }
    return out;
  }

  function renderPresence() {
    const list = state.connected || [];
    const label = (c) => (c.role === "host" ? tt("role.host") : c.role === "player" ? nameOf(c.seat) : tt("role.spectator"));
    fill("presence", el("h2", null, tt("connected")), list.length
      ? el("ul", { class: "inline" }, list.map((c) => el("li", null, label(c), c.streams > 1 ? " ×" + c.streams : "")))
      : el("p", null, tt("nobody")));
  }

  // --- the player's controls ------------------------------------------------------------------------
  const GROUP_ORDER = ["turn", "table", "links", "take", "tokens"];
  function movesPanel() {
    const me = state.me || {};
    const moves = me.moves || [];
    if (!moves.length) return null;
    const groups = new Map();
    for (const m of moves) {
      const key = m.group.key;
      if (!groups.has(key)) groups.set(key, { group: m.group, moves: [] });
      groups.get(key).moves.push(m);
    }
    const keys = [...groups.keys()].sort((a, b) => {
      const ia = GROUP_ORDER.indexOf(a); const ib = GROUP_ORDER.indexOf(b);
      return (ia < 0 ? 10 : ia) - (ib < 0 ? 10 : ib) || a.localeCompare(b);
    });
    return el("div", { class: "moves" }, el("h2", null, isHost() && mySeat() === null ? tt("moves_for", { name: nameOf(turnSeat()) }) : tt("moves")),
      keys.map((k) => {
        const g = groups.get(k);
        const many = g.moves.length > 12;
        return el("section", { class: "group" + (g.group.colour ? " g-" + g.group.colour : "") },
          el("h3", null, g.group.colour ? el("span", { class: "mark c-" + g.group.colour }, mark(g.group.colour)) : null, " ", loc(g.group)),
          el("div", { class: many ? "buttons compact" : "buttons" }, g.moves.map((m) =>
            el("button", { class: "btn move", "data-kind": m.kind, onclick: (e) => send({ type: "action", action: m.action }, e.target) },
              many ? shortLabel(m) : loc(m.label)))));
      }));
  }
  function shortLabel(m) {
    const a = m.action;
    if (a.type === "deal" && a.flip) return a.flip;
    if (a.type === "play" && a.card && a.pile === undefined) return cardName(a.card);
    return loc(m.label);
  }

  function dieFaces() { return state.game === "numeri" ? [1, 2, 3, 4, 5, "star"] : [1, 2, 3, 4, 5, 6]; }
  function rollPanel() {
    if (state.waiting_for !== "roll" || state.round_over) return null;
    if (!(isHost() || mySeat() === table().turn_player)) return null;
    return el("div", { class: "rollbox" },
      el("button", { class: "btn big primary", onclick: (e) => send({ type: "roll" }, e.target) }, "🎲 " + tt("roll")),
      el("p", null, tt("rolled_real")),
      el("div", { class: "buttons faces" }, dieFaces().map((f) => el("button", {
        class: "btn face", "aria-label": tt("rolled", { v: f === "star" ? tt("star") : f }),
        onclick: (e) => send({ type: "roll", value: f }, e.target),
      }, f === "star" ? "★" : f))));
  }
  function undoPanel() {
    if (!state.game || state.round_over || you().role === "spectator" || table().phase === "reveal") return null;
    if (!isHost() && mySeat() !== turnSeat()) return null;
    return el("div", { class: "buttons undo" },
      el("button", { class: "btn", onclick: (e) => send({ type: "undo" }, e.target) }, "↶ " + tt("undo")),
      el("button", { class: "btn", onclick: (e) => send({ type: "undo", turn: true }, e.target) }, "⟲ " + tt("undo_turn")));
  }

  // The cards the table shows (they cannot be in a hand): for the card picker.
  function onBoard() {
    const b = board();
    const seen = {};
    const add = (code) => { seen[code] = (seen[code] || 0) + 1; };
    const up = (c) => c[0].toUpperCase();
    if (state.game === "elfer-raus-junior") for (const c of COLOURS) for (const v of (b.rows || {})[c] || []) add(up(c) + v);
    if (state.game === "elfer-raus") {
      for (const c of COLOURS) {
        const r = (b.rows || {})[c];
        if (!r) continue;
        const spans = r.span ? [r.span] : r.up ? [r.up, r.down] : [];
        for (const [lo, hi] of spans) for (let v = lo; v <= hi; v++) add(up(c) + v);
      }
    }
    if (state.game === "elevens") for (const r of b.rows || []) for (const code of Object.values(r.positions)) add(code);
    if (state.game === "start11") for (const code of Object.values(b.tiles || {})) add(code);
    if (state.game === "11-nimmt") for (const p of b.piles || []) add(String(p.top));
    return seen;
  }

  // Round end: lay the hand out and tap the cards (or the host types the scores on the setup page).
  const picker = { seat: null, cards: [], round: null };
  function revealPanel() {
    const t = table();
    if (t.phase !== "reveal" || state.round_over || !(state.deck || []).length) return null;
    if (picker.round !== state.rounds.current) { picker.round = state.rounds.current; picker.cards = []; picker.seat = null; }
    let seat = mySeat();
    if (seat === null && isHost()) seat = picker.seat ?? 0;
    if (seat === null) return null;
    if (picker.seat !== seat) { picker.seat = seat; picker.cards = []; }
    const need = (t.hand_sizes || [])[seat] || 0;
    const mine = (((state.me || {}).view || {}).hand || []);
    if (need === 0 && mySeat() !== null) return el("div", { class: "reveal done" }, el("h2", null, tt("nothing_to_show")));
    if (mySeat() !== null && need > 0 && mine.length === need) {
      return el("div", { class: "reveal done" }, el("h2", null, tt("hand_shown")), el("p", null, mine.map((c) => chip(c))));
    }
    const counts = {};
    for (const c of picker.cards) counts[c] = (counts[c] || 0) + 1;
    const seatChooser = isHost() && mySeat() === null ? el("label", null, tt("hand_of"), " ", el("select", {
      onchange: (e) => { picker.seat = Number(e.target.value); picker.cards = []; render(); },
    }, players().map((n, i) => el("option", { value: i, selected: i === seat ? true : null }, n)))) : null;
    const shown = onBoard();
    const deck = state.deck.map(([code, total]) => {
      const n = counts[code] || 0;
      const copies = Math.max(0, total - (shown[code] || 0));
      return el("button", {
        class: "btn pick" + (n ? " chosen" : ""), "aria-pressed": n ? "true" : "false", title: cardName(code),
        disabled: copies === 0 ? true : null,
        onclick: () => { if (n < copies && picker.cards.length < need) picker.cards.push(code); else picker.cards = picker.cards.filter((c, i, all) => !(c === code && i === all.lastIndexOf(code))); render(); },
      }, chip(code), n > 1 ? el("small", null, "×" + n) : null);
    });
    return el("div", { class: "reveal" },
      el("h2", null, tt("count_hand")), seatChooser,
      el("p", null, tt("pick_cards", { n: need, name: nameOf(seat) })),
      el("div", { class: "deck" + (state.deck.length > 60 ? " dense" : "") }, deck),
      el("p", { class: "picked" }, tt("picked", { n: picker.cards.length, of: need }), " ", picker.cards.map((c) => chip(c))),
      el("button", {
        class: "btn primary", disabled: picker.cards.length === need ? null : true,
        onclick: async (e) => { if (await send({ type: "reveal", seat, cards: picker.cards.slice() }, e.target)) { picker.cards = []; } },
      }, tt("show_hand", { n: need })));
  }

  function myHand() {
    const hand = (((state.me || {}).view || {}).hand || []);
    if (!hand.length || table().phase === "reveal") return null;
    return el("div", { class: "hand" }, el("h2", null, tt("my_known_cards")), el("p", null, hand.map((c) => chip(c))));
  }

  // --- pages -------------------------------------------------------------------------------------------
  function renderTable() {
    fill("status", statusLine());
    fill("alert", alertBox());
    renderBoard("board");
    fill("journal", journal());
    fill("scores", scoresTable());
    renderPresence();
  }

  function renderPlayer() {
    fill("status", statusLine());
    fill("alert", alertBox());
    const r = you().role;
    if (r === "spectator") {
      const join = document.getElementById("joinbox");
      if (join) join.hidden = false;
      if (you().problem === "revoked") fill("alert", el("p", { class: "warn", role: "alert" }, tt("revoked")), alertBox());
    }
    fill("controls", rollPanel(), revealPanel(), movesPanel(), undoPanel(), myHand(),
      r !== "spectator" && !state.round_over && state.game && !(state.me || {}).moves?.length && !state.waiting_for
        ? el("p", { class: "hint" }, tt("wait_your_turn")) : null);
    renderBoard("board");
    fill("journal", journal());
    fill("scores", scoresTable());
  }

  // --- setup (host) ---------------------------------------------------------------------------------------
  const games = boot.games || [];
  function renderSetup() {
    fill("running", runningPanel());
    renderPresence();
  }
  function scoreInputs(prefix, values) {
    return el("div", { class: "score-inputs" }, players().map((n, i) => el("label", null, n, " ",
      el("input", { type: "number", inputmode: "numeric", step: 1, required: true, name: prefix + i, value: values ? values[i] : "" }))));
  }
  function readScores(form, prefix) {
    return players().map((_, i) => Number.parseInt(form.elements[prefix + i].value, 10));
  }
  function runningPanel() {
    if (!state.game) return el("p", null, tt("no_match"));
    const parts = [el("h2", null, tt("current_match"), " — ", loc(state.game_name))];
    const btns = [];
    if (state.round_over && !state.match_over) btns.push(el("button", { class: "btn primary", onclick: (e) => send({ type: "next_round" }, e.target) }, tt("next_round")));
    btns.push(el("button", { class: "btn", onclick: (e) => send({ type: "rematch" }, e.target) }, tt("rematch")));
    if (!state.round_over) btns.push(el("button", { class: "btn", onclick: (e) => send({ type: "undo", force: true }, e.target) }, tt("force_undo")));
    if (!state.finished) {
      btns.push(el("button", { class: "btn danger", onclick: (e) => { if (window.confirm(tt("finish_confirm"))) send({ type: "finish" }, e.target); } }, tt("finish")));
    }
    parts.push(el("div", { class: "buttons" }, btns));
    if (!state.round_over && !state.finished) {
      parts.push(el("form", {
        class: "card-form", onsubmit: (e) => { e.preventDefault(); send({ type: "round_scores", scores: readScores(e.target, "s") }, e.submitter); },
      }, el("h3", null, tt("typed_scores")), el("p", { class: "hint" }, tt("typed_scores_hint")), scoreInputs("s"),
        el("button", { class: "btn", type: "submit" }, tt("save_scores"))));
    }
    const done = (state.rounds && state.rounds.scores) || [];
    if (done.length) {
      parts.push(el("form", {
        class: "card-form", onsubmit: (e) => {
          e.preventDefault();
          const f = e.target;
          send({ type: "round_correction", round: Number(f.elements.round.value), scores: readScores(f, "c"), reason: f.elements.reason.value }, e.submitter);
        },
      }, el("h3", null, tt("correct_round")),
      el("label", null, tt("round_label"), " ", el("select", { name: "round" }, done.map((_, i) => el("option", { value: i }, i + 1)))),
      scoreInputs("c", done[done.length - 1]),
      el("label", null, tt("reason"), " ", el("input", { name: "reason", maxlength: 200 })),
      el("button", { class: "btn", type: "submit" }, tt("correct"))));
    }
    return parts;
  }

  function setupForm() {
    const form = document.getElementById("newmatch");
    if (!form || !games.length) return;
    const prev = players().length ? players().slice() : [tt("seat", { n: 1 }), tt("seat", { n: 2 })];
    const model = { game: state.game || games[0].id, players: prev, variant: state.variant || "", options: {}, first: 0, rounds: null };
    function info() { return games.find((g) => g.id === model.game) || games[0]; }
    function draw() {
      const g = info();
      model.players = model.players.slice(0, g.max_players);
      while (model.players.length < g.min_players) model.players.push(tt("seat", { n: model.players.length + 1 }));
      const n = model.players.length;
      const defRounds = g.rounds_default[n] || g.rounds_default[String(n)] || 1;
      const gameSel = el("select", { name: "game", onchange: (e) => { model.game = e.target.value; model.variant = ""; model.options = {}; model.rounds = null; draw(); } },
        games.map((x) => el("option", { value: x.id, selected: x.id === model.game ? true : null }, loc(x.name))));
      const variant = g.variants.length ? el("label", null, tt("variant"), " ", el("select", { name: "variant", onchange: (e) => { model.variant = e.target.value; } },
        el("option", { value: "" }, tt("base_game")),
        g.variants.map((v) => el("option", { value: v.id, selected: v.id === model.variant ? true : null }, loc(v.name) + " — " + loc(v.description))))) : null;
      const names = model.players.map((p, i) => el("li", null,
        el("span", { class: "seatno" }, i + 1), " ",
        el("input", { value: p, maxlength: 24, required: true, "aria-label": tt("seat", { n: i + 1 }), oninput: (e) => { model.players[i] = e.target.value; } }),
        el("button", { type: "button", class: "btn small", "aria-label": tt("move_up"), disabled: i === 0 ? true : null, onclick: () => { [model.players[i - 1], model.players[i]] = [model.players[i], model.players[i - 1]]; draw(); } }, "↑"),
        el("button", { type: "button", class: "btn small", "aria-label": tt("remove"), disabled: n <= g.min_players ? true : null, onclick: () => { model.players.splice(i, 1); draw(); } }, "✕")));
      const add = el("button", { type: "button", class: "btn small", disabled: n >= g.max_players ? true : null, onclick: () => { model.players.push(tt("seat", { n: n + 1 })); draw(); } }, "+ " + tt("add_player"));
      const options = g.options.map((o) => {
        const value = model.options[o.id] !== undefined ? model.options[o.id] : o.default;
        const isBool = o.choices.length === 2 && o.choices.includes(true) && o.choices.includes(false);
        const input = isBool
          ? el("input", { type: "checkbox", checked: value ? true : null, onchange: (e) => { model.options[o.id] = e.target.checked; } })
          : el("select", { onchange: (e) => { model.options[o.id] = o.choices[Number(e.target.value)]; } },
            o.choices.map((c, i) => el("option", { value: i, selected: c === value ? true : null }, String(c))));
        return el("li", null, el("label", null, input, " ", loc(o.description)),
          o.guess ? el("span", { class: "guess", title: tt("guess_title") }, " " + tt("guess")) : null);
      });
      fill("newmatch",
        el("h2", null, tt("new_match")),
        el("label", null, tt("game"), " ", gameSel), " ",
        el("a", { href: "/rules/" + g.id }, tt("rules_of")),
        variant,
        el("h3", null, tt("players_order")), el("ol", { class: "names" }, names), add,
        el("label", null, tt("rounds"), " ", el("input", { type: "number", min: 1, max: 20, name: "rounds", value: model.rounds || defRounds, onchange: (e) => { model.rounds = Number(e.target.value); } })),
        el("label", null, tt("first_player"), " ", el("select", { onchange: (e) => { model.first = Number(e.target.value); } },
          model.players.map((p, i) => el("option", { value: i, selected: i === model.first ? true : null }, p)))),
        options.length ? el("div", null, el("h3", null, tt("options")), el("ul", { class: "options" }, options)) : null,
        el("button", { type: "submit", class: "btn primary big" }, tt("start_match")));
    }
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const g = info();
      const cmd = { type: "new_match", game: g.id, players: model.players.map((p) => p.trim()), first_player: Math.min(model.first, model.players.length - 1), options: model.options };
      if (model.variant) cmd.variant = model.variant;
      if (model.rounds) cmd.rounds = model.rounds;
      if (state.game && !state.match_over && !state.finished && !window.confirm(tt("replace_confirm"))) return;
      if (await send(cmd, e.submitter)) { toast(tt("started")); loadCodes(); }
    });
    draw();
  }

  async function loadCodes() {
    const box = document.getElementById("codes");
    if (!box) return;
    const r = await fetch("/api/codes", { cache: "no-store" });
    if (!r.ok) return;
    const data = await r.json();
    const n = players().length;
    const rows = data.codes.filter((c) => c.role !== "player" || c.seat < Math.max(n, 2)).map((c) => {
      const who = c.role === "host" ? tt("role.host") : c.role === "spectator" ? tt("role.spectator") : (c.name || tt("seat", { n: c.seat + 1 }));
      const qr = el("img", { class: "qr", alt: tt("qr_for", { who }), src: c.qr, width: 148, height: 148, loading: "lazy", hidden: true });
      return el("li", { class: "code" },
        el("div", null, el("b", null, who), el("code", { class: "joincode" }, c.code.slice(0, 3) + " " + c.code.slice(3))),
        el("div", { class: "buttons" },
          el("button", { type: "button", class: "btn small", onclick: () => { qr.hidden = !qr.hidden; } }, tt("show_qr")),
          el("button", { type: "button", class: "btn small", onclick: async () => { if (await post("/api/codes/rotate", { key: c.key })) loadCodes(); } }, tt("rotate"))),
        qr);
    });
    box.replaceChildren(el("h2", null, tt("join_codes")),
      el("p", { class: "hint" }, tt("join_hint", { url: data.join_page })),
      el("ul", { class: "codes" }, rows),
      el("button", { type: "button", class: "btn", onclick: async () => { if (window.confirm(tt("rotate_all_confirm")) && await post("/api/codes/rotate", { key: "all" })) loadCodes(); } }, tt("rotate_all")));
  }

  // --- history ------------------------------------------------------------------------------------------------
  async function renderHistory() {
    const r = await fetch("/api/history", { cache: "no-store" });
    if (!r.ok) return;
    const data = await r.json();
    const matches = data.matches.map((m) => {
      const best = new Set(m.winners || []);
      return el("tr", null,
        el("td", null, (m.created || "").slice(0, 16).replace("T", " ")),
        el("td", null, loc(m.game_name) || m.game),
        el("td", null, (m.players || []).map((p, i) => el("span", { class: best.has(i) && m.over ? "winner" : "" }, p, " ", el("b", null, (m.totals || [])[i] ?? ""), best.has(i) && m.over ? " ★" : "", i < m.players.length - 1 ? ", " : ""))),
        el("td", null, tt("rounds_done", { n: (m.rounds || []).length, of: m.rounds_of || "?" })),
        el("td", null, tt("status." + (m.status || "active"))),
        el("td", null, el("a", { href: "/api/history/" + encodeURIComponent(m.id) + ".json", download: true }, "JSON"), " · ",
          el("a", { href: "/api/history/" + encodeURIComponent(m.id) + ".csv", download: true }, "CSV")));
    });
    fill("matches", matches.length ? el("table", { class: "list" },
      el("thead", null, el("tr", null, ["date", "game", "players_totals", "rounds", "status", "export"].map((k) => el("th", null, tt("h." + k))))),
      el("tbody", null, matches)) : el("p", null, tt("no_history")));
    const stats = data.statistics.map((s) => el("tr", null, el("th", { scope: "row" }, s.name), el("td", null, s.played), el("td", null, s.won),
      el("td", null, s.played ? Math.round((100 * s.won) / s.played) + " %" : "–"), el("td", null, s.rounds),
      el("td", null, Object.entries(s.games).map(([g, v]) => g + " " + v.won + "/" + v.played).join(", "))));
    fill("stats", stats.length ? el("table", { class: "list" },
      el("thead", null, el("tr", null, ["name", "played", "won", "rate", "rounds", "per_game"].map((k) => el("th", null, tt("s." + k))))),
      el("tbody", null, stats)) : null);
  }

  // --- camera (host) ------------------------------------------------------------------------------------------
  function cameraPage() {
    const preview = document.getElementById("preview");
    if (!preview) return;
    const start = () => { preview.src = "/camera/stream.mjpg?t=" + Date.now(); };
    const stop = () => { preview.removeAttribute("src"); };
    start();
    document.addEventListener("visibilitychange", () => (document.hidden ? stop() : start()));
    window.addEventListener("pagehide", stop);
    const shot = document.getElementById("shot");
    const marks = document.getElementById("marks");
    let points = [];
    document.getElementById("calibrate").addEventListener("click", () => {
      points = [];
      marks.replaceChildren();
      shot.src = "/camera/snapshot.jpg?t=" + Date.now();
      shot.parentElement.hidden = false;
      fill("calib-msg", tt("tap_corners", { n: 4 }));
    });
    shot.addEventListener("click", async (e) => {
      if (points.length >= 4) return;
      const box = shot.getBoundingClientRect();
      const x = ((e.clientX - box.left) * shot.naturalWidth) / box.width;
      const y = ((e.clientY - box.top) * shot.naturalHeight) / box.height;
      points.push([Math.round(x * 10) / 10, Math.round(y * 10) / 10]);
      const m = el("span", { class: "mark-dot" }, points.length);
      m.style.left = ((e.clientX - box.left) / box.width) * 100 + "%";
      m.style.top = ((e.clientY - box.top) / box.height) * 100 + "%";
      marks.append(m);
      if (points.length < 4) { fill("calib-msg", tt("tap_corners", { n: 4 - points.length })); return; }
      const out = await post("/api/camera/calibrate", { points });
      fill("calib-msg", out ? tt("calibrated") : tt("calibration_failed"));
    });
    document.getElementById("empty-board").addEventListener("click", async () => {
      const out = await post("/api/camera/empty-board", {});
      if (out) fill("empty-msg", loc(out.result.message) || tt("empty_learnt"));
    });
    document.getElementById("teach").addEventListener("submit", async (e) => {
      e.preventDefault();
      const game = e.target.elements.game.value;
      const out = await post("/api/camera/teach", { game });
      if (!out) return;
      fill("teach-msg", loc(out.result.message) || tt("taught"));
      teachList(game, out.result.cards || []);
    });
  }

  // "Teach this deck", second step: the cards as read, each correctable, then confirmed.
  function teachList(game, cards) {
    const kinds = ["number", "joker", "link", "bonus", "bull"];
    const rows = cards.map((c, i) => el("li", { class: "teach-card" },
      el("label", null, tt("teach_card", { n: i + 1 }), " ",
        el("select", { name: "kind", "aria-label": tt("teach_kind") },
          kinds.map((k) => el("option", { value: k, selected: c.kind === k }, tt("teach_kind." + k))))),
      el("input", { name: "value", type: "number", min: 1, max: 100, inputmode: "numeric",
        value: c.value === null || c.value === undefined ? "" : c.value, "aria-label": tt("teach_value") }),
      el("select", { name: "color", "aria-label": tt("teach_colour") },
        el("option", { value: "" }, "—"),
        [...COLOURS, "gray"].map((k) => el("option", { value: k, selected: c.color === k }, tt("c." + k)))),
      el("label", null, el("input", { name: "skip", type: "checkbox" }), " ", tt("teach_not_card"))));
    const form = el("form", { id: "teach-confirm" }, el("ol", null, rows),
      el("button", { class: "btn primary", type: "submit" }, tt("teach_confirm")));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const labels = [...form.querySelectorAll("li.teach-card")].map((li) => {
        if (li.querySelector("[name=skip]").checked) return null;
        const kind = li.querySelector("[name=kind]").value;
        const value = parseInt(li.querySelector("[name=value]").value, 10);
        const color = li.querySelector("[name=color]").value || null;
        return { kind, value: kind === "number" ? value : null, color };
      });
      const done = await post("/api/camera/teach", { game, cards: labels });
      if (done) { fill("teach-msg", loc(done.result.message) || tt("taught")); fill("teach-list"); }
    });
    fill("teach-list", form);
  }

  // --- dispatch ---------------------------------------------------------------------------------------------------
  function render() {
    const page = { table: renderTable, player: renderPlayer, setup: renderSetup }[PAGE];
    if (page) page();
  }
  if (PAGE === "setup") { setupForm(); loadCodes(); }
  if (PAGE === "history") renderHistory();
  if (PAGE === "camera") cameraPage();
  render();
  if (PAGE === "table" || PAGE === "player" || PAGE === "setup") connect();
  const leave = document.getElementById("leave");
  if (leave) leave.addEventListener("click", async () => { if (await post("/api/leave", {})) window.location.href = "/"; });
  document.documentElement.classList.add("js");
})();
