# frozen_string_literal: true

# The values the bad-input matrix puts in every argument position, the
# exceptions the guide's "Bad input" paragraph documents, and the count of calls
# made (the spec prints it).
module BadInputMatrix
  # The values the matrix is built from, with the labels its messages use.
  BAD_VALUES = [
    ["nil", nil], ["true", true], ["1.5", 1.5], ["Float::NAN", Float::NAN],
    ["Float::INFINITY", Float::INFINITY], ["-Float::INFINITY", -Float::INFINITY],
    ["-1", -1], ["0", 0], ["2**64", 2**64], ["-(2**64)", -(2**64)], ["2**200", 2**200],
    ['""', ""], ['"\xff\x00\xfe".b', "\xff\x00\xfe".b.freeze], ['"10"', "10"], [":sym", :sym],
    ["[]", [].freeze], ["{}", {}.freeze], ["Object.new", Object.new.freeze]
  ].freeze
  # Numbers of the right type that no machine can serve: sizes at and near the
  # documented maxima (NoMemoryError), and capacities whose m overflows a Float.
  HUGE_VALUES = [["2**56", 2**56], ["2**60", 2**60], ["1e308", 1e308], ["2**1100", 2**1100]].freeze
  VALUES = (BAD_VALUES + HUGE_VALUES).freeze
  BARE_VALUES = VALUES.map(&:last).freeze # without their labels, in the same order

  # the guide's "Bad input" classes (and Bloomc::Error subclasses): the only
  # exceptions any expected outcome may name.
  DOCUMENTED = [ArgumentError, TypeError, IndexError, RangeError, FrozenError, NoMemoryError,
                Bloomc::UnsupportedError, SystemCallError].freeze
  NOMEM_BYTES = 2**44 # an allocation above this must fail (NoMemoryError), below it must succeed
  BITS_MAX = 2**60
  BUCKETS_MAX = 2**56
  LN2 = Math.log(2)

  @calls = 0
  class << self
    attr_accessor :calls
  end
end
