// Combats the referee decides by the scenario's tables (docs/api.md, "Combats the referee
// decides" and "Combat choices"): the odds of an attack before it is sent, from the
// server's own dry run (GET /combat/odds: the same checks and strengths as the order),
// the roll and the result after (the log's combat.resolved), and the questions a
// result leaves to a player (step combat.choice): the units that take the losses, the
// retreat path (offered on the map too, only the legal ones the server lists), the
// attackers that advance. No DOM state outside the forms; the map asks `choiceLayers`.

import { h, words } from "./dom.js";

const BY_NAMES = { overrun: "Overrun", combat: "Combat", barrage: "Barrage", naval: "Naval combat" };
const arrows = (text) => String(text ?? "").replace(/ -> /g, " → ");

/** Whether the scenario's table decides fights of kind `by` in this game. */
export const tableDecides = (state, by) => state?.game?.combat_results?.[by] === "table";

/** The combat question my side is asked now (its awaiting entry), or undefined. */
export const question = (ctx) => ctx.mine.find((a) => a.step === "combat.choice");

const cache = new Map(); // "by|hex|attackers|version" -> Promise<preview>

/** The server's odds for a planned attack (cached per game version). */
export function odds(app, combat) {
  const version = app.ctx().state.game.version;
  const key = [combat.by, combat.hex, combat.attackers.join(","), version].join("|");
  if (!cache.has(key)) {
    const query = new URLSearchParams({ by: combat.by, hex: combat.hex });
    for (const a of combat.attackers) query.append("attackers", a);
    cache.set(key, app.get(`/combat/odds?${query}`).then((data) => ({ data }), (error) => ({ error })));
    if (cache.size > 40) cache.delete(cache.keys().next().value);
  }
  return cache.get(key);
}

/** The whole table of the scenario (its `combat` section, as the export gives it), the
 *  odds' column marked. */
export function tableView(table, column) {
  if (!table) return null;
  const labels = table.columns.labels;
  return h("details.whole-table", {},
    h("summary", {}, "The whole table"),
    h("div.scroll", { tabindex: 0, role: "region", "aria-label": table.title || "The combat table" },
      h("table.data.compact.combat-table", {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, table.dice),
          labels.map((label) => h(`th${label === column ? ".here" : ""}`, { scope: "col" }, label)))),
        h("tbody", {}, Object.entries(table.rows).map(([roll, cells]) => h("tr", {},
          h("th", { scope: "row" }, roll),
          cells.map((cell, i) => h(`td${labels[i] === column ? ".here" : ""}`, {}, cell))))))),
    h("p.hint", {}, Object.entries(table.legend).map(([code, effects]) =>
      `${code}: ${effects.map((e) => words(e.kind) + (e.value != null ? ` ${e.value}` : "")).join(", ") || "no result"}`)
      .join(" · ")));
}

/** The odds in words and the column's cells ("2: AL2 · 3-4: AL1 · ..."), and the whole
 *  table from `scenario` when it is loaded. */
export function oddsView(found, scenario = null) {
  if (!found) return h("span.muted", {}, "the referee is working out the odds…");
  if (found.error) return h("span.refusal", {}, found.error.message || String(found.error));
  const p = found.data;
  if (p.decided_by !== "table") return h("span.muted", {}, "results reported by players");
  const o = p.odds;
  return h("div.odds", { dataset: { column: o.column } },
    h("p.odds-line", {}, h("strong", {}, `${o.column}`), ` · ${arrows(o.text)}`,
      p.automatic ? h("strong", {}, " · the defenders are eliminated without a roll") : null,
      p.surprise ? " · a surprise roll comes first" : null),
    p.automatic ? null : h("ul.odds-cells", { "aria-label": `The ${o.column} column by ${o.dice} roll` },
      p.cells.map((c) => h("li.cell", { title: c.results.join(", ") || "no result" },
        h("span.roll", {}, c.roll), " ", h("span.code", {}, c.code)))),
    p.table ? h("p.hint.table-title", {}, `Table: ${p.table}`) : null,
    p.automatic ? null : tableView(scenario?.combat?.[p.by === "barrage" ? "barrage" : "land"], o.column));
}

/** This step's combats decided by a table, from the log: each combat.resolved with the
 *  questions, answers and close that followed it. */
export function combatsThisStep(events, state) {
  const t = state.turn;
  const out = [];
  for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
    if (e.turn !== t.number || e.impulse !== t.impulse || e.rolled_back) continue;
    if (e.kind === "combat.resolved") out.push({ resolved: e, after: [] });
    else if (out.length && ["combat.asked", "combat.answered", "combat.closed", "combat.no_retreat",
      "unit.step_lost", "unit.eliminated", "units.retreated", "units.advanced",
      "units.exploit_awarded", "hex.disorganized", "units.shattered"].includes(e.kind)
      && !out[out.length - 1].closed) {
      out[out.length - 1].after.push(e);
      if (e.kind === "combat.closed") out[out.length - 1].closed = e;
    }
  }
  return out;
}

/** A decided combat: the roll and the result in the referee's words, and what followed. */
export function resultView(record) {
  const d = record.resolved.data;
  const after = record.after.filter((e) => e.kind !== "combat.asked"); // asked: the awaiting entry
  return h(`div.combat-result${record.closed ? "" : ".open"}`, { dataset: { hex: d.hex } },
    h("h4", {}, `${BY_NAMES[d.by] || d.by} on ${d.hex}: `,
      h("strong.code", {}, d.code), d.values?.length ? ` (${d.odds.dice} rolled ${d.values.join(" + ")})` : ""),
    h("p.combat-text", {}, arrows(record.resolved.text)),
    after.length ? h("ul.combat-after", {}, after.map((e) => h("li", {}, arrows(e.text)))) : null);
}

// -------------------------------------------------------------- the question

const chosen = { key: null, path: null };

function pathWords(path) {
  return path.length ? path.join(" → ") : "no retreat: the options are step losses";
}

/** What the map shows while my side chooses a retreat: where each legal path ends, and
 *  the path chosen. */
export function choiceLayers(ctx) {
  const entry = question(ctx);
  if (!entry || entry.combat.kind !== "retreat") return {};
  const paths = entry.choices.retreat || [];
  const ends = new Map();
  for (const p of paths) if (p.length && !ends.has(p[p.length - 1])) ends.set(p[p.length - 1], `${p.length} hex`);
  const path = chosen.key === choiceKey(ctx) ? chosen.path : entry.combat.default;
  const from = entry.combat.hex;
  return {
    transport: ends,
    targets: new Set(),
    planned: path?.length ? [{ from, to: path[path.length - 1], path }] : [],
    selectedUnit: entry.combat.units[0],
  };
}

/** A hex clicked while my side chooses a retreat: the shortest legal path ending there is
 *  chosen; true if it was one. */
export function choiceOnHex(ctx, hex, redraw) {
  const entry = question(ctx);
  if (!entry || entry.combat.kind !== "retreat") return false;
  const found = (entry.choices.retreat || []).filter((p) => p[p.length - 1] === hex)
    .sort((a, b) => a.length - b.length)[0];
  if (!found) return false;
  chosen.key = choiceKey(ctx);
  chosen.path = found;
  const index = String(entry.choices.retreat.indexOf(found));
  for (const input of document.querySelectorAll("input[name=retreat-path]")) input.checked = input.value === index;
  redraw();
  return true;
}

function choiceKey(ctx) {
  const entry = question(ctx);
  return entry ? JSON.stringify([ctx.position, entry.combat.kind, entry.combat.asked_at]) : null;
}

function submit(ctx, entry, answer) {
  return ctx.send("combat.choose", { hex: entry.combat.hex, ...answer });
}

function retreatControls(ctx, entry, redraw) {
  const paths = entry.choices.retreat || [];
  const key = choiceKey(ctx);
  if (chosen.key !== key) {
    chosen.key = key;
    chosen.path = entry.combat.default;
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const radios = paths.map((p, i) => {
    const input = h("input", { type: "radio", name: "retreat-path", value: String(i),
      checked: same(p, chosen.path) });
    input.addEventListener("change", () => { chosen.path = p; redraw(); });
    const zoc = p.filter((x) => (entry.combat.zoc || []).includes(x));
    return h("li", {}, h("label", {}, input, h("span", {}, pathWords(p),
      zoc.length ? h("small.zoc-note", {}, ` enemy ZOC in ${zoc.join(", ")}: the stack turns DG`) : null,
      same(p, entry.combat.default) ? h("small.muted", {}, " (the default)") : null)));
  });
  return [
    h("p.hint", {}, "Only the legal retreats are offered; on the map, the blue hexes are where "
      + "they end: a click chooses the shortest path there."),
    h("ul.retreat-paths", {}, radios),
    h("div.buttons", {}, h("button.primary", { type: "button", name: "choose-retreat",
      onclick: () => submit(ctx, entry, { retreat: chosen.path || [] }) }, "Retreat as chosen"))];
}

function lossControls(ctx, entry) {
  const q = entry.combat;
  const selects = q.default.map((unit, i) => {
    const select = h("select", { name: `loss-${i + 1}`, "aria-label": `Step loss ${i + 1}` },
      q.units.map((u) => h("option", { value: u }, u)));
    select.value = unit;
    return h("label.field", {}, h("span", {}, `Step loss ${i + 1}`), select);
  });
  return [
    h("div.loss-picks", {}, selects),
    h("div.buttons", {}, h("button.primary", { type: "button", name: "choose-losses",
      onclick: () => submit(ctx, entry, { losses: selects.map((s) => s.querySelector("select").value) }) },
    "Take the losses"))];
}

function advanceControls(ctx, entry) {
  const boxes = entry.combat.units.map((u) => ({ u, box: h("input", { type: "checkbox", name: `advance-${u}` }) }));
  const pick = () => boxes.filter((b) => b.box.checked).map((b) => b.u);
  return [
    h("ul.checks", {}, boxes.map(({ u, box }) => h("li", {}, h("label", {}, box, ` ${u}`)))),
    h("div.buttons", {},
      h("button.primary", { type: "button", name: "choose-advance",
        onclick: () => submit(ctx, entry, { advance: pick() }) }, "Advance the units ticked"),
      h("button", { type: "button", name: "choose-stay", onclick: () => submit(ctx, entry, { advance: [] }) },
        "Stay"))];
}

/** The form of forms.js's ORDER_FORMS that answers a combat's question (ctx.events():
 *  the log; ctx.redrawMap(): the map shows the path chosen). */
export const combatChoiceForm = {
  id: "combat-choice",
  title: "A combat's result asks you",
  wide: true,
  applies: (ctx) => Boolean(question(ctx)),
  key: (ctx) => choiceKey(ctx),
  render(ctx) {
    const entry = question(ctx);
    const q = entry.combat;
    const fought = combatsThisStep(ctx.events(), ctx.state).filter((r) => r.resolved.data.hex === q.hex);
    return h("div.combat-choice", { dataset: { kind: q.kind } },
      fought.length ? resultView(fought[fought.length - 1]) : null,
      h("p.question", {}, h("strong", {}, q.text)),
      h("p.hint", {}, entry.deadline
        ? `Answer by ${new Date(entry.deadline).toLocaleString()}; then the default is taken.`
        : "No deadline is set; the GM may force the default."),
      q.kind === "retreat" ? retreatControls(ctx, entry, () => ctx.redrawMap())
        : q.kind === "losses" ? lossControls(ctx, entry) : advanceControls(ctx, entry));
  },
};
