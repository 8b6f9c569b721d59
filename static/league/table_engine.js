// The hand arithmetic of docs/hands.md for the phone, so that the score display keeps counting
// while the signal is gone. The server plays every hand again with scoring.play_hand and its
// answer replaces this one as soon as it arrives: this copy is for display only. Covers what the
// table mode records: ron, double ron, tsumo, pao (責任払い), draw with tenpai and nagashi mangan,
// abortive draws, chombo.
(function (root) {
  "use strict";
  var STICK = 1000;
  var WINDS = "東南西北";

  function up100(p) { return Math.ceil(p / 100) * 100; }

  function basePoints(r, han, fu, yakuman) {
    if (yakuman) return 8000 * yakuman;
    if (han >= 13) return r.kazoe === "yakuman" ? 8000 : 6000;
    if (han >= 11) return 6000;
    if (han >= 8) return 4000;
    if (han >= 6) return 3000;
    if (han === 5) return 2000;
    var b = fu * Math.pow(2, han + 2);
    if (b >= 2000 || (r.kiriage && b === 1920)) return 2000;
    return b;
  }

  function tsumoShares(r, base, winner, dealer, n) {
    var dealerWon = winner === dealer;
    var absent = dealerWon ? 2 * base : base;
    var split = n === 3 && r.sanma_tsumo === "split";
    var shares = {};
    for (var p = 0; p < n; p++) {
      if (p === winner) continue;
      var own = dealerWon || p === dealer ? 2 * base : base;
      shares[p] = split ? up100(own + Math.floor(absent / 2)) : up100(own);
    }
    return shares;
  }

  // 責任払い (hand_points.pao_tsumo / pao_ron): the liable player's part of a yakuman.
  function paoTsumo(shares, honbaEach, liable, pao, yakuman) {
    var out = {};
    Object.keys(shares).forEach(function (p) { out[p] = 0; });
    out[pao] = 0;
    Object.keys(shares).forEach(function (p) {
      var part = Math.floor(shares[p] * liable / yakuman);
      out[pao] += part + honbaEach;
      out[p] += shares[p] - part;
    });
    return out;
  }

  function paoRon(r, value, honba, from, pao, liable, yakuman) {
    var half = Math.floor(Math.floor(value * liable / yakuman) / 2);
    var out = {};
    out[from] = value - half;
    out[pao] = half;
    if (r.pao_ron_honba === "discarder") out[from] += honba;
    else if (r.pao_ron_honba === "pao") out[pao] += honba;
    else { var mine = Math.floor(honba / 2 / 100) * 100; out[from] += mine; out[pao] += honba - mine; }
    return out;
  }

  function lastHand(r) { return (r.length === "tonpuu" ? 1 : 2) * r.players - 1; }
  function veryLastHand(r) { return lastHand(r) + (r.extension ? r.extension.winds * r.players : 0); }

  function gameEnd(r, points, hand, dealerStays, stop) {
    var n = r.players;
    var low = Math.min.apply(null, points);
    if (r.bust === "below-zero" && low < 0) return "bust";
    if (r.bust === "at-zero" && low <= 0) return "bust";
    var last = lastHand(r);
    if (hand < last) return null;
    var ext = r.extension;
    var wouldEnd;
    if (!ext || hand >= veryLastHand(r)) wouldEnd = true;
    else {
      var reached = Math.max.apply(null, points) >= ext.target;
      wouldEnd = reached && (hand === last || ext.sudden_death || (hand - last) % n === 0);
    }
    if (dealerStays) {
      var dealer = hand % n;
      var allowed = stop === "agari-yame" ? r.agari_yame : stop === "tenpai-yame" ? r.tenpai_yame : false;
      var first = 0;
      for (var s = 1; s < n; s++) if (points[s] > points[first]) first = s;
      if (allowed && wouldEnd && first === dealer && (!ext || points[dealer] >= ext.target)) return stop;
      return null;
    }
    if (wouldEnd) return hand === last ? "last-hand" : "extension";
    return null;
  }

  function roundLabel(r, hand) {
    return WINDS.charAt(Math.floor(hand / r.players)) + (hand % r.players + 1);
  }

  // One hand from `state` ({points, hand, honba, sticks, ended}); players are ids in seat order.
  function playHand(r, players, state, ev) {
    var n = r.players, dealer = state.hand % n, h = state.honba;
    var seat = function (id) { return players.indexOf(String(id)); };
    var deltas = [];
    for (var i = 0; i < n; i++) deltas.push(0);
    var sticks = state.sticks;
    (ev.riichi || []).forEach(function (id) { deltas[seat(id)] -= STICK; sticks += 1; });
    var stays = false, won = false, stop = null, voided = false;
    var pay = function (winner, payer, amount) { deltas[payer] -= amount; deltas[winner] += amount; };
    var payAll = function (winner, payments) {
      Object.keys(payments).forEach(function (p) { pay(winner, Number(p), payments[p]); });
    };
    var liableOf = function (w) {
      if (!w.pao) return null;
      return { seat: seat(w.pao.player), share: r.pao_scope === "hand" ? w.yakuman : 1 };
    };
    if (ev.result === "ron") {
      var from = seat(ev.from);
      var claims = ev.winners.map(function (w) { return { seat: seat(w.player), w: w }; });
      claims.sort(function (a, b) { return (a.seat - from + n) % n - (b.seat - from + n) % n; });
      var paid = r.multi_ron === "atamahane" ? claims.slice(0, 1) : claims;
      paid.forEach(function (c, k) {
        var base = basePoints(r, c.w.han, c.w.fu, c.w.yakuman);
        var value = up100((c.seat === dealer ? 6 : 4) * base);
        var honba = k === 0 || r.multi_ron_honba === "each" ? r.honba_ron * h : 0;
        var liable = liableOf(c.w);
        if (liable && liable.seat !== from) payAll(c.seat, paoRon(r, value, honba, from, liable.seat, liable.share, c.w.yakuman));
        else pay(c.seat, from, value + honba);
      });
      deltas[paid[0].seat] += STICK * sticks;
      sticks = 0;
      var winning = paid.map(function (c) { return c.seat; });
      stays = r.multi_ron_renchan === "any" ? winning.indexOf(dealer) >= 0 : winning[0] === dealer;
      won = true; stop = "agari-yame";
    } else if (ev.result === "tsumo") {
      var w = seat(ev.winner);
      var shares = tsumoShares(r, basePoints(r, ev.han, ev.fu, ev.yakuman), w, dealer, n);
      var liableT = liableOf(ev);
      if (liableT) payAll(w, paoTsumo(shares, r.honba_tsumo * h, liableT.share, liableT.seat, ev.yakuman));
      else Object.keys(shares).forEach(function (p) { pay(w, Number(p), shares[p] + r.honba_tsumo * h); });
      deltas[w] += STICK * sticks;
      sticks = 0;
      stays = w === dealer; won = true; stop = "agari-yame";
    } else if (ev.result === "draw") {
      var tenpai = (ev.tenpai || []).map(seat);
      var nagashi = (ev.nagashi || []).map(seat);
      if (nagashi.length && r.nagashi === "win") {  // a mangan tsumo for each nagashi player
        nagashi.forEach(function (ns) {
          var ms = tsumoShares(r, 2000, ns, dealer, n);
          Object.keys(ms).forEach(function (p) { pay(ns, Number(p), ms[p] + r.honba_tsumo * h); });
        });
        var first = nagashi.slice().sort(function (a, b) { return (a - dealer + n) % n - (b - dealer + n) % n; })[0];
        deltas[first] += STICK * sticks;
        sticks = 0;
        stays = nagashi.indexOf(dealer) >= 0; won = true; stop = "agari-yame";
      } else if (nagashi.length) {  // `draw`: the mangan payments replace the tenpai payments
        nagashi.forEach(function (ns) {
          var ms = tsumoShares(r, 2000, ns, dealer, n);
          Object.keys(ms).forEach(function (p) { pay(ns, Number(p), ms[p]); });
        });
      } else if (tenpai.length > 0 && tenpai.length < n) {
        var gain = Math.floor(r.draw_pot / tenpai.length), loss = Math.floor(r.draw_pot / (n - tenpai.length));
        for (var s = 0; s < n; s++) deltas[s] += tenpai.indexOf(s) >= 0 ? gain : -loss;
      }
      if (!(nagashi.length && r.nagashi === "win")) {
        stays = tenpai.indexOf(dealer) >= 0 && (r.draw_renchan === "tenpai" ||
          (r.draw_renchan === "tenpai-from-south" && state.hand >= n));
        stop = "tenpai-yame";
      }
    } else if (ev.result === "abortive") {
      var rule = r.abortive[ev.kind];
      stays = rule === "renchan" || (rule === "dealer-claimed" && seat(ev.from) !== dealer);
    } else if (ev.result === "chombo") {
      var off = seat(ev.player);
      sticks = state.sticks;
      deltas = deltas.map(function () { return 0; });
      if (r.chombo.mode !== "record") {
        for (var q = 0; q < n; q++) {
          if (q === off) continue;
          var amount = r.chombo.mode === "each" ? r.chombo.points : (q === dealer || off === dealer ? 4000 : 2000);
          pay(q, off, amount);
        }
      }
      stays = true; voided = true;
    }
    var points = state.points.map(function (p, k) { return p + deltas[k]; });
    var record = { round: roundLabel(r, state.hand), honba: h, sticks: state.sticks, dealer: dealer,
      deltas: deltas, scores: points };
    var hand = state.hand, honba = h;
    if (voided) { /* replayed */ } else if (stays) honba = h + 1;
    else { hand = state.hand + 1; honba = won ? 0 : h + 1; }
    return { record: record, state: { points: points, hand: hand, honba: honba, sticks: sticks,
      ended: gameEnd(r, points, state.hand, stays, stop) } };
  }

  function playAll(r, players, start, events) {
    var state = { points: players.map(function () { return start; }), hand: 0, honba: 0, sticks: 0, ended: null };
    var records = [];
    events.forEach(function (ev) {
      var out = playHand(r, players, state, ev);
      records.push(out.record);
      state = out.state;
    });
    return { state: state, records: records };
  }

  root.JanchoHands = { playHand: playHand, playAll: playAll, roundLabel: roundLabel,
    basePoints: basePoints, veryLastHand: veryLastHand };
})(window);
