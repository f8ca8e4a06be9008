import { DuplicateKeyError } from "../../domain/kernel/errors";
import { newId } from "../../domain/kernel/ids";
import type { UserRepository } from "../../domain/people/ports";
import type { UserRecord } from "../../domain/people/records";
import { isUniqueViolation, type PrismaTx } from "../prisma";

type UserRow = Awaited<ReturnType<PrismaTx["user"]["findUniqueOrThrow"]>>;

const toRecord = ({ passwordHash: _hash, ...user }: UserRow): UserRecord => user;

export function userRepository(db: PrismaTx): UserRepository {
  return {
    async create({ email, displayName, passwordHash, at }) {
      try {
        return toRecord(await db.user.create({ data: { id: newId("usr"), email, displayName, passwordHash, passwordChangedAt: at, createdAt: at } }));
      } catch (error) {
        if (isUniqueViolation(error)) throw new DuplicateKeyError("User.email");
        throw error;
      }
    },
    async find(id) {
      const row = await db.user.findUnique({ where: { id } });
      return row ? toRecord(row) : null;
    },
    async findByEmail(email) {
      const row = await db.user.findUnique({ where: { email } });
      return row ? toRecord(row) : null;
    },
    async findCredentials(email) {
      const row = await db.user.findUnique({ where: { email } });
      return row ? { user: toRecord(row), passwordHash: row.passwordHash } : null;
    },
    async passwordHashOf(userId) {
      return (await db.user.findUnique({ where: { id: userId }, select: { passwordHash: true } }))?.passwordHash ?? null;
    },
    count() {
      return db.user.count();
    },
    async setPassword(userId, passwordHash, at) {
      await db.user.update({ where: { id: userId }, data: { passwordHash, passwordChangedAt: at } });
    },
    async holdPassword(userId, passwordHash) {
      // An update that changes nothing: it takes the row's lock, and matches only while the hash is the one given.
      return (await db.user.updateMany({ where: { id: userId, passwordHash }, data: { passwordHash } })).count === 1;
    },
    async replacePassword(userId, from, to, at) {
      return (await db.user.updateMany({ where: { id: userId, passwordHash: from }, data: { passwordHash: to, passwordChangedAt: at } })).count === 1;
    },
  };
}
