# frozen_string_literal: true

require "spec_helper"
require "json"
require "net/http"
require "open3"
require "timeout"
require "tmpdir"

# `bloomc serve DIR` as a person runs it: a real Puma on loopback, one log
# line per request, files saved while it runs picked up, and (when Chromium
# is installed) its front page in a headless browser, whose answers, computed
# by the JavaScript reader, must be Ruby's.
RSpec.describe "bloomc serve", :slow do
  exe = File.expand_path("../../exe/bloomc", __dir__)
  lib = File.expand_path("../../lib", __dir__)
  gems = OptionalGems.installed?("rack", "puma")

  before do
    skip "the rack and puma gems are not installed" unless gems || ENV["BLOOMC_SERVE_REQUIRED"]
  end

  around do |example|
    Dir.mktmpdir do |dir|
      @dir = dir
      example.run
    ensure
      stop_serve
    end
  end

  # Starts the command on a free port; returns the front page's URL.
  include ServeProcess

  define_method(:start_server) do |*args|
    @log = Queue.new
    @lines = []
    @url = start_serve(*args, @dir) { |log_line| @log << log_line }
  end

  it "serves the lines of stdin of the last --ttl seconds as one sliding resource with --slide" do
    @url = start_serve("--slide", "recent", "--ttl", "0.8", @dir, stdin: true)
    @serve_stdin.write("a\nb\n")
    @serve_stdin.flush
    served = nil
    Timeout.timeout(10) do
      sleep 0.05 until (served = get("/recent")).code == "200" && Bloomc.load(served.body).include?("b")
    end
    expect(Bloomc.load(served.body).include_all(%w[a b c])).to eq([true, true, false])
    sleep 1.1 # past 1.25 x ttl: the lines of then are gone from what is served
    @serve_stdin.write("c\n")
    @serve_stdin.flush
    Timeout.timeout(10) { sleep 0.05 until Bloomc.load(get("/recent").body).include?("c") }
    expect(Bloomc.load(get("/recent").body).include_all(%w[a b c])).to eq([false, false, true])
    @serve_stdin.close
  end

  def get(path, headers = {})
    uri = URI.join(@url, path)
    Net::HTTP.start(uri.host, uri.port) { |http| http.request(Net::HTTP::Get.new(uri, headers)) }
  end

  # The server's log lines (one per request), once there are +at_least+.
  def log_lines(at_least = 0)
    Timeout.timeout(10) { @lines << @log.pop while @lines.size < at_least }
    @lines << @log.pop until @log.empty?
    @lines.dup
  end

  keys = Array.new(1500) { |i| i % 3 == 1 ? "\u65e5\u672c-#{i}" : "key-#{i}" }.freeze
  define_method(:keys) { keys }

  def save_filters
    words = Bloomc::BloomFilter.new(capacity: 2000, error_rate: 0.01).add_all(keys.first(1000))
    words.metadata = { "source" => "serve_spec" }
    words.save(File.join(@dir, "words.bloom"))
    Bloomc::BlockedBloomFilter.new(capacity: 2000, error_rate: 0.01, seed: 9).add_all(keys.last(500))
                              .save(File.join(@dir, "blocked.bloom"), compress: true)
    File.write(File.join(@dir, "notes.txt"), "not a filter")
  end

  it "serves the directory on loopback, logs each request on one line, answers 304 and picks up new files" do
    save_filters
    start_server
    expect(@url).to start_with("http://127.0.0.1:")
    index = JSON.parse(get("index.json").body)
    expect(index["filters"].map { |f| f["name"] }.sort).to eq(%w[blocked words])
    first = get("words")
    expect(first.code).to eq("200")
    expect(first["content-type"]).to start_with("application/vnd.bloomc")
    expect(Bloomc.load(first.body).include_all(keys.first(3))).to eq([true, true, true])
    again = get("words", "If-None-Match" => first["etag"])
    expect([again.code, again.body.to_s]).to eq(["304", ""])
    expect(get("nothing-here").code).to eq("404")
    lines = log_lines(4)
    expect(lines[1]).to match(%r{\A127\.0\.0\.1 - \[[^\]]+\] "GET /words HTTP/1\.1" 200 \d+ \d+\.\dms\n\z})
    expect(lines.map { |l| l[/" (\d{3}) /, 1] }).to eq(%w[200 200 304 404])

    Bloomc::BloomFilter.new(100, 3).add("late").save(File.join(@dir, "late.bloom"))
    expect(JSON.parse(get("index.json").body)["filters"].map { |f| f["name"] }).to include("late")
    expect(Bloomc.load(get("late").body).include?("late")).to be(true)
  end

  it "answers and logs a request whose Accept-Encoding has empty elements (once a 500 with no log line)" do
    save_filters
    start_server
    res = get("words", "Accept-Encoding" => "gzip,,deflate")
    expect(res.code).to eq("200")
    expect(get("words", "Accept-Encoding" => ",gzip").code).to eq("200")
    expect(log_lines(2).map { |l| l[/" (\d{3}) /, 1] }).to eq(%w[200 200])
  end

  it "says what is wrong, on stderr with exit 2, for a missing directory or a bad port" do
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, exe, "serve", File.join(@dir, "missing"))
    expect([out, err, status.exitstatus]).to eq(["", "bloomc serve: #{File.join(@dir, 'missing')}: no such directory\n", 2])
    _out, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, exe, "serve", "--port", "70000", @dir)
    expect([err, status.exitstatus]).to eq(["bloomc serve: --port must be a whole number 0 .. 65535, not 70000\n", 2])
    _out, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, exe, "serve", "--bind", "nosuchhost.invalid", "--port", "0", @dir)
    expect([err.lines.size, err, status.exitstatus]).to match([1, /\Abloomc serve: cannot listen on nosuchhost\.invalid: /, 2])
  end

  describe "its front page, in headless Chromium" do
    chromium = %w[chromium chromium-browser google-chrome].map { |name| `command -v #{name} 2>/dev/null`.strip }.find { |p| !p.empty? }

    before do
      skip "Chromium is not installed" unless chromium || ENV["BLOOMC_BROWSER_REQUIRED"]
      begin
        require "ferrum"
      rescue LoadError
        raise if ENV["BLOOMC_BROWSER_REQUIRED"]

        skip "the ferrum gem is not installed"
      end
    end

    # The page's answer for +key+ in each filter, typed as a person would.
    def ask(page, key)
      field = page.at_css("#key")
      field.focus
      page.execute("document.getElementById('key').value = ''")
      field.type(key)
      page.execute("document.getElementById('ask').requestSubmit()")
      page.evaluate(<<~JS).to_h
        Array.from(document.querySelectorAll("#filters tr")).map((row) =>
          [row.dataset.name, row.querySelector("td.answer").dataset.held])
      JS
    end

    def wait_until_ready(page)
      Timeout.timeout(20) do
        sleep 0.05 until (state = page.evaluate("document.body.dataset.ready")) && !state.empty?
        raise "the page could not load its filters: #{page.at_css('#status').text}" unless state == "true"
      end
    end

    # Under `rake sanitize` the ASan runtime is preloaded for the extension;
    # Chromium is not the code under test and has an allocator of its own.
    define_method(:new_browser) do
      Ferrum::Browser.new(browser_path: chromium, headless: true, timeout: 20, process_timeout: 30,
                          browser_options: { "no-sandbox" => nil, "disable-gpu" => nil },
                          env: { "LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil })
    end

    # Starts the server, opens its front page in a new browser, waits for
    # the filters, and yields the page; the browser is closed after.
    def with_front_page
      start_server
      browser = new_browser
      begin
        page = browser.create_page
        page.go_to(@url)
        wait_until_ready(page)
        yield page
      ensure
        browser.quit
      end
    end

    # The answer cell of the filter NAME: its text, and whether it is styled
    # as a warning.
    def answer_cell(page, name)
      page.evaluate(<<~JS)
        ((cell) => ({ text: cell.textContent, warn: cell.classList.contains("warn") }))(
          document.querySelector('tr[data-name="#{name}"] td.answer'))
      JS
    end

    it "answers typed keys as Ruby does, and a reload revalidates with 304s" do
      save_filters
      with_front_page do |page|
        words = Bloomc.load_file(File.join(@dir, "words.bloom"))
        blocked = Bloomc.load_file(File.join(@dir, "blocked.bloom"))
        expect(page.evaluate("document.querySelector('tr[data-name=words] td.meta').textContent")).to eq('{"source":"serve_spec"}')
        probes = keys.first(4) + keys.last(4) + %w[never-added été key-99999]
        probes.each do |key|
          expect(ask(page, key)).to eq("words" => words.include?(key).to_s, "blocked" => blocked.include?(key).to_s), key
        end
        first_load = log_lines(5) # the page, bloomc.js, index.json and each filter
        expect(first_load.grep(%r{"GET /(words|blocked) }).map { |l| l[/" (\d{3}) /, 1] }).to eq(%w[200 200])
        page.refresh
        wait_until_ready(page)
        expect(ask(page, keys.first)).to eq("words" => "true", "blocked" => blocked.include?(keys.first).to_s)
        reload = []
        Timeout.timeout(10) do
          reload = log_lines(first_load.size + reload.size + 1).drop(first_load.size) until reload.grep(%r{"GET /(words|blocked) }).size >= 2
        end
        expect(reload.grep(%r{"GET /(words|blocked) }).map { |l| l[/" (\d{3}) /, 1] }).to eq(%w[304 304]), reload.join
      end
    end

    it "says, in words and not in green, that a filter past its capacity may be wrong when it answers maybe" do
      healthy = Bloomc::BloomFilter.new(capacity: 2000, error_rate: 0.01).add_all(keys.first(1000))
      healthy.save(File.join(@dir, "words.bloom"))
      full = Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(keys)
      full.save(File.join(@dir, "full.bloom"))
      # A key never added that the saturated filter still finds, and that
      # the healthy one does not.
      stranger = (0..).lazy.map { |i| "stranger-#{i}" }.find { |key| full.include?(key) && !healthy.include?(key) }
      with_front_page do |page|
        rate = JSON.parse(get("index.json").body)["filters"].find { |f| f["name"] == "full" }["false_positive_rate"]
        expect(rate).to be > 0.5

        expect(ask(page, stranger)).to eq("full" => "true", "words" => "false")
        full_answer = answer_cell(page, "full")
        expect(full_answer["warn"]).to be(true)
        expect(full_answer["text"])
          .to match(/\Amaybe — but this filter is past its capacity \([\d,]+ keys for 100\); its false-positive rate is about \d+%\z/)
        expect(full_answer["text"]).to include("about #{(rate * 100).round}%")
        expect(ask(page, keys.first)).to eq("full" => "true", "words" => "true") # added to both
        expect(answer_cell(page, "words")).to eq("text" => "maybe", "warn" => false)
        expect(answer_cell(page, "full")["warn"]).to be(true)
        colors = %w[full words].map { |name| page.evaluate("getComputedStyle(document.querySelector('tr[data-name=#{name}] td.answer')).color") }
        expect(colors[0]).not_to eq(colors[1]) # both say maybe: the healthy one in green, the full one not

        list = page.evaluate(<<~JS).to_h
          Array.from(document.querySelectorAll("#filters tr")).map((row) =>
            [row.dataset.name, row.querySelector(".warning")?.textContent ?? ""])
        JS
        expect(list["words"]).to eq("")
        expect(list["full"]).to include("past its capacity")
        expect(page.at_css("#status").text).to include("1 of them is past its capacity")
      end
    end
  end
end

RSpec.describe "bloomc serve's request log" do
  before do
    skip "the rack and puma gems are not installed" unless OptionalGems.installed?("rack", "puma") || ENV["BLOOMC_SERVE_REQUIRED"]
    require "bloomc/serve"
  end

  it "answers a request the app fails with a 500, logs it as any other, and tells rack.errors why" do
    out = StringIO.new
    errors = StringIO.new
    failing = ->(_env) { raise NoMethodError, "undefined method `strip' for nil" }
    env = Rack::MockRequest.env_for("/words", "rack.errors" => errors, "REMOTE_ADDR" => "127.0.0.1")
    status, headers, body = Bloomc::Serve::RequestLog.new(failing, out).call(env)
    expect([status, headers["content-length"], body.join]).to eq([500, "22", "internal server error\n"])
    expect(out.string).to match(%r{\A127\.0\.0\.1 - \[[^\]]+\] "GET /words HTTP/1\.1" 500 22 \d+\.\dms\n\z})
    expect(errors.string).to start_with('bloomc serve: GET "/words": NoMethodError: undefined method `strip\' for nil (')
  end

  # Rack::CommonLogger, measured in its place (docs/HTTP.md), writes no line
  # for a request whose app raised; these are the other promises of the log.
  it "writes each line in one write, escapes what a terminal would act on, and answers when the log is closed" do
    writes = []
    log = Object.new.tap { |o| o.define_singleton_method(:write) { |line| writes << line } }
    app = ->(_env) { [200, { "content-length" => "2" }, ["ok"]] }
    env = Rack::MockRequest.env_for("/w%1b", "REMOTE_ADDR" => "127.0.0.1", "SERVER_PROTOCOL" => "HTTP/1.1")
    env["PATH_INFO"] = "/w\e[2J\n"
    expect(Bloomc::Serve::RequestLog.new(app, log).call(env)).to eq([200, { "content-length" => "2" }, ["ok"]])
    expect(writes.size).to eq(1)
    expect(writes.first).to include('"GET /w\\e[2J\\n HTTP/1.1" 200 2 ').and end_with("ms\n")
    closed = StringIO.new.tap(&:close)
    expect(Bloomc::Serve::RequestLog.new(app, closed).call(Rack::MockRequest.env_for("/w"))[0]).to eq(200)
  end
end
