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
//         showError(error), events() (the log as loaded), redrawMap() }.
// To add an order kind, add an entry; the generic form at the end sends any kind with a
// JSON body meanwhile.

import { airForm } from "./air.js";
import { combatChoiceForm } from "./combat.js";
import { h, words } from "./dom.js";
import { byPlace, modeForm, strength } from "./modes.js";
import { playForm } from "./play.js";
import { reorgForm } from "./reorg.js";
import { rpsToSpend, standingForm } from "./standing.js";

export const ACTIONS = ["pass", "land", "air", "naval", "combined"];
export const CHIT_KINDS = ["air", "land", "naval", "combined", "reorganize_hqs"];
export const DONE_STEPS = ["action", "reaction", "combat", "exploitation", "reorganization",
  "final_reorganization"];
// The phasing side's steps of an impulse a `steps` order may be done through.
const IMPULSE_DONE = ["action", "reaction", "combat", "exploitation", "reorganization"];
export const ORDER_KINDS = ["declare", "initiative.reroll", "initiative.choose", "done",
  "production", "roll", "mode", "release", "report", "reorg", "consent", "standing", "steps",
  "combat.choose", "air.begin", "air.patrol", "air.fly", "air.intercept", "air.choose"];

const awaitedIn = (ctx, step) => ctx.mine.find((a) => a.step === step);

/** [power, RPs] of my powers whose RPs lapse when my side finishes this reorganization
 *  step (the view's `reorg.rps_lapse_on_done`). */
function lapsing(ctx) {
  if (!ctx.mine.some((a) => ["reorganization", "final_reorganization"].includes(a.step))) return [];
  return Object.entries(ctx.state.reorg?.rps_lapse_on_done || {})
    .filter(([power, n]) => n > 0 && ctx.me.powers.includes(power));
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
  modeForm,
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
  combatChoiceForm,
  airForm,
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
      // Done through the reorganization step: asked there rather than let RPs lapse.
      const later_rps = phasing && later.includes("reorganization") ? rpsToSpend(ctx) : [];
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
              stops: [{ kind: "unit_attacked" }, { kind: "rps_lapse" }] }),
          { name: "done-through" }) : null),
        later_rps.length ? h("p.hint.through-note", {}, `“Done through” stops at your `
          + `reorganization step if your side has units face down then: its `
          + `${later_rps.reduce((n, [, x]) => n + x, 0)} RPs (${later_rps.map(([p, n]) => `${p} ${n}`)
            .join(", ")}) are yours to spend, and you are asked rather than let them lapse. It `
          + "stops too if a unit of yours is attacked.") : null);
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
    // Only where the referee takes a roll from my side now (its awaiting entry's orders):
    // never while a combat's question waits, nor in a step whose dice are the server's.
    applies: (ctx) => ctx.mine.some((a) => a.orders?.includes("roll")),
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
  standingForm,
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
