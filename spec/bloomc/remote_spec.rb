# frozen_string_literal: true

require "spec_helper"
require "rbconfig"
require "timeout"

RSpec.describe "Bloomc.fetch and Bloomc::Remote" do
  around do |example|
    Timeout.timeout(30) { example.run }
  end

  let(:server) { FilterHTTPServer.new }
  let(:keys) { numbered_keys(200, "user") }
  let(:filter) { Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01).add_all(keys) }

  after { server.stop }

  def wait_until(seconds = 5)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    until yield
      raise "timed out waiting" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.01
    end
  end

  def remote_threads = Thread.list.select { |t| t.name == "bloomc remote" && t.alive? }

  # A body of +size+ bytes sent in 64 KiB chunks with no Content-Length;
  # +sent+ counts what went out before the client hung up.
  def endless_body(size, sent)
    Enumerator.new do |out|
      chunk = "\0".b * 65_536
      (size / chunk.bytesize).times do
        out << chunk
        sent[0] += chunk.bytesize
      end
    end
  end

  describe "Bloomc.fetch" do
    it "GETs the binary filter, asking for its media type and gzip, and returns it checked" do
      server.serve("/words", filter.dump)
      fetched = Bloomc.fetch(server.url("/words"))
      expect(fetched).to eq(filter)
      expect(fetched).not_to be_frozen
      request = server.requests_to("/words").last
      expect(request.headers).to include("accept" => "application/vnd.bloomc", "accept-encoding" => "gzip")
      expect(request.headers["user-agent"]).to start_with("bloomc/")
    end

    it "inflates a gzipped body, which is much smaller on the wire" do
      sparse = Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01).add("one")
      server.serve("/sparse", sparse.dump, gzip: true)
      expect(Bloomc.fetch(URI(server.url("/sparse")))).to eq(sparse)
      expect(server.gzipped(sparse.dump).bytesize).to be < sparse.dump.bytesize / 50
    end

    it "checks the class with expect:" do
      server.serve("/words", filter.dump)
      expect(Bloomc.fetch(server.url("/words"), expect: Bloomc::BloomFilter)).to eq(filter)
      expect { Bloomc.fetch(server.url("/words"), expect: Bloomc::CountingBloomFilter) }
        .to raise_error(Bloomc::FormatError, %r{/words: holds a Bloomc::BloomFilter, not a Bloomc::CountingBloomFilter})
      expect { Bloomc.fetch(server.url("/words"), expect: String) }.to raise_error(TypeError, /expect/)
    end

    it "follows up to #{Bloomc::Remote::MAX_REDIRECTS} redirects, relative or absolute, and no more" do
      server.serve("/hop0", filter.dump)
      (1..6).each { |i| server.on("/hop#{i}") { [i.odd? ? 302 : 301, { "Location" => i.odd? ? "/hop#{i - 1}" : server.url("/hop#{i - 1}") }, ""] } }
      expect(Bloomc.fetch(server.url("/hop5"))).to eq(filter)
      expect { Bloomc.fetch(server.url("/hop6")) }.to raise_error(Bloomc::FetchError, /more than 5 redirects/)
      server.on("/away") { [307, { "Location" => "ftp://example.org/f" }, ""] }
      expect { Bloomc.fetch(server.url("/away")) }.to raise_error(Bloomc::FetchError, /not http or https/)
      server.on("/nowhere") { [302, {}, ""] }
      expect { Bloomc.fetch(server.url("/nowhere")) }.to raise_error(Bloomc::FetchError, /without a Location/)
    end

    it "refuses an answer other than 200, naming the URL and status" do
      server.on("/gone") { [404, {}, "no such filter"] }
      server.on("/broken") { [500, {}, "oops"] }
      expect { Bloomc.fetch(server.url("/gone")) }.to raise_error(Bloomc::FetchError) { |e|
        expect(e.message).to eq("GET #{server.url('/gone')}: 404 Not Found")
        expect([e.url, e.status]).to eq([server.url("/gone"), 404])
      }
      expect { Bloomc.fetch(server.url("/broken")) }.to raise_error(Bloomc::FetchError, /500/)
    end

    it "raises FormatError for a body that is not a filter, FetchError for damaged gzip" do
      server.on("/html") { [200, { "Content-Type" => "text/html" }, "<html>hello</html>"] }
      damaged = filter.dump.tap { |d| d.setbyte(d.bytesize - 1, d.getbyte(d.bytesize - 1) ^ 1) }
      server.serve("/damaged", damaged)
      server.on("/badgzip") { [200, { "Content-Encoding" => "gzip" }, "not gzip at all"] }
      server.on("/cutgzip") { [200, { "Content-Encoding" => "gzip" }, server.gzipped(filter.dump)[0, 100]] }
      server.on("/brotli") { [200, { "Content-Encoding" => "br" }, "x"] }
      expect { Bloomc.fetch(server.url("/html")) }.to raise_error(Bloomc::FormatError, %r{/html: not a bloomc filter})
      expect { Bloomc.fetch(server.url("/damaged")) }.to raise_error(Bloomc::FormatError, /checksum/)
      expect { Bloomc.fetch(server.url("/badgzip")) }.to raise_error(Bloomc::FetchError, /Zlib/)
      expect { Bloomc.fetch(server.url("/cutgzip")) }.to raise_error(Bloomc::FetchError, /ends early/)
      expect { Bloomc.fetch(server.url("/brotli")) }.to raise_error(Bloomc::FetchError, /content encoding br/)
    end

    it "refuses a body above max_bytes by its Content-Length, before reading it" do
      server.serve("/words", filter.dump)
      expect { Bloomc.fetch(server.url("/words"), max_bytes: 1000) }
        .to raise_error(Bloomc::FetchError, /body of #{filter.dump.bytesize} bytes is larger than max_bytes \(1000\)/)
    end

    it "stops reading a body without a length as soon as it passes max_bytes" do
      sent = [0]
      server.on("/endless") { [200, {}, endless_body(64 << 20, sent)] }
      expect { Bloomc.fetch(server.url("/endless"), max_bytes: 1 << 20) }.to raise_error(Bloomc::FetchError, /larger than max_bytes/)
      expect(sent[0]).to be < 16 << 20
    end

    it "refuses gzip that inflates above max_bytes (a gzip bomb)" do
      bomb = server.gzipped("\0".b * (8 << 20))
      server.on("/bomb") { [200, { "Content-Encoding" => "gzip" }, bomb] }
      expect(bomb.bytesize).to be < 64 << 10
      expect { Bloomc.fetch(server.url("/bomb"), max_bytes: 1 << 20) }.to raise_error(Bloomc::FetchError, /larger than max_bytes/)
    end

    # Writes +head+, then +piece+ again and again (every +pause+ seconds
    # when given) until the client hangs up; +sent+ counts the bytes.
    def endless(path, head, piece, sent = [0], pause: nil)
      server.raw(path) do |socket|
        socket.write(head)
        loop do
          socket.write(piece)
          sent[0] += piece.bytesize
          sleep(pause) if pause
        end
      end
      sent
    end

    def seconds_taken
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      yield
      Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    end

    it "refuses a header line that never ends at max_header_bytes (64 KiB unless told), before reading much of it" do
      sent = endless("/endless", "HTTP/1.1 200 OK\r\nX-Endless: ", "a" * 65_536)
      taken = seconds_taken do
        expect { Bloomc.fetch(server.url("/endless"), max_bytes: 1 << 20) }
          .to raise_error(Bloomc::FetchError, /the response's head is larger than max_header_bytes \(65536\)/) { |e| expect(e.status).to be_nil }
      end
      expect(taken).to be < 2
      expect(sent[0]).to be < 16 << 20 # what the kernel's buffers took, not 512 MB
      endless("/short", "HTTP/1.1 200 OK\r\nX-Endless: ", "a" * 100)
      expect { Bloomc.fetch(server.url("/short"), max_header_bytes: 1024) }
        .to raise_error(Bloomc::FetchError, /larger than max_header_bytes \(1024\)/)
    end

    it "refuses endless short header lines and endless interim (1xx) responses by the head's total" do
      endless("/lines", "HTTP/1.1 200 OK\r\n", "X-A: b\r\n" * 1000)
      endless("/continues", "", "HTTP/1.1 100 Continue\r\n\r\n" * 100)
      %w[/lines /continues].each do |path|
        expect(seconds_taken { expect { Bloomc.fetch(server.url(path)) }.to raise_error(Bloomc::FetchError, /max_header_bytes/) }).to be < 2
      end
    end

    it "refuses a chunk-size line that never ends, in the body" do
      endless("/chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "0" * 65_536)
      expect { Bloomc.fetch(server.url("/chunks")) }
        .to raise_error(Bloomc::FetchError, /a line of the body's framing is longer than max_header_bytes \(65536\)/) { |e| expect(e.status).to eq(200) }
    end

    it "gives up at deadline: a server that sends a byte now and then, each within timeout, is not waited for" do
      head = "HTTP/1.1 200 OK\r\nContent-Length: #{1 << 20}\r\n\r\n"
      endless("/drip-body", head, "x", pause: 0.05)
      endless("/drip-head", "HTTP/1.1 200 OK\r\nX-Slow: ", "x", pause: 0.05)
      %w[/drip-body /drip-head].each do |path|
        taken = seconds_taken do
          expect { Bloomc.fetch(server.url(path), timeout: 1, deadline: 0.5) }
            .to raise_error(Bloomc::FetchError, /took longer than deadline \(0\.5 s\)/)
        end
        expect(taken).to be_between(0.45, 1.2)
      end
    end

    it "gives up after timeout, and on a server that is down" do
      server.serve("/slow", filter.dump, delay: 2)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      expect { Bloomc.fetch(server.url("/slow"), timeout: 0.2) }.to raise_error(Bloomc::FetchError, /ReadTimeout/)
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1.5
      url = server.url("/slow")
      server.down
      expect { Bloomc.fetch(url) }.to raise_error(Bloomc::FetchError, /ECONNREFUSED/) { |e| expect(e.status).to be_nil }
    end

    it "sends the URL's user and password as basic auth, and never shows the password" do
      server.on("/private") do |request|
        request.headers["authorization"] == "Basic #{['reader:s3 cret'].pack('m0')}" ? [200, {}, filter.dump] : [401, {}, ""]
      end
      url = server.url("/private").sub("//", "//reader:s3%20cret@")
      expect(Bloomc.fetch(url)).to eq(filter)
      expect { Bloomc.fetch(url.sub("s3%20cret", "wrong")) }.to raise_error(Bloomc::FetchError) { |e|
        expect(e.message).to eq("GET #{server.url('/private')}: 401 Status")
        expect(e.url).to eq(server.url("/private"))
      }
    end

    it "raises ArgumentError or TypeError for a URL or option that does not fit" do
      expect { Bloomc.fetch("ftp://example.org/f") }.to raise_error(ArgumentError, /http and https/)
      expect { Bloomc.fetch("/relative") }.to raise_error(ArgumentError, /http and https/)
      expect { Bloomc.fetch("http://exa mple.org/") }.to raise_error(ArgumentError, /not a URL/)
      expect { Bloomc.fetch(42) }.to raise_error(TypeError, /url/)
      expect { Bloomc.fetch(server.url, timeout: 0) }.to raise_error(ArgumentError, /timeout/)
      expect { Bloomc.fetch(server.url, max_bytes: 1.5) }.to raise_error(TypeError, /max_bytes/)
      expect { Bloomc.fetch(server.url, max_header_bytes: 0) }.to raise_error(ArgumentError, /max_header_bytes/)
      expect { Bloomc.fetch(server.url, deadline: 0) }.to raise_error(ArgumentError, /deadline/)
      expect { Bloomc.fetch(server.url, deadline: Float::INFINITY) }.to raise_error(ArgumentError, /deadline/)
      expect { Bloomc.fetch(server.url, deadline: "5") }.to raise_error(TypeError, /deadline/)
      expect { Bloomc.fetch(server.url, retries: 3) }.to raise_error(ArgumentError, /retries/)
    end

    it "is there after require \"bloomc\", which does not load net/http until it is used" do
      script = <<~RUBY
        require "bloomc"
        print defined?(Net::HTTP).inspect, " ", Bloomc.respond_to?(:fetch), " "
        Bloomc::Remote
        print defined?(Net::HTTP).inspect
      RUBY
      lib = File.expand_path("../../lib", __dir__)
      output = IO.popen([RbConfig.ruby, "-I", lib, "-e", script], err: %i[child out], &:read)
      expect(output).to eq('nil true "constant"')
    end
  end

  describe Bloomc::Remote do
    def remote(path = "/words", interval: 0.05, **options)
      Bloomc::Remote.new(server.url(path), interval: interval, **options).tap { |r| @remotes << r }
    end

    before { @remotes = [] }
    after { @remotes.each(&:stop) }

    it "fetches at start and answers lookups from a frozen copy" do
      server.serve("/words", filter.dump)
      words = remote(interval: 60)
      expect(words).to be_ready
      expect(words.filter).to eq(filter).and(be_frozen)
      expect(words.include?("user-1")).to be(true)
      expect(words["nobody"]).to be(false)
      expect(words.include_all(%w[user-1 nobody])).to eq([true, false])
      expect(words.count_included(keys)).to eq(200)
      expect([words.all_include?(keys), words.any_include?(["nobody"])]).to eq([true, false])
      expect([words.member?("user-1"), words === "user-1", words === "nobody", words === nil]).to eq([true, true, false, false]) # rubocop:disable Style/CaseEquality,Style/NilComparison
      expect(words.last_error).to be_nil
      expect(words.last_changed_at).to be_a(Time)
      expect(words.age).to be_between(0, 1)
      expect(words.stale_for).to be >= words.age - 0.001
      expect(words.inspect).to match(/Bloomc::Remote .*words interval=60s age=.*running/)
    end

    it "revalidates with If-None-Match and If-Modified-Since; a 304 keeps the copy and resets its age" do
      server.serve("/words", filter.dump)
      words = remote
      copy = words.filter
      wait_until { server.requests_to("/words").size >= 3 }
      conditional = server.requests_to("/words").drop(1)
      expect(conditional.map { |r| r.headers["if-none-match"] }).to all(match(/\A"[0-9a-f]+-\d+"\z/))
      expect(conditional.map { |r| r.headers["if-modified-since"] }).to all(eq("Tue, 24 Nov 2026 13:00:00 GMT"))
      expect(words.filter).to be(copy)
      expect(words.age).to be < 1
      expect(words.last_checked_at).to be > words.last_changed_at
    end

    it "revalidates by If-Modified-Since alone when the server gives no ETag" do
      server.serve("/words", filter.dump, etags: false)
      words = remote
      copy = words.filter
      wait_until { server.requests_to("/words").size >= 2 }
      expect(server.requests_to("/words").last.headers).not_to have_key("if-none-match")
      expect(words.filter).to be(copy)
    end

    it "takes up a changed filter, and says when it changed" do
      server.serve("/words", filter.dump)
      words = remote
      first_change = words.last_changed_at
      newer = filter.dup.add("newcomer")
      server.serve("/words", newer.dump, last_modified: Time.utc(2026, 11, 24, 14))
      wait_until { words.include?("newcomer") }
      expect(words.filter).to eq(newer)
      expect(words.last_changed_at).to be > first_change
    end

    it "keeps the last good copy when the server is down or sends garbage, and says so" do
      server.serve("/words", filter.dump)
      words = remote
      server.on("/words") { [200, {}, "garbage"] }
      wait_until { words.last_error.is_a?(Bloomc::FormatError) }
      expect(words.include?("user-1")).to be(true)
      server.on("/words") { [503, {}, "busy"] }
      wait_until { words.last_error.is_a?(Bloomc::FetchError) && words.last_error.status == 503 }
      server.down
      wait_until { words.last_error.message.include?("ECONNREFUSED") }
      expect(words.include?("user-1")).to be(true)
      expect(words.age).to be > 0.05
      server.up
      server.serve("/words", filter.dump)
      wait_until { words.last_error.nil? }
      expect(words.age).to be < 1
    end

    it "never waits for the network to answer a lookup" do
      server.serve("/words", filter.dump)
      words = remote
      server.serve("/words", filter.dump, delay: 3)
      wait_until { server.requests_to("/words").size >= 2 } # a check now hangs on the server
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      100.times { words.include?("user-1") }
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 0.1
    end

    it "refreshes on demand, saying whether the copy changed, and raising when it cannot" do
      server.serve("/words", filter.dump)
      words = remote(interval: 60)
      expect(words.refresh).to be(false)
      server.serve("/words", filter.dup.add("x").dump)
      expect(words.refresh).to be(true)
      expect(words.include?("x")).to be(true)
      server.on("/words") { [500, {}, ""] }
      expect { words.refresh }.to raise_error(Bloomc::FetchError, /500/)
      expect(words.last_error).to be_a(Bloomc::FetchError)
      expect(words.include?("x")).to be(true)
    end

    it "ends a check that passes its deadline, keeping the copy, and checks again at the next interval" do
      server.serve("/words", filter.dump)
      words = remote(interval: 0.2, timeout: 1, deadline: 0.3)
      server.raw("/words") do |socket|
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        loop do
          socket.write("x")
          sleep 0.05
        end
      end
      wait_until { words.last_error }
      expect(words.last_error).to be_a(Bloomc::FetchError)
      expect(words.last_error.message).to match(/took longer than deadline \(0\.3 s\)/)
      expect(words.include?("user-1")).to be(true)
      checks = server.requests_to("/words").size
      wait_until { server.requests_to("/words").size > checks }
    end

    it "raises at start when the first fetch fails, unless wait: false" do
      server.on("/words") { [404, {}, ""] }
      expect { remote }.to raise_error(Bloomc::FetchError, /404/)
      expect(remote_threads).to be_empty
    end

    it "with wait: false starts at once, refuses lookups until a copy arrives, then answers" do
      server.on("/words") { [503, {}, ""] }
      words = remote(wait: false)
      expect(words).not_to be_ready
      wait_until { words.last_error }
      expect { words.include?("user-1") }.to raise_error(Bloomc::FetchError, /no copy of .*words yet \(GET .*503/)
      expect(words.age).to be_nil
      server.serve("/words", filter.dump)
      wait_until { words.ready? }
      expect(words.include?("user-1")).to be(true)
    end

    it "refuses lookups once the copy is older than max_stale" do
      server.serve("/words", filter.dump)
      words = remote(max_stale: 0.3)
      expect(words.include?("user-1")).to be(true)
      server.down
      wait_until { words.age > 0.3 }
      expect { words.include?("user-1") }.to raise_error(Bloomc::FetchError, /more than max_stale \(0.3 s\); GET/)
    end

    it "checks its options" do
      server.serve("/words", filter.dump)
      expect { remote(interval: 0) }.to raise_error(ArgumentError, /interval/)
      expect { remote(interval: "60") }.to raise_error(TypeError, /interval/)
      expect { remote(max_stale: -1) }.to raise_error(ArgumentError, /max_stale/)
      expect { remote(expect: :bloom) }.to raise_error(TypeError, /expect/)
      expect(server.requests_to("/words")).to be_empty
    end

    it "stops its thread promptly, even in the middle of a check" do
      server.serve("/words", filter.dump)
      words = remote
      expect(words).to be_running
      server.serve("/words", filter.dump, delay: 5)
      wait_until { server.requests_to("/words").size >= 2 }
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      expect(words.stop).to be(words)
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1
      expect(words).not_to be_running
      expect(words.include?("user-1")).to be(true)
      expect(words.close).to be(words)
    end

    it "ends its thread when the Remote is collected" do
      server.serve("/words", filter.dump)
      before = remote_threads.size
      Thread.new { Bloomc::Remote.new(server.url("/words"), interval: 0.05) && nil }.join # no reference left on this stack
      expect(remote_threads.size).to eq(before + 1)
      wait_until(10) do
        GC.start
        remote_threads.size == before
      end
    end

    it "lets the process exit promptly while a check is in flight" do
      served = 0
      server.on("/words") do
        served += 1
        sleep 5 if served > 1 # every check after the first hangs
        [200, {}, filter.dump]
      end
      script = <<~RUBY
        require "bloomc"
        remote = Bloomc::Remote.new(ARGV[0], interval: 0.01)
        sleep 0.2
        puts remote.include?("user-1")
      RUBY
      lib = File.expand_path("../../lib", __dir__)
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      output = IO.popen([RbConfig.ruby, "-I", lib, "-e", script, server.url("/words")], &:read)
      expect(output).to eq("true\n")
      expect(served).to eq(2)
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 3
    end

    it "runs its thread again in a forked child" do
      skip "no fork here" unless Process.respond_to?(:fork)

      server.serve("/words", filter.dump)
      words = remote
      reader, writer = IO.pipe
      pid = fork do
        reader.close
        seen = server.requests_to("/words").size
        ok = words.running? && (1..200).any? { sleep 0.01; words.last_checked_at && Time.now - words.last_checked_at < 0.05 }
        writer.write(ok ? "ok" : "no thread (#{seen})")
        exit!(0)
      end
      writer.close
      expect(reader.read).to eq("ok")
      Process.wait(pid)
    end

    it "is declared in sig/bloomc.rbs with exactly its public methods" do
      decls = Signatures.declarations("bloomc.rbs")
      bloomc = decls.find { |d| d.name.to_s == "Bloomc" }
      decl = bloomc.members.find { |d| d.respond_to?(:name) && d.name.to_s == "Remote" }
      methods = decl.members.grep(RBS::AST::Members::MethodDefinition)
      expect(methods.select(&:instance?).map(&:name).sort).to eq((described_class.public_instance_methods(false) + [:initialize]).sort)
      expect(methods.select(&:singleton?).map(&:name).sort).to eq(described_class.singleton_methods(false).sort)
      fetch = bloomc.members.find { |d| d.is_a?(RBS::AST::Members::MethodDefinition) && d.name == :fetch }
      expect(fetch&.kind).to eq(:singleton)
    end
  end
end
