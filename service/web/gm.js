// The game master's panel: pause, resume, force and end; invitations (join links) and
// spectators' links; deadlines; rollback with the sides' consent; dropouts; seats
// (reopen one for a substitute); players' requests for new keys (approve = bind the
// key); the GM's webhook. Every act goes to POST /v1/games/{id}/admin/... with the GM's
// token, and is logged with the reason given here.

import { fill, h, words } from "./dom.js";

const DEADLINE_STEPS = ["declare", "initiative.reroll", "initiative.choose", "action", "reaction",
  "combat", "exploitation", "reorganization", "final_reorganization", "production"];

function field(label, control) {
  return h("label.field", {}, h("span", {}, label), control);
}

/**
 * app: {seat, api(path, options), gamePath(suffix), state(), refresh(), notice(text),
 *       showError(error), clearError(), setBusy(node, busy), playUrl(params), sideTag(side)}
 */
export class GmPanel {
  constructor(root, app) {
    this.root = root;
    this.app = app;
    this.requests = [];
    this.drawn = false;
  }

  async act(action, body, label, panel) {
    const { app } = this;
    app.setBusy(panel, true);
    app.clearError();
    try {
      const { data } = await app.api(app.gamePath(`/admin/${action}`), { method: "POST",
        token: app.seat.token, body: { reason: this.reason.value, ...body } });
      app.notice(`✓ ${label}: ${data.events?.length ?? 0} event(s).`);
      await app.refresh();
      return data;
    } catch (error) {
      app.showError(error);
      return null;
    } finally {
      app.setBusy(panel, false);
    }
  }

  button(action, label, body = () => ({}), then = null) {
    return h("button", { type: "button", name: `admin-${action.replaceAll("/", "-")}`, onclick: async (event) => {
      const panel = event.currentTarget.closest("section, details") || this.root;
      const data = await this.act(action, body(), label, panel);
      if (data && then) then(data);
    } }, label);
  }

  render() {
    const { app } = this;
    const seat = app.seat;
    this.reason = h("input", { name: "reason", maxlength: 2000, placeholder: "shown in the log" });
    const codes = Object.entries(seat.joinCodes || {});
    this.spectatorOut = h("div.spectator-link");
    this.requestsNode = h("div.key-requests");
    this.seatsNode = h("div.gm-seats");
    this.rollbackNode = h("div");
    const spectatorName = h("input", { name: "spectator-name", maxlength: 80, value: "spectator" });
    fill(this.root,
      h("p.hint", {}, "You see everything but unrevealed dice seeds. Players sign their own orders; "
        + "every act here is logged with its reason."),
      field("Reason", this.reason),
      h("div.buttons", {}, this.button("pause", "Pause"), this.button("resume", "Resume"),
        this.button("force", "Force the default action"), this.button("end", "End the game")),
      h("details.gm-section", { open: true }, h("summary", {}, "Invitations and spectators"),
        codes.length ? h("ul.invites", {}, codes.map(([side, code]) => h("li", {}, app.sideTag(side), " ",
          h("a", { href: app.playUrl({ game: seat.game, side, code }) }, `join link for ${side}`),
          h("code", {}, ` ${code}`)))) : h("p.hint", {}, "The join codes were shown when the game was created."),
        field("Spectator's name", spectatorName),
        h("div.buttons", {}, h("button", { type: "button", name: "admin-spectator", onclick: async (event) => {
          const panel = event.currentTarget.closest("details");
          app.setBusy(panel, true);
          try {
            const { data } = await app.api(app.gamePath("/admin/spectators"), { method: "POST",
              token: seat.token, body: { name: spectatorName.value || "spectator" } });
            const link = `${location.origin}${location.pathname}?game=${encodeURIComponent(seat.game)}#watch=${data.token}`;
            fill(this.spectatorOut, h("label.field", {}, h("span", {}, `Link for ${data.name} (shown once)`),
              h("input", { name: "spectator-link", readonly: true, value: link })),
            h("a", { href: link, target: "_blank", rel: "noopener" }, "open it"));
          } catch (error) {
            app.showError(error);
          } finally {
            app.setBusy(panel, false);
          }
        } }, "Invite a spectator")),
        this.spectatorOut),
      this.deadlines(),
      h("details.gm-section", {}, h("summary", {}, "Rollback"), this.rollbackNode),
      h("details.gm-section", {}, h("summary", {}, "Seats, dropouts and keys"), this.seatsNode, this.requestsNode),
      this.webhook());
    this.drawn = true;
  }

  deadlines() {
    const inputs = DEADLINE_STEPS.map((step) => ({ step, input: h("input", { type: "number", min: 0, step: 0.5,
      name: `deadline-${step}`, placeholder: "none", "aria-label": `Hours for ${words(step)}` }) }));
    return h("details.gm-section", {}, h("summary", {}, "Deadlines"),
      h("p.hint", {}, "Hours each step may take; when one passes the default answer is given. Empty: no deadline."),
      h("table.compact", {}, h("tbody", {}, inputs.map(({ step, input }) => h("tr", {},
        h("th", { scope: "row" }, words(step)), h("td", {}, input))))),
      h("div.buttons", {}, this.button("deadlines", "Set the deadlines", () => ({
        deadlines: Object.fromEntries(inputs.map(({ step, input }) => [step,
          input.value === "" ? null : Math.round(Number(input.value) * 3600)])) }))));
  }

  webhook() {
    const { app } = this;
    const url = h("input", { name: "webhook-url", type: "url", placeholder: "https://…" });
    const out = h("div");
    return h("details.gm-section", {}, h("summary", {}, "Webhook"),
      h("p.hint", {}, "Every event of the game and deadline notices, signed the Standard Webhooks way."),
      field("URL", url),
      h("div.buttons", {}, h("button", { type: "button", name: "webhook-save", onclick: async () => {
        try {
          const { data } = await app.api(app.gamePath("/webhook"), { method: "PUT", token: app.seat.token,
            body: { url: url.value.trim(), every_event: true } });
          fill(out, h("p", {}, "Registered. Its secret (shown once): ", h("code", {}, data.secret)));
        } catch (error) {
          app.showError(error);
        }
      } }, "Register")), out);
  }

  /** The parts that follow the state: rollback, seats and dropouts, key requests. */
  async update(state) {
    if (!this.drawn) this.render();
    const proposal = state.rollback?.proposal;
    const turn = h("input", { type: "number", name: "rollback-turn", min: 1, value: state.turn.number, "aria-label": "Turn" });
    const impulse = h("input", { type: "number", name: "rollback-impulse", min: 1, value: Math.max(1, state.turn.impulse), "aria-label": "Impulse" });
    const by = h("select", { name: "rollback-requested-by", "aria-label": "Asked for by" },
      h("option", { value: "" }, "nobody (the GM)"), Object.keys(state.sides).map((s) => h("option", { value: s }, s)));
    if (!this.rollbackNode.contains(document.activeElement)) {
      fill(this.rollbackNode,
        proposal ? h("p", {}, `Proposal ${proposal.number}: back to turn ${proposal.turn}, impulse ${proposal.impulse}; `
          + `consented: ${proposal.consented.join(", ") || "nobody yet"}; needed: ${proposal.needs.join(", ")}.`,
        " ", this.button("rollback/withdraw", "Withdraw the proposal")) : null,
        h("div.inline-row", {}, field("Turn", turn), field("Impulse", impulse), field("Asked for by", by)),
        h("p.hint", {}, "Past revealed dice, every other side must consent."),
        h("div.buttons", {}, this.button("rollback", "Roll back", () => ({ turn: Number(turn.value),
          impulse: Number(impulse.value), ...(by.value ? { requested_by: by.value } : {}) }))));
    }
    if (!this.seatsNode.contains(document.activeElement)) {
      const rows = Object.entries(state.sides).map(([side, s]) => {
        const players = s.players.map((p) => h("div", {}, `${p.name}${p.vacant ? " (vacant)" : ""} `,
          p.vacant ? null : this.button(`players/${p.player_id}/reassign`, "reopen the seat", () => ({}),
            (data) => this.app.notice(`Seat reopened: join code ${data.join_code}`))));
        const dropout = `${s.dropout.policy}${s.dropout.dropped_out ? ", dropped out" : ""}, `
          + `missed ${s.dropout.missed} deadline${s.dropout.missed === 1 ? "" : "s"}`;
        const act = this.button("dropout", s.dropout.dropped_out ? "return it to its players" : "declare it dropped out",
          () => ({ side, dropped: !s.dropout.dropped_out }));
        return h("tr", {}, h("th", { scope: "row" }, this.app.sideTag(side)), h("td", {}, players),
          h("td", {}, dropout), h("td", {}, act));
      });
      fill(this.seatsNode, h("table.data.compact.stacking", {},
        h("thead", {}, h("tr", {}, ["Side", "Players", "Dropout", "Act"].map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, rows)));
    }
    // Requests make no event: they are looked for at most every 15 s (and on demand).
    if (Date.now() - (this.loadedAt || 0) > 15000) await this.loadRequests();
  }

  /** Players' requests for a new key (a lost key, another device): approving one binds
   *  the key the player made (admin/players/{id}/key). */
  async loadRequests() {
    this.loadedAt = Date.now();
    try {
      const { data } = await this.app.api(this.app.gamePath("/admin/key-requests"), { token: this.app.seat.token });
      this.requests = data.requests;
    } catch {
      this.requests = [];
    }
    const pending = this.requests.filter((r) => !r.approved);
    fill(this.requestsNode, h("h3", {}, `Key requests (${pending.length} waiting)`),
      pending.length ? h("ul", {}, pending.map((r) => h("li", { dataset: { player: r.player_id } },
        `${r.name} (${r.side}) asks for key `, h("code", {}, `${r.public_key.slice(0, 10)}…`),
        ` at ${new Date(r.created_at).toLocaleString()} `,
        this.button(`players/${r.player_id}/key`, "approve", () => ({ public_key: r.public_key }),
          () => this.loadRequests()))))
        : h("p.hint", {}, "A player who lost its key makes a new one on its page and asks; approve it here."),
      h("button", { type: "button", name: "key-requests-refresh", onclick: () => this.loadRequests() },
        "Look for new requests"));
  }
}
