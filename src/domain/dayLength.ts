/** Milliseconds in a day of 24 hours: retention windows, reminders and expiry count days so. */
export const DAY_MS = 24 * 60 * 60 * 1000;
