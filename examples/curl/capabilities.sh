#!/usr/bin/env bash
# The session-backed /api routes with curl and a cookie jar: sign in with the owner the first start printed, read
# the capability registry, create assistants, watch every rule of a capability update refuse a bad PATCH, then
# make a good one:
#   ENGRAM_ADMIN_EMAIL=… ENGRAM_ADMIN_PASSWORD=… bash examples/curl/capabilities.sh [base-url]
# (A free-plan organization, like the first start's "Development", shows the tier rules best.)
set -euo pipefail
B=${1:-${ENGRAM_BASE_URL:-http://localhost:8787}}
: "${ENGRAM_ADMIN_EMAIL:?set ENGRAM_ADMIN_EMAIL to the email the server printed on first start}"
: "${ENGRAM_ADMIN_PASSWORD:?set ENGRAM_ADMIN_PASSWORD to the password the server printed on first start}"
jars=$(mktemp -d)
trap 'rm -rf "$jars"' EXIT
json=(-H 'Content-Type: application/json')
show() { printf '\n== %s\n' "$1"; }
# One field of a JSON answer (node is here wherever Engram runs).
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=process.argv[1].split(".").reduce((o,k)=>o?.[k],JSON.parse(s));process.stdout.write(String(v??""))})' "$1"; }
# call EXPECTED_STATUS curl-arguments…: prints the body, fails the script on any other status.
call() {
  local expected=$1 out status
  shift
  out=$(curl -sS -w '\n%{http_code}' "$@")
  status=${out##*$'\n'}
  printf '%s\n' "${out%$'\n'*}"
  [[ $status == "$expected" ]] || { echo "expected HTTP $expected, got $status" >&2; return 1; }
}
# as JAR …: a request with that person's cookie jar and CSRF token (curl sends no Origin, so it echoes the token).
as() {
  local jar="$jars/$1" csrf
  shift
  csrf=$(cat "$jar.csrf")
  call "$1" -b "$jar" -c "$jar" -H "X-CSRF-Token: $csrf" "${@:2}"
}
sign_in() {
  local jar="$jars/$1" body
  body=$(call 200 -c "$jar" "${json[@]}" "$B/api/auth/login" -d "{\"email\":\"$2\",\"password\":\"$3\"}")
  printf '%s' "$body" | field csrfToken >"$jar.csrf"
  echo "$body"
}
run=$(date +%s)-$$

show "sign in (the cookie goes to the jar)"
sign_in owner "$ENGRAM_ADMIN_EMAIL" "$ENGRAM_ADMIN_PASSWORD"

show "the capability registry, for organization-wide assistants"
as owner 200 "$B/api/capabilities/registry?assistantType=organization_wide" | cut -c1-400

show "create an organization assistant and a personal one"
shared=$(as owner 201 "${json[@]}" "$B/api/assistants" -d "{\"name\":\"Helpdesk $run\",\"type\":\"org_shared\"}" | field assistant._id)
personal=$(as owner 201 "${json[@]}" "$B/api/assistants" -d "{\"name\":\"My assistant $run\",\"type\":\"employee_personal\"}" | field assistant._id)
echo "org_shared $shared, employee_personal $personal"
as owner 200 "$B/api/assistants/$shared/available-capabilities" | cut -c1-300

patch() { as "$1" "$2" -X PATCH "${json[@]}" "$B/api/assistants/$3/capabilities" -d "$4" "${@:5}"; }

show "rule 1: an organization capability on a personal assistant"
patch owner 400 "$personal" '{"capabilities":["onboard_new_hires"]}'
show "rule 2: a user capability on an organization assistant"
patch owner 400 "$shared" '{"capabilities":["draft_messages"]}'
show "rule 3: a capability of scope both fits both"
patch owner 200 "$personal" '{"capabilities":["cite_sources"]}'
show "rule 4: more capabilities than the tier allows (answer_questions counts)"
patch owner 400 "$shared" '{"capabilities":["cite_sources","summarize_documents","onboard_new_hires"]}'
show "rule 5: a capability above the organization's tier"
patch owner 400 "$shared" '{"capabilities":["review_pull_requests"],"capabilityConfigs":{"review_pull_requests":{"repositories":["acme/api"],"maxFilesPerReview":50}}}'
show "rule 6: a required config field missing"
patch owner 400 "$shared" '{"capabilities":["search_memory"]}'
show "and everything at once: unknown and repeated ids, a wrong config type, a config for a capability not enabled"
patch owner 400 "$shared" '{"capabilities":["nope","cite_sources","cite_sources","search_memory"],"capabilityConfigs":{"search_memory":{"maxMemories":"five"},"summarize_documents":{}}}'

show "rule 7: a member may see the organization assistant but not change it"
member=$(as owner 201 "${json[@]}" "$B/api/organization/members" -d "{\"email\":\"member-$run@example.com\",\"role\":\"member\"}")
sign_in member "member-$run@example.com" "$(printf '%s' "$member" | field temporaryPassword)" >/dev/null
as member 200 "$B/api/assistants/$shared/capabilities"
patch member 403 "$shared" '{"capabilities":["cite_sources"]}'

show "a good update, conditional on the version read (If-Match)"
version=$(curl -sS -b "$jars/owner" -D - -o /dev/null "$B/api/assistants/$shared/capabilities" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
patch owner 200 "$shared" '{"capabilities":["search_memory","cite_sources"],"capabilityConfigs":{"search_memory":{"maxMemories":5}}}' -H "If-Match: $version"
show "the same If-Match again is stale now"
patch owner 412 "$shared" '{"capabilities":["cite_sources"]}' -H "If-Match: $version"

show "who changed it, before and after"
as owner 200 "$B/api/assistants/$shared/changes" | cut -c1-400

show "sign out: the cookie no longer works"
as owner 200 -X POST "$B/api/auth/logout"
call 401 -b "$jars/owner" "$B/api/auth/me"
