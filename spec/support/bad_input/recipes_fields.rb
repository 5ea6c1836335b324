# frozen_string_literal: true

# Recipes of BitField and BitBucketField, checked against an Array model.
module BadInputMatrix
  bit_read = ->(h, a, _, r, _) { r == h.model[a[0]] }
  bit_write = lambda do |value|
    ->(h, a, _, r, _) { h.model[a[0]] = value; r.equal?(h.obj) }
  end
  BIT_FIELD = {
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    "[]": { params: [POSITION], ok: bit_read },
    get: { params: [POSITION], ok: bit_read },
    "[]=": {
      params: [POSITION, [:bit_value, 1]], write: true,
      ok: ->(h, a, _, r, _) { h.model[a[0]] = [1, true].include?(a[1]) ? 1 : 0; r.equal?(a[1]) }
    },
    set: { params: [POSITION], write: true, ok: bit_write[1] },
    unset: { params: [POSITION], write: true, ok: bit_write[0] },
    include?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == (h.model[a[0]] == 1) } },
    zero?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == h.model[a[0]].zero? } },
    total_set: { ok: ->(h, _, _, r, _) { r == h.model.sum } },
    each: { block: true, ok: ->(h, _, _, r, y) { r.equal?(h.obj) && y == h.model } },
    to_s: { ok: ->(h, _, _, r, _) { r == h.model.join } },
    "==": { params: [OTHER], ok: SAME_AS_DUP },
    eql?: { params: [OTHER], ok: SAME_AS_DUP },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.freeze

  bucket_read = ->(h, a, _, r, _) { r == h.model[a[0]] }
  bucket_set = { params: [POSITION, [:bucket_value, ->(h) { h.max }]], write: true,
                 ok: ->(h, a, _, r, _) { h.model[a[0]] = a[1]; r.equal?(a[1]) } }
  BIT_BUCKET_FIELD = {
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    bits: { ok: ->(h, _, _, r, _) { r == h.width } },
    "[]": { params: [POSITION], ok: bucket_read },
    get: { params: [POSITION], ok: bucket_read },
    "[]=": bucket_set,
    set: bucket_set,
    zero?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == h.model[a[0]].zero? } },
    inc: { params: [POSITION], write: true,
           ok: ->(h, a, _, r, _) { h.model[a[0]] = [h.model[a[0]] + 1, h.max].min; r == h.model[a[0]] } },
    dec: { params: [POSITION], write: true,
           ok: ->(h, a, _, r, _) { h.model[a[0]] = [h.model[a[0]] - 1, 0].max; r == h.model[a[0]] } },
    total_set: { ok: ->(h, _, _, r, _) { r == h.model.count(&:positive?) } },
    each: { block: true, ok: ->(h, _, _, r, y) { r.equal?(h.obj) && y == h.model } },
    to_s: { params: [[:base, 10]], opt: 1, ok: ->(h, a, _, r, _) { r == h.render(a.fetch(0, 2)) } },
    "==": { params: [OTHER], ok: SAME_AS_DUP },
    eql?: { params: [OTHER], ok: SAME_AS_DUP },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.freeze
end
