// The game master's panel: pause, resume, force and end; invitations (join links) and
// spectators' links; the export as a file, the GM token and a GM link for another
// device; edits of units, hexes, powers and the weather table (gm-edit.js); deadlines;
// rollback with the sides' consent; dropouts; seats (reopen one for a substitute);
// players' requests for new keys (approve = bind the key without the old key's consent,
// the fallback for a lost key); the GM's webhook. Every act goes to POST
// /v1/games/{id}/admin/... with the GM's token, and is logged with the reason given
// here; an act that cannot be undone asks first, saying what it does (confirm.js).

import { confirmAct } from "./confirm.js";
import { fill, formatTime, h, words } from "./dom.js";
import { GmEdit } from "./gm-edit.js";

const DEADLINE_STEPS = ["declare", "initiative.reroll", "initiative.choose", "action", "reaction",
  "combat", "exploitation", "reorganization", "final_reorganization", "production"];

function field(label, control) {
  return h("label.field", {}, h("span", {}, label), control);
}

/**
 * app: {seat, api(path, options), get(suffix) (a read of the game, heavy ones in turn), gamePath(suffix), state(), scenario(), refresh(),
 *       notice(text), showError(error), clearError(), setBusy(node, busy), playUrl(params),
 *       sideTag(side)}
 */
export class GmPanel {
  constructor(root, app) {
    this.root = root;
    this.app = app;
    this.requests = [];
    this.drawn = false;
    this.edit = new GmEdit(this);
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

  /** A button for an act; `ask` (a function of the act's body giving {title,
   *  consequences, confirm}) makes it ask first. */
  button(action, label, body = () => ({}), then = null, ask = null) {
    return h("button", { type: "button", name: `admin-${action.replaceAll("/", "-")}`, onclick: async (event) => {
      const panel = event.currentTarget.closest("fieldset, section, details") || this.root;
      const sent = body();
      if (ask && !(await confirmAct(ask(sent)))) return;
      const data = await this.act(action, sent, label, panel);
      if (data && then) then(data);
    } }, label);
  }

  /** What ending the game does, said before it is done. */
  endConsequences() {
    return { title: "End the game for good?", confirm: "End the game", consequences: [
      "Every side's play stops: no order is taken any more, and no rollback brings it back.",
      "Every dice seed the server holds is revealed, so anyone can check every roll.",
      "The log, the export and every page stay readable; the game cannot be reopened.",
      `Reason in the log: “${this.reason.value || "none given"}”.`] };
  }

  /** The export (the whole verifiable record: GET /export) as a file. */
  async download(button) {
    const { app } = this;
    button.disabled = true;
    try {
      const { data } = await app.get("/export"); // in its turn among the page's heavy requests
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 1)], { type: "application/json" }));
      const link = h("a", { href: url, download: `wif-${app.seat.game}-export.json` });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      app.notice(`✓ Export of ${data.events?.length ?? 0} events downloaded (check it offline: python -m service verify FILE).`);
    } catch (error) {
      app.showError(error);
    } finally {
      button.disabled = false;
    }
  }

  /** The GM token and a link that opens this page as the GM on another device (the
   *  token in the fragment, which the browser never sends), shown when asked. */
  access() {
    const out = h("div.gm-access");
    const seat = this.app.seat;
    const show = h("button", { type: "button", name: "gm-token-show", onclick: () => {
      const link = `${location.origin}${location.pathname}?game=${encodeURIComponent(seat.game)}#gm=${encodeURIComponent(seat.token)}`;
      fill(out, h("p.hint", {}, "Whoever has these is the game master of this game: keep them "
        + "to yourself. The link opens this page as the GM on another device or browser."),
      h("label.field", {}, h("span", {}, "GM token"), h("input", { name: "gm-token", readonly: true, value: seat.token })),
      h("label.field", {}, h("span", {}, "GM link for another device"), h("input", { name: "gm-link", readonly: true, value: link })));
      show.remove();
    } }, "Show the GM token and a GM link for another device");
    fill(out, show);
    return out;
  }

  render() {
    const { app } = this;
    const seat = app.seat;
    this.reason = h("input", { name: "reason", maxlength: 2000, placeholder: "shown in the log" });
    const codes = Object.entries(seat.joinCodes || {});
    this.spectatorOut = h("div.spectator-link");
    this.requestsNode = h("div.key-requests");
    this.seatsNode = h("div.gm-seats");
    this.joinOut = h("div.substitute-link");
    this.rollbackNode = h("div");
    const spectatorName = h("input", { name: "spectator-name", maxlength: 80, value: "spectator" });
    fill(this.root,
      h("p.hint", {}, "You see everything but unrevealed dice seeds. Players sign their own orders; "
        + "every act here is logged with its reason."),
      field("Reason", this.reason),
      h("div.buttons", {}, this.button("pause", "Pause"), this.button("resume", "Resume"),
        this.button("force", "Force the default action"),
        this.button("end", "End the game", () => ({}), null, () => this.endConsequences())),
      h("details.gm-section", {}, h("summary", {}, "Export and access"),
        h("div.buttons", {}, h("button", { type: "button", name: "gm-export", onclick: (event) => this.download(event.currentTarget) },
          "Download the export")),
        this.access()),
      h("details.gm-section.gm-edit-section", { ontoggle: (event) => { if (event.target.open) this.edit.draw(); } },
        h("summary", {}, "Edit the position"),
        h("p.hint", {}, "Correct units, hexes, a power's figures or the weather table; each "
          + "edit is logged with the reason, and a click on the map picks the hex and unit."),
        this.edit.node),
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
      h("details.gm-section", {}, h("summary", {}, "Seats, dropouts and keys"), this.seatsNode, this.joinOut,
        this.requestsNode),
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
            (data) => this.showJoinCode(side, data.join_code), () => ({
              title: `Reopen ${p.name}'s seat (${side})?`, confirm: "Reopen the seat", consequences: [
                `${p.name}'s token stops at once: their page and their webhook stop working.`,
                "The seat waits for a substitute, who joins with a join code shown once, here.",
                "Until then you may play the side; deadlines keep the game moving.",
                "This cannot be undone: the seat goes to whoever joins with the code."] }))));
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
    if (this.edit.drawn) this.edit.refresh();
    else if (this.edit.node.closest("details")?.open) this.edit.draw(); // the map came
    // Requests make no event: they are looked for at most every 15 s (and on demand).
    if (Date.now() - (this.loadedAt || 0) > 15000) await this.loadRequests();
  }

  /** A reopened seat's join code (shown once): its link for the substitute. */
  showJoinCode(side, code) {
    const { app } = this;
    const link = `${location.origin}${app.playUrl({ game: app.seat.game, side, code })}`;
    fill(this.joinOut, h("label.field", {}, h("span", {}, `Join link for the substitute of ${side} (shown once)`),
      h("input", { name: "substitute-link", readonly: true, value: link })));
  }

  /** What approving a key without the old key's consent does, said first. */
  keyConsequences(r) {
    const hours = this.app.state()?.game?.options?.game?.key_wait_hours ?? 24;
    const from = new Date(Date.now() + hours * 3600_000).toISOString();
    return { title: `Approve ${r.name}'s new key without the old key's consent?`,
      confirm: "Approve without consent", consequences: [
        `${r.name}'s old key stops at once: orders it signs are refused.`,
        hours ? `The new key signs only after ${hours} h (from about ${formatTime(from)}): ${r.name} `
          + "cannot order until then, and both pages count down." : "The new key signs at once.",
        "Every side sees in the log that the key was replaced without consent.",
        `If ${r.name} still has the old device, it can approve the new key itself, with no wait: `
          + "this is for a lost key."] };
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
        this.button(`players/${r.player_id}/key`, "approve without the old key", () => ({ public_key: r.public_key }),
          () => this.loadRequests(), () => this.keyConsequences(r)))))
        : h("p.hint", {}, "A player who lost its key makes a new one on its page and asks; approve it here."),
      h("button", { type: "button", name: "key-requests-refresh", onclick: () => this.loadRequests() },
        "Look for new requests"));
  }
}
