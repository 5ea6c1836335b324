# frozen_string_literal: true

# Recipes of BitField and BitBucketField, checked against an Array model.
module BadInputMatrix
  field_read = ->(h, a, _, r, _) { r == h.model[a[0]] }
  # What both fields answer alike: a read, each, equality with a copy.
  FIELD_BASICS = {
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    "[]": { params: [POSITION], ok: field_read },
    get: { params: [POSITION], ok: field_read },
    zero?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == h.model[a[0]].zero? } },
    each: { block: true, ok: ->(h, _, _, r, y) { r.equal?(h.obj) && y == h.model } },
    "==": { params: [OTHER], ok: SAME_AS_DUP },
    eql?: { params: [OTHER], ok: SAME_AS_DUP },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.freeze

  bit_write = lambda do |value|
    ->(h, a, _, r, _) { h.model[a[0]] = value; r.equal?(h.obj) }
  end
  BIT_FIELD = FIELD_BASICS.merge(
    "[]=": {
      params: [POSITION, [:bit_value, 1]], write: true,
      ok: ->(h, a, _, r, _) { h.model[a[0]] = [1, true].include?(a[1]) ? 1 : 0; r.equal?(a[1]) }
    },
    set: { params: [POSITION], write: true, ok: bit_write[1] },
    unset: { params: [POSITION], write: true, ok: bit_write[0] },
    include?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == (h.model[a[0]] == 1) } },
    total_set: { ok: ->(h, _, _, r, _) { r == h.model.sum } },
    to_s: { ok: ->(h, _, _, r, _) { r == h.model.join } }
  ).freeze

  bucket_set = { params: [POSITION, [:bucket_value, :max.to_proc]], write: true,
                 ok: ->(h, a, _, r, _) { h.model[a[0]] = a[1]; r.equal?(a[1]) } }
  BIT_BUCKET_FIELD = FIELD_BASICS.merge(
    bits: { ok: ->(h, _, _, r, _) { r == h.width } },
    "[]=": bucket_set,
    set: bucket_set,
    inc: { params: [POSITION], write: true,
           ok: ->(h, a, _, r, _) { h.model[a[0]] = [h.model[a[0]] + 1, h.max].min; r == h.model[a[0]] } },
    dec: { params: [POSITION], write: true,
           ok: ->(h, a, _, r, _) { h.model[a[0]] = [h.model[a[0]] - 1, 0].max; r == h.model[a[0]] } },
    total_set: { ok: ->(h, _, _, r, _) { r == h.model.count(&:positive?) } },
    to_s: { params: [[:base, 10]], opt: 1, ok: ->(h, a, _, r, _) { r == h.render(a.fetch(0, 2)) } }
  ).freeze
end
