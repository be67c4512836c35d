import { describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { proto } from "@whiskeysockets/baileys"
import { join } from "node:path"
import { DATABASE_FILE } from "../../src/store/sqlite/db"
import type { SimContact } from "../wa-sim"
import { openVoteMessage, optionHashOf, pollMessage, pollOf, voteMessage } from "../wa-sim/polls"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Polls over the TLS front (docs/api.md § "Polls", docs/live-whatsapp.md § "Poll votes"): our
 * poll goes out with a secret, contacts vote with votes sealed as WhatsApp's apps seal them, and
 * no vote is lost: not after a restart between poll and vote, not from a LID-addressed voter, not
 * when the vote comes before the poll (and wagate restarts meanwhile), not when a voter changes
 * their vote twice or their votes arrive out of order. Each case reads the poll's secret, or the
 * vote kept for later, from the store: with secrets in memory only each fails.
 */

const ME = "+15550081111"

const pollQuestionOf = (message: proto.IMessage | undefined) =>
  (message?.pollCreationMessage ?? message?.pollCreationMessageV2 ?? message?.pollCreationMessageV3)?.name

export function describePolls(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let bob: SimContact
  let carol: SimContact
  const myPn = `${ME.slice(1)}@s.whatsapp.net`
  const live = liveScenarioWorld(run, {
    keyName: "polls",
    scopes: ["messages:send", "messages:read"],
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550082222", name: "Alice" })
      bob = sim.contact({ phoneNumber: "+15550083333", name: "Bob", addressing: "lid" })
      carol = sim.contact({ phoneNumber: "+15550084444", name: "Carol" })
      // As WhatsApp does after a link: a first history chunk (empty here), so Baileys ends its
      // initial sync at once instead of holding every event for 20 s after each login until one
      // connection has lasted that long (7.0.0-rc14 chats.js, `AwaitingInitialSync`).
      sim.history.onLink(ME, () => ({ chunks: [{ syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP, conversations: [] }], inlineBootstrap: true }))
    },
    events: ["*"],
    pair: ME,
  })

  /** Sends a poll to `to` through the API; resolves with its message id, WhatsApp id, secret and options as the contact received them. */
  async function sendPoll(to: SimContact, question: string, options: string[], multipleAnswers = false) {
    const res = await live.api.call("POST", "/messages/send", { fromPhoneId: ME, to: `+${to.phoneNumber}`, poll: { question, options, multipleAnswers } })
    expect(res.status).toBe(201)
    // A poll of an earlier test that wagate re-sent after a restart (its ack not yet stored, so
    // the same part again, by design) may come first: skip to this one.
    let out = await live.sim.nextMessage(to, { timeoutMs: 15_000 })
    while (pollQuestionOf(out.message) !== question) out = await live.sim.nextMessage(to, { timeoutMs: 15_000 })
    live.sim.ack(out.id)
    return { messageId: res.body.data.id as string, waId: out.id, ...pollOf(out.message) }
  }

  /** `voter` votes on the poll `pollKey`, its app deriving with `creatorJid` and `voterJid`. */
  async function vote(voter: SimContact, p: { waId: string; secret: Uint8Array }, chosen: string[], atMs: number, jids: { creator: string; voter: string }, fromMe = false) {
    const pollKey = { remoteJid: fromMe ? voter.jid() : myPn, id: p.waId, fromMe }
    return live.sim.sendInbound(voter, { message: voteMessage({ pollKey, secret: p.secret, creatorJid: jids.creator, voterJid: jids.voter, chosen, senderTimestampMs: atMs }) })
  }

  const results = async (path: string) => (await live.api.call("GET", path)).body.data

  describe(`polls over TLS, ${label}`, () => {
    test("our poll: a contact's vote is decrypted, emitted as poll.vote and tallied; the Message reads back the poll as sent", async () => {
      const p = await sendPoll(alice, "Where shall we meet?", ["Office", "Café", "Park"])
      expect(p.options).toEqual(["Office", "Café", "Park"])
      const atMs = Date.now() - 5_000
      await vote(alice, p, ["Café"], atMs, { creator: myPn, voter: alice.pnJid })
      const data = await live.hooks.next("poll.vote", (d) => d.messageId === p.messageId, 15_000)
      expect(data).toEqual({ messageId: p.messageId, voter: `+${alice.phoneNumber}`, options: ["Café"], at: new Date(atMs).toISOString() })
      const r = await results(`/messages/${p.messageId}/poll`)
      expect(r.options).toEqual([{ name: "Office", votes: 0 }, { name: "Café", votes: 1 }, { name: "Park", votes: 0 }])
      expect((await live.api.call("GET", `/messages/${p.messageId}`)).body.data).toMatchObject({ type: "poll", poll: { question: "Where shall we meet?", options: ["Office", "Café", "Park"], multipleAnswers: false } })
    })

    test("a voter who changes their vote twice, across a restart, counts once, with the newest by its own time, even when an older vote arrives last; withdrawing leaves no option", async () => {
      const p = await sendPoll(alice, "Pizza or soup?", ["Pizza", "Soup"])
      const t0 = Date.now() - 60_000
      await vote(alice, p, ["Pizza"], t0, { creator: myPn, voter: alice.pnJid })
      await live.hooks.next("poll.vote", (d) => d.messageId === p.messageId, 15_000)
      await live.wagate.restart()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      await vote(alice, p, ["Soup"], t0 + 20_000, { creator: myPn, voter: alice.pnJid })
      await vote(alice, p, ["Pizza"], t0 + 10_000, { creator: myPn, voter: alice.pnJid })
      await poll(async () => ((await results(`/messages/${p.messageId}/poll`)).voters[0]?.options[0] === "Soup" ? true : undefined), "the newest vote")
      // The late, older vote changed nothing and emitted nothing.
      await Bun.sleep(500)
      const r = await results(`/messages/${p.messageId}/poll`)
      expect(r.options).toEqual([{ name: "Pizza", votes: 0 }, { name: "Soup", votes: 1 }])
      expect(live.hooks.matching("poll.vote", (d) => d.messageId === p.messageId).map((e: any) => e.data.options)).toEqual([["Pizza"], ["Soup"]])
      await vote(alice, p, [], t0 + 30_000, { creator: myPn, voter: alice.pnJid })
      await poll(async () => ((await results(`/messages/${p.messageId}/poll`)).voters[0]?.options.length === 0 ? true : undefined), "the withdrawn vote")
    })

    test("a LID-addressed voter sealing with LIDs is decrypted, after a restart between the poll and the vote", async () => {
      const p = await sendPoll(bob, "Friday?", ["Yes", "No"])
      await live.wagate.restart()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      const myLid = `${live.sim.primary(ME).account.lid}@lid`
      await vote(bob, p, ["No"], Date.now() - 1_000, { creator: myLid, voter: bob.lidJid })
      const data = await live.hooks.next("poll.vote", (d) => d.messageId === p.messageId, 15_000)
      expect(data.options).toEqual(["No"])
      expect([`+${bob.phoneNumber}`, bob.lidJid]).toContain(data.voter)
    })

    test("a vote that arrives after wagate restarted between the poll and the vote is decrypted with the secret from the store", async () => {
      const p = await sendPoll(alice, "Restart-proof?", ["A", "B"])
      await live.wagate.restart()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      await vote(alice, p, ["B"], Date.now() - 1_000, { creator: myPn, voter: alice.pnJid })
      const data = await live.hooks.next("poll.vote", (d) => d.messageId === p.messageId, 15_000)
      expect(data.options).toEqual(["B"])
    })

    test("a vote from a voter whose Signal session wagate lost between poll and vote is read once the voter's phone resends it over a new session", async () => {
      const p = await sendPoll(alice, "Session lost?", ["Yes", "No"])
      expect(await live.wagate.terminate()).toBe(0)
      // As a node killed after the poll went out but before it stored the session update would be.
      const db = new Database(join(live.wagate.dataDir, DATABASE_FILE))
      const addresses = [`${alice.phoneNumber.replace(/^\+/, "")}.0`, `${alice.lidJid.split("@")[0]}_1.0`]
      const dropped = addresses.reduce((n, id) => n + db.run("DELETE FROM wa_keys WHERE type = 'session' AND id = ?", [id]).changes, 0)
      db.close()
      expect(dropped).toBeGreaterThan(0)
      await live.wagate.resume()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      const voteId = await vote(alice, p, ["Yes"], Date.now() - 1_000, { creator: myPn, voter: alice.pnJid })
      const data = await live.hooks.next("poll.vote", (d) => d.messageId === p.messageId, 20_000)
      expect(data.options).toEqual(["Yes"])
      // Only the voter's resend, asked for by wagate's retry receipts, could carry the vote.
      expect(live.sim.inboundRetries.answered.get(voteId)?.[0]).toBe("resent")
    })

    test("we vote on a contact's poll: the contact's app opens our sealed vote and finds the option chosen", async () => {
      const secret = crypto.getRandomValues(new Uint8Array(32))
      await live.sim.sendInbound(carol, { message: pollMessage({ question: "Which day?", options: ["Mon", "Tue"] }, secret) })
      const inbound = await poll(async () => ((await live.api.call("GET", "/messages/inbound?limit=100")).body.data.data as any[]).find((m) => m.content === "Which day?"), "the poll")
      const res = await live.api.call("POST", `/messages/inbound/${inbound.id}/vote`, { options: ["Tue"] })
      expect(res.status).toBe(200)
      expect(res.body.data.options).toEqual([{ name: "Mon", votes: 0 }, { name: "Tue", votes: 1 }])
      const out = await live.sim.nextMessage(carol, { timeoutMs: 15_000 })
      live.sim.ack(out.id)
      expect(openVoteMessage(out.message, secret, carol.pnJid, myPn)).toEqual([optionHashOf("Tue")])
    })

    test("a vote that comes before its poll is kept through a restart and counted when the poll arrives", async () => {
      const secret = crypto.getRandomValues(new Uint8Array(32))
      const pollId = `3EB0${crypto.randomUUID().replaceAll("-", "").slice(0, 18).toUpperCase()}`
      await vote(carol, { waId: pollId, secret }, ["Tea"], Date.now() - 2_000, { creator: carol.pnJid, voter: carol.pnJid }, true)
      await poll(async () => {
        const metrics = String((await live.wagate.request(live.wagate.adminToken, "GET", "/metrics")).body)
        return /wagate_poll_votes_kept\{[^}]*\} 1/.test(metrics) ? true : undefined
      }, "the vote to be kept")
      await live.wagate.restart()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      await live.sim.sendInbound(carol, { message: pollMessage({ question: "Tea or coffee?", options: ["Tea", "Coffee"] }, secret) }, { id: pollId })
      const data = await live.hooks.next("poll.vote", (d) => d.voter === `+${carol.phoneNumber}`, 15_000)
      const inbound = await results(`/messages/inbound/${data.messageId}/poll`)
      expect(inbound).toMatchObject({ question: "Tea or coffee?", multipleAnswers: false, options: [{ name: "Tea", votes: 1 }, { name: "Coffee", votes: 0 }] })
      expect(data.options).toEqual(["Tea"])
      const metrics = String((await live.wagate.request(live.wagate.adminToken, "GET", "/metrics")).body)
      expect(metrics).toMatch(/wagate_poll_votes_kept\{[^}]*\} 0/)
    })
  })
}
