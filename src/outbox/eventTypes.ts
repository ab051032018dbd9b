/** Every event type (DESIGN "Events and webhooks"); an endpoint subscribes to some of them or to all ("*"). */
export const EVENT_TYPES = [
  'invoice.state_changed',
  'operation.fiscal_state_changed',
  'export.completed',
  'export.failed',
  'daily_closure.transmitted',
  'daily_closure.rejected',
  'fiscal_certificate.expiring',
  'fiscal_portal_credential.expiring',
  'signature_device.failed',
  'signature_device.recovered',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The subscription to every type, present and future. */
export const EVERY_EVENT_TYPE = '*';

export const isEventType = (name: string): name is EventType => (EVENT_TYPES as readonly string[]).includes(name);
