import type { FastifyServerOptions } from 'fastify';

type RouterConstraints = NonNullable<NonNullable<FastifyServerOptions['routerOptions']>['constraints']>;
type ConstraintStrategy = RouterConstraints[string];
type Handler = Parameters<ReturnType<ConstraintStrategy['storage']>['set']>[1];

export type RequestStyle = 'M' | 'O';

/**
 * Picks the request style where both styles share a method and path
 * (DESIGN "Shape"): a request with X-Service-Merchant is Style M, any other
 * Style O. Style M routes carry no constraint (they are the fallback, since
 * mustMatchWhenDerived is false); Style O routes declare
 * `constraints: { style: 'O' }`.
 *
 * Fastify options: `routerOptions: { constraints: { style: styleConstraint } }`.
 */
export const styleConstraint: ConstraintStrategy = {
  name: 'style',
  mustMatchWhenDerived: false,
  storage() {
    const handlers = new Map<string, Handler>();
    return {
      get: (value: string) => handlers.get(value) ?? null,
      set: (value: string, handler: Handler) => {
        handlers.set(value, handler);
      },
    };
  },
  validate(value: unknown) {
    if (value !== 'M' && value !== 'O') throw new TypeError(`style constraint must be 'M' or 'O', got ${String(value)}`);
  },
  deriveConstraint(request): RequestStyle {
    return request.headers['x-service-merchant'] !== undefined ? 'M' : 'O';
  },
};

/** Route option for Style O routes. */
export const STYLE_O = { style: 'O' } as const;
