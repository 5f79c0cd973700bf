// The WiF referee's client kit: one dependency-free ES module (ES2022 and WebCrypto)
// for browsers and Node 20+. It holds what any frontend needs to play: RFC 8785
// canonical JSON, base64url, Ed25519 keys, signed orders and joins, and a small
// client of the /v1 API whose errors carry the server's RFC 9457 problem. The server
// serves it, with CORS open to any origin, at /client/wif.js, and the TypeScript types
// of its API at /client/wif-api.d.ts. The /play page imports it too.
// docs/client.md shows it at work.

/**
 * @module wif
 * @example
 * import { generateKeyPair, WifClient } from "https://referee.example/client/wif.js";
 * const keys = await generateKeyPair();
 * const client = await WifClient.join("https://referee.example",
 *   { game, side: "axis", joinCode, name: "Dave", keys });
 * const summary = await client.summary();          // awaiting, position, head
 * await client.order("declare", { actions: { germany: "land" } });
 */

/** @typedef {import("./wif-api").components["schemas"]} Schemas */
/** @typedef {Schemas["Summary"]} Summary the answer of GET /v1/games/{id} */
/** @typedef {Schemas["StateAnswer"]} State the answer of GET /v1/games/{id}/state */
/** @typedef {Schemas["Joined"]} Joined the answer of POST /v1/games/{id}/seats/{side} */
/** @typedef {Schemas["Position"]} Position the turn, impulse and step an order pins */
/** @typedef {Schemas["Problem"]} Problem an RFC 9457 problem, as the server sends it */
/** @typedef {Schemas["Accepted"]} Accepted the answer of an order taken (201) */
/** @typedef {Schemas["Preview"]} Preview the answer of a dry run */
/** @typedef {Schemas["SignedOrder"]["order"]} AnyOrder an order of any kind, by `kind` */
/** @typedef {AnyOrder["kind"]} OrderKind every order kind: "declare", "mode", "reorg"... */

/**
 * The body of an order of kind `K` (the schema `<Kind>Order` of /openapi.json).
 * @template {OrderKind} K
 * @typedef {Extract<AnyOrder, {kind: K}>["body"]} OrderBody
 */

/**
 * What `signOrder` signs: the order object. Its `step` is the position's (the schema
 * `<Kind>Order` names the steps the kind answers; the server refuses another with 409
 * `order/wrong_step`).
 * @template {OrderKind} [K=OrderKind]
 * @typedef {object} Order
 * @property {string} game the game's id
 * @property {string} player the signer: a player's id, or "gm"
 * @property {number} seq unique per signer; a resent order with the same seq and bytes
 *   gets its first answer again
 * @property {string} prev the hash of the newest event the signer saw (the game's `head`)
 * @property {number} turn
 * @property {number} impulse
 * @property {Position["step"]} step
 * @property {K} kind the order's kind, e.g. "declare", "mode", "reorg"
 * @property {OrderBody<K>} body the kind's body
 */

/**
 * @template {OrderKind} [K=OrderKind]
 * @typedef {object} Envelope what POST /v1/games/{id}/orders takes
 * @property {Order<K>} order
 * @property {string} signature base64url Ed25519 signature of `order`'s RFC 8785 bytes
 */

/** @typedef {CryptoKey | CryptoKeyPair} SigningKey an Ed25519 private key, or a pair holding one */

/** The `type` of the object a joining player signs. */
export const JOIN_TYPE = "wif-join/1";
/** The `type` of the object a player signs to agree to a new key. */
export const KEY_CONSENT_TYPE = "wif-key-consent/1";

const ED25519 = { name: "Ed25519" };
// PKCS #8 wrapping of a raw 32-byte Ed25519 private key (RFC 8410): this prefix + the key.
const PKCS8_ED25519_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

// ------------------------------------------------------------------ canonical JSON

/**
 * A value that has no RFC 8785 canonical form, so it cannot be signed (and the server
 * refuses it: 422 `order/not_canonical`). `path` is the JSON pointer of the value.
 */
export class CanonicalJSONError extends TypeError {
  /**
   * @param {string} message
   * @param {string} path
   */
  constructor(message, path) {
    super(`${path || "/"}: ${message}`);
    this.name = "CanonicalJSONError";
    /** The JSON pointer of the offending value ("" for the value itself). */
    this.path = path;
  }
}

// In a regular expression with the `u` flag, \p{Surrogate} matches only lone surrogates
// (a pair is one code point).
const LONE_SURROGATE = /\p{Surrogate}/u;
const pointer = (/** @type {string} */ key) => key.replaceAll("~", "~0").replaceAll("/", "~1");

/**
 * RFC 8785 (JCS) canonical JSON of `value`: the text whose UTF-8 bytes orders and joins
 * are signed over. Takes what JSON can carry: null, booleans, strings, finite numbers,
 * arrays and plain objects. Object keys are sorted by UTF-16 code units; strings and
 * numbers are written as ECMAScript's JSON.stringify writes them (ECMAScript's
 * Number.prototype.toString is RFC 8785's number format: 4.5, 0.002, 1e+30, and -0 is
 * 0). As JSON.stringify does, object properties whose value is `undefined` are left
 * out and `undefined` array items are written `null`.
 *
 * Throws CanonicalJSONError, naming the value's JSON pointer, for what the server
 * refuses: NaN and infinities; numbers beyond ±(2^53 − 1) (every such number is whole,
 * the server reads whole numbers as integers, and no order field takes an integer
 * beyond that range: RFC 8785 would write 1e+30, but the kit refuses to sign what the
 * server will not take); strings with lone surrogates; BigInts, functions, symbols,
 * objects with `toJSON` or that are not plain (Date, Map, ...) and cycles.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJSON(value) {
  return serialize(value, "", new Set());
}

/**
 * @param {unknown} value
 * @param {string} path
 * @param {Set<object>} open the objects being serialized around `value` (cycles)
 * @returns {string}
 */
function serialize(value, path, open) {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return quote(value, path);
    case "number":
      return number(value, path);
    case "object":
      break;
    case "bigint":
      throw new CanonicalJSONError(`the BigInt ${value} has no JSON form: use a number `
        + "within ±(2^53 − 1)", path);
    default:
      throw new CanonicalJSONError(`a ${typeof value} has no JSON form`, path);
  }
  if (open.has(value)) throw new CanonicalJSONError("the value contains itself (a cycle)", path);
  open.add(value);
  try {
    if (Array.isArray(value)) {
      const items = Array.from(value, (item, i) =>
        (item === undefined ? "null" : serialize(item, `${path}/${i}`, open)));
      return `[${items.join(",")}]`;
    }
    const record = /** @type {Record<string, unknown>} */ (value);
    const tag = Object.prototype.toString.call(value);
    if (tag !== "[object Object]" || typeof record.toJSON === "function") {
      throw new CanonicalJSONError(`${tag.slice(8, -1)} is not a plain object: only plain `
        + "objects, arrays, strings, numbers, booleans and null have a canonical form", path);
    }
    // Array.prototype.sort without a comparator orders by UTF-16 code units (RFC 8785 3.2.3).
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
    const members = keys.map((key) => {
      const at = `${path}/${pointer(key)}`;
      return `${quote(key, at)}:${serialize(record[key], at, open)}`;
    });
    return `{${members.join(",")}}`;
  } finally {
    open.delete(value);
  }
}

/**
 * @param {string} text
 * @param {string} path
 */
function quote(text, path) {
  if (LONE_SURROGATE.test(text)) {
    throw new CanonicalJSONError("the string has a lone surrogate: it is not Unicode text, "
      + "so it has no UTF-8 form", path);
  }
  return JSON.stringify(text);
}

/**
 * @param {number} value
 * @param {string} path
 */
function number(value, path) {
  if (!Number.isFinite(value)) {
    throw new CanonicalJSONError(`${value} is not a JSON number (RFC 8785 refuses NaN and `
      + "infinities)", path);
  }
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) {
    throw new CanonicalJSONError(`${value} is beyond ±(2^53 − 1) (${Number.MAX_SAFE_INTEGER}): `
      + "the server reads whole numbers as integers and takes none beyond that", path);
  }
  return String(value); // Number::toString: RFC 8785 3.2.2.3
}

/**
 * The UTF-8 bytes of `canonicalJSON(value)`: what is signed and hashed.
 * @param {unknown} value
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function canonicalBytes(value) {
  return new TextEncoder().encode(canonicalJSON(value));
}

// ------------------------------------------------------------------ base64url

/**
 * Base64url without padding (RFC 4648 section 5): how keys and signatures are written.
 * @param {ArrayBuffer | ArrayBufferView} bytes
 * @returns {string}
 */
export function base64url(bytes) {
  const view = bytes instanceof Uint8Array ? bytes
    : ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      : new Uint8Array(bytes);
  let text = "";
  for (const byte of view) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/**
 * The bytes of base64url `text` (padding optional). Throws TypeError when it is not
 * base64url.
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function base64urlDecode(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*={0,2}$/.test(text) || text.length % 4 === 1) {
    throw new TypeError("not base64url text");
  }
  const binary = atob(text.replace(/=+$/, "").replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

// ------------------------------------------------------------------ Ed25519 keys

/**
 * Why WebCrypto signing cannot work here, or null when it can. Browsers offer
 * `crypto.subtle` only in a secure context (https, or http://localhost / 127.0.0.1).
 * @returns {string | null}
 */
export function webCryptoUnavailable() {
  if (globalThis.isSecureContext === false || !globalThis.crypto?.subtle) {
    return "this page is not a secure context (use https, or http://localhost / 127.0.0.1): "
      + "the browser only allows WebCrypto signing there";
  }
  return null;
}

/**
 * A new Ed25519 key pair from WebCrypto. The private key is not extractable: no code,
 * this module's included, can read it, only sign with it. A browser can keep the pair in
 * IndexedDB as it is (structured clone), still unreadable.
 * @returns {Promise<CryptoKeyPair>}
 */
export async function generateKeyPair() {
  try {
    return /** @type {CryptoKeyPair} */ (
      await crypto.subtle.generateKey(ED25519, false, ["sign", "verify"]));
  } catch (error) {
    throw new Error(`this runtime cannot make Ed25519 keys with WebCrypto (${errorText(error)}); `
      + "use a current Chromium, Firefox or Safari, or Node 20+");
  }
}

/**
 * A key pair from a raw 32-byte Ed25519 private key (as base64url or bytes), such as
 * the file `wif keygen` writes. The private key is imported as not extractable.
 * @param {string | Uint8Array} privateKey
 * @returns {Promise<CryptoKeyPair>}
 */
export async function importKeyPair(privateKey) {
  const raw = typeof privateKey === "string" ? base64urlDecode(privateKey) : privateKey;
  if (raw.length !== 32) throw new TypeError("an Ed25519 private key is 32 bytes");
  const pkcs8 = new Uint8Array([...PKCS8_ED25519_PREFIX, ...raw]);
  // The public half is read from a short-lived extractable copy's JWK (`x`).
  const copy = await crypto.subtle.importKey("pkcs8", pkcs8, ED25519, true, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", copy);
  if (!jwk.x) throw new Error("this runtime did not give the Ed25519 public key");
  return {
    privateKey: await crypto.subtle.importKey("pkcs8", pkcs8, ED25519, false, ["sign"]),
    publicKey: await importPublicKey(jwk.x),
  };
}

/**
 * The public key as the server takes it: base64url of its raw 32 bytes.
 * @param {CryptoKey | CryptoKeyPair} key a public key, or a pair
 * @returns {Promise<string>}
 */
export async function exportPublicKey(key) {
  const publicKey = "publicKey" in key ? key.publicKey : key;
  return base64url(await crypto.subtle.exportKey("raw", publicKey));
}

/**
 * A public key (base64url of its raw 32 bytes) for `verifyObject`.
 * @param {string} text
 * @returns {Promise<CryptoKey>}
 */
export async function importPublicKey(text) {
  return crypto.subtle.importKey("raw", base64urlDecode(text), ED25519, true, ["verify"]);
}

/**
 * A player's id, as the server derives it from the player's public key: the first 16
 * bytes (32 hex digits) of SHA-256 of the raw key.
 * @param {string} publicKey base64url
 * @returns {Promise<string>}
 */
export async function playerIdOf(publicKey) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", base64urlDecode(publicKey)));
  return Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
}

// ------------------------------------------------------------------ signing

/** @param {SigningKey} key */
const privateKeyOf = (key) => ("privateKey" in key ? key.privateKey : key);

/**
 * The base64url Ed25519 signature of `value`'s RFC 8785 bytes.
 * @param {SigningKey} key
 * @param {unknown} value
 * @returns {Promise<string>}
 */
export async function signObject(key, value) {
  const bytes = canonicalBytes(value);
  return base64url(await crypto.subtle.sign(ED25519, privateKeyOf(key), bytes));
}

/**
 * Whether `signature` (base64url) is `publicKey`'s signature of `value`'s RFC 8785 bytes.
 * @param {CryptoKey | string} publicKey a key, or base64url of its raw bytes
 * @param {unknown} value
 * @param {string} signature
 * @returns {Promise<boolean>}
 */
export async function verifyObject(publicKey, value, signature) {
  const key = typeof publicKey === "string" ? await importPublicKey(publicKey) : publicKey;
  let bytes;
  try {
    bytes = base64urlDecode(signature);
  } catch {
    return false;
  }
  return crypto.subtle.verify(ED25519, key, bytes, canonicalBytes(value));
}

/**
 * The order object an order signs, pinned to the position and the chain head
 * (`prev`) the player saw: from a summary, `summary.position` and `summary.head.hash`.
 * @template {OrderKind} K
 * @param {{game: string, player: string, seq: number, position: Position, prev: string,
 *   kind: K, body: OrderBody<K>}} fields
 * @returns {Order<K>}
 */
export function makeOrder({ game, player, seq, position, prev, kind, body }) {
  return { game, player, seq, prev, turn: position.turn, impulse: position.impulse,
    step: position.step, kind, body };
}

/**
 * The signed envelope `{order, signature}` that POST /v1/games/{id}/orders takes.
 * @template {OrderKind} K
 * @param {SigningKey} key
 * @param {Order<K>} order
 * @returns {Promise<Envelope<K>>}
 */
export async function signOrder(key, order) {
  return { order, signature: await signObject(key, order) };
}

/**
 * What a joining player signs with the key it registers (proving it holds it):
 * `{type: "wif-join/1", game, side, name, public_key, powers}`, `powers` null when the
 * join asks for every power of the side not yet held.
 * @param {{game: string, side: string, name: string, publicKey: string,
 *   powers?: string[] | null}} fields
 */
export function joinObject({ game, side, name, publicKey, powers = null }) {
  return { type: JOIN_TYPE, game, side, name, public_key: publicKey, powers: powers ?? null };
}

/**
 * The body of POST /v1/games/{id}/seats/{side}, signed by `keys`, whose public key it
 * registers.
 * @param {CryptoKeyPair} keys
 * @param {{game: string, side: string, joinCode: string, name: string,
 *   powers?: string[] | null}} fields
 * @returns {Promise<Schemas["JoinSeat"]>}
 */
export async function signJoin(keys, { game, side, joinCode, name, powers = null }) {
  const publicKey = await exportPublicKey(keys.publicKey);
  const signed = joinObject({ game, side, name, publicKey, powers });
  return { join_code: joinCode, name, public_key: publicKey, powers: signed.powers,
    signature: await signObject(keys, signed) };
}

/**
 * What a player signs with its current key to agree to a new one (the `consent` of
 * POST /v1/games/{id}/players/me/key, and of the GM's
 * POST /v1/games/{id}/admin/players/{player}/key).
 * @param {{game: string, player: string, publicKey: string}} fields the new public key
 */
export function keyConsentObject({ game, player, publicKey }) {
  return { type: KEY_CONSENT_TYPE, game, player, public_key: publicKey };
}

// ------------------------------------------------------------------ the HTTP API

/**
 * The server refused a request (or could not be reached: `status` 0). `problem` is its
 * RFC 9457 problem: `type`, `title`, `status`, `detail`, `code`, `rule`, `errors`
 * (`[{path, message, unit}]`) and, for orders, `receipt`, `current`, `awaiting`...
 */
export class WifProblem extends Error {
  /**
   * @param {number} status
   * @param {Partial<Problem> & Record<string, unknown>} problem
   * @param {number | null} [retryAfter] the answer's Retry-After, in seconds (429, 503)
   */
  constructor(status, problem, retryAfter = null) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = "WifProblem";
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }

  /** The problem's stable code, e.g. "order/not_your_turn". */
  get code() {
    return this.problem.code ?? null;
  }

  /** The offending items, `[{path, message, unit}]`. */
  get errors() {
    return this.problem.errors ?? [];
  }
}

/** @param {unknown} error */
const errorText = (error) => (error instanceof Error ? error.message : String(error));

/**
 * In a page of another origin than the server's, a request the browser blocked may be
 * CORS: say so.
 * @param {string} url
 */
function corsHint(url) {
  const here = globalThis.location?.origin;
  if (!here || here === "null") return "";
  const there = new URL(url, here).origin;
  return there === here ? "" : `; a page of ${here} may call ${there} only if the server's `
    + "CORS_ORIGINS names it";
}

/**
 * One request to the API. JSON `body` in, parsed JSON out; a 304 (when `headers` asked
 * with If-None-Match) gives `notModified: true` and no data. Any other answer that is
 * not 2xx throws WifProblem with the server's problem.
 * @param {string} url `body`: a string is sent as it is (a signed order's bytes)
 * @param {{method?: string, body?: unknown, token?: string | null,
 *   headers?: Record<string, string>, fetch?: typeof fetch, signal?: AbortSignal}} [options]
 * @returns {Promise<{data: any, response: Response, notModified: boolean}>}
 */
export async function fetchJSON(url, { method = "GET", body, token, headers = {}, fetch: send,
  signal } = {}) {
  /** @type {Record<string, string>} */
  const sent = { Accept: "application/json, application/problem+json", ...headers };
  if (token) sent.Authorization = `Bearer ${token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  let response;
  try {
    response = await (send ?? globalThis.fetch)(url, { method, headers: sent, cache: "no-store",
      signal, body: body === undefined || typeof body === "string" ? body : JSON.stringify(body) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new WifProblem(0, { status: 0,
      detail: `the server cannot be reached (${errorText(error)})${corsHint(url)}` });
  }
  if (response.status === 304) return { data: undefined, response, notModified: true };
  const type = response.headers.get("content-type") || "";
  const text = await response.text();
  let data = text;
  if (type.includes("json") && text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    const problem = data && typeof data === "object" ? data
      : { status: response.status,
        detail: String(data).trim().slice(0, 500) || `HTTP ${response.status}` };
    const retry = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
    throw new WifProblem(response.status, problem, Number.isFinite(retry) ? retry : null);
  }
  return { data: text ? data : null, response, notModified: false };
}

/** How long one try of an order may take, and the waits between tries of its bytes. */
const ORDER_TIMEOUT_MS = 30_000;
const RESEND_WAITS_MS = [500, 2000, 5000];

/**
 * A small client of the referee's /v1 API for one game and one seat. Reads return the
 * server's JSON; `order()` reads the game's position and chain head, signs the order
 * and posts it. Every refusal throws WifProblem.
 *
 * The client counts the signer's `seq` from `options.seq` (the last seq used, 0 for a
 * new seat): keep `client.seq` between sessions, as a resent seq is refused.
 */
export class WifClient {
  /**
   * @param {string} baseUrl the server, e.g. "https://referee.example" ("" in a page the
   *   server serves)
   * @param {string | null} [token] a player's or the GM's bearer token
   * @param {{game?: string, player?: string, key?: SigningKey, seq?: number,
   *   fetch?: typeof fetch, resendWaits?: number[]}} [options] the game, the signer's
   *   player id and key (for orders), the last seq it used, a fetch to use instead of the
   *   global one, and the waits (ms) before each new try of an unanswered order
   */
  constructor(baseUrl, token = null, options = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.token = token;
    this.game = options.game ?? null;
    this.player = options.player ?? null;
    this.key = options.key ?? null;
    /** The last seq this client signed an order with. */
    this.seq = options.seq ?? 0;
    this.fetch = options.fetch;
    /** Milliseconds to wait before each new try of an unanswered order (`send`). */
    this.resendWaits = options.resendWaits ?? RESEND_WAITS_MS;
    /** @type {Joined | null} the join's answer, for a client made by `WifClient.join` */
    this.seat = null;
  }

  /**
   * Join a seat with `keys` (sign the join, POST it) and return a client for it.
   * @param {string} baseUrl
   * @param {{game: string, side: string, joinCode: string, name: string,
   *   keys: CryptoKeyPair, powers?: string[] | null}} join
   * @param {{fetch?: typeof fetch}} [options]
   * @returns {Promise<WifClient>}
   */
  static async join(baseUrl, { game, side, joinCode, name, keys, powers = null }, options = {}) {
    const body = await signJoin(keys, { game, side, joinCode, name, powers });
    const base = baseUrl.replace(/\/+$/, "");
    const { data } = await fetchJSON(`${base}/v1/games/${encodeURIComponent(game)}/seats/`
      + `${encodeURIComponent(side)}`, { method: "POST", body, fetch: options.fetch });
    const client = new WifClient(base, data.token, { ...options, game, player: data.player_id,
      key: keys });
    client.seat = data;
    return client;
  }

  /**
   * A request to `path` (under the base URL) with the client's token.
   * @param {string} path e.g. "/v1/games"
   * @param {{method?: string, body?: unknown, headers?: Record<string, string>,
   *   signal?: AbortSignal}} [options]
   * @returns {Promise<any>} the parsed answer
   */
  async request(path, options = {}) {
    const { data } = await fetchJSON(`${this.baseUrl}${path}`, { ...options, token: this.token,
      fetch: this.fetch });
    return data;
  }

  /** @param {string} [suffix] */
  gamePath(suffix = "") {
    if (!this.game) {
      throw new TypeError("this client has no game: new WifClient(url, token, {game})");
    }
    return `/v1/games/${encodeURIComponent(this.game)}${suffix}`;
  }

  /**
   * GET /v1/games/{id}: status, position, `head` and `awaiting` (who must act).
   * @returns {Promise<Summary>}
   */
  summary() {
    return this.request(this.gamePath());
  }

  /**
   * GET /v1/games/{id}/state: the caller's view of the game.
   * @returns {Promise<State>}
   */
  state() {
    return this.request(this.gamePath("/state"));
  }

  /**
   * Sign and send one order of `kind` with `body` (typed by the kind: `OrderBody<K>`),
   * pinned to the game's current position and chain head (read with GET /v1/games/{id},
   * or taken from `options.summary`). Returns the server's answer: 201 `Accepted`
   * (`{events, receipt, ...}`), or for a dry run the `Preview`. A dry run signs with the
   * next seq without using it up.
   * @template {OrderKind} K
   * @overload
   * @param {K} kind
   * @param {OrderBody<K>} body
   * @param {{dryRun?: false, seq?: number, summary?: Summary}} [options] `seq`: sign
   *   with this seq instead of the next one
   * @returns {Promise<Accepted>}
   */
  /**
   * @template {OrderKind} K
   * @overload
   * @param {K} kind
   * @param {OrderBody<K>} body
   * @param {{dryRun: true, seq?: number, summary?: Summary}} options
   * @returns {Promise<Preview>}
   */
  /**
   * @template {OrderKind} K
   * @param {K} kind
   * @param {OrderBody<K>} body
   * @param {{dryRun?: boolean, seq?: number, summary?: Summary}} [options]
   * @returns {Promise<Accepted | Preview>}
   */
  async order(kind, body, { dryRun = false, seq, summary } = {}) {
    const signed = await this.sign(kind, body, { seq, summary, use: !dryRun });
    if (dryRun) {
      return this.request(this.gamePath("/orders?dry_run=true"), { method: "POST", body: signed });
    }
    return this.send(signed);
  }

  /**
   * The signed envelope of an order of `kind` with `body`, as the text to send (see
   * `send`), pinned to the game's current position and chain head.
   * @template {OrderKind} K
   * @param {K} kind
   * @param {OrderBody<K>} body
   * @param {{seq?: number, summary?: Summary, use?: boolean}} [options] `use`: count the
   *   seq as used (false for a dry run)
   * @returns {Promise<string>}
   */
  async sign(kind, body, { seq, summary, use = true } = {}) {
    if (!this.key || !this.player) {
      throw new TypeError("orders need the signer: new WifClient(url, token, {game, player, key})");
    }
    const seen = summary ?? await this.summary();
    const used = seq ?? this.seq + 1;
    const envelope = await signOrder(this.key, makeOrder({ game: /** @type {string} */ (this.game),
      player: this.player, seq: used, position: seen.position, prev: seen.head.hash, kind, body }));
    if (use) this.seq = Math.max(this.seq, used);
    return JSON.stringify(envelope);
  }

  /**
   * POST a signed order (`sign`'s text) and, after a timeout, a lost connection, a 5xx
   * or a 429, the identical bytes again, no sooner than the answer's Retry-After (a
   * client asking sooner after a 429 waits for its next 429 anyway). Never sign again
   * an order the server may have
   * seen: its signature keys its dice, so a re-signed order is a new roll. The server
   * answers a resent order it took with the stored answer. When every try goes
   * unanswered, throws WifProblem `order/unanswered` (status 0) with the text in
   * `problem.sent`: keep it and send it again later.
   * @param {string} signed
   * @returns {Promise<Schemas["Accepted"]>}
   */
  async send(signed) {
    let why = "";
    for (const wait of [...this.resendWaits, null]) {
      let told = 0;
      try {
        return await this.request(this.gamePath("/orders"), { method: "POST", body: signed,
          signal: AbortSignal.timeout(ORDER_TIMEOUT_MS) });
      } catch (error) {
        const lost = error instanceof WifProblem
          ? error.status === 0 || error.status >= 500 || error.status === 429
          : error instanceof DOMException && error.name === "TimeoutError";
        if (!lost) throw error;
        why = errorText(error);
        told = error instanceof WifProblem ? Math.min(error.retryAfter ?? 0, 30) * 1000 : 0;
      }
      if (wait === null) break;
      await new Promise((done) => setTimeout(done, Math.max(wait, told)));
    }
    throw new WifProblem(0, { status: 0, code: "order/unanswered", sent: signed,
      detail: `the order got no answer (${why}); the server may have taken it: it is sent `
        + "again as signed, never signed anew (a new signature would be a new roll)" });
  }
}

