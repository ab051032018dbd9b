import { DomainError } from './errors.js';

/** Refuses a change made against a stale resource_version (contract 5.8, If-Match). */
export function assertCurrentVersion(expected: number | undefined, current: number): void {
  if (expected === undefined || expected === current) return;
  throw new DomainError(
    'precondition_failed',
    'precondition_failed',
    `Resource version mismatch: If-Match was ${expected}, the current resource_version is ${current}`,
    { expected_resource_version: expected, current_resource_version: current },
  );
}
