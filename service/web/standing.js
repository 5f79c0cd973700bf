// Standing orders (issue 20, issue 30; docs/api.md "Standing orders"): each step a player
// may arm, what the server answers there for the side, and the default order the page
// arms. Each answers only what its name says: the combat and exploitation orders only
// where the side is not phasing (never its own attacks); the final reorganization spends
// the RPs (the cheapest way for every unit, or the side's plan) before it is done, and by
// default asks rather than let RPs lapse. The panel says what an armed order would let
// lapse, with the figure. A combat's questions (docs/api.md "Combat choices") are
// answered ahead only when the player arms their orders here, one answer each: "Arm the
// defaults" leaves them to the player.

import { h, stopWords, words } from "./dom.js";

export const STANDING_STEPS = [
  ["initiative.reroll", "never demand a reroll"],
  ["reaction", "release nothing when your turn to react comes"],
  ["combat", "done where your side is not phasing (never your own attacks)"],
  ["exploitation", "done where your side is not phasing (never your own)"],
  ["final_reorganization", "spend RPs the cheapest way for every unit, then done"],
];

export const STANDING_DEFAULTS = {
  "initiative.reroll": { step: "initiative.reroll", demand: false,
    stops: [{ kind: "initiative_close", within: 1 }] },
  reaction: { step: "reaction", stops: [{ kind: "enemy_adjacent_reserve" },
    { kind: "unit_attacked" }] },
  combat: { step: "combat", stops: [{ kind: "unit_attacked" }] },
  exploitation: { step: "exploitation", stops: [{ kind: "unit_attacked" }] },
  final_reorganization: { step: "final_reorganization", spend: "cheapest",
    stops: [{ kind: "hq_out_of_supply" }, { kind: "rps_lapse" }] },
};

// The kinds of combat question a standing order answers: each answer in words, and the
// care that asks the side instead (RULES-NOTES 32).
export const CHOICE_STEPS = [
  ["combat.losses", { default: "the weakest units take the step losses (the default)" },
    "a unit would be eliminated"],
  ["combat.retreat", { retreat: "retreat as far as the result allows, entering no enemy ZOC",
    losses: "take the retreat options as step losses" }, "no retreat path avoids every enemy ZOC"],
  ["combat.advance", { advance: "every attacker that may advances", stay: "nobody advances" },
    "the advance would overstack the hex"],
];

const rpList = (pairs) => pairs.map(([power, n]) => `${power} ${n}`).join(", ");
const sum = (pairs) => pairs.reduce((n, [, x]) => n + x, 0);

/** [power, RPs] of my side's powers in a reorganization step that grants them: BP spent
 *  last turn (with BP on RPs) + BP on RPs (RULES-NOTES 8), or what is left now in one. */
export function rpsToSpend(ctx) {
  const { state, me } = ctx;
  const inStep = state.reorg?.in_step;
  return Object.entries(state.powers).filter(([, p]) => p.side === me.side)
    .map(([id, p]) => [id, inStep ? p.rps : (p.bp_spent_last_turn ?? 0) + (p.bp_on_rps ?? 0)])
    .filter(([, n]) => n > 0);
}

/** What an armed final-reorganization order does with the RPs; without its `rps_lapse`
 *  stop, what it would let lapse, with the figure. */
function finalWords(ctx, order) {
  const rps = rpsToSpend(ctx);
  const asks = order.stops.some((s) => s.kind === "rps_lapse");
  const ways = [order.plan?.length ? "your plan" : null,
    order.spend === "cheapest" ? "the cheapest way for every unit" : null].filter(Boolean);
  const spends = ways.length ? `spend RPs (${ways.join(", then ")}), then done` : "done";
  if (asks || !rps.length) return spends;
  return h("span.lapse-warning.inline", { role: "note" }, ways.length
    ? `${spends}: what is left of ${sum(rps)} RPs (${rpList(rps)}) lapses`
    : `done: lets ${sum(rps)} RPs lapse (${rpList(rps)})`);
}

export const standingForm = {
  id: "standing",
  title: "Standing orders",
  applies: (ctx) => ctx.state.game.status !== "finished" && Boolean(ctx.state.standing),
  key: (ctx) => JSON.stringify([ctx.state.standing.orders, rpsToSpend(ctx)]),
  render(ctx) {
    const armed = new Map(ctx.state.standing.orders
      .filter((o) => o.side === ctx.me.side).map((o) => [o.step, o]));
    const unless = (o) => (o.stops.length ? `, unless ${stopWords(o.stops)}` : "");
    const rows = STANDING_STEPS.map(([step, answer]) => {
      const order = armed.get(step);
      const said = order && step === "final_reorganization" ? finalWords(ctx, order) : answer;
      return h("li", { dataset: { standing: step, armed: order ? "yes" : "no" } },
        h("strong", {}, words(step)), ": ",
        order ? [said, unless(order)] : h("span.muted", {}, `asked (armed: ${answer})`), " ",
        order
          ? h("button", { type: "button", name: `standing-disarm-${step}`,
            onclick: () => ctx.send("standing", { step, armed: false }) }, "Disarm")
          : h("button", { type: "button", name: `standing-arm-${step}`,
            onclick: () => ctx.send("standing", STANDING_DEFAULTS[step]) }, "Arm"));
    });
    const tables = Object.values(ctx.state.game.combat_results || {}).includes("table");
    const choices = tables ? CHOICE_STEPS.map((c) => choiceRow(ctx, c, armed.get(c[0]))) : [];
    const armAll = async () => {
      for (const [step] of STANDING_STEPS) {
        if (!armed.has(step) && !(await ctx.send("standing", STANDING_DEFAULTS[step]))) return;
      }
    };
    return h("div", {},
      h("p.hint", {}, "The server answers these steps for you, each answer a logged event naming "
        + "your signed order; a stop disarms it and says why. None ends your own attacks, and "
        + "none lets RPs lapse without asking you."),
      h("ul.standing-list", {}, rows),
      h("div.buttons", {}, h("button", { type: "button", name: "standing-arm-all", onclick: armAll },
        "Arm the defaults")),
      choices.length ? [h("p.hint", {}, "A combat's questions: answered for you only if you "
        + "arm an answer here (the defaults leave them to you); asked instead when the answer "
        + "would cost more than it says."),
      h("ul.standing-list.standing-choices", {}, choices)] : null);
  },
};

/** A kind of combat question: armed, its answer in words and its care; else a choice of
 *  answer to arm. */
function choiceRow(ctx, [step, answers, care], order) {
  const name = words(step).replace("combat ", "");
  const label = `Combat question: ${name}`;
  if (order) {
    return h("li", { dataset: { standing: step, armed: "yes" } }, h("strong", {}, label), ": ",
      `${answers[order.answer] ?? words(order.answer)}, unless ${care} (then you are asked) `,
      h("button", { type: "button", name: `standing-disarm-${step}`,
        onclick: () => ctx.send("standing", { step, armed: false }) }, "Disarm"));
  }
  const choices = Object.entries(answers);
  const pick = choices.length > 1
    ? h("select", { name: `standing-answer-${step}`, "aria-label": `${label}: the answer` },
      choices.map(([value, said]) => h("option", { value }, said)))
    : null;
  const answer = () => (pick ? pick.value : choices[0][0]);
  return h("li", { dataset: { standing: step, armed: "no" } }, h("strong", {}, label), ": ",
    h("span.muted", {}, pick ? "asked" : `asked (armed: ${choices[0][1]})`), " ", pick, " ",
    h("button", { type: "button", name: `standing-arm-${step}`,
      onclick: () => ctx.send("standing", { step, answer: answer() }) }, "Arm"));
}
