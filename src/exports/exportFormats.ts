import { dsfinvkFormat } from './dsfinvkJob.js';
import type { ExportFormat } from './exportFormat.js';
import { rksvDepFormat } from './rksvDep/rksvDepFormat.js';
import { tseTarFormat } from './tseTar/tseTarFormat.js';

/** Every export type (DESIGN: dsfinvk, rksv_dep7, tse_tar); a new format is its folder and one more entry. */
export const EXPORT_FORMATS = {
  dsfinvk: dsfinvkFormat,
  rksv_dep7: rksvDepFormat,
  tse_tar: tseTarFormat,
} as const satisfies Record<string, ExportFormat>;

export type ExportType = keyof typeof EXPORT_FORMATS;

export const EXPORT_TYPES = Object.keys(EXPORT_FORMATS) as [ExportType, ...ExportType[]];
