import type pg from "pg";
import { type Timed, timedOn, type WaitMeter } from "../domain/kernel/wait-meter";
import type { Sql } from "./sql";
import { postgresValue, type SqlReads, statementNames, utcTypes } from "./sql-reads";
import type { RestartGate } from "./sqlite-checkpoints";
import { type SqliteConnection, sqliteValue } from "./sqlite-connection";

/**
 * Reads and writes on one connection, without Prisma's query compiler (0.2-0.3 ms of CPU per statement, raw ones
 * included, docs/performance.md): for code that changes rows one statement at a time and must know whether each
 * changed one (a compare-and-set).
 */
export interface SqlSession extends SqlReads {
  /** Runs a write and answers how many rows it changed. */
  changes(statement: Sql): Promise<number>;
}

/** Runs `work` in one transaction on the session's connection: all of its statements commit, or none. */
export type SessionTransaction = <T>(work: (session: SqlSession) => Promise<T>) => Promise<T>;

/** A session and transactions on its connections. */
export interface Sessions {
  session: SqlSession;
  transaction: SessionTransaction;
}

/** Sessions whose waits off the event loop, when `waits` is given, are timed on it. */
export type SessionsFor = (waits?: WaitMeter) => Sessions;


function postgresSession(client: pg.Pool | pg.PoolClient, nameOf: (text: string) => string | undefined, timed: Timed): SqlSession {
  const query = (statement: Sql) => timed(client.query({ name: nameOf(statement.text), text: statement.text, values: statement.values.map(postgresValue), types: utcTypes }));
  return {
    rows: async <T>(statement: Sql) => (await query(statement)).rows as T[],
    changes: async (statement) => (await query(statement)).rowCount ?? 0,
  };
}

/**
 * Statements on the pool, each its own transaction, and transactions on one of its connections. A connection
 * whose transaction failed is discarded rather than reused, as the batch writes do. Every round trip is a wait.
 */
export function postgresSessions(pool: pg.Pool): SessionsFor {
  const nameOf = statementNames();
  return (waits) => {
    const timed = timedOn(waits);
    return {
      session: postgresSession(pool, nameOf, timed),
      async transaction(work) {
        const client = await timed(pool.connect());
        try {
          await timed(client.query("BEGIN"));
          const result = await work(postgresSession(client, nameOf, timed));
          await timed(client.query("COMMIT"));
          client.release();
          return result;
        } catch (error) {
          client.release(true);
          throw error;
        }
      },
    };
  };
}

/**
 * Statements and transactions on a SQLite connection of their own, its statements prepared once. The driver
 * answers synchronously, but a transaction's work is asynchronous: the connection's users take turns, so that
 * no statement ever runs inside another's transaction. A transaction takes the write lock as it begins
 * (IMMEDIATE), so it either runs whole or fails at once as busy, for the store to run again; it begins once the
 * checkpoint thread's restart of the log, if one runs, has ended (`gate`). Its statements hold the event loop:
 * only the waits for a turn and for the gate are waits.
 */
export function sqliteSessions(connection: SqliteConnection, gate?: RestartGate): SessionsFor {
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(timed: Timed, use: () => Promise<T>): Promise<T> => {
    const turn = timed(last).then(use);
    last = turn.catch(() => undefined);
    return turn;
  };
  const values = (statement: Sql) => statement.values.map(sqliteValue);
  const direct: SqlSession = {
    rows: async <T>(statement: Sql) => connection.statement(statement.sql).all(...values(statement)) as T[],
    changes: async (statement) => connection.statement(statement.sql).run(...values(statement)).changes,
  };
  return (waits) => {
    const timed = timedOn(waits);
    return {
      session: {
        rows: (statement) => inTurn(timed, () => direct.rows(statement)),
        changes: (statement) => inTurn(timed, () => direct.changes(statement)),
      },
      transaction: (work) =>
        inTurn(timed, async () => {
          if (gate) await timed(gate.passed());
          connection.db.exec("BEGIN IMMEDIATE");
          try {
            const result = await work(direct);
            connection.db.exec("COMMIT");
            return result;
          } catch (error) {
            if (connection.db.inTransaction) connection.db.exec("ROLLBACK");
            throw error;
          }
        }),
    };
  };
}
