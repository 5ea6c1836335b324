# frozen_string_literal: true

# Bytes on the wire of a filter served by Bloomc::RackApp: the body of the
# binary (application/vnd.bloomc) and of the JSON representation, plain and
# gzipped (Accept-Encoding: gzip), as the app answers them: a file of its
# directory (gzipped once, at zlib's best) and a filter held in the process
# (gzipped at zlib's default, as it may change on the next request), beside
# the same bytes gzipped by Rack::Deflater, per request. Also the binary
# saved with compress: true (the format's own deflate) and the background
# document's representation (the bits as one hex number, 7,188 characters
# and 87 bytes of zlib for its two keys) and its zlib size.
#
#   ruby -Ilib bench/http.rb (also part of `rake bench`, through bench/web.rb)

require "bloomc/rack"
require "tmpdir"

module WireBench
  module_function

  HEADER = ["filter", "binary", "gzip (file)", "gzip (in process)", "Rack::Deflater", "compress: true", "JSON", "JSON gzip (file)",
            "JSON gzip (in process)", "doc hex", "doc hex zlib"].freeze

  # [label, filter] rows: the background document's example (3,000 keys at
  # 1%, sized as bloomc sizes it: m 28,780, k 7) full and nearly empty, and a million-key filter
  # sparse and full.
  def rows
    seed_doc = ->(n) { Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01).add_all(Array.new(n) { |i| "user-#{i}" }) }
    million = ->(n) { Bloomc::BloomFilter.new(capacity: 1_000_000, error_rate: 0.01).add_all(Array.new(n) { |i| "key-#{i}" }) }
    [["3,000 at 1% (m 28,780, k 7), 3,000 keys", seed_doc.call(3000)],
     ["3,000 at 1% (m 28,780, k 7), 2 keys", seed_doc.call(2)],
     ["1M at 1%, 1,000 keys (sparse)", million.call(1000)],
     ["1M at 1%, 1M keys (full)", million.call(1_000_000)]]
  end

  def body_bytes(app, path, gzip:)
    env = Rack::MockRequest.env_for(path)
    env["HTTP_ACCEPT_ENCODING"] = "gzip" if gzip
    status, headers, body = app.call(env)
    raise "#{path}: #{status}" unless status == 200

    size = body.sum(&:bytesize)
    [size, gzip && headers["content-encoding"] != "gzip" ? "(not gzipped)" : nil]
  end

  # The app's identity bytes gzipped by Rack::Deflater (per request, at
  # zlib's default), as it would send them: what the app's own gzip, made
  # once per ETag, is measured against.
  def deflater_bytes(app, path)
    identity = ->(env) { app.call(env.except("HTTP_ACCEPT_ENCODING")) }
    env = Rack::MockRequest.env_for(path, "HTTP_ACCEPT_ENCODING" => "gzip")
    _status, headers, body = Rack::Deflater.new(identity).call(env)
    size = 0
    body.each { |chunk| size += chunk.bytesize }
    body.close
    [size, headers["content-encoding"] == "gzip" ? nil : "(not gzipped)"]
  end

  def cell(size, note) = note ? "#{size} #{note}" : size.to_s

  # The document's own form: hex of the bits as one number (high bit first),
  # without its "0x" and "L", and zlib of that.
  def document_hex(filter)
    body = Bloomc::Format.json_representation(filter)["cells"]
    hex = [body].pack("H*").reverse.unpack1("H*").sub(/\A0+/, "")
    [hex.bytesize, Zlib::Deflate.deflate(hex, Zlib::BEST_COMPRESSION).bytesize]
  end

  # The table's rows, printed; returns them.
  def run
    table = Dir.mktmpdir("bloomc-http") do |dir|
      files = Bloomc::RackApp.new(dir)
      held = Bloomc::RackApp.new(nil)
      rows.map do |label, filter|
        filter.save(File.join(dir, "f.bloom"))
        held.publish("f", filter)
        deflated = filter.dump(compress: true).bytesize
        cells = [body_bytes(files, "/f", gzip: false), body_bytes(files, "/f", gzip: true), body_bytes(held, "/f", gzip: true),
                 deflater_bytes(files, "/f"), [deflated, nil], body_bytes(files, "/f.json", gzip: false),
                 body_bytes(files, "/f.json", gzip: true), body_bytes(held, "/f.json", gzip: true)]
        [label, *cells.map { |size, note| cell(size, note) }, *document_hex(filter).map(&:to_s)]
      end
    end
    puts "\n== Bytes on the wire: response bodies (headers not counted), Bloomc::RackApp, rack #{Rack.release}"
    widths = HEADER.each_index.map { |i| ([HEADER] + table).map { |row| row[i].size }.max }
    [HEADER, widths.map { |w| "-" * w }, *table].each do |row|
      puts row.each_with_index.map { |value, i| i.zero? ? value.ljust(widths[i]) : value.rjust(widths[i]) }.join("  ")
    end
    table
  end
end

WireBench.run if $PROGRAM_NAME == __FILE__
