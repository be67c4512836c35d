import { optionHash } from "../../src/domain/poll-rules"
import { createHarness } from "../helpers/harness"

/*
 * `bun run bench --only=polls`: how long wagate takes to tally a poll with 1,000 voters
 * (issue 29: under 50 ms), on SQLite and on PostgreSQL. A sandbox poll is sent through the API,
 * 1,000 voters' votes (each choosing one or two of 12 options) are written through the store as
 * the adapter would record them, and `GET /v1/messages/{id}/poll` is asked in process
 * (`app.handle`, no socket) `BENCH_POLL_ROUNDS` times: the figure is the time of the whole request,
 * store read and tally included.
 */

const VOTERS = 1_000
const ROUNDS = Number(process.env.BENCH_POLL_ROUNDS ?? 50)

export interface PollFigures {
  database: "sqlite" | "postgres"
  voters: number
  rounds: number
  p50Ms: number
  p95Ms: number
  maxMs: number
}

async function tallyOn(database: "sqlite" | "postgres"): Promise<PollFigures> {
  const h = await createHarness({ database })
  try {
    const { key, phone } = await h.seedTenant()
    const options = Array.from({ length: 12 }, (_, i) => `Option ${i + 1}`)
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550107", poll: { question: "Which?", options, multipleAnswers: true } } })
    const id: string = sent.body.data.id
    const poll = (await h.services.ctx.store.findPoll(id))!
    await h.services.ctx.store.write(async (q) => {
      for (let i = 0; i < VOTERS; i++) {
        const chosen = i % 3 === 0 ? [options[i % 12]!, options[(i + 5) % 12]!] : [options[i % 12]!]
        await q.upsertPollVote({ phoneId: poll.phoneId, pollWaMessageId: poll.waMessageId, voter: `+1415${String(5_000_000 + i)}`, optionHashes: chosen.map(optionHash), votedAtMs: 1_000 + i })
      }
    })
    const times: number[] = []
    for (let r = 0; r < ROUNDS + 5; r++) {
      const started = performance.now()
      const res = await h.request("GET", `/v1/messages/${id}/poll`, { key })
      const ms = performance.now() - started
      if (res.status !== 200 || res.body.data.voters.length !== VOTERS) throw new Error(`the tally answered ${res.status} with ${res.body.data?.voters?.length} voters`)
      // The first rounds warm the JIT and the statement caches.
      if (r >= 5) times.push(ms)
    }
    times.sort((a, b) => a - b)
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!
    return { database, voters: VOTERS, rounds: ROUNDS, p50Ms: at(0.5), p95Ms: at(0.95), maxMs: times.at(-1)! }
  } finally {
    await h.close()
  }
}

export async function benchPolls(): Promise<PollFigures[]> {
  return [await tallyOn("sqlite"), await tallyOn("postgres")]
}

export function pollLines(figures: readonly PollFigures[]): string[] {
  return figures.map(
    (f) =>
      `poll tally, ${f.voters} voters on ${f.database}: GET /v1/messages/{id}/poll p50 ${f.p50Ms.toFixed(1)} ms, p95 ${f.p95Ms.toFixed(1)} ms, max ${f.maxMs.toFixed(1)} ms over ${f.rounds} rounds (target < 50 ms${f.p95Ms < 50 ? ", met" : ", MISSED"})`,
  )
}
