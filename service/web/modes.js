// The "Change modes" form (OCS 5.3-5.8), in the action step: my face-up units with the
// mode changes the referee would accept now, from the options endpoint (GET /options: the
// same checks the `mode` order goes through), and why a unit has none (in an enemy ZOC,
// moved, passed, DG...). All the changes are one order, all or nothing; the row the
// referee refuses is marked with why.

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

/** A legal change in words: "Reserve, move side up", "Strat". */
function choiceLabel(unit, choice) {
  const name = MODE_NAMES[choice.mode] || choice.mode;
  if (!CHOSEN_SIDE.includes(choice.mode)) return name;
  const same = choice.mode === unit.mode;
  return `${name}${same ? ": other side up" : ""}, ${choice.orientation} side up`;
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
    path = data.next ? `/options?after=${encodeURIComponent(data.next)}` : null;
  }
  return units;
}

export const modeForm = {
  id: "mode",
  title: "Change modes",
  wide: true,
  applies: (ctx) => Boolean(awaitedIn(ctx, "action"))
    && ctx.units.some(([, u]) => u.effective && u.face_up),
  key: (ctx) => JSON.stringify([ctx.position, ctx.state.game.version]),
  render(ctx) {
    const units = ctx.units.filter(([, u]) => u.effective && u.face_up).sort(byPlace);
    const down = ctx.units.filter(([, u]) => u.effective && !u.face_up).length;
    const rows = units.map(([id, u]) => {
      const mode = h("select", { name: `mode-${id}`, disabled: true, "aria-label": `New mode of ${id}` },
        h("option", { value: "" }, "checking…"));
      const why = h("small.muted.mode-why");
      const row = h("tr", { dataset: { unit: id } },
        h("th", { scope: "row" }, id, h("small.muted", {}, ` ${u.type}`)),
        h("td", {}, u.at),
        h("td", {}, MODE_NAMES[u.mode] || u.mode || "—",
          u.orientation !== u.mode ? h("small.muted", {}, ` (${u.orientation} side)`) : null),
        h("td.num", { title: "effective attack-defence-MA in its movement step" }, strength(u)),
        h("td", {}, mode, why));
      mode.addEventListener("change", () => row.classList.toggle("changed", Boolean(mode.value)));
      return { id, u, mode, why, row, choices: [] };
    });
    const show = (found) => {
      for (const r of rows) {
        const modes = found[r.id]?.modes;
        r.choices = modes?.legal || [];
        fill(r.mode, h("option", { value: "" }, "keep"),
          r.choices.map((c) => h("option", { value: choiceValue(c) }, choiceLabel(r.u, c))));
        r.mode.disabled = !r.choices.length;
        const refused = (modes?.illegal || []).filter((x) => x.mode !== r.u.mode || CHOSEN_SIDE.includes(x.mode));
        r.mode.title = refused.map((x) => `${MODE_NAMES[x.mode] || x.mode}: ${x.reason}`).join("; ");
        r.row.classList.toggle("unavailable", !r.choices.length);
        // No change at all: the one reason they share (the step, a move made, a pass), or
        // each mode's own.
        const reasons = [...new Set(refused.map((x) => reason(x)))];
        r.why.textContent = r.choices.length ? ""
          : modes?.why ? reason(modes.why) : reasons.length === 1 ? reasons[0] : reasons.slice(0, 2).join("; ");
      }
    };
    sideChoices(ctx).then(show).catch((error) => {
      for (const r of rows) fill(r.mode, h("option", { value: "" }, "keep"));
      ctx.showError(error);
    });
    const body = () => ({ changes: rows.filter((r) => r.mode.value).map((r) => {
      const [mode, orientation] = r.mode.value.split("/");
      return orientation ? { unit: r.id, mode, orientation } : { unit: r.id, mode };
    }) });
    /** The rows the referee refused (errors[].path /order/body/changes/N/...), with why. */
    const mark = (sent, problem) => {
      for (const r of rows) {
        r.row.classList.remove("refused");
        r.row.querySelector(".refusal")?.remove();
      }
      for (const e of problem?.errors || []) {
        const m = /^\/order\/body\/changes\/(\d+)/.exec(e.path || "");
        const r = m && rows.find((x) => x.id === sent.changes[Number(m[1])]?.unit);
        if (!r) continue;
        r.row.classList.add("refused");
        r.row.lastChild.append(h("small.refusal", {}, ` ${e.message}`));
      }
    };
    return h("div", {},
      h("p.hint", {}, "Each unit changes mode once, as it begins to move, at no MP cost "
        + "(OCS 5.4); only the changes the referee would accept now are offered (hover a list "
        + "for why the others are not). All the changes are one order: all or nothing."
        + (down ? ` ${down} face-down unit(s) cannot move and are not listed.` : "")),
      h("div.scroll.short", { tabindex: 0, role: "region", "aria-label": "Units and their modes" },
        h("table.data.compact.mode-table", {},
          h("thead", {}, h("tr", {}, ["Unit", "At", "Mode now", "A-D-MA", "New mode"]
            .map((label) => h("th", { scope: "col" }, label)))),
          h("tbody", {}, rows.map((r) => r.row)))),
      h("div.buttons", {}, h("button.primary", { type: "button", name: "change-modes", onclick: () => {
        const changes = body();
        if (!changes.changes.length) {
          ctx.fail("Choose a new mode for at least one unit.");
          return;
        }
        mark(changes, null);
        ctx.send("mode", changes, { onProblem: (problem) => mark(changes, problem) });
      } }, "Change modes")));
  },
};
