import type { Prisma } from './generated/client.js';

/** A Prisma interactive transaction: passed down so every read and write of a service joins it. */
export type Tx = Prisma.TransactionClient;
