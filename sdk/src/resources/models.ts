import type { TModelList } from "@engram/contract";
import type { APIPromise } from "../core/api-promise";
import type { RequestOptions } from "../core/options";
import { apiCall, type Http } from "../internal/http";

/** The models the gateway advertises (`GET /v1/models`). */
export class Models {
  /** @internal Made by the Engram client. */
  constructor(private readonly http: Http) {}

  list(options?: RequestOptions): APIPromise<TModelList> {
    return apiCall(this.http.inference.listModels({ requestOptions: options }));
  }
}
