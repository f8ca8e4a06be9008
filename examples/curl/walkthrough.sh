#!/usr/bin/env bash
# The README's curl walk-through against a running server:
#   ENGRAM_TOKEN=acm_… bash examples/curl/walkthrough.sh [base-url]
set -euo pipefail
B=${1:-${ENGRAM_BASE_URL:-http://localhost:8787}}
: "${ENGRAM_TOKEN:?set ENGRAM_TOKEN to the token the server printed on first start}"
auth=(-H "Authorization: Bearer $ENGRAM_TOKEN")
json=(-H 'Content-Type: application/json')
show() { printf '\n== %s\n' "$1"; }

show "encode (remember)"
created=$(curl -sf "${auth[@]}" "${json[@]}" -H "Idempotency-Key: walkthrough-$(date +%s)" "$B/v1/memory" \
  -d '{"text":"Payments deploys with make release after CI is green.","subject":"payments","memoryKind":"procedure","confidence":0.9}')
echo "$created"
id=$(printf '%s' "$created" | sed -E 's/.*"id":"(mem_[a-z0-9]+)".*/\1/')

show "retrieve (recall) with context"
curl -sf "${auth[@]}" "${json[@]}" "$B/v1/memory/recall" -d '{"query":"how does payments deploy?","limit":5,"includeContext":true}'

show "reinforce"
curl -sf "${auth[@]}" "${json[@]}" "$B/v1/memory/$id/reinforce" -d '{"reason":"answered the on-call question","actor":"walkthrough"}'

show "provenance"
curl -sf "${auth[@]}" "$B/v1/memory/$id/provenance"

show "delete (tombstone)"
curl -sf "${auth[@]}" -X DELETE "$B/v1/memory/$id"
echo
