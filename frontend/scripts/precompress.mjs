// Writes name.br and name.gz beside every compressible file of the build in
// dist/, so the Go server sends them as they are (pkg/server/web.go) instead
// of compressing per request. Run after `vite build`; uses only node:zlib.
//
// index.html is skipped: the server injects the runtime config into it at
// startup and gzips the result itself. Files under 1 KB are skipped too: the
// framing would eat the gain. A variant that is not smaller is not written.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const dist = decodeURIComponent(new URL('../dist', import.meta.url).pathname)
const compressible = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest|map)$/
const minBytes = 1024

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(p)
    else yield p
  }
}

let plain = 0
let br = 0
let gz = 0
for await (const file of walk(dist)) {
  const name = relative(dist, file)
  if (name === 'index.html' || !compressible.test(name)) continue
  const data = await readFile(file)
  if (data.length < minBytes) continue
  const brotli = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  })
  const gzip = gzipSync(data, { level: 9 })
  plain += data.length
  if (brotli.length < data.length) {
    await writeFile(file + '.br', brotli)
    br += brotli.length
  }
  if (gzip.length < data.length) {
    await writeFile(file + '.gz', gzip)
    gz += gzip.length
  }
}
const kb = (n) => `${(n / 1024).toFixed(1)} KB`
console.log(`precompress: ${kb(plain)} of assets -> brotli ${kb(br)}, gzip ${kb(gz)}`)
