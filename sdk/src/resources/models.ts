import type { TModelList } from "@engram/contract";
import type { APIPromise } from "../api-promise";
import { apiCall, type Http } from "../http";
import type { RequestOptions } from "../options";

/** The models the gateway advertises (`GET /v1/models`). */
export class Models {
  /** @internal Made by the Engram client. */
  constructor(private readonly http: Http) {}

  list(options?: RequestOptions): APIPromise<TModelList> {
    return apiCall(this.http.inference.listModels({ requestOptions: options }));
  }
}
