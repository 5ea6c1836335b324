# frozen_string_literal: true

# Reference implementations the matrix checks results against: the hash
# functions, CRC-32C and the sizing formulas, in plain Ruby.
module BadInputMatrix
  module_function

  def fnv(name, str)
    bits = name.to_s.end_with?("64") ? 64 : 32
    prime = bits == 64 ? 0x100000001b3 : 0x01000193
    h = bits == 64 ? 0xcbf29ce484222325 : 0x811c9dc5
    mask = 2**bits - 1
    alt = name.to_s.start_with?("fnv1a")
    str.each_byte do |b|
      if alt
        h = ((h ^ b) * prime) & mask
      else
        h = ((h * prime) & mask) ^ b
      end
    end
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

  # CRC-32C bit by bit: reflected polynomial 0x82F63B78, init and final xor
  # 0xFFFFFFFF; crc is the checksum of the bytes before str.
  def crc32c(str, crc = 0)
    c = crc ^ 0xffffffff
    str.each_byte do |b|
      c ^= b
      8.times { c = c.odd? ? (c >> 1) ^ 0x82f63b78 : c >> 1 }
    end
    c ^ 0xffffffff
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
