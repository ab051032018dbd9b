// Types of eslint/layers.js for the tests that read its table.
export declare const LAYERS: readonly string[];
export declare const MAY_NOT_IMPORT: Readonly<Record<string, readonly string[]>>;
export declare function layerOf(path: string): string | undefined;
export declare function importViolation(path: string, specifier: string): string | null;
export declare const layersPlugin: { rules: Record<string, unknown> };
