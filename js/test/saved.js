// Test helper: a file of bloomc's format written by hand (not a test file
// itself: node --test runs only *.test.js in a directory).
import { crc32c } from "../src/bloomc.js";

const utf8 = new TextEncoder();

// A file of the format, written here: header, optional metadata block, body
// (raw: the inflated length it declares, when flags has 1 and body is
// deflated).
export function saved({ version = 1, kind = 1, flags = 0, fields, body, metadata, raw = body.length }) {
  const n = fields.length;
  const meta = metadata === undefined ? null : utf8.encode(metadata);
  const headerEnd = 40 + 8 * n;
  const bodyAt = Math.ceil((headerEnd + (meta ? 8 + meta.length : 0)) / 64) * 64;
  const out = new Uint8Array(bodyAt + body.length);
  const view = new DataView(out.buffer);
  out.set([0x89, 0x42, 0x4c, 0x4f, 0x4f, 0x4d, 0x43, 0x0a]);
  view.setUint16(8, version, true);
  view.setUint16(10, kind, true);
  view.setUint16(12, flags | (meta ? 4 : 0), true);
  view.setUint16(14, n, true);
  fields.forEach((f, i) => view.setBigUint64(16 + 8 * i, BigInt(f), true));
  view.setBigUint64(16 + 8 * n, BigInt(body.length), true);
  view.setBigUint64(24 + 8 * n, BigInt(raw), true);
  view.setUint32(32 + 8 * n, crc32c(body), true);
  view.setUint32(36 + 8 * n, crc32c(out.subarray(0, 36 + 8 * n)), true);
  if (meta) {
    view.setUint32(headerEnd, meta.length, true);
    view.setUint32(headerEnd + 4, crc32c(meta), true);
    out.set(meta, headerEnd + 8);
  }
  out.set(body, bodyAt);
  return out;
}

