// Live updates: the SSE stream GET /v1/games/{id}/stream opened with the browser's own
// EventSource. An EventSource cannot send the bearer token, so each connection first
// asks for a single-use ticket (POST .../stream/tickets, 60 s) and opens
// `?ticket=...&after=<the newest seq the page has>`. A ticket opens one connection
// once, so the EventSource is never left to reconnect by itself: on any error it is
// closed, the page catches up by polling once, and a new ticket opens a new one. While
// the stream is not available (not deployed: 404, or down), the page polls
// GET /v1/games/{id} instead. docs/api.md, "Streams", describes the protocol.

import { EVENT_KINDS } from "./kinds.js";

const POLL_MS = 1500;
const STREAM_RETRY_MS = [1000, 2000, 5000, 10000, 20000];
const MISSING_STREAM_RETRY_MS = 60000; // a server without the stream: look again rarely
// EventSource hides the heartbeats (SSE comments) from the page, so a connection that
// died without closing is found another way: every CHECK_MS the page asks for the
// game's newest seq, and a stream still behind it at the next check is reopened.
const CHECK_MS = 30000;

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

class StreamUnavailable extends Error {
  constructor(message, { missing = false, problem = null } = {}) {
    super(message);
    this.missing = missing; // the server has no stream (404, 405, 501)
    this.problem = problem; // the server refused us (401, 403): following must stop
  }
}

/**
 * Follow one game. Options:
 *   url:        the stream URL (tickets are asked for at `${url}/tickets`)
 *   token:      bearer token (sent only to ask for a ticket, never in a URL)
 *   lastSeq():  the newest event seq the page has (the stream resumes after it)
 *   onEvent(e): an event from the stream: {id, event, data: the log record, parsed}
 *   poll():     called every POLL_MS while the stream is not connected
 *   head():     async, the game's newest seq (checks that the stream keeps up)
 *   onMode(m):  "connecting" | "stream" | "polling" | "stopped"
 *   onFatal(e): the server refused us (401/403): the page should show it; following stops
 * Returns {stop()}.
 */
export function follow({ url, token, lastSeq, onEvent, poll, head, onMode, onFatal }) {
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

  async function ticket() {
    const response = await fetch(`${url}/tickets`, {
      method: "POST", headers: { Authorization: `Bearer ${token}` }, cache: "no-store",
      signal: stop.signal,
    });
    if (response.status === 401 || response.status === 403) {
      throw new StreamUnavailable("refused", { problem: await problemOf(response) });
    }
    if (!response.ok) {
      throw new StreamUnavailable(`stream ticket answered ${response.status}`,
        { missing: [404, 405, 501].includes(response.status) });
    }
    return response.json();
  }

  /** One EventSource until it fails or following stops; whether it ever opened. */
  function connect(issued) {
    return new Promise((resolve) => {
      const source = new EventSource(`${issued.url}&after=${lastSeq() || 0}`);
      let opened = false;
      let behind = null; // the server's head at the last check, when the page was behind it
      const check = setInterval(async () => {
        try {
          const seq = await head();
          if (behind !== null && lastSeq() < behind) finish(); // no progress in CHECK_MS
          behind = seq > lastSeq() ? seq : null;
        } catch (error) {
          console.info("stream check failed:", error.message);
        }
      }, CHECK_MS);
      function finish() {
        clearInterval(check);
        source.close();
        stop.signal.removeEventListener("abort", finish);
        resolve(opened);
      }
      stop.signal.addEventListener("abort", finish, { once: true });
      source.onopen = () => {
        opened = true;
        streaming = true;
        onMode("stream");
      };
      // Closed, refused or dropped: the ticket is spent, so EventSource must not retry.
      source.onerror = finish;
      const deliver = (message) => {
        let data;
        try {
          data = JSON.parse(message.data);
        } catch {
          return;
        }
        onEvent({ id: message.lastEventId, event: message.type, data });
      };
      for (const kind of EVENT_KINDS) source.addEventListener(kind, deliver);
      source.onmessage = deliver; // an unnamed event, should a newer server send one
    });
  }

  async function streamLoop() {
    let failures = 0;
    while (!stop.signal.aborted) {
      let wait = STREAM_RETRY_MS[Math.min(failures, STREAM_RETRY_MS.length - 1)];
      let opened = false;
      try {
        opened = await connect(await ticket());
      } catch (error) {
        if (error.problem) {
          onFatal(error.problem);
          break;
        }
        if (error.missing) wait = MISSING_STREAM_RETRY_MS;
        if (!stop.signal.aborted) console.info("live stream unavailable:", error.message);
      }
      if (stop.signal.aborted) break;
      if (opened) {
        // The stream ended (server restart, proxy timeout): catch up by polling once
        // and reconnect at once, after the newest event the page has.
        failures = 0;
        wait = STREAM_RETRY_MS[0];
      } else {
        failures += 1;
      }
      streaming = false;
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
