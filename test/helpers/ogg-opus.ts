/*
 * Small audio files built byte by byte for voice-note tests: an Ogg/Opus stream (RFC 7845: an
 * `OpusHead` page, an `OpusTags` page, then audio pages; Ogg pages per RFC 3533 with their CRC)
 * and an MP3 (an ID3v2 tag and MPEG-1 Layer III frame headers), so the media sniffer and
 * Baileys' duration reader see real formats without binary fixtures in the repository.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let r = i << 24
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1
    table[i] = r >>> 0
  }
  return table
})()

/** The Ogg page checksum (RFC 3533: CRC-32, polynomial 0x04c11db7, no reflection, initial 0). */
function oggCrc(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0
  return crc
}

function oggPage(packets: Uint8Array[], options: { headerType: number; granule: bigint; sequence: number }): Uint8Array {
  const segments: number[] = []
  for (const packet of packets) {
    let left = packet.length
    while (left >= 255) {
      segments.push(255)
      left -= 255
    }
    segments.push(left)
  }
  const body = Buffer.concat(packets)
  const page = Buffer.alloc(27 + segments.length + body.length)
  page.write("OggS", 0, "latin1")
  page.writeUInt8(0, 4)
  page.writeUInt8(options.headerType, 5)
  page.writeBigInt64LE(options.granule, 6)
  page.writeUInt32LE(0x77616761, 14)
  page.writeUInt32LE(options.sequence, 18)
  page.writeUInt8(segments.length, 26)
  Buffer.from(segments).copy(page, 27)
  body.copy(page, 27 + segments.length)
  page.writeUInt32LE(oggCrc(page), 22)
  return page
}

/** A mono Ogg/Opus stream of `frames` 20 ms frames of silence (one second by default). */
export function oggOpusBytes(frames = 50): Uint8Array {
  const preSkip = 312
  const head = Buffer.alloc(19)
  head.write("OpusHead", 0, "latin1")
  head.writeUInt8(1, 8)
  head.writeUInt8(1, 9)
  head.writeUInt16LE(preSkip, 10)
  head.writeUInt32LE(48_000, 12)
  head.writeInt16LE(0, 16)
  head.writeUInt8(0, 18)
  const vendor = Buffer.from("wagate tests", "utf8")
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4)
  tags.write("OpusTags", 0, "latin1")
  tags.writeUInt32LE(vendor.length, 8)
  vendor.copy(tags, 12)
  tags.writeUInt32LE(0, 12 + vendor.length)
  // TOC 0xF8: CELT fullband 20 ms, mono, one frame; the frame bytes decode as silence.
  const frame = new Uint8Array([0xf8, 0xff, 0xfe])
  const audio = oggPage(Array.from({ length: frames }, () => frame), { headerType: 0x04, granule: BigInt(preSkip + frames * 960), sequence: 2 })
  return Buffer.concat([oggPage([head], { headerType: 0x02, granule: 0n, sequence: 0 }), oggPage([tags], { headerType: 0, granule: 0n, sequence: 1 }), audio])
}

/** An MP3: an empty ID3v2.3 tag and a few MPEG-1 Layer III frames of silence (128 kbit/s, 44.1 kHz). */
export function mp3Bytes(frames = 8): Uint8Array {
  const id3 = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0])
  const frameBytes = 417
  const frame = Buffer.alloc(frameBytes)
  Buffer.from([0xff, 0xfb, 0x90, 0x00]).copy(frame)
  return Buffer.concat([id3, ...Array.from({ length: frames }, () => frame)])
}
