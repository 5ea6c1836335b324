// A deflated body is inflated as a stream and refused as soon as it passes
// the length its header declares: a small file that inflates to far more
// must cost about that length, not its whole output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDeflate, deflateSync } from "node:zlib";
import { FormatError, load } from "../src/bloomc.js";
import { saved } from "./saved.js";

const child = fileURLToPath(new URL("./load_file.js", import.meta.url));

// zlib's stream of size zero bytes, made a MiB at a time.
async function deflatedZeros(size) {
  const deflate = createDeflate({ level: 9 });
  const parts = [];
  deflate.on("data", (part) => parts.push(part));
  const ended = new Promise((resolve, reject) => deflate.on("end", resolve).on("error", reject));
  const zeros = Buffer.alloc(1 << 20);
  for (let i = 0; i < size >> 20; i++) deflate.write(zeros);
  deflate.end();
  await ended;
  return new Uint8Array(Buffer.concat(parts));
}

test("a deflated body of 128 MiB that declares 360 bytes is refused at about 360: peak RSS stays low", async () => {
  const body = await deflatedZeros(128 << 20); // about 130 KB
  const bomb = saved({ kind: 1, flags: 1, fields: [2880, 3, 0, 0, 0], body, raw: 360 });
  const dir = mkdtempSync(join(tmpdir(), "bloomc-inflate-"));
  try {
    writeFileSync(join(dir, "bomb.bloom"), bomb);
    const run = spawnSync(process.execPath, ["--max-old-space-size=64", child, join(dir, "bomb.bloom")], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const { outcome, message, maxRSS } = JSON.parse(run.stdout);
    // node itself takes about 40 MiB; inflating it all took over 128 more
    assert.ok(maxRSS < 96 * 1024, `peak RSS ${Math.round(maxRSS / 1024)} MiB`);
    assert.equal(outcome, "FormatError");
    assert.match(message, /more than the 360 bytes/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a deflated body is read when it inflates to the declared length, refused when shorter, damaged or cut", async () => {
  const bits = new Uint8Array(8).fill(0xff);
  const body = new Uint8Array(deflateSync(bits));
  const fields = [64, 2, 0, 0, 0];
  assert.equal((await load(saved({ flags: 1, fields, body, raw: 8 }))).has("x"), true);
  await assert.rejects(load(saved({ flags: 1, fields, body, raw: 9 })), /wrong length/);
  await assert.rejects(load(saved({ flags: 1, fields, body, raw: 7 })), /more than the 7 bytes/);
  await assert.rejects(load(saved({ flags: 1, fields, body: body.subarray(0, body.length - 3), raw: 8 })), FormatError);
  const damaged = body.slice();
  damaged[0] ^= 0x40;
  await assert.rejects(load(saved({ flags: 1, fields, body: damaged, raw: 8 })), FormatError);
});
