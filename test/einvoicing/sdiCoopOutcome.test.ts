// Which pushed notification decides an SDICoop file, among those of every copy of it.
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/domain/dayLength.js';
import { fileOutcomeOf, recipientAnswerOf } from '../../src/einvoicing/sdi/sdiCoop/fileOutcome.js';
import type { SdiNotification } from '../../src/einvoicing/sdi/sdiCoop/notificationFile.js';
import type { PushedSdiNotification } from '../../src/einvoicing/sdi/sdiCoop/sdiNotificationInbox.js';

/** A notification without the facts every one has, type by type. */
type WithoutFacts<N> = N extends SdiNotification ? Omit<N, 'identifier' | 'invoiceFileName'> : never;
type Body = WithoutFacts<SdiNotification>;

const INVOICE_FILE = 'IT01234567890_00001.xml.p7m';
let counter = 0;
const pushed = (identifier: string, body: Body): PushedSdiNotification => ({
  identifier,
  fileName: `IT01234567890_00001_${body.type}_${String(++counter).padStart(3, '0')}.xml`,
  notification: { ...body, identifier, invoiceFileName: INVOICE_FILE } as SdiNotification,
});

const receivedAt = new Date('2026-12-01T10:00:00Z');
const b2b = { format: 'FPR12', receivedAt };
const pa = { format: 'FPA12', receivedAt };
const duplicateName: Body = { type: 'NS', errors: [{ code: '00002', description: 'Nome file duplicato' }] };

describe('fileOutcomeOf', () => {
  it('is null while nothing decisive came, and takes the first decisive notification in arrival order, its file name as its id', () => {
    expect(fileOutcomeOf([], b2b, receivedAt)).toBeNull();
    const rc = pushed('1', { type: 'RC', deliveredAt: receivedAt });
    const ne = pushed('1', { type: 'NE', outcome: 'EC01', description: null });
    expect(fileOutcomeOf([rc, ne], pa, receivedAt)).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: null }, id: rc.fileName });
  });

  it("passes over a second copy's NS 00002 whichever arrives first, but not an NS with more than 00002", () => {
    const copy = pushed('2', duplicateName);
    const rc = pushed('1', { type: 'RC', deliveredAt: receivedAt });
    expect(fileOutcomeOf([copy, rc], b2b, receivedAt)).toEqual({ notification: { kind: 'delivered', acceptedAfterDays: 15 }, id: rc.fileName });
    const mixed = pushed('2', { type: 'NS', errors: [{ code: '00002', description: 'Nome file duplicato' }, { code: '00305', description: 'IdCodice non valido' }] });
    expect(fileOutcomeOf([mixed], b2b, receivedAt)).toMatchObject({ notification: { kind: 'rejected', errors: [{ code: '00002' }, { code: '00305' }] }, id: mixed.fileName });
  });

  it('waits on an NS 00002 alone for six days, then rejects with it', () => {
    const copy = pushed('2', duplicateName);
    expect(fileOutcomeOf([copy], b2b, new Date(receivedAt.getTime() + 6 * DAY_MS - 1))).toBeNull();
    expect(fileOutcomeOf([copy], b2b, new Date(receivedAt.getTime() + 6 * DAY_MS))).toMatchObject({ notification: { kind: 'rejected', errors: [{ code: '00002' }] }, id: copy.fileName });
  });

  it('lets MC decide a B2B file, not one to a public administration, whose AT decides', () => {
    const mc = pushed('1', { type: 'MC', description: null });
    expect(fileOutcomeOf([mc], b2b, receivedAt)).toMatchObject({ notification: { kind: 'undeliverable', errors: [{ code: 'MC' }] }, id: mc.fileName });
    expect(fileOutcomeOf([mc], pa, receivedAt)).toBeNull();
    const at = pushed('1', { type: 'AT' });
    expect(fileOutcomeOf([mc, at], pa, receivedAt)).toMatchObject({ notification: { kind: 'undeliverable', errors: [{ code: 'AT' }] }, id: at.fileName });
  });
});

describe('recipientAnswerOf', () => {
  it('is the NE or DT that came, under its file name, null before', () => {
    const rc = pushed('1', { type: 'RC', deliveredAt: receivedAt });
    expect(recipientAnswerOf([rc])).toBeNull();
    const ne = pushed('1', { type: 'NE', outcome: 'EC01', description: null });
    expect(recipientAnswerOf([rc, ne])).toEqual({ notification: { kind: 'recipient_accepted' }, id: ne.fileName });
    const dt = pushed('1', { type: 'DT', description: null });
    expect(recipientAnswerOf([rc, dt])).toEqual({ notification: { kind: 'deadline_passed' }, id: dt.fileName });
  });
});
