import type { Counter } from "../../lib/metrics"
import { boundedOutsideText } from "../../lib/outside-text"
import type { MessageSecret } from "../../store/message-secrets"
import type { PollVoteSeen, WaMessageRef } from "../gateway"
import {
  isGroupJid,
  normalizeUserJid,
  secondsToMs,
  senderAddress,
  unwrapContent,
  type KeyLike,
  type MessageContentLike,
  type PnForLid,
  type UpsertLike,
  type WaMessageLike,
  type WaSeconds,
} from "./mapping"
import { authorOf, messageSecretKey, openSealed, sealWithKey, type SelfIdentity } from "./message-secrets"
import type { SessionContext } from "./session"

/*
 * Poll votes (docs/live-whatsapp.md § "Poll votes"). A vote arrives as `pollUpdateMessage`
 * { pollCreationMessageKey, vote: { encPayload, encIv }, senderTimestampMs }, AES-256-GCM under a
 * key derived with HKDF-SHA256 from the poll's messageSecret, the info being the poll's id, its
 * creator, the voter and "Poll Vote", the additional data `<poll id>\0<voter>` (Baileys 7.0.0-rc14
 * lib/Utils/process-message.js `decryptPollVote`, which rc14 never calls; tulir/whatsmeow
 * msgsecret.go `DecryptPollVote`). The plaintext is a PollVoteMessage: the SHA-256 of each option
 * chosen. Creator and voter may each be named by number or LID, so every pair is tried.
 *
 * No vote is lost (WAHA's Baileys engine loses most at scale, devlikeapro/waha#2042, because its
 * poll keys live in memory): the secret comes from the store, and a vote whose poll's secret is
 * not stored yet is kept in the store as it came, decrypted when the secret arrives, on whichever
 * node holds the phone then.
 */

/** Everything needed to decrypt a vote later; stored as JSON while its poll's secret is unknown. */
interface VoteDescriptor {
  chatJid: string
  voteWaMessageId: string
  pollWaMessageId: string
  /** The voter as the API names it: E.164 when known, else its LID. */
  voter: string
  /** The voter's identities (number and LID, as the vote named them), to derive the key with. */
  voterJids: string[]
  encPayload: string
  encIv: string
  atMs: number
}

interface PollUpdateLike {
  pollCreationMessageKey?: KeyLike | null
  vote?: { encPayload?: Uint8Array | null; encIv?: Uint8Array | null } | null
  senderTimestampMs?: WaSeconds
}

type VotesContext = Pick<SessionContext, "store" | "clock" | "logger"> & { pollVotes?: Counter }

/** Where a vote is counted: `wagate_poll_votes_total{result}`. */
export type PollVoteResult = "decrypted" | "kept" | "undecryptable"

export interface PollVotes {
  /** The votes of an upsert: decrypted now, or kept in the store for later (and left out). */
  take(upsert: UpsertLike, pnForLid: PnForLid): Promise<PollVoteSeen[]>
  /** The kept votes of polls whose secrets were just stored, decrypted and forgotten. */
  release(pollWaMessageIds: readonly string[]): Promise<PollVoteSeen[]>
}

/**
 * Our vote on a contact's poll, sealed as WhatsApp's apps seal one: the creator and voter named
 * alike (both numbers, or both LIDs when the poll's author was named by LID), the options by the
 * SHA-256 of their text. Null when no secret of the poll is stored for its chat.
 */
export function sealOurVote(
  input: { target: WaMessageRef; optionHashes: readonly string[]; atMs: number; self: SelfIdentity },
  rows: readonly MessageSecret[],
  encode: (selectedOptions: Uint8Array[]) => Uint8Array,
): { pollUpdateMessage: object } | null {
  const chat = normalizeUserJid(input.target.chatJid)
  const row = rows.find((r) => (isGroupJid(chat) ? r.chatJid === chat : !isGroupJid(r.chatJid)))
  const byLid = row?.senderJid.endsWith("@lid")
  const voter = byLid ? input.self.lid : input.self.id
  if (!row || !voter) return null
  const voterJid = normalizeUserJid(voter)
  const key = messageSecretKey({ secret: row.secret, origMessageId: input.target.waMessageId, origSenderJid: row.senderJid, editorJid: voterJid, useCase: "Poll Vote" })
  const sealed = sealWithKey(key, encode(input.optionHashes.map((h) => new Uint8Array(Buffer.from(h, "hex")))), Buffer.from(`${input.target.waMessageId}\u0000${voterJid}`, "utf8"))
  return {
    pollUpdateMessage: {
      pollCreationMessageKey: { remoteJid: input.target.chatJid, fromMe: false, id: input.target.waMessageId, ...(input.target.authorJid ? { participant: input.target.authorJid } : {}) },
      vote: sealed,
      senderTimestampMs: input.atMs,
    },
  }
}

/** The WhatsApp ids of the polls an upsert carries: their secrets may open votes kept for them. */
export function pollIdsOf(upsert: UpsertLike): string[] {
  return upsert.messages.flatMap((m) => {
    const c = unwrapContent(m.message as MessageContentLike | null | undefined)
    return m.key?.id && (c?.pollCreationMessage || c?.pollCreationMessageV2 || c?.pollCreationMessageV3) ? [m.key.id] : []
  })
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")
const unbase64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"))

/** The hashes a vote chose, or null when no stored secret of its poll opens it. */
function openVote(d: VoteDescriptor, rows: readonly MessageSecret[], decode: (bytes: Uint8Array) => Uint8Array[]): string[] | null {
  const chat = normalizeUserJid(d.chatJid)
  for (const row of rows) {
    if (isGroupJid(chat) ? row.chatJid !== chat : isGroupJid(row.chatJid)) continue
    const creators = [row.senderJid, ...(row.senderAltJid ? [row.senderAltJid] : [])]
    for (const creator of creators) {
      for (const voter of d.voterJids) {
        const key = messageSecretKey({ secret: row.secret, origMessageId: d.pollWaMessageId, origSenderJid: creator, editorJid: voter, useCase: "Poll Vote" })
        const aad = Buffer.from(`${d.pollWaMessageId}\u0000${normalizeUserJid(voter)}`, "utf8")
        const plain = openSealed(key, unbase64(d.encIv), unbase64(d.encPayload), aad)
        if (!plain) continue
        try {
          return decode(plain).map((hash) => Buffer.from(hash).toString("hex"))
        } catch {
          return null
        }
      }
    }
  }
  return null
}

/** The descriptor of one vote message, or null when it is not a readable vote. */
async function describeVote(msg: WaMessageLike, pnForLid: PnForLid, nowMs: number): Promise<VoteDescriptor | null> {
  const update = (unwrapContent(msg.message as MessageContentLike | null | undefined) as { pollUpdateMessage?: PollUpdateLike | null } | null)?.pollUpdateMessage
  const key = msg.key
  const pollId = update?.pollCreationMessageKey?.id
  if (!update?.vote?.encPayload || !update.vote.encIv || !pollId || !key?.id || !key.remoteJid || key.fromMe) return null
  const voter = await senderAddress(key, pnForLid)
  if (!voter) return null
  // The voter's JIDs as the poll's secret rows name its author (a vote of ours was left out above).
  const author = authorOf(key, {})
  const voterJids = author ? [author.sender, ...(author.alt ? [author.alt] : [])] : []
  return {
    chatJid: normalizeUserJid(key.remoteJid),
    voteWaMessageId: key.id,
    pollWaMessageId: pollId,
    voter,
    voterJids,
    encPayload: base64(update.vote.encPayload),
    encIv: base64(update.vote.encIv),
    // senderTimestampMs is in milliseconds already; secondsToMs reads every Long shape.
    atMs: (secondsToMs(update.senderTimestampMs) ?? nowMs * 1000) / 1000,
  }
}

export function createPollVotes(ctx: VotesContext, phoneId: string, decode: (bytes: Uint8Array) => Uint8Array[]): PollVotes {
  const seen = (d: VoteDescriptor, optionHashes: string[], kept: boolean): PollVoteSeen => ({
    pollWaMessageId: d.pollWaMessageId,
    voter: d.voter,
    optionHashes,
    atMs: d.atMs,
    ...(kept ? { keptAs: d.voteWaMessageId } : {}),
  })

  async function keep(d: VoteDescriptor, why: string): Promise<void> {
    ctx.pollVotes?.inc({ result: "kept" })
    ctx.logger.warn(`a poll vote was kept undecrypted: ${why}; it is decrypted when the poll's secret arrives`, {
      phoneId,
      pollWaMessageId: boundedOutsideText(d.pollWaMessageId, 64),
      voteWaMessageId: boundedOutsideText(d.voteWaMessageId, 64),
    })
    await ctx.store.write((q) =>
      q.savePendingVote({ phoneId, pollWaMessageId: d.pollWaMessageId, voteWaMessageId: d.voteWaMessageId, descriptor: JSON.stringify(d), receivedAtMs: ctx.clock.nowMs() }),
    )
  }

  return {
    async take(upsert, pnForLid) {
      const out: PollVoteSeen[] = []
      for (const msg of upsert.messages) {
        const d = await describeVote(msg, pnForLid, ctx.clock.nowMs())
        if (!d) continue
        const rows = await ctx.store.findMessageSecrets(phoneId, d.pollWaMessageId)
        if (rows.length === 0) {
          await keep(d, "no secret is stored for its poll yet")
          continue
        }
        const hashes = openVote(d, rows, decode)
        if (hashes === null) {
          // A secret is stored but does not open it: perhaps another poll's under a reused id.
          // Kept all the same, in case the right secret is stored later.
          ctx.pollVotes?.inc({ result: "undecryptable" })
          await keep(d, "it did not decrypt with the stored secret of its poll")
          continue
        }
        ctx.pollVotes?.inc({ result: "decrypted" })
        out.push(seen(d, hashes, false))
      }
      return out
    },
    async release(pollWaMessageIds) {
      const out: PollVoteSeen[] = []
      for (const pollId of pollWaMessageIds) {
        const pending = await ctx.store.listPendingVotes(phoneId, pollId)
        if (pending.length === 0) continue
        const rows = await ctx.store.findMessageSecrets(phoneId, pollId)
        for (const p of pending) {
          const d = JSON.parse(p.descriptor) as VoteDescriptor
          const hashes = openVote(d, rows, decode)
          if (hashes === null) continue
          ctx.pollVotes?.inc({ result: "decrypted" })
          // The kept row goes in the transaction that records the vote (keptAs), so a crash in between loses nothing.
          out.push(seen(d, hashes, true))
        }
      }
      return out
    },
  }
}
