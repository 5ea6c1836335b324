# frozen_string_literal: true

# Recipes of the hash and checksum modules (FNV, Murmur3, CRC32C) and
# BloomHelper, checked against references.rb and CRC32CReference.
module BadInputMatrix
  FNV = %i[fnv1_32 fnv1a_32 fnv1_64 fnv1a_64].to_h do |name|
    [name, { params: [[:string, "abc"]], ok: ->(_, a, _, r, _) { r == BadInputMatrix.fnv(name, a[0]) } }]
  end.freeze

  # hash128 and digest128 are one 128-bit value, as an Integer and as its
  # 16 little-endian bytes.
  as_integer = ->(digest) { digest.unpack("Q<Q<").then { |lo, hi| lo + (hi << 64) } }
  key_and_seed = [[:string, "abcde"], [:seed, 0xdeadbeef]]
  MURMUR3 = {
    hash32: { params: key_and_seed, opt: 1, ok: ->(_, a, _, r, _) { r == BadInputMatrix.murmur3_32(a[0], a.fetch(1, 0)) } },
    hash128: { params: key_and_seed, opt: 1, ok: ->(_, a, _, r, _) { r == as_integer[Bloomc::Murmur3.digest128(*a)] } },
    digest128: { params: key_and_seed, opt: 1,
                 ok: ->(_, a, _, r, _) { r.encoding == Encoding::BINARY && r.bytesize == 16 && as_integer[r] == Bloomc::Murmur3.hash128(*a) } }
  }.freeze

  CRC32C = {
    checksum: { params: [[:string, "123456789"], [:seed, 0xe3069283]], opt: 1,
                ok: ->(_, a, _, r, _) { r == CRC32CReference.checksum(*a) } }
  }.freeze

  multi_hash_ok = lambda do |_, a, kw, r, _|
    key, k, m = a
    next "not k Integers" unless r.is_a?(Array) && r.size == k && r.all?(Integer)
    next r.all? { |v| (0...(2**64)).cover?(v) } if m.nil?
    next false unless r.all? { |v| (0...m).cover?(v) }
    next true if m > 10_000

    filter = Bloomc::BloomFilter.new(m, k, hash: kw.fetch(:hash, :murmur3_mixed))
    filter << key
    filter.bits.each_with_index.select { |b, _| b == 1 }.map(&:last) == r.uniq.sort
  end
  BLOOM_HELPER = {
    find_m_k: { params: [[:fmk_capacity, 100], [:fmk_error, 0.01]],
                ok: ->(_, a, _, r, _) { r == BadInputMatrix.bloombroom_find_m_k(*a) } },
    multi_hash: { params: [[:key, "abc"], [:k, 5], [:multi_m, 1000]], opt: 1, kw: { hash: %i[hash_name fnv1a] },
                  ok: multi_hash_ok }
  }.freeze
end
