// Where a combat's losers may retreat, as the referee decides it (docs/api.md, `report`;
// service/rules/modes/results.py `_retreat`, with the map engine's stance of
// service/rules/board/layout.py): hex by hex into a hex next to the last one, never
// twice into one (the hex the retreat starts from included), never into enemy units or
// neutral territory (OCS 5.10a). A hex in an enemy ZOC turns the hex DG (OCS 5.10a C);
// units that were DG already as they enter it lose a step, one unit per such hex, named
// by the player in `losses` (OCS 5.10a); Strat Mode units entering it are eliminated
// (OCS 5.8a). The second hex turns the hex DG too (OCS 5.10a B). A unit may be named
// for each such hex it enters (one step a hex: a lone DG unit entering two loses two).
//
// Everything comes from what the page already has: the scenario (from the export: the
// map's hexes and who controls them, the powers' wars, the units' counters) and the state
// view (units where they are and in which mode, the powers' neutrality, the GM's map
// edits). No DOM here: Node runs this module in the tests, against the referee's answers.

const AXIAL = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
// service/rules/board/grid.py: exerts_zoc (RULES-NOTES 28, OCS 5.5e, OCS 5.9c).
const NO_ZOC_TYPES = new Set(["SUPPLY", "HEDGEHOG", "TRANSPORT", "REPL"]);
const ZOC_MODES = new Set(["combat", "exploit"]);
const TRANSPORT_KINDS = new Set(["transport", "organic_truck"]);

export const FRIENDLY = "friendly";
export const OPEN = "open";
export const ENEMY = "enemy";
export const NEUTRAL = "neutral";

/** Whether a unit with counter `spec` exerts a ZOC in `mode` (the referee's exerts_zoc). */
export function exertsZoc(spec, mode, orientation) {
  if (!spec || spec.class !== "land" || NO_ZOC_TYPES.has(spec.type)) return false;
  if (spec.ocs && (spec.ocs.kind ?? "combat") !== "combat") return false;
  if (mode === "exploit") return orientation !== "move";
  return mode === null || mode === undefined || ZOC_MODES.has(mode);
}

/** OCS 5.1: ground units use modes, but supply units and hedgehogs. */
const usesModes = (spec) => Boolean(spec && spec.class === "land" && spec.ocs && spec.ocs.kind !== "hedgehog");
const isTransport = (spec) => Boolean(spec?.ocs && TRANSPORT_KINDS.has(spec.ocs.kind));

/** The units of a state view as the retreat rules read them: {id: {power, at, mode,
 *  orientation}} (a copy, which `afterResults` and `enter` change). */
export function unitsOf(state) {
  return Object.fromEntries(Object.entries(state.units || {}).map(([id, u]) => [id,
    { power: u.power, at: u.at, mode: u.mode ?? null, orientation: u.orientation ?? null }]));
}

/** The map as the referee reads it for a retreat: hexes, who controls them (the GM's
 *  edits applied), the powers' wars and neutrality, the units' counters. */
export class Ground {
  constructor(scenario, state) {
    const hexes = scenario?.map?.hexes || [];
    this.hexes = new Map(hexes.map((x) => [x.id, x]));
    this.byAxial = new Map(hexes.map((x) => [`${x.q},${x.r}`, x.id]));
    const edits = state.map_edits || {};
    this.controller = new Map(hexes.map((x) => [x.id, x.id in edits ? edits[x.id].controller ?? null
      : x.controller ?? null]));
    this.majors = new Map((scenario?.powers || []).map((p) => [p.id, p.id]));
    for (const m of scenario?.minors || []) this.majors.set(m.id, m.controller);
    for (const [minor, controller] of Object.entries(state.minors || {})) this.majors.set(minor, controller);
    this.powers = new Map((scenario?.powers || []).map((p) => [p.id, p]));
    this.neutral = new Set(Object.entries(state.powers || {}).filter(([, p]) => p.neutral).map(([id]) => id));
    const views = state.units || {};
    this.specs = new Map((scenario?.units || []).map((u) => [u.id, u]));
    // A unit the scenario does not list: its counter as the view tells it.
    for (const [id, u] of Object.entries(views)) {
      if (!this.specs.has(id)) {
        this.specs.set(id, { class: u.class, type: u.type, ocs: u.effective ? { kind: "combat" } : null });
      }
    }
  }

  major(power) {
    return this.majors.get(power) ?? power;
  }

  neighbours(hexId) {
    const here = this.hexes.get(hexId);
    if (!here) return [];
    return AXIAL.map(([dq, dr]) => this.byAxial.get(`${here.q + dq},${here.r + dr}`)).filter(Boolean);
  }

  /** The map as `power` sees it with `units` where they are: the hexes holding enemy
   *  land units, the hexes in an enemy ZOC (a ZOC-exerting unit's hex and its
   *  neighbours), and each hex's territory (Board.stance). */
  stance(power, units) {
    const major = this.major(power);
    const me = this.powers.get(major);
    const enemies = new Set(me?.at_war_with || []);
    const side = me?.side;
    const friends = this.neutral.has(major) ? new Set([major])
      : new Set([...this.powers.values()].filter((p) => p.side === side && !this.neutral.has(p.id))
        .map((p) => p.id));
    const enemyLand = new Set();
    const zoc = new Set();
    for (const [id, u] of Object.entries(units)) {
      const spec = this.specs.get(id);
      if (spec?.class !== "land" || !this.hexes.has(u.at) || !enemies.has(this.major(u.power))) continue;
      enemyLand.add(u.at);
      if (exertsZoc(spec, u.mode, u.orientation)) {
        zoc.add(u.at);
        for (const n of this.neighbours(u.at)) zoc.add(n);
      }
    }
    const territory = (hexId) => {
      const c = this.controller.get(hexId);
      if (c === null || c === undefined) return OPEN;
      const m = this.major(c);
      return friends.has(m) ? FRIENDLY : enemies.has(m) ? ENEMY : NEUTRAL;
    };
    return { enemyLand, zoc, territory };
  }

  /** Every combat unit in `hexId` turns DG; Organic Trucks in Reserve lose the marker
   *  (OCS 5.10, OCS 5.10a, OCS 5.10c). Changes `units`. */
  disorganize(units, hexId) {
    for (const [id, u] of Object.entries(units)) {
      const spec = this.specs.get(id);
      if (u.at !== hexId || !spec?.ocs || !usesModes(spec)) continue;
      if (isTransport(spec)) {
        if (u.mode === "reserve") u.mode = u.orientation;
      } else {
        u.mode = "dg";
      }
    }
  }
}

/** Where units leaving `from` may retreat next, having entered `visited` (the start
 *  included): {offered: [{hex, zoc}], refused: [{hex, why}]}, in the map's order.
 *  `movers`: the retreating units still on the map; the first one's power decides who
 *  is an enemy and what is neutral, as for the referee. */
export function nextHexes(ground, units, movers, from, visited) {
  const offered = [];
  const refused = [];
  if (!movers.length) return { offered, refused };
  const stance = ground.stance(units[movers[0]].power, units);
  for (const hex of ground.neighbours(from)) {
    if (visited.has(hex)) refused.push({ hex, why: "retreated from" });
    else if (stance.enemyLand.has(hex)) refused.push({ hex, why: "enemy units" });
    else if (stance.territory(hex) === NEUTRAL) refused.push({ hex, why: "neutral territory" });
    else offered.push({ hex, zoc: stance.zoc.has(hex) });
  }
  return { offered, refused };
}

/** The retreating units enter `hex`, the `k`-th hex of the retreat (1 or more), as the
 *  referee applies it. Changes `units`; answers {zoc, owed: units that were DG and so
 *  owe a step (one of them loses it), eliminated: Strat units (OCS 5.8a)}. */
export function enter(ground, units, movers, hex, k) {
  const present = movers.filter((id) => units[id]);
  const zoc = present.length > 0 && ground.stance(units[present[0]].power, units).zoc.has(hex);
  const wasDg = present.filter((id) => units[id].mode === "dg");
  for (const id of present) units[id].at = hex;
  const eliminated = [];
  if (zoc) {
    for (const id of present) {
      if (units[id].mode === "strat") {
        eliminated.push(id);
        delete units[id];
      }
    }
  }
  const owed = zoc ? wasDg.filter((id) => units[id]) : [];
  if (k === 2 || zoc) ground.disorganize(units, hex);
  return { zoc, owed, eliminated };
}

/** A whole retreat, hex by hex: {steps: [{hex, zoc, owed, eliminated}], refusal} where
 *  the refusal (or null) says which hex the referee refuses and why, and a step's `owed`
 *  the units that may lose its step (one of them does). Changes `units`. */
export function retreat(ground, units, movers, path) {
  const present = movers.filter((id) => units[id]);
  const starts = new Set(present.map((id) => units[id].at));
  if (starts.size !== 1) return { steps: [], refusal: { hex: null, why: "the units start in different hexes" } };
  let from = [...starts][0];
  const visited = new Set([from]);
  const steps = [];
  for (const [i, hex] of path.entries()) {
    const left = present.filter((id) => units[id]);
    if (!left.length) return { steps, refusal: { hex, why: "no unit is left to retreat" } };
    const { refused } = nextHexes(ground, units, left, from, visited);
    const bad = refused.find((r) => r.hex === hex);
    if (bad) return { steps, refusal: bad };
    if (!ground.neighbours(from).includes(hex)) return { steps, refusal: { hex, why: `not next to ${from}` } };
    steps.push({ hex, ...enter(ground, units, left, hex, i + 1) });
    visited.add(hex);
    from = hex;
  }
  return { steps, refusal: null };
}

/** `units` after the results reported before a retreat in the same combat item, in
 *  order (the referee applies them in order): DG, eliminations, advances, Exploit
 *  markers, earlier retreats; any result on the defenders removes their Reserve markers
 *  (OCS 5.7d). Changes `units`. */
export function afterResults(ground, units, combat, results) {
  let contact = false;
  const touch = (names) => {
    if (contact || combat.by === "barrage" || !names.some((u) => combat.defenders.includes(u))) return;
    contact = true;
    for (const id of combat.defenders) if (units[id]?.mode === "reserve") units[id].mode = units[id].orientation;
  };
  for (const r of results) {
    const names = r.units || (r.unit ? [r.unit] : []);
    if (r.kind === "dg") {
      if ((r.hex ?? combat.hex) === combat.hex) touch(combat.defenders);
      ground.disorganize(units, r.hex ?? combat.hex);
    } else if (["loss", "shattered"].includes(r.kind)) {
      touch(names);
    } else if (r.kind === "ignored") {
      touch(combat.defenders);
    } else if (r.kind === "eliminated") {
      touch(names);
      for (const id of names) delete units[id];
    } else if (r.kind === "advance") {
      for (const id of names) if (units[id]) units[id].at = combat.hex;
    } else if (r.kind === "exploit") {
      for (const id of names) if (units[id]) units[id].mode = "exploit";
    } else if (r.kind === "retreat") {
      touch(names);
      retreat(ground, units, names, r.path || []);
    }
  }
  return units;
}
