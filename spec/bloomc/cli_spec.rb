# frozen_string_literal: true

require "spec_helper"
require "bloomc/cli"
require "open3"
require "pty"
require "stringio"
require "tmpdir"

# exe/bloomc run as a subprocess: exit statuses, stdout and stderr of every
# command and error path.
# :slow: nearly every example starts Ruby processes (about a minute in all).
RSpec.describe "exe/bloomc", :slow do
  exe = File.expand_path("../../exe/bloomc", __dir__)
  lib = File.expand_path("../../lib", __dir__)
  bloomc = [RbConfig.ruby, "-I", lib, exe].freeze

  around do |example|
    Dir.mktmpdir { |dir| @dir = dir; example.run }
  end

  def path(name) = File.join(@dir, name)

  # [stdout, stderr, exit status], stdin from +input+. Under `rake sanitize`
  # the preloaded ASan runtime warns on stderr of a refused huge allocation:
  # its lines are not the command's.
  define_method(:run) do |*args, input: "", env: {}|
    out, err, status = Open3.capture3(env, *bloomc, *args, stdin_data: input, binmode: true)
    [out, err.lines.grep_v(/\A==\d+==WARNING: AddressSanitizer/).join, status.exitstatus]
  end

  def write(name, content) = File.binwrite(path(name), content).then { path(name) }

  # Lines as bytes: invalid UTF-8, NUL bytes, an empty line, CRLF, and a last
  # line without its newline.
  odd = ["plain", "\xFF\xFE bytes", "nul\0inside", "", "crlf\r", "日本", "日月", "plain", "\xFF\xFE bytes", "", "日本"].map(&:b).freeze

  describe "dedup" do
    it "writes each line once, in order, whatever its bytes, from stdin or files" do
      out, err, status = run("dedup", input: "#{odd.join("\n")}\nlast".b)
      expect([err, status]).to eq(["", 0])
      expect(out.b).to eq(["plain", "\xFF\xFE bytes", "nul\0inside", "", "crlf\r", "日本", "日月", "last", ""].map(&:b).join("\n"))
      a = write("a.txt", "x\ny\nx\n")
      b = write("b.txt", "y\nz") # no final newline, and y seen in a.txt
      expect(run("dedup", a, b)).to eq(["x\ny\nz\n", "", 0])
      expect(run("dedup", a, "-", input: "w\nx\n")).to eq(["x\ny\nw\n", "", 0]) # - is stdin
    end

    # `bloomc query ids.bloom < candidates.txt`, as README shows: stdin is a
    # File there, and is sized for the progress bar.
    it "reads stdin redirected from a file, in every command that reads lines" do
      lines = write("lines.txt", "x\ny\nx\n")
      # stdout and stderr together, and the exit status
      redirected = ->(*args) { [IO.popen([*bloomc, *args, { in: lines, err: %i[child out] }], "rb", &:read), $?.exitstatus] }
      expect(redirected.("dedup")).to eq(["x\ny\n", 0])
      expect(redirected.("build", "-o", path("f.bloom"))).to eq(["", 0])
      expect(redirected.("query", path("f.bloom"))).to eq(["x\ny\nx\n", 0])
    end

    it "repeats a line after its ttl, not before" do
      # a SlidingBloomFilter (no --capacity): gone by 1.25 x ttl
      Open3.popen3(*bloomc, "dedup", "--ttl", "0.5") do |stdin, stdout, stderr, wait|
        stdin.write("a\n")
        stdin.flush
        expect(stdout.gets).to eq("a\n") # timed from here: the command has it
        stdin.write("a\n") # within the ttl: dropped
        stdin.flush
        sleep(0.9) # more than 1.5 x ttl
        stdin.write("a\nb\n")
        stdin.close
        expect([stdout.read, stderr.read, wait.value.exitstatus]).to eq(["a\nb\n", "", 0])
      end
    end

    it "holds a window of lines at any rate with --ttl and no --capacity, as no fixed filter could" do
      input = write("many.txt", (1..300_000).map { |i| "l#{i}\n" }.join * 2)
      out, err, status = run("dedup", "--ttl", "3600", "--error", "0.001", input)
      expect([out.count("\n"), err, status]).to match([be_within(300).of(300_000), "", 0])
    end

    it "builds a sliding filter whose lines expire wherever it is read, by the time since the build" do
      filter = path("window.bloom")
      expect(run("build", "--kind", "sliding", "--ttl", "0.6", "-o", filter, input: "a\nb\n")).to eq(["", "", 0])
      expect(run("query", filter, "a", "b", "c")).to eq(["a\nb\n", "", 0])
      expect(run("info", filter)[0]).to include("kind: SlidingBloomFilter").and include("ttl: 0.6")
      sleep(0.8) # past 1.25 x ttl
      expect(run("query", filter, "a", "b")).to eq(["", "", 1])
      expect(run("build", "--kind", "sliding", "-o", filter, input: "a\n")).to eq(["", "bloomc build: --kind sliding needs --ttl SECONDS\n", 2])
      expect(run("build", "--ttl", "5", "-o", filter, input: "a\n")).to eq(["", "bloomc build: --ttl is for --kind sliding\n", 2])
    end

    it "renews a repeated line's ttl: a line repeated more often than its ttl never comes out again" do
      Open3.popen3(*bloomc, "dedup", "--ttl", "1") do |stdin, stdout, stderr, wait|
        stdin.write("a\n")
        stdin.flush
        expect(stdout.gets).to eq("a\n")
        12.times do # 2.4 s, past 1.5 x ttl after the first: an add that did not renew would let it out again
          sleep(0.2)
          stdin.write("a\n")
          stdin.flush
        end
        stdin.close
        expect([stdout.read, stderr.read, wait.value.exitstatus]).to eq(["", "", 0])
      end
    end

    it "passes lines through a pipe as they come, not when the input ends" do
      Open3.popen3(*bloomc, "dedup") do |stdin, stdout, _stderr, wait|
        stdin.write("first\nfirst\nsecond\n")
        stdin.flush
        expect(stdout.gets).to eq("first\n") # before stdin is closed
        expect(stdout.gets).to eq("second\n")
        stdin.close
        expect(wait.value.exitstatus).to eq(0)
      end
    end

    it "keeps its memory to the filter, and stops quietly at a broken pipe" do
      out, err, status = Open3.capture3("seq 1 2000000 | #{bloomc.join(' ')} dedup --capacity 2000000 | head -3")
      expect([out, err, status.exitstatus]).to eq(["1\n2\n3\n", "", 0])
    end
  end

  describe "build, query, merge and info" do
    it "builds a filter from lines, finds them again, and exits as grep does" do
      keys = write("keys.txt", "#{odd.join("\n")}\n")
      expect(run("build", "--capacity", "100", "--error", "0.0001", "-o", path("f.bloom"), keys)).to eq(["", "", 0])
      filter = Bloomc.load_file(path("f.bloom"))
      expect(filter.all_include?(odd.uniq)).to be(true)
      expect(run("query", path("f.bloom"), input: "plain\nnever\n\xFF\xFE bytes\n".b)).to eq(["plain\n\xFF\xFE bytes\n".b, "", 0])
      expect(run("query", path("f.bloom"), "never", "absent")).to eq(["", "", 1])
      expect(run("query", "--invert", path("f.bloom"), "plain", "never")).to eq(["never\n", "", 0])
      expect(run("query", "-v", path("f.bloom"), "plain")).to eq(["", "", 1])
    end

    it "builds the filter add_all of the lines makes, from lines read in C on several threads" do
      lines = Array.new(60_000) { |i| "line-#{i}" } + ["", "x", "", "\xFF\xFE".b] # empty lines are keys
      write("many.txt", "#{lines.join("\n")}\nlast") # and a last line without "\n"
      lines << "last"
      { "bloom" => Bloomc::BloomFilter, "blocked" => Bloomc::BlockedBloomFilter, "counting" => Bloomc::CountingBloomFilter }.each do |kind, klass|
        expect(run("build", "--kind", kind, "--capacity", "100000", "-o", path("#{kind}.bloom"), path("many.txt"))[2]).to eq(0)
        expected = klass.new(capacity: 100_000, error_rate: 0.001).add_all(lines, threads: 1)
        expect(Bloomc.load_file(path("#{kind}.bloom"))).to eq(expected)
      end
    end

    it "reads stdin for a KEY -, in its place among the KEYs" do
      write("keys.txt", "a\nb\nc\n")
      expect(run("build", "-o", path("f.bloom"), path("keys.txt"))[2]).to eq(0)
      expect(run("query", path("f.bloom"), "-", input: "a\nx\nb\n")).to eq(["a\nb\n", "", 0])
      expect(run("query", path("f.bloom"), "c", "-", "x", "-", "a", input: "b\n")).to eq(["c\nb\na\n", "", 0]) # stdin read once
      expect(run("query", "--invert", path("f.bloom"), "-", input: "a\n-\n")).to eq(["-\n", "", 0]) # a key "-" on stdin
    end

    it "drops each line's \"\\r\" with --crlf, in dedup, build and query" do
      crlf = write("crlf.txt", "a\r\nb\r\na\nc\r\nb\r")
      expect(run("dedup", "--crlf", crlf)).to eq(["a\nb\nc\n", "", 0])
      expect(run("dedup", crlf)[0]).to eq("a\r\nb\r\na\nc\r\n") # without it, "\r" is part of a key: "a" is new
      expect(run("dedup", "--crlf", "-", input: "x\r\nx\n\r\n\n")).to eq(["x\n\n", "", 0])
      %w[bloom fuse].each do |kind|
        expect(run("build", "--crlf", "--kind", kind, "--capacity", "10", "-o", path("#{kind}.bloom"), crlf)[2]).to eq(0)
        expect(Bloomc.load_file(path("#{kind}.bloom")).include_all(%W[a b c a\r])).to eq([true, true, true, false])
        expect(run("query", "--crlf", path("#{kind}.bloom"), input: "a\r\nz\r\nc")).to eq(["a\nc\n", "", 0])
      end
      %w[dedup build query].each { |command| expect(run(command, "--help")[0]).to include("--crlf") }
    end

    it "builds every kind, and merges filters of one shape into their union" do
      write("one.txt", "a\nb\n")
      write("two.txt", "c\n")
      %w[bloom blocked counting cuckoo].each do |kind|
        2.times { |i| expect(run("build", "--kind", kind, "--capacity", "50", "-o", path("#{kind}#{i}.bloom"), path(%w[one.txt two.txt][i]))[2]).to eq(0) }
        expect(run("merge", "-o", path("#{kind}.bloom"), path("#{kind}0.bloom"), path("#{kind}1.bloom"))).to eq(["", "", 0])
        expect(Bloomc.load_file(path("#{kind}.bloom")).all_include?(%w[a b c])).to be(true)
      end
      out, err, status = run("merge", "-o", path("mixed.bloom"), path("bloom0.bloom"), path("counting0.bloom"))
      expect([out, status]).to eq(["", 2])
      expect(err).to match(/\Abloomc merge: .*counting0\.bloom: cannot combine a Bloomc::BloomFilter with a Bloomc::CountingBloomFilter\n\z/)
      expect(File.exist?(path("mixed.bloom"))).to be(false)
    end

    it "builds a cuckoo filter, describes it, and fails (exit 2, nothing saved) when the lines do not fit" do
      write("k.txt", (1..1000).map { |i| "key-#{i}\n" }.join)
      expect(run("build", "--kind", "cuckoo", "--capacity", "1000", "-o", path("c.bloom"), path("k.txt"))[2]).to eq(0)
      out, _err, status = run("info", path("c.bloom"))
      expect(status).to eq(0)
      expect(out).to match(/\Akeys: 1000 added, 100% of its capacity 1000\nkind: CuckooFilter\nm: 1120\nfingerprint bits: 13\nfill: /)
      expect(Bloomc.load_file(path("c.bloom")).all_include?((1..1000).map { |i| "key-#{i}" })).to be(true)
      out, err, status = run("build", "--kind", "cuckoo", "--capacity", "100", "-o", path("small.bloom"), path("k.txt"))
      expect([out, status]).to eq(["", 2])
      expect(err).to match(/\Abloomc build: the cuckoo filter found no room/)
      expect(File.exist?(path("small.bloom"))).to be(false)
    end

    # Issue 32: a line 9 times or more made build exit 2 at any --capacity:
    # a cuckoo filter keeps 8 copies of a fingerprint at most, and build
    # added every line.
    it "builds a cuckoo filter from lines that repeat, each added once" do
      write("rep.txt", (["same\n"] * 20 + (1..50).map { |i| "key-#{i}\n" } * 10).join)
      out, err, status = run("build", "--kind", "cuckoo", "--capacity", "1000", "-o", path("rep.bloom"), path("rep.txt"))
      expect([out, err, status]).to eq(["", "", 0])
      filter = Bloomc.load_file(path("rep.bloom"))
      expect([filter.size, filter.count("same"), filter.all_include?((1..50).map { |i| "key-#{i}" })]).to eq([51, 1, true])
      _, err, status = run("build", "--kind", "cuckoo", "-o", path("rep.bloom"), input: "x\n" * 9) # default --capacity too
      expect([err, status, Bloomc.load_file(path("rep.bloom")).size]).to eq(["", 0, 1])
    end

    it "builds a binary fuse filter from every line, 16-bit below an --error of 1/256" do
      write("k.txt", (1..1000).map { |i| "key-#{i}\n" }.join * 2)
      expect(run("build", "--kind", "fuse", "-o", path("f.bloom"), path("k.txt"))).to eq(["", "", 0])
      fuse = Bloomc.load_file(path("f.bloom"))
      expect([fuse.class, fuse.size, fuse.fingerprint_bits]).to eq([Bloomc::BinaryFuseFilter, 1000, 16])
      expect(fuse.all_include?((1..1000).map { |i| "key-#{i}" })).to be(true)
      expect(run("build", "--kind", "fuse", "--error", "0.01", "-o", path("f8.bloom"), path("k.txt"))[2]).to eq(0)
      expect(Bloomc.load_file(path("f8.bloom")).fingerprint_bits).to eq(8)
      out, _err, status = run("info", path("f8.bloom"))
      expect([out[/\A.*\n.*$/], status]).to eq(["keys: 1000 added\nkind: BinaryFuseFilter", 0])
    end

    it "describes a saved filter" do
      write("k.txt", (1..1000).map { |i| "key-#{i}\n" }.join)
      run("build", "--capacity", "1000", "--error", "0.01", "-o", path("k.bloom"), path("k.txt"))
      out, err, status = run("info", path("k.bloom"))
      expect([err, status]).to eq(["", 0])
      expect(out).to match(/\Akeys: (99\d|1000) new to it, (99|100)% of its capacity 1000\nkind: BloomFilter\nm: 9595\nk: 7\n/)
      expect(out).to match(/\nkeys added: 1000 \(repeats included\)\nfill: 5\d\.\d+%\nestimated count: (9[5-9]\d|10[0-4]\d)\n/)
      expect(out).to include("false-positive rate: 0.0", "size on disk: #{File.size(path('k.bloom'))} bytes")
      expect(out).not_to include("metadata")
    end

    it "matches chosen fields of each line (--delimiter, --fields) and prints the whole line, as DCSO's bloom check does" do
      write("ioc.txt", "evil.com\n10.0.0.1\nbad\0hash\n\u65e5\u672c\n")
      run("build", "--capacity", "1000", "-o", path("ioc.bloom"), path("ioc.txt"))
      log = "a,b,c\nx,evil.com,z\n10.0.0.1,q,r\nk,l,bad\0hash\n\u65e5\u672c\nnope\n,,\nlast,evil.com".b
      expect(run("query", "-d", ",", path("ioc.bloom"), input: log)).to eq(
        ["x,evil.com,z\n10.0.0.1,q,r\nk,l,bad\0hash\n\u65e5\u672c\nlast,evil.com\n".b, "", 0]
      )
      expect(run("query", "--fields", "2", path("ioc.bloom"), input: log)[0]).to eq("x,evil.com,z\nlast,evil.com\n")
      expect(run("query", "-f", "1,3", path("ioc.bloom"), input: log)[0]).to eq("10.0.0.1,q,r\nk,l,bad\0hash\n\u65e5\u672c\n".b)
      expect(run("query", "-f", "2-3", "-v", path("ioc.bloom"), input: log)[0]).to eq("a,b,c\n10.0.0.1,q,r\n\u65e5\u672c\nnope\n,,\n".b)
      expect(run("query", "-d", "\\t", "-f", "2", path("ioc.bloom"), input: "1\tevil.com\n2\tok\n")[0]).to eq("1\tevil.com\n")
      expect(run("query", "-f", "4", path("ioc.bloom"), input: log)).to eq(["", "", 1])
      {
        %w[-f 0] => "--fields 0: fields are numbered 1 .. 65536, a range low to high",
        %w[-f 3-2] => "--fields 3-2: fields are numbered 1 .. 65536, a range low to high",
        %w[-f 1,x] => "--fields is a list of field numbers from 1, such as 1,3 or 2-4, not 1,x",
        %w[-d ab] => '--delimiter must be one byte other than a newline, not "ab"'
      }.each do |args, message|
        expect(run("query", *args, path("ioc.bloom"), input: log)).to eq(["", "bloomc query: #{message}\n", 2]), args.inspect
      end
      expect(run("query", "-f", "1", path("ioc.bloom"), "evil.com")).to eq(
        ["", "bloomc query: --delimiter and --fields choose fields of the lines on stdin, not of KEYs\n", 2]
      )
    end

    it "keeps --metadata in the filter (a JSON object as a Hash, other text as text) and info shows it" do
      write("k.txt", "a\nb\n")
      expect(run("build", "--metadata", '{"source":"feed","n":2}', "-o", path("m.bloom"), path("k.txt"))[2]).to eq(0)
      expect(Bloomc.load_file(path("m.bloom")).metadata).to eq({ "source" => "feed", "n" => 2 })
      expect(run("info", path("m.bloom"))[0]).to end_with(%(metadata: {"source":"feed","n":2}\n))
      expect(run("merge", "-o", path("u.bloom"), path("m.bloom"), path("m.bloom"))[2]).to eq(0)
      expect(Bloomc.load_file(path("u.bloom")).metadata).to eq({ "source" => "feed", "n" => 2 }) # the first's
      expect(run("merge", "--metadata", "the union", "-o", path("u.bloom"), path("m.bloom"))[2]).to eq(0)
      expect(Bloomc.load_file(path("u.bloom")).metadata).to eq("the union")
      _out, err, status = run("build", "--metadata", "{bad", "-o", path("x.bloom"), path("k.txt"))
      expect(err).to start_with("bloomc build: --metadata starts with { but is not a JSON object (")
      expect([status, File.exist?(path("x.bloom"))]).to eq([2, false])
    end
  end

  # Issue 19: no line lost without a word. Without --capacity the filter
  # grows; past a --capacity given, one warning line.
  describe "capacity" do
    # More distinct lines than the growing filter's first layer holds.
    many = Array.new(Bloomc::CLI::GROWING_FROM + 40_000) { |i| "line-#{i}" }.freeze

    it "dedup without --capacity writes every distinct line of an input larger than its first layer, silently" do
      input = write("many.txt", (many + many.first(1000) + many.last(1000)).map { |line| "#{line}\n" }.join)
      out, err, status = run("dedup", input)
      expect([err, status]).to eq(["", 0])
      expect(out.split("\n")).to eq(many)
    end

    it "dedup past --capacity writes one warning line: how many lines came in new, and the rate reached; exits 3" do
      input = write("words.txt", many.first(50_000).map { |line| "#{line}\n" }.join)
      out, err, status = run("dedup", "--capacity", "10000", "--error", "0.01", input)
      expect(status).to eq(3)
      written = out.count("\n")
      expect(written).to be_between(10_001, 49_999)
      expect(err.lines.size).to eq(1)
      expect(err).to match(/\Abloomc dedup: warning: #{written} lines were new to a filter sized for --capacity 10000 lines; past it, the false-positive rate reached 0\.\d+ .*above --error 0\.01: give a larger --capacity/)
      # within capacity: quiet
      expect(run("dedup", "--capacity", "60000", input)[1]).to eq("")
      # --ttl sizes by --capacity too, and warns alike from the live keys' estimate
      expect(run("dedup", "--ttl", "60", "--capacity", "10000", "--error", "0.01", input).drop(1)).to match([/warning: /, 3])
    end

    # Issue 32: dedup --capacity 10 of 100,000 distinct lines printed 53 and
    # exited 0, and build saved a filter whose rate was 1 and exited 0: a
    # warning alone is silent to cron and `set -e`.
    it "exits 3 past --capacity and --error, after all its output, in dedup and build; 0 within" do
      input = write("distinct.txt", (1..100_000).map { |i| "#{i}\n" }.join)
      out, err, status = run("dedup", "--capacity", "10", input)
      expect([status, err[/\Abloomc dedup: warning: (\d+) lines were new/, 1]]).to eq([3, out.count("\n").to_s])
      expect(out.split("\n")).to eq(out.split("\n").uniq)
      _, err, status = run("build", "--capacity", "10", "-o", path("full.bloom"), input)
      expect([status, err.lines.size, Bloomc.load_file(path("full.bloom")).false_positive_rate]).to eq([3, 1, 1.0])
      # a cuckoo filter past --capacity whose rate is still within --error (its rate at capacity is below it)
      expect(run("build", "--kind", "cuckoo", "--capacity", "1000", "-o", path("over.bloom"), input: (1..1020).map { |i| "#{i}\n" }.join))
        .to eq(["", "", 0])
      expect(Bloomc.load_file(path("over.bloom")).over_capacity?).to be(true)
      expect(run("build", "--capacity", "100000", "-o", path("roomy.bloom"), input).drop(1)).to eq(["", 0])
      expect(run("dedup", "--capacity", "100000", input).drop(1)).to eq(["", 0])
      # a little past --capacity, the rate still within --error: no warning, 0
      expect(run("dedup", "--capacity", "99990", "--error", "0.01", input).drop(1)).to eq(["", 0])
      expect(run("--help")[0]).to include("3 dedup or build went past --capacity")
    end

    it "build past --capacity warns, and info reports the filter past its capacity" do
      input = write("keys.txt", many.first(5000).map { |line| "#{line}\n" }.join)
      _, err, status = run("build", "--capacity", "1000", "-o", path("small.bloom"), input)
      expect(status).to eq(3)
      expect(err).to match(/\Abloomc build: warning: \d+ keys were new to a filter sized for --capacity 1000; past it/)
      out, err, status = run("info", path("small.bloom"))
      expect(status).to eq(0)
      expect(out).to match(/\Akeys: \d+ new to it, \d+% of its capacity 1000 \(over it\)\n/).and include("over capacity: yes")
      expect(err).to match(/\Abloomc info: warning: .*small\.bloom holds more keys than its capacity; its false-positive rate is 0\.\d+, above the 0\.001/)
      run("build", "--capacity", "10000", "-o", path("roomy.bloom"), input)
      out, err, = run("info", path("roomy.bloom"))
      expect([out.include?("over capacity"), err]).to eq([false, ""])
    end

    it "build without --capacity saves a scalable filter that holds every key; --kind scalable takes --capacity as its first layer" do
      input = write("many.txt", many.map { |line| "#{line}\n" }.join)
      expect(run("build", "-o", path("grown.bloom"), input)).to eq(["", "", 0])
      grown = Bloomc.load_file(path("grown.bloom"))
      expect(grown).to be_a(Bloomc::ScalableBloomFilter)
      expect([grown.layers.size, grown.error_rate, grown.all_include?(many)]).to eq([2, 0.001, true])
      out, err, = run("info", path("grown.bloom"))
      expect(err).to eq("")
      expect(out).to match(%r{\Akeys: \d+ added\nkind: ScalableBloomFilter\nm: \d+\nlayers: 262144/262144 \(m=\d+ k=\d+\), 3\d{4}/524288 \(m=\d+ k=\d+\)\nerror rate: 0.001\n})
      expect(run("build", "--kind", "scalable", "--capacity", "100", "-o", path("s.bloom"), input)[2]).to eq(0)
      expect(Bloomc.load_file(path("s.bloom")).initial_capacity).to eq(100)
      expect(run("query", "--invert", path("s.bloom"), input: many.first(3000).join("\n"))).to eq(["", "", 1])
    end
  end

  # A line is looked up and written whole, so the commands hold it whole, up
  # to a limit (CLI::MAX_LINE, or --max-line) past which they stop.
  describe "long lines" do
    limit = Bloomc::CLI::MAX_LINE
    chunk = Bloomc::CLI::CHUNK
    refused = ->(name, line, bytes = limit) { "#{name}: line #{line} is longer than the limit of #{bytes} bytes (--max-line)" }

    it "takes a line of the limit's length and refuses one byte more, after the lines before it" do
      at = "x".b * limit
      over = "y".b * (limit + 1)
      long = write("long.txt", "a\n#{at}\na\n#{over}\nnever\n")
      expect(run("dedup", long)).to eq(["a\n#{at}\n", "bloomc dedup: #{refused.(long, 4)}\n", 2])
      expect(run("dedup", input: "b\n#{at}")).to eq(["b\n#{at}\n", "", 0]) # a last line without "\n"
      expect(run("dedup", input: "b\n#{over}")).to eq(["b\n", "bloomc dedup: #{refused.('stdin', 2)}\n", 2])
      # Line numbers count from 1 in each file, and from where stdin was when
      # bloomc began (a file's are counted again, a pipe's as they come).
      expect(run("dedup", write("short.txt", "a\nb\n"), "-", input: "c\n#{over}\n")).to eq(["a\nb\nc\n", "bloomc dedup: #{refused.('stdin', 2)}\n", 2])
      File.open(write("skip.txt", "skip\nmore\n#{at}\nb\n#{over}\n"), "rb") do |file|
        file.seek(5) # past "skip\n", as a shell's `read` leaves a shared stdin
        expect(IO.popen([*bloomc, "dedup", { in: file, err: %i[child out] }], "rb", &:read)).to eq("more\n#{at}\nb\nbloomc dedup: #{refused.('stdin', 4)}\n")
      end
      expect(run("build", "-o", path("f.bloom"), long)).to eq(["", "bloomc build: #{refused.(long, 4)}\n", 2])
      expect(File.exist?(path("f.bloom"))).to be(false)
      expect(run("build", "-o", path("f.bloom"), write("ok.txt", "a\n#{at}\n"))).to eq(["", "", 0])
      expect(run("query", path("f.bloom"), input: "#{at}\nnever\na\n#{over}\na\n")).to eq(["#{at}\na\n", "bloomc query: #{refused.('stdin', 4)}\n", 2])
    end

    it "reads --max-line in bytes, K, M or G" do
      expect(run("dedup", "--max-line", "1k", input: "#{'k' * 1024}\n#{'l' * 1025}\n")).to eq(["#{'k' * 1024}\n", "bloomc dedup: #{refused.('stdin', 2, 1024)}\n", 2])
      expect(run("dedup", "--max-line", "1M", input: "#{'m' * (1 << 20)}\n")).to eq(["#{'m' * (1 << 20)}\n", "", 0])
      expect(run("dedup", "--max-line", "1G", input: "g\n")).to eq(["g\n", "", 0])
      %w[0 -1 1.5 1T 2x K].each do |bad|
        message = "bloomc build: --max-line must be a positive whole number of bytes (K, M or G after it for KiB, MiB, GiB), not #{bad}\n"
        expect(run("build", "--max-line", bad, "-o", path("f.bloom"))).to eq(["", message, 2])
      end
      expect(run("query", "--help")[0]).to include("--max-line BYTES")
    end

    # In process, for speed: small limits, lines of every length around them,
    # cut anywhere by the reads (of limit + 2 bytes), over one or two files,
    # the first of them on stdin through a pipe every other time.
    it "refuses exactly the lines longer than a small --max-line, and keeps every other as it was" do
      rng = Random.new(19)
      bytes = ["a", "b", "\0", "\r", "\xFF"].map(&:b)
      [1, 2, 3, 5, 8].each do |max|
        40.times do |round|
          paths = Array.new(rng.rand(1..2)) do |f|
            lines = Array.new(rng.rand(0..12)) { Array.new(rng.rand(10).zero? ? max + 1 : rng.rand(0..max)) { bytes.sample(random: rng) }.join }
            write("in#{round}-#{f}.txt", lines.join("\n") + (rng.rand(2).zero? ? "\n" : ""))
          end
          # The model: each file's lines (a last one without "\n" too), new
          # ones written, up to the first that is too long.
          seen = {}
          expected = String.new(encoding: Encoding::BINARY)
          error = ""
          paths.each do |file|
            lines = File.binread(file).split("\n", -1)
            lines.pop if lines.last == ""
            bad = lines.index { |line| line.bytesize > max }
            lines.first(bad || lines.size).each { |line| expected << line << "\n" unless seen.key?(line) || !(seen[line] = true) }
            next unless bad

            error = "bloomc dedup: #{refused.(file, bad + 1, max)}\n"
            break
          end
          out = StringIO.new(String.new(encoding: Encoding::BINARY))
          err = StringIO.new(String.new)
          args = paths.dup
          reader, writer = IO.pipe
          if round.odd? # a few bytes: the pipe holds them all
            writer.write(File.binread(args[0]))
            error = error.sub(args[0], "stdin")
            args[0] = "-"
          end
          writer.close
          status = Bloomc::CLI.run(["dedup", "--capacity", "1000", "--max-line", max.to_s, *args], stdin: reader, stdout: out, stderr: err)
          reader.close
          expect([max, round, out.string, err.string, status]).to eq([max, round, expected, error, error.empty? ? 0 : 2])
        end
      end
    end

    # A pipe of zeros: the command must stop once the line passes the limit,
    # having read and held little more. The child prints its peak resident
    # memory (VmHWM) as it exits; the baseline is the same command on no input.
    it "stops a stream with no newline at the limit, in bounded memory and time", :aggregate_failures do
      skip "needs /proc/self/status" unless File.readable?("/proc/self/status")
      measured = [RbConfig.ruby, "-I", lib, "-e",
                  "at_exit { $stderr.print ' VmHWM ', File.read('/proc/self/status')[/^VmHWM:\\s+(\\d+)/, 1] }; load ARGV.shift", exe]
      cap = 16 * limit # more than the command may read: a command that reads on gets EOF, and fails below
      zeros = "\0".b * (64 << 10)
      feed = lambda do |bytes|
        Open3.popen3(*measured, "dedup", "--capacity", "1000") do |stdin, stdout, stderr, wait|
          watchdog = Thread.new { sleep(120); Process.kill(:KILL, wait.pid) } # a hang fails, and ends
          out = Thread.new { stdout.read }
          err = Thread.new { stderr.read }
          written = 0
          begin
            while written < bytes
              stdin.write(zeros)
              written += zeros.bytesize
            end
            stdin.close
          rescue Errno::EPIPE
            nil # it stopped reading: what it had not read was never written
          end
          status = wait.value
          watchdog.kill
          message, peak = err.value.split(" VmHWM ")
          [out.value, message, status.exitstatus, written, Integer(peak) * 1024]
        end
      end
      _, _, _, _, base = feed.(0)
      out, message, status, written, peak = feed.(cap)
      expect([out, message, status]).to eq(["", "bloomc dedup: #{refused.('stdin', 1)}\n", 2])
      expect(written).to be <= limit + 2 * chunk # what it read, plus what the pipe held
      # The line, the read buffer, and their growth. Not under `rake sanitize`:
      # ASan keeps what is freed in quarantine, and Ruby reallocates its read
      # buffer at each read, so RSS there means nothing.
      expect(peak - base).to be <= 4 * limit unless ENV["LD_PRELOAD"].to_s.include?("asan")
    end

    # Under a limit above what memory allows, running out is the line's fault
    # and said so, not the filter's. ASan reserves more address space than a
    # limit on it allows.
    it "says a line ran out of memory under a large --max-line, not the filter" do
      skip "address-space limit under ASan" if ENV["LD_PRELOAD"].to_s.include?("asan")
      skip "needs /proc/self/status" unless File.readable?("/proc/self/status")
      peak = "at_exit { $stderr.print ' VmPeak ', File.read('/proc/self/status')[/^VmPeak:\\s+(\\d+)/, 1] }; load ARGV.shift"
      _, err, = Open3.capture3(RbConfig.ruby, "-I", lib, "-e", peak, exe, "dedup", "--capacity", "1000", stdin_data: "")
      room = (Integer(err[/ VmPeak (\d+)\z/, 1]) << 10) + (192 << 20) # its address space on no input, and 192 MiB
      reader, writer = IO.pipe
      pid = Process.spawn(*bloomc, "dedup", "--capacity", "1000", "--max-line", "1G", "/dev/zero", out: File::NULL, err: writer, rlimit_as: room)
      writer.close
      expect([reader.read, Process.wait2(pid)[1].exitstatus]).to eq(["bloomc dedup: /dev/zero: line 1: not enough memory to hold a line that long (--max-line)\n", 2])
    end

    # Work counted, not timed: in a child with 4 KiB reads, every String#index,
    # #rindex and #count adds the length of the String it searches. A line of
    # 1 MiB takes 256 reads; searching all that was held at each read would
    # count 128 MiB. Reading also allocates no object a read.
    it "searches each byte read for a newline a bounded number of times, and makes no garbage", :aggregate_failures do
      line = "z" * (1 << 20)
      one = write("one.txt", "#{line}\n#{line.tr('z', 'y')}\nshort\n")
      four = write("four.txt", File.binread(one) * 4)
      script = <<~RUBY
        require "bloomc/cli"
        Bloomc::CLI.send(:remove_const, :CHUNK)
        Bloomc::CLI.const_set(:CHUNK, 4096)
        null = File.open(File::NULL, "w")
        dedup = ->(file) { Bloomc::CLI.run(["dedup", "--capacity", "1000", file], stdout: null) }
        allocated = lambda do |file|
          GC.disable
          before = GC.stat(:total_allocated_objects)
          dedup.(file)
          GC.stat(:total_allocated_objects) - before
        ensure
          GC.enable
        end
        allocated.(ARGV[0]) # method caches filled, constants interned
        # The least of three: an object a read would add 768 every time,
        # while a stray one (a signal's, once in a full sanitize run) does not
        # come back.
        garbage = Array.new(3) { allocated.(ARGV[1]) - allocated.(ARGV[0]) }.min
        searched = 0
        String.prepend(Module.new do
          %i[index rindex count].each { |name| define_method(name) { |*args| searched += bytesize; super(*args) } }
        end)
        status = dedup.(ARGV[0])
        puts [status, searched, garbage].join(" ")
      RUBY
      counts, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, "-e", script, one, four)
      expect([err, status.exitstatus]).to eq(["", 0])
      dedup_status, searched, garbage = counts.split.map { |count| Integer(count) }
      expect(dedup_status).to eq(0)
      expect(searched).to be <= 4 * File.size(one)
      expect(garbage).to be <= 0
    end
  end

  describe "user errors" do
    it "prints one line and exits 2, never a backtrace" do
      write("text.txt", "not a filter, though long enough to have a header's worth of bytes in it: #{'x' * 200}\n")
      {
        %w[nope] => /\Abloomc: unknown command "nope"/,
        %w[dedup --bogus] => /\Abloomc dedup: invalid option: --bogus\n\z/,
        %w[dedup --capacity lots] => /\Abloomc dedup: --capacity must be a whole number of lines, not lots\n\z/,
        %w[dedup --error 2] => /\Abloomc dedup: --error must be a probability above 0 and below 1, such as 0.001, not 2\n\z/,
        %w[dedup --ttl 0.001] => /\Abloomc dedup: --ttl must be a number of seconds, 0.02 .. 4294967296, not 0.001\n\z/,
        %w[dedup --capacity 1e14] => /\Abloomc dedup: not enough memory for a filter of --capacity 1e14 and --error 1e-06 \(failed to allocate \d+ bytes .+ of m = \d+\)\n\z/,
        %w[dedup --capacity 2.5] => /\Abloomc dedup: --capacity must be a whole number of lines, not 2.5\n\z/,
        %W[query f two\nlines] => /\Abloomc query: a KEY cannot contain a newline/,
        %w[build -o /dev/null x] => %r{\Abloomc build: /dev/null: not a regular file\n\z},
        %w[build -o /no/such/dir/f.bloom x] => %r{\Abloomc build: /no/such/dir/f.bloom: no such directory\n\z},
        %w[build --crlf=yes x] => /\Abloomc build: needless argument: --crlf=yes\n\z/,
        ["dedup", "/no/such/file"] => %r{\Abloomc dedup: /no/such/file: No such file or directory\n\z},
        %w[build x.txt] => /\Abloomc build: -o FILTER is required\n\z/,
        %w[build --kind nope -o f] => /\Abloomc build: unknown --kind nope \(bloom, blocked, counting, cuckoo, fuse, scalable, sliding\)\n\z/,
        %w[dedup --capacity 0] => /\Abloomc dedup: --capacity must be at least 1, not 0\n\z/,
        %w[query] => /\Abloomc query: give a FILTER to query\n\z/,
        ["query", "/no/such.bloom", "k"] => /No such file or directory\n\z/,
        %w[merge a b] => /\Abloomc merge: -o OUT is required\n\z/,
        %w[merge -o out] => /\Abloomc merge: give the FILTERs to merge\n\z/,
        %w[info] => /\Abloomc info: give one FILTER\n\z/
      }.each do |args, message|
        out, err, status = run(*args)
        expect([args, out, status]).to eq([args, "", 2])
        expect(err).to match(message)
        expect(err.lines.size).to eq(1)
      end
      out, err, status = run("info", path("text.txt"))
      expect([out, status]).to eq(["", 2])
      expect(err).to eq("bloomc info: #{path('text.txt')}: not a bloomc filter (bad magic)\n")
    end

    # Issue 32: --fields '' said "no implicit conversion from nil to
    # integer", any option of bytes not UTF-8 "invalid byte sequence in
    # UTF-8", --error 0 "error rate must be in (0, 1), got 0.0".
    it "names the option and its value as given in every option error" do
      write("k.txt", "a\n")
      run("build", "-o", path("k.bloom"), path("k.txt"))
      ff = "\xFF".b
      {
        ["query", "--fields", "", path("k.bloom")] => /\Abloomc query: --fields is a list of field numbers from 1, such as 1,3 or 2-4, not ""\n\z/,
        ["query", "--fields", ff, path("k.bloom")] => /\Abloomc query: --fields is a list .* not "\\xFF"\n\z/,
        ["query", "-d", "ab", path("k.bloom")] => /\Abloomc query: --delimiter must be one byte other than a newline, not "ab"\n\z/,
        ["dedup", "--capacity", ff] => /\Abloomc dedup: --capacity must be a whole number of lines, not "\\xFF"\n\z/,
        ["dedup", "--capacity", "1e30"] => /\Abloomc dedup: --capacity 1e30 and --error 1e-06: capacity .* needs more bits/,
        ["dedup", "--error", ff] => /\Abloomc dedup: --error must be a probability above 0 and below 1, such as 0.001, not "\\xFF"\n\z/,
        %w[build --error 0 -o x] => /\Abloomc build: --error must be .* not 0\n\z/,
        %w[build --error nan -o x] => /\Abloomc build: --error must be .* not nan\n\z/,
        %w[build --kind fuse --error 1 -o x] => /\Abloomc build: --error must be .* not 1\n\z/,
        ["dedup", "--ttl", ff] => /\Abloomc dedup: --ttl must be a number of seconds, 0.02 .. 4294967296, not "\\xFF"\n\z/,
        %w[dedup --ttl 1e300] => /\Abloomc dedup: --ttl must be .* not 1e300\n\z/,
        ["dedup", "--max-line", ff] => /\Abloomc dedup: --max-line must be .* not "\\xFF"\n\z/,
        ["build", "--kind", ff, "-o", "x"] => /\Abloomc build: unknown --kind "\\xFF" \(/,
        ["build", "--metadata", ff, "-o", "x"] => /\Abloomc build: --metadata must be UTF-8 text, not "\\xFF"\n\z/,
        ["build", "--metadata", "a" * 70_000, "-o", "x"] => /\Abloomc build: --metadata: metadata of 70002 bytes of JSON: at most 65536\n\z/,
        ["serve", "--port", ff, "."] => /\Abloomc serve: --port must be a whole number 0 .. 65535, not "\\xFF"\n\z/,
        ["info", "#{ff}.bloom"] => /\Abloomc info: .*\.bloom: No such file or directory\n\z/
      }.each do |args, message|
        out, err, status = run(*args)
        expect([args, out, status]).to eq([args, "", 2])
        expect(err).to match(message)
      end
      # one byte of any value is a delimiter; a KEY of any bytes is looked up
      expect(run("query", "-d", ff, "-f", "2", path("k.bloom"), input: "x#{ff}a\ny#{ff}b\n".b)).to eq(["x#{ff}a\n".b, "", 0])
      expect(run("query", path("k.bloom"), ff, "a")).to eq(["a\n", "", 0])
    end

    # Issue 32: a saved filter too large for memory had info, query and
    # merge blame "--capacity and --error", which they do not take.
    it "says which saved filter is too large for memory in info, query and merge" do
      skip "address-space limit under ASan" if ENV["LD_PRELOAD"].to_s.include?("asan")
      skip "needs /proc/self/status" unless File.readable?("/proc/self/status")
      File.binwrite(path("big.bloom"), Bloomc::BloomFilter.new(1 << 29, 3).add("x").dump(compress: true)) # 64 MiB of cells, 64 KiB saved
      peak = "at_exit { $stderr.print ' VmPeak ', File.read('/proc/self/status')[/^VmPeak:\\s+(\\d+)/, 1] }; load ARGV.shift"
      _, err, = Open3.capture3(RbConfig.ruby, "-I", lib, "-e", peak, exe, "info", path("none.bloom"))
      room = (Integer(err[/ VmPeak (\d+)\z/, 1]) << 10) + (32 << 20) # its address space, and 32 MiB
      [%w[info], %w[query], ["merge", "-o", path("m.bloom"), path("big.bloom")]].each do |command, *more|
        reader, writer = IO.pipe
        pid = Process.spawn(*bloomc, command, *more, path("big.bloom"), *(command == "query" ? ["x"] : []),
                            out: File::NULL, err: writer, rlimit_as: room)
        writer.close
        expect([reader.read, Process.wait2(pid)[1].exitstatus])
          .to match([/\Abloomc #{command}: .*big\.bloom: not enough memory to load this filter \(.*\)\n\z/, 2])
      end
    end

    it "reports a full disk, and a saturated filter's count, and writes through a symlink" do
      reader, writer = IO.pipe
      pid = Process.spawn(*bloomc, "--version", out: "/dev/full", err: writer)
      writer.close
      expect([reader.read, Process.wait2(pid)[1].exitstatus]).to eq(["bloomc: <STDOUT>: No space left on device\n", 2])
      write("many.txt", (1..5000).map { |i| "#{i}\n" }.join)
      File.symlink(path("target.bloom"), path("link.bloom"))
      expect(run("build", "--capacity", "10", "--error", "0.5", "-o", path("link.bloom"), path("many.txt"))[2]).to eq(3) # saved, past --capacity
      expect([File.symlink?(path("link.bloom")), File.file?(path("target.bloom"))]).to eq([true, true])
      expect(run("info", path("link.bloom"))[0]).to include("estimated count: saturated (every cell set)")
    end

    it "exits quietly with 130 on Ctrl-C" do
      _out, err, status = Open3.popen3(*bloomc, "dedup") do |stdin, stdout, stderr, wait|
        stdin.write("a\n")
        stdin.flush
        stdout.gets # running, and waiting for more input
        Process.kill(:INT, wait.pid)
        [stdout.read, stderr.read, wait.value]
      end
      expect([err, status.exitstatus]).to eq(["", 130])
    end
  end

  it "prints its usage on stderr and exits 2 when given no command, as a usage error" do
    out, err, status = run
    expect([out, status]).to eq(["", 2])
    expect(err).to start_with("Usage: bloomc COMMAND").and include("dedup", "serve")
  end

  it "reads a FILTER - from stdin and writes -o - to stdout, in build, merge, info and query" do
    built, err, status = run("build", "-o", "-", input: "a\nb\n")
    expect([err, status]).to eq(["", 0])
    expect(Bloomc.load(built).include_all(%w[a b c])).to eq([true, true, false])
    merged, = run("merge", "-o", "-", write("f.bloom", built), path("f.bloom"))
    expect(Bloomc.load(merged).size).to eq(4)
    expect(run("info", "-", input: merged)[0]).to start_with("keys: 4 added\n")
    expect(run("query", "-", "a", "c", input: built)).to eq(["a\n", "", 0])
    expect(run("query", "-", input: built)).to eq(["", "bloomc query: FILTER - is read from stdin: give the KEYs as arguments\n", 2])
  end

  it "prints a filter's JSON form with info --json" do
    built, = run("build", "-o", "-", input: "a\nb\n")
    json = JSON.parse(run("info", "--json", write("j.bloom", built))[0])
    expect(json.values_at("kind", "kind_number")).to eq(["ScalableBloomFilter", 9])
    expect(json["parameters"]["count"]).to eq(2)
  end

  # The demo's case: 2 million lines of which 455,000 are distinct, into a
  # filter sized for 500,000; "keys added" alone read as 4 times over.
  it "leads info with the keys new to the filter against its capacity" do
    write("k.txt", Array.new(3000) { |i| "key-#{i % 600}\n" }.join)
    run("build", "--capacity", "500", "-o", path("over.bloom"), path("k.txt"))
    run("build", "--capacity", "1000", "-o", path("under.bloom"), path("k.txt"))
    run("build", "-o", path("grows.bloom"), path("k.txt"))
    # past capacity, a few of the 600 are false positives, and not new
    expect(run("info", path("over.bloom"))[0]).to match(/\Akeys: 59\d new to it, 1[12]\d% of its capacity 500 \(over it\)\n/)
    under = run("info", path("under.bloom"))[0]
    expect(under).to start_with("keys: 600 new to it, 60% of its capacity 1000\n").and include("keys added: 3000 (repeats included)")
    expect(run("info", path("grows.bloom"))[0]).to start_with("keys: 600 added\n").and(satisfy { |out| !out.include?("keys added") })
    # A continuous filter counts by its cells, and one with every cell set
    # has no count (its estimate is Infinity); an A2 filter's capacity is a
    # window it is never over.
    saturated = Bloomc::ContinuousBloomFilter.new(capacity: 10, error_rate: 0.1, ttl: 60)
    saturated.add_all(Array.new(20_000) { |i| i })
    saturated.save(path("saturated.bloom"))
    out, _err, status = run("info", path("saturated.bloom"))
    expect([out.lines.first, status]).to eq(["keys: every cell set (its cells' estimate is past counting), over its capacity 10\n", 0])
    Bloomc::A2BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(Array.new(150) { |i| i }).save(path("a2.bloom"))
    out, err, status = run("info", path("a2.bloom"))
    expect([out.lines.first(2), err, status]).to eq([["keys: 150 added\n", "kind: A2BloomFilter\n"], "", 0])
  end

  # A grep user's -c is a count: no option is taken by a prefix of its name.
  it "takes options by their whole names only, with --name=value too" do
    write("k.txt", "a\nb\n")
    run("build", "--capacity=100", "-o", path("f.bloom"), path("k.txt"))
    expect(Bloomc.load_file(path("f.bloom")).capacity).to eq(100)
    expect(run("query", "-c", path("f.bloom"), "a", "b", "z")).to eq(["2\n", "", 0])
    expect(run("query", "--count", "--invert", path("f.bloom"), "a", "z")).to eq(["1\n", "", 0])
    expect(run("query", "-c", path("f.bloom"), "z")).to eq(["0\n", "", 1])
    {
      %w[query --cr f a] => "invalid option: --cr",
      %w[query --inv f a] => "invalid option: --inv",
      %w[build --cap 10 -o f] => "invalid option: --cap",
      %w[build -c 10 -o f] => "invalid option: -c",
      %w[dedup -e 0.1] => "invalid option: -e",
      %w[info --version f] => "invalid option: --version",
      %w[info --*-completion-bash=x f] => "invalid option: --*-completion-bash=x"
    }.each do |args, message|
      expect(run(*args)).to eq(["", "bloomc #{args[0]}: #{message}\n", 2]), args.inspect
    end
    expect(run("query", path("f.bloom"), "--", "-v")).to eq(["", "", 1]) # -- ends the options: -v is a key
  end

  it "is quiet with -q: query prints nothing and stops at the first key held; build and dedup warn of nothing" do
    write("k.txt", "a\nb\n")
    run("build", "--capacity", "100", "-o", path("f.bloom"), path("k.txt"))
    expect(run("query", "-q", path("f.bloom"), "z", "a")).to eq(["", "", 0])
    expect(run("query", "--quiet", path("f.bloom"), "z")).to eq(["", "", 1])
    # a held key, then more than a chunk, then a line past --max-line: -q
    # stops before it
    input = "a\n#{"z\n" * 600_000}#{'x' * 2048}\n"
    expect(run("query", "--max-line", "1K", path("f.bloom"), input: input)[2]).to eq(2)
    expect(run("query", "-q", "--max-line", "1K", path("f.bloom"), input: input)).to eq(["", "", 0])
    many = Array.new(500) { |i| "k#{i}\n" }.join
    expect(run("build", "-q", "--capacity", "10", "-o", path("over.bloom"), input: many)).to eq(["", "", 3])
    out, err, status = run("dedup", "--quiet", "--capacity", "10", input: many)
    expect([err, status]).to eq(["", 3])
    expect(out.lines.size).to be_between(10, 500)
  end

  it "names the gems serve needs as a CLI user installs them, on one line" do
    Dir.mkdir(path("filters"))
    # Without RubyGems and outside the bundle (whose RUBYOPT and RUBYLIB
    # would find them), neither gem loads; a server that starts all the same
    # is stopped after 20 s, and fails the example.
    unbundled = { "RUBYOPT" => nil, "RUBYLIB" => nil, "BUNDLE_GEMFILE" => nil, "BUNDLER_SETUP" => nil }
    out, err, status = Open3.capture3(unbundled, "timeout", "20", RbConfig.ruby, "--disable-gems", "-I", lib, exe, "serve", path("filters"))
    expect([out, err, status.exitstatus]).to eq(["", "bloomc serve: needs the gems rack and puma: gem install rack puma\n", 2])
  end

  it "prints --help for each command and --version" do
    expect(run("--version")).to eq(["bloomc #{Bloomc::VERSION}\n", "", 0])
    out, _, status = run("--help")
    expect(status).to eq(0)
    expect(out).to include("dedup", "build", "query", "merge", "info")
    %w[dedup build query merge info].each do |command|
      out, err, status = run(command, "--help")
      expect([err, status]).to eq(["", 0])
      expect(out).to start_with("Usage: bloomc #{command}")
      expect(run("help", command)[0]).to eq(out)
    end
  end

  # The bar is drawn at the first read (BLOOMC_PROGRESS_AFTER=0); stdout is a
  # pipe nobody reads, so dedup stops, its bar drawn and unfinished, once the
  # pipe is full.
  it "ends the progress bar's line on Ctrl-C, and exits 130" do
    lines = write("many.txt", (1..200_000).map { |i| "line #{i}\n" }.join)
    PTY.open do |terminal, tty|
      reader, writer = IO.pipe
      pid = Process.spawn({ "BLOOMC_PROGRESS_AFTER" => "0" }, *bloomc, "dedup", lines, out: writer, err: tty)
      [tty, writer].each(&:close)
      shown = +""
      shown << terminal.readpartial(4096) until shown.include?("many.txt")
      sleep 0.2 # until dedup waits on the full pipe
      Process.kill(:INT, pid)
      status = Process.wait2(pid)[1]
      begin
        loop { shown << terminal.read_nonblock(4096) }
      rescue IO::WaitReadable, EOFError, Errno::EIO
        nil
      end
      reader.close
      expect(status.exitstatus).to eq(130)
      expect(shown).to end_with("\n")
      expect(shown).not_to include("100%")
    end
  end

  it "shows a progress bar on a terminal's stderr only" do
    lines = write("many.txt", (1..200_000).map { |i| "line #{i}\n" }.join)
    _, err, = run("dedup", lines, env: { "BLOOMC_PROGRESS_AFTER" => "0" })
    expect(err).to eq("") # stderr is a pipe here
    PTY.open do |terminal, tty|
      pid = Process.spawn({ "BLOOMC_PROGRESS_AFTER" => "0" }, *bloomc, "dedup", lines, out: File::NULL, err: tty)
      tty.close
      Process.wait(pid)
      shown = +""
      begin
        loop { shown << terminal.read_nonblock(4096) }
      rescue IO::WaitReadable, EOFError, Errno::EIO
        nil
      end
      expect(shown).to include("many.txt", "100%")
    end
  end
end
