// Writes a brotli (.br) and a gzip (.gz) twin next to every compressible
// file of the built app, so the Go server sends them as they are
// (Content-Encoding br or gzip) instead of compressing on every request.
// index.html is left out: the server injects its runtime configuration and
// compresses it on the fly. Node's own zlib does the work: no dependency.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, extname } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const dist = new URL('../dist/', import.meta.url).pathname
const compressible = new Set(['.js', '.mjs', '.css', '.svg', '.json', '.txt', '.map', '.webmanifest', '.xml'])
const minSize = 1024

let files = 0
let before = 0
let after = 0
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) {
      walk(path)
      continue
    }
    if (!compressible.has(extname(name)) || statSync(path).size < minSize) continue
    const data = readFileSync(path)
    const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } })
    writeFileSync(path + '.br', br)
    writeFileSync(path + '.gz', gzipSync(data, { level: 9 }))
    files++
    before += data.length
    after += br.length
  }
}
walk(dist)
console.log(`precompressed ${files} files: ${(before / 1024).toFixed(0)} KiB -> ${(after / 1024).toFixed(0)} KiB with brotli`)
