// A seat's signing key on this device, and a second device (issue 30):
//
// - "Use on another device" gives a link carrying the seat's token (never its key) in its
//   fragment. The page opened with it makes a key of its own and asks for it at once
//   (POST /players/me/key-request).
// - The device that holds the current key sees the request and, with one click, binds the
//   new key with its consent (POST /players/me/key, signed by the current key): in force at
//   once, no GM, no wait. The GM's approval without consent stays the way back for a lost
//   key; that key then signs only from its `effective_at` (options.game.key_wait_hours).
// - A page whose key stopped (another key took over) turns its order buttons off at once,
//   and both pages count down while a new key waits; the referee would refuse what a page
//   signs before (409 order/key_not_yet_effective, 401 for a key no longer the seat's).

import { $, fill, formatTime, h } from "./dom.js";
import { createKey, hasKey, loadKey, signingUnavailable } from "./keystore.js";
import { keyConsentObject, signObject } from "./wif.js";

export const ORDER_ROOTS = ["#orders", "#wide-forms", "#done-holder"];
const POLL_MS = 15_000;
const POLL_LINK_MS = 3_000; // while the link is shown: the other device is opening it

/** "23 h 59 min", "5 min", "less than a minute" for a wait of `ms`. */
export function waitWords(ms) {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "less than a minute";
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours ? `${hours} h${rest ? ` ${rest} min` : ""}` : `${rest} min`;
}

/** The link that opens this seat on another device: its token (not its key) in the
 *  fragment, which the browser never sends to a server. */
export function deviceLink(seat) {
  return `${location.origin}${location.pathname}?game=${encodeURIComponent(seat.game)}`
    + `&seat=${seat.side}#seat=${encodeURIComponent(JSON.stringify({ token: seat.token,
      player: seat.player, side: seat.side, name: seat.name }))}`;
}

/**
 * app: {seat, api(path, options), gamePath(suffix), saveSeat(seat), showError(error),
 *       notice(text), setBusy(node, busy), events(), refresh()}
 */
export class Devices {
  constructor(app) {
    this.app = app;
    this.seat = app.seat;
    this.card = null; // the key's card at the top of the orders panel
    this.status = null; // its role=status line
    this.timer = null; // the countdown (a timer, never read out unasked)
    this.effectiveAt = null; // ms: this browser's new key signs from then
    this.stopped = null; // why this browser's key signs no more, or null
    this.shownSeq = null; // the player.key_replaced event shown
    this.requests = [];
    this.handover = h("div.handover");
    this.watch = null;
    this.tick = null;
  }

  // ---------------------------------------------------------------- start

  async start() {
    const why = signingUnavailable();
    if (why) {
      this.app.showError(new Error(`You can watch but not send orders: ${why}.`));
      return;
    }
    if (await hasKey(this.seat.keyId).catch(() => false)) {
      this.check();
      this.poll();
      return;
    }
    this.missingKey();
  }

  /** This browser has no key for the seat (another device, or data cleared): a link
   *  opened here asks for a new key at once; otherwise the player asks with a click. */
  missingKey() {
    const status = h("p.hint", { role: "status" });
    const ask = h("button.primary", { type: "button", name: "key-request",
      onclick: () => this.askForKey(ask, status) }, "Make a new key and ask for it");
    this.showCard("No signing key in this browser", h("p.key-missing", {}, "This seat's key "
      + "is not in this browser (another device, or browser data cleared), so orders cannot "
      + "be signed here yet."), ask, status);
    if (this.seat.fromLink) this.askForKey(ask, status);
  }

  async askForKey(ask, status) {
    this.app.setBusy(this.card, true);
    try {
      const key = await createKey(`${this.seat.game}/${this.seat.side}`);
      const { data } = await this.app.api(this.app.gamePath("/players/me/key-request"),
        { method: "POST", token: this.seat.token, body: { public_key: key.publicKey } });
      Object.assign(this.seat, { keyId: key.keyId, publicKey: key.publicKey, fromLink: false });
      this.app.saveSeat(this.seat);
      ask.hidden = true;
      this.card.querySelector(".key-missing")?.remove();
      this.card.querySelector("h2").textContent = "A new signing key for this browser";
      status.textContent = `Asked at ${formatTime(data.created_at)}. On the device that holds `
        + "this seat, the page shows the request: approve it there and this browser signs at "
        + "once. If that device is lost, the game master can approve it instead; the new key "
        + "then waits a day.";
      this.status = status;
      this.check();
    } catch (error) {
      this.app.showError(error);
    } finally {
      this.app.setBusy(this.card, false);
    }
  }

  showCard(title, ...children) {
    if (!this.card) {
      this.card = h("section.card.key-help", { "aria-labelledby": "key-help-title" });
      $("#orders").prepend(this.card);
    }
    fill(this.card, h("h2#key-help-title", {}, title), ...children);
  }

  // ---------------------------------------------------------------- the log says

  /** The newest `player.key_replaced` of this seat (the log is read as it comes): this
   *  browser's key now waits, or signs no more. */
  check() {
    const newest = this.app.events().filter((e) => e.kind === "player.key_replaced"
      && e.data?.player_id === this.seat.player && !e.rolled_back).sort((a, b) => b.seq - a.seq)[0];
    if (!newest || newest.seq === this.shownSeq || !this.seat.publicKey) return;
    this.shownSeq = newest.seq;
    if (newest.data.public_key === this.seat.publicKey) {
      this.waitFor(newest.data.effective_at);
    } else if (!this.seat.keyStoppedAt || this.seat.keyStoppedAt < newest.seq) {
      this.stop(newest);
    }
  }

  /** Another key took this seat: this page's order buttons are off from now on. */
  stop(event) {
    this.requests = []; // the other device's request is answered: nothing to approve here
    clearTimeout(this.pollTimer);
    this.seat.keyStoppedAt = event.seq;
    this.app.saveSeat(this.seat);
    this.stopped = `since ${formatTime(event.at)} another key signs this seat's orders`;
    const at = Date.parse(event.data.effective_at);
    this.timer = h("span.key-countdown", { role: "timer", "aria-live": "off" });
    this.status = h("p.key-wait", { role: "status", "aria-atomic": "true" });
    this.showCard("This browser no longer signs your orders", this.status);
    this.effectiveAt = event.data.consented || Number.isNaN(at) ? null : at;
    this.lock(true);
    this.tickStopped(event);
    this.drawHandover();
  }

  tickStopped(event) {
    clearTimeout(this.tick);
    const left = this.effectiveAt ? this.effectiveAt - Date.now() : 0;
    if (left > 0) {
      const text = `Your new key (on your other device) signs orders in ${waitWords(left)}`;
      if (this.timer.textContent !== text) this.timer.textContent = text;
      fill(this.status, h("strong", {}, this.timer), ` (from ${formatTime(event.data.effective_at)}): `
        + "the game master approved it without this key's consent. This key signs no more, so "
        + "this page sends no orders.");
      this.tick = setTimeout(() => this.tickStopped(event), (left % 60_000) + 50);
      return;
    }
    fill(this.status, h("strong", {}, "Your orders are signed on your other device"),
      `: ${this.stopped}, so this page sends none. To play here again, open this seat's link `
      + "from that device.");
  }

  /** This browser's new key was bound: without consent it waits until `effectiveAt`. */
  waitFor(effectiveAt) {
    const at = Date.parse(effectiveAt);
    if (Number.isNaN(at)) return;
    if (at <= Date.now()) {
      if (this.card) {
        this.showCard("Your new signing key", h("p.key-wait", { role: "status" },
          h("strong", {}, "Your new key is in force"), ": this browser signs your orders."));
      }
      this.effectiveAt = null;
      this.lock(false);
      return;
    }
    this.timer ||= h("span.key-countdown", { role: "timer", "aria-live": "off" });
    if (!this.card || !this.card.contains(this.status) || this.status?.className !== "key-wait") {
      this.status = h("p.key-wait", { role: "status", "aria-atomic": "true" });
      this.showCard("Your new signing key", this.status);
    }
    this.effectiveAt = at;
    fill(this.status, h("strong", {}, this.timer), ` (from ${formatTime(effectiveAt)}): the game `
      + "master approved it without your old key's consent, so it waits. "
      + "Until then this page sends no orders; the referee would refuse them.");
    this.lock(true);
    this.tickWait();
  }

  /** The countdown, written only when its words change (once a minute); when the time
   *  comes, the status says the key is in force and the order buttons are on again. */
  tickWait() {
    clearTimeout(this.tick);
    if (!this.effectiveAt) return;
    const left = this.effectiveAt - Date.now();
    if (left <= 0) {
      this.effectiveAt = null;
      this.lock(false);
      fill(this.status, h("strong", {}, "Your new key is in force"), ": this browser signs your orders.");
      return;
    }
    const text = `Your new key signs orders in ${waitWords(left)}`;
    if (this.timer.textContent !== text) this.timer.textContent = text;
    this.lock(true);
    this.tick = setTimeout(() => this.tickWait(), (left % 60_000) + 50);
  }

  /** An order refused because the key waits (this device's clock was early). */
  refusedForWait(problem) {
    if (problem?.code === "order/key_not_yet_effective") this.waitFor(problem.effective_at);
  }

  /** Why no order may be signed here now, or null. */
  refusal() {
    if (this.stopped) return new Error(`Not sent: ${this.stopped}; this browser's key signs no more.`);
    const left = this.effectiveAt ? this.effectiveAt - Date.now() : 0;
    if (left <= 0) return null;
    return new Error(`Not sent: your new key signs orders from ${formatTime(new Date(this.effectiveAt)
      .toISOString())} (in ${waitWords(left)}); the referee refuses orders it signs before.`);
  }

  get locked() {
    return Boolean(this.stopped || (this.effectiveAt && this.effectiveAt > Date.now()));
  }

  /** The order buttons off (on again); the key's own card stays. Buttons the forms draw
   *  anew while locked are turned off as they come. */
  lock(locked) {
    if (locked && !this.watch) {
      this.watch = new MutationObserver(() => { if (this.locked) this.lock(true); });
      for (const root of ORDER_ROOTS) this.watch.observe($(root), { childList: true, subtree: true });
    }
    for (const root of ORDER_ROOTS) {
      for (const button of $(root).querySelectorAll("button")) {
        if (button.closest(".key-help, .seat-card")) continue;
        if (locked) {
          if (!("keyLocked" in button.dataset)) button.dataset.keyLocked = button.disabled ? "1" : "";
          button.disabled = true;
        } else if ("keyLocked" in button.dataset) {
          button.disabled = button.dataset.keyLocked === "1";
          delete button.dataset.keyLocked;
        }
      }
    }
  }

  // ---------------------------------------------------------------- the other device

  /** Look for the other device's requests now and then (they make no event): often
   *  while the link is shown. */
  poll() {
    clearTimeout(this.pollTimer);
    if (this.stopped) return;
    if (!document.hidden) this.loadRequests();
    this.pollTimer = setTimeout(() => this.poll(), this.linkShown ? POLL_LINK_MS : POLL_MS);
  }

  async loadRequests() {
    try {
      const { data } = await this.app.api(this.app.gamePath("/players/me/key-requests"),
        { token: this.seat.token });
      this.requests = data.requests.filter((r) => !r.approved && r.public_key !== this.seat.publicKey);
    } catch {
      this.requests = [];
    }
    this.drawHandover();
  }

  /** "Your seat on another device": the link (first click), then the other device's
   *  request to approve (second click). */
  handoverNode() {
    this.drawHandover();
    return this.handover;
  }

  drawHandover() {
    const { seat } = this;
    const newest = this.requests[this.requests.length - 1];
    const linkField = this.linkShown && !this.stopped ? h("label.field.device-link", {},
      h("span", {}, "Open this link on the other device (it carries this seat's token, never its key)"),
      h("input", { readonly: true, value: deviceLink(seat), name: "device-link",
        onfocus: (event) => event.target.select() })) : null;
    fill(this.handover,
      newest ? h("div.device-request", { role: "status" },
        h("p", {}, h("strong", {}, "Your other device asks to sign your orders"),
          ` (key ${newest.public_key.slice(0, 10)}…, asked ${formatTime(newest.created_at)}). `
          + "Approve it and it signs at once; this browser then signs no more."),
        h("div.buttons", {}, h("button.primary", { type: "button", name: "device-approve",
          onclick: (event) => this.approve(newest, event.currentTarget) }, "Approve the other device")))
        : null,
      this.stopped ? null : h("div.buttons", {},
        h("button", { type: "button", name: "device-link-show", "aria-expanded": this.linkShown ? "true" : "false",
          onclick: () => {
            this.linkShown = !this.linkShown;
            this.drawHandover();
            this.handover.querySelector("[name=device-link]")?.focus();
            if (this.linkShown) this.poll();
          } }, this.linkShown ? "Hide the link" : "Use on another device")),
      linkField);
  }

  /** Consent to the other device's key with this browser's key: it signs from now on. */
  async approve(request, button) {
    button.disabled = true;
    try {
      const keys = await loadKey(this.seat.keyId);
      const consent = await signObject(keys, keyConsentObject({ game: this.seat.game,
        player: this.seat.player, publicKey: request.public_key }));
      const { data } = await this.app.api(this.app.gamePath("/players/me/key"), { method: "POST",
        token: this.seat.token, body: { public_key: request.public_key, consent } });
      this.requests = [];
      this.app.notice("✓ Your other device signs your orders now.");
      const event = (data.events || []).find((e) => e.kind === "player.key_replaced");
      if (event) this.stop(event);
      this.drawHandover();
      await this.app.refresh();
    } catch (error) {
      button.disabled = false;
      this.app.showError(error);
    }
  }
}
