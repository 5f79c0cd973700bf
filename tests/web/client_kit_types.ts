// A TypeScript frontend's view of the API (tests/web/test_client_types.py compiles it
// with `tsc --noEmit` against the types generated from the app's OpenAPI document, and
// compiles it again with one field name misspelt, which must fail). Each misspelling
// the test makes is marked with a comment naming it.

import type { components } from "./wif-api";
import { makeOrder, signOrder, WifClient } from "./wif.js";

type Schemas = components["schemas"];

const head = "0".repeat(64);

// A reorganization: all items or none, paid by one power.
const reorg: Schemas["ReorgOrder"] = {
  game: "7f3a", player: "0123456789abcdef0123456789abcdef", seq: 1, prev: head,
  turn: 1, impulse: 2, step: "reorganization", kind: "reorg",
  body: { power: "germany", items: [{ method: "primary", unit: "ger-arm-1", source: "h30" }] },
};

// A mode change in the action step.
const mode: Schemas["ModeOrder"] = {
  game: "7f3a", player: "0123456789abcdef0123456789abcdef", seq: 2, prev: head,
  turn: 1, impulse: 2, step: "action", kind: "mode",
  body: { changes: [{ unit: "ger-hq-1", mode: "move", orientation: "move" }] }, // misspell: mode
};

const envelopes: Schemas["SignedOrder"][] = [
  { order: reorg, signature: "a".repeat(86) },
  { order: mode, signature: "a".repeat(86) },
];

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

/** The client kit (wif.js, typed by its JSDoc) signs and sends the same orders. */
export async function play(client: WifClient, keys: CryptoKeyPair): Promise<number> {
  const summary = await client.summary();
  const state = await client.state();
  describe(summary, state);
  const answer = await client.order("mode", mode.body);
  const order = makeOrder({ game: "7f3a", player: reorg.player, seq: 3,
    position: summary.position, prev: summary.head.hash, kind: "reorg", body: reorg.body });
  const envelope: Schemas["SignedOrder"] = await signOrder(keys, order) as Schemas["SignedOrder"];
  return envelopes.length + answer.events.length + envelope.signature.length;
}
