import { parseRole } from "../domain/people/memberships";
import { generatePassword } from "../domain/people/users";
import { type AdminContext, type AdminOptions, existingOrg } from "./admin";
import { required } from "./usage";

export async function createUser({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const { user, password } = await services.users.create({ email: required(options.email, "--email"), displayName: options.name, password: options.password });
  out(`created user ${user.id} (${user.email}, ${user.displayName})`);
  if (!options.password) {
    out("Its password is shown only this once:");
    out(password);
  }
}

/** Sets a password (generated when none is given) and ends every session of the account. */
export async function setUserPassword({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const user = await services.users.findByEmail(required(options.email, "--email"));
  const password = options.password ?? generatePassword();
  await services.users.setPassword(user.id, password);
  out(`set the password of ${user.email}; its sessions have ended`);
  if (!options.password) {
    out("The new password is shown only this once:");
    out(password);
  }
}

export async function addMember({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const user = await services.users.findByEmail(required(options.email, "--email"));
  const member = await services.memberships.add(required(options.org, "--org"), user.id, parseRole(required(options.role, "--role")), "cli");
  out(`${user.email} is now ${member.role} of ${member.orgId}`);
}

export async function changeMemberRole({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const user = await services.users.findByEmail(required(options.email, "--email"));
  const member = await services.memberships.changeRole(required(options.org, "--org"), user.id, parseRole(required(options.role, "--role")), "cli");
  out(`${user.email} is now ${member.role} of ${member.orgId}`);
}

export async function removeMember({ services, out }: AdminContext, options: AdminOptions): Promise<void> {
  const user = await services.users.findByEmail(required(options.email, "--email"));
  const orgId = required(options.org, "--org");
  await services.memberships.remove(orgId, user.id, "cli");
  out(`removed ${user.email} from ${orgId} (and their personal assistants there)`);
}

export async function listMembers(context: AdminContext, options: AdminOptions): Promise<void> {
  for (const member of await context.services.memberships.list(await existingOrg(context, options))) {
    context.out(`${member.userId}\t${member.email}\t${member.displayName}\t${member.role}`);
  }
}
