import { AppError } from "../kernel/errors";
import type { Store } from "../store";
import { type OrganizationRecord, type Plan, plans, type WriteMode } from "./records";

/** The refusal of a request naming an organization that does not exist. */
export function noSuchOrganization(orgId: string): AppError {
  return new AppError("invalid_parameter", `No organization ${orgId}.`, "orgId");
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new AppError("invalid_parameter", "An organization's name has 1 to 100 characters.", "name");
  return trimmed;
}

function checkWriteMode(org: OrganizationRecord, writeMode: WriteMode): void {
  if (writeMode !== "direct" && writeMode !== "candidate") {
    throw new AppError("invalid_parameter", `Unknown write mode "${writeMode}"; use direct or candidate.`, "writeMode");
  }
  if (writeMode === "candidate" && org.founderWorkspace) throw new AppError("invalid_parameter", "Founder workspaces use direct write only.", "writeMode");
  if (writeMode === "candidate" && org.plan === "free") {
    throw new AppError("invalid_parameter", "Candidate review needs a paid plan (spark or above).", "writeMode");
  }
}

export function organizationService(store: Store) {
  async function update(orgId: string, changes: { name?: string; writeMode?: WriteMode }): Promise<OrganizationRecord> {
    const name = changes.name === undefined ? undefined : checkName(changes.name);
    return store.transaction(async (tx) => {
      let org = await tx.organizations.find(orgId);
      if (!org) throw noSuchOrganization(orgId);
      if (changes.writeMode !== undefined) checkWriteMode(org, changes.writeMode);
      if (changes.writeMode !== undefined) org = await tx.organizations.updateWriteMode(orgId, changes.writeMode);
      if (name !== undefined) org = await tx.organizations.rename(orgId, name);
      return org;
    });
  }

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
    /** Candidate review is for paid plans, and never for founder workspaces. */
    setWriteMode: (orgId: string, writeMode: WriteMode) => update(orgId, { writeMode }),
    rename: (orgId: string, name: string) => update(orgId, { name }),
    /** Changes the name and the write mode together: both are checked before either is written. */
    update,
    find: (orgId: string) => store.organizations.find(orgId),
    list: () => store.organizations.list(),
    count: () => store.organizations.count(),
  };
}

export type OrganizationService = ReturnType<typeof organizationService>;
