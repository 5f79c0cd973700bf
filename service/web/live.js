// Live updates: the SSE stream GET /v1/games/{id}/stream read with fetch() (EventSource
// cannot send the bearer token), resumed with Last-Event-ID; while the stream is not
// available (not deployed: 404, or down), the page polls GET /v1/games/{id} instead.

const POLL_MS = 1500;
const STREAM_RETRY_MS = [1000, 2000, 5000, 10000, 20000];
const MISSING_STREAM_RETRY_MS = 60000; // a server without the stream: look again rarely
const SILENCE_MS = 45000; // the server sends a heartbeat every 15 s

/**
 * Parse a text/event-stream body (WHATWG HTML, server-sent events) and call
 * onMessage({id, event, data}) per dispatched message; onBytes() on every chunk.
 */
export async function readEventStream(body, onMessage, onBytes = () => {}) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let data = [];
  let event = "";
  let id = null;
  const line = (text) => {
    if (text === "") {
      if (data.length) onMessage({ id, event: event || "message", data: data.join("\n") });
      data = [];
      event = "";
      return;
    }
    if (text.startsWith(":")) return; // a comment: heartbeat
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    onBytes();
    buffer += value;
    // A trailing "\r" may be the first half of "\r\n": that line ends in the next chunk.
    const held = buffer.endsWith("\r") ? "\r" : "";
    const parts = (held ? buffer.slice(0, -1) : buffer).split(/\r\n|\r|\n/);
    buffer = parts.pop() + held;
    parts.forEach(line);
  }
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

/**
 * Follow one game. Options:
 *   url:        the stream URL
 *   token:      bearer token
 *   lastSeq():  the newest event seq the page has (sent as Last-Event-ID)
 *   onEvent(e): an event from the stream (the log record, parsed)
 *   poll():     called every POLL_MS while the stream is not connected
 *   onMode(m):  "connecting" | "stream" | "polling" | "stopped"
 *   onFatal(e): the server refused us (401/403): the page should show it; following stops
 * Returns {stop()}.
 */
export function follow({ url, token, lastSeq, onEvent, poll, onMode, onFatal }) {
  const stop = new AbortController();
  let streaming = false;

  async function pollLoop() {
    while (!stop.signal.aborted) {
      await sleep(POLL_MS, stop.signal);
      if (stop.signal.aborted || streaming) continue;
      try {
        await poll();
      } catch (error) {
        console.warn("poll failed", error);
      }
    }
  }

  async function streamLoop() {
    let failures = 0;
    while (!stop.signal.aborted) {
      const attempt = new AbortController();
      const abortAttempt = () => attempt.abort();
      stop.signal.addEventListener("abort", abortAttempt, { once: true });
      let watchdog = null;
      const quiet = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(abortAttempt, SILENCE_MS);
      };
      let wait = STREAM_RETRY_MS[Math.min(failures, STREAM_RETRY_MS.length - 1)];
      try {
        const headers = { Authorization: `Bearer ${token}`, Accept: "text/event-stream" };
        const seq = lastSeq();
        if (seq) headers["Last-Event-ID"] = String(seq);
        const response = await fetch(url, { headers, cache: "no-store", signal: attempt.signal });
        if (response.status === 401 || response.status === 403) {
          onFatal(await problemOf(response));
          break;
        }
        if (!response.ok || !response.body) {
          if ([404, 405, 501].includes(response.status)) wait = MISSING_STREAM_RETRY_MS;
          throw new Error(`stream answered ${response.status}`);
        }
        streaming = true;
        failures = 0;
        onMode("stream");
        quiet();
        await readEventStream(response.body, (message) => {
          let data;
          try {
            data = JSON.parse(message.data);
          } catch {
            return;
          }
          onEvent({ ...message, data });
        }, quiet);
      } catch (error) {
        if (!stop.signal.aborted) console.info("live stream unavailable:", error.message);
      } finally {
        clearTimeout(watchdog);
        stop.signal.removeEventListener("abort", abortAttempt);
      }
      if (stop.signal.aborted) break;
      if (streaming) {
        // The stream ended (server restart, proxy timeout): catch up by polling once
        // and reconnect at once with Last-Event-ID.
        streaming = false;
        wait = STREAM_RETRY_MS[0];
      } else {
        failures += 1;
      }
      onMode("polling");
      try {
        await poll();
      } catch (error) {
        console.warn("poll failed", error);
      }
      await sleep(wait, stop.signal);
    }
    streaming = false;
    onMode(stop.signal.aborted ? "stopped" : "polling");
  }

  onMode("connecting");
  pollLoop();
  streamLoop();
  return { stop: () => stop.abort(), get streaming() { return streaming; } };
}

async function problemOf(response) {
  try {
    return await response.json();
  } catch {
    return { status: response.status, detail: `HTTP ${response.status}` };
  }
}
