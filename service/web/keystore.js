// The page's signing keys: each seat's Ed25519 key pair, made by the client kit
// (wif.js) with WebCrypto as non-extractable and kept in IndexedDB, so it never leaves
// this browser, not even to this page's own code. Signing itself is the kit's.

import { exportPublicKey, generateKeyPair, webCryptoUnavailable } from "./wif.js";

const DB_NAME = "wif-play";
const STORE = "keys";

/** Why signing cannot work here, or null when it can. */
export function signingUnavailable() {
  const why = webCryptoUnavailable();
  if (why) return why;
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
 * A new Ed25519 key pair, stored under a fresh id. Returns {keyId, keys, publicKey}: the
 * pair and its public key as base64url of its raw 32 bytes (what POST /seats expects).
 */
export async function createKey(label) {
  const keys = await generateKeyPair();
  const keyId = `${label}/${crypto.randomUUID()}`;
  await withStore("readwrite", (store) => store.put(keys, keyId));
  return { keyId, keys, publicKey: await exportPublicKey(keys) };
}

export async function deleteKey(keyId) {
  if (keyId) await withStore("readwrite", (store) => store.delete(keyId));
}

export async function hasKey(keyId) {
  return Boolean(keyId && (await withStore("readonly", (store) => store.get(keyId))));
}

/** The stored key pair of `keyId`; an error saying so when this browser lost it. */
export async function loadKey(keyId) {
  const keys = keyId && (await withStore("readonly", (store) => store.get(keyId)));
  if (!keys) {
    throw new Error("the signing key of this seat is not in this browser (another device, or "
      + "browser data cleared): make a new key on this page and ask the GM to approve it");
  }
  return keys;
}
