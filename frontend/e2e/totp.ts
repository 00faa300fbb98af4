// RFC 6238 TOTP (HMAC-SHA-1, 30-second steps, 6 digits) for the MFA journey, computed with
// node's crypto as an authenticator app would: no OTP library is a dependency, and the
// journey should not trust the server's own library to check the server.
import { createHmac } from 'node:crypto'

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const ch of text.replace(/=+$/, '').toUpperCase()) {
    const index = alphabet.indexOf(ch)
    if (index < 0) throw new Error(`not a base32 secret: ${text}`)
    value = ((value << 5) | index) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** The code for `secret` now, or `steps` 30-second steps from now. */
export function totp(secret: string, steps = 0): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + steps))
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest()
  const offset = mac[mac.length - 1] & 0xf
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}
