// 点数係: the score display that records each hand. Every hand is kept in localStorage first
// with an idempotency key, then sent; while the signal is gone the table keeps playing (the
// display counts with table_engine.js) and the queue is sent, in order, when it comes back.
// The server's answer (the engine's) always replaces the local count. A hand that another phone
// recorded differently is refused there (409): this phone then takes the server's hands.
// Everything goes to the typed API (league/api/tables.py) with this page's login session: each
// request carries the page's CSRF token, and each hand its key as the Idempotency-Key.
(function () {
  "use strict";
  var boot = JSON.parse(document.getElementById("table-boot").textContent);
  var L = JSON.parse(document.getElementById("table-labels").textContent);
  var csrf = document.querySelector("[name=csrfmiddlewaretoken]").value;
  var rules = boot.hand_rules;
  var players = boot.players.map(function (p) { return p.id; });
  var n = players.length;
  var storeKey = "jancho.table." + boot.state.key;
  var $ = function (sel, el) { return (el || document).querySelector(sel); };
  var $$ = function (sel, el) { return Array.prototype.slice.call((el || document).querySelectorAll(sel)); };

  // --- what is kept ---------------------------------------------------------------------------
  // hands: [{index, key, event, marks}] as this phone knows them; queue: ops not yet answered.
  var edit = boot.edit || null;  // correcting a saved game: nothing is sent until "save"
  var watch = !!boot.watch;  // a member watching: the server's hands only, nothing entered
  var saved = null;
  try { saved = edit || watch ? null : JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (e) { saved = null; }
  var local = saved || { hands: [], queue: [] };
  var server = boot.state;
  if (!saved || (!local.queue.length)) local.hands = serverHands(server);
  var message = "";

  function serverHands(st) {
    return st.hands.map(function (h) { return { index: h.index, key: h.key, event: h.event, marks: h.marks }; });
  }
  function keep() { if (!edit && !watch) localStorage.setItem(storeKey, JSON.stringify(local)); }
  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, function (c) {
      var r = Math.random() * 16 | 0; return (c === "x" ? r : (r & 3 | 8)).toString(16);
    });
  }

  // --- the count shown ------------------------------------------------------------------------
  function view() {
    if (!edit && !local.queue.length && server) {
      return { state: { points: server.points, round: server.round, honba: server.honba,
        sticks: server.sticks, dealer: server.dealer, ended: server.ended },
        records: server.hands, synced: true };
    }
    var out = JanchoHands.playAll(rules, players, rules.start, local.hands.map(function (h) { return h.event; }));
    var st = out.state;
    var shown = Math.min(st.hand, JanchoHands.veryLastHand(rules));
    return { state: { points: st.points, round: JanchoHands.roundLabel(rules, shown), honba: st.honba,
      sticks: st.sticks, dealer: st.hand % n, ended: st.ended }, records: out.records, synced: false };
  }

  // --- the form of one hand -------------------------------------------------------------------
  var form = { result: null, riichi: [], winners: [], from: null, tenpai: [], nagashi: [], kind: null, player: null, wins: {} };

  function resetForm() {
    form = { result: null, riichi: [], winners: [], from: null, tenpai: [], nagashi: [], kind: null, player: null, wins: {} };
  }

  function winOf(id) {
    if (!form.wins[id]) {
      form.wins[id] = { han: null, fu: 30, yakuman: null, ippatsu: false, called: false, ura: 0, aka: 0,
        pao: null, paoYaku: null, yaku: null, calc: null, valued: "" };
    }
    return form.wins[id];
  }

  function toggle(list, id) {
    var i = list.indexOf(id);
    if (i >= 0) list.splice(i, 1); else list.push(id);
  }

  function eventOf() {
    var ev = { result: form.result };
    var win = function (id, w) {
      var out = {};
      if (w.yakuman) {
        out.yakuman = w.yakuman;
        if (w.pao) out.pao = { player: w.pao, yaku: w.paoYaku };
      } else { out.han = w.han; if (w.han < 5) out.fu = w.fu; }
      return out;
    };
    var marks = {};
    var markOf = function (id) {
      var w = winOf(id), m = {};
      if (w.ippatsu) m.ippatsu = true;
      if (w.called) m.called = true;
      if (w.ura) m.ura = w.ura;
      if (w.aka) m.aka = w.aka;
      if (w.yaku && w.yaku.length) m.yaku = w.yaku.slice();
      if (Object.keys(m).length) marks[id] = m;
    };
    if (form.result === "ron") {
      ev.from = form.from;
      ev.winners = form.winners.map(function (id) { var o = win(id, winOf(id)); o.player = id; markOf(id); return o; });
    } else if (form.result === "tsumo") {
      var id = form.winners[0];
      ev.winner = id;
      var w = win(id, winOf(id));
      Object.keys(w).forEach(function (k) { ev[k] = w[k]; });
      markOf(id);
    } else if (form.result === "draw") {
      ev.tenpai = form.tenpai.slice();
      if (form.nagashi.length) ev.nagashi = form.nagashi.slice();
    } else if (form.result === "abortive") {
      ev.kind = form.kind;
      if (form.kind === "sanchahou" && form.from) ev.from = form.from;
    } else if (form.result === "chombo") {
      ev.player = form.player;
    }
    if (form.result !== "chombo" && form.riichi.length) ev.riichi = form.riichi.slice();
    return { event: ev, marks: marks };
  }

  function problem() {
    if (!form.result) return L.choose_result;
    if (form.result === "ron") {
      if (!form.winners.length) return L.choose_winner;
      if (!form.from) return L.choose_from;
      if (form.winners.indexOf(form.from) >= 0) return L.winner_not_from;
    }
    if (form.result === "tsumo" && form.winners.length !== 1) return L.choose_winner;
    if (form.result === "ron" || form.result === "tsumo") {
      for (var i = 0; i < form.winners.length; i++) {
        var w = winOf(form.winners[i]);
        if (!w.yakuman && !w.han) return L.choose_han;
        if (w.yakuman && w.pao && !w.paoYaku) return L.choose_pao_yaku;
      }
    }
    if (form.result === "abortive" && !form.kind) return L.choose_kind;
    if (form.result === "abortive" && form.kind === "sanchahou" && rules.abortive.sanchahou === "dealer-claimed" && !form.from) return L.choose_from;
    if (form.result === "chombo" && !form.player) return L.choose_player;
    return "";
  }

  // --- sending --------------------------------------------------------------------------------
  var sending = false;

  function send(method, url, body, key) {
    var headers = { "X-CSRFToken": csrf };
    if (body) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    return fetch(url, { method: method, credentials: "same-origin", headers: headers,
      body: body ? JSON.stringify(body) : undefined });
  }
  function post(url, body) { return send("POST", url, body); }
  function handUrl(index) { return boot.urls.table + "/hands/" + index; }
  function answerOf(res) {  // {status, body}; a body that is not JSON (a proxy's page) is {}
    return res.json().catch(function () { return {}; })
      .then(function (body) { return { status: res.status, body: body || {} }; });
  }
  function refusal(answer) {  // the API's words: {"errors": {field: [...]}} or {"detail": "..."}
    if (answer.status === 401) return L.logged_out;
    if (answer.status === 403) return L.forbidden;
    return flatten(answer.body.errors) || L.server_error;
  }

  function flush() {
    // Known to be offline: wait for the "online" event (a request now would only fail).
    if (edit || sending || !local.queue.length || navigator.onLine === false) { render(); return; }
    sending = true;
    var op = local.queue[0];
    var req = op.op === "hand"
      ? send("PUT", handUrl(op.index), { event: op.event, marks: op.marks }, op.key)
      : send("DELETE", handUrl(op.index));
    req.then(answerOf).then(function (answer) {
      sending = false;
      if (answer.status === 200 || answer.status === 201) {
        local.queue.shift();
        server = answer.body;
        if (!local.queue.length) local.hands = serverHands(server);
        message = "";
      } else if (answer.status === 409 && op.op === "hand" && answer.body.state) {
        // Another phone recorded this hand differently. The table's hands are shown, and this
        // phone's version is kept beside them until the player keeps the table's or enters
        // this one again: nothing is dropped without them seeing it.
        var st = answer.body.state, theirs = st.hands[op.index];
        local.conflict = {
          index: op.index, round: theirs ? theirs.round : "", honba: theirs ? theirs.honba : 0,
          theirs: theirs ? theirs.event : null, theirsBy: theirs ? theirs.recorded_by || "" : "",
          mine: local.queue.filter(function (q) { return q.op === "hand" && q.index >= op.index; })
            .map(function (q) { return { event: q.event, marks: q.marks }; })
        };
        message = "";
        local.queue = [];
        server = st; local.hands = serverHands(st); keep(); render();
        return;
      } else if (answer.status === 409 || answer.status === 422 || answer.status === 400) {
        // Refused (another phone's hand at this index, or the engine's problem): the server's
        // hands are the table's; what was waiting here is dropped.
        message = refusal(answer);
        local.queue = [];
        if (answer.body.state) { server = answer.body.state; local.hands = serverHands(server); keep(); render(); return; }
        return fetch(boot.urls.table, { credentials: "same-origin" }).then(function (r) { return r.json(); })
          .then(function (st) { server = st; local.hands = serverHands(st); keep(); render(); });
      } else {
        // Logged out, no longer allowed, or the server failed: the hands wait here.
        message = answer.status === 401 || answer.status === 403 ? refusal(answer) : L.server_error;
        keep(); render();
        return;
      }
      keep();
      flush();
    }).catch(function () {
      sending = false;
      render();  // offline: the queue waits for the signal
    });
  }

  function handName(round, honba) {
    return (honba ? L.hand_name_honba : L.hand_name).replace("%(round)s", round).replace("%(honba)s", honba);
  }
  function keepTables() { local.conflict = null; keep(); render(); }
  function enterMineAgain() {
    // The table's hands from the conflicting one on are undone (kept in its history), then
    // this phone's are sent in their place.
    var c = local.conflict;
    if (!c) return;
    for (var i = local.hands.length - 1; i >= c.index; i--) local.queue.push({ op: "undo", index: i });
    local.hands = local.hands.slice(0, c.index);
    c.mine.forEach(function (h) {
      var op = { op: "hand", index: local.hands.length, key: uuid(), event: h.event, marks: h.marks };
      local.hands.push({ index: op.index, key: op.key, event: op.event, marks: op.marks });
      local.queue.push(op);
    });
    local.conflict = null;
    keep(); render(); flush();
  }
  function drawConflict() {
    var box = $("[data-conflict]");
    if (!box) return;
    var c = local.conflict;
    box.hidden = !c || watch;
    if (!c) return;
    $("[data-conflict-text]", box).textContent = L.conflict.replace("%(hand)s", handName(c.round, c.honba));
    $("[data-conflict-theirs]", box).textContent = c.theirs ? describe(c.theirs) : "";
    $("[data-conflict-by]", box).textContent = c.theirsBy ? " · " + L.entered_by.replace("%(name)s", c.theirsBy) : "";
    $("[data-conflict-mine]", box).textContent = c.mine.map(function (h) { return describe(h.event); }).join(" / ");
  }

  function flatten(errors) {
    var out = [];
    Object.keys(errors || {}).forEach(function (k) { out = out.concat(errors[k]); });
    return out.join(" ");
  }

  function record() {
    var why = problem();
    if (why) { message = why; render(); return; }
    var made = eventOf();
    var op = { op: "hand", index: local.hands.length, key: uuid(), event: made.event, marks: made.marks };
    local.hands.push({ index: op.index, key: op.key, event: op.event, marks: op.marks });
    if (!edit) local.queue.push(op);
    message = "";
    keep();
    resetForm();
    render();
    flush();
  }

  function undo() {
    if (!local.hands.length) return;
    var last = local.hands.pop();
    if (!edit) local.queue.push({ op: "undo", index: last.index });
    keep();
    render();
    flush();
  }

  // --- drawing the screen ---------------------------------------------------------------------
  function fmt(p) { return (p < 0 ? "▲" : "") + Math.abs(p).toLocaleString("ja-JP"); }
  function signed(p) { return p > 0 ? "+" + p.toLocaleString("ja-JP") : p < 0 ? "▲" + (-p).toLocaleString("ja-JP") : "0"; }
  function nameOf(id) { return boot.players[players.indexOf(String(id))].name; }

  function seatButtons(container, chosen, onTap, opts) {
    container.innerHTML = "";
    boot.players.forEach(function (p) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "pick" + (chosen.indexOf(p.id) >= 0 ? " on" : "");
      b.setAttribute("aria-pressed", chosen.indexOf(p.id) >= 0 ? "true" : "false");
      b.textContent = p.name;
      b.dataset.player = p.id;
      if (opts && opts.disabled && opts.disabled.indexOf(p.id) >= 0) b.disabled = true;
      b.addEventListener("click", function () { onTap(p.id); render(); });
      container.appendChild(b);
    });
  }

  function winEditor(id) {
    var w = winOf(id);
    var box = document.createElement("div");
    box.className = "win";
    box.dataset.winner = id;
    var title = document.createElement("p");
    title.className = "win-title";
    title.textContent = nameOf(id);
    box.appendChild(title);
    var row = function (cls) { var d = document.createElement("div"); d.className = "picks " + cls; box.appendChild(d); return d; };
    var hanRow = row("han");
    [1, 2, 3, 4].forEach(function (han) {
      var b = button(han + L.han, !w.yakuman && w.han === han, function () { w.han = han; w.yakuman = null; w.yaku = null; w.valued = ""; w.pao = null; });
      b.dataset.han = han; hanRow.appendChild(b);
    });
    var quick = row("limits");
    [[5, L.mangan], [6, L.haneman], [8, L.baiman], [11, L.sanbaiman]].forEach(function (q) {
      var b = button(q[1], !w.yakuman && w.han === q[0] || (q[0] === 6 && w.han === 7) || (q[0] === 8 && w.han >= 9 && w.han <= 10) || (q[0] === 11 && w.han === 12),
        function () { w.han = q[0]; w.yakuman = null; w.yaku = null; w.valued = ""; w.pao = null; });
      b.dataset.han = q[0]; quick.appendChild(b);
    });
    var ykm = button(L.yakuman, !!w.yakuman, function () {
      w.yakuman = w.yakuman ? null : 1; w.han = null; w.yaku = null; w.valued = "";
      if (!w.yakuman) { w.pao = null; w.paoYaku = null; }
    });
    ykm.dataset.yakuman = "1"; quick.appendChild(ykm);
    if (w.yakuman && rules.yakuman_max > 1) {
      var times = row("yakuman-count");
      for (var k = 1; k <= Math.min(rules.yakuman_max, 3); k++) {
        (function (k) {
          var b = button("×" + k, w.yakuman === k, function () { w.yakuman = k; });
          b.dataset.yakumanCount = k; times.appendChild(b);
        })(k);
      }
    }
    if (!w.yakuman && w.han && w.han < 5) {
      var fuRow = row("fu");
      [20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 110].forEach(function (fu) {
        var b = button(fu + L.fu, w.fu === fu, function () { w.fu = fu; w.yaku = null; w.valued = ""; });
        b.dataset.fu = fu; fuRow.appendChild(b);
      });
    }
    // What this win pays, right beside the han and fu (the scoreboard's preview, honba and
    // sticks included), once the hand is complete.
    var moves = preview(view().state);
    var mine = moves ? moves[players.indexOf(id)] : 0;
    if (mine > 0) {
      var pay = document.createElement("p");
      pay.className = "win-pay";
      pay.dataset.winPay = "";
      pay.textContent = L.win_pay + " " + signed(mine);
      box.appendChild(pay);
    }
    var marks = row("marks");
    if (boot.marks.ippatsu) marks.appendChild(button(L.ippatsu, w.ippatsu, function () { w.ippatsu = !w.ippatsu; }, "ippatsu"));
    marks.appendChild(button(L.called, w.called, function () { w.called = !w.called; }, "called"));
    if (boot.marks.ura) marks.appendChild(counter(L.ura, w, "ura"));
    if (boot.marks.aka) marks.appendChild(counter(L.aka, w, "aka"));
    if (w.yakuman && rules.pao.length) paoEditor(box, id, w);
    var calcRow = row("calc-open");
    var open = button(L.calc_open, !!w.calc, function () { w.calc = w.calc ? null : newCalc(); }, "calc");
    calcRow.appendChild(open);
    if (w.valued) {
      var got = document.createElement("p");
      got.className = "valued";
      got.dataset.valued = "";
      got.textContent = w.valued;
      box.appendChild(got);
    }
    if (w.calc) box.appendChild(calcEditor(id, w));
    return box;
  }

  // 責任払い: who fed the yakuman, and which (only the yakuman the club's rules have pao for).
  function paoEditor(box, id, w) {
    var wrap = document.createElement("div");
    wrap.className = "part pao";
    var p = document.createElement("p");
    p.className = "part-label";
    p.textContent = L.pao;
    wrap.appendChild(p);
    var who = document.createElement("div");
    who.className = "picks pao-player";
    wrap.appendChild(who);
    seatButtons(who, w.pao ? [w.pao] : [], function (pid) {
      w.pao = w.pao === pid ? null : pid;
      if (w.pao && !w.paoYaku && rules.pao.length === 1) w.paoYaku = rules.pao[0];
    }, { disabled: [id] });
    if (w.pao) {
      var yaku = document.createElement("div");
      yaku.className = "picks pao-yaku";
      rules.pao.forEach(function (name) {
        var b = button(L.pao_yaku[name] || name, w.paoYaku === name, function () { w.paoYaku = name; });
        b.dataset.paoYaku = name;
        yaku.appendChild(b);
      });
      wrap.appendChild(yaku);
    }
    box.appendChild(wrap);
  }

  // --- the point calculator: tap the tiles, the server's engine (the mahjong package) values them
  var SUITS = ["m", "p", "s", "z"];
  var HONOURS = "東南西北白發中";

  function newCalc() {
    return { suit: "m", target: "hand", hand: [], melds: [], dora: [], ura: [], rinshan: false,
      chankan: false, haitei: false, double_riichi: false, tenhou: false, chiihou: false,
      renhou: false, kita: 0, busy: false, error: "" };
  }

  function tileName(t) {
    var d = t.charAt(0), suit = t.charAt(1);
    if (suit === "z") return HONOURS.charAt(Number(d) - 1);
    return (d === "0" ? L.red + "5" : d) + L.suits[suit];
  }

  function tilesShown(tiles) {  // "123萬 赤567筒 白白白": a run of one suit, then its name
    var out = [], run = "", suit = "";
    var close = function () { if (run) out.push(suit === "z" ? run : run + L.suits[suit]); run = ""; };
    tiles.forEach(function (t) {
      if (t.charAt(1) !== suit) { close(); suit = t.charAt(1); }
      run += suit === "z" ? HONOURS.charAt(Number(t.charAt(0)) - 1) : t.charAt(0) === "0" ? L.red + "5" : t.charAt(0);
    });
    close();
    return out.join(" ");
  }

  function tileLine(tiles) {  // Tenhou's one-line notation: "123m55z"
    var out = "", run = "", suit = "";
    tiles.forEach(function (t) {
      if (t.charAt(1) !== suit) { if (run) out += run + suit; run = ""; suit = t.charAt(1); }
      run += t.charAt(0);
    });
    return out + (run ? run + suit : "");
  }

  function calcTarget(c) {
    if (c.target === "meld") return c.melds[c.melds.length - 1].tiles;
    return c[c.target];
  }

  function calcEditor(id, w) {
    var c = w.calc;
    var box = document.createElement("div");
    box.className = "calc";
    box.dataset.calc = id;
    var groups = document.createElement("div");
    groups.className = "calc-groups";
    var group = function (label, tiles, target, onBack) {
      var line = document.createElement("div");
      line.className = "calc-group" + (c.target === target ? " on" : "");
      line.dataset.group = target;
      var name = button(label, c.target === target, function () { c.target = target; });
      name.classList.add("group-name");
      var text = document.createElement("span");
      text.className = "calc-tiles";
      text.textContent = tilesShown(tiles) || "—";
      line.appendChild(name); line.appendChild(text);
      if (tiles.length) line.appendChild(button("⌫", false, onBack));
      groups.appendChild(line);
    };
    group(L.calc_hand, c.hand, "hand", function () { c.hand.pop(); });
    c.melds.forEach(function (m, i) {
      group(L.calls[m.kind], m.tiles, "meld", function () { m.tiles.pop(); if (!m.tiles.length) { c.melds.splice(i, 1); c.target = "hand"; } });
    });
    group(L.calc_dora, c.dora, "dora", function () { c.dora.pop(); });
    if (form.riichi.indexOf(id) >= 0) group(L.calc_ura, c.ura, "ura", function () { c.ura.pop(); });
    box.appendChild(groups);
    var calls = document.createElement("div");
    calls.className = "picks calc-calls";
    ["chi", "pon", "kan", "ankan"].forEach(function (kind) {
      var b = button("+" + L.calls[kind], false, function () {
        if (c.melds.length >= 4) return;
        c.melds.push({ kind: kind, tiles: [] }); c.target = "meld";
      });
      b.dataset.call = kind;
      calls.appendChild(b);
    });
    box.appendChild(calls);
    var suits = document.createElement("div");
    suits.className = "picks calc-suits";
    SUITS.forEach(function (suit) {
      var b = button(L.suit_names[suit], c.suit === suit, function () { c.suit = suit; });
      b.dataset.suit = suit;
      suits.appendChild(b);
    });
    box.appendChild(suits);
    var pad = document.createElement("div");
    pad.className = "keypad";
    var digits = c.suit === "z" ? ["1", "2", "3", "4", "5", "6", "7"] : ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"];
    digits.forEach(function (d) {
      var t = d + c.suit;
      var b = button(tileName(t), false, function () {
        var into = calcTarget(c);
        var full = c.target === "meld" ? (c.melds[c.melds.length - 1].kind.indexOf("kan") >= 0 ? 4 : 3)
          : c.target === "hand" ? 14 : 5;
        if (into.length < full) into.push(t);
        if (c.target === "meld" && into.length === full) c.target = "hand";
      });
      b.classList.add("tile", "suit-" + c.suit);
      b.dataset.tile = t;
      pad.appendChild(b);
    });
    box.appendChild(pad);
    var flags = document.createElement("div");
    flags.className = "picks calc-flags";
    // 天和 (the dealer's tsumo), 地和 (a non-dealer's tsumo), 人和 (a non-dealer's ron, where the
    // club counts it): offered only where they can happen.
    var dealerSeat = players.indexOf(id) === view().state.dealer;
    var tsumo = form.result === "tsumo";
    [["double_riichi", L.double_riichi], ["rinshan", L.rinshan], ["chankan", L.chankan], ["haitei", L.haitei],
     ["tenhou", L.tenhou], ["chiihou", L.chiihou], ["renhou", L.renhou]].forEach(function (f) {
      if (f[0] === "double_riichi" && form.riichi.indexOf(id) < 0) return;
      if (f[0] === "tenhou" && !(dealerSeat && tsumo)) return;
      if (f[0] === "chiihou" && (dealerSeat || !tsumo)) return;
      if (f[0] === "renhou" && (dealerSeat || tsumo || !boot.renhou)) return;
      var b = button(f[1], c[f[0]], function () { c[f[0]] = !c[f[0]]; });
      b.dataset.flag = f[0];
      flags.appendChild(b);
    });
    if (n === 3) {  // 北抜き: each tap one more 北 set aside, up to four, then back to none
      var kita = button(L.kita + (c.kita ? " ×" + c.kita : ""), c.kita > 0, function () { c.kita = (c.kita + 1) % 5; });
      kita.dataset.flag = "kita";
      flags.appendChild(kita);
    }
    box.appendChild(flags);
    var hint = document.createElement("p");
    hint.className = "muted calc-hint";
    hint.textContent = L.calc_hint;
    box.appendChild(hint);
    if (c.error) {
      var err = document.createElement("p");
      err.className = "form-message";
      err.textContent = c.error;
      box.appendChild(err);
    }
    var go = button(c.busy ? L.sending : L.calc_go, false, function () { calculate(id, w); });
    go.classList.add("primary");
    go.dataset.calcGo = "";
    go.disabled = c.busy;
    box.appendChild(go);
    return box;
  }

  function calculate(id, w) {
    var c = w.calc;
    if (!c.hand.length) { c.error = L.calc_no_tiles; return; }
    if (navigator.onLine === false) { c.error = L.calc_offline; return; }
    var st = view().state;
    var wind = ["east", "south", "west", "north"];
    var body = {
      tiles: tileLine(c.hand), win: c.hand[c.hand.length - 1],
      melds: c.melds.filter(function (m) { return m.tiles.length; }).map(function (m) { return { kind: m.kind, tiles: tileLine(m.tiles) }; }),
      dora: c.dora.slice(), ura: c.ura.slice(),
      tsumo: form.result === "tsumo", riichi: form.riichi.indexOf(id) >= 0 && !c.double_riichi,
      double_riichi: c.double_riichi, ippatsu: w.ippatsu, rinshan: c.rinshan, chankan: c.chankan,
      haitei: c.haitei, tenhou: c.tenhou, chiihou: c.chiihou, renhou: c.renhou, kita: c.kita,
      seat_wind: wind[(players.indexOf(id) - st.dealer + n) % n],
      round_wind: wind[Math.max(0, "東南西北".indexOf(st.round.charAt(0)))]
    };
    c.busy = true; c.error = "";
    body.table = boot.state.key;  // the table's own hand rules
    post(boot.urls.value, body).then(answerOf).then(function (answer) {
      c.busy = false;
      if (answer.status !== 200) { c.error = refusal(answer); render(); return; }
      var v = answer.body;
      w.yakuman = v.yakuman || null;
      w.han = v.yakuman ? null : v.han;
      if (!v.yakuman && v.fu) w.fu = v.fu;
      w.yaku = v.yaku;
      if (boot.marks.aka) w.aka = v.aka;
      if (boot.marks.ura) w.ura = v.ura;
      if (body.melds.some(function (m) { return m.kind !== "ankan"; })) w.called = true;
      var pao = (v.pao || []).filter(function (y) { return rules.pao.indexOf(y) >= 0; });
      if (v.yakuman && pao.length) w.paoYaku = pao[0]; else { w.pao = null; w.paoYaku = null; }
      w.valued = (v.yakuman ? L.yakuman + (v.yakuman > 1 ? " ×" + v.yakuman : "") : v.han + L.han + (v.han < 5 ? v.fu + L.fu : ""))
        + "　" + v.payment + (v.yaku.length ? "（" + v.yaku.join("・") + "）" : "")
        + (v.check_atozuke ? "　" + L.check_atozuke : "");
      w.calc = null;
      render();
    }).catch(function () { c.busy = false; c.error = L.calc_offline; render(); });
  }

  function button(text, on, tap, mark) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "pick" + (on ? " on" : "");
    b.setAttribute("aria-pressed", on ? "true" : "false");
    b.textContent = text;
    if (mark) b.dataset.mark = mark;
    b.addEventListener("click", function () { tap(); render(); });
    return b;
  }

  function counter(label, w, field) {
    var span = document.createElement("span");
    span.className = "counter";
    span.dataset.mark = field;
    var minus = button("−", false, function () { w[field] = Math.max(0, w[field] - 1); });
    var plus = button("+", false, function () { w[field] = Math.min(20, w[field] + 1); });
    var text = document.createElement("span");
    text.textContent = label + " " + w[field];
    span.appendChild(minus); span.appendChild(text); span.appendChild(plus);
    return span;
  }

  function describe(ev) {
    var r = ev.result;
    if (r === "ron") {
      return ev.winners.map(function (w) { return nameOf(w.player); }).join("・") + " " + L.ron + " ← " + nameOf(ev.from)
        + ev.winners.map(paoText).join("");
    }
    if (r === "tsumo") return nameOf(ev.winner) + " " + L.tsumo + paoText(ev);
    if (r === "draw") {
      return L.draw + (ev.tenpai && ev.tenpai.length ? "（" + ev.tenpai.map(nameOf).join("・") + "）" : "")
        + (ev.nagashi && ev.nagashi.length ? " " + L.nagashi + " " + ev.nagashi.map(nameOf).join("・") : "");
    }
    if (r === "abortive") return L.abortive + "（" + (L.kinds[ev.kind] || ev.kind) + "）";
    return L.chombo + " " + nameOf(ev.player);
  }

  function paoText(w) {
    return w.pao ? "（" + L.pao_short + " " + nameOf(w.pao.player) + "）" : "";
  }

  // What the hand being entered would move, seat by seat (null until it is complete): shown
  // before "Record this hand", so that a wrong han or winner is seen before it counts.
  function preview(st) {
    if (!form.result || st.ended || problem()) return null;
    try {
      var events = local.hands.map(function (h) { return h.event; }).concat([eventOf().event]);
      var after = JanchoHands.playAll(rules, players, rules.start, events).state.points;
      return after.map(function (p, i) { return p - st.points[i]; });  // from what is shown
    } catch (e) { return null; }
  }

  function render() {
    var v = view(), st = v.state;
    var moves = preview(st);
    $("[data-round]").textContent = st.ended ? L.ended_short : st.round;
    $("[data-honba]").textContent = st.honba;
    $("[data-sticks]").textContent = st.sticks;
    $$("[data-seat]").forEach(function (box) {
      var i = Number(box.dataset.seat), id = players[i];
      box.classList.toggle("dealer", !st.ended && st.dealer === i);
      $("[data-points]", box).textContent = fmt(st.points[i]);
      var delta = $("[data-delta]", box);
      delta.textContent = moves && moves[i] ? signed(moves[i]) : "";
      delta.className = "seat-delta" + (moves && moves[i] > 0 ? " up" : moves && moves[i] < 0 ? " down" : "");
      // Once the game is over there is no next hand: each seat shows its wind of the first
      // hand (起家 東), as the game's page and score sheets list the seats.
      $("[data-wind]", box).textContent = "東南西北".charAt(st.ended ? i : (i - st.dealer + n) % n);
      var r = $("[data-riichi]", box);
      var on = form.riichi.indexOf(id) >= 0;
      r.classList.toggle("on", on);
      r.setAttribute("aria-pressed", on ? "true" : "false");
      r.disabled = !!st.ended;
      r.hidden = !!st.ended;
    });
    var pending = local.queue.filter(function (op) { return op.op === "hand"; }).length;
    var sync = $("[data-sync]");
    sync.textContent = watch ? L.watching : edit ? L.editing : local.queue.length
      ? (sending ? L.sending : L.waiting.replace("%s", pending || local.queue.length))
      : L.synced;
    sync.className = "sync " + (local.queue.length ? "waiting" : "ok");
    drawConflict();
    $("[data-message]").textContent = message;
    $("[data-message]").hidden = !message;
    // Once the game is over its end card is what counts: no hand buttons above it.
    $(".results").hidden = !!st.ended;
    $$("[data-result]").forEach(function (b) {
      b.classList.toggle("on", form.result === b.dataset.result);
      b.setAttribute("aria-pressed", form.result === b.dataset.result ? "true" : "false");
      b.disabled = !!st.ended;
    });
    var panel = $("[data-panel]");
    panel.innerHTML = "";
    panel.hidden = !form.result || !!st.ended;
    if (form.result && !st.ended) drawPanel(panel);
    $("[data-record]").hidden = !form.result || !!st.ended;
    $("[data-undo]").disabled = !local.hands.length;
    var end = $("[data-ended]");
    end.hidden = !st.ended;
    if (st.ended) {
      $("[data-ended-text]").textContent = L.ended + "（" + (L.endings[st.ended] || st.ended) + "）";
      var finish = $("[data-finish]");
      finish.hidden = !!edit || !v.synced;
      $("[data-finish-wait]").hidden = !!edit || v.synced;
      $("[data-save-edit]").hidden = !edit;
    }
    var list = $("[data-hands]");
    list.innerHTML = "";
    v.records.forEach(function (rec, i) {
      var hand = local.hands[i] || (server.hands[i] || {});
      var tr = document.createElement("tr");
      var th = document.createElement("th");
      th.scope = "row";
      th.rowSpan = 2;
      th.textContent = rec.round + (rec.honba ? "-" + rec.honba : "");
      tr.appendChild(th);
      rec.deltas.forEach(function (d) {
        var td = document.createElement("td"); td.className = "num " + (d > 0 ? "plus" : d < 0 ? "minus" : "");
        td.textContent = d ? signed(d) : ""; tr.appendChild(td);
      });
      var text = document.createElement("tr");
      text.className = "hand-text";
      var cell = document.createElement("td");
      cell.colSpan = n;
      cell.textContent = hand.event ? describe(hand.event) : "";
      // Who entered it (the server's word), or that it still waits on this phone.
      var known = server && server.hands[i] && server.hands[i].key === hand.key ? server.hands[i] : null;
      var by = known && known.recorded_by ? L.entered_by.replace("%(name)s", known.recorded_by)
        : !known && !edit && hand.key ? L.not_sent : "";
      if (by) {
        var who = document.createElement("span");
        who.className = "hand-by" + (known ? "" : " waiting");
        who.setAttribute(known ? "data-hand-recorder" : "data-hand-waiting", "");
        who.textContent = " · " + by;
        cell.appendChild(who);
      }
      text.appendChild(cell);
      list.insertBefore(text, list.firstChild);
      list.insertBefore(tr, list.firstChild);
    });
  }

  function section(panel, label, cls) {
    var wrap = document.createElement("div");
    wrap.className = "part " + (cls || "");
    var p = document.createElement("p");
    p.className = "part-label";
    p.textContent = label;
    wrap.appendChild(p);
    var picks = document.createElement("div");
    picks.className = "picks";
    wrap.appendChild(picks);
    panel.appendChild(wrap);
    return picks;
  }

  function drawPanel(panel) {
    var r = form.result;
    if (r === "ron") {
      seatButtons(section(panel, L.winners, "winners"), form.winners, function (id) {
        toggle(form.winners, id);
        if (form.from === id) form.from = null;
      }, { disabled: form.from ? [form.from] : [] });
      seatButtons(section(panel, L.from, "from"), form.from ? [form.from] : [], function (id) {
        form.from = form.from === id ? null : id;
      }, { disabled: form.winners });
      form.winners.forEach(function (id) { panel.appendChild(winEditor(id)); });
    } else if (r === "tsumo") {
      seatButtons(section(panel, L.winner, "winners"), form.winners, function (id) { form.winners = [id]; });
      form.winners.forEach(function (id) { panel.appendChild(winEditor(id)); });
    } else if (r === "draw") {
      seatButtons(section(panel, L.tenpai, "tenpai"), form.tenpai, function (id) { toggle(form.tenpai, id); });
      if (rules.nagashi !== "none") {
        seatButtons(section(panel, L.nagashi, "nagashi"), form.nagashi, function (id) { toggle(form.nagashi, id); });
      }
    } else if (r === "abortive") {
      var kinds = section(panel, L.kind, "kinds");
      Object.keys(rules.abortive).forEach(function (kind) {
        if (rules.abortive[kind] === "none") return;
        var b = button(L.kinds[kind] || kind, form.kind === kind, function () { form.kind = kind; });
        b.dataset.kind = kind;
        kinds.appendChild(b);
      });
      if (form.kind === "sanchahou" && rules.abortive.sanchahou === "dealer-claimed") {
        seatButtons(section(panel, L.from, "from"), form.from ? [form.from] : [], function (id) { form.from = id; });
      }
    } else if (r === "chombo") {
      seatButtons(section(panel, L.player, "offender"), form.player ? [form.player] : [], function (id) { form.player = id; });
    }
  }

  // --- wiring ---------------------------------------------------------------------------------
  $$("[data-result]").forEach(function (b) {
    b.addEventListener("click", function () {
      var riichi = form.riichi;
      resetForm();
      form.riichi = riichi;
      form.result = b.dataset.result;
      message = "";
      render();
    });
  });
  $$("[data-seat] [data-riichi]").forEach(function (b) {
    b.addEventListener("click", function () {
      toggle(form.riichi, players[Number(b.closest("[data-seat]").dataset.seat)]);
      render();
    });
  });
  $("[data-record]").addEventListener("click", record);
  $("[data-save-edit]").addEventListener("click", function () {
    send("PUT", edit.url, { revision: edit.revision, hands: local.hands.map(function (h) { return { event: h.event, marks: h.marks }; }) })
      .then(answerOf)
      .then(function (answer) {
        if (answer.status === 200) { window.location.href = edit.done; return; }
        message = refusal(answer); render();
      })
      .catch(function () { message = L.server_error; render(); });
  });
  $("[data-keep-table]").addEventListener("click", keepTables);
  $("[data-enter-mine]").addEventListener("click", function () {
    if (window.confirm(L.enter_mine_confirm)) enterMineAgain();
  });
  $("[data-undo]").addEventListener("click", function () {
    if (window.confirm(L.undo_confirm)) undo();
  });
  window.addEventListener("online", flush);
  setInterval(function () { if (local.queue.length) flush(); }, 5000);

  // --- following the table ---------------------------------------------------------------------
  // While online with nothing waiting here, the server's hands are read every 2 s: another
  // phone's hand (or a watcher's view of the scorer's) shows within 2 s.
  var polling = false;
  function sameHands(a, b) {
    return a.length === b.length && a.every(function (h, i) { return h.key === b[i].key; });
  }
  function follow() {
    if (edit || polling || sending || local.queue.length || navigator.onLine === false) return;
    if (document.visibilityState === "hidden") return;
    polling = true;
    fetch(boot.urls.table, { credentials: "same-origin" }).then(function (res) {
      return res.ok ? res.json() : null;
    }).then(function (st) {
      polling = false;
      if (!st || sending || local.queue.length) return;  // a hand was entered meanwhile
      var changed = !server || !sameHands(server.hands, st.hands) || server.saved_game !== st.saved_game;
      server = st;
      if (changed) { local.hands = serverHands(st); keep(); render(); }
    }).catch(function () { polling = false; });
  }
  setInterval(follow, 2000);
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").catch(function () {});
  }
  render();
  flush();
  // Wired: a tap from here on is heard (a tap on the server's markup before this is lost).
  $("[data-scoreboard]").dataset.ready = "";
})();
