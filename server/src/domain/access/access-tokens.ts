import { createHash, randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import { type TEnvironment, type TScope, ZAgentSlug, ZScope } from "@engram/contract";
import type { Clock } from "../kernel/clock";
import type { ListPage } from "../kernel/page-cursor";
import type { Peers } from "../kernel/peers";
import { AppError } from "../kernel/errors";
import type { Store } from "../store";
import type { Caller } from "./caller";
import { noSuchOrganization } from "./organizations";
import type { TokenRecord } from "./records";

const TOKEN_PREFIX = "acm_";
const TOKEN_SHAPE = /^acm_[A-Za-z0-9_-]{43}$/;

/**
 * Tokens are 256 random bits, so a fast SHA-256 is the right hash for lookup: unlike passwords there is
 * nothing to brute-force, and a slow hash would tax every request.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export interface NewTokenInput {
  orgId: string;
  name: string;
  scopes: readonly string[];
  environment: TEnvironment | null;
  agentSlugs?: readonly string[] | null;
}

type ActiveToken = NonNullable<Awaited<ReturnType<Store["tokens"]["findActiveByHash"]>>>;

/** How long a verified token is trusted without asking the database again, unless configured. */
export const DEFAULT_AUTH_CACHE_MS = 2000;

/**
 * Every request authenticates, and the lookup is most of a small request's database time, so verified
 * tokens are remembered briefly. Revoking through this process or another worker of the same `engram serve`
 * takes effect at once; a revocation made elsewhere (the CLI, a separate server) within `authCacheMs`. Unknown
 * tokens are never cached.
 */
export function tokenService(store: Store, options: { clock: Clock; authCacheMs?: number; peers?: Peers }) {
  const ttl = options.authCacheMs ?? DEFAULT_AUTH_CACHE_MS;
  const verified = ttl > 0 ? new LRUCache<string, ActiveToken>({ max: 10_000, ttl }) : null;

  async function lookup(tokenHash: string): Promise<ActiveToken | null> {
    const cached = verified?.get(tokenHash);
    if (cached) return cached;
    const found = await store.tokens.findActiveByHash(tokenHash);
    if (found) verified?.set(tokenHash, found);
    return found;
  }

  /** Forgets every verified token here and in the other workers, so the next requests read tokens and settings afresh. */
  async function forgetVerified(): Promise<void> {
    verified?.clear();
    await options.peers?.forgetVerifiedTokens();
  }

  return {
    /** Creates a token; the plain value is returned here once and never stored. */
    async create(input: NewTokenInput): Promise<{ token: string; record: TokenRecord }> {
      const scopes = [...new Set(input.scopes)].map((scope) => {
        const parsed = ZScope.safeParse(scope);
        if (!parsed.success) throw new AppError("invalid_parameter", `Unknown scope "${scope}".`, "scopes");
        return parsed.data;
      });
      if (scopes.length === 0) throw new AppError("missing_parameter", "A token needs at least one scope.", "scopes");
      const agentSlugs = input.agentSlugs ? [...new Set(input.agentSlugs)] : null;
      // An empty list would make a token no request can use: no agents means the whole organization, said by leaving it out.
      if (agentSlugs?.length === 0) throw new AppError("invalid_parameter", "A token limited to agents names at least one; leave agents out for a token of the whole organization.", "agents");
      for (const slug of agentSlugs ?? []) {
        if (!ZAgentSlug.safeParse(slug).success) throw new AppError("invalid_parameter", `Invalid agent slug "${slug}".`, "agents");
      }
      if (!(await store.organizations.find(input.orgId))) throw noSuchOrganization(input.orgId);
      const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
      const record = await store.transaction((tx) =>
        tx.tokens.create({
          orgId: input.orgId,
          name: input.name,
          tokenHash: hashToken(token),
          prefix: token.slice(0, 12),
          scopes,
          environment: input.environment,
          agentSlugs,
        }),
      );
      return { token, record };
    },

    /** The tokens, oldest first: every one, or a page of them. */
    list: (orgId: string, page?: ListPage) => store.tokens.list(orgId, page),

    forgetVerified,

    /** What another worker's `forgetVerified` asks of this one. */
    forgetVerifiedHere(): void {
      verified?.clear();
    },

    /** Revokes the token (only within `orgId` when given); false when there is no such token. */
    async revoke(id: string, orgId?: string): Promise<boolean> {
      const revoked = await store.transaction((tx) => tx.tokens.revoke(id, options.clock(), orgId));
      await forgetVerified();
      return revoked;
    },

    /** Resolves a bearer token to its caller, or throws the documented 401. */
    async authenticate(token: string | undefined, requestId: string): Promise<Caller> {
      if (!token) throw new AppError("invalid_api_key", "Missing bearer token: send Authorization: Bearer acm_….");
      if (!TOKEN_SHAPE.test(token)) throw new AppError("invalid_api_key", "Malformed access token: tokens look like acm_ followed by 43 characters.");
      const found = await lookup(hashToken(token));
      if (!found) throw new AppError("invalid_api_key", "Invalid or revoked access token.");
      const { token: record, org } = found;
      if (record.environment === null && org.environmentsEnabled) {
        throw new AppError(
          "token_environment_required",
          "This token has no environment binding; create a new token in the intended environment (test, staging or production).",
        );
      }
      return {
        orgId: record.orgId,
        tokenId: record.id,
        tokenName: record.name,
        scopes: record.scopes as TScope[],
        // Organizations without environments work in production, the only environment they have.
        environment: record.environment ?? "production",
        allowedAgents: record.agentSlugs,
        writeMode: org.writeMode,
        plan: org.plan,
        requestId,
      };
    },
  };
}

export type TokenService = ReturnType<typeof tokenService>;
