# frozen_string_literal: true

require "spec_helper"

# Thousands of mutated dumps, from a fixed seed: each must raise
# Bloomc::FormatError or load into a working filter of its kind, never crash,
# hang, raise anything else or ask for a huge allocation. Mutations that
# keep the checksum right (it is recomputed) reach the per-kind checks of
# every parameter and of the cells.
module FormatFuzzStats
  @totals = Hash.new(0)
  def self.add(outcomes) = outcomes.each { |k, v| @totals[k] += v }
  def self.report = @totals.map { |k, v| "#{v} #{k}" }.join(", ")
end

RSpec.describe "the binary format under mutation" do
  after(:all) { RSpec.configuration.reporter.message("format fuzz: #{FormatFuzzStats.report}") }

  MUTATIONS_PER_SAMPLE = Integer(ENV.fetch("FORMAT_FUZZ", "500"))
  # The newest kinds get more, so that each sees 10,000 mutated dumps by
  # default (issue 21): 4 cuckoo samples and 3 fuse ones, plain and deflated.
  MORE_FOR = { "cuckoo" => 2.5, "fuse" => 10 / 3.0 }.freeze

  def self.mutations_for(name) = (MUTATIONS_PER_SAMPLE * MORE_FOR.fetch(name[/\A[a-z]+/], 1)).ceil

  # Both checksums made right again after an edit (the parameter count read
  # from the mutated header, as a reader would).
  def with_crc(bytes)
    return bytes if bytes.bytesize < 16

    at = 16 + 8 * bytes.unpack1("S<", offset: 14)
    return bytes if bytes.bytesize < at + 24

    body_at = (at + 24 + 63) / 64 * 64
    bytes = bytes.dup
    bytes[at + 16, 4] = [Bloomc::CRC32C.checksum(bytes.byteslice(body_at..) || "")].pack("L<")
    bytes[at + 20, 4] = [Bloomc::CRC32C.checksum(bytes.byteslice(0, at + 20))].pack("L<")
    bytes
  end

  INTERESTING = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 129, 255, 2**31, 2**32 - 1, 2**32,
                 2**56, 2**56 + 1, 2**60, 2**60 + 1, 2**63, 2**64 - 1].freeze

  # One mutation of +data+ (a dump whose header has +n+ parameters).
  def mutate(data, n, rng)
    d = data.dup
    case rng.rand(10)
    when 0 # flip a bit anywhere; the checksum catches it
      i = rng.rand(d.bytesize)
      d.setbyte(i, d.getbyte(i) ^ (1 << rng.rand(8)))
    when 1 then d = d.byteslice(0, rng.rand(d.bytesize)) # truncate
    when 2 then d << rng.bytes(rng.rand(1..64)) # append
    when 3 # a parameter, checksum kept right
      d[16 + 8 * rng.rand(n), 8] = [rng.rand(3).zero? ? rng.rand(2**64) : INTERESTING.sample(random: rng)].pack("Q<")
      d = with_crc(d)
    when 4 # a byte of the body, checksum kept right
      body_at = (40 + 8 * n + 63) / 64 * 64
      if d.bytesize > body_at + 4
        i = rng.rand(body_at...(d.bytesize - 4))
        d.setbyte(i, rng.rand(256))
      end
      d = with_crc(d)
    when 5 # version, kind, flags or parameter count
      d[8 + 2 * rng.rand(4), 2] = [INTERESTING.sample(random: rng) & 0xffff].pack("S<")
      d = with_crc(d)
    when 6 # the stored or inflated length, or the open-for-writing flag
      if rng.rand(3).zero?
        d.setbyte(12, d.getbyte(12) | 2)
      else
        d[16 + 8 * n + 8 * rng.rand(2), 8] = [INTERESTING.sample(random: rng)].pack("Q<")
      end
      d = with_crc(d)
    when 7 # a run of random bytes over the header, checksum kept right
      i = rng.rand([d.bytesize - 4, 1].max)
      len = [rng.rand(1..16), d.bytesize - 4 - i].min
      d[i, len] = rng.bytes(len) if len.positive?
      d = with_crc(d)
    when 8 # the padding
      pad_at = 40 + 8 * n
      d.setbyte(pad_at, 1) if pad_at % 64 != 0
      d = with_crc(d)
    else # several bit flips in the body, checksum kept right
      rng.rand(1..4).times do
        i = rng.rand([d.bytesize - 4, 1].max)
        d.setbyte(i, d.getbyte(i) ^ (1 << rng.rand(8)))
      end
      d = with_crc(d)
    end
    d
  end

  FormatSamples::BUILDERS.merge(FormatSamples::BUILDERS_V2).each do |name, build|
    [false, true].each do |compress|
      mutations = mutations_for(name)
      it "#{name}#{' (deflated)' if compress}: #{mutations} mutations raise FormatError or load a working filter" do
        rng = Random.new(name.sum * 2 + (compress ? 1 : 0))
        original = build.call
        data = original.dump(compress: compress)
        n = data.unpack1("S<", offset: 14)
        outcomes = Hash.new(0)
        mutations.times do |i|
          bytes = mutate(data, n, rng)
          begin
            filter = Bloomc.load(bytes)
          rescue Bloomc::FormatError
            outcomes[:refused] += 1
            next
          rescue StandardError, NoMemoryError => e
            raise "mutation #{i} of #{name}: #{e.class}: #{e.message}\n  input: #{bytes.unpack1('H*')[0, 400]}"
          end
          outcomes[:loaded] += 1
          # A loaded filter is whole: it answers, takes keys, and round-trips.
          filter.include_all(FormatSamples::KEYS.first(5))
          begin
            filter << "fresh"
          rescue Bloomc::CapacityError # a scalable filter may load at its max_capacity
            next outcomes[:full] += 1
          rescue Bloomc::UnsupportedError # a binary fuse filter is built once
            expect(Bloomc.load(filter.dump)).to eq(filter)
            next outcomes[:static] += 1
          end
          expect(filter.include?("fresh")).to be(true)
          expect(Bloomc.load(filter.dump)).to eq(filter)
          filter.fill_ratio
        end
        expect(outcomes[:refused]).to be > mutations / 3
        FormatFuzzStats.add(outcomes)
      end
    end
  end
end
