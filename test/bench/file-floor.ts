/**
 * The floor of the inbound media case: Bun.serve answering every request with the same file
 * through Bun.file, with nothing else in the way (no routing, authentication or database).
 * Argument: the file's path. Prints its port.
 */
const path = process.argv[2]!
const size = Bun.file(path).size
const floor = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () => new Response(Bun.file(path), { headers: { "content-type": "application/pdf", "content-length": String(size) } }),
})
console.log(`floor listening on ${floor.port}`)
export {}
