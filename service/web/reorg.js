// The reorganization panel (11.18), shown in the reorganization steps to the side taking
// part: my face-down units; for the one chosen, every legal method from
// GET /reorg/options (cost, source or provider, path, capacity) and every illegal one
// with its reason; a basket (one method per unit) paid by one power, its cost checked
// by a dry run, then sent as one all-or-nothing `reorg` order. The side's damaged ports
// and the ways to repair them (repairs.js) join the same basket.

import { h, words } from "./dom.js";
import { Repairs, eventKey } from "./repairs.js";
import { STANDING_DEFAULTS } from "./standing.js";

export const REORG_STEPS = ["reorganization", "final_reorganization"];

export const METHOD_NAMES = {
  atr: "ATR mission", hq: "HQ", limited: "limited source", overseas: "overseas",
  primary: "primary source", rail: "rail", secondary: "secondary source",
  supply_unit: "supply unit", trs: "TRS", at_sea: "at sea", chit: "chit",
  port_repair: "port repair",
};

const methodName = (method) => METHOD_NAMES[method] || words(method);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const rpText = (n) => plural(n, "RP");

/** "Mitte (h30)" for a hex with a city, "h30" otherwise; unit ids unchanged. */
function placeName(ctx, id) {
  const hex = (ctx.scenario?.map?.hexes || []).find((x) => x.id === id);
  return hex?.city ? `${hex.city} (${id})` : id;
}

/** Where an item's RPs come from, in words (the method is named next to it). */
function fromText(ctx, item) {
  if (item.method === "port_repair") return placeName(ctx, item.source);
  const parts = [item.hq, item.atr, item.trs, item.supply_unit].filter(Boolean);
  if (item.source) parts.push(placeName(ctx, item.source));
  if (item.port) parts.push(`${parts.length ? "via" : "port"} ${placeName(ctx, item.port)}`);
  return parts.join(" ") || (item.method === "chit" ? "the chit played" : "—");
}

// Capacity keys (reorg_methods.py), in words: what each counts.
const CAPACITY = {
  atr: (id) => `units flown by ${id}`,
  hq: (id) => `half-units reorganized by ${id}`,
  hqp: (id) => `units of ${id} as a primary source`,
  limited: (id) => `units from limited source ${id}`,
  port: (id) => `units through port ${id}`,
  primary: (id) => `units from ${id}`,
  corps: (id) => `corps from ${id}`,
  oil: (id) => `fuel-dependent units from ${id}`,
  secondary: (id) => `units from secondary source ${id}`,
  rail: (id) => `rail moves of ${id}`,
  supply: (id) => `units from supply unit ${id}`,
  trs: (id) => `units carried by ${id}`,
  at_sea: (id) => `units at sea off ${id}`,
};

function pathText(path) {
  if (!path) return null;
  const seas = path.seas?.length ? `, by sea ${path.seas.join(", ")}` : "";
  return `${path.hexes.join(" → ")} (${path.kind}, ${plural(path.length, "hex", "hexes")}${seas})`;
}

/** "corps from Mitte (h30): 1 of 1 used" per limited capacity the option uses. */
function capacityLines(ctx, capacity) {
  return (capacity || []).filter((c) => c.limit !== null && c.limit !== undefined).map((c) => {
    const [kind, ...rest] = c.key.split(":");
    const id = placeName(ctx, rest.join(":"));
    return `${CAPACITY[kind]?.(id) ?? c.key}: ${c.used + c.amount} of ${c.limit} used`;
  });
}

/** "Reorganize 2 units", "Repair 1 port", "Reorganize 1 unit, repair 1 port". */
function submitLabel(entries) {
  const ports = entries.filter(([, b]) => b.method === "port_repair").length;
  const units = entries.length - ports;
  const parts = [units ? `reorganize ${plural(units, "unit")}` : null,
    ports ? `repair ${plural(ports, "port")}` : null].filter(Boolean).join(", ") || "reorganize";
  return parts[0].toUpperCase() + parts.slice(1);
}

/** The panel of the current position (rebuilt when the position changes). */
let panel = null;

export const reorgForm = {
  id: "reorg",
  title: "Reorganize",
  wide: true,
  applies: (ctx) => ctx.mine.some((a) => REORG_STEPS.includes(a.step)),
  key: (ctx) => JSON.stringify(ctx.position),
  render(ctx) {
    panel = new ReorgPanel(ctx);
    return panel.node;
  },
  update(ctx) {
    panel?.update(ctx);
  },
};

class ReorgPanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.node = h("div.reorg-panel");
    this.selected = null; // unit id
    this.plan = null; // GET /reorg/options of the selected unit
    this.planVersion = null;
    this.loading = false;
    this.basket = new Map(); // unit id -> {item, cost, method, from, power}
    this.preview = null; // the last dry run: {valid, events} for the basket it checked
    this.payer = null;
    this.open = { illegal: null, capacity: false }; // <details> the player opened or closed
    this.repairs = new Repairs();
    this.update(ctx);
  }

  /** My side's face-down units, by power and id. */
  faceDown() {
    return this.ctx.units.filter(([, u]) => !u.face_up)
      .sort(([ia, a], [ib, b]) => a.power.localeCompare(b.power) || ia.localeCompare(ib));
  }

  /** The major powers I hold: those that may pay. */
  payers() {
    return (this.ctx.me.powers || []).filter((p) => p in this.ctx.state.powers);
  }

  update(ctx) {
    this.ctx = ctx;
    const payers = this.payers();
    if (!payers.includes(this.payer)) {
      this.payer = payers.find((p) => ctx.state.powers[p].rps > 0) || payers[0] || null;
    }
    // Units that turned face up and ports repaired (this order or another tab's) leave
    // the basket.
    for (const key of [...this.basket.keys()]) {
      const repair = this.basket.get(key).method === "port_repair";
      if (repair ? !this.repairs.stillDamaged(ctx, key) : ctx.state.units[key]?.face_up !== false) {
        this.basket.delete(key);
      }
    }
    this.repairs.refresh(ctx, () => this.draw());
    if (this.selected && ctx.state.units[this.selected]?.face_up !== false) {
      this.selected = null;
      this.plan = null;
    }
    // Capacities changed since the plan was made: plan again.
    if (this.selected && this.planVersion !== ctx.state.game.version && !this.loading) {
      this.load(this.selected);
    }
    this.draw();
  }

  async load(uid) {
    if (uid !== this.selected) this.open.illegal = null;
    this.selected = uid;
    this.loading = true;
    this.draw();
    try {
      const plan = await this.ctx.get(`/reorg/options?unit=${encodeURIComponent(uid)}`);
      if (this.selected !== uid) return;
      this.plan = plan;
      this.planVersion = plan.version;
      if (!this.basket.size && this.payers().includes(plan.power)) this.payer = plan.power;
    } catch (error) {
      if (this.selected === uid) this.plan = null;
      this.ctx.showError(error);
    } finally {
      this.loading = false;
      this.draw();
    }
  }

  /** An option into the basket; a port's repair (no unit) under its `label`. */
  add(option, label = null) {
    const key = option.item.unit ?? `port:${option.item.port}`;
    this.basket.set(key, { item: option.item, cost: option.cost, method: option.method,
      from: fromText(this.ctx, option.item), power: option.power, label });
    this.preview = null;
    this.draw();
  }

  remove(uid) {
    this.basket.delete(uid);
    this.preview = null;
    this.draw();
  }

  body() {
    return { power: this.payer, items: [...this.basket.values()].map((b) => b.item) };
  }

  async check() {
    const preview = await this.ctx.preview("reorg", this.body());
    if (!preview) return;
    this.preview = { ...preview, basket: JSON.stringify(this.body()) };
    // The dry run's costs are exact: items of one order share limits and paths.
    for (const event of preview.events || []) {
      const entry = this.basket.get(eventKey(event.data));
      if (entry) entry.cost = event.data.cost;
    }
    this.draw();
  }

  /** The cheapest legal way for every face-down unit not in the basket yet (one click
   *  instead of two per unit), within the payer's RPs and each source's, port's and
   *  provider's capacity; then a dry run, and a unit the server would refuse is left
   *  out (with why). The player may change any of them before sending. */
  // long: choose per unit within the limits, then let the dry run have the last word.
  async addCheapest() {
    this.adding = true;
    this.skipped = new Map();
    this.draw();
    try {
      const rps = this.payer ? this.ctx.state.powers[this.payer].rps : 0;
      let total = [...this.basket.values()].reduce((sum, b) => sum + (b.cost || 0), 0);
      const used = new Map(); // capacity key -> amount the basket uses
      const fits = (o) => (o.capacity || []).every((c) => c.limit === null || c.limit === undefined
        || c.used + (used.get(c.key) || 0) + c.amount <= c.limit);
      for (const [uid] of this.faceDown()) {
        if (this.basket.has(uid)) continue;
        const plan = await this.ctx.get(`/reorg/options?unit=${encodeURIComponent(uid)}`);
        const best = plan.options.filter((o) => o.power === this.payer && total + (o.cost || 0) <= rps && fits(o))
          .sort((x, y) => x.cost - y.cost)[0];
        if (!best) {
          this.skipped.set(uid, plan.options.length ? "no way left within the RPs and capacity" : "no legal way now");
          continue;
        }
        for (const c of best.capacity || []) used.set(c.key, (used.get(c.key) || 0) + c.amount);
        total += best.cost || 0;
        this.basket.set(uid, { item: best.item, cost: best.cost, method: best.method,
          from: fromText(this.ctx, best.item), power: best.power });
      }
      for (let round = 0; round < 10 && this.basket.size; round += 1) {
        try {
          const preview = await this.ctx.dryRun("reorg", this.body());
          this.preview = { ...preview, basket: JSON.stringify(this.body()) };
          for (const event of preview.events || []) {
            const entry = this.basket.get(eventKey(event.data));
            if (entry) entry.cost = event.data.cost;
          }
          break;
        } catch (error) {
          const at = (error.problem?.errors || []).map((e) => /^\/order\/body\/items\/(\d+)/.exec(e.path || ""))
            .find(Boolean);
          if (!at) throw error;
          const uid = [...this.basket.keys()][Number(at[1])];
          this.basket.delete(uid);
          this.skipped.set(uid, error.problem.detail || error.message);
        }
      }
    } catch (error) {
      this.ctx.showError(error);
    } finally {
      this.adding = false;
      this.draw();
    }
  }

  /** Mark the basket's items the server refused (errors[].path /order/body/items/N). */
  markProblem(problem) {
    const items = [...this.basket.keys()];
    this.refused = new Map();
    for (const e of problem?.errors || []) {
      const m = /^\/order\/body\/items\/(\d+)/.exec(e.path || "");
      const uid = m ? items[Number(m[1])] : e.unit?.id;
      if (uid) this.refused.set(uid, e.message);
    }
    this.draw();
  }

  async submit() {
    this.refused = new Map();
    if (await this.ctx.send("reorg", this.body(), { onProblem: (p) => this.markProblem(p) })) {
      this.basket.clear();
      this.preview = null;
      this.selected = null;
      this.plan = null;
      this.draw();
    }
  }

  draw() {
    const { state } = this.ctx;
    const units = this.faceDown();
    const payers = this.payers();
    const rps = this.payer ? state.powers[this.payer].rps : 0;
    const total = [...this.basket.values()].reduce((sum, b) => sum + (b.cost || 0), 0);
    const power = h("select", { name: "reorg-power", "aria-label": "Paid by", onchange: (event) => {
      this.payer = event.target.value;
      this.preview = null;
      this.draw();
    } }, payers.map((p) => h("option", { value: p }, `${p} (${state.powers[p].rps} RPs)`)));
    power.value = this.payer || "";
    const over = total > rps;
    // Redrawn on every refresh: keep where the player scrolled the lists to.
    const top = (selector) => this.node.querySelector(selector)?.scrollTop || 0;
    const scrolled = [top(".unit-picks"), top(".reorg-options .options.scroll")];
    const sameUnit = this.drawnFor === this.selected;
    this.drawnFor = this.selected;
    this.node.replaceChildren(
      h("div.reorg-top", {},
        h("label.inline-field", {}, "Paid by ", power),
        h(`span.rp-total${over ? ".over" : ""}`, { dataset: { total, left: rps } },
          h("strong", {}, rpText(total)), ` in the basket of ${rps} left`,
          over ? " — more than the power has" : total ? ` (${rps - total} would be left)` : "")),
      h("div.reorg-grid", {},
        this.drawUnits(units),
        this.drawOptions()),
      this.repairs.view(this.ctx, this.payer, this.basket, (o, label) => this.add(o, label),
        (id) => placeName(this.ctx, id)),
      this.drawBasket(total, over),
      this.drawCapacity());
    const unitList = this.node.querySelector(".unit-picks");
    const optionList = this.node.querySelector(".reorg-options .options.scroll");
    if (unitList) unitList.scrollTop = scrolled[0];
    if (optionList && sameUnit) optionList.scrollTop = scrolled[1];
  }

  drawUnits(units) {
    const supply = this.ctx.state.supply || {};
    return h("div.reorg-units", {},
      h("h3", {}, `Face-down units (${units.length})`),
      units.length ? h("ul.unit-picks.scroll", { tabindex: 0, "aria-label": "Face-down units" }, units.map(([id, u]) => {
        const chosen = this.basket.get(id);
        const status = supply[id];
        return h(`li${id === this.selected ? ".selected" : ""}`, { dataset: { unit: id } },
          h("button.pick", { type: "button", name: `reorg-unit-${id}`,
            "aria-pressed": id === this.selected ? "true" : "false",
            onclick: () => this.load(id) },
          h("span.pick-name", {}, h("strong", {}, id), h("small.muted", {}, ` ${u.type} · ${u.at}`)),
          h("small.pick-facts", {}, h("span.muted", {}, u.power),
            status ? h(`span.${status.in_supply ? "in" : "out"}`, {},
              status.in_supply ? " · in supply" : " · out of supply") : null,
            u.shattered ? h("span.shattered", {}, " · shattered") : null),
          chosen ? h("span.in-basket", {}, `✓ in basket: ${methodName(chosen.method)}, ${rpText(chosen.cost)}`) : null));
      })) : h("p.hint", {}, "No face-down units: nothing to reorganize."));
  }

  drawOptions() {
    const plan = this.plan;
    const box = h("div.reorg-options", { "aria-live": "polite" });
    if (!this.selected) {
      box.append(h("p.hint", {}, "Choose a face-down unit to see every way to reorganize it."));
      return box;
    }
    box.append(h("h3", {}, `Ways to reorganize ${this.selected}`,
      this.loading ? h("small.muted", {}, " checking…") : null));
    if (!plan || plan.unit !== this.selected) return box;
    if (plan.reason) {
      box.append(h("p.illegal-reason", {}, plan.reason, plan.rule ? h("small", {}, ` (${plan.rule})`) : null));
    }
    if (!plan.step_open) box.append(h("p.hint", {}, "Your side cannot order reorganization now."));
    const chosen = this.basket.get(plan.unit);
    // Cheapest first (the server lists by method); the same item listed twice shows once.
    const seen = new Set();
    const options = plan.options.filter((o) => {
      const key = JSON.stringify(o.item);
      return !seen.has(key) && seen.add(key);
    }).sort((a, b) => a.cost - b.cost);
    box.append(h("ul.options.scroll", { tabindex: 0, "aria-label": "Ways to reorganize" }, options.map((o, i) => {
      const same = chosen && JSON.stringify(chosen.item) === JSON.stringify(o.item);
      const extra = [
        pathText(o.path) && `path ${pathText(o.path)}`,
        o.fuel ? `${o.fuel} fuel of ${o.power}'s ${this.ctx.state.powers[o.power]?.fuel ?? "?"}` : null,
        ...capacityLines(this.ctx, o.capacity),
        o.flips?.length ? `${o.flips.join(", ")} turn${o.flips.length === 1 ? "s" : ""} face down` : null,
        o.expends ? `${o.expends} is expended` : null,
        ...(o.notes || []),
      ].filter(Boolean);
      return h("li.option.legal", { dataset: { method: o.method } },
        h("div.option-head", {},
          h("strong", {}, methodName(o.method)),
          h("span.from", {}, fromText(this.ctx, o.item)),
          h(`span.cost${o.affordable === false ? ".over" : ""}`, {
            title: o.affordable === false ? `more than ${o.power}'s RPs` : `paid by ${o.power}` },
          rpText(o.cost)),
          h("button", { type: "button", name: `reorg-add-${i}`, disabled: same,
            onclick: () => this.add(o) }, same ? "in basket" : chosen ? "use instead" : "add")),
        extra.length ? h("p.option-notes", {}, extra.join(" · ")) : null);
    })));
    if (plan.illegal.length) {
      box.append(h("details.illegal-list", {
        open: this.open.illegal ?? !plan.options.length,
        ontoggle: (event) => { this.open.illegal = event.target.open; } },
        h("summary", {}, `Not possible (${plan.illegal.length})`),
        h("ul.options", {}, plan.illegal.map((o) => h("li.option.illegal",
          { dataset: { method: o.method }, "aria-disabled": "true" },
          h("strong", {}, methodName(o.method)), " ", o.reason,
          o.rule ? h("small", {}, ` (${o.rule})`) : null,
          // Enemy fighters or AA could meet the ATR: it flies its mission (air.js).
          o.code === "reorg/atr_opposed" && this.ctx.mine.some((a) => a.orders?.includes("air.begin"))
            ? h("button", { type: "button", name: "reorg-air-begin",
              onclick: () => this.ctx.send("air.begin", {}) }, "Fly air reorganization") : null)))));
    }
    return box;
  }

  drawBasket(total, over) {
    const entries = [...this.basket.entries()];
    const checked = this.preview && this.preview.basket === JSON.stringify(this.body());
    let result = null;
    if (checked) {
      const events = this.preview.events || [];
      const last = [...events].reverse().find((e) => typeof e.data?.rps_left === "number");
      result = h("p.preview", { role: "status" }, "✓ Dry run: valid. ",
        events.map((e) => `${e.data?.unit ?? e.data?.repairs ?? e.kind} ${rpText(e.data?.cost)}`).join(", "),
        last ? `; ${this.payer} would have ${rpText(last.data.rps_left)} left.` : ".");
    }
    return h("div.reorg-basket", {},
      h("h3", {}, `Basket (${entries.length})`),
      entries.length ? h("table.data.compact", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Unit"), h("th", { scope: "col" }, "Method"),
          h("th", { scope: "col" }, "From"), h("th.num", { scope: "col" }, "RPs"),
          h("th", { scope: "col" }, h("span.visually-hidden", {}, "Remove")))),
        h("tbody", {}, entries.map(([uid, b]) => h(`tr${this.refused?.has(uid) ? ".refused" : ""}`, { dataset: { unit: uid } },
          h("th", { scope: "row" }, b.label || uid), h("td", {}, methodName(b.method)), h("td", {}, b.from),
          h("td.num", {}, b.cost),
          h("td", {}, h("button.link", { type: "button", name: `reorg-remove-${uid}`,
            onclick: () => this.remove(uid) }, "remove"),
          this.refused?.has(uid) ? h("small.refusal", {}, ` ${this.refused.get(uid)}`) : null)))),
        h("tfoot", {}, h("tr", {}, h("th", { colspan: 3 }, "Total"),
          h(`td.num${over ? ".over" : ""}`, {}, total), h("td", {}, ""))))
        : h("p.hint", {}, "Add a method for each unit to reorganize; the order is all or nothing."),
      result,
      this.skipped?.size ? h("details.skipped", {}, h("summary", {}, `${this.skipped.size} unit(s) left out`),
        h("ul", {}, [...this.skipped].map(([uid, why]) => h("li", {}, h("strong", {}, uid), `: ${why}`)))) : null,
      h("div.buttons", {},
        h("button", { type: "button", name: "reorg-cheapest", disabled: this.adding
          || this.faceDown().every(([uid]) => this.basket.has(uid) || this.skipped?.has(uid)),
        onclick: () => this.addCheapest() }, this.adding ? "Adding…" : "Add the cheapest way for every unit"),
        h("button", { type: "button", name: "reorg-preview", disabled: !entries.length,
          onclick: () => this.check() }, "Check the cost (dry run)"),
        h("button.primary", { type: "button", name: "reorg-submit", disabled: !entries.length,
          onclick: () => this.submit() },
        submitLabel(entries)),
        // The basket as the side's own plan for the turn's final reorganization: its
        // standing order plays it first, then the cheapest way for the rest (issue 30).
        entries.length && this.ctx.mine.some((a) => a.step === "reorganization")
          ? h("button", { type: "button", name: "reorg-keep-plan", title: "the final reorganization's "
            + "standing order plays it first, then the cheapest way for the other units",
          onclick: () => this.ctx.send("standing", { ...STANDING_DEFAULTS.final_reorganization,
            plan: [this.body()] }) }, "Keep as my final-reorganization plan") : null));
  }

  drawCapacity() {
    const r = this.ctx.state.reorg;
    if (!r) return null;
    const left = (e) => Object.entries(e.left || {}).filter(([, v]) => v !== null)
      .map(([k, v]) => `${words(k)} ${v}`).join(", ");
    const rows = [
      ...r.sources.map((x) => [`${x.kind} source`, placeName(this.ctx, x.hex), left(x)]),
      ...Object.entries(r.providers).map(([id, x]) => [x.type, `${id}${x.face_up ? "" : " (face down)"}`, left(x)]),
      ...r.ports.map((x) => [`${x.port} port${x.damaged ? " (damaged)" : ""}`, placeName(this.ctx, x.hex), left(x)]),
      ...Object.entries(r.rail_moves).map(([p, x]) => ["rail moves", p, left(x)]),
    ];
    return h("details.capacity", { open: this.open.capacity,
      ontoggle: (event) => { this.open.capacity = event.target.open; } },
      h("summary", {}, "Capacity left this step"),
      rows.length ? h("table.data.compact", {}, h("tbody", {}, rows.map(([what, who, l]) =>
        h("tr", {}, h("td", {}, what), h("th", {}, who), h("td", {}, l || "—")))))
        : h("p.hint", {}, "No sources or providers."));
  }
}
