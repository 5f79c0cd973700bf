// ATR missions of reorganization, flown as 11.18.1 says (docs/api.md "ATR missions"): the
// reorganizing side announces air reorganization (air.begin); then each window its side
// is awaited in: the enemies' combat air patrol (step 1), the flight of ATRs and escorts
// (step 2), each side's interception (steps 3 and 4), and which aircraft an air-to-air
// result loses (step 5). The awaiting entry's `air` lists what may fly where; a fighter
// or ATR is chosen in the form or by its counter on the map, and a click on one of the
// blue hexes sends it there. Every side sees the mission in progress and its results.

import { fill, h, words } from "./dom.js";
import { sentence } from "./log.js";

export const AIR_WINDOWS = ["air.patrol", "air.flight", "air.intercept", "air.counter", "air.choice"];
const ASKS = {
  "air.patrol": "Fly fighters on combat air patrol over the hexes the enemy's ATRs could reach.",
  "air.flight": "Fly your ATRs to their targets, with escorting fighters.",
  "air.intercept": "Fly fighters to intercept the ATRs over their target hexes.",
  "air.counter": "Fly your own fighters against the enemy fighters over your target hexes.",
  "air.choice": "The air-to-air result leaves it to you which aircraft are lost or abort.",
};
const SEND = { "air.patrol": "Patrol as chosen", "air.intercept": "Intercept as chosen",
  "air.counter": "Intercept as chosen", "air.flight": "Fly as chosen" };
const NONE = { "air.patrol": "No patrol", "air.intercept": "No interception",
  "air.counter": "No interception", "air.flight": "Fly nothing" };
const ROLES = { patrol: "on patrol", atr: "ATR", escort: "escort", intercept: "intercepting",
  counter: "intercepting" };

const whose = (side) => `${words(side)}${side.endsWith("s") ? "'" : "'s"}`;

/** My side's awaiting entry in a window of an ATR mission, or undefined. */
export const airEntry = (ctx) => ctx.mine.find((a) => AIR_WINDOWS.includes(a.step));

/** My side may announce air reorganization now (its reorganization step offers it). */
const mayBegin = (ctx) => ctx.mine.some((a) => (a.orders || []).includes("air.begin"))
  && ctx.units.some(([, u]) => u.type === "ATR" && u.face_up);

// What the player has chosen in the window open (rebuilt when the window changes).
const plan = { key: null, selected: null, to: new Map(), flights: new Map(), payer: null };
let shown = null; // {node, ctx}: the form on the page, redrawn when the map chooses

function windowKey(ctx) {
  const e = airEntry(ctx);
  return e ? JSON.stringify([ctx.position, e.step, e.air.sorties.length, e.air.question?.text]) : null;
}

function fresh(ctx) {
  const key = windowKey(ctx);
  if (plan.key === key) return airEntry(ctx);
  Object.assign(plan, { key, selected: null, to: new Map(), flights: new Map(), payer: null });
  const entry = airEntry(ctx);
  if (entry?.step === "air.choice") {
    const q = entry.air.question;
    plan.to = new Map(q.default.map((u, i) => [u, i < q.lost ? "lost" : "aborted"]));
  }
  return entry;
}

/** The hexes the aircraft `uid` may fly to in the window open. */
function hexesOf(entry, uid) {
  if (!entry || !uid) return [];
  if (entry.air.fighters[uid]) {
    const targets = [...plan.flights.values()].map((f) => f.hex);
    return entry.step === "air.flight"
      ? entry.air.fighters[uid].filter((x) => targets.includes(x)) : entry.air.fighters[uid];
  }
  return Object.keys(entry.air.atrs[uid]?.hexes || {});
}

function redraw() {
  if (shown) fill(shown.node, content(shown.ctx));
  shown?.ctx.redrawMap();
}

function choose(uid) {
  plan.selected = plan.selected === uid ? null : uid;
  redraw();
}

function send(ctx, uid, hex) {
  if (hex) plan.to.set(uid, hex);
  else plan.to.delete(uid);
  redraw();
}

function target(atr, hex) {
  if (hex) plan.flights.set(atr, { hex, units: [] });
  else plan.flights.delete(atr);
  redraw();
}

/** What the map shows while my side answers a window: where the chosen aircraft may fly
 *  (blue), and where each aircraft chosen so far flies. */
export function airLayers(ctx) {
  const entry = fresh(ctx);
  if (!entry) return null;
  const units = ctx.state.units;
  const label = entry.step === "air.flight" && entry.air.atrs[plan.selected] ? "ATR" : "fly";
  const planned = [...plan.to.entries()].filter(([, x]) => !["lost", "aborted"].includes(x))
    .map(([uid, x]) => ({ from: units[uid]?.at, to: x, path: [x] }));
  for (const [atr, f] of plan.flights) planned.push({ from: units[atr]?.at, to: f.hex, path: [f.hex] });
  return {
    selectedUnit: plan.selected,
    transport: new Map(hexesOf(entry, plan.selected).map((x) => [x, label])),
    targets: new Set(),
    planned,
    plannedUnits: new Set([...plan.to.keys(), ...plan.flights.keys()]),
  };
}

/** A counter clicked: one of my aircraft that may fly in this window is chosen. */
export function airOnUnit(ctx, uid) {
  const entry = fresh(ctx);
  if (!entry || !(entry.air.fighters[uid] || entry.air.atrs[uid])) return false;
  shown = shown && { ...shown, ctx };
  choose(uid);
  return true;
}

/** A hex clicked: the aircraft chosen flies there when it may; true if so. */
export function airOnHex(ctx, hex) {
  const entry = fresh(ctx);
  if (!entry || !hexesOf(entry, plan.selected).includes(hex)) return false;
  shown = shown && { ...shown, ctx };
  if (entry.air.atrs[plan.selected]) target(plan.selected, hex);
  else send(ctx, plan.selected, hex);
  return true;
}

function mission(ctx) {
  return ctx.state.air;
}

/** This mission's results so far, from the log. */
function results(ctx) {
  const events = [...ctx.events()].sort((a, b) => a.seq - b.seq).filter((e) => !e.rolled_back);
  const start = events.map((e) => e.kind).lastIndexOf("air.mission_began");
  if (start < 0) return [];
  return events.slice(start).filter((e) => ["air.combat_resolved", "air.losses_taken",
    "air.aa_fired", "unit.reorganized", "air.mission_ended", "air.window_skipped"].includes(e.kind));
}

function sortiesView(ctx, sorties) {
  if (!sorties.length) return h("p.hint", {}, "No aircraft in the air yet.");
  return h("table.data.compact.sorties", {},
    h("thead", {}, h("tr", {}, ["Aircraft", "Side", "Over", "Why", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, sorties.map((s) => h(`tr${s.fate ? `.${s.fate}` : ""}`, { dataset: { unit: s.unit } },
      h("td", {}, s.unit), h("td", {}, s.side), h("td", {}, s.hex), h("td", {}, ROLES[s.role] || s.role),
      h("td", {}, s.fate ? h("strong", {}, s.fate) : "")))));
}

function aircraftRow(ctx, entry, uid, label) {
  const hexes = hexesOf(entry, uid);
  const select = h("select", { name: `air-to-${uid}`, "aria-label": `${uid} flies to`,
    onchange: (event) => (entry.air.atrs[uid] ? target(uid, event.target.value) : send(ctx, uid, event.target.value)) },
  h("option", { value: "" }, entry.air.atrs[uid] ? "stays on the ground" : "stays home"),
  hexes.map((x) => h("option", { value: x }, x)));
  select.value = (entry.air.atrs[uid] ? plan.flights.get(uid)?.hex : plan.to.get(uid)) || "";
  return h(`li.aircraft${plan.selected === uid ? ".selected" : ""}`, {},
    h("button.link", { type: "button", name: `air-pick-${uid}`, "aria-pressed": String(plan.selected === uid),
      onclick: () => choose(uid) }, uid), ` ${label} `, select);
}

function flightControls(ctx, entry) {
  const payers = ctx.me.powers.filter((p) => p in ctx.state.powers);
  if (!plan.payer) plan.payer = payers.find((p) => ctx.state.powers[p].rps > 0) || payers[0];
  const atrs = Object.entries(entry.air.atrs).map(([atr, a]) => {
    const row = aircraftRow(ctx, entry, atr, `(range ${a.range}${a.large ? ", large" : ""}) to`);
    const f = plan.flights.get(atr);
    if (f) {
      const boxes = (a.hexes[f.hex] || []).map((u) => {
        const box = h("input", { type: "checkbox", name: `air-unit-${u}`, checked: f.units.includes(u),
          onchange: (event) => {
            f.units = event.target.checked ? [...f.units, u] : f.units.filter((x) => x !== u);
          } });
        return h("label", {}, box, ` ${u}`);
      });
      row.append(h("div.air-units", {}, h("span", {}, "reorganizes: "), boxes));
    }
    return row;
  });
  const payer = h("select", { name: "air-payer", onchange: (event) => { plan.payer = event.target.value; } },
    payers.map((p) => h("option", { value: p }, `${words(p)} (${ctx.state.powers[p].rps} RPs)`)));
  payer.value = plan.payer || "";
  const escorts = Object.keys(entry.air.fighters).map((uid) => aircraftRow(ctx, entry, uid, "escorts to"));
  return [
    h("h3", {}, "ATRs"), h("ul.aircraft-list", {}, atrs),
    h("label.field", {}, h("span", {}, "Paid by"), payer),
    escorts.length ? [h("h3", {}, "Escorts"), h("ul.aircraft-list", {}, escorts),
      h("p.hint", {}, "An escort flies to a target hex of the flight: choose the ATRs' targets first.")] : null,
  ];
}

function body(entry) {
  const placements = () => [...plan.to.entries()].map(([unit, hex]) => ({ unit, hex }));
  if (entry.step === "air.patrol") return { patrols: placements() };
  if (entry.step === "air.flight") {
    return { power: plan.payer, escorts: placements(),
      flights: [...plan.flights.entries()].map(([atr, f]) => ({ atr, hex: f.hex, units: f.units })) };
  }
  return { interceptors: placements() };
}

function choiceControls(ctx, entry) {
  const q = entry.air.question;
  const fate = (uid) => plan.to.get(uid) || "";
  const rows = q.units.map((uid) => {
    const select = h("select", { name: `air-fate-${uid}`, "aria-label": `${uid}'s fate`,
      onchange: (event) => { if (event.target.value) plan.to.set(uid, event.target.value); else plan.to.delete(uid); } },
    h("option", { value: "" }, "flies on"), q.lost ? h("option", { value: "lost" }, "lost") : null,
    q.aborted ? h("option", { value: "aborted" }, "aborts") : null);
    select.value = fate(uid);
    return h("li", {}, h("label", {}, `${uid} `, select));
  });
  const answer = () => ({ hex: q.hex, lost: q.units.filter((u) => fate(u) === "lost"),
    aborted: q.units.filter((u) => fate(u) === "aborted") });
  return [
    h("p.question", {}, h("strong", {}, q.text)),
    h("ul.aircraft-list", {}, rows),
    h("div.buttons", {}, h("button.primary", { type: "button", name: "air-choose",
      onclick: () => ctx.send("air.choose", answer()) }, "Take these losses"))];
}

function content(ctx) {
  const entry = fresh(ctx);
  const m = mission(ctx);
  const out = [];
  if (!entry && !m && mayBegin(ctx)) {
    out.push(h("p", {}, "Your ATRs may fly air reorganization (11.18.1): the enemy's fighters may "
      + "patrol and intercept, and their AA fires, before the ATRs reorganize."),
    h("div.buttons", {}, h("button", { type: "button", name: "air-begin",
      onclick: () => ctx.send("air.begin", {}) }, "Fly air reorganization")));
    return out;
  }
  if (m) {
    const waiting = m.window ? `waiting for ${m.sides.filter((x) => !m.answered.includes(x)).join(", ")} `
      + `(${words(m.window)})` : "";
    out.push(h("p.air-status", {}, h("strong", {}, `${whose(m.side)} air reorganization`),
      waiting ? ` · ${waiting}` : ""));
  }
  if (entry) {
    out.push(h("p.air-ask", {}, h("strong", {}, entry.air.rule), ` · ${ASKS[entry.step]}`));
  }
  if (m) out.push(sortiesView(ctx, m.sorties));
  const done = results(ctx);
  if (done.length) {
    out.push(h("ul.air-results", {}, done.map((e) => h("li", { dataset: { kind: e.kind } }, sentence(e, {})))));
  }
  if (!entry) return out;
  out.push(h("p.hint", {}, entry.deadline
    ? `Answer by ${new Date(entry.deadline).toLocaleString()}; then the default is taken.`
    : "No deadline is set; the GM may force the default."));
  if (entry.step === "air.choice") return [...out, choiceControls(ctx, entry)];
  if (entry.step === "air.flight") out.push(flightControls(ctx, entry));
  else {
    const fighters = Object.keys(entry.air.fighters);
    out.push(fighters.length ? h("ul.aircraft-list", {}, fighters.map((uid) => aircraftRow(ctx, entry, uid, "flies to")))
      : h("p.hint", {}, "None of your fighters can reach these hexes."));
  }
  out.push(h("p.hint", {}, "Choose an aircraft (here or its counter on the map), then a blue hex."),
    h("div.buttons", {},
      h("button.primary", { type: "button", name: "air-send", onclick: () => ctx.send(entry.orders[0], body(entry)) },
        SEND[entry.step]),
      h("button", { type: "button", name: "air-none", onclick: () => ctx.send(entry.orders[0], entry.air.default) },
        NONE[entry.step]),
      // A standing combat air patrol (docs/api.md "ATR missions"): it answers this window
      // at once and every later one, over each mission's potential targets.
      entry.step === "air.patrol" ? h("button", { type: "button", name: "air-patrol-standing",
        onclick: () => ctx.send("standing", { step: "air.patrol", patrols: body(entry).patrols }) },
      "Patrol so every time") : null));
  return out;
}

/** The form of forms.js's ORDER_FORMS: the mission in progress, and what my side answers. */
export const airForm = {
  id: "air",
  title: "Air reorganization (ATR missions)",
  wide: true,
  applies: (ctx) => Boolean(airEntry(ctx) || mission(ctx) || mayBegin(ctx)),
  key: (ctx) => JSON.stringify([windowKey(ctx), ctx.state.air?.window, ctx.state.air?.sorties.length,
    ctx.state.game.version, results(ctx).length]),
  render(ctx) {
    const node = h("div.air-mission");
    shown = { node, ctx };
    fill(node, content(ctx));
    return node;
  },
};
