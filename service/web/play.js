// Play on the map (the `report` order): select one of my units on the map (or in the
// units table), see from GET /units/{unit}/options where it may move (green hexes, with
// the MP the move spends), where transport may take it (blue) and what it may attack
// (red); a click on a hex puts the move, with its path, or the attack into the report.
// Where the scenario's table decides a combat (combat.js), the report shows the odds the
// server computes before it is sent and the referee's roll and result after; elsewhere a
// combat is rolled by the referee (2d6) and its result reported with the results form.
// Nothing here needs hand-written JSON; what the server would refuse is not offered, and
// why is shown instead.

import { airLayers, airOnHex, airOnUnit } from "./air.js";
import { choiceLayers, choiceOnHex, combatsThisStep, odds, oddsView, resultView, tableDecides } from "./combat.js";
import { fill, h, words } from "./dom.js";
import { afterResults, enter, Ground, nextHexes, unitsOf } from "./retreat.js";

export const PLAY_STEPS = ["action", "reaction", "combat", "exploitation"];
const MOVE_STEPS = ["action", "reaction", "exploitation"];
const BY_NAMES = { overrun: "Overrun", combat: "Combat", barrage: "Barrage", naval: "Naval combat" };
const RESULTS = [
  ["dg", "DG (disorganized)"], ["loss", "step loss"], ["retreat", "retreat"],
  ["eliminated", "eliminated"], ["exploit", "exploitation marker"], ["advance", "advance"],
  ["shattered", "shattered"], ["ignored", "ignored (declined)"],
];

const awaitedIn = (ctx, steps) => ctx.mine.find((a) => steps.includes(a.step));
const reason = (why) => (why ? `${why.reason}${why.rule ? ` (${why.rule})` : ""}` : "");

function field(label, control) {
  return h("label.field", {}, h("span", {}, label), control);
}

/** The combats of `side` rolled in this step and still waiting for their result, from
 *  the log (combat.rolled without a later combat.closed in the same hex). */
export function openCombats(events, state, side) {
  const t = state.turn;
  const open = new Map();
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    if (e.turn !== t.number || e.impulse !== t.impulse || e.rolled_back) continue;
    if (e.kind === "combat.rolled" && e.data?.side === side && e.data.step === t.step) {
      open.set(e.data.hex, { ...e.data, seq: e.seq });
    } else if (e.kind === "combat.closed") {
      open.delete(e.data?.hex);
    }
  }
  return [...open.values()];
}

export class PlayPanel {
  /** app: {ctx(), get(path), send(kind, body, {onProblem}), redrawMap(), events()} */
  constructor(app) {
    this.app = app;
    this.node = h("div.play-panel");
    this.selected = null;
    this.options = null;
    this.loading = false;
    this.moves = []; // {unit, from, to, path, spends, transport?, carrier?}
    this.combats = []; // {by, hex, attackers: []}
    this.faceDown = [];
    this.refused = { rows: new Set(), units: new Set(), messages: new Map() };
    this.results = new Map(); // hex -> the results form's rows
    this.key = null;
  }

  get ctx() {
    return this.app.ctx();
  }

  step() {
    return awaitedIn(this.ctx, PLAY_STEPS)?.step || null;
  }

  /** A new position (step or impulse): the report starts afresh. */
  reset(key) {
    if (key === this.key) return;
    this.key = key;
    this.selected = null;
    this.options = null;
    this.moves = [];
    this.combats = [];
    this.faceDown = [];
    this.results = new Map();
    this.clearRefused();
  }

  clearRefused() {
    this.refused = { rows: new Set(), units: new Set(), messages: new Map() };
  }

  mine(uid) {
    const unit = this.ctx.state.units[uid];
    return unit && this.ctx.sideOf(unit.power) === this.ctx.me.side;
  }

  /** A click on a counter: my unit is selected for play; true when handled. */
  onUnit(uid) {
    if (!this.step()) return airOnUnit(this.ctx, uid);
    if (!this.mine(uid)) return false;
    this.select(uid);
    return true;
  }

  /** A click on a hex: a move or an attack when the selected unit may, or the retreat
   *  path a combat's question asks for; true if so. */
  onHex(hexId) {
    if (!this.step()) {
      return airOnHex(this.ctx, hexId) || choiceOnHex(this.ctx, hexId, () => this.app.redrawMap());
    }
    if (!this.selected || !this.options) return false;
    const reach = this.reach().get(hexId);
    if (reach) {
      this.addMove({ to: hexId, path: reach.path, spends: reach.spends, mp: reach.mp });
      return true;
    }
    const transport = this.transportTo(hexId);
    if (transport) {
      this.addMove({ to: hexId, transport: transport.kind, carrier: transport.carrier,
        spends: transport.spends, path: [hexId] });
      return true;
    }
    const by = this.attackBy(hexId);
    if (by) {
      this.addAttack(by, hexId);
      return true;
    }
    return false;
  }

  async select(uid) {
    if (this.selected !== uid) this.app.focus?.(this.ctx.state.units[uid]?.at);
    this.selected = uid;
    this.options = null;
    this.loading = true;
    this.draw();
    this.app.redrawMap();
    try {
      const options = await this.app.get(`/units/${encodeURIComponent(uid)}/options`);
      if (this.selected === uid) this.options = options;
    } catch (error) {
      this.ctx.showError(error);
    } finally {
      this.loading = false;
      this.draw();
      this.app.redrawMap();
    }
  }

  unselect() {
    this.selected = null;
    this.options = null;
    this.draw();
    this.app.redrawMap();
  }

  reach() {
    const out = new Map();
    const moves = this.options?.moves;
    if (!moves?.may || this.moves.some((m) => m.unit === this.selected)) return out;
    for (const hex of moves.hexes) out.set(hex.to, { spends: hex.spends, mp: hex.mp, path: hex.path });
    return out;
  }

  transportTo(hexId) {
    const moves = this.options?.moves;
    if (!moves?.may || this.moves.some((m) => m.unit === this.selected)) return null;
    for (const [kind, carriers] of Object.entries(moves.transport || {})) {
      for (const c of carriers) if (c.to.includes(hexId)) return { kind, carrier: c.carrier, spends: c.spends };
    }
    return null;
  }

  transportHexes() {
    const out = new Map();
    const moves = this.options?.moves;
    if (!moves?.may || this.moves.some((m) => m.unit === this.selected)) return out;
    for (const [kind, carriers] of Object.entries(moves.transport || {})) {
      for (const c of carriers) for (const to of c.to) if (!this.reach().has(to)) out.set(to, kind);
    }
    return out;
  }

  attackBy(hexId) {
    for (const [by, a] of Object.entries(this.options?.attack?.by || {})) {
      if (a.may && (a.hexes === null || a.hexes?.includes(hexId))) {
        if (a.hexes === null && !this.enemiesIn(hexId).length) continue;
        return by;
      }
    }
    return null;
  }

  enemiesIn(hexId) {
    const { state, sideOf, me } = this.ctx;
    return Object.entries(state.units).filter(([, u]) => u.at === hexId && sideOf(u.power) !== me.side);
  }

  targets() {
    const out = new Set();
    for (const a of Object.values(this.options?.attack?.by || {})) {
      if (a.may) for (const hex of a.hexes || []) out.add(hex);
    }
    return out;
  }

  /** What the map shows for the panel: reach, transport, targets, planned moves. */
  layers() {
    if (!this.step()) return airLayers(this.ctx) || choiceLayers(this.ctx);
    return {
      selectedUnit: this.selected,
      reach: this.reach(),
      transport: this.transportHexes(),
      targets: this.targets(),
      planned: this.moves.map((m) => ({ from: m.from, to: m.to, path: m.path, transport: m.transport })),
      plannedUnits: new Set([...this.moves.map((m) => m.unit), ...this.combats.flatMap((c) => c.attackers)]),
      refused: this.refused.units,
    };
  }

  addMove(move) {
    const from = this.ctx.state.units[this.selected].at;
    this.moves = this.moves.filter((m) => m.unit !== this.selected);
    this.moves.push({ unit: this.selected, from, ...move });
    this.clearRefused();
    this.draw();
    this.app.redrawMap();
  }

  addAttack(by, hexId) {
    let combat = this.combats.find((c) => c.hex === hexId && c.by === by);
    if (!combat) {
      combat = { by, hex: hexId, attackers: [] };
      this.combats.push(combat);
    }
    if (!combat.attackers.includes(this.selected)) combat.attackers.push(this.selected);
    this.clearRefused();
    this.draw();
    this.app.redrawMap();
  }

  body() {
    const body = {};
    if (this.moves.length) {
      body.moves = this.moves.map((m) => {
        const move = { unit: m.unit, to: m.to };
        if (m.transport) Object.assign(move, { transport: m.transport, carrier: m.carrier || undefined });
        else move.path = m.path;
        if (move.carrier === undefined) delete move.carrier;
        return move;
      });
    }
    if (this.combats.length) {
      body.combats = this.combats.map((c) => ({ by: c.by, hex: c.hex, attackers: c.attackers,
        ...(tableDecides(this.ctx.state, c.by) ? {} : { dice: "2d6" }) }));
    }
    if (this.faceDown.length) body.face_down = [...this.faceDown];
    return body;
  }

  /** Mark the report's rows and units the server refused (errors[].path, errors[].unit). */
  markProblem(problem) {
    this.clearRefused();
    for (const e of problem?.errors || []) {
      const m = /^\/order\/body\/(moves|combats|face_down)\/(\d+)/.exec(e.path || "");
      if (m) {
        this.refused.rows.add(`${m[1]}/${m[2]}`);
        this.refused.messages.set(`${m[1]}/${m[2]}`, e.message);
      }
      if (e.unit?.id) this.refused.units.add(e.unit.id);
    }
    this.draw();
    this.app.redrawMap();
  }

  async report() {
    const body = this.body();
    if (!Object.keys(body).length) return;
    const ok = await this.app.send("report", body, { onProblem: (p) => this.markProblem(p) });
    if (ok) {
      this.moves = [];
      this.combats = [];
      this.faceDown = [];
      this.selected = null;
      this.options = null;
      this.clearRefused();
      this.app.reported?.();
      this.draw();
      this.app.redrawMap();
    }
  }

  update() {
    const ctx = this.ctx;
    const entry = awaitedIn(ctx, PLAY_STEPS);
    this.reset(entry ? JSON.stringify(ctx.position) : null);
    if (this.selected && (!ctx.state.units[this.selected] || this.optionsVersion !== ctx.state.game.version)) {
      const uid = this.selected;
      this.optionsVersion = ctx.state.game.version;
      if (ctx.state.units[uid]) this.select(uid); else this.unselect();
      return;
    }
    this.draw();
  }

  draw() {
    const ctx = this.ctx;
    const step = this.step();
    if (!step) {
      this.node.replaceChildren();
      return;
    }
    this.optionsVersion = ctx.state.game.version;
    const open = openCombats(this.app.events(), ctx.state, ctx.me.side);
    const decided = combatsThisStep(this.app.events(), ctx.state).filter((r) => r.resolved.data.side === ctx.me.side);
    fill(this.node,
      h("p.hint", {}, MOVE_STEPS.includes(step)
        ? "Select one of your units on the map (or in the units table): green hexes are where it may move, "
          + "with the MP the move spends; blue, by transport; red, what it may attack. Click one to add it to the report."
        : tableDecides(ctx.state, "combat")
          ? "Select one of your units on the map, then a red hex to attack it: the report shows the odds; "
            + "the referee rolls and applies the table's result."
          : "Select one of your units on the map, then a red hex to attack it; the referee rolls 2d6 and you report the result."),
      decided.length ? h("div.combat-results", {}, h("h3", {}, "Combats this step"),
        decided.map((r) => resultView(r))) : null,
      open.map((c) => this.resultsForm(c)),
      this.drawSelected(step),
      this.drawBasket());
  }

  drawSelected(step) {
    const uid = this.selected;
    if (!uid) return h("p.selected-none.muted", {}, "No unit selected.");
    const unit = this.ctx.state.units[uid];
    const o = this.options;
    const lines = [];
    if (this.loading || !o) {
      lines.push(h("p.muted", {}, "Checking what it may do…"));
    } else {
      const mp = o.moves.mp;
      if (MOVE_STEPS.includes(step)) {
        if (o.moves.may) {
          const count = o.moves.hexes.length;
          lines.push(h("p", {}, `May move: ${mp ? `${mp.left} of ${mp.ma} MP left` : ""}; ${count} hex${count === 1 ? "" : "es"} in reach.`));
          lines.push(this.moveChooser(o));
        } else {
          lines.push(h("p.why", {}, "Cannot move: ", reason(o.moves.why) || "nowhere to go"));
        }
        const refused = o.moves.refused || [];
        if (refused.length && o.moves.may) {
          // OCS 5.4a: the hexes a Reserve unit reaches but may not end in for want of markers.
          lines.push(h("p.why", {}, `Not offered: ${refused.map((r) => r.to).join(", ")}: `,
            reason(refused[0])));
        }
        for (const [kind, carriers] of Object.entries(o.moves.transport || {})) {
          for (const c of carriers) lines.push(this.transportChooser(kind, c));
        }
      }
      const attacks = Object.entries(o.attack.by || {});
      if (!attacks.length && o.attack.why) lines.push(h("p.why", {}, "Cannot attack: ", reason(o.attack.why)));
      for (const [by, a] of attacks) {
        if (a.may) {
          lines.push(this.attackChooser(by, a.hexes === null ? this.enemyHexes(unit.at) : a.hexes));
        } else {
          lines.push(h("p.why", {}, `${BY_NAMES[by] || by}: `, reason(a.why)));
        }
      }
      if (unit.face_up) {
        const down = this.faceDown.includes(uid);
        lines.push(h("div.buttons", {}, h("button", { type: "button", name: "turn-face-down",
          "aria-pressed": down ? "true" : "false", onclick: () => {
            this.faceDown = down ? this.faceDown.filter((x) => x !== uid) : [...this.faceDown, uid];
            this.draw();
          } }, down ? "Keep face up" : "Turn face down (flip)")));
      }
    }
    return h("div.selected-unit", { "aria-live": "polite" },
      h("h3", {}, `${uid}`, h("small.muted", {}, ` ${unit.type} · ${unit.at} · ${unit.mode ?? "no mode"}`)),
      lines,
      h("button.link", { type: "button", name: "unselect", onclick: () => this.unselect() }, "unselect"));
  }

  /** The hexes of enemy units, nearest to `from` first (a barrage whose range the
   *  referee leaves to the table may aim at any of them). */
  enemyHexes(from) {
    const { state, sideOf, me, scenario } = this.ctx;
    const where = new Map((scenario?.map?.hexes || []).map((x) => [x.id, x]));
    const distance = (a, b) => {
      const p = where.get(a);
      const q = where.get(b);
      if (!p || !q) return Infinity;
      const dq = p.q - q.q;
      const dr = p.r - q.r;
      return (Math.abs(dq) + Math.abs(dr) + Math.abs(dq + dr)) / 2;
    };
    return [...new Set(Object.values(state.units).filter((u) => sideOf(u.power) !== me.side)
      .map((u) => u.at))].filter((x) => where.has(x))
      .sort((a, b) => distance(from, a) - distance(from, b) || a.localeCompare(b));
  }

  /** The targets of one kind of attack: a button each when they are few, else one list
   *  (nearest first) and one button, never a wall of buttons. */
  attackChooser(by, hexes) {
    const label = BY_NAMES[by] || by;
    if (!hexes.length) return h("div.attack-line", {}, h("span", {}, `${label}: `), h("span.muted", {}, "no target"));
    if (hexes.length <= 4) {
      return h("div.attack-line", {}, h("span", {}, `${label}: `), hexes.map((hex) => h("button",
        { type: "button", name: `attack-${by}-${hex}`, onclick: () => this.addAttack(by, hex) }, hex)));
    }
    const select = h("select", { name: `target-${by}`, "aria-label": `${label}: the hex attacked` },
      hexes.map((hex) => h("option", { value: hex }, hex)));
    return h("div.attack-line", {}, h("span", {}, `${label} (${hexes.length} targets): `), select,
      h("button", { type: "button", name: `add-${by}`, onclick: () => this.addAttack(by, select.value) },
        `Add the ${label.toLowerCase()}`));
  }

  moveChooser(o) {
    const select = h("select", { name: "move-to", "aria-label": `Move ${this.selected} to` },
      o.moves.hexes.map((x) => h("option", { value: x.to }, `${x.to} (${x.mp} MP${x.spends !== x.mp ? `, spends ${x.spends}` : ""}`
        + `${x.path.length > 1 ? `, via ${x.path.slice(0, -1).join(" ")}` : ""}`
        + `${x.needs_marker ? ", needs a new Reserve marker" : ""})`)));
    return h("div.inline-row", {}, select, h("button", { type: "button", name: "add-move",
      onclick: () => this.onHex(select.value) }, "Add the move"));
  }

  transportChooser(kind, c) {
    const select = h("select", { name: `transport-${kind}`, "aria-label": `${words(kind)} move of ${this.selected} to` },
      c.to.map((to) => h("option", { value: to }, to)));
    return h("div.inline-row", {}, h("span", {}, `By ${kind}${c.carrier ? ` (${c.carrier})` : ""}: `), select,
      h("button", { type: "button", name: `add-${kind}`, onclick: () => this.addMove({ to: select.value,
        transport: kind, carrier: c.carrier, spends: c.spends, path: [select.value] }) }, `Add the ${kind} move`));
  }

  row(kind, index, ...cells) {
    const key = `${kind}/${index}`;
    const bad = this.refused.rows.has(key);
    return h(`tr${bad ? ".refused" : ""}`, { dataset: { row: key } }, cells,
      bad ? h("td.refusal", {}, this.refused.messages.get(key)) : null);
  }

  drawBasket() {
    const moves = this.moves.map((m, i) => this.row("moves", i,
      h("th", { scope: "row" }, m.unit), h("td", {}, `${m.from} → ${m.to}`),
      h("td", {}, m.transport ? `by ${m.transport}${m.carrier ? ` (${m.carrier})` : ""}` : (m.path || []).join(" ")),
      h("td.num", {}, m.mp ?? m.spends ?? ""),
      h("td", {}, h("button.link", { type: "button", name: `remove-move-${m.unit}`,
        onclick: () => { this.moves.splice(i, 1); this.clearRefused(); this.draw(); this.app.redrawMap(); } }, "remove"))));
    const combats = this.combats.map((c, i) => this.row("combats", i,
      h("th", { scope: "row" }, `${BY_NAMES[c.by] || c.by} on ${c.hex}`),
      h("td", { colspan: 2 }, `by ${c.attackers.join(", ")}`, tableDecides(this.ctx.state, c.by)
        ? "; the odds are below" : "; the referee rolls 2d6"),
      h("td", {}, ""),
      h("td", {}, h("button.link", { type: "button", name: `remove-combat-${c.hex}`,
        onclick: () => { this.combats.splice(i, 1); this.clearRefused(); this.draw(); this.app.redrawMap(); } }, "remove"))));
    const empty = !moves.length && !combats.length && !this.faceDown.length;
    return h("div.play-basket", {},
      h("h3", {}, "The report"),
      empty ? h("p.hint", {}, "Nothing yet.") : h("table.data.compact", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "What"), h("th", { scope: "col" }, "Where"),
          h("th", { scope: "col" }, "Path"), h("th", { scope: "col", class: "num" }, "MP"),
          h("th", { scope: "col" }, h("span.visually-hidden", {}, "Remove")))),
        h("tbody", {}, moves, combats)),
      this.combats.filter((c) => tableDecides(this.ctx.state, c.by)).map((c) => h("div.planned-odds",
        { dataset: { hex: c.hex } }, h("h4", {}, `${BY_NAMES[c.by] || c.by} on ${c.hex}`), this.oddsOf(c))),
      this.faceDown.length ? h("p", {}, `Turned face down: ${this.faceDown.join(", ")}`) : null,
      h("div.buttons", {},
        h("button.primary", { type: "button", name: "report", disabled: empty, onclick: () => this.report() },
          this.combats.length ? (this.combats.every((c) => tableDecides(this.ctx.state, c.by))
            ? "Report and attack" : "Report and roll") : "Report"),
        h("button", { type: "button", name: "report-clear", disabled: empty, onclick: () => {
          this.moves = []; this.combats = []; this.faceDown = []; this.clearRefused(); this.draw(); this.app.redrawMap();
        } }, "Clear")));
  }

  /** The server's odds of a planned attack (combat.js), redrawn when they arrive. */
  oddsOf(combat) {
    const shown = h("div.odds-holder");
    odds(this.app, combat).then((found) => shown.replaceChildren(oddsView(found, this.ctx.scenario)));
    shown.append(oddsView(null));
    return shown;
  }

  /** A results form row's retreat (OCS 5.10a): the units, then hex by hex only where the
   *  referee lets them go (retreat.js: next to the last hex, never twice into one, no
   *  enemy units, no neutral territory), each hex in an enemy ZOC named so, and the step
   *  loss the referee asks for when units already DG enter one (`losses`, OCS 5.10a C);
   *  Strat units entering one are eliminated (OCS 5.8a). `before()`: the results the
   *  rows above report first, which the referee applies first. */
  retreatFields(combat, row, fields, before) {
    const boxes = combat.defenders.map((u) => ({ u, box: h("input", { type: "checkbox", name: `retreat-${u}`, checked: true }) }));
    const hexes = ["Retreat into", "Then into"].map((label, i) => h("select", { name: `retreat-${i + 1}`, "aria-label": label }));
    const losses = [1, 2].map((n) => h("select", { name: `retreat-loss-${n}` }));
    const lossFields = losses.map((select) => h("label.field.retreat-loss", { hidden: true }, h("span", {}), select));
    const note = h("p.retreat-note.hint", { hidden: true });
    let movers = [];
    const fillHexes = (select, offered, stop) => {
      const was = select.value;
      fill(select, stop ? h("option", { value: "" }, "stop there") : null,
        offered.map((o) => h("option", { value: o.hex }, o.zoc ? `${o.hex} (enemy ZOC)` : o.hex)));
      if ([...select.options].some((o) => o.value === was)) select.value = was;
      select.disabled = !offered.length;
    };
    const owe = (i, step) => {
      const owed = step?.owed || [];
      lossFields[i].hidden = !owed.length;
      if (!owed.length) return;
      const was = losses[i].value;
      lossFields[i].firstChild.textContent = `Step loss in ${step.hex} (already DG, enemy ZOC; OCS 5.10a):`;
      fill(losses[i], owed.map((u) => h("option", { value: u }, u)));
      if (owed.includes(was)) losses[i].value = was;
    };
    row.refresh = () => {
      const { scenario, state } = this.ctx;
      const ground = new Ground(scenario, state);
      const units = afterResults(ground, unitsOf(state), combat, before());
      for (const { u, box } of boxes) {
        box.disabled = !units[u];
        if (!units[u]) box.checked = false;
      }
      movers = boxes.filter((b) => b.box.checked).map((b) => b.u);
      const starts = new Set(movers.map((u) => units[u].at));
      const says = [];
      let first = { offered: [], refused: [] };
      if (!scenario) says.push("Loading the map…");
      else if (!movers.length) says.push("Tick the units that retreat.");
      else if (starts.size > 1) says.push(`Units retreating together start in one hex, not ${[...starts].sort().join(", ")}.`);
      else first = nextHexes(ground, units, movers, [...starts][0], new Set(starts));
      fillHexes(hexes[0], first.offered, false);
      const into = (select, who, k) => (select.value
        ? { hex: select.value, ...enter(ground, units, who, select.value, k) } : null);
      const step1 = into(hexes[0], movers, 1);
      owe(0, step1);
      const left = movers.filter((u) => units[u]);
      const second = step1 && left.length
        ? nextHexes(ground, units, left, hexes[0].value, new Set([...starts, hexes[0].value]))
        : { offered: [], refused: [] };
      fillHexes(hexes[1], second.offered, true);
      const step2 = into(hexes[1], left, 2);
      owe(1, step2);
      if (scenario && movers.length && starts.size === 1 && !first.offered.length) says.push("No hex to retreat into.");
      const told = new Set();
      for (const [which, found] of [["Not offered", first], ["Then not offered", step1 ? second : null]]) {
        const refused = (found?.refused || []).filter((r) => r.why !== "retreated from" && !told.has(r.hex));
        for (const r of refused) told.add(r.hex);
        if (refused.length) says.push(`${which}: ${refused.map((r) => `${r.hex} (${r.why})`).join(", ")}.`);
      }
      for (const step of [step1, step2]) {
        if (step?.eliminated.length) {
          says.push(`${step.eliminated.join(", ")} (Strat Mode) ${step.eliminated.length > 1 ? "are" : "is"} eliminated `
            + `entering ${step.hex}, in an enemy ZOC (OCS 5.8a).`);
        }
      }
      note.textContent = says.join(" ");
      note.hidden = !says.length;
    };
    fields.append(h("fieldset.checks-inline", {}, h("legend", {}, "units"),
      boxes.map(({ u, box }) => h("label", {}, box, ` ${u}`))),
    h("span", {}, "to "), hexes[0], lossFields[0], h("span", {}, " then "), hexes[1], lossFields[1], note);
    row.read = () => {
      const owed = losses.filter((_, i) => !lossFields[i].hidden).map((select) => select.value);
      return { kind: "retreat", units: movers, path: hexes.map((x) => x.value).filter(Boolean),
        ...(owed.length ? { losses: owed } : {}) };
    };
    row.refresh();
  }

  // long: one small form per kind of result, each with only the units it may name.
  resultsForm(combat) {
    const rows = this.results.get(combat.hex) || [];
    this.results.set(combat.hex, rows);
    const units = [...combat.defenders, ...combat.attackers];
    const total = combat.values.reduce((a, b) => a + b, 0);
    const list = h("div.result-rows");
    const addRow = (kind = "dg") => {
      const select = h("select", { name: `result-kind-${rows.length}`, "aria-label": "Result" },
        RESULTS.map(([k, label]) => h("option", { value: k }, label)));
      select.value = kind;
      const fields = h("div.result-fields");
      const row = { select, fields, read: () => ({ kind: select.value }) };
      const checks = (name, among, checked = []) => {
        const boxes = among.map((u) => ({ u, box: h("input", { type: "checkbox", name: `${name}-${u}`, checked: checked.includes(u) }) }));
        return { node: h("fieldset.checks-inline", {}, h("legend", {}, "units"), boxes.map(({ u, box }) => h("label", {}, box, ` ${u}`))),
          value: () => boxes.filter((b) => b.box.checked).map((b) => b.u) };
      };
      const sync = () => {
        const k = select.value;
        row.refresh = null;
        fields.replaceChildren();
        if (k === "dg") {
          const hex = h("select", { name: "dg-hex", "aria-label": "Hex turned DG" },
            [combat.hex, ...new Set(combat.attackers.map((u) => this.ctx.state.units[u]?.at).filter(Boolean))]
              .map((x) => h("option", { value: x }, x)));
          fields.append(hex);
          row.read = () => ({ kind: "dg", hex: hex.value });
        } else if (k === "loss") {
          const unit = h("select", { name: "loss-unit", "aria-label": "Unit losing steps" }, units.map((u) => h("option", { value: u }, u)));
          const steps = h("input", { type: "number", name: "loss-steps", min: 1, max: 20, value: 1, "aria-label": "Steps" });
          fields.append(unit, steps);
          row.read = () => ({ kind: "loss", unit: unit.value, steps: Number.parseInt(steps.value, 10) || 1 });
        } else if (["eliminated", "shattered"].includes(k)) {
          const c = checks(k, units);
          fields.append(c.node);
          row.read = () => ({ kind: k, units: c.value() });
        } else if (["advance", "exploit"].includes(k)) {
          const c = checks(k, combat.attackers, combat.attackers);
          fields.append(c.node);
          let rating = null;
          if (k === "exploit") {
            rating = h("select", { name: "exploit-rating", "aria-label": "Exploitation rating" },
              [2, 3, 4].map((r) => h("option", { value: r }, `rating ${r}`)));
            fields.append(rating);
          }
          row.read = () => (k === "exploit" ? { kind: k, units: c.value(), rating: Number(rating.value) }
            : { kind: k, units: c.value() });
        } else if (k === "retreat") {
          // The rows above this one (all of them while it is being added).
          const above = () => rows.slice(0, rows.includes(row) ? rows.indexOf(row) : rows.length);
          this.retreatFields(combat, row, fields, () => above().map((r) => r.read()));
        } else {
          const text = h("input", { name: "ignored-text", maxlength: 500, "aria-label": "What was declined", placeholder: "e.g. Do1" });
          fields.append(text);
          row.read = () => ({ kind: "ignored", text: text.value });
        }
      };
      select.addEventListener("change", sync);
      sync();
      rows.push(row);
      list.append(h("div.result-row", {}, select, fields));
    };
    if (!rows.length) addRow();
    else for (const r of rows) list.append(h("div.result-row", {}, r.select, r.fields));
    // A result changes what the ones after it may do (a DG hex loses its ZOC, a unit
    // eliminated does not retreat): every row's choices follow the rows above it.
    const refresh = () => { for (const r of rows) r.refresh?.(); };
    list.addEventListener("change", refresh);
    refresh();
    return h("div.results-form", { dataset: { hex: combat.hex } },
      h("h3", {}, `Result of the ${BY_NAMES[combat.by]?.toLowerCase() || combat.by} on ${combat.hex}`),
      h("p", {}, `${combat.attackers.join(", ")} against ${combat.defenders.join(", ") || "nobody"}: `,
        h("strong", {}, `${combat.dice} rolled ${combat.values.join(" + ")} = ${total}`),
        ". Read the result on your combat table and report it."),
      list,
      h("div.buttons", {},
        h("button", { type: "button", name: "result-add", onclick: () => { addRow(); refresh(); } }, "Another result"),
        h("button.primary", { type: "button", name: "result-report", onclick: async () => {
          const results = rows.map((r) => r.read());
          const ok = await this.app.send("report", { combats: [{ by: combat.by, hex: combat.hex, results }] },
            { onProblem: (p) => this.markProblem(p) });
          if (ok) this.results.delete(combat.hex);
        } }, "Report the result")));
  }
}

let panel = null;

/** The panel of this page, made once app.js hands it its hooks. */
export function connectPlay(app) {
  panel = new PlayPanel(app);
  return panel;
}

/** The panel as an entry of forms.js's ORDER_FORMS, in the side panel next to the map. */
export const playForm = {
  id: "play",
  title: "Moves and attacks",
  applies: (ctx) => Boolean(panel) && Boolean(awaitedIn(ctx, PLAY_STEPS)),
  render() {
    panel.update();
    return panel.node;
  },
  update() {
    panel.update();
  },
};
