export const AUTHORITY_SIMULATIONS = ['ok', 'reject', 'unreachable'] as const;
export type AuthoritySimulation = (typeof AUTHORITY_SIMULATIONS)[number];

/** How the authority answered one transmission of a COR10. */
export type AuthorityAnswer =
  | { outcome: 'accepted' }
  | { outcome: 'rejected'; errors: { code: string; message: string }[] }
  | { outcome: 'unreachable'; errors: { code: string; message: string }[] };

/** Where COR10 files go: the Agenzia delle Entrate's corrispettivi service, or the sandbox's stand-in. */
export interface CorrispettiviAuthority {
  /** `simulation`: the device's authority simulation (sandbox only). */
  transmit(cor10: string, simulation: string): AuthorityAnswer;
}

/**
 * The sandbox's Agenzia delle Entrate (reference italy.md §8: accepted,
 * rejected, retry): it answers as the device's simulation says (PUT
 * /registers/{id}/simulation `authority`).
 */
export const sandboxAuthority: CorrispettiviAuthority = { transmit: (_cor10, simulation) => sandboxAuthorityAnswer(simulation) };

/**
 * Production without a client for the AdE's service (none is built): nothing is
 * taken for transmitted; every closure stays failed and is retried, so the
 * merchant sees that its corrispettivi have not reached the authority.
 */
export const unconfiguredAuthority: CorrispettiviAuthority = {
  transmit: () => ({
    outcome: 'unreachable',
    errors: [{ code: 'AUTHORITY_NOT_CONFIGURED', message: 'No connection to the Agenzia delle Entrate is configured in this deployment; the closure is kept and retried' }],
  }),
};

function sandboxAuthorityAnswer(simulation: string): AuthorityAnswer {
  switch (simulation) {
    case 'reject':
      return { outcome: 'rejected', errors: [{ code: 'COR10_REJECTED', message: 'The authority rejected the file (sandbox simulation)' }] };
    case 'unreachable':
      return { outcome: 'unreachable', errors: [{ code: 'AUTHORITY_UNREACHABLE', message: 'The authority could not be reached; the transmission is retried (sandbox simulation)' }] };
    default:
      return { outcome: 'accepted' };
  }
}
