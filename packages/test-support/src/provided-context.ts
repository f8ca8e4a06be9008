/** Values the global setups hand to test files through vitest's provide/inject. */
declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
    /** The run's folder for temporary files (temporary-root.ts); absent outside such a run. */
    temporaryRoot?: string;
  }
}

export {};
