# frozen_string_literal: true

require "spec_helper"
require "json"
require "net/http"
require "timeout"
require "tmpdir"

# The parts of issue 22 together, as the seed document's service runs them:
# a PeriodicFilter of the users changed each hour, published by RackApp on a
# real Puma (Bloomc::Serve's server), read back by Bloomc.fetch and kept
# fresh by Bloomc::Remote through 304s, also while the server is down.
RSpec.describe "publishing filters over HTTP", :slow do
  gems = OptionalGems.installed?("rack", "puma")

  before do
    skip "the rack and puma gems are not installed" unless gems || ENV["BLOOMC_SERVE_REQUIRED"]
    require "bloomc/rack"
    require "puma"
    require "puma/server"
  end

  # Serves +app+ on a free loopback port for the block; yields its base URL.
  def serving(app)
    server = Puma::Server.new(app, nil, min_threads: 1, max_threads: 4, log_writer: Puma::LogWriter.null,
                                        environment: "test")
    server.add_tcp_listener("127.0.0.1", 0)
    server.run
    yield "http://127.0.0.1:#{server.connected_ports.first}/", server
  ensure
    server&.stop(true)
  end

  def get(url, headers = {})
    uri = URI(url)
    Net::HTTP.start(uri.host, uri.port) { |http| http.request(Net::HTTP::Get.new(uri, headers)) }
  end

  let(:hour) { 3600 }
  let(:start) { Time.utc(2026, 11, 24, 13, 5) }

  it "publishes one filter per hour at its own URL: closed hours immutable, the current one short-lived, the union found" do
    now = start
    changed = Bloomc::PeriodicFilter.new(period: hour, retention: 3, clock: -> { now }) do
      Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01)
    end
    changed.add_all(%w[alice bob])
    now += hour
    changed.add_all(%w[carol])
    app = Bloomc::RackApp.new(nil)
    app.publish("changed", changed)
    serving(app) do |url|
      index = JSON.parse(get("#{url}index.json").body)["filters"]
      expect(index.map { |f| f["name"] }).to eq(%w[changed/2026-11-24T13 changed/2026-11-24T14])
      expect(index.first["metadata"]).to eq("period_start" => "2026-11-24T13:00:00Z", "period_seconds" => 3600)

      closed = get("#{url}changed/2026-11-24T13")
      expect(closed["cache-control"]).to include("immutable")
      expect(closed["cache-control"][/max-age=(\d+)/, 1].to_i).to be >= 86_400
      current = get("#{url}changed/2026-11-24T14")
      expect(current["cache-control"][/max-age=(\d+)/, 1].to_i).to be <= hour

      hours = index.map { |f| Bloomc.fetch(url + f["url"]) }
      expect(hours.map { |f| f.include_all(%w[alice carol dave]) }).to eq([[true, false, false], [false, true, false]])
      union = hours.reduce(:|)
      expect(union.include_all(%w[alice bob carol dave])).to eq([true, true, true, false])
      expect(changed.include_all(%w[alice bob carol dave], last: 2)).to eq([true, true, true, false])
      json = JSON.parse(get("#{url}changed/2026-11-24T13.json").body)
      expect(json["kind"]).to eq("BloomFilter")
      expect([json["cells"]].pack("H*")).to eq(hours.first.dump.byteslice((-json["cells"].size / 2)..))

      now += 3 * hour # past the retention: the first two hours are dropped, a new current one starts
      changed << "erin"
      names = JSON.parse(get("#{url}index.json").body)["filters"].map { |f| f["name"] }
      expect(names).not_to include("changed/2026-11-24T13")
      expect(get("#{url}changed/2026-11-24T13").code).to eq("404")
    end
  end

  it "keeps a Bloomc::Remote copy fresh by conditional GET against a directory, and answers from it while the server is down" do
    Dir.mktmpdir do |dir|
      path = File.join(dir, "words.bloom")
      Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01).add("first").save(path)
      serving(Bloomc::RackApp.new(dir)) do |url, server|
        remote = Bloomc::Remote.new("#{url}words", interval: 0.05)
        begin
          expect(remote.include?("first")).to be(true)
          copy = remote.filter
          sleep 0.2
          expect(remote.filter).to equal(copy) # 304s: the same copy, confirmed fresh
          expect(remote.age).to be < 1
          Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01).add_all(%w[first second]).save(path)
          Timeout.timeout(10) { sleep 0.02 until remote.include?("second") }
          server.stop(true)
          sleep 0.3
          expect(remote.include_all(%w[first second third])).to eq([true, true, false]) # the last good copy
          expect(remote.last_error).not_to be_nil
          expect(remote.age).to be > 0.2
        ensure
          remote.stop
        end
      end
    end
  end
end
