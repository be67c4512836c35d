import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto"
import { proto } from "@whiskeysockets/baileys"
import { newMessageSecret } from "./message-secret"

/*
 * Polls as WhatsApp's apps write them (README.md, "Polls"). A poll is `pollCreationMessageV3`
 * (one answer) or `pollCreationMessage` (several), its options by name, with a fresh
 * `messageContextInfo.messageSecret` (Baileys 7.0.0-rc14 lib/Utils/messages.js). A vote is
 * `pollUpdateMessage { pollCreationMessageKey, vote: { encPayload, encIv }, senderTimestampMs }`:
 * a PollVoteMessage listing the SHA-256 of each option chosen, sealed with AES-256-GCM under
 * HKDF-SHA256(secret, info = poll id ‖ poll creator ‖ voter ‖ "Poll Vote") with the additional data
 * `<poll id>\0<voter>` (Baileys lib/Utils/process-message.js `decryptPollVote`, tulir/whatsmeow
 * msgsecret.go `EncryptPollVote`). Creator and voter are bare JIDs (no device), each the number's
 * or the LID's, as the voter's app chooses.
 */

/** A contact's poll, with the secret its votes are sealed with. */
export function pollMessage(poll: { question: string; options: string[]; multipleAnswers?: boolean }, secret: Uint8Array = newMessageSecret()): proto.IMessage {
  const creation = { name: poll.question, options: poll.options.map((optionName) => ({ optionName })), selectableOptionsCount: poll.multipleAnswers ? 0 : 1 }
  return {
    ...(poll.multipleAnswers ? { pollCreationMessage: creation } : { pollCreationMessageV3: creation }),
    messageContextInfo: { messageSecret: secret },
  }
}

/** The secret and options of a poll message (ours as a contact received it, or one a contact wrote). */
export function pollOf(message: proto.IMessage | undefined): { secret: Uint8Array; options: string[] } {
  const creation = message?.pollCreationMessage ?? message?.pollCreationMessageV2 ?? message?.pollCreationMessageV3
  const secret = message?.messageContextInfo?.messageSecret
  if (!creation || !secret) throw new Error("not a poll with a message secret")
  return { secret: new Uint8Array(secret), options: (creation.options ?? []).map((o) => o.optionName ?? "") }
}

export interface VoteInput {
  /** The poll's key as the voter names it: its chat, id, and whether the voter wrote it. */
  pollKey: proto.IMessageKey
  secret: Uint8Array
  /** The poll's author and the voter, bare JIDs, as the voter's app derives the key with. */
  creatorJid: string
  voterJid: string
  /** The options chosen, by name; none withdraws the vote. */
  chosen: string[]
  senderTimestampMs: number
}

/** The `pollUpdateMessage` a voter's app sends. */
export function voteMessage(input: VoteInput): proto.IMessage {
  const pollId = input.pollKey.id ?? ""
  const plain = proto.Message.PollVoteMessage.encode({ selectedOptions: input.chosen.map((o) => createHash("sha256").update(o).digest()) }).finish()
  const info = Buffer.from(`${pollId}${input.creatorJid}${input.voterJid}Poll Vote`, "utf8")
  const key = Buffer.from(hkdfSync("sha256", input.secret, Buffer.alloc(0), info, 32))
  const encIv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, encIv)
  cipher.setAAD(Buffer.from(`${pollId}\u0000${input.voterJid}`, "utf8"))
  const encPayload = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
  return {
    pollUpdateMessage: {
      pollCreationMessageKey: input.pollKey,
      vote: { encPayload, encIv },
      senderTimestampMs: input.senderTimestampMs,
    },
  }
}

/** The options (by hash, hex) a vote message chose, opened as the poll's author's app opens it; null when it does not open. */
export function openVoteMessage(message: proto.IMessage | undefined, secret: Uint8Array, creatorJid: string, voterJid: string): string[] | null {
  const update = message?.pollUpdateMessage
  const pollId = update?.pollCreationMessageKey?.id ?? ""
  if (!update?.vote?.encPayload || !update.vote.encIv) return null
  const info = Buffer.from(`${pollId}${creatorJid}${voterJid}Poll Vote`, "utf8")
  const key = Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), info, 32))
  const payload = Buffer.from(update.vote.encPayload)
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(update.vote.encIv))
    decipher.setAAD(Buffer.from(`${pollId}\u0000${voterJid}`, "utf8"))
    decipher.setAuthTag(payload.subarray(payload.length - 16))
    const plain = Buffer.concat([decipher.update(payload.subarray(0, payload.length - 16)), decipher.final()])
    return (proto.Message.PollVoteMessage.decode(plain).selectedOptions ?? []).map((h) => Buffer.from(h).toString("hex"))
  } catch {
    return null
  }
}

/** The SHA-256 (hex) of an option's text, as a vote names it. */
export function optionHashOf(option: string): string {
  return createHash("sha256").update(option).digest("hex")
}
