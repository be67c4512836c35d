import { boundedOutsideText } from "../../lib/outside-text"
import { sha256Hex } from "../../lib/secrets"
import type { InboundPoll } from "../gateway"

/*
 * A contact's poll, read from `pollCreationMessage` (any number of answers), `…V2` (community
 * announcement groups) or `…V3` (one answer), as Baileys 7.0.0-rc14 writes them in
 * lib/Utils/messages.js. A vote names each option by the SHA-256 of its text as sent, so the
 * hashes are taken before the text is made safe to store.
 */

/** What WhatsApp's apps allow; a poll claiming more keeps its first options. */
const OPTIONS_MAX = 12
const QUESTION_MAX_CHARS = 255
const OPTION_MAX_CHARS = 100

interface PollCreationLike {
  name?: string | null
  options?: readonly { optionName?: string | null }[] | null
  selectableOptionsCount?: number | null
}

/** The content fields a poll is read from (after unwrapping). */
export interface PollContentLike {
  pollCreationMessage?: PollCreationLike | null
  pollCreationMessageV2?: PollCreationLike | null
  pollCreationMessageV3?: PollCreationLike | null
}

/** The poll a message carries, or null when it carries none (or one with fewer than two options). */
export function mapPoll(content: PollContentLike): InboundPoll | null {
  const poll = content.pollCreationMessage ?? content.pollCreationMessageV2 ?? content.pollCreationMessageV3
  if (!poll) return null
  const names = (poll.options ?? []).map((o) => o.optionName ?? "").slice(0, OPTIONS_MAX)
  if (names.length < 2) return null
  return {
    question: boundedOutsideText(poll.name ?? "", QUESTION_MAX_CHARS),
    options: names.map((n) => boundedOutsideText(n, OPTION_MAX_CHARS)),
    optionHashes: names.map((n) => sha256Hex(n)),
    // A count of 1 is a single-answer poll; 0 (or more than one) lets a voter choose several.
    multipleAnswers: poll.selectableOptionsCount !== 1,
  }
}
