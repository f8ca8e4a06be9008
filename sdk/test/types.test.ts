import type { contract, ZChatCompletionChunk } from "@engram/contract";
import type { AppRoute, ClientInferRequest, ClientInferResponseBody } from "@ts-rest/core";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { APIPromise, type Engram, type RateLimitError, type ResponseInfo, type Stream } from "../src";

// Checked by `tsc` (pnpm typecheck): what each method takes and answers is what the contract declares.
type Body<R extends keyof typeof contract.memory> = ClientInferRequest<(typeof contract.memory)[R]> extends { body: infer B } ? B : never;
type Answer<Route extends AppRoute, Status extends number> = ClientInferResponseBody<Route, Status>;
type Memory = Engram["memory"];

describe("SDK types come from the contract", () => {
  it("types memory requests and answers", () => {
    expectTypeOf<Parameters<Memory["encode"]>[0]>().toEqualTypeOf<Body<"encode">>();
    expectTypeOf<Parameters<Memory["recall"]>[0]>().toEqualTypeOf<Body<"recall">>();
    expectTypeOf<Parameters<Memory["suppress"]>[1]>().toEqualTypeOf<Body<"suppress"> | undefined>();

    expectTypeOf<Awaited<ReturnType<Memory["encode"]>>>().toEqualTypeOf<Answer<typeof contract.memory.encode, 201>["memory"]>();
    expectTypeOf<Awaited<ReturnType<Memory["remember"]>>>().toEqualTypeOf<Answer<typeof contract.memory.encodeForAgent, 201>["memory"]>();
    expectTypeOf<Awaited<ReturnType<Memory["retrieve"]>>>().toEqualTypeOf<Answer<typeof contract.memory.retrieve, 200>>();
    expectTypeOf<Awaited<ReturnType<Memory["search"]>>>().toEqualTypeOf<Answer<typeof contract.memory.search, 200>>();
    expectTypeOf<Awaited<ReturnType<Memory["reinforce"]>>>().toEqualTypeOf<Answer<typeof contract.memory.reinforce, 200>["memory"]>();
    expectTypeOf<Awaited<ReturnType<Memory["restore"]>>>().toEqualTypeOf<Answer<typeof contract.memory.restore, 200>["memory"]>();
    expectTypeOf<Awaited<ReturnType<Memory["provenance"]>>>().toEqualTypeOf<Answer<typeof contract.memory.provenance, 200>>();
    expectTypeOf<Awaited<ReturnType<Memory["tombstone"]>>>().toEqualTypeOf<Answer<typeof contract.memory.delete, 200>["memory"]>();
  });

  it("types events", () => {
    expectTypeOf<Parameters<Engram["events"]["send"]>[0]>().toEqualTypeOf<ClientInferRequest<typeof contract.events.ingest>["body"]>();
    expectTypeOf<Awaited<ReturnType<Engram["events"]["send"]>>>().toEqualTypeOf<Answer<typeof contract.events.ingest, 201>>();
  });

  it("types chat (plain and streamed), models and health", () => {
    type Create = Engram["chat"]["completions"]["create"];
    type Request = ClientInferRequest<typeof contract.inference.chatCompletions>["body"];
    const typeOnly = async (engram: Engram, messages: Request["messages"]) => {
      expectTypeOf(await engram.chat.completions.create({ model: "m", messages })).toEqualTypeOf<Answer<typeof contract.inference.chatCompletions, 200>>();
      const stream = await engram.chat.completions.create({ model: "m", messages, stream: true });
      expectTypeOf(stream).toEqualTypeOf<Stream<z.infer<typeof ZChatCompletionChunk>>>();
      for await (const chunk of stream) expectTypeOf(chunk.choices[0]!.delta.content).toEqualTypeOf<string | undefined>();
    };
    expectTypeOf(typeOnly).toBeFunction();
    expectTypeOf<Parameters<Create>[0]>().toMatchTypeOf<Request>();
    expectTypeOf<Awaited<ReturnType<Engram["models"]["list"]>>>().toEqualTypeOf<Answer<typeof contract.inference.listModels, 200>>();
    expectTypeOf<Awaited<ReturnType<Engram["health"]>>>().toEqualTypeOf<Answer<typeof contract.health.check, 200>>();
  });

  it("returns APIPromises whose withResponse() adds the answer's details", () => {
    expectTypeOf<ReturnType<Memory["recall"]>>().toEqualTypeOf<APIPromise<Answer<typeof contract.memory.recall, 200>>>();
    expectTypeOf<ReturnType<ReturnType<Memory["recall"]>["withResponse"]>>().toEqualTypeOf<
      Promise<{ data: Answer<typeof contract.memory.recall, 200>; response: ResponseInfo }>
    >();
    expectTypeOf<RateLimitError["retryAfter"]>().toEqualTypeOf<number | null>();
    expectTypeOf<RateLimitError["status"]>().toEqualTypeOf<number>();
  });

  it("rejects what the contract rejects", () => {
    const typeOnly = (engram: Engram) => {
      // @ts-expect-error unknown fields are refused by the contract
      void engram.memory.encode({ text: "x", colour: "red" });
      // @ts-expect-error memoryKind is one of the contract's kinds
      void engram.memory.encode({ text: "x", memoryKind: "rumour" });
      // @ts-expect-error retrieve needs a query
      void engram.memory.recall({ limit: 3 });
      // @ts-expect-error an event needs a type
      void engram.events.send({ text: "x" });
    };
    expectTypeOf(typeOnly).toBeFunction();
  });
});
