// The GM's edits from the page (issue 30; docs/game-master.md "State edits"): a unit
// (where it is, face up, shattered, its mode and side showing), a hex (its controller,
// its port's damage), a power's figures (BP, RPs, chits, and its fuel stock where the
// scenario has fuel, RULES-NOTES 30), each sent as `admin/edit` with
// only what changed; the weather table from a turn on (`admin/weather`); and, for a game
// whose scenario has no combat tables (one begun under rules version 1), its combat
// section (docs/game-master.md "Rules versions"). Every edit is an event in the log with
// the reason typed in the panel's Reason field.

import { fill, h, words } from "./dom.js";

const MODES = ["combat", "move", "reserve", "strat", "exploit", "dg"];
const FIGURES = ["bp_spent_last_turn", "bp_on_rps", "rps", "chits", "fuel"];

function field(label, control) {
  return h("label.field", {}, h("span", {}, label), control);
}

const options = (values, label = (v) => v) => values.map((v) => h("option", { value: v }, label(v)));

/** gm: the GmPanel (its `act(action, body, label, panel)` and `app`). */
export class GmEdit {
  constructor(gm) {
    this.gm = gm;
    this.node = h("div.gm-edit");
    this.drawn = false;
    this.fills = []; // [form, fillIn]: each form shows its item as the state has it
  }

  /** The state changed (an edit, a rollback, another act): each form the GM is not in
   *  shows its item anew. */
  refresh() {
    for (const [form, fillIn] of this.fills) if (!form.contains(document.activeElement)) fillIn();
  }

  get state() {
    return this.gm.app.state();
  }

  /** The scenario's hexes (with their printed controller and port). */
  hexes() {
    return this.gm.app.scenario()?.map?.hexes || [];
  }

  /** Drawn when the GM opens the section, once the scenario is loaded (the page's
   *  heavy requests may wait their turn); each form then reads the state as it is when
   *  an item is picked or sent. */
  draw() {
    if (!this.state || this.drawn) return;
    if (!this.gm.app.scenario()) { // the hexes are the scenario's: drawn when it comes
      fill(this.node, h("p.muted", {}, "Loading the map…"));
      return;
    }
    this.drawn = true;
    this.fills = [];
    fill(this.node, this.unitForm(), this.hexForm(), this.powerForm(), this.weatherForm(),
      this.combatForm());
  }

  /** Send `admin/edit` with what changed, or say that nothing did; then the form shows
   *  the item as it now is (`fillIn`). */
  async edit(what, changes, form, fillIn) {
    if (!Object.keys(changes).length) {
      this.gm.app.notice("Nothing changed: nothing sent.");
      return;
    }
    await this.gm.act("edit", { [what]: changes }, `Edit of ${Object.keys(changes).join(", ")}`, form);
    fillIn();
  }

  unitForm() {
    const units = Object.keys(this.state.units).sort();
    const pick = h("select", { name: "edit-unit" }, options(units));
    const at = h("input", { name: "edit-unit-at", maxlength: 64 });
    const faceUp = h("input", { type: "checkbox", name: "edit-unit-face-up" });
    const shattered = h("input", { type: "checkbox", name: "edit-unit-shattered" });
    const mode = h("select", { name: "edit-unit-mode" }, h("option", { value: "" }, "no mode"), options(MODES));
    const side = h("select", { name: "edit-unit-orientation" }, options(["combat", "move"], (o) => `${o} side`));
    const fillIn = () => {
      const u = this.state.units[pick.value];
      if (!u) return;
      at.value = u.at;
      faceUp.checked = u.face_up;
      shattered.checked = u.shattered;
      mode.value = u.mode || "";
      mode.disabled = !u.mode;
      side.value = u.orientation || "combat";
      side.disabled = !u.mode;
    };
    pick.addEventListener("change", fillIn);
    this.pickUnit = (uid) => {
      if (!this.state.units[uid]) return;
      pick.value = uid;
      fillIn();
    };
    const form = h("fieldset.gm-edit-part", {}, h("legend", {}, "A unit"),
      field("Unit", pick),
      h("div.inline-row", {}, field("At (hex or sea)", at), field("Mode", mode), field("Side showing", side)),
      h("div.inline-row", {}, h("label.toggle", {}, faceUp, " face up"), h("label.toggle", {}, shattered, " shattered")),
      h("div.buttons", {}, h("button", { type: "button", name: "admin-edit-unit", onclick: () => {
        const u = this.state.units[pick.value];
        const changed = {};
        if (at.value.trim() && at.value.trim() !== u.at) changed.at = at.value.trim();
        if (faceUp.checked !== u.face_up) changed.face_up = faceUp.checked;
        if (shattered.checked !== u.shattered) changed.shattered = shattered.checked;
        if (u.mode && mode.value !== u.mode) changed.mode = mode.value;
        if (u.mode && side.value !== u.orientation) changed.orientation = side.value;
        this.edit("units", Object.keys(changed).length ? { [pick.value]: changed } : {}, form, fillIn);
      } }, "Edit the unit")));
    fillIn();
    this.fills.push([form, fillIn]);
    return form;
  }

  hexForm() {
    const hexes = this.hexes();
    const powers = [...Object.keys(this.state.powers), ...Object.keys(this.state.minors || {})];
    const pick = h("select", { name: "edit-hex" }, hexes.map((x) => h("option", { value: x.id },
      x.city ? `${x.id} (${x.city})` : x.id)));
    const controller = h("select", { name: "edit-hex-controller" }, h("option", { value: "" }, "nobody"),
      options(powers, words));
    const damaged = h("input", { type: "checkbox", name: "edit-hex-port-damaged" });
    const now = () => {
      const printed = hexes.find((x) => x.id === pick.value) || {};
      const edited = this.state.map_edits?.[pick.value] || {};
      return { controller: "controller" in edited ? edited.controller : printed.controller ?? null,
        port_damaged: edited.port_damaged ?? printed.port_damaged ?? false, port: printed.port };
    };
    const fillIn = () => {
      const x = now();
      controller.value = x.controller || "";
      damaged.checked = Boolean(x.port_damaged);
      damaged.disabled = !x.port;
    };
    pick.addEventListener("change", fillIn);
    this.pickHex = (hex) => {
      if (!hexes.some((x) => x.id === hex)) return;
      pick.value = hex;
      fillIn();
    };
    const form = h("fieldset.gm-edit-part", {}, h("legend", {}, "A hex"),
      h("div.inline-row", {}, field("Hex", pick), field("Controller", controller),
        h("label.toggle", {}, damaged, " port damaged")),
      h("div.buttons", {}, h("button", { type: "button", name: "admin-edit-hex", onclick: () => {
        const x = now();
        const changed = {};
        if ((controller.value || null) !== (x.controller || null)) changed.controller = controller.value || null;
        if (x.port && damaged.checked !== Boolean(x.port_damaged)) changed.port_damaged = damaged.checked;
        this.edit("hexes", Object.keys(changed).length ? { [pick.value]: changed } : {}, form, fillIn);
      } }, "Edit the hex")));
    if (hexes.length) fillIn();
    this.fills.push([form, fillIn]);
    return form;
  }

  powerForm() {
    const powers = Object.keys(this.state.powers);
    const pick = h("select", { name: "edit-power" }, options(powers, words));
    const inputs = Object.fromEntries(FIGURES.map((f) => [f, h("input", { type: "number", min: 0,
      max: f === "fuel" ? 100000 : 10000, step: 1, name: `edit-power-${f}`, "aria-label": words(f) })]));
    // A scenario without fuel has no stock to edit (RULES-NOTES 30).
    const fuelField = field("Fuel", inputs.fuel);
    const fillIn = () => {
      const p = this.state.powers[pick.value];
      for (const f of FIGURES) inputs[f].value = p?.[f] ?? 0;
      fuelField.hidden = p?.fuel == null;
    };
    pick.addEventListener("change", fillIn);
    const form = h("fieldset.gm-edit-part", {}, h("legend", {}, "A power's figures"),
      field("Power", pick),
      h("div.inline-row", {}, FIGURES.filter((f) => f !== "fuel")
        .map((f) => field(words(f).replace("bp", "BP").replace("rps", "RPs"), inputs[f])), fuelField),
      h("div.buttons", {}, h("button", { type: "button", name: "admin-edit-power", onclick: () => {
        const p = this.state.powers[pick.value];
        const changed = {};
        for (const f of FIGURES) {
          const value = Number.parseInt(inputs[f].value, 10);
          if (f === "fuel" && p.fuel == null) continue;
          if (!Number.isNaN(value) && value !== p[f]) changed[f] = value;
        }
        this.edit("powers", Object.keys(changed).length ? { [pick.value]: changed } : {}, form, fillIn);
      } }, "Edit the figures")));
    fillIn();
    this.fills.push([form, fillIn]);
    return form;
  }

  /** The combat section of a game without combat tables: players report results, or
   *  the group's tables (the scenario format's `combat` section, docs/scenario.md). Once
   *  tables decide, they are not changed, and the form is gone. */
  combatForm() {
    const section = h("textarea", { name: "edit-combat", rows: 4, spellcheck: "false",
      "aria-label": "The combat section (JSON)" }, '{"results": "reported"}');
    let form = null;
    const fillIn = () => {
      const results = this.state.game.combat_results || {};
      form.hidden = ["overrun", "combat", "barrage"].some((by) => results[by] === "table");
    };
    const send = () => {
      let parsed;
      try {
        parsed = JSON.parse(section.value);
      } catch (error) {
        this.gm.app.showError(new Error(`The combat section is not JSON: ${error.message}`));
        return;
      }
      this.gm.act("edit", { combat: parsed }, "Combat section", form).then(fillIn);
    };
    form = h("fieldset.gm-edit-part", {}, h("legend", {}, "The combat section"),
      h("p.hint", {}, "No combat table decides this game's combats: its scenario has none, "
        + "as every game begun before combat tables (rules version 1). Set whether players "
        + "report results, as they did then, or the group's tables, in the scenario format's "
        + "combat section (docs/scenario.md). Tables, once set, decide every combat after and "
        + "are not changed."),
      section,
      h("div.buttons", {}, h("button", { type: "button", name: "admin-edit-combat", onclick: send },
        "Set the combat section")));
    fillIn();
    this.fills.push([form, fillIn]);
    return form;
  }

  weatherForm() {
    const game = this.state.game;
    const rows = (game.weather_table || []).map((row) => ({
      roll: row.roll,
      weather: h("input", { name: `weather-${row.roll}`, value: row.weather, maxlength: 40, "aria-label": `Weather on ${row.roll}` }),
      dice: h("input", { type: "number", min: 1, max: 4, name: `weather-dice-${row.roll}`, value: row.dice, "aria-label": `Turn-end dice on ${row.roll}` }),
      path: h("input", { type: "number", min: 0, max: 20, name: `weather-path-${row.roll}`, value: row.supply_path, "aria-label": `Supply path on ${row.roll}` }),
    }));
    const from = h("input", { type: "number", min: 1, name: "weather-from-turn",
      value: Math.max(1, (this.state.turn.number || 0) + 1), "aria-label": "From turn" });
    const form = h("fieldset.gm-edit-part", {}, h("legend", {}, "The weather table"),
      h("p.hint", {}, `In force now${game.weather_table_from_turn ? ` (set from turn ${game.weather_table_from_turn})` : ""}; `
        + "a new table applies from the turn given on."),
      h("table.data.compact.weather-table", {},
        h("thead", {}, h("tr", {}, ["Roll", "Weather", "Dice", "Supply path"].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, rows.map((r) => h("tr", {}, h("th", { scope: "row" }, r.roll),
          h("td", {}, r.weather), h("td", {}, r.dice), h("td", {}, r.path))))),
      field("From turn", from),
      h("div.buttons", {},
        h("button", { type: "button", name: "admin-weather", onclick: () => this.gm.act("weather", {
          table: rows.map((r) => ({ roll: r.roll, weather: r.weather.value.trim(),
            dice: Number.parseInt(r.dice.value, 10), supply_path: Number.parseInt(r.path.value, 10) })),
          from_turn: Number.parseInt(from.value, 10) }, "Weather table", form) }, "Set the table"),
        h("button", { type: "button", name: "admin-weather-reset", onclick: () => this.gm.act("weather",
          { table: null, from_turn: Number.parseInt(from.value, 10) }, "The game's own weather table", form) },
        "Back to the game's own table")));
    return form;
  }
}
