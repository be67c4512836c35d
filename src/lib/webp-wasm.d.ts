// The WebP decoder's WebAssembly, embedded in the executable: importing it `with { type: "file" }` yields its path.
declare module "@jsquash/webp/codec/dec/webp_dec.wasm" {
  const path: string
  export default path
}
