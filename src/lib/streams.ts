/**
 * Reads a byte stream but never more than `limitBytes` of it: once the limit is passed the
 * stream is cancelled, so an endless or oversized body costs at most the limit. Returns what
 * was read (up to the limit) and whether there was more.
 */
export async function readAtMost(stream: ReadableStream<Uint8Array>, limitBytes: number): Promise<{ bytes: Uint8Array; exceeded: boolean }> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { bytes: Buffer.concat(chunks), exceeded: false }
    size += value.byteLength
    if (size > limitBytes) {
      chunks.push(value.subarray(0, value.byteLength - (size - limitBytes)))
      await reader.cancel()
      return { bytes: Buffer.concat(chunks), exceeded: true }
    }
    chunks.push(value)
  }
}
