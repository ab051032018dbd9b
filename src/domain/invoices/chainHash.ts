import { createHash } from 'node:crypto';

/** The chain's start: what the first submitted invoice of an organization and jurisdiction follows. */
export const CHAIN_START = '0'.repeat(64);

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * What a chain hash is computed over (DESIGN "E-invoicing"): the previous submitted invoice's
 * chain_hash (of the same organization and jurisdiction; CHAIN_START for the first), followed
 * by the lowercase hex SHA-256 of the document's bytes: 128 ASCII hex characters.
 */
export const chainHashInput = (previousChainHash: string, documentSha256: string): string => `${previousChainHash}${documentSha256}`;

export const documentSha256 = (document: Uint8Array): string => sha256Hex(document);

/** The lowercase hex SHA-256 of chainHashInput: anyone holding the documents in order can recompute it. */
export const chainHash = (previousChainHash: string, document: Uint8Array): string =>
  sha256Hex(chainHashInput(previousChainHash, documentSha256(document)));
