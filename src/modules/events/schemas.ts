import { z } from 'zod';
import { EVENT_TYPES } from '../../outbox/eventTypes.js';
import { PageQuery, Timestamp } from '../common/schemas.js';

export const EVENT_TYPE_LIST = EVENT_TYPES.join(', ');

const OBJECTS =
  'The resource after the change, as its style presents it: operation.fiscal_state_changed a Style M operation (a signed sale, return or exchange) or a Style O refund; ' +
  'export.* the export job; daily_closure.* the daily closure; signature_device.* the register (Style M), with data.signature_device {regime, serial, failed_since, recovered_at}.';

export const Event = z
  .object({
    id: z.string(),
    object: z.literal('event'),
    type: z.enum(EVENT_TYPES),
    created_at: Timestamp,
    organization_id: z.string().describe('The merchant (= organization) the event belongs to'),
    data: z.looseObject({ object: z.record(z.string(), z.unknown()).describe(OBJECTS) }).describe('What happened: the resource in `object`, and what the type adds beside it'),
  })
  .meta({ id: 'Event' });

export type EventView = z.infer<typeof Event>;

export const EventList = z.object({ object: z.literal('list'), data: z.array(Event), cursor: z.string().nullable() });

export type EventListView = z.infer<typeof EventList>;

export const ListEventsQuery = z.strictObject({
  type: z.string().min(1).max(100).optional().describe(`Only events of this type: ${EVENT_TYPE_LIST} (another name is 422 validation_error)`),
  ...PageQuery,
});
