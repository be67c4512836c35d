import type { BinaryNode } from "@whiskeysockets/baileys"
import type { IqHandler } from "./iq-handlers"
import { childrenByTag } from "./nodes"

/*
 * An account whose app state is empty: every collection a device asks for in
 * `<iq xmlns="w:sync:app:state" type="set"><sync><collection name version return_snapshot/>`
 * is answered as it is, with no snapshot, no patches and no `has_more_patches` (the answer's shape
 * as Baileys 7.0.0-rc14 reads it in `extractSyncdPatches`, lib/Utils/chat-utils.js, and whatsmeow
 * in appstate.go). Without an answer per collection Baileys' `resyncAppState` (lib/Socket/chats.js)
 * asks again forever; it runs on the first login after pairing once a history sync notification
 * arrived (history-sync.ts). A fuller model of app state replaces this handler (it is spread
 * first in `IQ_HANDLERS`, so a later entry for the same selector wins).
 */
export const EMPTY_APP_STATE_IQS: Record<string, IqHandler> = {
  "w:sync:app:state/set/sync": (request) => {
    const sync = (request.iq.content as BinaryNode[] | undefined)?.find((child) => child.tag === "sync")
    const collections = childrenByTag(sync, "collection").map((collection) => ({
      tag: "collection",
      attrs: { name: collection.attrs.name ?? "", version: collection.attrs.version ?? "0" },
    }))
    request.reply([{ tag: "sync", attrs: {}, content: collections }])
  },
}
