// The log for people: the events as sentences with the players' names, grouped by turn
// and impulse (collapsible) and then by step, newest first; filtered to my side, the
// dice or the game master; dice drawn as dice; the technical kind and seq only on hover.

import { duration, h, stopWords, words } from "./dom.js";

const DICE_KINDS = new Set(["dice.rolled", "combat.rolled", "combat.resolved", "turn_end.rolled",
  "initiative.rolled", "weather.set"]);
const GM_KINDS = new Set(["game.paused", "game.resumed", "game.ended", "deadlines.set",
  "deadline.passed", "default.forced", "side.dropped_out", "side.restored", "state.edited",
  "player.key_replaced", "seat.reopened", "seat.substituted", "gm.played", "rollback.proposed",
  "rollback.withdrawn", "game.rolled_back", "weather.table_set", "game.imported"]);
const MODE = { combat: "Combat", move: "Move", reserve: "Reserve", strat: "Strat",
  exploit: "Exploit", dg: "DG" };
const D6 = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"];

/** The event's text for people: names for player ids, "allies'" for "allies's", the
 *  mode change in words. */
export function sentence(event, names) {
  const d = event.data || {};
  if (event.kind === "unit.mode_changed" && d.unit && d.mode) {
    const side = (mode, orientation) => (orientation && orientation !== mode
      && !["combat", "move", "strat"].includes(mode) ? ` (${orientation} side up)` : "");
    const from = d.from?.mode ? `${MODE[d.from.mode] || d.from.mode} Mode` : "no mode";
    return `${d.unit} in ${d.hex}: ${from} → ${MODE[d.mode] || d.mode} Mode${side(d.mode, d.orientation)}.`;
  }
  if (event.kind === "deadlines.set" && String(event.text).includes("{'") && d.deadlines) {
    // Logged as a mapping of seconds before issue 30: said in words here.
    const set = Object.entries(d.deadlines).map(([step, s]) => `${words(step)} ${duration(s)}`);
    return `The GM sets step deadlines: ${set.join("; ") || "none"}.${d.reason ? ` ${d.reason}` : ""}`;
  }
  let text = String(event.text || "");
  if (event.kind === "standing.armed" && d.stops?.length) {  // the stops in words
    text = text.replace(/, unless [a-z_, ]+\.$/, `, unless ${stopWords(d.stops)}.`);
  }
  return text
    .replace(/\b[0-9a-f]{32}\b/g, (id) => names[id] || "a player")
    .replace(/\b([A-Za-z_]+s)'s\b/g, "$1'")
    .replace(/ -> /g, " → ");
}

function dieFaces(event) {
  const d = event.data || {};
  const values = Array.isArray(d.values) ? d.values
    : Number.isInteger(d.roll) && event.kind === "weather.set" ? [d.roll]
      : Number.isInteger(d.die) ? [d.die] : null;
  if (!values?.length) return null;
  const faces = d.faces || (/^\d+d(\d+)$/.exec(d.dice || "")?.[1] | 0) || (event.kind === "combat.rolled" ? 6 : 10);
  return h("span.dice", { role: "img", "aria-label": `dice: ${values.join(", ")}` }, values.map((v) =>
    (faces === 6 && v >= 1 && v <= 6
      ? h("span.die.d6", { "aria-hidden": "true" }, D6[v - 1])
      : h("span.die", { "aria-hidden": "true" }, v))));
}

function matches(event, filter, me) {
  if (filter === "all") return true;
  if (filter === "dice") return DICE_KINDS.has(event.kind);
  if (filter === "gm") return event.actor === "gm" || GM_KINDS.has(event.kind);
  const d = event.data || {};
  return d.side === me.side || event.actor === me.player_id
    || (me.powers || []).includes(d.power) || (d.unit && me.units?.has(d.unit));
}

function clock(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? ""
    : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

const groupKey = (e) => `${e.turn}/${e.impulse}`;

/** The log's groups, each a <details> that remembers whether the player closed it. */
export class LogView {
  constructor(root) {
    this.root = root;
    this.closed = new Set(); // groups the player closed
    this.opened = new Set(); // older groups the player opened
  }

  render(events, { names, me, filter }) {
    const newestFirst = [...events].sort((a, b) => b.seq - a.seq);
    const groups = [];
    for (const e of newestFirst) {
      if (!matches(e, filter, me)) continue;
      const key = groupKey(e);
      if (!groups.length || groups[groups.length - 1].key !== key) groups.push({ key, turn: e.turn, impulse: e.impulse, events: [] });
      groups[groups.length - 1].events.push(e);
    }
    const newestKey = newestFirst.length ? groupKey(newestFirst[0]) : null;
    this.root.replaceChildren(...(groups.length ? groups.map((g) => this.group(g, names, g.key === newestKey))
      : [h("p.hint", {}, "Nothing to show.")]));
  }

  group(g, names, newest) {
    const open = newest ? !this.closed.has(g.key) : this.opened.has(g.key);
    const title = g.impulse ? `Turn ${g.turn}, impulse ${g.impulse}` : `Turn ${g.turn}${g.turn ? ", initiative" : ": setting up"}`;
    const steps = [];
    for (const e of g.events) {
      if (!steps.length || steps[steps.length - 1].step !== e.step) steps.push({ step: e.step, events: [] });
      steps[steps.length - 1].events.push(e);
    }
    return h("details.log-group", { open, dataset: { group: g.key }, ontoggle: (event) => {
      const isOpen = event.target.open;
      if (newest) {
        if (isOpen) this.closed.delete(g.key); else this.closed.add(g.key);
      } else if (isOpen) this.opened.add(g.key); else this.opened.delete(g.key);
    } },
    h("summary", {}, title, h("small.muted", {}, ` · ${g.events.length} event${g.events.length > 1 ? "s" : ""}`)),
    steps.map((s) => h("section.log-step", {},
      h("h3.log-step-title", {}, words(s.step)),
      h("ol.log-events", {}, s.events.map((e) => h(`li.event${e.sealed ? ".sealed" : ""}${e.rolled_back ? ".rolled-back" : ""}`, {
        dataset: { seq: e.seq, kind: e.kind },
        title: `${e.kind} · #${e.seq} · ${new Date(e.at).toLocaleString()}`,
      },
      h("span.event-text", {}, sentence(e, names)), " ", dieFaces(e),
      h("time", { datetime: e.at }, clock(e.at))))))));
  }
}
