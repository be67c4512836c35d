import { ALL_WA_PATCH_NAMES } from "@whiskeysockets/baileys"
import { AppStateEvents } from "./app-state-events"
import { MemoryAuth, TestClient } from "./baileys-client"
import { silentLogger } from "./silent-logger"

/*
 * Unmodified Baileys in its own process, reaching the simulator through the TLS front (its CA is
 * trusted through NODE_EXTRA_CA_CERTS, which Bun reads only at start: hence a process). Driven by
 * app-state-tls.test.ts, to which it reports each step as one JSON line on stdout: the QR to scan,
 * the key share, what the first sync emitted, its own chatModify, and what a later server_sync brought.
 */

const url = process.env.APP_STATE_WS_URL
const [alice, bob] = [process.env.APP_STATE_ALICE!, process.env.APP_STATE_BOB!]
if (!url || !alice || !bob) throw new Error("APP_STATE_WS_URL, APP_STATE_ALICE and APP_STATE_BOB are required")
const WAIT_MS = 15_000

function report(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

const auth = new MemoryAuth()
const config = () => ({
  auth: auth.state,
  waWebSocketUrl: url,
  logger: silentLogger,
  markOnlineOnConnect: false,
  syncFullHistory: false,
  shouldSyncHistoryMessage: () => false,
  connectTimeoutMs: WAIT_MS,
  defaultQueryTimeoutMs: WAIT_MS,
})
const first = new TestClient(config(), auth)
report({ qr: await first.waitForQr(WAIT_MS) })
const restart = await first.waitForClose(WAIT_MS)
if (restart !== 515) throw new Error(`expected close 515 after pairing, got ${restart}`)
const client = new TestClient(config(), auth)
const events = new AppStateEvents(client.sock)
await client.waitForOpen(WAIT_MS)
report({ keyId: await events.waitFor(() => events.keyId, "the key share", WAIT_MS) })

await client.sock.resyncAppState(ALL_WA_PATCH_NAMES, false)
await events.waitFor(() => (events.chat(alice).archived && events.contactName(alice) ? true : undefined), "the first sync", WAIT_MS)
report({ synced: { alice: events.chat(alice), aliceName: events.contactName(alice) } })

await client.sock.chatModify({ pin: true }, alice)
report({ modified: true })

await events.waitFor(() => (events.chat(bob).archived ? true : undefined), "the phone's change after server_sync", WAIT_MS)
report({ serverSync: { bob: events.chat(bob) } })
await client.end()
process.exit(0)
