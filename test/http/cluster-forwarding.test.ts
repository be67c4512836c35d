import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { createLogger } from "../../src/lib/logger"
import { cluster, forwardingCluster, listener, pairedOnN1 } from "../helpers/forwarding-cluster"
import { expectErrorEnvelope } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"

/*
 * Forwarding between nodes (docs/operations.md § "Running several nodes"): two nodes on one
 * PostgreSQL database, each listening on a real port of 127.0.0.1 and advertising it as its
 * WAGATE_NODE_URL. A request that needs the socket of a phone n1 holds, sent to n2, is replayed
 * to n1 and n1's answer comes back; success, errors and security as the other HTTP tests split them.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(() => forwardingCluster.close(), SLOW_HOOK_TIMEOUT_MS)

describe("forwarding: success", () => {
  test("the live group list asked of the node without the phone is answered by the holder, as the holder answers it", async () => {
    const { n1, n2, gateway } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    gateway.groups.set(phone.id, [{ id: "1203@g.us", name: "Team", announcementOnly: false, selfIsMember: true, selfIsAdmin: false }])
    const path = `/v1/groups?fromPhoneId=${encodeURIComponent(phone.phoneNumber)}`
    const viaN2 = await n2.request("GET", path, { key })
    expect(viaN2.status).toBe(200)
    expect(viaN2.headers.get("x-wagate-node")).toBe("n1")
    expect(viaN2.body.data).toEqual([{ id: "1203@g.us", name: "Team", isCommunityAnnounce: false }])
    expect(viaN2.body.data).toEqual((await n1.request("GET", path, { key })).body.data)
  })

  test("a contact check (a request with a body) through the other node reaches WhatsApp once, through the holder", async () => {
    const { n1, n2, gateway } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    gateway.numbers.set("+14155550100", null)
    const res = await n2.request("POST", "/v1/contacts/check", { key, body: { fromPhoneId: phone.id, numbers: ["+14155550199", "+14155550100"] } })
    expect(res.status).toBe(200)
    expect(res.headers.get("x-wagate-node")).toBe("n1")
    expect(res.body.data).toEqual([
      { number: "+14155550199", onWhatsApp: true, jid: "14155550199@s.whatsapp.net" },
      { number: "+14155550100", onWhatsApp: false, jid: null },
    ])
    expect(gateway.numberChecks).toEqual([["+14155550199", "+14155550100"]])
  })

  test("connecting a phone through the other node is done by the holder: one socket, the holder's pairing state", async () => {
    const { n1, n2, gateway } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const res = await n2.request("POST", `/admin/v1/phones/${phone.id}/connect`, { key: await n2.adminToken(), body: { method: "qr" } })
    expect(res.status).toBe(200)
    expect(res.headers.get("x-wagate-node")).toBe("n1")
    expect(res.body.data.connectionStatus).toBe("connected")
    expect(gateway.sessions.get(phone.id)?.length).toBe(1)
  })

  test("a pairing event stream asked of the other node is answered there, with the holder's state (relayed, not forwarded)", async () => {
    const { n1, n2 } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const res = await n2.request("GET", `/admin/v1/phones/${phone.id}/pairing/events`, { key: await n2.adminToken() })
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/event-stream")
    // Live views follow the holder through the database's pairing relay (docs/operations.md § "Running several nodes").
    expect(res.headers.get("x-wagate-node")).toBeNull()
    expect(res.body).toStartWith("event: pairing\ndata: ")
    expect(JSON.parse(String(res.body).split("data: ")[1]!.split("\n")[0]!).connectionStatus).toBe("connected")
  })

  test("a forwarded request is counted once in the account's usage, by the node that answered it", async () => {
    const { n1, n2 } = await cluster()
    const { key, phone, account } = await pairedOnN1(n1)
    expect((await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key })).status).toBe(200)
    // Requests are counted just after their response is handed back; then both buffers are written.
    await n1.settle()
    await n2.settle()
    await Promise.all([n1.services.usage.flush(), n2.services.usage.flush()])
    const counted = await n1.services.ctx.store.sumApiRequestsSince(account.id, "live", 0)
    expect(counted).toEqual({ successful: 1, failed: 0 })
  })
})

describe("forwarding: errors", () => {
  test("a holder that advertised no WAGATE_NODE_URL leaves the 409 naming it", async () => {
    const { n1, n2 } = await cluster({ n1Url: () => null })
    const { key, phone } = await pairedOnN1(n1)
    const res = await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key })
    expect(expectErrorEnvelope(res, 409, "Conflict")[0]).toContain('held by node "n1"')
    expect(res.headers.get("x-wagate-node")).toBeNull()
  })

  test("a holder that does not answer at its URL gives 503 with one sentence and a Retry-After, and one warning until it answers", async () => {
    const lines: string[] = []
    const n2Logger = createLogger({ level: "warn", format: "json", nowIso: () => "t", write: (line) => lines.push(line) })
    const { n1, n2, n1Server } = await cluster({ n2Logger })
    const { key, phone } = await pairedOnN1(n1)
    await n1Server.stop(true)
    const res = await n2.request("POST", "/v1/contacts/check", { key, body: { fromPhoneId: phone.id, numbers: ["+14155550199"] } })
    expect(expectErrorEnvelope(res, 503, "Service Unavailable")).toEqual([
      'Node "n1", which holds the phone this request needs, did not answer at its WAGATE_NODE_URL; retry shortly',
    ])
    expect(res.headers.get("retry-after")).toBe("5")
    expect((await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key })).status).toBe(503)
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.msg?.includes("did not answer a forwarded request"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ level: "warn", node: "n1" })
  })

  test("a holder that takes the connection but does not start answering within 30 s gives the 503", async () => {
    const stalled = listener()
    let arrived = 0
    stalled.handle(() => {
      arrived += 1
      return new Promise<Response>(() => {})
    })
    const { n1, n2 } = await cluster({ n1Url: () => stalled.url })
    const { key, phone } = await pairedOnN1(n1)
    const pending = n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key })
    await waitUntil(() => arrived === 1, 10_000, "the request to reach the stalled holder")
    await n2.advance(29_000)
    let settled = false
    void pending.then(() => (settled = true))
    await n2.settle()
    expect(settled).toBe(false)
    await n2.advance(1_000)
    expect(expectErrorEnvelope(await pending, 503, "Service Unavailable")[0]).toContain('Node "n1"')
  })

  test("the holder's own failure comes back as it gave it, named by the holder", async () => {
    const { n1, n2, gateway } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    gateway.groupFetchError = new Error("boom")
    const res = await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key })
    expect(expectErrorEnvelope(res, 502, "Bad Gateway")).toEqual(["Fetching the group list from WhatsApp failed; retry after a moment"])
    expect(res.headers.get("x-wagate-node")).toBe("n1")
  })

  test("a request refused before the phone is looked at (a bad query) is answered by the node that got it", async () => {
    const { n1, n2 } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    const res = await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}&extra=1`, { key })
    expect(res.status).toBe(400)
    expect(res.headers.get("x-wagate-node")).toBeNull()
  })
})

describe("forwarding: security", () => {
  test("a forwarded request is never forwarded again: a holder URL that leads back to the other node ends in the 409", async () => {
    // n1 advertises n2's address by mistake: n2 forwards to itself once, and that hop answers 409.
    const { n1, n2 } = await cluster({ n1Url: (_own, n2Url) => n2Url })
    const { key, phone } = await pairedOnN1(n1)
    const res = await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key })
    expect(expectErrorEnvelope(res, 409, "Conflict")[0]).toContain('held by node "n1"')
  })

  test("a client's own forwarding mark without a node signature is refused with 401, never forwarded", async () => {
    const { n1, n2 } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    const res = await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key, headers: { "x-wagate-forwarded-by": "n9" } })
    expect(expectErrorEnvelope(res, 401, "Unauthorized")[0]).toContain("without a valid node signature")
    expect(res.headers.get("x-wagate-node")).toBeNull()
  })

  test("the replay goes to the registered URL only, with the client's method, path, query, credentials and body, without hop-by-hop headers", async () => {
    const seen: { method: string; url: string; headers: Record<string, string>; body: string }[] = []
    const recorder = listener()
    recorder.handle(async (req) => {
      seen.push({ method: req.method, url: req.url, headers: Object.fromEntries(req.headers), body: await req.text() })
      return new Response(JSON.stringify({ from: "recorder" }), { status: 207, headers: { "content-type": "application/json", "x-extra": "kept", connection: "close" } })
    })
    const { n1, n2 } = await cluster({ n1Url: () => `${recorder.url}/base/` })
    const { key, phone } = await pairedOnN1(n1)
    const body = JSON.stringify({ fromPhoneId: phone.id, numbers: ["+14155550199"] })
    const res = await n2.request("POST", "/v1/contacts/check?trace=1", {
      key,
      rawBody: body,
      headers: {
        "content-type": "application/json",
        cookie: "wagate_session=abc",
        host: "evil.example",
        "proxy-authorization": "Basic c2VjcmV0",
        "keep-alive": "timeout=5",
        connection: "keep-alive, x-hop",
        "x-hop": "drop me",
      },
    })
    expect(res.status).toBe(207)
    expect(res.body).toEqual({ from: "recorder" })
    expect(res.headers.get("x-extra")).toBe("kept")
    expect(res.headers.get("x-wagate-node")).toBe("n1")
    expect(seen).toHaveLength(1)
    const got = seen[0]!
    expect(got.method).toBe("POST")
    expect(got.url).toBe(`${recorder.url}/base/v1/contacts/check?trace=1`)
    expect(got.body).toBe(body)
    expect(got.headers).toMatchObject({ authorization: `Bearer ${key}`, cookie: "wagate_session=abc", "content-type": "application/json", "x-wagate-forwarded-by": "n2" })
    expect(got.headers["x-wagate-node-signature"]).toMatch(/^t=\d+;n=\w+;s=[0-9a-f]{64}$/)
    expect(got.headers.host).toBe(new URL(recorder.url).host)
    for (const name of ["proxy-authorization", "keep-alive", "x-hop"]) expect(got.headers[name]).toBeUndefined()
  })
})
