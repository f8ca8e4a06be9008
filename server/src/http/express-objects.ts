import { IncomingMessage, type ServerOptions, ServerResponse } from "node:http";
import type { Express } from "express";

/**
 * A constructor of `base`'s objects that carry `prototype` (which inherits from `base.prototype`) from the
 * moment they are made. Node's constructors are plain functions, so `base` runs on the new object as on its
 * own. (Made through `Reflect.construct` with another `new.target` instead, every object got a map of its own,
 * slower than the swap it replaced.)
 */
function bornWith<Base extends typeof IncomingMessage | typeof ServerResponse>(base: Base, prototype: object): Base {
  const construct = base as unknown as (this: object, ...args: unknown[]) => void;
  function Born(this: object, ...args: unknown[]): void {
    construct.apply(this, args);
  }
  Born.prototype = prototype;
  return Born as unknown as Base;
}

/**
 * Node's server options that make each request and response with `app`'s own request and response
 * prototypes. Express otherwise swaps them in as every request starts, and changing a live object's prototype
 * costs V8 its fast paths for that object, in Express and in Node's own HTTP code alike (docs/performance.md,
 * item 30); finding the prototype already in place, Express's swap leaves the object as it is.
 */
export function expressObjects(app: Express): ServerOptions<typeof IncomingMessage, typeof ServerResponse> {
  return { IncomingMessage: bornWith(IncomingMessage, app.request), ServerResponse: bornWith(ServerResponse, app.response) };
}
