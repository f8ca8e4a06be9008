import { AppError } from "./errors";
import type { Store } from "./ports";
import type { Plan } from "./records";

export const plans = ["free", "spark", "seed", "rise", "boost"] as const satisfies readonly Plan[];

export function organizationService(store: Store) {
  return {
    async create(input: { name: string; plan?: Plan; founderWorkspace?: boolean; environmentsEnabled?: boolean }) {
      const name = input.name.trim();
      if (!name) throw new AppError("missing_parameter", "An organization needs a name.", "name");
      if (input.plan && !plans.includes(input.plan)) throw new AppError("invalid_parameter", `Unknown plan "${input.plan}".`, "plan");
      return store.transaction((tx) =>
        tx.organizations.create({
          name,
          plan: input.plan ?? "free",
          founderWorkspace: input.founderWorkspace ?? false,
          environmentsEnabled: input.environmentsEnabled ?? true,
        }),
      );
    },
    list: () => store.organizations.list(),
    count: () => store.organizations.count(),
  };
}

export type OrganizationService = ReturnType<typeof organizationService>;
