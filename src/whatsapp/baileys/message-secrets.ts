import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"
import type { Counter } from "../../lib/metrics"
import { boundedOutsideText } from "../../lib/outside-text"
import type { MessageSecret } from "../../store/message-secrets"
import { isGroupJid, isIgnoredJid, normalizeUserJid, STUB_CIPHERTEXT, type KeyLike, type MessageContentLike, type UpsertLike, type WaMessageLike } from "./mapping"
import type { SessionContext } from "./session"

/*
 * Encrypted edits (docs/live-whatsapp.md, "Encrypted edits"). Since May 2026 WhatsApp's apps send
 * an edit as `secretEncryptedMessage { targetMessageKey, encPayload, encIv, secretEncType:
 * MESSAGE_EDIT }` instead of a plain `protocolMessage` (WhiskeySockets/Baileys#2541). Baileys
 * 7.0.0-rc14 passes the envelope on undecrypted, so an edit would arrive empty. The payload is
 * AES-256-GCM under a key derived with HKDF-SHA256 from the `messageContextInfo.messageSecret` of
 * the message edited, the use-case info being the original id, the original sender, the editor
 * and "Message Edit", without additional data (tulir/whatsmeow msgsecret.go,
 * `generateMsgSecretKey`; WhiskeySockets/Baileys#2547 and #2690). The plaintext is a message whose
 * `protocolMessage` is the MESSAGE_EDIT wagate already maps. The sender may have derived the key
 * with its LID or its phone-number identity, so both are tried; GCM rejects the wrong one
 * (WhiskeySockets/Baileys#2690; whatsmeow tries the sender as the new message names it first,
 * then the one the secret was stored under). The secrets come from the store
 * (src/store/message-secrets.ts), so an edit is read after a restart and on another node.
 * Baileys PR WhiskeySockets/Baileys#2743 (open) would do this inside Baileys; when a release
 * decrypts the envelope itself, this module can go.
 */

/** `proto.Message.SecretEncryptedMessage.SecretEncType`. */
const SECRET_ENC_TYPE = { MESSAGE_EDIT: 2 } as const
/** The use-case string of an edit in the key derivation (whatsmeow `EncSecretMessageEdit`). */
const MESSAGE_EDIT_USE_CASE = "Message Edit"
/** `proto.Message.ProtocolMessage.Type.MESSAGE_EDIT`. */
const PROTOCOL_MESSAGE_EDIT = 14
const GCM_IV_BYTES = 12
const GCM_TAG_BYTES = 16
const SECRET_BYTES = 32

/** The 32-byte key of one use of a message's secret. JIDs are compared without device. */
export function messageSecretKey(input: { secret: Uint8Array; origMessageId: string; origSenderJid: string; editorJid: string; useCase: string }): Uint8Array {
  const info = Buffer.concat([input.origMessageId, normalizeUserJid(input.origSenderJid), normalizeUserJid(input.editorJid), input.useCase].map((s) => Buffer.from(s, "utf8")))
  return new Uint8Array(hkdfSync("sha256", input.secret, new Uint8Array(0), info, 32))
}

/** AES-256-GCM open (the tag is the payload's last 16 bytes); null when the key, IV or payload do not authenticate. */
export function openSealed(key: Uint8Array, iv: Uint8Array, payload: Uint8Array, aad?: Uint8Array): Uint8Array | null {
  if (iv.length !== GCM_IV_BYTES || payload.length < GCM_TAG_BYTES) return null
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv)
    decipher.setAuthTag(payload.subarray(payload.length - GCM_TAG_BYTES))
    if (aad) decipher.setAAD(aad)
    return new Uint8Array(Buffer.concat([decipher.update(payload.subarray(0, payload.length - GCM_TAG_BYTES)), decipher.final()]))
  } catch {
    return null
  }
}

/** AES-256-GCM seal with a random 12-byte IV, the tag after the ciphertext (openSealed's inverse). */
export function sealWithKey(key: Uint8Array, plain: Uint8Array, aad?: Uint8Array): { encPayload: Uint8Array; encIv: Uint8Array } {
  const encIv = new Uint8Array(randomBytes(GCM_IV_BYTES))
  const cipher = createCipheriv("aes-256-gcm", key, encIv)
  if (aad) cipher.setAAD(aad)
  return { encPayload: new Uint8Array(Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])), encIv }
}

/**
 * The (original sender, editor) pairs to try, most likely first: the same identity on both sides
 * in the order given (the one the edit names first), then the mixed pairs whatsmeow also tries.
 */
function identityPairs(identities: readonly string[]): [string, string][] {
  const ids = [...new Set(identities.map(normalizeUserJid))]
  const pairs: [string, string][] = ids.map((id) => [id, id])
  for (const orig of ids) for (const editor of ids) if (orig !== editor) pairs.push([orig, editor])
  return pairs
}

/** Decrypts an edit's payload with one stored secret, trying each identity pair; null when none authenticates. */
export function openEditPayload(
  envelope: { origMessageId: string; encPayload: Uint8Array; encIv: Uint8Array },
  secret: Uint8Array,
  identities: readonly string[],
): Uint8Array | null {
  if (secret.length !== SECRET_BYTES) return null
  for (const [origSenderJid, editorJid] of identityPairs(identities)) {
    const key = messageSecretKey({ secret, origMessageId: envelope.origMessageId, origSenderJid, editorJid, useCase: MESSAGE_EDIT_USE_CASE })
    const plain = openSealed(key, envelope.encIv, envelope.encPayload)
    if (plain) return plain
  }
  return null
}

/** The fields of a `secretEncryptedMessage` read here. */
export interface SecretEncryptedLike {
  targetMessageKey?: KeyLike | null
  encPayload?: Uint8Array | null
  encIv?: Uint8Array | null
  secretEncType?: number | null
}

type WithSecret = MessageContentLike & { messageContextInfo?: { messageSecret?: Uint8Array | null } | null; secretEncryptedMessage?: SecretEncryptedLike | null }

/** The protocol message an edit decrypts to. */
interface DecryptedProtocol {
  type?: number | null
  key?: KeyLike | null
}

/** The connected account's identities (`sock.user`). */
export interface SelfIdentity {
  id?: string | null
  lid?: string | null
}

/** Where an undecryptable edit is counted: `wagate_encrypted_edits_total{result}`. */
export type EncryptedEditResult = "decrypted" | "no_secret" | "undecryptable"

/** The author of a message and its other identity, as its key names them (a secret's sender, a vote's voter). */
export function authorOf(key: KeyLike, self: SelfIdentity): { sender: string; alt: string | null } | null {
  if (key.fromMe) return self.id ? { sender: normalizeUserJid(self.id), alt: self.lid ? normalizeUserJid(self.lid) : null } : null
  const group = isGroupJid(key.remoteJid)
  const author = group ? key.participant : key.remoteJid
  const alt = group ? key.participantAlt : key.remoteJidAlt
  return author ? { sender: normalizeUserJid(author), alt: alt ? normalizeUserJid(alt) : null } : null
}

/** The secret store as the session uses it, and the decryption of encrypted edits. */
export interface MessageSecrets {
  /** Stores the secret of every message of an upsert that carries one (contacts' and our other devices'). */
  rememberUpsert(upsert: UpsertLike, self: SelfIdentity): Promise<void>
  /** Stores the secret of a message we sent. */
  rememberSent(sent: WaMessageLike | undefined, self: SelfIdentity): Promise<void>
  /**
   * The secret a part must be sent with: the one stored for its WhatsApp id if any, else a new one,
   * stored before the part goes out. A part sent again (a crash before its ack, a failover) then
   * carries the secret its first copy did, which votes on a poll are sealed with.
   */
  secretForSend(waMessageId: string, chatJid: string, self: SelfIdentity): Promise<Uint8Array>
  /**
   * The upsert with each contact's encrypted edit replaced by the edit it decrypts to, so it maps
   * like a plain one; an edit that cannot be decrypted is logged at warn, counted and left out.
   */
  openEdits(upsert: UpsertLike): Promise<UpsertLike>
}

/** The store row of a message's secret, or null when it carries none (or is not one to keep). */
function secretRowOf(msg: WaMessageLike, self: SelfIdentity, phoneId: string, nowMs: number): MessageSecret | null {
  const key = msg.key
  const secret = (msg.message as WithSecret | null | undefined)?.messageContextInfo?.messageSecret
  if (!key?.id || !key.remoteJid || isIgnoredJid(key.remoteJid) || !secret || secret.length !== SECRET_BYTES) return null
  if (msg.messageStubType === STUB_CIPHERTEXT) return null
  const author = authorOf(key, self)
  if (!author) return null
  return {
    phoneId,
    chatJid: normalizeUserJid(key.remoteJid),
    waMessageId: key.id,
    senderJid: author.sender,
    senderAltJid: author.alt,
    secret: new Uint8Array(secret),
    createdAtMs: nowMs,
  }
}

type SecretsContext = Pick<SessionContext, "store" | "clock" | "logger"> & { encryptedEdits?: Counter }

/** An edit that could not be read: counted, and logged at warn with its ids bounded (they come from WhatsApp). */
/** Why an edit could not be opened, for the operator: the metric's result says the kind. */
const UNREADABLE_WHY = {
  no_secret: "no secret is stored for the message it edits (sent before the phone was linked, or older than the retention)",
  undecryptable: "it did not decrypt with the stored secret",
  store_failed: "reading the stored secret of the message it edits failed",
} as const

function reportUnreadable(ctx: SecretsContext, phoneId: string, cause: keyof typeof UNREADABLE_WHY, msg: WaMessageLike, targetId: string, err?: unknown): void {
  // A failed read is counted as undecryptable: the edit was lost all the same, and the log says why.
  ctx.encryptedEdits?.inc({ result: cause === "store_failed" ? "undecryptable" : cause })
  ctx.logger.warn(`an encrypted edit was dropped: ${UNREADABLE_WHY[cause]}`, {
    phoneId,
    waMessageId: boundedOutsideText(msg.key?.id ?? "", 64),
    targetWaMessageId: boundedOutsideText(targetId, 64),
    from: boundedOutsideText(msg.key?.remoteJid ?? "", 128),
    ...(err === undefined ? {} : { err }),
  })
}

export function createMessageSecrets(ctx: SecretsContext, phoneId: string, decode: (bytes: Uint8Array) => MessageContentLike): MessageSecrets {
  const rowOf = (msg: WaMessageLike, self: SelfIdentity) => secretRowOf(msg, self, phoneId, ctx.clock.nowMs())
  const unreadable = (cause: keyof typeof UNREADABLE_WHY, msg: WaMessageLike, targetId: string, err?: unknown) => reportUnreadable(ctx, phoneId, cause, msg, targetId, err)

  /** The stored secrets of one message id, or null when the store could not be read (the rest of the batch goes on). */
  async function storedSecrets(msg: WaMessageLike, targetId: string): Promise<MessageSecret[] | null> {
    try {
      return await ctx.store.findMessageSecrets(phoneId, targetId)
    } catch (err) {
      unreadable("store_failed", msg, targetId, err)
      return null
    }
  }

  async function save(rows: MessageSecret[]): Promise<void> {
    if (rows.length === 0) return
    try {
      await ctx.store.write((q) => q.saveMessageSecrets(rows))
    } catch (err) {
      ctx.logger.warn("storing message secrets failed; an encrypted edit of these messages cannot be read", { phoneId, messages: rows.length, err })
    }
  }

  async function open(msg: WaMessageLike, envelope: SecretEncryptedLike): Promise<WaMessageLike | null> {
    const key = msg.key!
    const targetId = envelope.targetMessageKey?.id ?? ""
    const author = authorOf(key, {})
    const chat = normalizeUserJid(key.remoteJid!)
    const named = author ? [author.sender, ...(author.alt ? [author.alt] : [])] : []
    // Only a secret stored for this author (under either identity) and this chat can be the one.
    const stored = targetId ? await storedSecrets(msg, targetId) : []
    if (stored === null) return null
    const rows = stored.filter(
      (r) => (named.includes(r.senderJid) || (r.senderAltJid !== null && named.includes(r.senderAltJid))) && (isGroupJid(chat) ? r.chatJid === chat : !isGroupJid(r.chatJid)),
    )
    if (rows.length === 0) {
      unreadable("no_secret", msg, targetId)
      return null
    }
    for (const row of rows) {
      const identities = [...named, row.senderJid, ...(row.senderAltJid ? [row.senderAltJid] : [])]
      const plain = openEditPayload({ origMessageId: targetId, encPayload: envelope.encPayload ?? new Uint8Array(0), encIv: envelope.encIv ?? new Uint8Array(0) }, row.secret, identities)
      if (!plain) continue
      let protocol: DecryptedProtocol | null | undefined = null
      try {
        protocol = (decode(plain) as { protocolMessage?: DecryptedProtocol | null }).protocolMessage
      } catch {
        protocol = null
      }
      if (!protocol || protocol.type !== PROTOCOL_MESSAGE_EDIT) break
      ctx.encryptedEdits?.inc({ result: "decrypted" })
      // The target is the envelope's, which the key was derived for, whatever the plaintext names.
      return { ...msg, message: { protocolMessage: { ...protocol, key: { ...protocol.key, id: targetId } } } as MessageContentLike }
    }
    unreadable("undecryptable", msg, targetId)
    return null
  }

  return {
    async rememberUpsert(upsert, self) {
      await save(upsert.messages.flatMap((m) => rowOf(m, self) ?? []))
    },
    async secretForSend(waMessageId, chatJid, self) {
      const chat = normalizeUserJid(chatJid)
      const mine = (rows: readonly MessageSecret[]) => rows.find((r) => r.chatJid === chat && self.id && r.senderJid === normalizeUserJid(self.id))
      const stored = mine(await ctx.store.findMessageSecrets(phoneId, waMessageId))
      if (stored) return stored.secret
      const message = { messageContextInfo: { messageSecret: new Uint8Array(randomBytes(SECRET_BYTES)) } } as WithSecret
      const fresh = secretRowOf({ key: { id: waMessageId, remoteJid: chatJid, fromMe: true }, message }, self, phoneId, ctx.clock.nowMs())
      if (!fresh) throw new Error("the phone's own identity is not known yet")
      // First stored wins: a concurrent sender of the same part gets the same secret back.
      await ctx.store.write((q) => q.saveMessageSecrets([fresh]))
      return mine(await ctx.store.findMessageSecrets(phoneId, waMessageId))?.secret ?? fresh.secret
    },
    async rememberSent(sent, self) {
      const row = sent ? rowOf({ ...sent, key: { ...sent.key, fromMe: true } }, self) : null
      if (row) await save([row])
    },
    async openEdits(upsert) {
      if (!upsert.messages.some((m) => (m.message as WithSecret | null | undefined)?.secretEncryptedMessage)) return upsert
      const messages: WaMessageLike[] = []
      for (const msg of upsert.messages) {
        const envelope = (msg.message as WithSecret | null | undefined)?.secretEncryptedMessage
        if (!envelope || envelope.secretEncType !== SECRET_ENC_TYPE.MESSAGE_EDIT || !msg.key?.id || !msg.key.remoteJid || msg.key.fromMe) {
          messages.push(msg)
          continue
        }
        const opened = await open(msg, envelope)
        if (opened) messages.push(opened)
      }
      return { ...upsert, messages }
    },
  }
}
