/** Where domain code reads the time: injected, so evaluations and tests can set it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
