# frozen_string_literal: true

# Reference implementations the matrix checks results against: the hash
# functions and the sizing formulas, in plain Ruby (CRC-32C's is
# spec/support/crc32c_reference.rb, which crc32c_spec.rb uses too).
module BadInputMatrix
  # FNV's prime and offset basis, by width.
  FNV_PRIMES_AND_BASES = { 32 => [0x01000193, 0x811c9dc5], 64 => [0x100000001b3, 0xcbf29ce484222325] }.freeze

  module_function

  # FNV-1 multiplies by the prime, then xors the byte in; FNV-1a the other
  # way round.
  def fnv(name, str)
    bits = name.to_s.end_with?("64") ? 64 : 32
    prime, h = FNV_PRIMES_AND_BASES.fetch(bits)
    mask = 2**bits - 1
    xor_first = name.to_s.start_with?("fnv1a")
    str.each_byte { |b| h = xor_first ? ((h ^ b) * prime) & mask : ((h * prime) & mask) ^ b }
    h
  end

  def murmur3_32(str, seed)
    m = 0xffffffff
    rotl = ->(x, r) { ((x << r) | (x >> (32 - r))) & m }
    mix = ->(k) { (rotl[(k * 0xcc9e2d51) & m, 15] * 0x1b873593) & m }
    bytes = str.bytes
    h = seed
    (bytes.size / 4).times do |i|
      h ^= mix[bytes[i * 4, 4].each_with_index.sum { |b, j| b << (8 * j) }]
      h = (rotl[h, 13] * 5 + 0xe6546b64) & m
    end
    tail = bytes[(bytes.size / 4 * 4)..]
    h ^= mix[tail.each_with_index.sum { |b, j| b << (8 * j) }] unless tail.empty?
    h ^= bytes.size
    h ^= h >> 16
    h = (h * 0x85ebca6b) & m
    h ^= h >> 13
    h = (h * 0xc2b2ae35) & m
    h ^ (h >> 16)
  end

  # As Float arithmetic (2**1100 is Infinity there, without a warning).
  def find_m(capacity, error)
    capacity = Float::INFINITY if capacity.is_a?(Integer) && capacity > 2**1000
    capacity * Math.log(error) / Math.log(1.0 / 2**LN2)
  end

  # Deng and Rafiei's stable point, as the libBf manual gives it: the zero
  # fraction (1 / (1 + 1 / (d (1/k - 1/m))))**max and the rate (1 - zeros)**k.
  def stable_fpr(m, k, d, width)
    zeros = (1.0 / (1 + 1.0 / (d * (1.0 / k - 1.0 / m))))**(2**width - 1)
    (1 - zeros)**k
  end

  # What new(capacity:, error_rate:) sizes by (bloom_filter_spec checks
  # that its rate is the least m that keeps its promise).
  def find_m_k(capacity, error) = Bloomc::BloomFilter.find_m_k(capacity, error)

  # bloombroom's sizing, which BloomHelper.find_m_k keeps.
  def bloombroom_find_m_k(capacity, error)
    m = find_m(capacity, error).ceil
    [m, (LN2 * m / capacity).round.clamp(1, 128)]
  end
end
