// Orders are signed in the browser (docs/api.md): Ed25519 over the RFC 8785 canonical
// JSON of `order`. The private key is made by WebCrypto as non-extractable and kept in
// IndexedDB: it never leaves this browser, not even to this page's own code.

const DB_NAME = "wif-play";
const STORE = "keys";

/**
 * RFC 8785 (JCS) canonical JSON for what orders contain: null, booleans, strings,
 * safe integers, arrays and objects. Object keys are sorted by UTF-16 code units, which
 * is exactly what Array.prototype.sort does by default; strings and integers serialize
 * as JSON.stringify does (ECMAScript is the reference of RFC 8785). Properties whose
 * value is undefined are left out, as JSON.stringify leaves them out of the request.
 */
export function canonicalJSON(value) {
  if (value === null || typeof value === "boolean" || typeof value === "string") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      throw new TypeError(`orders carry integers only, not ${value}`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonicalJSON(item ?? null)).join(",")}]`;
  }
  if (typeof value === "object") {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(value[k])}`).join(",")}}`;
  }
  throw new TypeError(`no canonical JSON for ${typeof value}`);
}

export function base64url(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let text = "";
  for (const b of view) text += String.fromCharCode(b);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Why signing cannot work here, or null when it can. */
export function signingUnavailable() {
  if (!window.isSecureContext || !crypto.subtle) {
    return "this page is not a secure context (use https, or http://localhost / 127.0.0.1): "
      + "the browser only allows WebCrypto signing there";
  }
  if (!window.indexedDB) return "this browser has no IndexedDB to keep the signing key";
  return null;
}

function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function withStore(mode, action) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = action(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/**
 * A new Ed25519 key pair, stored under a fresh id. Returns {keyId, publicKey} with the
 * public key as base64url of its raw 32 bytes (what POST /seats expects).
 */
export async function createKey(label) {
  let pair;
  try {
    pair = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  } catch (error) {
    throw new Error(`this browser cannot make Ed25519 keys with WebCrypto (${error.message}); `
      + "use a current Chromium, Firefox or Safari");
  }
  const raw = await crypto.subtle.exportKey("raw", pair.publicKey);
  const keyId = `${label}/${crypto.randomUUID()}`;
  await withStore("readwrite", (store) => store.put(pair, keyId));
  return { keyId, publicKey: base64url(raw) };
}

export async function deleteKey(keyId) {
  if (keyId) await withStore("readwrite", (store) => store.delete(keyId));
}

export async function hasKey(keyId) {
  return Boolean(keyId && (await withStore("readonly", (store) => store.get(keyId))));
}

/** The base64url Ed25519 signature of `value`'s RFC 8785 bytes with the stored key. */
export async function signObject(keyId, value) {
  const pair = keyId && (await withStore("readonly", (store) => store.get(keyId)));
  if (!pair) {
    throw new Error("the signing key of this seat is not in this browser any more "
      + "(browser data cleared?); ask the GM to replace the seat's key");
  }
  const bytes = new TextEncoder().encode(canonicalJSON(value));
  return base64url(await crypto.subtle.sign({ name: "Ed25519" }, pair.privateKey, bytes));
}

/** The signed envelope {order, signature} for `order`, signed with the stored key. */
export async function signOrder(keyId, order) {
  return { order, signature: await signObject(keyId, order) };
}
