import { DAY_MS } from './dayLength.js';

/** A webhook delivery is retried for this long after its event (DESIGN: up to 3 days), then given up. */
export const RETRY_WINDOW_MS = 3 * DAY_MS;

/** The shortest time events are kept: past every delivery's retry window, so no event goes while it may still be sent. */
export const MIN_EVENT_RETENTION_DAYS = Math.ceil(RETRY_WINDOW_MS / DAY_MS) + 1;
