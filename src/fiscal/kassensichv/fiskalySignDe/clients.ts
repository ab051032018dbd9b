import type { SecretBox } from '../../../lib/secretBox.js';
import { FiskalyClient } from './client.js';
import { openConnection } from './connection.js';

/**
 * One client per sealed connection (a TSS with its credentials): its token is
 * kept in memory for as long as it is valid and shared by the registers of the
 * TSS. New credentials are sealed anew, so they get a client of their own.
 */
const clients = new Map<string, FiskalyClient>();

export function fiskalyClientFor(secrets: SecretBox, sealedConnection: string): FiskalyClient {
  let client = clients.get(sealedConnection);
  if (!client) {
    client = new FiskalyClient(openConnection(secrets, sealedConnection));
    clients.set(sealedConnection, client);
  }
  return client;
}

/** Keeps the client fiscalization authenticated with, so the first sale needs no new token. */
export function keepFiskalyClient(sealedConnection: string, client: FiskalyClient): void {
  clients.set(sealedConnection, client);
}
