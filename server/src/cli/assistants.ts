import { assistantChangeLimits, ZAssistantType } from "@engram/contract";
import { type AdminContext, type AdminOptions, existingOrg } from "./admin";
import { required, UsageError } from "./usage";

export async function createAssistant({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const type = ZAssistantType.safeParse(options.type);
  if (!type.success) throw new UsageError("--type must be org_shared or employee_personal");
  if (type.data === "org_shared" && options.owner) throw new UsageError("--owner is for employee_personal assistants; org_shared ones belong to the organization");
  const ownerUserId = options.owner ? (await services.users.findByEmail(options.owner)).id : undefined;
  const assistant = await services.assistants.create(required(options.org, "--org"), { name: required(options.name, "--name"), type: type.data, ownerUserId }, "cli");
  out(`created assistant ${assistant.id} (${assistant.name}, ${assistant.type})`);
}

export async function listAssistants(context: AdminContext, options: AdminOptions): Promise<void> {
  const { services, out } = context;
  for (const assistant of await services.assistants.list(await existingOrg(context, options), "cli")) {
    out(`${assistant.id}\t${assistant.type}\t${assistant.name}\tv${assistant.version}\t${assistant.capabilities.join(",")}`);
  }
}

export async function renameAssistant({ services, out }: AdminContext, id: string | undefined, options: AdminOptions): Promise<void> {
  const assistant = await services.assistants.rename(required(options.org, "--org"), required(id, "ASSISTANT_ID"), required(options.name, "--name"), "cli");
  out(`renamed ${assistant.id} to ${assistant.name}`);
}

export async function deleteAssistant({ services, out }: AdminContext, id: string | undefined, options: AdminOptions): Promise<void> {
  const assistantId = required(id, "ASSISTANT_ID");
  await services.assistants.delete(required(options.org, "--org"), assistantId, "cli");
  out(`deleted ${assistantId} (its change log is kept)`);
}

/** The whole change log, newest first, read a page at a time. */
export async function assistantChanges({ services, out }: AdminContext, id: string | undefined, options: AdminOptions): Promise<void> {
  const [orgId, assistantId] = [required(options.org, "--org"), required(id, "ASSISTANT_ID")];
  let cursor: string | undefined;
  do {
    const page = await services.assistants.changes(orgId, assistantId, "cli", { cursor, limit: assistantChangeLimits.maxLimit });
    for (const change of page.changes) {
      out(`${change.createdAt.toISOString()}\tv${change.version}\t${change.action}\t${change.actor}\t${JSON.stringify(change.before)} -> ${JSON.stringify(change.after)}`);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
