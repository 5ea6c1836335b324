# frozen_string_literal: true

module Bloomc
  # A short summary for inspect that also works on an object allocated but
  # never initialized (irb and error messages call inspect on anything).
  module Inspect
    # The class and the numbers that tell filters apart, such as
    # <tt>#<Bloomc::BloomFilter m=19177 k=13 size=500 fill=28.9% fpr~9.8e-08></tt>.
    def inspect
      "#<#{self.class} #{inspect_fields}#{stats_fields if is_a?(Stats)}>"
    rescue TypeError
      "#<#{self.class} (uninitialized)>"
    rescue IOError
      "#<#{self.class} (closed)>"
    end
  end

  class BitField
    include Inspect

    private def inspect_fields
      "size=#{size} set=#{total_set}"
    end
  end

  class BitBucketField
    include Inspect

    private def inspect_fields
      "bits=#{bits} size=#{size} set=#{total_set}"
    end
  end
end
