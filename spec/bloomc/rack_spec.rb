# frozen_string_literal: true

require "spec_helper"
require "json"
require "stringio"
require "tmpdir"
require "zlib"

RSpec.describe "bloomc/rack without the rack gem" do
  it "raises a LoadError that names the gem to add" do
    hide_rack = "module Kernel; alias_method :real_require, :require; " \
                'def require(name) = name == "rack" ? raise(LoadError, "cannot load such file -- rack") : real_require(name); end'
    lib = File.expand_path("../../lib", __dir__)
    out = IO.popen([RbConfig.ruby, "-I", lib, "-e", hide_rack, "-e",
                    'begin; require "bloomc/rack"; rescue LoadError => e; print e.message; end'], &:read)
    expect(out).to include("bloomc/rack needs the rack gem").and include('add `gem "rack"` to your Gemfile')
  end
end

rack_missing = begin
  require "bloomc/rack"
  nil
rescue LoadError => e
  e.message
end

if rack_missing && ENV["BLOOMC_RACK_REQUIRED"]
  raise "BLOOMC_RACK_REQUIRED is set but bloomc/rack cannot load: #{rack_missing}"
elsif rack_missing
  warn "Bloomc::RackApp specs: skipped, #{rack_missing}"
else
  # The interface of Bloomc::PeriodicFilter the app relies on (contract,
  # section 3), and nothing more: periods by label, oldest first, a lock, the
  # period's length and the current label.
  class PeriodicDouble
    attr_reader :period_seconds, :current_label, :dumps_locked

    def initialize(period_seconds: 3600)
      @period_seconds = period_seconds
      @periods = {} # label => [filter, closed]
      @lock = Monitor.new
      @dumps_locked = 0
    end

    def open_period(label, filter)
      @periods.each_value { |pair| pair[1] = true }
      @periods[label] = [filter, false]
      @current_label = label
      filter
    end

    def drop(label) = @periods.delete(label)

    def each_period
      @periods.each { |label, (filter, closed)| yield label, filter, closed }
    end

    def period(label) = @periods[label]&.dup

    def synchronize(&)
      @dumps_locked += 1
      @lock.synchronize(&)
    end
  end

  RSpec.describe Bloomc::RackApp do
    let(:root) { Dir.mktmpdir("bloomc-rack") }
    let(:dir) { File.join(root, "filters").tap { |d| Dir.mkdir(d) } }
    let(:app) { described_class.new(dir) }
    let(:past) { Time.now - 3600 }

    after { FileUtils.remove_entry(root) }

    # Every request goes through Rack::Lint, which checks the env and the
    # response against the Rack spec (lowercase headers, no body to a HEAD
    # or a 304, no content-type on a 304).
    def get(path, app: self.app, method: "GET", **env)
      Rack::MockRequest.new(Rack::Lint.new(app)).request(method, path, env)
    end

    # A filter saved as DIR/NAME.bloom, an hour old.
    def save(name, filter = words_filter, compress: false, at: past)
      path = File.join(dir, "#{name}.bloom")
      filter.save(path, compress: compress)
      File.utime(at, at, path)
      path
    end

    def words_filter(keys = 2)
      filter = Bloomc::BloomFilter.new(28_756, 7)
      keys.times { |i| filter << "user-#{i}" }
      filter
    end

    # A dump with its body and header checksums made right again after an edit.
    def checksummed(dump)
      nfields = dump.unpack1("S<", offset: 14)
      at = Bloomc::Format.body_offset(nfields)
      body_crc_at = Bloomc::Format::HEADER + 8 * nfields + 16
      dump[body_crc_at, 4] = [Bloomc::CRC32C.checksum(dump.byteslice(at..))].pack("L<")
      dump[body_crc_at + 4, 4] = [Bloomc::CRC32C.checksum(dump.byteslice(0, body_crc_at + 4))].pack("L<")
      dump
    end

    # Rack 2's MockResponse adds a Content-Length of its own; the app's are lowercase.
    def lowercase(headers) = headers.to_h.transform_keys(&:downcase)

    def gunzip(bytes) = Zlib::GzipReader.new(StringIO.new(bytes)).read.b

    describe "a directory of saved filters" do
      it "serves NAME.bloom as NAME under the bloomc media type, with its validators" do
        path = save("words")
        res = get("/words")
        expect(res.status).to eq(200)
        expect(res.body.b).to eq(File.binread(path))
        expect(lowercase(res.headers)).to include("content-type" => "application/vnd.bloomc", "cache-control" => "public, max-age=60",
                                                  "accept-ranges" => "bytes", "vary" => "Accept-Encoding",
                                                  "content-length" => File.size(path).to_s, "last-modified" => past.httpdate)
        expect(res.headers["etag"]).to match(/\A"\h{32}"\z/)
        expect(Bloomc.load(res.body)).to eq(words_filter)
      end

      it "takes its max-age from max_age:" do
        save("words")
        expect(get("/words", app: described_class.new(dir, max_age: 5)).headers["cache-control"]).to eq("public, max-age=5")
      end

      it "answers HEAD with the same headers and no body" do
        save("words")
        full = get("/words")
        head = get("/words", method: "HEAD")
        expect(head.status).to eq(200)
        expect(head.body).to eq("")
        expect(lowercase(head.headers)).to eq(lowercase(full.headers))
      end

      it "answers 404 with a short text for a name it does not have, and 405 for any method but GET and HEAD" do
        save("words")
        res = get("/nothing")
        expect([res.status, res.headers["content-type"], res.body]).to eq([404, "text/plain; charset=utf-8", "no filter named nothing here\n"])
        %w[POST PUT DELETE PATCH OPTIONS].each do |method|
          res = get("/words", method: method)
          expect([res.status, res.headers["allow"]]).to eq([405, "GET, HEAD"]), method
        end
        expect(get("/").status).to eq(404) # no front page unless asked for
      end

      it "picks up a file saved while it runs, serves a replaced file's new bytes with a new ETag, and drops a deleted one" do
        expect(get("/words").status).to eq(404)
        path = save("words")
        first = get("/words")
        expect(first.status).to eq(200)
        bigger = words_filter(500)
        save("words", bigger, at: past + 60)
        second = get("/words", "HTTP_IF_NONE_MATCH" => first.headers["etag"])
        expect(second.status).to eq(200)
        expect(second.headers["etag"]).not_to eq(first.headers["etag"])
        expect(second.headers["last-modified"]).to eq((past + 60).httpdate)
        expect(Bloomc.load(second.body)).to eq(bigger)
        File.unlink(path)
        expect(get("/words").status).to eq(404)
        expect(JSON.parse(get("/index.json").body)["filters"]).to eq([])
      end

      it "sees a replacement of the same size and mtime by its inode" do
        path = save("words", words_filter(3))
        first = get("/words").headers["etag"]
        other = words_filter(3).tap { |f| f << "another" }
        save("words", other, at: past) # same size, same mtime, a new inode (save renames)
        expect(File.size(path)).to eq(get("/words").body.bytesize)
        expect(get("/words").headers["etag"]).not_to eq(first)
      end

      it "answers a conditional GET of an unchanged file from its cache, without reading or hashing it" do
        save("words")
        etag = get("/words").headers["etag"]
        expect(File).not_to receive(:open)
        expect(File).not_to receive(:binread)
        expect(Digest::SHA256).not_to receive(:hexdigest)
        expect(Bloomc::Format).not_to receive(:load)
        3.times { expect(get("/words", "HTTP_IF_NONE_MATCH" => etag).status).to eq(304) }
        expect(get("/words").status).to eq(200)
      end

      it "reads the directory on the index's requests, listing each servable filter" do
        save("words", words_filter(3))
        save("scalable", Bloomc::ScalableBloomFilter.new(error_rate: 0.01).tap { |f| f << "x" })
        File.write(File.join(dir, "notes.txt"), "not a filter")
        index = get("/index.json")
        expect(index.headers["content-type"]).to eq("application/json")
        filters = JSON.parse(index.body)["filters"]
        expect(filters.map { |f| f["name"] }).to eq(%w[scalable words])
        words = filters.last
        res = get("/words")
        expect(words).to eq("name" => "words", "url" => "words", "json_url" => "words.json", "kind" => "BloomFilter",
                            "bytes" => res.body.bytesize, "etag" => res.headers["etag"], "last_modified" => past.httpdate,
                            "metadata" => nil, "capacity" => nil, "error_rate" => nil, "keys" => 3, "over_capacity" => nil,
                            "false_positive_rate" => words_filter(3).false_positive_rate)
        expect(get("/index.json", "HTTP_IF_NONE_MATCH" => index.headers["etag"]).status).to eq(304)
        save("more")
        expect(get("/index.json", "HTTP_IF_NONE_MATCH" => index.headers["etag"]).status).to eq(200)
      end

      # The index's word on each filter's load (issue 32): what a client
      # needs to tell a saturated filter's "maybe" from a healthy one's.
      def load_fields(entry) = entry.slice("capacity", "error_rate", "keys", "over_capacity", "false_positive_rate")

      it "tells in the index whether each filter is past its capacity, and its false-positive rate" do
        within = Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01).add_all(Array.new(500) { |i| "in-#{i}" })
        over = Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(Array.new(1000) { |i| "past-#{i}" })
        save("within", within)
        save("past", over)
        save("mk", words_filter(3)) # built from m and k: no capacity, no error rate
        filters = JSON.parse(get("/index.json").body)["filters"].to_h { |f| [f["name"], load_fields(f)] }
        expect(filters["within"]).to eq("capacity" => 1000, "error_rate" => 0.01, "keys" => 500, "over_capacity" => false,
                                        "false_positive_rate" => within.false_positive_rate)
        expect(filters["within"]["false_positive_rate"]).to be < 0.01
        expect(filters["past"]).to eq("capacity" => 100, "error_rate" => 0.01, "keys" => over.send(:distinct),
                                      "over_capacity" => true, "false_positive_rate" => over.false_positive_rate)
        expect(filters["past"]["keys"]).to be > 100
        expect(filters["past"]["false_positive_rate"]).to be > 0.5
        expect(filters["mk"]).to eq("capacity" => nil, "error_rate" => nil, "keys" => 3, "over_capacity" => nil,
                                    "false_positive_rate" => words_filter(3).false_positive_rate)
      end

      it "gives null for a rate that is not a number, and for a kind that has none" do
        save("words")
        fuse = Bloomc::BinaryFuseFilter.build(%w[a b c])
        save("fuse", fuse)
        allow_any_instance_of(Bloomc::BloomFilter).to receive(:false_positive_rate).and_return(Float::NAN)
        filters = JSON.parse(get("/index.json").body)["filters"].to_h { |f| [f["name"], load_fields(f)] }
        expect(filters["words"]["false_positive_rate"]).to be_nil
        # A fuse filter is sized for the keys it was built from: never past a
        # capacity, and with no error rate of its own.
        expect(filters["fuse"]).to eq("capacity" => nil, "error_rate" => nil, "keys" => 3, "over_capacity" => false,
                                      "false_positive_rate" => fuse.false_positive_rate)

        # A filter whose kind has no rate to tell: the filter the app loads
        # from the served bytes, without its false_positive_rate.
        allow(Bloomc::Format).to receive(:load).and_wrap_original do |original, *args|
          original.call(*args).tap { |filter| filter.singleton_class.send(:undef_method, :false_positive_rate) }
        end
        save("words", words_filter(4), at: past + 1)
        entry = JSON.parse(get("/index.json").body)["filters"].find { |f| f["name"] == "words" }
        expect(load_fields(entry)).to eq("capacity" => nil, "error_rate" => nil, "keys" => 4, "over_capacity" => nil,
                                         "false_positive_rate" => nil)
      end

      it "reads a file's load once per version of the file, with the bytes it serves" do
        save("words", Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(%w[a b]))
        first = JSON.parse(get("/index.json").body)["filters"].first
        expect(Bloomc::Format).not_to receive(:load)
        3.times { expect(JSON.parse(get("/index.json").body)["filters"].first).to eq(first) }
        RSpec::Mocks.space.proxy_for(Bloomc::Format).reset
        save("words", Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(Array.new(300) { |i| "k#{i}" }),
             at: past + 1)
        expect(load_fields(JSON.parse(get("/index.json").body)["filters"].first)["over_capacity"]).to be(true)
      end

      it "honours SCRIPT_NAME: mounted under a prefix, its routes and the index's relative URLs still hold" do
        save("words")
        res = get("/filters/words", "SCRIPT_NAME" => "/filters", "PATH_INFO" => "/words")
        expect(res.status).to eq(200)
        index = get("/filters/index.json", "SCRIPT_NAME" => "/filters", "PATH_INFO" => "/index.json")
        expect(JSON.parse(index.body)["filters"].first["url"]).to eq("words")
      end

      it "ignores a file whose name it could not serve, and index.bloom and bloomc.js.bloom (names of its own routes)" do
        save("index")
        save("bloomc.js")
        save("has space")
        save("a.json")
        expect(JSON.parse(get("/index.json").body)["filters"]).to eq([])
        expect(get("/index").status).to eq(404)
        expect(get("/has%20space").status).to eq(404)
        expect(get("/a.json").status).to eq(404) # the JSON of a, which is not here
        expect(get("/a.json.json").status).to eq(404)
      end
    end

    describe "conditional requests" do
      before { save("words") }

      let(:etag) { get("/words").headers["etag"] }

      it "answers 304 to If-None-Match with the ETag, in a list, weak, or *; 200 to another" do
        [etag, %("nope", #{etag}), "W/#{etag}", "*", %( "x" ,W/#{etag} )].each do |header|
          res = get("/words", "HTTP_IF_NONE_MATCH" => header)
          expect(res.status).to eq(304), header
          expect(res.body).to eq("")
          expect(res.headers["etag"]).to eq(etag)
          expect(res.headers).to include("cache-control", "vary", "last-modified")
          expect(res.headers).not_to include("content-type", "content-length")
        end
        expect(get("/words", "HTTP_IF_NONE_MATCH" => %("other")).status).to eq(200)
        expect(get("/words", "HTTP_IF_NONE_MATCH" => etag.delete('"')).status).to eq(200)
      end

      it "reads If-None-Match as a list: empty elements ignored, a comma inside a tag's quotes kept, bytes it cannot read refused" do
        [", #{etag}", "#{etag},", ",,#{etag},,", %("a,b", #{etag}), "\t#{etag}\t", %(W/"x,#{etag}", #{etag})].each do |header|
          expect(get("/words", "HTTP_IF_NONE_MATCH" => header).status).to eq(304), header
        end
        [",", " , ,", %("a,#{etag}"), "#{etag}\xFF".b, %("#{etag})].each do |header|
          expect(get("/words", "HTTP_IF_NONE_MATCH" => header).status).to eq(200), header
        end
      end

      it "answers 304 to If-Modified-Since of exactly Last-Modified, 200 to any other date or one it cannot read" do
        expect(get("/words", "HTTP_IF_MODIFIED_SINCE" => past.httpdate).status).to eq(304)
        expect(get("/words", "HTTP_IF_MODIFIED_SINCE" => (past + 10).httpdate).status).to eq(200)
        expect(get("/words", "HTTP_IF_MODIFIED_SINCE" => (past - 10).httpdate).status).to eq(200)
        expect(get("/words", "HTTP_IF_MODIFIED_SINCE" => "yesterday").status).to eq(200)
      end

      it "serves a file moved into place with an older mtime (rsync -a, cp -p) to a client that asks by date" do
        seen = get("/words").headers["last-modified"]
        save("staged", words_filter(3), at: past - 3600)
        File.rename(File.join(dir, "staged.bloom"), File.join(dir, "words.bloom"))
        res = get("/words", "HTTP_IF_MODIFIED_SINCE" => seen)
        expect(res.status).to eq(200)
        expect(res.headers["last-modified"]).to eq((past - 3600).httpdate)
      end

      it "lets If-None-Match decide when both are present" do
        res = get("/words", "HTTP_IF_NONE_MATCH" => %("other"), "HTTP_IF_MODIFIED_SINCE" => Time.now.httpdate)
        expect(res.status).to eq(200)
        res = get("/words", "HTTP_IF_NONE_MATCH" => etag, "HTTP_IF_MODIFIED_SINCE" => (past - 10).httpdate)
        expect(res.status).to eq(304)
      end

      it "gives no Last-Modified within the second the bytes changed, and no 304 by date then" do
        save("fresh", words_filter, at: Time.now)
        app.instance_variable_set(:@files, {})
        allow(app).to receive(:now).and_return(File.mtime(File.join(dir, "fresh.bloom")))
        res = get("/fresh")
        expect(res.headers).not_to include("last-modified")
        expect(get("/fresh", "HTTP_IF_MODIFIED_SINCE" => (Time.now + 5).httpdate).status).to eq(200)
      end
    end

    describe "gzip" do
      before { save("words") }

      it "compresses when Accept-Encoding allows it, with its own ETag, and the bytes gunzip to the filter" do
        plain = get("/words")
        res = get("/words", "HTTP_ACCEPT_ENCODING" => "br, gzip, deflate")
        expect(res.headers).to include("content-encoding" => "gzip", "vary" => "Accept-Encoding")
        expect(res.body.bytesize).to be < plain.body.bytesize / 10
        expect(res.headers["content-length"]).to eq(res.body.bytesize.to_s)
        expect(gunzip(res.body)).to eq(plain.body.b)
        expect(res.headers["etag"]).not_to eq(plain.headers["etag"])
        expect(get("/words", "HTTP_ACCEPT_ENCODING" => "gzip", "HTTP_IF_NONE_MATCH" => res.headers["etag"]).status).to eq(304)
        # The identity's ETag does not validate the gzip variant, nor the other way.
        expect(get("/words", "HTTP_ACCEPT_ENCODING" => "gzip", "HTTP_IF_NONE_MATCH" => plain.headers["etag"]).status).to eq(200)
        expect(get("/words", "HTTP_IF_NONE_MATCH" => res.headers["etag"]).status).to eq(200)
      end

      it "honours q=0 and *" do
        { "gzip;q=0" => nil, "gzip; q=0.0, identity" => nil, "*" => "gzip", "*;q=0" => nil, "gzip;q=0, *" => nil,
          "GZIP;q=0.5" => "gzip", "identity" => nil, "x-gzip" => "gzip", "deflate" => nil }.each do |header, coding|
          expect(get("/words", "HTTP_ACCEPT_ENCODING" => header).headers["content-encoding"]).to eq(coding), header
        end
      end

      it "ignores the empty elements of Accept-Encoding (RFC 9110, 5.6.1), where a 500 came from" do
        { "gzip,,deflate" => "gzip", ",gzip" => "gzip", "gzip,;" => "gzip", "gzip, ;q=0" => "gzip", ",,," => nil, ";" => nil,
          "\t,\t gzip ;\tq=1 ,\t" => "gzip", "deflate,\xFF\xFE,gzip".b => "gzip", "*,;,gzip;q=0" => nil }.each do |header, coding|
          res = get("/words", "HTTP_ACCEPT_ENCODING" => header)
          expect([res.status, res.headers["content-encoding"]]).to eq([200, coding]), header
        end
      end

      it "compresses once per ETag, however many requests ask" do
        expect(Zlib::GzipWriter).to receive(:new).once.and_call_original
        5.times { get("/words", "HTTP_ACCEPT_ENCODING" => "gzip") }
        get("/words", "HTTP_ACCEPT_ENCODING" => "gzip", "HTTP_IF_NONE_MATCH" => '"x"')
      end

      it "serves the bytes as they are when gzip would not make them smaller" do
        full = Bloomc::BloomFilter.new(1 << 16, 1) # about half its bits set: no redundancy for gzip to take
        rng = Random.new(1)
        45_000.times { full << rng.bytes(8) }
        save("full", full)
        res = get("/full", "HTTP_ACCEPT_ENCODING" => "gzip")
        expect(res.headers).not_to include("content-encoding")
        expect(Bloomc.load(res.body)).to eq(full)
      end
    end

    describe "ranges" do
      let!(:bytes) { File.binread(save("words")) }

      it "serves one bytes= range as 206 with Content-Range: from-to, suffix, open-ended, clamped" do
        len = bytes.bytesize
        { "bytes=0-9" => 0..9, "bytes=-10" => (len - 10)..(len - 1), "bytes=100-" => 100..(len - 1),
          "bytes=10-999999" => 10..(len - 1), "bytes=-999999" => 0..(len - 1), " bytes=5-5 " => 5..5 }.each do |header, range|
          res = get("/words", "HTTP_RANGE" => header, "HTTP_ACCEPT_ENCODING" => "gzip")
          expect(res.status).to eq(206), header
          expect(res.headers["content-range"]).to eq("bytes #{range.begin}-#{range.end}/#{len}")
          expect(res.headers).not_to include("content-encoding") # a range is of the bytes themselves
          expect(res.body.b).to eq(bytes.byteslice(range))
          expect(res.headers["content-length"]).to eq(range.size.to_s)
        end
      end

      it "reads the range set as a list: an empty element ignored, two ranges served whole" do
        expect(get("/words", "HTTP_RANGE" => "bytes=0-9,").status).to eq(206)
        expect(get("/words", "HTTP_RANGE" => "bytes=, 0-9").headers["content-range"]).to start_with("bytes 0-9/")
        expect(get("/words", "HTTP_RANGE" => "bytes=0-9,,20-29").status).to eq(200)
        expect(get("/words", "HTTP_RANGE" => "bytes=,").status).to eq(200)
        expect(get("/words", "HTTP_RANGE" => "bytes=0-\xFF".b).status).to eq(200)
      end

      it "answers 416 with bytes */LEN when no byte of the range exists" do
        ["bytes=#{bytes.bytesize}-", "bytes=999999-1000000", "bytes=-0"].each do |header|
          res = get("/words", "HTTP_RANGE" => header)
          expect([res.status, res.headers["content-range"]]).to eq([416, "bytes */#{bytes.bytesize}"]), header
        end
      end

      it "serves the whole for several ranges, another unit or a header it cannot read" do
        ["bytes=0-1,5-6", "items=0-1", "bytes=9-3", "bytes=a-b", "bytes=-", "bytes 0-1"].each do |header|
          res = get("/words", "HTTP_RANGE" => header)
          expect([res.status, res.body.bytesize]).to eq([200, bytes.bytesize]), header
        end
      end

      it "applies If-Range only to the representation it names" do
        etag = get("/words").headers["etag"]
        expect(get("/words", "HTTP_RANGE" => "bytes=0-9", "HTTP_IF_RANGE" => etag).status).to eq(206)
        expect(get("/words", "HTTP_RANGE" => "bytes=0-9", "HTTP_IF_RANGE" => past.httpdate).status).to eq(206)
        expect(get("/words", "HTTP_RANGE" => "bytes=0-9", "HTTP_IF_RANGE" => '"old"').status).to eq(200)
        expect(get("/words", "HTTP_RANGE" => "bytes=0-9", "HTTP_IF_RANGE" => (past - 5).httpdate).status).to eq(200)
      end

      it "answers a HEAD with a range with the 206's headers and no body" do
        res = get("/words", method: "HEAD", "HTTP_RANGE" => "bytes=0-9")
        expect([res.status, res.headers["content-range"], res.body]).to eq([206, "bytes 0-9/#{bytes.bytesize}", ""])
      end
    end

    describe "the JSON representation" do
      it "gives kind, version, named parameters, sizing, metadata and the cells in hex, bit i in byte i / 8" do
        filter = Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01, seed: 9)
        filter << "jcgregorio" << "barney"
        save("hour", filter, compress: true) # the cells are shown inflated
        res = get("/hour.json")
        expect(res.headers).to include("content-type" => "application/json", "vary" => "Accept-Encoding")
        doc = JSON.parse(res.body)
        expect(doc).to include("kind" => "BloomFilter", "kind_number" => 1, "format_version" => 2, "metadata" => nil,
                               "sizing" => { "capacity" => 3000, "error_rate" => 0.01, "keys_new" => 2 })
        expect(doc["parameters"]).to eq("m" => filter.m, "k" => filter.k, "seed" => 9, "hash" => 2, "count" => 2)
        cells = [doc["cells"]].pack("H*")
        expect(cells.bytesize).to eq((filter.m + 63) / 64 * 8)
        set = (0...filter.m).select { |i| cells.getbyte(i / 8)[i % 8] == 1 }
        expect(set.size).to be_between(8, 14)
        expect(doc["cells"]).to match(/\A\h+\z/).and eq(doc["cells"].downcase)
        # The bits are the filter's: a filter with exactly them set answers as it does.
        copy = Bloomc::BloomFilter.new(filter.m, filter.k, seed: 9)
        expect(Bloomc::Format.json_representation(copy)["cells"]).to match(/\A0+\z/)
        expect(get("/hour.json", "HTTP_IF_NONE_MATCH" => res.headers["etag"]).status).to eq(304)
        expect(get("/hour.json").headers["etag"]).not_to eq(get("/hour").headers["etag"])
      end

      it "shows the seed and the hash apart for the kinds that keep the hash in the seed parameter" do
        mixed = Bloomc::Format.json_representation(Bloomc::CountingBloomFilter.new(100, 3, seed: 5))["parameters"]
        expect(mixed).to eq("m" => 100, "k" => 3, "width" => 4, "seed" => 5, "hash" => 2, "count" => 0, "saturated" => 0)
        old = Bloomc::Format.json_representation(Bloomc::A2BloomFilter.new(100, 3, seed: 7, hash: :murmur3))["parameters"]
        expect(old.values_at("seed", "hash")).to eq([7, 0])
      end

      it "shows the body's bytes in order, each high nibble first: bit 9 is 0x02 in byte 1" do
        dump = Bloomc::BloomFilter.new(128, 1).dump
        at = Bloomc::Format.body_offset(5)
        dump.setbyte(at + 1, 0x02)
        dump.setbyte(at + 15, 0xa0) # bits 125 and 127
        expect(Bloomc::Format.json_representation(checksummed(dump))["cells"]).to eq("0002#{'0' * 26}a0")
      end

      it "names every kind's parameters as docs/FORMAT.md's table does, the same from a filter and from its dump" do
        filters = [
          Bloomc::BlockedBloomFilter.new(capacity: 100, error_rate: 0.01), Bloomc::ContinuousBloomFilter.new(64, 3, 2.5),
          Bloomc::CountingBloomFilter.new(64, 3, width: 4), Bloomc::SpectralBloomFilter.new(64, 3, algorithm: :rm),
          Bloomc::BitwiseBloomFilter.new(64, 3), Bloomc::StableBloomFilter.new(64, 3, 10), Bloomc::A2BloomFilter.new(64, 3),
          Bloomc::ScalableBloomFilter.new(error_rate: 0.01), Bloomc::CuckooFilter.new(capacity: 100, error_rate: 0.01),
          Bloomc::BinaryFuseFilter.new(%w[a b c])
        ]
        filters.each do |filter|
          doc = Bloomc::Format.json_representation(filter)
          kind = Bloomc::Format::KINDS.key(filter.class.name.split("::").last.to_sym)
          expect(doc["kind"]).to eq(filter.class.name.split("::").last)
          names = Bloomc::Format::PARAMETER_NAMES[kind]
          # kinds 4 to 9: "hash" follows "seed", taken from the seed parameter
          names = names.flat_map { |name| name == "seed" ? %w[seed hash] : [name] } if (4..9).cover?(kind)
          expect(doc["parameters"].keys.first(names.size)).to eq(names)
          expect(Bloomc::Format.json_representation(filter.dump(compress: true))).to eq(doc)
          JSON.generate(doc)
        end
        expect(Bloomc::Format.json_representation(filters[1])["parameters"]["ttl"]).to eq(2.5)
        expect(Bloomc::Format.json_representation(filters[7])["parameters"]).to include("error_rate" => 0.01, "layers" => 1)
        expect(Bloomc::Format.json_representation(filters[7])["parameters"]["layer_parameters"].first.keys).to eq(%w[m k capacity count])
      end

      it "refuses bytes that are not a filter" do
        expect { Bloomc::Format.json_representation("not a filter") }.to raise_error(Bloomc::FormatError)
      end
    end

    describe "safety" do
      let(:secret) { File.join(root, "secret.bloom") }

      before do
        words_filter.save(secret)
        save("words")
      end

      it "serves nothing outside the directory, whatever the encoding of the path" do
        attempts = ["/../secret", "/%2e%2e/secret", "/%2e%2e%2fsecret", "/..%2fsecret", "/%2E%2E%2Fsecret", "/%252e%252e%252fsecret",
                    "/words%2f..%2f..%2fsecret", "/words/../../secret", "/secret%00", "/words%00", "/..%5csecret", "/..\\secret",
                    "/%c0%ae%c0%ae/secret", "//#{root.delete_prefix('/')}/secret", "/#{secret.delete_suffix('.bloom')}",
                    "/%2f#{secret.delete_prefix('/').delete_suffix('.bloom')}", "/.", "/..", "/%2e", "/.words", "/words.",
                    "/%25%32%65%25%32%65/secret", "/words.bloom", "/%77ords/..", "/filters/words"]
        attempts.each do |path|
          res = get("/", "PATH_INFO" => path)
          expect(res.status).to eq(404), path
          expect(res.body.b).not_to include(Bloomc::Format::MAGIC)
        end
        expect(get("/", "PATH_INFO" => "/%77ords").status).to eq(200) # a needless escape of a safe character is fine
        # invalid UTF-8 handed over as UTF-8 (Puma gives binary; other servers may not)
        expect(app.call(Rack::MockRequest.env_for("/").merge("PATH_INFO" => +"/w\xC3rds"))[0]).to eq(404)
      end

      it "refuses a symlink that points outside the directory, and follows one that stays inside" do
        File.symlink(secret, File.join(dir, "out.bloom"))
        File.symlink("../secret.bloom", File.join(dir, "rel.bloom"))
        File.symlink(File.join(dir, "words.bloom"), File.join(dir, "alias.bloom"))
        expect(get("/out").status).to eq(404)
        expect(get("/rel.json").status).to eq(404)
        expect(get("/alias").status).to eq(200)
        expect(JSON.parse(get("/index.json").body)["filters"].map { |f| f["name"] }).to eq(%w[alias words])
      end

      it "is not held by a FIFO renamed into place between its check of the file and its open" do
        path = File.join(dir, "words.bloom")
        fifo = File.join(root, "fifo")
        File.mkfifo(fifo)
        allow(app).to receive(:servable_stat).and_wrap_original do |check, checked|
          check.call(checked).tap { File.rename(fifo, path) if checked == path && File.exist?(fifo) }
        end
        request = Thread.new { get("/words") }
        begin
          expect(request.join(5)).to be(request), "the request hung opening the FIFO"
          expect(request.value.status).to eq(404)
        ensure
          # unblocks an open that waits for a writer
          Thread.new { File.open(path, File::WRONLY, &:close) }.join(1) if request.alive?
          request.join(1)
        end
      end

      it "refuses a directory named NAME.bloom and a directory path given as the app's" do
        Dir.mkdir(File.join(dir, "sub.bloom"))
        expect(get("/sub").status).to eq(404)
        expect { described_class.new(secret) }.to raise_error(ArgumentError, /not a directory/)
        expect { described_class.new(dir, max_age: -1) }.to raise_error(ArgumentError, /max_age/)
      end

      it "does not serve a corrupted, truncated, foreign or open-for-writing file, and says why" do
        good = File.binread(File.join(dir, "words.bloom"))
        File.binwrite(File.join(dir, "flipped.bloom"), good.dup.tap { |b| b.setbyte(b.bytesize - 1, b.getbyte(-1) ^ 1) })
        File.binwrite(File.join(dir, "header.bloom"), good.dup.tap { |b| b.setbyte(16, b.getbyte(16) ^ 1) })
        File.binwrite(File.join(dir, "short.bloom"), good.byteslice(0, good.bytesize - 8))
        File.binwrite(File.join(dir, "text.bloom"), "hello, I am not a filter\n" * 10)
        opened = checksummed(good.dup.tap { |b| b.setbyte(12, b.getbyte(12) | Bloomc::Format::FLAG_OPEN) })
        File.binwrite(File.join(dir, "opened.bloom"), opened)
        expect(Bloomc.load(opened)).to eq(words_filter) # a reader would take it, the server does not
        errors = StringIO.new
        { "flipped" => /body checksum/, "header" => /header checksum/, "short" => /truncated/, "text" => /bad magic/,
          "opened" => /open for writing/ }.each do |name, reason|
          %W[/#{name} /#{name}.json].each do |path|
            res = get(path, "rack.errors" => errors)
            expect(res.status).to eq(500), path
            expect(res.body).to match(reason).and include("#{name}.bloom is not a servable bloomc filter")
            expect(res.body.b).not_to include(Bloomc::Format::MAGIC)
          end
        end
        expect(errors.string.lines.size).to eq(5) # logged once per file, not per request
        File.binwrite(File.join(dir, "late.bloom"), "not a filter either")
        index_errors = StringIO.new
        get("/index.json", "rack.errors" => index_errors) # met first through the index: logged there
        expect(index_errors.string).to eq("bloomc: not serving late.bloom: not a bloomc filter (bad magic)\n")
        expect(JSON.parse(get("/index.json").body)["filters"].map { |f| f["name"] }).to eq(%w[words])
        # Repaired in place: served.
        File.binwrite(File.join(dir, "flipped.bloom"), good)
        expect(get("/flipped").status).to eq(200)
      end
    end

    describe "filters in the process" do
      let(:app) { described_class.new(nil) }

      it "serves a published filter by name, until it is unpublished" do
        filter = words_filter
        expect(app.publish("recent", filter)).to equal(filter)
        res = get("/recent")
        expect([res.status, res.headers["content-type"]]).to eq([200, "application/vnd.bloomc"])
        expect(Bloomc.load(res.body)).to eq(filter)
        expect(JSON.parse(get("/recent.json").body)["parameters"]["count"]).to eq(2)
        expect(JSON.parse(get("/index.json").body)["filters"].map { |f| f["name"] }).to eq(%w[recent])
        expect(app.unpublish("recent")).to equal(filter)
        expect(get("/recent").status).to eq(404)
      end

      it "gives a changed filter a new ETag and Last-Modified, and an unchanged one the same" do
        filter = words_filter
        app.publish("recent", filter)
        t0 = Time.at(1_800_000_000)
        allow(app).to receive(:now).and_return(t0)
        allow(app).to receive(:now).and_return(t0 + 5)
        first = get("/recent")
        allow(app).to receive(:now).and_return(t0 + 10)
        expect(get("/recent", "HTTP_IF_NONE_MATCH" => first.headers["etag"]).status).to eq(304)
        same = get("/recent")
        expect(same.headers.values_at("etag", "last-modified")).to eq([first.headers["etag"], (t0 + 5).httpdate])
        filter << "new-key"
        allow(app).to receive(:now).and_return(t0 + 20)
        changed = get("/recent", "HTTP_IF_NONE_MATCH" => first.headers["etag"])
        expect(changed.status).to eq(200)
        expect(changed.headers["etag"]).not_to eq(first.headers["etag"])
        expect(changed.headers).not_to include("last-modified") # the second it changed in is not over
        allow(app).to receive(:now).and_return(t0 + 21)
        expect(get("/recent").headers["last-modified"]).to eq((t0 + 20).httpdate)
        expect(get("/recent", "HTTP_IF_MODIFIED_SINCE" => (t0 + 5).httpdate).status).to eq(200)
        expect(get("/recent", "HTTP_IF_MODIFIED_SINCE" => (t0 + 20).httpdate).status).to eq(304)
      end

      it "publishes a sliding filter as one resource: the same ETag while it holds the same keys, a new one when it slides" do
        time = 0.0
        filter = Bloomc::SlidingBloomFilter.new(ttl: 3600, error_rate: 0.01, clock: -> { time })
        filter.add_all(%w[a b])
        app.publish("past-hour", filter)
        first = get("/past-hour")
        time = 60.0 # a dump made later says so, but holds the same filter
        expect(get("/past-hour", "HTTP_IF_NONE_MATCH" => first.headers["etag"]).status).to eq(304)
        served = Bloomc::SlidingBloomFilter.load(first.body)
        expect(served.include_all(%w[a b c])).to eq([true, true, false])
        time = 4600.0 # past 1.25 hours: the generation of a and b has ended
        filter << "c"
        slid = get("/past-hour", "HTTP_IF_NONE_MATCH" => first.headers["etag"])
        expect(slid.status).to eq(200)
        now_served = Bloomc::SlidingBloomFilter.load(slid.body, clock: -> { time })
        expect(now_served.include_all(%w[a b c])).to eq([false, false, true])
      end

      it "shows a filter's metadata in the index" do
        filter = words_filter
        # The metadata of issue 22 item 6, or a stand-in where it has not landed.
        if filter.respond_to?(:metadata=)
          filter.metadata = { "source" => "spec" }
        else
          filter.define_singleton_method(:metadata) { { "source" => "spec" }.freeze }
        end
        app.publish("meta", filter)
        expect(JSON.parse(get("/index.json").body)["filters"].first["metadata"]).to eq("source" => "spec")
        expect(Bloomc::Format.json_representation(filter)["metadata"]).to eq("source" => "spec")
      end

      it "tells the load of the bytes it serves: read from the dump once, again after the filter changed" do
        filter = Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(%w[a b])
        app.publish("recent", filter)
        index = -> { JSON.parse(get("/index.json").body)["filters"].first }
        expect(index.call.values_at("keys", "over_capacity")).to eq([2, false])
        expect(Bloomc::Format).not_to receive(:load) # the same dump: the load already read
        2.times { expect(index.call.values_at("keys", "over_capacity")).to eq([2, false]) }
        RSpec::Mocks.space.proxy_for(Bloomc::Format).reset
        app.synchronize("recent") { filter.add_all(Array.new(400) { |i| "k#{i}" }) }
        entry = index.call
        served = Bloomc.load(get("/recent").body)
        expect(entry.values_at("etag", "over_capacity", "false_positive_rate"))
          .to eq([get("/recent").headers["etag"], true, served.false_positive_rate])
      end

      it "shadows a file of the same name while published" do
        app = described_class.new(dir)
        save("words")
        other = words_filter(10)
        app.publish("words", other)
        expect(Bloomc.load(get("/words", app: app).body)).to eq(other)
        expect(JSON.parse(get("/index.json", app: app).body)["filters"].size).to eq(1)
        app.unpublish("words")
        expect(Bloomc.load(get("/words", app: app).body)).to eq(words_filter)
      end

      it "refuses a name it could not serve and an object that is not a filter" do
        ["", ".", "..", "a/b", "index", "x.json", ".hidden", "a b", "a%2e", "é", "a" * 201].each do |name|
          expect { app.publish(name, words_filter) }.to raise_error(ArgumentError, /cannot be a filter's name/), name
        end
        expect { app.publish("x", Object.new) }.to raise_error(TypeError, /has no binary format/)
        expect { app.synchronize("none") { nil } }.to raise_error(KeyError)
      end

      it "dumps under the filter's own synchronize when it has one" do
        filter = words_filter
        monitor = Monitor.new
        calls = 0
        filter.define_singleton_method(:synchronize) { |&block| calls += 1; monitor.synchronize(&block) }
        app.publish("locked", filter)
        get("/locked")
        expect(calls).to eq(1)
        app.synchronize("locked") { filter << "x" }
        expect(calls).to eq(2)
      end

      it "never serves a torn dump while another thread adds keys under the app's lock" do
        filter = Bloomc::BloomFilter.new(capacity: 50_000, error_rate: 0.01)
        app.publish("live", filter)
        added = 0
        writer = Thread.new do
          200.times do |batch|
            app.synchronize("live") do
              100.times { |i| filter << "key-#{batch * 100 + i}" }
              added = (batch + 1) * 100
            end
            Thread.pass
          end
        end
        seen = []
        etags = []
        while writer.alive? || seen.size < 20
          before = added
          res = get("/live")
          loaded = Bloomc.load(res.body) # every checksum and check
          seen << loaded.size
          etags << res.headers["etag"]
          expect(loaded.size).to be >= before
          expect(loaded.size % 100).to eq(0) # a batch is whole or absent
          expect(loaded.include?("key-#{loaded.size - 1}")).to be(true) if loaded.size.positive?
          Thread.pass # both threads take turns, well within the GVL's 100 ms slices
        end
        writer.join
        expect(seen).to eq(seen.sort)
        expect(etags.uniq.size).to eq(seen.uniq.size)
        expect(Bloomc.load(get("/live").body)).to eq(filter)
      end
    end

    describe "a periodic filter" do
      let(:app) { described_class.new(nil, max_age: 120) }
      let(:periodic) { PeriodicDouble.new(period_seconds: 3600) }

      before do
        periodic.open_period("2026-11-24T12", words_filter(5))
        periodic.open_period("2026-11-24T13", words_filter(2))
        app.publish("changed", periodic)
      end

      it "serves each period at NAME/LABEL: a closed one immutable for a year, the current one briefly" do
        closed = get("/changed/2026-11-24T12")
        expect(closed.status).to eq(200)
        expect(closed.headers["cache-control"]).to eq("public, max-age=31536000, immutable")
        expect(Bloomc.load(closed.body)).to eq(words_filter(5))
        current = get("/changed/2026-11-24T13")
        expect(current.headers["cache-control"]).to eq("public, max-age=120")
        expect(get("/changed/2026-11-24T13.json").headers["cache-control"]).to eq("public, max-age=120")
        expect(JSON.parse(get("/changed/2026-11-24T12.json").body)["parameters"]["count"]).to eq(5)
        expect(get("/changed/2026-11-24T11").status).to eq(404)
        expect(get("/changed").status).to eq(404)
        expect(get("/changed/2026-11-24T12/x").status).to eq(404)
      end

      it "keeps the current period's max-age within the period" do
        short = PeriodicDouble.new(period_seconds: 30)
        short.open_period("2026-11-24T13:05:00", words_filter)
        app.publish("fast", short)
        expect(get("/fast/2026-11-24T13:05:00").headers["cache-control"]).to eq("public, max-age=30")
      end

      it "dumps a closed period once, under the periodic filter's lock, and the current one per request" do
        3.times { get("/changed/2026-11-24T12") }
        expect(periodic.dumps_locked).to eq(1)
        3.times { get("/changed/2026-11-24T13") }
        expect(periodic.dumps_locked).to eq(4)
      end

      it "serves the last adds of a period that closed since it was last dumped, then keeps it" do
        filter = periodic.period("2026-11-24T13").first
        first = get("/changed/2026-11-24T13")
        filter << "late"
        periodic.open_period("2026-11-24T14", words_filter(0))
        closed = get("/changed/2026-11-24T13")
        expect(closed.headers["etag"]).not_to eq(first.headers["etag"])
        expect(closed.headers["cache-control"]).to include("immutable")
        expect(Bloomc.load(closed.body)).to include("late")
      end

      it "lists one index entry per period, with relative URLs, and forgets a dropped period" do
        names = JSON.parse(get("/index.json").body)["filters"].map { |f| f.values_at("name", "url", "json_url") }
        expect(names).to eq([%w[changed/2026-11-24T12 changed/2026-11-24T12 changed/2026-11-24T12.json],
                             %w[changed/2026-11-24T13 changed/2026-11-24T13 changed/2026-11-24T13.json]])
        periodic.drop("2026-11-24T12")
        expect(get("/changed/2026-11-24T12").status).to eq(404)
        expect(JSON.parse(get("/index.json").body)["filters"].size).to eq(1)
      end

      it "tells each period's load in the index" do
        full = Bloomc::BloomFilter.new(capacity: 10, error_rate: 0.01).add_all(Array.new(200) { |i| "k#{i}" })
        periodic.open_period("2026-11-24T14", full)
        loads = JSON.parse(get("/index.json").body)["filters"].to_h { |f| [f["name"], f.values_at("capacity", "over_capacity")] }
        expect(loads).to eq("changed/2026-11-24T12" => [nil, nil], "changed/2026-11-24T13" => [nil, nil],
                            "changed/2026-11-24T14" => [10, true])
      end
    end

    describe "the front page" do
      before do
        page = File.join(root, "front_page.html")
        script = File.join(root, "bloomc.js")
        File.write(page, "<!doctype html><title>filters</title>")
        File.write(script, "export const x = 1;\n")
        stub_const("Bloomc::RackApp::FRONT_PAGE", page)
        stub_const("Bloomc::RackApp::SCRIPT", script)
      end

      let(:app) { described_class.new(dir, front_page: true) }

      it "serves / and /bloomc.js when built with front_page: true, and only then" do
        page = get("/")
        expect([page.status, page.headers["content-type"]]).to eq([200, "text/html; charset=utf-8"])
        expect(page.body).to eq("<!doctype html><title>filters</title>")
        script = get("/bloomc.js")
        expect([script.status, script.headers["content-type"]]).to eq([200, "text/javascript; charset=utf-8"])
        expect(get("/", "HTTP_IF_NONE_MATCH" => page.headers["etag"]).status).to eq(304)
        plain = described_class.new(dir)
        expect([get("/", app: plain).status, get("/bloomc.js", app: plain).status]).to eq([404, 404])
      end

      it "redirects the mount point without its slash to the slash, where relative URLs resolve" do
        res = get("/filters", "SCRIPT_NAME" => "/filters", "PATH_INFO" => "")
        expect([res.status, res.headers["location"]]).to eq([301, "/filters/"])
      end
    end

    # Requests with random headers, from a fixed seed (RACK_FUZZ_SEED=N
    # for another): every answer must be a well-formed response (Rack::Lint),
    # never a 500 or an exception, the right bytes whenever the filter is
    # served, and a normal request afterwards must still be answered right.
    describe "request headers, fuzzed" do
      seed = Integer(ENV.fetch("RACK_FUZZ_SEED", "32"))
      requests = 3000

      let(:app) { described_class.new(dir, front_page: true) }
      let(:rng) { Random.new(seed) }

      names = %w[Accept-Encoding If-None-Match If-Modified-Since If-Range Range Accept Accept-Language Cache-Control
                 Cookie Origin TE Connection Transfer-Encoding Authorization X-Forwarded-For]
      pieces = ["gzip", "x-gzip", "deflate", "br", "identity", "*", "", " ", "\t", ",", ";", "=", "q=0", "q=1", "q=0.5",
                "q=", "q=-1", "q=1e999", "q=abc", "\"", "\\", "W/", "bytes=", "bytes", "0-9", "-5", "5-", "-0", "9-0", "-",
                "99999999999999999999999", "Tue, 24 Nov 2026 13:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 99-Nov-94 99:99:99 GMT",
                "\xFF\xFE", "\u00e9t\u00e9", "\0", "\r\n", "a" * 2000, ",,,,", "\"a,b\"", "\"unterminated, x"]

      define_method(:random_name) do
        if rng.rand < 0.7
          names.sample(random: rng)
        else
          Array.new(rng.rand(1..12)) { rng.rand(33..126).chr }.join.delete(":")
        end
      end

      define_method(:random_value) do |etags|
        return "#{pieces.sample(random: rng)}\xFF".b * rng.rand(1..50_000) if rng.rand < 0.005 # huge

        Array.new(rng.rand(0..8)) { rng.rand < 0.15 ? etags.sample(random: rng) : pieces.sample(random: rng) }.join.b
      end

      def env_key(name)
        key = "HTTP_#{name.upcase.tr('-', '_')}"
        # Rack::Lint forbids these two, and a Host the server would have refused
        %w[HTTP_CONTENT_TYPE HTTP_CONTENT_LENGTH HTTP_HOST].include?(key) ? "HTTP_X" : key
      end

      it "answers #{requests} requests with random headers (seed #{seed}) well-formed, and stays right" do
        save("words")
        identity = File.binread(File.join(dir, "words.bloom"))
        app.publish("recent", words_filter(5))
        plain = get("/words")
        etags = [plain.headers["etag"], get("/words", "HTTP_ACCEPT_ENCODING" => "gzip").headers["etag"], %("nope"), "*"]
        paths = %w[/words /words.json /index.json / /bloomc.js /recent /recent.json /missing]
        requests.times do |i|
          headers = Array.new(rng.rand(1..6)) { [env_key(random_name), random_value(etags)] }.to_h
          path = paths.sample(random: rng)
          method = rng.rand < 0.1 ? "HEAD" : "GET"
          res = begin
            get(path, method: method, **headers)
          rescue StandardError => e
            raise "request #{i} (seed #{seed}) #{method} #{path} #{headers.inspect[0, 2000]} raised #{e.class}: #{e.message}"
          end
          context = "request #{i} (seed #{seed}): #{method} #{path} #{headers.inspect[0, 2000]}"
          expect([200, 206, 304, 404, 416]).to include(res.status), "#{context} got #{res.status}: #{res.body[0, 200]}"
          next unless path == "/words" && method == "GET"

          body = res.headers["content-encoding"] == "gzip" ? gunzip(res.body) : res.body.b
          case res.status
          when 200 then expect(body).to eq(identity), context
          when 206
            from, to = res.headers["content-range"][%r{\Abytes (\d+-\d+)/}, 1].split("-").map(&:to_i)
            expect(body).to eq(identity.byteslice(from..to)), context
          end
        end
        again = get("/words")
        expect([again.status, again.body.b, again.headers["etag"]]).to eq([200, identity, plain.headers["etag"]])
        expect(get("/words", "HTTP_IF_NONE_MATCH" => plain.headers["etag"]).status).to eq(304)
        expect(Bloomc.load(get("/recent").body)).to eq(words_filter(5))
      end
    end

    it "is declared in sig/bloomc/rack.rbs, every public method and nothing more" do
      decls = Signatures.declarations("bloomc/rack.rbs")
      bloomc = decls.find { |d| d.name.to_s == "Bloomc" }
      rack_app = bloomc.members.find { |d| d.respond_to?(:name) && d.name.to_s == "RackApp" }
      declared = rack_app.members.grep(RBS::AST::Members::MethodDefinition).map(&:name)
      expect(declared.sort).to eq((described_class.public_instance_methods(false) + [:initialize]).sort)
      format = bloomc.members.find { |d| d.respond_to?(:name) && d.name.to_s == "Format" }
      expect(format.members.grep(RBS::AST::Members::MethodDefinition).map(&:name)).to eq([:json_representation])
    end

    it "serves the gem's own front page and JavaScript reader" do
      root_dir = File.expand_path("../..", __dir__)
      expect(described_class::FRONT_PAGE).to eq(File.join(root_dir, "lib/bloomc/rack/front_page.html"))
      expect(described_class::SCRIPT).to eq(File.join(root_dir, "js/src/bloomc.js"))
      expect(File.file?(described_class::SCRIPT)).to be(true)
    end
  end
end
