import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { BUILD_TIMEOUT_MS, ensureBinary } from "../helpers/binary"
import { describeWithRabbitmq, startRabbitmq, type ThrowawayRabbitmq } from "../helpers/rabbitmq"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { LISTENING, Proc, adminTokenIn, call, childEnv, cleanupProcesses, dataDir, sandboxKeyIn } from "../helpers/wagate-process"
import { bindQueue, takeAtLeast } from "./amqp-helpers"

/*
 * rabbitmq-client inside the compiled executable (`bun run build`): dist/wagate, run with
 * WAGATE_AMQP_URL, publishes a send's event to a throwaway broker, and its log never shows the
 * URL's password.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

describeWithRabbitmq("RabbitMQ publishing from the compiled binary", () => {
  let broker: ThrowawayRabbitmq
  let binary = ""
  beforeAll(async () => {
    ;[binary, broker] = await Promise.all([ensureBinary(), startRabbitmq()])
  }, BUILD_TIMEOUT_MS)
  afterAll(() => broker?.remove(), SLOW_HOOK_TIMEOUT_MS)
  afterEach(cleanupProcesses, SLOW_HOOK_TIMEOUT_MS)

  test("dist/wagate publishes a sandbox send's message.sent to the exchange, and never logs the broker's password", async () => {
    await bindQueue(broker.url, "wagate.events", "bin")
    const dir = dataDir()
    const p = new Proc(["serve", "--data", dir, "--port", "0"], childEnv({ WAGATE_AMQP_URL: broker.url }), { command: [binary] })
    try {
      const m = await p.waitFor(LISTENING)
      const base = `http://127.0.0.1:${m[3]}`
      await p.waitFor(/Admin token: .*\n/)
      const key = sandboxKeyIn(p.out)!
      const admin = adminTokenIn(p.out)!
      const accountId = (await call(base, "GET", "/admin/v1/accounts", admin)).body.data[0].accountId
      expect((await call(base, "POST", `/admin/v1/accounts/${accountId}/phones`, admin, { phoneNumber: "+14155550123", displayName: "Support" })).status).toBe(201)
      const sent = await call(base, "POST", "/v1/messages/send", key, { fromPhoneId: "+14155550123", to: "+14155550199", content: "from the binary" })
      expect(sent.status).toBe(201)
      const [first] = await takeAtLeast(broker.url, "bin", 1)
      expect(first!.routingKey).toEndWith(".message.sent")
      expect(JSON.parse(first!.body).data.messageId).toBe(sent.body.data.id)
      expect(p.out + p.err).toContain("amqp://guest:***@127.0.0.1")
      expect(p.out + p.err).not.toContain("guest:guest")
    } finally {
      p.kill("SIGKILL")
      await p.proc.exited
    }
  }, SLOW_TEST_TIMEOUT_MS * 2)
})
