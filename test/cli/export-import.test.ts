import { SQL } from "bun"
import { afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LOCK_FILE } from "../../src/lib/lockfile"
import { DATABASE_FILE, migrate, openDatabase } from "../../src/store/sqlite/db"
import { latestPostgresSchemaVersion } from "../../src/store/postgres/migrations"
import { TRANSFER_PLAN } from "../../src/store/transfer"
import { createHarness, type Harness } from "../helpers/harness"
import { freshDatabase } from "../helpers/postgres"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { liveTenant, send } from "../live/live-helpers"
import { freshMigratedDatabase } from "../store/contract/stores"
import { cli, makeDataDir, removeDataDir } from "./run-cli"

/*
 * `wagate export` on a single node's SQLite install, then `wagate import` into a fresh
 * PostgreSQL database: every row arrives unchanged (flags as booleans, BLOBs as bytea), and a
 * server on PostgreSQL serves the same data to the same keys and numbers new messages after the
 * imported ones. A refused import changes nothing.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const TO = "+14155550199"
let dir: string
let other: string
let harnesses: Harness[]
let receiver: WebhookReceiver | null
// Starting the run's PostgreSQL and migrating its template database is slow once: not in a test's time.
beforeAll(async () => void (await freshMigratedDatabase()), SLOW_HOOK_TIMEOUT_MS)
beforeEach(() => {
  dir = makeDataDir()
  other = makeDataDir()
  harnesses = []
  receiver = null
})
afterEach(async () => {
  for (const h of harnesses) await h.close()
  await receiver?.stop()
  removeDataDir(dir)
  removeDataDir(other)
})

const BLOB = new Uint8Array([0, 1, 2, 0xfe, 0xff, 10, 13, 34, 92])

interface Install {
  testKey: string
  liveKey: string
  adminToken: string
  messages: unknown
  inbound: unknown
  webhooks: unknown
  accountId: string
  phoneNumber: string
}

/** A single-node SQLite install with something in every kind of table. */
async function sqliteInstall(): Promise<Install> {
  const h = await createHarness({ databasePath: join(dir, DATABASE_FILE) })
  harnesses.push(h)
  receiver = new WebhookReceiver()
  const { account, key: testKey, phone } = await h.seedTenant()
  await addEndpoint(h, account.id, receiver.url())
  for (const content of ["one", "two", "three"]) expect((await send(h, testKey, { fromPhoneId: phone.phoneNumber, to: TO, content })).status).toBe(201)
  await receiver.waitFor(3)
  const live = await liveTenant(h)
  const liveKey = await h.seedKey(live.account.id, { env: "live" })
  expect((await send(h, liveKey, { fromPhoneId: live.phone.phoneNumber, to: TO, content: "live hello" })).status).toBe(201)
  h.gateway.current(live.phone.id).receive({ waMessageId: "IN1", from: "+14155550166", isGroup: false, groupId: null, type: "text", content: "Hi back", receivedAtMs: h.clock.nowMs() })
  // A sender with only a LID and a username: the message carries it, and the phone's contacts hold it.
  const sender = { lid: "204519374921837@lid", phoneNumber: null, username: "ada.lovelace", pushName: "Ada" }
  h.gateway.current(live.phone.id).receive({ waMessageId: "IN2", from: sender.lid, isGroup: false, groupId: null, type: "text", content: "Hi", receivedAtMs: h.clock.nowMs(), sender })
  await h.settle()
  const db = h.services.sqlite!
  db.run("INSERT INTO wa_creds (phone_id, data, updated_at_ms) VALUES (?, ?, ?)", [live.phone.id, '{"me":{"id":"1@s.whatsapp.net"}}', 1])
  db.run("INSERT INTO wa_keys (phone_id, type, id, data) VALUES (?, 'pre-key', '1', '{\"k\":\"v\"}')", [live.phone.id])
  db.run("INSERT INTO wa_resend_messages (phone_id, wa_message_id, message, sent_at_ms) VALUES (?, 'WA1', ?, 2)", [live.phone.id, BLOB])
  db.run("INSERT INTO wa_message_secrets (phone_id, chat_jid, wa_message_id, sender_jid, sender_alt_jid, secret, created_at_ms) VALUES (?, '14155550166@s.whatsapp.net', 'IN1', '14155550166@s.whatsapp.net', NULL, ?, 3)", [live.phone.id, BLOB])
  db.run("INSERT INTO polls (message_id, phone_id, wa_message_id, question, options, option_hashes, multiple_answers, created_at_ms) VALUES ('inmsg_poll', ?, 'POLL1', 'Lunch?', '[\"Pizza\",\"Soup\"]', '[\"aa\",\"bb\"]', 1, 4)", [live.phone.id])
  db.run("INSERT INTO poll_votes (phone_id, poll_wa_message_id, voter, option_hashes, voted_at_ms) VALUES (?, 'POLL1', '+14155550166', '[\"ab\"]', 5)", [live.phone.id])
  db.run("INSERT INTO poll_pending_votes (phone_id, poll_wa_message_id, vote_wa_message_id, descriptor, received_at_ms) VALUES (?, 'POLL2', 'VOTE1', '{}', 6)", [live.phone.id])
  // What the phone sent itself, and a chat changed on it: the import keeps chats and contacts as they are, not counted again by its triggers.
  db.run(`INSERT INTO chat_messages (id, account_id, env, phone_id, wa_message_id, chat_id, origin, direction, from_address, type, content, at_ms, created_at_ms)
    VALUES ('wamsg_1', ?, 'live', ?, '3EB0ECHO', '+14155550166', 'phone', 'out', ?, 'text', 'from the phone', 7, 7)`, [live.account.id, live.phone.id, live.phone.phoneNumber])
  db.run("UPDATE chats SET archived = 1, labels = '[\"2\"]' WHERE phone_id = ? AND chat_id = '+14155550166'", [live.phone.id])
  db.run("UPDATE phones SET stays_offline = 1 WHERE id = ?", [phone.id])
  db.run("UPDATE phones SET wa_version = '2.3000.1031000001', client_expires_at_ms = 1796860800000 WHERE id = ?", [live.phone.id])
  // What the single node held: a lease and a delivery claim, which must not follow it.
  db.run("UPDATE phone_leases SET node_id = 'old-box', token = 7, expires_at_ms = ? WHERE phone_id = ?", [h.clock.nowMs() + 3_600_000, live.phone.id])
  db.run("UPDATE webhook_deliveries SET claimed_by = 'old-box', claim_expires_at_ms = ?", [h.clock.nowMs() + 3_600_000])
  // The RabbitMQ publisher's cursor (a SQLite rowid) and its lease.
  db.run("INSERT INTO amqp_publisher (id, position, holder, lease_expires_at_ms) VALUES (1, '3', 'old-box', ?)", [h.clock.nowMs() + 3_600_000])
  const adminToken = await h.adminToken()
  const install: Install = {
    testKey,
    liveKey,
    adminToken,
    accountId: account.id,
    phoneNumber: phone.phoneNumber,
    messages: (await h.request("GET", "/v1/messages", { key: testKey })).body,
    inbound: (await h.request("GET", "/v1/messages/inbound", { key: liveKey })).body,
    webhooks: (await h.request("GET", `/admin/v1/accounts/${account.id}/webhooks`, { key: adminToken })).body,
  }
  await h.close()
  harnesses = []
  return install
}

/** Every row of every imported table, as comparable text: flags as 0/1, binary as base64, fixed columns left out. */
async function sqliteRows(): Promise<Record<string, string[]>> {
  const db = openDatabase(join(dir, DATABASE_FILE))
  try {
    const out: Record<string, string[]> = {}
    for (const plan of TRANSFER_PLAN) {
      if (!("into" in plan)) continue
      const rows = db.query(`SELECT * FROM "${plan.table}"${plan.only ? ` WHERE ${plan.only}` : ""}`).all() as Record<string, unknown>[]
      out[plan.into] = rows.map((r) => normalise(r, plan.set)).sort()
    }
    return out
  } finally {
    db.close()
  }
}

async function nodeSecretOf(path: string): Promise<string> {
  const db = openDatabase(path)
  try {
    return (db.query("SELECT value FROM settings WHERE key = 'node_secret'").get() as { value: string }).value
  } finally {
    db.close()
  }
}

async function postgresRows(url: string): Promise<Record<string, string[]>> {
  const sql = new SQL(url, { max: 1 })
  try {
    const out: Record<string, string[]> = {}
    for (const plan of TRANSFER_PLAN) {
      if (!("into" in plan)) continue
      const rows = await sql.unsafe<{ j: Record<string, unknown> }[]>(`SELECT row_to_json(t) AS j FROM "${plan.into}" t`)
      // Columns PostgreSQL fills itself (an event's stream position) have no SQLite twin to compare.
      const own = { ...plan.set, ...Object.fromEntries((plan.generated ?? []).map((c) => [c, null])) }
      out[plan.into] = rows.map((r) => normalise(r.j, own)).sort()
    }
    return out
  } finally {
    await sql.close()
  }
}

function normalise(row: Record<string, unknown>, fixed: Record<string, unknown> = {}): string {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(row).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (k in fixed) continue
    if (typeof v === "boolean") out[k] = v ? 1 : 0
    else if (v instanceof Uint8Array) out[k] = Buffer.from(v).toString("base64")
    else if (typeof v === "string" && v.startsWith("\\x")) out[k] = Buffer.from(v.slice(2), "hex").toString("base64")
    else out[k] = v
  }
  return JSON.stringify(out)
}

async function exportTo(name = "export.ndjson"): Promise<string> {
  const file = join(other, name)
  const res = await cli(dir, ["export", "--out", file])
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: "" })
  expect(res.stdout).toContain(`to ${file}.`)
  return file
}

describe("wagate export and wagate import", () => {
  test("a SQLite install moves into PostgreSQL unchanged, and a node there serves it to the same keys", async () => {
    const install = await sqliteInstall()
    const file = await exportTo()
    expect(statSync(file).mode & 0o777).toBe(0o600)
    // The node secret stays where it was made (docs/operations.md § "Moving from one node (SQLite)").
    const secret = await nodeSecretOf(join(dir, DATABASE_FILE))
    expect(secret.length).toBeGreaterThan(40)
    expect(readFileSync(file, "utf8")).not.toContain(secret)
    const url = await freshMigratedDatabase()
    const res = await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: url } })
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: "" })
    expect(res.stdout).toMatch(/^Imported \d+ rows from /)

    const [before, after] = [await sqliteRows(), await postgresRows(url)]
    for (const table of ["accounts", "api_keys", "phones", "messages", "message_parts", "inbound_messages", "wa_contacts", "events", "webhook_deliveries", "webhook_attempts", "wa_creds", "wa_keys", "wa_resend_messages", "wa_message_secrets", "polls", "poll_votes", "poll_pending_votes", "chats", "chat_messages", "contacts", "amqp_publisher"]) {
      expect([table, before[table]!.length > 0]).toEqual([table, true])
    }
    expect(after).toEqual(before)
    const pg = new SQL(url, { max: 1 })
    try {
      expect(await pg`SELECT COUNT(*)::int4 AS n FROM webhook_deliveries WHERE claimed_by IS NOT NULL OR claim_expires_at_ms IS NOT NULL`).toEqual([{ n: 0 }])
      const leases = await pg`SELECT l.node_id AS "nodeId", l.expires_at_ms::int8 = 0 AS free FROM phones p LEFT JOIN phone_leases l ON l.phone_id = p.id`
      expect(leases.length).toBe(before.phones!.length)
      for (const lease of leases) expect(lease).toEqual({ nodeId: null, free: true })
      // A rowid is no PostgreSQL position: the publisher starts again from the log's beginning, held by no node.
      expect(await pg`SELECT position, holder, lease_expires_at_ms::int4 AS expires FROM amqp_publisher`).toEqual([{ position: "0:0", holder: null, expires: 0 }])
    } finally {
      await pg.close()
    }

    const h = await createHarness({ env: { WAGATE_DATABASE_URL: url } })
    harnesses.push(h)
    expect((await h.request("GET", "/v1/messages", { key: install.testKey })).body).toEqual(install.messages)
    expect((await h.request("GET", "/v1/messages/inbound", { key: install.liveKey })).body).toEqual(install.inbound)
    expect((await h.request("GET", `/admin/v1/accounts/${install.accountId}/webhooks`, { key: install.adminToken })).body).toEqual(install.webhooks)

    const sent = await h.request("POST", "/v1/messages/send", { key: install.testKey, body: { fromPhoneId: install.phoneNumber, to: TO, content: "after the move" } })
    expect(sent.status).toBe(201)
    const sql = new SQL(url, { max: 1 })
    try {
      const [row] = await sql`SELECT (SELECT seq FROM messages WHERE id = ${sent.body.data.id}) > (SELECT MAX(seq) FROM messages WHERE id <> ${sent.body.data.id}) AS higher`
      expect(row.higher).toBe(true)
    } finally {
      await sql.close()
    }
    expect((await h.request("GET", "/v1/messages?limit=1", { key: install.testKey })).body.data.data[0].id).toBe(sent.body.data.id)
  })

  test("export and import name the tables whose rows the import leaves out, with why, and the counts add up", async () => {
    await sqliteInstall()
    const file = join(other, "counted.ndjson")
    const exported = await cli(dir, ["export", "--out", file])
    expect(exported.code).toBe(0)
    const total = Number(/^Exported (\d+) rows of /.exec(exported.stdout)![1])
    const imported = await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: await freshMigratedDatabase() } })
    expect(imported.code).toBe(0)
    const loaded = Number(/^Imported (\d+) rows from /.exec(imported.stdout)![1])
    const left = Number(/^Left out (\d+) rows of tables PostgreSQL rebuilds itself:$/m.exec(imported.stdout)![1])
    expect(loaded + left).toBe(total)
    expect(left).toBeGreaterThan(0)
    expect(exported.stdout).toContain(`\`wagate import\` will leave out ${left} rows of tables PostgreSQL rebuilds itself:\n`)
    for (const plan of TRANSFER_PLAN.filter((p) => "skip" in p && ["schema_migrations", "phone_leases"].includes(p.table))) {
      const line = new RegExp(`^  ${plan.table} \\(\\d+ rows?\\): ${("skip" in plan ? plan.skip : "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m")
      expect(exported.stdout).toMatch(line)
      expect(imported.stdout).toMatch(line)
    }
  })

  test("an install larger than one batch moves whole: rows are loaded a batch at a time", async () => {
    const db = openDatabase(join(dir, DATABASE_FILE))
    migrate(db, TEST_EPOCH_MS)
    const insert = db.query("INSERT INTO wa_keys (phone_id, type, id, data) VALUES ('ph_1', 'session', ?, ?)")
    db.transaction(() => {
      for (let i = 0; i < 1234; i++) insert.run(`k${i}`, JSON.stringify({ i, pad: "x".repeat(i % 50) }))
    })()
    db.close()
    const file = await exportTo()
    const url = await freshMigratedDatabase()
    expect((await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: url } })).stdout).toStartWith("Imported 1234 rows from ")
    const after = await postgresRows(url)
    expect(after.wa_keys!.length).toBe(1234)
    expect(after).toEqual(await sqliteRows())
  })

  test("a database that already holds rows is refused with one sentence, and keeps what it had", async () => {
    await sqliteInstall()
    const file = await exportTo()
    const url = await freshMigratedDatabase()
    expect((await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: url } })).code).toBe(0)
    const before = await postgresRows(url)
    const again = await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: url } })
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(
      new RegExp(`^error: The PostgreSQL database at ${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not empty \\(settings, accounts, .*already hold rows\\): import only into a freshly migrated database, before any node has started on it\\.\\n$`),
    )
    expect(await postgresRows(url)).toEqual(before)
  })

  test("a file that is not an export, was cut short, holds another schema version or a row PostgreSQL cannot hold is refused, and the database stays empty", async () => {
    await sqliteInstall()
    const file = await exportTo()
    const url = await freshMigratedDatabase()
    const env = { WAGATE_DATABASE_URL: url }
    const lines = readFileSync(file, "utf8").split("\n")

    const notExport = join(other, "notes.txt")
    writeFileSync(notExport, "hello\n")
    expect(await cli(other, ["import", "--in", notExport], { env })).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: ${notExport} is not a wagate export: its first line is not the header \`wagate export\` writes.\n`,
    })

    const cut = join(other, "cut.ndjson")
    writeFileSync(cut, lines.slice(0, -3).join("\n") + "\n")
    expect((await cli(other, ["import", "--in", cut], { env })).stderr).toBe(`error: ${cut} ends before its last line: it was cut short; copy or export it again.\n`)

    const older = join(other, "older.ndjson")
    const header = JSON.parse(lines[0]!)
    writeFileSync(older, [JSON.stringify({ ...header, sqliteSchemaVersion: header.sqliteSchemaVersion - 1 }), ...lines.slice(1)].join("\n"))
    expect((await cli(other, ["import", "--in", older], { env })).stderr).toBe(
      `error: ${older} holds SQLite schema version ${header.sqliteSchemaVersion - 1}, but this wagate imports version ${header.sqliteSchemaVersion}: run \`wagate migrate\` on the SQLite install with this wagate, then export it again.\n`,
    )

    const nul = join(other, "nul.ndjson")
    const accountsAt = lines.findIndex((l) => l.startsWith('{"table":"accounts"')) + 1
    const account = JSON.parse(lines[accountsAt]!)
    account[1] = "Acme\u0000Ltd"
    writeFileSync(nul, [...lines.slice(0, accountsAt), JSON.stringify(account), ...lines.slice(accountsAt + 1)].join("\n"))
    expect((await cli(other, ["import", "--in", nul], { env })).stderr).toMatch(/^error: PostgreSQL refused rows of accounts \(.+\): nothing was imported\.\n$/)

    // The refused imports left nothing behind: the whole file still goes in.
    for (const rows of Object.values(await postgresRows(url))) expect(rows).toEqual([])
    expect((await cli(other, ["import", "--in", file], { env })).code).toBe(0)
  })

  test("an unmigrated or unreachable database: exit 1 and one sentence naming it, with the password hidden", async () => {
    await sqliteInstall()
    const file = await exportTo()
    const bare = await freshDatabase()
    expect((await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: bare } })).stderr).toBe(
      `error: The PostgreSQL database at ${bare} has schema version 0, but this wagate imports into version ${latestPostgresSchemaVersion()}: run \`wagate migrate\` with the same URL first.\n`,
    )
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
    const port = probe.port
    probe.stop(true)
    const res = await cli(other, ["import", "--in", file], { env: { WAGATE_DATABASE_URL: `postgres://wagate:s3cret@127.0.0.1:${port}/x` } })
    expect(res).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: Cannot reach the PostgreSQL database at postgres://wagate:***@127.0.0.1:${port}/x (connection refused): check WAGATE_DATABASE_URL.\n`,
    })
  })

  test("export beside a running server writes the snapshot and says that later changes are not in it", async () => {
    await sqliteInstall()
    const server = Bun.spawn(["sleep", "60"])
    try {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: server.pid, port: 1, host: "127.0.0.1", startedAt: "2026-01-05T00:00:00.000Z" }))
      const file = join(other, "live.ndjson")
      const res = await cli(dir, ["export", "--out", file])
      expect(res.code).toBe(0)
      expect(res.stderr).toBe("note: a server is running on this data directory; what it accepts after this snapshot is not in the file. For a move, stop it first and export again.\n")
      expect(statSync(file).size).toBeGreaterThan(0)
    } finally {
      server.kill()
    }
  })

  test("export refuses to overwrite a file, to read PostgreSQL, and a data directory without a database", async () => {
    const existing = join(other, "taken.ndjson")
    writeFileSync(existing, "")
    expect(await cli(dir, ["export", "--out", existing])).toEqual({ code: 1, stdout: "", stderr: `error: ${existing} already exists; choose a new file name.\n` })
    const target = join(other, "new.ndjson")
    expect(await cli(dir, ["export", "--out", target])).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: There is no wagate database at ${join(dir, DATABASE_FILE)}: point --data (WAGATE_DATA_DIR) at the data directory of the install to export.\n`,
    })
    const pg = await cli(dir, ["export", "--out", target], { env: { WAGATE_DATABASE_URL: "postgres://wagate:pw@127.0.0.1:1/x" } })
    expect(pg.code).toBe(1)
    expect(pg.stderr).toContain("wagate export reads the SQLite database of a single node")
    expect((await cli(dir, ["export"])).code).toBe(2)
    expect((await cli(dir, ["import", "--in", target])).code).toBe(2)
  })
})
