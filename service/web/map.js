// The map: the scenario's axial hexes (pointy top) as SVG, coloured by terrain, edged by
// the controlling side, with a badge per side counting the units in each hex.

import { svg } from "./dom.js";

const SIZE = 20; // hex radius in SVG units
const SQRT3 = Math.sqrt(3);

export const SIDE_COLORS = { axis: "#4a4a4a", allies: "#2563a8", communists: "#b3261e" };

export const TERRAIN_COLORS = {
  clear: "#eef3dc",
  forest: "#a9cf96",
  jungle: "#79b070",
  swamp: "#b7d3c9",
  marsh: "#b7d3c9",
  mountain: "#cdb99b",
  hills: "#ddd2a6",
  desert: "#f3e3b3",
  tundra: "#e3ebee",
  urban: "#c9c3cf",
};

function centre(q, r) {
  return [SIZE * SQRT3 * (q + r / 2), SIZE * 1.5 * r];
}

function corners(x, y) {
  const points = [];
  for (let i = 0; i < 6; i += 1) {
    const angle = (Math.PI / 180) * (60 * i - 30);
    points.push(`${(x + SIZE * Math.cos(angle)).toFixed(1)},${(y + SIZE * Math.sin(angle)).toFixed(1)}`);
  }
  return points.join(" ");
}

/**
 * Draw `scenario.map` with `units` (the state's units, id -> {power, at}) into the <svg>
 * element `target`. `sideOf(power)` names a power's side; `onHex(hexId)` is called on a
 * click; `selected` is the highlighted hex id. Returns the ids of places that are not
 * hexes (sea areas) with their units, for a list next to the map.
 */
export function drawMap(target, { scenario, units, sideOf, onHex, selected, mySide }) {
  const hexes = scenario?.map?.hexes || [];
  target.replaceChildren();
  if (!hexes.length) return {};
  const byPlace = {};
  for (const [id, unit] of Object.entries(units || {})) {
    (byPlace[unit.at] ||= []).push({ id, ...unit });
  }
  const xs = [];
  const ys = [];
  for (const hex of hexes) {
    const [x, y] = centre(hex.q, hex.r);
    xs.push(x);
    ys.push(y);
  }
  const pad = SIZE + 2;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  const width = Math.max(...xs) + pad - minX;
  const height = Math.max(...ys) + pad - minY;
  target.setAttribute("viewBox", `${minX.toFixed(1)} ${minY.toFixed(1)} ${width.toFixed(1)} ${height.toFixed(1)}`);
  target.setAttribute("preserveAspectRatio", "xMidYMid meet");

  const ground = svg("g", { class: "hexes" });
  const marks = svg("g", { class: "marks" });
  hexes.forEach((hex, i) => {
    const [x, y] = [xs[i], ys[i]];
    const side = hex.controller ? sideOf(hex.controller) : null;
    const here = byPlace[hex.id] || [];
    const terrain = hex.terrain || "clear";
    const lines = [
      `${hex.id}${hex.city ? ` ${hex.city}` : ""}`,
      `terrain: ${terrain}`,
      hex.controller ? `controller: ${hex.controller} (${side ?? "?"})` : "no controller",
      hex.port ? `port: ${hex.port}${hex.port_damaged ? " (damaged)" : ""}` : null,
      hex.factories ? `factories: ${hex.factories}` : null,
      hex.supply ? `supply source: ${hex.supply} (${hex.supply_power})` : null,
      hex.rail ? "rail" : null,
      here.length ? `units: ${here.map((u) => u.id).join(", ")}` : null,
    ].filter(Boolean);
    const polygon = svg("polygon", {
      points: corners(x, y),
      fill: TERRAIN_COLORS[terrain] || "#e4e4e4",
      stroke: side ? SIDE_COLORS[side] : "#9a9a9a",
      "stroke-width": side ? 1.6 : 0.8,
      class: `hex${hex.id === selected ? " selected" : ""}`,
      "data-hex": hex.id,
    }, svg("title", {}, lines.join("\n")));
    polygon.addEventListener("click", () => onHex?.(hex.id));
    ground.append(polygon);
    if (hex.city) {
      marks.append(svg("circle", { cx: x, cy: y - 4, r: 2.2, class: "city" }));
      marks.append(svg("text", { x, y: y + 14, class: "city-name" }, hex.city));
    }
    if (hex.supply) marks.append(svg("text", { x: x - 13, y: y - 6, class: "supply" }, "★"));
    marks.append(svg("text", { x, y: y - 9, class: "hex-id" }, hex.id));
    // One badge per side with units here: the count, in the side's colour.
    const sides = {};
    for (const unit of here) sides[sideOf(unit.power) ?? "?"] = (sides[sideOf(unit.power) ?? "?"] || 0) + 1;
    const entries = Object.entries(sides);
    entries.forEach(([s, count], k) => {
      const bx = x + (k - (entries.length - 1) / 2) * 12;
      const by = y + 3;
      marks.append(svg("g", { class: `badge${s === mySide ? " mine" : ""}`, "data-hex": hex.id },
        svg("rect", { x: bx - 5.5, y: by - 5.5, width: 11, height: 11, rx: 2,
          fill: SIDE_COLORS[s] || "#777" }),
        svg("text", { x: bx, y: by + 3.5 }, count)));
    });
  });
  target.append(ground, marks);
  const hexIds = new Set(hexes.map((h) => h.id));
  return Object.fromEntries(Object.entries(byPlace).filter(([place]) => !hexIds.has(place)));
}
