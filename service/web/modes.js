// The "Change modes" form (OCS 5.3-5.8), in the action step: my face-up units with the
// mode changes the referee would accept now, from the options endpoint (GET /options: the
// same checks the `mode` order goes through), and why a unit has none (in an enemy ZOC,
// moved, passed, DG...). All the changes are one order, all or nothing; a row the
// referee refuses (a page that had not heard of another tab's change, say) is marked
// with why, and stays marked while the choices are read again. The side's Reserve
// markers (OCS 5.4a) are counted with the changes chosen, as the referee counts them
// when the movement ends, and the rows taking a new one say so.

import { fill, h } from "./dom.js";

const MODE_NAMES = { combat: "Combat", move: "Move", reserve: "Reserve", strat: "Strat",
  exploit: "Exploit", dg: "DG" };
// Reserve and DG keep or flip the side showing (OCS 5.7a, OCS 5.4): the order names it.
const CHOSEN_SIDE = ["reserve", "dg"];

export const byPlace = ([ia, a], [ib, b]) => String(a.at).localeCompare(String(b.at)) || ia.localeCompare(ib);

/** Effective attack-defence-MA of a unit, as on the counter: "3-3-4". */
export function strength(unit) {
  const e = unit.effective;
  return e ? `${e.attack}-${e.defence}-${e.movement_ma}` : "";
}

const awaitedIn = (ctx, step) => ctx.mine.find((a) => a.step === step);
const reason = (why) => (why ? `${why.reason}${why.rule ? ` (${why.rule})` : ""}` : "");
/** A control on or off; while an order is on its way (setBusy keeps what to restore in
 *  `data-was-disabled`) that is what changes, and it takes effect when the order is
 *  answered. */
function enable(control, on) {
  if ("wasDisabled" in control.dataset) control.dataset.wasDisabled = on ? "" : "1";
  else control.disabled = !on;
}

const faceUp = (ctx) => ctx.units.filter(([, u]) => u.effective && u.face_up).sort(byPlace);

/** A legal change in words: "Reserve, move side up", "Strat"; one into Reserve that
 *  takes a new Reserve marker says so (OCS 5.4a). */
function choiceLabel(unit, choice) {
  const name = MODE_NAMES[choice.mode] || choice.mode;
  if (!CHOSEN_SIDE.includes(choice.mode)) return name;
  return `${name}${choice.mode === unit.mode ? ": other side up" : ""}, ${choice.orientation} side up`
    + (choice.needs_marker ? " (new marker)" : "");
}

/** The hexes of my side's stacks in Reserve once `chosen` (unit id -> new mode, "" to
 *  keep) is made: one Reserve marker each (OCS 5.4a). */
function reserveStacks(ctx, chosen) {
  return new Set(ctx.units.filter(([id, u]) => (chosen.get(id) || u.mode) === "reserve")
    .map(([, u]) => u.at));
}

/** A choice as the select's value: "strat", or "reserve/move" where the side showing is
 *  the player's to name. */
const choiceValue = (c) => (CHOSEN_SIDE.includes(c.mode) ? `${c.mode}/${c.orientation}` : c.mode);

/** Every unit of my side with its choices (the options endpoint, followed page by page
 *  when the server pages it). */
async function sideChoices(ctx) {
  const units = {};
  let path = "/options";
  for (let pages = 0; path && pages < 100; pages += 1) {
    const data = await ctx.get(path);
    Object.assign(units, data.units || {});
    path = data.next_after ? `/options?after=${encodeURIComponent(data.next_after)}` : null;
  }
  return units;
}

class ModePanel {
  constructor(ctx) {
    this.ctx = ctx;
    this.version = null;
    this.markers = null;
    this.count = h("p.hint.markers", { "aria-live": "polite" });
    this.rows = faceUp(ctx).map(([id, u]) => this.row(id, u));
    this.node = h("div", {},
      h("p.hint", {}, "Each unit changes mode once, as it begins to move, at no MP cost "
        + "(OCS 5.4); only the changes the referee would accept now are offered (hover a list "
        + "for why the others are not). All the changes are one order: all or nothing."
        + (this.down() ? ` ${this.down()} face-down unit(s) cannot move and are not listed.` : "")),
      this.count,
      h("div.scroll.short", { tabindex: 0, role: "region", "aria-label": "Units and their modes" },
        h("table.data.compact.mode-table", {},
          h("thead", {}, h("tr", {}, ["Unit", "At", "Mode now", "A-D-MA", "New mode", "Reserve marker"]
            .map((label) => h("th", { scope: "col" }, label)))),
          h("tbody", {}, this.rows.map((r) => r.row)))),
      h("div.buttons", {}, h("button.primary", { type: "button", name: "change-modes",
        onclick: () => this.send() }, "Change modes")));
    this.update(ctx);
  }

  down() {
    return this.ctx.units.filter(([, u]) => u.effective && !u.face_up).length;
  }

  row(id, u) {
    const mode = h("select", { name: `mode-${id}`, disabled: true, "aria-label": `New mode of ${id}` },
      h("option", { value: "" }, "checking…"));
    const now = h("td");
    const values = h("td.num", { title: "effective attack-defence-MA in its movement step" });
    const why = h("small.muted.mode-why");
    const refusal = h("small.refusal");
    const marker = h("small.muted");
    const row = h("tr", { dataset: { unit: id } }, h("th", { scope: "row" }, id, h("small.muted", {}, ` ${u.type}`)),
      h("td", {}, u.at), now, values, h("td", {}, mode, why, refusal), h("td.marker", {}, marker));
    mode.addEventListener("change", () => {
      row.classList.toggle("changed", Boolean(mode.value));
      this.recount();
    });
    return { id, mode, now, values, why, refusal, marker, row };
  }

  /** OCS 5.4a: the side's markers left once the changes chosen are made (the referee
   *  counts every Reserve stack when the movement ends), and which rows take a new one. */
  recount() {
    if (!this.markers) return;
    const chosen = new Map(this.rows.map((r) => [r.id, r.mode.value.split("/")[0]]));
    const before = reserveStacks(this.ctx, new Map());
    const after = reserveStacks(this.ctx, chosen);
    const unit = (r) => this.ctx.state.units[r.id];
    const fresh = this.rows.filter((r) => chosen.get(r.id) === "reserve" && unit(r).mode !== "reserve"
      && !before.has(unit(r).at));
    for (const r of this.rows) {
      const shared = fresh.filter((x) => unit(x).at === unit(r).at).length;
      r.marker.textContent = !fresh.includes(r) ? ""
        : shared > 1 ? `needs a new marker, shared in ${unit(r).at}` : "needs a new marker";
    }
    const { limit } = this.markers;
    const left = limit - after.size;
    this.count.textContent = `Reserve markers: ${Math.max(0, left)} of ${limit} left`
      + (after.size !== before.size ? ` after these changes (${this.markers.left} now)` : "")
      + (left < 0 ? `: ${-left} short. Before your movement ends, move Reserve units onto a `
        + "Reserve stack or take units back out of Reserve (OCS 5.4a)." : ". A stack's Reserve "
        + "units share one marker (OCS 5.4a).");
    this.count.classList.toggle("why", left < 0);
  }

  /** A new version of the game: the units as they are, their choices read again (the
   *  choice made stays while it is still offered). */
  update(ctx) {
    this.ctx = ctx;
    for (const r of this.rows) {
      const u = ctx.state.units[r.id];
      fill(r.now, MODE_NAMES[u.mode] || u.mode || "—",
        u.orientation !== u.mode ? h("small.muted", {}, ` (${u.orientation} side)`) : null);
      r.values.textContent = strength(u);
    }
    if (this.version === ctx.state.game.version) return;
    this.version = ctx.state.game.version;
    sideChoices(ctx).then((found) => this.show(found)).catch((error) => ctx.showError(error));
  }

  show(found) {
    this.markers = Object.values(found).find((c) => c.modes?.reserve_markers)?.modes.reserve_markers
      || this.ctx.state.sides?.[this.ctx.me.side]?.reserve_markers || null;
    for (const r of this.rows) {
      const u = this.ctx.state.units[r.id];
      const modes = found[r.id]?.modes;
      const was = r.mode.value;
      const legal = modes?.legal || [];
      fill(r.mode, h("option", { value: "" }, "keep"),
        legal.map((c) => h("option", { value: choiceValue(c) }, choiceLabel(u, c))));
      if ([...r.mode.options].some((o) => o.value === was)) r.mode.value = was;
      enable(r.mode, legal.length > 0);
      r.row.classList.toggle("changed", Boolean(r.mode.value));
      const refused = (modes?.illegal || []).filter((x) => x.mode !== u.mode || CHOSEN_SIDE.includes(x.mode));
      r.mode.title = refused.map((x) => `${MODE_NAMES[x.mode] || x.mode}: ${x.reason}`).join("; ");
      r.row.classList.toggle("unavailable", !legal.length);
      // No change at all: the reason they share (the step, a move made, a pass), or the
      // first two of their own.
      const reasons = [...new Set(refused.map((x) => reason(x)))];
      r.why.textContent = legal.length ? ""
        : modes?.why ? reason(modes.why) : reasons.slice(0, 2).join("; ");
      const note = legal.find((c) => c.marker_note)?.marker_note;
      if (note) r.mode.title = [`Reserve: ${note}`, r.mode.title].filter(Boolean).join("; ");
    }
    this.recount();
  }

  body() {
    return { changes: this.rows.filter((r) => r.mode.value).map((r) => {
      const [mode, orientation] = r.mode.value.split("/");
      return orientation ? { unit: r.id, mode, orientation } : { unit: r.id, mode };
    }) };
  }

  /** The rows the referee refused (errors[].path /order/body/changes/N/...), with why. */
  mark(sent, problem) {
    for (const r of this.rows) {
      r.row.classList.remove("refused");
      r.refusal.textContent = "";
    }
    for (const e of problem?.errors || []) {
      const m = /^\/order\/body\/changes\/(\d+)/.exec(e.path || "");
      const r = m && this.rows.find((x) => x.id === sent.changes[Number(m[1])]?.unit);
      if (!r) continue;
      r.row.classList.add("refused");
      r.refusal.textContent = ` Refused: ${e.message}`;
    }
    this.rows.find((r) => r.row.classList.contains("refused"))?.row.scrollIntoView({ block: "nearest" });
  }

  send() {
    const sent = this.body();
    if (!sent.changes.length) {
      this.ctx.fail("Choose a new mode for at least one unit.");
      return;
    }
    this.mark(sent, null);
    this.ctx.send("mode", sent, { onProblem: (problem) => this.mark(sent, problem) });
  }
}

let panel = null;

export const modeForm = {
  id: "mode",
  title: "Change modes",
  wide: true,
  applies: (ctx) => Boolean(awaitedIn(ctx, "action")) && faceUp(ctx).length > 0,
  key: (ctx) => JSON.stringify([ctx.position, faceUp(ctx).map(([id]) => id)]),
  render(ctx) {
    panel = new ModePanel(ctx);
    return panel.node;
  },
  update(ctx) {
    panel?.update(ctx);
  },
};
