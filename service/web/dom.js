// Tiny DOM helpers shared by the page's modules (no framework).

/**
 * h("button.primary#send", {onclick, type: "button", dataset: {x: 1}}, "Send", child...)
 * Attributes whose value is null/undefined/false are left out; `true` sets an empty attribute.
 */
export function h(spec, attrs = {}, ...children) {
  const [, tag = "div", rest = ""] = spec.match(/^([a-z0-9-]*)(.*)$/i);
  const node = document.createElement(tag || "div");
  for (const part of rest.match(/[.#][^.#]+/g) || []) {
    if (part[0] === ".") node.classList.add(part.slice(1));
    else node.id = part.slice(1);
  }
  setAttrs(node, attrs);
  append(node, children);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** svg("circle", {cx: 1, cy: 2, r: 3, class: "x"}, children...) */
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (key === "class") {
      node.className = value;
    } else if (key in node && typeof value !== "string") {
      node[key] = value;
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
}

/** Replace every child of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** "initiative.reroll" -> "initiative reroll"; "final_reorganization" -> "final reorganization" */
export function words(name) {
  return String(name ?? "").replaceAll("_", " ").replaceAll(".", " ");
}

// A standing order's stop condition (docs/api.md, "Standing orders") in words.
const STOPS = {
  unit_attacked: () => "a unit is attacked",
  enemy_adjacent_reserve: () => "an enemy comes next to a Reserve unit",
  hq_out_of_supply: () => "an HQ is out of supply",
  initiative_close: (stop) => `the initiative totals are within ${stop.within ?? 0}`,
  rps_lapse: () => "RPs would lapse",
};

/** A duration in seconds for people: "1 day 2 h", "2 h 30 min", "45 s". */
export function duration(seconds) {
  const parts = [[Math.floor(seconds / 86400), (n) => `${n} day${n === 1 ? "" : "s"}`],
    [Math.floor(seconds / 3600) % 24, (n) => `${n} h`], [Math.floor(seconds / 60) % 60, (n) => `${n} min`],
    [seconds % 60, (n) => `${n} s`]];
  return parts.filter(([n]) => n > 0).map(([n, say]) => say(n)).join(" ") || "0 s";
}

/** "a unit is attacked or an HQ is out of supply" for [{kind}, ...]. */
export function stopWords(stops) {
  return (stops || []).map((s) => (STOPS[s.kind] || (() => words(s.kind)))(s)).join(" or ");
}

export function formatTime(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}
