/** Values the global setup hands to test files through vitest's provide/inject. */
declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
  }
}

export {};
