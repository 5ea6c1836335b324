// fetchFilter and RemoteFilter against a small HTTP server started here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { FetchError, fetchFilter, FormatError, RemoteFilter } from "../src/bloomc.js";
import { saved } from "./saved.js";

// Two tiny filters: every bit set (every key in), and no bit set.
const full = saved({ fields: [64, 2, 0, 0, 0], body: new Uint8Array(8).fill(0xff) });
const empty = saved({ fields: [64, 2, 0, 0, 0], body: new Uint8Array(8) });
const corrupt = full.slice();
corrupt[corrupt.length - 1] ^= 0x10;

// A server answering each request with the next of `script`: [status, body,
// etag]; records what each request asked.
async function serve(script) {
  const asked = [];
  const server = createServer((req, res) => {
    asked.push({ ifNoneMatch: req.headers["if-none-match"], ifModifiedSince: req.headers["if-modified-since"], accept: req.headers.accept });
    const [status, body, etag] = script[Math.min(asked.length - 1, script.length - 1)];
    const headers = { "Content-Type": "application/vnd.bloomc" };
    if (etag) {
      headers.ETag = etag;
      headers["Last-Modified"] = "Tue, 24 Nov 2026 13:00:00 GMT";
    }
    res.writeHead(status, headers);
    res.end(status === 200 ? Buffer.from(body) : undefined);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () => {
    server.close();
    server.closeAllConnections();
  };
  return { url: `http://127.0.0.1:${server.address().port}/words`, asked, close };
}

test("RemoteFilter: 200 with an ETag, 304, a changed filter, then a 500 and a corrupt body keep the last good copy", async () => {
  const server = await serve([
    [200, full, '"v1"'],
    [304, null, '"v1"'],
    [200, empty, '"v2"'],
    [500, null, null],
    [200, corrupt, '"v3"'],
  ]);
  try {
    const remote = new RemoteFilter(server.url);
    assert.equal(remote.staleness, Infinity);
    assert.throws(() => remote.has("a"), FetchError);

    assert.equal(await remote.refresh(), true);
    assert.equal(remote.etag, '"v1"');
    assert.equal(remote.has("a"), true);
    const first = remote.filter;

    assert.equal(await remote.refresh(), false); // 304: the same filter object
    assert.equal(remote.filter, first);
    assert.equal(server.asked[1].ifNoneMatch, '"v1"');
    assert.equal(server.asked[1].ifModifiedSince, "Tue, 24 Nov 2026 13:00:00 GMT");
    assert.equal(server.asked[0].ifNoneMatch, undefined);
    assert.equal(server.asked[0].accept, "application/vnd.bloomc");

    assert.equal(await remote.refresh(), true);
    assert.equal(remote.etag, '"v2"');
    assert.equal(remote.has("a"), false);
    const second = remote.filter;
    assert.ok(remote.staleness < 5000);

    await assert.rejects(remote.refresh(), (e) => e instanceof FetchError && e.status === 500);
    assert.equal(remote.filter, second);
    assert.equal(remote.error.status, 500);
    assert.equal(server.asked[3].ifNoneMatch, '"v2"');

    await assert.rejects(remote.refresh(), FormatError); // checked before it replaces anything
    assert.equal(remote.filter, second);
    assert.equal(remote.etag, '"v2"');
    assert.ok(remote.error instanceof FormatError);
  } finally {
    server.close();
  }
});

test("fetchFilter: previous gives a conditional GET; no server is a FetchError", async () => {
  const server = await serve([[200, full, '"v1"'], [304, null, '"v1"']]);
  let url;
  try {
    url = server.url;
    const first = await fetchFilter(url);
    assert.equal(first.changed, true);
    assert.equal(first.status, 200);
    const again = await fetchFilter(url, { previous: first });
    assert.equal(again.changed, false);
    assert.equal(again.status, 304);
    assert.equal(again.filter, first.filter);
  } finally {
    server.close(); // and its kept-alive connections: the next fetch finds no server
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
  await assert.rejects(fetchFilter(url), (e) => e instanceof FetchError && e.status === 0);
});

// A server whose every answer is a 200 streaming `source(i)` (a Uint8Array
// for the i-th write, null to end), written as fast as the client reads;
// `sent()` is the bytes written before the client went away or it ended.
async function stream(source, headers = {}) {
  let sent = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "application/vnd.bloomc", ...headers });
    let i = 0;
    const pump = () => {
      for (;;) {
        if (res.destroyed) return;
        const chunk = source(i++);
        if (chunk === null) {
          res.end();
          return;
        }
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
    };
    res.on("close", () => done());
    pump();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/f`,
    sent: () => sent,
    finished,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

const MiB = 1 << 20;
const junk = new Uint8Array(64 * 1024).fill(0x5a);

test("fetchFilter: endless junk is refused at its first bytes (bad magic), and the download stops", { timeout: 20_000 }, async () => {
  const server = await stream(() => junk);
  try {
    await assert.rejects(fetchFilter(server.url), (e) => e instanceof FormatError && /bad magic/.test(e.message));
    await server.finished;
    assert.ok(server.sent() < 16 * MiB, `${server.sent()} bytes sent`);
  } finally {
    server.close();
  }
});

test("fetchFilter: a body longer than its header declares is refused as soon as it passes that length", { timeout: 20_000 }, async () => {
  const server = await stream((i) => (i === 0 ? full : junk));
  try {
    await assert.rejects(fetchFilter(server.url), (e) => e instanceof FormatError && /runs past the 136 bytes/.test(e.message));
    await server.finished;
    assert.ok(server.sent() < 16 * MiB, `${server.sent()} bytes sent`);
  } finally {
    server.close();
  }
});

test("fetchFilter: maxBytes caps the body with a FetchError, whether the header, Content-Length or the bytes tell", { timeout: 20_000 }, async () => {
  // a header of 65,535 parameters that never ends: only the cap stops it
  const endless = new Uint8Array(64 * 1024);
  endless.set(full.subarray(0, 14));
  endless[14] = 0xff;
  endless[15] = 0xff;
  let server = await stream((i) => (i === 0 ? endless : junk));
  try {
    await assert.rejects(fetchFilter(server.url, { maxBytes: 200_000 }),
      (e) => e instanceof FetchError && e.status === 200 && /longer than maxBytes \(200000\)/.test(e.message));
    await server.finished;
    assert.ok(server.sent() < 16 * MiB, `${server.sent()} bytes sent`);
  } finally {
    server.close();
  }

  // a header declaring 2^40 bytes of body: refused when the header is in
  const huge = full.slice(0, 64);
  new DataView(huge.buffer).setBigUint64(16 + 8 * 5, 1n << 40n, true);
  server = await stream((i) => (i === 0 ? huge : junk));
  try {
    await assert.rejects(fetchFilter(server.url), (e) => e instanceof FetchError && /maxBytes \(1073741824\)/.test(e.message));
    await server.finished;
    assert.ok(server.sent() < 16 * MiB, `${server.sent()} bytes sent`);
  } finally {
    server.close();
  }

  // a good filter over a cap: by Content-Length, and without it
  server = await stream((i) => (i === 0 ? full : null), { "Content-Length": String(full.length) });
  try {
    await assert.rejects(fetchFilter(server.url, { maxBytes: 100 }), FetchError);
    assert.equal((await fetchFilter(server.url, { maxBytes: full.length })).filter.has("x"), true);
  } finally {
    server.close();
  }
  server = await stream((i) => (i < full.length ? full.subarray(i, i + 1) : null));
  try {
    await assert.rejects(fetchFilter(server.url, { maxBytes: 100 }), FetchError);
    assert.equal((await fetchFilter(server.url)).filter.has("x"), true); // a byte a write
  } finally {
    server.close();
  }
});
