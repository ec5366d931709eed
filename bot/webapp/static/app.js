// The table in one view: draws the seat's state from the bot's API and sends one request per move.
// Nothing here knows a rule: the server says what the moment asks (state.mode) and refuses what the
// engine refuses, with the keyboard's words.
"use strict";

(function () {
  const signin = window.chaodipiSignIn;  // signin.js: Telegram's initData, or chaodipi play's local sign-in
  if (!signin) {
    document.getElementById("app").hidden = true;
    document.getElementById("no-telegram").hidden = false;
    return;
  }
  const tg = signin.tg;  // null in a browser (chaodipi play): no theme, haptics or back button then
  if (tg) {
    tg.ready();
    if (tg.expand) tg.expand();
  }

  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const params = new URLSearchParams(location.search);
  const startParam = (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "";
  let tableId = params.get("t") || (/^t\d+$/.test(startParam) ? startParam.slice(1) : null);
  const replayId = params.get("replay") || (/^r\d+$/.test(startParam) ? startParam.slice(1) : null);
  let state = null;
  let selected = [];      // indexes into state.hand
  let choosing = null;    // {op, cards, choices} while the trump choice is asked
  let replay = null;      // {data, trick}
  let busy = false;
  let source = null;      // the open EventSource
  let opening = 0;        // counts calls of listen(): only the latest may open a stream
  let retries = 0;        // failed openings in a row (the next waits longer)

  const $ = (id) => document.getElementById(id);

  function applyTheme() {
    const theme = (tg && tg.themeParams) || {};
    for (const key of Object.keys(theme)) {
      document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), theme[key]);
    }
  }
  applyTheme();
  if (tg && tg.onEvent) tg.onEvent("themeChanged", applyTheme);

  function w(key, values) {
    let text = (state && state.words[key]) || key;
    for (const [k, v] of Object.entries(values || {})) text = text.split("{" + k + "}").join(v);
    return text;
  }

  function label(card) {
    const zh = state && state.lang === "zh";
    if (card === "BJ") return zh ? "大王" : "BJ";
    if (card === "SJ") return zh ? "小王" : "SJ";
    return SUITS[card.slice(-1)] + card.slice(0, -1);
  }

  function cardEl(card, trump) {
    const el = document.createElement("div");
    el.className = "card";
    el.dataset.card = card;
    if (card === "BJ" || card === "SJ") {
      el.classList.add("joker");
      if (card === "BJ") el.classList.add("red");
      // 大王/小王 as players say it; in English the joker's colour tells big (red) from small.
      const name = state && state.lang === "zh" ? label(card) : "JOKER";
      el.innerHTML = `<span class="r">${name}</span><span class="big">★</span>`;
    } else {
      const suit = card.slice(-1);
      if (suit === "H" || suit === "D") el.classList.add("red");
      el.innerHTML = `<span class="r">${card.slice(0, -1)}</span><span class="s">${SUITS[suit]}</span>` +
        `<span class="big">${SUITS[suit]}</span>`;
    }
    if (trump) el.classList.add("trump");
    return el;
  }

  function toast(text) {
    const el = $("toast");
    el.textContent = text;
    el.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { el.hidden = true; }, 3500);
    if (tg && tg.HapticFeedback) tg.HapticFeedback.notificationOccurred("error");
  }

  async function api(path, body) {
    const response = await fetch("api/" + path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Authorization": signin.header, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { status: response.status, data: data || {} };
  }

  // --- drawing -----------------------------------------------------------------------------------------
  function position(seat) { return ["me", "right", "top", "left"][(seat - state.seat + 4) % 4]; }

  function drawSeats(view) {
    for (let seat = 0; seat < 4; seat++) {
      const el = $("seat-" + position(seat));
      const info = state.seats[seat];
      el.className = "seat" + (view && view.to_act.includes(seat) ? " turn" : "");
      const count = view ? view.hand_sizes[seat] : "";
      const played = view ? (view.current.find((p) => p[0] === seat) || [seat, ""])[1] : "";
      const cards = document.createElement("div");
      cards.className = "played";
      for (const c of played.split(" ").filter(Boolean)) cards.appendChild(cardEl(c, false));
      el.innerHTML = `<div class="name">${info.label} ${info.name}</div>` +
        (count !== "" ? `<div class="count">🂠 ${count}</div>` : "");
      if (position(seat) === "me") el.insertBefore(cards, el.firstChild); else el.appendChild(cards);
    }
  }

  function drawHand() {
    const hand = $("hand");
    hand.innerHTML = "";
    state.hand.forEach((card, i) => {
      const el = cardEl(card, state.groups[i] === "T");
      if (i > 0 && state.groups[i] !== state.groups[i - 1]) el.classList.add("gap");
      if (selected.includes(i)) el.classList.add("selected");
      el.addEventListener("click", () => {
        selected = selected.includes(i) ? selected.filter((x) => x !== i) : selected.concat([i]);
        choosing = null;
        drawHand();
        drawActions();
      });
      hand.appendChild(el);
    });
  }

  function button(text, onClick, quiet) {
    const b = document.createElement("button");
    b.textContent = text;
    if (quiet) b.className = "quiet";
    b.disabled = busy;
    b.addEventListener("click", onClick);
    return b;
  }

  function selectedCards() { return selected.map((i) => state.hand[i]); }

  function drawActions() {
    const bar = $("actions");
    bar.innerHTML = "";
    const choices = $("choices");
    choices.hidden = !choosing;
    choices.innerHTML = "";
    if (choosing) {
      choices.appendChild(document.createTextNode(w("Choose the trump:")));
      for (const c of choosing.choices) {
        choices.appendChild(button(c === "NT" ? w("no-trump") : SUITS[c], () => act(choosing.op, choosing.cards, c)));
      }
    }
    const cards = selectedCards();
    const shown = cards.map(label).join("");
    const mode = state.mode;
    if (mode === "bid" || mode === "steal") {
      if (!cards.length) {  // each bid the rules would take now, in one tap (the keyboard's ▶ buttons)
        for (const tap of state.taps || []) {
          bar.appendChild(button("▶ " + w(mode === "bid" ? "Bid {cards}" : "Steal {cards}", { cards: tap.map(label).join("") }),
            () => act(mode, tap, null)));
        }
      }
      const main = cards.length ? w(mode === "bid" ? "Bid {cards}" : "Steal {cards}", { cards: shown })
        : w(mode === "bid" ? "Bid (select cards)" : "Steal (select cards)");
      bar.appendChild(button(main, () => act(mode, cards, null)));
      bar.appendChild(button(w(mode === "bid" ? "Pass" : "Don't steal"), () => act(mode === "bid" ? "pass" : "nosteal", [], null), true));
    } else if (mode === "bury") {
      bar.appendChild(button(w("Bury ({n}/8)", { n: cards.length }), () => act("bury", cards, null)));
      bar.appendChild(button(w("Hint"), hint, true));
    } else if (mode === "play") {
      bar.appendChild(button(cards.length ? w("Play {cards}", { cards: shown }) : w("Play (select cards)"),
        () => act("play", cards, null)));
      bar.appendChild(button(w("Hint"), hint, true));
    }
    if (state.away) bar.appendChild(button(w("I'm back"), comeBack));
    if (state.next_deal) bar.appendChild(button(w("▶️ Next hand"), nextHand));  // between hands: relaxed, daily
    if (cards.length) bar.appendChild(button(w("Clear"), () => { selected = []; choosing = null; draw(); }, true));
    if (state.last_hand_id) {
      bar.appendChild(button("🎞 " + w("Replay"), () => openReplay(state.last_hand_id), true));
      // The group's league, with Telegram's back button to come back to this table.
      bar.appendChild(button(w("📈 League page"), () => {
        location.href = `league.html?chat=${encodeURIComponent(state.chat)}&t=${encodeURIComponent(state.table)}`;
      }, true));
    }
  }

  function draw() {
    if (replay) return drawReplay();
    const view = state.view;
    $("title").textContent = state.title || "炒地皮";
    $("facts").textContent = "";
    if (view) {
      const trump = view.trump_known ? (view.trump ? SUITS[view.trump] : w("no-trump")) : "?";
      $("facts").textContent = `${view.level ? w("level {level}", { level: levelName(view.level) }) : ""} · ${trump} · ${view.trick_points}`;
    }
    drawSeats(view);
    $("centre").textContent = view && view.phase === "playing" ? w("Trick {n}", { n: view.tricks.length + 1 }) : "";
    // The last hand's result, between hands (no view: nothing of the next deal yet) and on top while the next
    // deal is bid (the group's announcement, as text).
    const result = state.last_result && (!view || view.phase === "bidding") ? state.last_result + "\n\n" : "";
    $("info").innerHTML = result + state.info;
    drawHand();
    drawActions();
  }

  function levelName(rank) { return { 11: "J", 12: "Q", 13: "K", 14: "A" }[rank] || String(rank); }

  function show(next) {
    if (state && state.rev !== undefined && next.rev < state.rev) return;  // an older answer, overtaken
    const sameHand = state && next.view && state.view && state.view.number === next.view.number
      && state.hand.join() === next.hand.join();
    state = next;
    document.documentElement.lang = state.lang === "zh" ? "zh" : "en";
    if (!sameHand) { selected = []; choosing = null; }
    draw();
  }

  // --- moves -------------------------------------------------------------------------------------------
  function nonce() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function act(op, cards, trump) {
    if (busy) return;
    busy = true;
    drawActions();
    try {
      const { status, data } = await api(`tables/${tableId}/act`,
        { op: op, cards: cards, trump: trump, version: state.version, nonce: nonce() });
      if (data.choose) {
        choosing = { op: op, cards: cards, choices: data.choose };
      } else {
        choosing = null;
        if (data.ok) selected = [];
        if (data.refusal) toast(data.refusal);
        else if (!data.ok) toast(refusalOf(status, data));
      }
      if (data.state) show(data.state);
    } finally {
      busy = false;
      drawActions();
    }
  }

  async function hint() {
    const { data } = await api(`tables/${tableId}/hint`, {});
    if (!data.ok) { toast(data.refusal || "?"); return; }
    const wanted = data.cards.slice();
    selected = [];
    state.hand.forEach((card, i) => {
      const at = wanted.indexOf(card);
      if (at >= 0) { wanted.splice(at, 1); selected.push(i); }
    });
    draw();
  }

  // --- replay ------------------------------------------------------------------------------------------
  async function openReplay(handId) {
    const { data } = await api(`hands/${handId}`);
    if (!data.ok) { toast(data.error || "—"); return; }  // e.g. too many replays asked: when to try again
    replay = { data: data.replay, trick: 0 };
    if (!state) state = { words: data.replay.words, lang: data.replay.lang, seat: 0 };
    draw();
  }

  function drawReplay() {
    const view = replay.data.view;
    const trick = view.tricks[replay.trick];
    $("title").textContent = "🎞 " + w("Replay") + " · #" + view.number;
    $("facts").textContent = w("Trick {n}", { n: replay.trick + 1 }) + ` / ${view.tricks.length}`;
    for (let seat = 0; seat < 4; seat++) {
      const el = $("seat-" + position(seat));
      const info = replay.data.seats[seat];
      el.className = "seat" + (trick && trick.winner === seat ? " turn" : "");
      el.innerHTML = `<div class="name">${info.label} ${info.name}</div>`;
      const cards = document.createElement("div");
      cards.className = "played";
      const play = trick ? trick.plays.find((p) => p[0] === seat) : null;
      for (const c of (play ? play[1] : "").split(" ").filter(Boolean)) cards.appendChild(cardEl(c, false));
      el.appendChild(cards);
    }
    $("centre").textContent = trick ? `+${trick.points}` : "";
    const result = view.result || {};
    const kitty = (view.kitty || "").split(" ").filter(Boolean).map(label).join("");
    // The trump, the dealer and how the trump was set, as the table message told them; then the kitty.
    $("info").textContent = (replay.data.facts || []).concat([`${w("Kitty")}: ${kitty}`,
      `${w("Attackers' points")}: ` + (result.attacker_points !== undefined ? result.attacker_points
                                                                           : view.trick_points)]).join("\n");
    $("hand").innerHTML = "";
    $("choices").hidden = true;
    const bar = $("actions");
    bar.innerHTML = "";
    bar.appendChild(button(w("Previous"), () => { replay.trick = Math.max(0, replay.trick - 1); draw(); }, true));
    bar.appendChild(button(w("Next"), () => { replay.trick = Math.min(view.tricks.length - 1, replay.trick + 1); draw(); }));
    if (tableId) bar.appendChild(button(w("Close"), () => { replay = null; draw(); }, true));
  }

  // 「我回来了」: the AI stops playing for this person; the table is live again.
  async function comeBack() {
    if (busy) return;
    busy = true;
    drawActions();
    try {
      const { status, data } = await api(`tables/${tableId}/back`, { nonce: nonce() });
      if (data.state) show(data.state);
      if (data.refusal) toast(data.refusal);
      else if (!data.ok) toast(refusalOf(status, data));
      if (data.state && !data.state.away) listen();
    } finally {
      busy = false;
      drawActions();
    }
  }

  async function nextHand() {
    if (busy) return;
    busy = true;
    drawActions();
    try {
      const { status, data } = await api(`tables/${tableId}/next`, { deal: state.next_deal, nonce: nonce() });
      if (data.state) show(data.state);
      if (data.refusal) toast(data.refusal);
      else if (!data.ok) toast(refusalOf(status, data));
    } finally {
      busy = false;
      drawActions();
    }
  }

  // --- live updates ------------------------------------------------------------------------------------
  // The stream is opened with a one-use ticket from an authenticated POST: initData never goes in a URL
  // (EventSource cannot send headers).  So the page reconnects itself, with a fresh ticket each time.
  function banner(text) {
    $("banner").textContent = text;
    $("banner").hidden = false;
  }

  function later() {
    retries = Math.min(retries + 1, 5);
    setTimeout(listen, 1000 * retries);
  }

  async function listen() {
    const mine = ++opening;
    if (source) { source.close(); source = null; }
    let answer;
    try {
      answer = await api(`tables/${tableId}/ticket`, {});
    } catch (e) {
      if (mine !== opening) return;
      banner(w("Reconnecting…"));  // the bot is not reachable (a restart): try again shortly
      later();
      return;
    }
    if (mine !== opening) return;  // a later call took over (「我回来了」 during a retry)
    const { status, data } = answer;
    if (status === 401) {
      stopped(w(signin.local ? "This page has expired: open the address chaodipi play printed again."
        : "This page has expired: open it again from Telegram."));
      return;
    }
    if (status === 403) { stopped(w("You no longer hold this seat.")); return; }
    if (status !== 200) {
      banner(data.refusal || w("Reconnecting…"));
      later();
      return;
    }
    const es = new EventSource(`api/tables/${tableId}/events?ticket=${encodeURIComponent(data.ticket)}`);
    source = es;
    es.addEventListener("state", (event) => {
      retries = 0;
      $("banner").hidden = true;
      show(JSON.parse(event.data));
    });
    // The stream ends saying why: the table closed, the seat is not this person's any more, the AI plays
    // for them (the state then offers 「我回来了」), or initData is too old.
    for (const name of ["closed", "left"]) {
      es.addEventListener(name, (event) => {
        es.close();
        source = null;
        const why = JSON.parse(event.data);
        if (why.reason === "away") refresh(); else stopped(why.text);
      });
    }
    es.onerror = () => {
      if (source !== es) return;
      es.close();
      source = null;
      banner(w("Reconnecting…"));
      later();
    };
  }

  async function refresh() {
    const { status, data } = await api(`tables/${tableId}`);
    if (status !== 200) { stopped(w("You no longer hold this seat.")); return; }
    show(data.state);
    if (!data.state.away) listen();  // back already (a press on the keyboard meanwhile)
  }

  // Nothing of the seat stays on screen once the page may not show it: only why.
  function stopped(text) {
    $("banner").hidden = true;
    selected = [];
    choosing = null;
    if (state) {
      state = Object.assign({}, state, { view: null, hand: [], groups: [], mode: null, away: false,
                                         last_result: null, info: "" });
      draw();
    }
    $("info").textContent = text;
  }

  // A refusal in words: the server's reason where it gave one, else what the status means.
  function refusalOf(status, data) {
    if (status === 401) return w("This page has expired: open it again from Telegram.");
    if (status === 403) return w("This table is not yours: you hold no seat at it.");
    return data.error || w("Something went wrong; try again.");
  }

  // No seat to show here: say why in the person's words, and offer the tables where they do sit.
  async function elsewhere(key, tables) {
    if (!tables) tables = (await api("tables")).data;
    state = { words: tables.words || {}, lang: tables.lang, seat: 0 };
    $("title").textContent = "";
    $("info").textContent = w(key);
    const bar = $("actions");
    bar.innerHTML = "";
    for (const t of tables.tables || []) {
      if (String(t.table) === String(tableId)) continue;
      bar.appendChild(button(w("Open the table in {title}", { title: t.title }), () => {
        tableId = String(t.table);
        bar.innerHTML = "";
        start();
      }));
    }
  }

  async function start() {
    if (!tableId && !replayId) {
      const { data } = await api("tables");
      if (data.ok && data.tables.length) tableId = String(data.tables[0].table);
      else if (data.ok) {
        await elsewhere("You have no seat at a table now. In a group, send /newgame to open a table or /join " +
                        "to take a seat; it then opens here.", data);
        return;
      } else { $("info").textContent = refusalOf(0, data); return; }
    }
    if (tableId) {
      const { status, data } = await api(`tables/${tableId}`);
      if (status === 403) { await elsewhere("This table is not yours: you hold no seat at it."); return; }
      if (status !== 200) { $("info").textContent = refusalOf(status, data); return; }
      show(data.state);
      if (!data.state.away) listen();
    }
    if (replayId) await openReplay(replayId);
  }
  start();
})();
