import { afterEach, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DEFAULT_HOST, DEFAULT_PORT, SETTINGS } from "../../src/config"
import { createHarness, type Harness } from "../helpers/harness"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"

/*
 * The README's quick start and walk-through, and docs/api.md's sandbox section, held against
 * what the server does (issue 19): what they say about the port and the bind address is true,
 * and every sentence stays true when the reader sends to a failure number.
 */

const ROOT = join(import.meta.dir, "..", "..")
const README = readFileSync(join(ROOT, "README.md"), "utf8")
const API = readFileSync(join(ROOT, "docs", "api.md"), "utf8")

/** The text of a markdown section, from its heading to the next heading of the same level or above. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`${heading}\n`)
  if (start === -1) throw new Error(`no heading ${heading}`)
  const level = /^#+/.exec(heading)![0]!.length
  const rest = markdown.slice(start + heading.length)
  const end = rest.search(new RegExp(`\\n#{1,${level}} `))
  return end === -1 ? rest : rest.slice(0, end)
}

let h: Harness | undefined
let receiver: WebhookReceiver | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
  await receiver?.stop()
  receiver = undefined
})

/** The event types the receiver got, in the order they came. */
const receivedTypes = () => receiver!.received.map((r) => r.headers["x-service-event"])

describe("the README's quick start", () => {
  test("says how to change the port and that the default bind is every interface, and both are true", () => {
    const quickStart = section(README, "## Quick start")
    expect(quickStart).toContain(`port ${DEFAULT_PORT}`)
    expect(quickStart).toContain(`every interface (\`${DEFAULT_HOST}\`)`)
    const command = /`(bun run start [^`]*)`/.exec(quickStart)![1]!
    expect(command).toBe("bun run start --port 8080 --host 127.0.0.1")
    for (const name of ["port", "host"]) {
      const setting = SETTINGS.find((s) => s.flag === name)!
      expect(quickStart).toContain(`\`--${name}\``)
      expect(quickStart).toContain(`\`${setting.env}\``)
    }
  })
})

describe("the README's walk-through with the failure number in step 2", () => {
  test("the send is 201 and born failed as step 2 says, step 3 shows it failed for good yet its ID is step 2's first message, which step 5 reacts to, and step 4 gets one message.failed", async () => {
    h = await createHarness()
    const { account, key, phone } = await h.seedTenant({ phoneNumber: "+14155550123" })
    receiver = new WebhookReceiver()
    await addEndpoint(h, account.id, receiver.url())
    const step2 = section(README, "### 2. Send a message")
    const example = JSON.parse(/-d '(\{[^']+\})'/.exec(step2)![1]!) as Record<string, string>
    expect(example.fromPhoneId).toBe(phone.phoneNumber)
    const send = (body: Record<string, string>) => h!.request("POST", "/v1/messages/send", { key, body })
    expect((await send(example)).status).toBe(201)

    // "send to +12025550101 with another idempotencyKey (the same key with other parameters is refused with 400)"
    expect(step2).toContain("+12025550101")
    expect((await send({ ...example, to: "+12025550101" })).status).toBe(400)
    const failed = await send({ ...example, to: "+12025550101", idempotencyKey: "order-1235" })
    expect(failed.status).toBe(201)
    expect(failed.body.data).toMatchObject({ status: "failed", sentAt: null, errorCode: "recipient_not_on_whatsapp" })
    expect(failed.body.data.failedAt).toBeString()
    for (const claim of ['`"status":"failed"`', '`"sentAt":null`', '`"errorCode":"recipient_not_on_whatsapp"`']) expect(step2).toContain(claim)

    // Step 3: the newest message is the failed one, and three seconds later it is still failed.
    await h.advance(3_000)
    const latest = await h.request("GET", "/v1/messages?limit=1", { key })
    expect(latest.body.data.data[0]).toMatchObject({ id: failed.body.data.id, status: "failed" })
    const step3 = section(README, "### 3. Read it back")
    expect(step3).toContain('it stays `"status":"failed"`')

    // Step 3's ID is step 2's first message even so: its request again is a replay, and step 5 reacts to it.
    const again = JSON.parse(/-d '(\{[^']+\})'/.exec(step3)![1]!) as Record<string, string>
    expect(again).toEqual(example)
    const replayed = await send(again)
    expect(replayed.status).toBe(201)
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    const id = replayed.body.data.id as string
    expect(id).not.toBe(failed.body.data.id)
    expect((await h.request("GET", `/v1/messages/${id}`, { key })).body.data.status).toBe("read")
    const step5 = section(README, "### 5. React to it")
    const reaction = await h.request("POST", `/v1/messages/${id}/reaction`, { key, body: JSON.parse(/-d '(\{[^']+\})'/.exec(step5)![1]!) })
    expect(reaction.body).toMatchObject({ success: true, data: { messageId: id, emoji: "👍" } })

    // Step 4: one message.failed for it, and nothing after it (the first send brings its three).
    await receiver.waitFor(4)
    expect(receivedTypes().sort()).toEqual(["message.delivered", "message.failed", "message.read", "message.sent"])
    expect(receiver.received.find((r) => r.headers["x-service-event"] === "message.failed")!.json).toMatchObject({
      data: { messageId: failed.body.data.id, errorCode: "recipient_not_on_whatsapp" },
    })
    expect(section(README, "### 4. See the webhooks")).toContain("a single `message.failed` request")
  })
})

describe("the README's walk-through, step 6", () => {
  test("the customer's answer is 201, an inbound message quoting step 2's message, listed for the test key and sent to the receiver as message.received", async () => {
    h = await createHarness()
    const { account, key, phone } = await h.seedTenant({ phoneNumber: "+14155550123" })
    receiver = new WebhookReceiver()
    await addEndpoint(h, account.id, receiver.url(), { events: ["message.received"] })
    const step2 = section(README, "### 2. Send a message")
    const sent = await h.request("POST", "/v1/messages/send", { key, body: JSON.parse(/-d '(\{[^']+\})'/.exec(step2)![1]!) })
    const id = sent.body.data.id as string
    const step6 = section(README, "### 6. Simulate a customer's answer")
    // The shell closes the quote around $ID: put step 2's ID where the shell would.
    const body = JSON.parse(/-d '(\{.+\})'$/m.exec(step6)![1]!.replace(`"'$ID'"`, JSON.stringify(id)))
    expect(/curl -X POST \$WAGATE(\S+)/.exec(step6)![1]).toBe("/v1/sandbox/inbound")
    const res = await h.request("POST", "/v1/sandbox/inbound", { key, body })
    expect(res.status).toBe(201)
    expect(res.body.data.message).toMatchObject({ from: body.from, to: phone.phoneNumber, content: body.content, replyTo: id })
    expect(step6).toContain("`inmsg_…`, quoting yours in `replyTo`")
    const listed = await h.request("GET", "/v1/messages/inbound", { key })
    expect(listed.body.data.data.map((m: { id: string }) => m.id)).toEqual([res.body.data.message.id])
    const [hook] = await receiver.waitFor(1)
    expect(hook!.json).toMatchObject({ event: "message.received", data: { messageId: res.body.data.message.id } })
  })
})

describe("the send examples answer what the API answers", () => {
  test.each([
    ["README.md", README, "### 2. Send a message"],
    ["docs/api.md", API, "## Send: `POST /v1/messages/send`"],
  ])("%s: the example answer has every field of a real send's answer, in its order", async (_file, markdown, heading) => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ phoneNumber: "+14155550123" })
    const text = section(markdown, heading)
    const request = JSON.parse(/-d '(\{[^']+\})'/.exec(text)![1]!) as Record<string, string>
    expect(request.fromPhoneId).toBe(phone.phoneNumber)
    const real = await h.request("POST", "/v1/messages/send", { key, body: request })
    expect(real.status).toBe(201)
    const shown = JSON.parse(/```json\n([\s\S]+?)\n```/.exec(text)![1]!)
    expect(Object.keys(shown.data)).toEqual(Object.keys(real.body.data))
    expect(shown.data).toMatchObject({ type: real.body.data.type, replyTo: null })
  })
})

describe("docs/api.md's sandbox section agrees with its table", () => {
  const sandbox = section(API, "## Sandbox (test keys)")
  const rows = [...sandbox.matchAll(/^\| `(\+\d+)` \| (.+) \|$/gm)].map((m) => ({ to: m[1]!, outcome: m[2]! }))

  test("the text says what a send born failed answers, and the table has such rows", () => {
    expect(rows.filter((r) => r.outcome.startsWith("born `failed`")).length).toBeGreaterThan(0)
    expect(sandbox).not.toMatch(/The response is `sent`/)
    expect(sandbox).toContain("answers `failed` at once, with `failedAt`, `errorCode` and\n`errorMessage` set and `sentAt: null`")
    expect(API).toContain("unless it goes to one of the sandbox's\n[failure numbers](#sandbox-test-keys): then it is born `failed`")
  })

  test("each row's send answers as the text says: born failed with the row's errorCode and only message.failed, or sent", async () => {
    h = await createHarness()
    const { account, key, phone } = await h.seedTenant()
    receiver = new WebhookReceiver()
    await addEndpoint(h, account.id, receiver.url())
    expect(rows).toHaveLength(6)
    for (const row of rows) {
      const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: row.to, content: "hi" } })
      expect(res.status).toBe(201)
      const code = /errorCode: (\w+)/.exec(row.outcome)?.[1]
      if (row.outcome.startsWith("born `failed`")) {
        expect(res.body.data).toMatchObject({ status: "failed", sentAt: null, errorCode: code })
        expect(res.body.data.failedAt).toBeString()
        expect(res.body.data.errorMessage).toBeString()
      } else {
        expect(res.body.data).toMatchObject({ status: "sent", errorCode: null })
        expect(res.body.data.sentAt).toBeString()
      }
    }
    await h.advance(10)
    await receiver.waitFor(rows.length)
    const born = receivedTypes()
    const bornFailed = rows.filter((r) => r.outcome.startsWith("born `failed`")).length
    expect(born.filter((t) => t === "message.failed")).toHaveLength(bornFailed)
    expect(born.filter((t) => t === "message.sent")).toHaveLength(rows.length - bornFailed)
  })
})
