// The map: the scenario's axial hexes (pointy top) as plain SVG. Terrain is shaded and
// patterned, units are drawn as wargame counters (nationality colour, unit-type symbol,
// strength, mode marker, face down and DG shown), stacks fan out when hovered or
// selected, and overlays show supply lines, zones of control, where a selected unit may
// move (with the cost) and what it may attack. Pan and zoom by mouse (drag, wheel),
// touch (drag, pinch) and keyboard (arrows move a hex cursor, Enter selects, + and -
// zoom, 0 fits, shift+arrows pan); the hex under the cursor is announced.
//
// Plain SVG and no library: a few hundred hexes and counters redraw in milliseconds,
// the page has no build step, and pan and zoom are a viewBox.

import { svg } from "./dom.js";

const SIZE = 20; // hex radius in SVG units
const SQRT3 = Math.sqrt(3);
const C = 19; // counter side

export const SIDE_COLORS = { axis: "#4a4a4a", allies: "#2563a8", communists: "#b3261e" };

/** Nationality colours of the counters, and the text colour on them. */
export const POWER_COLORS = {
  germany: ["#6b7078", "#fff"], italy: ["#7a8a45", "#fff"], japan: ["#e0b73a", "#1f2328"],
  hungary: ["#8a7560", "#fff"], romania: ["#a08348", "#fff"], finland: ["#9fb6cc", "#1f2328"],
  cw: ["#c9a46a", "#1f2328"], usa: ["#4f7f4a", "#fff"], france: ["#5a7fb8", "#fff"],
  nationalist_china: ["#3a7f9f", "#fff"], ussr: ["#b23a3a", "#fff"],
  communist_china: ["#d9534f", "#fff"], mongolia: ["#b8734a", "#fff"],
};

export const TERRAIN = {
  clear: { color: "#eef3dc", label: "clear" },
  forest: { color: "#b5d6a1", label: "forest", pattern: "forest" },
  jungle: { color: "#86ba7c", label: "jungle", pattern: "forest" },
  swamp: { color: "#bfd9cf", label: "swamp", pattern: "swamp" },
  marsh: { color: "#bfd9cf", label: "marsh", pattern: "swamp" },
  mountain: { color: "#d2bf9f", label: "mountain", pattern: "mountain" },
  hills: { color: "#e0d5aa", label: "hills", pattern: "mountain" },
  desert: { color: "#f4e5b8", label: "desert", pattern: "desert" },
  tundra: { color: "#e3ebee", label: "tundra" },
  urban: { color: "#cfc9d6", label: "urban", pattern: "urban" },
};

const MODE_MARKS = { combat: "C", move: "M", reserve: "R", strat: "S", exploit: "E" };
const MODE_NAMES = { combat: "Combat", move: "Move", reserve: "Reserve", strat: "Strat",
  exploit: "Exploit", dg: "DG" };

export function powerColors(power, side) {
  return POWER_COLORS[power] || [SIDE_COLORS[side] || "#777", "#fff"];
}

function centre(q, r) {
  return [SIZE * SQRT3 * (q + r / 2), SIZE * 1.5 * r];
}

function corners(x, y, size = SIZE) {
  const points = [];
  for (let i = 0; i < 6; i += 1) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    points.push(`${(x + size * Math.cos(angle)).toFixed(1)},${(y + size * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

// Axial neighbours, and the one the keyboard's arrows move to (pointy-top hexes).
const NEIGHBOURS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
const ARROWS = { ArrowRight: [[1, 0]], ArrowLeft: [[-1, 0]], ArrowUp: [[0, -1], [1, -1]],
  ArrowDown: [[0, 1], [-1, 1]] };

/** The unit-type symbol in the counter's box (NATO-like), drawn in a 9x6 box at (x, y). */
function typeSymbol(type, unitClass, x, y, ink) {
  const box = svg("rect", { x, y, width: 9, height: 6, class: "sym-box", stroke: ink });
  const line = (x1, y1, x2, y2) => svg("line", { x1, y1, x2, y2, stroke: ink, class: "sym" });
  const text = (label, size = 3.4) => svg("text", { x: x + 4.5, y: y + 4.3, class: "sym-text",
    fill: ink, "font-size": size }, label);
  const cross = [line(x, y, x + 9, y + 6), line(x, y + 6, x + 9, y)];
  const oval = svg("ellipse", { cx: x + 4.5, cy: y + 3, rx: 3, ry: 1.7, class: "sym", stroke: ink });
  if (unitClass === "air") return [text("✈", 5)];
  if (unitClass === "naval") {
    return [svg("path", { d: `M${x} ${y + 3.5} L${x + 9} ${y + 3.5} L${x + 7.5} ${y + 5.5} L${x + 1.5} ${y + 5.5} Z M${x + 3.5} ${y + 3.5} L${x + 3.5} ${y + 1.5} L${x + 5.5} ${y + 1.5} L${x + 5.5} ${y + 3.5}`,
      class: "sym-fill", fill: ink }), text(type, 2.2)];
  }
  switch (type) {
    case "INF": return [box, ...cross];
    case "ARM": return [box, oval];
    case "MECH": return [box, oval, ...cross];
    case "MOT": return [box, ...cross, svg("circle", { cx: x + 2.5, cy: y + 7.2, r: 0.8, fill: ink }),
      svg("circle", { cx: x + 6.5, cy: y + 7.2, r: 0.8, fill: ink })];
    case "MTN": return [box, ...cross, svg("path", { d: `M${x + 2.5} ${y + 6} L${x + 4.5} ${y + 3.8} L${x + 6.5} ${y + 6} Z`, fill: ink })];
    case "PARA": return [box, ...cross, svg("path", { d: `M${x + 2.5} ${y + 2.2} Q${x + 4.5} ${y} ${x + 6.5} ${y + 2.2}`, class: "sym", stroke: ink })];
    case "MAR": return [box, ...cross, svg("path", { d: `M${x + 2} ${y + 4.5} Q${x + 4.5} ${y + 6.5} ${x + 7} ${y + 4.5}`, class: "sym", stroke: ink })];
    case "ART": return [box, svg("circle", { cx: x + 4.5, cy: y + 3, r: 1.2, fill: ink })];
    case "GAR": return [box, ...cross, line(x, y + 1.2, x + 9, y + 1.2)];
    case "HQ": return [svg("path", { d: `M${x + 1} ${y + 6.5} L${x + 1} ${y} L${x + 8} ${y + 1.5} L${x + 1} ${y + 3}`, class: "sym", stroke: ink }), text("HQ", 2.6)];
    case "SUPPLY": return [svg("circle", { cx: x + 4.5, cy: y + 3, r: 3, class: "sym", stroke: ink }), text("S", 3.6)];
    case "TRANSPORT": return [box, text("TP", 3)];
    case "REPL": return [box, text("RPL", 2.6)];
    case "HEDGEHOG": return [svg("path", { d: `M${x} ${y + 6} L${x + 2.2} ${y} L${x + 4.5} ${y + 6} L${x + 6.8} ${y} L${x + 9} ${y + 6}`, class: "sym", stroke: ink })];
    default: return [box, text(String(type || "?").slice(0, 4), 2.4)];
  }
}

/** "4-3-3" as on the counter: effective attack-defence-MA, or its cost for units
 *  without modes. */
function counterValues(unit) {
  const e = unit.effective;
  if (e) return `${e.attack}-${e.defence}-${e.movement_ma}`;
  return unit.cost ? String(unit.cost) : "";
}

/** A unit's description for titles and the screen reader: "ger-inf-1: Germany INF corps,
 *  Combat Mode, 4-3-3, face up". */
export function unitLabel(id, unit, names = {}) {
  const parts = [names[unit.power] || unit.power, unit.type, unit.size].filter(Boolean).join(" ");
  const mode = unit.mode ? `${MODE_NAMES[unit.mode] || unit.mode} Mode` : null;
  return `${id}: ${[parts, mode, counterValues(unit), unit.face_up ? "face up" : "face down",
    unit.shattered ? "shattered" : null].filter(Boolean).join(", ")}`;
}

/** One counter, its top-left corner at (x, y). */
function counter(id, unit, x, y, { side, mine, selected, planned, refused }) {
  const [fill, ink] = powerColors(unit.power, side);
  const classes = ["counter", mine ? "mine" : null, unit.face_up ? null : "face-down",
    selected ? "selected" : null, planned ? "planned" : null, refused ? "refused" : null,
    unit.mode === "dg" ? "dg" : null].filter(Boolean).join(" ");
  const g = svg("g", { class: classes, "data-unit": id, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` },
    svg("rect", { width: C, height: C, rx: 1.6, fill, class: "counter-body" }),
    svg("text", { x: C - 1, y: 3.4, class: "power-abbr", fill: ink, "text-anchor": "end" },
      String(unit.power).slice(0, 3).toUpperCase()),
    typeSymbol(unit.type, unit.class, 5, 4.8, ink),
    svg("text", { x: C / 2, y: C - 2.2, class: "values", fill: ink }, counterValues(unit)));
  const mark = MODE_MARKS[unit.mode];
  if (mark) {
    g.append(svg("rect", { x: 0.6, y: 0.6, width: 4.4, height: 4.4, rx: 0.8, class: `mode-mark mode-${unit.mode}` }),
      svg("text", { x: 2.8, y: 4, class: "mode-letter" }, mark));
  }
  if (unit.mode === "dg") {
    g.append(svg("rect", { x: 0, y: 7.2, width: C, height: 4.6, class: "dg-band" }),
      svg("text", { x: C / 2, y: 10.8, class: "dg-text" }, "DG"));
  }
  if (!unit.face_up) {
    g.append(svg("rect", { width: C, height: C, rx: 1.6, class: "down-veil" }),
      svg("text", { x: C / 2, y: 11.6, class: "down-text" }, unit.shattered ? "SHAT" : "▼ DOWN"));
  }
  g.append(svg("title", {}, unitLabel(id, unit)));
  return g;
}

/**
 * The map of one game. `new HexMap(svgElement, {onHex, onUnit, announce})`, then
 * `update(data)` whenever the state or a selection changes. `onHex(hexId)` is a click (or
 * Enter) on a hex, `onUnit(unitId)` a click on a counter of a fanned stack,
 * `announce(text)` describes the hex under the keyboard's cursor.
 */
export class HexMap {
  constructor(target, { onHex, onUnit, announce }) {
    this.svg = target;
    this.onHex = onHex;
    this.onUnit = onUnit;
    this.announce = announce;
    this.data = null;
    this.view = null; // {x, y, w, h}: the viewBox
    this.bounds = null;
    this.hover = null; // hex whose stack fans out on hover
    this.cursor = null; // the keyboard's hex
    this.pointers = new Map();
    this.dragged = false;
    this.bind();
  }

  bind() {
    const s = this.svg;
    s.addEventListener("wheel", (event) => {
      event.preventDefault();
      const [px, py] = this.toMap(event.clientX, event.clientY);
      this.zoom(event.deltaY < 0 ? 1.25 : 0.8, px, py);
    }, { passive: false });
    s.addEventListener("pointerdown", (event) => {
      this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      this.dragged = false;
      this.start = { view: { ...this.view }, pointers: new Map(this.pointers) };
    });
    s.addEventListener("pointermove", (event) => {
      if (!this.pointers.has(event.pointerId) || !this.view) return;
      this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      const start = this.start;
      const rect = s.getBoundingClientRect();
      const scale = start.view.w / (rect.width || 1);
      if (this.pointers.size === 1) {
        const [p0] = start.pointers.values();
        const dx = event.clientX - p0.x;
        const dy = event.clientY - p0.y;
        if (!this.dragged && Math.hypot(dx, dy) < 6) return;
        if (!this.dragged) s.setPointerCapture?.(event.pointerId);
        this.dragged = true;
        this.setView({ ...start.view, x: start.view.x - dx * scale, y: start.view.y - dy * scale });
      } else if (this.pointers.size === 2) {
        const [a0, b0] = start.pointers.values();
        const [a1, b1] = this.pointers.values();
        const d0 = Math.hypot(a0.x - b0.x, a0.y - b0.y) || 1;
        const d1 = Math.hypot(a1.x - b1.x, a1.y - b1.y) || 1;
        this.dragged = true;
        const factor = d1 / d0;
        const mx = (a0.x + b0.x) / 2 - rect.left;
        const my = (a0.y + b0.y) / 2 - rect.top;
        const fx = start.view.x + mx * scale;
        const fy = start.view.y + my * scale;
        const w = this.clampWidth(start.view.w / factor);
        const h = w * (start.view.h / start.view.w);
        this.setView({ x: fx - (fx - start.view.x) * (w / start.view.w),
          y: fy - (fy - start.view.y) * (h / start.view.h), w, h });
      }
    });
    const end = (event) => {
      this.pointers.delete(event.pointerId);
      this.start = { view: { ...this.view }, pointers: new Map(this.pointers) };
    };
    s.addEventListener("pointerup", end);
    s.addEventListener("pointercancel", end);
    s.addEventListener("click", (event) => {
      if (this.dragged) {
        event.stopPropagation();
        this.dragged = false;
        return;
      }
      const unit = event.target.closest?.(".fan [data-unit]");
      if (unit) {
        this.onUnit?.(unit.dataset.unit);
        return;
      }
      const hex = event.target.closest?.("[data-hex]");
      if (hex) {
        this.cursor = hex.dataset.hex;
        this.onHex?.(hex.dataset.hex);
      }
    });
    s.addEventListener("pointerover", (event) => {
      if (event.pointerType === "touch") return;
      const stack = event.target.closest?.(".stack, .fan");
      const hex = stack?.dataset.stack ?? null;
      if (hex !== this.hover && (hex || !event.target.closest?.(".fan"))) {
        this.hover = hex;
        this.drawFans();
      }
      const reach = event.target.closest?.(".reach[data-hex]");
      this.drawPathPreview(reach?.dataset.hex ?? null);
    });
    s.addEventListener("pointerleave", () => {
      this.hover = null;
      this.drawFans();
      this.drawPathPreview(null);
    });
    s.addEventListener("keydown", (event) => this.key(event));
    s.addEventListener("focus", () => {
      if (!this.cursor) this.cursor = this.data?.selectedHex || this.firstHex();
      this.drawCursor();
      this.describe(this.cursor);
    });
    s.addEventListener("blur", () => this.drawCursor());
    window.addEventListener("resize", () => this.updateScale());
  }

  firstHex() {
    const mine = Object.values(this.data?.units || {}).find((u) => this.hexes.has(u.at)
      && this.data.sideOf(u.power) === this.data.mySide);
    return mine?.at || this.data?.scenario?.map?.hexes?.[0]?.id || null;
  }

  key(event) {
    if (!this.data) return;
    const step = this.view ? this.view.w * 0.15 : 0;
    if (event.shiftKey && ARROWS[event.key]) {
      const [dx, dy] = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
      this.setView({ ...this.view, x: this.view.x + dx * step, y: this.view.y + dy * step });
    } else if (ARROWS[event.key]) {
      const here = this.hexes.get(this.cursor) || this.hexes.get(this.firstHex());
      if (!here) return;
      const next = ARROWS[event.key].map(([dq, dr]) => this.byAxial.get(`${here.q + dq},${here.r + dr}`))
        .find(Boolean);
      if (next) {
        this.cursor = next.id;
        this.keepInView(next.id);
        this.drawCursor();
        this.describe(next.id);
      }
    } else if (event.key === "Enter" || event.key === " ") {
      if (this.cursor) this.onHex?.(this.cursor);
    } else if (/^[1-9]$/.test(event.key) && this.data.selectedHex) {
      const ids = this.stackOf(this.data.selectedHex).map(([id]) => id);
      const id = ids[Number(event.key) - 1];
      if (id) this.onUnit?.(id);
    } else if (event.key === "+" || event.key === "=") {
      this.zoom(1.25);
    } else if (event.key === "-") {
      this.zoom(0.8);
    } else if (event.key === "0") {
      this.fit();
    } else {
      return;
    }
    event.preventDefault();
  }

  describe(hexId) {
    if (!hexId || !this.announce) return;
    const hex = this.hexes.get(hexId);
    const here = this.stackOf(hexId);
    const reach = this.data.reach?.get(hexId);
    const parts = [
      `${hexId}${hex?.city ? ` ${hex.city}` : ""}, ${hex?.terrain || "clear"}`,
      hex?.controller ? `controlled by ${hex.controller}` : null,
      reach ? `a move here costs ${reach.mp ?? reach.spends} MP` : null,
      this.data.targets?.has(hexId) ? "may be attacked" : null,
      here.length ? `${here.length} unit${here.length > 1 ? "s" : ""}: `
        + here.map(([id, u], i) => `${i + 1}. ${unitLabel(id, u, this.data.names)}`).join("; ")
        : "no units",
    ].filter(Boolean);
    this.announce(parts.join("; "));
  }

  stackOf(hexId) {
    return this.byPlace.get(hexId) || [];
  }

  clampWidth(w) {
    const b = this.bounds;
    return Math.max(b.w / 12, Math.min(b.w * 1.2, w));
  }

  setView(view) {
    this.view = view;
    this.svg.setAttribute("viewBox", `${view.x.toFixed(1)} ${view.y.toFixed(1)} ${view.w.toFixed(1)} ${view.h.toFixed(1)}`);
    this.updateScale();
  }

  /** Pixels per SVG unit: hex ids and counter values show only where they are legible. */
  updateScale() {
    if (!this.view) return;
    const width = this.svg.getBoundingClientRect().width || 1;
    const scale = width / this.view.w;
    this.svg.classList.toggle("near", scale >= 1.6);
    this.svg.classList.toggle("far", scale < 1.05);
    this.svg.dataset.scale = scale.toFixed(2);
  }

  toMap(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    return [this.view.x + ((clientX - rect.left) / (rect.width || 1)) * this.view.w,
      this.view.y + ((clientY - rect.top) / (rect.height || 1)) * this.view.h];
  }

  zoom(factor, px, py) {
    if (!this.view) return;
    const v = this.view;
    const cx = px ?? v.x + v.w / 2;
    const cy = py ?? v.y + v.h / 2;
    const w = this.clampWidth(v.w / factor);
    const h = w * (v.h / v.w);
    this.setView({ x: cx - (cx - v.x) * (w / v.w), y: cy - (cy - v.y) * (h / v.h), w, h });
  }

  fit() {
    if (!this.bounds) return;
    const b = this.bounds;
    const rect = this.svg.getBoundingClientRect();
    const ratio = rect.width > 0 && rect.height > 0 ? rect.height / rect.width : b.h / b.w;
    let w = b.w;
    let h = w * ratio;
    if (h < b.h) {
      h = b.h;
      w = h / ratio;
    }
    this.setView({ x: b.x - (w - b.w) / 2, y: b.y - (h - b.h) / 2, w, h });
  }

  /** Zoom in on a hex (keeps the zoom when it is already close). */
  focusHex(hexId, width = SIZE * 12) {
    const hex = this.hexes.get(hexId);
    if (!hex || !this.view) return;
    const w = Math.min(this.view.w, width);
    const h = w * (this.view.h / this.view.w);
    this.setView({ x: hex.x - w / 2, y: hex.y - h / 2, w, h });
  }

  /** The first view: a box as tall as the map's shape needs (within the CSS's limit),
   *  the whole map in it, then, when that is too small to read and this seat has units,
   *  zoomed in twice around the middle of them. */
  startView() {
    const b = this.bounds;
    const width = this.svg.getBoundingClientRect().width;
    if (width > 0 && b) {
      const limit = Number.parseFloat(getComputedStyle(this.svg).maxHeight) || Infinity;
      this.svg.style.height = `${Math.round(Math.max(220, Math.min(limit, width * (b.h / b.w))))}px`;
    }
    this.fit();
    const mine = Object.values(this.data.units || {})
      .filter((u) => this.data.mySide && this.data.sideOf(u.power) === this.data.mySide)
      .map((u) => this.hexes.get(u.at)).filter(Boolean);
    if (!mine.length || !this.view || width / this.view.w >= 1.05) return;
    const xs = mine.map((hex) => hex.x).sort((a, c) => a - c);
    const ys = mine.map((hex) => hex.y).sort((a, c) => a - c);
    const mid = Math.floor(mine.length / 2);
    this.zoom(2, xs[mid], ys[mid]);
  }

  /** Zoom in on a hex close enough to read its counters, unless the map is so already. */
  zoomTo(hexId) {
    const width = this.svg.getBoundingClientRect().width || 400;
    if (!this.view || width / this.view.w >= 1.6) {
      this.keepInView(hexId);
      return;
    }
    this.focusHex(hexId, width / 2.2);
  }

  keepInView(hexId) {
    const hex = this.hexes.get(hexId);
    const v = this.view;
    if (!hex || !v) return;
    const m = SIZE * 1.5;
    if (hex.x < v.x + m || hex.x > v.x + v.w - m || hex.y < v.y + m || hex.y > v.y + v.h - m) {
      this.setView({ ...v, x: hex.x - v.w / 2, y: hex.y - v.h / 2 });
    }
  }

  /**
   * data: {scenario, units, sideOf, mySide, names, supply, overlays: {supply, zoc},
   * selectedHex, selectedUnit, reach: Map(hex -> {spends, path}), transport: Map(hex ->
   * label), targets: Set(hex), planned: [{unit, from, path}], refused: Set(unit)}
   */
  update(data) {
    const first = !this.data || this.data.scenario !== data.scenario;
    this.data = data;
    const hexes = data.scenario?.map?.hexes || [];
    if (first) {
      this.hexes = new Map();
      this.byAxial = new Map();
      for (const hex of hexes) {
        const [x, y] = centre(hex.q, hex.r);
        const entry = { ...hex, x, y };
        this.hexes.set(hex.id, entry);
        this.byAxial.set(`${hex.q},${hex.r}`, entry);
      }
      const xs = [...this.hexes.values()].map((h) => h.x);
      const ys = [...this.hexes.values()].map((h) => h.y);
      const pad = SIZE + 2;
      this.bounds = xs.length ? { x: Math.min(...xs) - pad, y: Math.min(...ys) - pad,
        w: Math.max(...xs) - Math.min(...xs) + 2 * pad, h: Math.max(...ys) - Math.min(...ys) + 2 * pad }
        : { x: 0, y: 0, w: 100, h: 100 };
    }
    this.byPlace = new Map();
    for (const [id, unit] of Object.entries(data.units || {})) {
      if (!this.byPlace.has(unit.at)) this.byPlace.set(unit.at, []);
      this.byPlace.get(unit.at).push([id, unit]);
    }
    for (const stack of this.byPlace.values()) {
      // Mine on top, then by class (land before air and naval), the selected unit first.
      stack.sort(([ia, a], [ib, b]) => (ib === data.selectedUnit) - (ia === data.selectedUnit)
        || (data.sideOf(b.power) === data.mySide) - (data.sideOf(a.power) === data.mySide)
        || ["land", "air", "naval"].indexOf(a.class) - ["land", "air", "naval"].indexOf(b.class)
        || ia.localeCompare(ib));
    }
    this.draw();
    if (first || !this.view) this.startView();
    else this.updateScale();
    return Object.fromEntries([...this.byPlace.entries()].filter(([place]) => !this.hexes.has(place)));
  }

  // long: one layer after the other, bottom to top, each a few lines.
  draw() {
    const d = this.data;
    const s = this.svg;
    s.replaceChildren(this.defs());
    const ground = svg("g", { class: "hexes" });
    const texture = svg("g", { class: "texture" });
    const zoc = svg("g", { class: "zoc-layer" });
    const marks = svg("g", { class: "marks" });
    const reach = svg("g", { class: "reach-layer" });
    const lines = svg("g", { class: "supply-layer" });
    const stacks = svg("g", { class: "stacks" });
    this.fanLayer = svg("g", { class: "fans" });
    this.pathLayer = svg("g", { class: "path-preview" });
    this.cursorLayer = svg("g", { class: "cursor-layer" });
    for (const hex of this.hexes.values()) {
      const terrain = TERRAIN[hex.terrain] || TERRAIN.clear;
      const controller = hex.controller ? d.sideOf(hex.controller) : null;
      ground.append(svg("polygon", { points: corners(hex.x, hex.y), fill: terrain.color,
        stroke: controller ? SIDE_COLORS[controller] : "#a2a9a0", "stroke-width": controller ? 1.3 : 0.6,
        class: `hex${hex.id === d.selectedHex ? " selected" : ""}`, "data-hex": hex.id }));
      if (terrain.pattern) {
        texture.append(svg("polygon", { points: corners(hex.x, hex.y, SIZE - 0.8),
          fill: `url(#pat-${terrain.pattern})` }));
      }
      if (hex.rail) marks.append(svg("circle", { cx: hex.x, cy: hex.y, r: 3.2, class: "rail-dot" }));
      if (hex.city) {
        marks.append(svg("rect", { x: hex.x - 2, y: hex.y - SIZE + 4.4, width: 4, height: 4, class: "city" }),
          svg("text", { x: hex.x, y: hex.y + SIZE - 3.2, class: "city-name" }, hex.city));
      }
      if (hex.port) marks.append(svg("text", { x: hex.x + 12, y: hex.y - 6, class: "port" }, "⚓"));
      if (hex.supply) marks.append(svg("text", { x: hex.x - 12, y: hex.y - 6, class: "supply-star" }, "★"));
      marks.append(svg("text", { x: hex.x, y: hex.y - SIZE + 11.5, class: "hex-id" }, hex.id));
    }
    if (d.overlays?.zoc) this.drawZoc(zoc);
    if (d.overlays?.supply) this.drawSupply(lines);
    this.drawReach(reach);
    for (const [place, stack] of this.byPlace) {
      const hex = this.hexes.get(place);
      if (!hex) continue;
      stacks.append(this.stack(hex, stack));
    }
    this.drawPlanned(lines);
    s.append(ground, texture, zoc, marks, reach, lines, stacks, this.pathLayer, this.fanLayer,
      this.cursorLayer);
    this.drawFans();
    this.drawCursor();
  }

  defs() {
    const pattern = (id, ...children) => svg("pattern", { id: `pat-${id}`, width: 8, height: 8,
      patternUnits: "userSpaceOnUse" }, ...children);
    return svg("defs", {},
      pattern("forest", svg("circle", { cx: 2, cy: 2, r: 1.3, class: "tex-forest" }),
        svg("circle", { cx: 6, cy: 6, r: 1.3, class: "tex-forest" })),
      pattern("mountain", svg("path", { d: "M0 7 L2.5 3 L5 7", class: "tex-line" })),
      pattern("swamp", svg("path", { d: "M1 3 H5 M3 6 H7", class: "tex-line" })),
      pattern("desert", svg("circle", { cx: 2, cy: 3, r: 0.6, class: "tex-dot" }),
        svg("circle", { cx: 6, cy: 7, r: 0.6, class: "tex-dot" })),
      pattern("urban", svg("rect", { x: 1, y: 1, width: 2.5, height: 2.5, class: "tex-block" }),
        svg("rect", { x: 5, y: 5, width: 2.5, height: 2.5, class: "tex-block" })),
      svg("marker", { id: "arrow", viewBox: "0 0 6 6", refX: 5, refY: 3, markerWidth: 4,
        markerHeight: 4, orient: "auto-start-reverse" }, svg("path", { d: "M0 0 L6 3 L0 6 Z", class: "arrow-head" })));
  }

  stack(hex, units) {
    const d = this.data;
    const g = svg("g", { class: "stack", "data-stack": hex.id, "data-hex": hex.id });
    const shown = units.slice(0, 4).reverse();
    const n = shown.length;
    shown.forEach(([id, unit], k) => {
      const offset = (n - 1 - k) * 1.6;
      const side = d.sideOf(unit.power);
      g.append(counter(id, unit, hex.x - C / 2 + offset - 1.5, hex.y - C / 2 + offset - 1, {
        side, mine: side === d.mySide, selected: id === d.selectedUnit,
        planned: d.plannedUnits?.has(id), refused: d.refused?.has(id) }));
    });
    if (units.length > 1) {
      g.append(svg("circle", { cx: hex.x + C / 2 + 1, cy: hex.y - C / 2 - 1, r: 4, class: "stack-count" }),
        svg("text", { x: hex.x + C / 2 + 1, y: hex.y - C / 2 + 0.6, class: "stack-count-text" }, units.length));
    }
    const sides = new Set(units.map(([, u]) => d.sideOf(u.power)));
    g.append(svg("title", {}, `${hex.id}${hex.city ? ` ${hex.city}` : ""}: ${units.length} unit(s) `
      + `of ${[...sides].join(", ")}; ${units.map(([id]) => id).join(", ")}`));
    return g;
  }

  /** The fanned stacks: the selected hex's, and the hovered one's. */
  drawFans() {
    if (!this.fanLayer || !this.data) return;
    this.fanLayer.replaceChildren();
    const wanted = [...new Set([this.data.selectedHex, this.hover].filter(Boolean))];
    for (const hexId of wanted) {
      const hex = this.hexes.get(hexId);
      const units = this.stackOf(hexId);
      // A lone counter is read as it is; a stack fans out to show every counter.
      if (!hex || units.length < 2) continue;
      const perRow = Math.min(units.length, 6);
      const rows = Math.ceil(units.length / perRow);
      const gap = 2;
      const width = perRow * (C + gap) + gap;
      const height = rows * (C + gap) + gap;
      const left = Math.max(this.bounds.x, hex.x - width / 2);
      const top = hex.y - SIZE - height - 2 < this.bounds.y ? hex.y + SIZE - 4 : hex.y - SIZE - height + 4;
      const fan = svg("g", { class: "fan", "data-stack": hexId },
        svg("rect", { x: left, y: top, width, height, rx: 2, class: "fan-back" }));
      units.forEach(([id, unit], i) => {
        const side = this.data.sideOf(unit.power);
        const c = counter(id, unit, left + gap + (i % perRow) * (C + gap),
          top + gap + Math.floor(i / perRow) * (C + gap), { side, mine: side === this.data.mySide,
            selected: id === this.data.selectedUnit, planned: this.data.plannedUnits?.has(id),
            refused: this.data.refused?.has(id) });
        c.append(svg("text", { x: 1.2, y: C - 1, class: "fan-index" }, i + 1));
        fan.append(c);
      });
      this.fanLayer.append(fan);
    }
  }

  drawCursor() {
    if (!this.cursorLayer) return;
    this.cursorLayer.replaceChildren();
    const hex = this.hexes.get(this.cursor);
    if (hex && document.activeElement === this.svg) {
      this.cursorLayer.append(svg("polygon", { points: corners(hex.x, hex.y, SIZE - 1.5), class: "cursor" }));
    }
  }

  drawZoc(layer) {
    const d = this.data;
    const zocOf = new Map(); // hex -> set of sides exerting ZOC into it
    for (const [, unit] of Object.entries(d.units || {})) {
      const hex = this.hexes.get(unit.at);
      if (!hex || !unit.effective?.zoc) continue; // face down too: the referee counts it
      const side = d.sideOf(unit.power);
      for (const [dq, dr] of NEIGHBOURS) {
        const n = this.byAxial.get(`${hex.q + dq},${hex.r + dr}`);
        if (!n) continue;
        if (!zocOf.has(n.id)) zocOf.set(n.id, new Set());
        zocOf.get(n.id).add(side);
      }
    }
    for (const [hexId, sides] of zocOf) {
      const hex = this.hexes.get(hexId);
      for (const side of sides) {
        if (side === d.mySide) continue;
        layer.append(svg("polygon", { points: corners(hex.x, hex.y, SIZE - 2.5), class: `zoc zoc-${side}`,
          stroke: SIDE_COLORS[side] }));
      }
    }
  }

  drawSupply(layer) {
    const d = this.data;
    for (const [id, status] of Object.entries(d.supply || {})) {
      const unit = d.units?.[id];
      if (!unit || (d.mySide && d.sideOf(unit.power) !== d.mySide)) continue;
      const from = this.hexes.get(unit.at);
      if (!from) continue;
      if (!status.in_supply) {
        layer.append(svg("circle", { cx: from.x, cy: from.y, r: SIZE - 5, class: "out-of-supply" }));
        continue;
      }
      const route = [unit.at, ...(status.route || []), status.source].map((h) => this.hexes.get(h))
        .filter(Boolean);
      if (route.length < 2) continue;
      layer.append(svg("polyline", { points: route.map((h) => `${h.x},${h.y}`).join(" "),
        class: `supply-line supply-${status.method}` }));
    }
  }

  drawReach(layer) {
    const d = this.data;
    for (const [hexId, r] of d.reach || []) {
      const hex = this.hexes.get(hexId);
      if (!hex) continue;
      layer.append(svg("g", { class: "reach", "data-hex": hexId },
        svg("polygon", { points: corners(hex.x, hex.y, SIZE - 1.2), class: "reach-hex" }),
        svg("text", { x: hex.x + 9, y: hex.y + 12, class: "reach-cost" }, `${r.mp ?? r.spends}`),
        svg("title", {}, `${hexId}: a move here costs ${r.mp ?? r.spends} MP`
          + `${r.spends !== r.mp ? ` (it spends ${r.spends}: entering an enemy ZOC ends the move)` : ""}`)));
    }
    for (const [hexId, label] of d.transport || []) {
      const hex = this.hexes.get(hexId);
      if (!hex) continue;
      layer.append(svg("g", { class: "reach transport", "data-hex": hexId },
        svg("polygon", { points: corners(hex.x, hex.y, SIZE - 1.2), class: "transport-hex" }),
        svg("text", { x: hex.x - 8, y: hex.y + 12, class: "reach-cost" }, label)));
    }
    for (const hexId of d.targets || []) {
      const hex = this.hexes.get(hexId);
      if (!hex) continue;
      layer.append(svg("polygon", { points: corners(hex.x, hex.y, SIZE - 1.5), class: "target-hex", "data-hex": hexId }));
    }
  }

  drawPlanned(layer) {
    for (const plan of this.data.planned || []) {
      const points = [plan.from, ...(plan.path || [plan.to])].map((h) => this.hexes.get(h)).filter(Boolean);
      if (points.length < 2) continue;
      layer.append(svg("polyline", { points: points.map((h) => `${h.x},${h.y}`).join(" "),
        class: `planned-move${plan.transport ? " by-transport" : ""}`, "marker-end": "url(#arrow)" }));
    }
  }

  drawPathPreview(hexId) {
    if (!this.pathLayer) return;
    this.pathLayer.replaceChildren();
    const r = hexId && this.data.reach?.get(hexId);
    const from = this.data.units?.[this.data.selectedUnit]?.at;
    if (!r || !from) return;
    const points = [from, ...r.path].map((h) => this.hexes.get(h)).filter(Boolean);
    this.pathLayer.append(svg("polyline", { points: points.map((h) => `${h.x},${h.y}`).join(" "),
      class: "path-line", "marker-end": "url(#arrow)" }));
  }
}
