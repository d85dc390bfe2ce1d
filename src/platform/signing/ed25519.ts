import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  type KeyObject,
} from 'node:crypto';

/**
 * An Ed25519 signing key (node:crypto): read from PKCS#8 (PEM, or base64 of the DER bytes), or made
 * afresh; its public half as the raw 32 bytes (base64) and as SPKI PEM, and a short key id derived
 * from the public key, so anyone holding the public key computes the same id.
 */
export interface Ed25519Key {
  /** base64url of the first 9 bytes of SHA-256 over the raw public key: 12 characters */
  keyId: string;
  /** base64 of the raw 32-byte public key (RFC 8032) */
  publicKeyRaw: string;
  /** the public key as SPKI PEM */
  publicKeyPem: string;
  /** the private key as base64 of its PKCS#8 DER bytes (what is stored) */
  pkcs8: string;
  /** the signature of `data`, 64 bytes */
  sign(data: Buffer): Buffer;
  /** HMAC-SHA256 under a secret derived from the private key, for values the signer alone may mint */
  mac(label: string, data: string | Buffer): Buffer;
}

/** The 12-byte DER prefix of an Ed25519 SPKI: the raw public key follows it. */
const SPKI_PREFIX_LENGTH = 12;

function fromKeyObject(privateKey: KeyObject): Ed25519Key {
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the key is not an Ed25519 private key');
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const raw = spki.subarray(SPKI_PREFIX_LENGTH);
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  // The MAC secret is a hash of the private key: a value of this signer, never the key itself.
  const macSecret = createHash('sha256').update('tc-mac-secret\n').update(pkcs8).digest();
  return {
    keyId: createHash('sha256').update(raw).digest().subarray(0, 9).toString('base64url'),
    publicKeyRaw: raw.toString('base64'),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    pkcs8: pkcs8.toString('base64'),
    sign: (data) => sign(null, data, privateKey),
    mac: (label, data) => createHmac('sha256', macSecret).update(label).update('\n').update(data).digest(),
  };
}

/** Reads a private key given as PKCS#8 PEM or base64 of its DER bytes; throws a plain message if it is neither. */
export function readEd25519Key(text: string): Ed25519Key {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    key = trimmed.startsWith('-----BEGIN')
      ? createPrivateKey({ key: trimmed, format: 'pem' })
      : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new Error('not a PKCS#8 private key (PEM, or base64 of the DER bytes)');
  }
  return fromKeyObject(key);
}

/** A fresh Ed25519 key. */
export function generateEd25519Key(): Ed25519Key {
  return fromKeyObject(generateKeyPairSync('ed25519').privateKey);
}
