// Port repairs in the reorganization panel (11.18.4: "Damaged ports can receive RPs in
// order to repair the port only"; RULES-NOTES 23): the side's damaged ports from
// GET /reorg/repairs, for each the ways to repair it now (nearest primary source first,
// as an order would check them) or why none works. A way chosen goes into the panel's
// basket as a `port_repair` item, keyed `port:<hex>` beside the units.

import { h } from "./dom.js";

/** The basket key of a port's repair. */
export const repairKey = (port) => `port:${port}`;

/** The basket key an event of a `reorg` dry run is about: its unit, or its port. */
export const eventKey = (data) => (data?.unit ? data.unit : data?.repairs ? repairKey(data.repairs) : null);

/** Whether the state shows a damaged port of my side (else nothing is asked). */
const anyDamaged = (state) => (state.reorg?.ports || []).some((p) => p.damaged);

export class Repairs {
  constructor() {
    this.data = null; // GET /reorg/repairs
    this.version = null;
    this.loading = false;
  }

  /** Read the repairs again when the game moved on; `redraw` when they came. */
  refresh(ctx, redraw) {
    const version = ctx.state.game.version;
    if (!anyDamaged(ctx.state)) {
      this.data = null;
      return;
    }
    if (this.loading || this.version === version) return;
    this.loading = true;
    this.version = version;
    ctx.get("/reorg/repairs").then((data) => { this.data = data; },
      (error) => { this.version = null; ctx.showError(error); })
      .finally(() => { this.loading = false; redraw(); });
  }

  /** Whether a basket entry's port is still damaged (a repair done leaves the basket). */
  stillDamaged(ctx, key) {
    const port = key.slice("port:".length);
    return (ctx.state.reorg?.ports || []).some((p) => p.hex === port && p.damaged);
  }

  /** The section: each damaged port paid by `payer`, its ways to repair and an add
   *  button each (`add(option, label)`); the others' ports named. */
  view(ctx, payer, basket, add, placeName) {
    if (!this.data?.ports?.length) return null;
    const mine = this.data.ports.filter((r) => r.power === payer);
    const others = this.data.ports.filter((r) => r.power !== payer);
    return h("div.reorg-repairs", {},
      h("h3", {}, `Damaged ports (${this.data.ports.length})`),
      h("p.hint", {}, "A damaged port receives RPs to repair it, and nothing else (11.18.4); "
        + "repaired, it works at once. The cost is the port's (RULES-NOTES 23)."),
      mine.length ? h("ul.options", {}, mine.map((r) => {
        const label = `port of ${placeName(r.port)}`;
        const chosen = basket.get(repairKey(r.port));
        return h("li.option", { dataset: { port: r.port } },
          h("div.option-head", {}, h("strong", {}, `${label} (${r.kind})`)),
          r.options.length ? h("ul.repair-ways", {}, r.options.map((o) => {
            const same = chosen && JSON.stringify(chosen.item) === JSON.stringify(o.item);
            return h("li", {},
              `from ${placeName(o.item.source)}`, " ",
              h(`span.cost${o.affordable === false ? ".over" : ""}`, {}, `${o.cost} RPs`), " ",
              h("button", { type: "button", name: `reorg-repair-${r.port}-${o.item.source}`,
                disabled: same, onclick: () => add(o, label) },
              same ? "in basket" : chosen ? "use instead" : "add"));
          })) : h("p.illegal-reason", {}, r.illegal[0]?.reason || "no way to repair it now",
            r.illegal[0]?.rule ? h("small", {}, ` (${r.illegal[0].rule})`) : null));
      })) : null,
      others.length ? h("p.hint", {}, `Paid by another power: ${others.map((r) =>
        `${placeName(r.port)} (${r.power})`).join(", ")}.`) : null);
  }
}
