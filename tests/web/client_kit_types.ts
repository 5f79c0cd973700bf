// A TypeScript frontend plays a whole turn with the API's generated types and the client
// kit (tests/web/test_client_types.py compiles it with a strict `tsc --noEmit`, and finds
// no cast in it: no `as`, no `!`; it compiles it again with one field name misspelt,
// which must fail). Each misspelling the test makes is marked with a comment naming it.

import type { components, paths } from "./wif-api";
import { generateKeyPair, WifClient, WifProblem } from "./wif.js";

type Schemas = components["schemas"];
type Created = paths["/v1/games"]["post"]["responses"][201]["content"]["application/json"];
type Awaited = Schemas["AwaitingEntry"];

const SIDES = ["axis", "allies", "communists"];

/** The operator creates a game: the creation's body is typed, and so is its answer. */
export async function create(base: string): Promise<Created> {
  const body: Schemas["CreateGame"] = {
    name: "Typed", scenario: "dno-demo",
    dice: { mode: "scripted", script: { initiative: [10, 1, 1] } },
  };
  const r = await fetch(`${base}/v1/games`, {
    method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" },
  });
  const created: Created = await r.json();
  return created;
}

/** A mode change for the first unit of the side that has a legal one. */
function modeChange(options: Schemas["SideOptions"]): Schemas["ModeBody"] | null {
  for (const [unit, choices] of Object.entries(options.units)) {
    const legal = choices.modes.legal[0];
    if (legal) {
      return { changes: [{ unit, mode: legal.mode, orientation: legal.orientation ?? undefined }] };
    }
  }
  return null;
}

/** The first legal way to reorganize one of the side's units, as a `reorg` body. */
function reorganization(plan: Schemas["ReorgPlan"]): Schemas["ReorgBody"] | null {
  const option = plan.options.find((o) => o.legal && o.affordable);
  return option ? { power: plan.power, items: [option.item] } : null;
}

/** What a side answers to the step it is awaited for: the kit signs it, typed by kind. */
async function answer(client: WifClient, entry: Awaited): Promise<Schemas["Accepted"]> {
  switch (entry.step) {
    case "initiative.reroll":
      return client.order("initiative.reroll",
        { demand: entry.choices?.demand?.[1] ?? false }); // misspell: demand
    case "initiative.choose":
      return client.order("initiative.choose", // misspell: kind
        { position: entry.choices?.position?.[0] ?? "first" });
    case "declare": {
      const actions: Schemas["DeclareBody"]["actions"] = {};
      for (const power of entry.powers) actions[power] = "land";
      return client.order("declare", { actions });
    }
    case "action": {
      const options: Schemas["SideOptions"] = await client.request(
        client.gamePath(`/options?side=${entry.side}`));
      const change = modeChange(options);
      if (change) await client.order("mode", change);
      await client.order("roll", { dice: "2d10", purpose: "attrition" });
      await client.order("report", { moves: [] });
      return client.order("done", {});
    }
    case "reorganization":
    case "final_reorganization": {
      const unit = Object.keys((await client.state()).units)[0];
      if (unit) {
        const plan: Schemas["ReorgPlan"] = await client.request(
          client.gamePath(`/reorg/options?unit=${encodeURIComponent(unit)}`));
        const body = reorganization(plan);
        if (body) await client.order("reorg", body);
      }
      return client.order("done", { confirm_lapse: true });
    }
    case "production": {
      const powers: Schemas["ProductionBody"]["powers"] = {};
      for (const power of entry.powers) powers[power] = { bp_spent: 10, bp_on_rps: 2 };
      return client.order("production", { powers });
    }
    case "consent":
      return client.order("consent", { proposal: 1, agree: true });
    default:
      return client.order("done", {});
  }
}

/** What a refusal tells: its receipt, where the game is, who is awaited, what is offered. */
export function refusal(problem: Partial<Schemas["Problem"]>): string[] {
  const lines = [`${problem.status} ${problem.code}: ${problem.detail}`];
  const signed = problem.receipt;
  if (signed) lines.push(`receipt ${signed.receipt.result} seq ${signed.receipt.seq}`);
  if (problem.current) lines.push(`now ${problem.current.turn}.${problem.current.step}`);
  for (const entry of problem.awaiting ?? []) lines.push(`${entry.side}: ${entry.orders}`);
  for (const place of problem.choices?.position ?? []) lines.push(`may choose ${place}`);
  for (const item of problem.errors ?? []) lines.push(`${item.path} ${item.unit?.name}`);
  return lines;
}

/** Who must act, and every unit's mode, as a frontend would show them. */
export function describe(summary: Schemas["Summary"], state: Schemas["StateAnswer"]): string[] {
  const awaited = summary.awaiting.map( // misspell: awaiting
    (entry) => `${entry.side} (${entry.powers.join(", ")}): ${entry.step}, ${entry.orders}`);
  const modes = Object.entries(state.units).map(
    ([id, unit]) => `${id} in ${unit.at}: ${unit.mode ?? "no mode"}`); // misspell: unit.mode
  const chits = Object.entries(state.powers).map(
    ([id, power]) => `${id}: ${power.rps} RPs, ${power.chits} chits`); // misspell: chits
  return [...awaited, ...state.awaiting.map((entry) => entry.side), ...modes, ...chits];
}

/** What the log (or the stream) says, read by kind: each event's `data` is its kind's. */
export function chronicle(events: Schemas["EventRecord"][]): string[] {
  const lines: string[] = [];
  for (const event of events) {
    switch (event.kind) {
      case "power.declared":
        lines.push(`${event.data.power} ${event.data.action}`); // misspell: event.data
        if (event.data.chit) lines.push(`chit ${event.data.chit.kind} by ${event.data.chit.hq}`);
        break;
      case "dice.rolled":
        lines.push(`${event.data.purpose}: ${event.data.values.join(", ")}`);
        break;
      case "initiative.reroll_answered":
        lines.push("sealed" in event.data ? `${event.data.side}: sealed`
          : `${event.data.side}: ${event.data.demand ? "reroll" : "no reroll"}`);
        break;
      case "turn_end.rolled":
        lines.push(`${event.data.total}/${event.data.threshold}: ${event.data.ends}`);
        break;
      case "unit.moved":
        lines.push(`${event.data.unit} ${event.data.from} -> ${event.data.to} (${event.data.mp})`);
        break;
      default:
        lines.push(event.text);
    }
  }
  return lines;
}

/** What a webhook is sent, read by `type` (the OpenAPI document's `webhooks`). */
export function notified(payload: Schemas["Message"]["payload"]): string {
  switch (payload.type) {
    case "game.your_move":
      return `${payload.data.awaiting.side}: ${payload.data.awaiting.step} by ${payload.data.deadline}`;
    case "game.events":
      return `${payload.data.first_seq}-${payload.data.last_seq}: ${payload.data.kinds.join(", ")}`;
    case "game.deadline_reminder":
      return `${payload.data.elapsed} of ${payload.data.awaiting.step}`;
    case "game.deadline_notice":
      return payload.data.awaiting.map((entry) => entry.side).join(", ");
  }
}

/** A HQ's move, written out by hand as a mode order's body. */
export const move: Schemas["ModeBody"] = {
  changes: [{ unit: "ger-hq-1", mode: "move", orientation: "move" }], // misspell: mode
};

/** Every side joins, each with a key of its own; then the first turn is played to its end
 * (each side answering what it is awaited for; a refusal is read and the side is done),
 * and its log is read back. */
export async function playTurn(base: string): Promise<Schemas["EventRecord"][]> {
  const created = await create(base);
  const clients = new Map<string, WifClient>();
  for (const side of SIDES) {
    const keys = await generateKeyPair();
    clients.set(side, await WifClient.join(base, {
      game: created.id, side, joinCode: created.join_codes[side] ?? "", name: side, keys,
    }));
  }
  const gm = new WifClient(base, created.gm_token, { game: created.id });
  let summary: Schemas["Summary"] = await gm.summary();
  const receipts: Schemas["SignedReceipt"][] = [];
  while (summary.turn === 1 && summary.status === "active") {
    const entry = summary.awaiting[0];
    const client = entry ? clients.get(entry.side) : undefined;
    if (!entry || !client) break;
    try {
      receipts.push((await answer(client, entry)).receipt);
    } catch (error) {
      if (!(error instanceof WifProblem)) throw error;
      refusal(error.problem);
      receipts.push(...(error.problem.receipt ? [error.problem.receipt] : []));
      await client.order("done", {});
    }
    summary = await gm.summary();
  }
  describe(summary, await gm.state());
  const log: Schemas["LogPage"] = await gm.request(gm.gamePath("/log?limit=1000"));
  chronicle(log.events);
  const deliveries: Schemas["Deliveries"] = await gm.request(gm.gamePath("/webhook/deliveries"));
  deliveries.messages.map((message) => notified(message.payload));
  return log.events;
}
