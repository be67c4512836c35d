import { proto, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { AccountAppState } from "./app-state"
import { SimContact } from "./contact"
import { newMessageId } from "./inbound"
import { unixSeconds } from "./nodes"

/**
 * The app-state sync key share: the primary phone sends each new companion the key it encrypts
 * app state with, as a peer message from itself (device 0) to that device. Its content is a
 * `protocolMessage` of type APP_STATE_SYNC_KEY_SHARE holding `appStateSyncKeyShare.keys`
 * (WAProto.proto `Message.AppStateSyncKeyShare`; Baileys 7.0.0-rc14 lib/Utils/process-message.js
 * stores each key under its base64 id and sets `creds.myAppStateKeyId`, and accepts the share only
 * from its own account, `key.fromMe`; whatsmeow message.go `handleAppStateSyncKeyShare`). The
 * stanza is `<message from=<own number> category="peer" type="text">`, the form whatsmeow's
 * `SendPeerMessage` (send.go) gives peer messages, which Baileys answers with a `peer_msg` receipt.
 */

/** The phone's own Signal identity per account, as device 0 of its number (a contact-like peer that only the account's devices talk to). */
const phoneDevices = new WeakMap<SimAccount, SimContact>()

function phoneDeviceOf(account: SimAccount): SimContact {
  let device = phoneDevices.get(account)
  if (!device) {
    device = new SimContact({ phoneNumber: account.phoneNumber, lid: account.lid, name: "phone" })
    phoneDevices.set(account, device)
  }
  return device
}

/** The protocol message sharing the account's sync key with one companion device. */
export function keyShareMessage(state: AccountAppState, deviceId: number, nowMs: number): proto.IMessage {
  return {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.APP_STATE_SYNC_KEY_SHARE,
      appStateSyncKeyShare: {
        keys: [
          {
            keyId: { keyId: state.keyId },
            keyData: { keyData: state.keyData, fingerprint: { rawId: state.keyId.readUInt32BE(0), currentIndex: 0, deviceIndexes: [0, deviceId] }, timestamp: nowMs },
          },
        ],
      },
    },
  }
}

/** The peer stanza carrying `message` from the phone to one companion, encrypted for that device's Signal session. */
export async function peerMessageNode(account: SimAccount, deviceId: number, message: proto.IMessage, nowMs: number): Promise<BinaryNode> {
  const phone = phoneDeviceOf(account)
  const deviceJid = account.deviceJid(deviceId, "pn")
  const bundle = (await phone.hasSessionWith(deviceJid)) ? undefined : account.takeBundle(deviceId)
  const { type, ciphertext } = await phone.encryptFor(deviceJid, bundle, message)
  return {
    tag: "message",
    attrs: { from: account.pnJid, id: newMessageId(), t: unixSeconds(nowMs), type: "text", category: "peer" },
    content: [{ tag: "enc", attrs: { v: "2", type }, content: ciphertext }],
  }
}
