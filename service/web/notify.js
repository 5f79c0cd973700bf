// A player's notifications for a closed tab (issue 30): e-mail, Discord and Slack
// channels with quiet hours and a digest (PUT/DELETE /channels/{kind}), the player's own
// Standard Webhook (PUT/DELETE /webhook), each with "Send a test" (POST .../test: one
// message at once, and what the receiver answered). docs/api.md, "Channels".

import { fill, h } from "./dom.js";

const KINDS = [
  ["email", "E-mail", "you@example.org", "email"],
  ["discord", "Discord", "https://discord.com/api/webhooks/…", "url"],
  ["slack", "Slack", "https://hooks.slack.com/services/…", "url"],
];

function field(label, control, hint) {
  return h("label.field", {}, h("span", {}, label), control, hint ? h("small", {}, hint) : null);
}

const zone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** app: {seat, api(path, options), gamePath(suffix), showError(error), notice(text),
 *        setBusy(node, busy)} */
export class NotifyPanel {
  constructor(app) {
    this.app = app;
    this.node = h("div.notify-panel");
    this.loaded = false;
    this.said = {}; // kind -> what the last save said, shown when redrawn
  }

  request(path, options = {}) {
    return this.app.api(this.app.gamePath(path), { token: this.app.seat.token, ...options });
  }

  /** Drawn when first opened: the channels and the webhook as the server has them. */
  async load() {
    if (this.loaded) return;
    this.loaded = true;
    fill(this.node, h("p.hint", {}, "Loading…"));
    try {
      const [{ data: channels }, hook] = await Promise.all([
        this.request("/channels"),
        this.request("/webhook").then(({ data }) => data).catch((error) => {
          if (error.status === 404) return null;
          throw error;
        }),
      ]);
      this.draw(channels, hook);
    } catch (error) {
      this.loaded = false;
      fill(this.node, h("p.hint", {}, `Could not load the settings: ${error.message}`));
    }
  }

  draw(channels, hook) {
    const byKind = Object.fromEntries(channels.channels.map((c) => [c.kind, c]));
    fill(this.node,
      h("p.hint", {}, "When the game waits for your side, you are told where you are: each "
        + "channel gets “your move” with the deadline and a link to this page. Quiet hours hold "
        + "a message until they end; a digest waits that many minutes and sends what came "
        + "together."),
      KINDS.map(([kind, label, placeholder, type]) => this.channel(kind, label, placeholder, type,
        byKind[kind], kind !== "email" || channels.email_available)),
      this.webhook(hook));
  }

  channel(kind, label, placeholder, type, shown, available) {
    const quiet = shown?.quiet_hours;
    const target = h("input", { name: `${kind}-target`, type, placeholder, value: shown?.target || "",
      maxlength: 500, disabled: !available, autocomplete: kind === "email" ? "email" : "off" });
    const from = h("input", { name: `${kind}-quiet-from`, type: "time", value: quiet?.from || "",
      "aria-label": `${label}: quiet from` });
    const to = h("input", { name: `${kind}-quiet-to`, type: "time", value: quiet?.to || "",
      "aria-label": `${label}: quiet until` });
    const tz = h("input", { name: `${kind}-timezone`, value: quiet?.timezone || zone(), maxlength: 64,
      "aria-label": `${label}: time zone` });
    const digest = h("input", { name: `${kind}-digest`, type: "number", min: 0, max: 1440, step: 1,
      value: shown?.digest_minutes ?? 0, "aria-label": `${label}: digest minutes` });
    const out = h("p.channel-result", { role: "status" }, this.said[kind] || "");
    delete this.said[kind];
    const state = shown ? (shown.state === "disabled"
      ? h("span.out", {}, ` disabled: ${shown.reason || "every delivery failed"}; save it again to enable it`)
      : h("span.in", {}, " active")) : h("span.muted", {}, " not set");
    const box = h("fieldset.channel", { dataset: { channel: kind } },
      h("legend", {}, label, state),
      available ? null : h("p.hint", {}, "This server sends no e-mail (its operator set no SMTP server)."),
      field(kind === "email" ? "Address" : "Incoming webhook URL", target),
      h("div.inline-row", {}, h("span.inline-label", {}, "Quiet hours"), from, h("span", {}, "to"), to, tz),
      h("div.inline-row", {}, field("Digest (minutes; 0: each at once)", digest)),
      h("div.buttons", {},
        h("button.primary", { type: "button", name: `${kind}-save`, disabled: !available, onclick: () => this.act(box, out, async () => {
          const body = { target: target.value.trim(), digest_minutes: Number.parseInt(digest.value, 10) || 0 };
          if (from.value && to.value) body.quiet_hours = { from: from.value, to: to.value, timezone: tz.value.trim() || "UTC" };
          await this.request(`/channels/${kind}`, { method: "PUT", body });
          this.said[kind] = `✓ Saved: ${label} tells you your moves.`;
          this.reload();
        }) }, "Save"),
        h("button", { type: "button", name: `${kind}-test`, disabled: !shown, onclick: () => this.act(box, out, async () => {
          out.textContent = this.result(label, (await this.request(`/channels/${kind}/test`, { method: "POST", body: {} })).data);
        }) }, "Send a test"),
        h("button", { type: "button", name: `${kind}-remove`, disabled: !shown, onclick: () => this.act(box, out, async () => {
          await this.request(`/channels/${kind}`, { method: "DELETE" });
          this.reload();
        }) }, "Remove")),
      out);
    return box;
  }

  webhook(hook) {
    const url = h("input", { name: "webhook-url", type: "url", placeholder: "https://…", value: hook?.url || "" });
    const every = h("input", { name: "webhook-every", type: "checkbox", checked: Boolean(hook?.every_event) });
    const out = h("p.channel-result", { role: "status" }, this.said.webhook || "");
    delete this.said.webhook;
    const state = hook ? (hook.state === "disabled" ? h("span.out", {}, ` disabled: ${hook.reason}`)
      : h("span.in", {}, " active")) : h("span.muted", {}, " not set");
    const box = h("fieldset.channel", { dataset: { channel: "webhook" } },
      h("legend", {}, "Your webhook (for a program)", state),
      field("URL", url, "Signed the Standard Webhooks way; a program keeps its own hours."),
      h("label.toggle", {}, every, " every event, not only your moves"),
      h("div.buttons", {},
        h("button.primary", { type: "button", name: "webhook-save", onclick: () => this.act(box, out, async () => {
          const { data } = await this.request("/webhook", { method: "PUT",
            body: { url: url.value.trim(), every_event: every.checked } });
          this.said.webhook = `✓ Saved. Its signing secret (shown once): ${data.secret}`;
          this.reload();
        }) }, "Save"),
        h("button", { type: "button", name: "webhook-test", disabled: !hook, onclick: () => this.act(box, out, async () => {
          out.textContent = this.result("The webhook", (await this.request("/webhook/test", { method: "POST", body: {} })).data);
        }) }, "Send a test"),
        h("button", { type: "button", name: "webhook-remove", disabled: !hook, onclick: () => this.act(box, out, async () => {
          await this.request("/webhook", { method: "DELETE" });
          this.reload();
        }) }, "Remove")),
      out);
    return box;
  }

  result(label, sent) {
    return sent.delivered
      ? `✓ ${label}: a test message was delivered to ${sent.target}${sent.status_code ? ` (HTTP ${sent.status_code})` : ""}.`
      : `✗ ${label}: the test message was not delivered: ${sent.error}.`;
  }

  async act(box, out, run) {
    this.app.setBusy(box, true);
    out.textContent = "";
    try {
      await run();
    } catch (error) {
      this.app.showError(error);
    } finally {
      this.app.setBusy(box, false);
    }
  }

  reload() {
    this.loaded = false;
    this.load();
  }
}
