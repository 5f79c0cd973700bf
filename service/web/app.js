// The reference play page: join a seat (the Ed25519 key stays in this browser), follow a
// game live, and send signed orders. Talks only to this server's /v1 API, through the
// client kit (wif.js), which signs.

import { $, fill, formatTime, h, svg, words } from "./dom.js";
import { deviceLink, Devices } from "./devices.js";
import { ORDER_FORMS } from "./forms.js";
import { GmPanel } from "./gm.js";
import { follow } from "./live.js";
import { LogView } from "./log.js";
import { NotifyPanel } from "./notify.js";
import { HexMap, powerColors, SIDE_COLORS, TERRAIN } from "./map.js";
import { connectPlay } from "./play.js";
import { createKey, deleteKey, loadKey, signingUnavailable } from "./keystore.js";
import { fetchJSON, signJoin, WifClient, WifProblem } from "./wif.js";

const SIDES = ["axis", "allies", "communists"];
const PER_POWER_STEPS = ["declare", "production"];
const NOT_PHASING_STEPS = ["combat", "exploitation"]; // standing orders answer only a side not phasing
const LOG_SHOWN = 400;
const SEATS_KEY = "wif.play.seats";
const PHONE = window.matchMedia("(max-width: 720px)");
const PHONE_UNITS = 6; // rows a phone lists before "show all": the log comes after them

// ------------------------------------------------------------------ the HTTP API

// Requests go through the kit's fetchJSON: {data, response, notModified}, or a thrown
// WifProblem carrying the server's problem.
const api = (path, options) => fetchJSON(path, options);

// ------------------------------------------------------------------ seats in localStorage

function loadSeats() {
  try {
    return JSON.parse(localStorage.getItem(SEATS_KEY)) || {};
  } catch {
    return {};
  }
}

const seatName = (seat) => (seat.role === "gm" || seat.role === "spectator" ? seat.role : seat.side);
const seatKey = (seat) => `${seat.game}/${seatName(seat)}`;

function saveSeat(seat) {
  const seats = loadSeats();
  seats[seatKey(seat)] = { ...seats[seatKey(seat)], ...seat };
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
}

function forgetSeat(key) {
  const seats = loadSeats();
  const seat = seats[key];
  delete seats[key];
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
  return seat;
}

/** The next order seq of a seat, counted in localStorage (shared by this browser's tabs). */
function nextSeq(seat) {
  const seats = loadSeats();
  const stored = seats[seatKey(seat)] || seat;
  stored.seq = Math.max(stored.seq || 0, seat.seq || 0) + 1;
  seats[seatKey(seat)] = stored;
  localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
  seat.seq = stored.seq;
  return stored.seq;
}

const playUrl = (params) => `${location.pathname}?${new URLSearchParams(params)}`;

// ------------------------------------------------------------------ banner and notices

function showError(error) {
  const banner = $("#error-banner");
  const problem = error instanceof WifProblem ? error.problem : {};
  const where = (problem.errors || []).map((e) => h("li", {}, h("code", {}, e.path), ` ${e.message}`));
  const code = error instanceof WifProblem && error.status
    ? ` (${error.status}${problem.code ? ` ${problem.code}` : ""}${problem.rule ? `, rule ${problem.rule}` : ""})`
    : "";
  fill($("#error-text"), h("strong", {}, error.message || String(error)), h("small", {}, code),
    where.length ? h("ul", {}, where) : null);
  banner.hidden = false;
}

function clearError() {
  $("#error-banner").hidden = true;
}

let noticeTimer = null;
function notice(text) {
  const node = $("#notice");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { node.hidden = true; }, 6000);
}

// ------------------------------------------------------------------ the lobby

function showLobby(params) {
  $("#lobby").hidden = false;
  $("#game").hidden = true;
  const join = $("#join-form").elements;
  if (params.get("game")) join.game.value = params.get("game");
  const side = params.get("side") || params.get("seat");
  if (SIDES.includes(side)) join.side.value = side;
  if (params.get("code")) join.join_code.value = params.get("code");
  if (params.get("game")) $("#gm-form").elements.game.value = params.get("game");
  const why = signingUnavailable();
  if (why) showError(new Error(`Joining needs signing keys, and ${why}.`));
  renderSeatList(params.get("game"));
}

function renderSeatList(highlightGame) {
  const seats = Object.entries(loadSeats()).sort(([a], [b]) => a.localeCompare(b));
  fill($("#seat-list"), seats.length ? seats.map(([key, seat]) => h(
    `li${seat.game === highlightGame ? ".current" : ""}`, {},
    h("a", { href: playUrl({ game: seat.game, seat: seatName(seat) }) },
      seat.role === "gm" ? "Game master" : seat.role === "spectator" ? "Spectator"
        : `${seat.side}${seat.name ? ` (${seat.name})` : ""}`),
    h("span.muted", {}, ` game ${seat.game}`),
    seat.role === "player" ? h("button.link", { type: "button", name: `device-${seat.side}`, onclick: (event) => {
      // The seat's token (not its key, which never leaves this browser) for another
      // device, in the link's fragment, which the browser never sends to a server.
      event.currentTarget.replaceWith(h("label.field.device-link", {},
        h("span", {}, "Open this on the other device; then approve its key on this seat's page"),
        h("input", { readonly: true, value: deviceLink(seat), name: "device-link" })));
    } }, "use on another device") : null,
    h("button.link", { type: "button", onclick: async () => {
      if (!window.confirm(`Forget this seat? Its signing key is deleted from this browser.`)) return;
      const gone = forgetSeat(key);
      await deleteKey(gone?.keyId);
      renderSeatList(highlightGame);
    } }, "forget"),
  )) : h("li.muted", {}, "No seats in this browser yet."));
}

async function onJoin(event) {
  event.preventDefault();
  clearError();
  const form = event.currentTarget;
  const why = signingUnavailable();
  if (why) return showError(new Error(`Cannot join: ${why}.`));
  const values = Object.fromEntries(new FormData(form));
  const game = values.game.trim();
  const powers = values.powers.split(/[\s,]+/).filter(Boolean);
  setBusy(form, true);
  let key;
  try {
    key = await createKey(`${game}/${values.side}`);
    // The join is signed by the key it registers (it proves the key is held).
    const body = await signJoin(key.keys, { game, side: values.side,
      joinCode: values.join_code.trim(), name: values.name.trim(),
      powers: powers.length ? powers : null });
    const { data } = await api(`/v1/games/${encodeURIComponent(game)}/seats/${values.side}`,
      { method: "POST", body });
    const seat = { game, role: "player", side: values.side, name: body.name,
      player: data.player_id, token: data.token, keyId: key.keyId, publicKey: key.publicKey, seq: 0 };
    saveSeat(seat);
    location.assign(playUrl({ game, seat: seatName(seat) }));
  } catch (error) {
    if (key) await deleteKey(key.keyId).catch(() => {});
    showError(error);
  } finally {
    setBusy(form, false);
  }
}

async function onOpenGm(event) {
  event.preventDefault();
  clearError();
  const form = event.currentTarget;
  const values = Object.fromEntries(new FormData(form));
  const game = values.game.trim();
  const token = values.token.trim();
  setBusy(form, true);
  try {
    const { data } = await api(`/v1/games/${encodeURIComponent(game)}/state`, { token });
    if (data.me?.role !== "gm") throw new Error("that token is a player's, not the game master's");
    saveSeat({ game, role: "gm", token });
    location.assign(playUrl({ game, seat: "gm" }));
  } catch (error) {
    showError(error);
  } finally {
    setBusy(form, false);
  }
}

async function onCreate(event) {
  event.preventDefault();
  clearError();
  const form = event.currentTarget;
  const values = Object.fromEntries(new FormData(form));
  setBusy(form, true);
  try {
    const file = form.elements.scenario_file.files?.[0];
    let scenario = values.scenario;
    if (file) {
      try {
        scenario = JSON.parse(await file.text());
      } catch (error) {
        throw new Error(`the scenario file is not JSON: ${error.message}`);
      }
    }
    const { data } = await api("/v1/games", { method: "POST", token: values.operator_key || undefined,
      body: { name: values.name.trim(), scenario, dice: { mode: values.dice },
        options: { dropout: { policy: values.dropout } } } });
    saveSeat({ game: data.id, role: "gm", token: data.gm_token, joinCodes: data.join_codes });
    location.assign(playUrl({ game: data.id, seat: "gm" }));
  } catch (error) {
    showError(error);
  } finally {
    setBusy(form, false);
  }
}

function setBusy(root, busy) {
  for (const control of root.querySelectorAll("button, input, select, textarea")) {
    if (busy) {
      if (!("wasDisabled" in control.dataset)) control.dataset.wasDisabled = control.disabled ? "1" : "";
      control.disabled = true;
    } else if ("wasDisabled" in control.dataset) {
      // Controls built while busy keep their own state.
      control.disabled = control.dataset.wasDisabled === "1";
      delete control.dataset.wasDisabled;
    }
  }
  root.classList.toggle("busy", busy);
}

// ------------------------------------------------------------------ one game

const page = {
  seat: null,
  summary: null,
  state: null,
  etag: null,
  scenario: null,
  log: new Map(), // seq -> event record
  lastSeq: 0,
  live: null,
  liveMode: "connecting",
  players: {}, // player id -> name, from the export
  selectedHex: null,
  unitFilter: "all",
  unitsAll: false, // a phone lists a few units until asked for them all
  logKeep: LOG_SHOWN, // events kept in the log (more once older ones are asked for)
  firstSeq: 1, // the oldest event the log has
  forms: new Map(), // form id -> {key, node}
  controllers: {}, // minor power -> its controlling major, from the scenario
};

const gamePath = (suffix = "") => `/v1/games/${encodeURIComponent(page.seat.game)}${suffix}`;
// Legal choices and plans are heavy requests the server answers one at a time per seat
// (issue 33): while one is computed another is answered 429 `request/heavy_in_flight`,
// and a full or slow server 503; the page asks again a moment later, a few times.
// A big game's state view is one too.
const RETRIED = new Set(["request/heavy_in_flight", "server/busy", "server/too_slow"]);
const retried = async (call) => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof WifProblem) || !RETRIED.has(error.code) || attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
};
// The page sends its heavy requests one after another (the server would refuse the
// second while the first is computed), its light reads at once.
const HEAVY = /^\/(export|dice|options|units\/[^/]+\/options|combat\/odds|reorg\/(options|repairs))(\?|$)/;
let heavyTurn = Promise.resolve();
const inTurn = (call) => {
  const turn = heavyTurn.then(call, call);
  heavyTurn = turn.catch(() => {});
  return turn;
};
const get = (suffix) => {
  const call = () => retried(() => api(gamePath(suffix), { token: page.seat.token }));
  return HEAVY.test(suffix) ? inTurn(call) : call();
};
const isGm = () => page.seat.role === "gm";
const isPlayer = () => page.seat.role === "player";

/** A power's side; a minor's is its controller's (known once the scenario is loaded). */
function sideOf(power) {
  const powers = page.state?.powers || {};
  return powers[power]?.side ?? powers[page.controllers[power]]?.side ?? null;
}

/** The major power commanding `power` (itself for a major). */
const controllerOf = (power) => page.controllers[power] || power;

async function openGame(seat) {
  page.seat = seat;
  $("#lobby").hidden = true;
  $("#game").hidden = false;
  const role = isPlayer() ? seat.side : seat.role;
  document.body.dataset.side = role;
  document.body.dataset.role = seat.role;
  fill($("#seat-badge"), { gm: "Game master", spectator: "Spectator" }[seat.role] || `${seat.side}`,
    seat.name ? h("small", {}, ` ${seat.name}`) : null);
  $("#seat-badge").className = `side-tag ${role}`;
  $("#admin").hidden = !isGm();
  $("#orders").hidden = !isPlayer();
  $("#notify").hidden = !isPlayer() || !("Notification" in window)
    || Notification.permission !== "default";
  page.logView = new LogView($("#log-list"));
  if (!isPlayer()) {
    $("#log-filter [value=mine]").remove();
    $("#unit-filter [value=mine]").remove();
  } else if (PHONE.matches) {
    // A phone lists its own side's units first; the table can show them all.
    page.unitFilter = "mine";
    $("#unit-filter").value = "mine";
  }
  page.devices = isPlayer() ? new Devices({ seat, api, gamePath, saveSeat, showError, notice,
    setBusy, events: () => [...page.log.values()], refresh }) : null;
  page.play = isPlayer() ? connectPlay({
    ctx: () => formContext(page.state),
    get: (suffix) => get(suffix).then(({ data }) => data),
    send: sendFromForm,
    redrawMap: renderMapPanel,
    focus: (hex) => page.map?.zoomTo(hex),
    // After a report the units moved: the table lists every unit again.
    reported: () => { page.selectedHex = null; renderUnits(page.state); },
    events: () => [...page.log.values()],
  }) : null;
  if (isPlayer()) {
    page.notify = new NotifyPanel({ seat, api, gamePath, showError, notice, setBusy });
    fill($("#seat-body"), page.devices.handoverNode(),
      h("details.notify-details", { ontoggle: (event) => { if (event.target.open) page.notify.load(); } },
        h("summary", {}, "Notifications when this tab is closed"), page.notify.node));
    $("#seat-card").hidden = false;
  }
  if (isGm()) {
    page.gm = new GmPanel($("#admin-body"), { seat, api, get, gamePath, state: () => page.state,
      scenario: () => page.scenario,
      refresh, notice, showError, clearError, setBusy, playUrl, sideTag });
    page.gm.render();
  }
  try {
    await loadLog();
    await refresh();
  } catch (error) {
    showError(error);
    if (error.status === 401 || error.status === 403 || error.status === 404) return;
  }
  loadScenario();
  page.devices?.start();
  page.live = follow({
    url: gamePath("/stream"),
    token: seat.token,
    lastSeq: () => page.lastSeq,
    onEvent: ({ data }) => {
      addEvents([data]);
      scheduleRefresh();
    },
    poll: pollSummary,
    head: async () => (await get("")).data.head.seq,
    onMode: (mode) => {
      page.liveMode = mode;
      const node = $("#live-mode");
      node.textContent = { stream: "live", polling: "polling", connecting: "connecting…",
        stopped: "stopped" }[mode] || mode;
      node.className = `live ${mode}`;
      node.title = mode === "stream" ? "following the server's event stream"
        : "checking for changes every 1.5 s";
    },
    onFatal: (problem) => {
      page.live?.stop();
      showError(new WifProblem(problem.status || 401, problem));
    },
  });
}

// ------------------------------------------------------------------ "your move"

let wasMyMove = null;

/** The tab's title and, with the player's permission, a browser notification when the
 *  game newly awaits this player. */
function announceMyMove(mine, state) {
  const name = state.game.name || state.game.id;
  document.title = `${mine.length ? "● Your move · " : ""}${name} · WiF referee`;
  const now = mine.length > 0;
  if (now && wasMyMove === false && "Notification" in window && Notification.permission === "granted") {
    try {
      new Notification(`Your move: ${mine.map((a) => words(a.step)).join(", ")}`,
        { body: `${name}, turn ${state.turn.number}`, tag: `wif-${state.game.id}` });
    } catch {
      // Some browsers only notify from a service worker; the title still says it.
    }
  }
  wasMyMove = now;
}

async function askToNotify() {
  const answer = await Notification.requestPermission();
  $("#notify").hidden = answer !== "default";
  notice(answer === "granted" ? "You will be notified when it is your move."
    : "No notifications: the tab's title still shows “Your move”.");
}

// Refreshes are coalesced: one runs at a time, and one more runs after it if asked.
let refreshing = null;
let refreshAgain = false;
let refreshTimer = null;

/** Read the state soon; a read that fails (the network away a moment) is tried again
 *  every few seconds, so an event heard is never left unshown. */
function scheduleRefresh(delay = 80) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refresh().catch((error) => {
    if (!(error instanceof WifProblem && error.status === 0)) showError(error);
    scheduleRefresh(3000);
  }), delay);
}

function refresh() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      do {
        refreshAgain = false;
        await refreshOnce();
      } while (refreshAgain);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function refreshOnce() {
  const headers = page.etag ? { "If-None-Match": page.etag } : {};
  const [summary, state] = await Promise.all([
    get(""),
    retried(() => api(gamePath("/state"), { token: page.seat.token, headers })),
  ]);
  page.summary = summary.data;
  if (!state.notModified) {
    page.state = state.data;
    page.etag = state.response.headers.get("ETag");
  }
  if (page.state.game.version !== page.summary.version) {
    // Read at two moments: read both again rather than draw forms from a summary and a
    // state that disagree (a form drawn for one position, then rebuilt for the other,
    // would lose what the player chose in it). Drawn anyway after a few tries.
    refreshAgain = true;
    page.mismatches = (page.mismatches || 0) + 1;
    if (page.mismatches <= 3) return;
  }
  page.mismatches = 0;
  // Events committed after the state was read may come with the log: the state is then
  // older than the log, and the stream will not announce them again (it resumes after
  // the newest event the page has), so read the state once more.
  if (page.liveMode !== "stream" && await catchUpLog()) refreshAgain = true;
  await unsealLog();
  render();
}

async function pollSummary() {
  const { data } = await get("");
  if (!page.summary || data.version !== page.summary.version) await refresh();
}

// ------------------------------------------------------------------ the log

async function loadLog() {
  const { data } = await get("/log?after=0&limit=1");
  const head = data.head || 0;
  page.lastSeq = Math.max(0, head - LOG_SHOWN);
  page.firstSeq = page.lastSeq + 1;
  await catchUpLog();
  showOlderButton();
}

/** The log starts with the newest LOG_SHOWN events; older ones come a page at a time, back
 *  to the game's first event. */
async function loadOlder() {
  const button = $("#log-older");
  const count = Math.min(LOG_SHOWN, page.firstSeq - 1);
  if (count <= 0) return;
  button.disabled = true;
  try {
    const from = page.firstSeq - 1 - count;
    const { data } = await get(`/log?after=${from}&limit=${count}`);
    page.logKeep += data.events.length;
    page.firstSeq = from + 1;
    for (const event of data.events) page.log.set(event.seq, event);
    renderLog();
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
    showOlderButton();
  }
}

function showOlderButton() {
  const button = $("#log-older");
  const left = page.firstSeq - 1;
  button.hidden = left <= 0;
  button.textContent = `Show ${Math.min(LOG_SHOWN, left)} older events (${left} before these)`;
}

/** Read the log after the newest event the page has; true when there were new events. */
async function catchUpLog() {
  let added = false;
  for (;;) {
    const { data } = await get(`/log?after=${page.lastSeq}&limit=500`);
    added = addEvents(data.events) || added;
    if (data.events.length < 500) return added;
  }
}

/** Reroll answers arrive sealed while their window is open; fetch them again after. */
async function unsealLog() {
  if (page.state.turn.step === "initiative.reroll") return;
  const sealed = [...page.log.values()].filter((e) => e.sealed).map((e) => e.seq);
  if (!sealed.length) return;
  const from = Math.min(...sealed) - 1;
  const limit = Math.min(1000, Math.max(...sealed) - from);
  const { data } = await get(`/log?after=${from}&limit=${limit}`);
  for (const event of data.events) page.log.set(event.seq, event);
  renderLog();
}

function addEvents(events) {
  let added = false;
  for (const event of events) {
    if (!event || typeof event.seq !== "number") continue;
    if (!page.log.has(event.seq) || page.log.get(event.seq).sealed) {
      page.log.set(event.seq, event);
      added = true;
    }
    page.lastSeq = Math.max(page.lastSeq, event.seq);
    if (event.kind === "game.rolled_back" && Array.isArray(event.data?.abandons)) {
      remark(event.data.abandons[0]).catch(showError);
    }
  }
  if (added) {
    const gone = [...page.log.keys()].sort((a, b) => b - a).slice(page.logKeep);
    for (const seq of gone) page.log.delete(seq);
    if (gone.length) {
      page.firstSeq = Math.max(...gone) + 1;
      showOlderButton();
    }
    renderLog();
    page.devices?.check();
  }
  return added;
}

/** A rollback marks the events it abandons (`rolled_back`): read them again from `first`
 *  so the log shows them struck through. */
async function remark(first) {
  for (let after = Math.max(0, first - 1); after < page.lastSeq;) {
    const { data } = await get(`/log?after=${after}&limit=500`);
    for (const event of data.events) if (page.log.has(event.seq)) page.log.set(event.seq, event);
    if (!data.events.length) break;
    after = data.events[data.events.length - 1].seq;
  }
  renderLog();
}

function renderLog() {
  if (!page.logView) return;
  const me = page.state?.me || { role: page.seat.role };
  const units = new Set(Object.entries(page.state?.units || {})
    .filter(([, u]) => me.side && sideOf(u.power) === me.side).map(([id]) => id));
  page.logView.render([...page.log.values()], { names: { ...page.players, gm: "the game master" },
    me: { ...me, units }, filter: $("#log-filter").value });
}

// ------------------------------------------------------------------ rendering the state

/** My side's entries of `awaiting` (in a per-power step, those of powers I hold). */
function myEntries(state) {
  if (!isPlayer()) return [];
  const me = state.me || {};
  return (state.awaiting || []).filter((a) => a.side === me.side
    && (!PER_POWER_STEPS.includes(a.step) || a.powers.some((p) => me.powers.includes(p))));
}

/** Of those, where my side may act now: in the Reaction step the sides react one after
 *  the other, in turn order (RULES-NOTES 31), so only when mine is the first awaited. */
function mineAwaiting(state) {
  const first = (state.awaiting || [])[0];
  return myEntries(state).filter((a) => a.step !== "reaction" || first?.side === a.side);
}

/** My entries a standing order of my side answers when they come (combat and
 *  exploitation orders only where my side is not phasing, docs/api.md). */
function answeredByStanding(state, entries) {
  const armed = new Set((state.standing?.orders || []).filter((o) => o.side === state.me?.side)
    .map((o) => o.step));
  return entries.filter((a) => armed.has(a.step)
    && !(NOT_PHASING_STEPS.includes(a.step) && state.turn.phasing_side === a.side));
}

function render() {
  const { state, summary } = page;
  if (!state || !summary) return;
  renderStatus(state, summary);
  renderAwaiting(state);
  renderPowers(state);
  renderUnits(state);
  renderMapPanel();
  renderForms(state);
  page.gm?.update(state);
  labelCells();
}

/** Each table cell names its column (data-label), which a phone shows when the table's
 *  rows are stacked as cards. */
function labelCells() {
  for (const table of document.querySelectorAll("#game table")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    if (!heads.length) continue;
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, i) => {
        if (heads[i] && !cell.dataset.label) cell.dataset.label = heads[i];
      });
    }
  }
}

function sideTag(side) {
  return side ? h(`span.side-tag.${side}`, {}, side) : h("span.muted", {}, "—");
}

/** The turn-end track in words (seed 002 Turn End): what of the total the passing powers
 *  added, and whether the turn has ended or goes on past the threshold. */
function turnEndNote(t, status) {
  const bonus = t.turn_end_bonus || 0;
  const sum = bonus ? `dice ${t.turn_end_total - bonus} + pass bonuses ${bonus}` : null;
  let verdict = null;
  if (["final_reorganization", "production"].includes(t.step) && status !== "finished") {
    verdict = "the turn has ended";
  } else if (t.turn_end_total >= t.threshold && status !== "finished") {
    verdict = "reached, but the last die was 1-3: the turn goes on";
  }
  return [sum, verdict].filter(Boolean).join("; ");
}

function renderStatus(state, summary) {
  const t = state.turn;
  const g = state.game;
  fill($("#game-title"), g.name || summary.name || g.id,
    h("small.muted", {}, ` ${g.scenario} · ${g.id}`));
  const status = $("#game-status");
  status.textContent = g.status + (g.scripted ? " · scripted dice" : ` · ${g.dice_mode} dice`);
  status.className = `status-tag ${g.status}`;
  $("#status-turn").textContent = t.number;
  $("#status-round").textContent = t.round;
  $("#status-impulse").textContent = t.impulse;
  const step = $("#status-step");
  step.textContent = words(t.step);
  step.dataset.step = t.step;
  fill($("#status-phasing"), sideTag(t.phasing_side));
  const w = t.weather;
  $("#status-weather").textContent = w
    ? `${w.weather} (roll ${w.roll}, ${w.dice} ${w.dice === 1 ? "die" : "dice"})` : "—";
  $("#status-turn-end").textContent = `${t.turn_end_total} / ${t.threshold}`;
  fill($("#status-turn-end-note"), turnEndNote(t, state.game.status));
  const meter = $("#turn-end-meter");
  meter.max = t.threshold || 1;
  meter.value = Math.min(t.turn_end_total, t.threshold || 1);
  fill($("#status-order"), t.order.length
    ? t.order.map((s, i) => [i ? " → " : "", sideTag(s)]) : h("span.muted", {}, "not chosen yet"));
  const ini = state.initiative;
  fill($("#initiative"), SIDES.filter((s) => s in ini.boxes).map((side) => h("tr", {},
    h("th", {}, sideTag(side)),
    h("td", {}, h("span.boxes", {}, ["+2", "+1", "0", "0", "0"].map((label, i) =>
      h(`span.box${ini.boxes[side] === i ? ".here" : ""}`, { title: `box ${i}` }, label)))),
    h("td.num", {}, ini.totals[side] ?? ""),
    h("td.num", { title: "impulses taken this turn" }, t.impulses_taken[side] ?? 0))));
}

function renderAwaiting(state) {
  const entries = myEntries(state);
  const now = mineAwaiting(state);
  const standing = answeredByStanding(state, entries);
  const yours = now.filter((a) => !standing.includes(a));
  const myMove = $("#my-move");
  const awaiting = state.awaiting || [];
  myMove.classList.toggle("yours", yours.length > 0);
  myMove.classList.toggle("later", !yours.length && entries.length > 0);
  if (yours.length) {
    const powers = yours.flatMap((a) => a.powers.filter((p) => state.me.powers.includes(p)));
    const step = yours.map((a) => words(a.step)).join(", ");
    myMove.textContent = `Your move: ${step}${PER_POWER_STEPS.includes(yours[0].step) ? ` (${powers.join(", ")})` : ""}`;
  } else if (entries.length) {
    // My side is awaited, but not now: a standing order answers for it, or it reacts later.
    const first = awaiting[0];
    const step = words(entries[0].step);
    const after = now.length ? "" : ` after ${first.side}`;
    fill(myMove, `Waiting for ${first.side} (${words(first.step)})`, h("small", {}, standing.length
      ? `Your standing order answers the ${step} step for you${after ? ` when your turn comes,${after}` : ""}.`
      : `You react${after}: your turn comes when ${first.side} is done (RULES-NOTES 31).`));
  } else if (!awaiting.length) {
    myMove.textContent = state.game.status === "paused" ? "The game is paused."
      : state.game.status === "finished" ? "The game is over." : "Nobody is awaited.";
  } else {
    myMove.textContent = `Waiting for ${[...new Set(awaiting.map((a) => a.side))].join(", ")}`
      + ` (${[...new Set(awaiting.map((a) => words(a.step)))].join(", ")})`;
  }
  fill($("#awaiting"), awaiting.map((a) => h(`li${entries.includes(a) ? ".mine" : ""}`,
    { dataset: { side: a.side, step: a.step } },
    sideTag(a.side), h("span.step", {}, words(a.step)),
    h("span.powers", {}, a.powers.join(", ")),
    standing.includes(a) ? h("span.standing-note", {}, "your standing order answers") : null,
    a.deadline ? h("span.deadline", {}, `by ${formatTime(a.deadline)}`) : null)));
  const me = state.me || {};
  $("#me-line").textContent = isGm() ? "You are the game master: you see every side."
    : page.seat.role === "spectator" ? "You are watching: the public view, no side's secrets."
    : `You play ${me.side}, holding ${(me.powers || []).join(", ") || "no power"}.`;
  announceMyMove(yours, state);
}

function renderPowers(state) {
  const me = state.me || {};
  const t = state.turn;
  const rows = Object.entries(state.powers).sort(([ia, a], [ib, b]) =>
    SIDES.indexOf(a.side) - SIDES.indexOf(b.side) || ia.localeCompare(ib));
  fill($("#powers-body"), rows.map(([id, p]) => h(
    `tr${(me.powers || []).includes(id) ? ".mine" : ""}`, { dataset: { power: id } },
    h("th", {}, id), h("td", {}, sideTag(p.side)),
    h("td", {}, (me.powers || []).includes(id) ? "you"
      : p.holder ? page.players[p.holder] || "held" : h("em", {}, "free")),
    h("td.num.rps", {}, p.rps), h("td.num.chits", {}, p.chits),
    // A declaration is this impulse's only from the phasing side once it has declared.
    h("td", {}, p.side === t.phasing_side && t.step !== "declare" ? p.declared ?? "" : ""),
    h("td", {}, [p.neutral ? "neutral" : null, p.conquered ? "conquered" : null,
      p.fuel === null || p.fuel === undefined ? null : `fuel ${p.fuel}`,
      p.production ? `production ${p.production.bp_spent}/${p.production.bp_on_rps}`
        + (p.bp_reported ? " (as reported)" : ` (of ${p.build_points} BP)`) : null]
      .filter(Boolean).join(", ")))));
}

function renderUnits(state) {
  const me = state.me || {};
  let units = Object.entries(state.units);
  if (page.selectedHex) units = units.filter(([, u]) => u.at === page.selectedHex);
  else if (page.unitFilter === "mine") units = units.filter(([, u]) => sideOf(u.power) === me.side);
  units.sort(([ia, a], [ib, b]) => SIDES.indexOf(sideOf(a.power)) - SIDES.indexOf(sideOf(b.power))
    || a.power.localeCompare(b.power) || ia.localeCompare(ib));
  $("#units-count").textContent = `${units.length} of ${Object.keys(state.units).length}`;
  const all = units.length;
  if (PHONE.matches && !page.unitsAll && !page.selectedHex) units = units.slice(0, PHONE_UNITS);
  const more = $("#units-more");
  more.hidden = units.length === all;
  more.textContent = `Show all ${all} units`;
  const hexFilter = $("#hex-filter");
  hexFilter.hidden = !page.selectedHex;
  $("#hex-filter-name").textContent = page.selectedHex || "";
  const supply = state.supply || {};
  fill($("#units-body"), units.map(([id, u]) => h(
    `tr${sideOf(u.power) === me.side ? ".mine" : ""}`, { dataset: { unit: id } },
    h("th", { scope: "row" }, h("button.link.unit-pick", { type: "button", name: `select-${id}`,
      title: "show it on the map (and select it to play, when it is yours)",
      onclick: () => onMapUnit(id) }, id)), h("td.power", {}, words(u.power)),
    h("td", {}, u.type, h("small.muted", {}, [u.size, u.class !== "land" ? u.class : null]
      .filter(Boolean).map((x) => ` ${x}`))),
    h("td.at", {}, h("button.link", { type: "button", onclick: () => selectHex(u.at) }, u.at)),
    h("td.face", { title: u.face_up ? "face up" : "face down: reorganize it to use it again" },
      h(`span.face.${u.face_up ? "up" : "down"}`, {}, u.face_up ? "up" : "down"),
      u.shattered ? [" ", h("span.shattered", {}, "shattered")] : null,
      u.steps_lost ? [" ", h("small.muted", {}, `−${u.steps_lost} step${u.steps_lost > 1 ? "s" : ""}`)] : null),
    h("td.mode", {}, modeCell(u)),
    valueCells(u),
    h("td.supply", {}, supplyCell(supply[id])))));
  labelCells();
}

const MARKS = { mode_changed: "mode changed", moved: "moved", attacked: "attacked" };

function modeCell(u) {
  const marks = Object.entries(MARKS).filter(([k]) => u.this_impulse?.[k]).map(([, label]) => label);
  if (u.this_impulse?.released) marks.push(`released (${u.this_impulse.released})`);
  return [u.mode ?? "",
    u.orientation && u.orientation !== u.mode ? [" ", h("small.muted", {}, `${u.orientation} side`)] : null,
    marks.map((m) => [" ", h("span.mark", {}, m)])];
}

/** Effective attack-defence-MA, Action Rating and ZOC (null for units without modes). */
function valueCells(u) {
  const e = u.effective;
  if (!e) return [h("td.values.muted", {}, "—"), h("td.num.ar.muted", {}, ""), h("td.zoc", {}, "")];
  const now = e.ma > 0 ? ` · may move ${e.ma} MP now, ${e.mp_left} left` : "";
  const title = `attack ${e.attack}, defence ${e.defence}, MA ${e.movement_ma} in its movement step${now}`
    + (e.barrage ? `; barrage ${e.barrage}` : "");
  const can = [e.can_attack && "attack", e.can_overrun && "overrun", e.can_barrage && "barrage",
    e.can_use_transport && "transport"].filter(Boolean);
  return [
    h("td.values", { title: can.length ? `${title}; may ${can.join(", ")} now` : title },
      h("span.strength", {}, `${e.attack}-${e.defence}-${e.movement_ma}`),
      e.ma > 0 ? h("small.mp", {}, ` ${e.mp_left}/${e.ma} MP`) : null),
    h("td.num.ar", { title: e.attrition_action_rating !== e.action_rating
      ? `printed ${e.attrition_action_rating} (used for attrition)` : "Action Rating" }, e.action_rating),
    h("td.zoc", { title: e.zoc ? "exerts a ZOC" : "exerts no ZOC" }, e.zoc ? "✓" : h("span.muted", {}, "–")),
  ];
}

function supplyCell(status) {
  if (!status) return h("span.muted", {}, "—");
  if (!status.in_supply) {
    return h("span.out", { title: `${status.reason || "out of supply"}${status.rule ? ` (${status.rule})` : ""}` },
      "✗ out of supply");
  }
  const via = status.via ? ` via ${status.via}` : "";
  const route = status.route?.length ? ` (${status.route.join(", ")})` : "";
  const length = status.length ? `, ${status.length} hex path` : "";
  return h("span.in", { title: `in supply: ${status.method} from ${status.source}${via}${route}${length}` },
    h("span.method", {}, `✓ ${status.method}`), " ", h("small.muted", {}, `${status.source}${via}`));
}

function selectHex(hex) {
  page.selectedHex = page.selectedHex === hex ? null : hex;
  renderUnits(page.state);
  renderMapPanel();
}

/** A hex clicked (or Enter on it): a move or an attack of the selected unit when it may
 *  go there, else the hex's stack is selected (and listed in the units table). */
function onMapHex(hex) {
  if (page.play?.onHex(hex)) return;
  page.gm?.edit.pickHex?.(hex);
  const stack = Object.entries(page.state?.units || {}).filter(([, u]) => u.at === hex);
  const mine = stack.filter(([, u]) => sideOf(u.power) === page.state.me?.side);
  selectHex(hex);
  // One unit of mine alone in the hex: select it for play at once.
  if (page.selectedHex === hex && mine.length === 1 && stack.length === 1) page.play?.onUnit(mine[0][0]);
}

/** A counter of a fanned stack (or 1-9 on the keyboard): my unit is selected for play. */
function onMapUnit(uid) {
  const unit = page.state?.units[uid];
  if (!unit) return;
  page.gm?.edit.pickUnit?.(uid);
  page.gm?.edit.pickHex?.(unit.at);
  if (page.play?.onUnit(uid)) {
    page.selectedHex = unit.at;
    renderUnits(page.state);
    return;
  }
  if (page.selectedHex !== unit.at) selectHex(unit.at);
}

async function loadScenario() {
  try {
    const { data } = await get("/export");
    page.scenario = data.scenario;
    page.controllers = Object.fromEntries((data.scenario?.minors || [])
      .map((m) => [m.id, m.controller]));
    page.players = Object.fromEntries((data.players || []).map((p) => [p.id, p.name]));
    render();
  } catch (error) {
    fill($("#offmap"), h("p.muted", {}, `The map could not be loaded: ${error.message}`));
  }
}

function renderMapPanel() {
  if (!page.state) return;
  if (!page.scenario) {
    fill($("#offmap"), h("p.muted", {}, "Loading the map…"));
    return;
  }
  if (!page.map) {
    page.map = new HexMap($("#map"), { onHex: onMapHex, onUnit: onMapUnit,
      announce: (text) => { $("#map-cursor").textContent = text; } });
    renderLegend();
  }
  const offmap = page.map.update({
    scenario: page.scenario, units: page.state.units, sideOf, mySide: page.state.me?.side,
    supply: page.state.supply, selectedHex: page.selectedHex,
    overlays: { supply: $("#overlay-supply").checked, zoc: $("#overlay-zoc").checked },
    ...(page.play?.layers() || {}),
  });
  const places = Object.entries(offmap);
  fill($("#offmap"), places.length ? h("p", {}, h("strong", {}, "At sea / off the map: "),
    places.map(([place, units], i) => [i ? "; " : "",
      h("button.link", { type: "button", onclick: () => selectHex(place) }, place),
      ` ${units.map(([id]) => id).join(", ")}`])) : null);
}

/** The legend: the terrains of this map, the counters' marks, the overlays. */
function renderLegend() {
  const used = new Set((page.scenario?.map?.hexes || []).map((x) => x.terrain || "clear"));
  const swatch = (fill, extra = {}) => svg("svg", { width: 18, height: 18, viewBox: "0 0 18 18",
    "aria-hidden": "true", focusable: "false" }, svg("rect", { x: 1, y: 1, width: 16, height: 16, rx: 2,
    fill, ...extra }));
  const powers = Object.entries(page.state?.powers || {});
  fill($("#map-legend"),
    h("h3.visually-hidden", {}, "Legend"),
    h("ul.legend-list", { "aria-label": "Terrain" }, Object.entries(TERRAIN).filter(([id]) => used.has(id))
      .map(([id, t]) => h("li", {}, swatch(t.color), ` ${t.label}`))),
    h("ul.legend-list", { "aria-label": "Powers" }, powers.map(([id, p]) => h("li", {},
      swatch(powerColors(id, p.side)[0], { stroke: SIDE_COLORS[p.side] || "#777", "stroke-width": 2 }), ` ${words(id)}`))),
    h("ul.legend-list", { "aria-label": "Counters" },
      h("li", {}, h("b.mode-key", {}, "C M R S E"), " Combat, Move, Reserve, Strat, Exploit Mode"),
      h("li", {}, h("b.mode-key.dg", {}, "DG"), " disorganized"),
      h("li", {}, h("b.mode-key.down", {}, "▼"), " face down"),
      h("li", {}, "4-3-3: attack-defence-movement in its mode"),
      h("li", {}, "★ supply source · ⚓ port · ◌ railway")));
}

// ------------------------------------------------------------------ orders

function formContext(state) {
  const me = state.me || { powers: [] };
  return {
    state,
    position: page.summary.position,
    step: state.turn.step,
    me,
    mine: mineAwaiting(state),
    units: Object.entries(state.units).filter(([, u]) => sideOf(u.power) === me.side),
    scenario: page.scenario,
    sideOf,
    controllerOf,
    send: sendFromForm,
    preview: previewFromForm,
    dryRun: previewOrder,
    get: (suffix) => get(suffix).then(({ data }) => data),
    fail: (message) => showError(new Error(message)),
    showError,
    events: () => [...page.log.values()],
    redrawMap: renderMapPanel,
  };
}

function renderForms(state) {
  if (!isPlayer()) return;
  const ctx = formContext(state);
  const holders = { side: $("#order-forms"), wide: $("#wide-forms"), done: $("#done-holder") };
  const shown = { side: [], wide: [], done: [] };
  for (const form of ORDER_FORMS) {
    if (!form.applies(ctx)) {
      page.forms.get(form.id)?.node.remove();
      page.forms.delete(form.id);
      continue;
    }
    const key = form.key ? form.key(ctx) : "";
    let entry = page.forms.get(form.id);
    if (!entry || entry.key !== key) {
      const card = form.wide || form.place;
      const node = h(`section.order-form${card ? ".card" : ""}`, { dataset: { form: form.id },
        "aria-label": form.title }, h(card ? "h2" : "h3", {}, form.title), form.render(ctx));
      entry?.node.replaceWith(node);
      entry = { key, node };
      page.forms.set(form.id, entry);
    } else if (form.update) {
      form.update(ctx, entry.node);
    }
    shown[form.place || (form.wide ? "wide" : "side")].push(entry.node);
  }
  // Keep the registry's order; nodes that did not change are moved, not rebuilt.
  for (const [place, holder] of Object.entries(holders)) {
    shown[place].forEach((node, i) => {
      if (holder.children[i] !== node) holder.insertBefore(node, holder.children[i] || null);
    });
    // A form may move between places (a wide card one step, the side panel the next).
    for (const node of [...holder.children]) if (!shown[place].includes(node)) node.remove();
  }
  $("#orders-idle").hidden = ctx.mine.length > 0;
  // Forms built while an order is on its way wait for its answer too.
  if (sending) setOrdersBusy(true);
}

/** Busy: every order control on the page (the side panel and the wide forms). */
function setOrdersBusy(busy) {
  setBusy($("#orders"), busy);
  setBusy($("#wide-forms"), busy);
  setBusy($("#done-holder"), busy);
  if (!busy && page.devices?.locked) page.devices.lock(true);
}

let sending = false;

async function sendFromForm(kind, body, { onProblem } = {}) {
  if (sending) return false;
  sending = true;
  setOrdersBusy(true);
  clearError();
  try {
    await sendOrder(kind, body);
    return true;
  } catch (error) {
    showError(error);
    if (error instanceof WifProblem) onProblem?.(error.problem);
    return false;
  } finally {
    setOrdersBusy(false);
    sending = false;
  }
}

/** A dry run of an order (validated and previewed by the server, nothing stored): the
 *  preview {valid, events, position, awaiting}, or null after showing the refusal. */
async function previewFromForm(kind, body, { onProblem } = {}) {
  if (sending) return null;
  sending = true;
  setOrdersBusy(true);
  clearError();
  try {
    return await previewOrder(kind, body);
  } catch (error) {
    showError(error);
    if (error instanceof WifProblem) onProblem?.(error.problem);
    return null;
  } finally {
    setOrdersBusy(false);
    sending = false;
  }
}

/** The kit's client for the seat, signing with the seat's stored key. */
async function seatClient(seat) {
  return new WifClient("", seat.token, { game: seat.game, player: seat.player,
    key: await loadKey(seat.keyId) });
}

async function previewOrder(kind, body) {
  const waiting = page.devices?.refusal();
  if (waiting) throw waiting;
  const seat = page.seat;
  // A dry run stores nothing, so it takes no seq: sign it with the next one, unused.
  const stored = loadSeats()[seatKey(seat)] || seat;
  const seq = Math.max(stored.seq || 0, seat.seq || 0) + 1;
  const client = await seatClient(seat);
  try {
    return await client.order(kind, body, { dryRun: true, seq, summary: page.summary });
  } catch (error) {
    if (error.status === 409) refresh().catch(() => {});
    throw error;
  }
}

/** The signed order of this seat sent without an answer (a timeout, a lost connection,
 *  a 5xx), as the text that was sent: it goes again as it is before anything new is
 *  signed, never signed anew (a new signature would be a new roll, docs/security.md). */
const pendingKey = (seat) => `wif.play.pending/${seat.game}/${seat.player}`;

async function sendPending(seat, client) {
  const sent = localStorage.getItem(pendingKey(seat));
  if (!sent) return;
  notice("An order sent before got no answer: sending it again, as it was signed.");
  try {
    const data = await client.send(sent);
    keepReceipt(seat, data.receipt);
  } catch (error) {
    if (error.problem?.code === "order/unanswered") throw error;
    keepReceipt(seat, error.problem?.receipt);
  }
  localStorage.removeItem(pendingKey(seat));
  await refresh();
}

async function sendOrder(kind, body) {
  const waiting = page.devices?.refusal();
  if (waiting) throw waiting;
  const seat = page.seat;
  const client = await seatClient(seat);
  await sendPending(seat, client);
  for (let attempt = 0; ; attempt += 1) {
    const seq = nextSeq(seat);
    const signed = await client.sign(kind, body, { seq, summary: page.summary });
    localStorage.setItem(pendingKey(seat), signed);
    try {
      const data = await client.send(signed);
      localStorage.removeItem(pendingKey(seat));
      keepReceipt(seat, data.receipt);
      notice(`✓ ${kind} accepted (seq ${seq}); ${data.events?.length ?? 0} event(s).`);
      if (page.liveMode !== "stream") addEvents(data.events || []);
      await refresh();
      return data;
    } catch (error) {
      if (error.problem?.code === "order/unanswered") throw error;
      localStorage.removeItem(pendingKey(seat));
      keepReceipt(seat, error.problem?.receipt);
      // The key waits (the page did not know, or this device's clock is early): count down.
      page.devices?.refusedForWait(error.problem);
      // Another tab of this seat used the seq: take the next one.
      if (error.problem?.code === "order/seq_reused" && attempt < 5) continue;
      if (error.status === 409) refresh().catch(() => {});
      throw error;
    }
  }
}

/** Keep the server's signed receipt of an order (accepted or refused): with an export,
 *  `verify --receipts` proves an order the server took and then dropped. */
function keepReceipt(seat, receipt) {
  if (!receipt) return;
  const key = `wif.play.receipts/${seat.game}/${seat.player}`;
  const kept = JSON.parse(localStorage.getItem(key) || "[]");
  kept.push(receipt);
  localStorage.setItem(key, JSON.stringify(kept));
}

// ------------------------------------------------------------------ the GM's panel

// ------------------------------------------------------------------ start

/** A link's fragment (never sent to a server): `#watch=<token>`, a spectator's link from
 *  the GM; `#seat=<json>`, a seat's token for another device of its player; `#gm=<token>`,
 *  the GM's link for another device. It is kept as a seat of this browser and taken off
 *  the address. */
function takeFragment(game, params) {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (!game || (!hash.get("watch") && !hash.get("seat") && !hash.get("gm"))) return;
  if (hash.get("gm")) {
    saveSeat({ game, role: "gm", token: hash.get("gm") });
    params.set("seat", "gm");
  } else if (hash.get("watch")) {
    saveSeat({ game, role: "spectator", token: hash.get("watch") });
    params.set("seat", "spectator");
  } else {
    try {
      const given = JSON.parse(hash.get("seat"));
      const old = loadSeats()[`${game}/${given.side}`];
      if (!old || old.token !== given.token) {
        saveSeat({ game, role: "player", side: given.side, name: given.name, player: given.player,
          token: given.token, keyId: null, seq: Date.now() % 1_000_000_000, fromLink: true });
      }
      params.set("seat", given.side);
    } catch {
      return;
    }
  }
  history.replaceState(null, "", playUrl(params));
}

function start() {
  $("#error-close").addEventListener("click", clearError);
  $("#join-form").addEventListener("submit", onJoin);
  $("#gm-form").addEventListener("submit", onOpenGm);
  $("#create-form").addEventListener("submit", onCreate);
  $("#unit-filter").addEventListener("change", (event) => {
    page.unitFilter = event.target.value;
    if (page.state) renderUnits(page.state);
  });
  $("#hex-filter-clear").addEventListener("click", () => selectHex(page.selectedHex));
  $("#zoom-in").addEventListener("click", () => page.map?.zoom(1.5));
  $("#zoom-out").addEventListener("click", () => page.map?.zoom(1 / 1.5));
  $("#zoom-fit").addEventListener("click", () => page.map?.fit());
  for (const id of ["#overlay-supply", "#overlay-zoc"]) $(id).addEventListener("change", renderMapPanel);
  $("#log-filter").addEventListener("change", renderLog);
  $("#log-older").addEventListener("click", loadOlder);
  $("#units-more").addEventListener("click", () => {
    page.unitsAll = true;
    if (page.state) renderUnits(page.state);
  });
  $("#notify").addEventListener("click", askToNotify);
  const params = new URLSearchParams(location.search);
  const game = params.get("game");
  takeFragment(game, params);
  const seats = loadSeats();
  let seat = game && params.get("seat") ? seats[`${game}/${params.get("seat")}`] : null;
  if (game && !params.get("seat") && !params.get("code")) {
    const ofGame = Object.values(seats).filter((s) => s.game === game);
    if (ofGame.length === 1) [seat] = ofGame;
  }
  if (seat) openGame(seat);
  else showLobby(params);
}

start();
