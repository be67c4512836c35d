import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"

/*
 * Which WhatsApp app the account's phone runs, as `pair-success` tells a new companion: the
 * `<platform name=…>` child is `smba` for the WhatsApp Business app on Android (`android` for
 * the ordinary app), and a business adds `<biz name=…>` with its business name. Baileys 7.0.0-rc14
 * keeps them as `creds.platform` and `creds.me.name` (lib/Utils/validate-connection.js
 * configureSuccessfulPairing) and tells a business by the platform (lib/Utils/generics.js
 * isWABusinessPlatform: `smba` or `smbi`); whatsmeow pair.go handlePairSuccess stores both as
 * `Store.Platform` and `Store.BusinessName`.
 */

/** The children of `pair-success` that name the phone's app. */
export function pairSuccessAppNodes(account: Pick<SimAccount, "businessName">): BinaryNode[] {
  if (account.businessName === null) return [{ tag: "platform", attrs: { name: "android" } }]
  return [
    { tag: "platform", attrs: { name: "smba" } },
    { tag: "biz", attrs: { name: account.businessName } },
  ]
}
