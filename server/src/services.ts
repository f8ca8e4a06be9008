import { memoryService } from "./domain/memories";
import { organizationService } from "./domain/organizations";
import type { Store } from "./domain/ports";
import { tokenService } from "./domain/tokens";

/** The domain services, wired over one store. */
export function createServices(store: Store) {
  return {
    store,
    organizations: organizationService(store),
    tokens: tokenService(store),
    memories: memoryService(store),
  };
}

export type Services = ReturnType<typeof createServices>;
