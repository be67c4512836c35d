import { getBinaryNodeChild, jidDecode, S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"

/**
 * Small helpers over Baileys' `BinaryNode`, the decoded form of every stanza. The simulator uses
 * Baileys' own encoder and decoder, so these only read and build node trees.
 */

/** The element children of a node (content that is bytes or a string has none). */
export function childNodes(node: BinaryNode | undefined): BinaryNode[] {
  return Array.isArray(node?.content) ? node.content : []
}

/** The children of `node` with the given tag. */
export function childrenByTag(node: BinaryNode | undefined, tag: string): BinaryNode[] {
  return childNodes(node).filter((child) => child.tag === tag)
}

/** The bytes content of the child `tag` of `node`, or undefined when absent or not bytes. */
export function childBytes(node: BinaryNode | undefined, tag: string): Buffer | undefined {
  return contentBytes(getBinaryNodeChild(node, tag))
}

/** The bytes content of a node, or undefined when it holds children or nothing. */
export function contentBytes(node: BinaryNode | undefined): Buffer | undefined {
  const content = node?.content
  if (content instanceof Uint8Array) return Buffer.from(content)
  if (typeof content === "string") return Buffer.from(content, "utf8")
  return undefined
}

/** The bytes content of the child `tag`, failing loudly: the client always sends these. */
export function requiredChildBytes(node: BinaryNode | undefined, tag: string): Buffer {
  const bytes = childBytes(node, tag)
  if (!bytes) throw new Error(`<${node?.tag ?? "?"}> has no <${tag}> bytes`)
  return bytes
}

/** A big-endian unsigned integer of 1 to 6 bytes, as WhatsApp encodes key ids and registration ids. */
export function readUintBE(bytes: Buffer): number {
  return bytes.readUIntBE(0, bytes.length)
}

/**
 * The key the simulator routes an IQ by and fault injection selects on:
 * `xmlns/type/first-child-tag`, with `-` when the IQ has no child (e.g. `blocklist/get/-`).
 */
export function iqSelector(iq: BinaryNode): string {
  return `${iq.attrs.xmlns ?? "-"}/${iq.attrs.type ?? "-"}/${childNodes(iq)[0]?.tag ?? "-"}`
}

/** The successful answer to an IQ, carrying `content` when given. */
export function iqResult(request: BinaryNode, content?: BinaryNode[]): BinaryNode {
  return {
    tag: "iq",
    attrs: { from: request.attrs.to ?? S_WHATSAPP_NET, type: "result", id: request.attrs.id ?? "" },
    ...(content ? { content } : {}),
  }
}

/** The error answer to an IQ; Baileys turns it into a rejected query with this status code. */
export function iqError(request: BinaryNode, code: number, text: string): BinaryNode {
  return {
    tag: "iq",
    attrs: { from: request.attrs.to ?? S_WHATSAPP_NET, type: "error", id: request.attrs.id ?? "" },
    content: [{ tag: "error", attrs: { code: String(code), text } }],
  }
}

/** The user part of a jid (`15550001111` of `15550001111:3@s.whatsapp.net`), or "" when not a jid. */
export function userOf(jid: string | undefined): string {
  return (jid && jidDecode(jid)?.user) || ""
}

/** Whole seconds since the epoch, the unit of every `t` attribute. */
export function unixSeconds(nowMs: number): string {
  return String(Math.floor(nowMs / 1000))
}
