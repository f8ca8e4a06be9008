import type { ResponseInfo } from "./response-info";

/** A result with the answer it came from. */
export interface WithResponse<T> {
  data: T;
  response: ResponseInfo;
}

/**
 * The promise every API method returns. Await it for the body; call `withResponse()` to also get the status,
 * headers, request id and rate-limit window of the answer.
 */
export class APIPromise<T> extends Promise<T> {
  readonly #answer: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(answer: Promise<WithResponse<T>>) {
    // The base promise is never used: every method below reads from `answer` instead.
    super((resolve) => resolve(undefined as T));
    this.#answer = answer;
  }

  /** `then` on the result makes plain promises, not APIPromises. */
  static override get [Symbol.species]() {
    return Promise;
  }

  /** The body together with what the answer said besides it. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer;
  }

  /** An APIPromise of a part of this one's body, answered by the same response. */
  map<U>(select: (data: T) => U): APIPromise<U> {
    return new APIPromise(this.#answer.then(({ data, response }) => ({ data: select(data), response })));
  }

  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#body().then(onFulfilled, onRejected);
  }

  override catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#body().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#body().finally(onFinally);
  }

  // Made on first use, so a caller who only uses withResponse() leaves no unobserved rejection behind.
  #body(): Promise<T> {
    this.#data ??= this.#answer.then(({ data }) => data);
    return this.#data;
  }
}
