/**
 * The other worker processes of one `engram serve --workers N`, told of changes their in-memory caches must
 * not outlive. Each call resolves once every other worker has acted on it (or could not be reached).
 */
export interface Peers {
  forgetVerifiedTokens(): Promise<void>;
}
