import type { Regime } from '../fiscal/fiscalDevice.js';

/** One implemented export type: the audit format of one regime. */
export interface ExportFormat {
  /** The format's name in messages. */
  title: string;
  /** The regime whose registers it covers. */
  regime: Regime;
}

/** Every implemented export type; a new format is one more entry and its builder (createExportWorker.ts). */
export const EXPORT_FORMATS: Readonly<Record<string, ExportFormat>> = {
  dsfinvk: { title: 'DSFinV-K', regime: 'KassenSichV' },
};

/** Registers an export covers: those that ever signed under its regime. */
export const EXPORTED_FISCALIZATION_STATUSES = ['fiscalized', 'decommissioned'];
