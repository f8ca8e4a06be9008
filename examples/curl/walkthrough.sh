#!/usr/bin/env bash
# The main routes with curl against a running server (the README's walk-through, and more):
#   ENGRAM_TOKEN=acm_… bash examples/curl/walkthrough.sh [base-url]
set -euo pipefail
B=${1:-${ENGRAM_BASE_URL:-http://localhost:8787}}
: "${ENGRAM_TOKEN:?set ENGRAM_TOKEN to the token the server printed on first start}"
auth=(-H "Authorization: Bearer $ENGRAM_TOKEN")
json=(-H 'Content-Type: application/json')
run=$(date +%s)-$$
show() { printf '\n== %s\n' "$1"; }
# curl -f hides error bodies; this shows them and still fails the script.
call() {
  local out status
  out=$(curl -sS -w '\n%{http_code}' "$@")
  status=${out##*$'\n'}
  printf '%s\n' "${out%$'\n'*}"
  [[ $status == 2* ]] || { echo "HTTP $status" >&2; return 1; }
}

show "health (no token needed)"
call "$B/v1/health"

show "encode (remember), safe to retry with Idempotency-Key"
created=$(call "${auth[@]}" "${json[@]}" -H "Idempotency-Key: walkthrough-$run" "$B/v1/memory" \
  -d '{"text":"Payments deploys with make release after CI is green.","subject":"payments","memoryKind":"procedure","confidence":0.9}')
echo "$created"
id=$(printf '%s' "$created" | sed -E 's/.*"id":"(mem_[a-z0-9]+)".*/\1/')

show "the same request again: replayed, not written twice"
call "${auth[@]}" "${json[@]}" -H "Idempotency-Key: walkthrough-$run" -D - -o /dev/null "$B/v1/memory" \
  -d '{"text":"Payments deploys with make release after CI is green.","subject":"payments","memoryKind":"procedure","confidence":0.9}' |
  grep -i -e '^idempotent-replayed' -e '^ratelimit-'

show "retrieve (recall) with context"
call "${auth[@]}" "${json[@]}" "$B/v1/memory/recall" -d '{"query":"how does payments deploy?","limit":5,"includeContext":true}'

show "reinforce"
call "${auth[@]}" "${json[@]}" "$B/v1/memory/$id/reinforce" -d '{"reason":"answered the on-call question","actor":"walkthrough"}'

show "suppress, then restore"
call "${auth[@]}" "${json[@]}" "$B/v1/memory/$id/suppress" -d '{"reason":"checking it is still true"}'
call "${auth[@]}" "${json[@]}" "$B/v1/memory/$id/restore" -d '{}'

show "an agent's memory (path form)"
call "${auth[@]}" "${json[@]}" "$B/v1/memory/agents/triage-bot" -H "Idempotency-Key: walkthrough-agent-$run" \
  -d '{"text":"Page the service owner at once for a P1.","memoryKind":"procedure"}'
call "${auth[@]}" "${json[@]}" "$B/v1/memory/agents/triage-bot/recall" -d '{"query":"P1 owner"}'

show "a developer event"
call "${auth[@]}" "${json[@]}" "$B/v1/memory/events" -H "Idempotency-Key: walkthrough-event-$run" \
  -d '{"type":"incident.resolved","text":"INC-42 resolved: expired TLS cert on payments-api; rotated, expiry alert added.","source":"pagerduty","subject":"INC-42","metadata":{"service":"payments-api"}}'

show "models, and a chat answered from memory"
models=$(call "${auth[@]}" "$B/v1/models")
echo "$models"
model=$(printf '%s' "$models" | sed -E 's/.*"id":"([^"]+)".*/\1/')
call "${auth[@]}" "${json[@]}" "$B/v1/chat/completions" \
  -d '{"model":"'"$model"'","messages":[{"role":"user","content":"How does payments deploy?"}]}'

show "the same chat streamed (Server-Sent Events), inside the triage-bot agent"
curl -sSN "${auth[@]}" "${json[@]}" "$B/v1/agents/triage-bot/chat/completions" \
  -d '{"model":"'"$model"'","messages":[{"role":"user","content":"Who do I page for a P1?"}],"stream":true}'

show "provenance"
call "${auth[@]}" "$B/v1/memory/$id/provenance"

show "delete (tombstone)"
call "${auth[@]}" -X DELETE "$B/v1/memory/$id"

show "an unknown memory: the error body"
curl -sS "${auth[@]}" "$B/v1/memory/mem_missing/provenance"
echo
