/** Per-kind size caps in bytes. */
export interface MediaMaxBytes {
  image: number
  video: number
  audio: number
  document: number
}

const MiB = 1024 * 1024

/**
 * WhatsApp's commonly documented limits: 16 MiB for image, video and audio, 100 MiB for
 * documents. Outbound downloads and inbound media share them; this module stays free of the
 * fetcher's network modules so the inbound path can read them without loading those.
 */
export const DEFAULT_MEDIA_MAX_BYTES: Readonly<MediaMaxBytes> = { image: 16 * MiB, video: 16 * MiB, audio: 16 * MiB, document: 100 * MiB }
