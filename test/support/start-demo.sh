# Sourced by the client test tiers (clients/python/test.sh, clients/executor/test.sh): starts the demo
# (the whole stack against the bundled simulator) on a free 127.0.0.1 port with a fresh data folder,
# waits until an active market has trades, candles and an order book indexed, and exports for the tests:
#   TAPELINE_TEST_BASE_URL, TAPELINE_TEST_DATA_DIR, TAPELINE_TEST_TIER2_KEY, TAPELINE_TEST_SANDBOX_KEY,
#   TAPELINE_TEST_MARKET_ID, TAPELINE_TEST_MARKET_SLUG.
# The service is stopped and the folder removed on exit. Extra demo settings come from DEMO_ENV.
set -euo pipefail
DEMO_WORK="$(mktemp -d /tmp/tapeline-clients-XXXXXX)"
DEMO_PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
DEMO_LOG="$DEMO_WORK/service.log"
env DATA_DIR="$DEMO_WORK/data" PORT="$DEMO_PORT" LOG_PRETTY=false LOG_LEVEL=warn ${DEMO_ENV:-} node --import tsx services/demo.ts > "$DEMO_LOG" 2>&1 &
DEMO_PID=$!
stop_demo() { kill "$DEMO_PID" 2>/dev/null || true; wait "$DEMO_PID" 2>/dev/null || true; rm -rf "$DEMO_WORK"; }
trap stop_demo EXIT

export TAPELINE_TEST_BASE_URL="http://127.0.0.1:$DEMO_PORT/v1"
export TAPELINE_TEST_DATA_DIR="$DEMO_WORK/data"
# Up to 5 minutes (a first start on a loaded 2-core machine took over one); then fail saying so.
DEMO_UP=0
for _ in $(seq 1 600); do
  if curl -fsS "http://127.0.0.1:$DEMO_PORT/api/openapi.yaml" > /dev/null 2>&1 && [ -f "$TAPELINE_TEST_DATA_DIR/admin.json" ]; then DEMO_UP=1; break; fi
  if ! kill -0 "$DEMO_PID" 2>/dev/null; then echo "demo exited:"; cat "$DEMO_LOG"; exit 1; fi
  sleep 0.5
done
if [ "$DEMO_UP" != 1 ]; then echo "the demo did not serve within 300 s:"; tail -50 "$DEMO_LOG"; exit 1; fi
json() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const v=JSON.parse(s);console.log(eval('v'+process.argv[1])??'')})" "$1"; }
export TAPELINE_TEST_TIER2_KEY="$(DATA_DIR="$TAPELINE_TEST_DATA_DIR" node --import tsx services/admin/cli.ts keys create --tier 2 --name client-tests | json .api_key)"
export TAPELINE_TEST_SANDBOX_KEY="$(curl -fsS -XPOST "$TAPELINE_TEST_BASE_URL/agents/register" -H 'content-type: application/json' -d '{"name":"client-tests"}' | json .data.api_key)"
auth=(-H "authorization: Bearer $TAPELINE_TEST_TIER2_KEY")
# The market must be trading now (at least 5 of its newest 10 trades in the last minute), not just rank high:
# while the history is still being indexed, the volume ranking can put a market first that has not traded for
# half an hour, and the client tests wait for live trades on it. It must also stay open for the tests: a
# market near its end date trades most (informed traders) and then closes and trades no more.
for _ in $(seq 1 240); do
  for id in $(curl -fsS "${auth[@]}" "$TAPELINE_TEST_BASE_URL/markets?status=active&sort=volume&limit=10" | json ".data.filter(m=>!m.end_date||Date.parse(m.end_date)-Date.now()>30*60000).map(m=>m.id).join(' ')"); do
    recent="$(curl -fsS "${auth[@]}" "$TAPELINE_TEST_BASE_URL/markets/$id/trades?limit=10" | json ".data.filter(t=>Date.now()-Date.parse(t.timestamp)<60000).length")"
    [ "${recent:-0}" -ge 5 ] || continue
    candles="$(curl -fsS "${auth[@]}" "$TAPELINE_TEST_BASE_URL/markets/$id/ohlcv?interval=1h&limit=1" | json .data.length)"
    book="$(curl -sS -o /dev/null -w '%{http_code}' "${auth[@]}" "$TAPELINE_TEST_BASE_URL/markets/$id/orderbook")"
    if [ "$candles" = 1 ] && [ "$book" = 200 ]; then
      export TAPELINE_TEST_MARKET_ID="$id"
      export TAPELINE_TEST_MARKET_SLUG="$(curl -fsS "${auth[@]}" "$TAPELINE_TEST_BASE_URL/markets/$id" | json .data.slug)"
      break 2
    fi
  done
  sleep 0.5
done
if [ -z "${TAPELINE_TEST_MARKET_ID:-}" ]; then echo "no market trading now with candles and a book appeared"; cat "$DEMO_LOG"; exit 1; fi
