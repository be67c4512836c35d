import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { cluster, forwardingCluster, pairedOnN1 } from "../helpers/forwarding-cluster"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * Labels on several nodes (docs/api.md § "Labels", docs/operations.md § "Running several nodes"):
 * a label change sent to the node without the phone is written to WhatsApp once, through the
 * holder's session, and both nodes read the result from the shared PostgreSQL database.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(() => forwardingCluster.close(), SLOW_HOOK_TIMEOUT_MS)

describe("labels on several nodes", () => {
  test("POST /v1/labels and PUT chat labels sent to the other node are written once through the holder, and both nodes read them", async () => {
    const { n1, n2, gateway } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    gateway.current(phone.id).business = true
    const sent = await n2.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550166", content: "hello" } })
    expect(sent.status).toBe(201)
    const made = await n2.request("POST", "/v1/labels", { key, body: { fromPhoneId: phone.phoneNumber, name: "Paid", color: 3 } })
    expect([made.status, made.headers.get("x-wagate-node"), made.body.data]).toEqual([201, "n1", { id: "1", name: "Paid", color: 3 }])
    const put = await n2.request("PUT", "/v1/chats/%2B14155550166/labels", { key, body: { fromPhoneId: phone.phoneNumber, labels: ["1"] } })
    expect([put.status, put.headers.get("x-wagate-node"), put.body.data.labels]).toEqual([200, "n1", ["1"]])
    expect(gateway.current(phone.id).labelWrites).toEqual([
      { kind: "label", labelId: "1", name: "Paid", color: 3 },
      { kind: "chat", chatJid: "14155550166@s.whatsapp.net", labelId: "1", labeled: true },
    ])
    for (const node of [n1, n2]) {
      const labels = await node.request("GET", `/v1/labels?fromPhoneId=${encodeURIComponent(phone.phoneNumber)}`, { key })
      expect(labels.body.data.labels).toEqual([{ id: "1", name: "Paid", color: 3 }])
    }
  })

  test("a phone that is not a WhatsApp Business account is 409 through the other node too, named by the holder", async () => {
    const { n1, n2, gateway } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    const res = await n2.request("POST", "/v1/labels", { key, body: { fromPhoneId: phone.phoneNumber, name: "Paid", color: 3 } })
    expect([res.status, res.headers.get("x-wagate-node")]).toEqual([409, "n1"])
    expect(JSON.stringify(res.body)).toContain("is not a WhatsApp Business account")
    expect(gateway.current(phone.id).labelWrites).toEqual([])
  })
})
