import type { SessionEvents } from "../whatsapp/gateway"
import type { Runtime } from "./connection-lifecycle"
import type { DomainContext } from "./context"

/**
 * What a session says of the phone's client version: the version each connect announces and the
 * expiry WhatsApp announced for it (docs/live-whatsapp.md § "Client expiration"). Both are kept on
 * the phone's row, so `wagate doctor` (another process) and a restart see them; `current` says
 * whether the session is still the phone's.
 */
export function clientVersionEvents(
  ctx: DomainContext,
  notify: (phoneId: string) => void,
  phoneId: string,
  rt: Runtime,
  current: () => boolean,
): Pick<SessionEvents, "connecting" | "clientExpiration"> {
  return {
    connecting({ waVersion }) {
      if (!current()) return
      rt.waVersion = waVersion
      notify(phoneId)
      ctx.store
        .write((q) => q.updatePhoneWaVersion(phoneId, waVersion))
        .catch((err) => ctx.logger.error("recording the announced WhatsApp Web version failed", { phoneId, err }))
    },
    clientExpiration({ expiresAtMs, waVersion }) {
      if (!current()) return
      ctx.store
        .write((q) => q.updatePhoneClientExpiry(phoneId, waVersion, expiresAtMs))
        .then(() => notify(phoneId))
        .catch((err) => ctx.logger.error("recording WhatsApp's client expiry failed", { phoneId, err }))
    },
  }
}
