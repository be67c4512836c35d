import { startWaSim } from "../wa-sim/sim"
import { Proc, LISTENING, adminTokenIn, call } from "../helpers/wagate-process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { test } from "bun:test"
test("proto", async () => {
const t0 = performance.now()
const log = (m: string) => console.log(`${((performance.now() - t0) / 1000).toFixed(2)}s ${m}`)
const sim = await startWaSim()
const alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice" })
const dir = mkdtempSync(join(tmpdir(), "wagate-proto-"))
const p = new Proc(["serve", "--data", dir, "--port", "0"], {
  WAGATE_WA_WS_URL: sim.wsUrl, NODE_EXTRA_CA_CERTS: sim.mediaCaPath, WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
  WAGATE_SEND_INTERVAL_MS: "50", WAGATE_LOG_LEVEL: process.env.LL ?? "warn",
})
const m = await p.waitFor(LISTENING)
const base = `http://127.0.0.1:${m[3]}`
const admin = adminTokenIn(p.out)!
const accountId = /Account: +(\S+)/.exec(p.out)![1]!
log(`up ${accountId}`)
const phone = await call(base, "POST", `/admin/v1/accounts/${accountId}/phones`, admin, { phoneNumber: "+15550001111", displayName: "Me" })
const phoneId = phone.body.data.id
const key = (await call(base, "POST", `/admin/v1/accounts/${accountId}/keys`, admin, { environment: "live", scopes: ["messages:send", "messages:read", "groups:read", "phone_numbers:read", "account:read"] })).body.data.key
log(`phone ${phoneId}`)
console.log((await call(base, "POST", `/admin/v1/phones/${phoneId}/connect`, admin, {})).body)
let qr: string | null = null
while (!qr) { qr = (await call(base, "GET", `/admin/v1/phones/${phoneId}/pairing`, admin)).body.data.qr; await Bun.sleep(20) }
log("qr")
await sim.primary("+15550001111").scanQr(qr)
log("scanned")
for (;;) { const s = (await call(base, "GET", `/admin/v1/phones/${phoneId}/pairing`, admin)).body.data.connectionStatus; if (s === "connected") break; await Bun.sleep(20) }
log("connected")
const sent = await call(base, "POST", `/v1/messages/send`, key, { fromPhoneId: phoneId, to: "+15550002222", content: "hello" })
log(`send ${sent.status} ${JSON.stringify(sent.body).slice(0, 200)}`)
const msg = await sim.nextMessage(alice, { timeoutMs: 10000 })
log(`alice got ${msg.text}`)
let last = ""
for (;;) { const s = (await call(base, "GET", `/v1/messages/${sent.body.data.id}`, key)).body.data.status; if (s !== last) { log(s); last = s } if (s === "read" || performance.now() - t0 > 40000) break; await Bun.sleep(50) }
p.kill()
console.log(p.err.slice(0, 3000))
await sim.stop()
}, 90000)
