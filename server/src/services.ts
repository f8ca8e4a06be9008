import { candidateService } from "./domain/candidates";
import { eventIngestion } from "./domain/events/ingestion";
import { memoryService } from "./domain/memories";
import { organizationService } from "./domain/organizations";
import type { Store } from "./domain/ports";
import { tokenService } from "./domain/tokens";

export interface ServiceOptions {
  /** The clock memory writes and activation use (defaults to the system clock). */
  now?: () => Date;
  /** How long a verified access token is trusted before the database is asked again (0 disables). */
  authCacheMs?: number;
}

/** The domain services, wired over one store. */
export function createServices(store: Store, options: ServiceOptions = {}) {
  return {
    store,
    organizations: organizationService(store),
    tokens: tokenService(store, { authCacheMs: options.authCacheMs }),
    memories: memoryService(store, { now: options.now }),
    events: eventIngestion(store),
    candidates: candidateService(store),
  };
}

export type Services = ReturnType<typeof createServices>;
