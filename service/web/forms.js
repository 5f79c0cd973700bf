// The order forms. Each entry of ORDER_FORMS is one form of the "Your orders" panel:
//
//   { id, title,
//     wide: bool              shown as its own card above the map, not in the side panel,
//     place: "done"           shown after the map's wide forms (the step's last act),
//     applies(ctx) -> bool    shown only when true (e.g. my side is awaited in its step),
//     key(ctx) -> string      the form is rebuilt only when this changes, so typing is not
//                             lost when the state refreshes (default: always the same),
//     render(ctx) -> Node     built with ctx.send(kind, body) to sign and send an order,
//     update(ctx, node) }     optional: called on every refresh that does not rebuild it.
//
// ctx = { state, position, me: {side, powers}, mine: my awaiting entries, step,
//         send(kind, body, {onProblem}?) -> Promise<bool> (onProblem(problem) on a refusal,
//         to mark the offending row), preview(kind, body) -> Promise<dry run|null>,
//         dryRun(kind, body) -> Promise<dry run> (throws the refusal, shows nothing),
//         get(path) -> Promise<data> (GET /v1/games/{id}{path}), units: my side's units,
//         scenario (null until loaded), sideOf(power), controllerOf(power), fail(message),
//         showError(error) }.
// To add an order kind, add an entry; the generic form at the end sends any kind with a
// JSON body meanwhile.

import { h, stopWords, words } from "./dom.js";
import { playForm } from "./play.js";
import { reorgForm } from "./reorg.js";

export const ACTIONS = ["pass", "land", "air", "naval", "combined"];
export const CHIT_KINDS = ["air", "land", "naval", "combined", "reorganize_hqs"];
export const DONE_STEPS = ["action", "reaction", "combat", "exploitation", "reorganization",
  "final_reorganization"];
// The phasing side's steps of an impulse a `steps` order may be done through.
const IMPULSE_DONE = ["action", "reaction", "combat", "exploitation", "reorganization"];
export const ORDER_KINDS = ["declare", "initiative.reroll", "initiative.choose", "done",
  "production", "roll", "mode", "release", "report", "reorg", "consent", "standing", "steps"];

// Standing orders (issue 20): each step a player may arm, what the server answers, and
// the default order (with its stops) the page arms.
export const STANDING_STEPS = [
  ["initiative.reroll", "never demand a reroll"], ["reaction", "release nothing"],
  ["combat", "done"], ["exploitation", "done"], ["final_reorganization", "done"]];
export const STANDING_DEFAULTS = {
  "initiative.reroll": { step: "initiative.reroll", demand: false,
    stops: [{ kind: "initiative_close", within: 1 }] },
  reaction: { step: "reaction", stops: [{ kind: "enemy_adjacent_reserve" },
    { kind: "unit_attacked" }] },
  combat: { step: "combat", stops: [{ kind: "unit_attacked" }] },
  exploitation: { step: "exploitation", stops: [{ kind: "unit_attacked" }] },
  final_reorganization: { step: "final_reorganization", stops: [{ kind: "hq_out_of_supply" }] },
};
export const VOLUNTARY_MODES = ["combat", "move", "reserve", "strat"];
const MODE_NAMES = { combat: "Combat", move: "Move", reserve: "Reserve", strat: "Strat",
  exploit: "Exploit", dg: "DG" };
// Unit types without a Combat side (Transport Points, Organic Trucks, Repl: OCS 5.6b).
const MOVE_ONLY_TYPES = ["TRANSPORT", "REPL"];

const awaitedIn = (ctx, step) => ctx.mine.find((a) => a.step === step);

/** [power, RPs] of my powers whose RPs lapse when my side finishes this reorganization
 *  step (the view's `reorg.rps_lapse_on_done`). */
function lapsing(ctx) {
  if (!ctx.mine.some((a) => ["reorganization", "final_reorganization"].includes(a.step))) return [];
  return Object.entries(ctx.state.reorg?.rps_lapse_on_done || {})
    .filter(([power, n]) => n > 0 && ctx.me.powers.includes(power));
}

const byPlace = ([ia, a], [ib, b]) => String(a.at).localeCompare(String(b.at)) || ia.localeCompare(ib);

/** Effective attack-defence-MA of a unit, as on the counter: "3-3-4". */
export function strength(unit) {
  const e = unit.effective;
  return e ? `${e.attack}-${e.defence}-${e.movement_ma}` : "";
}

/** Why `unit` may not change mode now, or null (OCS 5.4; docs/api.md). */
function noModeChange(ctx, unit) {
  const done = unit.this_impulse || {};
  if (done.mode_changed) return "changed mode this impulse";
  if (done.moved || done.attacked) return "has moved: modes change as a unit begins to move";
  if (unit.mode === "exploit") return "in Exploit Mode until clean up";
  const major = ctx.controllerOf(unit.power);
  if (ctx.state.powers[major]?.declared === "pass") return `${major} passed this impulse`;
  return null;
}

/** The hexes of my side's stacks in Reserve once `chosen` (unit id -> new mode, "" to
 *  keep) is made: one Reserve marker each (OCS 5.4a). */
function reserveStacks(ctx, chosen) {
  return new Set(ctx.units.filter(([id, u]) => (chosen.get(id) || u.mode) === "reserve")
    .map(([, u]) => u.at));
}

/** The modes `unit` may choose now ([] when none), with its own mode left out unless
 *  only the orientation changes (Reserve, DG). */
function modeChoices(unit) {
  if (unit.mode === "dg") return ["dg"];
  return VOLUNTARY_MODES.filter((mode) => (mode !== unit.mode || mode === "reserve")
    && !(mode === "combat" && MOVE_ONLY_TYPES.includes(unit.type))
    && !(mode === "strat" && unit.type === "TRANSPORT"));
}


/** The powers I hold among those an awaiting entry still waits for. */
const myPending = (ctx, step) => {
  const entry = awaitedIn(ctx, step);
  return entry ? entry.powers.filter((p) => ctx.me.powers.includes(p)) : [];
};

function button(label, onclick, { primary = false, name } = {}) {
  return h(`button${primary ? ".primary" : ""}`, { type: "button", onclick, name }, label);
}

function field(label, control, hint) {
  return h("label.field", {}, h("span", {}, label), control, hint ? h("small", {}, hint) : null);
}

function sign(n) {
  return n > 0 ? `+${n}` : String(n);
}

const BOX_BONUS = [2, 1, 0, 0, 0];

export const ORDER_FORMS = [
  {
    id: "reroll",
    title: "Initiative: reroll?",
    applies: (ctx) => Boolean(awaitedIn(ctx, "initiative.reroll")),
    key: (ctx) => JSON.stringify(ctx.position),
    render(ctx) {
      const ini = ctx.state.initiative;
      const side = ctx.me.side;
      const box = ini.boxes[side];
      return h("div", {},
        h("p", {}, `Your die: ${ini.dice[side] ?? "?"}, box bonus ${sign(BOX_BONUS[box] ?? 0)}: `,
          h("strong", {}, `total ${ini.totals[side] ?? "?"}`), "."),
        h("p.hint", {}, "Answers stay sealed until every eligible side has answered."),
        h("div.buttons", {},
          button("Demand a reroll", () => ctx.send("initiative.reroll", { demand: true }),
            { name: "reroll-yes" }),
          button("Keep the roll", () => ctx.send("initiative.reroll", { demand: false }),
            { primary: true, name: "reroll-no" })));
    },
  },
  {
    id: "choose",
    title: "Initiative: choose your place",
    applies: (ctx) => Boolean(awaitedIn(ctx, "initiative.choose")),
    key: (ctx) => JSON.stringify(ctx.position) + ctx.state.initiative.ranking.join(),
    render(ctx) {
      const ranking = ctx.state.initiative.ranking;
      const totals = ctx.state.initiative.totals;
      const winner = ranking[0] === ctx.me.side;
      const lowest = ranking[ranking.length - 1];
      const rankText = ranking.map((s) => `${s} ${totals[s] ?? ""}`).join(" > ");
      const choices = winner
        ? [["first", "Move first"], ["last", "Move last"]]
        : [["before", `Before ${lowest}`], ["after", `After ${lowest}`]];
      return h("div", {},
        h("p", {}, `Initiative: ${rankText}.`),
        h("p.hint", {}, winner ? "You won: take the first or the last impulse of each round."
          : `You are runner-up: move before or after ${lowest}, the lowest.`),
        h("div.buttons", {}, choices.map(([position, label]) =>
          button(label, () => ctx.send("initiative.choose", { position }),
            { primary: true, name: `choose-${position}` }))));
    },
  },
  {
    id: "declare",
    title: "Declare this impulse",
    applies: (ctx) => myPending(ctx, "declare").length > 0,
    key: (ctx) => JSON.stringify([ctx.position, myPending(ctx, "declare")]),
    render(ctx) {
      const powers = myPending(ctx, "declare");
      const hqs = ctx.units.filter(([, u]) => String(u.type).startsWith("HQ")).map(([id]) => id);
      const rows = powers.map((power) => {
        const action = h("select", { name: `action-${power}` },
          ACTIONS.map((a) => h("option", { value: a }, a)));
        const chits = ctx.state.powers[power]?.chits ?? 0;
        const kind = h("select", { name: `chit-${power}`, disabled: chits < 1 },
          h("option", { value: "" }, "none"),
          CHIT_KINDS.map((k) => h("option", { value: k }, words(k))));
        const hq = h("select", { name: `hq-${power}` },
          hqs.length ? hqs.map((id) => h("option", { value: id }, id))
            : h("option", { value: "" }, "no HQ"));
        const hqField = field("HQ", hq);
        hqField.hidden = true;
        kind.addEventListener("change", () => { hqField.hidden = !kind.value; });
        return { power, action, kind, hq, node: h("div.power-orders", { dataset: { power } },
          h("strong", {}, power), field("Action", action), field(`Chit (${chits} left)`, kind), hqField) };
      });
      const body = () => {
        const actions = {};
        const chits = {};
        for (const row of rows) {
          actions[row.power] = row.action.value;
          if (row.kind.value) chits[row.power] = { kind: row.kind.value, hq: row.hq.value };
        }
        return Object.keys(chits).length ? { actions, chits } : { actions };
      };
      const passAll = { actions: Object.fromEntries(powers.map((p) => [p, "pass"])) };
      return h("div", {},
        rows.map((r) => r.node),
        h("div.buttons", {},
          button("Declare", () => ctx.send("declare", body()), { primary: true, name: "declare" }),
          button("Pass all", () => ctx.send("declare", passAll), { name: "pass-all" })));
    },
  },
  {
    id: "mode",
    title: "Change modes",
    wide: true,
    applies: (ctx) => Boolean(awaitedIn(ctx, "action"))
      && ctx.units.some(([, u]) => u.effective && u.face_up),
    key: (ctx) => JSON.stringify([ctx.position, ctx.units.filter(([, u]) => u.effective)
      .map(([id, u]) => [id, u.face_up, u.mode, u.orientation, u.this_impulse])]),
    render(ctx) {
      const units = ctx.units.filter(([, u]) => u.effective && u.face_up).sort(byPlace);
      const down = ctx.units.filter(([, u]) => u.effective && !u.face_up).length;
      const rows = units.map(([id, u]) => {
        const marker = h("small.muted");
        const why = noModeChange(ctx, u);
        const choices = why ? [] : modeChoices(u);
        const mode = h("select", { name: `mode-${id}`, disabled: !choices.length,
          "aria-label": `New mode of ${id}` },
          h("option", { value: "" }, "keep"),
          choices.map((m) => h("option", { value: m },
            m === u.mode ? `${MODE_NAMES[m]}: other side up` : MODE_NAMES[m])));
        const orientation = h("select", { name: `orientation-${id}`, disabled: true,
          "aria-label": `Side showing of ${id}` },
          ["combat", "move"].map((o) => h("option", { value: o }, `${o} side`)));
        orientation.value = u.orientation;
        const sync = () => {
          // Combat and Move show their own side, Strat the Move side (OCS 5.2, OCS 5.8); Reserve
          // and DG keep or flip the side showing (OCS 5.7a, OCS 5.4).
          const chosen = mode.value;
          const free = chosen === "reserve" || chosen === "dg";
          orientation.disabled = !free;
          if (!chosen) orientation.value = u.orientation;
          else if (!free) orientation.value = chosen === "strat" ? "move" : chosen;
          else if (chosen === "dg" || (chosen === u.mode && orientation.value === u.orientation)) {
            orientation.value = u.orientation === "combat" ? "move" : "combat";
          }
          row.classList.toggle("changed", Boolean(chosen));
        };
        mode.addEventListener("change", sync);
        const row = h(`tr${why ? ".unavailable" : ""}`, { dataset: { unit: id } },
          h("th", { scope: "row" }, id, h("small.muted", {}, ` ${u.type}`)),
          h("td", {}, u.at),
          h("td", {}, MODE_NAMES[u.mode] || u.mode || "—",
            u.orientation !== u.mode ? h("small.muted", {}, ` (${u.orientation} side)`) : null),
          h("td.num", { title: "effective attack-defence-MA in its movement step" }, strength(u)),
          h("td", {}, why ? h("small.muted", {}, why) : mode),
          h("td", {}, why ? null : orientation),
          h("td.marker", {}, marker));
        return { id, unit: u, mode, orientation, row, marker };
      });
      // OCS 5.4a: the side's Reserve markers, counted as the referee counts them when the
      // movement ends, with the changes chosen so far; rows taking a new marker say so.
      const markers = ctx.state.sides?.[ctx.me.side]?.reserve_markers;
      const count = h("p.hint.markers", { "aria-live": "polite" });
      const before = reserveStacks(ctx, new Map());
      const recount = () => {
        if (!markers) return;
        const chosen = new Map(rows.map((r) => [r.id, r.mode.value]));
        const after = reserveStacks(ctx, chosen);
        const fresh = rows.filter((r) => chosen.get(r.id) === "reserve" && r.unit.mode !== "reserve"
          && !before.has(r.unit.at));
        for (const r of rows) {
          const shared = fresh.filter((x) => x.unit.at === r.unit.at).length;
          r.marker.textContent = !fresh.includes(r) ? ""
            : shared > 1 ? `needs a new marker, shared in ${r.unit.at}` : "needs a new marker";
        }
        const left = markers.limit - after.size;
        count.textContent = `Reserve markers: ${Math.max(0, left)} of ${markers.limit} left`
          + (after.size !== before.size ? ` after these changes (${markers.left} now)` : "")
          + (left < 0 ? `: ${-left} short. Before your movement ends, move Reserve units onto `
            + "a Reserve stack or take units back out of Reserve (OCS 5.4a)." : ". A stack's "
            + "Reserve units share one marker (OCS 5.4a).");
        count.classList.toggle("why", left < 0);
      };
      for (const r of rows) r.mode.addEventListener("change", recount);
      recount();
      const body = () => ({ changes: rows.filter((r) => r.mode.value).map((r) => (
        ["reserve", "dg"].includes(r.mode.value)
          ? { unit: r.id, mode: r.mode.value, orientation: r.orientation.value }
          : { unit: r.id, mode: r.mode.value })) });
      return h("div", {},
        h("p.hint", {}, "Each unit changes mode once, as it begins to move, at no MP cost "
          + "(OCS 5.4). All the changes are one order: all or nothing."
          + (down ? ` ${down} face-down unit(s) cannot move and are not listed.` : "")),
        count,
        h("div.scroll.short", { tabindex: 0, role: "region", "aria-label": "Units and their modes" }, h("table.data.compact.mode-table", {},
          h("thead", {}, h("tr", {}, ["Unit", "At", "Mode now", "A-D-MA", "New mode", "Orientation",
            "Reserve marker"].map((label) => h("th", { scope: "col" }, label)))),
          h("tbody", {}, rows.map((r) => r.row)))),
        h("div.buttons", {},
          button("Change modes", () => {
            const changes = body();
            if (!changes.changes.length) {
              ctx.fail("Choose a new mode for at least one unit.");
              return;
            }
            ctx.send("mode", changes);
          }, { primary: true, name: "change-modes" })));
    },
  },
  {
    id: "release",
    title: "Release reserves",
    applies: (ctx) => ["reaction", "exploitation"].some((step) => awaitedIn(ctx, step))
      && ctx.units.some(([, u]) => u.mode === "reserve"),
    key: (ctx) => JSON.stringify([ctx.position, ctx.units.filter(([, u]) => u.mode === "reserve")
      .map(([id]) => id)]),
    render(ctx) {
      const reaction = Boolean(awaitedIn(ctx, "reaction"));
      const boxes = ctx.units.filter(([, u]) => u.mode === "reserve").sort(byPlace).map(([id, u]) => ({
        id, box: h("input", { type: "checkbox", name: `release-${id}`, value: id }), u }));
      return h("div", {},
        h("p.hint", {}, reaction
          ? "Released now, a unit moves half its MA and may overrun and barrage, but not "
            + "attack in regular combat (OCS 5.7b B)."
          : "Released now, a unit has full movement, barrage and combat (OCS 5.7b A)."),
        h("ul.checks", {}, boxes.map(({ id, box, u }) => h("li", {}, h("label", {}, box,
          ` ${id} `, h("small.muted", {}, `${u.at} · ${u.orientation} side · ${strength(u)}`))))),
        h("div.buttons", {}, button("Release", () => {
          const units = boxes.filter((b) => b.box.checked).map((b) => b.id);
          if (!units.length) {
            ctx.fail("Tick at least one unit to release.");
            return;
          }
          ctx.send("release", { units });
        }, { primary: true, name: "release" })));
    },
  },
  playForm,
  reorgForm,
  {
    id: "done",
    title: "Finish the step",
    place: "done",
    applies: (ctx) => ctx.mine.some((a) => DONE_STEPS.includes(a.step)),
    key: (ctx) => JSON.stringify([ctx.position, lapsing(ctx)]),
    render(ctx) {
      const entry = ctx.mine.find((a) => DONE_STEPS.includes(a.step));
      // The phasing side may be done now and through its later steps of the impulse in
      // one signed `steps` order, disarmed if a unit of it is attacked (issue 20).
      const later = IMPULSE_DONE.slice(IMPULSE_DONE.indexOf(entry.step) + 1);
      const phasing = ctx.state.turn.phasing_side === ctx.me.side
        && IMPULSE_DONE.includes(entry.step) && later.length > 0;
      const through = later[later.length - 1];
      const lapse = lapsing(ctx);
      const warning = lapse.length ? h("p.lapse-warning", { role: "note" },
        h("strong", {}, "Unspent RPs lapse: "),
        lapse.map(([power, n]) => `${power} ${n} RP${n === 1 ? "" : "s"}`).join(", "),
        ". Reorganize first, or finish and let them lapse (11.18).") : null;
      return h("div", {},
        h("p.hint", {}, `Play the ${words(entry.step)} step (on the map, or with the orders `
          + "above), then tell the referee your side is done."),
        warning,
        h("div.buttons", {},
          button(lapse.length ? `Done: let ${lapse.reduce((n, [, x]) => n + x, 0)} RPs lapse`
            : `Done with ${words(entry.step)}`,
          () => ctx.send("done", lapse.length ? { confirm_lapse: true } : {}),
          { primary: true, name: "done" }),
          phasing && !lapse.length ? button(`Done through ${words(through)}`,
            () => ctx.send("steps", { orders: [], through,
              stops: [{ kind: "unit_attacked" }] }),
          { name: "done-through" }) : null));
    },
  },
  {
    id: "consent",
    title: "Rollback: do you agree?",
    applies: (ctx) => Boolean(awaitedIn(ctx, "consent")),
    key: (ctx) => JSON.stringify([ctx.position, ctx.state.rollback?.proposal?.number]),
    render(ctx) {
      const p = ctx.state.rollback?.proposal;
      if (!p) return h("p.hint", {}, "No rollback is proposed.");
      return h("div", {},
        h("p", {}, `The game master proposes to return to turn ${p.turn}, impulse ${p.impulse}, `
          + `undoing ${p.rolls} roll${p.rolls === 1 ? "" : "s"} of revealed dice: `, h("q", {}, p.reason || "no reason given"), "."),
        h("div.buttons", {},
          button("Agree", () => ctx.send("consent", { proposal: p.number, agree: true }),
            { primary: true, name: "consent-yes" }),
          button("Refuse", () => ctx.send("consent", { proposal: p.number, agree: false }),
            { name: "consent-no" })));
    },
  },
  {
    id: "production",
    title: "Production",
    applies: (ctx) => myPending(ctx, "production").length > 0,
    key: (ctx) => JSON.stringify([ctx.position, myPending(ctx, "production")]),
    render(ctx) {
      const rows = myPending(ctx, "production").map((power) => {
        const ps = ctx.state.powers[power] || {};
        const number = (name, value) => h("input", { type: "number", min: 0, max: 10000, step: 1,
          name: `${name}-${power}`, value: value ?? 0, required: true });
        return { power, spent: number("bp_spent", ps.bp_spent_last_turn),
          onRps: number("bp_on_rps", ps.bp_on_rps) };
      });
      const body = () => ({ powers: Object.fromEntries(rows.map((r) => [r.power, {
        bp_spent: Number.parseInt(r.spent.value, 10) || 0,
        bp_on_rps: Number.parseInt(r.onRps.value, 10) || 0 }])) });
      return h("div", {},
        h("p.hint", {}, "BP spent includes the BP spent on RPs; next turn's RPs = spent + on RPs."),
        h("table.compact", {},
          h("thead", {}, h("tr", {}, h("th", {}, "Power"), h("th", {}, "BP spent"),
            h("th", {}, "BP on RPs"))),
          h("tbody", {}, rows.map((r) => h("tr", {}, h("th", {}, r.power),
            h("td", {}, r.spent), h("td", {}, r.onRps))))),
        h("div.buttons", {},
          button("Report production", () => ctx.send("production", body()),
            { primary: true, name: "production" })));
    },
  },
  {
    id: "roll",
    title: "Roll dice",
    applies: (ctx) => ctx.state.game.status === "active",
    render(ctx) {
      const dice = h("input", { name: "dice", value: "2d10", pattern: "[1-9][0-9]?d[1-9][0-9]{0,2}",
        size: 6, required: true });
      const purpose = h("input", { name: "purpose", placeholder: "e.g. attrition in 1432",
        maxlength: 200 });
      return h("form.inline", {
        onsubmit: (event) => {
          event.preventDefault();
          ctx.send("roll", { dice: dice.value.trim(), purpose: purpose.value.trim() });
        },
      }, field("Dice", dice), field("Purpose", purpose),
      h("button", { type: "submit", name: "roll" }, "Roll"));
    },
  },
  {
    id: "standing",
    title: "Standing orders",
    applies: (ctx) => ctx.state.game.status !== "finished" && Boolean(ctx.state.standing),
    key: (ctx) => JSON.stringify(ctx.state.standing.orders),
    render(ctx) {
      const armed = new Map(ctx.state.standing.orders
        .filter((o) => o.side === ctx.me.side).map((o) => [o.step, o]));
      const stopsText = (o) => (o.stops.length ? ` unless ${stopWords(o.stops)}` : "");
      const rows = STANDING_STEPS.map(([step, answer]) => {
        const order = armed.get(step);
        return h("li", { dataset: { standing: step, armed: order ? "yes" : "no" } },
          h("strong", {}, words(step)), ": ",
          order ? `${answer}${stopsText(order)}` : h("span.muted", {}, "asked"), " ",
          order
            ? button("Disarm", () => ctx.send("standing", { step, armed: false }),
              { name: `standing-disarm-${step}` })
            : button("Arm", () => ctx.send("standing", STANDING_DEFAULTS[step]),
              { name: `standing-arm-${step}` }));
      });
      const armAll = async () => {
        for (const [step] of STANDING_STEPS) {
          if (!armed.has(step) && !(await ctx.send("standing", STANDING_DEFAULTS[step]))) return;
        }
      };
      return h("div", {},
        h("p.hint", {}, "The server answers these steps for you, each answer a logged event "
          + "naming your signed order; a stop disarms it and says why."),
        h("ul.standing-list", {}, rows),
        h("div.buttons", {}, button("Arm the defaults", armAll, { name: "standing-arm-all" })));
    },
  },
  {
    id: "generic",
    title: "Any order (kind + JSON body)",
    applies: (ctx) => ctx.state.game.status !== "finished",
    render(ctx) {
      const kind = h("input", { name: "kind", list: "order-kinds", required: true,
        placeholder: "kind" });
      const body = h("textarea", { name: "body", rows: 4, spellcheck: "false" }, "{}");
      return h("details", {},
        h("summary", {}, "Build an order by hand"),
        h("form", {
          onsubmit: (event) => {
            event.preventDefault();
            let parsed;
            try {
              parsed = JSON.parse(body.value || "{}");
            } catch (error) {
              ctx.fail(`The body is not JSON: ${error.message}`);
              return;
            }
            if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
              ctx.fail("The body must be a JSON object");
              return;
            }
            ctx.send(kind.value.trim(), parsed);
          },
        },
        h("datalist#order-kinds", {}, ORDER_KINDS.map((k) => h("option", { value: k }))),
        field("Kind", kind), field("Body (JSON)", body, "Signed for the current turn, impulse and step."),
        h("button", { type: "submit", name: "send-generic" }, "Sign and send")));
    },
  },
];
