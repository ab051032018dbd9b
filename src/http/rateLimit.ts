import { isIPv4, isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: never limited (health checks, which load balancers poll). */
    rateLimit?: false;
  }
  interface FastifyInstance {
    rateLimits: RateLimits;
  }
}

export const WINDOW_MS = 1000;
const REDIS_NAMESPACE = 'fiscal-rl:';
/** Key hashes remembered as authenticated, newest last; the oldest are forgotten past this. */
const KNOWN_KEYS = 10_000;

/** How much of a budget's current one-second window is used. */
export interface Window {
  count: number;
  /** Milliseconds until the window ends and the count starts over. */
  resetMs: number;
}

/** Fixed-window request counters. */
export interface WindowCounter {
  /** Counts one request against `budget`. */
  hit(budget: string): Promise<Window>;
  /** The window of `budget`, counting nothing. */
  peek(budget: string): Promise<Window>;
}

/** A window's count and when it ends (epoch milliseconds). */
export interface CountedWindow {
  count: number;
  endsAt: number;
  /** What the budget counted in the window just before this one (0 after a quiet window). */
  previousCount: number;
}

/** Counters in this process's memory. */
export class MemoryCounter implements WindowCounter {
  private readonly windows = new Map<string, CountedWindow>();
  private nextSweep = 0;

  async hit(budget: string): Promise<Window> {
    const now = Date.now();
    return windowAt(this.add(budget, 1, now), now);
  }

  async peek(budget: string): Promise<Window> {
    const now = Date.now();
    return windowAt(this.current(budget, now), now);
  }

  /** Counts `units` requests against `budget` at `now`. */
  add(budget: string, units: number, now: number): CountedWindow {
    this.sweep(now);
    let window = this.windows.get(budget);
    if (!window || window.endsAt <= now) {
      const previousCount = window && now - window.endsAt < WINDOW_MS ? window.count : 0;
      window = { count: 0, endsAt: now + WINDOW_MS, previousCount };
      this.windows.set(budget, window);
    }
    window.count += units;
    return { ...window };
  }

  /** The window of `budget` at `now`, counting nothing. */
  current(budget: string, now: number): CountedWindow {
    const window = this.windows.get(budget);
    return window && window.endsAt > now ? { ...window } : { count: 0, endsAt: now + WINDOW_MS, previousCount: 0 };
  }

  /** Drops windows that ended a window ago, so memory holds the callers of about the last two seconds only. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + WINDOW_MS;
    for (const [budget, window] of this.windows) if (window.endsAt + WINDOW_MS <= now) this.windows.delete(budget);
  }
}

/** A counted window as seen at `now`. */
export const windowAt = ({ count, endsAt }: Pick<CountedWindow, 'count' | 'endsAt'>, now: number): Window => ({ count, resetMs: Math.max(0, endsAt - now) });

/** The replies of a Redis transaction, or its first error. */
function replies(results: [Error | null, unknown][] | null): unknown[] {
  if (!results) throw new Error('rate-limit transaction aborted');
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

/** Counters in Redis, one budget for every instance that shares it. */
class RedisCounter implements WindowCounter {
  constructor(private readonly redis: Redis) {}

  async hit(budget: string): Promise<Window> {
    const name = REDIS_NAMESPACE + budget;
    // The window's first request creates the counter with the window's expiry; INCR keeps that expiry.
    const [, count, ttl] = replies(await this.redis.multi().set(name, 0, 'PX', WINDOW_MS, 'NX').incr(name).pttl(name).exec());
    return { count: Number(count), resetMs: Math.max(0, Number(ttl)) };
  }

  async peek(budget: string): Promise<Window> {
    const name = REDIS_NAMESPACE + budget;
    const [count, ttl] = replies(await this.redis.multi().get(name).pttl(name).exec());
    return count === null ? { count: 0, resetMs: WINDOW_MS } : { count: Number(count), resetMs: Math.max(0, Number(ttl)) };
  }
}

/**
 * The client a per-address budget belongs to: an IPv4 address, or the /64 network
 * of an IPv6 address (one host commonly holds a whole /64 and could rotate through it).
 */
function clientNetwork(ip: string): string {
  const address = ip.split('%')[0].toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1];
  if (isIPv4(address) || !isIPv6(address)) return address;
  const [head, tail] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  // An embedded IPv4 address at the end stands for two groups.
  const tailLength = tailGroups.reduce((length, group) => length + (group.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailLength).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

const addressBudget = (ip: string) => `addr:${clientNetwork(ip)}`;

type Budget = 'api_key' | 'client_address';

/**
 * The request budgets of DESIGN "Rate limits", `perSecond` requests each per
 * one-second window: one per API key (its id), and one per client address for
 * every request without a valid key (public links, the admin API, unknown
 * paths and failed authentications).
 */
export class RateLimits {
  /** Hashes of keys that authenticated on this instance. */
  private readonly knownKeys = new Set<string>();

  constructor(
    private readonly counter: WindowCounter,
    readonly perSecond: number,
  ) {}

  /**
   * Before an API key is looked up: an address that used up its budget is refused
   * without the lookup. A key that authenticated here before is let through, so a
   * flood from a shared address does not lock out that address's valid keys.
   */
  async admitKeyLookup(ip: string, keyHash: string | null): Promise<void> {
    if (keyHash !== null && this.knownKeys.has(keyHash)) return;
    const window = await this.counted(() => this.counter.peek(addressBudget(ip)));
    if (window && window.count >= this.perSecond) throw this.exceeded('client_address', window);
  }

  /** A failed authentication spends its address's budget. */
  async keyRejected(ip: string, keyHash: string | null): Promise<void> {
    if (keyHash !== null) this.knownKeys.delete(keyHash);
    await this.counted(() => this.counter.hit(addressBudget(ip)));
  }

  /** A request of an authenticated key spends the key's budget: 429 past it. */
  async keyAccepted(keyHash: string, keyId: string, reply: FastifyReply): Promise<void> {
    this.knownKeys.delete(keyHash);
    this.knownKeys.add(keyHash);
    if (this.knownKeys.size > KNOWN_KEYS) this.knownKeys.delete(this.knownKeys.values().next().value!);
    await this.spend('api_key', `key:${keyId}`, reply);
  }

  /** A request that needs no API key spends its address's budget: 429 past it. */
  async admitWithoutKey(ip: string, reply: FastifyReply): Promise<void> {
    await this.spend('client_address', addressBudget(ip), reply);
  }

  private async spend(budget: Budget, name: string, reply: FastifyReply): Promise<void> {
    const window = await this.counted(() => this.counter.hit(name));
    if (!window) return;
    reply.headers({
      'x-ratelimit-limit': this.perSecond,
      'x-ratelimit-remaining': Math.max(0, this.perSecond - window.count),
      'x-ratelimit-reset': retryAfterSeconds(window),
    });
    if (window.count > this.perSecond) throw this.exceeded(budget, window);
  }

  /** An unreachable Redis must not take the API down: the budget is then unenforced. */
  private async counted(count: () => Promise<Window>): Promise<Window | null> {
    try {
      return await count();
    } catch {
      return null;
    }
  }

  private exceeded(budget: Budget, window: Window): ApiError {
    const retryAfter = retryAfterSeconds(window);
    const whose = budget === 'api_key' ? 'for this API key' : 'without a valid API key from this client address';
    return new ApiError(
      429,
      'rate_limit_exceeded',
      `Rate limit of ${this.perSecond} requests per second ${whose} exceeded`,
      { budget, limit: this.perSecond, retry_after_seconds: retryAfter },
      { 'retry-after': String(retryAfter) },
    );
  }
}

const retryAfterSeconds = (window: Window) => Math.max(1, Math.ceil(window.resetMs / 1000));

export const rateLimitPlugin = fp(
  async (app: FastifyInstance, options: { perSecond: number; redisUrl?: string; localCounter?: WindowCounter }) => {
    // Without Redis: the counters of this instance (its primary process's, when it runs several).
    let counter: WindowCounter = options.localCounter ?? new MemoryCounter();
    if (options.redisUrl) {
      // Shared counters in Redis let several instances enforce one budget.
      const redis = new Redis(options.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1, lazyConnect: false });
      redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit redis error'));
      app.addHook('onClose', async () => void (await redis.quit().catch(() => undefined)));
      counter = new RedisCounter(redis);
    }
    app.decorate('rateLimits', new RateLimits(counter, options.perSecond));
  },
  { name: 'rate-limit' },
);
